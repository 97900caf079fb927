// The recent memory tasks as the whole UI shares them (the status bar, its task list, the Dream
// button and the dream report): loaded at start, on reconnect and on request, kept current by
// `task_updated` events, and re-read now and then while a listed task is active — the events
// carry this process's tasks only, and another process (a `mnemo chat`, a CLI dream) may be
// working too.

import { useCallback, useEffect, useMemo, useReducer, useState } from "react";
import { commands } from "./bindings";
import type { TaskInfo } from "./bindings";
import { onTaskUpdated } from "./transport";
import { TASK_LIMIT, initialTasks, isActive, tasksReducer } from "./tasks";
import type { TasksState } from "./tasks";
import { useCommand } from "./useCommand";

/** How often the list is re-read while a listed task is active. */
export const ACTIVE_REFRESH_MS = 3000;

export interface TaskList {
  state: TasksState;
  /** A task's new state (the answer of `dream`, `task`, `task_cancel`); older states are ignored. */
  update: (task: TaskInfo) => void;
  /** Re-read the list now. */
  reload: () => void;
}

export function useTaskList(): TaskList {
  const { run, cancel } = useCommand();
  const [state, dispatch] = useReducer(tasksReducer, initialTasks);
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    void run(commands.tasks(null, null, null, TASK_LIMIT), "tasks").then((answer) => {
      if (answer) dispatch({ type: "loaded", answer });
    });
    return () => cancel("tasks");
  }, [run, cancel, reloads]);

  useEffect(
    () =>
      onTaskUpdated(
        (task) => dispatch({ type: "updated", task }),
        () => setReloads((n) => n + 1),
      ),
    [],
  );

  const active = state.tasks.filter(isActive).length;
  useEffect(() => {
    if (active === 0) return;
    const timer = setInterval(() => setReloads((n) => n + 1), ACTIVE_REFRESH_MS);
    return () => clearInterval(timer);
  }, [active]);

  const update = useCallback((task: TaskInfo) => dispatch({ type: "updated", task }), []);
  const reload = useCallback(() => setReloads((n) => n + 1), []);
  return useMemo(() => ({ state, update, reload }), [state, update, reload]);
}
