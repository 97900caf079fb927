import { Sidebar } from "./components/browser/Sidebar";
import { ListPane } from "./components/browser/ListPane";
import { DetailPane } from "./components/browser/DetailPane";
import { HistoryPanel } from "./components/browser/HistoryPanel";
import { DiscardDialog } from "./components/common/ConfirmDialog";
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
import { StatusPanel } from "./components/status/StatusPanel";
import { Welcome } from "./components/browser/Welcome";
import { activeDream } from "./lib/dream";
import { useAppShell } from "./shell/useAppShell";

export { CHAT_OPEN_KEY } from "./lib/prefs";
export { SEARCH_DEBOUNCE_MS, SEARCH_LIMIT } from "./shell/useAppShell";

const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);
const MOD_KEY = isMac ? "⌘" : "Ctrl+";

/** The app: what the shell (`useAppShell`) says, laid out, its actions wired to each part. */
export function App() {
  const shell = useAppShell();
  const { state, dispatch, searchRef, tasks, syncState, waiting, inboxCount, workspaceLabel, selectedLabel, chatWs, narrow, chatShown, dreamId } = shell;
  const { workspaces, selectedWs, view, detail } = state;
  const { openPath, openDream, openInbox, refresh, onDirtyChange, onSavingChange, onCreated, onDeleted, onDreamStarted, unseen, conflicted, welcomeOpen, inboxFocus } = shell;
  const taskList = tasks.state.tasks;
  const updateTask = tasks.update;

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
        rememberOpen={shell.rememberOpen}
        onToggleRemember={shell.toggleRemember}
        onCloseRemember={shell.closeRemember}
        onQueued={tasks.reload}
        onForget={shell.openForget}
        onImport={() => shell.openTransfer({ kind: "import", workspace: selectedWs })}
        onExport={() => shell.openTransfer({ kind: "export", workspace: selectedWs })}
        onStatus={() => shell.showView("status")}
        onInbox={() => openInbox(selectedWs)}
        onOpenSettings={shell.openSettings}
        waiting={waiting}
        onOpenMemory={openPath}
      />
    );

  return (
    <div className={chatShown && !narrow ? "app with-chat" : "app"}>
      <Sidebar
        workspaces={workspaces}
        status={state.status}
        selected={selectedWs}
        view={view}
        onSelect={shell.selectWorkspace}
        onView={shell.showView}
        onAddFolder={shell.addFolder}
        chatOpen={chatShown}
        onToggleChat={shell.toggleChat}
        onOpenSettings={shell.openSettings}
        settingsKey={MOD_KEY}
        inbox={waiting}
        onOpenInbox={() => shell.openInbox(selectedWs)}
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
                onClose={shell.closeDetail}
                onCancel={shell.cancelDetail}
                onRecreate={shell.open}
                onCopy={(source) => shell.openTransfer({ kind: "copy", source })}
                sync={syncState}
                focusHeading={shell.focusHeading}
                onHeadingFocused={shell.headingFocused}
              />
            ) : (
              welcomeOpen ? (
                <Welcome
                  workspaces={workspaces}
                  onOpenWorkspace={shell.selectWorkspace}
                  onClose={shell.closeWelcome}
                />
              ) : (
                <div className="empty detail-empty">
                  <div className="empty-title">No memory selected</div>
                  <div className="muted">Pick one from the list (↑/↓, Enter), or press {MOD_KEY}K to search.</div>
                  <button type="button" className="link-button" data-testid="welcome-reopen" onClick={shell.showWelcome}>
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
            <WorkspaceChooser workspaces={workspaces} onSelect={shell.selectWorkspace} />
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
              onOpenInbox={() => shell.openInbox(selectedWs)}
              onOpenProposal={shell.openInbox}
            />
          )}
        </main>
      ) : view === "inbox" ? (
        <main className="history-pane status-pane" aria-label="Inbox">
          {selectedWs === null ? (
            <WorkspaceChooser
              workspaces={workspaces}
              onSelect={shell.selectWorkspace}
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
          onOpenMemory={shell.openFromChat}
          onClose={shell.closeChat}
          drawer={narrow}
          onOpenSettings={shell.openSettings}
        />
      )}
      {shell.settingsOpen && <ModelSettings onClose={shell.closeSettings} />}
      {dreamId !== null && (
        <DreamDialog
          key={dreamId}
          id={dreamId}
          task={taskList.find((t) => t.id === dreamId) ?? null}
          workspaceLabel={workspaceLabel}
          onUpdated={updateTask}
          onClose={shell.closeDream}
          onOpenMemory={shell.openFromDream}
          onUndone={refresh}
          fallbackFocus={() => document.querySelector<HTMLElement>('[data-testid="dream-button"]') ?? searchRef.current}
        />
      )}
      {shell.forgetOpen && selectedWs !== null && (
        <ForgetDialog
          key={`forget-${selectedWs}`}
          workspace={selectedWs}
          workspaceLabel={workspaceLabel(selectedWs)}
          onClose={shell.closeForget}
          onForgot={shell.onForgot}
          onUndone={refresh}
        />
      )}
      <TransferDialogs
        open={shell.transfer}
        onClose={shell.closeTransfer}
        workspaces={workspaces}
        workspaceLabel={workspaceLabel}
        home={state.status?.home ?? null}
        tasks={taskList}
        onTaskUpdated={updateTask}
        onChanged={refresh}
        onMoved={shell.onMoved}
        onOpenMemory={openPath}
      />
      {shell.asksToDiscard && (
        <DiscardDialog onDiscard={shell.discard} onKeepEditing={shell.keepEditing}>
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
