// The inbox of proposals (review mode) in words, and the choice a person makes in it:
// where a proposal came from as one sentence, its status and size, which changes are ticked (all
// by default) and the files edited before accepting, folded into the `AcceptChoice` the server
// takes; the pending count's tooltip; and which finished tasks may have made a proposal. The
// inbox also holds the workspace's open sync conflicts: what waits counts both.

import type { AcceptChoice, EntryOp, Proposal, ProposalStatus, ProposalSummary, RemoteSync, ReviewMode, SyncConflict } from "./bindings";
import { formatWhen } from "./format";
import { CONFLICT_RECALL, choiceHeading } from "./sync";

/** How many proposals one read of the inbox brings ("Show more" reads the next ones). */
export const INBOX_PAGE = 50;

/** The inbox's filter: what waits for a decision, what was decided, or everything. */
export type InboxFilter = "pending" | "decided" | "all";

/** The status the server filters by (`null`: all of them; "decided" is filtered here). */
export function statusFor(filter: InboxFilter): ProposalStatus | null {
  return filter === "pending" ? "pending" : null;
}

/** Accepted, rejected or expired: nobody has to decide any more. */
export function isDecided(status: ProposalStatus): boolean {
  return status === "accepted" || status === "rejected" || status === "expired";
}

/**
 * The proposals a filter shows out of those read. One decided here stays where it was, with its
 * new status, until the list is read again.
 */
export function shownProposals(items: readonly ProposalSummary[], filter: InboxFilter): ProposalSummary[] {
  return filter === "decided" ? items.filter((p) => isDecided(p.status)) : [...items];
}

/** A page appended to those read before (a proposal read twice, after a new one came in, once). */
export function appendPage(items: readonly ProposalSummary[], page: readonly ProposalSummary[]): ProposalSummary[] {
  const seen = new Set(items.map((p) => p.id));
  return [...items, ...page.filter((p) => !seen.has(p.id))];
}

/** A proposal's new summary in place of the old one. */
export function replaceSummary(items: readonly ProposalSummary[], next: ProposalSummary): ProposalSummary[] {
  return items.map((p) => (p.id === next.id ? next : p));
}

/** A message on one line, cut to `max` characters with an ellipsis. */
export function clip(text: string, max = 90): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length <= max ? one : `${one.slice(0, max - 1).trimEnd()}…`;
}

const quote = (text: string) => `“${clip(text)}”`;

/** Who or what made a proposal, as the start of a sentence. */
export function originSentence(p: ProposalSummary): string {
  const message = p.origin.message?.trim() || null;
  if (p.source === "mcp") return message ? `An assistant over MCP asked to remember ${quote(message)}` : "An assistant over MCP";
  switch (p.kind) {
    case "extract":
      return message ? `Extraction after your chat message ${quote(message)}` : "Extraction after a chat turn";
    case "dream":
      return /automatic/i.test(p.label) ? "Dream (automatic)" : "Dream (you started it)";
    case "remember": {
      const client = p.origin.client?.trim();
      const lead = client ? `Remember request from ${client}` : "Remember request";
      return message ? `${lead}: ${quote(message)}` : lead;
    }
    default: {
      const label = p.label.trim();
      return label ? label[0].toUpperCase() + label.slice(1) : "A memory job";
    }
  }
}

export const STATUS_TEXT: Record<ProposalStatus, string> = {
  pending: "Waiting for you",
  accepting: "Being saved",
  accepted: "Accepted",
  rejected: "Rejected",
  expired: "Expired",
};

/**
 * What became of the proposal a job made, in a sentence (`null` status: not known yet, so it is
 * taken to wait). A decided proposal never says "review it" again.
 */
export function proposalFate(status: ProposalStatus | null): { sentence: string; link: string; decided: boolean } {
  switch (status) {
    case "accepted":
      return { sentence: "You accepted it in the Inbox: its changes are saved.", link: "See it in the Inbox", decided: true };
    case "rejected":
      return { sentence: "You rejected it in the Inbox: nothing was saved.", link: "See it in the Inbox", decided: true };
    case "expired":
      return { sentence: "Nobody reviewed it in time, so it expired: nothing was saved.", link: "See it in the Inbox", decided: true };
    case "accepting":
      return { sentence: "It is being saved from the Inbox.", link: "See it in the Inbox", decided: false };
    default:
      return { sentence: "It waits in the Inbox for your review: nothing is saved until you accept it.", link: "Review it in the Inbox", decided: false };
  }
}

