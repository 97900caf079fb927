// Review mode and usage as the app wires them: the pending count in the sidebar and
// the workspace bar, the inbox view, the count read again when a job ends, the first-use offer,
// a task's proposal opening the inbox, and the list sorted by usage.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { App } from "./App";
import { ToastProvider } from "./components/common/Toasts";
import { commands } from "./lib/bindings";
import {
  DOCS,
  MODEL_SETTINGS,
  SYNC_SETTINGS,
  WORKSPACES,
  detailOf,
  err,
  memoryUsage,
  memoryStats,
  ok,
  proposalOf,
  proposalPage,
  proposalSummary,
  remoteSync,
  reviewMode,
  status,
  syncConflict,
  task,
  workspaceSync,
} from "./test/fixtures";

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
    task: vi.fn(),
    autoDream: vi.fn(),
    setAutoDream: vi.fn(),
    stats: vi.fn(),
    undoGroup: vi.fn(),
    syncStatus: vi.fn(),
    syncSettings: vi.fn(),
    reviewMode: vi.fn(),
    setReviewMode: vi.fn(),
    inbox: vi.fn(),
    proposal: vi.fn(),
    inboxAccept: vi.fn(),
    inboxReject: vi.fn(),
    memoryUsage: vi.fn(),
    syncResolve: vi.fn(),
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

