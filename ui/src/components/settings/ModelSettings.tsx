import { useCallback, useEffect, useRef, useState } from "react";
import type { KeyboardEvent } from "react";
import { Modal } from "../common/Modal";
import { explain } from "../../lib/errors";
import { commands } from "../../lib/bindings";
import type { ModelSettings as Settings, SyncSettings as SyncSettingsValue } from "../../lib/bindings";
import { LocalModelChoice } from "./LocalModelChoice";
import type { UiError } from "../../lib/transport";
import { useCommand } from "../../lib/useCommand";
import { invalidateModelReads, modelSettingsSaved, readOnce, reads, useLocalModel } from "../../lib/queries";
import { InlineError } from "../common/InlineError";
import { DiscardDialog } from "../common/ConfirmDialog";
import { SyncSettings } from "./SyncSettings";
import type { SyncSettingsHandle } from "./SyncSettings";
import { choiceHint, EXTRACTION_OPTIONS, extractionSetting } from "../../lib/extraction";
import type { ExtractionSetting } from "../../lib/extraction";

interface Props {
  onClose: () => void;
  /** The settings in effect after a save (every reader of them shows them already). */
  onSaved?: (settings: Settings) => void;
  /** The section to start in: the model's (default), or sync's (its remote field focused). */
  focus?: "model" | "sync";
  /** The sync settings in effect after a save in the Sync section. */
  onSyncSaved?: (settings: SyncSettingsValue) => void;
}

interface Form {
  base_url: string;
  model: string;
  fast_model: string;
  context_window: string;
  timeout_secs: string;
  /** A new key; empty keeps the stored one. */
  api_key: string;
  /** Remove the stored key on save. */
  remove_key: boolean;
  /** How extraction and remember write. */
  extraction: ExtractionSetting;
  /** The model that comes with Mnemo answers, not a server. */
  local: boolean;
}

/** What each `MNEMO_LLM_*` variable overrides. */
const ENV_TARGETS: Record<string, string> = {
  MNEMO_LLM_BASE_URL: "the base URL",
  MNEMO_LLM_API_KEY: "the API key",
  MNEMO_LLM_MODEL: "the model",
  MNEMO_LLM_FAST_MODEL: "the fast model",
};

function formOf(s: Settings): Form {
  return {
    base_url: s.base_url,
    model: s.model,
    fast_model: s.fast_model,
    context_window: String(s.context_window),
    timeout_secs: String(s.timeout_secs),
    api_key: "",
    remove_key: false,
    extraction: extractionSetting(s.extraction),
    local: s.local_in_use ?? false,
  };
}

function sameForm(a: Form, b: Form): boolean {
  return (
    a.base_url === b.base_url &&
    a.model === b.model &&
    a.fast_model === b.fast_model &&
    a.context_window === b.context_window &&
    a.timeout_secs === b.timeout_secs &&
    a.api_key === b.api_key &&
    a.remove_key === b.remove_key &&
    a.extraction === b.extraction &&
    a.local === b.local
  );
}

function wholeNumber(text: string): number | null {
  const t = text.trim();
  return /^\d+$/.test(t) ? Number(t) : null;
}

/**
 * The settings to send, or the reason the form cannot be sent. `was`: the form as loaded — the
 * local/server choice is sent only when the person changed it (else the stored one is kept).
 */
function settingsToSave(f: Form, was?: Form): Settings | UiError {
  const context_window = wholeNumber(f.context_window);
  if (context_window === null) return { code: "usage", message: "The context window must be a whole number of tokens." };
  const timeout_secs = wholeNumber(f.timeout_secs);
  if (timeout_secs === null) return { code: "usage", message: "The timeout must be a whole number of seconds." };
  return {
    base_url: f.base_url.trim(),
    model: f.model.trim(),
    fast_model: f.fast_model.trim(),
    context_window,
    timeout_secs,
    // null keeps the stored key, "" removes it.
    api_key: f.api_key.trim() !== "" ? f.api_key.trim() : f.remove_key ? "" : null,
    extraction: f.extraction,
    local: was && was.local === f.local ? null : f.local,
  };
}

type TestState = { state: "running" } | { state: "ok"; text: string } | { state: "failed"; error: UiError } | null;

/** What the dialog's last save did: saved something, or found nothing changed (never "Saved" then). */
type SaveNote = "saved" | "unchanged" | null;

/** The note beside Save when Ctrl+S or Save found nothing to save. */
export const NOTHING_TO_SAVE = "Nothing to save: no setting was changed.";

/** The server's own model list (`GET /models`) for the base URL it was asked at. */
type ModelList = { url: string; models: string[] } | { url: string; error: UiError } | null;

