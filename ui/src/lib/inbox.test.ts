import { describe, expect, it } from "vitest";
import { CONFLICT_RECALL } from "./sync";
import {
  acceptChoice,
  acceptSelectedLabel,
  appendPage,
  clip,
  conflictsIntro,
  counts,
  editFile,
  inboxWaiting,
  initialSelection,
  originSentence,
  pendingSentence,
  replaceSummary,
  savedText,
  setAll,
  settledSentence,
  shownProposals,
  sizeText,
  startEditing,
  statusFor,
  stopEditing,
  toggleEntry,
  waitingCount,
  waitingSentence,
  whenText,
} from "./inbox";
import type { Proposal } from "./bindings";
import { formatWhen } from "./format";
import { proposalOf, proposalSummary, remoteSync, syncConflict, workspaceSync } from "../test/fixtures";

describe("where a proposal came from, in a sentence", () => {
  it("names the chat message an extraction came from, on one line and cut short", () => {
    expect(originSentence(proposalSummary(1))).toBe("Extraction after your chat message “我下个月去东京，记得我只坐靠窗的座位”");
    const long = proposalSummary(2, { origin: { session: "s", message: `Line one\n\n${"word ".repeat(40)}`, client: null, task: null } });
    const s = originSentence(long);
    expect(s).toMatch(/^Extraction after your chat message “Line one word word/);
    expect(s).toMatch(/…”$/);
    expect(s).not.toContain("\n");
    expect(originSentence(proposalSummary(3, { origin: { session: "s", message: null, client: null, task: null } }))).toBe(
      "Extraction after a chat turn",
    );
  });

  it("tells an automatic dream from one a person started", () => {
    const dream = (label: string) => proposalSummary(1, { source: "dream", kind: "dream", label, origin: { session: null, message: null, client: null, task: "d" } });
    expect(originSentence(dream("dream (automatic)"))).toBe("Dream (automatic)");
    expect(originSentence(dream("dream (manual)"))).toBe("Dream (you started it)");
  });

  it("says who asked to remember, and an assistant over MCP as such", () => {
    const remember = (client: string | null, message: string | null, source: "remember" | "mcp" = "remember") =>
      proposalSummary(1, { source, kind: "remember", label: "remember", origin: { session: null, message, client, task: "r" } });
    expect(originSentence(remember("claude-code", "Use pnpm."))).toBe("Remember request from claude-code: “Use pnpm.”");
    expect(originSentence(remember(null, null))).toBe("Remember request");
    expect(originSentence(remember("an assistant over MCP", "Deploys on Fridays are banned.", "mcp"))).toBe(
      "An assistant over MCP asked to remember “Deploys on Fridays are banned.”",
    );
    expect(originSentence(remember(null, null, "mcp"))).toBe("An assistant over MCP");
  });

  it("falls back to the job's label", () => {
    expect(originSentence(proposalSummary(1, { kind: "tidy", source: "chat", label: "tidy up" }))).toBe("Tidy up");
  });

  it("clips on one line", () => {
    expect(clip("  a \n b  ")).toBe("a b");
    expect(clip("abcdefghij", 5)).toBe("abcd…");
  });
});

describe("a proposal's size, time and the pending count", () => {
  it("counts changes and files", () => {
    expect(sizeText(proposalSummary(1))).toBe("2 changes to travel.md");
    expect(sizeText(proposalSummary(1, { changes: 1, paths: ["a.md", "b.md"] }))).toBe("1 change to 2 files");
  });

  it("says when in local time, and when it was decided", () => {
    const now = new Date("2026-03-01T12:00:00Z");
    const p = proposalSummary(1);
    expect(whenText(p, now)).toBe(formatWhen(p.at, now));
    const decided = { ...p, status: "accepted" as const, resolved_at: "2026-03-01T11:00:00Z" };
    expect(whenText(decided, now)).toBe(`${formatWhen(p.at, now)} · decided ${formatWhen(decided.resolved_at, now)}`);
  });

  it("puts the pending count in a sentence", () => {
    expect(pendingSentence(0)).toBe("Nothing waits for your review.");
    expect(pendingSentence(1)).toBe("1 proposal waits for your review.");
    expect(pendingSentence(10000)).toBe("10,000 proposals wait for your review.");
  });
});

describe("choosing what to accept", () => {
  const p = proposalOf(7);

  it("starts with every change ticked: accepting all or the selection sends no list", () => {
    const sel = initialSelection(p);
    expect(counts(p, sel)).toEqual({ chosen: 2, total: 2 });
    expect(acceptChoice(p, sel, "all")).toEqual({ entries: null, edits: [] });
    expect(acceptChoice(p, sel, "selected")).toEqual({ entries: null, edits: [] });
    expect(acceptSelectedLabel(2, 2)).toBe("Accept selected (2 of 2)");
  });

  it("sends the ticked changes when some are left out, and nothing when none is ticked", () => {
    const one = toggleEntry(initialSelection(p), "travel.md#1", false);
    expect(counts(p, one)).toEqual({ chosen: 1, total: 2 });
    expect(acceptChoice(p, one, "selected")).toEqual({ entries: ["travel.md#2"], edits: [] });
    const none = setAll(one, p, false);
    expect(acceptChoice(p, none, "selected")).toBeNull();
    expect(counts(p, setAll(none, p, true)).chosen).toBe(2);
  });

  it("sends the whole text of each file edited, and only of those", () => {
    let sel = startEditing(initialSelection(p), p);
    expect(sel.edits?.get("travel.md")).toBe(p.files[0].after);
    // Not changed yet: nothing is sent as an edit.
    expect(acceptChoice(p, sel, "edited")).toEqual({ entries: null, edits: [] });
    const text = `${p.files[0].after}\n靠过道也可以。\n`;
    sel = editFile(sel, "travel.md", text);
    expect(acceptChoice(p, sel, "edited")).toEqual({ entries: null, edits: [{ path: "travel.md", content: text }] });
    // An edit is a choice even with every change unticked.
    expect(acceptChoice(p, setAll(sel, p, false), "edited")).toEqual({ entries: [], edits: [{ path: "travel.md", content: text }] });
    expect(stopEditing(sel).edits).toBeNull();
    expect(editFile(stopEditing(sel), "travel.md", "x").edits).toBeNull();
  });

  it("offers no text to edit for a file the proposal deletes", () => {
    const gone: Proposal = { ...p, files: [{ ...p.files[0], op: "delete", after: null, entries: [{ id: "travel.md#1", op: "file", before: "x", after: null }] }] };
    expect(startEditing(initialSelection(gone), gone).edits?.size).toBe(0);
  });
});

