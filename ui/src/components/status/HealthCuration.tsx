import { useState } from "react";
import { commands } from "../../lib/bindings";
import type { MemoryStats } from "../../lib/bindings";
import { toUiError } from "../../lib/transport";
import type { UiError } from "../../lib/transport";
import { archiveAllText, archiveAllTitle, archiveUndoneToast, archivedToast, partlyArchived, restoredToast } from "../../lib/archive";
import { explain } from "../../lib/errors";
import { useCommand } from "../../lib/useCommand";
import { ConfirmDialog } from "../common/ConfirmDialog";
import { InlineError } from "../common/InlineError";
import { useToast } from "../common/Toasts";

interface Props {
  stats: Pick<MemoryStats, "workspace" | "stale" | "expensive" | "archived">;
  onOpenMemory: (workspace: string, path: string) => void;
  /** Memories were archived or restored (or that was undone): read the figures again. */
  onChanged: () => void;
}

/** Archived memories listed before "Show all". */
const ARCHIVED_SHOWN = 20;

/**
 * Memory health's pruning by use: memories not recalled in 90 days, each with Archive
 * (and Archive all, after a confirmation); the most expensive ones to open and trim; and the
 * archived ones, each with Restore. Every archive and restore says so in a toast with Undo.
 */
export function HealthCuration({ stats, onOpenMemory, onChanged }: Props) {
  const { run } = useCommand();
  const toast = useToast();
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<{ where: "stale" | "archived"; text: string | null; error: UiError } | null>(null);
  const [confirmAll, setConfirmAll] = useState(false);
  const [allBusy, setAllBusy] = useState(false);
  const [showAll, setShowAll] = useState(false);
  const ws = stats.workspace;

  const mark = (paths: readonly string[], on: boolean) =>
    setBusy((b) => {
      const next = new Set(b);
      for (const p of paths) {
        if (on) next.add(p);
        else next.delete(p);
      }
      return next;
    });

  /** Undo of archive / restore writes, from a toast (which outlives this view: no `run`). */
  const undo = async (ids: readonly number[], archived: boolean) => {
    try {
      for (const id of [...ids].reverse()) {
        const r = await commands.undo(id);
        if (r.status === "error") {
          toast({ kind: "error", message: explain(r.error).sentence });
          onChanged();
          return;
        }
      }
      toast({ message: archiveUndoneToast(archived) });
    } catch (e) {
      toast({ kind: "error", message: explain(toUiError(e)).sentence });
    }
    onChanged();
  };

  const done = (paths: readonly string[], ids: readonly number[], archived: boolean) => {
    toast({
      message: archived ? archivedToast(paths) : restoredToast(paths),
      timeout: 10_000,
      action: ids.length > 0 ? { label: "Undo", run: () => void undo(ids, !archived) } : undefined,
    });
    onChanged();
  };

  /** Archive (or restore) one memory. */
  const setOne = async (path: string, archived: boolean) => {
    setError(null);
    mark([path], true);
    const answer = await run(commands.setArchived(ws, path, archived));
    if (!answer) return;
    mark([path], false);
    if (!answer.ok) {
      setError({ where: archived ? "stale" : "archived", text: null, error: answer.error });
      return;
    }
    done([path], answer.data.change_id === null ? [] : [answer.data.change_id], archived);
  };

  /** Archive every memory not recalled in 90 days, one after the other; stops at the first refusal. */
  const archiveAll = async () => {
    const paths = [...stats.stale];
    setError(null);
    setAllBusy(true);
    mark(paths, true);
    const ids: number[] = [];
    const archived: string[] = [];
    let failed: UiError | null = null;
    for (const p of paths) {
      const answer = await run(commands.setArchived(ws, p, true));
      if (!answer) return;
      if (!answer.ok) {
        failed = answer.error;
        break;
      }
      archived.push(p);
      if (answer.data.change_id !== null) ids.push(answer.data.change_id);
    }
    mark(paths, false);
    setAllBusy(false);
    setConfirmAll(false);
    if (failed) setError({ where: "stale", text: partlyArchived(archived.length, paths.length), error: failed });
    if (archived.length > 0) done(archived, ids, true);
  };

  const errorFor = (where: "stale" | "archived") =>
    error?.where === where && (
      <div className="health-error">
        {error.text && <p>{error.text}</p>}
        <InlineError error={error.error} />
      </div>
    );

  const open = (path: string, testId = "health-open", label = "Open") => (
    <button type="button" className="link-button" data-testid={testId} onClick={() => onOpenMemory(ws, path)}>
      {label}
    </button>
  );

  const archivedShown = showAll ? stats.archived : stats.archived.slice(0, ARCHIVED_SHOWN);

  return (
    <>
      {stats.stale.length > 0 && (
        <div className="health-group" data-testid="health-stale">
          <h3>
            Not recalled in 90 days <span className="muted">{stats.stale.length}</span>
          </h3>
          <div className="health-action">
            <span className="muted">
              Unchanged for 90 days and no chat recalled them in that time. Still true? Archive them: they leave recall and MEMORY.md but stay
              searchable, and Restore brings one back.
            </span>
            {stats.stale.length > 1 && (
              <button type="button" data-testid="health-archive-all" disabled={allBusy} onClick={() => setConfirmAll(true)}>
                Archive all {stats.stale.length.toLocaleString("en-US")}
              </button>
            )}
          </div>
          {errorFor("stale")}
          <ul className="health-list">
            {stats.stale.map((p) => (
              <li key={p} data-testid="health-item" data-kind="stale" data-path={p}>
                <code>{p}</code> {open(p)}{" "}
                <button type="button" className="health-button" data-testid="health-archive" disabled={busy.has(p)} onClick={() => void setOne(p, true)}>
                  {busy.has(p) ? "Archiving…" : "Archive"}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      {stats.expensive.length > 0 && (
        <div className="health-group" data-testid="health-expensive">
          <h3>
            Most expensive <span className="muted">{stats.expensive.length}</span>
          </h3>
          <p className="muted">
            Their recalls put the most tokens into prompts, most first. Open one and trim it: fewer words for the same facts make every recall
            cheaper.
          </p>
          <ol className="health-list">
            {stats.expensive.map((p) => (
              <li key={p} data-testid="health-item" data-kind="expensive" data-path={p}>
                <code>{p}</code> {open(p, "health-trim", "Open to trim")}
              </li>
            ))}
          </ol>
        </div>
      )}
      {stats.archived.length > 0 && (
        <div className="health-group" data-testid="health-archived">
          <h3>
            Archived <span className="muted">{stats.archived.length}</span>
          </h3>
          <p className="muted">Out of recall and MEMORY.md, still listed and searchable. Restore one to have chats recall it again.</p>
          {errorFor("archived")}
          <ul className="health-list">
            {archivedShown.map((p) => (
              <li key={p} data-testid="health-item" data-kind="archived" data-path={p}>
                <code>{p}</code> {open(p)}{" "}
                <button type="button" className="health-button" data-testid="health-restore" disabled={busy.has(p)} onClick={() => void setOne(p, false)}>
                  {busy.has(p) ? "Restoring…" : "Restore"}
                </button>
              </li>
            ))}
          </ul>
          {stats.archived.length > archivedShown.length && (
            <button type="button" className="link-button" data-testid="health-archived-more" onClick={() => setShowAll(true)}>
              Show all {stats.archived.length.toLocaleString("en-US")}
            </button>
          )}
        </div>
      )}
      {confirmAll && (
        <ConfirmDialog
          title={archiveAllTitle(stats.stale.length)}
          confirmLabel={allBusy ? "Archiving…" : `Archive ${stats.stale.length.toLocaleString("en-US")}`}
          busy={allBusy}
          confirmTestId="health-archive-all-confirm"
          onConfirm={() => void archiveAll()}
          onCancel={() => setConfirmAll(false)}
        >
          <p>{archiveAllText(stats.stale.length)}</p>
        </ConfirmDialog>
      )}
    </>
  );
}
