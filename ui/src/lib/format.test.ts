import { describe, expect, it } from "vitest";
import { formatAge, formatAxisTime, formatClock, formatScore, formatTime, formatWhen, matchHint, matchScores } from "./format";

describe("scores", () => {
  it("reads a 0–1 score with two decimals, never in exponent notation", () => {
    expect(formatScore(0.6213)).toBe("0.62");
    expect(formatScore(1)).toBe("1.00");
    expect(formatScore(1.5e-7)).toBe("0.00");
    expect(formatScore(-1e-9)).toBe("0.00");
    expect(formatScore(Number.NaN)).toBe("");
  });

  it("says how a memory matched: meaning, words, both or neither", () => {
    expect(matchScores(0.6213, 0.8)).toBe("meaning 0.62 · words 0.80");
    expect(matchScores(null, 0.4)).toBe("words 0.40");
    expect(matchScores(0.5, undefined)).toBe("meaning 0.50");
    expect(matchScores(null, null)).toBe("");
    expect(matchHint(0.5, 0.2)).toBe("meaning + words");
    expect(matchHint(0.5, null)).toBe("meaning");
    expect(matchHint(undefined, 0)).toBe("words");
    expect(matchHint(null, undefined)).toBe("");
  });
});

describe("how long ago a memory changed", () => {
  it("says the time for today, then days, weeks, months and years", () => {
    const now = new Date(2026, 10, 25, 15, 30);
    expect(formatAge(new Date(2026, 10, 25, 9, 5).toISOString(), now)).toBe(formatClock(new Date(2026, 10, 25, 9, 5)));
    expect(formatAge(new Date(2026, 10, 24, 23, 0).toISOString(), now)).toBe("yesterday");
    expect(formatAge(new Date(2026, 10, 20).toISOString(), now)).toBe("5 days ago");
    expect(formatAge(null, now)).toBe("");
  });
});

describe("one way of writing a time of day", () => {
  it("is formatClock's, in every formatter: never “17:12” beside “05:12 PM” on one page", () => {
    const t = new Date(2026, 2, 10, 17, 12);
    const now = new Date(2026, 2, 10, 18, 0);
    const clock = formatClock(t);
    expect(formatAge(t.toISOString(), now)).toBe(clock);
    expect(formatTime(t.toISOString())).toBe(`2026-03-10 ${clock}`);
    expect(formatWhen(t.toISOString(), now)).toBe(`today at ${clock}`);
    expect(formatAxisTime(t.getTime(), now)).toBe(clock);
  });
});

describe("local times in words", () => {
  // Built from local parts, so these hold in any time zone.
  const at = (d: number, h: number, m: number, month = 2, year = 2026) => new Date(year, month, d, h, m);
  const clock = (t: Date) => new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" }).format(t);
  const day = (t: Date, year = false) =>
    new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: year ? "numeric" : undefined }).format(t);
  const now = at(10, 9, 0);

  it("says today, yesterday, or the day, with the local time of day", () => {
    expect(formatWhen(at(10, 0, 5).toISOString(), now)).toBe(`today at ${clock(at(10, 0, 5))}`);
    expect(formatWhen(at(9, 23, 59).toISOString(), now)).toBe(`yesterday at ${clock(at(9, 23, 59))}`);
    expect(formatWhen(at(3, 14, 5).toISOString(), now)).toBe(`on ${day(at(3, 14, 5))} at ${clock(at(3, 14, 5))}`);
    const lastYear = at(3, 14, 5, 11, 2025);
    expect(formatWhen(lastYear.toISOString(), now)).toBe(`on ${day(lastYear, true)} at ${clock(lastYear)}`);
    expect(formatWhen(null, now)).toBe("");
    expect(formatWhen("not a time", now)).toBe("");
  });

  it("labels a chart's times with the clock alone on today, with the day otherwise", () => {
    expect(formatAxisTime(at(10, 8, 30).getTime(), now)).toBe(clock(at(10, 8, 30)));
    expect(formatAxisTime(at(8, 8, 30).getTime(), now)).toBe(`${day(at(8, 8, 30))} ${clock(at(8, 8, 30))}`);
  });
});
