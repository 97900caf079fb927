import { describe, expect, it } from "vitest";
import type { DocSummary, Hit } from "./bindings";
import {
  asksToDiscard,
  browserReducer,
  emptyList,
  initialBrowser,
  listMode,
  listRows,
  logsListError,
  openKey,
  shownLogs,
  staleListError,
} from "./browser";
import type { BrowserAction, BrowserState, Intent } from "./browser";
import { docKey } from "./format";
import { DOCS, WORKSPACES, status } from "../test/fixtures";

function run(...actions: BrowserAction[]): BrowserState {
  return actions.reduce(browserReducer, initialBrowser());
}

const NETWORK = { code: "network", message: "offline" };
const listed = (ws: string | null = null, docs = DOCS): BrowserAction => ({ type: "list", ws, answer: { ok: true, data: docs } });
const hit = (path: string, name = path): Hit => ({
  workspace: "personal",
  path,
  score: 1,
  name,
  type: "user",
  description: "",
  mtime: "2026-01-01T00:00:00Z",
});
const searched = (q: string, hits: Hit[], ws: string | null = null, wordsOnly = false): BrowserAction => ({
  type: "search",
  ws,
  q,
  wordsOnly,
  answer: { ok: true, data: hits },
});
const openExisting = (path: string): BrowserAction => ({
  type: "open",
  target: { mode: "existing", workspace: "personal", path },
});
const request = (intent: Intent): BrowserAction => ({ type: "request", intent });
const dirty: BrowserAction = { type: "dirty", dirty: true };
const key = (path: string) => docKey("personal", path);
const itemKeys = (s: BrowserState) => {
  const { searching, docsLoading } = listMode(s);
  return listRows({ searching, docsLoading }, s.docs?.data ?? [], s.search, s.collapsed, shownLogs(s))
    .filter((r) => r.kind === "item")
    .map((r) => r.key);
};

describe("browser state", () => {
  it("starts on the memories view of all workspaces, loading, with the chat as remembered", () => {
    const s = initialBrowser(false);
    expect(s).toMatchObject({ selectedWs: null, view: "memories", detail: null, dirty: false, pending: null, chatOpen: false });
    expect(initialBrowser().chatOpen).toBe(true);
    expect(emptyList(s)).toEqual({ kind: "loading" });
  });

  it("loads workspaces and status", () => {
    const s = run(
      { type: "workspaces", answer: { ok: true, data: WORKSPACES } },
      { type: "status", status: { ...status(), home: "/h" } },
    );
    expect(s.workspaces).toBe(WORKSPACES);
    expect(s.status?.home).toBe("/h");
    // A failure loading the workspaces shows where the list would be.
    expect(emptyList(run({ type: "workspaces", answer: { ok: false, error: NETWORK } }))).toEqual({
      kind: "error",
      error: NETWORK,
    });
  });

  it("shows the list loaded for the selected workspace, grouped", () => {
    let s = run(listed());
    expect(listMode(s).docsLoading).toBe(false);
    expect(itemKeys(s)).toEqual([key("me.md"), key("zeta.md"), key("response-style.md"), key("proj.md"), key("links.md"), key("broken.md")]);

    // Another workspace: loading until its own list arrives.
    s = browserReducer(s, { type: "selectWorkspace", id: "claude-proj" });
    expect(listMode(s).docsLoading).toBe(true);
    expect(itemKeys(s)).toEqual([]);
    expect(emptyList(s)).toEqual({ kind: "loading" });
    s = browserReducer(s, listed("claude-proj", []));
    expect(emptyList(s)).toEqual({ kind: "noMemories" });
  });

  it("keeps the last list when a reload fails, with the error above it", () => {
    let s = run(listed(), { type: "list", ws: null, answer: { ok: false, error: NETWORK } });
    expect(itemKeys(s)).toHaveLength(DOCS.length);
    expect(staleListError(s)).toEqual(NETWORK);
    // A successful load clears it.
    s = browserReducer(s, listed());
    expect(staleListError(s)).toBeNull();
    // A failure before anything loaded is the list's empty state instead.
    s = run({ type: "list", ws: null, answer: { ok: false, error: NETWORK } });
    expect(staleListError(s)).toBeNull();
    expect(emptyList(s)).toEqual({ kind: "error", error: NETWORK });
  });

  it("collapses and expands groups", () => {
    let s = run(listed(), { type: "toggleGroup", group: "user" });
    expect(s.collapsed.has("user")).toBe(true);
    expect(itemKeys(s)).not.toContain(key("me.md"));
    s = browserReducer(s, { type: "toggleGroup", group: "user" });
    expect(s.collapsed.has("user")).toBe(false);
    expect(itemKeys(s)).toContain(key("me.md"));
  });
});

