// Small telemetry charts in plain SVG (no chart library): a stacked bar for the recall strategy
// mix, bars for recall latency, and a timeline of runs coloured by how they ended. Each scales to
// its box (viewBox + preserveAspectRatio="none"); numbers and legends are HTML beside it, so text
// never stretches. Every mark carries a <title> for hover.

import type { ReactNode } from "react";
import { formatTime } from "../lib/format";
import { formatMs, percentile, statusTone } from "../lib/stats";
import type { RecallPoint, RunPoint, Segment } from "../lib/stats";

const iso = (ms: number) => new Date(ms).toISOString();

/** The latency chart is at least this many bars wide. */
const MIN_SLOTS = 30;

interface ChartProps {
  testId: string;
  title: string;
  /** What to say when there is nothing to draw. */
  empty: string;
}

function Frame({ testId, title, count, children }: { testId: string; title: string; count: number; children: ReactNode }) {
  return (
    <figure className="chart" data-testid={testId} data-count={count}>
      <figcaption className="chart-title">{title}</figcaption>
      {children}
    </figure>
  );
}

/** How many recalls used each strategy, as one stacked bar with a legend. */
export function MixBar({ testId, title, empty, segments }: ChartProps & { segments: readonly Segment[] }) {
  const total = segments.reduce((n, s) => n + s.count, 0);
  if (total === 0) {
    return (
      <Frame testId={testId} title={title} count={0}>
        <div className="chart-empty muted">{empty}</div>
      </Frame>
    );
  }
  const starts = segments.map((_, i) => segments.slice(0, i).reduce((n, s) => n + (s.count / total) * 100, 0));
  return (
    <Frame testId={testId} title={title} count={total}>
      <svg
        className="chart-svg chart-mix"
        viewBox="0 0 100 10"
        preserveAspectRatio="none"
        role="img"
        aria-label={segments.map((s) => `${s.label} ${s.count}`).join(", ")}
      >
        {segments.map((s, i) => (
          <rect key={s.key} className={`mix-${s.key}`} data-key={s.key} x={starts[i]} y={0} width={(s.count / total) * 100} height={10}>
            <title>{`${s.label}: ${s.count} of ${total} (${Math.round((s.count / total) * 100)} %)`}</title>
          </rect>
        ))}
      </svg>
      <ul className="chart-legend">
        {segments.map((s) => (
          <li key={s.key}>
            <span className={`chart-swatch mix-${s.key}`} aria-hidden="true" /> {s.label}{" "}
            <span className="muted">
              {s.count} · {Math.round((s.count / total) * 100)} %
            </span>
          </li>
        ))}
      </ul>
    </Frame>
  );
}

/** The newest recalls' durations as bars, with the median drawn across. */
export function LatencyBars({ testId, title, empty, points, max = 60 }: ChartProps & { points: readonly RecallPoint[]; max?: number }) {
  const shown = points.slice(-max);
  if (shown.length === 0) {
    return (
      <Frame testId={testId} title={title} count={0}>
        <div className="chart-empty muted">{empty}</div>
      </Frame>
    );
  }
  const ms = shown.map((p) => p.durationMs);
  const top = Math.max(1, ...ms);
  const median = percentile(ms, 50) ?? 0;
  const H = 40;
  // At least `MIN_SLOTS` bar widths, newest at the right: a few recalls stay thin bars.
  const slots = Math.max(shown.length, MIN_SLOTS);
  const W = slots * 4;
  const offset = slots - shown.length;
  const y = (v: number) => H - (v / top) * (H - 2);
  return (
    <Frame testId={testId} title={title} count={shown.length}>
      <svg
        className="chart-svg chart-bars"
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`${shown.length} recalls, median ${formatMs(median)}, slowest ${formatMs(top)}`}
      >
        {shown.map((p, i) => (
          <rect key={i} className={`bar mix-${p.strategy}`} x={(offset + i) * 4 + 0.5} y={y(p.durationMs)} width={3} height={H - y(p.durationMs)}>
            <title>{`${formatTime(iso(p.at))} · ${formatMs(p.durationMs)} · ${p.strategy} · ${p.selected} recalled`}</title>
          </rect>
        ))}
        <line className="chart-median" x1={0} x2={W} y1={y(median)} y2={y(median)} vectorEffect="non-scaling-stroke" />
      </svg>
      <div className="chart-figures muted">
        median {formatMs(median)} · p95 {formatMs(percentile(ms, 95))} · slowest {formatMs(top)}
      </div>
    </Frame>
  );
}

