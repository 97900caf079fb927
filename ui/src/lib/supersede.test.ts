import { describe, expect, it } from "vitest";
import type { EntryOut, Supersession } from "./bindings";
import { entryText, factsHeading, factsOf, formatDay, replaceProblem, replacedNote, replacedSentence, summaryKey } from "./supersede";

function entry(id: string, summary: string, superseded: Supersession | null = null, why: string | null = null): EntryOut {
  return { id, summary, why, how: null, superseded };
}

const by = (to: string, at = "2026-11-26", why: string | null = null): Supersession => ({ at, by: to, why });

describe("formatDay", () => {
  it("says a day in words, and leaves what is not a day as it is", () => {
    expect(formatDay("2026-11-26")).toBe("26 Nov 2026");
    expect(formatDay("2026-01-05")).toBe("5 Jan 2026");
    expect(formatDay("2026-09-30")).toBe("30 Sep 2026");
    expect(formatDay("yesterday")).toBe("yesterday");
    expect(formatDay("2026-13-01")).toBe("2026-13-01");
  });
});

describe("replacedSentence", () => {
  it("says when, by what and why, as one sentence", () => {
    expect(replacedSentence(by("Moved to Lisbon", "2026-11-26", "moved"))).toBe("Replaced on 26 Nov 2026 by “Moved to Lisbon” — moved.");
    expect(replacedSentence(by("Moved to Lisbon"))).toBe("Replaced on 26 Nov 2026 by “Moved to Lisbon”.");
    // A reason that ends its own sentence keeps its punctuation, Chinese included.
    expect(replacedSentence(by("搬到里斯本", "2026-11-26", "搬家了。"))).toBe("Replaced on 26 Nov 2026 by “搬到里斯本” — 搬家了。");
    expect(replacedSentence(by("Moved", "2026-11-26", "They said so!"))).toBe("Replaced on 26 Nov 2026 by “Moved” — They said so!");
    expect(replacedSentence(by("搬到波尔图", "2026-11-26", "一年后又搬家"))).toBe("Replaced on 26 Nov 2026 by “搬到波尔图” — 一年后又搬家。");
  });

  it("names the memory job that rewrote it", () => {
    expect(replacedSentence(by("Moved to Lisbon", "2026-11-26", "extraction"))).toBe("Replaced on 26 Nov 2026 by “Moved to Lisbon” — rewritten by extraction.");
    expect(replacedSentence(by("X", "2026-11-26", "dream"))).toBe("Replaced on 26 Nov 2026 by “X” — rewritten by a dream.");
    expect(replacedSentence(by("X", "2026-11-26", "an assistant over MCP"))).toBe("Replaced on 26 Nov 2026 by “X” — rewritten by an assistant (over MCP).");
  });
});

describe("summaryKey", () => {
  it("compares summaries as the file keeps them: no dash, spaces, case, and \" kept as '", () => {
    expect(summaryKey("- Moved  to Lisbon ")).toBe(summaryKey("moved to lisbon"));
    expect(summaryKey('Says "hi"')).toBe(summaryKey("Says 'hi'"));
  });
});

