import { useEffect, useMemo, useRef, useState } from "react";
import { commands } from "../../lib/bindings";
import type { ChangeSummary } from "../../lib/bindings";
import { toUiError, unwrap } from "../../lib/transport";
import type { UiError } from "../../lib/transport";
import { formatTime } from "../../lib/format";
import { printable } from "../../lib/printable";
import { OP_LABELS, actorOf, changesById, countFiles, frontmatterName, groupUndoneBy, groupWords, historyName, historyRows, recordTitle, undoNote, undoneText } from "../../lib/history";
import { readOnce, reads, useDiff, useHistory, useMemoryList } from "../../lib/queries";
import { invalidateMemoryReads } from "../../lib/changeBridge";
import { useRoving } from "../../lib/useRoving";
import { DiffView } from "./DiffView";
import { GroupDetail } from "./GroupDetail";
import { InlineError } from "../common/InlineError";
import { useToast } from "../common/Toasts";

interface Props {
  /** null: every workspace. */
  workspace: string | null;
  /** null: every memory of the workspace. */
  path: string | null;
  wide?: boolean;
  onOpen?: (workspace: string, path: string) => void;
  /** A change or a change group was undone. */
  onUndone?: () => void;
}

/** What the right side shows: one change's diff, or a change group's files. */
type Selection = { kind: "change"; id: number } | { kind: "group"; id: number } | null;

/** How many deleted memories' names are read for the history list (one `diff` each). */
const DELETED_NAMES_READ = 20;

