// Usage per memory in words: how often a memory was recalled, when last, and what it
// cost in tokens injected into prompts — as one sentence for the detail pane, short figures for
// the list's usage sorts, and the Status view's top lists.

import type { MemoryUsage } from "./bindings";
import { docKey } from "./format";
import { ago } from "./sync";

/** The list's orders by usage. */
export type UsageSort = "recalls" | "tokens" | "lastRecalled";

export const USAGE_SORTS: readonly UsageSort[] = ["recalls", "tokens", "lastRecalled"];

export function isUsageSort(s: string): s is UsageSort {
  return (USAGE_SORTS as readonly string[]).includes(s);
}

/** The list header of each usage sort. */
export const USAGE_SORT_LABELS: Record<UsageSort, string> = {
  recalls: "Most recalled first",
  tokens: "Most tokens first",
  lastRecalled: "Last recalled first",
};

const number = new Intl.NumberFormat("en-US");

/** An estimate, rounded as far as it is known: 87, 120, 3,100, 31,000. */
export function roundEstimate(n: number): number {
  if (!Number.isFinite(n) || n <= 0) return 0;
  const step = n < 100 ? 1 : n < 1000 ? 10 : n < 10_000 ? 100 : 1000;
  return Math.round(n / step) * step;
}

/** "~3,100 tokens", "~1 token", "no tokens". */
export function formatTokens(n: number): string {
  const r = roundEstimate(n);
  if (r === 0) return "no tokens";
  return `~${number.format(r)} token${r === 1 ? "" : "s"}`;
}

/** Every token counted, marked as the estimate it is: "~3,087 tokens" (the detail pane's line
 *  matches `mnemo stats --memories` and the recall telemetry to the token). */
export function exactTokens(n: number): string {
  if (!Number.isFinite(n) || n <= 0) return "no tokens";
  const r = Math.round(n);
  return `~${number.format(r)} token${r === 1 ? "" : "s"}`;
}

/** "once", "14 times". */
export function timesText(n: number): string {
  return n === 1 ? "once" : `${number.format(n)} times`;
}

/** When it was last recalled, as the middle of the sentence: "last 2 days ago", "just now". */
export function lastText(iso: string | null, now: Date = new Date()): string {
  if (!iso) return "";
  const when = ago(iso, now);
  if (!when) return "";
  if (when === "just now") return "just now";
  // `ago` gives "5 minutes ago", "yesterday", "3 days ago"; a time of day for earlier today.
  if (/^\d{1,2}:\d{2}$/.test(when)) return `last today at ${when}`;
  if (when === "yesterday") return "last recalled yesterday";
  return `last ${when}`;
}

/** The detail pane's line: "Recalled 14 times, last 2 days ago, ~3,100 tokens injected." */
export function usageSentence(u: MemoryUsage | null, now: Date = new Date()): string {
  if (!u || u.recalls <= 0) return "Never recalled yet.";
  const parts = [`Recalled ${timesText(u.recalls)}`];
  const last = lastText(u.last_recalled, now);
  if (last) parts.push(last);
  parts.push(`${exactTokens(u.tokens)} injected`);
  return `${parts.join(", ")}.`;
}

/** The line's tooltip: chats served, the last recall's cost, turns that sent it again. */
export function usageDetail(u: MemoryUsage | null): string {
  if (!u || u.recalls <= 0) return "No chat has recalled this memory yet. Recalls and tokens are counted as chats use it.";
  const lines = [
    `In ${u.sessions === 1 ? "1 chat" : `${number.format(u.sessions)} chats`}.`,
    `The last recall put ${formatTokens(u.last_tokens)} into the prompt.`,
  ];
  if (u.carried > 0) lines.push(`Sent again from an earlier turn ${timesText(u.carried)} (counted in the tokens).`);
  lines.push("Tokens are estimated.");
  return lines.join("\n");
}

/** A row's short figure for a usage sort: "14 recalls", "~3,100 tokens", "2 days ago", "never". */
export function metricText(u: MemoryUsage | undefined, sort: UsageSort, now: Date = new Date()): string {
  if (!u || u.recalls <= 0) return sort === "tokens" ? "no tokens" : "never recalled";
  if (sort === "recalls") return u.recalls === 1 ? "1 recall" : `${number.format(u.recalls)} recalls`;
  if (sort === "tokens") return formatTokens(u.tokens);
  return u.last_recalled ? ago(u.last_recalled, now) : "never recalled";
}

const ZERO = { recalls: 0, tokens: 0, last_recalled: null as string | null };

/** Compares two memories' usage for a sort: most first, the never-recalled last. */
export function compareUsage(a: MemoryUsage | undefined, b: MemoryUsage | undefined, sort: UsageSort): number {
  const x = a ?? ZERO;
  const y = b ?? ZERO;
  if (sort === "recalls") return y.recalls - x.recalls || (y.last_recalled ?? "").localeCompare(x.last_recalled ?? "");
  if (sort === "tokens") return y.tokens - x.tokens || y.recalls - x.recalls;
  return (y.last_recalled ?? "").localeCompare(x.last_recalled ?? "") || y.recalls - x.recalls;
}

/** Usage by memory (`docKey(workspace, path)`), from each workspace's `memory_usage`. */
export function usageMap(byWorkspace: readonly { workspace: string; usage: readonly MemoryUsage[] }[]): Map<string, MemoryUsage> {
  const out = new Map<string, MemoryUsage>();
  for (const { workspace, usage } of byWorkspace) for (const u of usage) out.set(docKey(workspace, u.path), u);
  return out;
}

/** The `n` memories recalled most (ties: the last recalled first, then by path). */
export function topRecalled(usage: readonly MemoryUsage[], n = 5): MemoryUsage[] {
  return usage
    .filter((u) => u.recalls > 0)
    .sort((a, b) => compareUsage(a, b, "recalls") || a.path.localeCompare(b.path))
    .slice(0, n);
}

/** The `n` memories that cost the most tokens. */
export function topTokens(usage: readonly MemoryUsage[], n = 5): MemoryUsage[] {
  return usage
    .filter((u) => u.tokens > 0)
    .sort((a, b) => compareUsage(a, b, "tokens") || a.path.localeCompare(b.path))
    .slice(0, n);
}

/** Memories no recall has chosen: how many, and the first `n` by path. */
export function neverRecalled(usage: readonly MemoryUsage[], n = 5): { count: number; first: MemoryUsage[] } {
  const never = usage.filter((u) => u.recalls <= 0).sort((a, b) => a.path.localeCompare(b.path));
  return { count: never.length, first: never.slice(0, n) };
}

/** "3 memories have never been recalled." */
export function neverSentence(count: number): string {
  if (count === 0) return "Every memory has been recalled at least once.";
  return count === 1 ? "1 memory has never been recalled." : `${number.format(count)} memories have never been recalled.`;
}