/** "1 change" / "3 changes". */
export function changesText(n: number): string {
  return n === 1 ? "1 change" : `${n.toLocaleString("en-US")} changes`;
}

/** "1 file" / "3 files". */
export function filesText(n: number): string {
  return n === 1 ? "1 file" : `${n.toLocaleString("en-US")} files`;
}

/** "2 changes to travel.md" / "5 changes to 3 files". */
export function sizeText(p: ProposalSummary): string {
  const where = p.paths.length === 1 ? p.paths[0] : filesText(p.paths.length);
  return `${changesText(p.changes)} to ${where}`;
}

/** When it was made, and when decided: "today at 14:05", "yesterday at 09:12 · decided today at 10:00". */
export function whenText(p: ProposalSummary, now: Date = new Date()): string {
  const made = formatWhen(p.at, now);
  const decided = p.resolved_at && isDecided(p.status) ? formatWhen(p.resolved_at, now) : "";
  return decided ? `${made} · decided ${decided}` : made;
}

/** The pending count as a sentence (the badge's tooltip). */
export function pendingSentence(n: number): string {
  if (n === 0) return "Nothing waits for your review.";
  return n === 1 ? "1 proposal waits for your review." : `${n.toLocaleString("en-US")} proposals wait for your review.`;
}

/** Review mode in a sentence. */
export function reviewSentence(mode: ReviewMode): string {
  return mode.on
    ? "Review is on: what extraction, dream, remember and assistants write here waits in this inbox until you accept it. Your own edits are saved at once."
    : "Review is off: memory jobs save what they write at once. Turn it on in Status to see it here first.";
}

/** What one change does, in a word or two. */
export const ENTRY_OP_TEXT: Record<EntryOp, string> = {
  add: "New entry",
  remove: "Entry removed",
  edit: "Entry rewritten",
  move: "Entry moved to another place in the file",
  fields: "Name, description or type changed",
  file: "Whole file",
};

/** What happens to a file. */
export function fileOpText(op: string, after: string | null): string {
  if (op === "create") return "new file";
  if (op === "delete" || after === null) return "deleted";
  return "changed";
}

/** The ticked changes and, while editing, each file's text as the person has it. */
export interface Selection {
  checked: ReadonlySet<string>;
  /** `null`: not editing; else the text of each file that can be edited (not deleted). */
  edits: ReadonlyMap<string, string> | null;
}

/** Every change id of a proposal, in order. */
export function allIds(p: Proposal): string[] {
  return p.files.flatMap((f) => f.entries.map((e) => e.id));
}

/** Everything ticked, nothing edited. */
export function initialSelection(p: Proposal): Selection {
  return { checked: new Set(allIds(p)), edits: null };
}

export function toggleEntry(sel: Selection, id: string, on: boolean): Selection {
  const checked = new Set(sel.checked);
  if (on) checked.add(id);
  else checked.delete(id);
  return { ...sel, checked };
}

/** Tick or untick all changes. */
export function setAll(sel: Selection, p: Proposal, on: boolean): Selection {
  return { ...sel, checked: new Set(on ? allIds(p) : []) };
}

/** Start editing: each file that is kept gets its proposed text. */
export function startEditing(sel: Selection, p: Proposal): Selection {
  const edits = new Map<string, string>();
  for (const f of p.files) if (f.after !== null) edits.set(f.path, f.after);
  return { ...sel, edits };
}

export function editFile(sel: Selection, path: string, text: string): Selection {
  if (!sel.edits) return sel;
  const edits = new Map(sel.edits);
  edits.set(path, text);
  return { ...sel, edits };
}

export function stopEditing(sel: Selection): Selection {
  return { ...sel, edits: null };
}

/** How many changes are ticked, of how many. */
export function counts(p: Proposal, sel: Selection): { chosen: number; total: number } {
  const ids = allIds(p);
  return { chosen: ids.filter((id) => sel.checked.has(id)).length, total: ids.length };
}

/** The files whose text the person changed while editing. */
export function editedFiles(p: Proposal, sel: Selection): { path: string; content: string }[] {
  if (!sel.edits) return [];
  return p.files.flatMap((f) => {
    const text = sel.edits?.get(f.path);
    return text !== undefined && text !== f.after ? [{ path: f.path, content: text }] : [];
  });
}

