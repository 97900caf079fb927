import { useRef } from "react";
import type { TaskInfo } from "../../lib/bindings";
import { useRoving } from "../../lib/useRoving";
import { waitingCount, waitingSentence } from "../../lib/inbox";
import { RememberBox } from "../jobs/RememberBox";
import { ReviewOffer } from "../inbox/ReviewOffer";

interface Props {
  workspace: string;
  label: string;
  /** The shared task list's tasks (the Remember box follows its task there). */
  tasks: TaskInfo[];
  rememberOpen: boolean;
  onToggleRemember: () => void;
  onCloseRemember: () => void;
  onQueued: () => void;
  onForget: () => void;
  /** Import…: memories or past conversations from other tools, into this workspace. */
  onImport: () => void;
  /** Export…: this workspace or the whole home to a zip. */
  onExport: () => void;
  onStatus: () => void;
  onInbox: () => void;
  /** Open Settings (Remember… offers it when no model is connected). */
  onOpenSettings?: () => void;
  /** What waits in the workspace's inbox: proposals and sync conflicts (`null`: not known). */
  waiting: { pending: number; conflicts: number } | null;
  onOpenMemory: (workspace: string, path: string) => void;
}

/**
 * The selected workspace's memory tools under its bar: Remember…, Forget…, Status, Import…,
 * Export… and the Inbox (with how many proposals and sync conflicts wait), the Remember box, and
 * the one-time offer of review mode.
 */
export function WorkspaceTools({
  workspace,
  label,
  tasks,
  rememberOpen,
  onToggleRemember,
  onCloseRemember,
  onQueued,
  onForget,
  onImport,
  onExport,
  onStatus,
  onInbox,
  onOpenSettings,
  waiting: inbox,
  onOpenMemory,
}: Props) {
  const waiting = waitingCount(inbox);
  const sentence = waitingSentence(inbox);
  // One Tab stop, ←/→ inside: the editor is a few Tabs away from the search box.
  const toolsRef = useRef<HTMLDivElement>(null);
  useRoving(toolsRef, { items: "button", orientation: "horizontal" });
  return (
    <>
      <div className="ws-tools" role="toolbar" aria-label="Workspace memory" ref={toolsRef}>
        <button
          type="button"
          data-testid="remember-button"
          aria-expanded={rememberOpen}
          title="Tell the memory agent something to remember in this workspace"
          onClick={onToggleRemember}
        >
          Remember…
        </button>
        <button type="button" data-testid="forget-button" title="Find memories to forget, review them, then forget them" onClick={onForget}>
          Forget…
        </button>
        <button
          type="button"
          data-testid="status-button"
          title="Automatic memory, health, recent activity and tasks of this workspace"
          onClick={onStatus}
        >
          Status
        </button>
        <button
          type="button"
          data-testid="import-button"
          aria-haspopup="dialog"
          title="Bring in memories or past conversations from other assistants and memory tools"
          onClick={onImport}
        >
          Import…
        </button>
        <button type="button" data-testid="export-button" aria-haspopup="dialog" title="Save this workspace or every workspace to a zip" onClick={onExport}>
          Export…
        </button>
        <button
          type="button"
          data-testid="inbox-button"
          data-pending={inbox?.pending ?? 0}
          data-conflicts={inbox?.conflicts ?? 0}
          title={`Proposals of memory jobs and assistants to accept or reject, and sync conflicts to settle. ${sentence}`}
          onClick={onInbox}
        >
          Inbox
          {waiting > 0 && (
            <>
              {" "}
              <span className="inbox-count-chip">{waiting > 999 ? "999+" : waiting}</span>
            </>
          )}
        </button>
      </div>
      <ReviewOffer key={`offer-${workspace}`} workspace={workspace} label={label} />
      {rememberOpen && (
        <RememberBox
          key={`remember-${workspace}`}
          workspace={workspace}
          workspaceLabel={label}
          tasks={tasks}
          onQueued={onQueued}
          onOpenMemory={onOpenMemory}
          onClose={onCloseRemember}
          onOpenInbox={onInbox}
          onOpenSettings={onOpenSettings}
        />
      )}
    </>
  );
}
