import { CONFLICT_RECALL, choiceHeading, keepAllLabel, keepLabel } from "../../lib/sync";
import { SAVE_FIRST, disagreeSentence } from "../../lib/memoryConflicts";
import { printable } from "../../lib/printable";
import { InlineError } from "../common/InlineError";
import type { ConflictChoice } from "./useConflictChoice";

/** A version's text shown safely, its lines kept (`printable` would write a line break as an escape). */
function lines(text: string): string {
  return text.split("\n").map(printable).join("\n");
}

interface Props {
  choice: ConflictChoice;
}

/**
 * The detail pane's banner while the open memory has a sync conflict: that the machines
 * disagree, each version with whose it is and its text, and the same choices as the conflict
 * card in Status and the Inbox — keep one version, or keep both (or keep it as it is).
 */
export function SyncConflictBanner({ choice }: Props) {
  const { open, busy, dirty } = choice;
  if (open.length === 0) return null;
  return (
    <section className="sync-banner" aria-label="Sync conflict" data-testid="conflict-banner">
      {open.map((c) => {
        const error = choice.errorOf(c.id);
        const waiting = busy !== null || dirty;
        return (
          <div className="sync-banner-conflict" key={c.id} data-testid="conflict-banner-item" data-id={c.id} data-kind={c.kind}>
            <p className="sync-banner-what" data-testid="conflict-banner-sentence">
              {disagreeSentence(c)}
            </p>
            <p className="sync-banner-recall" data-testid="conflict-recall">
              {CONFLICT_RECALL}
            </p>
            <div className="sync-versions">
              {c.choices.map((ch, i) => (
                <div className="sync-version" key={i} data-testid="conflict-banner-version" data-deletes={ch.texts.length === 0 ? "true" : "false"}>
                  <p className="sync-version-label">{printable(choiceHeading(ch.label))}</p>
                  {ch.texts.length === 0 ? (
                    <p className="muted">Deleted on that machine: choosing this removes the fact here and on your other machines.</p>
                  ) : (
                    ch.texts.map((t, j) => (
                      <p className="sync-text" key={j}>
                        {lines(t)}
                      </p>
                    ))
                  )}
                  <button
                    type="button"
                    disabled={waiting}
                    title={dirty ? SAVE_FIRST : undefined}
                    onClick={() => choice.choose(c, i)}
                    data-testid="conflict-banner-keep"
                    data-index={i}
                  >
                    {printable(keepLabel(ch.label))}
                  </button>
                </div>
              ))}
            </div>
            <div className="sync-conflict-actions">
              {dirty && <span className="muted sync-banner-wait">{SAVE_FIRST}</span>}
              <button
                type="button"
                disabled={waiting}
                title={dirty ? SAVE_FIRST : undefined}
                onClick={() => choice.choose(c, null)}
                data-testid="conflict-banner-keep-all"
              >
                {busy === c.id ? "Saving…" : keepAllLabel(c)}
              </button>
            </div>
            {error && <InlineError error={error} />}
          </div>
        );
      })}
    </section>
  );
}
