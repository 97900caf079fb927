import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import { CHAT_COMMANDS, commands } from "../../lib/bindings";
import type { ModelSettings as Settings, SessionInfo } from "../../lib/bindings";
import { onChatEvent } from "../../lib/transport";
import type { UiError } from "../../lib/transport";
import { chatItems, chatReducer, EMPTY_CHAT, isConfigured, memorySnapshot, restoreInput, sortSessions } from "../../lib/chat";
import type { MemorySnapshot } from "../../lib/chat";
import { useCommand } from "../../lib/useCommand";
import { RECENT_PROPOSALS } from "../../lib/useInbox";
import { ChatMessageView } from "./ChatMessage";
import { CompactionMarker } from "./CompactionMarker";
import { ConfirmDialog } from "../common/ConfirmDialog";
import { InlineError } from "../common/InlineError";
import { ModelSettings } from "../settings/ModelSettings";
import { useModal } from "../common/Modal";

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
  /** Changes when the model settings were saved elsewhere: read them again. */
  modelKey?: number;
}

/** Within this many pixels of the bottom, new text keeps the view scrolled to the end. */
const STICK_PX = 80;

export function ChatPane({ workspace, workspaceLabel, onOpenMemory, onClose, drawer = false, onOpenSettings, modelKey = 0 }: Props) {
  const [sessions, setSessions] = useState<SessionInfo[] | null>(null);
  const [chat, dispatch] = useReducer(chatReducer, EMPTY_CHAT);
  const [loading, setLoading] = useState(false);
  const [redactedNote, setRedactedNote] = useState<string | null>(null);
  const [input, setInput] = useState("");
  const [sendError, setSendError] = useState<UiError | null>(null);
  const [paneError, setPaneError] = useState<UiError | null>(null);
  const [model, setModel] = useState<Settings | null>(null);
  const [needsModel, setNeedsModel] = useState(false);
  const noModelButton = useRef<HTMLButtonElement>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleting, setDeleting] = useState(false);

  const { run, cancel } = useCommand();
  const sending = useRef(false);
  const stopRequested = useRef(false);
  const messagesRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const paneRef = useRef<HTMLElement>(null);
  const closeDrawer = useCallback(() => onClose?.(), [onClose]);
  // A dialog over the drawer (Settings, from its ⚙ or Ctrl+,): its backdrop covers the drawer
  // too, and the drawer's own dimming of the app steps aside, so nothing looks above the dialog.
  const covered = useModal(paneRef, { onClose: closeDrawer, initialFocus: inputRef, active: drawer && !!onClose });
  const openSettings = () => (onOpenSettings ? onOpenSettings() : setSettingsOpen(true));

  const sessionId = chat.session;
  const current = sessions?.find((s) => s.id === sessionId) ?? null;
  const busy = chat.pending !== null;

  const replaceSession = useCallback((s: SessionInfo) => {
    setSessions((list) => sortSessions([s, ...(list ?? []).filter((x) => x.id !== s.id)]));
  }, []);

  /** Shows a session's saved messages (a newer call drops what an older one loads). */
  const openSession = useCallback(
    async (id: string | null) => {
      cancel("transcript");
      dispatch({ type: "reset", session: id });
      setPaneError(null);
      setRenaming(null);
      if (id === null) return;
      setLoading(true);
      const answer = await run(commands.chatTranscript(workspace, id), "transcript");
      if (!answer) return;
      if (answer.ok) {
        dispatch({ type: "loaded", session: id, lines: answer.data.messages, compactions: answer.data.compactions });
        replaceSession(answer.data.session);
      } else setPaneError(answer.error);
      setLoading(false);
    },
    [run, cancel, workspace, replaceSession],
  );

  const refreshSessions = useCallback(async () => {
    const answer = await run(commands.chatSessions(workspace));
    // On failure the list stays as it was; the next action reports a lasting problem.
    if (answer?.ok) setSessions(sortSessions(answer.data));
  }, [run, workspace]);

  // Sessions of the workspace; open the most recent.
  useEffect(() => {
    void run(commands.chatSessions(workspace), "sessions").then((answer) => {
      if (!answer) return;
      if (answer.ok) {
        const sorted = sortSessions(answer.data);
        setSessions(sorted);
        void openSession(sorted[0]?.id ?? null);
      } else {
        setSessions([]);
        setPaneError(answer.error);
      }
    });
    return () => cancel("sessions");
  }, [run, cancel, workspace, openSession]);

  // Whether a model is configured (for the banner); read again when Settings saved one, and when
  // the window comes back into focus (another program — the CLI, a script over HTTP — may have set
  // one meanwhile).
  const [focusSeq, setFocusSeq] = useState(0);
  useEffect(() => {
    const onFocus = () => setFocusSeq((n) => n + 1);
    window.addEventListener("focus", onFocus);
    return () => window.removeEventListener("focus", onFocus);
  }, []);
  useEffect(() => {
    void run(commands.getModelSettings(), "model").then((answer) => {
      if (!answer?.ok) return;
      setModel(answer.data);
      if (isConfigured(answer.data)) setSendError((e) => (e?.code === "model_not_configured" ? null : e));
    });
    return () => cancel("model");
  }, [run, cancel, modelKey, focusSeq]);

  // Replies streaming, recall, tool use and extraction for this workspace.
  useEffect(
    () =>
      onChatEvent((event) => {
        if (event.workspace === workspace) dispatch({ type: "event", event });
      }),
    [workspace],
  );

  // Keep the newest text in view, unless the user scrolled up to read.
  useEffect(() => {
    const el = messagesRef.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [chat.messages]);

  const send = async () => {
    const text = input;
    if (!text.trim() || sending.current || loading) return;
    // No model: a message would make an empty "New chat" and fail. Commands
    // (`/memory`, `/remember`, `/forget`) still run; a message stays in the box, and the banner's
    // "Open settings" takes the focus.
    if (model !== null && !isConfigured(model) && !text.trim().startsWith("/")) {
      setNeedsModel(true);
      noModelButton.current?.focus();
      return;
    }
    setNeedsModel(false);
    sending.current = true;
    setSendError(null);
    setRedactedNote(null);
    try {
      let id = sessionId;
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
      atBottom.current = true;
      setInput("");
      dispatch({ type: "sent", session: id, text });
      const ignored = current?.ignore_memory ?? false;
      const answer = await run(commands.chatSend(workspace, id, text));
      if (!answer) return;
      if (answer.ok) {
        let memory: MemorySnapshot | null = null;
        if (answer.data.command?.name === "memory") {
          // The figures behind the answer, to draw it as a card; without them the text shows.
          const [stats, docs, proposals] = await Promise.all([
            run(commands.stats(workspace)),
            run(commands.list(workspace, null)),
            run(commands.inbox(workspace, null, 0, RECENT_PROPOSALS)),
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
        setInput((cur) => restoreInput(cur, text));
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

  const newChat = async () => {
    setPaneError(null);
    const answer = await run(commands.chatCreate(workspace, null));
    if (!answer) return;
    if (!answer.ok) {
      setPaneError(answer.error);
      return;
    }
    replaceSession(answer.data);
    void openSession(answer.data.id);
    inputRef.current?.focus();
  };

  const saveTitle = async () => {
    const title = renaming?.trim();
    setRenaming(null);
    if (!current || !title || title === current.title) return;
    const answer = await run(commands.chatUpdate(workspace, current.id, title, null));
    if (!answer) return;
    if (answer.ok) replaceSession(answer.data);
    else setPaneError(answer.error);
  };

  const setIgnoreMemory = async (ignore: boolean) => {
    if (!current) return;
    setPaneError(null);
    replaceSession({ ...current, ignore_memory: ignore });
    const answer = await run(commands.chatUpdate(workspace, current.id, null, ignore));
    if (!answer) return;
    if (answer.ok) replaceSession(answer.data);
    else {
      replaceSession(current);
      setPaneError(answer.error);
    }
  };

  const deleteChat = async () => {
    if (!current) return;
    setDeleting(true);
    const answer = await run(commands.chatDelete(workspace, current.id));
    if (!answer) return;
    setConfirmDelete(false);
    if (answer.ok) {
      const rest = (sessions ?? []).filter((s) => s.id !== current.id);
      setSessions(rest);
      void openSession(rest[0]?.id ?? null);
    } else setPaneError(answer.error);
    setDeleting(false);
  };

  const openMemory = useCallback((path: string) => onOpenMemory(workspace, path), [onOpenMemory, workspace]);
  const noModel = model !== null && !isConfigured(model);
  const items = useMemo(() => chatItems(chat), [chat]);

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
      <header className="chat-header">
        <div className="chat-title-row">
          <h2 className="chat-title" title={workspace}>
            Chat — memory: {workspaceLabel}
          </h2>
          <button
            type="button"
            className="icon-button"
            title="Settings: the model, and sync across machines"
            aria-label="Settings"
            data-testid="chat-settings-button"
            onClick={openSettings}
          >
            ⚙
          </button>
          {onClose && (
            <button
              type="button"
              className="icon-button"
              title="Hide chat"
              aria-label="Hide chat"
              data-testid="chat-close"
              onClick={onClose}
            >
              ×
            </button>
          )}
        </div>
        <div className="chat-session-row">
          {renaming !== null ? (
            <input
              className="grow"
              autoFocus
              value={renaming}
              aria-label="Chat title"
              data-testid="chat-rename-input"
              onChange={(e) => setRenaming(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter") {
                  e.preventDefault();
                  void saveTitle();
                } else if (e.key === "Escape") {
                  e.preventDefault();
                  setRenaming(null);
                }
              }}
              onBlur={() => setRenaming(null)}
            />
          ) : (
            <select
              className="grow"
              aria-label="Chat session"
              data-testid="chat-session-select"
              value={sessionId ?? ""}
              disabled={busy || !sessions || sessions.length === 0}
              onChange={(e) => void openSession(e.target.value || null)}
            >
              {(!sessions || sessions.length === 0) && <option value="">{sessions ? "No chats yet" : "Loading…"}</option>}
              {sessionId !== null && !current && <option value={sessionId}>…</option>}
              {sessions?.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.title}
                </option>
              ))}
            </select>
          )}
          <button type="button" data-testid="chat-new" disabled={busy} onClick={() => void newChat()}>
            New chat
          </button>
          <button
            type="button"
            data-testid="chat-rename"
            disabled={!current || renaming !== null}
            onClick={() => current && setRenaming(current.title)}
          >
            Rename
          </button>
          <button
            type="button"
            className="danger-outline"
            data-testid="chat-delete"
            disabled={!current || busy}
            onClick={() => setConfirmDelete(true)}
          >
            Delete
          </button>
        </div>
        <label className="chat-ignore" title="Recall nothing, and save nothing from this chat">
          <input
            type="checkbox"
            data-testid="chat-ignore-memory"
            checked={current?.ignore_memory ?? false}
            disabled={!current}
            onChange={(e) => void setIgnoreMemory(e.target.checked)}
          />
          Ignore memory for this chat
        </label>
      </header>

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

      <div
        className="chat-messages"
        data-testid="chat-messages"
        ref={messagesRef}
        onScroll={(e) => {
          const el = e.currentTarget;
          atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
        }}
      >
        {loading && chat.messages.length === 0 && <div className="empty">Loading…</div>}
        {!loading && chat.messages.length === 0 && (
          <div className="empty chat-empty">
            <div className="empty-title">Ask anything</div>
            <div className="muted">
              Relevant memories from {workspaceLabel} are recalled into each reply; what is worth keeping is saved
              afterwards. Type <code>/memory</code> to see what this chat uses.
            </div>
          </div>
        )}
        {items.map((it) =>
          it.kind === "message" ? (
            <ChatMessageView
              key={it.key}
              message={it.message}
              onOpenPath={openMemory}
              workspaceLabel={workspaceLabel}
              contextWindow={model?.context_window}
            />
          ) : (
            <CompactionMarker key={it.key} compaction={it.compaction} onOpenPath={openMemory} />
          ),
        )}
      </div>

      {redactedNote && (
        <p className="notice" role="status" data-testid="chat-redacted">
          {redactedNote}
        </p>
      )}

      {sendError && (
        <div className="chat-error" data-testid="chat-error">
          <InlineError error={sendError} onRetry={() => void send()} onOpenSettings={openSettings} />
        </div>
      )}

      {/^\/\S*$/.test(input) && (
        <ul className="chat-commands" aria-label="Chat commands" data-testid="chat-commands">
          {CHAT_COMMANDS.filter((c) => c.name.startsWith(input.trim())).map((c) => (
            <li key={c.name}>
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  setInput(c.takes ? `${c.name} ` : c.name);
                  inputRef.current?.focus();
                }}
              >
                <code>
                  {c.name}
                  {c.takes ? ` ${c.takes}` : ""}
                </code>
              </button>{" "}
              <span className="muted">{c.what}</span>
            </li>
          ))}
        </ul>
      )}

      <form
        className="chat-composer"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <textarea
          ref={inputRef}
          value={input}
          rows={3}
          placeholder={`Message (Enter to send, Shift+Enter for a new line)`}
          aria-label="Message"
          data-testid="chat-input"
          onChange={(e) => setInput(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void send();
            }
          }}
        />
        {busy ? (
          <button type="button" data-testid="chat-stop" onClick={() => void stop()}>
            Stop
          </button>
        ) : (
          <button type="submit" className="primary" data-testid="chat-send" disabled={!input.trim() || loading}>
            Send
          </button>
        )}
      </form>

      {settingsOpen && (
        <ModelSettings
          onClose={() => setSettingsOpen(false)}
          onSaved={(s) => {
            setModel(s);
            setSendError((e) => (e?.code === "model_not_configured" || e?.code === "model_unreachable" ? null : e));
          }}
        />
      )}
      {confirmDelete && current && (
        <ConfirmDialog
          title="Delete this chat?"
          confirmLabel={deleting ? "Deleting…" : "Delete"}
          danger
          busy={deleting}
          confirmTestId="chat-delete-confirm"
          onConfirm={() => void deleteChat()}
          onCancel={() => setConfirmDelete(false)}
        >
          <p>
            <strong>{current.title}</strong> and its messages will be deleted. Memories saved from it stay.
          </p>
        </ConfirmDialog>
      )}
    </aside>
    </>
  );
}