export function HistoryPanel({ workspace, path, wide, onOpen, onUndone }: Props) {
  const toast = useToast();
  const historyRead = useHistory(workspace, path, 100);
  const items = historyRead.data ?? null;
  const loadError = historyRead.error;
  const [selection, setSelection] = useState<Selection>(null);
  const selected = selection?.kind === "change" ? selection.id : null;
  const selectedGroup = selection?.kind === "group" ? selection.id : null;
  const diffRead = useDiff(selected);
  const diff = diffRead.data ?? null;
  const diffError = diffRead.error;
  const [undoError, setUndoError] = useState<UiError | null>(null);
  const [undoing, setUndoing] = useState(false);
  /** Memory names by `workspace/path` (rows lead with the name; a deleted one shows its file). */
  const docs = useMemoryList(workspace, path === null).data;
  const names = useMemo(() => new Map(docs?.map((d) => [`${d.workspace}/${d.path}`, d.name])), [docs]);
  /** The names deleted memories had (read from their deletion's "before"), by `workspace/path`. */
  const [deletedNames, setDeletedNames] = useState<ReadonlyMap<string, string>>(new Map());
  const nameOf = (ws: string, p: string) => historyName(p, names.get(`${ws}/${p}`), deletedNames.get(`${ws}/${p}`));

  // A deleted memory is titled by the name it had, read from what its deletion removed:
  // the newest deletion of each file the list no longer holds (a few, only in the whole history).
  const deletions = useMemo(() => {
    if (path !== null || !items) return [];
    const seen = new Set<string>();
    const out: ChangeSummary[] = [];
    for (const c of items) {
      const key = `${c.workspace}/${c.path}`;
      if (c.op !== "delete" || seen.has(key) || names.has(key) || recordTitle(c.path) !== null) continue;
      seen.add(key);
      out.push(c);
    }
    return out.slice(0, DELETED_NAMES_READ);
  }, [path, items, names]);
  const deletionKey = deletions.map((c) => c.id).join(",");
  useEffect(() => {
    if (deletions.length === 0) return;
    let alive = true;
    void Promise.all(deletions.map((c) => readOnce(reads.diff(c.id)))).then((answers) => {
      if (!alive) return;
      const found = new Map<string, string>();
      answers.forEach((a, i) => {
        const name = a && a.status === "ok" ? frontmatterName(a.data.before) : null;
        if (name) found.set(`${deletions[i].workspace}/${deletions[i].path}`, name);
      });
      setDeletedNames(found);
    });
    return () => {
      alive = false;
    };
    // Read again only when the deletions listed change.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [deletionKey]);

  const rows = useMemo(() => (items ? historyRows(items) : null), [items]);
  const byId = useMemo(() => changesById(items ?? []), [items]);

  // The list is one Tab stop: ↑/↓ move through the changes and show each (selection follows focus).
  const listRef = useRef<HTMLDivElement>(null);
  useRoving(listRef, { items: '[role="option"]', orientation: "vertical", preferred: '[aria-selected="true"]', activate: true });

  // After Undo or Redo its button gives way to the other: the focus goes to that one, not to the page.
  const actionsRef = useRef<HTMLDivElement>(null);
  const refocus = useRef(false);

  const select = (next: NonNullable<Selection>) => {
    if (next.kind === selection?.kind && next.id === selection.id) return;
    setSelection(next);
    setUndoError(null);
  };

  const undo = async (id: number, what: "undo" | "redo" = "undo") => {
    setUndoing(true);
    setUndoError(null);
    try {
      unwrap(await commands.undo(id));
      toast({ message: what === "redo" ? "Change brought back" : `Change #${id} undone` });
      refocus.current = true;
      void invalidateMemoryReads();
      onUndone?.();
    } catch (e) {
      setUndoError(toUiError(e));
    } finally {
      setUndoing(false);
    }
  };

  const current = diff && diff.change.id === selected ? diff : null;
  // The selected change as the list has it now (its diff's copy is read before the undo).
  const currentUndoneBy = current ? (byId.get(current.change.id)?.undone_by ?? current.change.undone_by) : null;

  useEffect(() => {
    if (!refocus.current || !current || undoing) return;
    const button = actionsRef.current?.querySelector<HTMLButtonElement>('[data-testid="redo-button"], [data-testid="undo-button"]');
    if (button && !button.disabled) {
      refocus.current = false;
      button.focus();
    }
  }, [current, undoing, currentUndoneBy]);

  return (
    <div className={`history ${wide ? "history-wide" : ""}`}>
      <div className="history-list" role={rows && rows.length > 0 ? "listbox" : undefined} aria-label="Changes" ref={listRef}>
        {loadError && <InlineError error={loadError} />}
        {items && items.length === 0 && <div className="empty">No changes recorded yet.</div>}
        {!items && !loadError && <div className="empty">Loading…</div>}
        {rows?.map((row) => {
          if (row.kind === "group") {
            const isSelected = row.group === selectedGroup;
            const newest = row.changes[0];
            const undoneBy = groupUndoneBy(row.changes);
            return (
              <button
                type="button"
                key={row.key}
                role="option"
                aria-selected={isSelected}
                className={`history-item history-group ${path === null ? "named" : ""} ${isSelected ? "selected" : ""} ${undoneBy !== null ? "undone" : ""}`}
                data-testid="history-group"
                data-group={row.group}
                title={printable(`Change group: ${row.paths.join(", ")}`)}
                onClick={() => select({ kind: "group", id: row.group })}
              >
                {path === null && (
                  <span className="history-name">{printable([...new Set(row.paths.map((p) => nameOf(row.workspace, p)))].join(", "))}</span>
                )}
                <span className="history-id" aria-hidden="true">
                  <GroupIcon />
                </span>
                <span className="history-op">
                  {path === null
                    ? row.label === "undo" || row.label === "redo"
                      ? `${groupWords(row.label)} · ${countFiles(row.paths.length)}`
                      : `${countFiles(row.paths.length)} changed together`
                    : `${OP_LABELS[newest.op] ?? newest.op} · ${row.label === "undo" || row.label === "redo" ? groupWords(row.label) : "with its group"}`}
                  {undoneBy !== null && <span className="undone-tag"> · undone</span>}
                </span>
                <span className="source-chip actor-chip source-group" title="Several files changed by one job">
                  {actorOf(newest.source).label}
                </span>
                <span className="history-time">{formatTime(row.at)}</span>
                {path === null && (
                  <span className="history-path" title={row.paths.map((p) => printable(`${row.workspace}/${p}`)).join("\n")}>
                    {workspace === null ? `${printable(row.workspace)} · ` : ""}
                    {row.paths.map(printable).join(", ")}
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
              className={`history-item ${path === null ? "named" : ""} ${c.id === selected ? "selected" : ""} ${c.undone_by !== null ? "undone" : ""}`}
              data-testid="history-item"
              data-id={c.id}
              onClick={() => select({ kind: "change", id: c.id })}
            >
              {path === null && <span className="history-name">{printable(nameOf(c.workspace, c.path))}</span>}
              <span className="history-id">#{c.id}</span>
              <span className="history-op">
                {OP_LABELS[c.op] ?? c.op}
                {undoNote(c, byId) && (
                  <span className="muted" data-testid="undo-note">
                    {" "}
                    ({undoNote(c, byId)})
                  </span>
                )}
                {c.undone_by !== null && (
                  <span className="undone-tag" data-testid="undone-tag">
                    {" "}
                    · {undoneText(c.undone_by, byId)}
                  </span>
                )}
              </span>
              <span className={`source-chip actor-chip source-${c.source}`} title={`Changed by: ${actorOf(c.source).label}`}>
                <span aria-hidden="true">{actorOf(c.source).icon}</span> {actorOf(c.source).label}
              </span>
              <span className="history-time">{formatTime(c.at)}</span>
              {path === null && (
                <span className="history-path" title={printable(`${c.workspace}/${c.path}`)}>
                  {workspace === null ? `${printable(c.workspace)} · ` : ""}
                  {printable(c.path)}
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
            onOpen={onOpen}
            onUndone={() => {
              void invalidateMemoryReads();
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
                <code>{printable(current.change.path)}</code> by {actorOf(current.change.source).label.toLowerCase()} at{" "}
                {formatTime(current.change.at)}
                {currentUndoneBy !== null && <span className="undone-tag"> · {undoneText(currentUndoneBy, byId)}</span>}
              </div>
              <div className="actions" ref={actionsRef}>
                {onOpen && current.change.op !== "delete" && currentUndoneBy === null && (
                  <button type="button" onClick={() => onOpen(current.change.workspace, current.change.path)}>
                    Open memory
                  </button>
                )}
                {currentUndoneBy !== null ? (
                  <button
                    type="button"
                    data-testid="redo-button"
                    onClick={() => void undo(currentUndoneBy, "redo")}
                    disabled={undoing}
                    title="Bring this change back"
                  >
                    {undoing ? "Redoing…" : "Redo"}
                  </button>
                ) : (
                  <button
                    type="button"
                    data-testid="undo-button"
                    onClick={() => void undo(current.change.id)}
                    disabled={undoing || !current.undoable}
                    title={
                      current.undoable
                        ? "Restore the file as it was before this change"
                        : "Mnemo kept no copy of the text before this change"
                    }
                  >
                    {undoing ? "Undoing…" : "Undo"}
                  </button>
                )}
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

/** Stacked sheets: a change group (an SVG, so it never falls back to an empty box). */
function GroupIcon() {
  return (
    <svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true" focusable="false">
      <rect x="3" y="1" width="8" height="8" rx="1" fill="none" stroke="currentColor" />
      <rect x="1" y="3" width="8" height="8" rx="1" fill="var(--bg, #fff)" stroke="currentColor" />
    </svg>
  );
}
