// Small telemetry charts in plain SVG (no chart library): a stacked bar for the recall strategy
// mix, bars for recall latency, and a timeline of runs coloured by how they ended. Each is drawn
// in pixels at the width of its box (measured, and followed as it resizes), so axis text and bars
// keep their size: the y axis says 0 and a rounded top with its unit, the x axis the local time of
// the first and last mark, light gridlines sit behind, and a few marks stay narrow instead of
// filling the track. Axes and grid are <line> / <text> only: the <rect>s are the data (tests
// count them). Every mark carries a <title> for hover; a caption sentence says what is shown.

import { useLayoutEffect, useRef, useState } from "react";
import type { ReactNode } from "react";
import { formatAxisTime, formatClock, formatTime } from "../../lib/format";
import { formatAxisMs, formatMs, niceCeil, niceCount, percentile, runStatusLabel, statusTone } from "../../lib/stats";
import type { RecallPoint, RunPoint, Segment } from "../../lib/stats";

const iso = (ms: number) => new Date(ms).toISOString();

/** Until the box is measured (and where nothing lays out, as in tests) charts draw this wide. */
const FALLBACK_WIDTH = 320;

/** Room around the plot: y labels on the left, x labels below. */
const PAD = { left: 64, right: 10, top: 8, bottom: 22 };
const PLOT_H = 64;
const HEIGHT = PAD.top + PLOT_H + PAD.bottom;
/** The widest a latency bar gets (a few recalls stay bars, not a filled track). */
export const MAX_BAR = 12;
/** The widest a run mark gets. */
export const MAX_RUN = 8;
/** Below this many pixels between the first and last mark, their times share one label. */
const LABEL_GAP = 120;

const MIX_BAR_H = 14;
const MIX_H = MIX_BAR_H + 20;

interface ChartProps {
  testId: string;
  title: string;
  /** A sentence saying what the chart shows, given how many marks it draws. */
  caption?: (count: number) => string;
  /** What to say when there is nothing to draw. */
  empty: string;
}

function Frame({
  testId,
  title,
  caption,
  count,
  children,
}: {
  testId: string;
  title: string;
  caption?: string;
  count: number;
  children: ReactNode;
}) {
  return (
    <figure className="chart" data-testid={testId} data-count={count}>
      <figcaption className="chart-head">
        <span className="chart-title">{title}</span>
        {caption && <span className="chart-caption muted">{caption}</span>}
      </figcaption>
      {children}
    </figure>
  );
}

