// The app shell's state behind one hook: what the browser shows (the reducer of `lib/browser.ts`,
// fed from the data layer's reads), which view, workspace and memory are chosen, which panels
// and dialogs are open, the marks of new and changed memories, and the actions that change them.
// `App` renders what this says and wires the actions to its parts.

import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import type { Dispatch, RefObject } from "react";
import { commands } from "../lib/bindings";
import type { TaskInfo, WriteOutcome } from "../lib/bindings";
import { onMemoryChanged, toUiError, unwrap } from "../lib/transport";
import type { UiError } from "../lib/transport";
import { asksToDiscard, browserReducer, initialBrowser, listMode, openKey } from "../lib/browser";
import type { BrowserAction, BrowserState, Intent, Target, View } from "../lib/browser";
import { answer, reads, useHomeStatus, useLogs, useMemoryList, useRead, useWorkspaces } from "../lib/queries";
import { useDebounced } from "../lib/useDebounced";
import { invalidateMemoryReads } from "../lib/changeBridge";
import { useTaskList } from "../lib/useTaskList";
import type { TaskList } from "../lib/useTaskList";
import { useInboxCount } from "../lib/useInbox";
import { inboxWaiting } from "../lib/inbox";
import type { InboxWaiting } from "../lib/inbox";
import { useSyncStatus } from "../lib/useSyncStatus";
import { conflictedKeys } from "../lib/sync";
import type { RemoteSync } from "../lib/bindings";
import { dreamDialogReducer, initialDreamDialog, shownDream } from "../lib/dream";
import { docKey } from "../lib/format";
import { printable } from "../lib/printable";
import { loadUnseen, markSeen, noteChange, prune, saveUnseen } from "../lib/unseen";
import type { Unseen } from "../lib/unseen";
import { readChatOpen, readWorkspace, saveChatOpen, saveWorkspace } from "../lib/prefs";
import { useNarrow } from "../lib/useNarrow";
import { useShortcuts } from "../lib/useShortcuts";
import { useToast } from "../components/common/Toasts";
import { welcomed } from "../components/browser/Welcome";
import type { TransferOpen } from "../components/transfer/TransferDialogs";

export const SEARCH_DEBOUNCE_MS = 120;
export const SEARCH_LIMIT = 200;

/**
 * What the browser shows, as the cache holds it (the change events and the writes here keep it
 * current): the workspaces with their counts, the home's status, the selected workspace's list
 * (or all), its daily logs ("All workspaces" lists none) and the search asked. Each answer goes to
 * the reducer as it comes; the data and the error are what change (the answer is a new object each
 * render).
 */
