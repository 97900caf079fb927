// The status panel's figures as the UI draws them: telemetry events (JSON object text,
// newest first) read into typed points oldest first, the recall strategy mix and latency, how
// extraction and dream runs ended, the MEMORY.md budget, and the memory-health list. Pure: the
// components only draw what these return.

import type { MemoryStats, ProposalSummary, TelemetryEvent } from "./bindings";

/** One recall: how it chose (`model`, `hybrid`, `heuristic`, `none`) and how long it took. */
export interface RecallPoint {
  at: number;
  strategy: string;
  durationMs: number;
  selected: number;
}

/** One extraction or dream run. */
export interface RunPoint {
  at: number;
  /** extract: `completed | failed | skipped`; dream: `updated | proposed | noop | failed`. */
  status: string;
  durationMs: number;
  /** Entries written (extract) or merged (dream). */
  entries: number;
  /** dream: `auto | manual`; extract: `auto`. */
  trigger: string | null;
  /** dream: `agent | mechanical`. */
  strategy: string | null;
  /**
   * Review mode: the entries the run proposed instead of writing (`entries` is then what was
   * written: the same once the proposal is accepted, none while it waits or once rejected).
   */
  proposed?: number;
}

export interface Telemetry {
  /** Oldest first. */
  recalls: RecallPoint[];
  extracts: RunPoint[];
  dreams: RunPoint[];
}

type Json = Record<string, unknown>;

function object(text: string): Json | null {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null;
  } catch {
    return null;
  }
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/**
 * The telemetry as points, oldest first. Events whose time or figures cannot be read are left
 * out (the panel shows what it can; one bad row never hides the rest).
 */
export function parseTelemetry(events: readonly TelemetryEvent[]): Telemetry {
  const out: Telemetry = { recalls: [], extracts: [], dreams: [] };
  for (const e of events) {
    const at = Date.parse(e.at);
    const d = object(e.data);
    if (Number.isNaN(at) || !d) continue;
    if (e.kind === "recall") {
      out.recalls.push({
        at,
        strategy: str(d.strategy) ?? "none",
        durationMs: num(d.duration_ms),
        selected: num(d.docs_selected),
      });
    } else if (e.kind === "extract" || e.kind === "dream") {
      const status = str(d.status);
      if (!status) continue;
      const run: RunPoint = {
        at,
        status,
        durationMs: num(d.duration_ms),
        entries: num(e.kind === "extract" ? d.entries_written : d.entries_merged),
        trigger: str(d.trigger),
        strategy: str(d.strategy),
      };
      (e.kind === "extract" ? out.extracts : out.dreams).push(run);
    }
  }
  const byTime = (a: { at: number }, b: { at: number }) => a.at - b.at;
  out.recalls.sort(byTime);
  out.extracts.sort(byTime);
  out.dreams.sort(byTime);
  return out;
}

/** Recall strategies in the order the mix shows them. */
export const STRATEGY_ORDER = ["model", "hybrid", "heuristic", "none"] as const;

export const STRATEGY_LABELS: Record<string, string> = {
  model: "Model",
  hybrid: "Hybrid",
  heuristic: "Lexical",
  none: "Nothing recalled",
};

export interface Segment {
  key: string;
  label: string;
  count: number;
}

/** How many recalls used each strategy (known ones first, in order; none with zero). */
export function strategyMix(recalls: readonly RecallPoint[]): Segment[] {
  const counts = new Map<string, number>();
  for (const r of recalls) counts.set(r.strategy, (counts.get(r.strategy) ?? 0) + 1);
  const known: readonly string[] = STRATEGY_ORDER;
  const keys = [...known.filter((k) => counts.has(k)), ...[...counts.keys()].filter((k) => !known.includes(k)).sort()];
  return keys.map((key) => ({ key, label: STRATEGY_LABELS[key] ?? key, count: counts.get(key) ?? 0 }));
}

