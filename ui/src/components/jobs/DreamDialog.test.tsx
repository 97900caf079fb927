import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { DreamDialog } from "./DreamDialog";
import { ToastProvider } from "../common/Toasts";
import { commands } from "../../lib/bindings";
import type { ChangeDiff, DreamReport, GroupInfo, TaskInfo } from "../../lib/bindings";
import { change, err, ok, task } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    task: vi.fn(),
    taskCancel: vi.fn(),
    changeGroup: vi.fn(),
    undoGroup: vi.fn(),
    diff: vi.fn(),
  },
}));

const api = vi.mocked(commands);

const REPORT: DreamReport = {
  status: "updated",
  strategy: "mechanical",
  trigger: "manual",
  files_touched: ["testing.md"],
  files_created: [],
  files_deleted: ["testing-dup.md"],
  entries_merged: 1,
  merges: [{ summary: "Integration tests hit a real database.", into: "testing.md", from: ["testing-dup.md"] }],
  touched_types: ["feedback"],
  duration_ms: 1234,
  notes: ["agent: merged the duplicate testing feedback into testing.md", "restored notes.md: invalid frontmatter"],
};

const RUNNING = task("d1", {
  kind: "dream",
  session: null,
  status: "running",
  phase: "model turn 2",
  finished_at: null,
  tools: [
    { name: "read_file", detail: "testing.md", ok: true },
    { name: "write_file", detail: "testing.md", ok: true },
    { name: "delete_file", detail: "testing-dup.md", ok: null },
  ],
});

const DONE: TaskInfo = {
  ...RUNNING,
  status: "completed",
  phase: null,
  finished_at: "2026-03-01T10:00:05Z",
  result: {
    summary: "merged 1 duplicate entry, 1 file updated, 1 deleted (mechanical)",
    files: ["testing.md", "testing-dup.md"],
    group: 7,
    dream: REPORT,
  },
};

const MODIFY = change(21, "testing.md", { group: 7, source: "dream" });
const DELETE = change(22, "testing-dup.md", { group: 7, source: "dream", op: "delete" });
const GROUP: GroupInfo = {
  id: 7,
  workspace: "personal",
  kind: "dream",
  task: "d1",
  label: "dream (manual)",
  at: "2026-03-01T10:00:02Z",
  undoes: null,
  undone_by: null,
  changes: [MODIFY, DELETE],
};
const TEXT: Record<number, [string, string | null]> = {
  21: ["Integration tests hit a real database.\n", "Integration tests hit a real database.\nRun the whole suite.\n"],
  22: ["Integration tests hit a real database.\n", null],
};

const onUpdated = vi.fn();
const onClose = vi.fn();
const onOpenMemory = vi.fn();
const onUndone = vi.fn();

beforeEach(() => {
  for (const f of [onUpdated, onClose, onOpenMemory, onUndone]) f.mockReset();
  api.changeGroup.mockResolvedValue(ok(GROUP));
  api.diff.mockImplementation(async (id) => {
    const c = GROUP.changes.find((x) => x.id === id);
    if (!c) return err("not_found", `no change ${id}`);
    const d: ChangeDiff = { change: c, before: TEXT[id][0], after: TEXT[id][1], withheld: null, undoable: true };
    return ok(d);
  });
});

function renderDialog(t: TaskInfo | null, id = "d1") {
  return render(
    <ToastProvider>
      <DreamDialog
        id={id}
        task={t}
        workspaceLabel={(w) => (w === "personal" ? "Personal" : w)}
        onUpdated={onUpdated}
        onClose={onClose}
        onOpenMemory={onOpenMemory}
        onUndone={onUndone}
      />
    </ToastProvider>,
  );
}

