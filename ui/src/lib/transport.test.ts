import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import { commands } from "./bindings";
import type { MemoryChanged } from "./bindings";
import {
  ApiFailure,
  canRun,
  httpError,
  installBrowserTransport,
  isDesktop,
  isTauri,
  onChatEvent,
  onMemoryChanged,
  onTaskUpdated,
  toUiError,
  unwrap,
} from "./transport";
import { task } from "../test/fixtures";

type W = Window & { __TAURI_INTERNALS__?: unknown };

function jsonResponse(status: number, body: unknown, statusText = ""): Response {
  return new Response(body === undefined ? "" : JSON.stringify(body), {
    status,
    statusText,
    headers: { "content-type": "application/json" },
  });
}

function resetInternals() {
  delete (window as W).__TAURI_INTERNALS__;
}

describe("browser transport (fetch shim)", () => {
  let fetchMock: ReturnType<typeof vi.fn<typeof fetch>>;

  beforeEach(() => {
    resetInternals();
    fetchMock = vi.fn<typeof fetch>();
    vi.stubGlobal("fetch", fetchMock);
    installBrowserTransport();
  });

  afterEach(() => {
    vi.unstubAllGlobals();
    resetInternals();
  });

  it("is not Tauri, even with the shim installed", () => {
    expect((window as W).__TAURI_INTERNALS__).toBeDefined();
    expect(isTauri()).toBe(false);
  });

  it("posts each command as JSON to /api/<command> with the cookie", async () => {
    fetchMock.mockResolvedValueOnce(jsonResponse(200, []));
    const r = await commands.workspaces();
    expect(r).toEqual({ status: "ok", data: [] });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe("/api/workspaces");
    expect(init?.method).toBe("POST");
    expect(init?.credentials).toBe("same-origin");
    expect((init?.headers as Record<string, string>)["content-type"]).toBe("application/json");
    expect(JSON.parse(init?.body as string)).toEqual({});
  });

  it("sends the camelCase argument names of the bindings", async () => {
    fetchMock.mockResolvedValueOnce(jsonResponse(200, []));
    await commands.list("personal", "feedback");
    expect(fetchMock.mock.calls[0][0]).toBe("/api/list");
    expect(JSON.parse(fetchMock.mock.calls[0][1]?.body as string)).toEqual({
      workspace: "personal",
      memoryType: "feedback",
    });

    fetchMock.mockResolvedValueOnce(jsonResponse(200, null));
    const r = await commands.setSettings({ folders: [{ path: "/x" }] });
    expect(r).toEqual({ status: "ok", data: null });
    expect(fetchMock.mock.calls[1][0]).toBe("/api/set_settings");
    expect(JSON.parse(fetchMock.mock.calls[1][1]?.body as string)).toEqual({ settings: { folders: [{ path: "/x" }] } });
  });

  it("maps an error body to the bindings' error result", async () => {
    fetchMock.mockResolvedValueOnce(jsonResponse(409, { code: "conflict", message: "changed on disk" }, "Conflict"));
    const r = await commands.update("personal", "a.md", {
      name: "A",
      description: null,
      type: null,
      body: null,
      expected_hash: "h1",
    });
    expect(r).toEqual({ status: "error", error: { code: "conflict", message: "changed on disk" } });
  });

  it("accepts the CLI's {error:{code,message}} envelope too", async () => {
    fetchMock.mockResolvedValueOnce(jsonResponse(404, { error: { code: "not_found", message: "no such memory" } }));
    const r = await commands.get("personal", "nope.md");
    expect(r).toEqual({ status: "error", error: { code: "not_found", message: "no such memory" } });
  });

  it("maps a non-JSON failure to http_<status>", async () => {
    fetchMock.mockResolvedValueOnce(new Response("denied", { status: 401, statusText: "Unauthorized" }));
    const r = await commands.status();
    expect(r).toEqual({ status: "error", error: { code: "http_401", message: "Unauthorized" } });
    expect(httpError(500, "", null)).toEqual({ code: "http_500", message: "HTTP 500" });
    // The field an error names is kept; one this build does not know is dropped.
    expect(httpError(400, "", { code: "invalid_frontmatter", message: "m", field: "name" })).toEqual({ code: "invalid_frontmatter", message: "m", field: "name" });
    expect(httpError(400, "", { code: "invalid_frontmatter", message: "m", field: "colour" })).toEqual({ code: "invalid_frontmatter", message: "m" });
  });

  it("maps a network failure to code network", async () => {
    fetchMock.mockRejectedValueOnce(new TypeError("Failed to fetch"));
    const r = await commands.workspaces();
    expect(r.status).toBe("error");
    if (r.status === "error") {
      expect(r.error.code).toBe("network");
      expect(r.error.message).toContain("Failed to fetch");
    }
  });
});