describe("search", () => {
  it("searches the trimmed query; results are done only for the current query and workspace", () => {
    let s = run(listed(), { type: "query", query: "  gra " });
    expect(listMode(s)).toMatchObject({ q: "gra", searching: true, searchDone: false });
    expect(emptyList(s)).toEqual({ kind: "searching" });

    s = browserReducer(s, searched("gra", [hit("links.md", "Dashboards"), hit("me.md")]));
    expect(listMode(s).searchDone).toBe(true);
    expect(itemKeys(s)).toEqual([key("links.md"), key("me.md")]);

    // Typing on: the last results stay until newer ones arrive.
    s = browserReducer(s, { type: "query", query: "graf" });
    expect(listMode(s).searchDone).toBe(false);
    expect(itemKeys(s)).toEqual([key("links.md"), key("me.md")]);

    s = browserReducer(s, { type: "selectWorkspace", id: "claude-proj" });
    expect(listMode(s).searchDone).toBe(false);
  });

  it("starts the cursor over with a new query: ↓ goes to its top hit, not past the memory open", () => {
    let s = run(listed(), { type: "activate", item: { key: key("me.md"), workspace: "personal", path: "me.md" } });
    expect(s.cursorKey).toBe(key("me.md"));
    s = browserReducer(s, { type: "query", query: "gra" });
    expect(s.cursorKey).toBeNull();
    // The memory stays open.
    expect(openKey(s)).toBe(key("me.md"));
  });

  it("results are done only for the current words-only setting", () => {
    let s = run(listed(), { type: "query", query: "gra" }, searched("gra", [hit("links.md")]));
    expect(listMode(s).searchDone).toBe(true);
    s = browserReducer(s, { type: "wordsOnly", on: true });
    expect(s.wordsOnly).toBe(true);
    expect(listMode(s).searchDone).toBe(false);
    s = browserReducer(s, searched("gra", [hit("me.md")], null, true));
    expect(listMode(s).searchDone).toBe(true);
    expect(itemKeys(s)).toEqual([key("me.md")]);
  });

  it("says when nothing matches, and shows search failures", () => {
    let s = run({ type: "query", query: "zzz" }, searched("zzz", []));
    expect(emptyList(s)).toEqual({ kind: "noMatches", q: "zzz" });
    s = browserReducer(s, { type: "search", ws: null, q: "zzz", wordsOnly: false, answer: { ok: false, error: NETWORK } });
    expect(emptyList(s)).toEqual({ kind: "error", error: NETWORK });
    s = browserReducer(s, searched("zzz", []));
    expect(s.searchError).toBeNull();
  });

  it("lists the matches, not the weak hits a client may ask for", () => {
    const s = run({ type: "query", query: "tax" }, searched("tax", [hit("a.md"), { ...hit("b.md"), score: 0, weak: true }]));
    expect(s.search?.hits.map((h) => h.path)).toEqual(["a.md"]);
    const none = run({ type: "query", query: "tax" }, searched("tax", [{ ...hit("b.md"), weak: true }]));
    expect(emptyList(none)).toEqual({ kind: "noMatches", q: "tax" });
  });

  it("fills search rows from the loaded list (kind, age, validity)", () => {
    const s = run(listed(), { type: "query", query: "x" }, searched("x", [hit("broken.md")]));
    const { searching, docsLoading } = listMode(s);
    const rows = listRows({ searching, docsLoading }, s.docs?.data ?? [], s.search, s.collapsed);
    expect(rows[0]).toMatchObject({ kind: "header", group: "results", label: "1 match" });
    expect(rows[1]).toMatchObject({ kind: "item", item: { path: "broken.md", valid: false, kind: "topic" } });
  });

  it("leaves the list behind when the query is cleared", () => {
    const s = run(listed(), { type: "query", query: "x" }, searched("x", []), { type: "query", query: " " });
    expect(listMode(s).searching).toBe(false);
    expect(itemKeys(s)).toHaveLength(DOCS.length);
  });
});

