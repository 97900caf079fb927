// The memory browser's state: workspaces, the list and search, the selected and the open memory,
// unsaved edits and the question about dropping them, the view (memories, history, status), the chat
// toggle. Folded from user actions and command answers by a pure reducer, so the guard around
// unsaved edits and the list's loading / empty states are easy to test. `App` does the IO.

import type { DocSummary, Hit, MemoryType, MemoryUsage, Status, WorkspaceInfo } from "./bindings";
import type { UiError } from "./transport";
import type { Answer } from "./useCommand";
import { docKey } from "./format";
import { groupDocs, hitRows, recentDocs, usageDocs } from "./rows";
import type { GroupId, Row } from "./rows";
import { isUsageSort } from "./usage";
import type { UsageSort } from "./usage";

/**
 * The main pane: the memory list and detail, the history of changes, a workspace's status, or
 * its inbox of proposals.
 */
export type View = "memories" | "history" | "status" | "inbox";

/** The list's order: by type, last changed first, or by usage (`memory_usage`). */
export type ListSort = "type" | "recent" | UsageSort;

/** The form of a memory being edited. */
export interface Draft {
  name: string;
  description: string;
  type: MemoryType | "";
  body: string;
}

/** What the detail pane shows: an existing memory, or a new one (maybe pre-filled). */
export type Target =
  | { mode: "existing"; workspace: string; path: string }
  | { mode: "new"; workspace: string | null; path?: string; draft?: Draft };

export interface Loaded<T> {
  /** The workspace filter the data was loaded for. */
  ws: string | null;
  data: T;
}

export interface SearchResult {
  ws: string | null;
  q: string;
  /** Searched by words only (no meaning). */
  wordsOnly: boolean;
  hits: Hit[];
}

/** What may lose unsaved edits, so it waits for the user's consent when there are some. */
export type Intent =
  /** Open a memory (or a new one) in the detail pane; `null` closes it. */
  | { type: "open"; target: Target | null }
  /** Go to a memory: the memories view, the memory selected in the list and open. */
  | { type: "showMemory"; workspace: string; path: string }
  | { type: "view"; view: View }
  /** Show another workspace; a memory of a different one open in the detail pane closes. */
  | { type: "workspace"; id: string | null };

export interface BrowserState {
  workspaces: WorkspaceInfo[];
  status: Status | null;
  /** The workspace filter (`null`: all workspaces). */
  selectedWs: string | null;
  view: View;
  docs: Loaded<DocSummary[]> | null;
  /** The last failure loading the list (or the workspaces). */
  docsError: UiError | null;
  /** The daily logs of the selected workspace (none for "All workspaces"), newest day first. */
  logs: Loaded<DocSummary[]> | null;
  /** The last failure loading a workspace's daily logs. */
  logsError: { ws: string; error: UiError } | null;
  /** The search box, as typed. */
  query: string;
  /** Search by words only, even when hybrid search (meaning + words) is available. */
  wordsOnly: boolean;
  search: SearchResult | null;
  searchError: UiError | null;
  /**
   * The list's keyboard cursor (↑/↓ move it, Enter opens it): shown as a focus ring while the
   * list has the focus. The highlighted (selected) row is always the open memory (`openKey`),
   * never this: one state, so the list and the detail pane cannot disagree.
   */
  cursorKey: string | null;
  /** What the detail pane shows; a new `seq` is a fresh pane. */
  detail: { seq: number; target: Target } | null;
  collapsed: ReadonlySet<GroupId>;
  /** The open memory has unsaved edits. */
  dirty: boolean;
  /** The open memory's edits are being saved (the write may be on disk before the answer comes). */
  saving: boolean;
  /**
   * Held until the edits are dropped (the user agrees) or saved: while `saving`, a click on
   * another memory waits for the save instead of asking — see `asksToDiscard`.
   */
  pending: Intent | null;
  chatOpen: boolean;
}

