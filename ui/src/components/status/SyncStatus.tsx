import { useCallback, useState } from "react";
import { commands } from "../../lib/bindings";
import type { RemoteSync } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { formatFullTime, formatTime } from "../../lib/format";
import { CONFLICT_RECALL, NOT_SET_UP, ago, changedText, elsewhereLine, flagSentence, remoteOf, syncSentence, workspaceSync } from "../../lib/sync";
import { useCommand } from "../../lib/useCommand";
import { useSyncStatusQuery } from "../../lib/queries";
import { invalidateSyncStatus } from "../../lib/changeBridge";
import { printable } from "../../lib/printable";
import { InlineError } from "../common/InlineError";
import { ModelSettings } from "../settings/ModelSettings";
import { SyncConflictList } from "./SyncConflictList";

interface Props {
  workspace: string;
  onOpenMemory: (workspace: string, path: string) => void;
}

/** What "Sync now" did here: how many files it changed, and the group that undoes them. */
interface Outcome {
  changed: number;
  group: number | null;
  undone: boolean;
}

/**
 * A workspace's sync across machines: its state in a sentence, when it last synced, what waits
 * to go out and come in, Sync now (and Undo of what it changed here), each open conflict with
 * its versions side by side, files left out and why, and the last error with its next step;
 * then what the remote carries that no workspace here takes, and what brings it.
 */
