// Where a dream's proposal sends what it removes: a dream in review mode becomes one
// proposal; its task's report (`TaskResult.dream`) holds what was merged where and a note per
// file it rewrote or deleted. From them, beside each deleted file and removed entry, where the
// fact is kept, and the notes as sentences under "Why". Pure.

import type { DreamReport, EntryChange, Proposal, ProposalSummary } from "./bindings";
import { plainMessage } from "./errors";
import { entryParts } from "./memoryConflicts";
import { summaryKey } from "./supersede";

/** The task whose report explains a proposal: a dream's (`null`: none to read). */
export function explainingTask(p: ProposalSummary): string | null {
  const task = p.origin.task?.trim();
  return p.kind === "dream" && task ? task : null;
}

/** One note of the report: the file it is about (one of the proposal's, else `null`) and its sentence. */
export interface WhyNote {
  path: string | null;
  text: string;
}

export interface ProposalWhy {
  /** Beside a deleted file: where the entries it held are kept, as a sentence. */
  files: ReadonlyMap<string, string>;
  /** Beside a removed entry (by change id): where it is kept, as a sentence. */
  entries: ReadonlyMap<string, string>;
  /** The report's notes, for "Why". */
  notes: WhyNote[];
}

/** "a.md", "a.md and b.md", "a.md, b.md and c.md". */
export function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

const REVIEW_NOTE = /^review mode: these changes are proposal \d+/i;

const DELETED_NOTE = /^deleted (.+?): every entry it held is kept in (.+)$/;

/** The files a deleted file's entries went to: from the merges, else from its note. */
function destinationsOf(path: string, report: DreamReport): string[] {
  const into = report.merges.filter((m) => m.into !== path && m.from.includes(path)).map((m) => m.into);
  if (into.length > 0) return [...new Set(into)];
  for (const note of report.notes) {
    const m = DELETED_NOTE.exec(note.trim());
    if (m && m[1] === path)
      return m[2]
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean);
  }
  return [];
}

/** Where a removed entry of `path` went: the merge of its first line that took it from this file. */
function entryDestination(path: string, e: EntryChange, report: DreamReport): string | null {
  if (e.op !== "remove" || e.before === null) return null;
  const key = summaryKey(entryParts(e.before).summary);
  if (!key) return null;
  const merge = report.merges.find((m) => summaryKey(m.summary) === key && m.from.includes(path));
  if (!merge) return null;
  return merge.into === path ? "Merged into its copy earlier in this file." : `Merged into its copy in ${merge.into}.`;
}

/** A note about one of the proposal's files: "a.md: …", "deleted b.md: …". */
function noteOf(note: string, paths: readonly string[]): WhyNote {
  const text = note.trim();
  // The longest path first, so "notes/a.md" is not taken for "a.md".
  for (const path of [...paths].sort((a, b) => b.length - a.length)) {
    if (text.startsWith(`${path}: `)) return { path, text: plainMessage(text.slice(path.length + 2)) };
    if (text.startsWith(`deleted ${path}: `)) return { path, text: plainMessage(`deleted: ${text.slice(path.length + 10)}`) };
  }
  return { path: null, text: plainMessage(text) };
}

/**
 * What a dream's report tells about its proposal: beside each deleted file where its entries
 * are kept ("Every entry it held is kept in freeze-window.md."), beside each removed entry the
 * copy it was merged into, and its notes — each file's reason first, then the others (the
 * agent's summary, a repair, what usage it went by) — but the one saying it became a proposal.
 */
export function proposalWhy(p: Proposal, report: DreamReport): ProposalWhy {
  const files = new Map<string, string>();
  const entries = new Map<string, string>();
  for (const f of p.files) {
    if (f.after === null) {
      const to = destinationsOf(f.path, report);
      if (to.length > 0) files.set(f.path, `Nothing is lost: every entry it held is kept in ${listOf(to)}.`);
    }
    for (const e of f.entries) {
      const where = entryDestination(f.path, e, report);
      if (where) entries.set(e.id, where);
    }
  }
  const paths = p.files.map((f) => f.path);
  // The note that the changes became this proposal says what the inbox already shows.
  const notes = report.notes.filter((n) => n.trim() && !REVIEW_NOTE.test(n.trim())).map((n) => noteOf(n, paths));
  // Each file's reason first, in the dream's order; then what it said of the whole run.
  return { files, entries, notes: [...notes.filter((n) => n.path !== null), ...notes.filter((n) => n.path === null)] };
}

/** Jobs whose proposals carry their reasons in their entries (`Why:` lines) and came from a chat or a request. */
const FROM_WORDS = new Set(["extract", "remember"]);

/**
 * Why an extraction's (or a remember request's) proposal saves what it saves, from its own data
 * (they once showed no why and no source): each new or rewritten entry's `Why:` line, beside
 * the entry's first line. None when no entry has one.
 */
export function entryReasons(p: Proposal): WhyNote[] {
  if (!FROM_WORDS.has(p.kind)) return [];
  const notes: WhyNote[] = [];
  for (const f of p.files) {
    for (const e of f.entries) {
      if (e.after === null || (e.op !== "add" && e.op !== "edit")) continue;
      const parts = entryParts(e.after);
      if (!parts.why || !parts.summary) continue;
      notes.push({ path: f.path, text: `“${parts.summary}”: ${parts.why}` });
    }
  }
  return notes;
}

/**
 * Where an extraction's or a remember request's proposal came from, in a sentence: the chat
 * message in full (as kept, up to 300 characters), the chat by its title when known, the client
 * that asked; `null` when the proposal holds none of them (nothing is made up).
 */
export function sourceSentence(p: ProposalSummary, chatTitle: string | null = null): string | null {
  if (!FROM_WORDS.has(p.kind) && p.source !== "mcp") return null;
  const message = p.origin.message?.replace(/\s+/g, " ").trim() || null;
  const title = chatTitle?.trim() || null;
  const client = p.origin.client?.trim() || null;
  const parts: string[] = [];
  if (message) parts.push(`${p.kind === "extract" ? "What you said" : "What was asked"}: “${message}”`);
  if (title) parts.push(`in your chat “${title}”`);
  if (client) parts.push(`from ${client}`);
  if (parts.length === 0) return null;
  const s = parts.join(", ");
  return `${s[0].toUpperCase()}${s.slice(1)}.`;
}
