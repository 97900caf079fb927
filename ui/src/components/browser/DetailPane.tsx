import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { commands } from "../../lib/bindings";
import type { MemoryDetail, MemoryType, WorkspaceInfo, WriteOutcome } from "../../lib/bindings";
import { canRun, toUiError, unwrap } from "../../lib/transport";
import type { UiError } from "../../lib/transport";
import { formatTime, logDay, MEMORY_TYPES, TYPE_LABELS } from "../../lib/format";
import type { ChangeSignal, Draft, Target } from "../../lib/browser";
import { useCommand } from "../../lib/useCommand";
import { ConfirmDialog } from "../common/ConfirmDialog";
import { HistoryPanel } from "./HistoryPanel";
import { InlineError } from "../common/InlineError";
import { MarkdownEditor } from "./MarkdownEditor";
import { MarkdownPreview } from "./MarkdownPreview";
import { PinToggle } from "./PinToggle";
import { useToast } from "../common/Toasts";

interface Props {
  target: Target;
  workspaces: WorkspaceInfo[];
  change: ChangeSignal | null;
  onDirtyChange: (dirty: boolean) => void;
  onCreated: (outcome: WriteOutcome) => void;
  onSaved: (outcome: WriteOutcome) => void;
  onDeleted: (outcome: WriteOutcome, name: string) => void;
  /** Close the pane; the user has already agreed to lose edits, if any. */
  onClose: () => void;
  /** Re-open as a new memory (the file was deleted on disk but the user keeps the edits). */
  onRecreate: (target: Target) => void;
}

const EMPTY_DRAFT: Draft = { name: "", description: "", type: "user", body: "" };

function draftOf(d: MemoryDetail): Draft {
  return { name: d.name, description: d.description, type: d.type ?? "", body: d.body };
}

function sameDraft(a: Draft, b: Draft, bodyOnly: boolean): boolean {
  if (a.body !== b.body) return false;
  return bodyOnly || (a.name === b.name && a.description === b.description && a.type === b.type);
}

function defaultWorkspace(target: string | null, workspaces: WorkspaceInfo[]): string {
  if (target) return target;
  return (
    workspaces.find((w) => w.id === "personal")?.id ??
    workspaces.find((w) => w.kind === "mnemo")?.id ??
    workspaces[0]?.id ??
    "personal"
  );
}

type DiskState = { kind: "changed"; fresh: MemoryDetail } | { kind: "deleted" } | null;