export function SyncStatus({ workspace, onOpenMemory }: Props) {
  const { run } = useCommand();
  // The shared status (the badges show the same); a failed read keeps the last one beside its error.
  const read = useSyncStatusQuery();
  const status = read.data ?? null;
  const loadError = read.error;
  const [running, setRunning] = useState(false);
  const [runError, setRunError] = useState<UiError | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [undoing, setUndoing] = useState(false);
  const [undoError, setUndoError] = useState<UiError | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);

  const syncNow = useCallback(async () => {
    setRunning(true);
    setRunError(null);
    setOutcome(null);
    setUndoError(null);
    const answer = await run(commands.syncNow(workspace), "sync-now");
    if (!answer) return;
    setRunning(false);
    if (answer.ok) {
      const w = workspaceSync(answer.data, workspace);
      setOutcome({ changed: w?.changed.length ?? 0, group: w?.group ?? null, undone: false });
    } else setRunError(answer.error);
    void invalidateSyncStatus();
  }, [run, workspace]);

  const undo = async () => {
    if (outcome?.group == null) return;
    setUndoing(true);
    setUndoError(null);
    const answer = await run(commands.undoGroup(outcome.group), "sync-undo");
    if (!answer) return;
    setUndoing(false);
    if (answer.ok) setOutcome({ ...outcome, undone: true });
    else setUndoError(answer.error);
    void invalidateSyncStatus();
  };

  const openSettings = () => setSettingsOpen(true);
  const w = workspaceSync(status, workspace);
  const through = remoteOf(status, w);
  const synced = status !== null && w !== undefined && w.key !== null && through !== null;
  const lastRun = status?.last_run ?? null;
  const error = runError ?? (synced ? (lastRun?.error ?? null) : null);

  return (
    <section className="status-section" aria-labelledby="sync-title" data-testid="sync-status" data-state={stateOf(status, through, synced)}>
      <header className="status-section-header">
        <h2 id="sync-title">Sync</h2>
        {through && (
          <span className="muted sync-remote" title={through} data-testid="sync-remote-shown">
            {w?.shared ? "shared with your team through " : "through "}
            {through}
            {status?.auto ? " · automatic" : ""}
          </span>
        )}
        {through && (
          <button type="button" className="link-button" onClick={openSettings} data-testid="sync-open-settings">
            Settings…
          </button>
        )}
      </header>
      {loadError && <InlineError error={loadError} onRetry={() => void read.refetch()} />}
      {!status && !loadError && <div className="muted">Loading…</div>}
      {status && through === null && (
        <div className="sync-setup">
          <p data-testid="sync-sentence">{NOT_SET_UP}</p>
          <button type="button" onClick={openSettings} data-testid="sync-setup">
            Set up sync…
          </button>
        </div>
      )}
      {status && through !== null && !synced && <p data-testid="sync-sentence">{syncSentence(status, w)}</p>}
      {status && synced && w && (
        <>
          <p data-testid="sync-sentence">{syncSentence(status, w)}</p>
          <p className="sync-facts">
            <span data-testid="sync-last">
              <span className="muted">Last synced:</span>{" "}
              {w.last_synced ? (
                <span title={formatFullTime(w.last_synced)}>
                  {formatTime(w.last_synced)} ({ago(w.last_synced)})
                </span>
              ) : (
                "never"
              )}
            </span>
            <span data-testid="sync-pending">
              <span className="muted">To send:</span> {w.pending}
            </span>
            <span data-testid="sync-incoming">
              <span className="muted">To receive:</span> {w.incoming}
            </span>
          </p>
          <div className="sync-actions">
            <button type="button" className="primary" disabled={running} onClick={() => void syncNow()} data-testid="sync-now">
              {running ? "Syncing…" : "Sync now"}
            </button>
            {outcome && (
              <span data-testid="sync-outcome" data-undone={outcome.undone ? "true" : "false"}>
                {outcome.undone ? (
                  "Undone: those files are back as they were before this sync."
                ) : (
                  <>
                    {changedText(outcome.changed)}
                    {outcome.changed > 0 && outcome.group !== null && (
                      <>
                        {" — "}
                        <button
                          type="button"
                          className="link-button"
                          disabled={undoing}
                          onClick={() => void undo()}
                          title="Take back what this sync changed here"
                          data-testid="sync-undo"
                        >
                          Undo
                        </button>
                      </>
                    )}
                  </>
                )}
              </span>
            )}
          </div>
          {undoError && <InlineError error={undoError} />}
          {error && (
            <>
              {!runError && lastRun && (
                <p className="muted" data-testid="sync-failed-at">
                  The last sync, {formatTime(lastRun.at)}, did not finish:
                </p>
              )}
              <InlineError error={error} onRetry={() => void syncNow()} onOpenSettings={openSettings} />
            </>
          )}
          {w.conflicts.length > 0 && (
            <>
              <h3>Conflicts</h3>
              <p className="muted" data-testid="sync-conflicts-recall">
                {CONFLICT_RECALL}
              </p>
              <SyncConflictList workspace={workspace} conflicts={w.conflicts} onOpenMemory={onOpenMemory} />
            </>
          )}
          {w.shares_with.length > 0 && (
            <p className="muted" data-testid="sync-shares">
              Shares one memory with {w.shares_with.map(printable).join(", ")}: checkouts of one project sync as one
              set of files, so a memory deleted in one is deleted in all.
            </p>
          )}
          {w.flagged.length > 0 && (
            <>
              <h3>Left out of sync</h3>
              <ul className="sync-flagged">
                {w.flagged.map((f) => (
                  <li key={`${f.side}:${f.path}`} data-testid="sync-flag" data-side={f.side} data-path={f.path}>
                    <code>{f.path}</code> <span className="muted">({f.side === "here" ? "on this computer" : "on the remote"})</span>{" "}
                    {flagSentence(f.why)}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
      {status && status.remote !== null && status.elsewhere.length > 0 && (
        <>
          <h3 id="sync-elsewhere-title">Also on the remote, not on this computer</h3>
          <ul className="sync-flagged sync-elsewhere" aria-labelledby="sync-elsewhere-title" data-testid="sync-elsewhere">
            {status.elsewhere.map((k) => {
              const line = elsewhereLine(k);
              return (
                <li key={k.key} data-testid="sync-elsewhere-item" data-key={k.key}>
                  <span className="sync-elsewhere-name">{line.name}</span> <span className="muted">({line.count})</span>{" "}
                  {line.why}
                </li>
              );
            })}
          </ul>
        </>
      )}
      {settingsOpen && <ModelSettings focus="sync" onClose={() => setSettingsOpen(false)} onSaved={() => {}} />}
    </section>
  );
}

/** The section's state for tests and styles: `off` (no remote), `not_synced` (this workspace stays here), `on`. */
function stateOf(s: RemoteSync | null, through: string | null, synced: boolean): string {
  if (!s) return "";
  if (through === null) return "off";
  if (!synced) return "not_synced";
  return "on";
}
