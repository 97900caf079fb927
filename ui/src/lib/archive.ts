// Archiving in a person's words: an archived memory (`archived: true` in its
// frontmatter) is left out of recall and MEMORY.md but stays listed and searchable; restoring
// brings it back. The sentences of the detail pane, the list, the toasts and memory health. Pure.

/** The detail pane's sentence for an archived memory (its Restore button follows). */
export const ARCHIVED_NOTE = "Archived: it is not recalled and not in MEMORY.md; it stays searchable.";

/** The list row's marker and its tooltip. */
export const ARCHIVED_MARK = "Archived";
export const ARCHIVED_MARK_TITLE = "Archived: not recalled and not in MEMORY.md; still listed and searchable. Open it to restore it.";

/** The header button's label and tooltip. */
export function archiveLabel(archived: boolean, busy: boolean): string {
  if (busy) return archived ? "Restoring…" : "Archiving…";
  return archived ? "Restore" : "Archive";
}

export function archiveTitle(archived: boolean, dirty: boolean): string {
  if (dirty) return "Save or discard your edits first";
  return archived
    ? "Bring it back: recalled again and listed in MEMORY.md"
    : "Keep it, but out of recall and MEMORY.md (it stays searchable; restore it any time)";
}

/** "“Old notes”" / "2 memories": what a toast is about. */
function what(names: readonly string[]): string {
  if (names.length === 1) return `“${names[0]}”`;
  return `${names.length.toLocaleString("en-US")} memories`;
}

/** The toast after archiving (one memory, or several from memory health). */
export function archivedToast(names: readonly string[] = []): string {
  if (names.length === 0) return "Archived: it is no longer recalled or in MEMORY.md; it stays searchable.";
  const many = names.length > 1;
  return `Archived ${what(names)}: ${many ? "they are" : "it is"} no longer recalled or in MEMORY.md; ${many ? "they stay" : "it stays"} searchable.`;
}

/** The toast after restoring. */
export function restoredToast(names: readonly string[] = []): string {
  if (names.length === 0) return "Restored: it is recalled again and listed in MEMORY.md.";
  const many = names.length > 1;
  return `Restored ${what(names)}: ${many ? "they are" : "it is"} recalled again and listed in MEMORY.md.`;
}

/** The toast after an Undo of either. */
export function archiveUndoneToast(archived: boolean): string {
  return archived ? "Undone: it is archived again." : "Undone: it is back in recall and MEMORY.md.";
}

/** The confirmation of "Archive all N". */
export function archiveAllTitle(n: number): string {
  return n === 1 ? "Archive 1 memory?" : `Archive ${n.toLocaleString("en-US")} memories?`;
}

export function archiveAllText(n: number): string {
  const one = n === 1;
  return `${one ? "It" : "They"} will no longer be recalled or listed in MEMORY.md, and ${one ? "stays" : "stay"} in the list and in search. Restore ${one ? "it" : "any of them"} later from here or from the memory; Undo, in the message that follows, takes ${one ? "it" : "all of them"} back at once.`;
}

/** What was archived when "Archive all" stopped part way. */
export function partlyArchived(done: number, of: number): string {
  return `Archived ${done.toLocaleString("en-US")} of ${of.toLocaleString("en-US")}; the next one could not be archived:`;
}
