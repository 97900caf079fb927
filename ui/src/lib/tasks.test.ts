import { describe, expect, it } from "vitest";
import {
  TASK_LIMIT,
  activity,
  filteredTasks,
  formatDuration,
  isNewer,
  matchesFilter,
  mergeTask,
  statusText,
  taskDuration,
} from "./tasks";
import type { TaskInfo } from "./bindings";
import { task } from "../test/fixtures";

const at = (s: number) => new Date(Date.UTC(2026, 2, 1, 10, 0, s)).toISOString();

const queued = (id: string, created: number) =>
  task(id, { status: "queued", created_at: at(created), updated_at: at(created), started_at: null, finished_at: null });
const running = (id: string, created: number, updated: number) =>
  task(id, { status: "running", created_at: at(created), updated_at: at(updated), started_at: at(created + 1), finished_at: null });

describe("mergeTask", () => {
  it("inserts new tasks newest first and replaces a task by a newer state", () => {
    let list = mergeTask([], queued("a", 0));
    list = mergeTask(list, queued("b", 5));
    expect(list.map((t) => t.id)).toEqual(["b", "a"]);
    list = mergeTask(list, running("a", 0, 3));
    expect(list.map((t) => [t.id, t.status])).toEqual([
      ["b", "queued"],
      ["a", "running"],
    ]);
  });

  it("ignores an older state of a task", () => {
    const done = task("a", { created_at: at(0), updated_at: at(9), status: "completed" });
    const list = mergeTask([done], running("a", 0, 4));
    expect(list[0].status).toBe("completed");
  });

  it("at the same instant, keeps the state further along", () => {
    const run = running("a", 0, 4);
    const done = { ...run, status: "completed" as const, finished_at: at(4) };
    expect(isNewer(done, run)).toBe(true);
    expect(isNewer(run, done)).toBe(false);
    expect(mergeTask([done], run)[0].status).toBe("completed");
    // A later event with the same status (a new tool step) replaces it.
    const step = { ...run, tools: [{ name: "read_file", detail: "a.md", ok: null }] };
    expect(mergeTask([run], step)[0].tools).toHaveLength(1);
  });

  it(`keeps the ${TASK_LIMIT} newest`, () => {
    let list = Array.from({ length: TASK_LIMIT }, (_, i) => queued(`t${i}`, i));
    list = mergeTask(list, queued("new", TASK_LIMIT + 1));
    expect(list).toHaveLength(TASK_LIMIT);
    expect(list[0].id).toBe("new");
    expect(list.some((t) => t.id === "t0")).toBe(false);
  });
});

describe("mergeTask", () => {
  it("keeps the newer state whichever arrives first: a list read or an event", () => {
    // An event overtook the read: the task has finished by now.
    const finished = task("a", { created_at: at(0), updated_at: at(8) });
    let list = mergeTask([running("a", 0, 2), queued("b", 1)], finished);
    expect(list.map((t) => [t.id, t.status])).toEqual([
      ["b", "queued"],
      ["a", "completed"],
    ]);
    // The read's older state of the same task changes nothing.
    list = mergeTask(list, running("a", 0, 2));
    expect(list.find((t) => t.id === "a")?.status).toBe("completed");
  });

  it("ignores a stale event", () => {
    const list = mergeTask([], running("a", 0, 5));
    expect(mergeTask(list, queued("a", 0))).toEqual(list);
  });
});

describe("activity", () => {
  it("says nothing when idle", () => {
    expect(activity([task("a"), task("b", { status: "failed" })])).toEqual({ running: 0, queued: 0, dreaming: false, text: null });
  });

  it("names what a single task does", () => {
    expect(activity([running("a", 0, 1)]).text).toBe("Saving memories…");
    expect(activity([{ ...running("a", 0, 1), kind: "forget" }]).text).toBe("Forgetting…");
    expect(activity([{ ...running("a", 0, 1), kind: "embed" }]).text).toBe("Embedding memories…");
    expect(activity([{ ...running("a", 0, 1), kind: "import" }]).text).toBe("Importing…");
  });

  it("counts running and queued tasks", () => {
    expect(activity([running("a", 0, 1), running("b", 0, 1)])).toEqual({ running: 2, queued: 0, dreaming: false, text: "2 tasks running" });
    expect(activity([running("a", 0, 1), queued("b", 2)]).text).toBe("Saving memories… · 1 queued");
    expect(activity([queued("a", 0), queued("b", 1)]).text).toBe("2 tasks queued");
    expect(activity([queued("a", 0)]).text).toBe("1 task queued");
  });
});

