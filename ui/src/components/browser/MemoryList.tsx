import { forwardRef, useEffect, useImperativeHandle, useRef } from "react";
import type { KeyboardEvent, ReactNode } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { GroupId, ListItem, Row } from "../../lib/rows";
import { nextItemIndex } from "../../lib/rows";
import { matchPieces } from "../../lib/highlight";
import type { DocKind, MemoryType } from "../../lib/bindings";
import { formatAge, formatTime, isRecord, matchHint, matchScores } from "../../lib/format";
import { actorOf } from "../../lib/history";
import type { Unseen, UnseenMark } from "../../lib/unseen";
import { ARCHIVED_MARK, ARCHIVED_MARK_TITLE } from "../../lib/archive";
import { ArchiveIcon } from "./ArchiveToggle";
import { printable } from "../../lib/printable";
import { CONFLICT_RECALL } from "../../lib/sync";

export const HEADER_HEIGHT = 28;
export const ROW_HEIGHT = 52;
/** A search result's row: its name may take two lines (beside the chat the list is narrow). */
export const HIT_ROW_HEIGHT = 72;

export interface MemoryListHandle {
  /** Moves the cursor by one item (headers skipped). */
  move: (delta: 1 | -1) => void;
  /** Opens the item under the cursor. */
  openSelected: () => void;
  focus: () => void;
}

interface Props {
  rows: Row[];
  /** The keyboard cursor (`null`: on the open memory, else the first item when moved). */
  cursorKey: string | null;
  /** The open memory: the one row shown selected. */
  openKey: string | null;
  showWorkspace: boolean;
  workspaceLabel: (id: string) => string;
  collapsed: ReadonlySet<GroupId>;
  empty: ReactNode;
  /** The cursor moved onto `item`. */
  onCursor: (item: ListItem) => void;
  onOpen: (item: ListItem) => void;
  onToggleGroup: (group: GroupId) => void;
  /** The search's words, marked in names and descriptions (empty: not searching). */
  highlight?: string;
  /** New and changed memories the person has not opened yet. */
  unseen?: Unseen;
  /** Memories (`docKey`) with an open sync conflict: their rows are marked. */
  conflicted?: ReadonlySet<string>;
}

const NO_CONFLICTS: ReadonlySet<string> = new Set();

/** The conflict mark's tooltip: what it is, what to do, and what it means for recall (the one sentence). */
export const CONFLICT_MARK_TITLE = `Sync conflict: two of your machines changed this memory differently. Open it to choose. ${CONFLICT_RECALL}`;

