import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, renderHook } from "@testing-library/react";
import { INBOX_EVENT_DELAY_MS, INBOX_POLL_MS, inboxChanged, useInboxCount, useReviewMode } from "./useInbox";
import { commands } from "./bindings";
import type { MemoryChanged, TaskInfo } from "./bindings";
import { onMemoryChanged, onTaskUpdated } from "./transport";
import { err, ok, proposalPage, proposalSummary, reviewMode, task } from "../test/fixtures";

vi.mock("./bindings", async (importOriginal) => ({ ...(await importOriginal<object>()), commands: { inbox: vi.fn(), reviewMode: vi.fn() } }));
vi.mock("./transport", async (importOriginal) => ({
  ...(await importOriginal<typeof import("./transport")>()),
  onMemoryChanged: vi.fn(),
  onTaskUpdated: vi.fn(),
}));

const api = vi.mocked(commands);

let memoryListeners: ((e: MemoryChanged) => void)[] = [];
let taskListeners: ((t: TaskInfo) => void)[] = [];

beforeEach(() => {
  memoryListeners = [];
  taskListeners = [];
  vi.mocked(onMemoryChanged).mockImplementation((cb) => {
    memoryListeners.push(cb);
    return () => {
      memoryListeners = memoryListeners.filter((x) => x !== cb);
    };
  });
  vi.mocked(onTaskUpdated).mockImplementation((cb) => {
    taskListeners.push(cb);
    return () => {
      taskListeners = taskListeners.filter((x) => x !== cb);
    };
  });
  vi.useFakeTimers();
  api.inbox.mockReset();
  api.reviewMode.mockReset();
  api.inbox.mockResolvedValue(ok(proposalPage([proposalSummary(1)], { pending: 3 })));
  api.reviewMode.mockResolvedValue(ok(reviewMode()));
});

afterEach(() => {
  vi.useRealTimers();
});

describe("the inbox's pending count", () => {
  it("is read on mount, every 30 s, when a job ends and after a decision here; nothing for no workspace", async () => {
    const { result, rerender, unmount } = renderHook(({ ws }) => useInboxCount(ws), {
      initialProps: { ws: "personal" as string | null },
    });
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(result.current).toEqual({ workspace: "personal", pending: 3 });
    expect(api.inbox).toHaveBeenCalledWith("personal", "pending", 0, 1);

    await act(() => vi.advanceTimersByTimeAsync(INBOX_POLL_MS));
    expect(api.inbox).toHaveBeenCalledTimes(2);

    // A job that may propose ended (a job that cannot, or one still running, reads nothing).
    act(() => {
      taskListeners[0](task("e0", { kind: "embed" }));
      taskListeners[0](task("r1", { kind: "remember", status: "running", finished_at: null }));
    });
    await act(() => vi.advanceTimersByTimeAsync(INBOX_EVENT_DELAY_MS));
    expect(api.inbox).toHaveBeenCalledTimes(2);
    act(() => taskListeners[0](task("e1", { result: { summary: "proposed", files: [], group: null, proposal: 4 } })));
    await act(() => vi.advanceTimersByTimeAsync(INBOX_EVENT_DELAY_MS));
    expect(api.inbox).toHaveBeenCalledTimes(3);

    api.inbox.mockResolvedValue(err("io", "journal.db is locked"));
    act(() => inboxChanged());
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(api.inbox).toHaveBeenCalledTimes(4);
    expect(result.current).toBeNull();

    rerender({ ws: null });
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(result.current).toBeNull();
    expect(api.inbox).toHaveBeenCalledTimes(4);

    unmount();
    act(() => inboxChanged());
    await act(() => vi.advanceTimersByTimeAsync(INBOX_POLL_MS * 2));
    expect(api.inbox).toHaveBeenCalledTimes(4);
  });
});

describe("a workspace's review mode", () => {
  it("is read on mount and again after a change here; a choice here shows at once", async () => {
    const { result } = renderHook(() => useReviewMode("personal"));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(result.current[0]).toEqual(reviewMode());
    api.reviewMode.mockResolvedValue(ok(reviewMode({ on: true, decided: true })));
    act(() => inboxChanged());
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(result.current[0]?.on).toBe(true);
    // What this window chose shows at once, without a read.
    await act(async () => result.current[1](reviewMode({ decided: true })));
    expect(api.reviewMode).toHaveBeenCalledTimes(2);
    expect(result.current[0]).toEqual(reviewMode({ decided: true }));
  });
});

describe("a proposal made elsewhere (the Inbox did not update when the CLI proposed)", () => {
  it("is counted soon after memories or a task changed, or the window came back into focus", async () => {
    const { result, unmount } = renderHook(() => useInboxCount("personal"));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(result.current?.pending).toBe(3);
    const reads = () => api.inbox.mock.calls.length;
    const before = reads();

    // `mnemo remember` in a terminal proposed: no event here; the person comes back to the window.
    api.inbox.mockResolvedValue(ok(proposalPage([proposalSummary(2), proposalSummary(1)], { pending: 4 })));
    act(() => {
      window.dispatchEvent(new Event("focus"));
    });
    await act(() => vi.advanceTimersByTimeAsync(INBOX_EVENT_DELAY_MS));
    expect(reads()).toBe(before + 1);
    expect(result.current?.pending).toBe(4);

    // A burst of memory changes and a task's updates: one read.
    expect(memoryListeners).toHaveLength(1);
    expect(taskListeners).toHaveLength(1);
    act(() => {
      memoryListeners[0]({ workspace: "personal", paths: ["a.md"], source: "cli" });
      memoryListeners[0]({ workspace: "personal", paths: ["b.md"], source: "cli" });
      taskListeners[0](task("e2"));
    });
    await act(() => vi.advanceTimersByTimeAsync(INBOX_EVENT_DELAY_MS));
    expect(reads()).toBe(before + 2);

    unmount();
    expect(memoryListeners).toHaveLength(0);
    expect(taskListeners).toHaveLength(0);
  });
});
