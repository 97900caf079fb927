// The one bridge from the server's change events to the cache of answers (`lib/queries.ts`):
// while anyone reads through the cache, it listens to `memory_changed` and `sync_changed` and
// marks stale exactly the answers that may have changed, so whoever shows them reads them again.
//
// - `memory_changed` (a burst coalesced into one): the answers that follow a workspace's memory
//   files — the list, its logs, search, counts, stats, usage, history, diffs, change groups — of
//   that workspace and of "all workspaces"; each memory named (`get`); and, soon after, the sync
//   status (what waits to be sent), when a remote is set: without one no sync can leave a conflict.
// - `sync_changed` (a sync here or in another process ran, left or closed a conflict, which may
//   change no memory file at all): the sync status.
// - `task_updated` (a task of this process was queued, moved on or ended): its new state goes into
//   the recent tasks and the task's own answer as it is (`taskUpdated`), no read needed.
// - The inbox (its pending count, recent proposals, review mode, a proposal's status) soon after a
//   burst: of a workspace whose memories changed; of a workspace where a job that may propose
//   ended (an event, or the recent tasks read again), its list of proposals too; of every
//   workspace when the window comes back into focus (a `mnemo remember` in a terminal proposes
//   without an event here) or this window decided something (`inboxChanged`). The inbox's list
//   is read again only then: what was just decided there stays in view.
// - The browser's event stream reconnecting after a drop: everything above (events were missed),
//   and the tasks read again.

import { useEffect } from "react";
import type { InfiniteData, Query, QueryKey } from "@tanstack/react-query";
import type { MemoryChanged, Proposal, ProposalPage, RemoteSync, TaskInfo } from "./bindings";
import { onMemoryChanged, onSyncStateChanged, onTaskUpdated } from "./transport";
import { queryClient } from "./queryClient";
import { TASK_LIMIT, isActive, isNewer, mergeTask } from "./tasks";
import { PROPOSING, isDecided } from "./inbox";

/** `memory_changed` events arriving within this window mark the answers stale once. */
export const MEMORY_EVENT_DELAY_MS = 150;

/**
 * How long after a burst of `memory_changed` events the sync status is read again (one read a
 * burst: a read asks git for the remotes' trees, and an import or a sync writes many files at once).
 */
export const SYNC_EVENT_DELAY_MS = 1500;

/** How long after a `sync_changed` the status is read again (one read for a sync's few writes). */
export const SYNC_STATE_DELAY_MS = 200;

/** How long after a burst of events (or the window's focus) the inbox is read again: one read a burst. */
export const INBOX_EVENT_DELAY_MS = 500;

/** The commands whose answers follow the memory files; a workspace, if any, is their first argument. */
export const MEMORY_READS: ReadonlySet<string> = new Set([
  "workspaces",
  "status",
  "list",
  "logs",
  "search",
  "stats",
  "memory_usage",
  "history",
  // A change's diff, and a change group, carry whether they were undone since.
  "diff",
  "change_group",
]);

const SYNC_STATUS = ["sync_status"] as const;

/**
 * Marks stale (and reads again, for whoever shows them) the answers that follow the memory files
 * of `workspaces` (absent: of every workspace). A write here calls it for what it wrote.
 */
export function invalidateMemoryReads(workspaces?: ReadonlySet<string>): Promise<void> {
  return queryClient.invalidateQueries({ predicate: ({ queryKey }) => followsFiles(queryKey, workspaces) });
}

/** Whether the answer under `key` follows the memory files of `workspaces` (absent: of any). */
function followsFiles(key: QueryKey, workspaces?: ReadonlySet<string>): boolean {
  if (!MEMORY_READS.has(String(key[0]))) return false;
  // `null` (all workspaces) or no workspace argument: it holds every workspace's files.
  const ws = key[1];
  return workspaces === undefined || typeof ws !== "string" || workspaces.has(ws);
}

/** Whether `key` is a memory named in `paths` (by workspace; absent: any memory). */
function isMemory(key: QueryKey, paths?: ReadonlyMap<string, ReadonlySet<string>>): boolean {
  return key[0] === "get" && (paths === undefined || (paths.get(String(key[1]))?.has(String(key[2])) ?? false));
}

/** The sync status may have changed (a sync ran here, the settings were saved, a conflict closed). */
export function invalidateSyncStatus(): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: SYNC_STATUS });
}

/** The recent tasks the whole UI shares: `tasks` of every workspace, kind and status. */
export const RECENT_TASKS = ["tasks", null, null, null, TASK_LIMIT] as const;

/** Task states that came before the recent tasks were first read: that read takes them in. */
const early = new Map<string, TaskInfo>();

