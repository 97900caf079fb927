import type { ReactNode } from "react";
import type { UiError } from "../lib/transport";

// Server messages already say what to do; these only add what the UI knows.
const HINTS: Record<string, string> = {
  conflict: "The file changed since you opened it.",
  network: "Is `mnemo serve` still running?",
};

/** An error shown in place (under a form), with its stable code. */
export function InlineError({ error, children }: { error: UiError; children?: ReactNode }) {
  const hint = HINTS[error.code];
  return (
    <div className="inline-error" role="alert" data-testid="inline-error" data-code={error.code}>
      <span className="inline-error-message">{error.message}</span>
      {hint && !error.message.includes(hint) && <span className="inline-error-hint"> {hint}</span>}
      <code className="inline-error-code">{error.code}</code>
      {children}
    </div>
  );
}
