import { describe, expect, it } from "vitest";
import type { Copied, RestoreChoice } from "./bindings";
import {
  activeImport,
  asSentence,
  budgetText,
  byTypeText,
  cannotImport,
  conversationsText,
  copiedText,
  copyGroups,
  copyUndoneText,
  defaultExportPath,
  estimateText,
  exportPathProblem,
  exportedText,
  failureText,
  formatBytes,
  importOutcome,
  isResumable,
  leftOutParts,
  parseBudget,
  pathProblem,
  progressOf,
  restoreImpossible,
  restoreNote,
  retick,
  writesText,
} from "./transfer";
import { estimate, memoryPreview, task } from "../test/fixtures";

describe("an import's preview in words", () => {
  it("says what a memory import writes and leaves out", () => {
    const p = memoryPreview();
    expect(writesText(p)).toBe("5 memories in 2 new files");
    expect(writesText(memoryPreview({ memories: 1, files: 1 }))).toBe("1 memory in 1 new file");
    expect(byTypeText(p)).toBe("3 user · 2 feedback");
    expect(leftOutParts(p)).toEqual(["1 duplicate skipped", "1 item with a secret refused"]);
    expect(leftOutParts(memoryPreview({ duplicates: 0, secrets: 0, skipped: 3 }))).toEqual(["3 other items left out"]);
    expect(cannotImport(p)).toBeNull();
    expect(cannotImport(memoryPreview({ memories: 0, files: 0 }))).toMatch(/^Nothing to import/);
  });

  it("waits for a workspace of a whole-home export to be ticked, and says what each one is", () => {
    const choice = (workspace: string, extra: Partial<RestoreChoice> = {}): RestoreChoice => ({
      workspace,
      files: 2,
      chosen: false,
      exists: true,
      other_tool: false,
      why_not: "not chosen",
      target: `/home/u/${workspace}`,
      ...extra,
    });
    const restore = [
      choice("claude-web", { other_tool: true }),
      choice("personal"),
      choice("team-x", { exists: false }),
      choice("gone", { exists: false, other_tool: true, why_not: "gone is not in this home", target: null }),
      choice("claude:-home-u-app", { exists: false, other_tool: true, why_not: "confirm it" }),
      choice("folder:-home-u-notes", { exists: false, other_tool: true, why_not: "confirm it" }),
    ];
    const none = memoryPreview({ memories: 0, files: 0, restore });
    expect(cannotImport(none)).toBe("Tick the workspaces to restore.");
    expect(cannotImport({ ...none, memories: 2, files: 2, restore: restore.map((r) => (r.workspace === "personal" ? { ...r, chosen: true, why_not: null } : r)) })).toBeNull();
    expect(restore.map(restoreNote)).toEqual([
      "Another tool's memory — Claude Code or Qwen Code loads it into every session",
      "",
      "Mnemo, new here",
      "Another tool's memory or an added folder, with no place on this computer",
      "Another tool's memory, not on this computer yet — made again in its folder; that tool loads it into every session",
      "An added folder, made again where it was",
    ]);
    // Only one with no place on this computer cannot be restored (another tool's
    // project memory and an added folder are made again where they lived, once ticked).
    expect(restore.map(restoreImpossible)).toEqual([false, false, false, true, false, false]);
    // Ticks keep the export's order, and never name what cannot be restored.
    expect(retick(restore, ["team-x"], "claude-web", true)).toEqual(["claude-web", "team-x"]);
    expect(retick(restore, ["claude-web", "team-x"], "claude-web", false)).toEqual(["team-x"]);
    expect(retick(restore, ["team-x"], "gone", true)).toEqual(["team-x"]);
  });

  it("estimates a conversation import, and refuses it without a model", () => {
    const c = estimate();
    expect(conversationsText(c)).toBe("20 conversations (4 already learnt from), 1,340 messages to read");
    expect(estimateText(c)).toBe("About 48 model calls and 182,000 tokens");
    expect(budgetText(c)).toBe("It stops before it would pass 227,500 tokens.");
    expect(budgetText(estimate({ spent_tokens: 9000 }))).toBe("It stops before it would pass 227,500 tokens; earlier runs spent about 9,000.");
    const p = memoryPreview({ memories: 0, files: 0, by_type: [], conversations: c });
    expect(cannotImport(p)).toBeNull();
    expect(cannotImport({ ...p, conversations: estimate({ model_ready: false }) })).toMatch(/needs a model, and none is set up yet/);
    expect(cannotImport({ ...p, conversations: estimate({ messages: 0, done_before: 20 }) })).toMatch(/already learnt from/);
  });

  it("reads a typed budget", () => {
    expect(parseBudget("227,500")).toBe(227500);
    expect(parseBudget(" 50000 ")).toBe(50000);
    expect(parseBudget("0")).toBeNull();
    expect(parseBudget("lots")).toBeNull();
    expect(parseBudget("1.5")).toBeNull();
  });

  it("asks for a full path", () => {
    expect(pathProblem("", "the export")).toBe("Type the full path of the export.");
    expect(pathProblem("exports/a.json", "the export")).toMatch(/full path/);
    expect(pathProblem("~/a.json", "the export")).toMatch(/“~” is not expanded/);
    expect(pathProblem("/home/u/导出/a.json", "the export")).toBeNull();
    expect(pathProblem("C:\\Users\\u\\a.json", "the export")).toBeNull();
  });
});

