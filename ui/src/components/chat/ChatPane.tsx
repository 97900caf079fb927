import { useCallback, useRef, useState } from "react";
import { commands } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { isConfigured, memorySnapshot } from "../../lib/chat";
import type { MemorySnapshot } from "../../lib/chat";
import { useCommand } from "../../lib/useCommand";
import { readOnce, reads } from "../../lib/queries";
import { InlineError } from "../common/InlineError";
import { ModelSettings } from "../settings/ModelSettings";
import { useModal } from "../common/Modal";
import { ChatBody } from "./ChatBody";
import { ChatComposer } from "./ChatComposer";
import type { ComposerText } from "./ChatComposer";
import { ChatHeader } from "./ChatHeader";
import { useChatModel } from "./useChatModel";
import { useChatSession } from "./useChatSession";

interface Props {
  /** The workspace whose memory the chat uses. */
  workspace: string;
  workspaceLabel: string;
  onOpenMemory: (workspace: string, path: string) => void;
  /** Hide the pane (absent: no close button). */
  onClose?: () => void;
  /**
   * A narrow window's drawer: modal over the app (a backdrop, Escape and a click outside close
   * it, focus kept inside and given back to the opener). Needs `onClose`.
   */
  drawer?: boolean;
  /** Open the one Settings dialog (absent: the pane opens its own). */
  onOpenSettings?: () => void;
}

/**
 * The chat: a head (title, sessions), the conversation and the composer, over one session's
 * state (`useChatSession`). Sending a turn is the one thing done here: it needs the session, the
 * model and the memory's figures together.
 */
