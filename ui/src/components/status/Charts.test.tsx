import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import { LatencyBars, MAX_BAR, MAX_RUN, MixBar, RunTimeline } from "./Charts";
import type { RecallPoint, RunPoint } from "../../lib/stats";

// Times on the axes are local: run these in a zone where local and UTC differ by a half hour.
const tz = process.env.TZ;
beforeAll(() => {
  process.env.TZ = "Asia/Kolkata";
});
afterAll(() => {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
});

const clock = (iso: string) => new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" }).format(new Date(iso));

const recall = (iso: string, durationMs: number): RecallPoint => ({ at: Date.parse(iso), strategy: "model", durationMs, selected: 1 });
const run = (iso: string, status: string, entries: number): RunPoint => ({
  at: Date.parse(iso),
  status,
  durationMs: 900,
  entries,
  trigger: "auto",
  strategy: null,
});

const labels = (chart: HTMLElement, axis: "x" | "y") => [...chart.querySelectorAll(`svg text[data-axis="${axis}"]`)].map((t) => t.textContent ?? "");
const num = (el: Element, attr: string) => Number(el.getAttribute(attr));

describe("recall latency", () => {
  it("has a y axis from 0 to a round top with its unit, and the local times of the first and last recall", () => {
    const points = [recall("2026-03-01T10:01:00Z", 40), recall("2026-03-01T10:02:00Z", 95), recall("2026-03-01T10:04:00Z", 110)];
    render(<LatencyBars testId="lat" title="Recall latency" caption={(n) => `Recall time for ${n} turns.`} empty="none" points={points} />);
    const chart = screen.getByTestId("lat");
    expect(labels(chart, "y")).toEqual(["120 ms", "0"]);
    const x = labels(chart, "x").join(" | ");
    expect(x).toContain(clock("2026-03-01T10:01:00Z"));
    expect(x).toContain(clock("2026-03-01T10:04:00Z"));
    // Local (UTC+5:30), not UTC.
    expect(clock("2026-03-01T10:01:00Z")).toMatch(/31/);
    expect(x).not.toMatch(/10:01/);
    expect(chart.querySelector(".chart-caption")?.textContent).toBe("Recall time for 3 turns.");
    // Gridlines and axes are lines; the only rects are the three bars.
    expect(chart.querySelectorAll("svg rect")).toHaveLength(3);
    expect(chart.querySelectorAll("svg line.chart-grid").length).toBeGreaterThanOrEqual(2);
  });

  it("says seconds once the slowest recall takes a second or more", () => {
    render(<LatencyBars testId="lat" title="t" empty="none" points={[recall("2026-03-01T10:01:00Z", 300), recall("2026-03-01T10:02:00Z", 1100)]} />);
    expect(labels(screen.getByTestId("lat"), "y")).toEqual(["1.2 s", "0"]);
  });

  it("labels the first and last time apart when the bars fill the track", () => {
    const points = Array.from({ length: 50 }, (_, i) => recall(new Date(Date.parse("2026-03-01T08:00:00Z") + i * 60_000).toISOString(), 50 + i));
    render(<LatencyBars testId="lat" title="t" empty="none" points={points} />);
    const x = labels(screen.getByTestId("lat"), "x");
    expect(x).toHaveLength(2);
    expect(x[0]).toContain(clock("2026-03-01T08:00:00Z"));
    expect(x[1]).toContain(clock("2026-03-01T08:49:00Z"));
  });

  it("draws a single recall as one narrow bar at the left, not across the track", () => {
    render(<LatencyBars testId="lat" title="t" empty="none" points={[recall("2026-03-01T10:01:00Z", 80)]} />);
    const chart = screen.getByTestId("lat");
    const svg = chart.querySelector("svg");
    const bars = chart.querySelectorAll("svg rect");
    expect(bars).toHaveLength(1);
    const width = num(svg as Element, "width");
    expect(width).toBeGreaterThan(200);
    expect(num(bars[0], "width")).toBeLessThanOrEqual(MAX_BAR);
    expect(num(bars[0], "x") + num(bars[0], "width")).toBeLessThan(width / 4);
    expect(labels(chart, "x")).toEqual([expect.stringContaining(clock("2026-03-01T10:01:00Z"))]);
  });
});

describe("run timeline", () => {
  it("has an entries axis, the runs' local times and one rect per run, each with its status", () => {
    const runs = [run("2026-03-01T09:00:00Z", "failed", 0), run("2026-03-01T12:30:00Z", "completed", 3)];
    render(<RunTimeline testId="ex" title="Extraction runs" empty="none" runs={runs} entriesWord="written" />);
    const chart = screen.getByTestId("ex");
    expect(labels(chart, "y")).toEqual(["3 entries", "0"]);
    const x = labels(chart, "x");
    expect(x).toHaveLength(2);
    expect(x[0]).toContain(clock("2026-03-01T09:00:00Z"));
    expect(x[1]).toContain(clock("2026-03-01T12:30:00Z"));
    const rects = [...chart.querySelectorAll("svg rect")];
    expect(rects.map((r) => r.getAttribute("data-status"))).toEqual(["failed", "completed"]);
    // A run that wrote nothing is a short stub; the other reaches the top line.
    expect(num(rects[0], "height")).toBeLessThan(num(rects[1], "height"));
    expect(num(rects[0], "height")).toBeGreaterThan(0);
    // Along time: the later run is at the right.
    expect(num(rects[1], "x")).toBeGreaterThan(num(chart.querySelector("svg") as Element, "width") / 2);
  });

  it("draws a single run as one narrow mark at the left, under its time", () => {
    render(<RunTimeline testId="dr" title="Dreams" empty="none" runs={[run("2026-03-01T10:00:00Z", "updated", 1)]} entriesWord="merged" />);
    const chart = screen.getByTestId("dr");
    const width = num(chart.querySelector("svg") as Element, "width");
    const rects = chart.querySelectorAll('svg rect[data-status="updated"]');
    expect(rects).toHaveLength(1);
    expect(chart.querySelectorAll("svg rect")).toHaveLength(1);
    expect(num(rects[0], "width")).toBeLessThanOrEqual(MAX_RUN);
    expect(num(rects[0], "x")).toBeLessThan(width / 4);
    expect(labels(chart, "y")).toEqual(["1 entry", "0"]);
    expect(labels(chart, "x")).toEqual([expect.stringContaining(clock("2026-03-01T10:00:00Z"))]);
  });
});

describe("recall mix", () => {
  it("puts the shares on a 0–100 % scale without adding rects", () => {
    render(
      <MixBar
        testId="mix"
        title="t"
        empty="none"
        segments={[
          { key: "model", label: "Model", count: 1 },
          { key: "heuristic", label: "Lexical", count: 3 },
        ]}
      />,
    );
    const chart = screen.getByTestId("mix");
    expect(chart.querySelectorAll("svg rect")).toHaveLength(2);
    expect(labels(chart, "x")).toEqual(["0 %", "50 %", "100 %"]);
  });
});
