// Memory health's pruning by use and the task list's way to the inbox: memories not
// recalled in 90 days archived one by one or all at once (confirmed), each with Undo; the most
// expensive opened to trim; archived ones restored; a task's proposal opened in the Inbox.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { StatusPanel } from "./StatusPanel";
import { ToastProvider } from "../common/Toasts";
import { commands } from "../../lib/bindings";
import type { TaskInfo } from "../../lib/bindings";
import type { TaskList } from "../../lib/useTaskList";
import { err, memoryStats, ok, proposalOf, proposalPage, remoteSync, reviewMode, status, task } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    stats: vi.fn(),
    dream: vi.fn(),
    tasks: vi.fn(),
    taskCancel: vi.fn(),
    status: vi.fn(),
    syncStatus: vi.fn(),
    reviewMode: vi.fn(),
    inbox: vi.fn(),
    proposal: vi.fn(),
    memoryUsage: vi.fn(),
    list: vi.fn(),
    setArchived: vi.fn(),
    undo: vi.fn(),
  },
}));

const api = vi.mocked(commands);
const onOpenMemory = vi.fn();
const onOpenDream = vi.fn();
const onDreamStarted = vi.fn();
const onOpenProposal = vi.fn();
const DREAM = task("d1", { kind: "dream", session: null, created_at: "2026-03-01T09:00:00Z" });

function taskList(tasks: TaskInfo[] = []): TaskList {
  return { state: { tasks, loaded: true, error: null }, update: vi.fn(), reload: vi.fn() };
}

beforeEach(() => {
  api.reviewMode.mockResolvedValue(ok(reviewMode()));
  api.inbox.mockResolvedValue(ok(proposalPage()));
  api.memoryUsage.mockResolvedValue(ok([]));
  api.list.mockResolvedValue(ok([]));
  api.tasks.mockResolvedValue(ok([DREAM]));
  api.status.mockResolvedValue(ok(status()));
  api.syncStatus.mockResolvedValue(ok(remoteSync({ remote: null })));
});