export type BrowserAction =
  /** Applied at once: nothing to lose, or the user already agreed. */
  | Intent
  /** Applied at once, or held until the user agrees to drop unsaved edits. */
  | { type: "request"; intent: Intent }
  /** The user agreed: the edits are dropped and the held intent applied. */
  | { type: "discard" }
  /** The user declined: the held intent is forgotten. */
  | { type: "keepEditing" }
  /** Click or Enter on a row: put the cursor on it and (guarded) open it, unless it is open already. */
  | { type: "activate"; item: { key: string; workspace: string; path: string } }
  /** ↑/↓ in the list: the cursor moves; nothing opens. */
  | { type: "cursor"; key: string | null }
  | { type: "selectWorkspace"; id: string | null }
  | { type: "query"; query: string }
  | { type: "wordsOnly"; on: boolean }
  | { type: "toggleGroup"; group: GroupId }
  | { type: "setChatOpen"; open: boolean }
  | { type: "toggleChat" }
  | { type: "dirty"; dirty: boolean }
  /** A save started or ended: an intent held meanwhile is applied if the edits were saved. */
  | { type: "saving"; saving: boolean }
  /** A memory was created: select and open it. */
  | { type: "created"; workspace: string; path: string }
  /** The open memory was deleted: close it. */
  | { type: "deleted" }
  /** A folder was added: show it. */
  | { type: "folderAdded"; id: string }
  | { type: "workspaces"; answer: Answer<WorkspaceInfo[]> }
  | { type: "status"; status: Status }
  | { type: "list"; ws: string | null; answer: Answer<DocSummary[]> }
  | { type: "logs"; ws: string; answer: Answer<DocSummary[]> }
  | { type: "search"; ws: string | null; q: string; wordsOnly: boolean; answer: Answer<Hit[]> };

export function initialBrowser(chatOpen = true, selectedWs: string | null = null): BrowserState {
  return {
    workspaces: [],
    status: null,
    selectedWs,
    view: "memories",
    docs: null,
    docsError: null,
    logs: null,
    logsError: null,
    query: "",
    wordsOnly: false,
    search: null,
    searchError: null,
    cursorKey: null,
    detail: null,
    collapsed: new Set(),
    dirty: false,
    saving: false,
    pending: null,
    chatOpen,
  };
}

/**
 * Whether to ask "discard unsaved edits?": an intent is held and no save is under way (during a
 * save the edits are on their way to disk, and saying they are not saved would be untrue).
 */
export function asksToDiscard(state: BrowserState): boolean {
  return state.pending !== null && !state.saving;
}

/** The key of the memory open in the detail pane, if it is an existing one. */
export function openKey(state: BrowserState): string | null {
  const t = state.detail?.target;
  return t?.mode === "existing" ? docKey(t.workspace, t.path) : null;
}

/** Opens `target` (`null`: closes the pane); the list's cursor goes to a memory that opens. */
function open(state: BrowserState, target: Target | null): BrowserState {
  return {
    ...state,
    dirty: false,
    cursorKey: target?.mode === "existing" ? docKey(target.workspace, target.path) : state.cursorKey,
    detail: target ? { seq: (state.detail?.seq ?? 0) + 1, target } : null,
  };
}

function apply(state: BrowserState, intent: Intent): BrowserState {
  switch (intent.type) {
    case "open":
      return open(state, intent.target);
    case "showMemory":
      return open({ ...state, view: "memories" }, { mode: "existing", workspace: intent.workspace, path: intent.path });
    case "view":
      return { ...state, view: intent.view };
    case "workspace":
      return open({ ...state, selectedWs: intent.id, cursorKey: null }, null);
  }
}

/** Whether showing workspace `id` should close what the detail pane shows (another's memory). */
function closesDetail(state: BrowserState, id: string | null): boolean {
  const ws = state.detail?.target.workspace ?? null;
  return id !== null && ws !== null && ws !== id;
}

function request(state: BrowserState, intent: Intent): BrowserState {
  if (intent.type === "view" && intent.view === state.view) return state;
  return state.dirty ? { ...state, pending: intent } : apply(state, intent);
}

