import { useEffect, useRef, useState } from "react";
import { commands } from "../../lib/bindings";
import type { ChangeSummary, GroupInfo, GroupUndo } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { formatTime } from "../../lib/format";
import { OP_LABELS, countFiles, groupUndoneText } from "../../lib/history";
import { useCommand } from "../../lib/useCommand";
import { useDiff, useRefetchOn } from "../../lib/queries";
import { DiffView } from "./DiffView";
import { InlineError } from "../common/InlineError";
import { useToast } from "../common/Toasts";

interface GroupProps {
  id: number;
  /** Bump to reload the group and its diffs. */
  refreshKey: string;
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
  refreshKey,
  onOpen,
  onUndone,
  undoLabel = "Undo group",
  undoTestId = "undo-group-button",
  canUndo = true,
}: GroupProps) {
  const toast = useToast();
  const { run, cancel } = useCommand();
  const [group, setGroup] = useState<GroupInfo | null>(null);
  const [loadError, setLoadError] = useState<UiError | null>(null);
  const [undoError, setUndoError] = useState<UiError | null>(null);
  const [undoing, setUndoing] = useState(false);
  const [reload, setReload] = useState(0);
  // After Undo or Redo the group is read again and its button gives way to the other: the focus
  // goes to that one, never to the page.
  const refocus = useRef(false);
  const actionsRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!refocus.current || !group) return;
    refocus.current = false;
    actionsRef.current?.querySelector<HTMLButtonElement>("button:not([disabled])")?.focus();
  }, [group]);

  useEffect(() => {
    void run(commands.changeGroup(id), "group").then((answer) => {
      if (!answer) return;
      if (answer.ok) {
        setGroup(answer.data);
        setLoadError(null);
      } else setLoadError(answer.error);
    });
    return () => cancel("group");
  }, [run, cancel, id, refreshKey, reload]);

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
    // Until the reload says "undone", offer nothing rather than the old button.
    setGroup(null);
    refocus.current = true;
    setReload((n) => n + 1);
    onUndone(answer.data);
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
        <GroupFile key={c.id} change={c} refreshKey={`${refreshKey}/${reload}`} onOpen={undoneBy === null ? onOpen : undefined} />
      ))}
    </div>
  );
}

/** One change of a group, with its diff. */
function GroupFile({
  change,
  refreshKey,
  onOpen,
}: {
  change: ChangeSummary;
  refreshKey: string;
  onOpen?: (workspace: string, path: string) => void;
}) {
  // The change's diff, shared with the history's (and read again with it on memory changes).
  const read = useDiff(change.id);
  useRefetchOn(refreshKey, read.refetch);
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
