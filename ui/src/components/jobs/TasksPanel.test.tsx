import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { TaskStatusBar } from "./TasksPanel";
import { ACTIVE_REFRESH_MS, useTaskList } from "../../lib/useTaskList";
import { commands } from "../../lib/bindings";
import type { TaskInfo } from "../../lib/bindings";
import { onTaskUpdated } from "../../lib/transport";
import { err, ok, task } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    tasks: vi.fn(),
    taskCancel: vi.fn(),
  },
}));

vi.mock("../../lib/transport", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../lib/transport")>()),
  onTaskUpdated: vi.fn(),
}));

const api = vi.mocked(commands);

let listeners: ((t: TaskInfo) => void)[] = [];
let resyncs: (() => void)[] = [];

/** A `task_updated` event; the cache tells its readers in a microtask, awaited here. */
async function emit(t: TaskInfo) {
  await act(async () => {
    for (const cb of listeners) cb(t);
  });
}

const DONE = task("t-done", {
  created_at: "2026-03-01T09:00:00Z",
  started_at: "2026-03-01T09:00:01Z",
  updated_at: "2026-03-01T09:00:13Z",
  finished_at: "2026-03-01T09:00:13Z",
  result: { summary: "Saved 2 memories", files: ["travel-prefs.md", "tea.md"], group: 3 },
});
const SKIPPED = task("t-skip", {
  created_at: "2026-03-01T08:00:00Z",
  status: "skipped",
  reason: "replaced",
  started_at: null,
  updated_at: "2026-03-01T08:00:02Z",
  finished_at: "2026-03-01T08:00:02Z",
});
const RUNNING = task("t-run", {
  kind: "dream",
  created_at: "2026-03-01T11:00:00Z",
  status: "running",
  phase: "reading memories",
  started_at: "2026-03-01T11:00:01Z",
  updated_at: "2026-03-01T11:00:03Z",
  finished_at: null,
  tools: [
    { name: "read_file", detail: "travel-prefs.md", ok: true },
    { name: "write_file", detail: "tea.md", ok: false },
    { name: "list_files", detail: "", ok: null },
  ],
});

const onOpenMemory = vi.fn();

beforeEach(() => {
  listeners = [];
  resyncs = [];
  onOpenMemory.mockReset();
  onOpenDream.mockReset();
  vi.mocked(onTaskUpdated).mockImplementation((cb, onResync) => {
    listeners.push(cb);
    if (onResync) resyncs.push(onResync);
    return () => {
      listeners = listeners.filter((x) => x !== cb);
    };
  });
  api.tasks.mockResolvedValue(ok([DONE, SKIPPED]));
});

const onOpenDream = vi.fn();

function Bar() {
  const tasks = useTaskList();
  return (
    <TaskStatusBar
      tasks={tasks}
      onOpenMemory={onOpenMemory}
      onOpenDream={onOpenDream}
      workspaceLabel={(id) => (id === "personal" ? "Personal" : id)}
    />
  );
}

function renderBar() {
  return render(<Bar />);
}

const indicator = () => screen.getByTestId("task-indicator");
const rows = () => screen.getAllByTestId("task-row");

