// The UI's reads, in one layer: each read command is a query keyed by its name and arguments
// (`["list", workspace]`), cached once for every component that shows it, and read again when
// the server says its answer may have changed (`lib/changeBridge.ts`) or a write here changed it
// (`invalidateMemoryReads`, `invalidateSyncStatus`). Components read through the hooks below;
// writes still call `commands.*`, then tell this layer what they changed.
//
//   const list = useMemoryList(workspace);
//   list.data   // the answer, `undefined` until read
//   list.error  // a `UiError` (`toUiError`), `null` when the last read worked

import { useCallback, useEffect, useRef } from "react";
import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useQueries, useQuery } from "@tanstack/react-query";
import type { InfiniteData, QueryKey, UseQueryOptions, UseQueryResult } from "@tanstack/react-query";
import { commands } from "./bindings";
import type {
  ChangeDiff,
  ChangeSummary,
  DocSummary,
  GroupInfo,
  Hit,
  LocalModelInfo,
  MemoryDetail,
  MemoryStats,
  MemoryUsage,
  ModelSettings,
  Proposal,
  ProposalPage,
  ProposalStatus,
  ProposalSummary,
  RememberTask,
  RemoteSync,
  ReviewMode,
  SessionInfo,
  ChatTranscript,
  Status,
  SyncSettings,
  TaskInfo,
  TaskKind,
  TaskStatus,
  WorkspaceInfo,
} from "./bindings";
import { toUiError } from "./transport";
import type { Result, UiError } from "./transport";
import type { Answer } from "./useCommand";
import { queryClient } from "./queryClient";
import { RECENT_TASKS, firstPageOnly, useChangeBridge, withKnownTasks } from "./changeBridge";
import { usageMap } from "./usage";
import { isActive } from "./tasks";
import { isSettled } from "./remember";
import { INBOX_PAGE, appendPage, isDecided, replaceSummary } from "./inbox";
import { sortSessions } from "./chat";

export { queryClient } from "./queryClient";

/** How often the sync status is read again (automatic syncs happen in the background). */
export const SYNC_POLL_MS = 60_000;

/**
 * How often the recent tasks are read again while one of them is active: the events carry this
 * process's tasks only, and another process (a `mnemo chat`, a CLI dream) may be working too.
 */
export const ACTIVE_REFRESH_MS = 3000;

/** How often the inbox's pending count, recent proposals and an open proposal's status are read again (jobs of other processes send no events here). */
export const INBOX_POLL_MS = 30_000;

/** How many of a workspace's newest proposals the Status view reads to say what became of its runs. */
export const RECENT_PROPOSALS = 50;

/** A command's answer as a query's: its data, or its error thrown in the shape the UI shows. */
async function answerOf<T>(call: () => Promise<Result<T, UiError>>): Promise<T> {
  let r: Result<T, UiError>;
  try {
    r = await call();
  } catch (e) {
    throw toUiError(e);
  }
  if (r.status === "ok") return r.data;
  throw toUiError(r.error);
}

/** The cache keys: the command's wire name, then its arguments. */
export const keys = {
  syncStatus: () => ["sync_status"] as const,
  syncSettings: () => ["sync_settings"] as const,
  modelSettings: () => ["get_model_settings"] as const,
  localModel: () => ["local_model"] as const,
  workspaces: () => ["workspaces"] as const,
  status: () => ["status"] as const,
  list: (workspace: string | null) => ["list", workspace] as const,
  logs: (workspace: string) => ["logs", workspace] as const,
  search: (workspace: string | null, query: string, limit: number | null, lexical: boolean | null) =>
    ["search", workspace, query, limit, lexical] as const,
  history: (workspace: string | null, path: string | null, limit: number | null) =>
    ["history", workspace, path, limit] as const,
  diff: (change: number) => ["diff", change] as const,
  changeGroup: (id: number) => ["change_group", id] as const,
  get: (workspace: string, path: string) => ["get", workspace, path] as const,
  stats: (workspace: string) => ["stats", workspace] as const,
  memoryUsage: (workspace: string, path: string | null) => ["memory_usage", workspace, path] as const,
  tasks: (workspace: string | null, kind: TaskKind | null, status: TaskStatus | null, limit: number | null) =>
    ["tasks", workspace, kind, status, limit] as const,
  recentTasks: () => RECENT_TASKS,
  task: (id: string) => ["task", id] as const,
  rememberTask: (id: string) => ["remember_task", id, null] as const,
  autoDream: (workspace: string) => ["auto_dream", workspace] as const,
  inbox: (workspace: string, status: ProposalStatus | null, offset: number | null, limit: number | null) =>
    ["inbox", workspace, status, offset, limit] as const,
  /** The inbox's list of proposals, read a page at a time: "pages" where the offset goes. */
  inboxPages: (workspace: string, status: ProposalStatus | null) => ["inbox", workspace, status, "pages", INBOX_PAGE] as const,
  pendingCount: (workspace: string) => ["inbox", workspace, "pending", 0, 1] as const,
  recentProposals: (workspace: string) => ["inbox", workspace, null, 0, RECENT_PROPOSALS] as const,
  proposal: (id: number) => ["proposal", id] as const,
  reviewMode: (workspace: string) => ["review_mode", workspace] as const,
  chatSessions: (workspace: string) => ["chat_sessions", workspace] as const,
  chatTranscript: (workspace: string, session: string) => ["chat_transcript", workspace, session] as const,
};