describe("an import task", () => {
  it("reads how far it has got from its counts, never from its phase's words", () => {
    expect(progressOf({ progress: { done: 3, total: 10 } })).toEqual({ done: 3, total: 10 });
    expect(progressOf({ progress: { done: 12, total: 10 } })).toEqual({ done: 10, total: 10 });
    expect(progressOf({ progress: { done: 0, total: 0 } })).toBeNull();
    expect(progressOf({ progress: null })).toBeNull();
    expect(progressOf(task("t", { phase: "Writing 3 / 10 files", progress: null }))).toBeNull();
  });

  it("tells how it ended, and that a conversation import goes on when run again", () => {
    const budget = task("i1", {
      kind: "import",
      status: "failed",
      reason: "budget",
      error: "stopped at the budget after 3 conversations (about 9,000 tokens spent): wrote 2 memory files; run the import again with a bigger budget to go on",
      result: { summary: "stopped at the budget after 3 conversations (about 9,000 tokens spent): wrote 2 memory files; run the import again with a bigger budget to go on", files: ["a.md", "b.md"], group: 4 },
    });
    expect(importOutcome(budget)).toBe("budget");
    expect(isResumable(budget, true)).toBe(true);
    expect(failureText(budget, true)).toBe(
      "Stopped at the budget after 3 conversations (about 9,000 tokens spent): wrote 2 memory files. Run it again with a bigger budget to go on.",
    );
    const some = "learnt from 3 of 5 conversations; 2 could not be learnt from (\"东京\": the model timed out): wrote 2 memory files; run the import again to try them again";
    const partial = task("i7", { kind: "import", status: "failed", reason: "error", error: some, result: { summary: some, files: ["a.md"], group: 5 } });
    expect(importOutcome(partial)).toBe("partial");
    expect(isResumable(partial, true)).toBe(true);
    expect(failureText(partial, true)).toBe(
      "Learnt from 3 of 5 conversations; 2 could not be learnt from (\"东京\": the model timed out): wrote 2 memory files. Run it again to try those again.",
    );
    const cancelled = task("i2", { kind: "import", status: "failed", reason: "cancelled", error: "cancelled after 1 conversations: nothing written; run the import again to go on" });
    expect(failureText(cancelled, true)).toBe("Cancelled after 1 conversations: nothing written. Run it again to go on.");
    // A memory import writes all or nothing.
    expect(failureText({ ...cancelled, error: "the import was cancelled" }, false)).toBe("You cancelled the import. Nothing was written.");
    const failed = task("i3", { kind: "import", status: "failed", reason: "error", error: "disk full" });
    expect(failureText(failed, false)).toBe("Disk full. Nothing was written.");
    expect(isResumable(failed, false)).toBe(false);
    expect(importOutcome(task("i4", { kind: "import" }))).toBe("completed");
  });

  it("finds the workspace's import under way", () => {
    const running = task("i5", { kind: "import", status: "running" });
    expect(activeImport([task("x", { status: "running" }), running], "personal")).toBe(running);
    expect(activeImport([running], "work")).toBeNull();
    expect(activeImport([task("i6", { kind: "import" })], "personal")).toBeNull();
  });

  it("capitalises the server's summary into a sentence", () => {
    expect(asSentence("imported 5 memories into 2 files")).toBe("Imported 5 memories into 2 files.");
    expect(asSentence("learnt from 3 of 3 conversations: wrote 2 memory files")).toBe("Learnt from 3 of 3 conversations: wrote 2 memory files.");
  });
});

