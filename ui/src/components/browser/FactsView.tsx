import { useId, useMemo } from "react";
import type { EntryOut } from "../../lib/bindings";
import { factsHeading, factsOf, replacedSentence } from "../../lib/supersede";
import { splitByConflicts } from "../../lib/memoryConflicts";
import { FactsConflicts } from "./FactsConflicts";
import type { ConflictChoice } from "./useConflictChoice";

interface Props {
  /** The memory's entries as last saved. */
  entries: readonly EntryOut[];
  /** Unsaved edits: the facts are the saved ones, and Replace waits for a save. */
  dirty: boolean;
  /** Replace a current fact (`null`: replacing is not offered here). */
  onReplace: ((entry: EntryOut) => void) | null;
  /** The memory's open sync conflicts and their choices: facts they hold are not current. */
  conflicts?: ConflictChoice | null;
}

/**
 * A memory's facts (its entries): the current ones, which recall uses, each with Replace…; then
 * the replaced ones, kept in the file and never recalled, each chain read oldest first — struck
 * through, with when, by what and why they were replaced — down to the fact that stands now.
 * Which is which is said in words (headings, a "Replaced" / "Now" tag), not by colour alone.
 * Facts that are versions of an open sync conflict are not current: they come first, under
 * "In conflict — choose one", with the conflict's choices.
 */
export function FactsView({ entries, dirty, onReplace, conflicts = null }: Props) {
  const all = useMemo(() => factsOf(entries), [entries]);
  const split = splitByConflicts(all.current, conflicts?.open ?? []);
  const facts = { ...all, current: split.current };
  const id = useId();

  return (
    <div className="facts" data-testid="facts-view">
      {dirty && (
        <p className="facts-dirty" role="note">
          These are the facts as last saved. Save or discard your edits to replace one.
        </p>
      )}
      {conflicts && <FactsConflicts groups={split.inConflict} choice={conflicts} />}
      <section className="facts-section" aria-labelledby={`${id}-current`} data-testid="facts-current">
        <h2 id={`${id}-current`}>
          <span className="facts-icon" aria-hidden="true">
            ●
          </span>{" "}
          {factsHeading("current", facts.current.length)}
        </h2>
        <p className="muted facts-lead">
          {facts.current.length === 0
            ? split.inConflict.length > 0
              ? "No other fact: choose a version above, and it becomes current."
              : "No current fact: every fact here was replaced. Add one in Edit."
            : "What recall uses. Replace one to correct it: the old fact is kept, marked as replaced, and never recalled again."}
        </p>
        {facts.current.length > 0 && (
          <ul className="fact-list">
            {facts.current.map((e, i) => (
              <li key={e.id} className="fact" data-testid="fact" data-id={e.id} data-state="current">
                <div className="fact-text">
                  <span className="fact-summary" id={`${id}-c${i}`}>
                    {e.summary}
                  </span>
                  {e.why && <span className="fact-line muted">Why: {e.why}</span>}
                  {e.how && <span className="fact-line muted">How to apply: {e.how}</span>}
                </div>
                {onReplace && (
                  <button
                    type="button"
                    className="fact-replace"
                    data-testid="fact-replace"
                    aria-describedby={`${id}-c${i}`}
                    disabled={dirty}
                    title={dirty ? "Save or discard your edits first" : "Write what is true now; the old fact is kept as replaced"}
                    onClick={() => onReplace(e)}
                  >
                    Replace…
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
      {facts.chains.length > 0 && (
        <section className="facts-section" aria-labelledby={`${id}-replaced`} data-testid="facts-replaced">
          <h2 id={`${id}-replaced`}>
            <span className="facts-icon" aria-hidden="true">
              ↺
            </span>{" "}
            {factsHeading("replaced", facts.replacedCount)}
          </h2>
          <p className="muted facts-lead">Kept in the file, never recalled. Each history reads from the oldest fact to the one that stands now.</p>
          <ul className="fact-chains">
            {facts.chains.map((chain) => (
              <li key={chain.replaced[0].id} className="fact-chain" data-testid="fact-chain">
                <ol className="fact-chain-steps">
                  {chain.replaced.map((e) => (
                    <li key={e.id} className="fact replaced" data-testid="replaced-fact" data-id={e.id} data-state="replaced">
                      <span className="fact-tag">Replaced</span>
                      <div className="fact-text">
                        <del className="fact-summary">{e.summary}</del>
                        {e.superseded && (
                          <span className="fact-sentence" data-testid="replaced-sentence">
                            {replacedSentence(e.superseded)}
                          </span>
                        )}
                      </div>
                    </li>
                  ))}
                  {chain.now ? (
                    <li className="fact fact-now" data-testid="chain-now" data-id={chain.now.id}>
                      <span className="fact-tag fact-tag-now">Now</span>
                      <div className="fact-text">
                        <span className="fact-summary">{chain.now.summary}</span>
                      </div>
                    </li>
                  ) : (
                    <li className="fact fact-now muted" data-testid="chain-gone">
                      What replaced it is no longer in this memory.
                    </li>
                  )}
                </ol>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
