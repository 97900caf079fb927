// The detail pane's pure parts: a memory as the form's draft, whether a draft changed, where a
// new memory goes by default, which field an error is about, and a write's "shared" note.

import type { MemoryDetail, WorkspaceInfo } from "./bindings";
import type { Draft } from "./browser";
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

/** Which form field an error is about (`null`: the whole file). */
export function fieldOf(error: UiError): "name" | "type" | "description" | null {
  if (error.code === "invalid_type") return "type";
  if (error.code !== "invalid_frontmatter" && error.code !== "invalid_content" && error.code !== "invalid_path") return null;
  if (/\bname\b/i.test(error.message)) return "name";
  if (/\bdescription\b/i.test(error.message)) return "description";
  if (/\btype\b/i.test(error.message)) return "type";
  return null;
}
