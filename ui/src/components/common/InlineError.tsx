import type { ReactNode } from "react";
import type { UiError } from "../../lib/transport";
import { explain } from "../../lib/errors";
import type { About } from "../../lib/errors";

interface Props {
  error: UiError;
  /** Shown as a Retry button when the error is one a retry can fix. */
  onRetry?: () => void;
  /** Shown as "Open settings" when the error is about the model's settings. */
  onOpenSettings?: () => void;
  /** Where it happened, when that changes how it reads (a proposal's `conflict`). */
  about?: About;
  children?: ReactNode;
}

/**
 * An error shown in place, in sentences, with the next step as a button. The stable code stays
 * in `data-code` (tests, scripts); people never have to read it.
 */
export function InlineError({ error, onRetry, onOpenSettings, about, children }: Props) {
  const { sentence, next } = explain(error, about);
  return (
    <div className="inline-error" role="alert" data-testid="inline-error" data-code={error.code}>
      <span className="inline-error-message">{sentence}</span>
      {next === "retry" && onRetry && (
        <button type="button" className="link-button" onClick={onRetry} data-testid="error-retry">
          Retry
        </button>
      )}
      {next === "settings" && onOpenSettings && (
        <button type="button" className="link-button" onClick={onOpenSettings} data-testid="error-settings">
          Open settings
        </button>
      )}
      {children}
    </div>
  );
}
