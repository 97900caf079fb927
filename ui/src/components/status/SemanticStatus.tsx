import { useState } from "react";
import { commands } from "../../lib/bindings";
import type { SemanticState, TaskInfo } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { embedText, modelName, preparedText, semanticSentence } from "../../lib/semantic";
import { isActive } from "../../lib/tasks";
import { useCommand } from "../../lib/useCommand";
import { useHomeStatus, useRefetchOn } from "../../lib/queries";
import { InlineError } from "../common/InlineError";

interface Props {
  /** The shared task list (an `embed` task under way shows its progress; one that ends reloads). */
  tasks: readonly TaskInfo[];
  /** The `embed` task "Prepare the rest now" started (or the one already under way). */
  onStarted: (task: TaskInfo) => void;
}

const STATE_LABELS: Record<SemanticState, string> = {
  ready: "on",
  not_installed: "not installed",
  broken: "broken",
  off: "off",
};

const STATE_TONES: Record<SemanticState, string> = {
  ready: "tone-ok",
  not_installed: "tone-bad",
  broken: "tone-bad",
  off: "tone-neutral",
};

/**
 * Semantic (hybrid) search: whether the local embedding model is there (by its name; its files'
 * hash only as a short fingerprint in the tooltip), what search can do now and, if not, why (how
 * to install the model, what is wrong with it), how many memories are ready for search by meaning,
 * and "Prepare the rest now" to compute the missing vectors. The state is the whole home's.
 */
export function SemanticStatus({ tasks, onStarted }: Props) {
  const { run } = useCommand();
  // The home's status, shared with the sidebar; read again by the change events too.
  const statusRead = useHomeStatus();
  const semantic = statusRead.data?.semantic ?? null;
  const error = statusRead.error;
  const [starting, setStarting] = useState(false);
  const [embedError, setEmbedError] = useState<UiError | null>(null);

  const embedding = tasks.find((t) => t.kind === "embed" && isActive(t)) ?? null;
  // An embed task that ended changes the counts.
  const ended = tasks
    .filter((t) => t.kind === "embed" && !isActive(t))
    .slice(0, 5)
    .map((t) => `${t.id}:${t.status}`)
    .join(",");

  useRefetchOn(ended, statusRead.refetch);

  const embed = async () => {
    setStarting(true);
    setEmbedError(null);
    const answer = await run(commands.embed(null), "embed");
    if (!answer) return;
    setStarting(false);
    if (answer.ok) onStarted(answer.data);
    else setEmbedError(answer.error);
  };

  const ready = semantic?.state === "ready";
  const missing = ready && semantic.embedded < semantic.total;
  const model = semantic?.model ? modelName(semantic.model) : null;

  return (
    <section className="status-section" aria-labelledby="semantic-title" data-testid="semantic-status" data-state={semantic?.state ?? ""}>
      <header className="status-section-header">
        <h2 id="semantic-title">Semantic search</h2>
        {semantic && (
          <span className={STATE_TONES[semantic.state]} data-testid="semantic-state">
            {STATE_LABELS[semantic.state]}
            {model && (
              <span
                className="muted"
                data-testid="semantic-model"
                title={`The model that reads meaning: ${model.name}${model.fingerprint ? ` (files fingerprint ${model.fingerprint})` : ""}`}
              >
                {" "}
                · {model.name}
              </span>
            )}
          </span>
        )}
      </header>
      {error && <InlineError error={error} />}
      {!semantic && !error && <div className="muted">Loading…</div>}
      {semantic && (
        <p className={ready ? "muted" : undefined} data-testid="semantic-message">
          {semanticSentence(semantic)}
        </p>
      )}
      {(embedding || missing) && (
        <div className="semantic-progress">
          <span data-testid="semantic-progress">
            {embedding
              ? embedText(embedding)
              : semantic && missing
                ? preparedText(semantic.embedded, semantic.total)
                : ""}
          </span>
          {missing && !embedding && (
            <button
              type="button"
              data-testid="embed-now"
              disabled={starting}
              onClick={() => void embed()}
              title="Prepare the other memories for search by meaning now (this runs on this computer)"
            >
              {starting ? "Starting…" : "Prepare the rest now"}
            </button>
          )}
        </div>
      )}
      {embedError && <InlineError error={embedError} />}
    </section>
  );
}
