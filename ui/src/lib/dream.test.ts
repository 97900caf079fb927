import { describe, expect, it } from "vitest";
import {
  activeDream,
  changedFiles,
  dreamDialogReducer,
  OUTCOME_TITLES,
  dreamOutcome,
  initialDreamDialog,
  outcomeDetail,
  reportFacts,
  shownDream,
} from "./dream";
import type { DreamDialogState } from "./dream";
import type { DreamReport, TaskInfo } from "./bindings";
import { task } from "../test/fixtures";

const REPORT: DreamReport = {
  status: "updated",
  strategy: "agent",
  trigger: "manual",
  files_touched: ["testing.md"],
  files_created: [],
  files_deleted: ["testing-dup.md"],
  entries_merged: 2,
  merges: [],
  touched_types: ["feedback"],
  duration_ms: 2300,
  notes: ["agent: merged the duplicate testing feedback"],
};

const dream = (id: string, extra: Partial<TaskInfo> = {}) => task(id, { kind: "dream", session: null, ...extra });
const running = (id: string, extra: Partial<TaskInfo> = {}) => dream(id, { status: "running", finished_at: null, ...extra });

describe("activeDream", () => {
  it("finds the workspace's queued or running dream, not other kinds or workspaces", () => {
    const tasks = [
      task("x", { status: "running", finished_at: null }),
      running("other-ws", { workspace: "claude-proj" }),
      dream("done"),
      dream("waiting", { status: "queued", started_at: null, finished_at: null }),
    ];
    expect(activeDream(tasks, "personal")?.id).toBe("waiting");
    expect(activeDream(tasks, "claude-proj")?.id).toBe("other-ws");
    expect(activeDream([dream("done"), task("x", { status: "running" })], "personal")).toBeNull();
  });
});

describe("changedFiles", () => {
  it("lists each file written or deleted once, from successful steps only", () => {
    expect(
      changedFiles([
        { name: "read_file", detail: "a.md", ok: true },
        { name: "write_file", detail: "a.md", ok: true },
        { name: "edit", detail: "b.md", ok: false },
        { name: "delete_file", detail: "c.md", ok: true },
        { name: "write", detail: "d.md", ok: true },
        { name: "edit", detail: "a.md", ok: true },
        { name: "write_file", detail: "e.md", ok: null },
        { name: "grep_search", detail: "tests", ok: true },
      ]),
    ).toEqual([
      { path: "a.md", deleted: false },
      { path: "c.md", deleted: true },
      { path: "d.md", deleted: false },
    ]);
  });

  it("takes the last successful step's word on a file", () => {
    expect(
      changedFiles([
        { name: "write_file", detail: "a.md", ok: true },
        { name: "delete_file", detail: "a.md", ok: true },
      ]),
    ).toEqual([{ path: "a.md", deleted: true }]);
  });
});

