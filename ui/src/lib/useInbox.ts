// The inbox's pending count and a workspace's review mode, read by whoever shows them — the
// sidebar and the workspace bar's Inbox button, the first-use offer, the Status switch, the inbox
// itself — on mount, every 30 s (the count), when a memory job that may have proposed something
// ends (`reloadKey`), whenever this window accepted, rejected or switched review mode
// (`inboxChanged()`), and soon after the events this window has: memories changed, a task of
// this process changed, the window came back into focus (a `mnemo remember` or `mnemo dream` in a
// terminal proposes without an event here: the person comes back to the window).

import { useCallback, useEffect, useState } from "react";
import { commands } from "./bindings";
import type { ProposalStatus, ProposalSummary, ReviewMode } from "./bindings";
import { isDecided } from "./inbox";
import { onMemoryChanged, onTaskUpdated } from "./transport";
import { useCommand } from "./useCommand";

/** How often the pending count is read again (jobs of other processes send no events here). */
export const INBOX_POLL_MS = 30_000;

const listeners = new Set<() => void>();

/** Tells every reader to read again: a proposal was accepted or rejected, review mode changed. */
export function inboxChanged(): void {
  for (const l of [...listeners]) l();
}

/** Calls `cb` on every `inboxChanged()`; returns the unsubscribe function. */
export function onInboxChanged(cb: () => void): () => void {
  listeners.add(cb);
  return () => {
    listeners.delete(cb);
  };
}

/** How long after a burst of events (or the window's focus) the inbox is read again: one read a burst. */
export const INBOX_EVENT_DELAY_MS = 500;

/** The one set of event subscriptions while anyone reads the inbox (`null`: nobody does). */
let watching: { users: number; off: () => void } | null = null;

function watchEvents(): () => void {
  if (!watching) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const soon = () => {
      if (timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        inboxChanged();
      }, INBOX_EVENT_DELAY_MS);
    };
    const onVisible = () => {
      if (document.visibilityState === "visible") soon();
    };
    const offMemory = onMemoryChanged(soon, soon);
    const offTasks = onTaskUpdated(soon, soon);
    window.addEventListener("focus", soon);
    document.addEventListener("visibilitychange", onVisible);
    watching = {
      users: 0,
      off: () => {
        offMemory();
        offTasks();
        window.removeEventListener("focus", soon);
        document.removeEventListener("visibilitychange", onVisible);
        if (timer !== undefined) clearTimeout(timer);
      },
    };
  }
  const w = watching;
  w.users += 1;
  return () => {
    w.users -= 1;
    if (w.users === 0 && watching === w) {
      w.off();
      watching = null;
    }
  };
}

/** A counter bumped on every `inboxChanged()` (and every `pollMs`, when given). */
function useInboxSignal(pollMs?: number): number {
  const [seq, setSeq] = useState(0);
  useEffect(() => {
    const bump = () => setSeq((n) => n + 1);
    const unwatch = watchEvents();
    const off = onInboxChanged(bump);
    const timer = pollMs ? setInterval(bump, pollMs) : undefined;
    return () => {
      off();
      unwatch();
      if (timer !== undefined) clearInterval(timer);
    };
  }, [pollMs]);
  return seq;
}

/**
 * The pending count per workspace as last read by anyone — the poll below, the inbox's own list —
 * so the sidebar, the Inbox button and the inbox itself always say the same number.
 */
const pendingCounts = new Map<string, number>();
const countListeners = new Set<() => void>();

/** A fresh pending count for `workspace` (`null`: the read failed, nothing is known). */
export function notePending(workspace: string, pending: number | null): void {
  const had = pendingCounts.get(workspace) ?? null;
  if (had === pending) return;
  if (pending === null) pendingCounts.delete(workspace);
  else pendingCounts.set(workspace, pending);
  for (const l of [...countListeners]) l();
}

/** The pending count last read for `workspace`, kept current (`null`: not read). */
export function usePendingCount(workspace: string | null): number | null {
  const [, setSeq] = useState(0);
  useEffect(() => {
    const bump = () => setSeq((n) => n + 1);
    countListeners.add(bump);
    return () => {
      countListeners.delete(bump);
      // Nobody shows a count any more (the window's views are gone): nothing stale is kept.
      if (countListeners.size === 0) pendingCounts.clear();
    };
  }, []);
  return workspace === null ? null : (pendingCounts.get(workspace) ?? null);
}

