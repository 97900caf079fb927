import { useEffect, useRef, useState } from "react";
import { commands } from "../../lib/bindings";
import type { LocalModelInfo } from "../../lib/bindings";
import { explain } from "../../lib/errors";
import { isActive } from "../../lib/tasks";
import { useCommand } from "../../lib/useCommand";
import { taskStarted, useTaskPoll } from "../../lib/queries";

/** How often the install's progress is re-read. */
export const INSTALL_POLL_MS = 1000;

interface Props {
  /** The local model's state; nothing is shown once it is installed. */
  info: LocalModelInfo;
  /** Called when the install finished (read the model's state again). */
  onInstalled: () => void;
}

/**
 * Install the model that comes with Mnemo from here: a button naming its size, then the
 * install's progress in words (part, bytes, rate, time left) with a way to stop it — a stopped
 * or failed install resumes from its last whole part when started again.
 */
export function LocalModelInstall({ info, onInstalled }: Props) {
  const { run } = useCommand();
  // The install under way, followed through the cache from what starting it answered.
  const [taskId, setTaskId] = useState<string | null>(null);
  const poll = useTaskPoll(taskId, INSTALL_POLL_MS);
  const task = poll.data ?? null;
  const [startError, setError] = useState<string | null>(null);
  const error = startError ?? (poll.error ? explain(poll.error).sentence : null);
  const active = task !== null && isActive(task);

  // Done: the model's state is read again (once an install).
  const told = useRef<string | null>(null);
  const completed = task?.status === "completed" ? task.id : null;
  useEffect(() => {
    if (completed === null || told.current === completed) return;
    told.current = completed;
    onInstalled();
  }, [completed, onInstalled]);

  if (info.installed) return null;
  const start = () => {
    setError(null);
    void run(commands.localModelInstall(), "install").then((answer) => {
      if (!answer) return;
      if (answer.ok) {
        taskStarted(answer.data);
        setTaskId(answer.data.id);
      } else setError(explain(answer.error).sentence);
    });
  };
  const stop = () => {
    if (!task) return;
    void run(commands.taskCancel(task.id), "install-stop").then((answer) => {
      if (answer?.ok) taskStarted(answer.data);
    });
  };
  const failed = task?.status === "failed" ? (task.reason === "cancelled" ? "The install was stopped. Install again to go on from where it stopped." : task.error) : null;

  return (
    <div className="local-install" data-testid="local-install">
      {active ? (
        <>
          <p className="muted" role="status" aria-live="polite" data-testid="local-install-progress">
            Installing: {task.phase ?? "starting…"}
          </p>
          <button type="button" onClick={stop} data-testid="local-install-stop">
            Stop the install
          </button>
        </>
      ) : (
        <button type="button" onClick={start} data-testid="local-install-start">
          Install it ({info.size})
        </button>
      )}
      {(error ?? failed) && (
        <p className="inline-error" role="alert" data-testid="local-install-error">
          {error ?? failed}
        </p>
      )}
    </div>
  );
}
