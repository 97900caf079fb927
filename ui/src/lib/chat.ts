// The chat pane's state: messages of the open session and the turn in flight, folded from
// user actions, `chatSend` results and chat events. Pure, so the ordering cases (deltas after
// the reply resolved, extraction results before it) are easy to test.

import type {
  ChatEvent,
  ChatLine,
  Compaction,
  DocSummary,
  ExtractResult,
  MemoryStats,
  ModelSettings,
  ProposalSummary,
  RecallResult,
  SessionInfo,
  Strategy,
  TurnResult,
} from "./bindings";
import { formatScore, isRecord, MEMORY_TYPES } from "./format";

export type MessageRole = "user" | "assistant" | "command";

/** Background extraction attached to an assistant message (runs may repeat: files accumulate). */
export interface Extraction {
  running: boolean;
  /** Files written by the finished runs (relative to the memory root). */
  files: string[];
  /** The last finished run. */
  last: ExtractResult | null;
}

export interface ChatMessage {
  key: string;
  role: MessageRole;
  text: string;
  /** A reply still being written. */
  streaming: boolean;
  /** The user stopped this reply before it finished; it was not saved. */
  stopped: boolean;
  /** Not part of the saved transcript (a stopped turn's messages). */
  unsaved: boolean;
  /** What recall injected, when known in full (live turns). */
  recall: RecallResult | null;
  /** Paths recall injected (all a saved transcript knows). */
  recalledPaths: string[];
  /** Memory tools the chat model used while writing this reply. */
  tools: string[];
  /** Files the chat model wrote itself. */
  wrote: string[];
  /** Review mode: the proposal the chat model's own writes became (nothing was written). */
  proposal: number | null;
  extraction: Extraction | null;
  /** A `/memory` answer as figures, drawn as a card (`null`: show the text). */
  memory: MemorySnapshot | null;
}

/** What `/memory` shows as a card: the workspace's figures when the command ran. */
export interface MemorySnapshot {
  /** When it was asked (ms): "today" and "yesterday" are relative to this. */
  at: number;
  stats: MemoryStats;
  /** Memories by type, the four types in order, then files that are not valid memories; none with zero. */
  byType: { key: string; count: number }[];
  /** Memories in all. */
  total: number;
  /** The chat model's name ("" when none is set). */
  model: string;
  /** The model recall uses, when it is not the chat model ("" otherwise). */
  fastModel: string;
  /** Memory is ignored for this chat. */
  ignored: boolean;
  /**
   * The workspace's newest proposals when it was asked (`null`: not read): where the last runs'
   * proposals stood then, never "waiting" for one already decided.
   */
  proposals: ProposalSummary[] | null;
}

/**
 * The `/memory` card's figures from `stats`, the workspace's memories and the model settings
 * (daily logs and conversation records, should the list hold them, are not memories: not counted).
 */
