import type { DocKind, DocSummary, Hit, MemoryType, MemoryUsage, ProblemOut } from "./bindings";
import { docKey, kindOfPath, logDay, MEMORY_TYPES, TYPE_LABELS } from "./format";
import { USAGE_SORT_LABELS, compareUsage, metricText, usageSentence } from "./usage";
import type { UsageSort } from "./usage";

export type GroupId = MemoryType | "log" | "chat" | "invalid" | "results" | "recent" | "usage";

/** What one memory row shows; built from a DocSummary or a search Hit. */
export interface ListItem {
  key: string;
  workspace: string;
  path: string;
  name: string;
  description: string;
  type: MemoryType | null;
  kind: DocKind | null;
  mtime: string | null;
  valid: boolean;
  problem: ProblemOut | null;
  /** What secrets another program left in the file (it is shown and kept redacted). */
  secret?: string | null;
  /** Pinned: extraction and dream leave it alone. */
  pinned?: boolean;
  /** Archived: out of recall and MEMORY.md, still listed and searchable. */
  archived?: boolean;
  /** Search hits only: relevance 0–1 (the fused score; shown as a bar). */
  score?: number | null;
  /** Search hits only: how the hit matched (cosine similarity, BM25 share of the best match). */
  vector?: number | null;
  lexical?: number | null;
  /** Search hits only: the words of its name and description that matched (what is highlighted). */
  matched?: readonly string[];
  /** Usage sorts only: the figure sorted by ("14 recalls") and its sentence (the tooltip). */
  metric?: { text: string; title: string };
}

export type Row =
  | { kind: "header"; key: string; group: GroupId; label: string; count: number }
  | { kind: "item"; key: string; item: ListItem };

export const GROUP_LABELS: Record<GroupId, string> = {
  ...TYPE_LABELS,
  log: "Daily logs",
  chat: "Conversation records",
  invalid: "Invalid",
  results: "Results",
  recent: "Last changed first",
  usage: "By usage",
};

/** A daily log goes by its day. */
function nameOf(path: string, name: string, kind: DocKind | null): string {
  return (kind === "log" && logDay(path)) || name;
}

function fromDoc(d: DocSummary): ListItem {
  return {
    key: docKey(d.workspace, d.path),
    workspace: d.workspace,
    path: d.path,
    name: nameOf(d.path, d.name, d.kind),
    description: d.description,
    type: d.type,
    kind: d.kind,
    mtime: d.mtime,
    valid: d.valid,
    problem: d.problem ?? null,
    secret: d.secret ?? null,
    pinned: d.pinned,
    archived: d.archived,
  };
}

function groupOf(d: DocSummary): GroupId {
  if (!d.valid) return "invalid";
  if (d.kind === "log") return "log";
  if (d.kind === "chat") return "chat";
  return d.type ?? "invalid";
}

// Natural order ("Topic 2" before "Topic 10"), case-insensitive; one collator for 10k rows.
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
const byName = (a: ListItem, b: ListItem) =>
  collator.compare(a.name || a.path, b.name || b.path) || collator.compare(a.path, b.path);
// Daily logs and conversation records: newest day first (`logs/YYYY/MM/YYYY-MM-DD.md` and
// `chats/YYYY/MM/YYYY-MM-DD-<session>.md` sort by day), then last change.
const byNewestDay = (a: ListItem, b: ListItem) =>
  b.path.localeCompare(a.path) || (b.mtime ?? "").localeCompare(a.mtime ?? "");
const byPath = (a: ListItem, b: ListItem) => collator.compare(a.path, b.path);

/**
 * Rows for the browse list: one header per non-empty group (user, feedback, project, reference,
 * daily logs, conversation records, invalid), followed by its items unless the group is collapsed.
 */
