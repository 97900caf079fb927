import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { App, CHAT_OPEN_KEY, SEARCH_DEBOUNCE_MS } from "./App";
import { formatClock } from "./lib/format";
import { ToastProvider } from "./components/common/Toasts";
import { commands } from "./lib/bindings";
import type { TaskInfo } from "./lib/bindings";
import { DOCS, MODEL_SETTINGS, SYNC_SETTINGS, WORKSPACES, detailOf, err, ok, proposalPage, remoteSync, reviewMode, status, task } from "./test/fixtures";

vi.mock("./lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    workspaces: vi.fn(),
    addFolder: vi.fn(),
    list: vi.fn(),
    logs: vi.fn(),
    get: vi.fn(),
    create: vi.fn(),
    update: vi.fn(),
    remove: vi.fn(),
    search: vi.fn(),
    history: vi.fn(),
    diff: vi.fn(),
    undo: vi.fn(),
    status: vi.fn(),
    getSettings: vi.fn(),
    setSettings: vi.fn(),
    openFolder: vi.fn(),
    getModelSettings: vi.fn(),
    // The local model's state: not read in these tests (the welcome and settings say they could not).
    localModel: vi.fn(async () => ({ status: "error", error: { code: "io", message: "not read in this test" } })),
    setModelSettings: vi.fn(),
    testModel: vi.fn(),
    modelList: vi.fn(),
    chatSessions: vi.fn(),
    chatCreate: vi.fn(),
    chatTranscript: vi.fn(),
    chatUpdate: vi.fn(),
    chatDelete: vi.fn(),
    chatSend: vi.fn(),
    chatCancel: vi.fn(),
    tasks: vi.fn(),
    taskCancel: vi.fn(),
    changeGroup: vi.fn(),
    undoGroup: vi.fn(),
    dream: vi.fn(),
    task: vi.fn(),
    autoDream: vi.fn(),
    setAutoDream: vi.fn(),
    setPinned: vi.fn(),
    syncStatus: vi.fn(),
    syncSettings: vi.fn(),
    setSyncSettings: vi.fn(),
    syncNow: vi.fn(),
    reviewMode: vi.fn(),
    setReviewMode: vi.fn(),
    inbox: vi.fn(),
    proposal: vi.fn(),
    inboxAccept: vi.fn(),
    inboxReject: vi.fn(),
    memoryUsage: vi.fn(),
  },
}));

const api = vi.mocked(commands);

