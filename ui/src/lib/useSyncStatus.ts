// The home's sync status (no network: `sync_status`), read by whoever shows it — the sidebar's
// badges, the Status view — once, every minute, whenever this window synced, saved the sync
// settings or resolved a conflict (`syncChanged()`), as soon as the sync state changed (a
// `sync_changed` event: a sync here or in another process — an automatic one, `mnemo sync` — ran,
// left or closed a conflict, which may change no memory file at all), and soon after memories
// changed (`memory_changed`: what waits to be sent).

import { useEffect, useState } from "react";
import { commands } from "./bindings";
import type { RemoteSync } from "./bindings";
import { onMemoryChanged, onSyncStateChanged } from "./transport";
import { useCommand } from "./useCommand";

/** How often the status is read again (automatic syncs happen in the background). */
export const SYNC_POLL_MS = 60_000;

const listeners = new Set<() => void>();

/** Tells every reader to read the status again: a sync ran, the settings changed, a conflict closed. */
export function syncChanged(): void {
  for (const l of [...listeners]) l();
}

/**
 * How long after a burst of `memory_changed` events the status is read again (one read a burst:
 * a read asks git for the remotes' trees, and an import or a sync writes many files at once).
 */
export const SYNC_EVENT_DELAY_MS = 1500;

/** How long after a `sync_changed` the status is read again (one read for a sync's few writes). */
export const SYNC_STATE_DELAY_MS = 200;

/** Whether any remote is set (the home's or a team's): without one no sync can leave a conflict. */
function syncing(s: RemoteSync | null): boolean {
  return s === null || s.remote !== null || s.workspaces.some((w) => w.remote !== null || w.conflicts.length > 0);
}

/** The one `memory_changed` and `sync_changed` subscription while anyone shows the status (`null`: nobody does). */
let events: { off: () => void; timer: ReturnType<typeof setTimeout> | undefined } | null = null;

function watchEvents(): void {
  if (events) return;
  const e: { off: () => void; timer: ReturnType<typeof setTimeout> | undefined } = { off: () => {}, timer: undefined };
  const after = (ms: number) => {
    if (e.timer !== undefined) return;
    e.timer = setTimeout(() => {
      e.timer = undefined;
      syncChanged();
    }, ms);
  };
  const soon = () => {
    if (syncing(shared)) after(SYNC_EVENT_DELAY_MS);
  };
  const offMemory = onMemoryChanged(soon, soon);
  const offSync = onSyncStateChanged(
    () => after(SYNC_STATE_DELAY_MS),
    () => after(SYNC_STATE_DELAY_MS),
  );
  e.off = () => {
    offMemory();
    offSync();
  };
  events = e;
}

function unwatchEvents(): void {
  if (!events) return;
  events.off();
  if (events.timer !== undefined) clearTimeout(events.timer);
  events = null;
}

/** Calls `cb` on every `syncChanged()`; returns the unsubscribe function. */
export function onSyncChanged(cb: () => void): () => void {
  listeners.add(cb);
  return () => {
    listeners.delete(cb);
  };
}

/**
 * The status as last read by any reader: every reader shows the same (the sidebar's
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
    watchEvents();
    const bump = () => setSeq((n) => n + 1);
    const off = onSyncChanged(bump);
    const timer = setInterval(bump, SYNC_POLL_MS);
    return () => {
      readers.delete(setStatus);
      if (readers.size === 0) {
        shared = null;
        unwatchEvents();
      }
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
