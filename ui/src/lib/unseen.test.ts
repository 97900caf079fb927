import { beforeEach, describe, expect, it } from "vitest";
import { MAX_UNSEEN, PRUNE_GRACE_MS, UNSEEN_KEY, loadUnseen, markSeen, noteChange, prune, saveUnseen } from "./unseen";
import type { Unseen } from "./unseen";
import { docKey } from "./format";

const key = (p: string, ws = "personal") => docKey(ws, p);
const listed = new Set([key("tea.md")]);
const known = (k: string) => listed.has(k);

describe("new and changed memories", () => {
  beforeEach(() => localStorage.clear());

  it("marks what others wrote as new or changed, with who wrote it", () => {
    let u: Unseen = {};
    u = noteChange(u, { workspace: "personal", paths: ["tea.md", "trip.md"], source: "extract" }, known, 1);
    expect(u[key("tea.md")]).toEqual({ mark: "changed", by: "extract", at: 1 });
    expect(u[key("trip.md")]).toEqual({ mark: "new", by: "extract", at: 1 });
    // Changed again by someone else: still new, now by them.
    u = noteChange(u, { workspace: "personal", paths: ["trip.md"], source: "watcher" }, (k) => k === key("trip.md"), 2);
    expect(u[key("trip.md")]).toEqual({ mark: "new", by: "watcher", at: 2 });
  });

  it("does not mark a person's own edits, MEMORY.md or the daily logs", () => {
    const u = noteChange({}, { workspace: "personal", paths: ["tea.md"], source: "user" }, known, 1);
    expect(u).toEqual({});
    const v = noteChange({}, { workspace: "personal", paths: ["MEMORY.md", "logs/2026/11/2026-11-25.md"], source: "chat" }, known, 1);
    expect(v).toEqual({});
  });

  it("clears a mark once opened, and drops marks of memories that are gone", () => {
    let u = noteChange({}, { workspace: "personal", paths: ["a.md", "b.md"], source: "remember" }, known, 1);
    u = noteChange(u, { workspace: "work", paths: ["c.md"], source: "mcp" }, known, 1);
    u = markSeen(u, key("a.md"));
    expect(Object.keys(u)).toEqual([key("b.md"), key("c.md", "work")]);
    // A list asked for before the change may not hold it yet: a fresh mark stays.
    expect(prune(u, new Set([key("a.md")]), "personal", 1 + PRUNE_GRACE_MS)).toBe(u);
    // Later, the personal list no longer holding b.md means it is gone; work's marks are not its business.
    u = prune(u, new Set([key("a.md")]), "personal", 2 + PRUNE_GRACE_MS);
    expect(Object.keys(u)).toEqual([key("c.md", "work")]);
    expect(prune(u, new Set(), null, 2 + PRUNE_GRACE_MS)).toEqual({});
  });

  it("keeps at most the newest marks, and survives a reload but not a damaged record", () => {
    let u: Unseen = {};
    for (let i = 0; i < MAX_UNSEEN + 5; i++) u = noteChange(u, { workspace: "personal", paths: [`m${i}.md`], source: "extract" }, known, i);
    expect(Object.keys(u)).toHaveLength(MAX_UNSEEN);
    expect(u[key("m0.md")]).toBeUndefined();
    expect(u[key(`m${MAX_UNSEEN + 4}.md`)]).toBeDefined();
    saveUnseen(u);
    expect(loadUnseen()).toEqual(u);
    localStorage.setItem(UNSEEN_KEY, "{not json");
    expect(loadUnseen()).toEqual({});
    localStorage.setItem(UNSEEN_KEY, JSON.stringify({ x: { mark: "odd", by: "extract", at: 1 } }));
    expect(loadUnseen()).toEqual({});
  });
});
