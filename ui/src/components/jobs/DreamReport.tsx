import { useState } from "react";
import type { GroupUndo, TaskInfo } from "../../lib/bindings";
import { OUTCOME_TITLES, dreamOutcome, outcomeDetail, reportFacts } from "../../lib/dream";
import { proposalFate } from "../../lib/inbox";
import { useProposalStatus } from "../../lib/useInbox";
import { countFiles } from "../../lib/history";
import { formatDuration } from "../../lib/tasks";
import { GroupDetail } from "../browser/GroupDetail";

interface Props {
  /** A finished dream task. */
  task: TaskInfo;
  onOpenMemory: (workspace: string, path: string) => void;
  /** The dream was undone. */
  onUndone: () => void;
}

/**
 * What a finished dream did: its summary line, what changed and why (the agent's
 * summary, every safety repair), what was merged where and deleted, each file's diff, and one
 * "Undo dream" for all of it.
 */
export function DreamReport({ task, onOpenMemory, onUndone }: Props) {
  const [undone, setUndone] = useState<GroupUndo | null>(null);
  const outcome = dreamOutcome(task);
  const result = task.result;
  const report = result?.dream ?? null;
  // A proposed dream, once decided in the inbox, says what became of it (not "wait in the Inbox").
  const proposalStatus = useProposalStatus(outcome === "proposed" ? (result?.proposal ?? null) : null);
  const detail = proposalStatus !== null && proposalStatus !== "pending" ? proposalFate(proposalStatus).sentence : outcomeDetail(task);
  const group = result?.group ?? null;
  const duration = report ? formatDuration(report.duration_ms) : "";

  return (
    <section className={`dream-report dream-${outcome}`} data-testid="dream-report" data-status={outcome}>
      <div className="dream-headline">
        <strong data-testid="dream-outcome">{OUTCOME_TITLES[outcome]}</strong>
        {report && <span className="muted"> · {reportFacts(report, duration).join(" · ")}</span>}
      </div>
      {result?.summary && !(outcome === "noop" && /nothing to consolidate/i.test(result.summary)) && (
        <p className="dream-summary" data-testid="dream-summary">
          {result.summary}
        </p>
      )}
      {detail && <p className={outcome === "failed" ? "dream-detail task-error" : "dream-detail muted"}>{detail}</p>}

      {report && report.notes.length > 0 && (
        <>
          <h3>What changed and why</h3>
          <ul className="dream-notes" data-testid="dream-notes">
            {report.notes.map((n, i) => (
              <li key={i}>{n}</li>
            ))}
          </ul>
        </>
      )}
      {report && report.merges.length > 0 && (
        <>
          <h3>Merged</h3>
          <ul className="dream-merges" data-testid="dream-merges">
            {report.merges.map((m, i) => (
              <li key={i}>
                “{m.summary}” kept in <code>{m.into}</code>
                {m.from.length > 0 && (
                  <>
                    {" "}
                    <span className="muted">from</span> {m.from.map((f, j) => (
                      <span key={j}>
                        {j > 0 && ", "}
                        <code>{f}</code>
                      </span>
                    ))}
                  </>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      {report && report.files_deleted.length > 0 && (
        <>
          <h3>Deleted</h3>
          <ul className="dream-deleted" data-testid="dream-deleted">
            {report.files_deleted.map((f) => (
              <li key={f}>
                <code>{f}</code>
              </li>
            ))}
          </ul>
        </>
      )}

      {group !== null ? (
        <>
          <h3>Changes</h3>
          {undone ? (
            <div className="dream-undone" role="status" data-testid="dream-undone">
              Dream undone: {countFiles(undone.paths.length)} restored as {undone.paths.length === 1 ? "it was" : "they were"}{" "}
              before it.
            </div>
          ) : (
            result?.undone_by != null && (
              <div className="dream-undone" role="status" data-testid="dream-undone">
                This dream was undone: its files are as they were before it.
              </div>
            )
          )}
          <GroupDetail
            id={group}
            onOpen={onOpenMemory}
            undoLabel="Undo dream"
            undoTestId="undo-dream-button"
            canUndo={!undone}
            onUndone={(u) => {
              setUndone(u);
              onUndone();
            }}
          />
        </>
      ) : (
        (outcome === "updated" || outcome === "failed") &&
        (result?.files.length ?? 0) > 0 && (
          <>
            <h3>Files</h3>
            <ul className="dream-files">
              {result?.files.map((f) => (
                <li key={f}>
                  <code>{f}</code>
                </li>
              ))}
            </ul>
          </>
        )
      )}
    </section>
  );
}