/** One query per read command. */
export const reads = {
  syncStatus: () =>
    queryOptions<RemoteSync, UiError>({
      queryKey: keys.syncStatus(),
      queryFn: () => answerOf(() => commands.syncStatus()),
      // Automatic syncs (and `mnemo sync` elsewhere) may change it without an event reaching here.
      refetchInterval: SYNC_POLL_MS,
      refetchIntervalInBackground: true,
    }),
  syncSettings: () =>
    queryOptions<SyncSettings, UiError>({
      queryKey: keys.syncSettings(),
      queryFn: () => answerOf(() => commands.syncSettings()),
    }),
  modelSettings: () =>
    queryOptions<ModelSettings, UiError>({
      queryKey: keys.modelSettings(),
      queryFn: () => answerOf(() => commands.getModelSettings()),
    }),
  localModel: () =>
    queryOptions<LocalModelInfo, UiError>({
      queryKey: keys.localModel(),
      queryFn: () => answerOf(() => commands.localModel()),
    }),
  workspaces: () =>
    queryOptions<WorkspaceInfo[], UiError>({
      queryKey: keys.workspaces(),
      queryFn: () => answerOf(() => commands.workspaces()),
    }),
  status: () =>
    queryOptions<Status, UiError>({
      queryKey: keys.status(),
      queryFn: () => answerOf(() => commands.status()),
    }),
  list: (workspace: string | null) =>
    queryOptions<DocSummary[], UiError>({
      queryKey: keys.list(workspace),
      queryFn: () => answerOf(() => commands.list(workspace, null)),
    }),
  logs: (workspace: string) =>
    queryOptions<DocSummary[], UiError>({
      queryKey: keys.logs(workspace),
      queryFn: () => answerOf(() => commands.logs(workspace)),
    }),
  search: (workspace: string | null, query: string, limit: number | null, lexical: boolean | null) =>
    queryOptions<Hit[], UiError>({
      queryKey: keys.search(workspace, query, limit, lexical),
      queryFn: () => answerOf(() => commands.search(workspace, query, limit, lexical)),
    }),
  history: (workspace: string | null, path: string | null, limit: number | null) =>
    queryOptions<ChangeSummary[], UiError>({
      queryKey: keys.history(workspace, path, limit),
      queryFn: () => answerOf(() => commands.history(workspace, path, limit)),
    }),
  diff: (change: number) =>
    queryOptions<ChangeDiff, UiError>({
      queryKey: keys.diff(change),
      queryFn: () => answerOf(() => commands.diff(change)),
    }),
  changeGroup: (id: number) =>
    queryOptions<GroupInfo, UiError>({
      queryKey: keys.changeGroup(id),
      queryFn: () => answerOf(() => commands.changeGroup(id)),
    }),
  get: (workspace: string, path: string) =>
    queryOptions<MemoryDetail, UiError>({
      queryKey: keys.get(workspace, path),
      queryFn: () => answerOf(() => commands.get(workspace, path)),
    }),
  stats: (workspace: string) =>
    queryOptions<MemoryStats, UiError>({
      queryKey: keys.stats(workspace),
      queryFn: () => answerOf(() => commands.stats(workspace)),
    }),
  memoryUsage: (workspace: string, path: string | null) =>
    queryOptions<MemoryUsage[], UiError>({
      queryKey: keys.memoryUsage(workspace, path),
      queryFn: () => answerOf(() => commands.memoryUsage(workspace, path)),
    }),
  tasks: (workspace: string | null, kind: TaskKind | null, status: TaskStatus | null, limit: number | null) =>
    queryOptions<TaskInfo[], UiError>({
      queryKey: keys.tasks(workspace, kind, status, limit),
      queryFn: () => answerOf(() => commands.tasks(workspace, kind, status, limit)),
    }),
  /**
   * The recent tasks the whole UI shares, kept current by `task_updated` events (`taskUpdated`),
   * read again now and then while one is active.
   */
  recentTasks: () =>
    queryOptions<TaskInfo[], UiError>({
      queryKey: keys.recentTasks(),
      queryFn: async () => withKnownTasks(await answerOf(() => commands.tasks(null, null, null, RECENT_TASKS[4]))),
      refetchInterval: (query) => (query.state.data?.some(isActive) ? ACTIVE_REFRESH_MS : false),
      refetchIntervalInBackground: true,
    }),
  task: (id: string) =>
    queryOptions<TaskInfo, UiError>({
      queryKey: keys.task(id),
      queryFn: () => answerOf(() => commands.task(id)),
    }),
  rememberTask: (id: string) =>
    queryOptions<RememberTask, UiError>({
      queryKey: keys.rememberTask(id),
      queryFn: () => answerOf(() => commands.rememberTask(id, null)),
    }),
  autoDream: (workspace: string) =>
    queryOptions<boolean, UiError>({
      queryKey: keys.autoDream(workspace),
      queryFn: () => answerOf(() => commands.autoDream(workspace)),
    }),
  /** How many proposals of `workspace` wait (a page of one: its `pending`). */
  pendingCount: (workspace: string) =>
    queryOptions<ProposalPage, UiError>({
      queryKey: keys.pendingCount(workspace),
      queryFn: () => answerOf(() => commands.inbox(workspace, "pending", 0, 1)),
      refetchInterval: INBOX_POLL_MS,
      refetchIntervalInBackground: true,
    }),
  /** A workspace's newest proposals, any status: what the last runs' proposals became. */
  recentProposals: (workspace: string) =>
    queryOptions<ProposalPage, UiError>({
      queryKey: keys.recentProposals(workspace),
      queryFn: () => answerOf(() => commands.inbox(workspace, null, 0, RECENT_PROPOSALS)),
      refetchInterval: INBOX_POLL_MS,
      refetchIntervalInBackground: true,
    }),
  /**
   * The inbox's list: a page of `INBOX_PAGE` at a time, the next from where the proposals read so
   * far end. Read again (from its first page) only when asked or when a job that may propose
   * ended: what was just decided stays in view.
   */
  inboxPages: (workspace: string, status: ProposalStatus | null) =>
    infiniteQueryOptions<ProposalPage, UiError, InfiniteData<ProposalPage, number>, ReturnType<typeof keys.inboxPages>, number>({
      queryKey: keys.inboxPages(workspace, status),
      queryFn: ({ pageParam }) => answerOf(() => commands.inbox(workspace, status, pageParam, INBOX_PAGE)),
      initialPageParam: 0,
      getNextPageParam: (last, pages) => {
        const read = inboxItems(pages).length;
        return read < last.total ? read : undefined;
      },
    }),
  proposal: (id: number) =>
    queryOptions<Proposal, UiError>({
      queryKey: keys.proposal(id),
      queryFn: () => answerOf(() => commands.proposal(id)),
    }),
  reviewMode: (workspace: string) =>
    queryOptions<ReviewMode, UiError>({
      queryKey: keys.reviewMode(workspace),
      queryFn: () => answerOf(() => commands.reviewMode(workspace)),
    }),
  /** A workspace's chats, newest first. */
  chatSessions: (workspace: string) =>
    queryOptions<SessionInfo[], UiError>({
      queryKey: keys.chatSessions(workspace),
      queryFn: async () => sortSessions(await answerOf(() => commands.chatSessions(workspace))),
    }),
  chatTranscript: (workspace: string, session: string) =>
    queryOptions<ChatTranscript, UiError>({
      queryKey: keys.chatTranscript(workspace, session),
      queryFn: () => answerOf(() => commands.chatTranscript(workspace, session)),
    }),
};

