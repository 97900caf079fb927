// The recent memory tasks as the whole UI shares them (the status bar, its task list, the Dream
// button and the dream report): one query (`reads.recentTasks`) read at start, on reconnect and on
// request, kept current by `task_updated` events through the change bridge, and read again now and
// then while a listed task is active — the events carry this process's tasks only, and another
// process (a `mnemo chat`, a CLI dream) may be working too.

import { useMemo } from "react";
import type { TaskInfo } from "./bindings";
import type { TasksState } from "./tasks";
import { taskUpdated } from "./changeBridge";
import { reloadRecentTasks, useRecentTasks } from "./queries";

export { ACTIVE_REFRESH_MS } from "./queries";

export interface TaskList {
  state: TasksState;
  /** A task's new state (the answer of `dream`, `task`, `task_cancel`); older states are ignored. */
  update: (task: TaskInfo) => void;
  /** Re-read the list now. */
  reload: () => void;
}

const reload = () => void reloadRecentTasks();

export function useTaskList(): TaskList {
  const read = useRecentTasks();
  const { data, error } = read;
  return useMemo(
    () => ({ state: { tasks: data ?? [], loaded: data !== undefined, error }, update: taskUpdated, reload }),
    [data, error],
  );
}
