import { useEffect, useRef, useState } from "react";
import { commands } from "../../lib/bindings";
import type { ChangeSummary, GroupUndo } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { formatTime } from "../../lib/format";
import { OP_LABELS, countFiles, groupUndoneText } from "../../lib/history";
import { useCommand } from "../../lib/useCommand";
import { groupUndone, useChangeGroup, useDiff } from "../../lib/queries";
import { DiffView } from "./DiffView";
import { InlineError } from "../common/InlineError";
import { useToast } from "../common/Toasts";

interface GroupProps {
  id: number;
  onOpen?: (workspace: string, path: string) => void;
  /** The group was undone (every file restored). */
  onUndone: (undo: GroupUndo) => void;
  /** The undo button's words ("Undo group"; the dream report says "Undo dream"). */
  undoLabel?: string;
  undoTestId?: string;
  /** Offer undo (false: e.g. once the report has undone it). */
  canUndo?: boolean;
}

/**
 * A change group (the history list's group rows, the dream report): what made it, its files each
 * with its diff, and undo for all of them — errors such as `conflict` shown in place.
 */
export function GroupDetail({
  id,
  onOpen,
  onUndone,
  undoLabel = "Undo group",
  undoTestId = "undo-group-button",
  canUndo = true,
}: GroupProps) {
  const toast = useToast();
  const { run, alive } = useCommand();
  // The group as the cache has it: read again on memory changes (an undo elsewhere) and after Undo here.
  const read = useChangeGroup(id);
  const loadError = read.error;
  // After Undo or Redo, until the group is read again: nothing offered rather than the old button.
  const [rereading, setRereading] = useState(false);
  const group = rereading ? null : (read.data ?? null);
  const [undoError, setUndoError] = useState<UiError | null>(null);
  const [undoing, setUndoing] = useState(false);
  // After Undo or Redo the group is read again and its button gives way to the other: the focus
  // goes to that one, never to the page.
  const refocus = useRef(false);
  const actionsRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!refocus.current || !group) return;
    refocus.current = false;
    actionsRef.current?.querySelector<HTMLButtonElement>("button:not([disabled])")?.focus();
  }, [group]);

  /** Undo this group, or — once it is undone — redo it (undo the group that undid it). */
  const undo = async (target: number, what: "undo" | "redo") => {
    setUndoing(true);
    setUndoError(null);
    const answer = await run(commands.undoGroup(target), "undo");
    if (!answer) return;
    setUndoing(false);
    if (!answer.ok) {
      setUndoError(answer.error);
      return;
    }
    const files = countFiles(answer.data.paths.length);
    const done = what === "redo" ? `Brought back: ${files}` : `Undone: ${files} restored`;
    toast({ message: answer.data.note ? `${done}. ${answer.data.note}` : done });
    // Until the group read again says "undone", offer nothing rather than the old button.
    setRereading(true);
    refocus.current = true;
    onUndone(answer.data);
    if (read.data) await groupUndone(read.data);
    if (alive()) setRereading(false);
  };
  const undoneBy = group?.undone_by ?? null;

  if (loadError) return <InlineError error={loadError} />;
  if (!group) return <div className="empty">Loading…</div>;
  const files = new Set(group.changes.map((c) => c.path)).size;

  return (
    <div className="group-detail" data-testid="group-detail" data-group={group.id}>
      <div className="history-diff-header">
        <div>
          <strong>{group.label}</strong>{" "}
          <span className="muted">
            {group.kind} · {countFiles(files)} · {formatTime(group.at)}
            {group.undoes !== null && <> · undoes change group {group.undoes}</>}
            {undoneBy !== null && (
              <span className="undone-tag" data-testid="group-undone">
                {" "}
                · {groupUndoneText(undoneBy)}
              </span>
            )}
          </span>
        </div>
        {canUndo && undoneBy === null && (
          <div className="actions" ref={actionsRef}>
            <button
              type="button"
              data-testid={undoTestId}
              onClick={() => void undo(group.id, "undo")}
              disabled={undoing}
              title="Restore every file of this group to before it, or none if one changed since"
            >
              {undoing ? "Undoing…" : undoLabel}
            </button>
          </div>
        )}
        {undoneBy !== null && (
          <div className="actions" ref={actionsRef}>
            <button
              type="button"
              data-testid="redo-group-button"
              onClick={() => void undo(undoneBy, "redo")}
              disabled={undoing}
              title="Bring these changes back"
            >
              {undoing ? "Redoing…" : "Redo"}
            </button>
          </div>
        )}
      </div>
      {group.kind === "sync" && canUndo && undoneBy === null && (
        <p className="muted" data-testid="sync-undo-note">
          These changes came from another machine through sync. Undoing them here is a change like any other: the
          next sync carries it to every machine that syncs, the one that made them included.
        </p>
      )}
      {undoError && <InlineError error={undoError} />}
      {group.changes.map((c) => (
        <GroupFile key={c.id} change={c} onOpen={undoneBy === null ? onOpen : undefined} />
      ))}
    </div>
  );
}

/** One change of a group, with its diff. */
function GroupFile({ change, onOpen }: { change: ChangeSummary; onOpen?: (workspace: string, path: string) => void }) {
  // The change's diff, shared with the history's (and read again with it on memory changes).
  const read = useDiff(change.id);
  const diff = read.data ?? null;
  const error = read.error;

  return (
    <section className="group-file" aria-label={change.path} data-testid="group-file" data-path={change.path}>
      <div className="group-file-header">
        <span className="history-op">{OP_LABELS[change.op] ?? change.op}</span> <code>{change.path}</code>{" "}
        <span className="muted">#{change.id}</span>
        {onOpen && change.op !== "delete" && (
          <button type="button" className="link-button" onClick={() => onOpen(change.workspace, change.path)}>
            Open memory
          </button>
        )}
      </div>
      {error && <InlineError error={error} />}
      {!diff && !error && <div className="empty">Loading…</div>}
      {diff && <DiffView before={diff.before} after={diff.after} />}
    </section>
  );
}
