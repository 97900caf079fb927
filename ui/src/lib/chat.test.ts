import { describe, expect, it } from "vitest";
import type { ChatEvent, ChatLine, Compaction, ExtractStatus, RecallResult, SessionInfo, TurnResult } from "./bindings";
import {
  chatItems,
  chatReducer,
  compactionAuthor,
  EMPTY_CHAT,
  memorySnapshot,
  recallLabel,
  restoreInput,
  sortSessions,
  wroteFiles,
} from "./chat";
import { DOCS, memoryStats } from "../test/fixtures";
import type { ChatAction, ChatState } from "./chat";

const RECALL: RecallResult = {
  strategy: "heuristic",
  selected: [
    { path: "a.md", name: "A", type: "user", score: 0.5, vector: null, lexical: null, mtime: "2026-01-01T00:00:00Z", age: "today", chars_injected: 10, tokens_injected: 3, conflict: false },
  ],
  docs_scanned: 3,
  prompt: "",
  chars_injected: 10,
  duration_ms: 4,
  carried: [],
  tokens_injected: 0,
  budget_tokens: null,
  cuts: [],
};

function turn(extra: Partial<TurnResult> = {}): TurnResult {
  return { session: "s1", reply: "final", command: null, recall: RECALL, wrote: [], extract: null, extract_task: null, dream_task: null, command_task: null, compacted: null, redacted: null, proposal: null, ...extra };
}

function run(...actions: ChatAction[]): ChatState {
  return actions.reduce(chatReducer, EMPTY_CHAT);
}

const ev = (e: ChatEvent): ChatAction => ({ type: "event", event: e });
const delta = (text: string, session = "s1"): ChatAction => ev({ kind: "delta", workspace: "w", session, text });
const extracted = (files: string[], status: ExtractStatus = "completed", upto = 0): ChatAction =>
  ev({
    kind: "extracted",
    workspace: "w",
    session: "s1",
    task: "t1",
    result: { status, files_written: files, touched_types: [], detail: null, upto, road: "tools", dropped: [] },
  });

