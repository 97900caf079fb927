import type { DocKind, MemoryType, WorkspaceKind } from "./bindings";

export const MEMORY_TYPES: readonly MemoryType[] = ["user", "feedback", "project", "reference"];

export const TYPE_LABELS: Record<MemoryType, string> = {
  user: "User",
  feedback: "Feedback",
  project: "Project",
  reference: "Reference",
};

export const KIND_ORDER: readonly WorkspaceKind[] = ["mnemo", "claude", "qwen", "folder"];

export const KIND_LABELS: Record<WorkspaceKind, string> = {
  mnemo: "Mnemo",
  claude: "Claude Code",
  qwen: "Qwen Code",
  folder: "Folders",
};

const DAY_MS = 24 * 60 * 60 * 1000;

function startOfDay(d: Date): number {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? "" : "s"} ago`;
}

/**
 * "14:05" (today: the time of day as `formatClock` writes it), "yesterday", "3 days ago", "2 weeks
 * ago", "5 months ago", "2 years ago" (local calendar days).
 */
export function formatAge(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return "";
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return "";
  const days = Math.round((startOfDay(now) - startOfDay(t)) / DAY_MS);
  // Today: the time it changed (local), so rows changed today are told apart.
  if (days <= 0) return formatClock(t);
  if (days === 1) return "yesterday";
  if (days < 14) return plural(days, "day");
  if (days < 60) return plural(Math.floor(days / 7), "week");
  if (days < 365) return plural(Math.floor(days / 30), "month");
  return plural(Math.floor(days / 365), "year");
}

/** A compact local date-time, e.g. "2025-03-04 14:07" (the time of day as `formatClock` writes it). */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "";
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, "0");
  return `${t.getFullYear()}-${p(t.getMonth() + 1)}-${p(t.getDate())} ${formatClock(t)}`;
}

/**
 * The time of day in the person's locale and time zone, e.g. "14:05" or "02:05 PM": the app's one
 * way of writing a time, so a page never shows "17:12" beside "05:12 PM".
 */
export function formatClock(t: Date): string {
  return new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" }).format(t);
}

/** A day in the person's locale, e.g. "3 Mar" (with the year when it is not `now`'s). */
function formatDay(t: Date, now: Date): string {
  const year = t.getFullYear() === now.getFullYear() ? undefined : "numeric";
  return new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year }).format(t);
}

/**
 * When something happened, in the person's time zone and in words: "today at 14:05",
 * "yesterday at 09:12", "on 3 Mar at 14:05", "on 3 Mar 2025 at 14:05" ("" when unreadable).
 */
export function formatWhen(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return "";
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return "";
  const days = Math.round((startOfDay(now) - startOfDay(t)) / DAY_MS);
  const clock = formatClock(t);
  if (days === 0) return `today at ${clock}`;
  if (days === 1) return `yesterday at ${clock}`;
  return `on ${formatDay(t, now)} at ${clock}`;
}

/** The full local date and time, for a tooltip: "Tuesday 3 March 2026 at 14:05". */
export function formatFullTime(iso: string | null | undefined): string {
  if (!iso) return "";
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return "";
  return new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "short" }).format(t);
}

/** A chart's time label in local time: "14:05" on `now`'s day, else "3 Mar 14:05". */
export function formatAxisTime(ms: number, now: Date = new Date()): string {
  const t = new Date(ms);
  if (Number.isNaN(t.getTime())) return "";
  const clock = formatClock(t);
  return startOfDay(t) === startOfDay(now) ? clock : `${formatDay(t, now)} ${clock}`;
}

/** Identity of one document across workspaces. */
export function docKey(workspace: string, path: string): string {
  return `${workspace}\u0000${path}`;
}

/** A 0–1 relevance score with two decimals ("0.62"); never exponent notation. */
export function formatScore(n: number): string {
  if (!Number.isFinite(n)) return "";
  const s = n.toFixed(2);
  return s === "-0.00" ? "0.00" : s;
}

/** How a memory matched a query: "meaning 0.62 · words 0.80" (either part only when known). */
export function matchScores(vector: number | null | undefined, lexical: number | null | undefined): string {
  const parts: string[] = [];
  if (typeof vector === "number" && Number.isFinite(vector)) parts.push(`meaning ${formatScore(vector)}`);
  if (typeof lexical === "number" && Number.isFinite(lexical)) parts.push(`words ${formatScore(lexical)}`);
  return parts.join(" · ");
}

/** A short hint of how a search hit matched: "meaning + words", "meaning", "words" ("" for neither). */
export function matchHint(vector: number | null | undefined, lexical: number | null | undefined): string {
  const v = typeof vector === "number" && Number.isFinite(vector);
  const l = typeof lexical === "number" && Number.isFinite(lexical);
  return v && l ? "meaning + words" : v ? "meaning" : l ? "words" : "";
}

const LOG_PATH = /^logs\/\d{4}\/\d{2}\/(\d{4}-\d{2}-\d{2})\.md$/;

/** Whether a path (relative to the memory root) is a daily log: search hits carry no kind. */
export function isLogPath(path: string): boolean {
  return path.startsWith("logs/");
}

/** The day of a daily log, "2026-11-23" for `logs/2026/11/2026-11-23.md`; `null` for other paths. */
export function logDay(path: string): string | null {
  return LOG_PATH.exec(path)?.[1] ?? null;
}

const CHAT_PATH = /^chats\/\d{4}\/\d{2}\/\d{4}-\d{2}-\d{2}-[A-Za-z0-9_-]{1,64}\.md$/;

/**
 * Whether a path is a conversation record, `chats/YYYY/MM/YYYY-MM-DD-<session>.md` (what the
 * person said in one chat on one day): search hits carry no kind.
 */
export function isChatPath(path: string): boolean {
  return CHAT_PATH.test(path);
}

/** The kind a search hit's path says, when no listed doc does: a daily log, a conversation record, or unknown. */
export function kindOfPath(path: string): DocKind | null {
  return isLogPath(path) ? "log" : isChatPath(path) ? "chat" : null;
}

/**
 * Plain markdown whose text is its body — a daily log or a conversation record: no name,
 * description or type to edit (mirrors the Rust `DocKind::is_record`).
 */
export function isRecord(kind: DocKind | null | undefined): kind is "log" | "chat" {
  return kind === "log" || kind === "chat";
}
