// Import, export, copy and move as the dialogs say them: what a preview will do, how
// far an import task has got (its phase "Writing 3 / 10 files", "Conversation 12 / 20"), how it
// ended, where an export goes by default, and what a copy or a move did. Pure: the dialogs in
// components/transfer/ call the commands.

import type { ConversationEstimate, Copied, ExportResult, ImportPreview, MemoryType, RestoreChoice, TaskInfo, TaskProgress } from "./bindings";
import { isActive } from "./tasks";

/** The formats Import… reads, in one line under its path field. */
export const IMPORT_FORMATS_HINT =
  "ChatGPT or Claude.ai conversations.json, Claude Code / Qwen Code transcripts, mem0 / claude-mem exports, JSON or JSONL, a folder of markdown notes, or a Mnemo export .zip";

/** 1234567 → "1,234,567" (the server's own counts read the same way). */
export function count(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** "1 memory", "3 memories": `count` and the word in the right number. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** A server sentence ("imported 5 memories into 2 files") with a capital and a full stop. */
export function asSentence(text: string): string {
  const t = text.trim().replace(/[\s:;,]+$/, "");
  if (!t) return t;
  const s = t[0].toUpperCase() + t.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

/** Is the path absolute, on this machine or on Windows ("/home/…", "~" is not, "C:\…")? */
export function isAbsolutePath(path: string): boolean {
  const p = path.trim();
  return p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith("\\\\");
}

/** Why the typed path cannot be sent as it is (`null`: it can). */
export function pathProblem(path: string, what: string): string | null {
  const p = path.trim();
  if (!p) return `Type the full path of ${what}.`;
  if (p.startsWith("~")) return `Write the full path of ${what}: “~” is not expanded here (start with / instead).`;
  if (!isAbsolutePath(p)) return `Write the full path of ${what}, starting with /.`;
  return null;
}

// ---- Preview ----

/** Conversations are learnt from by the model; everything else is written as it is. */
export function isConversations(p: ImportPreview): boolean {
  return p.conversations !== null;
}

/** "5 memories in 2 new files". */
export function writesText(p: ImportPreview): string {
  if (p.memories === 0) return "Nothing new to write";
  return `${plural(p.memories, "memory", "memories")} in ${plural(p.files, "new file")}`;
}

/** "3 user · 2 feedback" (the types in the order of the four). */
export function byTypeText(p: ImportPreview): string {
  const order: MemoryType[] = ["user", "feedback", "project", "reference"];
  return [...p.by_type]
    .filter((t) => t.count > 0)
    .sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type))
    .map((t) => `${count(t.count)} ${t.type}`)
    .join(" · ");
}

/** What the import leaves out, one phrase each (empty: nothing). */
export function leftOutParts(p: ImportPreview): string[] {
  const parts: string[] = [];
  if (p.duplicates > 0) parts.push(`${plural(p.duplicates, "duplicate")} skipped`);
  if (p.secrets > 0) parts.push(`${plural(p.secrets, "item")} with a secret refused`);
  if (p.skipped > 0) parts.push(`${plural(p.skipped, "other item")} left out`);
  return parts;
}

/** "12 conversations (4 already learnt from), 340 messages to read". */
export function conversationsText(c: ConversationEstimate): string {
  const done = c.done_before > 0 ? ` (${count(c.done_before)} already learnt from)` : "";
  return `${plural(c.conversations, "conversation")}${done}, ${plural(c.messages, "message")} to read`;
}

/** "About 24 model calls and 18,000 tokens". */
export function estimateText(c: ConversationEstimate): string {
  return `About ${plural(c.model_calls, "model call")} and ${plural(c.tokens, "token")}`;
}

/** The budget line: what stops the run, and what earlier runs spent of it. */
export function budgetText(c: ConversationEstimate): string {
  const spent = c.spent_tokens > 0 ? `; earlier runs spent about ${count(c.spent_tokens)}` : "";
  return `It stops before it would pass ${plural(c.budget_tokens, "token")}${spent}.`;
}

