import { useEffect, useRef, useState } from "react";
import { commands } from "../../lib/bindings";
import type { EntryOut, WriteOutcome } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { replaceProblem } from "../../lib/supersede";
import { useCommand } from "../../lib/useCommand";
import { InlineError } from "../common/InlineError";
import { Modal } from "../common/Modal";

interface Props {
  workspace: string;
  path: string;
  entry: EntryOut;
  /** The fact's text as the file holds it (the new one starts from it). */
  text: string;
  /** Saved: the old fact is kept as replaced. */
  onReplaced: (outcome: WriteOutcome) => void;
  /** The fact was replaced meanwhile or the file changed: read the memory again. */
  onReload: () => void;
  onClose: () => void;
}

/**
 * Replace a fact (`replace_entry`): the new fact, starting from the old one's text, and why it
 * changed (optional). The old fact stays in the file just before the new one, marked
 * `Superseded:` with the day, the new fact and the reason, and recall never uses it again.
 */
export function ReplaceDialog({ workspace, path, entry, text: old, onReplaced, onReload, onClose }: Props) {
  const { run } = useCommand();
  const textRef = useRef<HTMLTextAreaElement>(null);
  const [text, setText] = useState(old);
  const [why, setWhy] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<UiError | null>(null);
  const problem = replaceProblem(text, old);

  // The caret after the old text (the dialog focuses the text area): edit it, or add to it.
  useEffect(() => {
    const t = textRef.current;
    t?.setSelectionRange(t.value.length, t.value.length);
  }, []);

  const save = async () => {
    if (busy || problem) return;
    setBusy(true);
    setError(null);
    const answer = await run(commands.replaceEntry(workspace, path, entry.id, text.trim(), why.trim() || null), "replace");
    if (!answer) return;
    setBusy(false);
    if (answer.ok) onReplaced(answer.data);
    else setError(answer.error);
  };

  const stale = error?.code === "conflict" || error?.code === "invalid_arguments";

  return (
    <Modal labelledBy="replace-title" className="replace-dialog" testId="replace-dialog" initialFocus={textRef} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
        onKeyDown={(e) => {
          // Ctrl/⌘+Enter or +S saves this, not the memory behind the dialog.
          if ((e.ctrlKey || e.metaKey) && !e.altKey && (e.key === "Enter" || e.key.toLowerCase() === "s")) {
            e.preventDefault();
            e.stopPropagation();
            void save();
          }
        }}
      >
        <h2 id="replace-title">Replace a fact</h2>
        <div className="modal-body">
          <p className="replace-old">
            <span className="muted">Now: </span>
            <span data-testid="replace-old">{entry.summary}</span>
          </p>
          <label className="field">
            <span>The new fact</span>
            <textarea
              ref={textRef}
              data-testid="replace-text"
              rows={4}
              value={text}
              onChange={(e) => setText(e.target.value)}
              aria-describedby="replace-hint"
              spellCheck
            />
          </label>
          <p className="muted replace-hint" id="replace-hint">
            {problem ?? "One fact, on its first line; “Why:” and “How to apply:” lines may follow. A blank line would start another fact."}
          </p>
          <label className="field">
            <span>Why it changed (optional)</span>
            <input data-testid="replace-why" value={why} onChange={(e) => setWhy(e.target.value)} placeholder="e.g. moved in November" />
          </label>
          <p className="muted">
            The old fact stays in the file, just before the new one, marked as replaced today — and it is never recalled again. Undo
            in the message that follows takes this back.
          </p>
          {error && (
            <InlineError error={error} about="replace">
              {stale && (
                <button type="button" className="link-button" data-testid="replace-reload" onClick={onReload}>
                  Reload the memory
                </button>
              )}
            </InlineError>
          )}
        </div>
        <div className="modal-actions">
          <button type="button" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className="primary" data-testid="replace-save" disabled={busy || problem !== null} title="Save (Ctrl/⌘+Enter)">
            {busy ? "Saving…" : "Save"}
          </button>
        </div>
      </form>
    </Modal>
  );
}
