import { describe, expect, it } from "vitest";
import {
  budget,
  formatAxisMs,
  formatBytes,
  formatMs,
  healthItems,
  niceCeil,
  niceCount,
  outcomeCounts,
  parseTelemetry,
  percentile,
  lastRunStatus,
  runStatusLabel,
  statusTone,
  withProposals,
  strategyMix,
} from "./stats";
import type { ProposalSummary, TelemetryEvent } from "./bindings";
import { proposalSummary } from "../test/fixtures";

const ev = (at: string, kind: string, data: object | string): TelemetryEvent => ({
  at,
  kind,
  data: typeof data === "string" ? data : JSON.stringify(data),
});

// Newest first, as `stats` returns them.
const EVENTS: TelemetryEvent[] = [
  ev("2026-03-01T10:05:00Z", "dream", { trigger: "manual", status: "updated", strategy: "mechanical", entries_merged: 2, duration_ms: 40 }),
  ev("2026-03-01T10:04:00Z", "recall", { strategy: "heuristic", duration_ms: 3, docs_selected: 1, paths: ["a.md"] }),
  ev("2026-03-01T10:03:00Z", "extract", { trigger: "auto", status: "completed", entries_written: 1, duration_ms: 900 }),
  ev("2026-03-01T10:02:00Z", "recall", { strategy: "model", duration_ms: 850, docs_selected: 2, paths: [] }),
  ev("2026-03-01T10:01:00Z", "recall", "not json"),
  ev("not a time", "recall", { strategy: "model" }),
  ev("2026-03-01T10:00:30Z", "extract", { entries_written: 3 }),
  ev("2026-03-01T10:00:00Z", "recall", { strategy: "model", duration_ms: "slow" }),
  ev("2026-03-01T09:00:00Z", "unknown", { status: "x" }),
];

describe("parseTelemetry", () => {
  it("reads each kind oldest first and skips what it cannot read", () => {
    const t = parseTelemetry(EVENTS);
    expect(t.recalls.map((r) => [r.strategy, r.durationMs, r.selected])).toEqual([
      ["model", 0, 0],
      ["model", 850, 2],
      ["heuristic", 3, 1],
    ]);
    expect(t.extracts).toEqual([
      { at: Date.parse("2026-03-01T10:03:00Z"), status: "completed", durationMs: 900, entries: 1, trigger: "auto", strategy: null },
    ]);
    expect(t.dreams.map((d) => [d.status, d.entries, d.trigger, d.strategy])).toEqual([["updated", 2, "manual", "mechanical"]]);
  });

  it("reads a JSON value that is not an object as nothing", () => {
    expect(parseTelemetry([ev("2026-03-01T10:00:00Z", "recall", "[1,2]")]).recalls).toEqual([]);
  });
});

describe("strategyMix", () => {
  it("counts each strategy, known ones in order, unknown ones after", () => {
    const { recalls } = parseTelemetry([
      ...EVENTS,
      ev("2026-03-01T11:00:00Z", "recall", { strategy: "none" }),
      ev("2026-03-01T11:01:00Z", "recall", { strategy: "vectors" }),
    ]);
    expect(strategyMix(recalls)).toEqual([
      { key: "model", label: "Model", count: 2 },
      { key: "heuristic", label: "Lexical", count: 1 },
      { key: "none", label: "Nothing recalled", count: 1 },
      { key: "vectors", label: "vectors", count: 1 },
    ]);
    expect(strategyMix([])).toEqual([]);
  });
});

describe("figures", () => {
  it("takes nearest-rank percentiles", () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([5], 95)).toBe(5);
    expect(percentile([10, 1, 3, 2], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 100], 95)).toBe(100);
  });

  it("formats durations and sizes", () => {
    expect(formatMs(null)).toBe("—");
    expect(formatMs(3.4)).toBe("3 ms");
    expect(formatMs(1234)).toBe("1.2 s");
    expect(formatMs(14_600)).toBe("15 s");
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(25_000)).toBe("24.4 KB");
  });

  it("says how full a cap is", () => {
    expect(budget(20, 200)).toEqual({ used: 20, max: 200, fraction: 0.1, percent: 10, near: false, over: false });
    expect(budget(190, 200).near).toBe(true);
    expect(budget(250, 200)).toMatchObject({ fraction: 1, percent: 125, near: true, over: true });
    expect(budget(0, 0)).toMatchObject({ fraction: 0, percent: 0, over: false });
  });

  it("tones and names how runs ended", () => {
    expect(["completed", "updated", "proposed", "noop", "skipped", "failed", null].map(statusTone)).toEqual([
      "ok",
      "ok",
      "neutral",
      "neutral",
      "neutral",
      "bad",
      "neutral",
    ]);
    expect(runStatusLabel("noop")).toBe("Nothing to do");
    // A dream in review mode wrote nothing: it is not counted as "Updated"; where its
    // proposal stands is said only when it is known.
    expect(runStatusLabel("proposed")).toBe("Proposed for review");
    expect(runStatusLabel("proposal_pending")).toBe("Proposed, waiting in the Inbox");
    expect(runStatusLabel("proposal_rejected")).toBe("Proposed, then rejected: nothing written");
    expect(runStatusLabel("weird")).toBe("weird");
    expect(runStatusLabel(null)).toBe("");
    const { extracts } = parseTelemetry([
      ev("2026-03-01T10:00:00Z", "extract", { status: "failed" }),
      ev("2026-03-01T10:01:00Z", "extract", { status: "completed" }),
      ev("2026-03-01T10:02:00Z", "extract", { status: "failed" }),
    ]);
    expect(outcomeCounts(extracts)).toEqual([
      { key: "failed", label: "failed", count: 2 },
      { key: "completed", label: "completed", count: 1 },
    ]);
  });
});

