// Dream (consolidation) as the UI shows it: which dream a workspace has under way,
// the files a running dream has changed so far, how a finished one reads, and which dream the
// report dialog shows — the one the user opened, or a dream the user started that has ended.

import type { DreamReport, TaskInfo, ToolStep } from "./bindings";
import { isActive } from "./tasks";

/** The newest queued or running dream of `workspace` in `tasks`, if any. */
export function activeDream(tasks: readonly TaskInfo[], workspace: string): TaskInfo | null {
  return tasks.find((t) => t.kind === "dream" && t.workspace === workspace && isActive(t)) ?? null;
}

/** A file a running dream has written or deleted. */
export interface ChangedFile {
  path: string;
  deleted: boolean;
}

/** Tool steps that write a file (`write` is the mechanical path's "wrote this file"). */
const WRITES: ReadonlySet<string> = new Set(["write", "write_file", "edit"]);
const DELETES: ReadonlySet<string> = new Set(["delete_file"]);

/**
 * The files a dream's tool steps changed so far, each once in the order first changed; the last
 * successful step says whether it is deleted. Failed and unfinished steps changed nothing.
 */
export function changedFiles(tools: readonly ToolStep[]): ChangedFile[] {
  const byPath = new Map<string, ChangedFile>();
  for (const step of tools) {
    if (step.ok !== true || !step.detail) continue;
    const deleted = DELETES.has(step.name);
    if (!deleted && !WRITES.has(step.name)) continue;
    const had = byPath.get(step.detail);
    if (had) had.deleted = deleted;
    else byPath.set(step.detail, { path: step.detail, deleted });
  }
  return [...byPath.values()];
}

/** How a dream task reads. */
export type DreamOutcome = "queued" | "running" | "updated" | "proposed" | "noop" | "failed" | "skipped";

export function dreamOutcome(t: TaskInfo): DreamOutcome {
  if (t.status === "queued" || t.status === "running") return t.status;
  if (t.status === "skipped") return "skipped";
  if (t.status === "failed") return "failed";
  return t.result?.dream?.status ?? (t.result?.group !== null && t.result?.group !== undefined ? "updated" : "noop");
}

export const OUTCOME_TITLES: Record<DreamOutcome, string> = {
  queued: "Waiting to start…",
  running: "Dreaming…",
  updated: "Memory consolidated",
  proposed: "Changes proposed for review",
  noop: "Nothing to consolidate",
  failed: "Dream failed",
  skipped: "Dream did not run",
};

/** What went wrong or why it did not run, when the task says. */
export function outcomeDetail(t: TaskInfo): string | null {
  const outcome = dreamOutcome(t);
  if (outcome === "noop") return "Every memory file was already consolidated; nothing was changed.";
  if (outcome === "proposed")
    return "Nothing was written yet: review mode is on, so the changes wait in the Inbox for you to accept or reject.";
  if (outcome === "skipped") {
    if (t.error) return t.error;
    if (t.reason === "locked") return "Another process holds this workspace's consolidation lock.";
    return t.reason ? `Reason: ${t.reason}.` : null;
  }
  if (outcome === "failed") return t.error ?? (t.reason ? `Reason: ${t.reason}.` : null);
  return null;
}

const files = (n: number) => `${n} file${n === 1 ? "" : "s"}`;

/**
 * "memory agent · manual · 2.3 s · 1 file created · 2 entries merged · types: feedback" style
 * facts of a report: what it created is told apart from what it changed and what it deleted.
 */
export function reportFacts(r: DreamReport, duration: string): string[] {
  const facts: string[] = [r.strategy === "agent" ? "memory agent" : r.strategy === "planner" ? "the model's plan" : "mechanical", r.trigger === "auto" ? "automatic" : "manual"];
  if (duration) facts.push(duration);
  const created = (r.files_created ?? []).length;
  const changed = r.files_touched.length - created;
  if (created > 0) facts.push(`${files(created)} created`);
  if (changed > 0) facts.push(`${files(changed)} changed`);
  if (r.files_deleted.length > 0) facts.push(`${files(r.files_deleted.length)} deleted`);
  if (r.entries_merged > 0) facts.push(`${r.entries_merged} entr${r.entries_merged === 1 ? "y" : "ies"} merged`);
  if (r.touched_types.length > 0) facts.push(`types: ${r.touched_types.join(", ")}`);
  return facts;
}

// Which dream the report dialog shows.

export interface DreamDialogState {
  /** The dream the user opened (a Dream click, the task list), shown whatever its state. */
  open: string | null;
  /** Dreams the user started whose report opens by itself once they end (until it is closed). */
  awaiting: readonly string[];
}

export type DreamDialogAction =
  /** The user started (or joined) a dream: show it now, and its report when it ends. */
  | { type: "started"; id: string }
  /** Show a dream (from the task list). */
  | { type: "open"; id: string }
  /** The dialog was closed; `tasks` tell whether the dream it showed still runs. */
  | { type: "close"; tasks: readonly TaskInfo[] };

export const initialDreamDialog: DreamDialogState = { open: null, awaiting: [] };

function finished(tasks: readonly TaskInfo[], id: string): boolean {
  const t = tasks.find((x) => x.id === id);
  return !!t && !isActive(t);
}

/** The dream the dialog shows now (`null`: closed). */
export function shownDream(state: DreamDialogState, tasks: readonly TaskInfo[]): string | null {
  return state.open ?? state.awaiting.find((id) => finished(tasks, id)) ?? null;
}

export function dreamDialogReducer(state: DreamDialogState, action: DreamDialogAction): DreamDialogState {
  switch (action.type) {
    case "started":
      return {
        open: action.id,
        awaiting: state.awaiting.includes(action.id) ? state.awaiting : [...state.awaiting, action.id],
      };
    case "open":
      return { ...state, open: action.id };
    case "close": {
      const shown = shownDream(state, action.tasks);
      // Closed while it still runs: its report opens when it ends. Closed after: done with it.
      const keep = (id: string) => id !== shown || !finished(action.tasks, id);
      return { open: null, awaiting: state.awaiting.filter(keep) };
    }
  }
}
