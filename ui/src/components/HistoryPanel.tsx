import { useEffect, useMemo, useState } from "react";
import { commands } from "../lib/bindings";
import type { ChangeDiff, ChangeSummary } from "../lib/bindings";
import { toUiError, unwrap } from "../lib/transport";
import type { UiError } from "../lib/transport";
import { formatTime } from "../lib/format";
import { OP_LABELS, countFiles, historyRows } from "../lib/history";
import { useCommand } from "../lib/useCommand";
import { DiffView } from "./DiffView";
import { GroupDetail } from "./GroupDetail";
import { InlineError } from "./InlineError";
import { useToast } from "./Toasts";

interface Props {
  /** null: every workspace. */
  workspace: string | null;
  /** null: every memory of the workspace. */
  path: string | null;
  /** Bump to reload (e.g. after a memory_changed event). */
  refreshKey: number | string;
  wide?: boolean;
  onOpen?: (workspace: string, path: string) => void;
  /** A change or a change group was undone. */
  onUndone?: () => void;
}

/** What the right side shows: one change's diff, or a change group's files. */
type Selection = { kind: "change"; id: number } | { kind: "group"; id: number } | null;

export function HistoryPanel({ workspace, path, refreshKey, wide, onOpen, onUndone }: Props) {
  const toast = useToast();
  const { run, cancel } = useCommand();
  const [items, setItems] = useState<ChangeSummary[] | null>(null);
  const [loadError, setLoadError] = useState<UiError | null>(null);
  const [selection, setSelection] = useState<Selection>(null);
  const selected = selection?.kind === "change" ? selection.id : null;
  const selectedGroup = selection?.kind === "group" ? selection.id : null;
  const [diff, setDiff] = useState<ChangeDiff | null>(null);
  const [diffError, setDiffError] = useState<UiError | null>(null);
  const [undoError, setUndoError] = useState<UiError | null>(null);
  const [undoing, setUndoing] = useState(false);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    void run(commands.history(workspace, path, 100), "history").then((answer) => {
      if (!answer) return;
      if (answer.ok) {
        setItems(answer.data);
        setLoadError(null);
      } else setLoadError(answer.error);
    });
    return () => cancel("history");
  }, [run, cancel, workspace, path, refreshKey, reload]);

  useEffect(() => {
    if (selected === null) return;
    void run(commands.diff(selected), "diff").then((answer) => {
      if (!answer) return;
      if (answer.ok) {
        setDiff(answer.data);
        setDiffError(null);
      } else setDiffError(answer.error);
    });
    return () => cancel("diff");
  }, [run, cancel, selected, refreshKey]);

  const rows = useMemo(() => (items ? historyRows(items) : null), [items]);

  const select = (next: NonNullable<Selection>) => {
    if (next.kind === selection?.kind && next.id === selection.id) return;
    setSelection(next);
    setDiff(null);
    setDiffError(null);
    setUndoError(null);
  };

  const undo = async (id: number) => {
    setUndoing(true);
    setUndoError(null);
    try {
      unwrap(await commands.undo(id));
      toast({ message: `Change #${id} undone` });
      setReload((n) => n + 1);
      onUndone?.();
    } catch (e) {
      setUndoError(toUiError(e));
    } finally {
      setUndoing(false);
    }
  };

  const current = diff && diff.change.id === selected ? diff : null;

  return (
    <div className={`history ${wide ? "history-wide" : ""}`}>
      <div className="history-list" role="listbox" aria-label="Changes">
        {loadError && <InlineError error={loadError} />}
        {items && items.length === 0 && <div className="empty">No changes recorded yet.</div>}
        {!items && !loadError && <div className="empty">Loading…</div>}
        {rows?.map((row) => {
          if (row.kind === "group") {
            const isSelected = row.group === selectedGroup;
            const newest = row.changes[0];
            return (
              <button
                type="button"
                key={row.key}
                role="option"
                aria-selected={isSelected}
                className={`history-item history-group ${isSelected ? "selected" : ""}`}
                data-testid="history-group"
                data-group={row.group}
                title={`Change group: ${row.paths.join(", ")}`}
                onClick={() => select({ kind: "group", id: row.group })}
              >
                <span className="history-id" aria-hidden="true">
                  ⧉
                </span>
                <span className="history-op">
                  {path === null
                    ? `${row.label} · ${countFiles(row.paths.length)}`
                    : `${OP_LABELS[newest.op] ?? newest.op} · ${row.label}`}
                </span>
                <span className="source-chip source-group">group</span>
                <span className="history-time">{formatTime(row.at)}</span>
                {path === null && (
                  <span className="history-path" title={row.paths.map((p) => `${row.workspace}/${p}`).join("\n")}>
                    {workspace === null ? `${row.workspace} · ` : ""}
                    {row.paths.join(", ")}
                  </span>
                )}
              </button>
            );
          }
          const c = row.change;
          return (
            <button
              type="button"
              key={row.key}
              role="option"
              aria-selected={c.id === selected}
              className={`history-item ${c.id === selected ? "selected" : ""}`}
              data-testid="history-item"
              data-id={c.id}
              onClick={() => select({ kind: "change", id: c.id })}
            >
              <span className="history-id">#{c.id}</span>
              <span className="history-op">
                {OP_LABELS[c.op] ?? c.op}
                {c.undoes !== undefined && c.undoes !== null && <span className="muted"> (undoes #{c.undoes})</span>}
              </span>
              <span className={`source-chip source-${c.source}`}>{c.source}</span>
              <span className="history-time">{formatTime(c.at)}</span>
              {path === null && (
                <span className="history-path" title={`${c.workspace}/${c.path}`}>
                  {workspace === null ? `${c.workspace} · ` : ""}
                  {c.path}
                </span>
              )}
            </button>
          );
        })}
      </div>
      <div className="history-diff">
        {selection === null && <div className="empty">Select a change to see its diff.</div>}
        {selectedGroup !== null && (
          <GroupDetail
            key={selectedGroup}
            id={selectedGroup}
            refreshKey={`${refreshKey}/${reload}`}
            onOpen={onOpen}
            onUndone={() => {
              setReload((n) => n + 1);
              onUndone?.();
            }}
          />
        )}
        {diffError && <InlineError error={diffError} />}
        {selected !== null && !current && !diffError && <div className="empty">Loading…</div>}
        {current && (
          <>
            <div className="history-diff-header">
              <div>
                <strong>#{current.change.id}</strong> {OP_LABELS[current.change.op] ?? current.change.op}{" "}
                <code>{current.change.path}</code> by {current.change.source} at {formatTime(current.change.at)}
              </div>
              <div className="actions">
                {onOpen && current.change.op !== "delete" && (
                  <button type="button" onClick={() => onOpen(current.change.workspace, current.change.path)}>
                    Open memory
                  </button>
                )}
                <button
                  type="button"
                  data-testid="undo-button"
                  onClick={() => void undo(current.change.id)}
                  disabled={undoing || !current.undoable}
                  title={
                    current.undoable
                      ? "Restore the bytes from before this change"
                      : "Mnemo kept no copy of the text before this change"
                  }
                >
                  {undoing ? "Undoing…" : "Undo"}
                </button>
              </div>
            </div>
            {undoError && <InlineError error={undoError} />}
            {current.withheld && (
              <p className="notice" role="note" data-testid="withheld-note">
                {current.withheld}
              </p>
            )}
            <DiffView before={current.before} after={current.after} />
          </>
        )}
      </div>
    </div>
  );
}
