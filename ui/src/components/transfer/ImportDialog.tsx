import { useRef, useState } from "react";
import { Modal } from "../common/Modal";
import { commands } from "../../lib/bindings";
import type { ImportOptions, ImportPreview, MemoryType, TaskInfo } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { MEMORY_TYPES, TYPE_LABELS } from "../../lib/format";
import { IMPORT_FORMATS_HINT, activeImport, cannotImport, conversationsTask, count, parseBudget, pathProblem } from "../../lib/transfer";
import { useCommand } from "../../lib/useCommand";
import { InlineError } from "../common/InlineError";
import { ModelSettings } from "../settings/ModelSettings";
import { ImportSummary } from "./ImportSummary";
import { ImportProgress } from "./ImportProgress";

interface Props {
  workspace: string;
  workspaceLabel: (id: string) => string;
  /** The shared task list's tasks: the import's progress comes from there. */
  tasks: readonly TaskInfo[];
  /** An import started (or a task's newer state): the shared list takes it. */
  onUpdated: (task: TaskInfo) => void;
  /** The import was undone (reload what shows memories). */
  onUndone: () => void;
  onClose: () => void;
}

type Busy = "previewing" | "starting" | null;

/**
 * Import… (issue 24): the full path of an export file or folder and the type for memories that
 * name none → a preview of what would be written (nothing is written yet; conversations: what
 * reading them would cost, and the token budget) → Import, followed live from the task list, with
 * Cancel, then the summary and "Undo import". Closing it never stops an import.
 */