export function browserReducer(state: BrowserState, action: BrowserAction): BrowserState {
  switch (action.type) {
    case "open":
    case "showMemory":
    case "view":
    case "workspace":
      return apply(state, action);
    case "request":
      return request(state, action.intent);
    case "discard":
      return state.pending ? apply({ ...state, pending: null, dirty: false }, state.pending) : state;
    case "keepEditing":
      // The cursor goes back to what stays open.
      return { ...state, pending: null, cursorKey: openKey(state) ?? state.cursorKey };
    case "activate": {
      const { key, workspace, path } = action.item;
      const moved = { ...state, cursorKey: key };
      if (key === openKey(state)) return moved;
      return request(moved, { type: "open", target: { mode: "existing", workspace, path } });
    }
    case "cursor":
      return { ...state, cursorKey: action.key };
    case "selectWorkspace":
      // "All workspaces" shows every memory: whatever is open stays.
      if (!closesDetail(state, action.id)) return { ...state, selectedWs: action.id };
      return request(state, { type: "workspace", id: action.id });
    case "query":
      // A new query is a new list: ↓ starts from its top hit, not from the memory open before
      // (↓ then Enter once opened the row after it).
      return action.query === state.query ? state : { ...state, query: action.query, cursorKey: null };
    case "wordsOnly":
      return { ...state, wordsOnly: action.on };
    case "toggleGroup": {
      const collapsed = new Set(state.collapsed);
      if (collapsed.has(action.group)) collapsed.delete(action.group);
      else collapsed.add(action.group);
      return { ...state, collapsed };
    }
    case "setChatOpen":
      return { ...state, chatOpen: action.open };
    case "toggleChat":
      return { ...state, chatOpen: !state.chatOpen };
    case "dirty":
      return state.dirty === action.dirty ? state : { ...state, dirty: action.dirty };
    case "saving": {
      if (state.saving === action.saving) return state;
      const next = { ...state, saving: action.saving };
      // The save ended with nothing left unsaved: what the user asked for meanwhile happens now.
      // Edits still unsaved (the save failed, or more were typed): `asksToDiscard` asks as usual.
      return !action.saving && next.pending && !next.dirty ? apply({ ...next, pending: null }, next.pending) : next;
    }
    case "created":
      return open(state, { mode: "existing", workspace: action.workspace, path: action.path });
    case "deleted":
      return open(state, null);
    case "folderAdded":
      return { ...state, selectedWs: action.id };
    case "workspaces": {
      if (!action.answer.ok) return { ...state, docsError: action.answer.error };
      const workspaces = action.answer.data;
      // A workspace remembered from last time that is gone (a folder removed): all workspaces.
      const gone = state.selectedWs !== null && !workspaces.some((w) => w.id === state.selectedWs);
      return gone ? { ...state, workspaces, selectedWs: null, docs: null, docsError: null } : { ...state, workspaces };
    }
    case "status":
      return { ...state, status: action.status };
    case "list":
      // An answer for a workspace no longer chosen (the one remembered was gone) is dropped.
      if (action.ws !== state.selectedWs) return state;
      return action.answer.ok
        ? { ...state, docs: { ws: action.ws, data: action.answer.data }, docsError: null }
        : { ...state, docsError: action.answer.error };
    case "logs":
      return action.answer.ok
        ? { ...state, logs: { ws: action.ws, data: action.answer.data }, logsError: null }
        : { ...state, logsError: { ws: action.ws, error: action.answer.error } };
    case "search":
      return action.answer.ok
        ? {
            ...state,
            // The list shows matches; the weak hits (near in meaning, under the floor) a
            // client may ask for stay out of it.
            search: {
              ws: action.ws,
              q: action.q,
              wordsOnly: action.wordsOnly,
              hits: action.answer.data.filter((h) => !h.weak),
            },
            searchError: null,
          }
        : { ...state, searchError: action.answer.error };
  }
}

