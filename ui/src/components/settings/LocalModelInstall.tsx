import { useEffect, useState } from "react";
import { commands } from "../../lib/bindings";
import type { LocalModelInfo, TaskInfo } from "../../lib/bindings";
import { explain } from "../../lib/errors";
import { isActive } from "../../lib/tasks";
import { useCommand } from "../../lib/useCommand";

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
  const { run, cancel } = useCommand();
  const [task, setTask] = useState<TaskInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const active = task !== null && isActive(task);

  useEffect(() => {
    if (!task || !isActive(task)) return;
    const timer = setTimeout(() => {
      void run(commands.task(task.id), "install-poll").then((answer) => {
        if (!answer) return;
        if (!answer.ok) {
          setError(explain(answer.error).sentence);
          return;
        }
        setTask(answer.data);
        if (answer.data.status === "completed") onInstalled();
      });
    }, INSTALL_POLL_MS);
    return () => {
      clearTimeout(timer);
      cancel("install-poll");
    };
  }, [task, run, cancel, onInstalled]);

  if (info.installed) return null;
  const start = () => {
    setError(null);
    void run(commands.localModelInstall(), "install").then((answer) => {
      if (!answer) return;
      if (answer.ok) {
        setTask(answer.data);
        if (answer.data.status === "completed") onInstalled();
      } else setError(explain(answer.error).sentence);
    });
  };
  const stop = () => {
    if (!task) return;
    void run(commands.taskCancel(task.id), "install-stop").then((answer) => {
      if (answer?.ok) setTask(answer.data);
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
