// A dream's proposal and its task's report, for the inbox's tests: a mechanical dream
// in review mode found mobile-release-freeze.md's one entry already in freeze-window.md (so it
// deletes the file), a repeated entry in team.md, and put freeze-window.md in A–Z order.
import type { DreamReport, Proposal, TaskInfo } from "../lib/bindings";
import { proposalSummary, task } from "./fixtures";

export const FREEZE = "No merges to main in the last week of each month.\nWhy: the mobile release ships then.";

/** A mechanical dream in review mode: mobile-release-freeze.md's one entry is already in freeze-window.md. */
export function freezeProposal(): Proposal {
  return {
    ...proposalSummary(12, {
      source: "dream",
      kind: "dream",
      label: "dream (manual)",
      origin: { session: null, message: null, client: null, task: "dream-7" },
      paths: ["freeze-window.md", "mobile-release-freeze.md", "team.md"],
      changes: 4,
    }),
    files: [
      {
        path: "freeze-window.md",
        op: "modify",
        base_hash: "h1",
        before: `---\nname: Freeze window\ndescription: When merges stop\ntype: project\n---\nTag releases on Friday.\n\n${FREEZE}\n`,
        after: `---\nname: Freeze window\ndescription: When merges stop\ntype: project\n---\n${FREEZE}\n\nTag releases on Friday.\n`,
        entries: [{ id: "freeze-window.md#1", op: "move", before: FREEZE, after: FREEZE }],
      },
      {
        path: "mobile-release-freeze.md",
        op: "delete",
        base_hash: "h2",
        before: `---\nname: Mobile release freeze\ndescription: Freeze before the release\ntype: project\n---\n${FREEZE}\n`,
        after: null,
        entries: [{ id: "mobile-release-freeze.md#1", op: "file", before: "the whole file", after: null }],
      },
      {
        path: "team.md",
        op: "modify",
        base_hash: "h3",
        before: "---\nname: Team\ndescription: Who is who\ntype: project\n---\n- Ana leads mobile.\n\n- Ana leads mobile.\n",
        after: "---\nname: Team\ndescription: Who is who\ntype: project\n---\n- Ana leads mobile.\n",
        entries: [{ id: "team.md#2", op: "remove", before: "- Ana leads mobile.", after: null }],
      },
    ],
  };
}

export function freezeReport(extra: Partial<DreamReport> = {}): DreamReport {
  return {
    status: "updated",
    strategy: "mechanical",
    trigger: "manual",
    files_touched: ["freeze-window.md", "team.md"],
    files_deleted: ["mobile-release-freeze.md"],
    entries_merged: 2,
    merges: [
      { summary: "No merges to main in the last week of each month.", into: "freeze-window.md", from: ["mobile-release-freeze.md"] },
      { summary: "Ana leads mobile.", into: "team.md", from: ["team.md"] },
    ],
    touched_types: ["project"],
    duration_ms: 12,
    notes: [
      "freeze-window.md: entries put in A–Z order by their first line (no text changed)",
      "team.md: 1 entry repeated in it merged into one copy",
      "deleted mobile-release-freeze.md: every entry it held is kept in freeze-window.md",
    ],
    ...extra,
  };
}

/** The dream task that made the proposal, its report in its result. */
export function freezeTask(report: DreamReport = freezeReport()): TaskInfo {
  return task("dream-7", {
    kind: "dream",
    session: null,
    result: { summary: "proposed changes to 3 files for review", files: [], group: null, dream: report, proposal: 12 },
  });
}
