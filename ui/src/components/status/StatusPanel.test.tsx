import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { StatusPanel } from "./StatusPanel";
import { commands } from "../../lib/bindings";
import type { MemoryStats, Semantic, TaskInfo } from "../../lib/bindings";
import type { TaskList } from "../../lib/useTaskList";
import { DOCS, SEMANTIC_NOT_INSTALLED, err, ok, proposalPage, proposalSummary, remoteSync, reviewMode, status, syncConflict, task, workspaceSync } from "../../test/fixtures";
import { CONFLICT_RECALL } from "../../lib/sync";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    stats: vi.fn(),
    setAutoExtract: vi.fn(),
    setAutoDream: vi.fn(),
    chatRecords: vi.fn(),
    setChatRecords: vi.fn(),
    dream: vi.fn(),
    tasks: vi.fn(),
    taskCancel: vi.fn(),
    status: vi.fn(),
    embed: vi.fn(),
    syncStatus: vi.fn(),
    syncResolve: vi.fn(),
    undoGroup: vi.fn(),
    getModelSettings: vi.fn(),
    setModelSettings: vi.fn(),
    testModel: vi.fn(),
    modelList: vi.fn(),
    syncSettings: vi.fn(),
    setSyncSettings: vi.fn(),
    syncNow: vi.fn(),
    reviewMode: vi.fn(),
    setReviewMode: vi.fn(),
    inbox: vi.fn(),
    memoryUsage: vi.fn(),
    list: vi.fn(),
  },
}));

const api = vi.mocked(commands);

const tel = (at: string, kind: string, data: object) => ({ at, kind, data: JSON.stringify(data) });

const STATS: MemoryStats = {
  workspace: "personal",
  auto_extract: true,
  auto_dream: false,
  last_extract_at: "2026-03-01T10:03:00Z",
  last_extract_status: "completed",
  last_dream_at: null,
  last_dream_status: null,
  last_dream_undone_by: null,
  topics: 12,
  logs: 2,
  chats: 3,
  chat_records: true,
  extraction: { road: "planner", then_planner: false, why: "learned on 2026-11-27: the tool agent wrote nothing where the planner found 2 fact(s)" },
  memory_md_lines: 190,
  memory_md_max_lines: 200,
  memory_md_bytes: 5000,
  memory_md_max_bytes: 25000,
  invalid: ["broken.md"],
  stale: ["old.md"],
  expensive: [],
  archived: [],
  duplicates: 2,
  duplicate_files: ["testing.md", "testing-dup.md"],
  same_name: [["pet.md", "user/pet.md"]],
  same_subject: [["pet.md", "users-pet.md"]],
  telemetry: [
    tel("2026-03-01T10:04:00Z", "recall", { strategy: "heuristic", duration_ms: 4, docs_selected: 1 }),
    tel("2026-03-01T10:03:00Z", "extract", { status: "completed", entries_written: 2, duration_ms: 1200 }),
    tel("2026-03-01T10:02:00Z", "recall", { strategy: "model", duration_ms: 800, docs_selected: 2 }),
    tel("2026-03-01T10:01:00Z", "recall", { strategy: "model", duration_ms: 600, docs_selected: 1 }),
    tel("2026-03-01T10:00:00Z", "extract", { status: "failed", entries_written: 0, duration_ms: 300 }),
  ],
};

const EXTRACT = task("e1", { kind: "extract" });
const DREAM = task("d1", { kind: "dream", session: null, created_at: "2026-03-01T09:00:00Z" });

const onOpenMemory = vi.fn();
const onOpenDream = vi.fn();
const onDreamStarted = vi.fn();

function taskList(tasks: TaskInfo[] = []): TaskList {
  return { state: { tasks, loaded: true, error: null }, update: vi.fn(), reload: vi.fn() };
}

