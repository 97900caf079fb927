// How memories are written from chats, in words: the setting (`auto`, `tools`,
// `planner`), the way the model in effect gets now and why, what the `/memory` card and the
// status panel say about saving from chats, and conversation records. Pure.

import type { Choice, MemoryStats, Road } from "./bindings";

/** The two ways of writing, as a sentence names them. */
export const ROAD_NAMES: Record<Road, string> = {
  tools: "the tool agent",
  planner: "the planner",
};

/** The `extraction` setting. */
export type ExtractionSetting = "auto" | "tools" | "planner";

/** The choices of the "How memories are written" select, in order. */
export const EXTRACTION_OPTIONS: readonly { value: ExtractionSetting; label: string }[] = [
  { value: "auto", label: "Automatic (recommended)" },
  { value: "tools", label: "Tool agent" },
  { value: "planner", label: "Planner (one JSON answer; best for small local models)" },
];

/** The setting as stored (`auto` when absent: the default). */
export function extractionSetting(value: string | null | undefined): ExtractionSetting {
  const v = value?.trim();
  return v === "tools" || v === "planner" ? v : "auto";
}

/** One line on the way the model in effect gets now: "Now: the planner — learned on 2026-11-27: …". */
export function choiceHint(choice: Choice): string {
  return `Now: ${ROAD_NAMES[choice.road]} — ${choice.why}`;
}

/** What saving from chats does here, in words, and why it writes the way it does. */
export interface Saving {
  state: "ignored" | "off" | "no-model" | "on";
  text: string;
  /** Why extraction writes the way it does (`null`: nothing to say). */
  why: string | null;
}

/**
 * Whether memories are saved after chat turns and which way writes them. `model` is the chat
 * model's name ("" when none is set); with no model and no choice the card must not claim saving
 * is on: nothing is extracted, though conversation records are still kept when they are on.
 */
export function savingFromChats(
  stats: Pick<MemoryStats, "auto_extract" | "chat_records" | "extraction">,
  ignored: boolean,
  model: string,
): Saving {
  if (ignored) return { state: "ignored", text: "Off for this chat", why: null };
  if (!stats.auto_extract) return { state: "off", text: "Off for this workspace (recall still runs)", why: null };
  const choice = stats.extraction;
  if (!choice && model.trim() === "") {
    const text = stats.chat_records ? "Needs a model — what you say is still kept as conversation records" : "Needs a model (see Settings)";
    return { state: "no-model", text, why: null };
  }
  if (!choice) return { state: "on", text: "On, after each turn", why: null };
  return { state: "on", text: `On, after each turn · by ${ROAD_NAMES[choice.road]}`, why: choice.why };
}

/** Conversation records in this chat's workspace: "Kept (3)", "Off for this workspace". */
export function recordsText(stats: Pick<MemoryStats, "chat_records" | "chats">, ignored: boolean): string {
  if (ignored) return "Off for this chat";
  return stats.chat_records ? `Kept (${stats.chats})` : "Off for this workspace";
}

/** "1 conversation record", "3 conversation records". */
export function countRecords(n: number): string {
  return `${n} conversation record${n === 1 ? "" : "s"}`;
}
