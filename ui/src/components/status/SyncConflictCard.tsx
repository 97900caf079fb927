import type { SyncConflict } from "../../lib/bindings";
import type { UiError } from "../../lib/transport";
import { formatFullTime, formatWhen } from "../../lib/format";
import { printable } from "../../lib/printable";
import { choiceHeading, conflictSentence, keepAllLabel, keepLabel } from "../../lib/sync";
import { InlineError } from "../common/InlineError";

/** The level of each version's heading: one below the heading the list sits under. */
export type VersionHeading = 3 | 4;

interface Props {
  conflict: SyncConflict;
  /** The memory's name (its frontmatter `name`), when known: the card names the memory by it, else by its path. */
  name?: string | null;
  /** Each version's heading level (default 4, under the Status view's "Conflicts" heading). */
  headingLevel?: VersionHeading;
  /** A choice is being saved (this conflict's or another's): the buttons wait. */
  busy: boolean;
  /** The last failed choice for this conflict. */
  error: UiError | null;
  /** Keep choice `keep` (0-based), or every version (`null`). */
  onResolve: (keep: number | null) => void;
  onOpen?: () => void;
}

/**
 * One conflict a sync could not decide alone: what happened in words, each version side by side
 * (an empty version deletes the entry) with a button to keep it, and one to keep them all.
 */
export function SyncConflictCard({ conflict: c, name = null, headingLevel = 4, busy, error, onResolve, onOpen }: Props) {
  const Heading = headingLevel === 3 ? "h3" : "h4";
  return (
    <li className="sync-conflict" data-testid="sync-conflict" data-id={c.id} data-kind={c.kind}>
      <p className="sync-conflict-what">{printable(conflictSentence(c, name))}</p>
      <p className="muted sync-conflict-where">
        {onOpen ? (
          <button type="button" className="link-button" onClick={onOpen} data-testid="sync-conflict-open">
            <code>{printable(c.path)}</code>
          </button>
        ) : (
          <code>{printable(c.path)}</code>
        )}{" "}
        · found <span title={formatFullTime(c.at)}>{formatWhen(c.at)}</span>
      </p>
      <div className="sync-versions">
        {c.choices.map((ch, i) => (
          <div className="sync-version" key={i} data-testid="sync-version" data-deletes={ch.texts.length === 0 ? "true" : "false"}>
            <Heading className="sync-version-label">{choiceHeading(ch.label)}</Heading>
            {ch.texts.length === 0 ? (
              <p className="muted">Deleted: keeping this removes the entry here and on your other machines.</p>
            ) : (
              ch.texts.map((t, j) => (
                <p className="sync-text" key={j}>
                  {t}
                </p>
              ))
            )}
            <button type="button" disabled={busy} onClick={() => onResolve(i)} data-testid="sync-keep" data-index={i}>
              {keepLabel(ch.label)}
            </button>
          </div>
        ))}
      </div>
      <div className="sync-conflict-actions">
        <button type="button" disabled={busy} onClick={() => onResolve(null)} data-testid="sync-keep-all">
          {keepAllLabel(c)}
        </button>
      </div>
      {error && <InlineError error={error} />}
    </li>
  );
}
