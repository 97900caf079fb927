import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import { commands } from "./lib/bindings";
import type { TaskInfo, WriteOutcome } from "./lib/bindings";
import { onMemoryChanged, toUiError, unwrap } from "./lib/transport";
import type { UiError } from "./lib/transport";
import { asksToDiscard, browserReducer, initialBrowser, listMode, openKey } from "./lib/browser";
import type { Intent, Target } from "./lib/browser";
import { answer, reads, useHomeStatus, useLogs, useMemoryList, useRead, useWorkspaces } from "./lib/queries";
import { useDebounced } from "./lib/useDebounced";
import { invalidateMemoryReads } from "./lib/changeBridge";
import { Sidebar } from "./components/browser/Sidebar";
import { ListPane } from "./components/browser/ListPane";
import { DetailPane } from "./components/browser/DetailPane";
import { HistoryPanel } from "./components/browser/HistoryPanel";
import { DiscardDialog } from "./components/common/ConfirmDialog";
import { useToast } from "./components/common/Toasts";
import { ChatPane } from "./components/chat/ChatPane";
import { ModelSettings } from "./components/settings/ModelSettings";
import { TaskStatusBar } from "./components/jobs/TasksPanel";
import { DreamControls } from "./components/jobs/DreamControls";
import { DreamDialog } from "./components/jobs/DreamDialog";
import { WorkspaceTools } from "./components/browser/WorkspaceTools";
import { InboxPanel } from "./components/inbox/InboxPanel";
import { WorkspaceChooser } from "./components/status/WorkspaceChooser";
import { ForgetDialog } from "./components/jobs/ForgetDialog";
import { TransferDialogs } from "./components/transfer/TransferDialogs";
import type { TransferOpen } from "./components/transfer/TransferDialogs";
import { StatusPanel } from "./components/status/StatusPanel";
import { Welcome, welcomed } from "./components/browser/Welcome";
import { useTaskList } from "./lib/useTaskList";
import { useInboxCount } from "./lib/useInbox";
import { inboxWaiting } from "./lib/inbox";
import { useSyncStatus } from "./lib/useSyncStatus";
import { conflictedKeys } from "./lib/sync";
import { activeDream, dreamDialogReducer, initialDreamDialog, shownDream } from "./lib/dream";
import { docKey } from "./lib/format";
import { printable } from "./lib/printable";
import { loadUnseen, markSeen, noteChange, prune, saveUnseen } from "./lib/unseen";
import type { Unseen } from "./lib/unseen";
import { readChatOpen, readWorkspace, saveChatOpen, saveWorkspace } from "./lib/prefs";
import { useNarrow } from "./lib/useNarrow";
import { useShortcuts } from "./lib/useShortcuts";

export { CHAT_OPEN_KEY } from "./lib/prefs";

export const SEARCH_DEBOUNCE_MS = 120;
export const SEARCH_LIMIT = 200;
const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);
const MOD_KEY = isMac ? "⌘" : "Ctrl+";

