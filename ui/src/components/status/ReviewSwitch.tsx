import { useState } from "react";
import { commands } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { pendingSentence } from "../../lib/inbox";
import { inboxChanged, useInboxCount, useReviewMode } from "../../lib/useInbox";
import { useCommand } from "../../lib/useCommand";
import { InlineError } from "../common/InlineError";

interface Props {
  workspace: string;
  /** Open the workspace's inbox. */
  onOpenInbox?: () => void;
}

/**
 * The review-mode switch beside the automatic-memory switches (two cells of their grid): when on,
 * what extraction, dream, remember and assistants write waits in the inbox; beside it, how many
 * proposals wait, with a way there.
 */
export function ReviewSwitch({ workspace, onOpenInbox }: Props) {
  const { run } = useCommand();
  const [mode, setMode] = useReviewMode(workspace);
  const count = useInboxCount(workspace);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<UiError | null>(null);

  const flip = async (on: boolean) => {
    if (!mode) return;
    const before = mode;
    // Shown at once; put back if it cannot be saved.
    setMode({ ...mode, on, decided: true, offer: false });
    setSaving(true);
    setError(null);
    const answer = await run(commands.setReviewMode(workspace, on), "review");
    if (!answer) return;
    setSaving(false);
    if (answer.ok) {
      setMode(answer.data);
      inboxChanged();
    } else {
      setMode(before);
      setError(answer.error);
    }
  };

  const waiting = count?.pending ?? 0;
  return (
    <>
      <label className="status-switch">
        <input
          type="checkbox"
          data-testid="review-toggle"
          checked={mode?.on ?? false}
          disabled={mode === null || saving}
          onChange={(e) => void flip(e.target.checked)}
        />
        <span>
          <strong>Review automatic writes before they are saved</strong>
          <span className="muted"> — extraction, dream, remember and assistants propose; you accept or reject in the Inbox. Your own edits are saved at once.</span>
        </span>
      </label>
      <div className="last-run" data-testid="review-waiting">
        {(mode?.on || waiting > 0) && onOpenInbox ? (
          <button type="button" className="link-button" onClick={onOpenInbox} title={pendingSentence(waiting)} data-testid="review-inbox">
            {waiting === 0 ? "Open the inbox" : `${waiting.toLocaleString("en-US")} waiting — open the inbox`}
          </button>
        ) : null}
      </div>
      {error && (
        <div className="status-switch-error">
          <InlineError error={error} />
        </div>
      )}
    </>
  );
}
