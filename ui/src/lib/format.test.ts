import { describe, expect, it } from "vitest";
import { formatAge, formatScore, matchHint, matchScores } from "./format";

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
    expect(formatAge(new Date(2026, 10, 25, 9, 5).toISOString(), now)).toBe("09:05");
    expect(formatAge(new Date(2026, 10, 24, 23, 0).toISOString(), now)).toBe("yesterday");
    expect(formatAge(new Date(2026, 10, 20).toISOString(), now)).toBe("5 days ago");
    expect(formatAge(null, now)).toBe("");
  });
});
