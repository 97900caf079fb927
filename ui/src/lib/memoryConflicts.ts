// A sync conflict where the facts live: the open conflicts of one memory file, which
// of its entries are versions a person still has to choose between (so they are never listed
// as current facts), and the detail pane's banner in words. Pure.

import type { EntryOut, RemoteSync, SyncConflict } from "./bindings";
import { summaryKey } from "./supersede";
import { CONFLICT_RECALL, workspaceSync } from "./sync";

/** The open sync conflicts of one memory file (none when the status is not read or sync is off). */
export function conflictsFor(s: RemoteSync | null | undefined, workspace: string, path: string): SyncConflict[] {
  if (!s) return [];
  return (workspaceSync(s, workspace)?.conflicts ?? []).filter((c) => c.path === path);
}

/** An entry's text in parts, as the store splits it: the first line (no list dash), its `Why:` and `How to apply:`. */
export interface EntryParts {
  summary: string;
  why: string | null;
  how: string | null;
}

/** Splits an entry's text (a conflict's version) the way the store does (`format::entries`). */
export function entryParts(text: string): EntryParts {
  let summary = "";
  let why: string | null = null;
  let how: string | null = null;
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t) continue;
    if (t.startsWith("Why:")) why = t.slice(4).trim();
    else if (t.startsWith("How to apply:")) how = t.slice("How to apply:".length).trim();
    else if (!summary) {
      let s = t;
      while (s.startsWith("- ")) s = s.slice(2);
      summary = s;
    }
  }
  return { summary, why, how };
}

const lineKey = (s: string | null | undefined) => (s ?? "").trim().replace(/\s+/g, " ");

/** Whether `entry` is the entry a conflict's version `text` holds: the same first line, `Why:` and `How to apply:`. */
export function isVersion(entry: EntryOut, text: string): boolean {
  const p = entryParts(text);
  if (!p.summary) return false;
  return summaryKey(p.summary) === summaryKey(entry.summary) && lineKey(p.why) === lineKey(entry.why) && lineKey(p.how) === lineKey(entry.how);
}

/** One version of a conflict as the Facts view shows it: its label, and the entries of this memory that hold it. */
export interface VersionFacts {
  /** The choice's index (what `sync_resolve` keeps). */
  index: number;
  label: string;
  /** The version's entries found in the memory, in file order. */
  entries: EntryOut[];
  /** The version deletes the entry (keeping it removes the other versions). */
  deletes: boolean;
}

/** A conflict whose versions are entries of the memory. */
export interface ConflictFacts {
  conflict: SyncConflict;
  versions: VersionFacts[];
}

export interface SplitFacts {
  /** Facts that stand alone: no open conflict holds them. */
  current: EntryOut[];
  /** Conflicts with versions among the facts, in the order of the conflicts. */
  inConflict: ConflictFacts[];
}

/**
 * The current facts split by the open conflicts: an entry that is one of a conflict's versions
 * is not current (two machines disagree on it) and goes with its conflict instead. A conflict of
 * a frontmatter field, or one whose versions are no longer in the file, holds no facts here.
 */
export function splitByConflicts(current: readonly EntryOut[], conflicts: readonly SyncConflict[]): SplitFacts {
  const taken = new Set<string>();
  const inConflict: ConflictFacts[] = [];
  for (const c of conflicts) {
    if (c.kind === "field") continue;
    const versions = c.choices.map((ch, index) => {
      const entries = current.filter((e) => ch.texts.some((t) => isVersion(e, t)));
      return { index, label: ch.label, entries, deletes: ch.texts.length === 0 };
    });
    const held = versions.flatMap((v) => v.entries);
    if (held.length === 0) continue;
    for (const e of held) taken.add(e.id);
    inConflict.push({ conflict: c, versions });
  }
  return { current: current.filter((e) => !taken.has(e.id)), inConflict };
}

/**
 * The banner's sentence: the machines disagree, and what the file holds until the person
 * chooses. What that means for recall is `CONFLICT_RECALL`, said once under it.
 */
export function disagreeSentence(c: SyncConflict): string {
  switch (c.kind) {
    case "edited":
      return "Your machines disagree about this memory: the same fact was changed differently on two of them. Both versions are in the file.";
    case "deleted_and_edited":
      return "Your machines disagree about this memory: one deleted a fact that another changed. The changed fact stays in the file.";
    case "field":
      return `Your machines disagree about this memory's ${c.field ?? "frontmatter"}: this machine's is kept.`;
    default:
      return "Your machines disagree about this memory: two of them changed it differently. What is in the file now stays.";
  }
}

/** The banner's sentence while there are unsaved edits: the choice rewrites the file. */
export const SAVE_FIRST = "Save or discard your edits first: choosing rewrites this memory.";

/** The heading of the Facts view's group of conflicting versions. */
export const IN_CONFLICT_HEADING = "In conflict — choose one";

/** The line under it: the versions are both in the file, and what that means for recall (`CONFLICT_RECALL`). */
export function inConflictLead(n: number): string {
  return n === 1
    ? `Two machines disagree on this fact, and both versions are in the file. ${CONFLICT_RECALL} Keep the one that is true.`
    : `Two machines disagree on these facts, and every version is in the file. ${CONFLICT_RECALL} Keep the one that is true for each.`;
}
