import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, renderHook } from "@testing-library/react";
import { chatSessionDeleted, chatSessionSaved, readOnce, reads, useChatSessions } from "./queries";
import { commands } from "./bindings";
import type { SessionInfo } from "./bindings";
import { ok } from "../test/fixtures";

vi.mock("./bindings", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  commands: { chatSessions: vi.fn(), chatTranscript: vi.fn() },
}));
vi.mock("./transport", async (importOriginal) => ({
  ...(await importOriginal<typeof import("./transport")>()),
  onMemoryChanged: vi.fn(() => () => {}),
  onSyncStateChanged: vi.fn(() => () => {}),
  onTaskUpdated: vi.fn(() => () => {}),
}));

const api = vi.mocked(commands);

const chat = (id: string, updated_at: string, title = id): SessionInfo => ({ id, title, messages: 2, updated_at, ignore_memory: false });
const OLD = chat("s-old", "2026-03-01T09:00:00Z");
const NEW = chat("s-new", "2026-03-01T10:00:00Z");

beforeEach(() => {
  vi.useFakeTimers();
  api.chatSessions.mockReset();
  api.chatSessions.mockResolvedValue(ok([OLD, NEW]));
});

afterEach(() => {
  vi.useRealTimers();
});

const ids = (list: SessionInfo[] | undefined) => list?.map((s) => s.id);

describe("a workspace's chats", () => {
  it("are read once for everyone showing them, newest first, and take what a change here answered", async () => {
    const pane = renderHook(() => useChatSessions("personal"));
    const inbox = renderHook(() => useChatSessions("personal"));
    // The pane's first read, shared with a read for a handler while it is in flight.
    const once = readOnce(reads.chatSessions("personal"));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(api.chatSessions).toHaveBeenCalledTimes(1);
    expect(api.chatSessions).toHaveBeenCalledWith("personal");
    expect(ids(pane.result.current.data)).toEqual(["s-new", "s-old"]);
    expect((await once).status).toBe("ok");

    await act(async () => chatSessionSaved("personal", chat("s-3", "2026-03-01T11:00:00Z", "Packing list")));
    expect(ids(pane.result.current.data)).toEqual(["s-3", "s-new", "s-old"]);
    await act(async () => chatSessionSaved("personal", { ...OLD, title: "Renamed", updated_at: "2026-03-01T12:00:00Z" }));
    expect(ids(inbox.result.current.data)).toEqual(["s-old", "s-3", "s-new"]);
    expect(inbox.result.current.data?.[0].title).toBe("Renamed");
    await act(async () => chatSessionDeleted("personal", "s-3"));
    expect(ids(pane.result.current.data)).toEqual(["s-old", "s-new"]);
    expect(api.chatSessions).toHaveBeenCalledTimes(1);
  });

  it("are not read while nobody asks (a closed proposal)", async () => {
    renderHook(() => useChatSessions("personal", false));
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(api.chatSessions).not.toHaveBeenCalled();
  });
});
