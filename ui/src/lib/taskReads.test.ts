import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, renderHook } from "@testing-library/react";
import { RECENT_TASKS, taskUpdated } from "./changeBridge";
import { ACTIVE_REFRESH_MS, keys, queryClient, taskStarted, useRememberTask, useTask, useTaskPoll } from "./queries";
import { useTaskList } from "./useTaskList";
import { commands } from "./bindings";
import type { ApiError, RememberTask, TaskInfo } from "./bindings";
import type { Result } from "./transport";
import { onTaskUpdated } from "./transport";
import { err, ok, rememberTask, task } from "../test/fixtures";

vi.mock("./bindings", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  commands: { tasks: vi.fn(), task: vi.fn(), rememberTask: vi.fn() },
}));
vi.mock("./transport", async (importOriginal) => ({
  ...(await importOriginal<typeof import("./transport")>()),
  onMemoryChanged: vi.fn(() => () => {}),
  onSyncStateChanged: vi.fn(() => () => {}),
  onTaskUpdated: vi.fn(),
}));

const api = vi.mocked(commands);

let events: { cb: (t: TaskInfo) => void; resync?: () => void }[] = [];

beforeEach(() => {
  events = [];
  vi.mocked(onTaskUpdated).mockImplementation((cb, resync) => {
    events.push({ cb, resync });
    return () => {};
  });
  vi.useFakeTimers();
  api.tasks.mockReset();
  api.task.mockReset();
  api.rememberTask.mockReset();
});

afterEach(() => {
  vi.useRealTimers();
});

const settle = () => act(() => vi.advanceTimersByTimeAsync(0));

const RUNNING = task("t-1", { status: "running", updated_at: "2026-03-01T10:00:02Z", finished_at: null });
const DONE = task("t-1", { status: "completed", updated_at: "2026-03-01T10:00:09Z" });

describe("the recent tasks", () => {
  it("take a task_updated event at once, and keep it over an older state read after it", async () => {
    let answer: (r: Result<TaskInfo[], ApiError>) => void = () => {};
    api.tasks.mockReturnValueOnce(new Promise((resolve) => (answer = resolve)));
    const { result } = renderHook(() => useTaskList());
    expect(result.current.state.loaded).toBe(false);
    // The event overtakes the first read: that read takes it in.
    act(() => events[0].cb(DONE));
    answer(ok([RUNNING, task("t-0")]));
    await settle();
    expect(result.current.state.loaded).toBe(true);
    expect(result.current.state.tasks.map((t) => [t.id, t.status])).toEqual([
      ["t-1", "completed"],
      ["t-0", "completed"],
    ]);
    expect(api.tasks).toHaveBeenCalledWith(null, null, null, 50);

    // Later events change the list without a read; an older state changes nothing.
    await act(async () => events[0].cb(task("t-2", { status: "queued", created_at: "2026-03-01T11:00:00Z", finished_at: null })));
    expect(result.current.state.tasks.map((t) => t.id)).toEqual(["t-2", "t-1", "t-0"]);
    const before = result.current.state.tasks;
    await act(async () => events[0].cb(RUNNING));
    expect(result.current.state.tasks).toBe(before);
    expect(api.tasks).toHaveBeenCalledTimes(1);
  });

  it("are read again while one is active, never once none is, and after the stream reconnects", async () => {
    api.tasks.mockResolvedValue(ok([RUNNING]));
    renderHook(() => useTaskList());
    await settle();
    expect(api.tasks).toHaveBeenCalledTimes(1);
    api.tasks.mockResolvedValue(ok([DONE]));
    await act(() => vi.advanceTimersByTimeAsync(ACTIVE_REFRESH_MS));
    expect(api.tasks).toHaveBeenCalledTimes(2);
    await act(() => vi.advanceTimersByTimeAsync(ACTIVE_REFRESH_MS * 3));
    expect(api.tasks).toHaveBeenCalledTimes(2);
    act(() => events[0].resync?.());
    await settle();
    expect(api.tasks).toHaveBeenCalledTimes(3);
  });

  it("and a task's own answer take the newer state of an event or a command's answer", async () => {
    api.task.mockResolvedValue(ok(RUNNING));
    const { result } = renderHook(() => useTask("t-1"));
    await settle();
    expect(result.current.data?.status).toBe("running");
    await act(async () => taskUpdated(DONE));
    expect(result.current.data?.status).toBe("completed");
    await act(async () => taskUpdated(RUNNING));
    expect(result.current.data?.status).toBe("completed");
    expect(api.task).toHaveBeenCalledTimes(1);
    // Nobody read the list yet: nothing shows one.
    expect(queryClient.getQueryData(RECENT_TASKS)).toBeUndefined();
  });
});

describe("a task followed until it ends", () => {
  it("starts from what starting it answered, is read every interval while active, then no more", async () => {
    taskStarted(task("t-9", { status: "queued", finished_at: null }));
    api.task.mockResolvedValueOnce(ok(task("t-9", { status: "running", phase: "part 1", updated_at: "2026-03-01T10:00:06Z", finished_at: null })));
    api.task.mockResolvedValueOnce(ok(task("t-9", { updated_at: "2026-03-01T10:00:07Z" })));
    const { result } = renderHook(() => useTaskPoll("t-9", 1000));
    await settle();
    expect(result.current.data?.status).toBe("queued");
    expect(api.task).not.toHaveBeenCalled();
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(result.current.data?.phase).toBe("part 1");
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(result.current.data?.status).toBe("completed");
    await act(() => vi.advanceTimersByTimeAsync(5000));
    expect(api.task).toHaveBeenCalledTimes(2);
  });

  it("stops at a failed read, which shows", async () => {
    taskStarted(task("t-9", { status: "running", finished_at: null }));
    api.task.mockResolvedValue(err("not_found", "no task t-9"));
    const { result } = renderHook(() => useTaskPoll("t-9", 1000));
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(result.current.error?.code).toBe("not_found");
    await act(() => vi.advanceTimersByTimeAsync(5000));
    expect(api.task).toHaveBeenCalledTimes(1);
  });

  it("as a remember request: nothing read for one that answered settled, else until it settles", async () => {
    const queued: RememberTask = rememberTask();
    const done: RememberTask = { ...queued, status: "completed", updatedAt: "2026-03-01T10:00:04Z" };
    const settled = renderHook(() => useRememberTask({ ...done, taskId: "remember-0" }, 1500));
    await act(() => vi.advanceTimersByTimeAsync(5000));
    expect(settled.result.current.data?.status).toBe("completed");
    expect(api.rememberTask).not.toHaveBeenCalled();

    api.rememberTask.mockResolvedValueOnce(ok({ ...queued, status: "running" })).mockResolvedValue(ok(done));
    const { result } = renderHook(() => useRememberTask(queued, 1500));
    await settle();
    expect(result.current.data?.status).toBe("queued");
    await act(() => vi.advanceTimersByTimeAsync(1500));
    expect(result.current.data?.status).toBe("running");
    await act(() => vi.advanceTimersByTimeAsync(1500));
    expect(result.current.data?.status).toBe("completed");
    await act(() => vi.advanceTimersByTimeAsync(6000));
    expect(api.rememberTask).toHaveBeenCalledTimes(2);
    expect(api.rememberTask).toHaveBeenCalledWith("remember-1", null);
    expect(queryClient.getQueryData(keys.rememberTask("remember-1"))).toEqual(done);
  });
});
