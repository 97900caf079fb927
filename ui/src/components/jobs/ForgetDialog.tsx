import { useReducer, useRef } from "react";
import { Modal } from "../common/Modal";
import { commands } from "../../lib/bindings";
import type { TaskInfo } from "../../lib/bindings";
import { entriesText, forgetGroup, forgetLabel, forgetReducer, initialForget, picks, strategyText } from "../../lib/forget";
import { useCommand } from "../../lib/useCommand";
import { InlineError } from "../common/InlineError";

interface Props {
  workspace: string;
  workspaceLabel: string;
  onClose: () => void;
  /** Entries were forgotten (the task's new state; reload what shows memories). */
  onForgot: (task: TaskInfo) => void;
  /** The forget was undone (reload what shows memories). */
  onUndone: () => void;
}

/**
 * Forget…: a query, its preview as a checklist (each entry under its memory's name;
 * only confident picks — the entry says what was asked — ticked), "Forget N entries" for the checked ones, then what was forgotten with undo. An
 * empty preview says nothing matches; `conflict` (a file changed since the preview) is shown in
 * place with "Preview again".
 */
export function ForgetDialog({ workspace, workspaceLabel, onClose, onForgot, onUndone }: Props) {
  const { run } = useCommand();
  const [state, dispatch] = useReducer(forgetReducer, initialForget);
  const inputRef = useRef<HTMLInputElement>(null);
  const { stage, query, preview, checked, error } = state;

  const doPreview = async () => {
    const q = query.trim();
    if (!q) return;
    dispatch({ type: "previewing" });
    const answer = await run(commands.forgetPreview(workspace, q), "preview");
    if (answer) dispatch({ type: "previewed", answer });
  };

  const doForget = async () => {
    const entries = picks(preview, checked);
    if (entries.length === 0) return;
    dispatch({ type: "forgetting" });
    const answer = await run(commands.forget(workspace, entries), "forget");
    if (!answer) return;
    dispatch({ type: "forgot", answer });
    if (answer.ok) onForgot(answer.data);
  };

  const group = forgetGroup(state);
  const doUndo = async () => {
    if (group === null) return;
    dispatch({ type: "undoing" });
    const answer = await run(commands.undoGroup(group), "undo");
    if (!answer) return;
    dispatch({ type: "undone", answer });
    if (answer.ok) onUndone();
  };

  const busy = stage === "previewing" || stage === "forgetting";
  const selected = preview?.selected ?? [];
  const showPreview = preview !== null && (stage === "preview" || stage === "forgetting");

  return (
    <Modal
      labelledBy="forget-title"
      className="forget-dialog"
      testId="forget-dialog"
      data={{ stage }}
      initialFocus={inputRef}
      onClose={() => {
        if (!busy) onClose();
      }}
    >
        <header className="dream-dialog-header">
          <h2 id="forget-title">Forget — {workspaceLabel}</h2>
          <button type="button" onClick={onClose} data-testid="forget-close">
            Close
          </button>
        </header>

        {stage !== "done" && (
          <form
            className="forget-form"
            onSubmit={(e) => {
              e.preventDefault();
              void doPreview();
            }}
          >
            <input
              ref={inputRef}
              type="search"
              data-testid="forget-query"
              aria-label="What to forget"
              placeholder="What to forget, e.g. “the staging password rotation”"
              value={query}
              spellCheck={false}
              onChange={(e) => dispatch({ type: "query", query: e.target.value })}
            />
            <button type="submit" data-testid="forget-preview-button" disabled={busy || !query.trim()}>
              {stage === "previewing" ? "Looking…" : preview ? "Preview again" : "Preview"}
            </button>
          </form>
        )}

        {error && (
          <InlineError error={error}>
            {error.code === "conflict" && stage === "preview" && (
              <button type="button" className="link-button" data-testid="forget-repreview" onClick={() => void doPreview()}>
                Preview again
              </button>
            )}
          </InlineError>
        )}

        {showPreview && selected.length === 0 && (
          <div className="empty" data-testid="forget-empty">
            {preview.strategy === "model" && preview.candidates > 0
              ? <>The model chose none of the {preview.candidates} entries found for “<strong>{preview.query}</strong>”: no memory would be forgotten.</>
              : <>No memory has “<strong>{preview.query}</strong>” in its name, description or entries: no memory would be forgotten.</>}
            {preview.note && <div className="muted">{preview.note}</div>}
          </div>
        )}

        {showPreview && selected.length > 0 && (
          <div className="forget-preview" data-testid="forget-preview" data-strategy={preview.strategy}>
            <div className="forget-preview-head">
              <span className="muted">
                {strategyText(preview)}. Tick what should go; untick what should stay.
                {preview.note && <> {preview.note}</>}
              </span>
              <button
                type="button"
                className="link-button"
                onClick={() => dispatch({ type: "all", checked: checked.size < selected.length })}
                disabled={busy}
              >
                {checked.size < selected.length ? "Check all" : "Uncheck all"}
              </button>
            </div>
            <ul className="forget-list">
              {selected.map((e) => (
                <li key={e.id} className="forget-entry" data-testid="forget-entry" data-id={e.id}>
                  <label>
                    <input
                      type="checkbox"
                      checked={checked.has(e.id)}
                      disabled={busy}
                      onChange={() => dispatch({ type: "toggle", id: e.id })}
                    />
                    <span className="forget-entry-text">
                      <span className="forget-name">{e.name}</span>
                      <span className="forget-summary">{e.summary}</span>
                      {e.text.trim() !== e.summary.trim() && <span className="forget-body">{e.text}</span>}
                      <span className="muted">
                        {!e.confident && (
                          <span data-testid="forget-unsure">
                            The model picked this, but it does not say “{preview.query}”: tick it if it should go.{" "}
                          </span>
                        )}
                        {e.memory_type && <>{e.memory_type} · </>}
                        in <code>{e.path}</code>
                      </span>
                    </span>
                  </label>
                </li>
              ))}
            </ul>
            <div className="modal-actions">
              <button type="button" onClick={onClose} disabled={busy}>
                Cancel
              </button>
              <button
                type="button"
                className="danger"
                data-testid="forget-confirm"
                disabled={busy || checked.size === 0}
                onClick={() => void doForget()}
              >
                {stage === "forgetting" ? "Forgetting…" : forgetLabel(checked.size)}
              </button>
            </div>
          </div>
        )}

        {stage === "done" && state.task && (
          <div className="forget-done" data-testid="forget-done">
            <p>
              <strong>Forgot {entriesText(state.removed.length)}</strong>
              {state.task.result?.files.length ? (
                <>
                  {" "}
                  from{" "}
                  {state.task.result.files.map((f, i) => (
                    <span key={f}>
                      {i > 0 && ", "}
                      <code>{f}</code>
                    </span>
                  ))}
                </>
              ) : null}
              .
            </p>
            <ul className="forget-removed">
              {state.removed.map((e) => (
                <li key={e.id}>
                  {e.summary} <span className="muted">({e.id})</span>
                </li>
              ))}
            </ul>
            {state.undo === "undone" ? (
              <div className="dream-undone" data-testid="forget-undone">
                Undone: {state.restored.length} file{state.restored.length === 1 ? "" : "s"} restored.
              </div>
            ) : (
              <div className="modal-actions">
                <button type="button" onClick={() => dispatch({ type: "restart" })}>
                  Forget something else
                </button>
                {group !== null && (
                  <button
                    type="button"
                    data-testid="forget-undo"
                    disabled={state.undo === "undoing"}
                    onClick={() => void doUndo()}
                    title="Put every forgotten entry back (one change group)"
                  >
                    {state.undo === "undoing" ? "Undoing…" : "Undo"}
                  </button>
                )}
              </div>
            )}
          </div>
        )}
    </Modal>
  );
}
