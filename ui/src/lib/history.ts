// The rows of the history list: single changes as they are, and the changes of one change group
// (one job: an extraction run, a dream, a group undo…) folded into one row.

import type { ChangeSource, ChangeSummary } from "./bindings";
import { isChatPath, logDay } from "./format";

export type HistoryRow =
  | { kind: "change"; key: string; change: ChangeSummary }
  | {
      kind: "group";
      key: string;
      /** The change group id (for `change_group` / `undo_group`). */
      group: number;
      workspace: string;
      /**
       * What made it: the source of its changes (`extract`, `dream`…), `undo` for a group undo,
       * `redo` for the undo of a group undo (Redo).
       */
      label: string;
      /** When its newest listed change happened. */
      at: string;
      /** Its listed changes, newest first (the list may hold only part of a group). */
      changes: ChangeSummary[];
      /** The files its listed changes touched, each once, in list order. */
      paths: string[];
    };

/** The change group a change belongs to (`null`: a single change). */
export function groupOf(c: ChangeSummary): number | null {
  return c.group ?? null;
}

function groupRow(changes: ChangeSummary[], byId: ReadonlyMap<number, ChangeSummary>): HistoryRow {
  const first = changes[0];
  const group = groupOf(first) as number;
  const paths = [...new Set(changes.map((c) => c.path))];
  const isUndo = changes.every((c) => c.undoes !== undefined && c.undoes !== null);
  const isRedoGroup = isUndo && changes.some((c) => isRedo(c, byId));
  return {
    kind: "group",
    key: `g${group}:${first.id}`,
    group,
    workspace: first.workspace,
    label: isRedoGroup ? "redo" : isUndo ? "undo" : first.source,
    at: first.at,
    changes,
    paths,
  };
}

/**
 * Folds consecutive changes of the same change group into one row; changes without a group stay
 * rows of their own, in order. A group split by other changes makes one row per run.
 */
export function historyRows(items: readonly ChangeSummary[]): HistoryRow[] {
  const rows: HistoryRow[] = [];
  const byId = changesById(items);
  let run: ChangeSummary[] = [];
  const flush = () => {
    if (run.length > 0) rows.push(groupRow(run, byId));
    run = [];
  };
  for (const c of items) {
    const g = groupOf(c);
    if (g === null) {
      flush();
      rows.push({ kind: "change", key: `c${c.id}`, change: c });
    } else {
      if (run.length > 0 && groupOf(run[0]) !== g) flush();
      run.push(c);
    }
  }
  flush();
  return rows;
}

/** "1 file", "3 files". */
export function countFiles(n: number): string {
  return `${n} file${n === 1 ? "" : "s"}`;
}

/** What a change did to its file, in words: "created", "modified", "deleted". */
export const OP_LABELS: Record<string, string> = { create: "created", modify: "modified", delete: "deleted" };

/** Who made a change, as a person would say it (the wire keeps `user`, `watcher`…). */
export const ACTORS: Record<ChangeSource, { label: string; icon: string }> = {
  user: { label: "You", icon: "●" },
  cli: { label: "You, at the command line", icon: "›" },
  watcher: { label: "Outside editor", icon: "◆" },
  extract: { label: "Extraction", icon: "▲" },
  dream: { label: "Dream", icon: "☾" },
  forget: { label: "Forget", icon: "×" },
  remember: { label: "Remember", icon: "+" },
  chat: { label: "Chat", icon: "»" },
  mcp: { label: "MCP assistant", icon: "◇" },
  sync: { label: "Sync", icon: "⇅" },
};

export function actorOf(source: string): { label: string; icon: string } {
  return (ACTORS as Record<string, { label: string; icon: string } | undefined>)[source] ?? { label: source, icon: "•" };
}

/**
 * Whether a group's changes are all undone: the newest change of each of its files was undone
 * (a group undo restores each file once, undoing that file's last change).
 */
export function groupUndoneBy(changes: readonly ChangeSummary[]): number | null {
  const newest = new Map<string, ChangeSummary>();
  for (const c of changes) {
    const had = newest.get(c.path);
    if (!had || c.id > had.id) newest.set(c.path, c);
  }
  const by = [...newest.values()].map((c) => c.undone_by);
  return by.length > 0 && by.every((b) => b !== null && b !== undefined) ? Math.max(...(by as number[])) : null;
}

