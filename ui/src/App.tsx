import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { ReactNode } from "react";
import { commands } from "./lib/bindings";
import type { DocSummary, Hit, Status, WorkspaceInfo, WriteOutcome } from "./lib/bindings";
import { onMemoryChanged, toUiError, unwrap } from "./lib/transport";
import type { UiError } from "./lib/transport";
import { docKey } from "./lib/format";
import { groupDocs, hitRows } from "./lib/rows";
import type { GroupId, ListItem } from "./lib/rows";
import { Sidebar } from "./components/Sidebar";
import type { View } from "./components/Sidebar";
import { MemoryList } from "./components/MemoryList";
import type { MemoryListHandle } from "./components/MemoryList";
import { DetailPane } from "./components/DetailPane";
import type { ChangeSignal, Target } from "./components/DetailPane";
import { HistoryPanel } from "./components/HistoryPanel";
import { ConfirmDialog } from "./components/ConfirmDialog";
import { InlineError } from "./components/InlineError";
import { useToast } from "./components/Toasts";
import { ChatPane } from "./components/ChatPane";

export const SEARCH_DEBOUNCE_MS = 120;
export const SEARCH_LIMIT = 200;
/** memory_changed events arriving within this window cause one reload. */
const EVENT_COALESCE_MS = 150;

interface Loaded<T> {
  /** The workspace filter the data was loaded for. */
  ws: string | null;
  data: T;
}

interface SearchResult {
  ws: string | null;
  q: string;
  hits: Hit[];
}

/** localStorage key remembering whether the chat pane is shown. */
export const CHAT_OPEN_KEY = "mnemo.chatOpen";

function readChatOpen(): boolean {
  try {
    return localStorage.getItem(CHAT_OPEN_KEY) !== "0";
  } catch {
    return true;
  }
}

const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);