describe("chat reducer", () => {
  it("streams deltas into the pending reply, then the final reply replaces them", () => {
    let s = run({ type: "reset", session: "s1" }, { type: "sent", session: "s1", text: "hi" }, delta("Hel"), delta("lo"));
    expect(s.messages.map((m) => [m.role, m.text, m.streaming])).toEqual([
      ["user", "hi", false],
      ["assistant", "Hello", true],
    ]);
    s = chatReducer(s, { type: "done", session: "s1", result: turn({ wrote: ["x.md"] }) });
    expect(s.pending).toBeNull();
    expect(s.messages[1]).toMatchObject({ text: "final", streaming: false, recall: RECALL, wrote: ["x.md"] });
    // A delta arriving after the reply resolved is ignored.
    expect(chatReducer(s, delta("late"))).toBe(s);
  });

  it("ignores events of other sessions", () => {
    const s = run({ type: "sent", session: "s1", text: "hi" });
    expect(chatReducer(s, delta("x", "s2"))).toBe(s);
  });

  it("attaches extraction to the latest reply, even when it arrives before chatSend resolves", () => {
    let s = run(
      { type: "sent", session: "s1", text: "hi" },
      ev({ kind: "extracting", workspace: "w", session: "s1", task: "t1" }),
      extracted(["b.md"]),
    );
    s = chatReducer(s, { type: "done", session: "s1", result: turn({ wrote: ["a.md"] }) });
    expect(s.messages[1].extraction).toMatchObject({ running: false, files: ["b.md"] });
    expect(wroteFiles(s.messages[1])).toEqual(["a.md", "b.md"]);
    // Another run keeps the files of the first.
    s = run(
      { type: "sent", session: "s1", text: "hi" },
      { type: "done", session: "s1", result: turn() },
      extracted(["b.md"]),
      ev({ kind: "extracting", workspace: "w", session: "s1", task: "t1" }),
    );
    expect(s.messages[1].extraction).toMatchObject({ running: true, files: ["b.md"] });
  });

  it("turns a /memory reply into a command message that takes no extraction", () => {
    const s = run(
      { type: "sent", session: "s1", text: "/memory" },
      { type: "done", session: "s1", result: turn({ command: { name: "memory" }, recall: null, reply: "Memory: on" }) },
      extracted(["b.md"]),
    );
    expect(s.messages[1]).toMatchObject({ role: "command", text: "Memory: on", extraction: null });
  });

  it("keeps a /memory answer's figures for its card, and none on other replies", () => {
    const memory = memorySnapshot(memoryStats(), DOCS, null, false, 0);
    const s = run(
      { type: "sent", session: "s1", text: "/memory" },
      { type: "done", session: "s1", result: turn({ command: { name: "memory" }, recall: null, reply: "Memory: on" }), memory },
      { type: "sent", session: "s1", text: "hi" },
      { type: "done", session: "s1", result: turn(), memory },
    );
    expect(s.messages[1]).toMatchObject({ role: "command", text: "Memory: on", memory });
    expect(s.messages[3].memory).toBeNull();
  });

  it("shows /remember and /forget answers as command messages", () => {
    const s = run(
      { type: "sent", session: "s1", text: "/remember Deploys go out on Tuesdays" },
      {
        type: "done",
        session: "s1",
        result: turn({ command: { name: "remember", fact: "x" }, recall: null, reply: "Remembering (task remember-1)…", command_task: "remember-1" }),
      },
      { type: "sent", session: "s1", text: "/forget staging" },
      { type: "done", session: "s1", result: turn({ command: { name: "forget", query: "deploy" }, recall: null, reply: "Would forget 1 entry:\n- deploy.md:1" }) },
    );
    expect(s.messages.map((m) => [m.role, m.text])).toEqual([
      ["user", "/remember Deploys go out on Tuesdays"],
      ["command", "Remembering (task remember-1)…"],
      ["user", "/forget staging"],
      ["command", "Would forget 1 entry:\n- deploy.md:1"],
    ]);
  });

  it("drops a failed turn, and keeps a stopped one that had text", () => {
    const failed = run({ type: "sent", session: "s1", text: "hi" }, { type: "failed", session: "s1", stopped: false });
    expect(failed.messages).toEqual([]);
    expect(failed.pending).toBeNull();
    const stopped = run(
      { type: "sent", session: "s1", text: "hi" },
      delta("partial"),
      { type: "failed", session: "s1", stopped: true },
    );
    expect(stopped.messages[1]).toMatchObject({ text: "partial", stopped: true, streaming: false });
  });

  it("loads a transcript with the recalled paths of each reply", () => {
    const s = run({
      type: "loaded",
      session: "s1",
      lines: [
        { role: "user", text: "q", at: "", recalled: [], wrote: [], proposal: null },
        { role: "assistant", text: "a", at: "", recalled: ["a.md"], wrote: [], proposal: null },
      ],
    });
    expect(s.messages.map((m) => [m.role, m.recalledPaths])).toEqual([
      ["user", []],
      ["assistant", ["a.md"]],
    ]);
  });
});

describe("extraction results find their turn", () => {
  it("a late result lands on the reply it covered, not on the newer one", () => {
    let s = run(
      { type: "sent", session: "s1", text: "one" },
      { type: "done", session: "s1", result: turn({ reply: "r1" }) },
      ev({ kind: "extracting", workspace: "w", session: "s1", task: "t1" }),
      { type: "sent", session: "s1", text: "two" },
      { type: "done", session: "s1", result: turn({ reply: "r2" }) },
    );
    s = chatReducer(s, extracted(["first.md"], "completed", 2));
    const replies = s.messages.filter((m) => m.role === "assistant");
    expect(wroteFiles(replies[0])).toEqual(["first.md"]);
    expect(wroteFiles(replies[1])).toEqual([]);
    expect(s.messages.some((m) => m.extraction?.running)).toBe(false);
  });

  it("stopped turns and /memory answers do not count as transcript positions", () => {
    let s = run(
      { type: "sent", session: "s1", text: "stopped" },
      delta("par"),
      { type: "failed", session: "s1", stopped: true },
      { type: "sent", session: "s1", text: "/memory" },
      { type: "done", session: "s1", result: turn({ reply: "status", command: { name: "memory" } }) },
      { type: "sent", session: "s1", text: "saved" },
      { type: "done", session: "s1", result: turn({ reply: "kept" }) },
    );
    s = chatReducer(s, extracted(["k.md"], "completed", 2));
    const kept = s.messages.find((m) => m.text === "kept");
    expect(kept && wroteFiles(kept)).toEqual(["k.md"]);
    // Position 1 is the saved user message: not a reply, so the result goes to the latest reply.
    expect(s.messages.filter((m) => !m.unsaved && m.role !== "command").map((m) => m.text)).toEqual(["saved", "kept"]);
  });

  it("a reloaded transcript keeps what each turn wrote", () => {
    const s = run({
      type: "loaded",
      session: "s1",
      lines: [
        { role: "user", text: "q", at: "", recalled: [], wrote: [], proposal: null },
        { role: "assistant", text: "a", at: "", recalled: [], wrote: ["n.md"], proposal: null },
      ],
    });
    expect(wroteFiles(s.messages[1])).toEqual(["n.md"]);
  });
});

