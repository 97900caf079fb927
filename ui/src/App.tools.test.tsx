// The workspace's memory tools as the app wires them: the sidebar's hover text, the workspace
// bar's Remember… / Forget… / Status, the Status view, and a remembered memory opening in the
// browser.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { App } from "./App";
import { ToastProvider } from "./components/common/Toasts";
import { commands } from "./lib/bindings";
import type { MemoryStats, RememberTask } from "./lib/bindings";
import { workspaceTitle } from "./components/browser/Sidebar";
import {
  DOCS,
  MODEL_SETTINGS,
  SYNC_SETTINGS,
  WORKSPACES,
  detailOf,
  err,
  ok,
  remoteSync,
  status,
  syncConflict,
  task,
  workspaceSync,
  proposalPage,
  reviewMode,
  rememberTask,
} from "./test/fixtures";
import { invalidateSyncStatus } from "./lib/changeBridge";

vi.mock("./lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    workspaces: vi.fn(),
    list: vi.fn(),
    logs: vi.fn(),
    get: vi.fn(),
    search: vi.fn(),
    history: vi.fn(),
    status: vi.fn(),
    getModelSettings: vi.fn(),
    // The local model's state: not read in these tests (the welcome and settings say they could not).
    localModel: vi.fn(async () => ({ status: "error", error: { code: "io", message: "not read in this test" } })),
    chatSessions: vi.fn(),
    chatTranscript: vi.fn(),
    tasks: vi.fn(),
    taskCancel: vi.fn(),
    task: vi.fn(),
    dream: vi.fn(),
    autoDream: vi.fn(),
    setAutoDream: vi.fn(),
    autoExtract: vi.fn(),
    setAutoExtract: vi.fn(),
    stats: vi.fn(),
    remember: vi.fn(),
    rememberTask: vi.fn(),
    forgetPreview: vi.fn(),
    forget: vi.fn(),
    undoGroup: vi.fn(),
    changeGroup: vi.fn(),
    diff: vi.fn(),
    syncStatus: vi.fn(),
    syncResolve: vi.fn(),
    syncSettings: vi.fn(),
    setSyncSettings: vi.fn(),
    syncNow: vi.fn(),
    reviewMode: vi.fn(),
    setReviewMode: vi.fn(),
    inbox: vi.fn(),
    proposal: vi.fn(),
    inboxAccept: vi.fn(),
    inboxReject: vi.fn(),
    memoryUsage: vi.fn(),
  },
}));

const api = vi.mocked(commands);

