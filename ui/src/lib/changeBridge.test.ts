import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, render, renderHook, screen } from "@testing-library/react";
import { createElement } from "react";
import { MEMORY_EVENT_DELAY_MS, SYNC_EVENT_DELAY_MS, SYNC_STATE_DELAY_MS, invalidateMemoryReads, useChangeBridge } from "./changeBridge";
import { keys, queryClient, readMemory, readOnce, reads, useMemoryList } from "./queries";
import { commands } from "./bindings";
import type { ApiError, MemoryChanged, MemoryDetail } from "./bindings";
import type { Result } from "./transport";
import { onMemoryChanged, onSyncStateChanged } from "./transport";
import { DOCS, WORKSPACES, detailOf, err, ok, remoteSync } from "../test/fixtures";

vi.mock("./bindings", async (importOriginal) => ({ ...(await importOriginal<object>()), commands: { list: vi.fn(), syncStatus: vi.fn(), get: vi.fn() } }));
vi.mock("./transport", async (importOriginal) => ({ ...(await importOriginal<typeof import("./transport")>()), onMemoryChanged: vi.fn(), onSyncStateChanged: vi.fn() }));

const api = vi.mocked(commands);

let memory: { cb: (e: MemoryChanged) => void; resync?: () => void }[] = [];
let sync: (() => void)[] = [];
let unsubscribed = 0;

beforeEach(() => {
  memory = [];
  sync = [];
  unsubscribed = 0;
  vi.mocked(onMemoryChanged).mockImplementation((cb, resync) => {
    memory.push({ cb, resync });
    return () => {
      unsubscribed += 1;
    };
  });
  vi.mocked(onSyncStateChanged).mockImplementation((cb) => {
    sync.push(cb);
    return () => {
      unsubscribed += 1;
    };
  });
  vi.useFakeTimers();
  api.list.mockReset();
  api.syncStatus.mockReset();
  api.get.mockReset();
});

afterEach(() => {
  vi.useRealTimers();
});

/** Answers in the cache, as readers left them (nobody shows them: nothing is read again here). */
const KEYS = {
  listPersonal: keys.list("personal"),
  listAll: keys.list(null),
  listWork: keys.list("work"),
  logsPersonal: keys.logs("personal"),
  workspaces: keys.workspaces(),
  status: keys.status(),
  statsPersonal: ["stats", "personal"],
  statsWork: ["stats", "work"],
  historyAll: ["history", null, null, 100],
  usagePersonal: ["memory_usage", "personal", null],
  searchPersonal: ["search", "personal", "deploy", 200, null],
  groupOf3: keys.changeGroup(3),
  memoryA: keys.get("personal", "a.md"),
  memoryZ: keys.get("personal", "z.md"),
  memoryWorkA: keys.get("work", "a.md"),
  model: keys.modelSettings(),
  sync: keys.syncStatus(),
} as const;

function seed(syncData = remoteSync()) {
  for (const key of Object.values(KEYS)) queryClient.setQueryData(key, key === KEYS.sync ? syncData : []);
}

function stale(): string[] {
  return Object.entries(KEYS)
    .filter(([, key]) => queryClient.getQueryState(key)?.isInvalidated)
    .map(([name]) => name)
    .sort();
}

const MEMORY_OF_PERSONAL = ["groupOf3", "historyAll", "listAll", "listPersonal", "logsPersonal", "searchPersonal", "statsPersonal", "status", "usagePersonal", "workspaces"];

