import { useState } from "react";
import type { ModelSettings as Settings, WorkspaceInfo } from "../../lib/bindings";
import { localModelText } from "../../lib/localModel";
import { invalidateModelReads, useLocalModel, useModelSettings } from "../../lib/queries";
import { printable } from "../../lib/printable";
import { ModelSettings } from "../settings/ModelSettings";
import { LocalModelInstall } from "../settings/LocalModelInstall";

/** localStorage key: the person has seen the welcome (it no longer opens by itself). */
export const WELCOMED_KEY = "mnemo.welcomed";

export function welcomed(): boolean {
  try {
    return localStorage.getItem(WELCOMED_KEY) === "1";
  } catch {
    return false;
  }
}

function rememberWelcomed() {
  try {
    localStorage.setItem(WELCOMED_KEY, "1");
  } catch {
    // Storage unavailable (private mode): it shows again next time.
  }
}

/** The four memory types, each with one example. */
const TYPES: { type: string; what: string; example: string }[] = [
  { type: "User", what: "who you are: role, skills, preferences", example: "“Senior Go engineer, new to React.”" },
  { type: "Feedback", what: "how you want the assistant to work, and why", example: "“Keep answers short: I read diffs, not prose.”" },
  { type: "Project", what: "what is going on in your work: goals, decisions, dates", example: "“Release v2 ships in May; Postgres 16 is the database.”" },
  { type: "Reference", what: "where things live outside the chat", example: "“Dashboards are at grafana.example/d/api.”" },
];

interface Props {
  workspaces: WorkspaceInfo[];
  /** Show this workspace in the browser. */
  onOpenWorkspace: (id: string) => void;
  /** The model settings were saved (every reader of them shows them already). */
  onModelSaved?: (settings: Settings) => void;
  /** Done with the welcome. */
  onClose: () => void;
}

/**
 * The first-run screen: what Mnemo is, the four memory types with an example each,
 * connecting a model (or not), and the Claude Code / Qwen Code folders found on this machine. It
 * sits where a memory would open — never in the way — until the person closes it, and the
 * sidebar's "Welcome" brings it back.
 */
export function Welcome({ workspaces, onOpenWorkspace, onModelSaved, onClose }: Props) {
  const [settingsOpen, setSettingsOpen] = useState(false);
  // What the model sentence says: the settings and the local model, read at start and again
  // once the local model is installed from here (a failed read says nothing).
  const model = useModelSettings().data ?? null;
  const local = useLocalModel().data ?? null;
  const readModels = () => {
    void invalidateModelReads();
  };

  const found = workspaces.filter((w) => w.kind === "claude" || w.kind === "qwen");
  const close = () => {
    rememberWelcomed();
    onClose();
  };
  const configured = !!model && (model.configured ?? (model.base_url.trim() !== "" && model.model.trim() !== ""));

  return (
    <section className="welcome" aria-labelledby="welcome-title" data-testid="welcome">
      <h2 id="welcome-title">Welcome to Mnemo</h2>
      <p>
        Mnemo gives your AI chats a memory you can see. What is worth keeping from a conversation is written down as
        small markdown files on this computer; the next chat recalls what fits. You can read, correct or delete any
        memory here, and every change can be undone.
      </p>

      <h3>Four kinds of memory</h3>
      <dl className="welcome-types">
        {TYPES.map((t) => (
          <div key={t.type} className="welcome-type">
            <dt>{t.type}</dt>
            <dd>
              {t.what} — for example {t.example}
            </dd>
          </div>
        ))}
      </dl>

      <h3>Connect a model</h3>
      <p data-testid="welcome-model">
        {model === null
          ? "Checking the model settings…"
          : model.local_in_use && local
            ? `Chat and extraction use the model that comes with Mnemo (${local.name}), which runs on this computer. ${localModelText(local)}`
            : configured
              ? `Chat and extraction use ${model.model} at ${model.base_url}.`
              : `Chat and automatic memory need a model. Mnemo comes with one that runs on this computer${local ? ` (${local.size})` : ""}${local?.installed ? ", and it is installed: choose “Local model” under “Connect a model…”." : ": install it below, or with `mnemo model install`."} Or connect an OpenAI-compatible server (Ollama, llama.cpp, LM Studio or a hosted API). Browsing, editing and search work without one, so you can also skip this for now.`}
      </p>
      {model !== null && !configured && local && !local.installed && (
        <LocalModelInstall
          info={local}
          onInstalled={readModels}
        />
      )}
      <button type="button" data-testid="welcome-connect" onClick={() => setSettingsOpen(true)}>
        {configured ? "Change the model…" : "Connect a model…"}
      </button>

      <h3>Folders found on this computer</h3>
      {found.length === 0 ? (
        <p data-testid="welcome-found-none">
          No Claude Code or Qwen Code memory folders were found. Any folder of markdown memories can be added with “+
          Add folder…” on the left.
        </p>
      ) : (
        <>
          <p>Mnemo shows the auto-memory of these coding assistants next to your own, in the sidebar:</p>
          <ul className="welcome-found" data-testid="welcome-found">
            {found.map((w) => (
              <li key={w.id}>
                <span>
                  {w.kind === "claude" ? "Claude Code" : "Qwen Code"} · <strong>{printable(w.label)}</strong>{" "}
                  <span className="muted">
                    ({w.counts.topics} memor{w.counts.topics === 1 ? "y" : "ies"})
                  </span>
                </span>{" "}
                <button type="button" className="link-button" onClick={() => onOpenWorkspace(w.id)}>
                  Show
                </button>
              </li>
            ))}
          </ul>
        </>
      )}

      <div className="welcome-actions">
        <button type="button" className="primary" data-testid="welcome-start" onClick={close}>
          Get started
        </button>
      </div>
      {settingsOpen && (
        <ModelSettings
          onClose={() => setSettingsOpen(false)}
          onSaved={(s) => onModelSaved?.(s)}
        />
      )}
    </section>
  );
}
