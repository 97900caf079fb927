import { useCallback, useEffect, useRef, useState } from "react";
import { commands } from "../../lib/bindings";
import type { RememberTask, TaskInfo } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { isConfigured } from "../../lib/chat";
import { contentProblem, failure, fileToOpen, isSettled, rememberStatus } from "../../lib/remember";
import { useCommand } from "../../lib/useCommand";
import { useModelSettings, useRefetchOn, useRememberTask } from "../../lib/queries";
import { proposalFate } from "../../lib/inbox";
import { useProposalStatus } from "../../lib/useInbox";
import { InlineError } from "../common/InlineError";
import { ToolSteps } from "./TasksPanel";

/** How often a task under way is read again (events may not reach this page: another process). */
export const REMEMBER_POLL_MS = 1500;

interface Props {
  workspace: string;
  workspaceLabel: string;
  /** The shared task list's tasks (the task's phase and tool calls, and a quicker status). */
  tasks: readonly TaskInfo[];
  /** A task was queued (re-read the shared list, so it follows it). */
  onQueued: () => void;
  /** Open a memory the task wrote. */
  onOpenMemory: (workspace: string, path: string) => void;
  onClose: () => void;
  /** Review mode: what it would write waits in the workspace's inbox. */
  onOpenInbox?: () => void;
  /** Open Settings (to connect a model: remembering needs one). */
  onOpenSettings?: () => void;
}

/**
 * The "Remember…" box of a workspace: a fact and the context mode → `remember`; then
 * the task live (queued, running with its tool calls, completed or failed with its code and
 * message); once completed, the first memory it wrote opens in the browser. Mount with
 * `key={workspace}`.
 */