export function memorySnapshot(
  stats: MemoryStats,
  allDocs: readonly (Pick<DocSummary, "type"> & Partial<Pick<DocSummary, "kind">>)[],
  model: Pick<ModelSettings, "model" | "fast_model"> | null,
  ignored: boolean,
  at: number = Date.now(),
  proposals: ProposalSummary[] | null = null,
): MemorySnapshot {
  const docs = allDocs.filter((d) => !isRecord(d.kind));
  const counts = new Map<string, number>();
  for (const d of docs) {
    const key = d.type ?? "invalid";
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const keys: string[] = [...MEMORY_TYPES, "invalid"];
  const name = model?.model.trim() ?? "";
  const fast = model?.fast_model.trim() ?? "";
  return {
    at,
    stats,
    byType: keys.filter((k) => counts.has(k)).map((key) => ({ key, count: counts.get(key) ?? 0 })),
    total: docs.length,
    model: name,
    fastModel: fast !== name ? fast : "",
    ignored,
    proposals,
  };
}

export interface PendingTurn {
  session: string;
  userKey: string;
  replyKey: string;
}

export interface ChatState {
  /** The session the messages belong to (`null`: none yet). */
  session: string | null;
  messages: ChatMessage[];
  /** The turn being answered, if any. */
  pending: PendingTurn | null;
  /** Where the conversation was compacted, oldest first (`upto` counts saved messages). */
  compactions: Compaction[];
  /** Next key number. */
  seq: number;
}

export type ChatAction =
  | { type: "reset"; session: string | null }
  | { type: "loaded"; session: string; lines: ChatLine[]; compactions?: Compaction[] }
  | { type: "sent"; session: string; text: string }
  | { type: "event"; event: ChatEvent }
  /** `memory`: a `/memory` answer's figures, to draw as a card. */
  | { type: "done"; session: string; result: TurnResult; memory?: MemorySnapshot | null }
  | { type: "failed"; session: string; stopped: boolean };

export const EMPTY_CHAT: ChatState = { session: null, messages: [], pending: null, compactions: [], seq: 1 };

function message(key: string, role: MessageRole, text: string, extra: Partial<ChatMessage> = {}): ChatMessage {
  return {
    key,
    role,
    text,
    streaming: false,
    stopped: false,
    unsaved: false,
    recall: null,
    recalledPaths: [],
    tools: [],
    wrote: [],
    proposal: null,
    extraction: null,
    memory: null,
    ...extra,
  };
}

function updateMessage(state: ChatState, key: string, f: (m: ChatMessage) => ChatMessage): ChatState {
  const i = state.messages.findIndex((m) => m.key === key);
  if (i < 0) return state;
  const messages = state.messages.slice();
  messages[i] = f(messages[i]);
  return { ...state, messages };
}

function updatePending(state: ChatState, session: string, f: (m: ChatMessage) => ChatMessage): ChatState {
  if (!state.pending || state.pending.session !== session) return state;
  return updateMessage(state, state.pending.replyKey, f);
}

/** The latest model reply of the open session (extraction results belong to it). */
function updateLatestReply(state: ChatState, f: (m: ChatMessage) => ChatMessage): ChatState {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i];
    if (m.role === "assistant" && !m.stopped) return updateMessage(state, m.key, f);
  }
  return state;
}

/**
 * The reply an extraction result belongs to: the assistant message at transcript position
 * `upto` (1-based count of saved user/assistant messages), else the latest reply.
 */