beforeEach(() => {
  api.reviewMode.mockResolvedValue(ok(reviewMode()));
  api.inbox.mockResolvedValue(ok(proposalPage()));
  api.memoryUsage.mockResolvedValue(ok([]));
  for (const f of [onOpenMemory, onOpenDream, onDreamStarted]) f.mockReset();
  api.stats.mockResolvedValue(ok(STATS));
  api.tasks.mockResolvedValue(ok([EXTRACT, DREAM]));
  api.status.mockResolvedValue(ok(status()));
  api.syncStatus.mockResolvedValue(ok(remoteSync({ remote: null })));
  api.embed.mockReset();
});

function renderPanel(list: TaskList = taskList()) {
  const props = {
    workspace: "personal",
    label: "Personal",
    workspaceLabel: (id: string) => (id === "personal" ? "Personal" : id),
    onOpenMemory,
    onOpenDream,
    onDreamStarted,
  };
  const view = render(<StatusPanel {...props} tasks={list} />);
  return { ...view, update: (l: TaskList) => view.rerender(<StatusPanel {...props} tasks={l} />) };
}

const toggle = (id: string) => screen.getByTestId<HTMLInputElement>(id);

describe("automatic memory", () => {
  it("shows the switches and last runs, and saves a switch", async () => {
    api.setAutoExtract.mockResolvedValue(ok(false));
    renderPanel();
    await screen.findByTestId("status-auto");
    expect(api.stats).toHaveBeenCalledWith("personal");
    expect(toggle("auto-extract-toggle").checked).toBe(true);
    expect(toggle("status-auto-dream-toggle").checked).toBe(false);
    expect(screen.getByTestId("last-extract").getAttribute("data-status")).toBe("completed");
    expect(screen.getByTestId("last-extract").textContent).toContain("Completed");
    expect(screen.getByTestId("last-dream").textContent).toBe("Last dream: never");
    expect(screen.getByTestId("status-auto").textContent).toContain("12 memories · 2 daily logs · 3 conversation records");
    // Which way writes, and why.
    expect(screen.getByTestId("extract-road").textContent).toBe(
      "On, after each turn · by the planner — learned on 2026-11-27: the tool agent wrote nothing where the planner found 2 fact(s)",
    );

    fireEvent.click(toggle("auto-extract-toggle"));
    await waitFor(() => expect(api.setAutoExtract).toHaveBeenCalledWith("personal", false));
    await waitFor(() => expect(toggle("auto-extract-toggle").checked).toBe(false));
    // The figures are read again after a change.
    await waitFor(() => expect(api.stats).toHaveBeenCalledTimes(2));
  });

  it("keeps what the person says as conversation records, switched like the others", async () => {
    api.setChatRecords.mockResolvedValue(ok(false));
    renderPanel();
    await screen.findByTestId("status-auto");
    const records = screen.getByLabelText<HTMLInputElement>("Keep what I say in chats as conversation records", { exact: false });
    expect(records).toBe(toggle("chat-records-toggle"));
    expect(records.checked).toBe(true);
    expect(screen.getByTestId("chat-records-count").textContent).toBe("3 kept");

    fireEvent.click(records);
    await waitFor(() => expect(api.setChatRecords).toHaveBeenCalledWith("personal", false));
    await waitFor(() => expect(toggle("chat-records-toggle").checked).toBe(false));
    expect(api.setAutoExtract).not.toHaveBeenCalled();
    await waitFor(() => expect(api.stats).toHaveBeenCalledTimes(2));
  });

  it("says extraction needs a model when none is set, records still kept; nothing of the way when it is off", async () => {
    api.stats.mockResolvedValue(ok({ ...STATS, extraction: null, chats: 0, logs: 0 }));
    const { unmount } = renderPanel();
    await screen.findByTestId("status-auto");
    expect(screen.getByTestId("extract-road").textContent).toBe("Needs a model — what you say is still kept as conversation records");
    expect(screen.getByTestId("chat-records-count").textContent).toBe("none kept yet");
    // No records: the counts say nothing of them.
    expect(screen.getByTestId("status-auto").querySelector(".status-section-header")?.textContent).toMatch(/12 memories · 0 daily logs$/);
    unmount();

    api.stats.mockResolvedValue(ok({ ...STATS, auto_extract: false }));
    renderPanel();
    await screen.findByTestId("status-auto");
    expect(screen.queryByTestId("extract-road")).toBeNull();
  });

  it("shows a failed switch inline and keeps the setting", async () => {
    api.setAutoDream.mockResolvedValue(err("io", "cannot write settings.toml"));
    renderPanel();
    await screen.findByTestId("status-auto");
    fireEvent.click(toggle("status-auto-dream-toggle"));
    expect((await screen.findByTestId("inline-error")).textContent).toContain("Cannot write settings.toml.");
    expect(toggle("status-auto-dream-toggle").checked).toBe(false);
    expect(toggle("status-auto-dream-toggle").disabled).toBe(false);
  });

  it("shows a failed load inline", async () => {
    api.stats.mockResolvedValue(err("not_found", "no workspace `gone`"));
    renderPanel();
    expect((await screen.findByTestId("inline-error")).getAttribute("data-code")).toBe("not_found");
  });
});

