import { useState } from "react";
import type { RefObject } from "react";
import type { EntryChange, Proposal, ProposalFile } from "../../lib/bindings";
import { ENTRY_OP_TEXT, fileOpText } from "../../lib/inbox";
import { printable } from "../../lib/printable";
import type { Selection } from "../../lib/inbox";
import type { ProposalWhy } from "../../lib/proposalWhy";
import { DiffView } from "../browser/DiffView";

interface Props {
  proposal: Proposal;
  selection: Selection;
  /** Changes can be ticked (the proposal waits for a decision and nothing is under way). */
  choosing: boolean;
  onToggle: (id: string, on: boolean) => void;
  onEdit: (path: string, text: string) => void;
  /** The first text area while editing (focused when editing starts). */
  firstEditRef?: RefObject<HTMLTextAreaElement | null>;
  /** A dream's report read for this proposal: where deleted files and removed entries went. */
  why?: ProposalWhy | null;
}

/**
 * A proposal's files: each change entry by entry — what goes (removed) and what comes (added),
 * a box to tick for each while the proposal waits —, the whole file's diff on request, and while
 * editing a text area per file with the text that will be saved.
 */
export function ProposalFiles({ proposal, selection, choosing, onToggle, onEdit, firstEditRef, why = null }: Props) {
  const editable = proposal.files.filter((f) => f.after !== null);
  return (
    <div className="proposal-files">
      {proposal.files.map((f) => (
        <FileChanges
          key={f.path}
          file={f}
          selection={selection}
          choosing={choosing}
          onToggle={onToggle}
          onEdit={onEdit}
          editRef={editable[0]?.path === f.path ? firstEditRef : undefined}
          why={why}
        />
      ))}
    </div>
  );
}

function FileChanges({
  file: f,
  selection,
  choosing,
  onToggle,
  onEdit,
  editRef,
  why,
}: {
  file: ProposalFile;
  why: ProposalWhy | null;
  selection: Selection;
  choosing: boolean;
  onToggle: (id: string, on: boolean) => void;
  onEdit: (path: string, text: string) => void;
  editRef?: RefObject<HTMLTextAreaElement | null>;
}) {
  const [whole, setWhole] = useState(false);
  const text = selection.edits?.get(f.path);
  const editing = selection.edits !== null;
  return (
    <section className="proposal-file" data-testid="proposal-file" data-path={f.path} data-op={f.op}>
      <header className="proposal-file-header">
        <code className="proposal-path">{printable(f.path)}</code>
        <span className="muted">{fileOpText(f.op, f.after)}</span>
        <button type="button" className="link-button" aria-expanded={whole} onClick={() => setWhole((w) => !w)} data-testid="proposal-whole">
          {whole ? "Hide the whole file" : "Show the whole file"}
        </button>
      </header>
      {why?.files.get(f.path) && (
        <p className="proposal-went" data-testid="proposal-file-went">
          {printable(why.files.get(f.path) ?? "")}
        </p>
      )}
      {editing && text !== undefined ? (
        <label className="proposal-edit">
          <span className="muted">The text of {printable(f.path)} as it will be saved (all of it):</span>
          <textarea
            ref={editRef}
            value={text}
            rows={Math.min(18, Math.max(6, text.split("\n").length + 1))}
            spellCheck={false}
            data-testid="proposal-edit-text"
            data-path={f.path}
            onChange={(e) => onEdit(f.path, e.target.value)}
          />
        </label>
      ) : (
        <>
          {editing && <p className="muted">This file is deleted by the proposal: there is nothing to edit.</p>}
          <ul className="proposal-entries">
            {f.entries.map((e) => (
              <EntryRow
                key={e.id}
                entry={e}
                went={why?.entries.get(e.id) ?? null}
                checked={selection.checked.has(e.id)}
                choosing={choosing && !editing}
                onToggle={onToggle}
              />
            ))}
          </ul>
        </>
      )}
      {whole && <DiffView before={f.before} after={editing && text !== undefined ? text : f.after} />}
    </section>
  );
}

/** The first line of an entry, for the box's accessible name. */
function firstLine(e: EntryChange): string {
  const line = (e.after ?? e.before ?? "").split("\n").find((l) => l.trim()) ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function EntryRow({
  entry: e,
  went,
  checked,
  choosing,
  onToggle,
}: {
  entry: EntryChange;
  /** Where a removed entry went (a dream's merge), as a sentence. */
  went: string | null;
  checked: boolean;
  choosing: boolean;
  onToggle: (id: string, on: boolean) => void;
}) {
  const what = ENTRY_OP_TEXT[e.op];
  return (
    <li
      className={`proposal-entry op-${e.op} ${checked ? "" : "unchecked"}`}
      data-testid="proposal-entry"
      data-id={e.id}
      data-op={e.op}
      data-checked={checked ? "true" : "false"}
    >
      <div className="proposal-entry-head">
        {choosing ? (
          <label>
            <input
              type="checkbox"
              checked={checked}
              data-testid="proposal-entry-check"
              aria-label={`Accept: ${what.toLowerCase()}${firstLine(e) ? ` — ${firstLine(e)}` : ""}`}
              onChange={(ev) => onToggle(e.id, ev.target.checked)}
            />{" "}
            <span className="proposal-entry-op">{what}</span>
          </label>
        ) : (
          <span className="proposal-entry-op">{what}</span>
        )}
        {went && (
          <span className="proposal-went" data-testid="proposal-entry-went">
            {printable(went)}
          </span>
        )}
      </div>
      {e.op === "move" ? (
        <div className="proposal-block moved">
          <span className="proposal-block-label">Same text</span>
          <pre>{e.after}</pre>
        </div>
      ) : null}
      {e.op !== "move" && e.before !== null && (
        <div className="proposal-block removed">
          <span className="proposal-block-label">{e.after === null ? "Removed" : "Before"}</span>
          <pre>{e.before}</pre>
        </div>
      )}
      {e.op !== "move" && e.after !== null && (
        <div className="proposal-block added">
          <span className="proposal-block-label">{e.before === null ? "Added" : "After"}</span>
          <pre>{e.after}</pre>
        </div>
      )}
    </li>
  );
}
