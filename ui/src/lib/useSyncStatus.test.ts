import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, renderHook } from "@testing-library/react";
import { SYNC_EVENT_DELAY_MS, SYNC_POLL_MS, SYNC_STATE_DELAY_MS, invalidateSyncStatus, useSyncStatus } from "./useSyncStatus";
import { commands } from "./bindings";
import type { MemoryChanged } from "./bindings";
import { onMemoryChanged, onSyncStateChanged } from "./transport";
import { err, ok, remoteSync, syncConflict, workspaceSync } from "../test/fixtures";

vi.mock("./bindings", async (importOriginal) => ({ ...(await importOriginal<object>()), commands: { syncStatus: vi.fn() } }));
vi.mock("./transport", async (importOriginal) => ({ ...(await importOriginal<typeof import("./transport")>()), onMemoryChanged: vi.fn(), onSyncStateChanged: vi.fn() }));

const api = vi.mocked(commands);

/** The `memory_changed` listeners subscribed, and their unsubscribe calls. */
let listeners: ((e: MemoryChanged) => void)[] = [];
let unsubscribed = 0;
/** The `sync_changed` listeners subscribed, and their unsubscribe calls. */
let syncListeners: (() => void)[] = [];
let syncUnsubscribed = 0;

beforeEach(() => {
  listeners = [];
  unsubscribed = 0;
  syncListeners = [];
  syncUnsubscribed = 0;
  vi.mocked(onSyncStateChanged).mockImplementation((cb) => {
    syncListeners.push(cb);
    return () => {
      syncUnsubscribed += 1;
    };
  });
  vi.mocked(onMemoryChanged).mockImplementation((cb) => {
    listeners.push(cb);
    return () => {
      unsubscribed += 1;
    };
  });
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
    await act(() => invalidateSyncStatus());
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(api.syncStatus).toHaveBeenCalledTimes(3);
    expect(result.current).toBeNull();

    // Gone: no more reads.
    unmount();
    await act(() => invalidateSyncStatus());
    await act(() => vi.advanceTimersByTimeAsync(SYNC_POLL_MS * 2));
    expect(api.syncStatus).toHaveBeenCalledTimes(3);
  });
});

describe("a conflict a sync left", () => {
  it("shows without a reload: memory_changed events are followed by one read of the status", async () => {
    const { result, unmount } = renderHook(() => useSyncStatus());
    const second = renderHook(() => useSyncStatus());
    await act(() => vi.advanceTimersByTimeAsync(0));
    const reads = api.syncStatus.mock.calls.length;
    // One subscription, however many show the status.
    expect(listeners).toHaveLength(1);
    expect(result.current?.workspaces[0]?.conflicts ?? []).toEqual([]);

    // A sync (here, or `mnemo sync` in a terminal) merged files and left a conflict.
    api.syncStatus.mockResolvedValue(ok(remoteSync({ workspaces: [workspaceSync({ conflicts: [syncConflict()] })] })));
    act(() => {
      for (const path of ["home.md", "prefs.md"]) listeners[0]({ workspace: "personal", paths: [path], source: "sync" });
    });
    await act(() => vi.advanceTimersByTimeAsync(SYNC_EVENT_DELAY_MS));
    // One read for the burst, shared by every reader, and every one shows the conflict.
    expect(api.syncStatus.mock.calls.length).toBe(reads + 1);
    expect(result.current?.workspaces[0]?.conflicts.map((c) => c.id)).toEqual(["k1"]);
    expect(second.result.current?.workspaces[0]?.conflicts.map((c) => c.id)).toEqual(["k1"]);

    // Nobody shows it any more: the subscription ends.
    unmount();
    expect(unsubscribed).toBe(0);
    second.unmount();
    expect(unsubscribed).toBe(1);
  });

  it("reads nothing on memory changes while no remote is set: no sync can leave a conflict then", async () => {
    api.syncStatus.mockResolvedValue(ok(remoteSync({ remote: null })));
    const { unmount } = renderHook(() => useSyncStatus());
    await act(() => vi.advanceTimersByTimeAsync(0));
    const reads = api.syncStatus.mock.calls.length;
    act(() => listeners[0]({ workspace: "personal", paths: ["a.md"], source: "user" }));
    await act(() => vi.advanceTimersByTimeAsync(SYNC_EVENT_DELAY_MS * 2));
    expect(api.syncStatus.mock.calls.length).toBe(reads);
    unmount();
  });

  it("shows at once when only the sync state changed (a conflict that kept the file here writes no memory), even with no remote known yet", async () => {
    api.syncStatus.mockResolvedValue(ok(remoteSync({ remote: null })));
    const { result, unmount } = renderHook(() => useSyncStatus());
    const second = renderHook(() => useSyncStatus());
    await act(() => vi.advanceTimersByTimeAsync(0));
    const reads = api.syncStatus.mock.calls.length;
    expect(syncListeners).toHaveLength(1);

    // `mnemo sync` in a terminal set a remote, synced and left a conflict: one sync_changed burst.
    api.syncStatus.mockResolvedValue(ok(remoteSync({ workspaces: [workspaceSync({ conflicts: [syncConflict()] })] })));
    act(() => {
      syncListeners[0]();
      syncListeners[0]();
    });
    await act(() => vi.advanceTimersByTimeAsync(SYNC_STATE_DELAY_MS));
    expect(api.syncStatus.mock.calls.length).toBe(reads + 1);
    expect(result.current?.workspaces[0]?.conflicts.map((c) => c.id)).toEqual(["k1"]);
    expect(second.result.current?.workspaces[0]?.conflicts.map((c) => c.id)).toEqual(["k1"]);
    // Well before the minute's poll.
    expect(SYNC_STATE_DELAY_MS).toBeLessThan(SYNC_POLL_MS / 10);

    unmount();
    second.unmount();
    expect(syncUnsubscribed).toBe(1);
  });
});
