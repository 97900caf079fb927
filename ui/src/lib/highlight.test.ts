import { describe, expect, it } from "vitest";
import { matchPieces } from "./highlight";

describe("matchPieces", () => {
  it("marks each word of the query, case aside", () => {
    expect(matchPieces("Deploy on Tuesdays", "deploy tues")).toEqual([
      { text: "Deploy", hit: true },
      { text: " on ", hit: false },
      { text: "Tues", hit: true },
      { text: "days", hit: false },
    ]);
  });
  it("marks Chinese and leaves text without a match whole", () => {
    expect(matchPieces("每月最后一周冻结合并", "冻结")).toEqual([
      { text: "每月最后一周", hit: false },
      { text: "冻结", hit: true },
      { text: "合并", hit: false },
    ]);
    expect(matchPieces("Tea", "coffee")).toEqual([{ text: "Tea", hit: false }]);
  });
});
