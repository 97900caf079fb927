// The "Remember…" box: what a remember task's state reads as, and what to open when
// it is done. The task is read with `remember_task` (its result and `{code, message}` error) and
// followed live through the shared task list.

import type { ApiError, RememberTask, TaskInfo, TaskStatus } from "./bindings";

/** `workspace`: the agent sees existing memories and may update them; `clean`: it does not. */
export type ContextMode = "workspace" | "clean";

/** Content above this many UTF-8 bytes is refused (`invalid_content`). */
export const MAX_CONTENT_BYTES = 64 * 1024;

export function contentBytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** Why the content cannot be sent as it is, or `null`. */
export function contentProblem(text: string): string | null {
  if (text.trim() === "") return "Write what to remember.";
  if (contentBytes(text) > MAX_CONTENT_BYTES) return "That is more than 64 KiB; remember something shorter.";
  return null;
}

export const REMEMBER_STATUS_TEXT: Record<TaskStatus, string> = {
  queued: "Waiting for its turn…",
  running: "The memory agent is writing…",
  completed: "Remembered",
  failed: "Could not remember",
  skipped: "Did not run",
};

/**
 * What the box says of a task, from its state: a completed task whose writes became a proposal
 * (review mode) says so — never "Remembered" while nothing was written.
 */
export function rememberStatus(t: RememberTask): { text: string; tone: string } {
  if (t.status === "completed" && t.result?.proposal != null) {
    return { text: "Proposed for review", tone: "proposed" };
  }
  return { text: REMEMBER_STATUS_TEXT[t.status], tone: t.status };
}

/** Finished: nothing will change any more. */
export function isSettled(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "skipped";
}

/** The memory to open once the task completed: the first file it wrote. */
export function fileToOpen(t: RememberTask): string | null {
  if (t.status !== "completed") return null;
  return t.result?.filesTouched[0] ?? null;
}

/**
 * The error of a failed task: the task's own `{code, message}`, else one made from the task
 * list's state (its reason is the code), else a generic one.
 */
export function failure(t: RememberTask, listed: TaskInfo | null): ApiError | null {
  if (t.status !== "failed") return null;
  if (t.error) return t.error;
  const reason = listed?.reason;
  const code = reason === "remember_nothing_written" || reason === "remember_path_escape" ? reason : "remember_failed";
  return {
    code,
    message: listed?.error ?? "the remember task failed",
  };
}

/**
 * Whether the shared list's state of the task says something `t` does not yet: a different
 * status (so the box reads the task again at once, not at its next poll).
 */
export function listedAhead(t: RememberTask, listed: TaskInfo | null): boolean {
  return listed !== null && listed.id === t.taskId && listed.status !== t.status;
}
