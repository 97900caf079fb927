import { useRef } from "react";
import type { Ref } from "react";
import type { MemoryDetail } from "../../lib/bindings";
import { useRoving } from "../../lib/useRoving";
import type { UiError } from "../../lib/transport";
import { formatTime } from "../../lib/format";
import { printable } from "../../lib/printable";
import { ArchiveToggle } from "./ArchiveToggle";
import { PinToggle } from "./PinToggle";
import { UsageLine } from "./UsageLine";

interface Props {
  isNew: boolean;
  title: string;
  /** The workspace's label. */
  wsLabel: string;
  /** The memory as last read (`null` for a new one). */
  base: MemoryDetail | null;
  /** Shown read-only (invalid, unreadable, gone): no actions that write. */
  readOnly: boolean;
  dirty: boolean;
  saving: boolean;
  /** Show the memory folder (desktop only; `null`: not offered). */
  onOpenFolder: (() => void) | null;
  onPinned: (fresh: MemoryDetail | null, error: UiError | null) => void;
  archiving: boolean;
  onArchive: () => void;
  /** Copy / Move… to another workspace (`null`: not offered). */
  onCopy: (() => void) | null;
  onDelete: () => void;
  onSave: () => void;
  onCancel: () => void;
  /** The heading, for focus to land on (a memory brought back by Undo). */
  headingRef?: Ref<HTMLHeadingElement>;
}

/**
 * The detail pane's header: the memory's name, where it lives and when it changed, its usage in
 * a line, and the actions — Open folder, Pin, Archive / Restore, Copy / Move…, Delete, Save (Create
 * and Cancel for a new one).
 */
export function DetailHeader(props: Props) {
  const { isNew, title, wsLabel, base, readOnly, dirty, saving, onOpenFolder, onPinned, archiving, onArchive, onCopy, onDelete, onSave, onCancel, headingRef } =
    props;
  // The actions are one Tab stop (←/→ inside): from the list, Tab reaches the fields quickly.
  const actionsRef = useRef<HTMLDivElement>(null);
  useRoving(actionsRef, { items: "button", orientation: "horizontal" });
  const topic = !isNew && !readOnly && base?.kind === "topic";
  // The name and path may come from a file another tool wrote: bidi overrides and control
  // characters shown escaped, so a name cannot read as another.
  const shownTitle = printable(title);
  const shownWs = printable(wsLabel);
  return (
    <header className="detail-header">
      <div className="detail-title">
        <h1 title={shownTitle} ref={headingRef} tabIndex={-1} data-testid="detail-heading">
          {shownTitle}
        </h1>
        <div className="muted detail-subtitle">
          {isNew ? (
            <>New memory in {shownWs}</>
          ) : (
            <>
              {base?.pinned && (
                <span className="pin-chip" data-testid="pinned-marker" title="Pinned: extraction and dream never change or delete it">
                  pinned
                </span>
              )}
              <span>{shownWs}</span> · <code>{printable(base?.path ?? "")}</code>
              {base?.mtime && <> · modified {formatTime(base.mtime)}</>}
            </>
          )}
        </div>
        {!isNew && base?.kind === "topic" && <UsageLine workspace={base.workspace} path={base.path} />}
      </div>
      <div className="actions" role="toolbar" aria-label="Memory actions" ref={actionsRef}>
        {!isNew && onOpenFolder && (
          <button type="button" onClick={onOpenFolder} title="Show the memory folder">
            Open folder
          </button>
        )}
        {topic && base && <PinToggle detail={base} dirty={dirty} onChanged={onPinned} />}
        {topic && base && <ArchiveToggle archived={base.archived} busy={archiving} dirty={dirty} onToggle={onArchive} />}
        {topic && onCopy && (
          <button
            type="button"
            data-testid="copy-button"
            aria-haspopup="dialog"
            disabled={dirty}
            title={dirty ? "Save or discard your edits first" : "Copy or move this memory to another workspace"}
            onClick={onCopy}
          >
            Copy / Move…
          </button>
        )}
        {!isNew && !readOnly && (
          <button type="button" className="danger-outline" data-testid="delete-button" onClick={onDelete}>
            Delete
          </button>
        )}
        {(isNew || !readOnly) && (
          <button
            type="button"
            className="primary"
            data-testid="save-button"
            onClick={onSave}
            disabled={saving || (!isNew && !dirty)}
            title="Save (Ctrl/⌘+S)"
          >
            {saving ? "Saving…" : isNew ? "Create" : "Save"}
          </button>
        )}
        {isNew && (
          <button type="button" onClick={onCancel} title="Discard this new memory">
            Cancel
          </button>
        )}
      </div>
    </header>
  );
}

/** Memory / History, under the header of a saved memory. */
export function DetailTabs({ tab, onTab }: { tab: "memory" | "history"; onTab: (tab: "memory" | "history") => void }) {
  // One Tab stop; ←/→ choose the tab.
  const ref = useRef<HTMLDivElement>(null);
  useRoving(ref, { items: '[role="tab"]', orientation: "horizontal", preferred: '[aria-selected="true"]', activate: true });
  return (
    <div className="tabs" role="tablist" aria-label="Memory or its history" ref={ref}>
      <button type="button" role="tab" aria-selected={tab === "memory"} onClick={() => onTab("memory")}>
        Memory
      </button>
      <button type="button" role="tab" aria-selected={tab === "history"} data-testid="history-tab" onClick={() => onTab("history")}>
        History
      </button>
    </div>
  );
}