function updateReplyAt(state: ChatState, upto: number, f: (m: ChatMessage) => ChatMessage): ChatState {
  if (upto > 0) {
    let count = 0;
    for (const m of state.messages) {
      if (m.role === "command" || m.unsaved) continue;
      count += 1;
      if (count === upto) return m.role === "assistant" ? updateMessage(state, m.key, f) : updateLatestReply(state, f);
    }
  }
  return updateLatestReply(state, f);
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

function onEvent(state: ChatState, e: ChatEvent): ChatState {
  if (e.session !== state.session) return state;
  switch (e.kind) {
    case "recalled":
      return updatePending(state, e.session, (m) => ({ ...m, recall: e.recall }));
    case "delta":
      // A delta for a turn that already resolved is late: the final reply has replaced it.
      return updatePending(state, e.session, (m) => (m.streaming ? { ...m, text: m.text + e.text } : m));
    case "tool":
      return updatePending(state, e.session, (m) => ({ ...m, tools: [...m.tools, e.name] }));
    case "extracting":
      return updateLatestReply(state, (m) => ({
        ...m,
        extraction: { running: true, files: m.extraction?.files ?? [], last: m.extraction?.last ?? null },
      }));
    case "extracted": {
      // One extraction runs at a time: whichever reply shows it running, it is done now.
      const settled: ChatState = {
        ...state,
        messages: state.messages.map((m) =>
          m.extraction?.running ? { ...m, extraction: { ...m.extraction, running: false } } : m,
        ),
      };
      return updateReplyAt(settled, e.result.upto, (m) => ({
        ...m,
        extraction: {
          running: false,
          files: union(m.extraction?.files ?? [], e.result.files_written),
          last: e.result,
        },
      }));
    }
  }
}

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case "reset":
      return { ...state, session: action.session, messages: [], pending: null, compactions: [] };
    case "loaded":
      return {
        ...state,
        session: action.session,
        pending: null,
        // An older server sends no compactions.
        compactions: action.compactions ?? [],
        messages: action.lines.map((l, i) =>
          message(`${action.session}:${i}`, l.role === "user" ? "user" : "assistant", l.text, {
            recalledPaths: l.role === "user" ? [] : l.recalled,
            wrote: l.role === "user" ? [] : l.wrote,
            // Kept with the reply: a reloaded chat still says what was proposed.
            proposal: l.role === "user" ? null : (l.proposal ?? null),
          }),
        ),
      };
    case "sent": {
      const userKey = `m${state.seq}`;
      const replyKey = `m${state.seq + 1}`;
      const same = state.session === action.session;
      const kept = same ? state.messages : [];
      return {
        session: action.session,
        seq: state.seq + 2,
        pending: { session: action.session, userKey, replyKey },
        compactions: same ? state.compactions : [],
        messages: [...kept, message(userKey, "user", action.text), message(replyKey, "assistant", "", { streaming: true })],
      };
    }
    case "event":
      return onEvent(state, action.event);
    case "done": {
      const { result } = action;
      const next = updatePending(state, action.session, (m) => ({
        ...m,
        role: result.command ? "command" : "assistant",
        text: result.reply,
        memory: result.command ? (action.memory ?? null) : null,
        streaming: false,
        recall: result.recall ?? m.recall,
        wrote: union(m.wrote, result.wrote),
        proposal: result.proposal ?? m.proposal,
        extraction: result.extract
          ? { running: false, files: union(m.extraction?.files ?? [], result.extract.files_written), last: result.extract }
          : m.extraction,
      }));
      if (next === state) return state;
      // A command (`/memory`) and its answer are not part of the saved transcript.
      const settled = result.command && state.pending ? updateMessage(next, state.pending.userKey, (m) => ({ ...m, unsaved: true })) : next;
      return { ...settled, pending: null, compactions: addCompaction(settled.compactions, result.compacted ?? null) };
    }
    case "failed": {
      const p = state.pending;
      if (!p || p.session !== action.session) return state;
      const reply = state.messages.find((m) => m.key === p.replyKey);
      if (action.stopped && reply && reply.text !== "") {
        const stopped = updateMessage(state, p.replyKey, (m) => ({ ...m, streaming: false, stopped: true, unsaved: true }));
        const next = updateMessage(stopped, p.userKey, (m) => ({ ...m, unsaved: true }));
        return { ...next, pending: null };
      }
      // Nothing worth keeping: the message goes back to the input.
      return {
        ...state,
        pending: null,
        messages: state.messages.filter((m) => m.key !== p.userKey && m.key !== p.replyKey),
      };
    }
  }
}

/** `list` with `c` added (once), oldest first. */
function addCompaction(list: Compaction[], c: Compaction | null): Compaction[] {
  if (!c || list.some((x) => x.upto === c.upto && x.at === c.at)) return list;
  return [...list, c].sort((a, b) => a.upto - b.upto);
}

/** What the message list shows: the messages, with a marker where the conversation was compacted. */
export type ChatItem =
  | { kind: "message"; key: string; message: ChatMessage }
  | { kind: "compaction"; key: string; compaction: Compaction };

/**
 * The messages with each compaction's marker after the saved message it counts up to (`upto`
 * saved user/assistant messages; /memory answers and stopped turns are not part of the
 * transcript). A marker whose position is not (yet) shown goes last.
 */