/** The proposals of the inbox's pages read so far, each once. */
export function inboxItems(pages: readonly ProposalPage[]): ProposalSummary[] {
  return pages.reduce<ProposalSummary[]>((items, page) => appendPage(items, page.items), []);
}

/** Reads a query for a component: the cache's answer, kept current by the change events. */
export function useRead<T, K extends QueryKey>(options: UseQueryOptions<T, UiError, T, K>): UseQueryResult<T, UiError> {
  useChangeBridge();
  return useQuery(options, queryClient);
}

export const useSyncStatusQuery = () => useRead(reads.syncStatus());
export const useModelSettings = () => useRead(reads.modelSettings());
export const useLocalModel = () => useRead(reads.localModel());
export const useWorkspaces = () => useRead(reads.workspaces());
export const useHomeStatus = () => useRead(reads.status());
/** The memory list of `workspace` (`null`: all); `enabled` false waits (nothing is read). */
export const useMemoryList = (workspace: string | null, enabled = true) => useRead({ ...reads.list(workspace), enabled });
/** The daily logs of `workspace`; "all workspaces" (`null`) lists none and reads nothing. */
export const useLogs = (workspace: string | null) => useRead({ ...reads.logs(workspace ?? ""), enabled: workspace !== null });
export const useHistory = (workspace: string | null, path: string | null, limit: number | null) =>
  useRead(reads.history(workspace, path, limit));