describe("a dream under way", () => {
  it("shows its phase, each tool call and the files changed so far", () => {
    renderDialog(RUNNING);
    const dialog = screen.getByRole("dialog", { name: "Dream — Personal" });
    expect(dialog.getAttribute("data-outcome")).toBe("running");
    expect(within(dialog).getByTestId("dream-phase").textContent).toBe("model turn 2");
    const steps = within(within(dialog).getByTestId("task-tools")).getAllByRole("listitem");
    expect(steps.map((s) => s.textContent)).toEqual([
      "✓ read_file testing.md",
      "✓ write_file testing.md",
      "… delete_file testing-dup.md",
    ]);
    const files = within(within(dialog).getByTestId("dream-files")).getAllByRole("listitem");
    expect(files.map((f) => f.textContent)).toEqual(["testing.md written"]);
    expect(screen.queryByTestId("dream-report")).toBeNull();
  });

  it("can be cancelled, and closed without stopping it", async () => {
    const cancelled: TaskInfo = { ...RUNNING, status: "failed", reason: "cancelled", updated_at: "2026-03-01T10:00:09Z" };
    api.taskCancel.mockResolvedValue(ok(cancelled));
    renderDialog(RUNNING);
    fireEvent.keyDown(screen.getByRole("dialog"), { key: "Escape" });
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(api.taskCancel).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: "Cancel dream" }));
    await waitFor(() => expect(onUpdated).toHaveBeenCalledWith(cancelled));
    expect(api.taskCancel).toHaveBeenCalledWith("d1");
  });

  it("reads a dream that is not in the task list", async () => {
    api.task.mockResolvedValue(ok(RUNNING));
    renderDialog(null);
    await waitFor(() => expect(onUpdated).toHaveBeenCalledWith(RUNNING));
    expect(api.task).toHaveBeenCalledWith("d1");
    // Shown even if the list does not take it in.
    expect((await screen.findByTestId("dream-phase")).textContent).toBe("model turn 2");
  });
});