describe("outcome", () => {
  it("reads each way a dream can end", () => {
    expect(dreamOutcome(running("a"))).toBe("running");
    expect(dreamOutcome(dream("a", { status: "queued" }))).toBe("queued");
    const result = { summary: "s", files: [], group: 4, dream: REPORT };
    expect(dreamOutcome(dream("a", { result }))).toBe("updated");
    expect(dreamOutcome(dream("a", { result: { ...result, group: null, dream: { ...REPORT, status: "noop" } } }))).toBe("noop");
    expect(dreamOutcome(dream("a", { status: "failed", error: "boom" }))).toBe("failed");
    expect(dreamOutcome(dream("a", { status: "skipped", reason: "locked" }))).toBe("skipped");
    // No report (an older server): the group tells.
    expect(dreamOutcome(dream("a", { result: { summary: "s", files: ["x.md"], group: 3 } }))).toBe("updated");
    expect(dreamOutcome(dream("a", { result: { summary: "s", files: [], group: null } }))).toBe("noop");
  });

  it("says why it failed or did not run, and that a no-op changed nothing", () => {
    expect(outcomeDetail(dream("a", { status: "failed", error: "the model is unreachable" }))).toBe("the model is unreachable");
    expect(outcomeDetail(dream("a", { status: "failed", reason: "cancelled" }))).toBe("Reason: cancelled.");
    expect(outcomeDetail(dream("a", { status: "skipped", reason: "locked" }))).toMatch(/consolidation lock/);
    expect(outcomeDetail(dream("a", { status: "skipped", reason: "locked", error: "held by 42" }))).toBe("held by 42");
    const noop = { summary: "nothing to consolidate", files: [], group: null, dream: { ...REPORT, status: "noop" as const } };
    expect(outcomeDetail(dream("a", { result: noop }))).toMatch(/nothing was changed/);
    expect(outcomeDetail(dream("a", { result: { summary: "s", files: [], group: 4, dream: REPORT } }))).toBeNull();
    // Review mode: a proposal, not "consolidated".
    const proposed = { summary: "s", files: [], group: null, proposal: 9, dream: { ...REPORT, status: "proposed" as const } };
    expect(dreamOutcome(dream("a", { result: proposed }))).toBe("proposed");
    expect(OUTCOME_TITLES.proposed).toBe("Changes proposed for review");
    expect(outcomeDetail(dream("a", { result: proposed }))).toMatch(/Nothing was written yet.*Inbox/);
  });

  it("lists a report's facts", () => {
    expect(reportFacts(REPORT, "2.3 s")).toEqual([
      "memory agent",
      "manual",
      "2.3 s",
      "1 file changed",
      "1 file deleted",
      "2 entries merged",
      "types: feedback",
    ]);
    expect(reportFacts({ ...REPORT, strategy: "mechanical", trigger: "auto", entries_merged: 1, touched_types: [], files_deleted: [] }, "")).toEqual([
      "mechanical",
      "automatic",
      "1 file changed",
      "1 entry merged",
    ]);
    // A file the dream wrote that did not exist before is created, not "updated".
    expect(
      reportFacts({ ...REPORT, files_touched: ["new.md", "testing.md"], files_created: ["new.md"], files_deleted: [], entries_merged: 0, touched_types: [] }, ""),
    ).toEqual(["memory agent", "manual", "1 file created", "1 file changed"]);
  });
});

describe("which dream the dialog shows", () => {
  it("shows a started dream now, and again at its end if closed while it ran", () => {
    let s: DreamDialogState = dreamDialogReducer(initialDreamDialog, { type: "started", id: "d1" });
    let tasks = [running("d1")];
    expect(shownDream(s, tasks)).toBe("d1");
    s = dreamDialogReducer(s, { type: "close", tasks });
    expect(shownDream(s, tasks)).toBeNull();
    // It ends: its report opens by itself.
    tasks = [dream("d1")];
    expect(shownDream(s, tasks)).toBe("d1");
    // Closed after the end: done with it.
    s = dreamDialogReducer(s, { type: "close", tasks });
    expect(s).toEqual(initialDreamDialog);
    expect(shownDream(s, tasks)).toBeNull();
  });

  it("keeps showing a started dream open until closed, through its end", () => {
    let s = dreamDialogReducer(initialDreamDialog, { type: "started", id: "d1" });
    expect(shownDream(s, [dream("d1")])).toBe("d1");
    s = dreamDialogReducer(s, { type: "close", tasks: [dream("d1")] });
    expect(shownDream(s, [dream("d1")])).toBeNull();
  });

  it("opens any dream from the task list, without making it reopen", () => {
    let s = dreamDialogReducer(initialDreamDialog, { type: "open", id: "old" });
    expect(shownDream(s, [dream("old")])).toBe("old");
    s = dreamDialogReducer(s, { type: "close", tasks: [dream("old")] });
    expect(shownDream(s, [dream("old")])).toBeNull();
  });

  it("does not list a dream twice when it is started again (joined)", () => {
    let s = dreamDialogReducer(initialDreamDialog, { type: "started", id: "d1" });
    s = dreamDialogReducer(s, { type: "started", id: "d1" });
    expect(s.awaiting).toEqual(["d1"]);
  });

  it("an open dream wins over one that ended meanwhile", () => {
    let s = dreamDialogReducer(initialDreamDialog, { type: "started", id: "d1" });
    s = dreamDialogReducer(s, { type: "close", tasks: [running("d1")] });
    s = dreamDialogReducer(s, { type: "open", id: "old" });
    const tasks = [dream("d1"), dream("old")];
    expect(shownDream(s, tasks)).toBe("old");
    s = dreamDialogReducer(s, { type: "close", tasks });
    // Then the ended dream's report.
    expect(shownDream(s, tasks)).toBe("d1");
  });
});
