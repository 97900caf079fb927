// New and changed memories, marked in the list until the person opens them: what
// extraction, Remember, a dream, the chat model, an assistant over MCP or an outside editor wrote
// while the person was looking elsewhere. A person's own edits are not marked. Pure functions
// over a small record kept per browser in localStorage, capped so it cannot grow without bound.
import type { ChangeSource, MemoryChanged } from "./bindings";
import { docKey } from "./format";

export interface UnseenMark {
  /** "new": the memory was not in the list before; "changed": it was. */
  mark: "new" | "changed";
  /** Who wrote it last. */
  by: ChangeSource;
  /** When the change arrived (ms since the epoch): the oldest marks go first past the cap. */
  at: number;
}

/** Marks by `docKey(workspace, path)`. */
export type Unseen = Readonly<Record<string, UnseenMark>>;

export const UNSEEN_KEY = "mnemo.unseen";
/** Marks kept at most. */
export const MAX_UNSEEN = 200;

/** Changes a person made here are theirs: nothing to point out. */
const OWN: ReadonlySet<ChangeSource> = new Set<ChangeSource>(["user"]);

/** Only memories are marked: not MEMORY.md (an index Mnemo keeps) nor the daily logs. */
function isMemoryPath(path: string): boolean {
  return path.endsWith(".md") && path !== "MEMORY.md" && !path.startsWith("logs/");
}

/**
 * Marks the paths of a change event. `listed` says whether a memory was in the list before the
 * event (a path that was not is new). A second change to a new memory keeps it new.
 */
export function noteChange(unseen: Unseen, event: MemoryChanged, listed: (key: string) => boolean, now: number): Unseen {
  if (OWN.has(event.source)) return unseen;
  const next: Record<string, UnseenMark> = { ...unseen };
  for (const path of event.paths.filter(isMemoryPath)) {
    const key = docKey(event.workspace, path);
    const was = next[key];
    const mark = was?.mark === "new" || !listed(key) ? "new" : "changed";
    next[key] = { mark, by: event.source, at: now };
  }
  return capped(next);
}

/** The person opened it: the mark goes. */
export function markSeen(unseen: Unseen, key: string): Unseen {
  if (!(key in unseen)) return unseen;
  const next = { ...unseen };
  delete next[key];
  return next;
}

/**
 * A list may have been asked for before a change it does not show yet: marks younger than this
 * are kept whatever that list says (a mark shows only on a listed row anyway).
 */
export const PRUNE_GRACE_MS = 60_000;

/** Drops marks of memories that no longer exist (deleted, or undone away). */
export function prune(unseen: Unseen, present: ReadonlySet<string>, workspace: string | null, now: number): Unseen {
  const gone = Object.keys(unseen).filter(
    (k) =>
      (workspace === null || k.startsWith(docKey(workspace, ""))) && !present.has(k) && unseen[k].at < now - PRUNE_GRACE_MS,
  );
  if (gone.length === 0) return unseen;
  const next = { ...unseen };
  for (const k of gone) delete next[k];
  return next;
}

function capped(marks: Record<string, UnseenMark>): Unseen {
  const keys = Object.keys(marks);
  if (keys.length <= MAX_UNSEEN) return marks;
  const keep = keys.sort((a, b) => marks[b].at - marks[a].at).slice(0, MAX_UNSEEN);
  return Object.fromEntries(keep.map((k) => [k, marks[k]]));
}

/** The marks kept in this browser (a damaged record is ignored). */
export function loadUnseen(): Unseen {
  try {
    const raw = localStorage.getItem(UNSEEN_KEY);
    if (!raw) return {};
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== "object" || parsed === null) return {};
    const out: Record<string, UnseenMark> = {};
    for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
      const m = v as Partial<UnseenMark> | null;
      if (m && (m.mark === "new" || m.mark === "changed") && typeof m.by === "string" && typeof m.at === "number") {
        out[k] = { mark: m.mark, by: m.by, at: m.at };
      }
    }
    return capped(out);
  } catch {
    return {};
  }
}

export function saveUnseen(unseen: Unseen): void {
  try {
    localStorage.setItem(UNSEEN_KEY, JSON.stringify(unseen));
  } catch {
    // Storage unavailable (private mode): the marks last for this session only.
  }
}
