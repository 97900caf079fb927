import type { UiError } from "./transport";

/** What a person can do next about an error. */
export type NextStep = "retry" | "settings" | "none";

export interface Explained {
  /** One or two plain sentences: what happened and what to do. */
  sentence: string;
  next: NextStep;
}

/** What each code means to a person when the server's own words are too technical. */
const LEAD: Partial<Record<string, string>> = {
  model_not_configured: "Chat needs a model, and none is set up yet.",
  model_unreachable: "Mnemo can't reach the model server.",
  network: "Mnemo's background service isn't answering. Is Mnemo still running?",
  locked: "Another Mnemo job is working on this memory folder right now.",
  corrupt: "A file Mnemo keeps is damaged.",
  remote_unreachable: "The sync remote can't be reached right now. Your changes wait here and go out with the next sync.",
  remote_refused:
    "The sync remote refused Mnemo, or it isn't a memory repository Mnemo can use: check the address in Settings.",
};

const NEXT: Partial<Record<string, NextStep>> = {
  model_not_configured: "settings",
  model_unreachable: "retry",
  network: "retry",
  io: "retry",
  locked: "retry",
  remote_unreachable: "retry",
  remote_refused: "settings",
};

/** What the server's message repeats of a code's lead, left out when the lead says it already. */
const REPEATS: Partial<Record<string, RegExp>> = {
  // "…: local changes wait; sync again later" / "…when the network is back".
  remote_unreachable: /[\s:;,—-]*local changes wait\b[^.]*/gi,
};

/**
 * The server's message in a person's words: no backticks, no OS error numbers, no command-line
 * hints, a capital letter and a full stop. Codes stay on the wire (`data-code`) for scripts.
 */
export function plainMessage(message: string): string {
  let m = message
    // "see `mnemo history x`", "(see `mnemo …`)", "run `mnemo …`": advice for a terminal.
    .replace(/\s*[(—-]?\s*(?:see|run|use|try|with)\s+`mnemo[^`]*`\)?/gi, "")
    .replace(/\s*\(os error \d+\)/g, "")
    .replace(/`([^`]*)`/g, "“$1”")
    .replace(/^chat needs a model:\s*/i, "")
    .replace(/^can't reach the model:\s*/i, "")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\s:;,—-]+$/, "");
  if (!m) return m;
  // A sentence starts with a capital, but a file name or an address keeps its own spelling.
  if (/^[a-z]+(?:[\s,;]|:\s|$)/.test(m)) m = m[0].toUpperCase() + m.slice(1);
  return /[.!?]$/.test(m) ? m : `${m}.`;
}

/** One error, explained for the person in front of the app. */
export function explain(error: UiError): Explained {
  const lead = LEAD[error.code];
  const repeats = REPEATS[error.code];
  const detail = plainMessage(repeats ? error.message.replace(repeats, "") : error.message);
  const sentence = lead ? (detail && !lead.includes(detail) ? `${lead} ${detail}` : lead) : detail || "Something went wrong.";
  return { sentence, next: NEXT[error.code] ?? "none" };
}
