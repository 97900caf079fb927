import { useEffect, useState } from "react";
import type { TaskInfo, TaskKind, TaskStatus } from "../../lib/bindings";
import { TASK_KIND_LABELS, TASK_LIMIT, TASK_STATUS_LABELS, filteredTasks, isActive } from "../../lib/tasks";
import type { TaskFilter } from "../../lib/tasks";
import { useTasks } from "../../lib/queries";
import { InlineError } from "../common/InlineError";
import { TaskRow } from "../jobs/TasksPanel";

interface Props {
  workspace: string;
  /** The shared task list's tasks (live states). */
  live: readonly TaskInfo[];
  /** A task's new state (the answer of a cancel). */
  onUpdated: (task: TaskInfo) => void;
  onOpenMemory: (workspace: string, path: string) => void;
  onOpenDream: (id: string) => void;
  /** A task whose writes became a proposal offers "Review it in the Inbox". */
  onOpenInbox?: (workspace: string, id: number) => void;
  workspaceLabel?: (id: string) => string;
}

const KINDS = Object.keys(TASK_KIND_LABELS) as TaskKind[];
const STATUSES = Object.keys(TASK_STATUS_LABELS) as TaskStatus[];

/**
 * A workspace's memory tasks, filtered by kind and status: read from `tasks` for the filter (so
 * older tasks than the shared list keeps are found), kept live by the shared list.
 */
export function StatusTasks({ workspace, live, onUpdated, onOpenMemory, onOpenDream, onOpenInbox, workspaceLabel }: Props) {
  const [kind, setKind] = useState<TaskKind | null>(null);
  const [status, setStatus] = useState<TaskStatus | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const filter: TaskFilter = { workspace, kind, status };
  // Keyed by the filter: another filter's tasks never show while this one's are read.
  const read = useTasks(workspace, kind, status, TASK_LIMIT);
  const error = read.error;

  const current = read.data ?? null;
  const tasks = current === null ? null : filteredTasks(current, live, filter);
  const anyActive = tasks?.some(isActive) ?? false;

  useEffect(() => {
    if (!anyActive) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [anyActive]);

  return (
    <section className="status-section status-tasks" aria-labelledby="status-tasks-title">
      <header className="status-section-header">
        <h2 id="status-tasks-title">Tasks</h2>
        <label className="status-filter">
          Kind{" "}
          <select
            data-testid="task-filter-kind"
            value={kind ?? ""}
            onChange={(e) => setKind(e.target.value === "" ? null : (e.target.value as TaskKind))}
          >
            <option value="">All</option>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {TASK_KIND_LABELS[k]}
              </option>
            ))}
          </select>
        </label>
        <label className="status-filter">
          Status{" "}
          <select
            data-testid="task-filter-status"
            value={status ?? ""}
            onChange={(e) => setStatus(e.target.value === "" ? null : (e.target.value as TaskStatus))}
          >
            <option value="">All</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {TASK_STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </label>
      </header>
      {error && <InlineError error={error} />}
      {tasks === null && !error && <div className="empty">Loading…</div>}
      {tasks !== null && tasks.length === 0 && (
        <div className="empty" data-testid="status-tasks-empty">
          {kind === null && status === null ? "No memory tasks yet." : "No tasks match these filters."}
        </div>
      )}
      {tasks !== null && tasks.length > 0 && (
        <ul className="task-list" aria-label="Tasks of this workspace" data-testid="status-task-list">
          {tasks.map((t) => (
            <TaskRow
              key={t.id}
              task={t}
              now={now}
              onUpdated={onUpdated}
              onOpenMemory={onOpenMemory}
              onOpenDream={onOpenDream}
              onOpenInbox={onOpenInbox}
              workspaceLabel={workspaceLabel}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
