import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { commands } from "../../lib/bindings";
import type { MemoryDetail, RemoteSync, SyncConflict, WorkspaceInfo, WriteOutcome } from "../../lib/bindings";
import { canRun, toUiError, unwrap } from "../../lib/transport";
import type { UiError } from "../../lib/transport";
import { isRecord, logDay } from "../../lib/format";
import { printable } from "../../lib/printable";
import type { Draft, Target } from "../../lib/browser";
import { EMPTY_DRAFT, defaultWorkspace, draftOf, fieldOf, nameClash, sameDraft, sharedNote } from "../../lib/detail";
import { useCommand } from "../../lib/useCommand";
import { memoryWritten, readMemory, useMemory } from "../../lib/queries";
import { conflictsFor } from "../../lib/memoryConflicts";
import { settledSentence } from "../../lib/inbox";
import { ConfirmDialog } from "../common/ConfirmDialog";
import { HistoryPanel } from "./HistoryPanel";
import { InlineError } from "../common/InlineError";
import { ArchivedNote } from "./ArchiveToggle";
import { DetailHeader, DetailTabs } from "./DetailHeader";
import { DiskBanners } from "./DiskBanners";
import type { DiskState } from "./DiskBanners";
import { MemoryForm } from "./MemoryForm";
import type { BodyView } from "./MemoryForm";
import { NotLoaded, ReadOnlyBody } from "./ReadOnlyBody";
import { ReplaceDialog } from "./ReplaceDialog";
import { SyncConflictBanner } from "./SyncConflictBanner";
import { useConflictChoice } from "./useConflictChoice";
import { useCuration } from "./useCuration";
import { useToast } from "../common/Toasts";
import type { CopySource } from "../transfer/CopyDialog";

interface Props {
  target: Target;
  workspaces: WorkspaceInfo[];
  onDirtyChange: (dirty: boolean) => void;
  /** A save started (`true`) or ended. */
  onSavingChange?: (saving: boolean) => void;
  onCreated: (outcome: WriteOutcome) => void;
  onSaved: (outcome: WriteOutcome) => void;
  onDeleted: (outcome: WriteOutcome, name: string) => void;
  /** Close the pane; the user has already agreed to lose edits, if any. */
  onClose: () => void;
  /**
   * Cancel on a new memory: close it, asking first when something was typed (it was once
   * dropped without asking). Absent: `onClose`.
   */
  onCancel?: () => void;
  /** Re-open as a new memory (the file was deleted on disk but the user keeps the edits). */
  onRecreate: (target: Target) => void;
  /** Copy / Move… the memory to another workspace. */
  onCopy?: (source: CopySource) => void;
  /** The home's sync status as the app last read it: the open memory's sync conflicts come from it. */
  sync?: RemoteSync | null;
  /** Put the focus on the memory's heading once it is read (it came back by Undo). */
  focusHeading?: boolean;
  /** The heading took the focus: the request is spent (a later reload or remount must not take it again). */
  onHeadingFocused?: () => void;
}