export const MemoryList = forwardRef<MemoryListHandle, Props>(function MemoryList(
  { rows, cursorKey, openKey, showWorkspace, workspaceLabel, collapsed, empty, onCursor, onOpen, onToggleGroup, highlight = "", unseen = {}, conflicted = NO_CONFLICTS },
  ref,
) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const results = rows[0]?.kind === "header" && rows[0].group === "results";
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (rows[i]?.kind === "header" ? HEADER_HEIGHT : results ? HIT_ROW_HEIGHT : ROW_HEIGHT),
    getItemKey: (i) => rows[i]?.key ?? i,
    overscan: 12,
  });
  // Rows change height between browsing and search results: lay them out again.
  useEffect(() => {
    virtualizer.measure();
  }, [results, virtualizer]);

  const find = (key: string | null) => (key === null ? -1 : rows.findIndex((r) => r.key === key));
  // The cursor, else the open memory's row: where ↑/↓ start from. Search results start above
  // their top hit (↓ then Enter opens it), wherever the open memory ranks among them.
  const cursorIndex = find(cursorKey) >= 0 ? find(cursorKey) : results ? -1 : find(openKey);
  const selectedIndex = cursorIndex;

  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: "auto" });
  }, [selectedIndex, virtualizer]);

  const move = (delta: 1 | -1) => {
    let i = nextItemIndex(rows, selectedIndex < 0 && delta === -1 ? rows.length : selectedIndex, delta);
    if (i < 0 && selectedIndex < 0) i = nextItemIndex(rows, -1, 1);
    const row = i >= 0 ? rows[i] : null;
    if (row?.kind === "item") onCursor(row.item);
  };

  const openSelected = () => {
    const row = selectedIndex >= 0 ? rows[selectedIndex] : null;
    if (row?.kind === "item") onOpen(row.item);
  };

  useImperativeHandle(ref, () => ({ move, openSelected, focus: () => scrollRef.current?.focus() }));

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      move(e.key === "ArrowDown" ? 1 : -1);
    } else if (e.key === "Enter") {
      e.preventDefault();
      openSelected();
    } else if (e.key === "Home" || e.key === "End") {
      e.preventDefault();
      const i = e.key === "Home" ? nextItemIndex(rows, -1, 1) : nextItemIndex(rows, rows.length, -1);
      const row = i >= 0 ? rows[i] : null;
      if (row?.kind === "item") onCursor(row.item);
    }
  };

  if (rows.length === 0) {
    return (
      <div className="list-empty" data-testid="list-empty">
        {empty}
      </div>
    );
  }

  return (
    <div
      ref={scrollRef}
      className="list-scroll"
      tabIndex={0}
      role="listbox"
      aria-label="Memories"
      aria-activedescendant={selectedIndex >= 0 ? `row-${selectedIndex}` : undefined}
      onKeyDown={onKeyDown}
      data-testid="memory-list"
    >
      <div style={{ height: virtualizer.getTotalSize(), position: "relative", width: "100%" }}>
        {virtualizer.getVirtualItems().map((v) => {
          const row = rows[v.index];
          const style = {
            position: "absolute" as const,
            top: 0,
            left: 0,
            width: "100%",
            height: v.size,
            transform: `translateY(${v.start}px)`,
          };
          if (row.kind === "header") {
            const isCollapsed = collapsed.has(row.group);
            return (
              <div
                key={v.key}
                className="group-header"
                style={style}
                role="presentation"
                data-testid="group-header"
                data-group={row.group}
                onClick={() => row.group !== "results" && onToggleGroup(row.group)}
              >
                {row.group !== "results" && <span className="chevron">{isCollapsed ? "▸" : "▾"}</span>}
                <span>{row.label}</span>
                {row.group !== "results" && <span className="group-count">{row.count}</span>}
              </div>
            );
          }
          const it = row.item;
          const selected = row.key === openKey;
          const cursor = v.index === cursorIndex;
          // Names, descriptions and paths may come from files other tools wrote: shown escaped.
          const path = printable(it.path);
          return (
            <div
              key={v.key}
              id={`row-${v.index}`}
              role="option"
              aria-selected={selected}
              className={`memory-row ${selected ? "selected" : ""} ${cursor ? "cursor" : ""} ${it.valid ? "" : "invalid"} ${
                it.archived ? "archived" : ""
              } ${results ? "hit" : ""}`}
              style={style}
              data-testid="memory-row"
              data-cursor={cursor ? "true" : undefined}
              data-path={it.path}
              data-workspace={it.workspace}
              title={it.valid ? path : `${path}\n${printable(it.problem?.message ?? "Invalid memory file")}`}
              onMouseDown={(e) => {
                // Keep keyboard focus in the list so ↑/↓ keep working after a click.
                e.preventDefault();
                scrollRef.current?.focus();
              }}
              onClick={() => onOpen(it)}
            >
              <div className="row-line">
                {!it.valid && (
                  <span className="invalid-flag" aria-label="Invalid" title={it.problem?.message ?? "Invalid memory file"}>
                    ⚠
                  </span>
                )}
                {it.secret && (
                  <span
                    className="invalid-flag"
                    aria-label="Holds a secret"
                    title={`Holds what looks like a secret: ${it.secret}. Mnemo keeps it redacted; remove it from the file.`}
                  >
                    ⚿
                  </span>
                )}
                <span className="row-name">
                  <Marked text={printable(it.name || it.path)} query={marks(it, highlight)} />
                </span>
                {conflicted.has(it.key) && (
                  <span className="conflict-mark" role="img" aria-label="Sync conflict" title={CONFLICT_MARK_TITLE} data-testid="conflict-mark">
                    ⇅
                  </span>
                )}
                {it.pinned && (
                  <span className="pin-mark" role="img" aria-label="Pinned" title="Pinned: extraction and dream leave it alone" data-testid="pin-mark">
                    <PinIcon />
                  </span>
                )}
                {it.archived && (
                  <span className="archived-mark" data-testid="archived-mark" title={ARCHIVED_MARK_TITLE}>
                    <ArchiveIcon size={10} />
                    {ARCHIVED_MARK}
                  </span>
                )}
                <KindChip type={it.type} kind={it.kind} />
                {/* A search result's title keeps the first line: its relevance goes under it. */}
                {!results && <MatchHint score={it.score} vector={it.vector} lexical={it.lexical} />}
                {it.metric ? (
                  <span className="row-age row-usage" data-testid="row-usage" title={it.metric.title}>
                    {it.metric.text}
                  </span>
                ) : (
                  <span className="row-age">{formatAge(it.mtime)}</span>
                )}
              </div>
              <div className="row-line row-sub">
                {/* "New" / "Changed" opens the second line: at 1,000 px the title keeps the first. */}
                {unseen[it.key] && <UnseenChip mark={unseen[it.key]} />}
                {showWorkspace && <span className="row-ws">{printable(workspaceLabel(it.workspace))}</span>}
                <span className="row-desc">
                  {!it.valid ? (
                    printable(it.problem?.message ?? it.path)
                  ) : isRecord(it.kind) ? (
                    <RecordDesc
                      description={printable(it.description)}
                      fallback={it.kind === "chat" ? "Conversation record" : "Daily log"}
                      mtime={it.mtime}
                    />
                  ) : (
                    (it.description && <Marked text={printable(it.description)} query={marks(it, highlight)} />) || (
                      <span className="muted">{path}</span>
                    )
                  )}
                </span>
                {results && <MatchHint score={it.score} vector={it.vector} lexical={it.lexical} />}
              </div>
            </div>
          );
        })}
      </div>
    </div>
  );
});

