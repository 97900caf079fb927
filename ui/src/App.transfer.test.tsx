// Import, export, copy and move as the app wires them: Import… and Export… in the
// workspace tools, an import followed through the task updates the app already listens to (and
// named in the tasks panel), Copy / Move… in the detail header, the moved memory left behind.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { App } from "./App";
import { ToastProvider } from "./components/common/Toasts";
import { commands } from "./lib/bindings";
import { DOCS, MODEL_SETTINGS, SYNC_SETTINGS, WORKSPACES, detailOf, err, memoryPreview, ok, proposalPage, remoteSync, reviewMode, status, task } from "./test/fixtures";

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
    tasks: vi.fn(),
    task: vi.fn(),
    taskCancel: vi.fn(),
    autoDream: vi.fn(),
    setAutoDream: vi.fn(),
    undoGroup: vi.fn(),
    syncStatus: vi.fn(),
    syncSettings: vi.fn(),
    reviewMode: vi.fn(),
    inbox: vi.fn(),
    memoryUsage: vi.fn(),
    importPreview: vi.fn(),
    importStart: vi.fn(),
    exportMemories: vi.fn(),
    copyMemory: vi.fn(),
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

const fire = (type: string, data: unknown) =>
  act(() => {
    for (const es of FakeEventSource.instances) es.fire(type, data);
  });

beforeEach(() => {
  for (const f of Object.values(api)) f.mockReset();
  FakeEventSource.instances = [];
  vi.stubGlobal("EventSource", FakeEventSource);
  api.workspaces.mockResolvedValue(ok(WORKSPACES));
  api.list.mockResolvedValue(ok(DOCS));
  api.logs.mockResolvedValue(ok([]));
  api.get.mockImplementation(async (workspace, path) => {
    const d = DOCS.find((x) => x.workspace === workspace && x.path === path);
    return d ? ok(detailOf(d)) : err("not_found", `no memory ${path}`);
  });
  api.search.mockResolvedValue(ok([]));
  api.history.mockResolvedValue(ok([]));
  api.status.mockResolvedValue(ok(status()));
  api.getModelSettings.mockResolvedValue(ok(MODEL_SETTINGS));
  api.chatSessions.mockResolvedValue(ok([]));
  api.tasks.mockResolvedValue(ok([]));
  api.autoDream.mockResolvedValue(ok(true));
  api.syncStatus.mockResolvedValue(ok(remoteSync({ remote: null })));
  api.syncSettings.mockResolvedValue(ok(SYNC_SETTINGS));
  api.reviewMode.mockResolvedValue(ok(reviewMode()));
  api.inbox.mockResolvedValue(ok(proposalPage()));
  api.memoryUsage.mockResolvedValue(ok([]));
  localStorage.clear();
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
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
  await screen.findByTestId("import-button");
}

describe("import and export in the workspace tools", () => {
  it("imports into the selected workspace, follows the task's updates, and the tasks panel names it", async () => {
    const queued = task("import-1", { kind: "import", session: null, status: "queued", phase: "Writing 0 / 5 files", progress: { done: 0, total: 5 }, result: null, finished_at: null });
    api.importPreview.mockResolvedValue(ok(memoryPreview()));
    api.importStart.mockResolvedValue(ok(queued));
    renderApp();
    await selectPersonal();
    fireEvent.click(screen.getByTestId("import-button"));
    const dialog = screen.getByRole("dialog", { name: "Import into Personal" });
    fireEvent.change(within(dialog).getByTestId("import-source"), { target: { value: "/home/u/mem0.json" } });
    fireEvent.click(within(dialog).getByTestId("import-preview-button"));
    fireEvent.click(await within(dialog).findByTestId("import-start"));
    await waitFor(() => expect(api.importStart).toHaveBeenCalledWith("/home/u/mem0.json", "personal", { type: "user" }, "p1"));

    fire("task_updated", { ...queued, status: "running", phase: "Writing 2 / 5 files", progress: { done: 2, total: 5 }, updated_at: "2026-03-01T10:00:06Z" });
    await waitFor(() => expect(within(dialog).getByTestId("import-phase").textContent).toBe("Writing 2 / 5 files"));
    expect(screen.getByTestId("task-indicator").textContent).toContain("Importing…");

    fire("task_updated", {
      ...queued,
      status: "completed",
      phase: null,
      updated_at: "2026-03-01T10:00:07Z",
      finished_at: "2026-03-01T10:00:07Z",
      result: { summary: "imported 5 memories into 2 files", files: ["a.md", "b.md"], group: 9 },
    });
    expect((await within(dialog).findByTestId("import-summary")).textContent).toBe("Imported 5 memories into 2 files.");
    fireEvent.click(within(dialog).getByTestId("import-close"));
    expect(screen.queryByTestId("import-dialog")).toBeNull();

    fireEvent.click(screen.getByTestId("tasks-button"));
    const row = (await screen.findAllByTestId("task-row")).find((r) => r.getAttribute("data-id") === "import-1")!;
    expect(row.querySelector(".task-kind")?.textContent).toBe("Import");
    expect(row.textContent).toContain("imported 5 memories into 2 files");
  });

  it("exports to a dated zip beside the person's files by default", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(2026, 2, 4, 15, 30, 0));
    const dest = "/home/u/mnemo-export-2026-03-04-153000.zip";
    api.exportMemories.mockResolvedValue(ok({ path: dest, workspaces: ["personal"], files: 5, bytes: 1200, left_out: [] }));
    renderApp();
    await selectPersonal();
    fireEvent.click(screen.getByTestId("export-button"));
    const dialog = screen.getByRole("dialog", { name: "Export memories" });
    await waitFor(() => expect((within(dialog).getByTestId("export-dest") as HTMLInputElement).value).toBe(dest));
    fireEvent.click(within(dialog).getByTestId("export-start"));
    await waitFor(() => expect(api.exportMemories).toHaveBeenCalledWith("personal", dest));
    expect((await within(dialog).findByTestId("export-sentence")).textContent).toBe(`Exported 5 files (1.2 KB) to ${dest}.`);
  });
});

