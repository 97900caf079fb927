import { forwardRef, useEffect, useImperativeHandle, useLayoutEffect, useRef, useState } from "react";
import { commands } from "../../lib/bindings";
import type { SyncSettings as Settings } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { runSummary, sameSyncForm, syncFormOf, syncSettingsOf } from "../../lib/sync";
import type { SyncForm } from "../../lib/sync";
import { useCommand } from "../../lib/useCommand";
import { invalidateSyncStatus } from "../../lib/changeBridge";
import { readOnce, reads } from "../../lib/queries";
import { InlineError } from "../common/InlineError";

interface Props {
  /** Focus the remote field once loaded (the dialog was opened to set up sync). */
  autoFocus?: boolean;
  /** The settings in effect after a save. */
  onSaved?: (settings: Settings) => void;
  /** Whether the form holds typed values not saved (the dialog asks before dropping them). */
  onDirtyChange?: (dirty: boolean) => void;
}

type Busy = "saving" | "syncing" | null;

/** What the dialog around the section does with it: its one Save button saves this form too. */
export interface SyncSettingsHandle {
  /** Saves the form: the settings in effect, or null when the save failed (or nothing is loaded). */
  save: () => Promise<Settings | null>;
  /** The form holds typed values not saved. */
  dirty: () => boolean;
  /** Whether `node` is inside this section's form (Ctrl+S saves the form that has the focus). */
  contains: (node: Node | null) => boolean;
}

/**
 * The settings dialog's Sync section: the git remote memory syncs through, who this machine's
 * changes are by, automatic sync, which coding assistants' memories go along; Sync now. Saved by
 * the dialog's one Save button (through the handle), or Enter in one of its fields.
 */
