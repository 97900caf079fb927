import { useCallback, useState } from "react";
import { commands } from "../../lib/bindings";
import type { MemoryDetail, WriteOutcome } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { ARCHIVED_NOTE, archiveLabel, archiveTitle } from "../../lib/archive";
import { useCommand } from "../../lib/useCommand";
import { readMemory } from "../../lib/queries";

/** What archiving or restoring did: the memory re-read, and the write (for its Undo). */
export type Archived = { fresh: MemoryDetail; outcome: WriteOutcome } | { error: UiError };

/**
 * Archive / Restore: `set_archived` adds or removes `archived: true` in the
 * frontmatter — out of recall and MEMORY.md, still listed and searchable — then the memory is
 * read again. One busy state for the header's toggle and the archived note's Restore.
 */
export function useArchiveToggle(detail: MemoryDetail | null, onDone: (result: Archived) => void) {
  const { run } = useCommand();
  const [busy, setBusy] = useState(false);

  const toggle = useCallback(async () => {
    if (!detail || busy) return;
    const archived = !detail.archived;
    setBusy(true);
    const answer = await run(commands.setArchived(detail.workspace, detail.path, archived), "archive");
    if (!answer) return;
    if (!answer.ok) {
      setBusy(false);
      onDone({ error: answer.error });
      return;
    }
    const fresh = await run(readMemory(detail.workspace, detail.path), "archive");
    if (!fresh) return;
    setBusy(false);
    // The write succeeded; if the re-read failed, the change event will catch up.
    onDone({ fresh: fresh.ok ? fresh.data : { ...detail, archived }, outcome: answer.data });
  }, [run, detail, busy, onDone]);

  return { busy, toggle };
}

interface ToggleProps {
  archived: boolean;
  busy: boolean;
  /** Unsaved edits: archiving rewrites the file, so they must be saved or dropped first. */
  dirty: boolean;
  onToggle: () => void;
}

/** The detail pane header's Archive / Restore button, beside Pin. */
export function ArchiveToggle({ archived, busy, dirty, onToggle }: ToggleProps) {
  return (
    <button
      type="button"
      data-testid="archive-button"
      aria-pressed={archived}
      onClick={onToggle}
      disabled={busy || dirty}
      title={archiveTitle(archived, dirty)}
    >
      {archiveLabel(archived, busy)}
    </button>
  );
}

/** The sentence an archived memory opens with, and its Restore. */
export function ArchivedNote({ busy, dirty, onRestore }: { busy: boolean; dirty: boolean; onRestore: () => void }) {
  return (
    <div className="archived-note" role="note" data-testid="detail-archived">
      <ArchiveIcon />
      <span>{ARCHIVED_NOTE}</span>
      <button type="button" className="link-button" data-testid="detail-restore" disabled={busy || dirty} title={archiveTitle(true, dirty)} onClick={onRestore}>
        {busy ? "Restoring…" : "Restore"}
      </button>
    </div>
  );
}

/** An archive box, drawn (a font may lack a symbol for it); decorative: the text says it. */
export function ArchiveIcon({ size = 12 }: { size?: number }) {
  return (
    <svg className="archive-icon" width={size} height={size} viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path d="M1.5 2.5h13v3h-13z M2.5 5.5h11v8h-11z M6 8h4" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinejoin="round" strokeLinecap="round" />
    </svg>
  );
}