export function groupDocs(docs: readonly DocSummary[], collapsed: ReadonlySet<GroupId> = new Set()): Row[] {
  const groups = new Map<GroupId, ListItem[]>();
  for (const d of docs) {
    const g = groupOf(d);
    let list = groups.get(g);
    if (!list) groups.set(g, (list = []));
    list.push(fromDoc(d));
  }
  const order: GroupId[] = [...MEMORY_TYPES, "log", "chat", "invalid"];
  const rows: Row[] = [];
  for (const g of order) {
    const items = groups.get(g);
    if (!items || items.length === 0) continue;
    items.sort(g === "log" || g === "chat" ? byNewestDay : g === "invalid" ? byPath : byName);
    rows.push({ kind: "header", key: `group:${g}`, group: g, label: GROUP_LABELS[g], count: items.length });
    if (collapsed.has(g)) continue;
    for (const item of items) rows.push({ kind: "item", key: item.key, item });
  }
  return rows;
}

/** Every memory in one list, the last changed first (a sort people ask for to see what is new). */
export function recentDocs(docs: readonly DocSummary[]): Row[] {
  if (docs.length === 0) return [];
  const items = docs.map(fromDoc).sort((a, b) => (b.mtime ?? "").localeCompare(a.mtime ?? "") || a.key.localeCompare(b.key));
  return [
    { kind: "header", key: "group:recent", group: "recent", label: GROUP_LABELS.recent, count: items.length },
    ...items.map<Row>((item) => ({ kind: "item", key: item.key, item })),
  ];
}

/**
 * Every memory (daily logs are not recalled one by one: left out; conversation records are, and
 * stay) in one list ordered by usage —
 * most recalled, most tokens or last recalled first —, each row with its figure.
 */
export function usageDocs(
  docs: readonly DocSummary[],
  usage: ReadonlyMap<string, MemoryUsage>,
  sort: UsageSort,
  now: Date = new Date(),
): Row[] {
  const items = docs
    .filter((d) => d.kind !== "log")
    .map((d) => {
      const item = fromDoc(d);
      const u = usage.get(item.key);
      return { item: { ...item, metric: { text: metricText(u, sort, now), title: usageSentence(u ?? null, now) } }, u };
    })
    .sort((a, b) => compareUsage(a.u, b.u, sort) || byName(a.item, b.item));
  if (items.length === 0) return [];
  return [
    { kind: "header", key: "group:usage", group: "usage", label: USAGE_SORT_LABELS[sort], count: items.length },
    ...items.map<Row>(({ item }) => ({ kind: "item", key: item.key, item })),
  ];
}

/** Rows for search results: best first, as the server ranked them. */
export function hitRows(hits: readonly Hit[], docs: ReadonlyMap<string, DocSummary>): Row[] {
  if (hits.length === 0) return [];
  const rows: Row[] = [
    {
      kind: "header",
      key: "group:results",
      group: "results",
      label: hits.length === 1 ? "1 match" : `${hits.length} matches`,
      count: hits.length,
    },
  ];
  const seen = new Set<string>();
  for (const h of hits) {
    const key = docKey(h.workspace, h.path);
    if (seen.has(key)) continue;
    seen.add(key);
    const d = docs.get(key);
    const kind = d?.kind ?? kindOfPath(h.path);
    rows.push({
      kind: "item",
      key,
      item: {
        key,
        workspace: h.workspace,
        path: h.path,
        name: nameOf(h.path, h.name, kind),
        description: h.description,
        type: h.type,
        kind,
        mtime: d?.mtime ?? null,
        valid: d?.valid ?? true,
        problem: d?.problem ?? null,
        pinned: d?.pinned ?? false,
        archived: d?.archived ?? false,
        score: h.score ?? null,
        vector: h.vector ?? null,
        lexical: h.lexical ?? null,
        matched: h.matched ?? [],
      },
    });
  }
  return rows;
}

/** Index of the next item row from `from` in direction `delta` (headers are skipped); -1 if none. */
export function nextItemIndex(rows: readonly Row[], from: number, delta: 1 | -1): number {
  for (let i = from + delta; i >= 0 && i < rows.length; i += delta) {
    if (rows[i].kind === "item") return i;
  }
  return -1;
}