beforeEach(() => {
  vi.clearAllMocks();
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
  api.stats.mockResolvedValue(ok(memoryStats()));
  api.syncStatus.mockResolvedValue(ok(remoteSync({ remote: null })));
  api.syncSettings.mockResolvedValue(ok(SYNC_SETTINGS));
  api.reviewMode.mockResolvedValue(ok(reviewMode({ on: true, decided: true })));
  api.inbox.mockResolvedValue(ok(proposalPage([proposalSummary(7)])));
  api.proposal.mockImplementation(async (id) => ok(proposalOf(id)));
  api.memoryUsage.mockResolvedValue(ok([]));
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

async function select(id: string) {
  const items = await screen.findAllByTestId("workspace-item");
  fireEvent.click(items.find((i) => i.getAttribute("data-id") === id)!);
  await screen.findByTestId("remember-button");
}

describe("the inbox in the app", () => {
  it("shows the selected workspace's pending count in the sidebar and the workspace bar; either opens the inbox", async () => {
    renderApp();
    await screen.findAllByTestId("workspace-item");
    // All workspaces: no count (the inbox is per workspace).
    expect(screen.queryByTestId("inbox-badge")).toBeNull();
    await select("personal");
    const badge = await screen.findByTestId("inbox-badge");
    expect(badge.textContent).toBe("Inbox: 1 to review");
    expect(badge.getAttribute("title")).toBe("1 proposal waits for your review. Open the inbox to accept or reject.");
    const button = screen.getByTestId("inbox-button");
    // Its name holds what it shows ("Inbox 1", axe: label-content-name-mismatch); the sentence is its description.
    await waitFor(() => expect(button.textContent).toBe("Inbox 1"));
    expect(button.getAttribute("aria-label")).toBeNull();
    expect(button.getAttribute("title")).toContain("1 proposal waits for your review.");
    fireEvent.click(button);
    const panel = await screen.findByTestId("inbox-panel");
    expect(panel.getAttribute("data-workspace")).toBe("personal");
    expect(screen.getByRole("heading", { name: "Inbox — Personal" })).toBeTruthy();
    await screen.findByTestId("proposal");
    // Back to the memories, then the sidebar badge opens it too.
    fireEvent.click(screen.getByRole("button", { name: "Memories" }));
    await screen.findByTestId("memory-list");
    fireEvent.click(screen.getByTestId("inbox-badge"));
    await screen.findByTestId("inbox-panel");
  });

  it("counts the workspace's open sync conflicts in the badge with its proposals; they wait in the inbox, above the proposals", async () => {
    // personal: 1 proposal and 2 conflicts; claude-proj's conflict is not counted for personal.
    api.syncStatus.mockResolvedValue(
      ok(
        remoteSync({
          workspaces: [
            workspaceSync({ conflicts: [syncConflict(), syncConflict({ id: "k2", path: "home.md" })] }),
            workspaceSync({ workspace: "claude-proj", label: "proj", conflicts: [syncConflict({ id: "k3" })] }),
          ],
        }),
      ),
    );
    renderApp();
    await select("personal");
    const badge = await screen.findByTestId("inbox-badge");
    await waitFor(() => expect(badge.textContent).toBe("Inbox: 3 to review"));
    expect(badge.getAttribute("data-pending")).toBe("1");
    expect(badge.getAttribute("data-conflicts")).toBe("2");
    expect(badge.getAttribute("title")).toBe("1 proposal and 2 sync conflicts wait for you. Open the inbox to decide.");
    const button = screen.getByTestId("inbox-button");
    expect(button.textContent).toBe("Inbox 3");
    expect(button.getAttribute("title")).toContain("1 proposal and 2 sync conflicts wait for you.");
    fireEvent.click(button);
    const conflicts = await screen.findByTestId("inbox-conflicts");
    // The inbox says the same number as the sidebar and the button (one state).
    await waitFor(() => expect(screen.getByTestId("inbox-filter-pending").textContent).toBe("Waiting (3)"));
    expect(screen.getByTestId("inbox-count").textContent).toBe("1 proposal and 2 sync conflicts wait for you.");
    expect(within(conflicts).getAllByTestId("sync-conflict")).toHaveLength(2);
    // Settled in the inbox: the count drops once the status is read again.
    api.syncResolve.mockResolvedValue(ok(syncConflict()));
    api.syncStatus.mockResolvedValue(ok(remoteSync({ workspaces: [workspaceSync({ conflicts: [syncConflict({ id: "k2", path: "home.md" })] })] })));
    fireEvent.click(within(conflicts).getAllByTestId("sync-keep-all")[0]);
    await waitFor(() => expect(api.syncResolve).toHaveBeenCalledWith("k1", null));
    await waitFor(() => expect(screen.getByTestId("inbox-badge").textContent).toBe("Inbox: 2 to review"));
    // Conflicts alone keep the inbox badge up when nothing is proposed.
    api.inbox.mockResolvedValue(ok(proposalPage()));
    act(() => {
      for (const es of FakeEventSource.instances)
        es.fire("task_updated", task("e9", { status: "completed", updated_at: "2026-03-01T11:00:00Z", result: { summary: "nothing", files: [], group: null, proposal: null } }));
    });
    await waitFor(() => expect(screen.getByTestId("inbox-badge").getAttribute("data-pending")).toBe("0"));
    expect(screen.getByTestId("inbox-badge").textContent).toBe("Inbox: 1 to review");
    expect(screen.getByTestId("inbox-badge").getAttribute("title")).toBe("1 sync conflict waits for your choice. Open the inbox to decide.");
  });

  it("reads the count again when an extraction of the workspace ends", async () => {
    renderApp();
    await select("personal");
    await screen.findByTestId("inbox-badge");
    api.inbox.mockResolvedValue(ok(proposalPage([proposalSummary(8), proposalSummary(7)])));
    act(() => {
      for (const es of FakeEventSource.instances)
        es.fire("task_updated", task("e9", { status: "completed", updated_at: "2026-03-01T11:00:00Z", result: { summary: "proposed", files: ["travel.md"], group: null, proposal: 8 } }));
    });
    await waitFor(() => expect(screen.getByTestId("inbox-badge").textContent).toBe("Inbox: 2 to review"));
    expect(screen.getByTestId("inbox-button").getAttribute("data-pending")).toBe("2");
  });

  it("after accepting, the count and the list are read again and the toast offers Undo", async () => {
    api.inboxAccept.mockResolvedValue(ok({ proposal: proposalSummary(7, { status: "accepted", group: 4 }), group: 4, paths: ["travel.md"] }));
    renderApp();
    await select("personal");
    fireEvent.click(await screen.findByTestId("inbox-badge"));
    fireEvent.click(await screen.findByTestId("proposal-open"));
    await screen.findAllByTestId("proposal-entry");
    const lists = api.list.mock.calls.length;
    const counts = api.inbox.mock.calls.length;
    api.inbox.mockResolvedValue(ok(proposalPage()));
    fireEvent.click(screen.getByTestId("proposal-accept-all"));
    const toast = await screen.findByTestId("toast");
    expect(toast.textContent).toContain("Saved 1 file");
    expect(within(toast).getByRole("button", { name: "Undo" })).toBeTruthy();
    await waitFor(() => expect(api.list.mock.calls.length).toBeGreaterThan(lists));
    await waitFor(() => expect(api.inbox.mock.calls.length).toBeGreaterThan(counts));
    await waitFor(() => expect(screen.queryByTestId("inbox-badge")).toBeNull());
  });

  it("offers review mode once on a Claude Code folder; a task's proposal opens the inbox at it", async () => {
    api.reviewMode.mockImplementation(async (ws) => ok(ws === "claude-proj" ? reviewMode({ offer: true }) : reviewMode({ on: true, decided: true })));
    api.tasks.mockResolvedValue(
      ok([task("r1", { kind: "remember", workspace: "claude-proj", session: null, result: { summary: "proposed changes to 1 file for review (proposal 7)", files: ["travel.md"], group: null, proposal: 7 } })]),
    );
    renderApp();
    await select("claude-proj");
    expect((await screen.findByTestId("review-offer")).textContent).toContain("Review what assistants write here before it is saved?");
    await select("personal");
    await waitFor(() => expect(screen.queryByTestId("review-offer")).toBeNull());

    fireEvent.click(screen.getByTestId("tasks-button"));
    const row = await screen.findByTestId("task-row");
    // Nothing was written: its files are not links.
    expect(within(row).queryByTestId("task-file")).toBeNull();
    fireEvent.click(within(row).getByTestId("task-proposal"));
    const panel = await screen.findByTestId("inbox-panel");
    expect(panel.getAttribute("data-workspace")).toBe("claude-proj");
    // Opened at that proposal.
    expect(await screen.findByTestId("proposal-body")).toBeTruthy();
    await waitFor(() => expect(api.proposal).toHaveBeenCalledWith(7));
  });
});

describe("usage in the app", () => {
  it("sorts the list by usage, each row with its figure, reading usage once per list load", async () => {
    api.memoryUsage.mockResolvedValue(
      ok([memoryUsage("proj.md", { recalls: 3, tokens: 900, last_recalled: "2026-03-01T10:00:00Z" }), memoryUsage("links.md", { recalls: 8, tokens: 120, last_recalled: "2026-02-01T10:00:00Z" })]),
    );
    renderApp();
    await select("personal");
    await screen.findAllByTestId("memory-row");
    expect(api.memoryUsage).not.toHaveBeenCalledWith("personal", null);
    fireEvent.change(screen.getByTestId("list-sort"), { target: { value: "recalls" } });
    await waitFor(() => expect(api.memoryUsage).toHaveBeenCalledWith("personal", null));
    await waitFor(() => expect(screen.getAllByTestId("memory-row").slice(0, 2).map((r) => r.getAttribute("data-path"))).toEqual(["links.md", "proj.md"]));
    expect(screen.getAllByTestId("row-usage").slice(0, 3).map((u) => u.textContent)).toEqual(["8 recalls", "3 recalls", "never recalled"]);
    fireEvent.change(screen.getByTestId("list-sort"), { target: { value: "tokens" } });
    await waitFor(() => expect(screen.getAllByTestId("memory-row")[0].getAttribute("data-path")).toBe("proj.md"));
    expect(screen.getAllByTestId("row-usage")[0].textContent).toBe("~900 tokens");
    expect(localStorage.getItem("mnemo.listSort")).toBe("tokens");
    expect(screen.getByTestId("group-header").textContent).toContain("Most tokens first");
  });
});

describe("archived memories in the list", () => {
  it("marks an archived memory's row in words, and its detail says what archiving means", async () => {
    const old = { ...DOCS[3], path: "old.md", name: "旧的发布日期", archived: true };
    api.list.mockResolvedValue(ok([...DOCS, old]));
    api.get.mockImplementation(async (_ws, path) => ok(path === "old.md" ? detailOf(old) : detailOf(DOCS[0])));
    renderApp();
    const rows = await screen.findAllByTestId("memory-row");
    const row = rows.find((r) => r.getAttribute("data-path") === "old.md")!;
    const mark = within(row).getByTestId("archived-mark");
    expect(mark.textContent).toBe("Archived");
    expect(mark.getAttribute("title")).toContain("not recalled and not in MEMORY.md");
    expect(row.classList.contains("archived")).toBe(true);
    expect(rows.filter((r) => within(r).queryByTestId("archived-mark")).map((r) => r.getAttribute("data-path"))).toEqual(["old.md"]);
    fireEvent.click(row);
    expect((await screen.findByTestId("detail-archived")).textContent).toContain("Archived: it is not recalled and not in MEMORY.md; it stays searchable.");
    expect(screen.getByTestId("archive-button").textContent).toBe("Restore");
  });
});
