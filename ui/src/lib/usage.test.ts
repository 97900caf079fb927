import { describe, expect, it } from "vitest";
import {
  compareUsage,
  formatTokens,
  isUsageSort,
  lastText,
  metricText,
  neverRecalled,
  neverSentence,
  roundEstimate,
  timesText,
  topRecalled,
  topTokens,
  usageDetail,
  usageMap,
  usageSentence,
} from "./usage";
import { usageDocs } from "./rows";
import { listRows } from "./browser";
import { docKey } from "./format";
import { DOCS, memoryUsage } from "../test/fixtures";

const NOW = new Date("2026-03-10T12:00:00Z");
const daysAgo = (n: number) => new Date(NOW.getTime() - n * 86_400_000).toISOString();

describe("tokens, rounded as estimates", () => {
  it("rounds to what is known and groups thousands", () => {
    expect(roundEstimate(87)).toBe(87);
    expect(roundEstimate(123)).toBe(120);
    expect(roundEstimate(3087)).toBe(3100);
    expect(roundEstimate(31_234)).toBe(31_000);
    expect(formatTokens(3087)).toBe("~3,100 tokens");
    expect(formatTokens(1)).toBe("~1 token");
    expect(formatTokens(0)).toBe("no tokens");
    expect(formatTokens(Number.NaN)).toBe("no tokens");
  });

  it("counts times in words", () => {
    expect(timesText(1)).toBe("once");
    expect(timesText(14)).toBe("14 times");
    expect(timesText(1200)).toBe("1,200 times");
  });
});

describe("the usage sentence", () => {
  it("says how often, when last and what it cost", () => {
    const u = memoryUsage("a.md", { recalls: 14, last_recalled: daysAgo(2), tokens: 3087, sessions: 5, last_tokens: 220 });
    expect(usageSentence(u, NOW)).toBe("Recalled 14 times, last 2 days ago, ~3,087 tokens injected.");
    expect(usageSentence(memoryUsage("b.md", { recalls: 1, last_recalled: NOW.toISOString(), tokens: 40 }), NOW)).toBe(
      "Recalled once, just now, ~40 tokens injected.",
    );
    expect(usageSentence(memoryUsage("c.md", { recalls: 2, last_recalled: new Date(NOW.getTime() - 3 * 3_600_000).toISOString(), tokens: 400 }), NOW)).toBe(
      "Recalled 2 times, last 3 hours ago, ~400 tokens injected.",
    );
  });

  it("says a memory was never recalled, whether or not the server knows it", () => {
    expect(usageSentence(memoryUsage("a.md"), NOW)).toBe("Never recalled yet.");
    expect(usageSentence(null, NOW)).toBe("Never recalled yet.");
  });

  it("reads the last time in words", () => {
    expect(lastText(null, NOW)).toBe("");
    expect(lastText(daysAgo(1.2), NOW)).toBe("last recalled yesterday");
    expect(lastText(daysAgo(20), NOW)).toBe("last 2 weeks ago");
  });

  it("details chats, the last recall and carried turns on hover", () => {
    const u = memoryUsage("a.md", { recalls: 3, tokens: 900, sessions: 2, last_tokens: 300, carried: 1 });
    expect(usageDetail(u)).toBe(
      "In 2 chats.\nThe last recall put ~300 tokens into the prompt.\nSent again from an earlier turn once (counted in the tokens).\nTokens are estimated.",
    );
    expect(usageDetail(null)).toMatch(/^No chat has recalled this memory yet\./);
  });
});

const USAGE = [
  memoryUsage("a.md", { recalls: 3, tokens: 9000, last_recalled: daysAgo(10) }),
  memoryUsage("b.md", { recalls: 14, tokens: 3000, last_recalled: daysAgo(2) }),
  memoryUsage("c.md", { recalls: 14, tokens: 200, last_recalled: daysAgo(1) }),
  memoryUsage("d.md"),
  memoryUsage("e.md"),
];

