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
 * The status as last read by any reader: every reader shows the same (issue 36 — the sidebar's
 * inbox count and the inbox's own list of conflicts never disagree). Kept while someone shows it.
 */
let shared: RemoteSync | null = null;
const readers = new Set<(s: RemoteSync | null) => void>();

function publish(s: RemoteSync | null): void {
  shared = s;
  for (const r of [...readers]) r(s);
}

/**
 * The sync status, `null` until read or when the read fails (a badge then shows nothing).
 * `reloadKey` reads it again when it changes.
 */
export function useSyncStatus(reloadKey: unknown = 0): RemoteSync | null {
  const { run, cancel } = useCommand();
  const [status, setStatus] = useState<RemoteSync | null>(shared);
  const [seq, setSeq] = useState(0);

  useEffect(() => {
    readers.add(setStatus);
    const bump = () => setSeq((n) => n + 1);
    const off = onSyncChanged(bump);
    const timer = setInterval(bump, SYNC_POLL_MS);
    return () => {
      readers.delete(setStatus);
      if (readers.size === 0) shared = null;
      off();
      clearInterval(timer);
    };
  }, []);

  useEffect(() => {
    void run(commands.syncStatus(), "sync-status").then((answer) => {
      if (answer) publish(answer.ok ? answer.data : null);
    });
    return () => cancel("sync-status");
  }, [run, cancel, seq, reloadKey]);

  return status;
}