describe("sync", () => {
  it("has its section for the workspace, read again on Refresh", async () => {
    renderPanel();
    expect((await screen.findByTestId("sync-sentence")).textContent).toBe("Sync is not set up: this memory stays on this computer.");
    // One read shared by the Sync section and Memory health (which counts the open conflicts).
    await waitFor(() => expect(api.syncStatus).toHaveBeenCalledTimes(1));
    fireEvent.click(screen.getByTestId("status-refresh"));
    await waitFor(() => expect(api.syncStatus).toHaveBeenCalledTimes(2));
  });
});

describe("Refresh", () => {
  it("reads every figure again — the stats, usage, the home's status and the task list — with no counter", async () => {
    renderPanel();
    await waitFor(() => {
      expect(api.stats).toHaveBeenCalledTimes(1);
      expect(api.memoryUsage).toHaveBeenCalledTimes(1);
      expect(api.status).toHaveBeenCalledTimes(1);
      expect(api.tasks).toHaveBeenCalled();
    });
    const tasksBefore = api.tasks.mock.calls.length;
    fireEvent.click(screen.getByTestId("status-refresh"));
    await waitFor(() => {
      expect(api.stats).toHaveBeenCalledTimes(2);
      expect(api.memoryUsage).toHaveBeenCalledTimes(2);
      expect(api.status).toHaveBeenCalledTimes(2);
      expect(api.tasks.mock.calls.length).toBeGreaterThan(tasksBefore);
    });
  });
});

describe("runs whose writes became proposals", () => {
  it("says where each proposal stands now: an accepted dream is not “waiting in the Inbox”, a rejected extraction wrote nothing", async () => {
    api.stats.mockResolvedValue(
      ok({
        ...STATS,
        last_extract_at: "2026-03-01T10:03:00Z",
        last_extract_status: "completed",
        last_dream_at: "2026-03-01T11:00:00Z",
        last_dream_status: "proposed",
        telemetry: [
          tel("2026-03-01T11:00:00Z", "dream", { status: "proposed", entries_merged: 2, duration_ms: 900, trigger: "manual" }),
          tel("2026-03-01T10:03:00Z", "extract", { status: "completed", entries_written: 1, duration_ms: 1200 }),
        ],
      }),
    );
    const page = proposalPage([
      proposalSummary(8, { kind: "dream", source: "dream", at: "2026-03-01T11:00:01Z", status: "accepted", resolved_at: "2026-03-01T11:05:00Z" }),
      proposalSummary(7, { at: "2026-03-01T10:03:00Z", status: "rejected", resolved_at: "2026-03-01T10:04:00Z" }),
    ]);
    api.inbox.mockImplementation(async (_ws, status) => ok(status === null ? page : proposalPage()));
    renderPanel();
    await waitFor(() => expect(screen.getByTestId("last-dream").textContent).toContain("Proposed, then accepted"));
    expect(screen.getByTestId("last-dream").textContent).not.toContain("waiting in the Inbox");
    expect(screen.getByTestId("last-extract").textContent).toContain("Proposed, then rejected: nothing written");
    const extract = screen.getByTestId("chart-extract");
    expect([...extract.querySelectorAll("svg rect")].map((r) => r.getAttribute("data-status"))).toEqual(["proposal_rejected"]);
    expect(extract.querySelector("title")?.textContent).toContain("Proposed, then rejected: nothing written · 1 entry proposed, none written");
    expect(extract.textContent).not.toContain("Completed");
    expect(screen.getByTestId("chart-dream").textContent).toContain("Proposed, then accepted 1");
  });
});

