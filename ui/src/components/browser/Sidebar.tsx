import { useState } from "react";
import type { ReactNode } from "react";
import type { Status, WorkspaceInfo } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import type { View } from "../../lib/browser";
import { KIND_LABELS, KIND_ORDER } from "../../lib/format";
import { printable } from "../../lib/printable";
import { syncBadge } from "../../lib/sync";
import { waitingCount, waitingSentence } from "../../lib/inbox";
import type { Badge } from "../../lib/sync";
import { useCommand } from "../../lib/useCommand";
import { useSyncStatus } from "../../lib/useSyncStatus";
import { InlineError } from "../common/InlineError";

interface Props {
  workspaces: WorkspaceInfo[];
  status: Status | null;
  selected: string | null;
  view: View;
  onSelect: (id: string | null) => void;
  onView: (view: View) => void;
  /** Resolves to an error to show, or null on success. */
  onAddFolder: (path: string) => Promise<UiError | null>;
  /** Whether the chat pane is shown (absent: no chat toggle). */
  chatOpen?: boolean;
  onToggleChat?: () => void;
  /** Shown above the status line (the memory-task bar). */
  footer?: ReactNode;
  /** Open Settings (the footer's button; absent: no button). */
  onOpenSettings?: () => void;
  /** "⌘" or "Ctrl+", for the shortcut shown on the Settings button. */
  settingsKey?: string;
  /** What waits in the selected workspace's inbox: proposals and sync conflicts (`null`: not known). */
  inbox?: { workspace: string; pending: number; conflicts?: number } | null;
  onOpenInbox?: () => void;
}

/** The row's hover text: where the workspace comes from in full, then its counts. */
export function workspaceTitle(w: WorkspaceInfo): string {
  const { topics, logs, invalid } = w.counts;
  // Folder names and paths may hold bidi overrides or control characters: shown escaped.
  const lines = [printable(w.origin || w.memory_root)];
  if (w.memory_root && w.memory_root !== w.origin) lines.push(`memory: ${printable(w.memory_root)}`);
  lines.push(`${topics} memories · ${logs} daily logs · ${invalid} invalid`);
  return lines.join("\n");
}