function useBrowserReads(state: BrowserState, dispatch: Dispatch<BrowserAction>): void {
  const { selectedWs } = state;
  const workspacesRead = useWorkspaces();
  const workspacesAnswer = answer(workspacesRead);
  useEffect(() => {
    if (workspacesAnswer) dispatch({ type: "workspaces", answer: workspacesAnswer });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [workspacesRead.data, workspacesRead.error]);
  const homeStatus = useHomeStatus().data;
  useEffect(() => {
    if (homeStatus) dispatch({ type: "status", status: homeStatus });
  }, [homeStatus, dispatch]);
  const listRead = useMemoryList(selectedWs);
  const listAnswer = answer(listRead);
  useEffect(() => {
    if (listAnswer) dispatch({ type: "list", ws: selectedWs, answer: listAnswer });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [selectedWs, listRead.data, listRead.error]);
  const logsRead = useLogs(selectedWs);
  const logsAnswer = answer(logsRead);
  useEffect(() => {
    if (logsAnswer && selectedWs !== null) dispatch({ type: "logs", ws: selectedWs, answer: logsAnswer });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [selectedWs, logsRead.data, logsRead.error]);

  // Instant search, debounced: the query read once typing pauses (and again when memories change).
  const { q } = listMode(state);
  const { wordsOnly } = state;
  const asked = useDebounced(JSON.stringify([selectedWs, q, wordsOnly]), SEARCH_DEBOUNCE_MS);
  const [askedWs, askedQ, askedWordsOnly] = JSON.parse(asked) as [string | null, string, boolean];
  // `null`: hybrid (meaning + words) when the embedding model is available, else words.
  const searchRead = useRead({
    ...reads.search(askedWs, askedQ, SEARCH_LIMIT, askedWordsOnly ? true : null),
    enabled: q !== "" && askedQ !== "",
  });
  const searchAnswer = answer(searchRead);
  useEffect(() => {
    if (!searchAnswer) return;
    dispatch({ type: "search", ws: askedWs, q: askedQ, wordsOnly: askedWordsOnly, answer: searchAnswer });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [searchRead.data, searchRead.error]);
}

/**
 * New and changed memories, marked until opened: a `memory_changed` marks them (the list as last
 * loaded tells new from changed), a fresh list drops marks of memories gone from it, and opening a
 * memory clears its mark. Kept across reloads.
 */
function useUnseen(docs: BrowserState["docs"], openedKey: string | null): Unseen {
  const [unseen, setUnseen] = useState<Unseen>(loadUnseen);
  const listedRef = useRef<{ ws: string | null; keys: ReadonlySet<string> }>({ ws: null, keys: new Set() });
  useEffect(() => saveUnseen(unseen), [unseen]);
  useEffect(() => {
    if (docs) listedRef.current = { ws: docs.ws, keys: new Set(docs.data.map((d) => docKey(d.workspace, d.path))) };
  }, [docs]);
  // Adjusted while rendering (React's pattern for state that follows other state).
  const [prunedFor, setPrunedFor] = useState(docs);
  if (docs !== prunedFor) {
    setPrunedFor(docs);
    if (docs) {
      const { ws, data } = docs;
      setUnseen((u) => prune(u, new Set(data.map((d) => docKey(d.workspace, d.path))), ws, Date.now()));
    }
  }
  const [seenKey, setSeenKey] = useState<string | null>(null);
  if (openedKey !== seenKey) {
    setSeenKey(openedKey);
    if (openedKey !== null) setUnseen((u) => markSeen(u, openedKey));
  }
  // The data layer reads the lists, the figures and the open memory again on its own.
  useEffect(
    () =>
      onMemoryChanged((e) => {
        // A memory is new if the list held the workspace's memories and not this one; a change
        // in a workspace not listed reads as a change.
        const listed = listedRef.current;
        const known = (key: string) => !(listed.ws === null || listed.ws === e.workspace) || listed.keys.has(key);
        setUnseen((u) => noteChange(u, e, known, Date.now()));
      }),
    [],
  );
  return unseen;
}

export interface AppShell {
  /** What the browser shows (the list, search, the open memory, the view) and its reducer. */
  state: BrowserState;
  dispatch: Dispatch<BrowserAction>;
  /** The list's search box (Ctrl/⌘+K focuses it). */
  searchRef: RefObject<HTMLInputElement | null>;
  /** The recent memory tasks the whole UI shares. */
  tasks: TaskList;
  /** The home's sync status (the inbox counts a workspace's conflicts; their rows are marked). */
  syncState: RemoteSync | null;
  /** What waits in the selected workspace's inbox (`null`: none chosen, or not read). */
  waiting: InboxWaiting | null;
  /** The pending count of the selected workspace's inbox. */
  inboxCount: { workspace: string; pending: number } | null;
  /** Memories with an open sync conflict, by `docKey`. */
  conflicted: ReadonlySet<string>;
  unseen: Unseen;
  /** A workspace's label, shown escaped. */
  workspaceLabel: (id: string) => string;
  selectedLabel: string;
  /** The workspace the chat uses. */
  chatWs: string;
  /** Below 1,200 px: the chat is a modal drawer. */
  narrow: boolean;
  chatShown: boolean;
  /** The memory open (`workspace/path`), if any. */
  openedKey: string | null;
  /** The open memory's heading takes the focus (it came back by Undo). */
  focusHeading: boolean;
  /** The first-run welcome shows in the empty detail pane. */
  welcomeOpen: boolean;
  settingsOpen: boolean;
  rememberOpen: boolean;
  forgetOpen: boolean;
  transfer: TransferOpen | null;
  /** A proposal the inbox opens at. */
  inboxFocus: number | null;
  /** The dream shown in its dialog (`null`: none). */
  dreamId: string | null;
  /** Unsaved edits wait for the person's word before `pending` happens. */
  asksToDiscard: boolean;

  /** Does `intent` now, or after the user agrees to drop unsaved edits. */
  request: (intent: Intent) => void;
  open: (target: Target | null) => void;
  openPath: (workspace: string, path: string) => void;
  /** Choose a workspace (`null`: all of them). */
  selectWorkspace: (id: string | null) => void;
  showView: (view: View) => void;
  closeDetail: () => void;
  cancelDetail: () => void;
  discard: () => void;
  keepEditing: () => void;
  /** A write here (a save, an undo, a forget, an import…): what shows the memories reads them again now. */
  refresh: () => void;
  onDirtyChange: (dirty: boolean) => void;
  onSavingChange: (saving: boolean) => void;
  onCreated: (outcome: WriteOutcome) => void;
  onDeleted: (outcome: WriteOutcome, name: string) => void;
  onMoved: () => void;
  headingFocused: () => void;
  addFolder: (path: string) => Promise<UiError | null>;
  toggleChat: () => void;
  closeChat: () => void;
  /** A memory opened from the chat: in the drawer, it opens where it can be seen. */
  openFromChat: (workspace: string, path: string) => void;
  openSettings: () => void;
  closeSettings: () => void;
  showWelcome: () => void;
  closeWelcome: () => void;
  toggleRemember: () => void;
  closeRemember: () => void;
  openForget: () => void;
  closeForget: () => void;
  onForgot: (task: TaskInfo) => void;
  openTransfer: (open: TransferOpen) => void;
  closeTransfer: () => void;
  /** Open a workspace's inbox (`null`: the selected one's), at a proposal if given. */
  openInbox: (workspace: string | null, id?: number | null) => void;
  openDream: (id: string) => void;
  closeDream: () => void;
  openFromDream: (workspace: string, path: string) => void;
  onDreamStarted: (task: TaskInfo) => void;
}

export function useAppShell(): AppShell {
  const toast = useToast();
  const [state, dispatch] = useReducer(browserReducer, undefined, () => initialBrowser(readChatOpen(), readWorkspace()));
  const { workspaces, selectedWs, chatOpen, dirty } = state;
  const searchRef = useRef<HTMLInputElement>(null);
  const tasks = useTaskList();
  const [dreamDialog, dreamDispatch] = useReducer(dreamDialogReducer, initialDreamDialog);
  const [rememberOpen, setRememberOpen] = useState(false);
  const [forgetOpen, setForgetOpen] = useState(false);
  const [transfer, setTransfer] = useState<TransferOpen | null>(null);
  // The first-run welcome, until the person closes it (the empty detail pane offers it again).
  const [welcomeOpen, setWelcomeOpen] = useState(() => !welcomed());
  // A memory opened over the welcome ends it for this window: closing or deleting that memory
  // shows the empty pane (with its way back to the welcome), not the welcome again.
  if (welcomeOpen && state.detail !== null) setWelcomeOpen(false);
  // The one Settings dialog: the sidebar's button, Ctrl/⌘+, and the chat's ⚙ open it.
  const [settingsOpen, setSettingsOpen] = useState(false);
  const openSettings = useCallback(() => setSettingsOpen(true), []);
  // Below 1,200 px the chat is a modal drawer, closed until asked for; wider, the
  // side pane shows as last chosen.
  const narrow = useNarrow();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const chatShown = narrow ? drawerOpen : chatOpen;
  // A memory brought back by Undo: its heading takes the focus once it opens.
  const [focusRestored, setFocusRestored] = useState<string | null>(null);
  const openedKey = openKey(state);
  const unseen = useUnseen(state.docs, openedKey);
  // The heading takes the focus once, for the memory Undo brought back; taking it, or another
  // memory opening, ends the request.
  const headingFocused = useCallback(() => setFocusRestored(null), []);
  if (focusRestored !== null && openedKey !== null && openedKey !== focusRestored) setFocusRestored(null);

  useBrowserReads(state, dispatch);

  useEffect(() => saveChatOpen(chatOpen), [chatOpen]);
  // The workspace chosen is remembered across reloads (one gone since falls back to all of them).
  useEffect(() => saveWorkspace(selectedWs), [selectedWs]);

  // Ctrl/⌘+K focuses search; Ctrl/⌘+, opens Settings.
  useShortcuts({
    search: () => {
      dispatch({ type: "view", view: "memories" });
      searchRef.current?.focus();
      searchRef.current?.select();
    },
    settings: openSettings,
  });

  // Warn before closing the page with unsaved edits.
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => window.removeEventListener("beforeunload", onBeforeUnload);
  }, [dirty]);

  const request = useCallback((intent: Intent) => dispatch({ type: "request", intent }), []);
  const open = useCallback((target: Target | null) => dispatch({ type: "open", target }), []);
  const refresh = useCallback(() => void invalidateMemoryReads(), []);
  const openPath = useCallback(
    (workspace: string, path: string) => request({ type: "showMemory", workspace, path }),
    [request],
  );
  const onDirtyChange = useCallback((d: boolean) => dispatch({ type: "dirty", dirty: d }), []);
  const onSavingChange = useCallback((saving: boolean) => dispatch({ type: "saving", saving }), []);
  const onCreated = useCallback((o: WriteOutcome) => {
    dispatch({ type: "created", workspace: o.workspace, path: o.path });
    void invalidateMemoryReads();
  }, []);

  const restore = useCallback(
    async (changeId: number, workspace: string, path: string) => {
      try {
        unwrap(await commands.undo(changeId));
        toast({ message: "Restored" });
        refresh();
        openPath(workspace, path);
        setFocusRestored(docKey(workspace, path));
      } catch (e) {
        toast({ kind: "error", message: `Undo failed: ${toUiError(e).message}` });
      }
    },
    [toast, refresh, openPath],
  );

  const onDeleted = useCallback(
    (o: WriteOutcome, name: string) => {
      dispatch({ type: "deleted" });
      void invalidateMemoryReads();
      // The pane that had the focus is gone: the list takes it (else the search box), not the page.
      requestAnimationFrame(() => (document.querySelector<HTMLElement>(".list-scroll") ?? searchRef.current)?.focus());
      const id = o.change_id;
      toast({
        message: `Deleted “${name}”`,
        timeout: 8000,
        action: id === null ? undefined : { label: "Undo", run: () => void restore(id, o.workspace, o.path) },
      });
    },
    [toast, restore],
  );

  const addFolder = useCallback(
    async (path: string): Promise<UiError | null> => {
      try {
        const ws = unwrap(await commands.addFolder(path));
        toast({ message: `Added folder “${printable(ws.label)}”` });
        dispatch({ type: "folderAdded", id: ws.id });
        void invalidateMemoryReads();
        return null;
      } catch (e) {
        return toUiError(e);
      }
    },
    [toast],
  );

  const labels = useMemo(() => new Map(workspaces.map((w) => [w.id, w.label])), [workspaces]);
  // A label or id may come from another tool's folder name: shown escaped (`lib/printable`).
  const workspaceLabel = useCallback((id: string) => printable(labels.get(id) ?? id), [labels]);
  const selectedLabel = selectedWs === null ? "All workspaces" : workspaceLabel(selectedWs);
  const chatWs = selectedWs ?? "personal";

  const taskList = tasks.state.tasks;
  const updateTask = tasks.update;
  const dreamId = shownDream(dreamDialog, taskList);
  const openDream = useCallback((id: string) => dreamDispatch({ type: "open", id }), []);
  const onDreamStarted = useCallback(
    (task: TaskInfo) => {
      updateTask(task);
      dreamDispatch({ type: "started", id: task.id });
    },
    [updateTask],
  );
  const closeDream = useCallback(() => dreamDispatch({ type: "close", tasks: taskList }), [taskList]);
  const onForgot = useCallback(
    (task: TaskInfo) => {
      updateTask(task);
      refresh();
    },
    [updateTask, refresh],
  );

  const inboxCount = useInboxCount(selectedWs);
  // The inbox holds the workspace's open sync conflicts too: its badge counts both.
  const syncState = useSyncStatus();
  const waiting = inboxWaiting(selectedWs, inboxCount, syncState);
  // Memories with an open sync conflict: their rows are marked.
  const conflicted = useMemo(() => conflictedKeys(syncState), [syncState]);
  const [inboxFocus, setInboxFocus] = useState<number | null>(null);
  const openInbox = useCallback(
    (workspace: string | null, id: number | null = null) => {
      if (workspace !== null && workspace !== selectedWs) dispatch({ type: "selectWorkspace", id: workspace });
      setInboxFocus(id);
      request({ type: "view", view: "inbox" });
    },
    [selectedWs, request],
  );

  return {
    state,
    dispatch,
    searchRef,
    tasks,
    syncState,
    waiting,
    inboxCount,
    conflicted,
    unseen,
    workspaceLabel,
    selectedLabel,
    chatWs,
    narrow,
    chatShown,
    openedKey,
    focusHeading: focusRestored !== null && focusRestored === openedKey,
    welcomeOpen,
    settingsOpen,
    rememberOpen,
    forgetOpen,
    transfer,
    inboxFocus,
    dreamId,
    asksToDiscard: asksToDiscard(state),

    request,
    open,
    openPath,
    selectWorkspace: (id) => dispatch({ type: "selectWorkspace", id }),
    showView: (view) => request({ type: "view", view }),
    closeDetail: () => open(null),
    cancelDetail: () => request({ type: "open", target: null }),
    discard: () => dispatch({ type: "discard" }),
    keepEditing: () => dispatch({ type: "keepEditing" }),
    refresh,
    onDirtyChange,
    onSavingChange,
    onCreated,
    onDeleted,
    onMoved: () => {
      dispatch({ type: "deleted" });
      void invalidateMemoryReads();
    },
    headingFocused,
    addFolder,
    toggleChat: () => (narrow ? setDrawerOpen((o) => !o) : dispatch({ type: "toggleChat" })),
    closeChat: () => (narrow ? setDrawerOpen(false) : dispatch({ type: "setChatOpen", open: false })),
    openFromChat: (ws, path) => {
      if (narrow) setDrawerOpen(false);
      openPath(ws, path);
    },
    openSettings,
    closeSettings: () => setSettingsOpen(false),
    showWelcome: () => setWelcomeOpen(true),
    closeWelcome: () => {
      setWelcomeOpen(false);
      searchRef.current?.focus();
    },
    toggleRemember: () => setRememberOpen((o) => !o),
    closeRemember: () => setRememberOpen(false),
    openForget: () => setForgetOpen(true),
    closeForget: () => setForgetOpen(false),
    onForgot,
    openTransfer: setTransfer,
    closeTransfer: () => setTransfer(null),
    openInbox,
    openDream,
    closeDream,
    openFromDream: (ws, path) => {
      closeDream();
      openPath(ws, path);
    },
    onDreamStarted,
  };
}
