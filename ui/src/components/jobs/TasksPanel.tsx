import { useCallback, useEffect, useRef, useState } from "react";
import { commands } from "../../lib/bindings";
import type { TaskInfo, ToolStep } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { formatTime } from "../../lib/format";
import { embedText } from "../../lib/semantic";
import {
  DREAMING_TEXT,
  TASK_KIND_LABELS,
  activity,
  formatDuration,
  isActive,
  statusText,
  taskDuration,
} from "../../lib/tasks";
import type { TasksState } from "../../lib/tasks";
import type { TaskList } from "../../lib/useTaskList";
import { useCommand } from "../../lib/useCommand";
import { InlineError } from "../common/InlineError";
import { proposalFate } from "../../lib/inbox";
import { useProposalStatus } from "../../lib/useInbox";

interface BarProps {
  /** The shared task list (`useTaskList`). */
  tasks: TaskList;
  /** Open a memory (a file a task touched); the panel closes first. */
  onOpenMemory: (workspace: string, path: string) => void;
  /** Show a dream's progress or report; the panel closes first. */
  onOpenDream?: (id: string) => void;
  /** Open a workspace's inbox at a proposal a task made (review mode); the panel closes first. */
  onOpenInbox?: (workspace: string, id: number) => void;
  workspaceLabel?: (id: string) => string;
}

/**
 * The memory-work indicator (sidebar footer: "✦ dreaming" while any dream is queued or running,
 * words for the other work) and the button opening the recent tasks, re-read when it opens.
 */
export function TaskStatusBar({ tasks, onOpenMemory, onOpenDream, onOpenInbox, workspaceLabel }: BarProps) {
  const { state, update, reload } = tasks;
  const [open, setOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const barRef = useRef<HTMLDivElement>(null);

  const close = useCallback(() => {
    setOpen(false);
    buttonRef.current?.focus();
  }, []);

  // A click elsewhere closes the panel (it is not modal: the app stays usable beside it).
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (e.target instanceof Node && !barRef.current?.contains(e.target)) setOpen(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, [open]);

  const { text, running, queued, dreaming } = activity(state.tasks);
  const active = running + queued;

  return (
    <div className={`task-bar ${active > 0 ? "busy" : ""}`} ref={barRef}>
      <span className="task-activity" role="status" data-testid="task-indicator">
        {dreaming && (
          <span className="dream-indicator" data-testid="dream-indicator">
            <span className="task-spark" aria-hidden="true">
              ✦
            </span>{" "}
            {DREAMING_TEXT}
          </span>
        )}
        {text !== null && (
          <>
            {dreaming ? (
              " · "
            ) : (
              <>
                <span className="task-spark" aria-hidden="true">
                  ✦
                </span>{" "}
              </>
            )}
            {text}
          </>
        )}
      </span>
      <button
        type="button"
        ref={buttonRef}
        className="task-button"
        aria-label="Memory tasks"
        aria-haspopup="dialog"
        aria-expanded={open}
        data-testid="tasks-button"
        title="Recent memory tasks"
        onClick={() => {
          if (open) close();
          else {
            setOpen(true);
            reload();
          }
        }}
      >
        Tasks{active > 0 && <span className="task-count"> {active}</span>}
      </button>
      {open && (
        <TasksPanel
          state={state}
          onUpdated={update}
          onClose={close}
          onOpenMemory={(ws, path) => {
            setOpen(false);
            onOpenMemory(ws, path);
          }}
          onOpenDream={
            onOpenDream &&
            ((id) => {
              setOpen(false);
              onOpenDream(id);
            })
          }
          onOpenInbox={
            onOpenInbox &&
            ((ws, id) => {
              setOpen(false);
              onOpenInbox(ws, id);
            })
          }
          workspaceLabel={workspaceLabel}
        />
      )}
    </div>
  );
}

interface PanelProps {
  state: TasksState;
  /** A task's new state (the answer of a cancel). */
  onUpdated: (task: TaskInfo) => void;
  onClose: () => void;
  onOpenMemory: (workspace: string, path: string) => void;
  onOpenDream?: (id: string) => void;
  onOpenInbox?: (workspace: string, id: number) => void;
  workspaceLabel?: (id: string) => string;
}

/** The recent memory tasks, newest first. */
export function TasksPanel({ state, onUpdated, onClose, onOpenMemory, onOpenDream, onOpenInbox, workspaceLabel }: PanelProps) {
  const { tasks, loaded, error } = state;
  const closeRef = useRef<HTMLButtonElement>(null);
  const anyActive = tasks.some(isActive);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    closeRef.current?.focus();
  }, []);

  // Running tasks' durations keep counting while the panel is open.
  useEffect(() => {
    if (!anyActive) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [anyActive]);

  return (
    <div
      className="tasks-panel"
      role="dialog"
      aria-labelledby="tasks-panel-title"
      data-testid="tasks-panel"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <header className="tasks-panel-header">
        <h2 id="tasks-panel-title">Memory tasks</h2>
        <button type="button" ref={closeRef} onClick={onClose} aria-label="Close memory tasks">
          Close
        </button>
      </header>
      {error && <InlineError error={error} />}
      {!loaded && !error && <div className="empty">Loading…</div>}
      {loaded && tasks.length === 0 && <div className="empty">No memory tasks yet.</div>}
      {tasks.length > 0 && (
        <ul className="task-list" aria-label="Recent tasks">
          {tasks.map((t) => (
            <TaskRow
              key={t.id}
              task={t}
              now={now}
              onUpdated={onUpdated}
              onOpenMemory={onOpenMemory}
              onOpenDream={onOpenDream}
              onOpenInbox={onOpenInbox}
              workspaceLabel={workspaceLabel}
            />
          ))}
        </ul>
      )}
    </div>
  );
}

