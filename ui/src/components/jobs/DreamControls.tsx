import { useEffect, useRef, useState } from "react";
import { commands } from "../../lib/bindings";
import type { TaskInfo } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { useCommand } from "../../lib/useCommand";
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
  const { run, cancel } = useCommand();
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<UiError | null>(null);
  const [auto, setAuto] = useState<boolean | null>(null);
  const [savingAuto, setSavingAuto] = useState(false);
  const rowRef = useRef<HTMLDivElement>(null);
  useRoving(rowRef, { items: "button, input", orientation: "horizontal" });

  useEffect(() => {
    void run(commands.autoDream(workspace), "auto").then((answer) => {
      if (!answer) return;
      if (answer.ok) setAuto(answer.data);
      else setError(answer.error);
    });
    return () => cancel("auto");
  }, [run, cancel, workspace]);

  const dream = async () => {
    // Not `disabled` while starting: a disabled button loses focus, and the dream dialog could
    // not give it back when it closes.
    if (starting) return;
    setError(null);
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
    const answer = await run(commands.setAutoDream(workspace, enabled), "auto");
    if (!answer) return;
    setSavingAuto(false);
    if (answer.ok) setAuto(answer.data);
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
