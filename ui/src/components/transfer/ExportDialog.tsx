import { useRef, useState } from "react";
import { Modal } from "../common/Modal";
import { ChoosePath } from "../common/ChoosePath";
import { commands } from "../../lib/bindings";
import type { ExportResult } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { defaultExportPath, exportPathProblem, exportedText } from "../../lib/transfer";
import { useCommand } from "../../lib/useCommand";
import { InlineError } from "../common/InlineError";

interface Props {
  workspace: string;
  workspaceLabel: string;
  /** The Mnemo home (`status().home`), for the default destination (`null`: not known yet). */
  home: string | null;
  onClose: () => void;
}

type Scope = "workspace" | "home";

/**
 * Export…: this workspace or the whole home to a new zip of markdown files and a
 * manifest, at a full path (by default beside the person's files, dated) that must not exist yet.
 */
export function ExportDialog({ workspace, workspaceLabel, home, onClose }: Props) {
  const { run } = useCommand();
  const destRef = useRef<HTMLInputElement>(null);
  const [scope, setScope] = useState<Scope>("workspace");
  const [dest, setDest] = useState(() => defaultExportPath(home));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<UiError | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<ExportResult | null>(null);
  // The home may be read after the dialog opened: an empty field takes the default then.
  const [seenHome, setSeenHome] = useState(home);
  if (home !== seenHome) {
    setSeenHome(home);
    if (!dest.trim()) setDest(defaultExportPath(home));
  }

  const doExport = async () => {
    const why = exportPathProblem(dest);
    setProblem(why);
    if (why || busy) return;
    setBusy(true);
    setError(null);
    const answer = await run(commands.exportMemories(scope === "workspace" ? workspace : null, dest.trim()), "export");
    if (!answer) return;
    setBusy(false);
    if (answer.ok) setDone(answer.data);
    else setError(answer.error);
  };

  return (
    <Modal
      labelledBy="export-title"
      className="transfer-dialog export-dialog"
      testId="export-dialog"
      data={{ stage: done ? "done" : "form" }}
      initialFocus={destRef}
      onClose={() => {
        if (!busy) onClose();
      }}
    >
      <header className="dream-dialog-header">
        <h2 id="export-title">Export memories</h2>
        <button type="button" onClick={onClose} data-testid="export-close">
          Close
        </button>
      </header>

      {done ? (
        <div className="export-done" data-testid="export-done">
          <p data-testid="export-sentence">{exportedText(done)}</p>
          <p className="muted">
            It holds {done.workspaces.length === 1 ? "one workspace" : `${done.workspaces.length} workspaces`} as markdown
            files; Import… on another machine reads it back.
          </p>
          <div className="modal-actions">
            <button type="button" className="primary" onClick={onClose}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form
          className="export-form"
          onSubmit={(e) => {
            e.preventDefault();
            void doExport();
          }}
        >
          <fieldset className="transfer-choice">
            <legend>What to export</legend>
            <label>
              <input
                type="radio"
                name="export-scope"
                data-testid="export-scope-workspace"
                checked={scope === "workspace"}
                onChange={() => setScope("workspace")}
              />
              This workspace: {workspaceLabel}
            </label>
            <label>
              <input type="radio" name="export-scope" data-testid="export-scope-home" checked={scope === "home"} onChange={() => setScope("home")} />
              Every workspace (the whole Mnemo home)
            </label>
          </fieldset>
          <div className="field">
            <label htmlFor="export-dest">Save the zip as (its full path)</label>
            <input
              id="export-dest"
              ref={destRef}
              data-testid="export-dest"
              value={dest}
              spellCheck={false}
              autoComplete="off"
              placeholder="/home/me/mnemo-export.zip"
              aria-describedby="export-dest-hint"
              aria-invalid={problem !== null}
              onChange={(e) => {
                setDest(e.target.value);
                setProblem(null);
                setError(null);
              }}
            />
            <ChoosePath
              kinds={[{ kind: "save", label: "Choose where…" }]}
              current={dest}
              filters={[{ name: "Zip archive", extensions: ["zip"] }]}
              disabled={busy}
              onPick={(path) => {
                setDest(path);
                setProblem(null);
                setError(null);
              }}
            />
            <span id="export-dest-hint" className="muted import-hint">
              {problem ?? "A new file: an export never overwrites one that is there."}
            </span>
          </div>
          {error && <InlineError error={error} />}
          <div className="modal-actions">
            <button type="button" onClick={onClose} disabled={busy}>
              Cancel
            </button>
            <button type="submit" className="primary" data-testid="export-start" disabled={busy || !dest.trim()}>
              {busy ? "Exporting…" : "Export"}
            </button>
          </div>
        </form>
      )}
    </Modal>
  );
}