export function DetailPane(props: Props) {
  const { target, workspaces, onDirtyChange, onSavingChange, onCreated, onSaved, onDeleted, onClose, onCancel = onClose, onRecreate, onCopy, sync = null, focusHeading = false, onHeadingFocused } = props;
  const toast = useToast();
  const { run } = useCommand();
  const isNew = target.mode === "new";
  // The memory as the cache holds it: read as the pane opens, and again when a change event names
  // it (an edit elsewhere, a job) or a write here reads it (`readMemory`).
  const memory = useMemory(target.workspace ?? "", target.path ?? "", target.mode === "existing");

  // The version the editor's fields started from (a save sends its hash): the memory as read, until
  // unsaved edits keep it from following a newer one (the banner then offers it).
  const [base, setBase] = useState<MemoryDetail | null>(null);
  const [form, setForm] = useState<Draft>(() => (target.mode === "new" ? (target.draft ?? EMPTY_DRAFT) : EMPTY_DRAFT));
  const [newWorkspace, setNewWorkspace] = useState(() => defaultWorkspace(target.workspace, workspaces));
  const [newPath, setNewPath] = useState(target.mode === "new" ? (target.path ?? "") : "");
  const [error, setError] = useState<UiError | null>(null);
  const [saving, setSaving] = useState(false);
  const [tab, setTab] = useState<"memory" | "history">("memory");
  const [bodyView, setBodyView] = useState<BodyView>("edit");
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [disk, setDisk] = useState<DiskState>(null);
  const [gone, setGone] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const loaded = base !== null;
  // Once per restore: the request is spent here, so a reload or a remount of the same memory
  // (after a dream or a sync changed it) never pulls the focus back from where the person went.
  useEffect(() => {
    if (!focusHeading || !loaded) return;
    headingRef.current?.focus();
    onHeadingFocused?.();
  }, [focusHeading, loaded, onHeadingFocused]);

  // A daily log or a conversation record: plain markdown, its body only (no name, description or type).
  const record = !isNew && base && isRecord(base.kind) ? base.kind : null;
  const readOnly = !isNew && (!base || base.content === null || !base.valid || gone);
  const dirty = isNew
    ? !sameDraft(form, target.draft ?? EMPTY_DRAFT, false) || !!target.draft
    : !!base && !readOnly && !sameDraft(form, draftOf(base), record !== null);

  // Latest values for callbacks that outlive a render (window listeners, async completions).
  // A layout effect: a key pressed right after the memory appears must already see it (a passive
  // effect could still be pending, and Ctrl+S would then do nothing and say nothing).
  const live = useRef({ base, form, dirty, saving });
  useLayoutEffect(() => {
    live.current = { base, form, dirty, saving };
  });

  // A layout effect, so the parent's guard sees the new state before the next click is handled
  // (a passive effect could still be pending and raise a stale "Discard unsaved changes?").
  useLayoutEffect(() => {
    onDirtyChange(dirty);
  }, [dirty, onDirtyChange]);
  useEffect(() => () => onDirtyChange(false), [onDirtyChange]);
  useLayoutEffect(() => {
    onSavingChange?.(saving);
  }, [saving, onSavingChange]);
  useEffect(() => () => onSavingChange?.(false), [onSavingChange]);

  /**
   * The memory as read now (the first read, a change on disk, a read after a write): taken as it is
   * when nothing is edited, else offered by a banner; never clobbers unsaved edits.
   */
  const reconcile = useCallback((fresh: MemoryDetail) => {
    const now = live.current;
    if (!now.base) {
      setBase(fresh);
      setForm(draftOf(fresh));
      return;
    }
    if (now.saving || fresh.hash === now.base.hash) return;
    if (now.dirty) setDisk({ kind: "changed", fresh });
    else {
      setBase(fresh);
      setForm(draftOf(fresh));
      setDisk(null);
    }
    setGone(false);
  }, []);

  /** The memory could not be read again: gone from disk, banner or not as edits wait. */
  const lost = useCallback((error: UiError) => {
    const now = live.current;
    if (!now.base || now.saving || error.code !== "not_found") return;
    if (now.dirty) setDisk({ kind: "deleted" });
    else setGone(true);
  }, []);

  useEffect(() => {
    if (memory.data) reconcile(memory.data);
  }, [memory.data, reconcile]);
  useEffect(() => {
    if (memory.error) lost(memory.error);
  }, [memory.error, lost]);

  /** Reads the file again now (Compare with disk, after an undo); never clobbers unsaved edits. */
  const checkDisk = useCallback(async () => {
    const cur = live.current.base;
    if (!cur || live.current.saving) return;
    const answer = await run(readMemory(cur.workspace, cur.path));
    if (!answer) return;
    if (answer.ok) reconcile(answer.data);
    else lost(answer.error);
  }, [run, reconcile, lost]);

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
        const answer = await commands.create(newWorkspace, {
          path: newPath.trim() || null,
          name: f.name,
          description: f.description,
          type: f.type || "user",
          body: f.body,
        });
        if (answer.status === "error") {
          const e = toUiError(answer.error);
          setError(nameClash(e, newPath) ?? e);
          return;
        }
        const outcome = answer.data;
        onDirtyChange(false);
        toast({ message: outcome.shared ? `Created. ${sharedNote(outcome.shared)}` : "Created" });
        onCreated(outcome);
        return;
      }
      if (!cur) return;
      const bodyOnly = isRecord(cur.kind);
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
      void memoryWritten(cur.workspace, cur.path);
      // The save succeeded; a failed re-read only means the next change event will catch up.
      const fresh = await readMemory(cur.workspace, cur.path);
      if (fresh.status === "ok") {
        const typedSince = !sameDraft(live.current.form, f, bodyOnly);
        setBase(fresh.data);
        if (!typedSince) setForm(draftOf(fresh.data));
      }
    } catch (e) {
      setError(toUiError(e));
    } finally {
      live.current.saving = false;
      setSaving(false);
    }
  }, [target, readOnly, newWorkspace, newPath, onDirtyChange, onCreated, onSaved, toast]);

  // Ctrl/Cmd+S anywhere while the pane is open — but not over a dialog (Ctrl+S in Settings once
  // saved this memory and said "Saved" while the typed URL was not), nor for an
  // existing memory without changes (nothing to save: nothing is written, nothing claimed).
  // A layout effect, like `live`: Ctrl+S pressed the moment a memory appears must meet a listener
  // that knows it is loaded (a passive effect could still be pending, and the stale listener,
  // taking the memory for read-only, would do nothing and say nothing).
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.key.toLowerCase() !== "s") return;
      if (e.defaultPrevented || document.querySelector('[aria-modal="true"]')) return;
      e.preventDefault();
      if (!isNew && !live.current.dirty) {
        if (live.current.base && !readOnly) toast({ message: "No changes to save." });
        return;
      }
      void save();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [save, isNew, readOnly, toast]);

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

  /** Take a version the server wrote for us (pin, archive, replace): no unsaved edits to keep. */
  const adopt = useCallback((fresh: MemoryDetail) => {
    setError(null);
    setBase(fresh);
    live.current.base = fresh;
    setForm(draftOf(fresh));
    setDisk(null);
    void memoryWritten(fresh.workspace, fresh.path);
  }, []);

  const onPinned = (fresh: MemoryDetail | null, e: UiError | null) => {
    if (e || !fresh) {
      setError(e);
      return;
    }
    adopt(fresh);
    toast({ message: fresh.pinned ? "Pinned: extraction and dream will leave it alone" : "Unpinned" });
  };

  const reread = useCallback(async () => {
    const cur = live.current.base;
    const answer = cur ? await run(readMemory(cur.workspace, cur.path), "reread") : null;
    return answer?.ok ? answer.data : null;
  }, [run]);
  const curation = useCuration({ base, adopt, reread, checkDisk: () => void checkDisk(), onSaved, onError: setError });

  // Sync conflicts of this memory: a banner with the choices, and their facts kept out of the current ones.
  const conflicts = useMemo(
    () => (target.mode === "existing" ? conflictsFor(sync, target.workspace, target.path) : []),
    [sync, target],
  );
  // The button pressed went with its conflict: the focus then goes to the memory's heading, not nowhere.
  const refocus = useRef(false);
  const onSettled = useCallback(
    (c: SyncConflict, keep: number | null) => {
      toast({ message: settledSentence(c, keep) });
      refocus.current = true;
      // The choice may have rewritten the file: take it as it is now.
      void reread().then((fresh) => {
        if (fresh) adopt(fresh);
      });
    },
    [toast, reread, adopt],
  );
  const choice = useConflictChoice(conflicts, dirty, onSettled);
  const openConflicts = choice.open.length;
  useEffect(() => {
    if (!refocus.current) return;
    refocus.current = false;
    if (!document.activeElement || document.activeElement === document.body) headingRef.current?.focus();
  }, [openConflicts]);

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setForm((f) => ({ ...f, [key]: value }));
  const onBody = useCallback((body: string) => setForm((f) => (f.body === body ? f : { ...f, body })), []);

  if (target.mode === "existing" && !base) return <NotLoaded error={memory.error} onClose={onClose} />;

  const workspaceId = isNew ? newWorkspace : (base?.workspace ?? "");
  const wsLabel = workspaces.find((w) => w.id === workspaceId)?.label ?? workspaceId;
  const title = isNew
    ? form.name || "New memory"
    : record === "log" && base
      ? `Daily log ${logDay(base.path) ?? base.name}`
      : base?.name || base?.path || "";
  const what = record === "log" ? "daily log" : record === "chat" ? "conversation record" : "memory";

  // The field a refusal is about, so the message sits under it and the field is marked.
  const badField = error ? fieldOf(error, isNew ? { path: newPath } : undefined) : null;
  const errorBox = error && (
    <InlineError error={error}>
      {error.code === "conflict" && !isNew && (
        <button type="button" className="link-button" onClick={() => void checkDisk()}>
          Compare with disk
        </button>
      )}
    </InlineError>
  );

  const topic = !isNew && !readOnly && base?.kind === "topic";

  return (
    <section className="detail" aria-label="Memory">
      <DetailHeader
        isNew={isNew}
        title={title}
        wsLabel={wsLabel}
        base={base}
        readOnly={readOnly}
        dirty={dirty}
        saving={saving}
        onOpenFolder={!isNew && canRun("open_folder") ? () => void openFolder(workspaceId) : null}
        onPinned={onPinned}
        archiving={curation.archive.busy}
        onArchive={() => void curation.archive.toggle()}
        onCopy={onCopy && base ? () => onCopy({ workspace: base.workspace, path: base.path, name: base.name || base.path }) : null}
        onDelete={() => setConfirmDelete(true)}
        onSave={() => void save()}
        onCancel={onCancel}
        headingRef={headingRef}
      />

      {!isNew && <SyncConflictBanner choice={choice} />}

      {!isNew && <DetailTabs tab={tab} onTab={setTab} />}

      <DiskBanners
        disk={disk?.kind === "deleted" && !base ? null : disk}
        gone={gone}
        what={what}
        onReload={(fresh) => {
          setBase(fresh);
          setForm(draftOf(fresh));
          setDisk(null);
        }}
        onKeepMine={(fresh) => {
          // Keep the edits, based on the new version: the next save overwrites it.
          setBase(fresh);
          setDisk(null);
        }}
        onRecreate={() => base && onRecreate({ mode: "new", workspace: base.workspace, path: base.path, draft: form })}
        onClose={onClose}
      />

      {topic && base?.archived && (
        <ArchivedNote busy={curation.archive.busy} dirty={dirty} onRestore={() => void curation.archive.toggle()} />
      )}
      {base?.secret && (
        <div className="problem" role="note" data-testid="detail-secret">
          <strong>This file holds what looks like a secret</strong> ({base.secret}). Another program wrote it. Mnemo
          shows it here with the secret removed, and keeps the secret out of its index, its history and every prompt;
          memory jobs leave this file alone. Remove the secret from the file: saving here writes it without the secret.
        </div>
      )}
      {tab === "history" && base ? (
        <HistoryPanel workspace={base.workspace} path={base.path} onUndone={() => void checkDisk()} />
      ) : readOnly && base ? (
        <ReadOnlyBody detail={base} />
      ) : (
        <MemoryForm
          isNew={isNew}
          record={record}
          form={form}
          onField={set}
          onBody={onBody}
          onSubmit={() => void save()}
          workspaces={workspaces}
          newWorkspace={newWorkspace}
          onNewWorkspace={setNewWorkspace}
          newPath={newPath}
          onNewPath={setNewPath}
          badField={badField}
          errorBox={errorBox}
          view={bodyView}
          onView={setBodyView}
          facts={topic && base ? { entries: base.entries, dirty, onReplace: curation.startReplace, conflicts: choice } : null}
        />
      )}

      {curation.replacing && base && (
        <ReplaceDialog
          workspace={base.workspace}
          path={base.path}
          entry={curation.replacing.entry}
          text={curation.replacing.text}
          onReplaced={(outcome) => void curation.onReplaced(outcome)}
          onReload={() => {
            curation.closeReplace();
            void checkDisk();
          }}
          onClose={curation.closeReplace}
        />
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
            <strong>{printable(base.name || base.path)}</strong> (<code>{printable(base.path)}</code>) will be removed from {printable(wsLabel)}. You can
            undo this from History.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