/** The listed changes by id. */
export function changesById(items: readonly ChangeSummary[]): Map<number, ChangeSummary> {
  return new Map(items.map((c) => [c.id, c]));
}

/**
 * Whether a change is a redo: Redo undoes an undo, so it is a change that undid a change which
 * itself undid another. Known only when the undo it undid is listed.
 */
export function isRedo(c: ChangeSummary, byId: ReadonlyMap<number, ChangeSummary>): boolean {
  if (c.undoes === undefined || c.undoes === null) return false;
  const target = byId.get(c.undoes);
  return target !== undefined && target.undoes !== undefined && target.undoes !== null;
}

/**
 * What an undo or a redo did, beside its operation: "undoes #9", or for a redo the change it
 * brought back, "redo of #9" (`null`: an ordinary change).
 */
export function undoNote(c: ChangeSummary, byId: ReadonlyMap<number, ChangeSummary>): string | null {
  if (c.undoes === undefined || c.undoes === null) return null;
  if (isRedo(c, byId)) return `redo of #${byId.get(c.undoes)?.undoes}`;
  return `undoes #${c.undoes}`;
}

/**
 * How an undone change says so, in words: the undo by its number when it was a single change
 * ("undone by change #12"), or — an undo of a whole group, whose number would read like a change
 * of its own — how many changes went with it ("undone with 3 other changes").
 */
export function undoneText(undoneBy: number, byId: ReadonlyMap<number, ChangeSummary>): string {
  const by = byId.get(undoneBy);
  const group = by ? groupOf(by) : null;
  if (by && group !== null) {
    const others = [...byId.values()].filter((x) => x.group === group).length - 1;
    if (others > 0) return `undone with ${others} other change${others === 1 ? "" : "s"}`;
  }
  return `undone by change #${undoneBy}`;
}

/** How an undone change group says so: the group that undid it named as a group, never as "#4". */
export function groupUndoneText(undoneBy: number): string {
  return `undone by change group ${undoneBy}`;
}

/** A day as a person reads it: "20 Nov 2026" (`null` for a day that is not one). */
function dayWords(day: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  const t = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (Number.isNaN(t.getTime())) return null;
  return new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric" }).format(t);
}

/**
 * A daily log's or a conversation record's title from its path: "Daily log, 20 Nov 2026",
 * "Conversation record, 20 Nov 2026" (`null` for any other file).
 */
export function recordTitle(path: string): string | null {
  const log = logDay(path);
  if (log) {
    const day = dayWords(log);
    return day ? `Daily log, ${day}` : null;
  }
  if (isChatPath(path)) {
    const day = dayWords(path.split("/").pop()?.slice(0, 10) ?? "");
    return day ? `Conversation record, ${day}` : null;
  }
  return null;
}

/** The `name:` of a memory file's frontmatter (`null`: none, or not a memory file's text). */
export function frontmatterName(text: string | null | undefined): string | null {
  if (!text) return null;
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!m) return null;
  for (const line of m[1].split(/\r?\n/)) {
    const n = /^name:\s*(.*)$/.exec(line);
    if (n) {
      const v = n[1].trim().replace(/^(["'])(.*)\1$/, "$2").trim();
      return v || null;
    }
  }
  return null;
}

/**
 * What a history row calls a file (deleted files and records were once titled by their raw
 * path): the memory's name as the list reads it, else the name it had when it was deleted, else
 * a record's title, else its path. Shown through `printable` by the caller.
 */
export function historyName(path: string, listed: string | null | undefined, deleted: string | null | undefined): string {
  return listed?.trim() || deleted?.trim() || recordTitle(path) || path;
}

/** A group row's words for what made it: "Undo", "Redo", else who ("Extraction", "You"…) — never a raw source. */
export function groupWords(label: string): string {
  if (label === "undo") return "Undo";
  if (label === "redo") return "Redo";
  return actorOf(label).label;
}