export function RememberBox({ workspace, workspaceLabel, tasks, onQueued, onOpenMemory, onClose, onOpenInbox, onOpenSettings }: Props) {
  const { run } = useCommand();
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const [content, setContent] = useState("");
  const [clean, setClean] = useState(false);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<UiError | null>(null);
  // The request as `remember` answered it; then as read again, until it settles.
  const [queued, setQueued] = useState<RememberTask | null>(null);
  const read = useRememberTask(queued, REMEMBER_POLL_MS);
  const task = queued === null ? null : (read.data ?? queued);
  const [cancelError, setCancelError] = useState<UiError | null>(null);
  const readError = cancelError ?? read.error;
  const [cancelling, setCancelling] = useState(false);
  const opened = useRef<string | null>(null);
  // Remembering asks the model to write the fact: with none set, say so before anything is typed
  // (it used to accept the text and then fail). `null` while unknown.
  const settings = useModelSettings().data;
  const hasModel = settings ? isConfigured(settings) : null;

  const listed = task ? (tasks.find((t) => t.id === task.taskId) ?? null) : null;
  const settled = task ? isSettled(task.status) : true;

  useEffect(() => {
    if (task === null) inputRef.current?.focus();
  }, [task]);

  // Followed until it ends (`useRememberTask` reads it now and then), and read at once when the
  // shared list says it moved.
  const { refetch } = read;
  const readNow = useCallback(() => {
    if (!settled) void refetch();
  }, [settled, refetch]);
  useRefetchOn(listed?.status, readNow);

  // Done: open what it wrote (once).
  const toOpen = task ? fileToOpen(task) : null;
  useEffect(() => {
    if (task === null || toOpen === null || opened.current === task.taskId) return;
    opened.current = task.taskId;
    onOpenMemory(task.workspace, toOpen);
  }, [task, toOpen, onOpenMemory]);

  const problem = contentProblem(content);

  const submit = async () => {
    if (problem || sending || hasModel === false) return;
    setSending(true);
    setError(null);
    const answer = await run(commands.remember(workspace, content, clean ? "clean" : "workspace", null), "remember");
    if (!answer) return;
    setSending(false);
    if (!answer.ok) {
      setError(answer.error);
      return;
    }
    setQueued(answer.data);
    onQueued();
  };

  const stop = async () => {
    if (!task) return;
    setCancelling(true);
    const answer = await run(commands.taskCancel(task.taskId), "cancel");
    if (!answer) return;
    setCancelling(false);
    if (!answer.ok) setCancelError(answer.error);
  };

  const again = () => {
    setQueued(null);
    setContent("");
    setError(null);
    setCancelError(null);
  };

  const fail = task ? failure(task, listed) : null;
  const files = task?.result?.filesTouched ?? [];
  const fate = proposalFate(useProposalStatus(task?.status === "completed" ? (task.result?.proposal ?? null) : null));

  return (
    <section
      className="remember-box"
      data-testid="remember-box"
      aria-labelledby="remember-title"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <header className="remember-header">
        <h2 id="remember-title">Remember — {workspaceLabel}</h2>
        <button type="button" className="icon-button" aria-label="Close the remember box" data-testid="remember-close" onClick={onClose}>
          ×
        </button>
      </header>
      {hasModel === false && task === null && (
        <div className="remember-no-model" role="status" data-testid="remember-no-model">
          <p>
            Remembering needs a model: Mnemo asks it to write the fact down as a memory, and no model is connected yet. You
            can still write the memory yourself with <strong>New memory</strong>.
          </p>
          {onOpenSettings && (
            <button type="button" data-testid="remember-open-settings" onClick={onOpenSettings}>
              Connect a model
            </button>
          )}
        </div>
      )}
      {task === null ? (
        <form
          className="remember-form"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <textarea
            ref={inputRef}
            data-testid="remember-input"
            aria-label="What to remember"
            placeholder="A fact, preference or decision to keep — e.g. “Deploys go out on Tuesdays.”"
            rows={3}
            value={content}
            onChange={(e) => setContent(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                void submit();
              }
            }}
          />
          <label className="remember-clean" title="The agent then sees no existing memories: it writes new files and never updates old ones">
            <input type="checkbox" data-testid="remember-clean" checked={clean} onChange={(e) => setClean(e.target.checked)} />
            Clean context <span className="muted">(ignore existing memories)</span>
          </label>
          <div className="remember-actions">
            <button type="button" onClick={onClose}>
              Cancel
            </button>
            <button
              type="submit"
              className="primary"
              data-testid="remember-submit"
              disabled={problem !== null || sending || hasModel === false}
              title={
                hasModel === false ? "Connect a model first" : (problem ?? "Let the memory agent write it down (Ctrl+Enter)")
              }
            >
              {sending ? "Sending…" : "Remember"}
            </button>
          </div>
          {error && <InlineError error={error} />}
        </form>
      ) : (
        <div className="remember-task" data-testid="remember-task" data-id={task.taskId} data-status={task.status} aria-live="polite">
          <div className={`remember-status status-${rememberStatus(task).tone}`} data-testid="remember-status">
            {!settled && (
              <span className="task-spark" aria-hidden="true">
                ✦{" "}
              </span>
            )}
            {rememberStatus(task).text}
            {task.contextMode === "clean" && <span className="muted"> · clean context</span>}
            {!settled && (
              <button type="button" className="task-cancel" onClick={() => void stop()} disabled={cancelling}>
                {cancelling ? "Cancelling…" : "Cancel"}
              </button>
            )}
          </div>
          {!settled && listed?.phase && <div className="task-phase muted">{listed.phase}</div>}
          {!settled && listed && listed.tools.length > 0 && <ToolSteps tools={listed.tools} />}
          {task.status === "completed" && task.result && (
            <>
              {task.result.summary && (
                <p className="remember-summary" data-testid="remember-summary">
                  {task.result.summary}
                </p>
              )}
              {task.result.proposal != null ? (
                <p data-testid="remember-proposal">
                  {fate.sentence}{" "}
                  {onOpenInbox && (
                    <button type="button" className="link-button" onClick={onOpenInbox} data-testid="remember-inbox">
                      {fate.decided ? fate.link : "Open the Inbox"}
                    </button>
                  )}
                </p>
              ) : files.length > 0 ? (
                <ul className="task-files" aria-label="Files written">
                  {files.map((f) => (
                    <li key={f}>
                      <button type="button" className="link-button" data-testid="remember-file" onClick={() => onOpenMemory(task.workspace, f)}>
                        {f}
                      </button>
                    </li>
                  ))}
                </ul>
              ) : (
                <p className="muted">Nothing new was written: the agent found it already known.</p>
              )}
            </>
          )}
          {fail && <InlineError error={fail} />}
          {readError && <InlineError error={readError} />}
          <blockquote className="remember-quote muted">{content}</blockquote>
          {settled && (
            <div className="remember-actions">
              <button type="button" data-testid="remember-again" onClick={again}>
                Remember something else
              </button>
            </div>
          )}
        </div>
      )}
    </section>
  );
}
