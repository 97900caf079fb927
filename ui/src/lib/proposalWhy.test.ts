import { describe, expect, it } from "vitest";
import { entryReasons, explainingTask, listOf, proposalWhy, sourceSentence } from "./proposalWhy";
import { proposalOf, proposalSummary } from "../test/fixtures";
import { FREEZE, freezeProposal, freezeReport } from "../test/dreamProposal";

describe("where a dream's proposal sends what it removes", () => {
  it("reads the task of a dream's proposal only", () => {
    const p = freezeProposal();
    expect(explainingTask(p)).toBe("dream-7");
    expect(explainingTask(proposalSummary(1))).toBeNull();
    expect(explainingTask({ ...p, origin: { ...p.origin, task: null } })).toBeNull();
  });

  it("says beside a deleted file where its entries are kept, and beside a removed entry the copy it joined", () => {
    const why = proposalWhy(freezeProposal(), freezeReport());
    expect([...why.files]).toEqual([["mobile-release-freeze.md", "Nothing is lost: every entry it held is kept in freeze-window.md."]]);
    expect([...why.entries]).toEqual([["team.md#2", "Merged into its copy earlier in this file."]]);
  });

  it("names another file a removed entry went to", () => {
    const p = freezeProposal();
    p.files[2].entries = [{ id: "team.md#2", op: "remove", before: FREEZE, after: null }];
    const why = proposalWhy(p, freezeReport({ merges: [{ summary: "No merges to main in the last week of each month.", into: "freeze-window.md", from: ["team.md"] }] }));
    expect(why.entries.get("team.md#2")).toBe("Merged into its copy in freeze-window.md.");
  });

  it("reads a deleted file's destination from its note when no merge names it", () => {
    const why = proposalWhy(freezeProposal(), freezeReport({ merges: [] }));
    expect(why.files.get("mobile-release-freeze.md")).toBe("Nothing is lost: every entry it held is kept in freeze-window.md.");
    expect(why.entries.size).toBe(0);
  });

  it("turns every note into a sentence about its file", () => {
    const why = proposalWhy(
      freezeProposal(),
      freezeReport({
        notes: [
          "fell back to the mechanical path: the model did not answer",
          ...freezeReport().notes,
          " ",
          "review mode: these changes are proposal 12; nothing was written until you accept it",
        ],
      }),
    );
    // Each file's reason first; the note that it became this proposal is left out.
    expect(why.notes).toEqual([
      { path: "freeze-window.md", text: "Entries put in A–Z order by their first line (no text changed)." },
      { path: "team.md", text: "1 entry repeated in it merged into one copy." },
      { path: "mobile-release-freeze.md", text: "Deleted: every entry it held is kept in freeze-window.md." },
      { path: null, text: "Fell back to the mechanical path: the model did not answer." },
    ]);
  });

  it("lists files in words", () => {
    expect(listOf(["a.md"])).toBe("a.md");
    expect(listOf(["a.md", "b.md"])).toBe("a.md and b.md");
    expect(listOf(["a.md", "b.md", "c.md"])).toBe("a.md, b.md and c.md");
  });
});

describe("an extraction's or a remember request's why and source", () => {
  it("says where it came from only from what the proposal holds", () => {
    const p = proposalSummary(1);
    expect(sourceSentence(p, "Tokyo trip")).toBe("What you said: “我下个月去东京，记得我只坐靠窗的座位”, in your chat “Tokyo trip”.");
    expect(sourceSentence({ ...p, origin: { session: "s-1", message: null, client: null, task: null } })).toBeNull();
    const asked = proposalSummary(2, { kind: "remember", source: "remember", origin: { session: null, message: "I take the train to work", client: "claude-code", task: null } });
    expect(sourceSentence(asked)).toBe("What was asked: “I take the train to work”, from claude-code.");
    expect(sourceSentence(proposalSummary(3, { kind: "dream", source: "dream" }))).toBeNull();
  });

  it("gives each new or rewritten entry's own Why, and none for a dream", () => {
    expect(entryReasons(proposalOf(7))).toEqual([{ path: "travel.md", text: "“只坐靠窗的座位。”: 喜欢看风景。" }]);
    expect(entryReasons(proposalOf(7, { kind: "dream" }))).toEqual([]);
  });
});
