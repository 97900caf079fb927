// Sync across machines in a person's words: a workspace's state as one sentence, the
// sidebar's badge and its tooltip, a conflict and its choices, the last error, and the settings
// form. Pure.

import type { FileCounts, RemoteKey, RemoteSync, SyncConflict, SyncSettings, WorkspaceSync } from "./bindings";
import { explain, plainMessage } from "./errors";
import { docKey, formatAge } from "./format";

const MINUTE_MS = 60 * 1000;
const HOUR_MS = 60 * MINUTE_MS;

function count(n: number, one: string, many: string): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

/** How long ago, in words: "just now", "5 minutes ago", "2 hours ago", "yesterday", "3 days ago". */
export function ago(iso: string, now: Date = new Date()): string {
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return "";
  const ms = now.getTime() - t;
  if (ms < MINUTE_MS) return "just now";
  if (ms < HOUR_MS) return `${count(Math.floor(ms / MINUTE_MS), "minute", "minutes")} ago`;
  if (ms < 24 * HOUR_MS) return `${count(Math.floor(ms / HOUR_MS), "hour", "hours")} ago`;
  return formatAge(iso, now);
}

/** A server fragment as the end of a sentence: "its project … machine" → "Its project … machine." */
function asSentence(text: string): string {
  const t = text.trim().replace(/[\s:;,.]+$/, "");
  return t ? `${t}.` : "";
}

/**
 * What an open sync conflict means for recall, in one sentence said the same everywhere (the
 * detail pane's banner, the Facts view, the Inbox, Status, a chat's recall details). The truth is
 * the engine's: recall reads the file as it is on this machine (where both versions were kept,
 * both are in it) and, for a file with an open conflict, tells the model its versions disagree and
 * not to treat either as certain (`mnemo_engine::recall::CONFLICT_NOTE`).
 */
export const CONFLICT_RECALL =
  "Until you choose, recall reads the memory as it is here now (both versions, where both are kept) and tells the model they disagree, so neither is taken as certain.";

/** "1 conflict waits for your choice." / "2 conflicts wait for your choice." */
export function conflictsSentence(n: number): string {
  return n === 1 ? "1 conflict waits for your choice." : `${n.toLocaleString()} conflicts wait for your choice.`;
}

/** "1 change waits to be sent." / "2 changes wait to be sent." */
export function pendingSentence(n: number): string {
  return n === 1 ? "1 change waits to be sent." : `${n.toLocaleString()} changes wait to be sent.`;
}

/** "1 change on the remote waits to come in." */
export function incomingSentence(n: number): string {
  return n === 1 ? "1 change on the remote waits to come in." : `${n.toLocaleString()} changes on the remote wait to come in.`;
}

/** The sentence for a home without a remote. */
export const NOT_SET_UP = "Sync is not set up: this memory stays on this computer.";

/** The workspace's entry in a sync status (`undefined`: none, e.g. added since the status was read). */
export function workspaceSync(s: RemoteSync | null, workspace: string): WorkspaceSync | undefined {
  return s?.workspaces.find((w) => w.workspace === workspace);
}

/** The memories with an open sync conflict, as `docKey`s (workspace and path), in every workspace. */
export function conflictedKeys(s: RemoteSync | null): ReadonlySet<string> {
  const keys = new Set<string>();
  for (const w of s?.workspaces ?? []) for (const c of w.conflicts) keys.add(docKey(w.workspace, c.path));
  return keys;
}

/** The remote a workspace syncs through: a team's when it is shared, else the home's. */
export function remoteOf(s: RemoteSync | null, w: WorkspaceSync | undefined): string | null {
  return w?.remote ?? s?.remote ?? null;
}

/**
 * A workspace's sync state as one sentence, what needs the person first: "1 conflict waits for
 * your choice.", "2 changes wait to be sent.", "Synced 5 minutes ago.", "Not synced: <why>."
 */
export function syncSentence(s: RemoteSync, w: WorkspaceSync | undefined, now: Date = new Date()): string {
  if (remoteOf(s, w) === null) return NOT_SET_UP;
  if (!w) return "Not synced yet: this workspace joins with the next sync.";
  if (w.key === null) return `Not synced: ${asSentence(w.not_synced ?? "") || "this workspace stays on this computer."}`;
  if (w.conflicts.length > 0) return conflictsSentence(w.conflicts.length);
  if (w.pending > 0) return pendingSentence(w.pending);
  if (w.incoming > 0) return incomingSentence(w.incoming);
  if (w.last_synced === null) return "Not synced yet: press Sync now to send it.";
  return `Synced ${ago(w.last_synced, now)}.`;
}

