import { describe, expect, it } from "vitest";
import { formatAge, formatClock, isChatPath, isLogPath, isRecord, kindOfPath, logDay } from "./format";
import { groupDocs, hitRows, nextItemIndex, recentDocs, usageDocs } from "./rows";
import { DOCS } from "../test/fixtures";
import type { DocSummary } from "./bindings";

describe("formatAge", () => {
  const now = new Date(2025, 5, 20, 15, 0);
  it("counts calendar days", () => {
    expect(formatAge(new Date(2025, 5, 20, 0, 5).toISOString(), now)).toBe(formatClock(new Date(2025, 5, 20, 0, 5)));
    expect(formatAge(new Date(2025, 5, 19, 23, 59).toISOString(), now)).toBe("yesterday");
    expect(formatAge(new Date(2025, 5, 17).toISOString(), now)).toBe("3 days ago");
    expect(formatAge(new Date(2025, 5, 1).toISOString(), now)).toBe("2 weeks ago");
    expect(formatAge(new Date(2025, 0, 1).toISOString(), now)).toBe("5 months ago");
    expect(formatAge(new Date(2023, 0, 1).toISOString(), now)).toBe("2 years ago");
    expect(formatAge("not a date", now)).toBe("");
  });
});

describe("groupDocs", () => {
  it("orders groups by type, then logs, then invalid, and sorts names naturally", () => {
    const log: DocSummary = {
      workspace: "personal",
      path: "logs/2025/06/2025-06-20.md",
      kind: "log",
      type: null,
      name: "2025-06-20",
      description: "",
      mtime: "2025-06-20T10:00:00Z",
      valid: true,
      pinned: false,
      archived: false,
    };
    const extra = [2, 10, 1].map<DocSummary>((n) => ({ ...DOCS[0], path: `t${n}.md`, name: `Topic ${n}` }));
    const rows = groupDocs([log, ...DOCS, ...extra]);
    const headers = rows.flatMap((r) => (r.kind === "header" ? [`${r.group}:${r.count}`] : []));
    expect(headers).toEqual(["user:2", "feedback:4", "project:1", "reference:1", "log:1", "invalid:1"]);
    const feedback = rows.slice(4, 8).map((r) => (r.kind === "item" ? r.item.name : r.label));
    expect(feedback).toEqual(["Response style", "Topic 1", "Topic 2", "Topic 10"]);
  });

  it("keeps the header of a collapsed group but hides its rows", () => {
    const rows = groupDocs(DOCS, new Set(["user"]));
    expect(rows[0]).toMatchObject({ kind: "header", group: "user", count: 2 });
    expect(rows[1]).toMatchObject({ kind: "header", group: "feedback" });
  });
});

describe("hitRows / nextItemIndex", () => {
  it("keeps the server's ranking and skips headers when moving", () => {
    const map = new Map(DOCS.map((d) => [`${d.workspace}\u0000${d.path}`, d]));
    const rows = hitRows(
      [
        { workspace: "personal", path: "proj.md", score: 2, name: "Launch date", type: "project", description: "", mtime: "2026-01-01T00:00:00Z" },
        { workspace: "personal", path: "me.md", score: 1, name: "Alpha role", type: "user", description: "", mtime: "2026-01-01T00:00:00Z" },
      ],
      map,
    );
    expect(rows.map((r) => (r.kind === "item" ? r.item.path : r.label))).toEqual(["2 matches", "proj.md", "me.md"]);
    expect(rows[1].kind === "item" && rows[1].item.mtime).toBe(DOCS[3].mtime);
    expect(nextItemIndex(rows, -1, 1)).toBe(1);
    expect(nextItemIndex(rows, 1, -1)).toBe(-1);
    expect(nextItemIndex(rows, 2, 1)).toBe(-1);
    expect(hitRows([], map)).toEqual([]);
  });

  it("carries an archived memory's mark into its row, listed and searchable as any other", () => {
    const old: DocSummary = { ...DOCS[3], path: "old.md", name: "旧的发布日期", archived: true };
    const grouped = groupDocs([...DOCS, old]);
    const row = grouped.find((r) => r.kind === "item" && r.item.path === "old.md");
    expect(row).toMatchObject({ kind: "item", item: { archived: true, type: "project" } });
    expect(grouped.find((r) => r.kind === "item" && r.item.path === "proj.md")).toMatchObject({ item: { archived: false } });
    const map = new Map([...DOCS, old].map((d) => [`${d.workspace}\u0000${d.path}`, d]));
    const hits = hitRows([{ workspace: "personal", path: "old.md", score: 1, name: old.name, type: "project", description: "", mtime: old.mtime }], map);
    expect(hits[1]).toMatchObject({ kind: "item", item: { path: "old.md", archived: true } });
  });
});