export function Sidebar({
  workspaces,
  status,
  selected,
  view,
  onSelect,
  onView,
  onAddFolder,
  chatOpen,
  onToggleChat,
  footer,
  onOpenSettings,
  settingsKey = "Ctrl+",
  inbox = null,
  onOpenInbox,
}: Props) {
  const [adding, setAdding] = useState(false);
  const [path, setPath] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<UiError | null>(null);
  const { alive } = useCommand();
  // Sync badges: read once, every minute and after a sync here; a failed read shows none.
  const sync = useSyncStatus();
  const waiting = { pending: inbox?.pending ?? 0, conflicts: inbox?.conflicts ?? 0 };

  const total = workspaces.reduce((n, w) => n + w.counts.topics, 0);

  const submit = async () => {
    const p = path.trim();
    if (!p) return;
    setBusy(true);
    setError(null);
    const err = await onAddFolder(p);
    if (!alive()) return;
    setBusy(false);
    if (err) setError(err);
    else {
      setAdding(false);
      setPath("");
    }
  };

  return (
    <nav className="sidebar" aria-label="Workspaces">
      <div className="sidebar-scroll">
        <div className="view-switch segmented" role="group" aria-label="View">
          <button type="button" aria-pressed={view === "memories"} onClick={() => onView("memories")}>
            Memories
          </button>
          <button
            type="button"
            aria-pressed={view === "history"}
            data-testid="history-view"
            onClick={() => onView("history")}
          >
            History
          </button>
          <button type="button" aria-pressed={view === "status"} data-testid="status-view" onClick={() => onView("status")}>
            Status
          </button>
        </div>
        {onToggleChat && (
          <button
            type="button"
            className="chat-toggle"
            aria-pressed={!!chatOpen}
            data-testid="chat-toggle"
            title={chatOpen ? "Hide the chat pane" : "Show the chat pane"}
            onClick={onToggleChat}
          >
            {chatOpen ? "Hide chat" : "Chat"}
          </button>
        )}

        <button
          type="button"
          className={`ws-item ${selected === null ? "selected" : ""}`}
          data-testid="workspace-all"
          aria-current={selected === null}
          onClick={() => onSelect(null)}
        >
          <span className="ws-label">All workspaces</span>
          <span className="ws-count">{total}</span>
        </button>

        {KIND_ORDER.map((kind) => {
          const items = workspaces.filter((w) => w.kind === kind);
          if (items.length === 0) return null;
          return (
            <div key={kind} className="ws-group">
              <div className="ws-group-title">{KIND_LABELS[kind]}</div>
              {items.map((w) => [
                <button
                  type="button"
                  key={w.id}
                  className={`ws-item ${selected === w.id ? "selected" : ""}`}
                  data-testid="workspace-item"
                  data-id={w.id}
                  aria-current={selected === w.id}
                  title={workspaceTitle(w)}
                  onClick={() => onSelect(w.id)}
                >
                  <span className="ws-label">{printable(w.label)}</span>
                  {w.counts.invalid > 0 && (
                    <span className="ws-invalid" aria-label={`${w.counts.invalid} invalid`}>
                      ⚠{w.counts.invalid}
                    </span>
                  )}
                  <SyncBadge badge={syncBadge(sync, w.id)} />
                  <span className="ws-count">{w.counts.topics}</span>
                </button>,
                inbox && inbox.workspace === w.id && waitingCount(waiting) > 0 && onOpenInbox && (
                  <button
                    type="button"
                    key={`${w.id}-inbox`}
                    className="ws-inbox"
                    data-testid="inbox-badge"
                    data-pending={inbox.pending}
                    data-conflicts={waiting.conflicts}
                    aria-pressed={view === "inbox"}
                    title={`${waitingSentence(waiting)} ${waiting.conflicts > 0 ? "Open the inbox to decide." : "Open the inbox to accept or reject."}`}
                    onClick={onOpenInbox}
                  >
                    Inbox: {waitingCount(waiting).toLocaleString("en-US")} to review
                  </button>
                ),
              ])}
            </div>
          );
        })}

        {adding ? (
          <form
            className="add-folder"
            onSubmit={(e) => {
              e.preventDefault();
              void submit();
            }}
          >
            <input
              autoFocus
              value={path}
              onChange={(e) => setPath(e.target.value)}
              placeholder="/path/to/folder"
              aria-label="Folder path"
              data-testid="add-folder-input"
              spellCheck={false}
              onKeyDown={(e) => {
                if (e.key === "Escape") {
                  setAdding(false);
                  setError(null);
                }
              }}
            />
            <div className="add-folder-actions">
              <button type="submit" className="primary" disabled={busy || !path.trim()}>
                Add
              </button>
              <button
                type="button"
                onClick={() => {
                  setAdding(false);
                  setError(null);
                }}
              >
                Cancel
              </button>
            </div>
            {error && <InlineError error={error} />}
          </form>
        ) : (
          <button type="button" className="add-folder-button" data-testid="add-folder-button" onClick={() => setAdding(true)}>
            + Add folder…
          </button>
        )}
      </div>
      {footer}
      <footer className="status-line">
        {onOpenSettings && (
          <button
            type="button"
            className="settings-button"
            data-testid="settings-button"
            aria-keyshortcuts={settingsKey === "⌘" ? "Meta+Comma" : "Control+Comma"}
            title={`The model, and sync across machines (${settingsKey},)`}
            onClick={onOpenSettings}
          >
            <span aria-hidden="true">⚙</span> Settings
          </button>
        )}
        <span className="status-where" title={status ? [status.home, ...status.warnings].join("\n") : undefined}>
          {status ? (
            <>
              {status.warnings.length > 0 && <span className="ws-invalid">⚠{status.warnings.length} </span>}
              <span className="status-home">{status.home}</span>
            </>
          ) : (
            <span className="muted">Connecting…</span>
          )}
        </span>
      </footer>
    </nav>
  );
}

/** A workspace row's sync badge (nothing when all is synced); its tooltip is a sentence. */
function SyncBadge({ badge }: { badge: Badge }) {
  if (badge.kind === "none") return null;
  return (
    <span className="ws-sync" role="img" aria-label={badge.title} title={badge.title} data-testid="sync-badge" data-kind={badge.kind}>
      {badge.text}
    </span>
  );
}
