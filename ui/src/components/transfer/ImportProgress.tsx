import { useState } from "react";
import { commands } from "../../lib/bindings";
import type { TaskInfo } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { useCommand } from "../../lib/useCommand";
import { readTask } from "../../lib/queries";
import { formatDuration, isActive, taskDuration } from "../../lib/tasks";
import { OUTCOME_TITLES, asSentence, failureText, importOutcome, isResumable, plural, progressOf } from "../../lib/transfer";
import { InlineError } from "../common/InlineError";

interface Props {
  /** The import task as the shared task list has it (kept current by task updates). */
  task: TaskInfo;
  /** A conversation import (resumable: it goes on when run again). */
  conversations: boolean;
  /** A newer state of the task (the answer of a cancel, a re-read after an undo). */
  onUpdated: (task: TaskInfo) => void;
  /** The import was undone (reload what shows memories). */
  onUndone: () => void;
  /** Run the same import again (a stopped conversation import goes on). */
  onAgain: (() => void) | null;
  /** Back to the form, for another import. */
  onRestart: () => void;
}

/**
 * An import under way — its phase ("Writing 3 / 10 files", "Conversation 12 / 20") with a bar when
 * it says how far, Cancel — and then how it ended: the summary and "Undo import", or why it stopped
 * (a conversation import goes on when run again).
 */
export function ImportProgress({ task, conversations, onUpdated, onUndone, onAgain, onRestart }: Props) {
  const { run } = useCommand();
  const [cancelling, setCancelling] = useState(false);
  const [undoing, setUndoing] = useState(false);
  const [undone, setUndone] = useState<number | null>(null);
  const [error, setError] = useState<UiError | null>(null);
  const outcome = importOutcome(task);
  const active = isActive(task);
  const progress = progressOf(task);
  const group = task.result?.group ?? null;
  // Undone is the journal's fact (the task re-read after the undo says so), never guessed here.
  const undoneBy = task.result?.undone_by ?? null;
  // An undone import never reads as a success: no green "Imported" above the undo.
  const isUndone = undoneBy !== null || undone !== null;
  const shown = isUndone ? "undone" : outcome;

  const stop = async () => {
    setCancelling(true);
    setError(null);
    const answer = await run(commands.taskCancel(task.id), "cancel");
    if (!answer) return;
    setCancelling(false);
    if (answer.ok) onUpdated(answer.data);
    else setError(answer.error);
  };

  const undo = async () => {
    if (group === null) return;
    setUndoing(true);
    setError(null);
    const answer = await run(commands.undoGroup(group), "undo");
    if (!answer) return;
    if (!answer.ok) {
      setUndoing(false);
      setError(answer.error);
      return;
    }
    setUndone(answer.data.paths.length);
    onUndone();
    const fresh = await run(readTask(task.id), "task");
    setUndoing(false);
    if (fresh?.ok) onUpdated(fresh.data);
  };

  return (
    <section className="import-progress" data-testid="import-progress" data-status={task.status} data-outcome={shown} aria-live="polite">
      <div className={`import-headline import-outcome-${shown}`}>
        {active && (
          <span className="task-spark" aria-hidden="true">
            ✦{" "}
          </span>
        )}
        <strong data-testid="import-outcome">{isUndone ? "Import undone" : OUTCOME_TITLES[outcome]}</strong>
        {active && (
          <>
            {" "}
            <span className="muted task-duration">{formatDuration(taskDuration(task))}</span>
          </>
        )}
        {active && (
          <button type="button" className="import-cancel" data-testid="import-cancel" onClick={() => void stop()} disabled={cancelling}>
            {cancelling ? "Cancelling…" : "Cancel"}
          </button>
        )}
      </div>

      {active && (
        <>
          <div className="import-phase" data-testid="import-phase">
            {task.phase ?? (task.status === "queued" ? "Waiting for its turn" : "Starting")}
          </div>
          {progress && (
            <progress
              className="import-bar"
              data-testid="import-bar"
              max={progress.total}
              value={progress.done}
              aria-label={`${progress.done} of ${progress.total} done`}
            />
          )}
          <p className="muted import-hint">Closing this window leaves the import running: it shows under Tasks.</p>
        </>
      )}

      {outcome === "completed" && !isUndone && task.result && (
        <p className="import-summary" data-testid="import-summary">
          {asSentence(task.result.summary)}
        </p>
      )}
      {!active && outcome !== "completed" && (
        <div className="problem" role="alert" data-testid="import-failed" data-reason={task.reason ?? ""}>
          {failureText(task, conversations)}
        </div>
      )}

      {error && <InlineError error={error} />}

      {!active && (
        <div className="modal-actions">
          {isUndone ? (
            <span className="import-undone muted" data-testid="import-undone">
              {undone !== null
                ? `${plural(undone, "file")} taken back: nothing of this import stays.`
                : "Its files were taken back: nothing of this import stays."}
            </span>
          ) : (
            group !== null && (
              <button
                type="button"
                data-testid="import-undo"
                disabled={undoing}
                onClick={() => void undo()}
                title="Take back everything this import wrote (one change group)"
              >
                {undoing ? "Undoing…" : "Undo import"}
              </button>
            )
          )}
          {isResumable(task, conversations) && onAgain && (
            <button type="button" className="primary" data-testid="import-again" onClick={onAgain}>
              Run it again
            </button>
          )}
          <button type="button" data-testid="import-restart" onClick={onRestart}>
            Import something else
          </button>
        </div>
      )}
    </section>
  );
}