export function chatItems(state: Pick<ChatState, "messages" | "compactions">): ChatItem[] {
  const marker = (c: Compaction): ChatItem => ({ kind: "compaction", key: `compaction:${c.upto}:${c.at}`, compaction: c });
  const pending = state.compactions.slice().sort((a, b) => a.upto - b.upto);
  const items: ChatItem[] = [];
  let next = 0;
  while (next < pending.length && pending[next].upto <= 0) items.push(marker(pending[next++]));
  let count = 0;
  for (const m of state.messages) {
    items.push({ kind: "message", key: m.key, message: m });
    if (m.role === "command" || m.unsaved) continue;
    count += 1;
    while (next < pending.length && pending[next].upto <= count) items.push(marker(pending[next++]));
  }
  while (next < pending.length) items.push(marker(pending[next++]));
  return items;
}

/** Who wrote a compaction's summary, as the marker says it. */
export function compactionAuthor(by: string): string {
  if (by === "model") return "written by the model";
  if (by === "extractive") return "written without a model (extractive)";
  return `written by ${by}`;
}

/** Every file a reply led to: written by the chat model itself or by extraction after it. */
export function wroteFiles(m: ChatMessage): string[] {
  return union(m.wrote, m.extraction?.files ?? []);
}

export function countMemories(n: number): string {
  return `${n} ${n === 1 ? "memory" : "memories"}`;
}

/** How recall chose, as the "why recalled" panel says it. */
export const RECALL_STRATEGY_TEXT: Record<Strategy, string> = {
  none: "none",
  heuristic: "heuristic (words)",
  model: "model",
  hybrid: "hybrid (meaning + words)",
  all: "all of them",
};

export function strategyText(strategy: Strategy): string {
  return RECALL_STRATEGY_TEXT[strategy] ?? strategy;
}

/** How recall chose, in a sentence a newcomer reads: what it looked at and how it picked. */
export function recallSentence(strategy: Strategy, scanned: number): string {
  const from = countMemories(scanned);
  switch (strategy) {
    case "none":
      return `Nothing here matched your message (${from} looked at).`;
    case "heuristic":
      return `Chosen by the words they share with your message, from ${from}.`;
    case "model":
      return `The model read the list of ${from} and picked these.`;
    case "hybrid":
      return `Chosen by closeness in meaning and shared words, from ${from}.`;
    case "all":
      return `Few enough to give the model all of them (${from}).`;
    default:
      return `${strategyText(strategy)}, from ${from}.`;
  }
}

/**
 * Why one memory was recalled, in words: "close in meaning 0.62 · shares words 0.80 · match 0.71".
 * A model's pick has no score of its own (its position in the model's answer is not a confidence).
 */
export function whyRecalled(
  strategy: Strategy,
  r: { score: number | null; vector?: number | null; lexical?: number | null },
): string {
  const parts: string[] = [];
  if (typeof r.vector === "number" && Number.isFinite(r.vector)) parts.push(`close in meaning ${formatScore(r.vector)}`);
  if (typeof r.lexical === "number" && Number.isFinite(r.lexical)) parts.push(`shares words ${formatScore(r.lexical)}`);
  if (strategy === "model") parts.unshift("picked by the model");
  else if (r.score !== null && Number.isFinite(r.score)) parts.push(`match ${formatScore(r.score)}`);
  return parts.join(" · ");
}

export function recallLabel(n: number, carried = 0): string {
  const base = n === 0 ? (carried > 0 ? "Nothing new recalled" : "No memories recalled") : `Recalled ${countMemories(n)}`;
  return carried > 0 ? `${base} · ${countMemories(carried)} still in view` : base;
}

/** Sessions most recent first. */
export function sortSessions(sessions: readonly SessionInfo[]): SessionInfo[] {
  return sessions.slice().sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));
}

/** Puts a message that could not be sent back into the input, without losing what is there. */
export function restoreInput(current: string, message: string): string {
  if (current.trim() === "") return message;
  if (current.includes(message)) return current;
  return `${message}\n${current}`;
}

export function isConfigured(s: ModelSettings): boolean {
  return s.configured ?? (s.base_url.trim() !== "" && s.model.trim() !== "");
}
