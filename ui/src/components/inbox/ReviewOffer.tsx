import { useState } from "react";
import { commands } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { inboxChanged, useReviewMode } from "../../lib/useInbox";
import { useCommand } from "../../lib/useCommand";
import { InlineError } from "../common/InlineError";
import { useToast } from "../common/Toasts";

interface Props {
  workspace: string;
  label: string;
}

/**
 * Asked once, on first use of a workspace another tool writes to (Claude Code, Qwen Code) or a
 * team shares: review what assistants write before it lands? Either answer is remembered ("Not
 * now" turns it off, decided), so it is never asked again. Not modal. Mount with `key={workspace}`.
 */
export function ReviewOffer({ workspace, label }: Props) {
  const { run } = useCommand();
  const toast = useToast();
  const [mode] = useReviewMode(workspace);
  const [answered, setAnswered] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<UiError | null>(null);

  if (!mode?.offer || answered) return null;

  const choose = async (on: boolean) => {
    setBusy(true);
    setError(null);
    const answer = await run(commands.setReviewMode(workspace, on), "offer");
    if (!answer) return;
    setBusy(false);
    if (!answer.ok) {
      setError(answer.error);
      return;
    }
    setAnswered(true);
    inboxChanged();
    toast({
      message: on
        ? `Review is on for ${label}: what assistants write here waits in the Inbox until you accept it.`
        : "Review stays off. You can turn it on in Status at any time.",
      timeout: 6000,
    });
  };

  return (
    <section className="banner review-offer" aria-label="Review what assistants write" data-testid="review-offer">
      <span>Review what assistants write here before it is saved?</span>
      <div className="review-offer-actions">
        <button type="button" className="primary" disabled={busy} onClick={() => void choose(true)} data-testid="review-offer-on">
          Turn on review
        </button>
        <button type="button" disabled={busy} onClick={() => void choose(false)} data-testid="review-offer-later">
          Not now
        </button>
      </div>
      {error && <InlineError error={error} />}
    </section>
  );
}
