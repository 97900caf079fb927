import type { MemoryDetail } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { InlineError } from "../common/InlineError";

/** The pane while the memory is read, or when it could not be. */
export function NotLoaded({ error, onClose }: { error: UiError | null; onClose: () => void }) {
  return (
    <section className="detail" aria-label="Memory">
      {error ? (
        <div className="detail-body">
          <InlineError error={error} />
          <button type="button" onClick={onClose}>
            Close
          </button>
        </div>
      ) : (
        <div className="empty">Loading…</div>
      )}
    </section>
  );
}

/** A file Mnemo shows but never changes: not a valid memory, or not text it can show. */
export function ReadOnlyBody({ detail }: { detail: MemoryDetail }) {
  return (
    <div className="detail-body">
      {detail.problem && (
        <div className="problem" data-testid="detail-problem">
          <strong>Mnemo cannot read this file as a memory</strong> ({detail.problem.code}): {detail.problem.message}
          <div className="muted">It is shown read-only and never changed.</div>
        </div>
      )}
      {!detail.problem && !detail.valid && <div className="problem">This file is not a valid memory; shown read-only.</div>}
      {detail.content === null ? (
        <div className="empty">The content cannot be shown (binary, not UTF-8 or too large).</div>
      ) : (
        <pre className="raw" data-testid="detail-raw">
          {detail.content}
        </pre>
      )}
    </div>
  );
}