/**
 * How many proposals of `workspace` wait for a decision; `null` for no workspace, until read, or
 * when the read fails (the badge then shows nothing).
 */
export function useInboxCount(workspace: string | null, reloadKey: unknown = 0): { workspace: string; pending: number } | null {
  const { run, cancel } = useCommand();
  const pending = usePendingCount(workspace);
  const seq = useInboxSignal(INBOX_POLL_MS);

  useEffect(() => {
    if (workspace === null) return;
    void run(commands.inbox(workspace, "pending", 0, 1), "inbox-count").then((answer) => {
      if (answer) notePending(workspace, answer.ok ? answer.data.pending : null);
    });
    return () => cancel("inbox-count");
  }, [run, cancel, workspace, reloadKey, seq]);

  return workspace !== null && pending !== null ? { workspace, pending } : null;
}

/**
 * A workspace's review mode, `null` until read or when the read fails, and a setter for what
 * this window just chose (shown at once, before the server's answer).
 */
export function useReviewMode(workspace: string): [ReviewMode | null, (mode: ReviewMode) => void] {
  const { run, cancel } = useCommand();
  const [mode, setMode] = useState<{ workspace: string; mode: ReviewMode } | null>(null);
  const seq = useInboxSignal();

  useEffect(() => {
    void run(commands.reviewMode(workspace), "review-mode").then((answer) => {
      if (answer) setMode(answer.ok ? { workspace, mode: answer.data } : null);
    });
    return () => cancel("review-mode");
  }, [run, cancel, workspace, seq]);

  const set = useCallback(
    (next: ReviewMode) => {
      cancel("review-mode");
      setMode({ workspace, mode: next });
    },
    [cancel, workspace],
  );
  return [mode && mode.workspace === workspace ? mode.mode : null, set];
}

/**
 * Where a proposal stands now (a task that proposed says so only while it waits).
 * Decided is final: once read it is kept here and never read again.
 */
const decidedStatus = new Map<number, ProposalStatus>();

/**
 * The status of proposal `id` (`null`: no proposal, not read yet, or the read failed), read again
 * whenever this window decides something in the inbox and every `INBOX_POLL_MS` while it waits.
 */
export function useProposalStatus(id: number | null): ProposalStatus | null {
  const { run, cancel } = useCommand();
  const [read, setRead] = useState<{ id: number; status: ProposalStatus } | null>(null);
  const seq = useInboxSignal(INBOX_POLL_MS);
  const known = id === null ? undefined : decidedStatus.get(id);
  const key = `proposal-status-${id ?? "none"}`;

  useEffect(() => {
    if (id === null || known !== undefined) return;
    void run(commands.proposal(id), key).then((answer) => {
      if (!answer) return;
      if (!answer.ok) {
        setRead(null);
        return;
      }
      const status = answer.data.status;
      if (isDecided(status)) decidedStatus.set(id, status);
      setRead({ id, status });
    });
    return () => cancel(key);
  }, [run, cancel, id, known, key, seq]);

  if (id === null) return null;
  return known ?? (read && read.id === id ? read.status : null);
}

/** How many of a workspace's newest proposals the Status view reads to say what became of its runs. */
export const RECENT_PROPOSALS = 50;

/**
 * A workspace's newest proposals, any status (`null`: not read, or the read failed): what the last
 * runs' proposals became. Read again with `reloadKey`, on `inboxChanged()` and every
 * `INBOX_POLL_MS` (a proposal decided elsewhere).
 */
export function useRecentProposals(workspace: string, reloadKey: unknown = 0): ProposalSummary[] | null {
  const { run, cancel } = useCommand();
  const [read, setRead] = useState<{ workspace: string; items: ProposalSummary[] } | null>(null);
  const seq = useInboxSignal(INBOX_POLL_MS);

  useEffect(() => {
    void run(commands.inbox(workspace, null, 0, RECENT_PROPOSALS), "recent-proposals").then((answer) => {
      if (answer) setRead(answer.ok ? { workspace, items: answer.data.items } : null);
    });
    return () => cancel("recent-proposals");
  }, [run, cancel, workspace, reloadKey, seq]);

  return read && read.workspace === workspace ? read.items : null;
}
