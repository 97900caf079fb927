import { useMemo, useRef, useState } from "react";
import type { Unseen } from "../../lib/unseen";
import type { ReactNode, RefObject } from "react";
import { emptyList, listMode, listRows, logsListError, openKey, shownLogs, staleListError } from "../../lib/browser";
import type { BrowserAction, BrowserState, EmptyList, ListSort } from "../../lib/browser";
import { isUsageSort } from "../../lib/usage";
import { useUsageByMemory } from "../../lib/queries";
import { InlineError } from "../common/InlineError";
import { MemoryList } from "./MemoryList";
import type { MemoryListHandle } from "./MemoryList";

/** The list's order, kept across restarts. */
const SORT_KEY = "mnemo.listSort";

/** The list's orders, as the sort control offers them. */
const SORTS: { id: ListSort; label: string }[] = [
  { id: "type", label: "by type" },
  { id: "recent", label: "last changed first" },
  { id: "recalls", label: "most recalled first" },
  { id: "tokens", label: "most tokens first" },
  { id: "lastRecalled", label: "last recalled first" },
];

function readSort(): ListSort {
  try {
    const saved = localStorage.getItem(SORT_KEY);
    return SORTS.find((s) => s.id === saved)?.id ?? "type";
  } catch {
    return "type";
  }
}

interface Props {
  state: BrowserState;
  dispatch: (action: BrowserAction) => void;
  /** The search box, for the Ctrl/Cmd+K shortcut. */
  searchRef: RefObject<HTMLInputElement | null>;
  /** "All workspaces" or the selected workspace's label. */
  selectedLabel: string;
  workspaceLabel: (id: string) => string;
  /** "⌘" or "Ctrl+". */
  modKey: string;
  /** Actions on the selected workspace (the Dream button), shown beside its name. */
  workspaceActions?: ReactNode;
  /** More for the selected workspace, under its bar (Remember… / Forget… / Status, the Remember box). */
  workspacePanel?: ReactNode;
  /** New and changed memories not opened yet. */
  unseen?: Unseen;
  /** Memories (`docKey`) with an open sync conflict. */
  conflicted?: ReadonlySet<string>;
}

function EmptyListView({ empty }: { empty: EmptyList }): ReactNode {
  switch (empty.kind) {
    case "error":
      return <InlineError error={empty.error} />;
    case "searching":
      return <div className="empty">Searching…</div>;
    case "noMatches":
      return (
        <div className="empty">
          No matches for “<strong>{empty.q}</strong>”.
        </div>
      );
    case "loading":
      return <div className="empty">Loading…</div>;
    case "noMemories":
      return (
        <div className="empty">
          <div className="empty-title">No memories yet</div>
          <div className="muted">Create one with “New memory”, or add a folder of markdown memories.</div>
        </div>
      );
  }
}

/** The search box, the "New memory" button and the memory list (browse groups or search results). */
export function ListPane({
  state,
  dispatch,
  searchRef,
  selectedLabel,
  workspaceLabel,
  modKey,
  workspaceActions,
  workspacePanel,
  unseen,
  conflicted,
}: Props) {
  const listRef = useRef<MemoryListHandle>(null);
  const { query, selectedWs, docs, search, collapsed, wordsOnly } = state;
  // Words only is a choice only when search can also go by meaning.
  const hybrid = state.status?.semantic?.state === "ready";

  const { searching, docsLoading } = listMode(state);
  const logs = shownLogs(state);
  const [sort, setSort] = useState<ListSort>(readSort);
  // Usage by memory for the usage sorts, for the workspaces listed (read again as their memories change).
  const usageFor = useMemo(() => {
    if (!isUsageSort(sort) || searching) return [];
    if (selectedWs !== null) return [selectedWs];
    return [...new Set((docs?.data ?? []).map((d) => d.workspace))].sort();
  }, [sort, searching, selectedWs, docs]);
  const usage = useUsageByMemory(usageFor);
  const rows = useMemo(
    () => listRows({ searching, docsLoading }, docs?.data ?? [], search, collapsed, logs, sort, usage),
    [searching, docsLoading, docs, search, collapsed, logs, sort, usage],
  );
  const staleError = staleListError(state);
  const logsError = logsListError(state);

  return (
    <section className="list-pane" aria-label="Memory list">
      <div className="list-toolbar">
        <input
          ref={searchRef}
          type="search"
          className="search"
          placeholder="Search…"
          aria-label={`Search ${selectedLabel}`}
          aria-keyshortcuts={modKey === "⌘" ? "Meta+K" : "Control+K"}
          title={`Search ${selectedLabel} (${modKey}K)`}
          data-testid="search-input"
          value={query}
          spellCheck={false}
          onChange={(e) => dispatch({ type: "query", query: e.target.value })}
          onKeyDown={(e) => {
            if (e.key === "ArrowDown" || e.key === "ArrowUp") {
              e.preventDefault();
              listRef.current?.move(e.key === "ArrowDown" ? 1 : -1);
            } else if (e.key === "Enter") {
              e.preventDefault();
              listRef.current?.openSelected();
            } else if (e.key === "Escape" && query) {
              e.preventDefault();
              dispatch({ type: "query", query: "" });
            }
          }}
        />
        {hybrid && (
          <label className="words-only" title="Only memories that contain these exact words; without it, close meanings count too">
            <input
              type="checkbox"
              data-testid="words-only-toggle"
              checked={wordsOnly}
              onChange={(e) => dispatch({ type: "wordsOnly", on: e.target.checked })}
            />
            Exact words
          </label>
        )}
        <button
          type="button"
          className="primary"
          data-testid="new-memory-button"
          title="Write a new memory by hand"
          onClick={() =>
            dispatch({ type: "request", intent: { type: "open", target: { mode: "new", workspace: selectedWs } } })
          }
        >
          New memory
        </button>
      </div>
      {!searching && (
        <div className="list-sort">
          <label>
            <span className="muted">Show</span>{" "}
            <select
              value={sort}
              data-testid="list-sort"
              onChange={(e) => {
                const next = SORTS.find((s) => s.id === e.target.value)?.id ?? "type";
                setSort(next);
                try {
                  localStorage.setItem(SORT_KEY, next);
                } catch {
                  // Storage unavailable: the order lasts for this session only.
                }
              }}
            >
              {SORTS.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.label}
                </option>
              ))}
            </select>
          </label>
        </div>
      )}
      {workspaceActions && (
        <div className="ws-bar" data-testid="workspace-bar">
          <span className="ws-bar-label" title={selectedLabel}>
            {selectedLabel}
          </span>
          {workspaceActions}
        </div>
      )}
      {workspacePanel}
      {staleError && <InlineError error={staleError} />}
      {logsError && (
        <div data-testid="logs-error">
          <InlineError error={{ ...logsError, message: `Daily logs could not be loaded: ${logsError.message}` }} />
        </div>
      )}
      <MemoryList
        ref={listRef}
        rows={rows}
        cursorKey={state.cursorKey}
        openKey={openKey(state)}
        showWorkspace={selectedWs === null}
        workspaceLabel={workspaceLabel}
        collapsed={collapsed}
        empty={<EmptyListView empty={emptyList(state)} />}
        onCursor={(it) => dispatch({ type: "cursor", key: it.key })}
        onOpen={(item) => dispatch({ type: "activate", item })}
        onToggleGroup={(group) => dispatch({ type: "toggleGroup", group })}
        highlight={searching ? query : ""}
        unseen={unseen}
        conflicted={conflicted}
      />
    </section>
  );
}
