import { useRef } from "react";
import type { ReactNode } from "react";
import { useRoving } from "../../lib/useRoving";
import type { EntryOut, MemoryType, WorkspaceInfo } from "../../lib/bindings";
import { MEMORY_TYPES, TYPE_LABELS } from "../../lib/format";
import { printable } from "../../lib/printable";
import type { Draft } from "../../lib/browser";
import type { FormField } from "../../lib/detail";
import { factsOf, replacedNote } from "../../lib/supersede";
import { FactsView } from "./FactsView";
import { MarkdownEditor } from "./MarkdownEditor";
import { MarkdownPreview } from "./MarkdownPreview";
import type { ConflictChoice } from "./useConflictChoice";

/** How the body shows: the editor, the rendered preview, or the facts (current and replaced). */
export type BodyView = "edit" | "preview" | "facts";

interface Props {
  isNew: boolean;
  /** A daily log or a conversation record: plain markdown, only its body is edited (`null`: a memory). */
  record: "log" | "chat" | null;
  form: Draft;
  onField: <K extends keyof Draft>(key: K, value: Draft[K]) => void;
  onBody: (body: string) => void;
  onSubmit: () => void;
  /** A new memory: where it goes. */
  workspaces: WorkspaceInfo[];
  newWorkspace: string;
  onNewWorkspace: (id: string) => void;
  newPath: string;
  onNewPath: (path: string) => void;
  /** The form field an error is about (the error shows under it); `null`: the whole file. */
  badField: FormField | null;
  errorBox: ReactNode;
  view: BodyView;
  onView: (view: BodyView) => void;
  /** A saved memory's facts (`null`: none to show, e.g. a new memory, a daily log or a conversation record). */
  facts: { entries: readonly EntryOut[]; dirty: boolean; onReplace: (entry: EntryOut) => void; conflicts?: ConflictChoice | null } | null;
}

/** The detail pane's editable part: the frontmatter fields, then the body — Edit, Preview or Facts. */
export function MemoryForm(props: Props) {
  const { isNew, record, form, onField, onBody, onSubmit, workspaces, newWorkspace, onNewWorkspace, newPath, onNewPath } = props;
  const { badField, errorBox, facts } = props;
  const view = props.view === "facts" && !facts ? "edit" : props.view;
  const replaced = facts ? factsOf(facts.entries).replacedCount : 0;
  // Edit / Preview / Facts: one Tab stop between the fields and the body.
  const viewsRef = useRef<HTMLDivElement>(null);
  useRoving(viewsRef, { items: "button", orientation: "horizontal", preferred: '[aria-pressed="true"]' });

  return (
    <div className="detail-body">
      <form
        className="frontmatter"
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit();
        }}
      >
        {isNew && (
          <div className="field-row">
            <label className="field">
              <span>Workspace</span>
              <select value={newWorkspace} onChange={(e) => onNewWorkspace(e.target.value)} data-testid="detail-workspace">
                {workspaces.map((w) => (
                  <option key={w.id} value={w.id}>
                    {printable(w.label)}
                  </option>
                ))}
                {!workspaces.some((w) => w.id === newWorkspace) && <option value={newWorkspace}>{printable(newWorkspace)}</option>}
              </select>
            </label>
            <label className="field grow">
              <span>File</span>
              <input
                value={newPath}
                onChange={(e) => onNewPath(e.target.value)}
                placeholder="automatic, from the name"
                data-testid="detail-path"
                aria-invalid={badField === "path" || undefined}
                className={badField === "path" ? "invalid-field" : undefined}
                spellCheck={false}
              />
            </label>
          </div>
        )}
        {isNew && badField === "path" && errorBox}
        {record === null && (
          <>
            <div className="field-row">
              <label className="field grow">
                <span>Name</span>
                <input
                  value={form.name}
                  onChange={(e) => onField("name", e.target.value)}
                  data-testid="detail-name"
                  aria-invalid={badField === "name" || undefined}
                  className={badField === "name" ? "invalid-field" : undefined}
                  placeholder="e.g. Response style"
                  autoFocus={isNew}
                />
              </label>
              <label className="field">
                <span>Type</span>
                <select
                  value={form.type}
                  onChange={(e) => onField("type", e.target.value as MemoryType)}
                  data-testid="detail-type"
                  aria-invalid={badField === "type" || undefined}
                  className={badField === "type" ? "invalid-field" : undefined}
                >
                  {form.type === "" && <option value="">—</option>}
                  {MEMORY_TYPES.map((t) => (
                    <option key={t} value={t}>
                      {TYPE_LABELS[t]}
                    </option>
                  ))}
                </select>
              </label>
            </div>
            {(badField === "name" || badField === "type") && errorBox}
            <label className="field">
              <span>Description</span>
              <input
                value={form.description}
                onChange={(e) => onField("description", e.target.value)}
                data-testid="detail-description"
                aria-invalid={badField === "description" || undefined}
                className={badField === "description" ? "invalid-field" : undefined}
                placeholder="One specific line: used to judge relevance"
              />
            </label>
            {badField === "description" && errorBox}
          </>
        )}
        {(record !== null || badField === null) && errorBox}
        <button type="submit" hidden />
      </form>
      <div className="body-toolbar">
        <span className="muted" data-testid="body-label">
          {record === "log" ? "Daily log" : record === "chat" ? "Conversation record" : view === "facts" ? "Facts" : "Body"}
        </span>
        <div className="segmented" role="toolbar" aria-label="Body view" ref={viewsRef}>
          <button type="button" aria-pressed={view === "edit"} onClick={() => props.onView("edit")}>
            Edit
          </button>
          <button type="button" aria-pressed={view === "preview"} data-testid="preview-toggle" onClick={() => props.onView("preview")}>
            Preview
          </button>
          {facts && (
            <button
              type="button"
              aria-pressed={view === "facts"}
              data-testid="facts-toggle"
              title="Each fact of this memory: the current ones, with Replace…, and the replaced ones"
              onClick={() => props.onView("facts")}
            >
              Facts
            </button>
          )}
        </div>
      </div>
      {facts && view !== "facts" && replaced > 0 && (
        <p className="replaced-note muted" data-testid="replaced-note">
          {replacedNote(replaced)}{" "}
          <button type="button" className="link-button" onClick={() => props.onView("facts")}>
            Show the facts
          </button>
        </p>
      )}
      <div className="body-area">
        {view === "facts" && facts ? (
          <FactsView entries={facts.entries} dirty={facts.dirty} onReplace={facts.onReplace} conflicts={facts.conflicts} />
        ) : view === "edit" ? (
          <MarkdownEditor
            value={form.body}
            onChange={onBody}
            placeholder={
              record === "log" ? "Notes of the day." : record === "chat" ? "14:02 — what you said" : "What to remember.\nWhy: …\nHow to apply: …"
            }
          />
        ) : (
          <MarkdownPreview source={form.body} />
        )}
      </div>
    </div>
  );
}