describe("factsOf", () => {
  it("keeps current facts in file order and follows a chain oldest → newest", () => {
    // As the file holds it: each replaced fact just before what replaced it.
    const entries = [
      entry("home.md:1", "Lives in Berlin", by("Lives in Porto", "2026-11-20", "moved")),
      entry("home.md:2", "Lives in Porto", by("Lives in Lisbon", "2026-11-26", "moved again")),
      entry("home.md:3", "Lives in Lisbon"),
      entry("home.md:4", "Has a cat named 小米"),
    ];
    const f = factsOf(entries);
    expect(f.current.map((e) => e.id)).toEqual(["home.md:3", "home.md:4"]);
    expect(f.replacedCount).toBe(2);
    expect(f.chains).toHaveLength(1);
    expect(f.chains[0].replaced.map((e) => e.summary)).toEqual(["Lives in Berlin", "Lives in Porto"]);
    expect(f.chains[0].now?.id).toBe("home.md:3");
    // Read in order, each sentence names the next fact.
    expect(f.chains[0].replaced.map((e) => replacedSentence(e.superseded!))).toEqual([
      "Replaced on 20 Nov 2026 by “Lives in Porto” — moved.",
      "Replaced on 26 Nov 2026 by “Lives in Lisbon” — moved again.",
    ]);
  });

  it("orders a chain by its links, not by where the file put each one", () => {
    const entries = [
      entry("a.md:1", "Lives in Porto", by("Lives in Lisbon")),
      entry("a.md:2", "Lives in Lisbon"),
      entry("a.md:3", "Lives in Berlin", by("Lives in Porto")),
    ];
    const f = factsOf(entries);
    expect(f.chains[0].replaced.map((e) => e.summary)).toEqual(["Lives in Berlin", "Lives in Porto"]);
    expect(f.chains[0].now?.summary).toBe("Lives in Lisbon");
  });

  it("gives each current fact its own chain; two facts merged into one share it", () => {
    const entries = [
      entry("b.md:1", "Tea in the morning", by("Coffee in the morning")),
      entry("b.md:2", "Coffee in the morning"),
      entry("b.md:3", "Runs on Mondays", by("Runs on Mondays and Thursdays", "2026-11-26", "dream")),
      entry("b.md:4", "Runs on Thursdays", by("Runs on Mondays and Thursdays", "2026-11-26", "dream")),
      entry("b.md:5", "Runs on Mondays and Thursdays"),
    ];
    const f = factsOf(entries);
    expect(f.chains.map((c) => [c.replaced.map((e) => e.id), c.now?.id])).toEqual([
      [["b.md:1"], "b.md:2"],
      [["b.md:3", "b.md:4"], "b.md:5"],
    ]);
  });

  it("keeps a replaced fact whose successor is gone, with no current fact at its end; a loop ends", () => {
    const gone = factsOf([entry("c.md:1", "Old", by("Edited since")), entry("c.md:2", "Other")]);
    expect(gone.chains).toEqual([{ replaced: [gone.chains[0].replaced[0]], now: null }]);
    expect(gone.current.map((e) => e.summary)).toEqual(["Other"]);
    const loop = factsOf([entry("d.md:1", "A", by("B")), entry("d.md:2", "B", by("A"))]);
    expect(loop.current).toEqual([]);
    expect(loop.replacedCount).toBe(2);
    expect(loop.chains.flatMap((c) => c.replaced)).toHaveLength(2);
  });

  it("has no chains when nothing was replaced", () => {
    const f = factsOf([entry("e.md", "Only fact")]);
    expect(f).toEqual({ current: [entry("e.md", "Only fact")], chains: [], replacedCount: 0 });
  });
});

describe("sentences around the facts", () => {
  it("counts facts in headings and notes replaced ones by the editor", () => {
    expect(factsHeading("current", 2)).toBe("Current facts (2)");
    expect(factsHeading("replaced", 1)).toBe("Replaced facts (1)");
    expect(replacedNote(0)).toBe("");
    expect(replacedNote(1)).toBe("1 replaced fact is kept in this file, marked “Superseded:”; recall never uses it.");
    expect(replacedNote(3)).toBe("3 replaced facts are kept in this file, marked “Superseded:”; recall never uses them.");
  });
});

describe("entryText", () => {
  const body = "- Lives in Berlin\n  Superseded: 2026-11-26 by \"Lives in Lisbon\"; moved\n\n- Lives in Lisbon\n  Why: said so\n\n养了一只猫。\n";
  const entries = [
    entry("h.md:1", "Lives in Berlin", by("Lives in Lisbon", "2026-11-26", "moved")),
    entry("h.md:2", "Lives in Lisbon", null, "said so"),
    entry("h.md:3", "养了一只猫。"),
  ];

  it("gives an entry's text as the file holds it, without its Superseded line", () => {
    expect(entryText(body, entries, 1)).toBe("- Lives in Lisbon\n  Why: said so");
    expect(entryText(body, entries, 2)).toBe("养了一只猫。");
    expect(entryText(body, entries, 0)).toBe("- Lives in Berlin");
  });

  it("rebuilds it from the summary and its lines when the body splits otherwise", () => {
    expect(entryText("one block only", entries, 1)).toBe("Lives in Lisbon\nWhy: said so");
    expect(entryText(body, entries, 7)).toBe("");
  });
});

describe("replaceProblem", () => {
  it("waits for a new fact that differs from the old one", () => {
    expect(replaceProblem("  ", "Lives in Berlin")).toBe("Write the new fact: it takes the old one's place.");
    expect(replaceProblem("Lives in Berlin ", "Lives in Berlin")).toBe("This is the fact as it is now: change it, or cancel.");
    expect(replaceProblem("Lives in Lisbon", "Lives in Berlin")).toBeNull();
  });
});