/** The `p`-th percentile (0–100, nearest rank) of `values`; `null` for none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((Math.min(100, Math.max(0, p)) / 100) * sorted.length);
  return sorted[Math.max(0, rank - 1)];
}

/** "850 ms", "1.2 s", "14 s". */
export function formatMs(ms: number | null): string {
  if (ms === null) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 1000)} s`;
}

/** The steps a chart's top line may take within each power of ten (1, 1.2, …, 10). */
const NICE_STEPS = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];

/** The smallest round number at or above `v`, for a chart's top line: 110 → 120, 7 → 8, 0 → 1. */
export function niceCeil(v: number): number {
  if (!(v > 0) || !Number.isFinite(v)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  // A hair of slack so 120 stays 120 despite floating point.
  const step = NICE_STEPS.find((m) => m * p >= v * (1 - 1e-9)) ?? 10;
  return Number((step * p).toPrecision(12));
}

/** A round whole number at or above `n` (at least 1), for a count axis: 3 → 3, 7 → 8, 11 → 12. */
export function niceCount(n: number): number {
  return Math.max(1, Math.ceil(niceCeil(Math.max(1, n))));
}

/** A duration on a chart's axis: "0", "60 ms", "1.25 s", "12 s". */
export function formatAxisMs(ms: number): string {
  if (ms <= 0) return "0";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${Number((ms / 1000).toFixed(2))} s`;
}

/** How a run's status is drawn: it did something, it did nothing, or it failed. */
export type Tone = "ok" | "neutral" | "bad";

export function statusTone(status: string | null | undefined): Tone {
  switch (status) {
    case "completed":
    case "updated":
    case "proposal_accepted":
      return "ok";
    case "failed":
      return "bad";
    default:
      return "neutral";
  }
}

/** How many runs ended each way, in first-seen order. */
export function outcomeCounts(runs: readonly RunPoint[]): Segment[] {
  const counts = new Map<string, number>();
  for (const r of runs) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  return [...counts.entries()].map(([key, count]) => ({ key, label: key, count }));
}

/** A share of a cap: how full, for a bar. */
export interface Budget {
  used: number;
  max: number;
  /** 0–1, capped at 1. */
  fraction: number;
  /** Rounded percentage (may exceed 100). */
  percent: number;
  /** At or above 90 % of the cap. */
  near: boolean;
  over: boolean;
}

export function budget(used: number, max: number): Budget {
  const ratio = max > 0 ? used / max : used > 0 ? 1 : 0;
  return {
    used,
    max,
    fraction: Math.min(1, Math.max(0, ratio)),
    percent: Math.round(ratio * 100),
    near: ratio >= 0.9,
    over: used > max && max > 0,
  };
}

/** "12.3 KB", "512 B". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  return `${(n / 1024).toFixed(1)} KB`;
}

/** One memory-health finding, with the action the panel offers for it. */
export interface HealthItem {
  kind: "invalid" | "stale" | "duplicate";
  path: string;
}

/** Invalid files first (they need fixing), then likely duplicates, then stale memories. */
export function healthItems(stats: Pick<MemoryStats, "invalid" | "stale" | "duplicate_files">): HealthItem[] {
  return [
    ...stats.invalid.map((path) => ({ kind: "invalid" as const, path })),
    ...stats.duplicate_files.map((path) => ({ kind: "duplicate" as const, path })),
    ...stats.stale.map((path) => ({ kind: "stale" as const, path })),
  ];
}

/** "Completed", "Updated", "Nothing to do" — the words for a last-run status. */
export const RUN_STATUS_LABELS: Record<string, string> = {
  completed: "Completed",
  failed: "Failed",
  skipped: "Skipped",
  updated: "Updated",
  // Where its proposal stands is not known here: nothing more is claimed.
  proposed: "Proposed for review",
  proposal_pending: "Proposed, waiting in the Inbox",
  proposal_accepted: "Proposed, then accepted",
  proposal_rejected: "Proposed, then rejected: nothing written",
  proposal_expired: "Proposed, not decided in time: nothing written",
  noop: "Nothing to do",
};