/** The last sync attempt's error as a sentence ("" when it did not fail). */
export function lastErrorSentence(s: RemoteSync | null): string {
  const e = s?.last_run?.error;
  return e ? `The last sync failed. ${explain(e).sentence}` : "";
}

export type BadgeKind = "none" | "pending" | "conflict" | "error";

export interface Badge {
  kind: BadgeKind;
  /** What the badge shows: "⇅", "⇅2" (conflicts), "⇅!" (the last sync failed). */
  text: string;
  /** Its tooltip (and accessible name): a sentence. */
  title: string;
}

const NO_BADGE: Badge = { kind: "none", text: "", title: "" };

/**
 * The sidebar's badge for a workspace: conflicts first (with their count), then a failed last
 * sync, then changes waiting to go out or come in; none when all is synced or it does not sync.
 */
export function syncBadge(s: RemoteSync | null, workspace: string): Badge {
  const w = workspaceSync(s, workspace);
  if (!s || remoteOf(s, w) === null || !w || w.key === null) return NO_BADGE;
  const n = w.conflicts.length;
  if (n > 0) return { kind: "conflict", text: `⇅${n}`, title: `${conflictsSentence(n)} Open Status to choose.` };
  const failed = lastErrorSentence(s);
  if (failed) return { kind: "error", text: "⇅!", title: failed };
  if (w.pending > 0 || w.incoming > 0) {
    const parts = [w.pending > 0 ? pendingSentence(w.pending) : "", w.incoming > 0 ? incomingSentence(w.incoming) : ""];
    return { kind: "pending", text: "⇅", title: parts.filter(Boolean).join(" ") };
  }
  return NO_BADGE;
}

/**
 * How a conflict names its memory: the memory's name (its frontmatter `name`, as the memory list
 * reads it), else its file path as it is — never a name made up from the file name.
 */
export function conflictName(c: SyncConflict, name?: string | null): string {
  const n = name?.trim();
  return n ? n : c.path;
}

/** What a conflict is, in words, and what Mnemo kept meanwhile; `name` is the memory's name, when known. */
export function conflictSentence(c: SyncConflict, name?: string | null): string {
  const what = conflictName(c, name);
  switch (c.kind) {
    case "edited":
      return `${what}: the same entry was edited on two machines; both versions are kept until you choose.`;
    case "deleted_and_edited":
      return `${what}: an entry was deleted on one machine and edited on another; the edit is kept until you choose.`;
    case "field":
      return `${what}: its ${c.field ?? "frontmatter"} was changed differently on two machines; this machine's is kept until you choose.`;
    default:
      return `${what}: two machines changed it differently; what is there now stays until you choose.`;
  }
}

/** A choice's label as its button: "Ana's version" → "Keep Ana's version", "delete it, as Bo did" → "Delete it, as Bo did". */
export function keepLabel(label: string): string {
  const l = label.trim();
  if (/^(keep|delete)\b/i.test(l)) return l[0].toUpperCase() + l.slice(1);
  return `Keep ${l}`;
}

/** A choice's label as a heading: "Ana's version", "Keep Ana's edit". */
export function choiceHeading(label: string): string {
  const l = label.trim();
  return l ? l[0].toUpperCase() + l.slice(1) : l;
}

/** The button that closes a conflict as it stands (every version kept). */
export function keepAllLabel(c: SyncConflict): string {
  return c.kind === "edited" ? "Keep both" : "Keep it as it is";
}

/** A flagged file's reason: "not sent: it holds a secret" → "Not sent: it holds a secret." */
export function flagSentence(why: string): string {
  return plainMessage(why);
}

/**
 * The repository a project key's id names: the part after the last `~` of an id like
 * `remote~github.com~ana~webapp` ("webapp"); "a repository" when the id carries no name (a
 * repository without a remote, `root~<hash>`).
 */
function repositoryOf(id: string): string {
  if (id.startsWith("root~")) return "a repository";
  return id.split("~").pop()?.trim() || "a repository";
}

/**
 * What a key on the remote holds, in words: "Claude Code memory of webapp", "Qwen Code memory
 * of webapp", "Mnemo workspace bound to webapp", "Qwen Code's memory of you", "Workspace work".
 */