export function App() {
  const toast = useToast();

  const [workspaces, setWorkspaces] = useState<WorkspaceInfo[]>([]);
  const [status, setStatus] = useState<Status | null>(null);
  const [selectedWs, setSelectedWs] = useState<string | null>(null);
  const [view, setView] = useState<View>("memories");
  const [docs, setDocs] = useState<Loaded<DocSummary[]> | null>(null);
  const [docsError, setDocsError] = useState<UiError | null>(null);
  const [query, setQuery] = useState("");
  const [search, setSearch] = useState<SearchResult | null>(null);
  const [searchError, setSearchError] = useState<UiError | null>(null);
  const [selectedKey, setSelectedKey] = useState<string | null>(null);
  const [target, setTarget] = useState<{ seq: number; target: Target } | null>(null);
  const [tick, setTick] = useState(0);
  const [change, setChange] = useState<ChangeSignal | null>(null);
  const [collapsed, setCollapsed] = useState<ReadonlySet<GroupId>>(new Set());
  const [pending, setPending] = useState<{ run: () => void } | null>(null);
  const [chatOpen, setChatOpen] = useState(readChatOpen);

  const dirtyRef = useRef(false);
  const searchRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<MemoryListHandle>(null);

  const refresh = useCallback(() => setTick((t) => t + 1), []);

  // Workspaces (with counts) and status.
  useEffect(() => {
    let cancelled = false;
    commands
      .workspaces()
      .then(unwrap)
      .then(
        (ws) => {
          if (!cancelled) setWorkspaces(ws);
        },
        (e: unknown) => {
          if (!cancelled) setDocsError(toUiError(e));
        },
      );
    commands
      .status()
      .then(unwrap)
      .then(
        (s) => {
          if (!cancelled) setStatus(s);
        },
        () => {},
      );
    return () => {
      cancelled = true;
    };
  }, [tick]);

  // The memory list of the selected workspace (or all).
  useEffect(() => {
    let cancelled = false;
    commands
      .list(selectedWs, null)
      .then(unwrap)
      .then(
        (data) => {
          if (cancelled) return;
          setDocs({ ws: selectedWs, data });
          setDocsError(null);
        },
        (e: unknown) => {
          if (!cancelled) setDocsError(toUiError(e));
        },
      );
    return () => {
      cancelled = true;
    };
  }, [selectedWs, tick]);

  // Instant search, debounced.
  const q = query.trim();
  useEffect(() => {
    if (!q) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      commands
        .search(selectedWs, q, SEARCH_LIMIT)
        .then(unwrap)
        .then(
          (hits) => {
            if (cancelled) return;
            setSearch({ ws: selectedWs, q, hits });
            setSearchError(null);
          },
          (e: unknown) => {
            if (!cancelled) setSearchError(toUiError(e));
          },
        );
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [q, selectedWs, tick]);

  // Live updates: coalesce bursts of memory_changed into one reload.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let batch: ChangeSignal["changes"] = [];
    let seq = 0;
    const flush = () => {
      timer = undefined;
      const changes = batch;
      batch = [];
      if (changes.length) setChange({ seq: ++seq, changes });
      setTick((t) => t + 1);
    };
    const unsubscribe = onMemoryChanged(
      (e) => {
        batch.push({ workspace: e.workspace, paths: e.paths });
        if (timer === undefined) timer = setTimeout(flush, EVENT_COALESCE_MS);
      },
      () => setTick((t) => t + 1),
    );
    return () => {
      unsubscribe();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, []);

  useEffect(() => {
    try {
      localStorage.setItem(CHAT_OPEN_KEY, chatOpen ? "1" : "0");
    } catch {
      // Storage unavailable (private mode): the choice lasts for this session only.
    }
  }, [chatOpen]);

  // Ctrl/Cmd+K focuses search.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "k") {
        e.preventDefault();
        setView("memories");
        searchRef.current?.focus();
        searchRef.current?.select();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  // Warn before closing the page with unsaved edits.
  useEffect(() => {
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (dirtyRef.current) e.preventDefault();
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => window.removeEventListener("beforeunload", onBeforeUnload);
  }, []);

  /** Runs `action` now, or after the user agrees to drop unsaved edits. */
  const guard = useCallback((action: () => void) => {
    if (dirtyRef.current) setPending({ run: action });
    else action();
  }, []);

  const open = useCallback((t: Target | null) => {
    dirtyRef.current = false;
    setTarget((prev) => (t ? { seq: (prev?.seq ?? 0) + 1, target: t } : null));
  }, []);

  const openKey =
    target?.target.mode === "existing" ? docKey(target.target.workspace, target.target.path) : null;

  const openItem = useCallback(
    (item: ListItem) => {
      setSelectedKey(item.key);
      if (item.key === openKey) return;
      guard(() => open({ mode: "existing", workspace: item.workspace, path: item.path }));
    },
    [guard, open, openKey],
  );

  const openPath = useCallback(
    (workspace: string, path: string) => {
      guard(() => {
        setView("memories");
        setSelectedKey(docKey(workspace, path));
        open({ mode: "existing", workspace, path });
      });
    },
    [guard, open],
  );

  const onDirtyChange = useCallback((dirty: boolean) => {
    dirtyRef.current = dirty;
  }, []);

  const onCreated = useCallback(
    (o: WriteOutcome) => {
      setSelectedKey(docKey(o.workspace, o.path));
      open({ mode: "existing", workspace: o.workspace, path: o.path });
      refresh();
    },
    [open, refresh],
  );

  const restore = useCallback(
    async (changeId: number, workspace: string, path: string) => {
      try {
        unwrap(await commands.undo(changeId));
        toast({ message: "Restored" });
        refresh();
        openPath(workspace, path);
      } catch (e) {
        toast({ kind: "error", message: `Undo failed: ${toUiError(e).message}` });
      }
    },
    [toast, refresh, openPath],
  );

  const onDeleted = useCallback(
    (o: WriteOutcome, name: string) => {
      open(null);
      refresh();
      const id = o.change_id;
      toast({
        message: `Deleted “${name}”`,
        timeout: 8000,
        action: id === null ? undefined : { label: "Undo", run: () => void restore(id, o.workspace, o.path) },
      });
    },
    [open, refresh, toast, restore],
  );

  const addFolder = useCallback(
    async (path: string): Promise<UiError | null> => {
      try {
        const ws = unwrap(await commands.addFolder(path));
        toast({ message: `Added folder “${ws.label}”` });
        setSelectedWs(ws.id);
        refresh();
        return null;
      } catch (e) {
        return toUiError(e);
      }
    },
    [toast, refresh],
  );

  const labels = useMemo(() => new Map(workspaces.map((w) => [w.id, w.label])), [workspaces]);
  const workspaceLabel = useCallback((id: string) => labels.get(id) ?? id, [labels]);

  const docList = useMemo(() => docs?.data ?? [], [docs]);
  const docMap = useMemo(() => new Map(docList.map((d) => [docKey(d.workspace, d.path), d])), [docList]);
  const docsLoading = !docs || docs.ws !== selectedWs;
  const searching = q !== "";
  const searchDone = !!search && search.q === q && search.ws === selectedWs;

  const rows = useMemo(() => {
    if (searching) return search ? hitRows(search.hits, docMap) : [];
    return docsLoading ? [] : groupDocs(docList, collapsed);
  }, [searching, search, docMap, docsLoading, docList, collapsed]);

  const toggleGroup = useCallback((g: GroupId) => {
    setCollapsed((prev) => {
      const next = new Set(prev);
      if (next.has(g)) next.delete(g);
      else next.add(g);
      return next;
    });
  }, []);

  let empty: ReactNode;
  if (searching) {
    if (searchError) empty = <InlineError error={searchError} />;
    else if (!searchDone) empty = <div className="empty">Searching…</div>;
    else
      empty = (
        <div className="empty">
          No matches for “<strong>{q}</strong>”.
        </div>
      );
  } else if (docsError && docsLoading) {
    empty = <InlineError error={docsError} />;
  } else if (docsLoading) {
    empty = <div className="empty">Loading…</div>;
  } else {
    empty = (
      <div className="empty">
        <div className="empty-title">No memories yet</div>
        <div className="muted">Create one with “New memory”, or add a folder of markdown memories.</div>
      </div>
    );
  }

  const selectedLabel = selectedWs === null ? "All workspaces" : workspaceLabel(selectedWs);
  const chatWs = selectedWs ?? "personal";

  return (
    <div className={chatOpen ? "app with-chat" : "app"}>
      <Sidebar
        workspaces={workspaces}
        status={status}
        selected={selectedWs}
        view={view}
        onSelect={setSelectedWs}
        onView={(v) => {
          if (v !== view) guard(() => setView(v));
        }}
        onAddFolder={addFolder}
        chatOpen={chatOpen}
        onToggleChat={() => setChatOpen((o) => !o)}
      />
      {view === "memories" ? (
        <>
          <section className="list-pane" aria-label="Memory list">
            <div className="list-toolbar">
              <input
                ref={searchRef}
                type="search"
                className="search"
                placeholder={`Search ${selectedLabel}  (${isMac ? "⌘" : "Ctrl+"}K)`}
                aria-label="Search memories"
                data-testid="search-input"
                value={query}
                spellCheck={false}
                onChange={(e) => setQuery(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                    e.preventDefault();
                    listRef.current?.move(e.key === "ArrowDown" ? 1 : -1);
                  } else if (e.key === "Enter") {
                    e.preventDefault();
                    listRef.current?.openSelected();
                  } else if (e.key === "Escape" && query) {
                    e.preventDefault();
                    setQuery("");
                  }
                }}
              />
              <button
                type="button"
                className="primary"
                data-testid="new-memory-button"
                title="New memory"
                onClick={() => guard(() => open({ mode: "new", workspace: selectedWs }))}
              >
                New
              </button>
            </div>
            {docsError && !docsLoading && !searching && <InlineError error={docsError} />}
            <MemoryList
              ref={listRef}
              rows={rows}
              selectedKey={selectedKey}
              openKey={openKey}
              showWorkspace={selectedWs === null}
              workspaceLabel={workspaceLabel}
              collapsed={collapsed}
              empty={empty}
              onSelect={(it) => setSelectedKey(it.key)}
              onOpen={openItem}
              onToggleGroup={toggleGroup}
            />
          </section>
          <main className="detail-pane">
            {target ? (
              <DetailPane
                key={target.seq}
                target={target.target}
                workspaces={workspaces}
                change={change}
                onDirtyChange={onDirtyChange}
                onCreated={onCreated}
                onSaved={refresh}
                onDeleted={onDeleted}
                onClose={() => open(null)}
                onRecreate={(t) => open(t)}
              />
            ) : (
              <div className="empty detail-empty">
                <div className="empty-title">No memory selected</div>
                <div className="muted">
                  Pick one from the list (↑/↓, Enter), or press {isMac ? "⌘" : "Ctrl+"}K to search.
                </div>
              </div>
            )}
          </main>
        </>
      ) : (
        <main className="history-pane" aria-label="History">
          <header className="pane-header">
            <h1>History — {selectedLabel}</h1>
          </header>
          <HistoryPanel
            wide
            workspace={selectedWs}
            path={null}
            refreshKey={tick}
            onOpen={openPath}
            onUndone={refresh}
          />
        </main>
      )}
      {chatOpen && (
        <ChatPane
          key={chatWs}
          workspace={chatWs}
          workspaceLabel={workspaceLabel(chatWs)}
          onOpenMemory={openPath}
          onClose={() => setChatOpen(false)}
        />
      )}
      {pending && (
        <ConfirmDialog
          title="Discard unsaved changes?"
          confirmLabel="Discard"
          cancelLabel="Keep editing"
          danger
          onConfirm={() => {
            const run = pending.run;
            setPending(null);
            dirtyRef.current = false;
            run();
          }}
          onCancel={() => setPending(null)}
        >
          <p>The open memory has edits that are not saved.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