export function runStatusLabel(status: string | null | undefined): string {
  if (!status) return "";
  return RUN_STATUS_LABELS[status] ?? status;
}

/**
 * How far from a run's recorded end its proposal may be made: the run records its end (telemetry,
 * the last-run time), then its staged writes become the proposal, at once.
 */
export const RUN_PROPOSAL_SLACK_MS = 60_000;

/** A proposal's time may read a little before its run's: both are kept to the second. */
const CLOCK_SLACK_MS = 2_000;

/** The job kinds a run is: extraction's telemetry is `extract`, a dream's `dream` (as a proposal's `kind`). */
export type RunKind = "extract" | "dream";

/**
 * The proposal a run of `kind` ending at `at` (ms) made, among `proposals` (any order): the first
 * of that kind made from just before to `RUN_PROPOSAL_SLACK_MS` after it, and before `before`
 * (the next run's end) when given; `null` when none is found (none made, or not among those read).
 */
export function proposalOfRun(
  proposals: readonly ProposalSummary[],
  kind: RunKind,
  at: number,
  before: number | null = null,
  taken: ReadonlySet<number> = new Set(),
  newest = false,
): ProposalSummary | null {
  let best: { p: ProposalSummary; t: number } | null = null;
  for (const p of proposals) {
    if (p.kind !== kind || taken.has(p.id)) continue;
    const t = Date.parse(p.at);
    if (Number.isNaN(t) || t < at - CLOCK_SLACK_MS || t > at + RUN_PROPOSAL_SLACK_MS) continue;
    if (before !== null && t > before) continue;
    if (!best || (newest ? t > best.t || (t === best.t && p.id > best.p.id) : t < best.t)) best = { p, t };
  }
  return best?.p ?? null;
}

/** A run's status once where its proposal stands is known: `proposal_pending`, `proposal_accepted`, … */
export function proposalRunStatus(p: ProposalSummary): string {
  return `proposal_${p.status === "accepting" ? "pending" : p.status}`;
}

/**
 * A last run's status as the data says now: a run whose writes became a proposal says
 * where the proposal stands (waiting, accepted, rejected), never "waiting in the Inbox" after it
 * was decided; `at` is the run's recorded time.
 */
export function lastRunStatus(
  kind: RunKind,
  status: string | null,
  at: string | null,
  proposals: readonly ProposalSummary[] | null,
): string | null {
  if (!status || !at || !proposals) return status;
  if (status !== "proposed" && status !== "completed" && status !== "updated") return status;
  const t = Date.parse(at);
  if (Number.isNaN(t)) return status;
  // The last run's proposal is the newest of its kind from then on: an earlier run ending within
  // the same seconds made the older one (a dream rejected a second after an accepted
  // one read as "Proposed, then accepted").
  const p = proposalOfRun(proposals, kind, t, null, new Set(), true);
  return p ? proposalRunStatus(p) : status;
}

/**
 * Runs (oldest first) with what their proposals became: a run whose writes became a
 * proposal counts as written only once it is accepted — a rejected one wrote nothing.
 */
export function withProposals(runs: readonly RunPoint[], proposals: readonly ProposalSummary[] | null, kind: RunKind): RunPoint[] {
  if (!proposals || proposals.length === 0) return [...runs];
  const taken = new Set<number>();
  return runs.map((r, i) => {
    if (r.status === "failed" || r.status === "skipped" || r.status === "noop") return r;
    const p = proposalOfRun(proposals, kind, r.at, runs[i + 1]?.at ?? null, taken);
    if (!p) return r;
    taken.add(p.id);
    const status = proposalRunStatus(p);
    return { ...r, status, proposed: r.entries, entries: status === "proposal_accepted" ? r.entries : 0 };
  });
}
