import type { LocalModelInfo } from "../../lib/bindings";
import { localModelText } from "../../lib/localModel";
import { LocalModelInstall } from "./LocalModelInstall";

interface Props {
  /** The local model's state (`null` while loading, or when it could not be read). */
  info: LocalModelInfo | null;
  /** The local model is chosen in the form. */
  local: boolean;
  onChange: (local: boolean) => void;
  /** The local model was installed from here: read its state again. */
  onInstalled: () => void;
}

/**
 * The choice between the model that comes with Mnemo (on this computer) and a model server the
 * person adds, as two radio buttons (arrow keys move between them), each with a sentence.
 */
export function LocalModelChoice({ info, local, onChange, onInstalled }: Props) {
  return (
    <fieldset className="model-choice" data-testid="model-choice">
      <legend>Which model answers</legend>
      <label className="model-choice-option">
        <input
          type="radio"
          name="model-choice"
          checked={local}
          onChange={() => onChange(true)}
          data-testid="model-choice-local"
        />
        <span>
          <strong>Local model (on this computer)</strong>
          <span className="muted model-choice-note" data-testid="model-local-status">
            {info ? `${info.name}. ${localModelText(info)}` : "Checking the local model…"}
          </span>
        </span>
      </label>
      {info && !info.installed && <LocalModelInstall info={info} onInstalled={onInstalled} />}
      <label className="model-choice-option">
        <input
          type="radio"
          name="model-choice"
          checked={!local}
          onChange={() => onChange(false)}
          data-testid="model-choice-server"
        />
        <span>
          <strong>A model server</strong>
          <span className="muted model-choice-note">
            An OpenAI-compatible server you run or use (Ollama, llama.cpp, LM Studio, vLLM, a hosted API…).
          </span>
        </span>
      </label>
    </fieldset>
  );
}
