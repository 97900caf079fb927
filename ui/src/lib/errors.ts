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
  budget_spent: "The import stopped at its token budget. What it learnt is kept; run it again with a bigger budget to go on.",
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

/** What an error is about when its code alone reads differently there. */
export type About = "proposal" | "replace" | "import" | "settings";

/**
 * A proposal that collides with the files as they are now: the server names each file and why
 * ("proposal 3 cannot be applied as it is: travel.md: the entry was edited since. Nothing was
 * written; reject it, or edit the files and accept again"); the lead says it plainly, the detail
 * keeps what collided, and the buttons beside it offer the next step.
 */
function explainProposal(error: UiError): Explained | null {
  const m = error.message;
  if (error.code === "conflict" && /^proposal \d+ is already\b/i.test(m)) {
    // Someone decided it meanwhile (another window, the command line).
    return { sentence: `${plainMessage(m.replace(/^proposal \d+/i, "This proposal"))} Nothing else to do here.`, next: "none" };
  }
  if (error.code === "conflict") {
    const detail = plainMessage(
      m
        .replace(/^proposal \d+ cannot be applied as it is:\s*/i, "")
        .replace(/[.\s]*Nothing was written[^]*$/i, "")
        // "travel.md: why; notes/b.md: why": each file named as a file.
        .replace(/(^|;\s*)([^:;“”]+?\.md):\s/g, "$1“$2”: "),
    );
    const lead = "The files changed since this was proposed, in a way that collides with it, so nothing was saved.";
    return { sentence: `${lead}${detail ? ` ${detail}` : ""} Reject it, or edit it and accept again.`, next: "none" };
  }
  if (error.code === "usage") return { sentence: "Tick at least one change to accept, or reject the proposal.", next: "none" };
  if (error.code === "invalid_content") {
    return { sentence: `${plainMessage(m)} Nothing was saved: take it out of the text, then accept again.`, next: "none" };
  }
  return null;
}

/**
 * Replacing a fact (`replace_entry`): the fact was replaced meanwhile or the file changed
 * (`conflict`), the new fact is empty (`usage`), it holds a secret (`invalid_content`), or the
 * entry is not there any more (`invalid_arguments`). Nothing was saved in each case.
 */
function explainReplace(error: UiError): Explained | null {
  switch (error.code) {
    case "conflict":
      return {
        sentence: "This fact was already replaced, or the memory changed since you opened it. Nothing was saved: reload the memory and try again.",
        next: "none",
      };
    case "usage":
      return { sentence: "Write the new fact: it can't be empty.", next: "none" };
    case "invalid_content":
      return { sentence: `${plainMessage(error.message)} Nothing was saved: take it out of the new fact, then save again.`, next: "none" };
    case "invalid_arguments":
      return { sentence: "Mnemo can't find this fact in the memory any more. Nothing was saved: reload the memory and try again.", next: "none" };
    default:
      return null;
  }
}

/**
 * Importing: conversations need a model (`model_not_configured`: nothing was queued),
 * the source or workspace changed since the preview (`conflict`), a Mnemo export of several
 * workspaces cannot all go into one (`usage`); a path that is not there (`not_found`). Other
 * codes (`invalid_content`: a damaged or unknown export, the message says what) read as said.
 */
function explainImport(error: UiError): Explained | null {
  const m = error.message;
  switch (error.code) {
    case "model_not_configured":
      return {
        sentence: "Learning from past conversations needs a model, and none is set up yet. Nothing was queued: set one up in Settings, then import again.",
        next: "settings",
      };
    case "conflict":
      return { sentence: "The export or the workspace changed since the preview. Nothing was written: preview again.", next: "none" };
    case "not_found":
      return { sentence: `${plainMessage(m)} Check the path: it must be the full path of the export file or folder.`, next: "none" };
    case "several_workspaces": {
      // The code decides; the message only lends the count and the names when it has them.
      const several = /holds (\d+) workspaces \(([^)]*)\)/i.exec(m);
      const which = several ? ` holds ${several[1]} workspaces (${several[2]})` : " holds several workspaces";
      return {
        sentence: `This export${which}: they can't all go into one. Import it into each workspace of the same id instead.`,
        next: "none",
      };
    }
    default:
      return null;
  }
}

/**
 * Inside Settings itself: never "…in Settings" — the fields are right there — and no
 * "Open settings" step.
 */
function explainInSettings(error: UiError): Explained {
  const here = (text: string) => text.replace(/\s+in Settings(?:\s*(?:→|>)\s*[A-Z]\w*)?(?=[\s.,;:)]|$)/g, " above");
  if (error.code === "model_not_configured") {
    // No model at all, or its key or name refused: the server's words say which.
    const detail = here(plainMessage(error.message));
    if (!detail || /^no model is configured\b/i.test(detail)) {
      return { sentence: "No model is set up yet: enter the server's base URL and a model above, then try again.", next: "none" };
    }
    return { sentence: detail, next: "none" };
  }
  const { sentence, next } = explain(error);
  return { sentence: here(sentence), next: next === "settings" ? "none" : next };
}

/** A memory's frontmatter fields as a sentence names them. */
const FIELD_WORDS: Record<string, string> = { name: "name", description: "description", type: "type" };

/**
 * A frontmatter field's problem as a sentence with what to do (the server's "`name` must not
 * be empty" once showed as “name” must not be empty.): "The name must not be empty:
 * write one, then save again." `null` for any other message.
 */
export function fieldSentence(message: string): string | null {
  const m = /^[`“"']?([a-z_]+)[`”"']? must (not be empty|be a single line)\.?$/i.exec(message.trim());
  if (!m) return null;
  const field = FIELD_WORDS[m[1].toLowerCase()] ?? m[1].replace(/_/g, " ");
  return m[2].toLowerCase() === "not be empty"
    ? `The ${field} must not be empty: write one, then save again.`
    : `The ${field} must be one line: take out its line breaks, then save again.`;
}

/** One error, explained for the person in front of the app (`about`: where it happened). */
export function explain(error: UiError, about?: About): Explained {
  if (about === "settings") return explainInSettings(error);
  const field = error.code === "invalid_frontmatter" ? fieldSentence(error.message) : null;
  if (field) return { sentence: field, next: "none" };
  const special =
    about === "proposal" ? explainProposal(error) : about === "replace" ? explainReplace(error) : about === "import" ? explainImport(error) : null;
  if (special) return special;
  const lead = LEAD[error.code];
  const repeats = REPEATS[error.code];
  const detail = plainMessage(repeats ? error.message.replace(repeats, "") : error.message);
  const sentence = lead ? (detail && !lead.includes(detail) ? `${lead} ${detail}` : lead) : detail || "Something went wrong.";
  return { sentence, next: NEXT[error.code] ?? "none" };
}