describe("opening memories", () => {
  it("opens, re-opens as a fresh pane, and closes", () => {
    let s = run(openExisting("me.md"));
    expect(s.detail).toEqual({ seq: 1, target: { mode: "existing", workspace: "personal", path: "me.md" } });
    expect(openKey(s)).toBe(key("me.md"));
    s = browserReducer(s, { type: "open", target: { mode: "new", workspace: null } });
    expect(s.detail?.seq).toBe(2);
    expect(openKey(s)).toBeNull();
    s = browserReducer(s, { type: "open", target: null });
    expect(s.detail).toBeNull();
  });

  it("activating a row puts the cursor on it and opens it, unless it is open already", () => {
    const item = { key: key("me.md"), workspace: "personal", path: "me.md" };
    let s = run({ type: "activate", item });
    expect(s.cursorKey).toBe(key("me.md"));
    expect(s.detail?.seq).toBe(1);
    // ↑/↓ move the cursor only: what is open (the selected row) stays.
    s = browserReducer(s, { type: "cursor", key: key("zeta.md") });
    expect(openKey(s)).toBe(key("me.md"));
    s = browserReducer(s, { type: "activate", item });
    expect(s.cursorKey).toBe(key("me.md"));
    expect(s.detail?.seq).toBe(1);
  });

  it("goes to a memory from elsewhere: memories view, the cursor on it, open", () => {
    const s = run({ type: "view", view: "history" }, request({ type: "showMemory", workspace: "personal", path: "proj.md" }));
    expect(s.view).toBe("memories");
    expect(s.cursorKey).toBe(key("proj.md"));
    expect(openKey(s)).toBe(key("proj.md"));
  });

  it("selects and opens a created memory, closes a deleted one", () => {
    let s = run({ type: "open", target: { mode: "new", workspace: null } }, dirty, { type: "created", workspace: "personal", path: "new.md" });
    expect(s).toMatchObject({ cursorKey: key("new.md"), dirty: false });
    expect(openKey(s)).toBe(key("new.md"));
    s = browserReducer(s, { type: "deleted" });
    expect(s).toMatchObject({ detail: null });
  });
});

