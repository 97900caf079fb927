// The one place that knows how the UI reaches Mnemo.
//
// Inside the Tauri app, `window.__TAURI_INTERNALS__` is injected by Tauri and the generated
// bindings call it directly. In a browser (served by `mnemo serve`), `installBrowserTransport`
// puts a small stand-in there that sends each command as `POST /api/<command>` with the same
// JSON arguments, so the bindings work unchanged. Change events come from Tauri's event system
// or from the server's Server-Sent Events stream.

import { DESKTOP_ONLY as DESKTOP_ONLY_COMMANDS, events } from "./bindings";
import type { ChatEvent, ErrorCode, Field, MemoryChanged, SyncChanged, TaskInfo } from "./bindings";

/** What every generated command resolves to (tauri-specta's `typedError` shape). */
export type Result<T, E> = { status: "ok"; data: T } | { status: "error"; error: E };

/** Codes the transport makes up itself: no connection, an HTTP failure without an API error body, anything else thrown. */
export type TransportErrorCode = "network" | "internal" | `http_${number}`;

/**
 * An error as the UI handles it: an `ApiError` from Mnemo or one the transport made up. `code` may
 * also be a code this build does not know yet (a newer server); `string & {}` keeps the known
 * codes visible to the editor while admitting those.
 */
export type UiError = {
  code: ErrorCode | TransportErrorCode | (string & {});
  message: string;
  /** The field of a memory the error is about, when Mnemo says so. */
  field?: Field | null;
};

/** Marks the browser stand-in so `isTauri()` can tell it from the real thing. */
const BROWSER_MARK = "__mnemoBrowserTransport";

type InvokeFn = (cmd: string, args?: unknown, options?: unknown) => Promise<unknown>;

interface Internals {
  invoke: InvokeFn;
  transformCallback: (callback?: (response: unknown) => void, once?: boolean) => number;
  unregisterCallback: (id: number) => void;
  convertFileSrc: (filePath: string, protocol?: string) => string;
  metadata: {
    currentWindow: { label: string };
    currentWebview: { windowLabel: string; label: string };
  };
  [BROWSER_MARK]?: true;
}

type TauriWindow = Window & { __TAURI_INTERNALS__?: Partial<Internals>; isTauri?: boolean };

function tauriWindow(): TauriWindow {
  return window as TauriWindow;
}

/** True inside the Tauri app; false in a browser, even after `installBrowserTransport()`. */
export function isTauri(): boolean {
  if (typeof window === "undefined") return false;
  const internals = tauriWindow().__TAURI_INTERNALS__;
  return !!internals && !internals[BROWSER_MARK];
}

/**
 * Commands only the desktop app serves: `mnemo serve` declares them under `desktopOnly` in
 * `GET /capabilities` and answers them with `desktop_only`. Generated from the API's one list.
 */
const DESKTOP_ONLY: ReadonlySet<string> = new Set<string>(DESKTOP_ONLY_COMMANDS);

/** True in the desktop app (Tauri), where every command works; false in a browser. */
export function isDesktop(): boolean {
  return isTauri();
}

/**
 * Whether `command` (its wire name, e.g. `open_folder`) can work here: everything in the app,
 * all but the desktop-only commands in a browser. The UI hides what needs a command that cannot.
 */
export function canRun(command: string): boolean {
  return isDesktop() || !DESKTOP_ONLY.has(command);
}

const FIELDS: readonly string[] = ["path", "name", "description", "type"] satisfies Field[];

/** The error with the field a server named, when it named one this build knows. */
function withField(error: UiError, field: unknown): UiError {
  return typeof field === "string" && FIELDS.includes(field) ? { ...error, field: field as Field } : error;
}

function isErrorShape(v: unknown): v is UiError {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as UiError).code === "string" &&
    typeof (v as UiError).message === "string"
  );
}

/** Turns a failed HTTP response into the `{code, message}` the Tauri transport would reject with. */
export function httpError(status: number, statusText: string, body: unknown): UiError {
  if (isErrorShape(body)) return withField({ code: body.code, message: body.message }, body.field);
  // Also accept the CLI's envelope, `{"error": {code, message}}`.
  if (typeof body === "object" && body !== null && isErrorShape((body as { error?: unknown }).error)) {
    const e = (body as { error: UiError }).error;
    return withField({ code: e.code, message: e.message }, e.field);
  }
  return { code: `http_${status}`, message: statusText || `HTTP ${status}` };
}