describe("memory health: pruning by use", () => {
  const PRUNE = memoryStats({
    invalid: ["broken.md"],
    duplicates: 2,
    duplicate_files: ["testing.md"],
    stale: ["old.md", "旧笔记.md", "older.md"],
    expensive: ["big.md", "long.md"],
    archived: ["gone.md"],
  });
  const wrote = (path: string, id: number) => ok({ workspace: "personal", path, change_id: id, hash: "h", shared: null });
  function renderWithToasts() {
    return render(
      <ToastProvider>
        <StatusPanel
          workspace="personal"
          label="Personal"
          workspaceLabel={(id) => id}
          tasks={taskList()}
          onOpenMemory={onOpenMemory}
          onOpenDream={onOpenDream}
          onDreamStarted={onDreamStarted}
          onOpenProposal={onOpenProposal}
        />
      </ToastProvider>,
    );
  }

  beforeEach(() => {
    api.stats.mockResolvedValue(ok(PRUNE));
  });

  it("lists memories not recalled in 90 days, each with Archive; archiving one says so with Undo and reads the figures again", async () => {
    api.setArchived.mockResolvedValue(wrote("old.md", 40));
    api.undo.mockResolvedValue(wrote("old.md", 41));
    renderWithToasts();
    const stale = await screen.findByTestId("health-stale");
    expect(within(stale).getByRole("heading").textContent).toContain("Not recalled in 90 days");
    const items = within(stale).getAllByTestId("health-item");
    expect(items.map((i) => i.getAttribute("data-path"))).toEqual(["old.md", "旧笔记.md", "older.md"]);
    const calls = api.stats.mock.calls.length;
    fireEvent.click(within(items[0]).getByTestId("health-archive"));
    await waitFor(() => expect(api.setArchived).toHaveBeenCalledWith("personal", "old.md", true));
    const toast = await screen.findByTestId("toast");
    expect(toast.textContent).toContain("Archived “old.md”: it is no longer recalled or in MEMORY.md; it stays searchable.");
    await waitFor(() => expect(api.stats.mock.calls.length).toBeGreaterThan(calls));
    fireEvent.click(within(toast).getByRole("button", { name: "Undo" }));
    await waitFor(() => expect(api.undo).toHaveBeenCalledWith(40));
  });

  it("archives them all after a confirmation, and Undo takes every one back, newest first", async () => {
    let id = 50;
    api.setArchived.mockImplementation(async (_ws, path) => wrote(path, id++));
    api.undo.mockImplementation(async (n) => wrote("x.md", n + 100));
    renderWithToasts();
    fireEvent.click(await screen.findByTestId("health-archive-all"));
    expect(screen.getByTestId("health-archive-all").textContent).toBe("Archive all 3");
    const dialog = await screen.findByRole("dialog");
    expect(within(dialog).getByRole("heading").textContent).toBe("Archive 3 memories?");
    expect(api.setArchived).not.toHaveBeenCalled();
    fireEvent.click(within(dialog).getByTestId("health-archive-all-confirm"));
    await waitFor(() => expect(api.setArchived).toHaveBeenCalledTimes(3));
    expect(api.setArchived.mock.calls.map((c) => c[1])).toEqual(["old.md", "旧笔记.md", "older.md"]);
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    const toast = await screen.findByTestId("toast");
    expect(toast.textContent).toContain("Archived 3 memories: they are no longer recalled or in MEMORY.md; they stay searchable.");
    fireEvent.click(within(toast).getByRole("button", { name: "Undo" }));
    await waitFor(() => expect(api.undo.mock.calls.map((c) => c[0])).toEqual([52, 51, 50]));
  });

  it("says how far Archive all got when one is refused", async () => {
    api.setArchived.mockResolvedValueOnce(wrote("old.md", 60)).mockResolvedValueOnce(err("locked", "another job holds the lock"));
    renderWithToasts();
    fireEvent.click(await screen.findByTestId("health-archive-all"));
    fireEvent.click(within(await screen.findByRole("dialog")).getByTestId("health-archive-all-confirm"));
    const stale = screen.getByTestId("health-stale");
    expect(await within(stale).findByText("Archived 1 of 3; the next one could not be archived:")).toBeTruthy();
    expect(within(stale).getByTestId("inline-error").getAttribute("data-code")).toBe("locked");
    expect(api.setArchived).toHaveBeenCalledTimes(2);
  });

  it("lists the most expensive memories to open and trim, and the archived ones with Restore", async () => {
    api.setArchived.mockResolvedValue(wrote("gone.md", 70));
    renderWithToasts();
    const expensive = await screen.findByTestId("health-expensive");
    expect(within(expensive).getAllByTestId("health-item").map((i) => i.getAttribute("data-path"))).toEqual(["big.md", "long.md"]);
    fireEvent.click(within(expensive).getAllByTestId("health-trim")[0]);
    expect(onOpenMemory).toHaveBeenCalledWith("personal", "big.md");
    const archived = screen.getByTestId("health-archived");
    expect(archived.textContent).toContain("Out of recall and MEMORY.md, still listed and searchable.");
    fireEvent.click(within(archived).getByTestId("health-restore"));
    await waitFor(() => expect(api.setArchived).toHaveBeenCalledWith("personal", "gone.md", false));
    expect((await screen.findByTestId("toast")).textContent).toContain("Restored “gone.md”: it is recalled again and listed in MEMORY.md.");
    // What health showed before stays: invalid files, duplicates, same names.
    expect(screen.getByTestId("health-invalid")).toBeTruthy();
    expect(screen.getByTestId("health-duplicates")).toBeTruthy();
  });

  it("offers Review it in the Inbox on a task whose writes became a proposal", async () => {
    api.proposal.mockResolvedValue(ok(proposalOf(9)));
    api.tasks.mockResolvedValue(ok([task("e7", { result: { summary: "proposed changes to 1 file for review (proposal 9)", files: ["travel.md"], group: null, proposal: 9 } }), DREAM]));
    renderWithToasts();
    const row = (await screen.findAllByTestId("task-row")).find((r) => r.getAttribute("data-id") === "e7")!;
    await waitFor(() => expect(api.proposal).toHaveBeenCalledWith(9));
    fireEvent.click(within(row).getByTestId("task-proposal"));
    expect(onOpenProposal).toHaveBeenCalledWith("personal", 9);
    expect(within(row).getByTestId("task-proposal").textContent).toBe("Review it in the Inbox");
    expect(within(row).queryByTestId("task-proposal-fate")).toBeNull();
  });

  it("says what became of a decided proposal instead of asking for a review", async () => {
    api.proposal.mockImplementation(async (id: number) =>
      ok(proposalOf(id, { status: id === 11 ? "accepted" : "rejected", resolved_at: "2026-03-01T11:00:00Z" })),
    );
    api.tasks.mockResolvedValue(
      ok([
        task("e8", { result: { summary: "proposed changes to 1 file for review (proposal 11)", files: ["travel.md"], group: null, proposal: 11 } }),
        task("e9", { result: { summary: "proposed changes to 1 file for review (proposal 12)", files: ["travel.md"], group: null, proposal: 12 } }),
      ]),
    );
    renderWithToasts();
    const rowOf = async (id: string) => (await screen.findAllByTestId("task-row")).find((r) => r.getAttribute("data-id") === id)!;
    const accepted = await rowOf("e8");
    await waitFor(() => expect(within(accepted).getByTestId("task-proposal-fate").textContent).toBe("You accepted it in the Inbox: its changes are saved."));
    expect(within(accepted).getByTestId("task-proposal").textContent).toBe("See it in the Inbox");
    const rejected = await rowOf("e9");
    await waitFor(() => expect(within(rejected).getByTestId("task-proposal-fate").textContent).toBe("You rejected it in the Inbox: nothing was saved."));
    expect(screen.queryByText("Review it in the Inbox")).toBeNull();
  });
});