describe("memory health", () => {
  it("draws MEMORY.md's budget and lists each finding with its action", async () => {
    renderPanel();
    const health = await screen.findByTestId("memory-health");
    expect(screen.getByTestId("budget-lines").textContent).toContain("190 / 200 (95 %)");
    expect(screen.getByTestId("budget-lines").querySelector("svg")?.classList.contains("near")).toBe(true);
    expect(screen.getByTestId("budget-bytes").textContent).toContain("4.9 KB / 24.4 KB (20 %)");
    expect(health.textContent).toContain("MEMORY.md is close to its cap");
    const items = within(health).getAllByTestId("health-item");
    expect(items.map((i) => [i.getAttribute("data-kind"), i.getAttribute("data-path")])).toEqual([
      ["invalid", "broken.md"],
      ["duplicate", "testing.md"],
      ["duplicate", "testing-dup.md"],
      ["stale", "old.md"],
    ]);
    fireEvent.click(within(items[0]).getByTestId("health-open"));
    expect(onOpenMemory).toHaveBeenCalledWith("personal", "broken.md");
    expect(screen.getByTestId("health-duplicates").textContent).toContain("2 entries");
    // Two memories with one name: shown together, each to open.
    const same = screen.getByTestId("health-same-name-group");
    expect(same.textContent).toContain("pet.md");
    expect(same.textContent).toContain("user/pet.md");
    fireEvent.click(within(same).getAllByRole("button", { name: "Open" })[1]);
    expect(onOpenMemory).toHaveBeenCalledWith("personal", "user/pet.md");
    // Two names about one subject: shown as may contradict, each to open.
    const subject = screen.getByTestId("health-same-subject-group");
    expect(screen.getByTestId("health-same-subject").textContent).toContain("may contradict");
    fireEvent.click(within(subject).getAllByRole("button", { name: "Open" })[1]);
    expect(onOpenMemory).toHaveBeenCalledWith("personal", "users-pet.md");
  });

  it("dreams the duplicates away, or shows the dream already under way", async () => {
    const queued = task("d2", { kind: "dream", session: null, status: "queued", finished_at: null });
    api.dream.mockResolvedValue(ok(queued));
    const { update } = renderPanel();
    fireEvent.click(await screen.findByTestId("health-dream"));
    await waitFor(() => expect(onDreamStarted).toHaveBeenCalledWith(queued));
    expect(api.dream).toHaveBeenCalledWith("personal", null);

    update(taskList([queued]));
    expect(screen.getByTestId("health-dream").textContent).toContain("Dreaming…");
    fireEvent.click(screen.getByTestId("health-dream"));
    expect(onOpenDream).toHaveBeenCalledWith("d2");
    expect(api.dream).toHaveBeenCalledTimes(1);
  });

  it("shows `locked` from the Dream action inline", async () => {
    api.dream.mockResolvedValue(err("locked", "personal is being consolidated by process 4242"));
    renderPanel();
    fireEvent.click(await screen.findByTestId("health-dream"));
    expect((await screen.findByTestId("inline-error")).getAttribute("data-code")).toBe("locked");
  });

  it("says so when all is well", async () => {
    api.stats.mockResolvedValue(ok({ ...STATS, invalid: [], stale: [], duplicates: 0, duplicate_files: [], same_name: [], same_subject: [], memory_md_lines: 3 }));
    renderPanel();
    expect((await screen.findByTestId("health-ok")).textContent).toContain("No problems found");
    expect(screen.queryByTestId("health-item")).toBeNull();
    expect(screen.queryByText(/close to its cap/)).toBeNull();
  });

  it("counts an open sync conflict: never “nothing contradictory” on the page that lists one", async () => {
    api.stats.mockResolvedValue(ok({ ...STATS, invalid: [], stale: [], duplicates: 0, duplicate_files: [], same_name: [], same_subject: [], memory_md_lines: 3 }));
    api.list.mockResolvedValue(ok([{ ...DOCS[0], path: "home.md", name: "Where I live" }]));
    api.syncStatus.mockResolvedValue(ok(remoteSync({ workspaces: [workspaceSync({ conflicts: [syncConflict({ path: "home.md" })] })] })));
    renderPanel();
    const group = await screen.findByTestId("health-conflicts");
    expect(group.textContent).toContain("Sync conflicts 1");
    expect(group.textContent).toContain(CONFLICT_RECALL);
    await waitFor(() => expect(within(group).getByTestId("health-conflict").textContent).toContain("Where I live"));
    expect(screen.queryByTestId("health-ok")).toBeNull();
    expect(screen.getByTestId("memory-health").textContent).not.toMatch(/No problems found|contradictory/);
    fireEvent.click(within(group).getByTestId("health-conflict-open"));
    expect(onOpenMemory).toHaveBeenCalledWith("personal", "home.md");
  });
});

