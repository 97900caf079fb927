import { useMemo, useState } from "react";
import { commands } from "../../lib/bindings";
import type { MemoryStats, TaskInfo } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { activeDream } from "../../lib/dream";
import { formatAge, formatTime } from "../../lib/format";
import { lastRunStatus, parseTelemetry, runStatusLabel, statusTone, strategyMix, withProposals } from "../../lib/stats";
import { useRecentProposals } from "../../lib/useInbox";
import { countRecords, savingFromChats } from "../../lib/extraction";
import { isActive } from "../../lib/tasks";
import type { TaskList } from "../../lib/useTaskList";
import { useCommand } from "../../lib/useCommand";
import { LatencyBars, MixBar, RunTimeline } from "./Charts";
import { InlineError } from "../common/InlineError";
import { MemoryHealth } from "./MemoryHealth";
import { SemanticStatus } from "./SemanticStatus";
import { StatusTasks } from "./StatusTasks";
import { SyncStatus } from "./SyncStatus";
import { invalidateSyncStatus } from "../../lib/changeBridge";
import { keys, queryClient, useRefetchOn, useStats } from "../../lib/queries";
import { ReviewSwitch } from "./ReviewSwitch";
import { UsageSection } from "./UsageSection";

interface Props {
  workspace: string;
  label: string;
  workspaceLabel: (id: string) => string;
  /** The shared task list. */
  tasks: TaskList;
  onOpenMemory: (workspace: string, path: string) => void;
  onOpenDream: (id: string) => void;
  onDreamStarted: (task: TaskInfo) => void;
  /** Open the workspace's inbox of proposals. */
  onOpenInbox?: () => void;
  /** Open a workspace's inbox at a proposal a task made (a task row's "Review it in the Inbox"). */
  onOpenProposal?: (workspace: string, id: number) => void;
}

type Switch = "extract" | "dream" | "records";

/**
 * A workspace's status: the automatic-memory switches (extraction and which way it
 * writes, conversation records, dream) and review mode, the last extraction and dream, memory
 * health, usage per memory (most recalled, most expensive, never recalled), sync across machines, semantic search (the embedding model, for the whole home), recent telemetry as small charts, and its tasks. Mount with `key={workspace}`.
 */