/** One sentence on the server's model list, under the Model field. */
export function offeredText(list: ModelList, model: string): string {
  if (!list) return "Enter the server's address to see the models it offers.";
  if ("error" in list) return `Could not list this server's models: ${explain(list.error, "settings").sentence} You can still type a model's name.`;
  const n = list.models.length;
  if (n === 0) return "The server lists no models: type the model's name.";
  const listed = model.trim() === "" || list.models.includes(model.trim());
  const offer = `The server offers ${n} model${n === 1 ? "" : "s"}: pick one in the Model field.`;
  return listed ? offer : `${offer} It does not list “${model.trim()}”.`;
}

/**
 * The settings dialog: the model (chat and extraction), then sync across machines, and one Save
 * for both. Ctrl/⌘+S saves the section that has the focus (the whole dialog's changes from
 * elsewhere in it), never the memory behind the dialog, and says "Saved" only when something was.
 * Closing it with typed values not saved (Escape, a click outside, Close) asks first, like the
 * memory editor.
 */
export function ModelSettings({ onClose, onSaved, focus = "model", onSyncSaved }: Props) {
  const [loaded, setLoaded] = useState<Settings | null>(null);
  const [loadError, setLoadError] = useState<UiError | null>(null);
  const [form, setForm] = useState<Form | null>(null);
  const [error, setError] = useState<UiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<SaveNote>(null);
  const [test, setTest] = useState<TestState>(null);
  const syncRef = useRef<SyncSettingsHandle>(null);
  const modelFormRef = useRef<HTMLFormElement>(null);
  const [offered, setOffered] = useState<ModelList>(null);
  const [syncDirty, setSyncDirty] = useState(false);
  const [asking, setAsking] = useState(false);
  const localInfo = useLocalModel().data ?? null;
  const { run, cancel } = useCommand();

  /** Asks the server at the typed base URL for its models (nothing is saved). */
  const listModels = useCallback(
    async (f: Form) => {
      const values = settingsToSave(f);
      if ("code" in values || values.base_url === "") {
        setOffered(null);
        return;
      }
      const answer = await run(commands.modelList(values), "models");
      if (!answer) return;
      setOffered(answer.ok ? { url: values.base_url, models: answer.data } : { url: values.base_url, error: answer.error });
    },
    [run],
  );

  // Read once as the dialog opens (through the shared cache): the form starts from it, and no later
  // read may overwrite what is being typed.
  useEffect(() => {
    void run(readOnce(reads.modelSettings()), "load").then((answer) => {
      if (!answer) return;
      if (answer.ok) {
        setLoaded(answer.data);
        const f = formOf(answer.data);
        setForm(f);
        void listModels(f);
      } else setLoadError(answer.error);
    });
    return () => {
      cancel("load");
      cancel("models");
    };
  }, [run, cancel, listModels]);

  const dirty = !!form && !!loaded && !sameForm(form, formOf(loaded));
  const onSyncDirty = useCallback((d: boolean) => {
    setSyncDirty(d);
    if (d) setNote(null);
  }, []);
  /** Close, or first ask whether typed values may be dropped. */
  const requestClose = () => {
    if (dirty || syncDirty) setAsking(true);
    else onClose();
  };

  const set = <K extends keyof Form>(k: K, v: Form[K]) => {
    setForm((f) => (f ? { ...f, [k]: v } : f));
    setNote(null);
    // A result about other values would mislead.
    setTest(null);
  };

  /** Saves the form; true when it was saved. */
  const save = async (): Promise<boolean> => {
    if (!form) return false;
    const out = settingsToSave(form, loaded ? formOf(loaded) : undefined);
    if ("code" in out) {
      setError(out);
      return false;
    }
    setBusy(true);
    setError(null);
    const answer = await run(commands.setModelSettings(out));
    if (!answer) return false;
    setBusy(false);
    if (!answer.ok) {
      setError(answer.error);
      return false;
    }
    const s = answer.data;
    setLoaded(s);
    setForm(formOf(s));
    setNote("saved");
    setTest(null);
    modelSettingsSaved(s);
    onSaved?.(s);
    return true;
  };

  /** Saves the sync section's form; true when it was saved. */
  const saveSync = async (): Promise<boolean> => {
    const saved = await syncRef.current?.save();
    if (saved) setNote("saved");
    return !!saved;
  };

  /**
   * Saves what changed — `which` section only (Ctrl+S in it), else both — and says so; with
   * nothing changed nothing is written and nothing claimed.
   */
  const saveChanged = async (which: "model" | "sync" | "all") => {
    const model = (which === "model" || which === "all") && dirty;
    const sync = (which === "sync" || which === "all") && syncDirty;
    if (!model && !sync) {
      setNote("unchanged");
      return;
    }
    if (model && !(await save())) return;
    if (sync) await saveSync();
  };

  /** Ctrl/⌘+S inside the dialog: the section with the focus, never the memory behind it. */
  const onKeyDown = (e: KeyboardEvent) => {
    if (!(e.ctrlKey || e.metaKey) || e.altKey || e.key.toLowerCase() !== "s") return;
    e.preventDefault();
    e.stopPropagation();
    if (busy) return;
    const at = e.target as Node;
    void saveChanged(modelFormRef.current?.contains(at) ? "model" : syncRef.current?.contains(at) ? "sync" : "all");
  };

  /** Tries the values as typed; never saves them (Save does). */
  const testConnection = async () => {
    setTest(null);
    if (!form) return;
    const values = settingsToSave(form, loaded ? formOf(loaded) : undefined);
    if ("code" in values) {
      setError(values);
      return;
    }
    setBusy(true);
    setTest({ state: "running" });
    const answer = await run(commands.testModel(dirty ? values : null));
    if (!answer) return;
    setBusy(false);
    if (answer.ok) {
      const r = answer.data;
      const unsaved = dirty ? ". Not saved yet: press Save to keep it." : "";
      setTest({ state: "ok", text: `Connected: ${r.model} answered in ${r.latency_ms} ms${unsaved}` });
    } else setTest({ state: "failed", error: answer.error });
  };

  const overrides = loaded?.env_overrides ?? [];
  const overridden = (name: string) => overrides.includes(name);

  return (
    <Modal labelledBy="model-settings-title" className="model-settings" testId="model-settings" onClose={requestClose}>
      <div className="settings-body" onKeyDown={onKeyDown}>
        <h2 id="model-settings-title">Settings</h2>
        <section className="settings-section" aria-labelledby="model-section-title" data-testid="model-section">
          <h3 id="model-section-title">Model</h3>
          <p className="muted settings-intro">
            Chat and extraction use the model that comes with Mnemo, running on this computer, or an OpenAI-compatible
            server. Browsing, search and recall work without either.
          </p>
          {loadError && <InlineError error={loadError} />}
          {!form && !loadError && <div className="muted">Loading…</div>}
          {form && (
            <form
              ref={modelFormRef}
              className="model-form"
              data-testid="model-form"
              onSubmit={(e) => {
                e.preventDefault();
                void saveChanged("model");
              }}
            >
              <LocalModelChoice
                info={localInfo}
                local={form.local}
                onChange={(l) => set("local", l)}
                onInstalled={() => void invalidateModelReads()}
              />
              {overrides.length > 0 && (
                <ul className="env-overrides" data-testid="model-env-overrides">
                  {overrides.map((name) => (
                    <li key={name}>
                      <code>{name}</code> overrides {ENV_TARGETS[name] ?? "a setting"}
                    </li>
                  ))}
                </ul>
              )}
              {!form.local && (
                <>
                  <label className="field">
                    <span>Base URL{overridden("MNEMO_LLM_BASE_URL") && " (from MNEMO_LLM_BASE_URL)"}</span>
                    <input
                      value={form.base_url}
                      onChange={(e) => set("base_url", e.target.value)}
                      onBlur={() => {
                        if (form.base_url.trim() !== (offered?.url ?? "")) void listModels(form);
                      }}
                      placeholder="http://127.0.0.1:11434/v1"
                      spellCheck={false}
                      autoFocus={focus !== "sync"}
                      data-testid="model-base-url"
                    />
                  </label>
                  <div className="field">
                    <label htmlFor="model-api-key">API key{overridden("MNEMO_LLM_API_KEY") && " (from MNEMO_LLM_API_KEY)"}</label>
                    <div className="field-row">
                      <input
                        id="model-api-key"
                        className="grow"
                        type="password"
                        autoComplete="off"
                        value={form.api_key}
                        onChange={(e) => set("api_key", e.target.value)}
                        placeholder={
                          form.remove_key
                            ? "The stored key will be removed on save"
                            : loaded?.has_key && loaded.base_url.trim() !== form.base_url.trim()
                              ? "The stored key stays with the old address: enter one for this server, or none"
                              : loaded?.has_key
                                ? "A key is stored — leave empty to keep it"
                                : "None (not needed for local servers)"
                        }
                        data-testid="model-api-key"
                      />
                      {loaded?.has_key &&
                        (form.remove_key ? (
                          <button type="button" onClick={() => set("remove_key", false)} data-testid="model-keep-key">
                            Keep key
                          </button>
                        ) : (
                          <button
                            type="button"
                            className="danger-outline"
                            onClick={() => {
                              setForm((f) => (f ? { ...f, api_key: "", remove_key: true } : f));
                              setNote(null);
                            }}
                            data-testid="model-remove-key"
                          >
                            Remove key
                          </button>
                        ))}
                    </div>
                  </div>
                  <div className="field-row">
                    <label className="field grow">
                      <span>Model{overridden("MNEMO_LLM_MODEL") && " (from MNEMO_LLM_MODEL)"}</span>
                      <input
                        value={form.model}
                        onChange={(e) => set("model", e.target.value)}
                        placeholder="qwen3:8b"
                        spellCheck={false}
                        list="model-offered"
                        aria-describedby="model-offered-note"
                        data-testid="model-name"
                      />
                    </label>
                    <label className="field grow">
                      <span>Fast model (optional){overridden("MNEMO_LLM_FAST_MODEL") && " (from MNEMO_LLM_FAST_MODEL)"}</span>
                      <input
                        value={form.fast_model}
                        onChange={(e) => set("fast_model", e.target.value)}
                        placeholder="the main model"
                        spellCheck={false}
                        list="model-offered"
                        data-testid="model-fast"
                      />
                    </label>
                  </div>
                  <datalist id="model-offered">
                    {offered && "models" in offered && offered.models.map((m) => <option key={m} value={m} />)}
                  </datalist>
                  <p id="model-offered-note" className="muted model-offered" data-testid="model-offered">
                    {offeredText(offered, form.model)}
                  </p>
                  <div className="field-row">
                    <label className="field grow">
                      <span>Context window (tokens)</span>
                      <input
                        inputMode="numeric"
                        value={form.context_window}
                        onChange={(e) => set("context_window", e.target.value)}
                        data-testid="model-context"
                      />
                    </label>
                    <label className="field grow">
                      <span>Timeout (seconds)</span>
                      <input
                        inputMode="numeric"
                        value={form.timeout_secs}
                        onChange={(e) => set("timeout_secs", e.target.value)}
                        data-testid="model-timeout"
                      />
                    </label>
                  </div>
                </>
              )}
              <label className="field">
                <span>How memories are written</span>
                <select
                  value={form.extraction}
                  onChange={(e) => set("extraction", extractionSetting(e.target.value))}
                  aria-describedby={loaded?.extraction_choice ? "model-extraction-now" : undefined}
                  data-testid="model-extraction"
                >
                  {EXTRACTION_OPTIONS.map((o) => (
                    <option key={o.value} value={o.value}>
                      {o.label}
                    </option>
                  ))}
                </select>
              </label>
              {loaded?.extraction_choice && (
                <p id="model-extraction-now" className="muted model-extraction-now" data-testid="model-extraction-now">
                  {choiceHint(loaded.extraction_choice)}
                </p>
              )}
              {error && <InlineError error={error} about="settings" />}
              {test && (
                <div
                  className={`model-test-result ${test.state === "failed" ? "failed" : ""}`}
                  role="status"
                  data-testid="model-test-result"
                  data-state={test.state}
                >
                  {test.state === "running" && "Testing…"}
                  {test.state === "ok" && test.text}
                  {test.state === "failed" && explain(test.error, "settings").sentence}
                </div>
              )}
              <div className="modal-actions">
                <button type="button" onClick={() => void testConnection()} disabled={busy} data-testid="model-test">
                  Test connection
                </button>
              </div>
            </form>
          )}
        </section>
        <SyncSettings
          ref={syncRef}
          autoFocus={focus === "sync"}
          onSaved={(v) => {
            setNote("saved");
            onSyncSaved?.(v);
          }}
          onDirtyChange={onSyncDirty}
        />
        <div className="modal-actions settings-close">
          {note === "saved" && !dirty && !syncDirty && (
            <span className="muted model-saved" role="status" data-testid="model-saved">
              Saved
            </span>
          )}
          {note === "unchanged" && (
            <span className="muted model-saved" role="status" data-testid="settings-unchanged">
              {NOTHING_TO_SAVE}
            </span>
          )}
          <button type="button" onClick={requestClose} data-testid="model-close">
            Close
          </button>
          <button
            type="button"
            className="primary"
            disabled={busy || (!dirty && !syncDirty)}
            onClick={() => void saveChanged("all")}
            title="Save the model and sync settings you changed"
            data-testid="model-save"
          >
            Save
          </button>
        </div>
        {asking && (
          <DiscardDialog onDiscard={onClose} onKeepEditing={() => setAsking(false)}>
            <p>You typed settings that are not saved. Discarding them keeps the settings as they were.</p>
          </DiscardDialog>
        )}
      </div>
    </Modal>
  );
}