describe("export", () => {
  const day = new Date(2026, 2, 4, 15, 30);

  it("goes by default to the person's folder, or beside the Mnemo home", () => {
    expect(defaultExportPath("/home/ana/.local/share/mnemo", day)).toBe("/home/ana/mnemo-export-2026-03-04-153000.zip");
    expect(defaultExportPath("/Users/ana/Library/Application Support/mnemo", day)).toBe("/Users/ana/mnemo-export-2026-03-04-153000.zip");
    expect(defaultExportPath("/tmp/mnemo-e2e-x/home", day)).toBe("/tmp/mnemo-e2e-x/mnemo-export-2026-03-04-153000.zip");
    expect(defaultExportPath("/srv/mnemo/", day)).toBe("/srv/mnemo-export-2026-03-04-153000.zip");
    expect(defaultExportPath("C:\\Users\\Ana\\AppData\\Roaming\\mnemo", day)).toBe("C:\\Users\\Ana\\mnemo-export-2026-03-04-153000.zip");
    expect(defaultExportPath(null, day)).toBe("");
  });

  it("wants a full path ending in .zip", () => {
    expect(exportPathProblem("/home/ana/out.zip")).toBeNull();
    expect(exportPathProblem("/home/ana/out.tar")).toBe("An export is a zip: end its name in .zip.");
    expect(exportPathProblem("out.zip")).toMatch(/full path/);
  });

  it("says what it wrote", () => {
    expect(formatBytes(512)).toBe("512 bytes");
    expect(formatBytes(2048)).toBe("2.0 KB");
    expect(formatBytes(3_400_000)).toBe("3.4 MB");
    expect(exportedText({ path: "/home/ana/备份.zip", workspaces: ["personal"], files: 12, bytes: 8200, left_out: [] })).toBe("Exported 12 files (8.2 KB) to /home/ana/备份.zip.");
    // A hard link is left out and named, the rest exported.
    expect(
      exportedText({ path: "/tmp/e.zip", workspaces: ["personal"], files: 2, bytes: 900, left_out: ["personal/x.md: a hard link"] }),
    ).toBe("Exported 2 files (900 bytes) to /tmp/e.zip. Left out 1 file: personal/x.md: a hard link.");
  });
});

describe("copy and move", () => {
  const label = (id: string) => ({ personal: "Personal", work: "工作" })[id] ?? id;
  const copied = (extra: Partial<Copied> = {}): Copied => ({
    from_workspace: "personal",
    from_path: "style.md",
    workspace: "work",
    path: "style.md",
    group: 7,
    removed_group: null,
    ...extra,
  });

  it("says what a copy or a move did", () => {
    expect(copiedText(copied(), false, "Style", label)).toBe("Copied “Style” to 工作.");
    expect(copiedText(copied({ path: "style-2.md", removed_group: 8 }), true, "Style", label)).toBe(
      "Moved “Style” to 工作 as style-2.md (style.md there holds another memory).",
    );
    expect(copiedText(copied({ group: null }), false, "Style", label)).toBe("工作 already has the same “Style”: nothing was copied.");
    expect(copiedText(copied({ group: null, removed_group: 8 }), true, "Style", label)).toBe("工作 already had the same “Style”: it was removed from Personal.");
  });

  it("undoes each side's group", () => {
    expect(copyGroups(copied())).toEqual([7]);
    expect(copyGroups(copied({ removed_group: 8 }))).toEqual([7, 8]);
    expect(copyGroups(copied({ group: null }))).toEqual([]);
    expect(copyUndoneText(copied({ removed_group: 8 }), "Style", label)).toBe("Undone: “Style” is back in Personal, and the copy in 工作 is taken back.");
    expect(copyUndoneText(copied(), "Style", label)).toBe("Undone: the copy in 工作 is taken back.");
  });
});