describe("dreaming", () => {
  const dream = (t: TaskInfo): TaskInfo => ({ ...t, kind: "dream" });

  it("is on while a dream is queued or running, and only then", () => {
    expect(activity([dream(running("a", 0, 1))]).dreaming).toBe(true);
    expect(activity([dream(queued("a", 0))]).dreaming).toBe(true);
    expect(activity([dream(task("a")), dream(task("b", { status: "failed" })), dream(task("c", { status: "skipped" }))]).dreaming).toBe(false);
    // Other work running does not make it dream.
    expect(activity([running("a", 0, 1)]).dreaming).toBe(false);
  });

  it("leaves dreams out of the other work's words, but counts them", () => {
    expect(activity([dream(running("a", 0, 1))])).toEqual({ running: 1, queued: 0, dreaming: true, text: null });
    expect(activity([dream(running("a", 0, 1)), running("b", 0, 1)]).text).toBe("Saving memories…");
    expect(activity([dream(queued("a", 0)), queued("b", 1)])).toEqual({ running: 0, queued: 2, dreaming: true, text: "1 task queued" });
  });
});

describe("durations", () => {
  it("runs from start (or creation) to finish (or last update)", () => {
    expect(taskDuration(task("a"))).toBe(4000);
    expect(taskDuration(task("a", { started_at: null, finished_at: null, status: "skipped" }))).toBe(5000);
    expect(taskDuration(task("a", { finished_at: null, status: "failed", updated_at: at(3) }))).toBe(2000);
  });

  it("counts on to now for an active task", () => {
    const t = running("a", 0, 2);
    expect(taskDuration(t)).toBe(1000);
    expect(taskDuration(t, Date.parse(at(31)))).toBe(30_000);
    // A finished task ignores now.
    expect(taskDuration(task("a"), Date.parse(at(59)))).toBe(4000);
  });

  it("is null when a time cannot be read", () => {
    expect(taskDuration(task("a", { started_at: "garbage" }))).toBeNull();
    expect(formatDuration(null)).toBe("");
  });

  it("formats", () => {
    expect(formatDuration(420)).toBe("0.4 s");
    expect(formatDuration(4000)).toBe("4.0 s");
    expect(formatDuration(12_345)).toBe("12 s");
    expect(formatDuration(185_000)).toBe("3 min 5 s");
    expect(formatDuration(120_000)).toBe("2 min");
    expect(formatDuration(3_720_000)).toBe("1 h 2 min");
    expect(formatDuration(7_200_000)).toBe("2 h");
  });
});

describe("statusText", () => {
  it("adds the reason", () => {
    expect(statusText({ status: "skipped", reason: "replaced" })).toBe("Skipped — a newer run took its place");
    expect(statusText({ status: "running", reason: null })).toBe("Running");
    expect(statusText({ status: "skipped", reason: "min_sessions" })).toBe("Skipped — not enough new chats yet");
    expect(statusText({ status: "failed", reason: "remember_path_escape" })).toBe("Failed — the model tried to write outside the memory folder");
  });
});

describe("filteredTasks", () => {
  const f = { workspace: "personal", kind: null, status: "running" as const };
  it("keeps the loaded list current: a task that no longer matches leaves, a new match joins", () => {
    const a = running("a", 0, 1);
    const loaded = [a];
    const aDone = { ...a, status: "completed" as const, updated_at: at(5), finished_at: at(5) };
    const b = running("b", 3, 4);
    const elsewhere = { ...running("c", 4, 4), workspace: "claude-proj" };
    expect(filteredTasks(loaded, [aDone, b, elsewhere], f).map((t) => t.id)).toEqual(["b"]);
    expect(filteredTasks(loaded, [], f).map((t) => t.id)).toEqual(["a"]);
  });

  it("matches by workspace, kind and status", () => {
    const t = task("x", { kind: "dream", status: "failed" });
    expect(matchesFilter(t, { workspace: null, kind: null, status: null })).toBe(true);
    expect(matchesFilter(t, { workspace: "personal", kind: "dream", status: "failed" })).toBe(true);
    expect(matchesFilter(t, { workspace: "other", kind: null, status: null })).toBe(false);
    expect(matchesFilter(t, { workspace: null, kind: "extract", status: null })).toBe(false);
    expect(matchesFilter(t, { workspace: null, kind: null, status: "completed" })).toBe(false);
  });
});