describe("telemetry charts", () => {
  it("draws the recall mix, recall latency and runs over time in SVG", async () => {
    renderPanel();
    const mix = await screen.findByTestId("chart-recall-mix");
    expect(mix.getAttribute("data-count")).toBe("3");
    const segments = [...mix.querySelectorAll("svg rect")];
    expect(segments.map((r) => r.getAttribute("data-key"))).toEqual(["model", "heuristic"]);
    const widths = segments.map((r) => Number(r.getAttribute("width")));
    expect((widths[0] / (widths[0] + widths[1])).toFixed(3)).toBe("0.667");
    expect(mix.textContent).toContain("Model 2 · 67 %");
    expect(mix.textContent).toContain("as a share of the last 3 recalls");
    expect([...mix.querySelectorAll('text[data-axis="x"]')].map((t) => t.textContent)).toEqual(["0 %", "50 %", "100 %"]);

    const latency = screen.getByTestId("chart-recall-latency");
    expect(latency.querySelectorAll("svg rect")).toHaveLength(3);
    expect(latency.textContent).toContain("median 600 ms · p95 800 ms · slowest 800 ms");
    expect(latency.querySelector(".chart-caption")?.textContent).toBe("Recall time for each of the last 3 chat turns, oldest on the left.");
    // The slowest is 800 ms: the axis tops out at a round 800 ms.
    expect([...latency.querySelectorAll('text[data-axis="y"]')].map((t) => t.textContent)).toEqual(["800 ms", "0"]);

    const extract = screen.getByTestId("chart-extract");
    expect([...extract.querySelectorAll("svg rect")].map((r) => r.getAttribute("data-status"))).toEqual(["failed", "completed"]);
    expect(extract.querySelector('rect[data-status="failed"]')?.classList.contains("tone-bad")).toBe(true);
    expect(extract.querySelector("title")?.textContent).toContain("Failed");
    // The legend in words.
    expect(extract.textContent).toContain("Completed 1");
    expect(extract.textContent).toContain("Failed 1");

    const dream = screen.getByTestId("chart-dream");
    expect(dream.getAttribute("data-count")).toBe("0");
    expect(dream.textContent).toContain("No dreams yet.");
  });
});

