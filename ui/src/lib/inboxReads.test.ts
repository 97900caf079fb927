import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, renderHook } from "@testing-library/react";
import { INBOX_EVENT_DELAY_MS, MEMORY_EVENT_DELAY_MS } from "./changeBridge";
import { INBOX_POLL_MS, inboxDecided, inboxItems, rereadInbox, useInboxPages, usePendingCountQuery, useProposalStatusQuery } from "./queries";
import { commands } from "./bindings";
import type { MemoryChanged, TaskInfo } from "./bindings";
import { onMemoryChanged, onTaskUpdated } from "./transport";
import { ok, proposalOf, proposalPage, proposalSummary, task } from "../test/fixtures";

vi.mock("./bindings", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  commands: { inbox: vi.fn(), proposal: vi.fn() },
}));
vi.mock("./transport", async (importOriginal) => ({
  ...(await importOriginal<typeof import("./transport")>()),
  onMemoryChanged: vi.fn(),
  onSyncStateChanged: vi.fn(() => () => {}),
  onTaskUpdated: vi.fn(),
}));

const api = vi.mocked(commands);

let memory: (e: MemoryChanged) => void = () => {};
let tasks: (t: TaskInfo) => void = () => {};

/** 120 pending proposals of `workspace`, 50 a page, newest first. */
function pageAt(offset: number, limit: number) {
  const items = Array.from({ length: Math.min(limit, 120 - offset) }, (_, i) => proposalSummary(1000 - offset - i));
  return proposalPage(items, { total: 120, pending: 120 });
}

beforeEach(() => {
  vi.mocked(onMemoryChanged).mockImplementation((cb) => {
    memory = cb;
    return () => {};
  });
  vi.mocked(onTaskUpdated).mockImplementation((cb) => {
    tasks = cb;
    return () => {};
  });
  vi.useFakeTimers();
  api.inbox.mockReset();
  api.proposal.mockReset();
  api.inbox.mockImplementation(async (_ws, _status, offset, limit) => ok(pageAt(offset ?? 0, limit ?? 50)));
});

afterEach(() => {
  vi.useRealTimers();
});

const settle = () => act(() => vi.advanceTimersByTimeAsync(0));
const calls = (offset: number, limit: number) => api.inbox.mock.calls.filter((c) => c[2] === offset && c[3] === limit).length;

describe("the inbox's list", () => {
  it("reads a page at a time, and stays as it is on memory changes and focus; a job that may propose ending reads it from its first page", async () => {
    const list = renderHook(() => useInboxPages("personal", "pending"));
    const count = renderHook(() => usePendingCountQuery("personal"));
    await settle();
    expect(inboxItems(list.result.current.data?.pages ?? [])).toHaveLength(50);
    await act(() => list.result.current.fetchNextPage());
    expect(inboxItems(list.result.current.data?.pages ?? [])).toHaveLength(100);
    expect(api.inbox).toHaveBeenLastCalledWith("personal", "pending", 50, 50);
    expect(calls(0, 1)).toBe(1);

    // Memories of the workspace changed, the window came back: the count is read again, the list is not.
    act(() => memory({ workspace: "personal", paths: ["a.md"], source: "user" }));
    await act(() => vi.advanceTimersByTimeAsync(INBOX_EVENT_DELAY_MS));
    act(() => {
      window.dispatchEvent(new Event("focus"));
    });
    await act(() => vi.advanceTimersByTimeAsync(INBOX_EVENT_DELAY_MS));
    expect(calls(0, 1)).toBe(3);
    expect(calls(0, 50)).toBe(1);
    // Another workspace's memories: nothing here.
    act(() => memory({ workspace: "work", paths: ["a.md"], source: "user" }));
    await act(() => vi.advanceTimersByTimeAsync(INBOX_EVENT_DELAY_MS + MEMORY_EVENT_DELAY_MS));
    expect(calls(0, 1)).toBe(3);

    // An extraction of the workspace ended: the list starts over from its first page, once.
    act(() => tasks(task("x-1")));
    await act(() => vi.advanceTimersByTimeAsync(INBOX_EVENT_DELAY_MS));
    expect(calls(0, 50)).toBe(2);
    expect(calls(50, 50)).toBe(1);
    expect(inboxItems(list.result.current.data?.pages ?? [])).toHaveLength(50);
    expect(calls(0, 1)).toBe(4);
    count.unmount();
    list.unmount();
  });

  it("keeps a proposal decided here in place with its new status, one fewer waiting for everyone; Refresh starts over", async () => {
    const list = renderHook(() => useInboxPages("personal", "pending"));
    const count = renderHook(() => usePendingCountQuery("personal"));
    await settle();
    expect(count.result.current.data?.pending).toBe(120);
    expect(inboxItems(list.result.current.data?.pages ?? [])).toHaveLength(50);
    await act(() => list.result.current.fetchNextPage());
    await act(async () => inboxDecided("personal", "pending", proposalSummary(999, { status: "accepted" }), 120));
    const items = inboxItems(list.result.current.data?.pages ?? []);
    expect(items).toHaveLength(100);
    expect(items[1]).toMatchObject({ id: 999, status: "accepted" });
    expect(list.result.current.data?.pages.at(-1)?.pending).toBe(119);
    expect(count.result.current.data?.pending).toBe(119);

    await act(() => rereadInbox("personal", "pending"));
    expect(inboxItems(list.result.current.data?.pages ?? [])).toHaveLength(50);
    expect(calls(50, 50)).toBe(1);
    count.unmount();
    list.unmount();
  });
});

describe("a proposal's status", () => {
  it("is read every 30 s while it waits, and never again once decided", async () => {
    api.proposal.mockResolvedValueOnce(ok(proposalOf(3)));
    api.proposal.mockResolvedValue(ok(proposalOf(3, { status: "rejected" })));
    const { result } = renderHook(() => useProposalStatusQuery(3));
    await settle();
    expect(result.current.data?.status).toBe("pending");
    await act(() => vi.advanceTimersByTimeAsync(INBOX_POLL_MS));
    expect(result.current.data?.status).toBe("rejected");
    act(() => {
      window.dispatchEvent(new Event("focus"));
    });
    await act(() => vi.advanceTimersByTimeAsync(INBOX_POLL_MS * 2));
    expect(api.proposal).toHaveBeenCalledTimes(2);
  });
});
