import { useId } from "react";
import type { ConflictFacts } from "../../lib/memoryConflicts";
import { IN_CONFLICT_HEADING, SAVE_FIRST, inConflictLead } from "../../lib/memoryConflicts";
import { choiceHeading, keepAllLabel, keepLabel } from "../../lib/sync";
import { printable } from "../../lib/printable";
import { InlineError } from "../common/InlineError";
import type { ConflictChoice } from "./useConflictChoice";

interface Props {
  /** The conflicts with versions among the memory's facts. */
  groups: readonly ConflictFacts[];
  choice: ConflictChoice;
}

/**
 * The Facts view's "In conflict — choose one": facts two machines disagree on, never listed as
 * current. Each conflict shows its versions (whose, and the fact each holds) with the choices the
 * banner and the conflict cards offer: keep one, or keep both.
 */
export function FactsConflicts({ groups, choice }: Props) {
  const id = useId();
  if (groups.length === 0) return null;
  const waiting = choice.busy !== null || choice.dirty;
  return (
    <section className="facts-section facts-in-conflict" aria-labelledby={`${id}-title`} data-testid="facts-conflict">
      <h2 id={`${id}-title`}>
        <span className="facts-icon" aria-hidden="true">
          ⇅
        </span>{" "}
        {IN_CONFLICT_HEADING}
      </h2>
      <p className="muted facts-lead">{inConflictLead(groups.length)}</p>
      <ul className="fact-conflicts">
        {groups.map(({ conflict: c, versions }) => {
          const error = choice.errorOf(c.id);
          return (
            <li key={c.id} className="fact-conflict" data-testid="fact-conflict" data-id={c.id}>
              <ul className="fact-list">
                {versions.map((v) => (
                  <li key={v.index} className="fact fact-version" data-testid="conflict-fact" data-index={v.index} data-state="conflict">
                    <div className="fact-text">
                      <span className="fact-version-label">{printable(choiceHeading(v.label))}</span>
                      {v.deletes ? (
                        <span className="fact-line muted">Deleted on that machine: choosing this removes the fact here and on your other machines.</span>
                      ) : (
                        v.entries.map((e) => (
                          <span key={e.id} className="fact-version-entry" data-id={e.id}>
                            <span className="fact-summary">{e.summary}</span>
                            {e.why && <span className="fact-line muted">Why: {e.why}</span>}
                            {e.how && <span className="fact-line muted">How to apply: {e.how}</span>}
                          </span>
                        ))
                      )}
                    </div>
                    <button
                      type="button"
                      className="fact-replace"
                      disabled={waiting}
                      title={choice.dirty ? SAVE_FIRST : undefined}
                      onClick={() => choice.choose(c, v.index)}
                      data-testid="fact-keep"
                      data-index={v.index}
                    >
                      {printable(keepLabel(v.label))}
                    </button>
                  </li>
                ))}
              </ul>
              <div className="sync-conflict-actions">
                <button type="button" disabled={waiting} title={choice.dirty ? SAVE_FIRST : undefined} onClick={() => choice.choose(c, null)} data-testid="fact-keep-all">
                  {keepAllLabel(c)}
                </button>
              </div>
              {error && <InlineError error={error} />}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