export const SyncSettings = forwardRef<SyncSettingsHandle, Props>(function SyncSettings({ autoFocus = false, onSaved, onDirtyChange }, ref) {
  const { run, cancel } = useCommand();
  const [loaded, setLoaded] = useState<Settings | null>(null);
  const [loadError, setLoadError] = useState<UiError | null>(null);
  const [form, setForm] = useState<SyncForm | null>(null);
  const [busy, setBusy] = useState<Busy>(null);
  const [error, setError] = useState<UiError | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);

  // Bumped by Retry after a failed load.
  const [loads, setLoads] = useState(0);

  useEffect(() => {
    // Read once for the form (through the shared cache): no later read may overwrite what is typed.
    void run(readOnce(reads.syncSettings()), "sync-settings").then((answer) => {
      if (!answer) return;
      if (answer.ok) {
        setLoaded(answer.data);
        setForm(syncFormOf(answer.data));
        setLoadError(null);
      } else setLoadError(answer.error);
    });
    return () => cancel("sync-settings");
  }, [run, cancel, loads]);

  // Opened to set up sync: the whole section in view, not just its first field.
  const sectionRef = useRef<HTMLElement>(null);
  const shown = form !== null;
  useEffect(() => {
    if (autoFocus && shown) sectionRef.current?.scrollIntoView?.({ block: "start" });
  }, [autoFocus, shown]);

  const reload = () => {
    setLoadError(null);
    setLoads((n) => n + 1);
  };

  const dirty = !!form && !!loaded && !sameSyncForm(form, syncFormOf(loaded));
  useEffect(() => {
    onDirtyChange?.(dirty);
  }, [dirty, onDirtyChange]);

  const set = <K extends keyof SyncForm>(k: K, v: SyncForm[K]) => {
    setForm((f) => (f ? { ...f, [k]: v } : f));
    setResult(null);
  };

  /** Saves the form; the settings in effect, or null when the save failed. */
  const save = async (): Promise<Settings | null> => {
    if (!form) return null;
    setBusy("saving");
    setError(null);
    const answer = await run(commands.setSyncSettings(syncSettingsOf(form, loaded)));
    if (!answer) return null;
    setBusy(null);
    if (!answer.ok) {
      setError(answer.error);
      return null;
    }
    setLoaded(answer.data);
    setForm(syncFormOf(answer.data));
    void invalidateSyncStatus();
    onSaved?.(answer.data);
    return answer.data;
  };

  /** Syncs every workspace now, saving the form first when it was changed. */
  const syncNow = async () => {
    setResult(null);
    if (dirty && !(await save())) return;
    setBusy("syncing");
    setError(null);
    const answer = await run(commands.syncNow(null), "sync-now");
    if (!answer) return;
    setBusy(null);
    if (answer.ok) setResult(runSummary(answer.data));
    else setError(answer.error);
    void invalidateSyncStatus();
  };

  const remoteSet = form !== null && form.remote.trim() !== "";
  const live = useRef({ save, dirty });
  useLayoutEffect(() => {
    live.current = { save, dirty };
  });
  useImperativeHandle(
    ref,
    () => ({
      save: () => live.current.save(),
      dirty: () => live.current.dirty,
      contains: (node) => !!node && !!formRef.current?.contains(node),
    }),
    [],
  );

  return (
    <section ref={sectionRef} className="settings-section" aria-labelledby="sync-settings-title" data-testid="sync-settings">
      <h3 id="sync-settings-title">Sync</h3>
      <p className="muted settings-intro" data-testid="sync-intro">
        Mnemo can keep your memory the same on every machine you use by syncing it through a git repository you own: a
        private repository, your own server, or a folder you share. Never put a password in the address: git's credential
        helper or an SSH key signs in. Qwen Code's team memory is already shared through its own repository and is left
        out.
      </p>
      {loadError && <InlineError error={loadError} onRetry={reload} about="settings" />}
      {!form && !loadError && <div className="muted">Loading…</div>}
      {form && (
        <form
          ref={formRef}
          className="model-form"
          data-testid="sync-form"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <label className="field">
            <span>Remote (a git URL or a folder)</span>
            <input
              value={form.remote}
              onChange={(e) => set("remote", e.target.value)}
              placeholder="git@github.com:you/memory.git or /mnt/share/memory.git"
              spellCheck={false}
              autoFocus={autoFocus}
              data-testid="sync-remote"
            />
          </label>
          <label className="field">
            <span>Author (optional)</span>
            <input
              value={form.author}
              onChange={(e) => set("author", e.target.value)}
              placeholder="Name <email>, shown in history on your other machines"
              spellCheck={false}
              data-testid="sync-author"
            />
          </label>
          <label className="settings-check">
            <input type="checkbox" checked={form.auto} onChange={(e) => set("auto", e.target.checked)} data-testid="sync-auto" />
            <span>
              Sync automatically<span className="muted"> — after changes and every few minutes, while Mnemo runs</span>
            </span>
          </label>
          <label className="settings-check">
            <input type="checkbox" checked={form.claude} onChange={(e) => set("claude", e.target.checked)} data-testid="sync-claude" />
            <span>Include Claude Code memories</span>
          </label>
          <label className="settings-check">
            <input type="checkbox" checked={form.qwen} onChange={(e) => set("qwen", e.target.checked)} data-testid="sync-qwen" />
            <span>Include Qwen Code memories</span>
          </label>
          <label className="settings-check">
            <input type="checkbox" checked={form.sessions} onChange={(e) => set("sessions", e.target.checked)} data-testid="sync-sessions" />
            <span>
              Include chat sessions<span className="muted"> — whole conversations, to every machine on the remote</span>
            </span>
          </label>
          {error && <InlineError error={error} onRetry={() => void syncNow()} about="settings" />}
          {busy === "syncing" && (
            <div className="model-test-result" role="status" data-state="running" data-testid="sync-result">
              Syncing…
            </div>
          )}
          {result && busy === null && (
            <div className="model-test-result" role="status" data-state="ok" data-testid="sync-result">
              {result}
            </div>
          )}
          <div className="modal-actions">
            <button
              type="button"
              onClick={() => void syncNow()}
              disabled={busy !== null || !remoteSet}
              title={remoteSet ? (dirty ? "Save these settings, then sync now" : "Sync every workspace now") : "Enter a remote first"}
              data-testid="sync-settings-now"
            >
              {busy === "syncing" ? "Syncing…" : "Sync now"}
            </button>
          </div>
        </form>
      )}
    </section>
  );
});