/**
 * What accepting sends: `all` takes everything; `selected` the ticked changes (`entries: null`
 * when that is all of them); `edited` the ticked changes plus the files edited (their whole text).
 * `null` when nothing would be accepted (the button stays disabled).
 */
export function acceptChoice(p: Proposal, sel: Selection, how: "all" | "selected" | "edited"): AcceptChoice | null {
  if (how === "all") return { entries: null, edits: [] };
  const ids = allIds(p);
  const chosen = ids.filter((id) => sel.checked.has(id));
  const edits = how === "edited" ? editedFiles(p, sel) : [];
  if (chosen.length === 0 && edits.length === 0) return null;
  return { entries: chosen.length === ids.length ? null : chosen, edits };
}

/** "Accept selected (2 of 3)". */
export function acceptSelectedLabel(chosen: number, total: number): string {
  return `Accept selected (${chosen} of ${total})`;
}

/** The toast after accepting: "Saved 2 files". */
export function savedText(paths: readonly string[]): string {
  return paths.length === 0 ? "Accepted: nothing needed to change" : `Saved ${filesText(paths.length)}`;
}

/** The one line explaining "Reject and don't learn this". */
export const DONT_LEARN_TEXT =
  "“Reject and don't learn this” also marks these entries as forgotten, so memory jobs never propose them again.";

/** The jobs whose writes can become proposals (review mode): the inbox is read again when one ends. */
export const PROPOSING: ReadonlySet<string> = new Set(["extract", "dream", "remember"]);

/** What waits in a workspace's inbox: proposals to decide and sync conflicts to choose. */
export interface InboxWaiting {
  workspace: string;
  /** Proposals waiting for a decision. */
  pending: number;
  /** Open sync conflicts of the workspace (the Status view's Sync section lists the same). */
  conflicts: number;
}

/**
 * What waits in `workspace`'s inbox from the pending count (`null`: not read) and the sync status
 * (`null`: not read, or sync not set up); `null` when neither is known.
 */
export function inboxWaiting(
  workspace: string | null,
  count: { workspace: string; pending: number } | null,
  sync: RemoteSync | null,
): InboxWaiting | null {
  if (workspace === null) return null;
  const pending = count && count.workspace === workspace ? count.pending : null;
  const conflicts = sync?.workspaces.find((w) => w.workspace === workspace)?.conflicts.length ?? 0;
  if (pending === null && conflicts === 0) return null;
  return { workspace, pending: pending ?? 0, conflicts };
}

/** The number on the Inbox button and in the sidebar: proposals and sync conflicts together. */
export function waitingCount(w: Pick<InboxWaiting, "pending" | "conflicts"> | null): number {
  return w ? w.pending + w.conflicts : 0;
}

/**
 * What waits, as one sentence: "1 proposal waits for your review." (proposals only),
 * "1 sync conflict waits for your choice.", "2 proposals and 1 sync conflict wait for you."
 */
export function waitingSentence(w: Pick<InboxWaiting, "pending" | "conflicts"> | null): string {
  const pending = w?.pending ?? 0;
  const conflicts = w?.conflicts ?? 0;
  if (conflicts === 0) return pendingSentence(pending);
  const c = conflicts === 1 ? "1 sync conflict" : `${conflicts.toLocaleString("en-US")} sync conflicts`;
  if (pending === 0) return `${c} ${conflicts === 1 ? "waits" : "wait"} for your choice.`;
  const p = pending === 1 ? "1 proposal" : `${pending.toLocaleString("en-US")} proposals`;
  return `${p} and ${c} wait for you.`;
}

/** The heading over the inbox's sync conflicts. */
export const CONFLICTS_HEADING = "Sync conflicts waiting for you";

/** The line under it. */
export function conflictsIntro(n: number): string {
  const what = n === 1 ? "one change" : `${n.toLocaleString("en-US")} changes`;
  return `Syncing with your other machines left ${what} it could not merge alone: choose the version to keep, or keep both. ${CONFLICT_RECALL}`;
}

/** The toast after a sync conflict is settled in the inbox: choice `keep` (`null`: every version, as it stands). */
export function settledSentence(c: SyncConflict, keep: number | null): string {
  const label = keep === null ? null : (c.choices[keep]?.label ?? "").trim();
  const what = label ? `Chosen: ${choiceHeading(label)}.` : c.kind === "edited" ? "Both versions are kept." : "Kept as it is.";
  return `${what} Your other machines get this choice with their next sync.`;
}