describe("compaction markers", () => {
  const compaction = (upto: number, extra: Partial<Compaction> = {}): Compaction => ({
    upto,
    summary: `summary of ${upto}`,
    by: "model",
    at: `2026-03-01T10:00:0${upto % 10}Z`,
    log: null,
    ...extra,
  });
  const line = (role: ChatLine["role"], text: string): ChatLine => ({ role, text, at: "", recalled: [], wrote: [], proposal: null });
  const shape = (s: ChatState) =>
    chatItems(s).map((it) => (it.kind === "message" ? it.message.text : `--${it.compaction.upto}--`));

  it("keeps a reply's proposal through a reload (the drawer lost \"Proposed …\")", () => {
    const s = run({
      type: "loaded",
      session: "s1",
      lines: [line("user", "my cat is Miso"), { ...line("assistant", "Noted."), proposal: 7 }],
      compactions: [],
    });
    expect(s.messages.map((m) => m.proposal)).toEqual([null, 7]);
  });

  it("draws a loaded transcript's markers after the messages they count up to", () => {
    const s = run({
      type: "loaded",
      session: "s1",
      lines: [line("user", "q1"), line("assistant", "a1"), line("user", "q2"), line("assistant", "a2"), line("user", "q3")],
      compactions: [compaction(4), compaction(2)],
    });
    expect(shape(s)).toEqual(["q1", "a1", "--2--", "q2", "a2", "--4--", "q3"]);
    expect(chatItems(s).filter((it) => it.kind === "compaction").map((it) => it.key)).toEqual([
      "compaction:2:2026-03-01T10:00:02Z",
      "compaction:4:2026-03-01T10:00:04Z",
    ]);
  });

  it("loads a transcript from a server that sends no compactions", () => {
    const s = run({ type: "loaded", session: "s1", lines: [line("user", "q")] });
    expect(s.compactions).toEqual([]);
    expect(shape(s)).toEqual(["q"]);
  });

  it("adds the compaction a turn made, once, and forgets markers when another session opens", () => {
    let s = run(
      { type: "loaded", session: "s1", lines: [line("user", "q1"), line("assistant", "a1")] },
      { type: "sent", session: "s1", text: "q2" },
      { type: "done", session: "s1", result: turn({ reply: "a2", compacted: compaction(2) }) },
    );
    expect(shape(s)).toEqual(["q1", "a1", "--2--", "q2", "a2"]);
    // The same compaction again (a repeated answer) is not drawn twice.
    s = chatReducer(s, { type: "sent", session: "s1", text: "q3" });
    s = chatReducer(s, { type: "done", session: "s1", result: turn({ reply: "a3", compacted: compaction(2) }) });
    expect(shape(s)).toEqual(["q1", "a1", "--2--", "q2", "a2", "q3", "a3"]);
    // A message sent to another session starts afresh.
    expect(chatReducer(s, { type: "sent", session: "s2", text: "x" }).compactions).toEqual([]);
    expect(chatReducer(s, { type: "reset", session: "s1" }).compactions).toEqual([]);
  });

  it("counts only saved messages: /memory answers and stopped turns are not in the transcript", () => {
    const s = run(
      { type: "loaded", session: "s1", lines: [line("user", "q1"), line("assistant", "a1")] },
      { type: "sent", session: "s1", text: "/memory" },
      { type: "done", session: "s1", result: turn({ reply: "status", command: { name: "memory" } }) },
      { type: "sent", session: "s1", text: "stopped" },
      delta("par"),
      { type: "failed", session: "s1", stopped: true },
      { type: "sent", session: "s1", text: "q2" },
      { type: "done", session: "s1", result: turn({ reply: "a2", compacted: compaction(3) }) },
    );
    expect(shape(s)).toEqual(["q1", "a1", "/memory", "status", "stopped", "par", "q2", "--3--", "a2"]);
  });

  it("puts a marker at the start or the end when its position is not shown", () => {
    const s = run({ type: "loaded", session: "s1", lines: [line("user", "q1")], compactions: [compaction(0), compaction(9)] });
    expect(shape(s)).toEqual(["--0--", "q1", "--9--"]);
  });

  it("says who wrote the summary", () => {
    expect(compactionAuthor("model")).toBe("written by the model");
    expect(compactionAuthor("extractive")).toBe("written without a model (extractive)");
    expect(compactionAuthor("someone")).toBe("written by someone");
  });
});