/** `invoke` for the browser: `POST /api/<cmd>` with the JSON arguments; rejects with a UiError. */
export async function httpInvoke(cmd: string, args?: unknown): Promise<unknown> {
  let r: Response;
  try {
    r = await fetch("/api/" + cmd, {
      method: "POST",
      headers: { "content-type": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify(args ?? {}),
    });
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    const err: UiError = { code: "network", message: `Cannot reach the Mnemo server (${detail}).` };
    throw err;
  }
  const body: unknown = await r.json().catch(() => null);
  if (!r.ok) throw httpError(r.status, r.statusText, body);
  return body;
}

/** Installs the HTTP stand-in for `window.__TAURI_INTERNALS__`. Does nothing inside Tauri. */
export function installBrowserTransport(): void {
  if (isTauri()) return;
  const callbacks = new Map<number, (response: unknown) => void>();
  let nextId = 1;
  const internals: Internals = {
    invoke: (cmd, args) => httpInvoke(cmd, args),
    transformCallback: (callback, once = false) => {
      const id = nextId++;
      callbacks.set(id, (response) => {
        if (once) callbacks.delete(id);
        callback?.(response);
      });
      return id;
    },
    unregisterCallback: (id) => {
      callbacks.delete(id);
    },
    convertFileSrc: (filePath) => filePath,
    metadata: {
      currentWindow: { label: "main" },
      currentWebview: { windowLabel: "main", label: "main" },
    },
    [BROWSER_MARK]: true,
  };
  tauriWindow().__TAURI_INTERNALS__ = internals;
}

function isMemoryChanged(v: unknown): v is MemoryChanged {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as MemoryChanged).workspace === "string" &&
    Array.isArray((v as MemoryChanged).paths)
  );
}

/** Listens to a typed Tauri event; returns the unsubscribe function (safe to call early). */
function listenTauri<T>(
  event: { listen: (cb: (e: { payload: T }) => void) => Promise<() => void> },
  name: string,
  cb: (payload: T) => void,
): () => void {
  let closed = false;
  let unlisten: (() => void) | null = null;
  event
    .listen((e) => {
      if (!closed) cb(e.payload);
    })
    .then((fn) => {
      if (closed) stopListening(fn, name);
      else unlisten = fn;
    })
    .catch((e: unknown) => {
      console.error(`mnemo: cannot listen for ${name}`, e);
    });
  return () => {
    closed = true;
    if (unlisten) stopListening(unlisten, name);
  };
}

/**
 * Calls a Tauri unlisten function, which answers asynchronously: when the window's event plugin
 * is gone (the page is closing, or a test's mocks were cleared first) there is nothing left to
 * unsubscribe from, and a component's clean-up must neither throw nor leave a rejection behind.
 */
function stopListening(unlisten: () => void, name: string): void {
  const warn = (e: unknown) => console.warn(`mnemo: cannot stop listening for ${name}`, e);
  try {
    const done: unknown = unlisten();
    if (done instanceof Promise) done.catch(warn);
  } catch (e) {
    warn(e);
  }
}

interface SseSub {
  name: string;
  deliver: (data: string) => void;
  onResync?: () => void;
}

/**
 * The one `GET /events` stream, shared by every listener while any is subscribed: browsers allow
 * only a few connections per server over HTTP/1.1, and each open EventSource holds one.
 */
interface SseHub {
  source: EventSource;
  /** The EventSource class it was made with (tests swap it). */
  ctor: typeof EventSource;
  subs: Set<SseSub>;
  /** Event names with a listener on `source`. */
  names: Set<string>;
}

let hub: SseHub | null = null;

function sseHub(): SseHub {
  if (hub && hub.ctor === EventSource) return hub;
  const source = new EventSource("/events");
  const h: SseHub = { source, ctor: EventSource, subs: new Set(), names: new Set() };
  let dropped = false;
  source.addEventListener("error", () => {
    dropped = true;
  });
  source.addEventListener("open", () => {
    if (!dropped) return;
    dropped = false;
    for (const sub of [...h.subs]) sub.onResync?.();
  });
  hub = h;
  return h;
}

/**
 * Listens to one kind of the server's Server-Sent Events (`GET /events`); events whose JSON
 * does not pass `isValid` are dropped. `onResync` fires when the stream reconnects after a drop.
 */