describe("top lists", () => {
  it("ranks the most recalled (ties: the last recalled first) and the most expensive", () => {
    expect(topRecalled(USAGE).map((u) => u.path)).toEqual(["c.md", "b.md", "a.md"]);
    expect(topRecalled(USAGE, 1).map((u) => u.path)).toEqual(["c.md"]);
    expect(topTokens(USAGE).map((u) => u.path)).toEqual(["a.md", "b.md", "c.md"]);
  });

  it("counts the never recalled and names the first of them", () => {
    const many = [...USAGE, ...Array.from({ length: 6 }, (_, i) => memoryUsage(`z${i}.md`))];
    const never = neverRecalled(many);
    expect(never.count).toBe(8);
    expect(never.first.map((u) => u.path)).toEqual(["d.md", "e.md", "z0.md", "z1.md", "z2.md"]);
    expect(neverSentence(8)).toBe("8 memories have never been recalled.");
    expect(neverSentence(1)).toBe("1 memory has never been recalled.");
    expect(neverSentence(0)).toBe("Every memory has been recalled at least once.");
  });
});

describe("the list's usage sorts", () => {
  const usage = usageMap([
    {
      workspace: "personal",
      usage: [
        memoryUsage("proj.md", { recalls: 2, tokens: 5000, last_recalled: daysAgo(9) }),
        memoryUsage("me.md", { recalls: 9, tokens: 100, last_recalled: daysAgo(3) }),
        memoryUsage("links.md", { recalls: 1, tokens: 40, last_recalled: daysAgo(1) }),
      ],
    },
  ]);

  it("knows its sorts", () => {
    expect(isUsageSort("recalls")).toBe(true);
    expect(isUsageSort("type")).toBe(false);
  });

  it("keys usage by workspace and path", () => {
    expect(usage.get(docKey("personal", "me.md"))?.recalls).toBe(9);
  });

  it("orders memories most first, the never recalled last by name, with each row's figure", () => {
    const paths = (rows: ReturnType<typeof usageDocs>) => rows.flatMap((r) => (r.kind === "item" ? [r.item.path] : []));
    const byRecalls = usageDocs(DOCS, usage, "recalls", NOW);
    expect(byRecalls[0]).toMatchObject({ kind: "header", label: "Most recalled first", count: DOCS.length });
    expect(paths(byRecalls).slice(0, 3)).toEqual(["me.md", "proj.md", "links.md"]);
    const first = byRecalls[1];
    expect(first.kind === "item" && first.item.metric).toEqual({ text: "9 recalls", title: "Recalled 9 times, last 3 days ago, ~100 tokens injected." });
    expect(paths(usageDocs(DOCS, usage, "tokens", NOW)).slice(0, 3)).toEqual(["proj.md", "me.md", "links.md"]);
    expect(paths(usageDocs(DOCS, usage, "lastRecalled", NOW)).slice(0, 3)).toEqual(["links.md", "me.md", "proj.md"]);
    const last = byRecalls[byRecalls.length - 1];
    expect(last.kind === "item" && last.item.metric?.text).toBe("never recalled");
  });

  it("figures per sort", () => {
    const u = memoryUsage("a.md", { recalls: 1, tokens: 3087, last_recalled: daysAgo(2) });
    expect(metricText(u, "recalls", NOW)).toBe("1 recall");
    expect(metricText(u, "tokens", NOW)).toBe("~3,100 tokens");
    expect(metricText(u, "lastRecalled", NOW)).toBe("2 days ago");
    expect(metricText(undefined, "tokens", NOW)).toBe("no tokens");
    expect(compareUsage(undefined, u, "recalls")).toBeGreaterThan(0);
  });

  it("is what the list shows for a usage sort, unused until usage is read; daily logs are left out", () => {
    const log = { ...DOCS[0], path: "logs/2026/03/2026-03-01.md", kind: "log" as const, name: "2026-03-01" };
    const rows = listRows({ searching: false, docsLoading: false }, DOCS, null, new Set(), [log], "recalls", null);
    expect(rows[0]).toMatchObject({ kind: "header", group: "usage", count: DOCS.length });
    expect(rows.some((r) => r.kind === "item" && r.item.kind === "log")).toBe(false);
  });
});