describe("healthItems", () => {
  it("lists invalid files, then likely duplicates, then stale memories", () => {
    expect(healthItems({ invalid: ["broken.md"], stale: ["old.md"], duplicate_files: ["a.md", "b.md"] })).toEqual([
      { kind: "invalid", path: "broken.md" },
      { kind: "duplicate", path: "a.md" },
      { kind: "duplicate", path: "b.md" },
      { kind: "stale", path: "old.md" },
    ]);
  });
});

describe("chart axes", () => {
  it("rounds a top line up to a round number", () => {
    expect([110, 120, 800, 801, 7, 0.3, 2600, 0, Number.NaN].map(niceCeil)).toEqual([120, 120, 800, 1000, 8, 0.3, 3000, 1, 1]);
    expect([0, 1, 3, 7, 11].map(niceCount)).toEqual([1, 1, 3, 8, 12]);
  });

  it("writes durations on an axis with their unit", () => {
    expect(formatAxisMs(0)).toBe("0");
    expect(formatAxisMs(120)).toBe("120 ms");
    expect(formatAxisMs(1200)).toBe("1.2 s");
    expect(formatAxisMs(1250)).toBe("1.25 s");
    expect(formatAxisMs(12000)).toBe("12 s");
  });
});

describe("runs whose writes became proposals", () => {
  const dreamProposal = (id: number, at: string, status: ProposalSummary["status"]) => proposalSummary(id, { kind: "dream", source: "dream", at, status });
  const extractProposal = (id: number, at: string, status: ProposalSummary["status"]) => proposalSummary(id, { at, status });

  it("says where the last dream's proposal stands now, not where it stood when the dream ended", () => {
    const at = "2026-03-01T10:00:00Z";
    // Made just after the dream recorded its end.
    expect(lastRunStatus("dream", "proposed", at, [dreamProposal(7, "2026-03-01T10:00:01Z", "pending")])).toBe("proposal_pending");
    expect(lastRunStatus("dream", "proposed", at, [dreamProposal(7, "2026-03-01T10:00:01Z", "accepted")])).toBe("proposal_accepted");
    expect(runStatusLabel(lastRunStatus("dream", "proposed", at, [dreamProposal(8, "2026-03-01T10:00:00Z", "rejected"), dreamProposal(7, "2026-02-28T10:00:00Z", "accepted")]))).toBe(
      "Proposed, then rejected: nothing written",
    );
    // Two dreams ending within the same seconds: the last one's is the newer proposal.
    expect(
      lastRunStatus("dream", "proposed", at, [dreamProposal(6, "2026-03-01T09:59:59.400Z", "accepted"), dreamProposal(7, "2026-03-01T10:00:00.300Z", "rejected")]),
    ).toBe("proposal_rejected");
    // Another job's proposal, or one from long before, is not this dream's.
    expect(lastRunStatus("dream", "proposed", at, [extractProposal(9, at, "pending"), dreamProposal(7, "2026-02-28T10:00:00Z", "accepted")])).toBe("proposed");
    // Proposals not read: nothing more is claimed.
    expect(lastRunStatus("dream", "proposed", at, null)).toBe("proposed");
    expect(lastRunStatus("dream", "failed", at, [dreamProposal(7, at, "pending")])).toBe("failed");
  });

  it("counts a rejected extraction as nothing written, an accepted one as written", () => {
    const { extracts } = parseTelemetry([
      ev("2026-03-01T10:00:00Z", "extract", { status: "completed", entries_written: 1 }),
      ev("2026-03-01T10:05:00Z", "extract", { status: "completed", entries_written: 2 }),
      ev("2026-03-01T10:09:00Z", "extract", { status: "completed", entries_written: 3 }),
      ev("2026-03-01T10:10:00Z", "extract", { status: "failed" }),
    ]);
    const runs = withProposals(
      extracts,
      [extractProposal(1, "2026-03-01T10:00:01Z", "rejected"), extractProposal(2, "2026-03-01T10:05:00Z", "accepted")],
      "extract",
    );
    expect(runs.map((r) => [r.status, r.entries, r.proposed])).toEqual([
      ["proposal_rejected", 0, 1],
      ["proposal_accepted", 2, 2],
      ["completed", 3, undefined],
      ["failed", 0, undefined],
    ]);
    expect(runs.map((r) => statusTone(r.status))).toEqual(["neutral", "ok", "ok", "bad"]);
  });
});