export function DetailPane(props: Props) {
  const { target, workspaces, change, onDirtyChange, onCreated, onSaved, onDeleted, onClose, onRecreate } =
    props;
  const toast = useToast();
  const { run, cancel } = useCommand();
  const isNew = target.mode === "new";

  const [base, setBase] = useState<MemoryDetail | null>(null);
  const [loadError, setLoadError] = useState<UiError | null>(null);
  const [form, setForm] = useState<Draft>(() => (target.mode === "new" ? (target.draft ?? EMPTY_DRAFT) : EMPTY_DRAFT));
  const [newWorkspace, setNewWorkspace] = useState(() => defaultWorkspace(target.workspace, workspaces));
  const [newPath, setNewPath] = useState(target.mode === "new" ? (target.path ?? "") : "");
  const [error, setError] = useState<UiError | null>(null);
  const [saving, setSaving] = useState(false);
  const [tab, setTab] = useState<"memory" | "history">("memory");
  const [bodyView, setBodyView] = useState<"edit" | "preview">("edit");
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [disk, setDisk] = useState<DiskState>(null);
  const [gone, setGone] = useState(false);
  const [historyKey, setHistoryKey] = useState(0);

  const isLog = base?.kind === "log";
  const readOnly = !isNew && (!base || base.content === null || !base.valid || gone);
  const dirty = isNew
    ? !sameDraft(form, target.draft ?? EMPTY_DRAFT, false) || !!target.draft
    : !!base && !readOnly && !sameDraft(form, draftOf(base), isLog);

  // Latest values for callbacks that outlive a render (window listeners, async completions).
  const live = useRef({ base, form, dirty, saving });
  useEffect(() => {
    live.current = { base, form, dirty, saving };
  });

  // A layout effect, so the parent's guard sees the new state before the next click is handled
  // (a passive effect could still be pending and raise a stale "Discard unsaved changes?").
  useLayoutEffect(() => {
    onDirtyChange(dirty);
  }, [dirty, onDirtyChange]);
  useEffect(() => () => onDirtyChange(false), [onDirtyChange]);

  // Load the memory.
  useEffect(() => {
    if (target.mode !== "existing") return;
    void run(commands.get(target.workspace, target.path), "load").then((answer) => {
      if (!answer) return;
      if (answer.ok) {
        setBase(answer.data);
        setForm(draftOf(answer.data));
      } else setLoadError(answer.error);
    });
    return () => cancel("load");
  }, [run, cancel, target]);

  /** Re-reads the file after a change on disk; never clobbers unsaved edits. */
  const checkDisk = useCallback(async () => {
    const cur = live.current.base;
    if (!cur || live.current.saving) return;
    const answer = await run(commands.get(cur.workspace, cur.path));
    if (!answer) return;
    if (!answer.ok) {
      if (answer.error.code !== "not_found") return;
      if (live.current.dirty) setDisk({ kind: "deleted" });
      else setGone(true);
      return;
    }
    const fresh = answer.data;
    const now = live.current;
    if (!now.base || fresh.hash === now.base.hash) return;
    if (now.dirty) setDisk({ kind: "changed", fresh });
    else {
      setBase(fresh);
      setForm(draftOf(fresh));
      setDisk(null);
    }
    setGone(false);
  }, [run]);

  useEffect(() => {
    if (!change || target.mode !== "existing") return;
    const touched = change.changes.some((c) => c.workspace === target.workspace && c.paths.includes(target.path));
    if (!touched) return;
    void checkDisk();
  }, [change, target, checkDisk]);

  const save = useCallback(async () => {
    const { base: cur, form: f, saving: busy } = live.current;
    if (busy) return;
    if (target.mode === "existing" && (!cur || readOnly)) return;
    if (target.mode === "new" && !f.type) {
      setError({ code: "invalid_type", message: "Choose a type." });
      return;
    }
    setSaving(true);
    live.current.saving = true;
    setError(null);
    try {
      if (target.mode === "new") {
        const outcome = unwrap(
          await commands.create(newWorkspace, {
            path: newPath.trim() || null,
            name: f.name,
            description: f.description,
            type: f.type || "user",
            body: f.body,
          }),
        );
        onDirtyChange(false);
        toast({ message: outcome.shared ? `Created. ${sharedNote(outcome.shared)}` : "Created" });
        onCreated(outcome);
        return;
      }
      if (!cur) return;
      const bodyOnly = cur.kind === "log";
      const outcome = unwrap(
        await commands.update(cur.workspace, cur.path, {
          name: bodyOnly ? null : f.name,
          description: bodyOnly ? null : f.description,
          type: bodyOnly ? null : f.type || null,
          body: f.body,
          expected_hash: cur.hash,
        }),
      );
      // Adopt what was saved at once, so the change event for our own write is not taken for an
      // outside edit; then re-read the file for the server's view of it.
      const saved: MemoryDetail = {
        ...cur,
        name: f.name,
        description: f.description,
        type: bodyOnly ? cur.type : f.type || null,
        body: f.body,
        hash: outcome.hash ?? cur.hash,
      };
      setBase(saved);
      live.current.base = saved;
      setDisk(null);
      toast({ message: outcome.shared ? `Saved. ${sharedNote(outcome.shared)}` : "Saved" });
      onSaved(outcome);
      setHistoryKey((k) => k + 1);
      try {
        const fresh = unwrap(await commands.get(cur.workspace, cur.path));
        const typedSince = !sameDraft(live.current.form, f, bodyOnly);
        setBase(fresh);
        if (!typedSince) setForm(draftOf(fresh));
      } catch {
        // The save succeeded; a failed re-read only means the next change event will catch up.
      }
    } catch (e) {
      setError(toUiError(e));
    } finally {
      live.current.saving = false;
      setSaving(false);
    }
  }, [target, readOnly, newWorkspace, newPath, onDirtyChange, onCreated, onSaved, toast]);

  // Ctrl/Cmd+S anywhere while the pane is open.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "s") {
        e.preventDefault();
        void save();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [save]);

  const doDelete = async () => {
    if (!base) return;
    setDeleting(true);
    try {
      const outcome = unwrap(await commands.remove(base.workspace, base.path));
      setConfirmDelete(false);
      onDirtyChange(false);
      onDeleted(outcome, base.name || base.path);
    } catch (e) {
      setConfirmDelete(false);
      setError(toUiError(e));
    } finally {
      setDeleting(false);
    }
  };

  const openFolder = async (workspace: string) => {
    try {
      unwrap(await commands.openFolder(workspace));
    } catch (e) {
      toast({ kind: "error", message: toUiError(e).message });
    }
  };

  const onPinned = (fresh: MemoryDetail | null, e: UiError | null) => {
    if (e || !fresh) {
      setError(e);
      return;
    }
    setError(null);
    setBase(fresh);
    live.current.base = fresh;
    setForm(draftOf(fresh));
    setHistoryKey((k) => k + 1);
    toast({ message: fresh.pinned ? "Pinned: extraction and dream will leave it alone" : "Unpinned" });
  };

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setForm((f) => ({ ...f, [key]: value }));
  const onBody = useCallback((body: string) => setForm((f) => (f.body === body ? f : { ...f, body })), []);

  if (target.mode === "existing" && !base) {
    return (
      <section className="detail" aria-label="Memory">
        {loadError ? (
          <div className="detail-body">
            <InlineError error={loadError} />
            <button type="button" onClick={onClose}>
              Close
            </button>
          </div>
        ) : (
          <div className="empty">Loading…</div>
        )}
      </section>
    );
  }

  const workspaceId = isNew ? newWorkspace : (base?.workspace ?? "");
  const wsLabel = workspaces.find((w) => w.id === workspaceId)?.label ?? workspaceId;
  const title = isNew
    ? form.name || "New memory"
    : isLog && base
      ? `Daily log ${logDay(base.path) ?? base.name}`
      : base?.name || base?.path || "";
  const what = isLog ? "daily log" : "memory";

  // The field a refusal is about, so the message sits under it and the field is marked.
  const badField = error ? fieldOf(error) : null;
  const errorBox = error && (
    <InlineError error={error}>
      {error.code === "conflict" && !isNew && (
        <button type="button" className="link-button" onClick={() => void checkDisk()}>
          Compare with disk
        </button>
      )}
    </InlineError>
  );

  return (
    <section className="detail" aria-label="Memory">
      <header className="detail-header">
        <div className="detail-title">
          <h1 title={title}>{title}</h1>
          <div className="muted detail-subtitle">
            {isNew ? (
              <>New memory in {wsLabel}</>
            ) : (
              <>
                {base?.pinned && (
                  <span
                    className="pin-chip"
                    data-testid="pinned-marker"
                    title="Pinned: extraction and dream never change or delete it"
                  >
                    pinned
                  </span>
                )}
                <span>{wsLabel}</span> · <code>{base?.path}</code>
                {base?.mtime && <> · modified {formatTime(base.mtime)}</>}
              </>
            )}
          </div>
        </div>
        <div className="actions">
          {!isNew && canRun("open_folder") && (
            <button type="button" onClick={() => void openFolder(workspaceId)} title="Show the memory folder">
              Open folder
            </button>
          )}
          {!isNew && !readOnly && base?.kind === "topic" && (
            <PinToggle detail={base} dirty={dirty} onChanged={onPinned} />
          )}
          {!isNew && !readOnly && (
            <button
              type="button"
              className="danger-outline"
              data-testid="delete-button"
              onClick={() => setConfirmDelete(true)}
            >
              Delete
            </button>
          )}
          {(isNew || !readOnly) && (
            <button
              type="button"
              className="primary"
              data-testid="save-button"
              onClick={() => void save()}
              disabled={saving || (!isNew && !dirty)}
              title="Save (Ctrl/⌘+S)"
            >
              {saving ? "Saving…" : isNew ? "Create" : "Save"}
            </button>
          )}
          {isNew && (
            <button type="button" onClick={onClose} title="Discard this new memory">
              Cancel
            </button>
          )}
        </div>
      </header>

      {!isNew && (
        <div className="tabs" role="tablist">
          <button type="button" role="tab" aria-selected={tab === "memory"} onClick={() => setTab("memory")}>
            Memory
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={tab === "history"}
            data-testid="history-tab"
            onClick={() => setTab("history")}
          >
            History
          </button>
        </div>
      )}

      {disk?.kind === "changed" && (
        <div className="banner" role="alert" data-testid="disk-banner">
          <span>This memory changed on disk while you were editing.</span>
          <button
            type="button"
            onClick={() => {
              setBase(disk.fresh);
              setForm(draftOf(disk.fresh));
              setDisk(null);
            }}
          >
            Reload
          </button>
          <button
            type="button"
            onClick={() => {
              // Keep the edits, based on the new version: the next save overwrites it.
              setBase(disk.fresh);
              setDisk(null);
            }}
          >
            Keep mine
          </button>
        </div>
      )}
      {disk?.kind === "deleted" && base && (
        <div className="banner" role="alert" data-testid="disk-banner">
          <span>This memory was deleted on disk while you were editing.</span>
          <button type="button" onClick={onClose}>
            Discard
          </button>
          <button
            type="button"
            onClick={() =>
              onRecreate({ mode: "new", workspace: base.workspace, path: base.path, draft: form })
            }
          >
            Keep mine
          </button>
        </div>
      )}
      {gone && (
        <div className="banner" role="status">
          <span>This {what} no longer exists on disk.</span>
          <button type="button" onClick={onClose}>
            Close
          </button>
        </div>
      )}

      {base?.secret && (
        <div className="problem" role="note" data-testid="detail-secret">
          <strong>This file holds what looks like a secret</strong> ({base.secret}). Another program wrote it. Mnemo
          shows it here with the secret removed, and keeps the secret out of its index, its history and every prompt;
          memory jobs leave this file alone. Remove the secret from the file: saving here writes it without the secret.
        </div>
      )}
      {tab === "history" && base ? (
        <HistoryPanel workspace={base.workspace} path={base.path} refreshKey={`${change?.seq ?? 0}/${historyKey}`} onUndone={() => void checkDisk()} />
      ) : readOnly && base ? (
        <div className="detail-body">
          {base.problem && (
            <div className="problem" data-testid="detail-problem">
              <strong>Mnemo cannot read this file as a memory</strong> ({base.problem.code}): {base.problem.message}
              <div className="muted">It is shown read-only and never changed.</div>
            </div>
          )}
          {!base.problem && !base.valid && <div className="problem">This file is not a valid memory; shown read-only.</div>}
          {base.content === null ? (
            <div className="empty">The content cannot be shown (binary, not UTF-8 or too large).</div>
          ) : (
            <pre className="raw" data-testid="detail-raw">
              {base.content}
            </pre>
          )}
        </div>
      ) : (
        <div className="detail-body">
          <form
            className="frontmatter"
            onSubmit={(e) => {
              e.preventDefault();
              void save();
            }}
          >
            {isNew && (
              <div className="field-row">
                <label className="field">
                  <span>Workspace</span>
                  <select
                    value={newWorkspace}
                    onChange={(e) => setNewWorkspace(e.target.value)}
                    data-testid="detail-workspace"
                  >
                    {workspaces.map((w) => (
                      <option key={w.id} value={w.id}>
                        {w.label}
                      </option>
                    ))}
                    {!workspaces.some((w) => w.id === newWorkspace) && <option value={newWorkspace}>{newWorkspace}</option>}
                  </select>
                </label>
                <label className="field grow">
                  <span>File</span>
                  <input
                    value={newPath}
                    onChange={(e) => setNewPath(e.target.value)}
                    placeholder="automatic, from the name"
                    data-testid="detail-path"
                    spellCheck={false}
                  />
                </label>
              </div>
            )}
            {!isLog && (
              <>
                <div className="field-row">
                  <label className="field grow">
                    <span>Name</span>
                    <input
                      value={form.name}
                      onChange={(e) => set("name", e.target.value)}
                      data-testid="detail-name"
                      aria-invalid={badField === "name" || undefined}
                      className={badField === "name" ? "invalid-field" : undefined}
                      placeholder="Response style"
                      autoFocus={isNew}
                    />
                  </label>
                  <label className="field">
                    <span>Type</span>
                    <select
                      value={form.type}
                      onChange={(e) => set("type", e.target.value as MemoryType)}
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
                    onChange={(e) => set("description", e.target.value)}
                    data-testid="detail-description"
                    aria-invalid={badField === "description" || undefined}
                    className={badField === "description" ? "invalid-field" : undefined}
                    placeholder="One specific line: used to judge relevance"
                  />
                </label>
                {badField === "description" && errorBox}
              </>
            )}
            {(isLog || badField === null) && errorBox}
            <button type="submit" hidden />
          </form>
          <div className="body-toolbar">
            <span className="muted">{isLog ? "Daily log" : "Body"}</span>
            <div className="segmented" role="group" aria-label="Body view">
              <button type="button" aria-pressed={bodyView === "edit"} onClick={() => setBodyView("edit")}>
                Edit
              </button>
              <button
                type="button"
                aria-pressed={bodyView === "preview"}
                data-testid="preview-toggle"
                onClick={() => setBodyView("preview")}
              >
                Preview
              </button>
            </div>
          </div>
          <div className="body-area">
            {bodyView === "edit" ? (
              <MarkdownEditor
                value={form.body}
                onChange={onBody}
                placeholder={isLog ? "Notes of the day." : "What to remember.\nWhy: …\nHow to apply: …"}
              />
            ) : (
              <MarkdownPreview source={form.body} />
            )}
          </div>
        </div>
      )}

      {confirmDelete && base && (
        <ConfirmDialog
          title={`Delete this ${what}?`}
          confirmLabel={deleting ? "Deleting…" : "Delete"}
          danger
          busy={deleting}
          confirmTestId="confirm-delete"
          onConfirm={() => void doDelete()}
          onCancel={() => setConfirmDelete(false)}
        >
          <p>
            <strong>{base.name || base.path}</strong> (<code>{base.path}</code>) will be removed from {wsLabel}. You can
            undo this from History.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** A write to a workspace shared through git (Qwen Code's team memory) says so plainly. */
export function sharedNote(shared: string): string {
  return `Shared through git: ${shared}.`;
}

/** Which form field an error is about (`null`: the whole file). */
export function fieldOf(error: UiError): "name" | "type" | "description" | null {
  if (error.code === "invalid_type") return "type";
  if (error.code !== "invalid_frontmatter" && error.code !== "invalid_content" && error.code !== "invalid_path") return null;
  if (/\bname\b/i.test(error.message)) return "name";
  if (/\bdescription\b/i.test(error.message)) return "description";
  if (/\btype\b/i.test(error.message)) return "type";
  return null;
}