export function StatusPanel(props: Props) {
  const { workspace, label, workspaceLabel, tasks, onOpenMemory, onOpenDream, onDreamStarted, onOpenInbox, onOpenProposal } = props;
  const { run } = useCommand();
  const statsRead = useStats(workspace);
  const stats = statsRead.data ?? null;
  const error = statsRead.error;
  const [saving, setSaving] = useState<Switch | null>(null);
  const [switchError, setSwitchError] = useState<UiError | null>(null);

  const taskList = tasks.state.tasks;
  // A task of this workspace that ended changes the figures (last runs, telemetry, files).
  const ended = taskList
    .filter((t) => t.workspace === workspace && !isActive(t))
    .slice(0, 10)
    .map((t) => `${t.id}:${t.status}`)
    .join(",");

  // The figures follow the memory files through the data layer; a task that ended, Refresh and a
  // change made from the health section read them again too.
  const reread = () => {
    void queryClient.invalidateQueries({ queryKey: keys.stats(workspace), exact: true });
    void queryClient.invalidateQueries({ queryKey: keys.memoryUsage(workspace, null), exact: true });
  };
  useRefetchOn(ended, reread);

  // What the runs' proposals became (review mode): a run's claim follows its proposal's status.
  const proposals = useRecentProposals(workspace);
  const telemetry = useMemo(() => parseTelemetry(stats?.telemetry ?? []), [stats]);
  const extracts = useMemo(() => withProposals(telemetry.extracts, proposals, "extract"), [telemetry, proposals]);
  const dreams = useMemo(() => withProposals(telemetry.dreams, proposals, "dream"), [telemetry, proposals]);
  const mix = useMemo(() => strategyMix(telemetry.recalls), [telemetry]);

  const flip = async (which: Switch, enabled: boolean) => {
    setSaving(which);
    setSwitchError(null);
    const call =
      which === "extract"
        ? commands.setAutoExtract(workspace, enabled)
        : which === "records"
          ? commands.setChatRecords(workspace, enabled)
          : commands.setAutoDream(workspace, enabled);
    const answer = await run(call, "switch");
    if (!answer) return;
    setSaving(null);
    if (!answer.ok) {
      setSwitchError(answer.error);
      return;
    }
    const value = answer.data;
    const field = which === "extract" ? "auto_extract" : which === "records" ? "chat_records" : "auto_dream";
    // The switch's answer shows at once, and stays over the figures read again after it: it is
    // what this view just asked for.
    const switched = () => queryClient.setQueryData(keys.stats(workspace), (s) => (s ? { ...s, [field]: value } : s));
    switched();
    await statsRead.refetch({ cancelRefetch: false });
    switched();
  };

  const refresh = () => {
    reread();
    void queryClient.invalidateQueries({ queryKey: keys.status(), exact: true });
    void queryClient.invalidateQueries({ queryKey: ["tasks", workspace] });
    void invalidateSyncStatus();
    void queryClient.invalidateQueries({ queryKey: keys.recentProposals(workspace), exact: true });
  };

  return (
    <div className="status-panel" data-testid="status-panel" data-workspace={workspace}>
      <header className="pane-header status-header">
        <h1>Status — {label}</h1>
        <button type="button" data-testid="status-refresh" onClick={refresh} title="Read the figures again">
          Refresh
        </button>
      </header>
      <div className="status-body">
        {error && <InlineError error={error} />}
        {!stats && !error && <div className="empty">Loading…</div>}
        {stats && (
          <>
            <section className="status-section" aria-labelledby="auto-title" data-testid="status-auto">
              <header className="status-section-header">
                <h2 id="auto-title">Automatic memory</h2>
                <span className="muted">
                  {stats.topics} memor{stats.topics === 1 ? "y" : "ies"} · {stats.logs} daily log{stats.logs === 1 ? "" : "s"}
                  {stats.chats > 0 && ` · ${countRecords(stats.chats)}`}
                </span>
              </header>
              <div className="status-switches">
                <label className="status-switch">
                  <input
                    type="checkbox"
                    data-testid="auto-extract-toggle"
                    checked={stats.auto_extract}
                    disabled={saving !== null}
                    onChange={(e) => void flip("extract", e.target.checked)}
                  />
                  <span>
                    <strong>Extract memories after chat turns</strong>
                    <span className="muted"> — the memory agent saves what is worth keeping from each turn</span>
                  </span>
                </label>
                <LastRun
                  testId="last-extract"
                  what="Last extraction"
                  at={stats.last_extract_at}
                  status={lastRunStatus("extract", stats.last_extract_status, stats.last_extract_at, proposals)}
                />
                {stats.auto_extract && <ExtractionWay stats={stats} />}
                <label className="status-switch">
                  <input
                    type="checkbox"
                    data-testid="chat-records-toggle"
                    checked={stats.chat_records}
                    disabled={saving !== null}
                    onChange={(e) => void flip("records", e.target.checked)}
                  />
                  <span>
                    <strong>Keep what I say in chats as conversation records</strong>
                    <span className="muted"> — one plain file per chat and day, kept even without a model; recall finds them</span>
                  </span>
                </label>
                <div className="last-run" data-testid="chat-records-count">
                  <span className="muted">{stats.chats === 0 ? "none kept yet" : `${stats.chats} kept`}</span>
                </div>
                <label className="status-switch">
                  <input
                    type="checkbox"
                    data-testid="status-auto-dream-toggle"
                    checked={stats.auto_dream}
                    disabled={saving !== null}
                    onChange={(e) => void flip("dream", e.target.checked)}
                  />
                  <span>
                    <strong>Dream on its own</strong>
                    <span className="muted"> — consolidate after chat turns, at most once a day, after 5 sessions</span>
                  </span>
                </label>
                <LastRun
                  testId="last-dream"
                  what="Last dream"
                  at={stats.last_dream_at}
                  status={lastRunStatus("dream", stats.last_dream_status, stats.last_dream_at, proposals)}
                  undoneBy={stats.last_dream_undone_by}
                />
                <ReviewSwitch workspace={workspace} onOpenInbox={onOpenInbox} />
              </div>
              {switchError && <InlineError error={switchError} />}
            </section>

            <MemoryHealth
              stats={stats}
              activeDream={activeDream(taskList, workspace)}
              onOpenMemory={onOpenMemory}
              onDreamStarted={onDreamStarted}
              onOpenDream={onOpenDream}
              onChanged={reread}
            />

            <UsageSection workspace={workspace} onOpenMemory={onOpenMemory} />

            <SyncStatus workspace={workspace} onOpenMemory={onOpenMemory} />

            <SemanticStatus tasks={taskList} onStarted={tasks.update} />

            <section className="status-section" aria-labelledby="telemetry-title" data-testid="status-telemetry">
              <header className="status-section-header">
                <h2 id="telemetry-title">Recent activity</h2>
                <span className="muted">{stats.telemetry.length} events</span>
              </header>
              <div className="charts">
                <MixBar
                  testId="chart-recall-mix"
                  title="Recall: how memories were chosen"
                  caption={(n) => `How memories were chosen, as a share of ${n === 1 ? "the last recall" : `the last ${n} recalls`}.`}
                  empty="No recalls yet."
                  segments={mix}
                />
                <LatencyBars
                  testId="chart-recall-latency"
                  title="Recall latency"
                  caption={(n) => `Recall time for ${lastOf(n, "chat turn")}, oldest on the left.`}
                  empty="No recalls yet."
                  points={telemetry.recalls}
                />
                <RunTimeline
                  testId="chart-extract"
                  title="Extraction runs"
                  caption={(n) => `Entries written by ${lastOf(n, "extraction run")}, along time; the colour says how each ended.`}
                  empty="No extraction runs yet."
                  runs={extracts}
                  entriesWord="written"
                />
                <RunTimeline
                  testId="chart-dream"
                  title="Dreams"
                  caption={(n) => `Entries merged by ${lastOf(n, "dream")}, along time; the colour says how each ended.`}
                  empty="No dreams yet."
                  runs={dreams}
                  entriesWord="merged"
                />
              </div>
            </section>
          </>
        )}
        <StatusTasks
          workspace={workspace}
          live={taskList}
          onUpdated={tasks.update}
          onOpenMemory={onOpenMemory}
          onOpenDream={onOpenDream}
          onOpenInbox={onOpenProposal}
          workspaceLabel={workspaceLabel}
        />
      </div>
    </div>
  );
}

