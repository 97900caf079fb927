// Background memory tasks (extraction, dream, remember, forget, embedding, import) as the status bar and the task
// list show them: how a task's new state merges into the recent list (events may overtake a list
// read, and a stale state must not replace a newer one), how many run, what to say about them, and
// how long each took.

import type { TaskInfo, TaskKind, TaskReason, TaskStatus } from "./bindings";
import type { UiError } from "./transport";

/** How many recent tasks the list loads and keeps. */
export const TASK_LIMIT = 50;

export interface TasksState {
  /** Newest first. */
  tasks: TaskInfo[];
  /** A list answer arrived (events alone do not make a complete list). */
  loaded: boolean;
  /** The last failure loading the list. */
  error: UiError | null;
}

export const TASK_KIND_LABELS: Record<TaskKind, string> = {
  extract: "Extract",
  dream: "Dream",
  remember: "Remember",
  forget: "Forget",
  embed: "Embedding",
  import: "Import",
  model_install: "Local model install",
};

export const TASK_STATUS_LABELS: Record<TaskStatus, string> = {
  queued: "Queued",
  running: "Running",
  completed: "Completed",
  failed: "Failed",
  skipped: "Skipped",
};

/** What one task of a kind is doing, for the status bar (a dream says "✦ dreaming" instead). */
const DOING: Record<Exclude<TaskKind, "dream">, string> = {
  extract: "Saving memories…",
  remember: "Saving memories…",
  forget: "Forgetting…",
  embed: "Embedding memories…",
  import: "Importing…",
  model_install: "Installing the local model…",
};

/** The status bar's words for "a dream is queued or running", after the spark. */
export const DREAMING_TEXT = "dreaming";

/** Queued or running: it may still change memories, and it can be cancelled. */
export function isActive(t: Pick<TaskInfo, "status">): boolean {
  return t.status === "queued" || t.status === "running";
}

const STATUS_RANK: Record<TaskStatus, number> = { queued: 0, running: 1, completed: 2, failed: 2, skipped: 2 };

function time(iso: string | null | undefined): number {
  if (!iso) return NaN;
  return Date.parse(iso);
}

/**
 * Whether `incoming` should replace `current` (the same task): it was updated later, or at the
 * same instant but is further along (a task never goes back from finished to running).
 */
export function isNewer(incoming: TaskInfo, current: TaskInfo): boolean {
  const a = time(incoming.updated_at);
  const b = time(current.updated_at);
  if (!Number.isNaN(a) && !Number.isNaN(b) && a !== b) return a > b;
  return STATUS_RANK[incoming.status] >= STATUS_RANK[current.status];
}