export function App() {
  const toast = useToast();
  const [state, dispatch] = useReducer(browserReducer, undefined, () => initialBrowser(readChatOpen(), readWorkspace()));
  const { workspaces, selectedWs, view, chatOpen, dirty } = state;
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
  // New and changed memories, marked until opened; the list as last loaded tells new from changed.
  const [unseen, setUnseen] = useState<Unseen>(loadUnseen);
  const listedRef = useRef<{ ws: string | null; keys: ReadonlySet<string> }>({ ws: null, keys: new Set() });
  useEffect(() => saveUnseen(unseen), [unseen]);
  useEffect(() => {
    if (state.docs) listedRef.current = { ws: state.docs.ws, keys: new Set(state.docs.data.map((d) => docKey(d.workspace, d.path))) };
  }, [state.docs]);
  // Adjusted while rendering (React's pattern for state that follows other state): a fresh list
  // drops marks of memories gone from it; opening a memory clears its mark.
  const [prunedFor, setPrunedFor] = useState(state.docs);
  if (state.docs !== prunedFor) {
    setPrunedFor(state.docs);
    if (state.docs) {
      const { ws, data } = state.docs;
      setUnseen((u) => prune(u, new Set(data.map((d) => docKey(d.workspace, d.path))), ws, Date.now()));
    }
  }
  const openedKey = openKey(state);
  const [seenKey, setSeenKey] = useState<string | null>(null);
  if (openedKey !== seenKey) {
    setSeenKey(openedKey);
    if (openedKey !== null) setUnseen((u) => markSeen(u, openedKey));
  }
  // The heading takes the focus once, for the memory Undo brought back; taking it, or another
  // memory opening, ends the request.
  const headingFocused = useCallback(() => setFocusRestored(null), []);
  if (focusRestored !== null && openedKey !== null && openedKey !== focusRestored) setFocusRestored(null);

  // What the browser shows, as the cache holds it (the change events and the writes here keep it
  // current): the workspaces with their counts, the home's status, the selected workspace's list
  // (or all) and its daily logs ("All workspaces" lists none). Each answer goes to the reducer as
  // it comes; the data and the error are what change (the answer is a new object each render).
  const workspacesRead = useWorkspaces();
  const workspacesAnswer = answer(workspacesRead);
  useEffect(() => {
    if (workspacesAnswer) dispatch({ type: "workspaces", answer: workspacesAnswer });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [workspacesRead.data, workspacesRead.error]);
  const homeStatus = useHomeStatus().data;
  useEffect(() => {
    if (homeStatus) dispatch({ type: "status", status: homeStatus });
  }, [homeStatus]);
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

  // Live updates: new and changed memories are marked (the data layer reads the lists, the figures
  // and the open memory again on its own).
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

  /** Does `intent` now, or after the user agrees to drop unsaved edits. */
  const request = useCallback((intent: Intent) => dispatch({ type: "request", intent }), []);
  const open = useCallback((target: Target | null) => dispatch({ type: "open", target }), []);
  // A write here (a save, an undo, a forget, an import…): what shows the memories reads them again
  // now, not only once the server's change event comes.
  const refresh = useCallback(() => void invalidateMemoryReads(), []);
  const openPath = useCallback(
    (workspace: string, path: string) => request({ type: "showMemory", workspace, path }),
    [request],
  );
  const onDirtyChange = useCallback((d: boolean) => dispatch({ type: "dirty", dirty: d }), []);
  const onSavingChange = useCallback((saving: boolean) => dispatch({ type: "saving", saving }), []);
  const onCreated = useCallback(
    (o: WriteOutcome) => {
      dispatch({ type: "created", workspace: o.workspace, path: o.path });
      void invalidateMemoryReads();
    },
    [],
  );

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
  const detail = state.detail;

  const taskList = tasks.state.tasks;
  const updateTask = tasks.update;
  const reloadTasks = tasks.reload;
  const dreamId = shownDream(dreamDialog, taskList);
  const openDream = useCallback((id: string) => dreamDispatch({ type: "open", id }), []);
  const onDreamStarted = useCallback(
    (task: TaskInfo) => {
      updateTask(task);
      dreamDispatch({ type: "started", id: task.id });
    },
    [updateTask],
  );
  const dreamControls =
    selectedWs === null ? undefined : (
      <DreamControls
        key={selectedWs}
        workspace={selectedWs}
        active={activeDream(taskList, selectedWs)}
        onStarted={onDreamStarted}
        onShow={openDream}
      />
    );
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
  const workspacePanel =
    selectedWs === null ? (
      <p className="muted ws-all-hint" data-testid="all-workspaces-hint">
        Dream, Remember, Forget, Import, Export and the Inbox work on one workspace at a time: choose one on the left.
      </p>
    ) : (
      <WorkspaceTools
        workspace={selectedWs}
        label={workspaceLabel(selectedWs)}
        tasks={taskList}
        rememberOpen={rememberOpen}
        onToggleRemember={() => setRememberOpen((o) => !o)}
        onCloseRemember={() => setRememberOpen(false)}
        onQueued={reloadTasks}
        onForget={() => setForgetOpen(true)}
        onImport={() => setTransfer({ kind: "import", workspace: selectedWs })}
        onExport={() => setTransfer({ kind: "export", workspace: selectedWs })}
        onStatus={() => request({ type: "view", view: "status" })}
        onInbox={() => openInbox(selectedWs)}
        onOpenSettings={openSettings}
        waiting={waiting}
        onOpenMemory={openPath}
      />
    );
  const chooseWorkspace = (id: string) => dispatch({ type: "selectWorkspace", id });

  return (
    <div className={chatShown && !narrow ? "app with-chat" : "app"}>
      <Sidebar
        workspaces={workspaces}
        status={state.status}
        selected={selectedWs}
        view={view}
        onSelect={(id) => dispatch({ type: "selectWorkspace", id })}
        onView={(v) => request({ type: "view", view: v })}
        onAddFolder={addFolder}
        chatOpen={chatShown}
        onToggleChat={() => (narrow ? setDrawerOpen((o) => !o) : dispatch({ type: "toggleChat" }))}
        onOpenSettings={openSettings}
        settingsKey={MOD_KEY}
        inbox={waiting}
        onOpenInbox={() => openInbox(selectedWs)}
        footer={
          <TaskStatusBar
            tasks={tasks}
            onOpenMemory={openPath}
            onOpenDream={openDream}
            onOpenInbox={openInbox}
            workspaceLabel={workspaceLabel}
          />
        }
      />
      {view === "memories" ? (
        <>
          <ListPane
            state={state}
            dispatch={dispatch}
            searchRef={searchRef}
            selectedLabel={selectedLabel}
            workspaceLabel={workspaceLabel}
            modKey={MOD_KEY}
            workspaceActions={dreamControls}
            workspacePanel={workspacePanel}
            unseen={unseen}
            conflicted={conflicted}
          />
          <main className="detail-pane">
            {detail ? (
              <DetailPane
                key={detail.seq}
                target={detail.target}
                workspaces={workspaces}
                onDirtyChange={onDirtyChange}
                onSavingChange={onSavingChange}
                onCreated={onCreated}
                onSaved={refresh}
                onDeleted={onDeleted}
                onClose={() => open(null)}
                onCancel={() => request({ type: "open", target: null })}
                onRecreate={open}
                onCopy={(source) => setTransfer({ kind: "copy", source })}
                sync={syncState}
                focusHeading={focusRestored !== null && focusRestored === openedKey}
                onHeadingFocused={headingFocused}
              />
            ) : (
              welcomeOpen ? (
                <Welcome
                  workspaces={workspaces}
                  onOpenWorkspace={(id) => dispatch({ type: "selectWorkspace", id })}
                  onClose={() => {
                    setWelcomeOpen(false);
                    searchRef.current?.focus();
                  }}
                />
              ) : (
                <div className="empty detail-empty">
                  <div className="empty-title">No memory selected</div>
                  <div className="muted">Pick one from the list (↑/↓, Enter), or press {MOD_KEY}K to search.</div>
                  <button type="button" className="link-button" data-testid="welcome-reopen" onClick={() => setWelcomeOpen(true)}>
                    What is Mnemo? Show the welcome
                  </button>
                </div>
              )
            )}
          </main>
        </>
      ) : view === "status" ? (
        <main className="history-pane status-pane" aria-label="Status">
          {selectedWs === null ? (
            <WorkspaceChooser workspaces={workspaces} onSelect={chooseWorkspace} />
          ) : (
            <StatusPanel
              key={`status-${selectedWs}`}
              workspace={selectedWs}
              label={workspaceLabel(selectedWs)}
              workspaceLabel={workspaceLabel}
              tasks={tasks}
              onOpenMemory={openPath}
              onOpenDream={openDream}
              onDreamStarted={onDreamStarted}
              onOpenInbox={() => openInbox(selectedWs)}
              onOpenProposal={openInbox}
            />
          )}
        </main>
      ) : view === "inbox" ? (
        <main className="history-pane status-pane" aria-label="Inbox">
          {selectedWs === null ? (
            <WorkspaceChooser
              workspaces={workspaces}
              onSelect={chooseWorkspace}
              title="Inbox"
              why="Each workspace has its own inbox of proposals."
              testId="inbox-choose"
            />
          ) : (
            <InboxPanel
              key={`inbox-${selectedWs}-${inboxFocus ?? ""}`}
              workspace={selectedWs}
              label={workspaceLabel(selectedWs)}
              pendingNow={inboxCount?.pending ?? null}
              focus={inboxFocus}
              onChanged={refresh}
              onOpenMemory={openPath}
            />
          )}
        </main>
      ) : (
        <main className="history-pane" aria-label="History">
          <header className="pane-header">
            <h1>History — {selectedLabel}</h1>
          </header>
          <HistoryPanel
            wide
            workspace={selectedWs}
            path={null}
            onOpen={openPath}
            onUndone={refresh}
          />
        </main>
      )}
      {chatShown && (
        <ChatPane
          key={chatWs}
          workspace={chatWs}
          workspaceLabel={workspaceLabel(chatWs)}
          onOpenMemory={(ws, path) => {
            // In the drawer, the memory opens where it can be seen.
            if (narrow) setDrawerOpen(false);
            openPath(ws, path);
          }}
          onClose={() => (narrow ? setDrawerOpen(false) : dispatch({ type: "setChatOpen", open: false }))}
          drawer={narrow}
          onOpenSettings={openSettings}
        />
      )}
      {settingsOpen && <ModelSettings onClose={() => setSettingsOpen(false)} />}
      {dreamId !== null && (
        <DreamDialog
          key={dreamId}
          id={dreamId}
          task={taskList.find((t) => t.id === dreamId) ?? null}
          workspaceLabel={workspaceLabel}
          onUpdated={updateTask}
          onClose={() => dreamDispatch({ type: "close", tasks: taskList })}
          onOpenMemory={(ws, path) => {
            dreamDispatch({ type: "close", tasks: taskList });
            openPath(ws, path);
          }}
          onUndone={refresh}
          fallbackFocus={() => document.querySelector<HTMLElement>('[data-testid="dream-button"]') ?? searchRef.current}
        />
      )}
      {forgetOpen && selectedWs !== null && (
        <ForgetDialog
          key={`forget-${selectedWs}`}
          workspace={selectedWs}
          workspaceLabel={workspaceLabel(selectedWs)}
          onClose={() => setForgetOpen(false)}
          onForgot={onForgot}
          onUndone={refresh}
        />
      )}
      <TransferDialogs
        open={transfer}
        onClose={() => setTransfer(null)}
        workspaces={workspaces}
        workspaceLabel={workspaceLabel}
        home={state.status?.home ?? null}
        tasks={taskList}
        onTaskUpdated={updateTask}
        onChanged={refresh}
        onMoved={() => {
          dispatch({ type: "deleted" });
          void invalidateMemoryReads();
        }}
        onOpenMemory={openPath}
      />
      {asksToDiscard(state) && (
        <DiscardDialog onDiscard={() => dispatch({ type: "discard" })} onKeepEditing={() => dispatch({ type: "keepEditing" })}>
          <p>
            {state.detail?.target.mode === "new"
              ? "The new memory is not saved yet: discarding it drops what you typed."
              : "The open memory has edits that are not saved."}
          </p>
        </DiscardDialog>
      )}
    </div>
  );
}