/** Which way extraction writes (or that it needs a model), and why, under its switch. */
function ExtractionWay({ stats }: { stats: MemoryStats }) {
  // The panel does not read the model: `extraction` is null exactly when none is set.
  const saving = savingFromChats(stats, false, "");
  return (
    <div className="status-switch-note" data-testid="extract-road" data-state={saving.state}>
      {saving.text}
      {saving.why && <span className="muted"> — {saving.why}</span>}
    </div>
  );
}

/** "the last chat turn", "each of the last 3 chat turns". */
function lastOf(n: number, word: string): string {
  return n === 1 ? `the last ${word}` : `each of the last ${n} ${word}s`;
}

function LastRun({
  testId,
  what,
  at,
  status,
  undoneBy = null,
}: {
  testId: string;
  what: string;
  at: string | null;
  status: string | null;
  undoneBy?: number | null;
}) {
  return (
    <div className="last-run" data-testid={testId} data-status={status ?? ""}>
      <span className="muted">{what}:</span>{" "}
      {at || status ? (
        <>
          {at && <span title={formatTime(at)}>{/:/.test(formatAge(at)) ? `today at ${formatAge(at)}` : `${formatAge(at)} (${formatTime(at)})`}</span>}
          {status && <span className={`run-status tone-${statusTone(status)}`}> · {runStatusLabel(status)}</span>}
          {undoneBy !== null && (
            <>
              {" "}
              <span className="undone-tag" data-testid={`${testId}-undone`}>
                · undone since
              </span>
            </>
          )}
        </>
      ) : (
        <span className="muted">never</span>
      )}
    </div>
  );
}