/** Where the list stands. */
export interface ListMode {
  /** The query, trimmed: what is searched for. */
  q: string;
  /** A query is typed: the list shows search results. */
  searching: boolean;
  /** No list loaded yet for the selected workspace. */
  docsLoading: boolean;
  /** The shown results are for the current query, workspace and words-only setting. */
  searchDone: boolean;
}

export function listMode(state: BrowserState): ListMode {
  const q = state.query.trim();
  const { search, docs, selectedWs, wordsOnly } = state;
  return {
    q,
    searching: q !== "",
    docsLoading: !docs || docs.ws !== selectedWs,
    searchDone: !!search && search.q === q && search.ws === selectedWs && search.wordsOnly === wordsOnly,
  };
}

const NO_LOGS: readonly DocSummary[] = [];

/** The daily logs loaded for the selected workspace (none for "All workspaces", or not loaded yet). */
export function shownLogs(state: BrowserState): readonly DocSummary[] {
  const { logs, selectedWs } = state;
  return selectedWs !== null && logs?.ws === selectedWs ? logs.data : NO_LOGS;
}

/**
 * The list's rows: search results (the last ones, until newer arrive) when searching, else the
 * loaded memories by group, the workspace's daily logs last but one ("Daily logs", before
 * "Invalid"). Pure but not cheap on big lists: memoise on the arguments.
 */
export function listRows(
  mode: Pick<ListMode, "searching" | "docsLoading">,
  docs: readonly DocSummary[],
  search: SearchResult | null,
  collapsed: ReadonlySet<GroupId>,
  logs: readonly DocSummary[] = [],
  sort: ListSort = "type",
  /** Usage by `docKey` for the usage sorts (`null`: not read yet — every memory counts as unused). */
  usage: ReadonlyMap<string, MemoryUsage> | null = null,
): Row[] {
  const all = withLogs(docs, logs);
  if (mode.searching) {
    if (!search) return [];
    return hitRows(search.hits, new Map(all.map((d) => [docKey(d.workspace, d.path), d])));
  }
  if (mode.docsLoading) return [];
  if (isUsageSort(sort)) return usageDocs(all, usage ?? new Map(), sort);
  return sort === "recent" ? recentDocs(all) : groupDocs(all, collapsed);
}

/** The memories and the daily logs, each once (should `list` ever include logs too). */
function withLogs(docs: readonly DocSummary[], logs: readonly DocSummary[]): readonly DocSummary[] {
  if (logs.length === 0) return docs;
  const listed = new Set(docs.map((d) => docKey(d.workspace, d.path)));
  return [...docs, ...logs.filter((l) => !listed.has(docKey(l.workspace, l.path)))];
}

/** What the list shows when it has no rows. */
export type EmptyList =
  | { kind: "error"; error: UiError }
  | { kind: "searching" }
  | { kind: "noMatches"; q: string }
  | { kind: "loading" }
  | { kind: "noMemories" };

export function emptyList(state: BrowserState): EmptyList {
  const mode = listMode(state);
  if (mode.searching) {
    if (state.searchError) return { kind: "error", error: state.searchError };
    if (!mode.searchDone) return { kind: "searching" };
    return { kind: "noMatches", q: mode.q };
  }
  if (state.docsError && mode.docsLoading) return { kind: "error", error: state.docsError };
  if (mode.docsLoading) return { kind: "loading" };
  return { kind: "noMemories" };
}

/** Why the selected workspace's daily logs could not be loaded (shown above the list while browsing). */
export function logsListError(state: BrowserState): UiError | null {
  const e = state.logsError;
  return e && e.ws === state.selectedWs && !listMode(state).searching ? e.error : null;
}

/** A list error to show above rows that are still shown (the last list loaded). */
export function staleListError(state: BrowserState): UiError | null {
  const mode = listMode(state);
  return state.docsError && !mode.docsLoading && !mode.searching ? state.docsError : null;
}