describe("unsaved edits", () => {
  it("does a request at once when nothing is unsaved", () => {
    const s = run(openExisting("me.md"), request({ type: "view", view: "history" }));
    expect(s.view).toBe("history");
    expect(s.pending).toBeNull();
  });

  it("holds a request while there are unsaved edits, until the user decides", () => {
    const held = run(openExisting("me.md"), dirty, request({ type: "open", target: { mode: "new", workspace: null } }));
    expect(held.pending).toEqual({ type: "open", target: { mode: "new", workspace: null } });
    expect(openKey(held)).toBe(key("me.md"));

    const kept = browserReducer(held, { type: "keepEditing" });
    expect(kept).toMatchObject({ pending: null, dirty: true });
    expect(openKey(kept)).toBe(key("me.md"));

    const dropped = browserReducer(held, { type: "discard" });
    expect(dropped).toMatchObject({ pending: null, dirty: false });
    expect(dropped.detail).toEqual({ seq: 2, target: { mode: "new", workspace: null } });
  });

  it("opens an activated row only after consent; kept editing, the cursor goes back to the open memory", () => {
    const item = { key: key("zeta.md"), workspace: "personal", path: "zeta.md" };
    const s = run(openExisting("me.md"), dirty, { type: "activate", item });
    expect(openKey(s)).toBe(key("me.md"));
    expect(openKey(browserReducer(s, { type: "discard" }))).toBe(key("zeta.md"));
    // After "Keep editing" the list shows the memory that stays open, nowhere else.
    const kept = browserReducer(s, { type: "keepEditing" });
    expect(openKey(kept)).toBe(key("me.md"));
    expect(kept.cursorKey).toBe(key("me.md"));
  });

  it("leaves no row selected once a new memory is cancelled", () => {
    let s = run(openExisting("me.md"), request({ type: "open", target: { mode: "new", workspace: null } }));
    expect(openKey(s)).toBeNull();
    s = browserReducer(s, { type: "open", target: null });
    expect(s.detail).toBeNull();
    // The selected row is the open memory: none now.
    expect(openKey(s)).toBeNull();
  });

  // The save's write can reach the disk (and a click be handled) before its answer comes back: a
  // click then is not asked "discard unsaved edits?" about edits on their way to disk.
  it("during a save, holds a click without asking and does it once the edits are saved", () => {
    const item = { key: key("zeta.md"), workspace: "personal", path: "zeta.md" };
    const saving = run(openExisting("me.md"), dirty, { type: "saving", saving: true }, { type: "activate", item });
    expect(openKey(saving)).toBe(key("me.md"));
    expect(asksToDiscard(saving)).toBe(false);
    const saved = browserReducer(saving, { type: "dirty", dirty: false });
    expect(openKey(saved)).toBe(key("me.md"));
    const done = browserReducer(saved, { type: "saving", saving: false });
    expect(openKey(done)).toBe(key("zeta.md"));
    expect(done).toMatchObject({ pending: null, saving: false, dirty: false });
    expect(asksToDiscard(done)).toBe(false);
  });

  it("asks as usual when the save ends with the edits still unsaved (it failed)", () => {
    const item = { key: key("zeta.md"), workspace: "personal", path: "zeta.md" };
    const failed = run(openExisting("me.md"), dirty, { type: "saving", saving: true }, { type: "activate", item }, { type: "saving", saving: false });
    expect(openKey(failed)).toBe(key("me.md"));
    expect(failed.pending).toEqual({ type: "open", target: { mode: "existing", workspace: "personal", path: "zeta.md" } });
    expect(asksToDiscard(failed)).toBe(true);
    expect(openKey(browserReducer(failed, { type: "discard" }))).toBe(key("zeta.md"));
  });

  it("asks nothing for a switch to the view already shown", () => {
    const s = run(openExisting("me.md"), dirty, request({ type: "view", view: "memories" }));
    expect(s.pending).toBeNull();
  });

  it("forgets the edits whenever another memory opens", () => {
    expect(run(openExisting("me.md"), dirty, openExisting("zeta.md")).dirty).toBe(false);
    const s = run(dirty);
    expect(browserReducer(s, dirty)).toBe(s);
    expect(browserReducer(s, { type: "discard" })).toBe(s);
  });
});

describe("reloads and the chat toggle", () => {
  it("starts in the workspace remembered, and falls back to all workspaces when it is gone", () => {
    const remembered = initialBrowser(true, "claude-proj");
    expect(remembered.selectedWs).toBe("claude-proj");
    const kept = browserReducer(remembered, { type: "workspaces", answer: { ok: true, data: WORKSPACES } });
    expect(kept.selectedWs).toBe("claude-proj");
    // A folder removed since: all workspaces, and its list's answer (an error) is not shown.
    let gone = browserReducer(initialBrowser(true, "removed-folder"), { type: "list", ws: "removed-folder", answer: { ok: false, error: NETWORK } });
    gone = browserReducer(gone, { type: "workspaces", answer: { ok: true, data: WORKSPACES } });
    expect(gone).toMatchObject({ selectedWs: null, docsError: null });
    expect(emptyList(gone)).toEqual({ kind: "loading" });
    // An answer for a workspace no longer chosen is dropped.
    expect(browserReducer(gone, listed("removed-folder")).docs).toBeNull();
  });

  it("shows an added folder", () => {
    expect(run({ type: "folderAdded", id: "folder-x" })).toMatchObject({ selectedWs: "folder-x" });
  });

  it("toggles and closes the chat", () => {
    let s = run({ type: "toggleChat" });
    expect(s.chatOpen).toBe(false);
    s = browserReducer(s, { type: "toggleChat" });
    expect(s.chatOpen).toBe(true);
    expect(browserReducer(s, { type: "setChatOpen", open: false }).chatOpen).toBe(false);
  });
});

