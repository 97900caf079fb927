import { useEffect, useId, useMemo, useRef, useState } from "react";
import type { KeyboardEvent } from "react";
import { commands } from "../../lib/bindings";
import type { Proposal, ProposalSummary } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { plainMessage } from "../../lib/errors";
import { formatFullTime } from "../../lib/format";
import {
  DONT_LEARN_TEXT,
  STATUS_TEXT,
  acceptChoice,
  acceptSelectedLabel,
  counts,
  editFile,
  initialSelection,
  originSentence,
  setAll,
  sizeText,
  startEditing,
  stopEditing,
  toggleEntry,
  whenText,
} from "../../lib/inbox";
import type { Selection } from "../../lib/inbox";
import { entryReasons, proposalWhy, sourceSentence } from "../../lib/proposalWhy";
import { printable } from "../../lib/printable";
import { useCommand } from "../../lib/useCommand";
import { useProposal } from "../../lib/queries";
import { InlineError } from "../common/InlineError";
import { ProposalFiles } from "./ProposalFiles";
import { ProposalWhyNotes, useChatTitle, useDreamReport } from "./ProposalWhy";
import type { WhyHeading } from "./ProposalWhy";

interface Props {
  summary: ProposalSummary;
  open: boolean;
  onToggle: () => void;
  /** Accepted or rejected here: its new summary. */
  onDecided: (summary: ProposalSummary) => void;
  /** Accepted here: the files written and the change group that undoes them. */
  onAccepted: (paths: string[], group: number) => void;
  /** Rejected here (`dontLearn`: its entries will not be proposed again). */
  onRejected: (dontLearn: boolean) => void;
  /** The level of the "Why" heading inside: one below the heading over the list (default 2, under the Inbox's h1). */
  headingLevel?: WhyHeading;
}

type Busy = "accept" | "reject" | null;

/**
 * One proposal: where it came from, when, its size and status; opened, its files change by
 * change with a box ticked for each, and the decisions — Accept all, Accept selected (N of M),
 * Edit then accept, Reject, Reject and don't learn this. Escape closes it (or stops editing).
 */