/** Newest first: by creation time, then id. */
function byNewest(a: TaskInfo, b: TaskInfo): number {
  const d = (time(b.created_at) || 0) - (time(a.created_at) || 0);
  if (d !== 0) return d;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function merge(current: readonly TaskInfo[], incoming: readonly TaskInfo[]): TaskInfo[] {
  const byId = new Map(current.map((t) => [t.id, t]));
  for (const t of incoming) {
    const had = byId.get(t.id);
    if (!had || isNewer(t, had)) byId.set(t.id, t);
  }
  return [...byId.values()].sort(byNewest).slice(0, TASK_LIMIT);
}

/** Merges one task's new state into the list (inserting it if new); older states are ignored. */
export function mergeTask(tasks: readonly TaskInfo[], task: TaskInfo): TaskInfo[] {
  return merge(tasks, [task]);
}

/**
 * How much memory work is under way (every kind), whether a dream is queued or running, and what
 * to say about the other work (`null`: nothing besides dreams).
 */
export interface Activity {
  running: number;
  queued: number;
  dreaming: boolean;
  text: string | null;
}

export function activity(tasks: readonly TaskInfo[]): Activity {
  const running = tasks.filter((t) => t.status === "running").length;
  const queued = tasks.filter((t) => t.status === "queued").length;
  const dreaming = tasks.some((t) => t.kind === "dream" && isActive(t));
  const others = tasks.filter((t): t is TaskInfo & { kind: Exclude<TaskKind, "dream"> } => t.kind !== "dream");
  const othersRunning = others.filter((t) => t.status === "running");
  const othersQueued = others.filter((t) => t.status === "queued").length;
  let text: string | null = null;
  if (othersRunning.length === 1) text = DOING[othersRunning[0].kind];
  else if (othersRunning.length > 1) text = `${othersRunning.length} tasks running`;
  if (othersQueued > 0) {
    const q = `${othersQueued} queued`;
    text = text === null ? `${othersQueued} task${othersQueued === 1 ? "" : "s"} queued` : `${text} · ${q}`;
  }
  return { running, queued, dreaming, text };
}

/**
 * How long a task ran, in milliseconds: from its start (or creation, if it never started) to its
 * end (or its last update; `now` instead for an active task, so the count goes on). `null` when
 * the times cannot be read.
 */
export function taskDuration(t: TaskInfo, now?: number): number | null {
  const start = time(t.started_at ?? t.created_at);
  const end = t.finished_at ? time(t.finished_at) : now !== undefined && isActive(t) ? now : time(t.updated_at);
  if (Number.isNaN(start) || Number.isNaN(end)) return null;
  return Math.max(0, end - start);
}

/** "0.4 s", "12 s", "3 min 5 s", "1 h 2 min". */
export function formatDuration(ms: number | null): string {
  if (ms === null) return "";
  if (ms < 10_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 === 0 ? `${m} min` : `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
}

/** Why a task was skipped, cancelled or failed, in words (the wire keeps the code). */
export const REASON_TEXT: Record<TaskReason, string> = {
  disabled: "switched off for this workspace",
  same_session: "already dreamed after this chat",
  min_hours: "dreamed less than a day ago",
  scan_throttled: "checked a moment ago",
  min_sessions: "not enough new chats yet",
  locked: "another job was working on this folder",
  running: "a dream was already running",
  nothing_to_do: "nothing new to read",
  replaced: "a newer run took its place",
  cancelled: "you stopped it",
  interrupted: "Mnemo closed before it finished",
  panicked: "it crashed",
  error: "it hit an error",
  no_runtime: "it could not start",
  remember_failed: "the model could not save it",
  budget: "it reached its token budget",
  conflict: "the file changed while it worked",
  remember_path_escape: "the model tried to write outside the memory folder",
  remember_nothing_written: "the model saved nothing",
  other: "see the details",
};

/** "Skipped — not enough new chats yet", "Failed — Mnemo closed before it finished", "Running". */
export function statusText(t: Pick<TaskInfo, "status" | "reason">): string {
  const label = TASK_STATUS_LABELS[t.status] ?? t.status;
  if (!t.reason) return label;
  return `${label} — ${REASON_TEXT[t.reason]}`;
}

/** Which tasks a filtered list shows (`null`: any). */
export interface TaskFilter {
  workspace: string | null;
  kind: TaskKind | null;
  status: TaskStatus | null;
}

export function matchesFilter(t: TaskInfo, f: TaskFilter): boolean {
  return (
    (f.workspace === null || t.workspace === f.workspace) &&
    (f.kind === null || t.kind === f.kind) &&
    (f.status === null || t.status === f.status)
  );
}

/**
 * A filtered list: what `tasks` answered for the filter, kept current by the shared list's newer
 * states (a task that no longer matches — it finished while the filter asks for running ones —
 * leaves; one that starts matching joins). Newest first, at most `TASK_LIMIT`.
 */
export function filteredTasks(loaded: readonly TaskInfo[], live: readonly TaskInfo[], f: TaskFilter): TaskInfo[] {
  const relevant = live.filter((t) => t.workspace === (f.workspace ?? t.workspace));
  return merge(loaded, relevant).filter((t) => matchesFilter(t, f));
}
