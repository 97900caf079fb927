import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, renderHook } from "@testing-library/react";
import { SYNC_POLL_MS, syncChanged, useSyncStatus } from "./useSyncStatus";
import { commands } from "./bindings";
import { err, ok, remoteSync } from "../test/fixtures";

vi.mock("./bindings", () => ({ commands: { syncStatus: vi.fn() } }));

const api = vi.mocked(commands);

beforeEach(() => {
  vi.useFakeTimers();
  api.syncStatus.mockReset();
  api.syncStatus.mockResolvedValue(ok(remoteSync()));
});

afterEach(() => {
  vi.useRealTimers();
});

describe("the shared sync status", () => {
  it("is read on mount, every minute and after a sync here; a failed read gives nothing", async () => {
    const { result, unmount } = renderHook(() => useSyncStatus());
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(result.current?.remote).toBe("git@git.example:me/memory.git");
    expect(api.syncStatus).toHaveBeenCalledTimes(1);

    await act(() => vi.advanceTimersByTimeAsync(SYNC_POLL_MS));
    expect(api.syncStatus).toHaveBeenCalledTimes(2);

    api.syncStatus.mockResolvedValue(err("corrupt", "sync/state.json is not valid JSON"));
    act(() => syncChanged());
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(api.syncStatus).toHaveBeenCalledTimes(3);
    expect(result.current).toBeNull();

    // Gone: no more reads.
    unmount();
    act(() => syncChanged());
    await act(() => vi.advanceTimersByTimeAsync(SYNC_POLL_MS * 2));
    expect(api.syncStatus).toHaveBeenCalledTimes(3);
  });
});