export function remoteKeyName(key: string): string {
  if (key === "qwen-user") return "Qwen Code's memory of you";
  const parts = key.split("/");
  if (parts[0] === "mnemo" && parts.length === 2 && parts[1]) return `Workspace ${parts[1]}`;
  if (parts[0] === "project" && parts.length === 3 && parts[1]) {
    const repository = repositoryOf(parts[1]);
    switch (parts[2]) {
      case "claude":
        return `Claude Code memory of ${repository}`;
      case "qwen":
        return `Qwen Code memory of ${repository}`;
      case "mnemo":
        return `Mnemo workspace bound to ${repository}`;
      default:
        return `Memory of ${repository}`;
    }
  }
  return key;
}

/** "1 memory" / "3 memories". */
export function memoriesText(n: number): string {
  return count(n, "memory", "memories");
}

/** What the remote carries that this home does not take, as a name, a count and why. */
export interface ElsewhereLine {
  name: string;
  count: string;
  why: string;
}

export function elsewhereLine(k: RemoteKey): ElsewhereLine {
  return { name: remoteKeyName(k.key), count: memoriesText(k.files), why: plainMessage(k.why) };
}

/** What a sync did here: "3 files changed here", or that nothing did. */
export function changedText(n: number): string {
  return n === 0 ? "Nothing changed here." : `${count(n, "file", "files")} changed here`;
}

/** From this many deletions sent to the other machines on, a sync's summary warns. */
export const FEW_DELETIONS = 3;

/**
 * What a sync sent to the other machines: "Sent 3 files to your other machines (2 deletions)."
 * Empty when it sent nothing; a warning when it deleted a few memories everywhere.
 */
export function sentText(c: FileCounts): string {
  const n = c.added + c.removed + c.changed;
  if (n === 0) return "";
  const gone = c.removed > 0 ? ` (${count(c.removed, "deletion", "deletions")})` : "";
  const sent = `Sent ${count(n, "file", "files")} to your other machines${gone}.`;
  return c.removed >= FEW_DELETIONS
    ? `${sent} They delete those memories at their next sync: if that was not meant, undo the deletions in History and sync again.`
    : sent;
}

/** What a sync of the whole home did, for the settings: "Synced: 4 files changed here." */
export function runSummary(s: RemoteSync): string {
  const changed = s.workspaces.reduce((n, w) => n + w.changed.length, 0);
  const conflicts = s.workspaces.reduce((n, w) => n + w.conflicts.length, 0);
  const sent = s.workspaces.reduce(
    (n, w) => ({
      added: n.added + w.sent.added,
      removed: n.removed + w.sent.removed,
      changed: n.changed + w.sent.changed,
    }),
    { added: 0, removed: 0, changed: 0 },
  );
  const what = changed === 0 ? "Synced: nothing changed here." : `Synced: ${changedText(changed)}.`;
  const both = [what, sentText(sent)].filter((x) => x !== "").join(" ");
  return conflicts > 0 ? `${both} ${conflictsSentence(conflicts)} Open Status to choose.` : both;
}

/** The settings form: text fields as typed. */
export interface SyncForm {
  remote: string;
  author: string;
  auto: boolean;
  claude: boolean;
  qwen: boolean;
  sessions: boolean;
}

export function syncFormOf(s: SyncSettings): SyncForm {
  return {
    remote: s.remote ?? "",
    author: s.author ?? "",
    auto: s.auto ?? false,
    claude: s.claude ?? true,
    qwen: s.qwen ?? true,
    sessions: s.sessions ?? false,
  };
}

/**
 * The settings to save: empty fields as `null` (no remote: sync is off; no author: the default).
 * What the form does not show (workspaces shared with a team) is kept from `loaded`.
 */
export function syncSettingsOf(f: SyncForm, loaded?: SyncSettings | null): SyncSettings {
  const text = (v: string) => (v.trim() === "" ? null : v.trim());
  return {
    remote: text(f.remote),
    author: text(f.author),
    auto: f.auto,
    claude: f.claude,
    qwen: f.qwen,
    sessions: f.sessions,
    shared: loaded?.shared ?? {},
  };
}

export function sameSyncForm(a: SyncForm, b: SyncForm): boolean {
  return (
    a.remote === b.remote &&
    a.author === b.author &&
    a.auto === b.auto &&
    a.claude === b.claude &&
    a.qwen === b.qwen &&
    a.sessions === b.sessions
  );
}
