import { describe, expect, it } from "vitest";
import { MAX_CONTENT_BYTES, contentBytes, contentProblem, failure, fileToOpen, isSettled, listedAhead, rememberStatus } from "./remember";
import type { RememberTask } from "./bindings";
import { rememberTask, task } from "../test/fixtures";

const queued: RememberTask = rememberTask();

describe("remember", () => {
  it("refuses empty and oversized content before sending", () => {
    expect(contentProblem("  \n")).toMatch(/Write what to remember/);
    expect(contentProblem("Deploys go out on Tuesdays.")).toBeNull();
    expect(contentBytes("é")).toBe(2);
    expect(contentProblem("é".repeat(MAX_CONTENT_BYTES / 2))).toBeNull();
    expect(contentProblem("é".repeat(MAX_CONTENT_BYTES / 2 + 1))).toMatch(/64 KiB/);
  });

  it("opens the first file a completed task wrote", () => {
    expect(fileToOpen(queued)).toBeNull();
    const done: RememberTask = {
      ...queued,
      status: "completed",
      result: { summary: "saved", filesTouched: ["project/deploy.md", "user/me.md"], touchedTypes: ["project"], group: 3, proposal: null },
    };
    expect(fileToOpen(done)).toBe("project/deploy.md");
    expect(fileToOpen({ ...done, result: { ...done.result!, filesTouched: [] } })).toBeNull();
  });

  it("says a task whose writes became a proposal was proposed, not remembered", () => {
    const done: RememberTask = {
      ...queued,
      status: "completed",
      result: { summary: "saved", filesTouched: ["user/pet.md"], touchedTypes: ["user"], group: 3, proposal: null },
    };
    expect(rememberStatus(done)).toEqual({ text: "Remembered", tone: "completed" });
    const proposed: RememberTask = { ...done, result: { ...done.result!, filesTouched: [], group: null, proposal: 12 } };
    expect(rememberStatus(proposed)).toEqual({ text: "Proposed for review", tone: "proposed" });
    expect(rememberStatus(queued).text).toBe("Waiting for its turn…");
  });

  it("says why a task failed: its own error, else the list's", () => {
    expect(failure(queued, null)).toBeNull();
    const failed: RememberTask = { ...queued, status: "failed", error: { code: "remember_path_escape", message: "outside" } };
    expect(failure(failed, null)).toEqual({ code: "remember_path_escape", message: "outside" });
    const listed = task("remember-1", { kind: "remember", status: "failed", reason: "remember_failed", error: "the model timed out" });
    expect(failure({ ...failed, error: null }, listed)).toEqual({ code: "remember_failed", message: "the model timed out" });
    // A remember that saved nothing says so, with its own code.
    const nothing = task("remember-1", {
      kind: "remember",
      status: "failed",
      reason: "remember_nothing_written",
      error: "the model finished without writing any memory file; nothing was saved",
    });
    expect(failure({ ...failed, error: null }, nothing)).toEqual({
      code: "remember_nothing_written",
      message: "the model finished without writing any memory file; nothing was saved",
    });
  });

  it("knows when the list is ahead of the task, and when a task is settled", () => {
    expect(listedAhead(queued, null)).toBe(false);
    expect(listedAhead(queued, task("remember-1", { status: "queued" }))).toBe(false);
    expect(listedAhead(queued, task("remember-1", { status: "running" }))).toBe(true);
    expect(listedAhead(queued, task("other", { status: "running" }))).toBe(false);
    expect((["queued", "running", "completed", "failed", "skipped"] as const).map(isSettled)).toEqual([false, false, true, true, true]);
  });
});
