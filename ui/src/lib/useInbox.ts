// The inbox's pending count, a workspace's review mode, a proposal's status and a workspace's
// recent proposals, as whoever shows them reads them — the sidebar and the workspace bar's Inbox
// button, the first-use offer, the Status switch, the inbox itself. They are queries
// (`lib/queries.ts`): read on mount, every 30 s (the count, recent proposals, a waiting
// proposal's status), and again through the change bridge soon after memories of the workspace
// changed, a job that may propose ended, the window came back into focus (a `mnemo remember` or
// `mnemo dream` in a terminal proposes without an event here), or this window decided something
// or switched review mode (`inboxChanged()`).

import { useCallback } from "react";
import type { ProposalStatus, ProposalSummary, ReviewMode } from "./bindings";
import { reviewModeChosen, useLastPendingCount, usePendingCountQuery, useProposalStatusQuery, useRecentProposalsQuery, useReviewModeQuery } from "./queries";

export { INBOX_EVENT_DELAY_MS, inboxChanged } from "./changeBridge";
export { INBOX_POLL_MS, RECENT_PROPOSALS, notePending } from "./queries";

/**
 * The pending count for `workspace` as last read by anyone — the count's poll, the inbox's own
 * list — so the sidebar, the Inbox button and the inbox itself always say the same number
 * (`null`: not read). Reads nothing itself.
 */
export function usePendingCount(workspace: string | null): number | null {
  return useLastPendingCount(workspace);
}

/**
 * How many proposals of `workspace` wait for a decision; `null` for no workspace, until read, or
 * when the read fails (the badge then shows nothing).
 */
export function useInboxCount(workspace: string | null): { workspace: string; pending: number } | null {
  const read = usePendingCountQuery(workspace);
  if (workspace === null || read.error || !read.data) return null;
  return { workspace, pending: read.data.pending };
}

/**
 * A workspace's review mode, `null` until read or when the read fails, and a setter for what
 * this window just chose (shown at once, before the server's answer).
 */
export function useReviewMode(workspace: string): [ReviewMode | null, (mode: ReviewMode) => void] {
  const read = useReviewModeQuery(workspace);
  const set = useCallback((next: ReviewMode) => reviewModeChosen(workspace, next), [workspace]);
  return [read.error ? null : (read.data ?? null), set];
}

/**
 * The status of proposal `id` (`null`: no proposal, not read yet, or the read failed), read again
 * whenever this window decides something in the inbox and every `INBOX_POLL_MS` while it waits.
 */
export function useProposalStatus(id: number | null): ProposalStatus | null {
  const read = useProposalStatusQuery(id);
  if (id === null || !read.data) return null;
  // Decided is final: a later failed read changes nothing.
  return read.error && read.data.status === "pending" ? null : read.data.status;
}

/**
 * A workspace's newest proposals, any status (`null`: not read, or the read failed): what the last
 * runs' proposals became.
 */
export function useRecentProposals(workspace: string): ProposalSummary[] | null {
  const read = useRecentProposalsQuery(workspace);
  return read.error ? null : (read.data?.items ?? null);
}