describe("daily logs", () => {
  const log = (day: string, mtime: string): DocSummary => ({
    workspace: "personal",
    path: `logs/${day.slice(0, 4)}/${day.slice(5, 7)}/${day}.md`,
    kind: "log",
    type: null,
    name: day,
    description: `Daily log ${day}`,
    mtime,
    valid: true,
    pinned: false,
    archived: false,
  });

  it("knows a log's day from its path", () => {
    expect(logDay("logs/2026/11/2026-11-23.md")).toBe("2026-11-23");
    expect(logDay("notes/2026-11-23.md")).toBeNull();
    expect(isLogPath("logs/2026/11/2026-11-23.md")).toBe(true);
    expect(isLogPath("me.md")).toBe(false);
  });

  it("lists logs by day, newest day first, whenever they last changed", () => {
    // The older day was edited last: still listed after the newer day.
    const rows = groupDocs([log("2026-11-22", "2026-11-25T10:00:00Z"), log("2026-11-23", "2026-11-23T10:00:00Z"), ...DOCS]);
    const logRows = rows.filter((r) => r.kind === "item" && r.item.kind === "log");
    expect(logRows.map((r) => (r.kind === "item" ? r.item.name : ""))).toEqual(["2026-11-23", "2026-11-22"]);
    const header = rows.find((r) => r.kind === "header" && r.group === "log");
    expect(header).toMatchObject({ label: "Daily logs", count: 2 });
  });

  it("names a log by its day even when its name says otherwise", () => {
    const rows = groupDocs([{ ...log("2026-11-23", "2026-11-23T10:00:00Z"), name: "whatever" }]);
    expect(rows[1]).toMatchObject({ kind: "item", item: { name: "2026-11-23", kind: "log" } });
  });

  it("treats a search hit under logs/ as a log", () => {
    const rows = hitRows(
      [{ workspace: "personal", path: "logs/2026/11/2026-11-23.md", score: 1, name: "2026-11-23", type: null, description: "Daily log 2026-11-23", mtime: "2026-11-23T10:00:00Z" }],
      new Map(),
    );
    expect(rows[1]).toMatchObject({ kind: "item", item: { kind: "log", name: "2026-11-23", type: null } });
  });
});

describe("conversation records", () => {
  const record = (day: string, session: string, mtime: string): DocSummary => ({
    workspace: "personal",
    path: `chats/${day.slice(0, 4)}/${day.slice(5, 7)}/${day}-${session}.md`,
    kind: "chat",
    type: null,
    name: `From your chat on ${day}`,
    description: `What you said in a chat on ${day}`,
    mtime,
    valid: true,
    pinned: false,
    archived: false,
  });
  const LOG: DocSummary = { ...record("2026-11-20", "x", "2026-11-20T10:00:00Z"), path: "logs/2026/11/2026-11-20.md", kind: "log", name: "2026-11-20" };

  it("knows a record's path, and that records and logs are plain markdown", () => {
    expect(isChatPath("chats/2026/11/2026-11-27-s-1a_b.md")).toBe(true);
    expect(isChatPath("chats/2026/11/2026-11-27.md")).toBe(false);
    expect(isChatPath("chats/notes.md")).toBe(false);
    expect(isChatPath("me.md")).toBe(false);
    expect(kindOfPath("chats/2026/11/2026-11-27-s1.md")).toBe("chat");
    expect(kindOfPath("logs/2026/11/2026-11-27.md")).toBe("log");
    expect(kindOfPath("chats/notes.md")).toBeNull();
    expect(isRecord("chat")).toBe(true);
    expect(isRecord("log")).toBe(true);
    expect(isRecord("topic")).toBe(false);
    expect(isRecord(null)).toBe(false);
  });

  it("groups records after the daily logs, newest day first, by their own names", () => {
    const rows = groupDocs([
      record("2026-11-26", "s2", "2026-11-28T10:00:00Z"),
      record("2026-11-27", "s1", "2026-11-27T10:00:00Z"),
      LOG,
      ...DOCS,
    ]);
    const headers = rows.filter((r) => r.kind === "header").map((r) => (r.kind === "header" ? r.group : ""));
    expect(headers).toEqual(["user", "feedback", "project", "reference", "log", "chat", "invalid"]);
    expect(rows.find((r) => r.kind === "header" && r.group === "chat")).toMatchObject({ label: "Conversation records", count: 2 });
    const names = rows.filter((r) => r.kind === "item" && r.item.kind === "chat").map((r) => (r.kind === "item" ? r.item.name : ""));
    expect(names).toEqual(["From your chat on 2026-11-27", "From your chat on 2026-11-26"]);
  });

  it("adds no group to a home without records", () => {
    const headers = groupDocs([LOG, ...DOCS]).filter((r) => r.kind === "header").map((r) => (r.kind === "header" ? r.group : ""));
    expect(headers).toEqual(["user", "feedback", "project", "reference", "log", "invalid"]);
  });

  it("treats a search hit under chats/ as a record, and keeps records in the usage sorts (recall picks them)", () => {
    const r = record("2026-11-27", "s1", "2026-11-27T10:00:00Z");
    const rows = hitRows([{ workspace: "personal", path: r.path, score: 1, name: r.name, type: null, description: r.description, mtime: r.mtime }], new Map());
    expect(rows[1]).toMatchObject({ kind: "item", item: { kind: "chat", name: r.name, type: null } });
    const usage = usageDocs([r, LOG], new Map(), "recalls");
    expect(usage.filter((x) => x.kind === "item").map((x) => (x.kind === "item" ? x.item.path : ""))).toEqual([r.path]);
  });
});

describe("a file holding a secret", () => {
  it("carries what it holds to its row, so the list can flag it", () => {
    const rows = groupDocs([{ ...DOCS[0], secret: "github_token (line 7)" }]);
    const item = rows.find((r) => r.kind === "item");
    expect(item?.kind === "item" && item.item.secret).toBe("github_token (line 7)");
  });
});

describe("last changed first", () => {
  it("lists every memory newest first under one header", () => {
    const docs = [
      { ...DOCS[0], path: "old.md", name: "Old", mtime: "2025-01-01T00:00:00Z" },
      { ...DOCS[0], path: "new.md", name: "New", mtime: "2025-06-01T00:00:00Z" },
      { ...DOCS[0], path: "mid.md", name: "Mid", mtime: "2025-03-01T00:00:00Z" },
    ];
    const rows = recentDocs(docs);
    expect(rows[0].kind === "header" && rows[0].label).toBe("Last changed first");
    expect(rows.slice(1).map((r) => (r.kind === "item" ? r.item.name : ""))).toEqual(["New", "Mid", "Old"]);
  });
});