/**
 * A task's new state (a `task_updated` event, the answer of `dream` or `task_cancel`): the recent
 * tasks and the task's own answer (`task`) take it, unless they hold a newer one.
 */
export function taskUpdated(task: TaskInfo): void {
  const list = queryClient.getQueryData<TaskInfo[]>(RECENT_TASKS);
  const had = list === undefined ? early.get(task.id) : list.find((t) => t.id === task.id);
  if (!had || isNewer(task, had)) {
    if (list === undefined) early.set(task.id, task);
    else queryClient.setQueryData<TaskInfo[]>(RECENT_TASKS, mergeTask(list, task));
    tasksEnded([task], had ? [had] : undefined);
  }
  const own = queryClient.getQueryData<TaskInfo>(["task", task.id]);
  if (own && isNewer(task, own)) queryClient.setQueryData<TaskInfo>(["task", task.id], task);
}

/**
 * The recent tasks as just read, with the states known here that are newer: an event may overtake
 * a read, and a stale state must not replace a newer one.
 */
export function withKnownTasks(read: readonly TaskInfo[]): TaskInfo[] {
  const before = queryClient.getQueryData<TaskInfo[]>(RECENT_TASKS);
  const known = [...(before ?? []), ...early.values()];
  early.clear();
  const now = known.reduce((tasks, t) => mergeTask(tasks, t), [...read]);
  // Jobs of other processes end unseen but for this read: their proposals are looked for too.
  if (before !== undefined) tasksEnded(now, before);
  return now;
}

/**
 * Jobs that may propose and have ended since `before` (absent: not known before): their
 * workspaces' inbox is read again soon, its list of proposals too.
 */
function tasksEnded(now: readonly TaskInfo[], before?: readonly TaskInfo[]): void {
  const was = new Map(before?.map((t) => [t.id, t]));
  for (const t of now) {
    if (!PROPOSING.has(t.kind) || isActive(t)) continue;
    const had = was.get(t.id);
    if (before === undefined || !had || isActive(had)) inboxSoon(t.workspace, true);
  }
}

/** The inbox's paged list of proposals (`["inbox", workspace, status, "pages", limit]`). */
function isInboxList(key: QueryKey): boolean {
  return key[0] === "inbox" && key[3] === "pages";
}

/**
 * Whether `query` is one of the inbox's answers that follow what waits there: the pending count,
 * recent proposals and review mode of `workspaces` (absent: of any), a proposal not decided yet
 * (decided is final); the inbox's list of proposals only for `lists`.
 */
function followsInbox(query: Query, workspaces?: ReadonlySet<string>, lists?: ReadonlySet<string>): boolean {
  const key = query.queryKey;
  if (key[0] === "proposal") {
    const status = (query.state.data as Proposal | undefined)?.status;
    return status === undefined || !isDecided(status);
  }
  if (key[0] !== "inbox" && key[0] !== "review_mode") return false;
  const ws = String(key[1]);
  if (isInboxList(key)) return lists?.has(ws) ?? false;
  return workspaces === undefined || workspaces.has(ws);
}

/**
 * Marks stale the inbox's answers of `workspaces` (absent: of every workspace), and the lists of
 * proposals of `lists`, read again from their first page ("Show more" starts over).
 */
export function invalidateInbox(workspaces?: ReadonlySet<string>, lists?: ReadonlySet<string>): Promise<void> {
  if (lists && lists.size > 0) {
    queryClient.setQueriesData<InfiniteData<ProposalPage, number>>(
      { predicate: ({ queryKey }) => isInboxList(queryKey) && lists.has(String(queryKey[1])) },
      firstPageOnly,
    );
  }
  return queryClient.invalidateQueries({ predicate: (query) => followsInbox(query, workspaces, lists) });
}

/** A list read a page at a time, cut to its first page: read again, it starts over. */
export function firstPageOnly<T>(d: InfiniteData<T, number> | undefined): InfiniteData<T, number> | undefined {
  return d && d.pages.length > 1 ? { pages: d.pages.slice(0, 1), pageParams: d.pageParams.slice(0, 1) } : d;
}

/** This window decided something in an inbox or changed a review mode: every inbox answer but the lists is read again. */
export function inboxChanged(): void {
  void invalidateInbox();
}

/** The inbox's reads waiting for the end of a burst: by workspace (`null`: every one), and lists. */
let inboxBatch: { workspaces: Set<string> | null; lists: Set<string> } = { workspaces: new Set(), lists: new Set() };
let inboxTimer: ReturnType<typeof setTimeout> | undefined;