/** One change's diff (`null`: none selected, nothing read). */
export const useDiff = (change: number | null) => useRead({ ...reads.diff(change ?? 0), enabled: change !== null });
/** A change group with its changes (`null`: none, nothing read). */
export const useChangeGroup = (id: number | null) => useRead({ ...reads.changeGroup(id ?? 0), enabled: id !== null });
/** One memory as `get` reads it; `enabled` false waits (a new memory: nothing to read). */
export const useMemory = (workspace: string, path: string, enabled = true) => useRead({ ...reads.get(workspace, path), enabled });
export const useStats = (workspace: string) => useRead(reads.stats(workspace));
export const useMemoryUsage = (workspace: string, path: string | null) => useRead(reads.memoryUsage(workspace, path));

/** The recent tasks (see `reads.recentTasks`). */
export const useRecentTasks = () => useRead(reads.recentTasks());
/** A workspace's tasks of one kind and status (`null`: any), for a filtered list. */
export const useTasks = (workspace: string | null, kind: TaskKind | null, status: TaskStatus | null, limit: number | null) =>
  useRead(reads.tasks(workspace, kind, status, limit));
/** One task (`null`, or `enabled` false: nothing read). */
export const useTask = (id: string | null, enabled = true) => useRead({ ...reads.task(id ?? ""), enabled: id !== null && enabled });
/** A workspace's auto-dream switch. */
export const useAutoDream = (workspace: string) => useRead(reads.autoDream(workspace));

/**
 * A task followed until it ends: read every `ms` while it is active (what `taskStarted` gave it
 * first is not read again before then); a failed read stops it (the error shows).
 */
export const useTaskPoll = (id: string | null, ms: number) =>
  useRead({
    ...reads.task(id ?? ""),
    enabled: id !== null,
    staleTime: ms,
    refetchInterval: (query) => (query.state.error || (query.state.data && !isActive(query.state.data)) ? false : ms),
    refetchIntervalInBackground: true,
  });

/**
 * A remember request followed until it settles, from its answer (`queued`, not read again before
 * `ms`): read every `ms` meanwhile (its phase and tool calls come with the shared task list);
 * nothing is read for a request that answered settled, nor once it has.
 */
export function useRememberTask(queued: RememberTask | null, ms: number): UseQueryResult<RememberTask, UiError> {
  return useRead({
    ...reads.rememberTask(queued?.taskId ?? ""),
    enabled: queued !== null && !isSettled(queued.status),
    initialData: queued ?? undefined,
    staleTime: ms,
    refetchInterval: (query) => (query.state.data && isSettled(query.state.data.status) ? false : ms),
    refetchIntervalInBackground: true,
  });
}

/** How many proposals of `workspace` wait (`null`: nothing read). */
export const usePendingCountQuery = (workspace: string | null) =>
  useRead({ ...reads.pendingCount(workspace ?? ""), enabled: workspace !== null });

/**
 * The pending count as last read by anyone (the count's poll, the inbox's own list), without
 * reading it here: `null` until read, or for no workspace.
 */
export function useLastPendingCount(workspace: string | null): number | null {
  const read = useRead({ ...reads.pendingCount(workspace ?? ""), enabled: false });
  return workspace === null ? null : (read.data?.pending ?? null);
}

export const useRecentProposalsQuery = (workspace: string) => useRead(reads.recentProposals(workspace));
export const useReviewModeQuery = (workspace: string) => useRead(reads.reviewMode(workspace));

