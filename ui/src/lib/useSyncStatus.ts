// The home's sync status (no network: `sync_status`), read through the one cache by whoever shows
// it — the sidebar's badges, the Status view, the inbox —: once, every minute, whenever this
// window synced, saved the sync settings or resolved a conflict (`invalidateSyncStatus()`), as
// soon as the sync state changed and soon after memories changed (`lib/changeBridge.ts`).

import type { RemoteSync } from "./bindings";
import { useSyncStatusQuery } from "./queries";

export { SYNC_POLL_MS } from "./queries";
export { SYNC_EVENT_DELAY_MS, SYNC_STATE_DELAY_MS, invalidateSyncStatus } from "./changeBridge";

/**
 * The sync status, `null` until read or when the last read failed (a badge then shows nothing).
 * Every reader shows the same answer (the sidebar's inbox count and the inbox's own list of
 * conflicts never disagree).
 */
export function useSyncStatus(): RemoteSync | null {
  const q = useSyncStatusQuery();
  return q.isError ? null : (q.data ?? null);
}
