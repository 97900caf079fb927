import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, renderHook } from "@testing-library/react";
import { INBOX_POLL_MS, inboxChanged, useInboxCount, useReviewMode } from "./useInbox";
import { commands } from "./bindings";
import { err, ok, proposalPage, proposalSummary, reviewMode } from "../test/fixtures";

vi.mock("./bindings", () => ({ commands: { inbox: vi.fn(), reviewMode: vi.fn() } }));

const api = vi.mocked(commands);

beforeEach(() => {
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
    const { result, rerender, unmount } = renderHook(({ ws, key }) => useInboxCount(ws, key), {
      initialProps: { ws: "personal" as string | null, key: "" },
    });
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(result.current).toEqual({ workspace: "personal", pending: 3 });
    expect(api.inbox).toHaveBeenCalledWith("personal", "pending", 0, 1);

    await act(() => vi.advanceTimersByTimeAsync(INBOX_POLL_MS));
    expect(api.inbox).toHaveBeenCalledTimes(2);

    rerender({ ws: "personal", key: "e1:completed:4" });
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(api.inbox).toHaveBeenCalledTimes(3);

    api.inbox.mockResolvedValue(err("io", "journal.db is locked"));
    act(() => inboxChanged());
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(api.inbox).toHaveBeenCalledTimes(4);
    expect(result.current).toBeNull();

    rerender({ ws: null, key: "" });
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
    // What this window chose shows at once.
    act(() => result.current[1](reviewMode({ decided: true })));
    expect(result.current[0]).toEqual(reviewMode({ decided: true }));
  });
});