export function ImportDialog({ workspace, workspaceLabel, tasks, onUpdated, onUndone, onClose }: Props) {
  const { run } = useCommand();
  const inputRef = useRef<HTMLInputElement>(null);
  const [source, setSource] = useState("");
  const [type, setType] = useState<MemoryType>("user");
  // A Mnemo export of several workspaces: each goes back to the workspace of its own id.
  const [spread, setSpread] = useState(false);
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [budget, setBudget] = useState("");
  const [busy, setBusy] = useState<Busy>(null);
  const [error, setError] = useState<UiError | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  // The task followed: the one started here, or one under way when the dialog opened.
  const [taskId, setTaskId] = useState<string | null>(() => activeImport(tasks, workspace)?.id ?? null);
  const [started, setStarted] = useState<TaskInfo | null>(null);
  const [startedFrom, setStartedFrom] = useState<ImportPreview | null>(null);

  const task = taskId === null ? null : (tasks.find((t) => t.id === taskId) ?? (started?.id === taskId ? started : null));
  const target = spread ? null : workspace;
  const targetText = spread ? "Each workspace of the same id (as exported)" : workspaceLabel(preview?.workspace ?? workspace);
  const budgetTokens = parseBudget(budget);

  const doPreview = async (spreadNow = spread) => {
    const why = pathProblem(source, "the export file or folder");
    setProblem(why);
    if (why) return;
    setBusy("previewing");
    setError(null);
    setPreview(null);
    const answer = await run(commands.importPreview(source.trim(), spreadNow ? null : workspace, { type }), "preview");
    if (!answer) return;
    setBusy(null);
    if (!answer.ok) {
      setError(answer.error);
      return;
    }
    setPreview(answer.data);
    setBudget(answer.data.conversations ? count(answer.data.conversations.budget_tokens) : "");
  };

  const doImport = async (from: ImportPreview | null = preview) => {
    if (!from || busy) return;
    setBusy("starting");
    setError(null);
    const opts: ImportOptions = { type };
    if (from.conversations && budgetTokens !== null) opts.budget_tokens = budgetTokens;
    const answer = await run(commands.importStart(from.source || source.trim(), target, opts, from.plan || null), "start");
    if (!answer) return;
    setBusy(null);
    if (!answer.ok) {
      setError(answer.error);
      return;
    }
    setStarted(answer.data);
    setStartedFrom(from);
    setTaskId(answer.data.id);
    onUpdated(answer.data);
  };

  /** Back to the form (its fields kept), for another import or the same one again. */
  const restart = () => {
    setTaskId(null);
    setStarted(null);
    setPreview(null);
    setError(null);
    setTimeout(() => inputRef.current?.focus(), 0);
  };

  const changed = () => {
    // What was previewed is not what is typed any more: preview again before importing.
    setPreview(null);
    setError(null);
    setProblem(null);
  };

  const blocked = preview ? cannotImport(preview) : null;
  const badBudget = preview?.conversations != null && budgetTokens === null;
  const several = error?.code === "usage" && /holds \d+ workspaces/i.test(error.message);
  const conversations = startedFrom ? startedFrom.conversations !== null : conversationsTask(task);

  return (
    <Modal
      labelledBy="import-title"
      className="transfer-dialog import-dialog"
      testId="import-dialog"
      data={{ stage: task ? "task" : preview ? "preview" : "form" }}
      initialFocus={task ? undefined : inputRef}
      onClose={() => {
        if (busy !== "starting") onClose();
      }}
    >
      <header className="dream-dialog-header">
        <h2 id="import-title">Import into {workspaceLabel(workspace)}</h2>
        <button type="button" onClick={onClose} data-testid="import-close">
          Close
        </button>
      </header>

      {task ? (
        <ImportProgress
          task={task}
          conversations={conversations}
          onUpdated={onUpdated}
          onUndone={onUndone}
          onAgain={startedFrom ? () => void doImport(startedFrom) : null}
          onRestart={restart}
        />
      ) : (
        <>
          <form
            className="import-form"
            onSubmit={(e) => {
              e.preventDefault();
              void doPreview();
            }}
          >
            <div className="field">
              <label htmlFor="import-source">Export file or folder (its full path)</label>
              <input
                id="import-source"
                ref={inputRef}
                data-testid="import-source"
                value={source}
                spellCheck={false}
                autoComplete="off"
                placeholder="/home/me/Downloads/conversations.json"
                aria-describedby="import-source-hint"
                aria-invalid={problem !== null}
                onChange={(e) => {
                  setSource(e.target.value);
                  setSpread(false);
                  changed();
                }}
              />
              <span id="import-source-hint" className="muted import-hint" data-testid="import-formats">
                {problem ?? `Reads ${IMPORT_FORMATS_HINT}.`}
              </span>
            </div>
            <div className="import-form-row">
              <div className="field">
                <label htmlFor="import-type">Type for memories that name none</label>
                <select
                  id="import-type"
                  data-testid="import-type"
                  value={type}
                  onChange={(e) => {
                    setType(e.target.value as MemoryType);
                    changed();
                  }}
                >
                  {MEMORY_TYPES.map((t) => (
                    <option key={t} value={t}>
                      {TYPE_LABELS[t]}
                    </option>
                  ))}
                </select>
              </div>
              <button type="submit" data-testid="import-preview-button" disabled={busy !== null || !source.trim()}>
                {busy === "previewing" ? "Reading…" : preview ? "Preview again" : "Preview"}
              </button>
            </div>
          </form>

          {error && (
            <InlineError error={error} about="import" onOpenSettings={() => setSettingsOpen(true)}>
              {error.code === "conflict" && (
                <button type="button" className="link-button" data-testid="import-repreview" onClick={() => void doPreview()}>
                  Preview again
                </button>
              )}
              {several && (
                <button
                  type="button"
                  className="link-button"
                  data-testid="import-spread"
                  onClick={() => {
                    setSpread(true);
                    void doPreview(true);
                  }}
                >
                  Import each into its own workspace
                </button>
              )}
            </InlineError>
          )}

          {busy === "previewing" && <div className="muted">Reading the export… nothing is written yet.</div>}

          {preview && (
            <>
              <ImportSummary
                preview={preview}
                target={targetText}
                budget={budget}
                onBudget={setBudget}
                budgetTokens={budgetTokens}
                onOpenSettings={() => setSettingsOpen(true)}
              />
              <div className="modal-actions">
                <button type="button" onClick={onClose} disabled={busy !== null}>
                  Cancel
                </button>
                <button
                  type="button"
                  className="primary"
                  data-testid="import-start"
                  disabled={busy !== null || blocked !== null || badBudget}
                  onClick={() => void doImport()}
                >
                  {busy === "starting" ? "Starting…" : preview.conversations ? "Import conversations" : "Import"}
                </button>
              </div>
            </>
          )}
        </>
      )}

      {settingsOpen && (
        <ModelSettings
          onClose={() => setSettingsOpen(false)}
          onSaved={() => {
            setError((e) => (e?.code === "model_not_configured" ? null : e));
            // A model now: the preview says so, and Import can start.
            if (preview?.conversations) void doPreview();
          }}
        />
      )}
    </Modal>
  );
}
