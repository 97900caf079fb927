import { useRef, useState } from "react";
import { commands } from "../../lib/bindings";
import type { TaskInfo } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { useCommand } from "../../lib/useCommand";
import { autoDreamSaved, useAutoDream } from "../../lib/queries";
import { useRoving } from "../../lib/useRoving";
import { InlineError } from "../common/InlineError";

interface Props {
  workspace: string;
  /** The workspace's dream under way (any process), if any. */
  active: TaskInfo | null;
  /** A dream was started (or the one under way joined): show it, and its report at the end. */
  onStarted: (task: TaskInfo) => void;
  /** Show a dream under way. */
  onShow: (id: string) => void;
}

/**
 * The Dream button of a workspace (a manual dream skips the time and session gates,
 * never the lock — `locked` is shown here) and its auto-dream switch. Mount with
 * `key={workspace}`: its state belongs to one workspace.
 */
export function DreamControls({ workspace, active, onStarted, onShow }: Props) {
  const { run } = useCommand();
  const [starting, setStarting] = useState(false);
  const [actionError, setError] = useState<UiError | null>(null);
  const autoRead = useAutoDream(workspace);
  const auto = autoRead.data ?? null;
  // A failed read of the switch shows until something is done here.
  const [readErrorSeen, setReadErrorSeen] = useState<UiError | null>(null);
  const readError = autoRead.error !== readErrorSeen ? autoRead.error : null;
  const error = actionError ?? readError;
  const [savingAuto, setSavingAuto] = useState(false);
  const rowRef = useRef<HTMLDivElement>(null);
  useRoving(rowRef, { items: "button, input", orientation: "horizontal" });

  const dream = async () => {
    // Not `disabled` while starting: a disabled button loses focus, and the dream dialog could
    // not give it back when it closes.
    if (starting) return;
    setError(null);
    setReadErrorSeen(autoRead.error);
    if (active) {
      onShow(active.id);
      return;
    }
    setStarting(true);
    const answer = await run(commands.dream(workspace, null), "dream");
    if (!answer) return;
    setStarting(false);
    if (answer.ok) onStarted(answer.data);
    else setError(answer.error);
  };

  const switchAuto = async (enabled: boolean) => {
    setSavingAuto(true);
    setError(null);
    setReadErrorSeen(autoRead.error);
    const answer = await run(commands.setAutoDream(workspace, enabled), "auto");
    if (!answer) return;
    setSavingAuto(false);
    if (answer.ok) autoDreamSaved(workspace, answer.data);
    else setError(answer.error);
  };

  const busy = starting || active !== null;
  return (
    <div className="dream-controls">
      <div className="dream-controls-row" role="toolbar" aria-label="Dream" ref={rowRef}>
        <button
          type="button"
          className={`dream-button ${busy ? "busy" : ""}`}
          data-testid="dream-button"
          onClick={() => void dream()}
          aria-disabled={starting}
          title={
            active
              ? "A dream is under way: show its progress"
              : "Consolidate this workspace's memories now: merge duplicates, fix contradictions, prune"
          }
        >
          <span className={busy ? "task-spark" : undefined} aria-hidden="true">
            ✦
          </span>{" "}
          {starting ? "Starting…" : active ? "Dreaming…" : "Dream"}
        </button>
        <label className="auto-dream" title="Consolidate on its own after chat turns (at most once a day, after 5 sessions)">
          <input
            type="checkbox"
            data-testid="auto-dream-toggle"
            checked={auto ?? false}
            disabled={auto === null || savingAuto}
            onChange={(e) => void switchAuto(e.target.checked)}
          />
          Dream on its own
        </label>
      </div>
      {error && <InlineError error={error} />}
    </div>
  );
}