/** A budget typed by a person ("1,200,000", "50000"): a whole number of tokens, or `null`. */
export function parseBudget(text: string): number | null {
  const t = text.replace(/[\s,_]/g, "");
  if (!/^\d+$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/**
 * Why Import cannot start from this preview (`null`: it can): no model for conversations, no
 * workspace of a whole-home export ticked yet, or nothing to do.
 */
export function cannotImport(p: ImportPreview): string | null {
  const restore = p.restore ?? [];
  if (restore.length > 0 && !restore.some((r) => r.chosen)) return NOTHING_TICKED;
  const c = p.conversations;
  if (c) {
    if (!c.model_ready) {
      return "Learning from past conversations needs a model, and none is set up yet: set one up in Settings, then preview again.";
    }
    if (c.messages === 0) {
      return c.done_before > 0
        ? "Every conversation here was already learnt from: there is nothing left to read."
        : "These conversations hold no messages with text: there is nothing to learn from.";
    }
    return null;
  }
  if (p.memories === 0) return "Nothing to import: everything in it is already here or left out.";
  return null;
}

// ---- A whole-home export: which workspaces to restore ----

/** Import's one line while no workspace of a whole-home export is ticked. */
export const NOTHING_TICKED = "Tick the workspaces to restore.";

/** The note beside a workspace of a whole-home export ("" for one of Mnemo's own already here). */
export function restoreNote(r: RestoreChoice): string {
  if (r.workspace.startsWith("folder:")) return r.exists ? "An added folder" : "An added folder, made again where it was";
  if (r.other_tool && !r.exists && r.target === null) return "Another tool's memory or an added folder, with no place on this computer";
  if (r.other_tool)
    return r.exists
      ? "Another tool's memory — Claude Code or Qwen Code loads it into every session"
      : "Another tool's memory, not on this computer yet — made again in its folder; that tool loads it into every session";
  return r.exists ? "" : "Mnemo, new here";
}

/** Whether a workspace of a whole-home export cannot be restored here at all (shown, not offered). */
export function restoreImpossible(r: RestoreChoice): boolean {
  return !r.exists && r.other_tool && r.target === null;
}

/**
 * The ids ticked after one box changed, in the export's order (what the next preview names in
 * `workspaces`); the ones that cannot be restored are never among them.
 */
export function retick(choices: readonly RestoreChoice[], ticked: readonly string[], id: string, on: boolean): string[] {
  return choices
    .filter((r) => !restoreImpossible(r))
    .map((r) => r.workspace)
    .filter((w) => (w === id ? on : ticked.includes(w)));
}

// ---- The task ----

/** How far a task has got, for a bar: the counts it reports (`null`: it counts nothing, or nothing yet). */
export function progressOf(task: Pick<TaskInfo, "progress">): TaskProgress | null {
  const p = task.progress;
  if (!p || p.total <= 0) return null;
  return { done: Math.min(p.done, p.total), total: p.total };
}

/** The workspace's import under way, if any (Import… shows it instead of a new form). */
export function activeImport(tasks: readonly TaskInfo[], workspace: string): TaskInfo | null {
  return tasks.find((t) => t.kind === "import" && t.workspace === workspace && isActive(t)) ?? null;
}

/** Whether a task followed without its preview imports conversations (its phase says so). */
export function conversationsTask(t: TaskInfo | null): boolean {
  return /^conversation\b/i.test(t?.phase ?? "") || /\bconversations\b/i.test(t?.result?.summary ?? "");
}

export type ImportOutcome = "queued" | "running" | "completed" | "partial" | "cancelled" | "budget" | "failed";

export function importOutcome(t: TaskInfo): ImportOutcome {
  if (t.status === "queued" || t.status === "running") return t.status;
  if (t.status === "completed") return "completed";
  if (t.reason === "cancelled") return "cancelled";
  if (t.reason === "budget") return "budget";
  // It read every conversation, but the model could not finish some: the next run tries them.
  if (/\bcould not be learnt from\b/i.test(t.result?.summary ?? t.error ?? "")) return "partial";
  return "failed";
}

export const OUTCOME_TITLES: Record<ImportOutcome, string> = {
  queued: "Waiting for its turn…",
  running: "Importing…",
  completed: "Imported",
  partial: "Partly imported",
  cancelled: "Import cancelled",
  budget: "Import stopped at its budget",
  failed: "Import stopped",
};

/** A conversation import that stopped keeps what it learnt and goes on when run again. */
export function isResumable(t: TaskInfo, conversations: boolean): boolean {
  const o = importOutcome(t);
  return conversations && (o === "partial" || o === "cancelled" || o === "budget" || o === "failed");
}

/**
 * How an import that did not complete ended, in sentences. A conversation import's summary says
 * what it learnt before it stopped (the server's "; run the import again…" becomes our own next
 * step); a memory import writes all or nothing, so it wrote nothing.
 */
export function failureText(t: TaskInfo, conversations: boolean): string {
  const o = importOutcome(t);
  if (conversations) {
    const said = (t.result?.summary ?? t.error ?? "").replace(/;\s*run the import again[^]*$/i, "");
    const next =
      o === "budget"
        ? "Run it again with a bigger budget to go on."
        : o === "partial"
          ? "Run it again to try those again."
          : "Run it again to go on.";
    return said ? `${asSentence(said)} ${next}` : next;
  }
  if (o === "cancelled") return "You cancelled the import. Nothing was written.";
  const why = (t.error ?? "").trim();
  return why ? `${asSentence(why)} Nothing was written.` : "The import stopped. Nothing was written.";
}

// ---- Export ----

/** "2026-03-04" in local time. */
export function isoDay(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/**
 * "2026-03-04-153000" in local time: an export's stamp, to the second, so a second export the
 * same day does not collide with the first (the CLI's `default_export_name` names it the same way).
 */
export function exportStamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${isoDay(d)}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/**
 * Where an export goes unless a person says otherwise: the person's own folder when the Mnemo
 * home is under it (`/home/ana/.local/share/mnemo` → `/home/ana`), else the home's parent
 * folder, and `mnemo-export-YYYY-MM-DD-HHMMSS.zip` there.
 */
export function defaultExportPath(home: string | null | undefined, now: Date = new Date()): string {
  const name = `mnemo-export-${exportStamp(now)}.zip`;
  const h = (home ?? "").trim();
  if (!h) return "";
  const windows = /^[A-Za-z]:\\/.test(h) || (h.includes("\\") && !h.includes("/"));
  const sep = windows ? "\\" : "/";
  const user = windows ? /^([A-Za-z]:\\Users\\[^\\]+)(?:\\|$)/i.exec(h) : /^(\/home\/[^/]+|\/Users\/[^/]+|\/root)(?:\/|$)/.exec(h);
  let dir = user?.[1];
  if (!dir) {
    const trimmed = h.replace(/[\\/]+$/, "");
    const cut = trimmed.lastIndexOf(sep);
    dir = cut > 0 ? trimmed.slice(0, cut) : windows ? trimmed : "/";
  }
  return dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`;
}

/** Why the typed destination cannot be sent (`null`: it can). */
export function exportPathProblem(dest: string): string | null {
  const p = pathProblem(dest, "the zip to write");
  if (p) return p;
  if (!/\.zip$/i.test(dest.trim())) return "An export is a zip: end its name in .zip.";
  return null;
}

/** 2048 → "2 KB" (decimal units, one decimal under 10). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  const units = ["KB", "MB", "GB"];
  let v = bytes / 1000;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u += 1;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

/** "Exported 12 files (8 KB) to /home/ana/mnemo-export-2026-03-04-153000.zip." */
export function exportedText(r: ExportResult): string {
  const done = `Exported ${plural(r.files, "file")} (${formatBytes(r.bytes)}) to ${r.path}.`;
  const left = r.left_out ?? [];
  if (left.length === 0) return done;
  return `${done} Left out ${plural(left.length, "file")}: ${left.join("; ")}.`;
}

// ---- Copy and move ----

/** What a copy or a move did, in a sentence (`label`: a workspace's label). */
export function copiedText(c: Copied, moved: boolean, name: string, label: (id: string) => string): string {
  const to = label(c.workspace);
  const renamed = c.path !== c.from_path ? ` as ${c.path} (${c.from_path} there holds another memory)` : "";
  if (c.group === null) {
    return moved
      ? `${to} already had the same “${name}”: it was removed from ${label(c.from_workspace)}.`
      : `${to} already has the same “${name}”: nothing was copied.`;
  }
  return `${moved ? "Moved" : "Copied"} “${name}” to ${to}${renamed}.`;
}

/** The change groups that undo a copy or move, the target's first. */
export function copyGroups(c: Copied): number[] {
  return [c.group, c.removed_group].filter((g): g is number => g !== null);
}

/** What undoing a copy or a move put back. */
export function copyUndoneText(c: Copied, name: string, label: (id: string) => string): string {
  const back = c.removed_group !== null ? `“${name}” is back in ${label(c.from_workspace)}` : "";
  const gone = c.group !== null ? `the copy in ${label(c.workspace)} is taken back` : "";
  const both = [back, gone].filter(Boolean).join(", and ");
  return both ? `Undone: ${both}.` : "Nothing to undo.";
}
