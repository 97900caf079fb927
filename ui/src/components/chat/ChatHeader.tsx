import { useState } from "react";
import { ConfirmDialog } from "../common/ConfirmDialog";
import type { ChatSession } from "./useChatSession";

interface Props {
  workspace: string;
  workspaceLabel: string;
  session: ChatSession;
  onOpenSettings: () => void;
  /** Hide the pane (absent: no close button). */
  onClose?: () => void;
  /** A new chat was opened (the composer takes the focus). */
  onNewChat: () => void;
}

/** The chat pane's head: its title, the session chooser and the session's own switches. */
export function ChatHeader({ workspace, workspaceLabel, session, onOpenSettings, onClose, onNewChat }: Props) {
  const { sessions, current, busy, chat, openSession } = session;
  const sessionId = chat.session;
  // The title typed for one session: opening another leaves it behind.
  const [renaming, setRenaming] = useState<{ id: string; text: string } | null>(null);
  const title = renaming && renaming.id === sessionId ? renaming.text : null;
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleting, setDeleting] = useState(false);

  const saveTitle = () => {
    const typed = title?.trim() ?? "";
    setRenaming(null);
    void session.rename(typed);
  };

  const deleteChat = async () => {
    setDeleting(true);
    if (!(await session.deleteCurrent())) return;
    setConfirmDelete(false);
    setDeleting(false);
  };

  return (
    <>
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
          onClick={onOpenSettings}
        >
          ⚙
        </button>
        {onClose && (
          <button type="button" className="icon-button" title="Hide chat" aria-label="Hide chat" data-testid="chat-close" onClick={onClose}>
            ×
          </button>
        )}
      </div>
      <div className="chat-session-row">
        {title !== null && sessionId !== null ? (
          <input
            className="grow"
            autoFocus
            value={title}
            aria-label="Chat title"
            data-testid="chat-rename-input"
            onChange={(e) => setRenaming({ id: sessionId, text: e.target.value })}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                saveTitle();
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
        <button
          type="button"
          data-testid="chat-new"
          disabled={busy}
          onClick={() => void session.newChat().then((opened) => opened && onNewChat())}
        >
          New chat
        </button>
        <button
          type="button"
          data-testid="chat-rename"
          disabled={!current || title !== null}
          onClick={() => current && setRenaming({ id: current.id, text: current.title })}
        >
          Rename
        </button>
        <button type="button" className="danger-outline" data-testid="chat-delete" disabled={!current || busy} onClick={() => setConfirmDelete(true)}>
          Delete
        </button>
      </div>
      <label className="chat-ignore" title="Recall nothing, and save nothing from this chat">
        <input
          type="checkbox"
          data-testid="chat-ignore-memory"
          checked={current?.ignore_memory ?? false}
          disabled={!current}
          onChange={(e) => void session.setIgnoreMemory(e.target.checked)}
        />
        Ignore memory for this chat
      </label>
    </header>
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
    </>
  );
}