describe("the dream report", () => {
  it("shows the summary, the notes, what was merged and deleted, and each file's diff", async () => {
    renderDialog(DONE);
    const report = screen.getByTestId("dream-report");
    expect(report.getAttribute("data-status")).toBe("updated");
    expect(within(report).getByTestId("dream-outcome").textContent).toBe("Memory consolidated");
    expect(within(report).getByTestId("dream-summary").textContent).toBe(DONE.result?.summary);
    expect(report.textContent).toContain("mechanical · manual · 1.2 s · 1 file changed · 1 file deleted · 1 entry merged · types: feedback");
    const notes = within(within(report).getByTestId("dream-notes")).getAllByRole("listitem");
    expect(notes.map((n) => n.textContent)).toEqual(REPORT.notes);
    const merges = within(report).getByTestId("dream-merges");
    expect(merges.textContent).toBe("“Integration tests hit a real database.” kept in testing.md from testing-dup.md");
    expect(within(report).getByTestId("dream-deleted").textContent).toBe("testing-dup.md");

    await waitFor(() => expect(api.changeGroup).toHaveBeenCalledWith(7));
    const files = await within(report).findAllByTestId("group-file");
    expect(files.map((f) => f.getAttribute("data-path"))).toEqual(["testing.md", "testing-dup.md"]);
    expect(await within(files[0]).findByText("Run the whole suite.")).toBeTruthy();
    expect(await within(files[1]).findByText("Deleted")).toBeTruthy();

    fireEvent.click(within(files[0]).getByRole("button", { name: "Open memory" }));
    expect(onOpenMemory).toHaveBeenCalledWith("personal", "testing.md");
  });

  it("undoes the whole dream with one button and says so", async () => {
    api.undoGroup.mockImplementation(async () => {
      // From now on the journal says the group is undone.
      api.changeGroup.mockResolvedValue(ok({ ...GROUP, undone_by: 8 }));
      return ok({ undone: 7, group: 8, workspace: "personal", paths: ["testing.md", "testing-dup.md"] });
    });
    renderDialog(DONE);
    const undo = await screen.findByRole("button", { name: "Undo dream" });
    expect(screen.getAllByRole("button", { name: /undo/i })).toHaveLength(1);
    fireEvent.click(undo);
    await waitFor(() => expect(api.undoGroup).toHaveBeenCalledWith(7));
    expect((await screen.findByTestId("dream-undone")).textContent).toContain("Dream undone: 2 files restored");
    expect(onUndone).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole("button", { name: "Undo dream" })).toBeNull();
    // Undone is a state: Redo is offered, and no link leads to a file that no longer exists.
    expect(await screen.findByTestId("redo-group-button")).toBeTruthy();
    // The group that undid it, named as a group: never "#8", which reads like a change.
    expect((await screen.findByTestId("group-undone")).textContent).toContain("undone by change group 8");
    expect(screen.getByTestId("group-undone").textContent).not.toContain("#");
    expect(screen.queryByRole("button", { name: "Open memory" })).toBeNull();
  });

  it("reads an undone dream as undone when it is opened later", async () => {
    api.changeGroup.mockResolvedValue(ok({ ...GROUP, undone_by: 8 }));
    renderDialog({ ...DONE, result: DONE.result && { ...DONE.result, undone_by: 8 } });
    expect((await screen.findByTestId("dream-undone")).textContent).toBe("This dream was undone: its files are as they were before it.");
    expect(await screen.findByTestId("redo-group-button")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Undo dream" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Open memory" })).toBeNull();
  });

  it("shows a failed undo inline and keeps the button", async () => {
    api.undoGroup.mockResolvedValue(err("conflict", "testing.md changed since the dream; nothing was undone"));
    renderDialog(DONE);
    fireEvent.click(await screen.findByRole("button", { name: "Undo dream" }));
    const error = await screen.findByTestId("inline-error");
    expect(error.getAttribute("data-code")).toBe("conflict");
    expect(error.textContent).toContain("testing.md changed since the dream");
    expect(onUndone).not.toHaveBeenCalled();
    expect(screen.queryByTestId("dream-undone")).toBeNull();
    expect(screen.getByRole<HTMLButtonElement>("button", { name: "Undo dream" }).disabled).toBe(false);
  });

  it("reads clearly when nothing needed changing", () => {
    const noop: TaskInfo = {
      ...DONE,
      result: {
        summary: "nothing to consolidate",
        files: [],
        group: null,
        dream: { ...REPORT, status: "noop", files_touched: [], files_deleted: [], merges: [], entries_merged: 0, notes: [] },
      },
    };
    renderDialog(noop);
    expect(screen.getByTestId("dream-outcome").textContent).toBe("Nothing to consolidate");
    expect(screen.queryByTestId("dream-summary"), "said once, not twice").toBeNull();
    expect(screen.getByTestId("dream-report").textContent).toContain("nothing was changed");
    expect(screen.queryByRole("button", { name: "Undo dream" })).toBeNull();
    expect(screen.queryByTestId("dream-notes")).toBeNull();
    expect(api.changeGroup).not.toHaveBeenCalled();
  });

  it("reads clearly when it failed, with what it kept undoable", async () => {
    const failed: TaskInfo = {
      ...DONE,
      status: "failed",
      reason: "error",
      error: "failed: disk full",
      result: {
        summary: "dream failed: failed: disk full",
        files: ["testing.md"],
        group: 7,
        dream: { ...REPORT, status: "failed", notes: ["failed: disk full"] },
      },
    };
    renderDialog(failed);
    const report = screen.getByTestId("dream-report");
    expect(report.getAttribute("data-status")).toBe("failed");
    expect(within(report).getByTestId("dream-outcome").textContent).toBe("Dream failed");
    expect(within(report).getByText("failed: disk full", { selector: ".dream-detail" })).toBeTruthy();
    expect(await within(report).findByRole("button", { name: "Undo dream" })).toBeTruthy();
  });

  it("says why a dream did not run", () => {
    renderDialog(task("d2", { kind: "dream", status: "skipped", reason: "locked", error: "personal is being consolidated by process 42" }), "d2");
    expect(screen.getByTestId("dream-outcome").textContent).toBe("Dream did not run");
    expect(screen.getByTestId("dream-report").textContent).toContain("personal is being consolidated by process 42");
  });
});