describe("chat helpers", () => {
  it("sorts sessions most recent first", () => {
    const s = (id: string, updated_at: string): SessionInfo => ({ id, title: id, messages: 0, updated_at, ignore_memory: false });
    expect(sortSessions([s("a", "2026-01-01"), s("b", "2026-03-01"), s("c", "2026-02-01")]).map((x) => x.id)).toEqual([
      "b",
      "c",
      "a",
    ]);
  });

  it("restores a message into the input without losing what is there", () => {
    expect(restoreInput("", "hello")).toBe("hello");
    expect(restoreInput("new", "hello")).toBe("hello\nnew");
    expect(restoreInput("hello", "hello")).toBe("hello");
  });

  it("labels recall counts", () => {
    expect(recallLabel(0)).toBe("No memories recalled");
    expect(recallLabel(1)).toBe("Recalled 1 memory");
    // Memories from earlier turns the model still sees are counted apart.
    expect(recallLabel(0, 1)).toBe("Nothing new recalled · 1 memory still in view");
    expect(recallLabel(2, 3)).toBe("Recalled 2 memories · 3 memories still in view");
    expect(recallLabel(3)).toBe("Recalled 3 memories");
  });
});

describe("/memory card figures", () => {
  it("counts memories by type in order, invalid files last, and names the recall model only when it differs", () => {
    const snap = memorySnapshot(memoryStats(), DOCS, { model: "big", fast_model: "small" }, true, 5);
    expect(snap.byType).toEqual([
      { key: "user", count: 2 },
      { key: "feedback", count: 1 },
      { key: "project", count: 1 },
      { key: "reference", count: 1 },
      { key: "invalid", count: 1 },
    ]);
    expect(snap).toMatchObject({ total: 6, model: "big", fastModel: "small", ignored: true, at: 5 });
    expect(memorySnapshot(memoryStats(), [], { model: "big", fast_model: "big" }, false).fastModel).toBe("");
    expect(memorySnapshot(memoryStats(), [], null, false)).toMatchObject({ model: "", fastModel: "", total: 0, byType: [] });
  });

  it("does not count daily logs or conversation records as memories (not valid ones either)", () => {
    const snap = memorySnapshot(memoryStats(), [...DOCS, { type: null, kind: "chat" }, { type: null, kind: "log" }], null, false, 5);
    expect(snap.total).toBe(6);
    expect(snap.byType.find((t) => t.key === "invalid")).toEqual({ key: "invalid", count: 1 });
  });
});

describe("how recall chose, in a sentence", () => {
  it("says when every memory went to the model", async () => {
    const { recallSentence, strategyText } = await import("./chat");
    expect(recallSentence("all", 3)).toBe("Few enough to give the model all of them (3 memories).");
    expect(strategyText("all")).toBe("all of them");
    expect(recallSentence("model", 1)).toBe("The model read the list of 1 memory and picked these.");
  });
});
