// Semantic search in the person's words: the embedding model by its name (its files' hash only
// as a short fingerprint for a tooltip), what the search can do now, and how far preparing the
// memories for search by meaning has got. Pure.

import type { Semantic, TaskInfo } from "./bindings";

/** An embedding model as the UI names it. */
export interface ModelName {
  /** The model's own name, e.g. "all-MiniLM-L6-v2". */
  name: string;
  /** The first 8 characters of its files' hash (`null` when the id carries none). */
  fingerprint: string | null;
}

/** Reads a model id (`name@hash`, as `status` gives it) into its name and a short fingerprint. */
export function modelName(id: string): ModelName {
  const at = id.lastIndexOf("@");
  if (at <= 0) return { name: id, fingerprint: null };
  const hash = id.slice(at + 1).trim();
  return { name: id.slice(0, at), fingerprint: hash === "" ? null : hash.slice(0, 8) };
}

const n = (v: number) => v.toLocaleString();

/** What the server says before its reason when there is no model ("search is lexical only: …"). */
const LEXICAL_ONLY = /^search is lexical only:\s*/i;

/**
 * What semantic search does now, in a sentence: by meaning and words, partly, or by words only
 * (then the server's reason: no model found and how to install one, a broken file, …).
 */
export function semanticSentence(s: Semantic): string {
  if (s.state === "ready") {
    if (s.embedded >= s.total) return "Search finds memories by their meaning as well as by their words.";
    return `Search finds ${n(s.embedded)} of ${n(s.total)} memories by their meaning so far; the others by their words until they are prepared.`;
  }
  const reason = s.message.replace(LEXICAL_ONLY, "").trim();
  if (reason === "") return "Search finds memories by their words only.";
  return `Search finds memories by their words only: ${reason}`;
}

/** How many memories are ready for search by meaning: "3 of 10 memories ready for search by meaning". */
export function preparedText(embedded: number, total: number): string {
  return `${n(embedded)} of ${n(total)} memories ready for search by meaning`;
}

/**
 * Where an `embed` task is, in words, from its status and counts: "Preparing memories for search
 * by meaning: 4 of 10 done" once it counts, "Preparing memories for search by meaning…" before;
 * a queued one's phase as it is.
 */
export function embedText(task: Pick<TaskInfo, "status" | "phase" | "progress">): string {
  if (task.status === "queued") return task.phase ?? "waiting";
  const p = task.progress;
  return p ? `Preparing memories for search by meaning: ${n(p.done)} of ${n(p.total)} done` : "Preparing memories for search by meaning…";
}