/** A workspace's chats, newest first (`enabled` false: nothing read). */
export const useChatSessions = (workspace: string, enabled = true) => useRead({ ...reads.chatSessions(workspace), enabled });

/** A chat's newest info (created, renamed, answered here): the workspace's list shows it at once, newest first. */
export function chatSessionSaved(workspace: string, session: SessionInfo): void {
  queryClient.setQueryData<SessionInfo[]>(keys.chatSessions(workspace), (list) => sortSessions([session, ...(list ?? []).filter((s) => s.id !== session.id)]));
}

/** A chat was deleted here: the workspace's list shows the rest. */
export function chatSessionDeleted(workspace: string, id: string): void {
  queryClient.setQueryData<SessionInfo[]>(keys.chatSessions(workspace), (list) => list?.filter((s) => s.id !== id));
}

/** The inbox's list of proposals of `workspace` with `status` (`null`: any), a page at a time. */
export function useInboxPages(workspace: string, status: ProposalStatus | null) {
  useChangeBridge();
  return useInfiniteQuery(reads.inboxPages(workspace, status), queryClient);
}

/** A proposal with its changes, read while `enabled` (an open card). */
export const useProposal = (id: number, enabled = true) => useRead({ ...reads.proposal(id), enabled });

/**
 * Where proposal `id` stands (`null`: none), read every `INBOX_POLL_MS` while it waits and soon
 * after the inbox's events; decided is final, never read again.
 */
export const useProposalStatusQuery = (id: number | null) =>
  useRead({
    ...reads.proposal(id ?? 0),
    enabled: id !== null,
    refetchInterval: (query) => (query.state.data && isDecided(query.state.data.status) ? false : INBOX_POLL_MS),
    refetchIntervalInBackground: true,
  });

/** Reads the inbox's list of `workspace` with `status` again, from its first page ("Show more" starts over). */
export function rereadInbox(workspace: string, status: ProposalStatus | null): Promise<void> {
  const key = keys.inboxPages(workspace, status);
  queryClient.setQueryData<InfiniteData<ProposalPage, number>>(key, firstPageOnly);
  return queryClient.invalidateQueries({ queryKey: key, exact: true });
}

/**
 * A proposal was decided in the inbox's list: it stays where it was with its new summary (until
 * the list is read again), and one fewer waits — in the list and for everyone showing the count.
 */
export function inboxDecided(workspace: string, status: ProposalStatus | null, next: ProposalSummary, pendingBefore: number): void {
  const fewer = next.status !== "pending";
  queryClient.setQueryData<InfiniteData<ProposalPage, number>>(keys.inboxPages(workspace, status), (d) =>
    d && {
      ...d,
      pages: d.pages.map((p) => ({ ...p, items: replaceSummary(p.items, next), pending: fewer ? Math.max(0, p.pending - 1) : p.pending })),
    },
  );
  if (fewer) notePending(workspace, Math.max(0, pendingBefore - 1));
}

/** A fresh pending count for `workspace` (a read of the inbox's list): whoever shows the count shows it. */
export function notePending(workspace: string, pending: number): void {
  queryClient.setQueryData<ProposalPage>(keys.pendingCount(workspace), (d) => (d && d.pending !== pending ? { ...d, pending } : d));
}

/** The review mode a change here chose: shown at once, over a read in flight. */
export function reviewModeChosen(workspace: string, mode: ReviewMode): void {
  void queryClient.cancelQueries({ queryKey: keys.reviewMode(workspace), exact: true });
  queryClient.setQueryData(keys.reviewMode(workspace), mode);
}

/**
 * Usage by `docKey(workspace, path)` for every memory of `workspaces` (one `memory_usage` each,
 * shared with whoever shows the same), for the memory list's usage sorts: `null` while any is
 * first read or when none is asked; a workspace whose read fails counts as unused.
 */
export function useUsageByMemory(workspaces: readonly string[]): ReadonlyMap<string, MemoryUsage> | null {
  useChangeBridge();
  const combine = useCallback(
    (results: UseQueryResult<MemoryUsage[], UiError>[]) =>
      results.length === 0 || results.some((r) => r.isPending)
        ? null
        : usageMap(results.map((r, i) => ({ workspace: workspaces[i], usage: r.isError ? [] : (r.data ?? []) }))),
    [workspaces],
  );
  return useQueries({ queries: workspaces.map((ws) => reads.memoryUsage(ws, null)), combine }, queryClient);
}