class FakeEventSource {
  static instances: FakeEventSource[] = [];
  private listeners = new Map<string, ((e: Event) => void)[]>();
  constructor(readonly url: string) {
    FakeEventSource.instances.push(this);
  }
  addEventListener(type: string, fn: (e: Event) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  close() {}
  fire(type: string, data: unknown) {
    for (const fn of this.listeners.get(type) ?? []) fn(new MessageEvent(type, { data: JSON.stringify(data) }));
  }
}

const STATS: MemoryStats = {
  workspace: "personal",
  auto_extract: true,
  auto_dream: true,
  last_extract_at: null,
  last_extract_status: null,
  last_dream_at: null,
  last_dream_status: null,
  last_dream_undone_by: null,
  topics: 5,
  logs: 0,
  chats: 0,
  chat_records: true,
  extraction: { road: "tools", then_planner: true, why: "not learned yet for this model" },
  memory_md_lines: 5,
  memory_md_max_lines: 200,
  memory_md_bytes: 400,
  memory_md_max_bytes: 25000,
  invalid: ["broken.md"],
  stale: [],
  expensive: [],
  archived: [],
  duplicates: 0,
  duplicate_files: [],
  same_name: [],
  same_subject: [],
  telemetry: [],
};

beforeEach(() => {
  api.reviewMode.mockResolvedValue(ok(reviewMode()));
  api.inbox.mockResolvedValue(ok(proposalPage()));
  api.memoryUsage.mockResolvedValue(ok([]));
  FakeEventSource.instances = [];
  vi.stubGlobal("EventSource", FakeEventSource);
  api.workspaces.mockResolvedValue(ok(WORKSPACES));
  api.logs.mockResolvedValue(ok([]));
  api.status.mockResolvedValue(ok(status()));
  api.list.mockResolvedValue(ok(DOCS));
  api.get.mockImplementation(async (workspace, path) => {
    const d = DOCS.find((x) => x.workspace === workspace && x.path === path);
    return d ? ok(detailOf(d)) : err("not_found", `no memory ${path}`);
  });
  api.search.mockResolvedValue(ok([]));
  api.history.mockResolvedValue(ok([]));
  api.getModelSettings.mockResolvedValue(ok(MODEL_SETTINGS));
  api.chatSessions.mockResolvedValue(ok([]));
  api.tasks.mockResolvedValue(ok([]));
  api.autoDream.mockResolvedValue(ok(true));
  api.stats.mockResolvedValue(ok(STATS));
  api.syncStatus.mockResolvedValue(ok(remoteSync({ remote: null })));
  api.syncSettings.mockResolvedValue(ok(SYNC_SETTINGS));
  localStorage.clear();
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function renderApp() {
  return render(
    <ToastProvider>
      <App />
    </ToastProvider>,
  );
}

async function selectPersonal() {
  const items = await screen.findAllByTestId("workspace-item");
  fireEvent.click(items.find((i) => i.getAttribute("data-id") === "personal")!);
  await screen.findByTestId("remember-button");
}

describe("sidebar", () => {
  it("shows where each workspace comes from on hover, with its counts", async () => {
    renderApp();
    const items = await screen.findAllByTestId("workspace-item");
    const claude = items.find((i) => i.getAttribute("data-id") === "claude-proj")!;
    expect(claude.getAttribute("title")).toBe(
      "/home/u/src/proj\nmemory: /home/u/.claude/projects/proj/memory\n1 memories · 0 daily logs · 0 invalid",
    );
    expect(workspaceTitle(WORKSPACES[0])).toBe("/home/u/.local/share/mnemo/workspaces/personal/memory\n5 memories · 0 daily logs · 1 invalid");
  });
});

describe("sync badges", () => {
  it("mark a workspace with conflicts or changes waiting, with a sentence as tooltip, and nothing when all is synced", async () => {
    api.syncStatus.mockResolvedValue(
      ok(
        remoteSync({
          workspaces: [
            workspaceSync({ conflicts: [syncConflict()] }),
            workspaceSync({ workspace: "claude-proj", key: "project/git.example~me~proj/claude", pending: 2 }),
          ],
        }),
      ),
    );
    renderApp();
    const items = await screen.findAllByTestId("workspace-item");
    const row = (id: string) => items.find((i) => i.getAttribute("data-id") === id)!;
    const badge = await within(row("personal")).findByTestId("sync-badge");
    expect(badge.textContent).toBe("⇅1");
    expect(badge.getAttribute("data-kind")).toBe("conflict");
    expect(badge.getAttribute("title")).toBe("1 conflict waits for your choice. Open Status to choose.");
    const pending = within(row("claude-proj")).getByTestId("sync-badge");
    expect(pending.getAttribute("title")).toBe("2 changes wait to be sent.");
    // Resolved elsewhere: read again after a sync here.
    api.syncStatus.mockResolvedValue(ok(remoteSync()));
    await act(() => invalidateSyncStatus());
    await waitFor(() => expect(screen.queryAllByTestId("sync-badge")).toHaveLength(0));
  });

  it("show nothing when the status cannot be read", async () => {
    api.syncStatus.mockResolvedValue(err("corrupt", "sync/state.json is not valid JSON"));
    renderApp();
    await screen.findAllByTestId("workspace-item");
    await waitFor(() => expect(api.syncStatus).toHaveBeenCalled());
    expect(screen.queryAllByTestId("sync-badge")).toHaveLength(0);
    expect(screen.queryByTestId("inline-error")).toBeNull();
  });
});

describe("workspace tools", () => {
  it("are offered for a workspace, not for all of them", async () => {
    renderApp();
    await screen.findAllByTestId("workspace-item");
    expect(screen.queryByTestId("remember-button")).toBeNull();
    await selectPersonal();
    expect(screen.getByTestId("forget-button")).toBeTruthy();
    expect(screen.getByTestId("status-button")).toBeTruthy();
  });

  it("Remember… queues the fact and opens the memory it wrote", async () => {
    const queued: RememberTask = rememberTask();
    api.remember.mockResolvedValue(ok(queued));
    api.rememberTask.mockResolvedValue(ok(queued));
    renderApp();
    await selectPersonal();
    fireEvent.click(screen.getByTestId("remember-button"));
    fireEvent.change(screen.getByTestId("remember-input"), { target: { value: "The launch is in March." } });
    fireEvent.click(screen.getByTestId("remember-submit"));
    await waitFor(() => expect(api.remember).toHaveBeenCalledWith("personal", "The launch is in March.", "workspace", null));
    await screen.findByTestId("remember-task");

    api.rememberTask.mockResolvedValue(
      ok({
        ...queued,
        status: "completed",
        updatedAt: "2026-03-01T10:00:05Z",
        result: { summary: "Saved", filesTouched: ["proj.md"], touchedTypes: ["project"], group: 3, proposal: null },
      }),
    );
    act(() => {
      for (const es of FakeEventSource.instances)
        es.fire("task_updated", task("remember-1", { kind: "remember", session: null, updated_at: "2026-03-01T10:00:05Z" }));
    });
    await waitFor(() => expect(api.get).toHaveBeenCalledWith("personal", "proj.md"));
    expect(await screen.findByDisplayValue("Launch date")).toBeTruthy();
    expect(screen.getByTestId("remember-task").getAttribute("data-status")).toBe("completed");
  });

  it("Forget… forgets and reloads the list", async () => {
    api.forgetPreview.mockResolvedValue(
      ok({
        workspace: "personal",
        query: "march",
        strategy: "heuristic",
        candidates: 1,
        note: null,
        selected: [{ id: "proj.md", path: "proj.md", name: "Launch date", summary: "Ships in March", text: "Ships in March", memory_type: "project", hash: "h1", mtime: "2026-03-01T10:00:00Z", confident: true }],
      }),
    );
    api.forget.mockResolvedValue(ok(task("forget-1", { kind: "forget", session: null, result: { summary: "forgot 1 entry", files: ["proj.md"], group: 5 } })));
    renderApp();
    await selectPersonal();
    const lists = api.list.mock.calls.length;
    fireEvent.click(screen.getByTestId("forget-button"));
    const dialog = screen.getByRole("dialog", { name: "Forget — Personal" });
    fireEvent.change(within(dialog).getByTestId("forget-query"), { target: { value: "march" } });
    fireEvent.click(within(dialog).getByTestId("forget-preview-button"));
    fireEvent.click(await within(dialog).findByTestId("forget-confirm"));
    await within(dialog).findByTestId("forget-done");
    await waitFor(() => expect(api.list.mock.calls.length).toBeGreaterThan(lists));
    fireEvent.click(within(dialog).getByTestId("forget-close"));
    expect(screen.queryByTestId("forget-dialog")).toBeNull();
  });

  it("Status shows the workspace's status panel; its Open goes back to the memory", async () => {
    renderApp();
    await selectPersonal();
    fireEvent.click(screen.getByTestId("status-button"));
    const panel = await screen.findByTestId("status-panel");
    expect(panel.getAttribute("data-workspace")).toBe("personal");
    expect(screen.getByRole("heading", { name: "Status — Personal" })).toBeTruthy();
    await waitFor(() => expect(api.stats).toHaveBeenCalledWith("personal"));
    fireEvent.click(await screen.findByTestId("health-open"));
    await waitFor(() => expect(api.get).toHaveBeenCalledWith("personal", "broken.md"));
    expect(screen.queryByTestId("status-panel")).toBeNull();
  });
});

describe("status view", () => {
  it("with all workspaces selected, asks which one", async () => {
    renderApp();
    fireEvent.click(await screen.findByTestId("status-view"));
    const choices = await screen.findAllByTestId("status-choose");
    expect(choices.map((c) => c.textContent)).toEqual(["Personal", "proj"]);
    fireEvent.click(choices[1]);
    const panel = await screen.findByTestId("status-panel");
    expect(panel.getAttribute("data-workspace")).toBe("claude-proj");
    await waitFor(() => expect(api.stats).toHaveBeenCalledWith("claude-proj"));
  });
});
