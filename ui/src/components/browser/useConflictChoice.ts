import { useCallback, useState } from "react";
import { commands } from "../../lib/bindings";
import type { SyncConflict } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { useCommand } from "../../lib/useCommand";
import { invalidateSyncStatus } from "../../lib/changeBridge";

/** The open memory's sync conflicts and the choice between their versions, shared by the banner and the Facts view. */
export interface ConflictChoice {
  /** The conflicts still open here (one settled here leaves at once, before the status is read again). */
  open: SyncConflict[];
  /** The conflict whose choice is being saved (`null`: none). */
  busy: string | null;
  /** Unsaved edits: choosing waits, since it rewrites the file. */
  dirty: boolean;
  /** The last failed choice of a conflict. */
  errorOf: (id: string) => UiError | null;
  /** Keep version `keep` (0-based) of a conflict, or every version (`null`). */
  choose: (c: SyncConflict, keep: number | null) => void;
}

/**
 * Choosing a version of the open memory's sync conflicts (`sync_resolve`, as the conflict cards
 * in Status and the Inbox do). After a choice every reader of the sync status reads it again
 * (`invalidateSyncStatus()`), and `onSettled` reloads the memory.
 */
export function useConflictChoice(
  conflicts: readonly SyncConflict[],
  dirty: boolean,
  onSettled: (c: SyncConflict, keep: number | null) => void,
): ConflictChoice {
  const { run } = useCommand();
  const [busy, setBusy] = useState<string | null>(null);
  const [failed, setFailed] = useState<{ id: string; error: UiError } | null>(null);
  const [settled, setSettled] = useState<ReadonlySet<string>>(() => new Set());

  // A settled conflict the status no longer lists is forgotten here: should the same conflict
  // open again (another machine brings it back), it shows again. Adjusted while rendering.
  const ids = conflicts.map((c) => c.id).join("\n");
  const [seenIds, setSeenIds] = useState(ids);
  if (ids !== seenIds) {
    setSeenIds(ids);
    const listed = new Set(conflicts.map((c) => c.id));
    if ([...settled].some((id) => !listed.has(id))) setSettled(new Set([...settled].filter((id) => listed.has(id))));
  }

  const choose = useCallback(
    async (c: SyncConflict, keep: number | null) => {
      setBusy(c.id);
      setFailed(null);
      const answer = await run(commands.syncResolve(c.id, keep), "conflict-choice");
      if (!answer) return;
      setBusy(null);
      if (!answer.ok) {
        setFailed({ id: c.id, error: answer.error });
        return;
      }
      setSettled((s) => new Set([...s, c.id]));
      onSettled(c, keep);
      // The conflict is closed and the file may have changed: the badges, Status and the Inbox read again.
      void invalidateSyncStatus();
    },
    [run, onSettled],
  );

  return {
    open: conflicts.filter((c) => !settled.has(c.id)),
    busy,
    dirty,
    errorOf: (id) => (failed?.id === id ? failed.error : null),
    choose: (c, keep) => void choose(c, keep),
  };
}