describe("the inbox's pages and filters", () => {
  it("reads the pending ones from the server, the decided ones out of all", () => {
    expect(statusFor("pending")).toBe("pending");
    expect(statusFor("decided")).toBeNull();
    expect(statusFor("all")).toBeNull();
    const items = [proposalSummary(3), proposalSummary(2, { status: "accepted" }), proposalSummary(1, { status: "expired" })];
    expect(shownProposals(items, "decided").map((p) => p.id)).toEqual([2, 1]);
    expect(shownProposals(items, "all")).toHaveLength(3);
    // What was just decided here stays in the list with its new status.
    expect(shownProposals(items, "pending")).toHaveLength(3);
  });

  it("appends a page without repeating a proposal, and replaces one that changed", () => {
    const first = [proposalSummary(3), proposalSummary(2)];
    expect(appendPage(first, [proposalSummary(2), proposalSummary(1)]).map((p) => p.id)).toEqual([3, 2, 1]);
    expect(replaceSummary(first, proposalSummary(2, { status: "rejected" }))[1].status).toBe("rejected");
  });

  it("says what accepting saved", () => {
    expect(savedText(["a.md"])).toBe("Saved 1 file");
    expect(savedText(["a.md", "b.md"])).toBe("Saved 2 files");
    expect(savedText([])).toBe("Accepted: nothing needed to change");
  });
});

describe("what waits in the inbox: proposals and sync conflicts", () => {
  const sync = remoteSync({
    workspaces: [
      workspaceSync({ conflicts: [syncConflict(), syncConflict({ id: "k2", path: "home.md" })] }),
      workspaceSync({ workspace: "claude-proj", label: "proj", conflicts: [] }),
    ],
  });

  it("counts the workspace's open sync conflicts with its pending proposals (the Inbox badge's number)", () => {
    const w = inboxWaiting("personal", { workspace: "personal", pending: 3 }, sync);
    expect(w).toEqual({ workspace: "personal", pending: 3, conflicts: 2 });
    expect(waitingCount(w)).toBe(5);
    // Another workspace's conflicts are not counted; a count of another workspace is not used.
    expect(inboxWaiting("claude-proj", { workspace: "personal", pending: 3 }, sync)).toBeNull();
    expect(inboxWaiting("claude-proj", { workspace: "claude-proj", pending: 1 }, sync)).toEqual({ workspace: "claude-proj", pending: 1, conflicts: 0 });
    // Conflicts alone fill the inbox too (the count not read yet, or nothing proposed).
    expect(waitingCount(inboxWaiting("personal", null, sync))).toBe(2);
    // Sync not set up, or not read: proposals only.
    expect(inboxWaiting("personal", { workspace: "personal", pending: 1 }, null)).toEqual({ workspace: "personal", pending: 1, conflicts: 0 });
    expect(inboxWaiting(null, { workspace: "personal", pending: 1 }, sync)).toBeNull();
    expect(waitingCount(null)).toBe(0);
  });

  it("says what waits in one sentence", () => {
    expect(waitingSentence({ pending: 0, conflicts: 0 })).toBe("Nothing waits for your review.");
    expect(waitingSentence({ pending: 1, conflicts: 0 })).toBe(pendingSentence(1));
    expect(waitingSentence({ pending: 0, conflicts: 1 })).toBe("1 sync conflict waits for your choice.");
    expect(waitingSentence({ pending: 0, conflicts: 3 })).toBe("3 sync conflicts wait for your choice.");
    expect(waitingSentence({ pending: 2, conflicts: 1 })).toBe("2 proposals and 1 sync conflict wait for you.");
    expect(waitingSentence({ pending: 1, conflicts: 1200 })).toBe("1 proposal and 1,200 sync conflicts wait for you.");
    expect(conflictsIntro(1)).toMatch(/^Syncing with your other machines left one change it could not merge alone: choose the version to keep, or keep both\./);
    expect(conflictsIntro(2)).toMatch(/left 2 changes/);
    // What a conflict means for recall: the one sentence, never a rule of the Inbox's own.
    expect(conflictsIntro(1).endsWith(CONFLICT_RECALL)).toBe(true);
    expect(conflictsIntro(1)).not.toContain("what is here now stays");
    expect(settledSentence(syncConflict(), 0)).toBe("Chosen: Ana's version. Your other machines get this choice with their next sync.");
    expect(settledSentence(syncConflict(), null)).toBe("Both versions are kept. Your other machines get this choice with their next sync.");
    expect(settledSentence(syncConflict({ kind: "field", field: "description" }), null)).toBe("Kept as it is. Your other machines get this choice with their next sync.");
  });
});