/** An SVG as wide as its box, drawn in that box's pixels by `draw(width)`. */
function Plot({
  className,
  height,
  label,
  draw,
}: {
  className: string;
  height: number;
  label: string;
  draw: (width: number) => ReactNode;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(FALLBACK_WIDTH);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => {
      const w = Math.floor(el.clientWidth);
      if (w > 0) setWidth(w);
    };
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return (
    <div className="chart-box" ref={box}>
      <svg className={`chart-svg ${className}`} width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
        {draw(width)}
      </svg>
    </div>
  );
}

interface XLabel {
  x: number;
  text: string;
  anchor: "start" | "end";
}

/**
 * The x labels for marks from `first` to `last` (ms) drawn between `x0` and `x1`: the first time
 * under the first mark and the last under the last, or one "10:01 – 10:04" when they are close.
 */
export function timeLabels(first: number, last: number, x0: number, x1: number, now: Date = new Date()): XLabel[] {
  const a = formatAxisTime(first, now);
  const b = formatAxisTime(last, now);
  if (a === b) return [{ x: x0, text: a, anchor: "start" }];
  if (x1 - x0 < LABEL_GAP) {
    const sameDay = new Date(first).toDateString() === new Date(last).toDateString();
    return [{ x: x0, text: `${a} – ${sameDay ? formatClock(new Date(last)) : b}`, anchor: "start" }];
  }
  return [
    { x: x0, text: a, anchor: "start" },
    { x: x1, text: b, anchor: "end" },
  ];
}

/** Gridlines, the axis lines, "0" and the top value on the y axis, and the x labels. */
function Axes({ width, yTop, xLabels }: { width: number; yTop: string; xLabels: readonly XLabel[] }) {
  const right = width - PAD.right;
  const base = PAD.top + PLOT_H;
  const mid = PAD.top + PLOT_H / 2;
  return (
    <g className="chart-axes">
      <line className="chart-grid" x1={PAD.left} x2={right} y1={PAD.top + 0.5} y2={PAD.top + 0.5} />
      <line className="chart-grid" x1={PAD.left} x2={right} y1={mid + 0.5} y2={mid + 0.5} />
      <line className="chart-axis" x1={PAD.left} x2={right} y1={base + 0.5} y2={base + 0.5} />
      <line className="chart-axis" x1={PAD.left - 0.5} x2={PAD.left - 0.5} y1={PAD.top} y2={base + 0.5} />
      <text className="chart-tick" data-axis="y" x={PAD.left - 6} y={PAD.top + 4} textAnchor="end">
        {yTop}
      </text>
      <text className="chart-tick" data-axis="y" x={PAD.left - 6} y={base + 4} textAnchor="end">
        0
      </text>
      {xLabels.map((l, i) => (
        <text key={i} className="chart-tick" data-axis="x" x={l.x} y={base + 16} textAnchor={l.anchor}>
          {l.text}
        </text>
      ))}
    </g>
  );
}

function Empty({ testId, title, empty }: ChartProps) {
  return (
    <Frame testId={testId} title={title} count={0}>
      <div className="chart-empty muted">{empty}</div>
    </Frame>
  );
}

/** How many recalls used each strategy, as one stacked bar on a 0–100 % scale, with a legend. */
export function MixBar({ testId, title, caption, empty, segments }: ChartProps & { segments: readonly Segment[] }) {
  const total = segments.reduce((n, s) => n + s.count, 0);
  if (total === 0) return <Empty testId={testId} title={title} empty={empty} />;
  const share = (n: number) => n / total;
  const starts = segments.map((_, i) => segments.slice(0, i).reduce((n, s) => n + share(s.count), 0));
  return (
    <Frame testId={testId} title={title} caption={caption?.(total)} count={total}>
      <Plot
        className="chart-mix"
        height={MIX_H}
        label={segments.map((s) => `${s.label} ${s.count}`).join(", ")}
        draw={(width) => {
          const x0 = 1;
          const w = width - 2;
          const ticks: [number, string, "start" | "middle" | "end"][] = [
            [0, "0 %", "start"],
            [0.5, "50 %", "middle"],
            [1, "100 %", "end"],
          ];
          return (
            <>
              {segments.map((s, i) => (
                <rect
                  key={s.key}
                  className={`mix-${s.key}`}
                  data-key={s.key}
                  x={x0 + starts[i] * w}
                  y={0}
                  width={share(s.count) * w}
                  height={MIX_BAR_H}
                >
                  <title>{`${s.label}: ${s.count} of ${total} (${Math.round(share(s.count) * 100)} %)`}</title>
                </rect>
              ))}
              <g className="chart-axes">
                {ticks.map(([f, text, anchor]) => (
                  <g key={text}>
                    <line className="chart-axis" x1={x0 + f * w} x2={x0 + f * w} y1={MIX_BAR_H} y2={MIX_BAR_H + 4} />
                    <text className="chart-tick" data-axis="x" x={x0 + f * w} y={MIX_BAR_H + 16} textAnchor={anchor}>
                      {text}
                    </text>
                  </g>
                ))}
              </g>
            </>
          );
        }}
      />
      <ul className="chart-legend">
        {segments.map((s) => (
          <li key={s.key}>
            <span className={`chart-swatch mix-${s.key}`} aria-hidden="true" /> {s.label}{" "}
            <span className="muted">
              {s.count} · {Math.round(share(s.count) * 100)} %
            </span>
          </li>
        ))}
      </ul>
    </Frame>
  );
}

/**
 * The newest recalls' durations as bars, oldest at the left, at most `MAX_BAR` wide (a few
 * recalls sit at the left, they do not fill the track), with the median drawn across.
 */
export function LatencyBars({
  testId,
  title,
  caption,
  empty,
  points,
  max = 60,
}: ChartProps & { points: readonly RecallPoint[]; max?: number }) {
  const shown = points.slice(-max);
  if (shown.length === 0) return <Empty testId={testId} title={title} empty={empty} />;
  const ms = shown.map((p) => p.durationMs);
  const slowest = Math.max(0, ...ms);
  const top = niceCeil(slowest);
  const median = percentile(ms, 50) ?? 0;
  const first = shown[0].at;
  const last = shown[shown.length - 1].at;
  const y = (v: number) => PAD.top + PLOT_H - (Math.min(v, top) / top) * PLOT_H;
  return (
    <Frame testId={testId} title={title} caption={caption?.(shown.length)} count={shown.length}>
      <Plot
        className="chart-bars"
        height={HEIGHT}
        label={`${shown.length} recalls from ${formatTime(iso(first))} to ${formatTime(iso(last))}: median ${formatMs(median)}, slowest ${formatMs(slowest)}`}
        draw={(width) => {
          const plotW = Math.max(1, width - PAD.left - PAD.right);
          const step = Math.min(plotW / shown.length, MAX_BAR + 4);
          const barW = Math.max(1, Math.min(MAX_BAR, step * 0.7));
          const left = (i: number) => PAD.left + step * i + (step - barW) / 2;
          const base = PAD.top + PLOT_H;
          const end = left(shown.length - 1) + barW;
          return (
            <>
              <Axes width={width} yTop={formatAxisMs(top)} xLabels={timeLabels(first, last, left(0), end)} />
              {shown.map((p, i) => {
                const yb = Math.min(y(p.durationMs), base - 1);
                return (
                  <rect key={i} className={`bar mix-${p.strategy}`} x={left(i)} y={yb} width={barW} height={base - yb}>
                    <title>{`${formatTime(iso(p.at))} · ${formatMs(p.durationMs)} · ${p.strategy} · ${p.selected} recalled`}</title>
                  </rect>
                );
              })}
              <line className="chart-median" x1={PAD.left} x2={Math.max(end, PAD.left + 24)} y1={y(median)} y2={y(median)} />
            </>
          );
        }}
      />
      <div className="chart-figures muted">
        median {formatMs(median)} · p95 {formatMs(percentile(ms, 95))} · slowest {formatMs(slowest)}
      </div>
    </Frame>
  );
}

/**
 * Runs (extraction, dream) along time, each a mark coloured by how it ended (did something, did
 * nothing, failed) and as tall as the entries it wrote or merged (a run of none is a short stub);
 * a single run sits at the left, under its time. A legend counts each outcome.
 */
export function RunTimeline({
  testId,
  title,
  caption,
  empty,
  runs,
  entriesWord,
}: ChartProps & { runs: readonly RunPoint[]; entriesWord: string }) {
  if (runs.length === 0) return <Empty testId={testId} title={title} empty={empty} />;
  const first = runs[0].at;
  const last = runs[runs.length - 1].at;
  const span = last - first;
  const top = niceCount(Math.max(...runs.map((r) => r.entries)));
  const counts = new Map<string, number>();
  for (const r of runs) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  return (
    <Frame testId={testId} title={title} caption={caption?.(runs.length)} count={runs.length}>
      <Plot
        className="chart-timeline"
        height={HEIGHT}
        label={`${runs.length} runs from ${formatTime(iso(first))} to ${formatTime(iso(last))}: ${[...counts].map(([s, n]) => `${n} ${runStatusLabel(s).toLowerCase()}`).join(", ")}`}
        draw={(width) => {
          const plotW = Math.max(1, width - PAD.left - PAD.right);
          const barW = Math.max(2, Math.min(MAX_RUN, (plotW / runs.length) * 0.6));
          const x0 = PAD.left + 2;
          const track = Math.max(0, plotW - barW - 4);
          const left = (at: number) => x0 + (span > 0 ? ((at - first) / span) * track : 0);
          const base = PAD.top + PLOT_H;
          const h = (r: RunPoint) => Math.max(3, (Math.min(r.entries, top) / top) * PLOT_H);
          return (
            <>
              <Axes
                width={width}
                yTop={`${top} ${top === 1 ? "entry" : "entries"}`}
                xLabels={timeLabels(first, last, x0, left(last) + barW)}
              />
              {runs.map((r, i) => (
                <rect
                  key={i}
                  className={`run tone-${statusTone(r.status)}`}
                  data-status={r.status}
                  x={left(r.at)}
                  y={base - h(r)}
                  width={barW}
                  height={h(r)}
                >
                  <title>
                    {`${formatTime(iso(r.at))} · ${runStatusLabel(r.status)}${r.trigger ? ` (${r.trigger})` : ""} · ${entriesText(r, entriesWord)} · ${formatMs(r.durationMs)}`}
                  </title>
                </rect>
              ))}
            </>
          );
        }}
      />
      <ul className="chart-legend">
        {[...counts].map(([status, n]) => (
          <li key={status}>
            <span className={`chart-swatch tone-${statusTone(status)}`} aria-hidden="true" /> {runStatusLabel(status)}{" "}
            <span className="muted">{n}</span>
          </li>
        ))}
      </ul>
    </Frame>
  );
}

/** "2 entries written"; a run whose writes became a proposal: "2 proposed, none written" until it is accepted. */
export function entriesText(r: RunPoint, entriesWord: string): string {
  const n = (k: number) => `${k} ${k === 1 ? "entry" : "entries"}`;
  if (r.proposed === undefined) return `${n(r.entries)} ${entriesWord}`;
  return `${n(r.proposed)} proposed, ${r.entries === 0 ? "none" : r.entries} ${entriesWord}`;
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
