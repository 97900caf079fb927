import { useCallback, useEffect, useRef, useState } from "react";
import { commands } from "../../lib/bindings";
import type { ProposalSummary, SyncConflict } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { explain } from "../../lib/errors";
import {
  CONFLICTS_HEADING,
  INBOX_PAGE,
  conflictsIntro,
  pendingSentence,
  reviewSentence,
  savedText,
  settledSentence,
  shownProposals,
  statusFor,
  waitingCount,
  waitingSentence,
} from "../../lib/inbox";
import type { InboxFilter } from "../../lib/inbox";
import { workspaceSync } from "../../lib/sync";
import { inboxChanged, notePending, usePendingCount, useReviewMode } from "../../lib/useInbox";
import { inboxDecided, inboxItems, rereadInbox, useInboxPages } from "../../lib/queries";
import { useCommand } from "../../lib/useCommand";
import { useSyncStatus } from "../../lib/useSyncStatus";
import { InlineError } from "../common/InlineError";
import { useToast } from "../common/Toasts";
import { SyncConflictList } from "../status/SyncConflictList";
import { ProposalCard } from "./ProposalCard";

interface Props {
  workspace: string;
  label: string;
  /** The pending count as last polled: more than listed offers to read the list again. */
  pendingNow?: number | null;
  /** A proposal to open at once (from a task's result). */
  focus?: number | null;
  /** Files changed here (accepted, or an accept undone, or a sync conflict settled): the memory list reloads. */
  onChanged: () => void;
  /** Open a memory (a sync conflict's file). */
  onOpenMemory?: (workspace: string, path: string) => void;
}

const FILTERS: { id: InboxFilter; label: string; title: string }[] = [
  { id: "pending", label: "Waiting", title: "Proposals waiting for your decision" },
  { id: "decided", label: "Decided", title: "Proposals accepted, rejected or expired, with what became of them" },
  { id: "all", label: "All", title: "Every proposal, newest first" },
];

/**
 * A workspace's inbox: first its open sync conflicts (the same the Status view's Sync section
 * lists), each with its versions and choices; then the proposals memory jobs and assistants made
 * instead of writing (review mode), newest first, a page at a time ("Show more"); each opens to
 * its changes and the decisions. Accepting says "Saved N files — Undo". The list is read again
 * when a job that may propose ended (the change bridge), on request, and when new proposals came
 * in while nothing is being reviewed here — not on every memory change: what was just decided
 * here stays in view. Mount with `key={workspace}`.
 */