class FakeEventSource {
  static instances: FakeEventSource[] = [];
  private listeners = new Map<string, ((e: Event) => void)[]>();
  constructor(readonly url: string) {
    FakeEventSource.instances.push(this);
  }
  addEventListener(type: string, fn: (e: Event) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  close() {}
  fire(type: string, data: unknown) {
    for (const fn of this.listeners.get(type) ?? []) fn(new MessageEvent(type, { data: JSON.stringify(data) }));
  }
}

beforeEach(() => {
  api.reviewMode.mockResolvedValue(ok(reviewMode()));
  api.inbox.mockResolvedValue(ok(proposalPage()));
  api.memoryUsage.mockResolvedValue(ok([]));
  FakeEventSource.instances = [];
  vi.stubGlobal("EventSource", FakeEventSource);
  api.workspaces.mockResolvedValue(ok(WORKSPACES));
  api.logs.mockResolvedValue(ok([]));
  api.status.mockResolvedValue(ok(status()));
  api.list.mockResolvedValue(ok(DOCS));
  api.get.mockImplementation(async (workspace, path) => {
    const d = DOCS.find((x) => x.workspace === workspace && x.path === path);
    return d ? ok(detailOf(d)) : err("not_found", `no memory ${path}`);
  });
  api.search.mockResolvedValue(ok([]));
  api.history.mockResolvedValue(ok([]));
  api.getModelSettings.mockResolvedValue(ok(MODEL_SETTINGS));
  api.chatSessions.mockResolvedValue(ok([]));
  api.chatTranscript.mockResolvedValue(err("not_found", "no such chat"));
  api.tasks.mockResolvedValue(ok([]));
  api.autoDream.mockResolvedValue(ok(true));
  api.syncStatus.mockResolvedValue(ok(remoteSync({ remote: null })));
  api.syncSettings.mockResolvedValue(ok(SYNC_SETTINGS));
  localStorage.clear();
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function renderApp() {
  return render(
    <ToastProvider>
      <App />
    </ToastProvider>,
  );
}

const rowPaths = () => screen.queryAllByTestId("memory-row").map((r) => r.getAttribute("data-path"));

async function openRow(path: string) {
  const row = await screen.findByText((_, el) => el?.getAttribute("data-path") === path);
  fireEvent.click(row);
  await waitFor(() => expect(screen.getByTestId<HTMLInputElement>("detail-name").value).not.toBe(""));
}

describe("memory list", () => {
  it("groups memories by type, then invalid, and shows each row", async () => {
    renderApp();
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    expect(api.list).toHaveBeenCalledWith(null, null);

    const groups = screen.getAllByTestId("group-header").map((h) => h.getAttribute("data-group"));
    expect(groups).toEqual(["user", "feedback", "project", "reference", "invalid"]);
    // Sorted by name within a group.
    expect(rowPaths()).toEqual(["me.md", "zeta.md", "response-style.md", "proj.md", "links.md", "broken.md"]);

    const row = screen.getAllByTestId("memory-row")[2];
    expect(within(row).getByText("Response style")).toBeTruthy();
    expect(within(row).getByText("Keep answers terse")).toBeTruthy();
    expect(within(row).getByText("feedback")).toBeTruthy();
    // Changed today: its local time, not "today" on every row.
    const d = new Date(DOCS.find((x) => x.path === row.getAttribute("data-path"))!.mtime);
    expect(within(row).getByText(formatClock(d))).toBeTruthy();
    // "All workspaces" shows which workspace a row belongs to.
    expect(within(row).getByText("Personal")).toBeTruthy();

    const invalid = screen.getAllByTestId("memory-row")[5];
    expect(invalid.getAttribute("title")).toContain("missing name in frontmatter");
  });

  it("lists the workspaces by kind with counts and filters by workspace", async () => {
    renderApp();
    const items = await screen.findAllByTestId("workspace-item");
    expect(items.map((i) => i.getAttribute("data-id"))).toEqual(["personal", "claude-proj"]);
    expect(screen.getByText("Claude Code")).toBeTruthy();
    expect(within(items[0]).getByText("5")).toBeTruthy();
    expect(await screen.findByText("/home/u/.local/share/mnemo")).toBeTruthy();

    fireEvent.click(items[1]);
    await waitFor(() => expect(api.list).toHaveBeenCalledWith("claude-proj", null));
  });

  it("shows an empty state when there are no memories", async () => {
    api.list.mockResolvedValue(ok([]));
    renderApp();
    expect(await screen.findByText("No memories yet")).toBeTruthy();
  });

  it("moves the cursor with arrow keys and opens with Enter; the selected row is always the open memory", async () => {
    renderApp();
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    const list = screen.getByTestId("memory-list");
    fireEvent.keyDown(list, { key: "ArrowDown" });
    fireEvent.keyDown(list, { key: "ArrowDown" });
    const rows = () => screen.getAllByTestId("memory-row");
    const cursor = () => rows().filter((r) => r.getAttribute("data-cursor") === "true").map((r) => r.getAttribute("data-path"));
    const selected = () => rows().filter((r) => r.getAttribute("aria-selected") === "true").map((r) => r.getAttribute("data-path"));
    expect(cursor()).toEqual(["zeta.md"]);
    expect(list.getAttribute("aria-activedescendant")).toBe(rows().find((r) => r.getAttribute("data-path") === "zeta.md")?.id);
    // Nothing open yet: nothing selected.
    expect(selected()).toEqual([]);
    fireEvent.keyDown(list, { key: "Enter" });
    await waitFor(() => expect(api.get).toHaveBeenCalledWith("personal", "zeta.md"));
    expect(await screen.findByDisplayValue("Zeta user fact")).toBeTruthy();
    expect(selected()).toEqual(["zeta.md"]);
  });
});

describe("new, changed and pinned memories in the list", () => {
  beforeEach(() => localStorage.clear());

  it("marks what others wrote as New or Changed, says who, and clears the mark once opened", async () => {
    renderApp();
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    const withTrip = [...DOCS, { ...DOCS[0], path: "trip.md", name: "Trip", description: "Window seats" }];
    api.list.mockResolvedValue(ok(withTrip));
    api.get.mockImplementation(async (workspace, path) => {
      const d = withTrip.find((x) => x.workspace === workspace && x.path === path);
      return d ? ok(detailOf(d)) : err("not_found", `no memory ${path}`);
    });
    act(() => {
      for (const es of FakeEventSource.instances) {
        es.fire("memory_changed", { workspace: "personal", paths: ["me.md", "trip.md"], source: "extract" });
        es.fire("memory_changed", { workspace: "personal", paths: ["zeta.md"], source: "user" });
      }
    });
    await waitFor(() => expect(rowPaths()).toContain("trip.md"));
    const marks = () =>
      screen.getAllByTestId("unseen-mark").map((m) => [m.closest("[data-path]")?.getAttribute("data-path"), m.textContent, m.getAttribute("aria-label")]);
    await waitFor(() => expect(marks()).toHaveLength(2));
    expect(marks()).toEqual(
      expect.arrayContaining([
        ["me.md", "Changed", "Changed, by Extraction"],
        ["trip.md", "New", "New, by Extraction"],
      ]),
    );
    // Opening it is seeing it; the other mark stays (and survives a reload of the page).
    await openRow("trip.md");
    await waitFor(() => expect(marks().map((m) => m[0])).toEqual(["me.md"]));
    expect(localStorage.getItem("mnemo.unseen")).toContain("me.md");
  });

  it("shows a pin on pinned memories", async () => {
    api.list.mockResolvedValue(ok(DOCS.map((d) => (d.path === "proj.md" ? { ...d, pinned: true } : d))));
    renderApp();
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    const pins = screen.getAllByTestId("pin-mark");
    expect(pins.map((p) => p.closest("[data-path]")?.getAttribute("data-path"))).toEqual(["proj.md"]);
    expect(pins[0].getAttribute("aria-label")).toBe("Pinned");
  });

  it("closes another workspace's memory when a workspace is chosen, and keeps it under All workspaces", async () => {
    renderApp();
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    await openRow("me.md");
    // All workspaces → Personal: the memory is Personal's, it stays.
    fireEvent.click((await screen.findAllByTestId("workspace-item"))[0]);
    await waitFor(() => expect(api.logs).toHaveBeenCalledWith("personal"));
    expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe("Alpha role");
    // Personal → the Claude project: Personal's memory closes.
    api.list.mockResolvedValue(ok([]));
    fireEvent.click(screen.getAllByTestId("workspace-item")[1]);
    await waitFor(() => expect(screen.queryByTestId("detail-name")).toBeNull());
  });
});

describe("first run", () => {
  it("welcomes a new person where a memory would open, and the empty pane offers it again", async () => {
    localStorage.clear();
    renderApp();
    expect(await screen.findByTestId("welcome")).toBeTruthy();
    fireEvent.click(screen.getByTestId("welcome-start"));
    expect(screen.queryByTestId("welcome")).toBeNull();
    fireEvent.click(screen.getByTestId("welcome-reopen"));
    expect(screen.getByTestId("welcome")).toBeTruthy();
    // Opening a memory shows the memory.
    await openRow("me.md");
    expect(screen.queryByTestId("welcome")).toBeNull();
  });
});

describe("daily logs", () => {
  const LOG = {
    workspace: "personal",
    path: "logs/2026/11/2026-11-23.md",
    kind: "log" as const,
    type: null,
    name: "2026-11-23",
    description: "Daily log 2026-11-23",
    mtime: "2026-11-23T10:00:00Z",
    valid: true,
    pinned: false,
    archived: false,
  };
  const OLDER = { ...LOG, path: "logs/2026/11/2026-11-22.md", name: "2026-11-22", description: "Daily log 2026-11-22" };

  it("lists a workspace's logs by day, opens one like a memory, and reloads them on changes", async () => {
    api.logs.mockResolvedValue(ok([LOG, OLDER]));
    api.get.mockImplementation(async (workspace, path) => {
      if (path === LOG.path) {
        const body = "# 2026-11-23\n\nNotes.\n";
        return ok({ ...LOG, hash: "hl", content: body, body, entries: [], pinned: false });
      }
      const d = DOCS.find((x) => x.workspace === workspace && x.path === path);
      return d ? ok(detailOf(d)) : err("not_found", `no memory ${path}`);
    });
    renderApp();
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    // "All workspaces" has no daily logs of its own.
    expect(api.logs).not.toHaveBeenCalled();

    fireEvent.click((await screen.findAllByTestId("workspace-item"))[0]);
    await waitFor(() => expect(api.logs).toHaveBeenCalledWith("personal"));
    await waitFor(() => expect(rowPaths()).toContain(LOG.path));
    const groups = screen.getAllByTestId("group-header");
    expect(groups.map((h) => h.getAttribute("data-group"))).toEqual(["user", "feedback", "project", "reference", "log", "invalid"]);
    expect(groups[4].textContent).toContain("Daily logs");
    // Newest day first, by date, with the description and the last change.
    expect(rowPaths().slice(5, 7)).toEqual([LOG.path, OLDER.path]);
    const row = screen.getAllByTestId("memory-row")[5];
    expect(within(row).getByText("2026-11-23")).toBeTruthy();
    expect(within(row).getByText("log")).toBeTruthy();
    expect(row.textContent).toContain("Daily log 2026-11-23");
    expect(row.textContent).toContain("last change");

    fireEvent.click(row);
    await waitFor(() => expect(api.get).toHaveBeenCalledWith("personal", LOG.path));
    expect(await screen.findByRole("heading", { name: "Daily log 2026-11-23" })).toBeTruthy();
    expect(screen.queryByTestId("detail-name")).toBeNull();
    expect(screen.queryByTestId("detail-type")).toBeNull();

    const calls = api.logs.mock.calls.length;
    act(() => {
      for (const es of FakeEventSource.instances)
        es.fire("memory_changed", { workspace: "personal", paths: [LOG.path], source: "chat" });
    });
    await waitFor(() => expect(api.logs.mock.calls.length).toBeGreaterThan(calls));
  });

  it("shows a log search hit as a log", async () => {
    api.search.mockResolvedValue(
      ok([{ workspace: "personal", path: LOG.path, score: 1, name: LOG.name, type: null, description: LOG.description, mtime: LOG.mtime }]),
    );
    renderApp();
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    fireEvent.change(screen.getByTestId("search-input"), { target: { value: "trip" } });
    await waitFor(() => expect(rowPaths()).toEqual([LOG.path]));
    const row = screen.getByTestId("memory-row");
    expect(within(row).getByText("log")).toBeTruthy();
    expect(within(row).getByText("2026-11-23")).toBeTruthy();
  });

  it("says when a workspace's logs cannot be loaded, and still lists its memories", async () => {
    api.logs.mockResolvedValue(err("io", "cannot read logs"));
    renderApp();
    fireEvent.click((await screen.findAllByTestId("workspace-item"))[0]);
    expect((await screen.findByTestId("logs-error")).textContent).toContain("Daily logs could not be loaded: cannot read logs");
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
  });

  it("lists conversation records after the logs with a chat chip, and opens one body-only", async () => {
    const RECORD = {
      ...LOG,
      path: "chats/2026/11/2026-11-27-s1.md",
      kind: "chat" as const,
      name: "From your chat on 27 Nov 2026",
      description: "What you said in a chat on 27 Nov 2026",
      mtime: "2026-11-27T14:02:00Z",
    };
    api.logs.mockResolvedValue(ok([LOG, RECORD]));
    api.get.mockImplementation(async (workspace, path) => {
      if (path === RECORD.path) {
        const body = "# Chat on 2026-11-27 (UTC)\n\n14:02 — I'm allergic to peanuts\n";
        return ok({ ...RECORD, hash: "hc", content: body, body, entries: [], pinned: false });
      }
      const d = DOCS.find((x) => x.workspace === workspace && x.path === path);
      return d ? ok(detailOf(d)) : err("not_found", `no memory ${path}`);
    });
    renderApp();
    fireEvent.click((await screen.findAllByTestId("workspace-item"))[0]);
    await waitFor(() => expect(rowPaths()).toContain(RECORD.path));
    const groups = screen.getAllByTestId("group-header");
    expect(groups.map((h) => h.getAttribute("data-group"))).toEqual(["user", "feedback", "project", "reference", "log", "chat", "invalid"]);
    expect(groups[5].textContent).toContain("Conversation records");
    const row = screen.getAllByTestId("memory-row").find((r) => r.getAttribute("data-path") === RECORD.path)!;
    const chip = within(row).getByText("chat");
    expect(chip.className).toBe("type-chip type-chat");
    expect(within(row).getByText("From your chat on 27 Nov 2026")).toBeTruthy();
    expect(row.textContent).toContain("What you said in a chat on 27 Nov 2026");
    expect(row.textContent).toContain("last change");

    fireEvent.click(row);
    expect(await screen.findByRole("heading", { name: "From your chat on 27 Nov 2026" })).toBeTruthy();
    expect(screen.queryByTestId("detail-name")).toBeNull();
    expect(screen.queryByTestId("detail-description")).toBeNull();
    expect(screen.queryByTestId("detail-type")).toBeNull();
  });
});

describe("instant search", () => {
  it("debounces typing into one search and shows hits best first", async () => {
    api.search.mockResolvedValue(
      ok([
        { workspace: "personal", path: "links.md", score: 9, name: "Dashboards", type: "reference", description: "Grafana", mtime: "2026-01-01T00:00:00Z" },
        { workspace: "personal", path: "me.md", score: 3, name: "Alpha role", type: "user", description: "Rust", mtime: "2026-01-01T00:00:00Z" },
      ]),
    );
    renderApp();
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    const input = screen.getByTestId("search-input");
    fireEvent.change(input, { target: { value: "g" } });
    fireEvent.change(input, { target: { value: "gr" } });
    fireEvent.change(input, { target: { value: "gra" } });
    expect(api.search).not.toHaveBeenCalled();

    await waitFor(() => expect(rowPaths()).toEqual(["links.md", "me.md"]));
    expect(api.search).toHaveBeenCalledTimes(1);
    expect(api.search).toHaveBeenCalledWith(null, "gra", 200, null);
    expect(screen.getByText("2 matches")).toBeTruthy();
    // Without an embedding model there is nothing to choose: words only is not offered.
    expect(screen.queryByTestId("words-only-toggle")).toBeNull();
    expect(screen.queryByTestId("match-hint")).toBeNull();
  });

  it("hints how each hit matched, and searches by words only when asked", async () => {
    api.status.mockResolvedValue(
      ok(status({ state: "ready", model: "bge-small-en-v1.5", embedded: 6, total: 6, message: "hybrid search on (meaning and words)" })),
    );
    const mtime = "2026-01-01T00:00:00Z";
    api.search.mockImplementation(async (_ws, _q, _limit, lexical) =>
      ok(
        lexical
          ? [{ workspace: "personal", path: "me.md", score: 1, name: "Alpha role", type: "user", description: "Rust", mtime, lexical: 1 }]
          : [
              { workspace: "personal", path: "links.md", score: 0.9, name: "Dashboards", type: "reference", description: "Grafana", mtime, vector: 0.71 },
              { workspace: "personal", path: "me.md", score: 0.5, name: "Alpha role", type: "user", description: "Rust", mtime, vector: 0.4, lexical: 1 },
            ],
      ),
    );
    renderApp();
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    fireEvent.change(screen.getByTestId("search-input"), { target: { value: "charts" } });
    await waitFor(() => expect(rowPaths()).toEqual(["links.md", "me.md"]));
    expect(api.search).toHaveBeenLastCalledWith(null, "charts", 200, null);
    const hints = screen.getAllByTestId("match-hint");
    expect(hints.map((h) => h.textContent)).toEqual(["meaning", "meaning + words"]);
    expect(hints[1].getAttribute("title")).toBe("Relevance 50 % — matched by meaning 0.40 · words 1.00");
    // Each result's relevance as a bar.
    expect(screen.getAllByTestId("score-bar").map((b) => b.getAttribute("aria-label"))).toEqual(["Relevance 90 %", "Relevance 50 %"]);

    fireEvent.click(screen.getByTestId("words-only-toggle"));
    await waitFor(() => expect(rowPaths()).toEqual(["me.md"]));
    expect(api.search).toHaveBeenLastCalledWith(null, "charts", 200, true);
    expect(screen.getAllByTestId("match-hint").map((h) => h.textContent)).toEqual(["words"]);
  });

  it("opens the top hit with ↓ then Enter after a query, not the row after the memory already open", async () => {
    const mtime = "2026-01-01T00:00:00Z";
    api.search.mockResolvedValue(
      ok([
        { workspace: "personal", path: "links.md", score: 9, name: "Dashboards", type: "reference", description: "Grafana", mtime },
        { workspace: "personal", path: "zeta.md", score: 5, name: "Zeta user fact", type: "user", description: "", mtime },
        { workspace: "personal", path: "me.md", score: 3, name: "Alpha role", type: "user", description: "Rust", mtime },
      ]),
    );
    renderApp();
    await openRow("zeta.md");
    const input = screen.getByTestId("search-input");
    input.focus();
    fireEvent.change(input, { target: { value: "a" } });
    await waitFor(() => expect(rowPaths()).toEqual(["links.md", "zeta.md", "me.md"]));
    fireEvent.keyDown(input, { key: "ArrowDown" });
    const cursor = () => screen.getAllByTestId("memory-row").filter((r) => r.getAttribute("data-cursor") === "true").map((r) => r.getAttribute("data-path"));
    expect(cursor()).toEqual(["links.md"]);
    api.get.mockClear();
    fireEvent.keyDown(input, { key: "Enter" });
    await waitFor(() => expect(api.get).toHaveBeenCalledWith("personal", "links.md"));
    expect(api.get).not.toHaveBeenCalledWith("personal", "me.md");
    expect(await screen.findByDisplayValue("Dashboards")).toBeTruthy();
  });

  it("says so when nothing matches, and Ctrl+K focuses the box", async () => {
    renderApp();
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    const input = screen.getByTestId("search-input");
    fireEvent.keyDown(window, { key: "k", ctrlKey: true });
    expect(document.activeElement).toBe(input);
    fireEvent.change(input, { target: { value: "zzz" } });
    await new Promise((r) => setTimeout(r, SEARCH_DEBOUNCE_MS + 20));
    expect(await screen.findByText((_, el) => el?.className === "empty" && el.textContent === "No matches for “zzz”.")).toBeTruthy();
    expect(rowPaths()).toEqual([]);
  });
});

describe("detail pane", () => {
  it("saves with the expected hash and shows a failed save inline", async () => {
    api.update.mockResolvedValue(err("invalid_frontmatter", "`name` must not be empty", "name"));
    renderApp();
    await openRow("response-style.md");
    expect(screen.getByTestId<HTMLInputElement>("detail-description").value).toBe("Keep answers terse");
    expect(screen.getByTestId<HTMLSelectElement>("detail-type").value).toBe("feedback");
    // CodeMirror mounts in an effect after the first paint: wait for its content.
    await waitFor(() =>
      expect(screen.getByTestId("detail-editor").querySelector(".cm-content")?.textContent).toContain("Why: because."),
    );

    fireEvent.change(screen.getByTestId("detail-name"), { target: { value: "" } });
    fireEvent.click(screen.getByTestId("save-button"));

    const error = await screen.findByTestId("inline-error");
    // A sentence with what to do, never the server's “name” must not be empty.
    expect(error.textContent).toContain("The name must not be empty: write one, then save again.");
    expect(error.textContent).not.toContain("“name”");
    expect(error.getAttribute("data-code")).toBe("invalid_frontmatter");
    // Under the field it is about (not under Description), with the field marked.
    const name = screen.getByTestId("detail-name");
    expect(name.getAttribute("aria-invalid")).toBe("true");
    expect(name.compareDocumentPosition(error) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(error.compareDocumentPosition(screen.getByTestId("detail-description")) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(api.update).toHaveBeenCalledWith("personal", "response-style.md", {
      name: "",
      description: "Keep answers terse",
      type: "feedback",
      body: "Keep answers terse.\nWhy: because.\n",
      expected_hash: "h1",
    });
  });

  it("saves with Ctrl+S and confirms with a toast", async () => {
    api.update.mockResolvedValue(ok({ workspace: "personal", path: "proj.md", change_id: 7, hash: "h2", shared: null }));
    renderApp();
    await openRow("proj.md");
    fireEvent.change(screen.getByTestId("detail-type"), { target: { value: "reference" } });
    fireEvent.keyDown(window, { key: "s", ctrlKey: true });
    await waitFor(() => expect(api.update).toHaveBeenCalledTimes(1));
    expect(api.update.mock.calls[0][2]).toMatchObject({ type: "reference", expected_hash: "h1" });
    expect((await screen.findByTestId("toast")).textContent).toContain("Saved");
    expect(screen.queryByTestId("inline-error")).toBeNull();
  });

  it("never says Saved for Ctrl+S with nothing changed, nor for Ctrl+S in a dialog over the memory", async () => {
    api.update.mockResolvedValue(ok({ workspace: "personal", path: "proj.md", change_id: 7, hash: "h2", shared: null }));
    renderApp();
    await openRow("proj.md");
    fireEvent.keyDown(window, { key: "s", ctrlKey: true });
    expect((await screen.findByTestId("toast")).textContent).toContain("No changes to save.");
    // Edited, then Ctrl+S while the Settings dialog is open: the memory is not saved behind it.
    fireEvent.change(screen.getByTestId("detail-type"), { target: { value: "reference" } });
    fireEvent.keyDown(window, { key: ",", ctrlKey: true });
    const dialog = await screen.findByTestId("model-settings");
    fireEvent.keyDown(await within(dialog).findByTestId("model-base-url"), { key: "s", ctrlKey: true });
    fireEvent.keyDown(document.body, { key: "s", ctrlKey: true });
    await new Promise((r) => setTimeout(r, 20));
    expect(api.update).not.toHaveBeenCalled();
    expect(screen.queryAllByTestId("toast").map((t) => t.textContent)).not.toContainEqual(expect.stringContaining("Saved"));
  });

  it("asks before deleting, and offers undo afterwards", async () => {
    api.remove.mockResolvedValue(ok({ workspace: "personal", path: "response-style.md", change_id: 42, hash: null, shared: null }));
    api.undo.mockResolvedValue(ok({ workspace: "personal", path: "response-style.md", change_id: 43, hash: "h1", shared: null }));
    renderApp();
    await openRow("response-style.md");

    fireEvent.click(screen.getByTestId("delete-button"));
    expect(screen.getByRole("dialog")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(api.remove).not.toHaveBeenCalled();

    fireEvent.click(screen.getByTestId("delete-button"));
    fireEvent.click(screen.getByTestId("confirm-delete"));
    await waitFor(() => expect(api.remove).toHaveBeenCalledWith("personal", "response-style.md"));
    const toast = await screen.findByTestId("toast");
    expect(toast.textContent).toContain("Deleted");
    expect(screen.queryByTestId("detail-name")).toBeNull();

    fireEvent.click(within(toast).getByRole("button", { name: "Undo" }));
    await waitFor(() => expect(api.undo).toHaveBeenCalledWith(42));
  });

  it("does not bring the welcome back after the memory opened over it is deleted", async () => {
    api.remove.mockResolvedValue(ok({ workspace: "personal", path: "response-style.md", change_id: 42, hash: null, shared: null }));
    renderApp();
    // Fresh storage: the welcome shows where a memory would open.
    expect(await screen.findByTestId("welcome")).toBeTruthy();
    await openRow("response-style.md");
    fireEvent.click(screen.getByTestId("delete-button"));
    fireEvent.click(screen.getByTestId("confirm-delete"));
    await waitFor(() => expect(api.remove).toHaveBeenCalled());
    await waitFor(() => expect(screen.queryByTestId("detail-name")).toBeNull());
    expect(screen.queryByTestId("welcome")).toBeNull();
    // Still there on request.
    fireEvent.click(screen.getByTestId("welcome-reopen"));
    expect(screen.getByTestId("welcome")).toBeTruthy();
  });

  it("creates a new memory and opens it", async () => {
    api.create.mockResolvedValue(ok({ workspace: "personal", path: "proj.md", change_id: 9, hash: "h1", shared: null }));
    renderApp();
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    fireEvent.click(screen.getByTestId("new-memory-button"));
    fireEvent.change(screen.getByTestId("detail-name"), { target: { value: "Launch date" } });
    fireEvent.change(screen.getByTestId("detail-description"), { target: { value: "Ships in March" } });
    fireEvent.change(screen.getByTestId("detail-type"), { target: { value: "project" } });
    fireEvent.click(screen.getByTestId("save-button"));
    await waitFor(() =>
      expect(api.create).toHaveBeenCalledWith("personal", {
        path: null,
        name: "Launch date",
        description: "Ships in March",
        type: "project",
        body: "",
      }),
    );
    await waitFor(() => expect(api.get).toHaveBeenCalledWith("personal", "proj.md"));
  });

  it("asks before Cancel drops a new memory with something typed; an empty one just closes", async () => {
    renderApp();
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    fireEvent.click(screen.getByTestId("new-memory-button"));
    // Nothing typed: Cancel closes at once.
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByTestId("detail-name")).toBeNull());
    expect(screen.queryByTestId("discard-confirm")).toBeNull();

    fireEvent.click(screen.getByTestId("new-memory-button"));
    fireEvent.change(screen.getByTestId("detail-name"), { target: { value: "Launch date" } });
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    const dialog = await screen.findByRole("dialog", { name: "Discard your changes?" });
    expect(dialog.textContent).toContain("The new memory is not saved yet: discarding it drops what you typed.");
    fireEvent.click(within(dialog).getByTestId("discard-keep"));
    expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe("Launch date");

    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    fireEvent.click(await screen.findByTestId("discard-confirm"));
    await waitFor(() => expect(screen.queryByTestId("detail-name")).toBeNull());
    expect(api.create).not.toHaveBeenCalled();
  });

  it("shows invalid files read-only with their problem", async () => {
    api.get.mockResolvedValue(
      ok({ ...DOCS[5], hash: "hb", content: "no frontmatter here\n", body: "", entries: [], pinned: false }),
    );
    renderApp();
    const row = await screen.findByText((_, el) => el?.getAttribute("data-path") === "broken.md");
    fireEvent.click(row);
    expect((await screen.findByTestId("detail-problem")).textContent).toContain("missing name in frontmatter");
    expect(screen.getByTestId("detail-raw").textContent).toBe("no frontmatter here\n");
    expect(screen.queryByTestId("save-button")).toBeNull();
    expect(screen.queryByTestId("delete-button")).toBeNull();
  });

  it("asks before dropping unsaved edits, and keeps them when told to", async () => {
    renderApp();
    await openRow("response-style.md");
    fireEvent.change(screen.getByTestId("detail-name"), { target: { value: "My edit" } });

    fireEvent.click(screen.getByText((_, el) => el?.getAttribute("data-path") === "proj.md"));
    const dialog = screen.getByRole("dialog");
    expect(dialog.textContent).toContain("Discard your changes?");
    // The safe choice has the focus (Enter by reflex keeps the edits).
    expect(document.activeElement).toBe(within(dialog).getByRole("button", { name: "Keep editing" }));
    fireEvent.click(screen.getByRole("button", { name: "Keep editing" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe("My edit");
    // The list highlights the memory still open, not the one clicked.
    const selected = screen.getAllByTestId("memory-row").filter((r) => r.getAttribute("aria-selected") === "true");
    expect(selected.map((r) => r.getAttribute("data-path"))).toEqual(["response-style.md"]);

    fireEvent.click(screen.getByTestId("history-view"));
    fireEvent.click(screen.getByRole("button", { name: "Discard" }));
    expect(await screen.findByText("History — All workspaces")).toBeTruthy();

    // Nothing unsaved any more: back to the memories view without a question.
    fireEvent.click(screen.getByRole("button", { name: "Memories" }));
    await openRow("proj.md");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe("Launch date");
  });

  /** An edit saved, the save's answer held, another row clicked: returns what answers the save. */
  async function clickDuringSave() {
    let answer: (v: Awaited<ReturnType<typeof api.update>>) => void = () => {};
    api.update.mockImplementation(() => new Promise((resolve) => (answer = resolve)));
    renderApp();
    await openRow("response-style.md");
    fireEvent.change(screen.getByTestId("detail-name"), { target: { value: "My edit" } });
    fireEvent.click(screen.getByTestId("save-button"));
    await waitFor(() => expect(api.update).toHaveBeenCalledTimes(1));
    fireEvent.click(screen.getByText((_, el) => el?.getAttribute("data-path") === "proj.md"));
    return answer;
  }

  // The write can be on disk, and the person click on, before the save's answer comes back (a
  // loaded machine): that click waits for the save; "not saved" would be untrue.
  it("a click during a save opens the clicked memory once saved, without asking", async () => {
    const answer = await clickDuringSave();
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe("My edit");
    answer(ok({ workspace: "personal", path: "response-style.md", change_id: 7, hash: "h2", shared: null }));
    await waitFor(() => expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe("Launch date"));
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("a click during a save that fails asks as usual: the edits are not saved", async () => {
    const answer = await clickDuringSave();
    answer(err("conflict", "the file changed on disk"));
    const dialog = await screen.findByRole("dialog", { name: "Discard your changes?" });
    expect(dialog.textContent).toContain("The open memory has edits that are not saved.");
    expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe("My edit");
  });

  it("does not clobber unsaved edits when the file changes on disk", async () => {
    renderApp();
    await openRow("response-style.md");
    fireEvent.change(screen.getByTestId("detail-name"), { target: { value: "My edit" } });
    const listCalls = api.list.mock.calls.length;

    api.get.mockResolvedValue(ok({ ...detailOf(DOCS[0], "h9"), name: "Changed outside" }));
    // Listeners share one event stream; fire on every stream there is, to be sure.
    act(() => {
      for (const es of FakeEventSource.instances)
        es.fire("memory_changed", { workspace: "personal", paths: ["response-style.md"], source: "watcher" });
    });

    expect(await screen.findByTestId("disk-banner")).toBeTruthy();
    expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe("My edit");
    await waitFor(() => expect(api.list.mock.calls.length).toBeGreaterThan(listCalls));

    fireEvent.click(screen.getByRole("button", { name: "Reload" }));
    expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe("Changed outside");
  });

  it("shows the version on disk when nothing is edited, and reads the open memory only when an event names it", async () => {
    renderApp();
    await openRow("response-style.md");
    const getCalls = api.get.mock.calls.length;
    act(() => {
      for (const es of FakeEventSource.instances) es.fire("memory_changed", { workspace: "personal", paths: ["proj.md"], source: "watcher" });
    });
    await waitFor(() => expect(api.list.mock.calls.length).toBeGreaterThan(1));
    expect(api.get.mock.calls.length).toBe(getCalls);

    api.get.mockResolvedValue(ok({ ...detailOf(DOCS[0], "h9"), name: "Changed outside" }));
    act(() => {
      for (const es of FakeEventSource.instances)
        es.fire("memory_changed", { workspace: "personal", paths: ["response-style.md"], source: "watcher" });
    });
    await waitFor(() => expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe("Changed outside"));
    expect(screen.queryByTestId("disk-banner")).toBeNull();
  });
});

describe("history", () => {
  it("shows a change's diff and undoes it", async () => {
    api.history.mockResolvedValue(
      ok([{ id: 5, workspace: "personal", path: "proj.md", source: "user", at: new Date().toISOString(), op: "modify", group: null, undone_by: null }]),
    );
    api.diff.mockResolvedValue(
      ok({
        change: { id: 5, workspace: "personal", path: "proj.md", source: "user", at: new Date().toISOString(), op: "modify", group: null, undone_by: null },
        before: "a\nold line\nc\n",
        after: "a\nnew line\nc\n",
        withheld: null,
        undoable: true,
      }),
    );
    api.undo.mockResolvedValue(err("conflict", "the file changed since change #5"));
    renderApp();
    await openRow("proj.md");
    fireEvent.click(screen.getByTestId("history-tab"));
    await waitFor(() => expect(api.history).toHaveBeenCalledWith("personal", "proj.md", 100));
    fireEvent.click(await screen.findByTestId("history-item"));
    const diff = await screen.findByTestId("diff-unified");
    expect(diff.querySelector(".diff-del")?.textContent).toContain("old line");
    expect(diff.querySelector(".diff-add")?.textContent).toContain("new line");

    fireEvent.click(screen.getByTestId("undo-button"));
    await waitFor(() => expect(api.undo).toHaveBeenCalledWith(5));
    expect((await screen.findByTestId("inline-error")).textContent).toContain("The file changed since change #5.");
  });
});

describe("memory tasks", () => {
  it("shows running memory work and opens a file a task wrote", async () => {
    renderApp();
    await waitFor(() => expect(api.tasks).toHaveBeenCalledWith(null, null, null, 50));
    const running = task("t1", { status: "running", finished_at: null, tools: [{ name: "write_file", detail: "proj.md", ok: null }] });
    // The cache tells its readers in a microtask: awaited.
    await act(async () => {
      for (const es of FakeEventSource.instances) es.fire("task_updated", running);
    });
    expect(screen.getByTestId("task-indicator").textContent).toBe("✦ Saving memories…");

    await act(async () => {
      for (const es of FakeEventSource.instances)
        es.fire("task_updated", {
          ...running,
          status: "completed",
          updated_at: "2026-03-01T10:00:09Z",
          finished_at: "2026-03-01T10:00:09Z",
          result: { summary: "Saved 1 memory", files: ["proj.md"], group: 2 },
        });
    });
    expect(screen.getByTestId("task-indicator").textContent).toBe("");

    fireEvent.click(screen.getByRole("button", { name: "Memory tasks" }));
    const panel = screen.getByRole("dialog", { name: "Memory tasks" });
    fireEvent.click(await within(panel).findByRole("button", { name: "proj.md" }));
    await waitFor(() => expect(api.get).toHaveBeenCalledWith("personal", "proj.md"));
    expect(await screen.findByDisplayValue("Launch date")).toBeTruthy();
    expect(screen.queryByRole("dialog", { name: "Memory tasks" })).toBeNull();
  });
});

describe("dream", () => {
  // The cache tells its readers in a microtask: awaited.
  const fire = (t: TaskInfo) =>
    act(async () => {
      for (const es of FakeEventSource.instances) es.fire("task_updated", t);
    });

  it("dreams the selected workspace with live progress, then opens its report by itself", async () => {
    const queued = task("d1", { kind: "dream", session: null, status: "queued", started_at: null, finished_at: null, updated_at: "2026-03-01T10:00:00Z" });
    api.dream.mockResolvedValue(ok(queued));
    api.changeGroup.mockResolvedValue(
      ok({ id: 7, workspace: "personal", kind: "dream", task: "d1", label: "dream (manual)", at: "2026-03-01T10:00:02Z", undoes: null, undone_by: null, changes: [] }),
    );
    renderApp();
    // Only a workspace can dream, not "All workspaces".
    await screen.findAllByTestId("workspace-item");
    expect(screen.queryByTestId("dream-button")).toBeNull();
    fireEvent.click(screen.getAllByTestId("workspace-item")[0]);
    fireEvent.click(await screen.findByRole("button", { name: "Dream" }));
    await waitFor(() => expect(api.dream).toHaveBeenCalledWith("personal", null));

    const dialog = await screen.findByRole("dialog", { name: "Dream — Personal" });
    expect(screen.getByTestId("dream-indicator").textContent).toBe("✦ dreaming");
    expect(screen.getByTestId("dream-button").textContent).toBe("✦ Dreaming…");
    const running = { ...queued, status: "running" as const, phase: "model turn 1", started_at: "2026-03-01T10:00:01Z", updated_at: "2026-03-01T10:00:02Z" };
    await fire({ ...running, tools: [{ name: "write_file", detail: "proj.md", ok: true }] });
    expect(within(dialog).getByTestId("dream-phase").textContent).toBe("model turn 1");
    expect(within(dialog).getByTestId("dream-files").textContent).toContain("proj.md");

    // Closed while it runs: the dream goes on, and its report opens when it ends.
    fireEvent.click(within(dialog).getByRole("button", { name: "Close" }));
    expect(screen.queryByRole("dialog", { name: "Dream — Personal" })).toBeNull();
    expect(screen.getByTestId("dream-indicator")).toBeTruthy();
    await fire({
      ...running,
      status: "completed",
      phase: null,
      updated_at: "2026-03-01T10:00:05Z",
      finished_at: "2026-03-01T10:00:05Z",
      result: { summary: "1 file updated (agent)", files: ["proj.md"], group: 7, dream: null },
    });
    const report = await screen.findByTestId("dream-report");
    expect(within(report).getByTestId("dream-summary").textContent).toBe("1 file updated (agent)");
    expect(screen.queryByTestId("dream-indicator")).toBeNull();
    await waitFor(() => expect(api.changeGroup).toHaveBeenCalledWith(7));

    // Closed now, it stays closed; the task list opens it again.
    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.queryByTestId("dream-report")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Memory tasks" }));
    fireEvent.click(await screen.findByRole("button", { name: "Report" }));
    expect(await screen.findByTestId("dream-report")).toBeTruthy();
  });
});

describe("chat pane", () => {
  it("sits beside the memory browser and remembers when it is hidden", async () => {
    const { unmount } = renderApp();
    expect(await screen.findByText("Chat — memory: Personal")).toBeTruthy();
    await waitFor(() => expect(api.chatSessions).toHaveBeenCalledWith("personal"));
    expect(screen.getByTestId("search-input")).toBeTruthy();

    fireEvent.click(screen.getByTestId("chat-toggle"));
    expect(screen.queryByTestId("chat-pane")).toBeNull();
    expect(localStorage.getItem(CHAT_OPEN_KEY)).toBe("0");
    unmount();

    renderApp();
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    expect(screen.queryByTestId("chat-pane")).toBeNull();
    fireEvent.click(screen.getByTestId("chat-toggle"));
    expect(screen.getByTestId("chat-pane")).toBeTruthy();
    expect(localStorage.getItem(CHAT_OPEN_KEY)).toBe("1");
  });

  it("chats in the selected workspace and opens a recalled memory in the browser", async () => {
    const s = { id: "s1", title: "Launch", messages: 2, updated_at: "2026-01-01T00:00:00Z", ignore_memory: false };
    api.chatSessions.mockResolvedValue(ok([s]));
    api.chatTranscript.mockResolvedValue(
      ok({
        session: s,
        messages: [
          { role: "user", text: "When do we ship?", at: "2026-01-01T00:00:00Z", recalled: [], wrote: [], proposal: null },
          { role: "assistant", text: "In March.", at: "2026-01-01T00:00:01Z", recalled: ["proj.md"], wrote: [], proposal: null },
        ],
        compactions: [],
      }),
    );
    renderApp();
    fireEvent.click(await screen.findByTestId("recall-badge"));
    fireEvent.click(screen.getByTestId("recall-item"));
    await waitFor(() => expect(api.get).toHaveBeenCalledWith("personal", "proj.md"));
    expect(await screen.findByDisplayValue("Launch date")).toBeTruthy();

    const items = await screen.findAllByTestId("workspace-item");
    fireEvent.click(items[1]);
    expect(await screen.findByText("Chat — memory: proj")).toBeTruthy();
    await waitFor(() => expect(api.chatSessions).toHaveBeenCalledWith("claude-proj"));
  });
});
