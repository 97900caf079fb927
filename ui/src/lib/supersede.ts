// Replaced facts in a person's words. When a fact is replaced — a person's Replace…,
// or extraction, dream, remember rewriting an entry in place — the old entry stays in the file,
// just before its successor, with a line `Superseded: 2026-11-26 by "<new summary>"; <why>`;
// recall never injects it. Here: which facts are current and which were replaced, each replaced
// one in its chain (oldest → newest, each naming the one after it), the sentence under each, and
// the Replace dialog's checks. Pure.

import type { EntryOut, Supersession } from "./bindings";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A `YYYY-MM-DD` day in words, "26 Nov 2026" (the text as it is when it is not a day). */
export function formatDay(at: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(at.trim());
  if (!m) return at.trim();
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > 31) return at.trim();
  return `${day} ${MONTHS[month - 1]} ${m[1]}`;
}

/**
 * Who an agent's `why` names, as the end of "rewritten by …": memory jobs write who they are
 * (`extraction`, `dream`, …); anything else is a person's reason, quoted as they wrote it.
 */
const AGENTS: Record<string, string> = {
  extraction: "extraction",
  dream: "a dream",
  remember: "Remember",
  "the chat model": "the chat model",
  "an assistant over mcp": "an assistant (over MCP)",
  "a memory job": "a memory job",
};

/** A sentence's end: a full stop unless it ends in its own ("moved" → "moved.", "搬家了。" stays, "搬家了" → "搬家了。"). */
function endSentence(text: string): string {
  const t = text.trim();
  if (/[.!?。！？…]$/.test(t)) return t;
  return /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]$/.test(t) ? `${t}。` : `${t}.`;
}

/**
 * The sentence under a replaced fact: "Replaced on 26 Nov 2026 by “Moved to Lisbon” — moved.",
 * "Replaced on 26 Nov 2026 by “Moved to Lisbon” — rewritten by extraction.", or without a reason
 * "Replaced on 26 Nov 2026 by “Moved to Lisbon”."
 */
export function replacedSentence(s: Supersession): string {
  const by = s.by.trim();
  const head = `Replaced${s.at.trim() ? ` on ${formatDay(s.at)}` : ""}${by ? ` by “${by}”` : ""}`;
  const why = (s.why ?? "").trim();
  if (!why) return `${head}.`;
  const agent = AGENTS[why.toLowerCase()];
  return agent ? `${head} — rewritten by ${agent}.` : `${head} — ${endSentence(why)}`;
}