/**
 * Reads again when `signal` changes after the first render: something the events do not cover
 * changed it (a task of this view ended, the person asked with Refresh).
 */
export function useRefetchOn(signal: unknown, refetch: () => unknown): void {
  const seen = useRef(signal);
  useEffect(() => {
    if (Object.is(seen.current, signal)) return;
    seen.current = signal;
    void refetch();
  }, [signal, refetch]);
}

/**
 * A read done once, from an event handler (a send, a dialog opening), through the cache: shared
 * with any read of the same key in flight, and as a command runner's `Result`.
 */
export async function readOnce<T, K extends QueryKey>(options: UseQueryOptions<T, UiError, T, K>): Promise<Result<T, UiError>> {
  try {
    const data = await queryClient.fetchQuery(options);
    return { status: "ok", data };
  } catch (e) {
    return { status: "error", error: toUiError(e) };
  }
}

/**
 * A read right after a write here, so what it answers is what the write left: a read of the same
 * key already in flight may have started before the write, and is replaced (its waiters get this
 * one's answer). The cache, and whoever shows it, take the answer too.
 */
export function readAfterWrite<T, K extends QueryKey>(options: UseQueryOptions<T, UiError, T, K>): Promise<Result<T, UiError>> {
  // Not awaited: the new read must start before the cancelled one's waiters look for it.
  void queryClient.cancelQueries({ queryKey: options.queryKey, exact: true }, { silent: true });
  return readOnce(options);
}

/** A memory as it is now, read after a write here (pin, archive, replace, a save, a sync choice). */
export const readMemory = (workspace: string, path: string) => readAfterWrite(reads.get(workspace, path));

/**
 * A memory was written here: its own history and usage are read again by whoever shows them (the
 * change event would mark them too, a moment later, and the whole workspace's with them).
 */
export async function memoryWritten(workspace: string, path: string): Promise<void> {
  await Promise.all([
    queryClient.invalidateQueries({ queryKey: ["history", workspace, path] }),
    queryClient.invalidateQueries({ queryKey: keys.memoryUsage(workspace, path) }),
  ]);
}

/** A change group was undone or redone here: it, and its changes' diffs, are read again (awaited). */
export async function groupUndone(group: GroupInfo): Promise<void> {
  await Promise.all([
    queryClient.invalidateQueries({ queryKey: keys.changeGroup(group.id) }),
    ...group.changes.map((c) => queryClient.invalidateQueries({ queryKey: keys.diff(c.id) })),
  ]);
}

/** A task's state as a command answered it (started, cancelled): whoever follows it starts from there. */
export function taskStarted(task: TaskInfo): void {
  // A read in flight may answer an older state: this one stays.
  void queryClient.cancelQueries({ queryKey: keys.task(task.id), exact: true });
  queryClient.setQueryData(keys.task(task.id), task);
}

/** A task read again after a write here (an undo of what it did). */
export const readTask = (id: string) => readAfterWrite(reads.task(id));

/** A workspace's auto-dream switch as a change here answered it. */
export function autoDreamSaved(workspace: string, enabled: boolean): void {
  queryClient.setQueryData(keys.autoDream(workspace), enabled);
}

/** The recent tasks are read again now (the task panel opens, a task was queued here). */
export function reloadRecentTasks(): Promise<void> {
  // A first read still in flight may be older than what is asked for: it gives way.
  void queryClient.cancelQueries({ queryKey: keys.recentTasks(), exact: true }, { silent: true });
  return queryClient.invalidateQueries({ queryKey: keys.recentTasks(), exact: true });
}

/** A query's state as the `Answer` components show (`null` until its first read ends). */
export function answer<T>(q: UseQueryResult<T, UiError>): Answer<T> | null {
  if (q.error) return { ok: false, error: q.error };
  return q.data === undefined ? null : { ok: true, data: q.data };
}

/** Model settings saved here: every reader shows them at once (no read needed, the save answered). */
export function modelSettingsSaved(settings: ModelSettings): void {
  queryClient.setQueryData(keys.modelSettings(), settings);
}

/** The local model was installed: whoever shows it, or the settings that may now use it, reads again. */
export async function invalidateModelReads(): Promise<void> {
  await Promise.all([
    queryClient.invalidateQueries({ queryKey: keys.localModel() }),
    queryClient.invalidateQueries({ queryKey: keys.modelSettings() }),
  ]);
}
