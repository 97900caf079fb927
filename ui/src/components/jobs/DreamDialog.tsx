import { useEffect, useRef, useState } from "react";
import { Modal } from "../common/Modal";
import { commands } from "../../lib/bindings";
import type { TaskInfo } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { OUTCOME_TITLES, changedFiles, dreamOutcome } from "../../lib/dream";
import { formatDuration, isActive, taskDuration } from "../../lib/tasks";
import { useCommand } from "../../lib/useCommand";
import { useTask } from "../../lib/queries";
import { DreamReport } from "./DreamReport";
import { InlineError } from "../common/InlineError";
import { ToolSteps } from "./TasksPanel";

interface Props {
  /** The dream task shown. */
  id: string;
  /** Its state from the shared task list (`null`: not listed; it is then read). */
  task: TaskInfo | null;
  workspaceLabel: (id: string) => string;
  /** A newer state of the task (read here, or the answer of a cancel). */
  onUpdated: (task: TaskInfo) => void;
  onClose: () => void;
  onOpenMemory: (workspace: string, path: string) => void;
  /** The dream was undone (reload what shows memories). */
  onUndone: () => void;
  /** Where the focus goes on close when nothing had it before (a report that opened on its own). */
  fallbackFocus?: () => HTMLElement | null;
}

/**
 * One dream: its live progress while it runs (phase, each tool call, the files changed so far),
 * then its report. Closing it never stops the dream.
 */
export function DreamDialog({ id, task: listedTask, workspaceLabel, onUpdated, onClose, onOpenMemory, onUndone, fallbackFocus }: Props) {
  const closeRef = useRef<HTMLButtonElement>(null);
  // Not in the list (an old task, or the list has not caught up): read it, and the list takes it.
  const read = useTask(id, listedTask === null);
  const loadError = read.error;
  const task = listedTask ?? read.data ?? null;
  const fresh = read.data;
  useEffect(() => {
    if (fresh) onUpdated(fresh);
  }, [fresh, onUpdated]);

  const outcome = task ? dreamOutcome(task) : null;
  const title = task ? `Dream — ${workspaceLabel(task.workspace)}` : "Dream";

  return (
    <Modal
      labelledBy="dream-title"
      className="dream-dialog"
      testId="dream-dialog"
      data={{ id, outcome: outcome ?? "" }}
      initialFocus={closeRef}
      fallbackFocus={fallbackFocus}
      onClose={onClose}
    >
        <header className="dream-dialog-header">
          <h2 id="dream-title">{title}</h2>
          <button type="button" ref={closeRef} onClick={onClose} data-testid="dream-close">
            Close
          </button>
        </header>
        {loadError && <InlineError error={loadError} />}
        {!task && !loadError && <div className="empty">Loading…</div>}
        {task && isActive(task) && <DreamProgress task={task} onUpdated={onUpdated} />}
        {task && !isActive(task) && <DreamReport task={task} onOpenMemory={onOpenMemory} onUndone={onUndone} />}
    </Modal>
  );
}

/** A dream under way: its phase, its tool calls, the files changed so far; it can be cancelled. */
function DreamProgress({ task, onUpdated }: { task: TaskInfo; onUpdated: (task: TaskInfo) => void }) {
  const { run } = useCommand();
  const [now, setNow] = useState(() => Date.now());
  const [cancelling, setCancelling] = useState(false);
  const [error, setError] = useState<UiError | null>(null);
  const files = changedFiles(task.tools);
  const outcome = dreamOutcome(task);

  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);

  const stop = async () => {
    setCancelling(true);
    setError(null);
    const answer = await run(commands.taskCancel(task.id), "cancel");
    if (!answer) return;
    setCancelling(false);
    if (answer.ok) onUpdated(answer.data);
    else setError(answer.error);
  };

  return (
    <section className="dream-progress" data-testid="dream-progress" aria-live="polite">
      <div className="dream-headline">
        <span className="task-spark" aria-hidden="true">
          ✦
        </span>{" "}
        <strong>{OUTCOME_TITLES[outcome]}</strong>{" "}
        <span className="muted task-duration">{formatDuration(taskDuration(task, now))}</span>
        <button type="button" className="dream-cancel" onClick={() => void stop()} disabled={cancelling}>
          {cancelling ? "Cancelling…" : "Cancel dream"}
        </button>
      </div>
      <div className="dream-phase" data-testid="dream-phase">
        {task.phase ?? (outcome === "queued" ? "waiting for its turn" : "starting")}
      </div>
      {error && <InlineError error={error} />}
      <h3>Tool calls</h3>
      {task.tools.length > 0 ? <ToolSteps tools={task.tools} /> : <div className="muted">None yet.</div>}
      <h3>Files changed so far</h3>
      {files.length > 0 ? (
        <ul className="dream-files" data-testid="dream-files">
          {files.map((f) => (
            <li key={f.path} data-path={f.path}>
              <code>{f.path}</code> <span className="muted">{f.deleted ? "deleted" : "written"}</span>
            </li>
          ))}
        </ul>
      ) : (
        <div className="muted">None yet.</div>
      )}
    </section>
  );
}