describe("the change bridge", () => {
  it("marks stale what follows a workspace's memory files, once a burst, and the sync status soon after", async () => {
    seed();
    const bridge = renderHook(() => useChangeBridge());
    const second = renderHook(() => useChangeBridge());
    // One subscription however many read through the cache.
    expect(memory).toHaveLength(1);
    expect(sync).toHaveLength(1);
    const spy = vi.spyOn(queryClient, "invalidateQueries");

    act(() => {
      memory[0].cb({ workspace: "personal", paths: ["a.md"], source: "user" });
      memory[0].cb({ workspace: "personal", paths: ["b.md"], source: "extract" });
    });
    expect(stale()).toEqual([]);
    await act(() => vi.advanceTimersByTimeAsync(MEMORY_EVENT_DELAY_MS));
    // Another workspace's list and figures, a memory the events did not name (nor the same path
    // in another workspace), and the model settings cannot have changed.
    expect(stale()).toEqual([...MEMORY_OF_PERSONAL, "memoryA"].sort());
    expect(spy).toHaveBeenCalledTimes(1);

    await act(() => vi.advanceTimersByTimeAsync(SYNC_EVENT_DELAY_MS));
    expect(stale()).toEqual([...MEMORY_OF_PERSONAL, "memoryA", "sync"].sort());
    spy.mockRestore();
    bridge.unmount();
    second.unmount();
  });

  it("leaves the sync status alone on memory changes while no remote is set", async () => {
    seed(remoteSync({ remote: null }));
    const { unmount } = renderHook(() => useChangeBridge());
    act(() => memory[0].cb({ workspace: "work", paths: ["a.md"], source: "user" }));
    await act(() => vi.advanceTimersByTimeAsync(SYNC_EVENT_DELAY_MS * 2));
    expect(stale()).toEqual(["groupOf3", "historyAll", "listAll", "listWork", "memoryWorkA", "statsWork", "status", "workspaces"]);
    unmount();
  });

  it("marks only the sync status stale on sync_changed, and everything after the stream reconnects", async () => {
    seed();
    const { unmount } = renderHook(() => useChangeBridge());
    act(() => {
      sync[0]();
      sync[0]();
    });
    await act(() => vi.advanceTimersByTimeAsync(SYNC_STATE_DELAY_MS));
    expect(stale()).toEqual(["sync"]);

    act(() => memory[0].resync?.());
    await act(() => vi.advanceTimersByTimeAsync(MEMORY_EVENT_DELAY_MS));
    // Events were missed: every workspace's answers and every memory, never the model settings.
    expect(stale()).toEqual([...MEMORY_OF_PERSONAL, "listWork", "memoryA", "memoryWorkA", "memoryZ", "statsWork", "sync"].sort());
    unmount();
  });

  it("listens only while someone reads, and a pending burst dies with it", async () => {
    seed();
    const first = renderHook(() => useChangeBridge());
    const second = renderHook(() => useChangeBridge());
    act(() => memory[0].cb({ workspace: "personal", paths: ["a.md"], source: "user" }));
    first.unmount();
    expect(unsubscribed).toBe(0);
    second.unmount();
    expect(unsubscribed).toBe(2);
    await act(() => vi.advanceTimersByTimeAsync(SYNC_EVENT_DELAY_MS * 2));
    expect(stale()).toEqual([]);
  });

  it("is what a write here calls for the workspace it wrote (its memory it reads again itself)", async () => {
    seed();
    await act(() => invalidateMemoryReads(new Set(["work"])));
    expect(stale()).toEqual(["groupOf3", "historyAll", "listAll", "listWork", "statsWork", "status", "workspaces"]);
  });
});

function Names({ workspace }: { workspace: string }) {
  const list = useMemoryList(workspace);
  if (list.error) return createElement("p", { "data-testid": "error" }, list.error.code);
  return createElement("p", { "data-testid": "names" }, list.data ? list.data.map((d) => d.name).join(", ") : "Loading…");
}

describe("a reader of the cache", () => {
  it("shows the new answer after a memory_changed event, without a counter", async () => {
    api.list.mockResolvedValue(ok(DOCS.slice(0, 1)));
    render(createElement(Names, { workspace: "personal" }));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(screen.getByTestId("names").textContent).toBe(DOCS[0].name);

    api.list.mockResolvedValue(ok(DOCS.slice(0, 2)));
    act(() => memory[0].cb({ workspace: "personal", paths: [DOCS[1].path], source: "watcher" }));
    await act(() => vi.advanceTimersByTimeAsync(MEMORY_EVENT_DELAY_MS));
    expect(screen.getByTestId("names").textContent).toBe(`${DOCS[0].name}, ${DOCS[1].name}`);
    expect(api.list).toHaveBeenCalledTimes(2);
    expect(api.list).toHaveBeenLastCalledWith("personal", null);

    // A change in another workspace reads nothing here.
    act(() => memory[0].cb({ workspace: WORKSPACES[1].id, paths: ["x.md"], source: "watcher" }));
    await act(() => vi.advanceTimersByTimeAsync(MEMORY_EVENT_DELAY_MS));
    expect(api.list).toHaveBeenCalledTimes(2);
  });

  it("shows a failed read at once, as the UI's error, with no retry", async () => {
    api.list.mockResolvedValue(err("not_found", "no workspace `gone`"));
    render(createElement(Names, { workspace: "gone" }));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(screen.getByTestId("error").textContent).toBe("not_found");
    expect(api.list).toHaveBeenCalledTimes(1);
  });

  it("reads a memory after a write afresh: a read in flight from before the write gives way, its waiters get the new answer", async () => {
    let before: (r: Result<MemoryDetail, ApiError>) => void = () => {};
    api.get.mockReturnValueOnce(new Promise((resolve) => (before = resolve)));
    api.get.mockResolvedValueOnce(ok(detailOf(DOCS[0], "h2")));
    const early = readOnce(reads.get("personal", DOCS[0].path));
    const written = readMemory("personal", DOCS[0].path);
    before(ok(detailOf(DOCS[0], "h1")));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(api.get).toHaveBeenCalledTimes(2);
    expect(await written).toEqual(ok(detailOf(DOCS[0], "h2")));
    expect(await early).toEqual(ok(detailOf(DOCS[0], "h2")));
    expect(queryClient.getQueryData<{ hash: string }>(keys.get("personal", DOCS[0].path))?.hash).toBe("h2");
  });

  it("reads once for a handler through the same cache, a rejection as an error result", async () => {
    api.list.mockRejectedValue({ code: "network", message: "Cannot reach the Mnemo server." });
    const answer = readOnce(reads.list("personal"));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(await answer).toEqual({ status: "error", error: { code: "network", message: "Cannot reach the Mnemo server." } });
  });
});