describe("copy and move from the detail pane", () => {
  it("moves the open memory to another workspace and leaves it; Copy / Move… waits for unsaved edits", async () => {
    api.copyMemory.mockResolvedValue(
      ok({ from_workspace: "personal", from_path: "proj.md", workspace: "claude-proj", path: "proj.md", group: 4, removed_group: 5 }),
    );
    renderApp();
    await selectPersonal();
    fireEvent.click((await screen.findAllByTestId("memory-row")).find((r) => r.getAttribute("data-path") === "proj.md")!);
    const name = (await screen.findByDisplayValue("Launch date")) as HTMLInputElement;
    const button = screen.getByTestId("copy-button") as HTMLButtonElement;
    fireEvent.change(name, { target: { value: "Launch day" } });
    expect(button.disabled).toBe(true);
    fireEvent.change(name, { target: { value: "Launch date" } });
    expect(button.disabled).toBe(false);

    const lists = api.list.mock.calls.length;
    fireEvent.click(button);
    const dialog = screen.getByRole("dialog", { name: "Copy or move “Launch date”" });
    fireEvent.click(within(dialog).getByTestId("copy-mode-move"));
    fireEvent.click(within(dialog).getByTestId("copy-start"));
    await waitFor(() => expect(api.copyMemory).toHaveBeenCalledWith("personal", "proj.md", "claude-proj", true));
    expect((await within(dialog).findByTestId("copy-sentence")).textContent).toBe("Moved “Launch date” to proj.");
    // The detail pane left the moved memory; the list is read again.
    await waitFor(() => expect(screen.queryByDisplayValue("Launch date")).toBeNull());
    await waitFor(() => expect(api.list.mock.calls.length).toBeGreaterThan(lists));
  });
});
