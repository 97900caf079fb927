import { describe, expect, it } from "vitest";
import { formatScore, matchHint, matchScores } from "./format";

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
