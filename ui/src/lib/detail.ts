// The detail pane's pure parts: a memory as the form's draft, whether a draft changed, where a
// new memory goes by default, which field an error is about, and a write's "shared" note.

import type { Field, MemoryDetail, Sharing, WorkspaceInfo } from "./bindings";
import type { Draft } from "./browser";
import { printable } from "./printable";
import type { UiError } from "./transport";

/** A new memory's form before anything is typed. */
export const EMPTY_DRAFT: Draft = { name: "", description: "", type: "user", body: "" };

/** A memory as the form edits it. */
export function draftOf(d: MemoryDetail): Draft {
  return { name: d.name, description: d.description, type: d.type ?? "", body: d.body };
}

/** Whether two drafts hold the same (a daily log compares its body only). */
export function sameDraft(a: Draft, b: Draft, bodyOnly: boolean): boolean {
  if (a.body !== b.body) return false;
  return bodyOnly || (a.name === b.name && a.description === b.description && a.type === b.type);
}

/** Where a new memory goes: the chosen workspace, else personal, else a Mnemo one, else the first. */
export function defaultWorkspace(target: string | null, workspaces: readonly WorkspaceInfo[]): string {
  if (target) return target;
  return (
    workspaces.find((w) => w.id === "personal")?.id ??
    workspaces.find((w) => w.kind === "mnemo")?.id ??
    workspaces[0]?.id ??
    "personal"
  );
}

/** A write to a workspace shared through git (Qwen Code's team memory) says so plainly. */
export function sharedNote(shared: string): string {
  return `Shared through git: ${shared}.`;
}

/** Before a write: where a change to this workspace goes, in a sentence. */
export function sharingText(sharing: Sharing): string {
  return sharing.via === "qwen_team"
    ? `Shared through git: this is Qwen Code's team memory of ${printable(sharing.repo)}, so a change reaches every collaborator once it is committed and pushed.`
    : `Shared with your team through ${printable(sharing.remote)}: a change reaches every member at the next sync.`;
}

/** A form field an error can sit under: the fields Mnemo's errors name. */
export type FormField = Field;

/** A new memory's file is already there: a conflict about its path. */
function isClash(error: UiError): boolean {
  return error.code === "conflict" && error.field === "path";
}

/**
 * A new memory refused because its file is already there, in a person's words: the file is named
 * after the memory, so it is the name that clashes — unless a file name was typed (`typedPath`).
 * `null` for any other error.
 */
export function nameClash(error: UiError, typedPath: string): UiError | null {
  if (!isClash(error)) return null;
  const file = /[`“]([^`”]+)[`”]/.exec(error.message)?.[1];
  const which = file ? ` (${file})` : "";
  return typedPath.trim()
    ? { code: "conflict", field: "path", message: `This workspace already has a file of that name${which}: choose another file name, or leave it empty.` }
    : { code: "conflict", field: "path", message: `This workspace already has a memory of that name${which}: choose another name, or open that memory and edit it.` };
}

/**
 * Which form field an error is about (`null`: the whole file). A new memory's clash sits under
 * its name, or under its file name when one was typed.
 */
export function fieldOf(error: UiError, created?: { path: string }): FormField | null {
  // A clash is about a new memory's file; editing one, a conflict is about the whole file.
  if (isClash(error)) return created ? (created.path.trim() ? "path" : "name") : null;
  if (error.code === "invalid_type") return "type";
  return error.field ?? null;
}