const STEP_MARK = (ok: boolean | null) => (ok === null ? "…" : ok ? "✓" : "✗");
const STEP_STATE = (ok: boolean | null) => (ok === null ? "running" : ok ? "succeeded" : "failed");

/** A task's tool calls, each with its state (running, succeeded, failed). */
export function ToolSteps({ tools }: { tools: readonly ToolStep[] }) {
  return (
    <ol className="task-tools" aria-label="Tool calls" data-testid="task-tools">
      {tools.map((step, i) => (
        <li key={i} className={`task-tool tool-${STEP_STATE(step.ok)}`}>
          <span className="task-tool-mark" role="img" aria-label={STEP_STATE(step.ok)}>
            {STEP_MARK(step.ok)}
          </span>{" "}
          <code>{step.name}</code> {step.detail && <span className="task-tool-detail">{step.detail}</span>}
        </li>
      ))}
    </ol>
  );
}

export interface RowProps {
  task: TaskInfo;
  now: number;
  onUpdated: (task: TaskInfo) => void;
  onOpenMemory: (workspace: string, path: string) => void;
  onOpenDream?: (id: string) => void;
  /** A task whose writes became a proposal offers the way to it. */
  onOpenInbox?: (workspace: string, id: number) => void;
  workspaceLabel?: (id: string) => string;
}

export function TaskRow({ task: t, now, onUpdated, onOpenMemory, onOpenDream, onOpenInbox, workspaceLabel }: RowProps) {
  const { run } = useCommand();
  const [cancelling, setCancelling] = useState(false);
  const [cancelError, setCancelError] = useState<UiError | null>(null);
  const active = isActive(t);
  const files = t.result?.files ?? [];
  const kind = TASK_KIND_LABELS[t.kind] ?? t.kind;
  // Review mode: its writes wait in the inbox, so its files are not links to what it wrote.
  const proposal = t.result?.proposal ?? null;
  // What became of that proposal: once decided, the row says so instead of "Review it".
  const proposalStatus = useProposalStatus(proposal);
  const fate = proposalFate(proposalStatus);
  // Names, not links, where the files are not what the task left: a forget removed them, a
  // proposal waits (or was decided in the inbox), an undone task's writes were taken back.
  const undone = t.result?.undone_by != null;
  const linkFiles = t.kind !== "forget" && proposal === null && !undone;
  const filesLabel =
    proposal !== null ? (fate.decided ? "Files it proposed to change" : "Files it proposes to change") : undone ? "Files it had touched (undone)" : "Files touched";

  const cancelTask = async () => {
    setCancelling(true);
    setCancelError(null);
    const answer = await run(commands.taskCancel(t.id), "cancel");
    if (!answer) return;
    setCancelling(false);
    if (answer.ok) onUpdated(answer.data);
    else setCancelError(answer.error);
  };

  return (
    <li className={`task-row task-${t.status}`} data-testid="task-row" data-id={t.id} data-status={t.status}>
      <div className="task-head">
        <span className="task-kind">{kind}</span>
        <span className="task-ws muted">{workspaceLabel ? workspaceLabel(t.workspace) : t.workspace}</span>
        <span className={`task-status status-${t.status}`} data-testid="task-status">
          {statusText(t)}
        </span>
        <span className="task-duration muted" data-testid="task-duration" title={`Created ${formatTime(t.created_at)}`}>
          {formatDuration(taskDuration(t, now))}
        </span>
        {t.kind === "dream" && onOpenDream && (
          <button
            type="button"
            className="task-cancel"
            data-testid="dream-report-button"
            title={active ? "Show this dream's progress" : "Show this dream's report"}
            onClick={() => onOpenDream(t.id)}
          >
            {active ? "Progress" : "Report"}
          </button>
        )}
        {active && (
          <button
            type="button"
            className="task-cancel"
            aria-label={`Cancel ${kind.toLowerCase()} task`}
            onClick={() => void cancelTask()}
            disabled={cancelling}
          >
            {cancelling ? "Cancelling…" : "Cancel"}
          </button>
        )}
      </div>
      {active && t.phase && <div className="task-phase muted">{t.kind === "embed" ? embedText(t) : t.phase}</div>}
      {t.status === "running" && t.tools.length > 0 && <ToolSteps tools={t.tools} />}
      {t.result?.summary && (
        <div className="task-summary">
          {t.result.summary}
          {t.result.undone_by != null && (
            <span className="undone-tag" data-testid="task-undone">
              {" "}
              · undone since
            </span>
          )}
        </div>
      )}
      {/* A stopped import says the same in its summary and its error: once is enough. */}
      {t.error && t.error !== t.result?.summary && <div className="task-error">{t.error}</div>}
      {proposal !== null && proposalStatus !== null && proposalStatus !== "pending" && (
        <div className="task-fate muted" data-testid="task-proposal-fate">
          {fate.sentence}
        </div>
      )}
      {proposal !== null && onOpenInbox && (
        <button type="button" className="link-button task-proposal" data-testid="task-proposal" onClick={() => onOpenInbox(t.workspace, proposal)}>
          {fate.link}
        </button>
      )}
      {files.length > 0 && (
        <ul className="task-files" aria-label={filesLabel}>
          {files.map((f) =>
            !linkFiles ? (
              <li key={f}>
                <code>{f}</code>
              </li>
            ) : (
              <li key={f}>
                <button
                  type="button"
                  className="link-button"
                  title="Open this memory"
                  data-testid="task-file"
                  onClick={() => onOpenMemory(t.workspace, f)}
                >
                  {f}
                </button>
              </li>
            ),
          )}
        </ul>
      )}
      {cancelError && <InlineError error={cancelError} />}
    </li>
  );
}
