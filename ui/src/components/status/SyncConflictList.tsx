import { useState } from "react";
import { commands } from "../../lib/bindings";
import type { SyncConflict } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { useCommand } from "../../lib/useCommand";
import { useMemoryNames } from "../../lib/useMemoryNames";
import { invalidateSyncStatus } from "../../lib/changeBridge";
import { SyncConflictCard } from "./SyncConflictCard";
import type { VersionHeading } from "./SyncConflictCard";

interface Props {
  workspace: string;
  conflicts: readonly SyncConflict[];
  onOpenMemory?: (workspace: string, path: string) => void;
  /** A choice was saved (the conflict is closed; the file may have changed). */
  onResolved?: (conflict: SyncConflict, keep: number | null) => void;
  /** Each version's heading level: 4 under an h3 (the Status view), 3 under an h2 (the Inbox). */
  headingLevel?: VersionHeading;
}

/**
 * A workspace's open sync conflicts, each named by its memory's name (read with the memory
 * list; the path until then), with its versions side by side and a button per choice
 * (`sync_resolve`). One choice at a time; after one, every reader of the sync status reads it
 * again (`invalidateSyncStatus()`). The Status view's Sync section and the Inbox both list them.
 */
export function SyncConflictList({ workspace, conflicts, onOpenMemory, onResolved, headingLevel = 4 }: Props) {
  const { run } = useCommand();
  const names = useMemoryNames(workspace, conflicts.map((c) => c.path));
  const [resolving, setResolving] = useState<string | null>(null);
  const [resolveError, setResolveError] = useState<{ id: string; error: UiError } | null>(null);

  const resolve = async (c: SyncConflict, keep: number | null) => {
    setResolving(c.id);
    setResolveError(null);
    const answer = await run(commands.syncResolve(c.id, keep), "sync-resolve");
    if (!answer) return;
    setResolving(null);
    if (!answer.ok) setResolveError({ id: c.id, error: answer.error });
    else onResolved?.(c, keep);
    // Read again after a choice: the conflict is closed, the file may have changed.
    void invalidateSyncStatus();
  };

  return (
    <ul className="sync-conflicts">
      {conflicts.map((c) => (
        <SyncConflictCard
          key={c.id}
          conflict={c}
          name={names.get(c.path) ?? null}
          headingLevel={headingLevel}
          busy={resolving !== null}
          error={resolveError?.id === c.id ? resolveError.error : null}
          onResolve={(keep) => void resolve(c, keep)}
          onOpen={onOpenMemory ? () => onOpenMemory(workspace, c.path) : undefined}
        />
      ))}
    </ul>
  );
}