describe("unwrap / toUiError", () => {
  it("returns data or throws the ApiError", () => {
    expect(unwrap({ status: "ok", data: 3 })).toBe(3);
    let caught: unknown;
    try {
      unwrap({ status: "error", error: { code: "invalid_type", message: "bad type" } });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ApiFailure);
    expect(caught).toBeInstanceOf(Error);
    expect(caught).toMatchObject({ code: "invalid_type", message: "bad type" });
    expect(toUiError(caught)).toEqual({ code: "invalid_type", message: "bad type" });
    expect(toUiError({ code: "x", message: "y" })).toEqual({ code: "x", message: "y" });
    expect(toUiError(new Error("boom"))).toEqual({ code: "internal", message: "boom" });
  });
});

class FakeEventSource {
  static instances: FakeEventSource[] = [];
  readonly url: string;
  closed = false;
  private listeners = new Map<string, ((e: Event) => void)[]>();
  constructor(url: string) {
    this.url = url;
    FakeEventSource.instances.push(this);
  }
  addEventListener(type: string, fn: (e: Event) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  close() {
    this.closed = true;
  }
  fire(type: string, data?: string) {
    const ev = data === undefined ? new Event(type) : new MessageEvent(type, { data });
    for (const fn of this.listeners.get(type) ?? []) fn(ev);
  }
}

describe("onMemoryChanged in the browser (SSE)", () => {
  beforeEach(() => {
    resetInternals();
    FakeEventSource.instances = [];
    vi.stubGlobal("EventSource", FakeEventSource);
    installBrowserTransport();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    resetInternals();
  });

  it("subscribes to /events and delivers memory_changed payloads", () => {
    const cb = vi.fn();
    const unsubscribe = onMemoryChanged(cb);
    expect(FakeEventSource.instances).toHaveLength(1);
    const es = FakeEventSource.instances[0];
    expect(es.url).toBe("/events");

    const payload = { scope: "workspace", workspace: "personal", paths: ["a.md"], source: "watcher" };
    es.fire("memory_changed", JSON.stringify(payload));
    expect(cb).toHaveBeenCalledTimes(1);
    expect(cb.mock.calls[0][0]).toMatchObject({ workspace: "personal", paths: ["a.md"], source: "watcher" });

    es.fire("memory_changed", "not json");
    es.fire("memory_changed", JSON.stringify({ nope: true }));
    es.fire("task_updated", JSON.stringify(payload));
    expect(cb).toHaveBeenCalledTimes(1);

    unsubscribe();
    expect(es.closed).toBe(true);
  });

  it("asks for a resync when the stream reconnects after a drop", () => {
    const resync = vi.fn();
    const unsubscribe = onMemoryChanged(() => {}, resync);
    const es = FakeEventSource.instances[0];
    es.fire("open");
    expect(resync).not.toHaveBeenCalled();
    es.fire("error");
    es.fire("open");
    expect(resync).toHaveBeenCalledTimes(1);
    unsubscribe();
  });
});

describe("onTaskUpdated in the browser (SSE)", () => {
  beforeEach(() => {
    resetInternals();
    FakeEventSource.instances = [];
    vi.stubGlobal("EventSource", FakeEventSource);
    installBrowserTransport();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    resetInternals();
  });

  it("delivers task_updated payloads and drops malformed ones", () => {
    const cb = vi.fn();
    const resync = vi.fn();
    const unsubscribe = onTaskUpdated(cb, resync);
    expect(FakeEventSource.instances).toHaveLength(1);
    const es = FakeEventSource.instances[0];
    expect(es.url).toBe("/events");

    const t = task("t1", { status: "running", finished_at: null });
    es.fire("task_updated", JSON.stringify(t));
    expect(cb).toHaveBeenCalledTimes(1);
    expect(cb.mock.calls[0][0]).toEqual(t);

    es.fire("task_updated", "{");
    es.fire("task_updated", JSON.stringify({ id: "t2", status: "running" }));
    es.fire("memory_changed", JSON.stringify({ workspace: "personal", paths: ["a.md"], source: "user" }));
    expect(cb).toHaveBeenCalledTimes(1);

    es.fire("error");
    es.fire("open");
    expect(resync).toHaveBeenCalledTimes(1);

    unsubscribe();
    expect(es.closed).toBe(true);
  });

  it("shares one /events connection between listeners, closed when the last one leaves", () => {
    const memory = vi.fn();
    const chat = vi.fn();
    const tasks = vi.fn();
    const offMemory = onMemoryChanged(memory);
    const offChat = onChatEvent(chat);
    const offTasks = onTaskUpdated(tasks);
    expect(FakeEventSource.instances).toHaveLength(1);
    const es = FakeEventSource.instances[0];

    es.fire("memory_changed", JSON.stringify({ workspace: "personal", paths: ["a.md"], source: "user" }));
    es.fire("chat", JSON.stringify({ kind: "delta", workspace: "personal", session: "s", text: "hi" }));
    es.fire("task_updated", JSON.stringify(task("t1")));
    expect([memory.mock.calls.length, chat.mock.calls.length, tasks.mock.calls.length]).toEqual([1, 1, 1]);

    offMemory();
    offChat();
    expect(es.closed).toBe(false);
    es.fire("task_updated", JSON.stringify(task("t1")));
    es.fire("memory_changed", JSON.stringify({ workspace: "personal", paths: ["a.md"], source: "user" }));
    expect([memory.mock.calls.length, tasks.mock.calls.length]).toEqual([1, 2]);
    offTasks();
    expect(es.closed).toBe(true);
    // Unsubscribing twice does no harm.
    offTasks();

    // A new listener opens a new connection.
    const off = onTaskUpdated(tasks);
    expect(FakeEventSource.instances).toHaveLength(2);
    off();
  });
});

describe("desktop-only commands", () => {
  afterEach(() => {
    clearMocks();
    resetInternals();
  });

  it("are hidden in a browser", () => {
    resetInternals();
    installBrowserTransport();
    expect(isDesktop()).toBe(false);
    expect(canRun("open_folder")).toBe(false);
    expect(canRun("list")).toBe(true);
    expect(canRun("undo_group")).toBe(true);
  });

  it("all run in the app", () => {
    resetInternals();
    mockIPC(() => null);
    expect(isDesktop()).toBe(true);
    expect(canRun("open_folder")).toBe(true);
    expect(canRun("list")).toBe(true);
  });
});

describe("onMemoryChanged inside Tauri", () => {
  beforeEach(() => {
    resetInternals();
    mockIPC(() => null, { shouldMockEvents: true });
  });
  afterEach(() => {
    clearMocks();
    resetInternals();
  });

  it("listens to the memory-changed event", async () => {
    expect(isTauri()).toBe(true);
    const cb = vi.fn();
    const unsubscribe = onMemoryChanged(cb);
    await vi.waitFor(async () => {
      const payload: MemoryChanged = { workspace: "personal", paths: ["b.md"], source: "user" };
      await emit("memory-changed", payload);
      expect(cb).toHaveBeenCalledWith(payload);
    });
    unsubscribe();
    const calls = cb.mock.calls.length;
    await emit("memory-changed", { workspace: "personal", paths: ["c.md"], source: "user" });
    expect(cb.mock.calls.length).toBe(calls);
  });

  it("listens to the task-updated event", async () => {
    const cb = vi.fn();
    const unsubscribe = onTaskUpdated(cb);
    const t = task("t9", { kind: "dream", status: "queued", started_at: null, finished_at: null });
    await vi.waitFor(async () => {
      await emit("task-updated", t);
      expect(cb).toHaveBeenCalledWith(t);
    });
    unsubscribe();
    const calls = cb.mock.calls.length;
    await emit("task-updated", t);
    expect(cb.mock.calls.length).toBe(calls);
  });
});
