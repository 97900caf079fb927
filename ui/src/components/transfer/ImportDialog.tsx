import { useRef, useState } from "react";
import { Modal } from "../common/Modal";
import { ChoosePath } from "../common/ChoosePath";
import { commands } from "../../lib/bindings";
import type { ImportOptions, ImportPreview, MemoryType, TaskInfo } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { MEMORY_TYPES, TYPE_LABELS } from "../../lib/format";
import { IMPORT_FORMATS_HINT, activeImport, cannotImport, conversationsTask, count, parseBudget, pathProblem, retick } from "../../lib/transfer";
import { printable } from "../../lib/printable";
import { useCommand } from "../../lib/useCommand";
import { InlineError } from "../common/InlineError";
import { ModelSettings } from "../settings/ModelSettings";
import { ImportSummary } from "./ImportSummary";
import { ImportProgress } from "./ImportProgress";
import { RestoreChoices } from "./RestoreChoices";

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

/** How a preview was asked for: Import sends the same, or its plan would not match. */
interface Asked {
  /** The workspace named (`null`: a whole-home export, each workspace into its own). */
  target: string | null;
  options: ImportOptions;
}

/**
 * Import…: the full path of an export file or folder and the type for memories that
 * name none → a preview of what would be written (nothing is written yet; conversations: what
 * reading them would cost, and the token budget) → Import, followed live from the task list, with
 * Cancel, then the summary and "Undo import". Closing it never stops an import. A whole-home Mnemo
 * export lists its workspaces with a box each: nothing is restored until some are ticked, and each
 * tick previews again with exactly those (`options.workspaces`), which Import then sends.
 */
export function ImportDialog({ workspace, workspaceLabel, tasks, onUpdated, onUndone, onClose }: Props) {
  const { run } = useCommand();
  const inputRef = useRef<HTMLInputElement>(null);
  const [source, setSource] = useState("");
  const [type, setType] = useState<MemoryType>("user");
  // A Mnemo export of several workspaces: each goes back to the workspace of its own id.
  const [spread, setSpread] = useState(false);
  // Its workspaces ticked (in the export's order): what the next preview names.
  const [ticks, setTicks] = useState<string[]>([]);
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [asked, setAsked] = useState<Asked | null>(null);
  const [budget, setBudget] = useState("");
  const [busy, setBusy] = useState<Busy>(null);
  const [error, setError] = useState<UiError | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  // The task followed: the one started here, or one under way when the dialog opened.
  const [taskId, setTaskId] = useState<string | null>(() => activeImport(tasks, workspace)?.id ?? null);
  const [started, setStarted] = useState<TaskInfo | null>(null);
  const [startedFrom, setStartedFrom] = useState<{ preview: ImportPreview; asked: Asked } | null>(null);

  const task = taskId === null ? null : (tasks.find((t) => t.id === taskId) ?? (started?.id === taskId ? started : null));
  const restore = preview?.restore ?? [];
  const chosen = restore.filter((r) => r.chosen).map((r) => workspaceLabel(r.workspace));
  const targetText = !spread
    ? workspaceLabel(preview?.workspace ?? workspace)
    : restore.length === 0
      ? "Each workspace of the same id (as exported)"
      : chosen.length > 0
        ? chosen.join(", ")
        : "No workspace yet";
  const budgetTokens = parseBudget(budget);

  /**
   * Preview what is typed. `keep`: the preview shown stays while the new one is read (a box of
   * a whole-home export was ticked: the list keeps its place and the focus).
   */
  const doPreview = async (spreadNow = spread, ticksNow: readonly string[] = ticks, keep = false) => {
    const why = pathProblem(source, "the export file or folder");
    setProblem(why);
    if (why) return;
    setBusy("previewing");
    setError(null);
    if (!keep) setPreview(null);
    const how: Asked = {
      target: spreadNow ? null : workspace,
      options: spreadNow && ticksNow.length > 0 ? { type, workspaces: [...ticksNow] } : { type },
    };
    const answer = await run(commands.importPreview(source.trim(), how.target, how.options), "preview");
    if (!answer) return;
    setBusy(null);
    if (!answer.ok) {
      setPreview(null);
      setError(answer.error);
      return;
    }
    setPreview(answer.data);
    setAsked(how);
    // The boxes show what this preview chose (a workspace that cannot be restored stays unticked).
    setTicks((answer.data.restore ?? []).filter((r) => r.chosen).map((r) => r.workspace));
    setBudget(answer.data.conversations ? count(answer.data.conversations.budget_tokens) : "");
  };

  // A tick names workspaces one by one: from then on the import goes where the boxes say
  // (the dialog's own workspace only if it stays ticked).
  const tick = (id: string, on: boolean) => {
    const next = retick(restore, ticks, id, on);
    setTicks(next);
    setSpread(true);
    void doPreview(true, next, true);
  };

  const doImport = async (from: ImportPreview | null = preview, how: Asked | null = asked) => {
    if (!from || !how || busy) return;
    setBusy("starting");
    setError(null);
    // Exactly the options the preview was read with (its plan is checked against them).
    const opts: ImportOptions = { ...how.options };
    if (from.conversations && budgetTokens !== null) opts.budget_tokens = budgetTokens;
    const answer = await run(commands.importStart(from.source || source.trim(), how.target, opts, from.plan || null), "start");
    if (!answer) return;
    setBusy(null);
    if (!answer.ok) {
      setError(answer.error);
      return;
    }
    setStarted(answer.data);
    setStartedFrom({ preview: from, asked: how });
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
  const several = !spread && error?.code === "several_workspaces";
  const conversations = startedFrom ? startedFrom.preview.conversations !== null : conversationsTask(task);

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
        <h2 id="import-title">
          {spread ? "Import into each workspace of the export" : `Import into ${printable(workspaceLabel(workspace))}`}
        </h2>
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
          onAgain={startedFrom ? () => void doImport(startedFrom.preview, startedFrom.asked) : null}
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
              <label htmlFor="import-source">File or folder to import (its full path)</label>
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
                  setTicks([]);
                  changed();
                }}
              />
              <ChoosePath
                kinds={[
                  { kind: "file", label: "Choose file…" },
                  { kind: "folder", label: "Choose folder…" },
                ]}
                current={source}
                disabled={busy !== null}
                onPick={(path) => {
                  setSource(path);
                  setSpread(false);
                  setTicks([]);
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
              >
                {restore.length > 0 && <RestoreChoices choices={restore} ticked={ticks} disabled={busy === "starting"} onTick={tick} />}
              </ImportSummary>
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
