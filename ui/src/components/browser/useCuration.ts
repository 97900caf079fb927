import { useCallback, useState } from "react";
import { commands } from "../../lib/bindings";
import type { EntryOut, MemoryDetail, WriteOutcome } from "../../lib/bindings";
import { toUiError } from "../../lib/transport";
import type { UiError } from "../../lib/transport";
import { archiveUndoneToast, archivedToast, restoredToast } from "../../lib/archive";
import { explain } from "../../lib/errors";
import { REPLACED_TOAST, REPLACE_UNDONE_TOAST, entryText } from "../../lib/supersede";
import { useToast } from "../common/Toasts";
import { useArchiveToggle } from "./ArchiveToggle";
import type { Archived } from "./ArchiveToggle";

interface Options {
  /** The memory as last read. */
  base: MemoryDetail | null;
  /** Take a version the server wrote for us (no unsaved edits to keep). */
  adopt: (fresh: MemoryDetail) => void;
  /** Read the memory again (`null`: it could not be read, or the pane is gone). */
  reread: () => Promise<MemoryDetail | null>;
  /** Compare with the file on disk (after an Undo). */
  checkDisk: () => void;
  /** A write landed (the list reads again). */
  onSaved: (outcome: WriteOutcome) => void;
  onError: (error: UiError) => void;
}

/**
 * A person's curation of the open memory: Archive / Restore, and Replace… of a fact,
 * each followed by a toast whose Undo takes the write back (`undo`).
 */
export function useCuration({ base, adopt, reread, checkDisk, onSaved, onError }: Options) {
  const toast = useToast();
  const [replacing, setReplacing] = useState<{ entry: EntryOut; text: string } | null>(null);

  /** A toast with Undo for a write made here; the toast outlives the pane, so no `run`. */
  const undoable = useCallback(
    (message: string, outcome: WriteOutcome, undone: string) => {
      const id = outcome.change_id;
      const undo = async (changeId: number) => {
        try {
          const r = await commands.undo(changeId);
          toast(r.status === "ok" ? { message: undone } : { kind: "error", message: explain(r.error).sentence });
        } catch (e) {
          toast({ kind: "error", message: explain(toUiError(e)).sentence });
        }
        checkDisk();
      };
      toast({ message, timeout: 10_000, action: id === null ? undefined : { label: "Undo", run: () => void undo(id) } });
    },
    [toast, checkDisk],
  );

  const onArchived = useCallback(
    (result: Archived) => {
      if ("error" in result) {
        onError(result.error);
        return;
      }
      const { fresh, outcome } = result;
      adopt(fresh);
      onSaved(outcome);
      undoable(fresh.archived ? archivedToast() : restoredToast(), outcome, archiveUndoneToast(!fresh.archived));
    },
    [adopt, onSaved, onError, undoable],
  );
  const archive = useArchiveToggle(base, onArchived);

  const startReplace = useCallback(
    (entry: EntryOut) => {
      if (!base) return;
      const index = base.entries.findIndex((e) => e.id === entry.id);
      setReplacing({ entry, text: entryText(base.body, base.entries, index) });
    },
    [base],
  );

  const onReplaced = useCallback(
    async (outcome: WriteOutcome) => {
      setReplacing(null);
      onSaved(outcome);
      undoable(REPLACED_TOAST, outcome, REPLACE_UNDONE_TOAST);
      const fresh = await reread();
      if (fresh) adopt(fresh);
      else checkDisk();
    },
    [onSaved, undoable, reread, adopt, checkDisk],
  );

  return { archive, replacing, startReplace, closeReplace: () => setReplacing(null), onReplaced };
}