function listenSse<T>(name: string, isValid: (v: unknown) => v is T, cb: (e: T) => void, onResync?: () => void): () => void {
  if (typeof EventSource === "undefined") return () => {};
  const h = sseHub();
  if (!h.names.has(name)) {
    h.names.add(name);
    h.source.addEventListener(name, (ev: Event) => {
      const data = (ev as MessageEvent<string>).data;
      for (const sub of [...h.subs]) if (sub.name === name) sub.deliver(data);
    });
  }
  const sub: SseSub = {
    name,
    deliver: (data) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        return;
      }
      if (isValid(parsed)) cb(parsed);
    },
    onResync,
  };
  h.subs.add(sub);
  return () => {
    if (!h.subs.delete(sub) || h.subs.size > 0) return;
    h.source.close();
    if (hub === h) hub = null;
  };
}

/**
 * Calls `cb` for every `memory_changed` event; returns the unsubscribe function.
 * `onResync` (browser only) fires when the event stream reconnects after a drop, since events
 * may have been missed meanwhile: the caller should reload what it shows.
 */
export function onMemoryChanged(cb: (e: MemoryChanged) => void, onResync?: () => void): () => void {
  if (isTauri()) return listenTauri(events.memoryChanged, "memory-changed", cb);
  return listenSse("memory_changed", isMemoryChanged, cb, onResync);
}

function isChatEvent(v: unknown): v is ChatEvent {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as ChatEvent).kind === "string" &&
    typeof (v as ChatEvent).session === "string"
  );
}

/**
 * Calls `cb` for every chat event (reply deltas, recall, tool use, background extraction);
 * returns the unsubscribe function. Tauri event `chat-event` in the app, SSE `chat` in a browser.
 */
export function onChatEvent(cb: (e: ChatEvent) => void): () => void {
  if (isTauri()) return listenTauri(events.chatEvent, "chat-event", cb);
  return listenSse("chat", isChatEvent, cb);
}

function isTaskInfo(v: unknown): v is TaskInfo {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as TaskInfo).id === "string" &&
    typeof (v as TaskInfo).kind === "string" &&
    typeof (v as TaskInfo).status === "string" &&
    typeof (v as TaskInfo).workspace === "string" &&
    Array.isArray((v as TaskInfo).tools)
  );
}

/**
 * Calls `cb` with a memory task's new state each time it changes (queued, running, a tool call,
 * finished); returns the unsubscribe function. Tauri event `task-updated` in the app, SSE
 * `task_updated` in a browser, where `onResync` fires when the stream reconnects after a drop.
 */
export function onTaskUpdated(cb: (task: TaskInfo) => void, onResync?: () => void): () => void {
  if (isTauri()) return listenTauri(events.taskUpdated, "task-updated", cb);
  return listenSse("task_updated", isTaskInfo, cb, onResync);
}

function isSyncChanged(v: unknown): v is SyncChanged {
  return typeof v === "object" && v !== null;
}

/**
 * Calls `cb` each time the sync state changes — a sync ran, left or closed a conflict, here or in
 * another process (`mnemo sync`); returns the unsubscribe function. Tauri event `sync-changed` in
 * the app, SSE `sync_changed` in a browser, where `onResync` fires when the stream reconnects.
 */
export function onSyncStateChanged(cb: () => void, onResync?: () => void): () => void {
  if (isTauri()) return listenTauri(events.syncChanged, "sync-changed", () => cb());
  return listenSse("sync_changed", isSyncChanged, () => cb(), onResync);
}

/** A UiError that is also an `Error` (stack trace, `instanceof Error`), with its stable `code`. */
export class ApiFailure extends Error {
  readonly code: UiError["code"];
  readonly field: UiError["field"];
  constructor(e: UiError) {
    super(e.message);
    this.name = "ApiFailure";
    this.code = e.code;
    this.field = e.field;
  }
}

/**
 * The data of an ok result; throws the error (as an `ApiFailure`) otherwise. The bindings type
 * their errors as `ApiError`, but in a browser the transport may reject with its own codes.
 */
export function unwrap<T>(r: Result<T, UiError>): T {
  if (r.status === "ok") return r.data;
  throw new ApiFailure(r.error);
}

/** Normalises anything caught into `{code, message}` (and the field it names) for display. */
export function toUiError(e: unknown): UiError {
  if (e instanceof ApiFailure) return withField({ code: e.code, message: e.message }, e.field);
  if (isErrorShape(e)) return withField({ code: e.code, message: e.message }, e.field);
  if (e instanceof Error) return { code: "internal", message: e.message };
  return { code: "internal", message: String(e) };
}
