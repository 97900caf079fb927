// The home's sync status (no network: `sync_status`), read by whoever shows it — the sidebar's
// badges, the Status view — once, every minute, and whenever this window synced, saved the sync
// settings or resolved a conflict (`syncChanged()`).

import { useEffect, useState } from "react";
import { commands } from "./bindings";
import type { RemoteSync } from "./bindings";
import { useCommand } from "./useCommand";

/** How often the status is read again (automatic syncs happen in the background). */
export const SYNC_POLL_MS = 60_000;

const listeners = new Set<() => void>();

/** Tells every reader to read the status again: a sync ran, the settings changed, a conflict closed. */
export function syncChanged(): void {
  for (const l of [...listeners]) l();
}

/** Calls `cb` on every `syncChanged()`; returns the unsubscribe function. */
export function onSyncChanged(cb: () => void): () => void {
  listeners.add(cb);
  return () => {
    listeners.delete(cb);
  };
}

/**
 * The sync status, `null` until read or when the read fails (a badge then shows nothing).
 * `reloadKey` reads it again when it changes.
 */
export function useSyncStatus(reloadKey: unknown = 0): RemoteSync | null {
  const { run, cancel } = useCommand();
  const [status, setStatus] = useState<RemoteSync | null>(null);
  const [seq, setSeq] = useState(0);

  useEffect(() => {
    const bump = () => setSeq((n) => n + 1);
    const off = onSyncChanged(bump);
    const timer = setInterval(bump, SYNC_POLL_MS);
    return () => {
      off();
      clearInterval(timer);
    };
  }, []);

  useEffect(() => {
    void run(commands.syncStatus(), "sync-status").then((answer) => {
      if (answer) setStatus(answer.ok ? answer.data : null);
    });
    return () => cancel("sync-status");
  }, [run, cancel, seq, reloadKey]);

  return status;
}