describe("memory task bar", () => {
  it("is quiet while nothing runs, and says so while memory work runs", async () => {
    renderBar();
    await waitFor(() => expect(api.tasks).toHaveBeenCalledWith(null, null, null, 50));
    expect(indicator().textContent).toBe("");
    const button = screen.getByRole("button", { name: "Memory tasks" });
    expect(button.getAttribute("aria-expanded")).toBe("false");

    await emit(task("t-new", { status: "running", created_at: "2026-03-01T12:00:00Z", updated_at: "2026-03-01T12:00:01Z", finished_at: null }));
    expect(indicator().textContent).toBe("✦ Saving memories…");
    expect(button.textContent).toBe("Tasks 1");
    await emit(task("t-2", { status: "queued", created_at: "2026-03-01T12:00:02Z", updated_at: "2026-03-01T12:00:02Z", finished_at: null }));
    expect(indicator().textContent).toBe("✦ Saving memories… · 1 queued");

    await emit(task("t-new", { created_at: "2026-03-01T12:00:00Z", updated_at: "2026-03-01T12:00:09Z" }));
    await emit(task("t-2", { status: "skipped", reason: "cancelled", created_at: "2026-03-01T12:00:02Z", updated_at: "2026-03-01T12:00:03Z" }));
    expect(indicator().textContent).toBe("");
    expect(button.textContent).toBe("Tasks");
  });

  it("says ✦ dreaming while a dream is queued or running, and only then", async () => {
    renderBar();
    await waitFor(() => expect(api.tasks).toHaveBeenCalledTimes(1));
    const dreaming = () => screen.queryByTestId("dream-indicator");
    // Other work running is not dreaming.
    await emit(task("t-x", { status: "running", created_at: "2026-03-01T12:00:00Z", updated_at: "2026-03-01T12:00:01Z", finished_at: null }));
    expect(dreaming()).toBeNull();
    const base = { kind: "dream" as const, session: null, created_at: "2026-03-01T12:00:02Z", started_at: null, finished_at: null };
    await emit(task("t-d", { ...base, status: "queued", updated_at: "2026-03-01T12:00:02Z" }));
    expect(dreaming()?.textContent).toBe("✦ dreaming");
    expect(indicator().textContent).toBe("✦ dreaming · Saving memories…");
    await emit(task("t-x", { created_at: "2026-03-01T12:00:00Z", updated_at: "2026-03-01T12:00:03Z" }));
    await emit(task("t-d", { ...base, status: "running", phase: "model turn 1", updated_at: "2026-03-01T12:00:04Z" }));
    expect(indicator().textContent).toBe("✦ dreaming");
    await emit(task("t-d", { ...base, status: "completed", updated_at: "2026-03-01T12:00:09Z", finished_at: "2026-03-01T12:00:09Z" }));
    expect(dreaming()).toBeNull();
    expect(indicator().textContent).toBe("");
    // A failed or skipped dream is not dreaming either.
    await emit(task("t-f", { ...base, status: "failed", updated_at: "2026-03-01T12:00:10Z" }));
    await emit(task("t-s", { ...base, status: "skipped", reason: "locked", updated_at: "2026-03-01T12:00:10Z" }));
    expect(dreaming()).toBeNull();
  });

  it("opens a dream's progress or report from its row", async () => {
    const finished = task("t-old", { kind: "dream", created_at: "2026-03-01T07:00:00Z" });
    api.tasks.mockResolvedValue(ok([RUNNING, DONE, finished]));
    renderBar();
    fireEvent.click(screen.getByRole("button", { name: "Memory tasks" }));
    await waitFor(() => expect(rows()).toHaveLength(3));
    // Only dream rows have one.
    expect(within(rows()[1]).queryByTestId("dream-report-button")).toBeNull();
    expect(within(rows()[0]).getByTestId("dream-report-button").textContent).toBe("Progress");
    expect(within(rows()[2]).getByTestId("dream-report-button").textContent).toBe("Report");
    fireEvent.click(within(rows()[2]).getByTestId("dream-report-button"));
    expect(onOpenDream).toHaveBeenCalledWith("t-old");
    // The panel closes.
    expect(screen.queryByRole("dialog", { name: "Memory tasks" })).toBeNull();
  });

  it("re-reads the list while a task of another process runs, with no event for it", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      api.tasks.mockResolvedValue(ok([RUNNING]));
      renderBar();
      await waitFor(() => expect(indicator().textContent).toBe("✦ dreaming"));
      const finished = { ...RUNNING, status: "completed" as const, updated_at: "2026-03-01T11:00:09Z", finished_at: "2026-03-01T11:00:09Z" };
      api.tasks.mockResolvedValue(ok([finished]));
      await act(async () => {
        await vi.advanceTimersByTimeAsync(ACTIVE_REFRESH_MS);
      });
      await waitFor(() => expect(indicator().textContent).toBe(""));
      const calls = api.tasks.mock.calls.length;
      await act(async () => {
        await vi.advanceTimersByTimeAsync(ACTIVE_REFRESH_MS * 2);
      });
      expect(api.tasks.mock.calls.length, "no polling once nothing is active").toBe(calls);
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows a running task at start", async () => {
    api.tasks.mockResolvedValue(ok([RUNNING, DONE]));
    renderBar();
    await waitFor(() => expect(indicator().textContent).toBe("✦ dreaming"));
  });

  it("lists recent tasks with status, reason, duration and files; a file opens its memory", async () => {
    renderBar();
    fireEvent.click(screen.getByRole("button", { name: "Memory tasks" }));
    const panel = screen.getByRole("dialog", { name: "Memory tasks" });
    await waitFor(() => expect(rows()).toHaveLength(2));
    // Opening the panel reloads the list.
    expect(api.tasks).toHaveBeenCalledTimes(2);

    const [done, skipped] = rows();
    expect(done.getAttribute("data-id")).toBe("t-done");
    expect(within(done).getByText("Extract")).toBeTruthy();
    expect(within(done).getByText("Personal")).toBeTruthy();
    expect(within(done).getByTestId("task-status").textContent).toBe("Completed");
    expect(within(done).getByTestId("task-duration").textContent).toBe("12 s");
    expect(within(done).getByText("Saved 2 memories")).toBeTruthy();
    expect(within(done).queryByRole("button", { name: /cancel/i })).toBeNull();
    expect(within(skipped).getByTestId("task-status").textContent).toBe("Skipped — a newer run took its place");
    expect(within(skipped).getByTestId("task-duration").textContent).toBe("2.0 s");

    const files = within(done).getAllByTestId("task-file");
    expect(files.map((f) => f.textContent)).toEqual(["travel-prefs.md", "tea.md"]);
    fireEvent.click(files[1]);
    expect(onOpenMemory).toHaveBeenCalledWith("personal", "tea.md");
    expect(panel.isConnected).toBe(false);
  });

  it("lists an undone import's files by name, not as links to memories that are gone", async () => {
    const undone = task("t-import", {
      kind: "import",
      session: null,
      created_at: "2026-03-01T09:30:00Z",
      finished_at: "2026-03-01T09:30:04Z",
      result: { summary: "imported 5 memories into 2 files", files: ["notes.md", "tea.md"], group: 7, undone_by: 8 },
    });
    api.tasks.mockResolvedValue(ok([undone, DONE]));
    renderBar();
    fireEvent.click(screen.getByRole("button", { name: "Memory tasks" }));
    await waitFor(() => expect(rows()).toHaveLength(2));
    const row = rows().find((r) => r.getAttribute("data-id") === "t-import")!;
    expect(within(row).getByTestId("task-undone").textContent).toContain("undone since");
    expect(within(row).queryByTestId("task-file")).toBeNull();
    const list = within(row).getByRole("list", { name: "Files it had touched (undone)" });
    expect(within(list).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["notes.md", "tea.md"]);
    // A task that was not undone still links its files.
    const done = rows().find((r) => r.getAttribute("data-id") === "t-done")!;
    expect(within(done).getAllByTestId("task-file")).toHaveLength(2);
  });

  it("shows a running task's tool calls and cancels it", async () => {
    api.tasks.mockResolvedValue(ok([RUNNING, DONE]));
    const cancelled: TaskInfo = {
      ...RUNNING,
      status: "skipped",
      reason: "cancelled",
      updated_at: "2026-03-01T11:00:04Z",
      finished_at: "2026-03-01T11:00:04Z",
    };
    api.taskCancel.mockResolvedValue(ok(cancelled));
    renderBar();
    fireEvent.click(screen.getByRole("button", { name: "Memory tasks" }));
    await waitFor(() => expect(rows()).toHaveLength(2));
    const row = rows()[0];
    expect(within(row).getByTestId("task-status").textContent).toBe("Running");
    expect(within(row).getByText("reading memories")).toBeTruthy();
    const steps = within(within(row).getByTestId("task-tools")).getAllByRole("listitem");
    expect(steps.map((s) => s.textContent)).toEqual(["✓ read_file travel-prefs.md", "✗ write_file tea.md", "… list_files "]);
    expect(within(row).getByRole("img", { name: "failed" })).toBeTruthy();

    fireEvent.click(within(row).getByRole("button", { name: "Cancel dream task" }));
    await waitFor(() => expect(api.taskCancel).toHaveBeenCalledWith("t-run"));
    await waitFor(() => expect(within(rows()[0]).getByTestId("task-status").textContent).toBe("Skipped — you stopped it"));
    expect(within(rows()[0]).queryByTestId("task-tools")).toBeNull();
    expect(within(rows()[0]).queryByRole("button", { name: /cancel/i })).toBeNull();
    expect(indicator().textContent).toBe("");
  });

  it("shows a failed cancel and a failed load inline", async () => {
    api.tasks.mockResolvedValueOnce(ok([RUNNING])).mockResolvedValueOnce(err("io", "tasks.db is locked"));
    api.taskCancel.mockResolvedValue(err("not_found", "no task t-run"));
    renderBar();
    await waitFor(() => expect(indicator().textContent).not.toBe(""));
    fireEvent.click(screen.getByRole("button", { name: "Memory tasks" }));
    const panel = screen.getByRole("dialog", { name: "Memory tasks" });
    expect(await within(panel).findByText("tasks.db is locked.")).toBeTruthy();
    // The list loaded before stays.
    expect(rows()).toHaveLength(1);
    fireEvent.click(within(rows()[0]).getByRole("button", { name: "Cancel dream task" }));
    const error = await within(rows()[0]).findByTestId("inline-error");
    expect(error.textContent).toContain("No task t-run.");
  });

  it("reloads after the event stream reconnects, and closes with Escape", async () => {
    renderBar();
    await waitFor(() => expect(api.tasks).toHaveBeenCalledTimes(1));
    act(() => {
      for (const r of resyncs) r();
    });
    await waitFor(() => expect(api.tasks).toHaveBeenCalledTimes(2));

    const button = screen.getByRole("button", { name: "Memory tasks" });
    fireEvent.click(button);
    expect(button.getAttribute("aria-expanded")).toBe("true");
    fireEvent.keyDown(screen.getByRole("dialog", { name: "Memory tasks" }), { key: "Escape" });
    expect(screen.queryByRole("dialog", { name: "Memory tasks" })).toBeNull();
    expect(document.activeElement).toBe(button);

    // A click elsewhere closes it too; a click inside does not.
    fireEvent.click(button);
    fireEvent.mouseDown(screen.getByRole("dialog", { name: "Memory tasks" }));
    expect(screen.getByRole("dialog", { name: "Memory tasks" })).toBeTruthy();
    fireEvent.mouseDown(document.body);
    expect(screen.queryByRole("dialog", { name: "Memory tasks" })).toBeNull();
  });

  it("says when there are no tasks yet", async () => {
    api.tasks.mockResolvedValue(ok([]));
    renderBar();
    fireEvent.click(screen.getByRole("button", { name: "Memory tasks" }));
    expect(await screen.findByText("No memory tasks yet.")).toBeTruthy();
  });

  it("names an import, with its phase while it runs, and says a stopped one's summary once", async () => {
    const running = task("import-1", { kind: "import", session: null, status: "running", phase: "Conversation 3 / 20", progress: { done: 3, total: 20 }, finished_at: null, updated_at: "2026-03-01T10:00:03Z" });
    const summary = "cancelled after 2 conversations: wrote 1 memory files; run the import again to go on";
    const stopped = task("import-0", { kind: "import", session: null, status: "failed", reason: "cancelled", error: summary, result: { summary, files: ["a.md"], group: 4 } });
    api.tasks.mockResolvedValue(ok([running, stopped]));
    renderBar();
    await waitFor(() => expect(indicator().textContent).toBe("✦ Importing…"));
    fireEvent.click(screen.getByRole("button", { name: "Memory tasks" }));
    await waitFor(() => expect(rows()).toHaveLength(2));
    const [now, before] = rows();
    expect(within(now).getByText("Import")).toBeTruthy();
    expect(within(now).getByText("Conversation 3 / 20")).toBeTruthy();
    expect(within(now).getByRole("button", { name: "Cancel import task" })).toBeTruthy();
    expect(within(before).getByTestId("task-status").textContent).toBe("Failed — you stopped it");
    expect(within(before).getAllByText(summary)).toHaveLength(1);
  });
});