/**
 * A row's chip: the memory's type, or "log" for a daily log and "chat" for a conversation record
 * (plain markdown, no type); none for a file without either.
 */
function KindChip({ type, kind }: { type: MemoryType | null; kind: DocKind | null }) {
  const chip = type ?? (isRecord(kind) ? kind : null);
  if (!chip) return null;
  return (
    <span
      className={`type-chip type-${chip}`}
      title={kind === "chat" ? "Conversation record: what you said in one chat on one day" : undefined}
    >
      {chip}
    </span>
  );
}

/** A daily log's or conversation record's line under its name: its description and when it last changed. */
function RecordDesc({ description, fallback, mtime }: { description: string; fallback: string; mtime: string | null }) {
  const changed = formatTime(mtime);
  return (
    <>
      {description || fallback}
      {changed && <span className="muted"> · last change {changed}</span>}
    </>
  );
}

/** A search hit's relevance as a bar, its "meaning" / "words" hint; the scores on hover. */
function MatchHint({ score, vector, lexical }: { score?: number | null; vector?: number | null; lexical?: number | null }) {
  const hint = matchHint(vector, lexical);
  if (!hint) return null;
  const scores = matchScores(vector, lexical);
  const percent = typeof score === "number" && Number.isFinite(score) ? Math.round(Math.min(1, Math.max(0, score)) * 100) : null;
  return (
    <span className="row-match" data-testid="match-hint" title={`Relevance ${percent ?? "?"} % — matched by ${scores}`}>
      {percent !== null && (
        <span className="score-bar" role="img" aria-label={`Relevance ${percent} %`} data-testid="score-bar" data-score={percent}>
          <span style={{ width: `${percent}%` }} />
        </span>
      )}
      {hint}
    </span>
  );
}

/** "New" / "Changed" until the person opens it, saying who wrote it. */
function UnseenChip({ mark }: { mark: UnseenMark }) {
  const word = mark.mark === "new" ? "New" : "Changed";
  const who = actorOf(mark.by).label;
  return (
    <span
      className={`unseen-chip unseen-${mark.mark}`}
      data-testid="unseen-mark"
      data-mark={mark.mark}
      data-by={mark.by}
      aria-label={`${word}, by ${who}`}
      title={`${mark.mark === "new" ? "Written" : "Changed"} by ${who} since you last looked`}
    >
      {word}
    </span>
  );
}

/** A push pin, drawn (a font may lack the emoji). */
function PinIcon() {
  return (
    <svg width="11" height="11" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path d="M10.5 1.5 14.5 5.5 12 6.5 9.5 9 9.8 12.3 8.6 13.5 5.8 10.7 2.5 14 2 13.5 5.3 10.2 2.5 7.4 3.7 6.2 7 6.5 9.5 4Z" fill="currentColor" />
    </svg>
  );
}

/** A text with the search's words marked. */
/** What a row highlights: the words search says it matched (never "the" or "user"), else the query. */
function marks(it: ListItem, highlight: string): string {
  if (!highlight.trim()) return "";
  return it.matched ? it.matched.join(" ") : highlight;
}

function Marked({ text, query }: { text: string; query: string }) {
  if (!query.trim()) return <>{text}</>;
  return (
    <>
      {matchPieces(text, query).map((p, i) => (p.hit ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
    </>
  );
}
