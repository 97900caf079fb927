import { useRef, useState } from "react";
import { Modal } from "../common/Modal";
import { commands } from "../../lib/bindings";
import type { Copied, WorkspaceInfo } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { KIND_LABELS } from "../../lib/format";
import { printable } from "../../lib/printable";
import { sharingText } from "../../lib/detail";
import { copiedText, copyGroups, copyUndoneText } from "../../lib/transfer";
import { useCommand } from "../../lib/useCommand";
import { InlineError } from "../common/InlineError";

/** The memory copied or moved. */
export interface CopySource {
  workspace: string;
  path: string;
  name: string;
}

interface Props {
  source: CopySource;
  workspaces: readonly WorkspaceInfo[];
  workspaceLabel: (id: string) => string;
  /** Copied, or moved (the detail pane then leaves the moved memory). */
  onDone: (copied: Copied, moved: boolean) => void;
  /** The copy or move was undone (reload what shows memories). */
  onUndone: () => void;
  /** Open the memory where it is now. */
  onOpen: (workspace: string, path: string) => void;
  onClose: () => void;
}

function kindText(w: WorkspaceInfo): string {
  return w.kind === "folder" ? "added folder" : KIND_LABELS[w.kind];
}

/**
 * Copy / Move…: a topic memory into another workspace, byte for byte (another name
 * when the same path there holds something else); a move then removes it here. Each side's change
 * group undoes on its own; Undo here takes back both.
 */
export function CopyDialog({ source, workspaces, workspaceLabel, onDone, onUndone, onOpen, onClose }: Props) {
  const { run } = useCommand();
  const selectRef = useRef<HTMLSelectElement>(null);
  const targets = workspaces.filter((w) => w.id !== source.workspace);
  const [to, setTo] = useState(targets[0]?.id ?? "");
  const [move, setMove] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<UiError | null>(null);
  const [done, setDone] = useState<{ copied: Copied; moved: boolean } | null>(null);
  const [undo, setUndo] = useState<"idle" | "undoing" | "undone">("idle");
  const chosen = targets.find((w) => w.id === to) ?? null;

  const doCopy = async () => {
    if (!chosen || busy) return;
    setBusy(true);
    setError(null);
    const answer = await run(commands.copyMemory(source.workspace, source.path, chosen.id, move), "copy");
    if (!answer) return;
    setBusy(false);
    if (!answer.ok) {
      setError(answer.error);
      return;
    }
    setDone({ copied: answer.data, moved: move });
    onDone(answer.data, move);
  };

  const doUndo = async () => {
    if (!done) return;
    setUndo("undoing");
    setError(null);
    let some = false;
    for (const g of copyGroups(done.copied)) {
      const answer = await run(commands.undoGroup(g), `undo-${g}`);
      if (!answer) return;
      if (!answer.ok) {
        setUndo("idle");
        setError(answer.error);
        if (some) onUndone();
        return;
      }
      some = true;
    }
    setUndo("undone");
    onUndone();
  };

  return (
    <Modal
      labelledBy="copy-title"
      className="transfer-dialog copy-dialog"
      testId="copy-dialog"
      data={{ stage: done ? "done" : "form" }}
      initialFocus={selectRef}
      onClose={() => {
        if (!busy && undo !== "undoing") onClose();
      }}
    >
      <header className="dream-dialog-header">
        <h2 id="copy-title">Copy or move “{printable(source.name)}”</h2>
        <button type="button" onClick={onClose} data-testid="copy-close">
          Close
        </button>
      </header>

      {done ? (
        <div className="copy-done" data-testid="copy-done">
          <p data-testid="copy-sentence">{printable(copiedText(done.copied, done.moved, source.name, workspaceLabel))}</p>
          {undo === "undone" ? (
            <p className="dream-undone" data-testid="copy-undone">
              {printable(copyUndoneText(done.copied, source.name, workspaceLabel))}
            </p>
          ) : null}
          {error && <InlineError error={error} />}
          <div className="modal-actions">
            {undo !== "undone" && copyGroups(done.copied).length > 0 && (
              <button type="button" data-testid="copy-undo" disabled={undo === "undoing"} onClick={() => void doUndo()}>
                {undo === "undoing" ? "Undoing…" : "Undo"}
              </button>
            )}
            {undo !== "undone" && (
              <button
                type="button"
                data-testid="copy-open"
                onClick={() => {
                  onOpen(done.copied.workspace, done.copied.path);
                  onClose();
                }}
              >
                Open it in {workspaceLabel(done.copied.workspace)}
              </button>
            )}
            <button type="button" className="primary" onClick={onClose}>
              Done
            </button>
          </div>
        </div>
      ) : targets.length === 0 ? (
        <p className="muted" data-testid="copy-none">
          There is no other workspace to copy it to. Add a folder, or open a project with Claude Code or Qwen Code, and it shows up here.
        </p>
      ) : (
        <form
          className="copy-form"
          onSubmit={(e) => {
            e.preventDefault();
            void doCopy();
          }}
        >
          <div className="field">
            <label htmlFor="copy-target">To workspace</label>
            <select id="copy-target" ref={selectRef} data-testid="copy-target" value={to} onChange={(e) => setTo(e.target.value)}>
              {targets.map((w) => (
                <option key={w.id} value={w.id}>
                  {printable(w.label)} ({kindText(w)})
                </option>
              ))}
            </select>
            {chosen?.shared && <span className="muted import-hint">{sharingText(chosen.shared)}</span>}
          </div>
          <fieldset className="transfer-choice">
            <legend>Copy or move</legend>
            <label>
              <input type="radio" name="copy-mode" data-testid="copy-mode-copy" checked={!move} onChange={() => setMove(false)} />
              Copy: keep it in {workspaceLabel(source.workspace)} too
            </label>
            <label>
              <input type="radio" name="copy-mode" data-testid="copy-mode-move" checked={move} onChange={() => setMove(true)} />
              Move: remove it from {workspaceLabel(source.workspace)}
            </label>
          </fieldset>
          <p className="muted import-hint">
            The file goes over exactly as it is (<code>{printable(source.path)}</code>); when that name is taken there, it gets a new one.
          </p>
          {error && <InlineError error={error} />}
          <div className="modal-actions">
            <button type="button" onClick={onClose} disabled={busy}>
              Cancel
            </button>
            <button type="submit" className="primary" data-testid="copy-start" disabled={busy || !chosen}>
              {busy ? (move ? "Moving…" : "Copying…") : move ? "Move" : "Copy"}
            </button>
          </div>
        </form>
      )}
    </Modal>
  );
}