describe("tasks", () => {
  it("lists the workspace's tasks and filters them by kind and status", async () => {
    renderPanel();
    await waitFor(() => expect(screen.getAllByTestId("task-row")).toHaveLength(2));
    expect(api.tasks).toHaveBeenCalledWith("personal", null, null, 50);

    api.tasks.mockResolvedValue(ok([DREAM]));
    fireEvent.change(screen.getByTestId("task-filter-kind"), { target: { value: "dream" } });
    await waitFor(() => expect(api.tasks).toHaveBeenLastCalledWith("personal", "dream", null, 50));
    await waitFor(() => expect(screen.getAllByTestId("task-row").map((r) => r.getAttribute("data-id"))).toEqual(["d1"]));

    api.tasks.mockResolvedValue(ok([]));
    fireEvent.change(screen.getByTestId("task-filter-status"), { target: { value: "failed" } });
    await waitFor(() => expect(api.tasks).toHaveBeenLastCalledWith("personal", "dream", "failed", 50));
    expect((await screen.findByTestId("status-tasks-empty")).textContent).toBe("No tasks match these filters.");
  });

  it("follows the shared list: a new task shows up, and the figures are read again when one ends", async () => {
    const { update } = renderPanel();
    await waitFor(() => expect(screen.getAllByTestId("task-row")).toHaveLength(2));
    const calls = api.stats.mock.calls.length;
    const running = task("e2", { kind: "extract", status: "running", created_at: "2026-03-01T11:00:00Z", finished_at: null });
    update(taskList([running, EXTRACT, DREAM]));
    await waitFor(() => expect(screen.getAllByTestId("task-row")[0].getAttribute("data-id")).toBe("e2"));
    expect(screen.getAllByTestId("task-row")[0].getAttribute("data-status")).toBe("running");
    const done = { ...running, status: "completed" as const, updated_at: "2026-03-01T11:00:09Z", finished_at: "2026-03-01T11:00:09Z" };
    update(taskList([done, EXTRACT, DREAM]));
    await waitFor(() => expect(api.stats.mock.calls.length).toBeGreaterThan(calls));
    expect(screen.getAllByTestId("task-row")[0].getAttribute("data-status")).toBe("completed");
  });
});