export function ChatPane({ workspace, workspaceLabel, onOpenMemory, onClose, drawer = false, onOpenSettings }: Props) {
  const runner = useCommand();
  const { run } = runner;
  const session = useChatSession(workspace, runner);
  const { chat, dispatch, current, busy, loading, paneError, setPaneError, replaceSession, refreshSessions } = session;
  const [redactedNote, setRedactedNote] = useState<string | null>(null);
  const [sendError, setSendError] = useState<UiError | null>(null);
  // Settings read with a model configured: a send that failed for the want of one no longer holds.
  const modelFound = useCallback(() => setSendError((e) => (e?.code === "model_not_configured" ? null : e)), []);
  const model = useChatModel(modelFound);
  const [needsModel, setNeedsModel] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const noModelButton = useRef<HTMLButtonElement>(null);
  const sending = useRef(false);
  const stopRequested = useRef(false);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const paneRef = useRef<HTMLElement>(null);
  const closeDrawer = useCallback(() => onClose?.(), [onClose]);
  // A dialog over the drawer (Settings, from its ⚙ or Ctrl+,): its backdrop covers the drawer
  // too, and the drawer's own dimming of the app steps aside, so nothing looks above the dialog.
  const covered = useModal(paneRef, { onClose: closeDrawer, initialFocus: inputRef, active: drawer && !!onClose });
  const openSettings = () => (onOpenSettings ? onOpenSettings() : setSettingsOpen(true));
  const noModel = model !== null && !isConfigured(model);


  const send = async (text: string, box: ComposerText) => {
    if (!text.trim() || sending.current || loading) return;
    // No model: a message would make an empty "New chat" and fail. Commands
    // (`/memory`, `/remember`, `/forget`) still run; a message stays in the box, and the banner's
    // "Open settings" takes the focus.
    if (noModel && !text.trim().startsWith("/")) {
      setNeedsModel(true);
      noModelButton.current?.focus();
      return;
    }
    setNeedsModel(false);
    sending.current = true;
    setSendError(null);
    setRedactedNote(null);
    try {
      let id = chat.session;
      if (id === null) {
        const created = await run(commands.chatCreate(workspace, null));
        if (!created) return;
        if (!created.ok) {
          setSendError(created.error);
          return;
        }
        replaceSession(created.data);
        dispatch({ type: "reset", session: created.data.id });
        id = created.data.id;
      }
      stopRequested.current = false;
      box.clear();
      dispatch({ type: "sent", session: id, text });
      const ignored = current?.ignore_memory ?? false;
      const answer = await run(commands.chatSend(workspace, id, text));
      if (!answer) return;
      if (answer.ok) {
        let memory: MemorySnapshot | null = null;
        if (answer.data.command?.name === "memory") {
          // The figures behind the answer, to draw it as a card; without them the text shows.
          const [stats, docs, proposals] = await Promise.all([
            run(readOnce(reads.stats(workspace))),
            run(readOnce(reads.list(workspace))),
            run(readOnce(reads.recentProposals(workspace))),
          ]);
          if (!stats || !docs || !proposals) return;
          // Where the last runs' proposals stand (not read: the card claims no more than the run's status).
          const recent = proposals.ok ? proposals.data.items : null;
          if (stats.ok && docs.ok) memory = memorySnapshot(stats.data, docs.data, model, ignored, Date.now(), recent);
        }
        dispatch({ type: "done", session: id, result: answer.data, memory });
        setRedactedNote(answer.data.redacted);
        void refreshSessions();
      } else {
        const stopped = stopRequested.current;
        dispatch({ type: "failed", session: id, stopped });
        box.restore(text);
        if (!stopped) setSendError(answer.error);
      }
    } finally {
      sending.current = false;
    }
  };

  const stop = async () => {
    const p = chat.pending;
    if (!p) return;
    stopRequested.current = true;
    const answer = await run(commands.chatCancel(p.session));
    if (answer && !answer.ok) setSendError(answer.error);
  };

  const openMemory = useCallback((path: string) => onOpenMemory(workspace, path), [onOpenMemory, workspace]);

  return (
    <>
    {drawer && onClose && (
      <div
        className={covered ? "drawer-backdrop covered" : "drawer-backdrop"}
        data-testid="chat-backdrop"
        data-covered={covered ? "true" : undefined}
        aria-hidden="true"
        onMouseDown={(e) => {
          e.preventDefault();
          onClose();
        }}
      />
    )}
    <aside
      ref={paneRef}
      className={drawer ? "chat-pane chat-drawer" : "chat-pane"}
      aria-label="Chat"
      data-testid="chat-pane"
      data-covered={covered ? "true" : undefined}
      {...(drawer && onClose ? { role: "dialog", "aria-modal": true, "data-drawer": "true" } : {})}
    >
      <ChatHeader
        workspace={workspace}
        workspaceLabel={workspaceLabel}
        session={session}
        onOpenSettings={openSettings}
        onClose={onClose}
        onNewChat={() => inputRef.current?.focus()}
      />

      {noModel && (
        <div className="chat-banner" role="status" data-testid="chat-no-model">
          <div>
            <strong>No model is configured.</strong> Open Settings to set an OpenAI-compatible base URL and model (or
            set <code>MNEMO_LLM_BASE_URL</code> and <code>MNEMO_LLM_MODEL</code>). Browsing, search and recall keep
            working without one.
          </div>
          {needsModel && (
            <p data-testid="chat-needs-model">
              Your message was not sent: chatting needs a model. It is still in the box, ready to send once one is
              connected.
            </p>
          )}
          <button type="button" ref={noModelButton} data-testid="chat-no-model-settings" onClick={openSettings}>
            Open settings
          </button>
        </div>
      )}
      {paneError && (
        <div className="chat-pane-error">
          <InlineError error={paneError}>
            <button type="button" className="link-button" onClick={() => setPaneError(null)}>
              Dismiss
            </button>
          </InlineError>
        </div>
      )}

      <ChatBody chat={chat} loading={loading} workspaceLabel={workspaceLabel} contextWindow={model?.context_window} onOpenPath={openMemory} />

      {redactedNote && (
        <p className="notice" role="status" data-testid="chat-redacted">
          {redactedNote}
        </p>
      )}

      <ChatComposer
        inputRef={inputRef}
        busy={busy}
        loading={loading}
        onSend={(text, box) => void send(text, box)}
        onStop={() => void stop()}
        sendError={sendError}
        onOpenSettings={openSettings}
      />

      {settingsOpen && (
        <ModelSettings
          onClose={() => setSettingsOpen(false)}
          onSaved={() => {
            setSendError((e) => (e?.code === "model_not_configured" || e?.code === "model_unreachable" ? null : e));
          }}
        />
      )}
    </aside>
    </>
  );
}