/** The inbox of `workspace` (`null`: of every one) is read again soon, its list too with `list`. */
function inboxSoon(workspace: string | null, list = false): void {
  // Nobody reads through the cache: nothing to read again.
  if (!bridge) return;
  if (workspace === null) inboxBatch.workspaces = null;
  else {
    inboxBatch.workspaces?.add(workspace);
    if (list) inboxBatch.lists.add(workspace);
  }
  if (inboxTimer !== undefined) return;
  inboxTimer = setTimeout(() => {
    inboxTimer = undefined;
    const { workspaces, lists } = inboxBatch;
    inboxBatch = { workspaces: new Set(), lists: new Set() };
    void invalidateInbox(workspaces ?? undefined, lists);
  }, INBOX_EVENT_DELAY_MS);
}

/** Tasks may have moved on unseen (the event stream dropped): whoever shows them reads them again. */
function invalidateTasks(): Promise<void> {
  return queryClient.invalidateQueries({ predicate: ({ queryKey }) => queryKey[0] === "tasks" || queryKey[0] === "task" || queryKey[0] === "remember_task" });
}

/** Whether any remote is set (the home's or a team's): without one no sync can leave a conflict. */
function syncing(s: RemoteSync | undefined): boolean {
  return s === undefined || s.remote !== null || s.workspaces.some((w) => w.remote !== null || w.conflicts.length > 0);
}

/** The subscriptions while anyone reads through the cache (`null`: nobody does). */
let bridge: { users: number; off: () => void } | null = null;

function attach(): () => void {
  if (!bridge) {
    let memoryTimer: ReturnType<typeof setTimeout> | undefined;
    let syncTimer: ReturnType<typeof setTimeout> | undefined;
    // The paths of the burst so far, by workspace; `null`: every workspace (the stream reconnected).
    let batch: Map<string, Set<string>> | null = new Map();
    const flushMemory = () => {
      memoryTimer = undefined;
      const changed = batch;
      batch = new Map();
      const workspaces = changed ? new Set(changed.keys()) : undefined;
      // The memories named too (`get`): a write here reads its own memory again itself (`readMemory`).
      void queryClient.invalidateQueries({
        predicate: ({ queryKey }) => followsFiles(queryKey, workspaces) || isMemory(queryKey, changed ?? undefined),
      });
    };
    const memoryChanged = (e: MemoryChanged | null) => {
      inboxSoon(e?.workspace ?? null);
      if (e === null) batch = null;
      else if (batch) {
        const paths = batch.get(e.workspace) ?? new Set<string>();
        for (const p of e.paths) paths.add(p);
        batch.set(e.workspace, paths);
      }
      if (memoryTimer === undefined) memoryTimer = setTimeout(flushMemory, MEMORY_EVENT_DELAY_MS);
    };
    const syncAfter = (ms: number) => {
      if (syncTimer !== undefined) return;
      syncTimer = setTimeout(() => {
        syncTimer = undefined;
        void invalidateSyncStatus();
      }, ms);
    };
    const syncSoon = () => {
      if (syncing(queryClient.getQueryData<RemoteSync>(SYNC_STATUS))) syncAfter(SYNC_EVENT_DELAY_MS);
    };
    const offMemory = onMemoryChanged(
      (e) => {
        memoryChanged(e);
        syncSoon();
      },
      () => {
        memoryChanged(null);
        syncSoon();
      },
    );
    const offSync = onSyncStateChanged(
      () => syncAfter(SYNC_STATE_DELAY_MS),
      () => syncAfter(SYNC_STATE_DELAY_MS),
    );
    const offTasks = onTaskUpdated(taskUpdated, () => void invalidateTasks());
    const onFocus = () => inboxSoon(null);
    const onVisible = () => {
      if (document.visibilityState === "visible") inboxSoon(null);
    };
    window.addEventListener("focus", onFocus);
    document.addEventListener("visibilitychange", onVisible);
    bridge = {
      users: 0,
      off: () => {
        offMemory();
        offSync();
        offTasks();
        window.removeEventListener("focus", onFocus);
        document.removeEventListener("visibilitychange", onVisible);
        early.clear();
        if (inboxTimer !== undefined) clearTimeout(inboxTimer);
        inboxTimer = undefined;
        inboxBatch = { workspaces: new Set(), lists: new Set() };
        if (memoryTimer !== undefined) clearTimeout(memoryTimer);
        if (syncTimer !== undefined) clearTimeout(syncTimer);
      },
    };
  }
  const b = bridge;
  b.users += 1;
  return () => {
    b.users -= 1;
    if (b.users === 0 && bridge === b) {
      b.off();
      bridge = null;
    }
  };
}

/** Keeps the bridge listening while the calling component is mounted (one subscription for all). */
export function useChangeBridge(): void {
  useEffect(() => attach(), []);
}