describe("semantic search", () => {
  const READY: Semantic = {
    state: "ready",
    model: "bge-small-en-v1.5",
    embedded: 3,
    total: 10,
    message: "hybrid search on; 3 of 10 memories embedded so far (run `mnemo embed` to finish now)",
  };
  const section = () => screen.findByTestId("semantic-status");

  it("says how to install the model when it is missing, with nothing to embed", async () => {
    renderPanel();
    const s = await section();
    await waitFor(() => expect(s.getAttribute("data-state")).toBe("not_installed"));
    expect(within(s).getByText("Semantic search")).toBeTruthy();
    expect(within(s).getByTestId("semantic-state").textContent).toBe("not installed");
    expect(within(s).getByTestId("semantic-message").textContent).toBe(
      "Search finds memories by their words only: no embedding model found (install one with `mnemo model install`)",
    );
    expect(SEMANTIC_NOT_INSTALLED.message).toMatch(/^search is lexical only: /);
    expect(within(s).queryByTestId("semantic-progress")).toBeNull();
    expect(within(s).queryByTestId("embed-now")).toBeNull();
  });

  it("shows a broken model's message", async () => {
    api.status.mockResolvedValue(ok(status({ ...SEMANTIC_NOT_INSTALLED, state: "broken", message: "search is lexical only: model.onnx is damaged; reinstall it" })));
    renderPanel();
    const s = await section();
    await waitFor(() => expect(s.getAttribute("data-state")).toBe("broken"));
    expect(within(s).getByTestId("semantic-message").textContent).toContain("model.onnx is damaged; reinstall it");
    expect(within(s).queryByTestId("embed-now")).toBeNull();
  });

  it("says nothing is missing once every memory has a vector", async () => {
    api.status.mockResolvedValue(ok(status({ ...READY, embedded: 10, message: "hybrid search on (meaning and words)" })));
    renderPanel();
    const s = await section();
    await waitFor(() => expect(s.getAttribute("data-state")).toBe("ready"));
    expect(within(s).getByTestId("semantic-state").textContent).toBe("on · bge-small-en-v1.5");
    expect(within(s).getByTestId("semantic-message").textContent).toBe("Search finds memories by their meaning as well as by their words.");
    expect(within(s).queryByTestId("semantic-progress")).toBeNull();
    expect(within(s).queryByTestId("embed-now")).toBeNull();
  });

  it("shows how far embedding got, embeds now, follows the task and reads the counts again when it ends", async () => {
    api.status.mockResolvedValue(ok(status(READY)));
    const started = task("m1", { kind: "embed", workspace: "*", session: null, status: "running", phase: "Embedding 4 / 10", progress: { done: 4, total: 10 }, finished_at: null });
    api.embed.mockResolvedValue(ok(started));
    const list = taskList();
    const { update } = renderPanel(list);
    const s = await section();
    await waitFor(() => expect(within(s).getByTestId("semantic-progress").textContent).toBe("3 of 10 memories ready for search by meaning"));
    expect(within(s).getByTestId("semantic-message").textContent).toBe(
      "Search finds 3 of 10 memories by their meaning so far; the others by their words until they are prepared.",
    );

    fireEvent.click(within(s).getByTestId("embed-now"));
    await waitFor(() => expect(list.update).toHaveBeenCalledWith(started));
    expect(api.embed).toHaveBeenCalledWith(null);

    // The task under way: its phase, and no second start.
    update(taskList([started]));
    expect(within(s).getByTestId("semantic-progress").textContent).toBe("Preparing memories for search by meaning: 4 of 10 done");
    expect(within(s).queryByTestId("embed-now")).toBeNull();

    const calls = api.status.mock.calls.length;
    api.status.mockResolvedValue(ok(status({ ...READY, embedded: 10, message: "hybrid search on (meaning and words)" })));
    const done = { ...started, status: "completed" as const, phase: null, updated_at: "2026-03-01T10:01:00Z", finished_at: "2026-03-01T10:01:00Z" };
    update(taskList([done]));
    await waitFor(() => expect(api.status.mock.calls.length).toBeGreaterThan(calls));
    await waitFor(() => expect(within(s).queryByTestId("semantic-progress")).toBeNull());
    expect(within(s).getByTestId("semantic-message").textContent).toBe("Search finds memories by their meaning as well as by their words.");
  });

  it("names the model, with its files' hash only as a short fingerprint in the tooltip", async () => {
    const hash = "0123456789abcdef0123456789abcdef";
    api.status.mockResolvedValue(ok(status({ ...READY, embedded: 10, model: `all-MiniLM-L6-v2@${hash.slice(0, 12)}` })));
    renderPanel();
    const s = await section();
    await waitFor(() => expect(s.getAttribute("data-state")).toBe("ready"));
    expect(within(s).getByTestId("semantic-state").textContent).toBe("on · all-MiniLM-L6-v2");
    expect(s.textContent).not.toContain("@");
    expect(s.textContent).not.toContain("01234567");
    const model = within(s).getByTestId("semantic-model");
    expect(model.getAttribute("title")).toContain("fingerprint 01234567");
    expect(model.getAttribute("title")).not.toContain("0123456789");
  });

  it("shows a failed Embed now inline", async () => {
    api.status.mockResolvedValue(ok(status(READY)));
    api.embed.mockResolvedValue(err("embedding_unavailable", "model.onnx is damaged; reinstall it"));
    renderPanel();
    const s = await section();
    fireEvent.click(await within(s).findByTestId("embed-now"));
    const error = await within(s).findByTestId("inline-error");
    expect(error.getAttribute("data-code")).toBe("embedding_unavailable");
    expect(error.textContent).toContain("model.onnx is damaged");
    expect(within(s).getByTestId<HTMLButtonElement>("embed-now").disabled).toBe(false);
  });

  it("shows a failed status read inline", async () => {
    api.status.mockResolvedValue(err("io", "cannot read the index"));
    renderPanel();
    const s = await section();
    expect((await within(s).findByTestId("inline-error")).getAttribute("data-code")).toBe("io");
  });
});