/** How summaries are compared: trimmed, no list dash, spaces collapsed, case-folded; `"` as `'` (the file keeps `by` so). */
export function summaryKey(s: string): string {
  return s
    .trim()
    .replace(/^- /, "")
    .replace(/"/g, "'")
    .replace(/\s+/g, " ")
    .toLowerCase();
}

/** Replaced facts that lead to one fact: the chain, oldest first; `now` is where it ends. */
export interface ReplacedChain {
  /** Oldest first: each one's `superseded.by` names the next, the last one's names `now`. */
  replaced: EntryOut[];
  /** The current fact the chain ends at; `null` when its successor is no longer in this memory. */
  now: EntryOut | null;
}

export interface Facts {
  /** Facts recall uses, in file order. */
  current: EntryOut[];
  /** Replaced facts, one chain per fact they lead to, in the order of those facts in the file. */
  chains: ReplacedChain[];
  /** How many facts were replaced in all. */
  replacedCount: number;
}

/**
 * The entry that replaced entry `i`: the first after it whose summary is its `by` (the file keeps
 * the old one just before its successor), else any other with that summary; `-1` when none.
 */
function successorOf(entries: readonly EntryOut[], i: number): number {
  const by = entries[i].superseded?.by;
  if (by === undefined) return -1;
  const key = summaryKey(by);
  for (let j = i + 1; j < entries.length; j++) if (summaryKey(entries[j].summary) === key) return j;
  for (let j = i - 1; j >= 0; j--) if (summaryKey(entries[j].summary) === key) return j;
  return -1;
}

/**
 * A memory's entries split into current facts and chains of replaced ones. A chain follows each
 * replaced fact to what replaced it, through facts that were themselves replaced, to a current
 * one: "Lives in Berlin" → "Lives in Porto" → "Lives in Lisbon" reads oldest first. Facts merged
 * into one (two replaced by the same) share its chain, in file order at each step.
 */
export function factsOf(entries: readonly EntryOut[]): Facts {
  const next = entries.map((e, i) => (e.superseded ? successorOf(entries, i) : -1));
  /** Where following `i` ends: a current fact, or a replaced one whose successor is gone (or a loop). */
  const endOf = (i: number): { end: number; steps: number } => {
    const seen = new Set<number>([i]);
    let at = i;
    let steps = 0;
    while (entries[at].superseded && next[at] >= 0 && !seen.has(next[at])) {
      at = next[at];
      seen.add(at);
      steps += 1;
    }
    return { end: at, steps };
  };
  const groups = new Map<number, { i: number; steps: number }[]>();
  entries.forEach((e, i) => {
    if (!e.superseded) return;
    const { end, steps } = endOf(i);
    const list = groups.get(end) ?? [];
    list.push({ i, steps });
    groups.set(end, list);
  });
  const chains: ReplacedChain[] = [...groups.entries()]
    .sort(([a], [b]) => a - b)
    .map(([end, members]) => ({
      // Farthest from the end first (oldest), file order among equals.
      replaced: members.sort((a, b) => b.steps - a.steps || a.i - b.i).map((m) => entries[m.i]),
      now: entries[end].superseded ? null : entries[end],
    }));
  return {
    current: entries.filter((e) => !e.superseded),
    chains,
    replacedCount: entries.filter((e) => e.superseded).length,
  };
}

/** The note by the body while the facts are not shown: "2 replaced facts are kept in this file…". */
export function replacedNote(n: number): string {
  if (n <= 0) return "";
  const lead = n === 1 ? "1 replaced fact is kept in this file" : `${n.toLocaleString("en-US")} replaced facts are kept in this file`;
  return `${lead}, marked “Superseded:”; recall never uses ${n === 1 ? "it" : "them"}.`;
}

/** The heading counts: "Current facts (2)", "Replaced facts (1)". */
export function factsHeading(kind: "current" | "replaced", n: number): string {
  return `${kind === "current" ? "Current facts" : "Replaced facts"} (${n.toLocaleString("en-US")})`;
}

/**
 * Entry `index`'s text as the file holds it (the summary line with its `Why:` / `How to apply:`
 * lines), for the Replace dialog to start from: the body's blank-line separated blocks, as the
 * store splits them; rebuilt from the summary and lines when the body does not split the same way.
 */
export function entryText(body: string, entries: readonly EntryOut[], index: number): string {
  const blocks: string[] = [];
  let block: string[] = [];
  for (const line of body.split("\n")) {
    if (line.trim() === "") {
      if (block.length) blocks.push(block.join("\n"));
      block = [];
    } else block.push(line.replace(/\r$/, ""));
  }
  if (block.length) blocks.push(block.join("\n"));
  const e = entries[index];
  if (!e) return "";
  if (blocks.length === entries.length && summaryKey(blocks[index].split("\n")[0]) === summaryKey(e.summary)) {
    return blocks[index]
      .split("\n")
      .filter((l) => !l.trim().startsWith("Superseded:"))
      .join("\n");
  }
  return [e.summary, e.why ? `Why: ${e.why}` : "", e.how ? `How to apply: ${e.how}` : ""].filter(Boolean).join("\n");
}

/** Why Save waits in the Replace dialog (`null`: it can save). */
export function replaceProblem(text: string, old: string): string | null {
  if (!text.trim()) return "Write the new fact: it takes the old one's place.";
  if (text.trim() === old.trim()) return "This is the fact as it is now: change it, or cancel.";
  return null;
}

/** The toast after Replace. */
export const REPLACED_TOAST = "Replaced. The old fact is kept as replaced";

/** The toast after its Undo. */
export const REPLACE_UNDONE_TOAST = "Undone: the fact is back as it was.";
