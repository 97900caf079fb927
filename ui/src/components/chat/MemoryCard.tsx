import type { MemorySnapshot } from "../../lib/chat";
import { countMemories } from "../../lib/chat";
import { formatFullTime, formatWhen, TYPE_LABELS } from "../../lib/format";
import type { MemoryType } from "../../lib/bindings";
import { lastRunStatus, runStatusLabel, statusTone } from "../../lib/stats";
import { recordsText, savingFromChats } from "../../lib/extraction";

/** "2 user", "1 not valid". */
function typeCount(key: string, count: number): string {
  const label = key === "invalid" ? "not valid" : (TYPE_LABELS[key as MemoryType] ?? key).toLowerCase();
  return `${count} ${label}`;
}

/** A time in the person's time zone, in words ("today at 14:05"), the full date on hover. */
function When({ iso, now }: { iso: string; now: Date }) {
  return (
    <time dateTime={iso} title={formatFullTime(iso)}>
      {formatWhen(iso, now)}
    </time>
  );
}

/** The last extraction or dream: when, how it ended, and whether it was undone since. */
function LastRun({
  testId,
  at,
  status,
  undoneBy = null,
  now,
}: {
  testId: string;
  at: string | null;
  status: string | null;
  undoneBy?: number | null;
  now: Date;
}) {
  if (!at && !status) return <dd data-testid={testId}>never</dd>;
  return (
    <dd data-testid={testId} data-status={status ?? ""}>
      {at && <When iso={at} now={now} />}
      {status && (
        <span className={`run-status tone-${statusTone(status)}`}>
          {at ? " · " : ""}
          {runStatusLabel(status)}
        </span>
      )}
      {undoneBy !== null && (
        <>
          {" "}
          <span className="undone-tag" data-testid={`${testId}-undone`}>
            · undone since
          </span>
        </>
      )}
    </dd>
  );
}

/**
 * `/memory` as a card in the chat: what memory this chat uses and what happened to it lately —
 * memories by type, whether extraction runs on its own and which way it writes, whether what the
 * person says is kept as conversation records, whether dream runs on its own, the last extraction
 * and dream (in local time), and the model.
 */
export function MemoryCard({ snapshot: s, workspaceLabel }: { snapshot: MemorySnapshot; workspaceLabel?: string }) {
  const now = new Date(s.at);
  const st = s.stats;
  const saving = savingFromChats(st, s.ignored, s.model);
  return (
    <section className="memory-card" data-testid="memory-card" aria-labelledby={`memory-card-${s.at}`}>
      <h3 className="memory-card-title" id={`memory-card-${s.at}`}>
        Memory in this chat{workspaceLabel ? ` — ${workspaceLabel}` : ""}
      </h3>
      {s.ignored && (
        <p className="memory-card-note" data-testid="memory-card-ignored">
          Memory is ignored for this chat: nothing is recalled into its replies or saved from them.
        </p>
      )}
      <dl className="memory-card-list">
        <dt>Memories</dt>
        <dd data-testid="memory-card-memories">
          {countMemories(s.total)}
          {s.byType.length > 0 && <span className="muted">: {s.byType.map((t) => typeCount(t.key, t.count)).join(", ")}</span>}
        </dd>

        <dt>Saving from chats</dt>
        <dd data-testid="memory-card-auto-extract" data-state={saving.state} title={saving.why ?? undefined}>
          {saving.text}
          {saving.why && (
            <div className="muted memory-card-why" data-testid="memory-card-extraction-why">
              {saving.why}
            </div>
          )}
        </dd>

        <dt>Conversation records</dt>
        <dd data-testid="memory-card-records">{recordsText(st, s.ignored)}</dd>

        <dt>Last extraction</dt>
        <LastRun
          testId="memory-card-last-extract"
          at={st.last_extract_at}
          status={lastRunStatus("extract", st.last_extract_status, st.last_extract_at, s.proposals)}
          now={now}
        />

        <dt>Dreaming on its own</dt>
        <dd data-testid="memory-card-auto-dream">
          {st.auto_dream ? "On, at most once a day, after 5 sessions" : "Off (type /dream to run one now)"}
        </dd>

        <dt>Last dream</dt>
        <LastRun
          testId="memory-card-last-dream"
          at={st.last_dream_at}
          status={lastRunStatus("dream", st.last_dream_status, st.last_dream_at, s.proposals)}
          undoneBy={st.last_dream_undone_by}
          now={now}
        />

        <dt>Model</dt>
        <dd data-testid="memory-card-model">
          {s.model === "" ? (
            <span className="muted">none set</span>
          ) : (
            <>
              {s.model}
              {s.fastModel !== "" && <span className="muted"> (recall uses {s.fastModel})</span>}
            </>
          )}
        </dd>
      </dl>
    </section>
  );
}