describe("daily logs", () => {
  const LOG: DocSummary = {
    workspace: "personal",
    path: "logs/2026/11/2026-11-23.md",
    kind: "log",
    type: null,
    name: "2026-11-23",
    description: "Daily log 2026-11-23",
    mtime: "2026-11-23T10:00:00Z",
    valid: true,
    pinned: false,
    archived: false,
  };
  const logsLoaded = (ws = "personal", logs = [LOG]): BrowserAction => ({ type: "logs", ws, answer: { ok: true, data: logs } });
  const personal: BrowserAction = { type: "selectWorkspace", id: "personal" };

  it("lists the selected workspace's logs in their own group, before invalid files", () => {
    const s = run(personal, listed("personal"), logsLoaded());
    expect(shownLogs(s)).toEqual([LOG]);
    const { searching, docsLoading } = listMode(s);
    const groups = listRows({ searching, docsLoading }, s.docs?.data ?? [], s.search, s.collapsed, shownLogs(s)).flatMap((r) =>
      r.kind === "header" ? [r.group] : [],
    );
    expect(groups).toEqual(["user", "feedback", "project", "reference", "log", "invalid"]);
    expect(itemKeys(s)).toContain(key(LOG.path));
    // Collapsible like any group.
    expect(itemKeys(browserReducer(s, { type: "toggleGroup", group: "log" }))).not.toContain(key(LOG.path));
  });

  it("shows no logs for All workspaces, or logs loaded for another workspace", () => {
    let s = run(personal, listed("personal"), logsLoaded());
    s = browserReducer(s, { type: "selectWorkspace", id: null });
    expect(shownLogs(s)).toEqual([]);
    s = run({ type: "selectWorkspace", id: "claude-proj" }, listed("claude-proj"), logsLoaded("personal"));
    expect(shownLogs(s)).toEqual([]);
  });

  it("lists a log once even if the list had it too", () => {
    const s = run(personal, listed("personal", [...DOCS, LOG]), logsLoaded());
    expect(itemKeys(s).filter((k) => k === key(LOG.path))).toHaveLength(1);
  });

  it("shows a log with no topics instead of the empty state", () => {
    const s = run(personal, listed("personal", []), logsLoaded());
    expect(itemKeys(s)).toEqual([key(LOG.path)]);
  });

  it("fills a log hit's kind and age from the loaded logs", () => {
    const s = run(personal, listed("personal"), logsLoaded(), { type: "query", query: "x" }, searched("x", [{ ...hit(LOG.path, LOG.name), type: null }], "personal"));
    const { searching, docsLoading } = listMode(s);
    const rows = listRows({ searching, docsLoading }, s.docs?.data ?? [], s.search, s.collapsed, shownLogs(s));
    expect(rows[1]).toMatchObject({ kind: "item", item: { kind: "log", mtime: LOG.mtime } });
  });

  it("keeps the last logs when a reload fails and says so while browsing that workspace", () => {
    let s = run(personal, listed("personal"), logsLoaded(), { type: "logs", ws: "personal", answer: { ok: false, error: NETWORK } });
    expect(shownLogs(s)).toEqual([LOG]);
    expect(logsListError(s)).toEqual(NETWORK);
    expect(logsListError(browserReducer(s, { type: "query", query: "x" }))).toBeNull();
    expect(logsListError(browserReducer(s, { type: "selectWorkspace", id: "claude-proj" }))).toBeNull();
    s = browserReducer(s, logsLoaded());
    expect(logsListError(s)).toBeNull();
  });
});