export function ProposalCard({ summary: s, open, onToggle, onDecided, onAccepted, onRejected, headingLevel = 2 }: Props) {
  const { run } = useCommand();
  const bodyId = useId();
  const headRef = useRef<HTMLButtonElement>(null);
  const editRef = useRef<HTMLTextAreaElement>(null);
  // Read once opened (and again after a failed read's Retry); the choices start from it once.
  const read = useProposal(s.id, open);
  const proposal: Proposal | null = read.data ?? null;
  const [selection, setSelection] = useState<Selection | null>(null);
  if (proposal && selection === null) setSelection(initialSelection(proposal));
  const [busy, setBusy] = useState<Busy>(null);
  const [error, setError] = useState<UiError | null>(null);
  const pending = s.status === "pending";
  const loaded = proposal !== null;
  const loadError = loaded ? null : read.error;
  // A dream's proposal: its task's report says where what it removes went, and why.
  const report = useDreamReport(s, open);
  const why = useMemo(() => (loaded && report ? proposalWhy(proposal, report) : null), [loaded, proposal, report]);
  // An extraction's or a remember request's: the reasons its entries give, and what it came from.
  const reasons = useMemo(() => (loaded ? entryReasons(proposal) : []), [loaded, proposal]);
  const chatTitle = useChatTitle(s, open);
  const source = sourceSentence(s, chatTitle);

  const editing = selection?.edits != null;
  useEffect(() => {
    if (editing) editRef.current?.focus();
  }, [editing]);

  const accept = async (how: "all" | "selected" | "edited") => {
    if (!proposal || !selection) return;
    const choice = acceptChoice(proposal, selection, how);
    if (!choice) return;
    setBusy("accept");
    setError(null);
    const answer = await run(commands.inboxAccept(s.id, how === "all" ? null : choice), "act");
    if (!answer) return;
    setBusy(null);
    if (!answer.ok) {
      setError(answer.error);
      return;
    }
    setSelection(stopEditing(selection));
    onDecided(answer.data.proposal);
    onAccepted(answer.data.paths, answer.data.group);
  };

  const reject = async (dontLearn: boolean) => {
    setBusy("reject");
    setError(null);
    const answer = await run(commands.inboxReject(s.id, dontLearn), "act");
    if (!answer) return;
    setBusy(null);
    if (!answer.ok) {
      setError(answer.error);
      return;
    }
    if (selection) setSelection(stopEditing(selection));
    onDecided(answer.data);
    onRejected(dontLearn);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== "Escape" || !open) return;
    e.preventDefault();
    e.stopPropagation();
    if (editing && selection) setSelection(stopEditing(selection));
    else onToggle();
    headRef.current?.focus();
  };

  const tally = proposal && selection ? counts(proposal, selection) : null;
  const conflict = error?.code === "conflict" && pending;
  const choosing = pending && busy === null;

  return (
    <li
      className={`proposal proposal-${s.status} ${open ? "open" : ""}`}
      data-testid="proposal"
      data-id={s.id}
      data-status={s.status}
      onKeyDown={onKeyDown}
    >
      <button
        type="button"
        ref={headRef}
        className="proposal-head"
        aria-expanded={open}
        aria-controls={open ? bodyId : undefined}
        data-testid="proposal-open"
        onClick={onToggle}
      >
        <span className="chevron" aria-hidden="true">
          {open ? "▾" : "▸"}
        </span>
        <span className="proposal-title">
          <span className="proposal-origin" data-testid="proposal-origin">
            {printable(originSentence(s))}
          </span>
          <span className="proposal-meta muted">
            <span title={formatFullTime(s.at)}>{whenText(s)}</span> · {sizeText(s)}
          </span>
        </span>
        <span className={`proposal-status status-${s.status}`} data-testid="proposal-status">
          {STATUS_TEXT[s.status]}
        </span>
      </button>
      {s.note && (
        <p className="proposal-note" data-testid="proposal-note">
          {plainMessage(s.note)}
        </p>
      )}
      {open && (
        <div className="proposal-body" id={bodyId} data-testid="proposal-body">
          {loadError && <InlineError error={loadError} onRetry={() => void read.refetch()} />}
          {!loaded && !loadError && <div className="muted">Loading…</div>}
          {loaded && selection && (
            <>
              {pending && tally && tally.total > 1 && !editing && (
                <div className="proposal-tick-all">
                  <button type="button" className="link-button" disabled={!choosing} onClick={() => setSelection(setAll(selection, proposal, tally.chosen < tally.total))}>
                    {tally.chosen < tally.total ? "Tick all" : "Untick all"}
                  </button>
                </div>
              )}
              {source && (
                <p className="proposal-source" data-testid="proposal-source">
                  {printable(source)}
                </p>
              )}
              {why && <ProposalWhyNotes notes={why.notes} headingLevel={headingLevel} />}
              {!why && reasons.length > 0 && <ProposalWhyNotes notes={reasons} headingLevel={headingLevel} />}
              <ProposalFiles
                proposal={proposal}
                why={why}
                selection={selection}
                choosing={choosing}
                firstEditRef={editRef}
                onToggle={(id, on) => setSelection((sel) => (sel ? toggleEntry(sel, id, on) : sel))}
                onEdit={(path, text) => setSelection((sel) => (sel ? editFile(sel, path, text) : sel))}
              />
              {error && (
                <InlineError error={error} about="proposal">
                  {conflict && (
                    <>
                      <button type="button" className="link-button" disabled={busy !== null} onClick={() => void reject(false)} data-testid="conflict-reject">
                        Reject
                      </button>
                      {!editing && (
                        <button type="button" className="link-button" onClick={() => setSelection(startEditing(selection, proposal))} data-testid="conflict-edit">
                          Edit then accept
                        </button>
                      )}
                    </>
                  )}
                </InlineError>
              )}
              {pending && tally && (
                <>
                  <div className="proposal-actions" role="group" aria-label="Decide">
                    {editing ? (
                      <>
                        <button
                          type="button"
                          className="primary"
                          disabled={busy !== null || acceptChoice(proposal, selection, "edited") === null}
                          onClick={() => void accept("edited")}
                          data-testid="proposal-accept-edited"
                        >
                          {busy === "accept" ? "Saving…" : "Accept with my edits"}
                        </button>
                        <button type="button" disabled={busy !== null} onClick={() => setSelection(stopEditing(selection))} data-testid="proposal-edit-cancel">
                          Stop editing
                        </button>
                      </>
                    ) : (
                      <>
                        <button type="button" className="primary" disabled={busy !== null} onClick={() => void accept("all")} data-testid="proposal-accept-all">
                          {busy === "accept" ? "Saving…" : "Accept all"}
                        </button>
                        {tally.total > 1 && (
                          <button
                            type="button"
                            disabled={busy !== null || tally.chosen === 0}
                            onClick={() => void accept("selected")}
                            data-testid="proposal-accept-selected"
                          >
                            {acceptSelectedLabel(tally.chosen, tally.total)}
                          </button>
                        )}
                        <button
                          type="button"
                          disabled={busy !== null || proposal.files.every((f) => f.after === null)}
                          onClick={() => setSelection(startEditing(selection, proposal))}
                          data-testid="proposal-edit"
                        >
                          Edit then accept…
                        </button>
                      </>
                    )}
                    <span className="proposal-actions-gap" />
                    <button type="button" className="danger-outline" disabled={busy !== null} onClick={() => void reject(false)} data-testid="proposal-reject">
                      {busy === "reject" ? "Rejecting…" : "Reject"}
                    </button>
                    <button type="button" className="danger-outline" disabled={busy !== null} onClick={() => void reject(true)} data-testid="proposal-reject-forget">
                      Reject and don't learn this
                    </button>
                  </div>
                  <p className="muted proposal-hint">{DONT_LEARN_TEXT}</p>
                </>
              )}
            </>
          )}
        </div>
      )}
    </li>
  );
}