export function InboxPanel({ workspace, label, pendingNow = null, focus = null, onChanged, onOpenMemory }: Props) {
  const { run } = useCommand();
  const toast = useToast();
  const [mode, setMode] = useReviewMode(workspace);
  const [filter, setFilter] = useState<InboxFilter>("pending");
  const status = statusFor(filter);
  const list = useInboxPages(workspace, status);
  const pages = list.data?.pages;
  const items = pages ? inboxItems(pages) : null;
  // What the newest answer says (a page read by "Show more" too).
  const last = pages?.[pages.length - 1];
  const total = last?.total ?? 0;
  const pending = last?.pending ?? 0;
  const error = list.isFetchNextPageError ? null : list.error;
  const more = { busy: list.isFetchingNextPage, error: list.isFetchNextPageError ? list.error : null };
  const reread = () => void rereadInbox(workspace, status);
  const [open, setOpen] = useState<ReadonlySet<number>>(() => new Set(focus === null ? [] : [focus]));
  const [switching, setSwitching] = useState(false);
  const [switchError, setSwitchError] = useState<UiError | null>(null);
  const conflicts = workspaceSync(useSyncStatus(), workspace)?.conflicts ?? [];
  // What waits, as everyone shows it (the sidebar, the Inbox button): the same count, from the
  // same read — this list's read is one of them.
  const sharedPending = usePendingCount(workspace);
  const waiting = { pending: sharedPending ?? pending, conflicts: conflicts.length };

  // Every answer's count is the count everyone shows (the sidebar, the Inbox button).
  useEffect(() => {
    if (last) notePending(workspace, last.pending);
  }, [workspace, last]);

  const showMore = () => {
    if (!items) return;
    void list.fetchNextPage({ cancelRefetch: false });
  };

  const choose = (f: InboxFilter) => {
    if (f === filter) return;
    // Another filter is another list, read from its first page.
    setFilter(f);
  };

  const toggle = (id: number) =>
    setOpen((o) => {
      const next = new Set(o);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  // New proposals came in (the count is read on events, focus and every 30 s: a CLI's proposal
  // too): read at once while the person is not in the middle of a review here (nothing
  // open, nothing decided in this view); else offered ("Show them"), so nothing moves under them.
  const [decidedHere, setDecidedHere] = useState(0);
  const autoRead = useRef<number | null>(null);
  const grew = items !== null && pendingNow !== null && pendingNow > pending;
  const untouched = open.size === 0 && decidedHere === 0 && !more.busy;
  useEffect(() => {
    // Once per new count.
    if (!grew || !untouched || autoRead.current === pendingNow) return;
    autoRead.current = pendingNow;
    void rereadInbox(workspace, status);
  }, [grew, untouched, pendingNow, workspace, status]);

  const decided = (next: ProposalSummary) => {
    setDecidedHere((n) => n + 1);
    inboxDecided(workspace, status, next, waiting.pending);
    inboxChanged();
  };

  const undo = useCallback(
    async (group: number) => {
      // Called from the toast, which outlives this view: no `run` (its answer must not be dropped).
      try {
        const r = await commands.undoGroup(group);
        if (r.status === "ok") toast({ message: "Undone: those files are back as they were before you accepted." });
        else toast({ kind: "error", message: explain(r.error).sentence });
      } catch (e) {
        toast({ kind: "error", message: explain({ code: "network", message: String(e) }).sentence });
      }
      onChanged();
      inboxChanged();
    },
    [toast, onChanged],
  );

  const accepted = (paths: string[], group: number) => {
    onChanged();
    toast({
      message: savedText(paths),
      timeout: 10_000,
      action: paths.length > 0 ? { label: "Undo", run: () => void undo(group) } : undefined,
    });
  };

  const rejected = (dontLearn: boolean) =>
    toast({ message: dontLearn ? "Rejected: nothing was saved, and these entries will not be proposed again." : "Rejected: nothing was saved." });

  const turnOn = async () => {
    setSwitching(true);
    setSwitchError(null);
    const answer = await run(commands.setReviewMode(workspace, true), "switch");
    if (!answer) return;
    setSwitching(false);
    if (answer.ok) {
      setMode(answer.data);
      inboxChanged();
    } else setSwitchError(answer.error);
  };

  const settled = (c: SyncConflict, keep: number | null) => {
    onChanged();
    toast({ message: settledSentence(c, keep) });
  };

  const shown = items ? shownProposals(items, filter) : [];
  const hasMore = items !== null && items.length < total;

  return (
    <div className="inbox-panel status-panel" data-testid="inbox-panel" data-workspace={workspace}>
      <header className="pane-header status-header">
        <h1>Inbox — {label}</h1>
        <div className="segmented" role="group" aria-label="Show">
          {FILTERS.map((f) => (
            <button
              key={f.id}
              type="button"
              aria-pressed={filter === f.id}
              title={f.title}
              data-testid={`inbox-filter-${f.id}`}
              onClick={() => choose(f.id)}
            >
              {f.label}
              {f.id === "pending" && items !== null ? ` (${waitingCount(waiting).toLocaleString("en-US")})` : ""}
            </button>
          ))}
        </div>
        <button type="button" data-testid="inbox-refresh" onClick={reread} title="Read the inbox again">
          Refresh
        </button>
      </header>
      <div className="status-body">
        {conflicts.length > 0 && (
          <section className="status-section inbox-conflicts" aria-labelledby="inbox-conflicts-title" data-testid="inbox-conflicts" data-count={conflicts.length}>
            <header className="status-section-header">
              <h2 id="inbox-conflicts-title">{CONFLICTS_HEADING}</h2>
              <span className="muted">{conflicts.length.toLocaleString("en-US")}</span>
            </header>
            <p className="muted">{conflictsIntro(conflicts.length)}</p>
            <SyncConflictList
              workspace={workspace}
              conflicts={conflicts}
              onOpenMemory={onOpenMemory}
              onResolved={settled}
              headingLevel={3}
            />
          </section>
        )}
        {conflicts.length > 0 && <h2 className="inbox-proposals-title">Proposals</h2>}
        {mode && (
          <p className="inbox-review muted" data-testid="inbox-review" data-on={mode.on ? "true" : "false"}>
            {reviewSentence(mode)}{" "}
            {!mode.on && (
              <button type="button" className="link-button" disabled={switching} onClick={() => void turnOn()} data-testid="inbox-review-on">
                Turn on review
              </button>
            )}
          </p>
        )}
        {switchError && <InlineError error={switchError} />}
        {error && <InlineError error={error} onRetry={reread} />}
        {items === null && !error && <div className="empty">Loading…</div>}
        {items !== null && (
          <>
            {pendingNow !== null && pendingNow > pending && (
              <p className="inbox-new" data-testid="inbox-new">
                {pendingNow - pending === 1 ? "1 new proposal came in." : `${(pendingNow - pending).toLocaleString("en-US")} new proposals came in.`}{" "}
                <button type="button" className="link-button" onClick={reread} data-testid="inbox-new-show">
                  Show them
                </button>
              </p>
            )}
            {/* One sentence says what waits; an empty inbox says so once, below. */}
            {(filter === "pending" ? waitingCount(waiting) > 0 || shown.length > 0 : total > 0) && (
              <p className="inbox-count" data-testid="inbox-count">
                {filter === "pending"
                  ? waitingSentence(waiting)
                  : `${total.toLocaleString("en-US")} proposal${total === 1 ? "" : "s"} in all; ${pendingSentence(waiting.pending).toLowerCase()}`}
              </p>
            )}
            {shown.length === 0 ? (
              <div className="empty" data-testid="inbox-empty">
                {filter === "decided"
                  ? "Nothing decided yet."
                  : filter === "pending"
                    ? conflicts.length > 0
                      ? "No proposal waits for your review."
                      : pendingSentence(0)
                    : "No proposals yet."}
              </div>
            ) : (
              <ul className="proposal-list" aria-label="Proposals">
                {shown.map((p) => (
                  <ProposalCard
                    key={p.id}
                    summary={p}
                    open={open.has(p.id)}
                    onToggle={() => toggle(p.id)}
                    onDecided={decided}
                    onAccepted={accepted}
                    onRejected={rejected}
                    headingLevel={conflicts.length > 0 ? 3 : 2}
                  />
                ))}
              </ul>
            )}
            {hasMore && (
              <div className="inbox-more">
                <span className="muted">
                  {items.length.toLocaleString("en-US")} of {total.toLocaleString("en-US")} read
                </span>
                <button type="button" disabled={more.busy} onClick={showMore} data-testid="inbox-more">
                  {more.busy ? "Reading…" : `Show ${Math.min(INBOX_PAGE, total - items.length).toLocaleString("en-US")} more`}
                </button>
              </div>
            )}
            {more.error && <InlineError error={more.error} onRetry={showMore} />}
          </>
        )}
      </div>
    </div>
  );
}