/**
 * Runs (extraction, dream) along time, each a bar coloured by how it ended (did something, did
 * nothing, failed) and as tall as the entries it wrote or merged; a legend counts each outcome.
 */
export function RunTimeline({
  testId,
  title,
  empty,
  runs,
  entriesWord,
}: ChartProps & { runs: readonly RunPoint[]; entriesWord: string }) {
  if (runs.length === 0) {
    return (
      <Frame testId={testId} title={title} count={0}>
        <div className="chart-empty muted">{empty}</div>
      </Frame>
    );
  }
  const W = 200;
  const H = 30;
  const first = runs[0].at;
  const span = Math.max(1, runs[runs.length - 1].at - first);
  const topEntries = Math.max(1, ...runs.map((r) => r.entries));
  const x = (at: number) => (runs.length === 1 ? W / 2 : 2 + ((at - first) / span) * (W - 4));
  const h = (r: RunPoint) => 8 + (r.entries / topEntries) * (H - 8);
  const counts = new Map<string, number>();
  for (const r of runs) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  return (
    <Frame testId={testId} title={title} count={runs.length}>
      <svg
        className="chart-svg chart-timeline"
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={[...counts].map(([s, n]) => `${n} ${s}`).join(", ")}
      >
        <line className="chart-axis" x1={0} x2={W} y1={H - 0.5} y2={H - 0.5} vectorEffect="non-scaling-stroke" />
        {runs.map((r, i) => (
          <rect key={i} className={`run tone-${statusTone(r.status)}`} data-status={r.status} x={x(r.at) - 1} y={H - h(r)} width={2} height={h(r)}>
            <title>
              {`${formatTime(iso(r.at))} · ${r.status}${r.trigger ? ` (${r.trigger})` : ""} · ${r.entries} ${entriesWord} · ${formatMs(r.durationMs)}`}
            </title>
          </rect>
        ))}
      </svg>
      <div className="chart-axis-labels muted">
        <span>{formatTime(iso(first))}</span>
        {runs.length > 1 && <span>{formatTime(iso(runs[runs.length - 1].at))}</span>}
      </div>
      <ul className="chart-legend">
        {[...counts].map(([status, n]) => (
          <li key={status}>
            <span className={`chart-swatch tone-${statusTone(status)}`} aria-hidden="true" /> {status}{" "}
            <span className="muted">{n}</span>
          </li>
        ))}
      </ul>
    </Frame>
  );
}

/** A used-against-cap bar (MEMORY.md lines, bytes). */
export function BudgetBar({
  testId,
  label,
  fraction,
  near,
  text,
}: {
  testId: string;
  label: string;
  fraction: number;
  near: boolean;
  text: string;
}) {
  return (
    <div className="budget" data-testid={testId}>
      <div className="budget-label">
        <span>{label}</span> <span className="muted">{text}</span>
      </div>
      <svg className={`budget-bar ${near ? "near" : ""}`} viewBox="0 0 100 6" preserveAspectRatio="none" role="img" aria-label={`${label}: ${text}`}>
        <rect className="budget-track" x={0} y={0} width={100} height={6} />
        <rect className="budget-fill" x={0} y={0} width={fraction * 100} height={6} />
      </svg>
    </div>
  );
}
