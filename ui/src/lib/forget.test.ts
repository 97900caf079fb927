import { describe, expect, it } from "vitest";
import { entriesText, forgetGroup, forgetLabel, forgetReducer, initialForget, picks, strategyText } from "./forget";
import type { ForgetAction, ForgetState } from "./forget";
import type { ForgetEntry, ForgetPreview } from "./bindings";
import { task } from "../test/fixtures";

const entry = (id: string, summary: string, hash = "h-a", confident = true): ForgetEntry => ({
  id,
  path: id.split(":")[0],
  name: "Staging",
  summary,
  text: `${summary}\nWhy: because.`,
  memory_type: "project",
  hash,
  mtime: "2026-03-01T10:00:00Z",
  confident,
});

const PREVIEW: ForgetPreview = {
  workspace: "personal",
  query: "staging",
  strategy: "heuristic",
  selected: [entry("deploy.md:1", "Staging deploys need a ticket."), entry("deploy.md:2", "Staging is reset on Mondays."), entry("ci.md", "CI runs on staging.", "h-b")],
  candidates: 7,
  note: null,
};

const run = (actions: ForgetAction[], from: ForgetState = initialForget) => actions.reduce(forgetReducer, from);
const previewed: ForgetAction = { type: "previewed", answer: { ok: true, data: PREVIEW } };
const conflict = { code: "conflict", message: "deploy.md changed since the preview: nothing was forgotten; preview again" };

describe("forgetReducer", () => {
  it("checks every previewed entry, and toggles them one by one or all at once", () => {
    let s = run([{ type: "query", query: "staging" }, { type: "previewing" }]);
    expect(s.stage).toBe("previewing");
    s = run([previewed], s);
    expect(s.stage).toBe("preview");
    expect([...s.checked]).toEqual(["deploy.md:1", "deploy.md:2", "ci.md"]);
    s = run([{ type: "toggle", id: "deploy.md:2" }], s);
    expect([...s.checked]).toEqual(["deploy.md:1", "ci.md"]);
    expect(picks(s.preview, s.checked)).toEqual([
      { id: "deploy.md:1", hash: "h-a" },
      { id: "ci.md", hash: "h-b" },
    ]);
    expect(run([{ type: "all", checked: false }], s).checked.size).toBe(0);
    expect(run([{ type: "all", checked: true }], s).checked.size).toBe(3);
  });

  it("ticks only confident picks; the others wait for the person", () => {
    const unsure: ForgetPreview = {
      ...PREVIEW,
      strategy: "model",
      selected: [entry("deploy.md:1", "Staging deploys need a ticket."), entry("ci.md", "CI runs nightly.", "h-b", false)],
    };
    let s = run([{ type: "previewed", answer: { ok: true, data: unsure } }]);
    expect([...s.checked]).toEqual(["deploy.md:1"]);
    s = run([{ type: "toggle", id: "ci.md" }], s);
    expect(picks(s.preview, s.checked).map((p) => p.id)).toEqual(["deploy.md:1", "ci.md"]);
  });

  it("keeps the query on a failed preview, and the old preview if there was one", () => {
    const failed: ForgetAction = { type: "previewed", answer: { ok: false, error: { code: "io", message: "disk" } } };
    const s = run([{ type: "query", query: "x" }, { type: "previewing" }, failed]);
    expect(s).toMatchObject({ stage: "query", query: "x", error: { code: "io" } });
    const again = run([previewed, { type: "previewing" }, failed]);
    expect(again.stage).toBe("preview");
    expect(again.preview).toBe(PREVIEW);
  });

  it("shows `conflict` on the preview, and a fresh preview clears it", () => {
    let s = run([previewed, { type: "forgetting" }, { type: "forgot", answer: { ok: false, error: conflict } }]);
    expect(s).toMatchObject({ stage: "preview", error: { code: "conflict" } });
    s = run([{ type: "previewing" }], s);
    expect(s.error).toBeNull();
  });

  it("records what was forgotten, then its undo", () => {
    const done = task("forget-1", { kind: "forget", result: { summary: "forgot 2 entries", files: ["deploy.md"], group: 9 } });
    let s = run([previewed, { type: "toggle", id: "ci.md" }, { type: "forgetting" }, { type: "forgot", answer: { ok: true, data: done } }]);
    expect(s.stage).toBe("done");
    expect(s.removed.map((e) => e.id)).toEqual(["deploy.md:1", "deploy.md:2"]);
    expect(forgetGroup(s)).toBe(9);
    s = run([{ type: "undoing" }], s);
    expect(s.undo).toBe("undoing");
    s = run([{ type: "undone", answer: { ok: false, error: conflict } }], s);
    expect(s).toMatchObject({ undo: "idle", error: { code: "conflict" } });
    s = run([{ type: "undone", answer: { ok: true, data: { undone: 9, group: 10, workspace: "personal", paths: ["deploy.md"] } } }], s);
    expect(s).toMatchObject({ undo: "undone", restored: ["deploy.md"] });
    expect(run([{ type: "restart" }], s)).toEqual({ ...initialForget, query: "" });
  });

  it("ignores toggles outside the preview", () => {
    expect(run([{ type: "toggle", id: "a" }])).toBe(initialForget);
    expect(run([{ type: "all", checked: true }])).toBe(initialForget);
  });
});

describe("words", () => {
  it("counts entries and says how they were chosen", () => {
    expect(entriesText(1)).toBe("1 entry");
    expect(forgetLabel(3)).toBe("Forget 3 entries");
    expect(strategyText(PREVIEW)).toBe("Entries containing the words, among 7 candidates");
    expect(strategyText({ ...PREVIEW, strategy: "model", candidates: 1 })).toBe("Chosen by the model among 1 candidate");
    expect(picks(null, new Set(["a"]))).toEqual([]);
  });
});
