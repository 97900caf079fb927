import type { ReactNode } from "react";
import type { ImportPreview } from "../../lib/bindings";
import { printable } from "../../lib/printable";
import {
  budgetText,
  byTypeText,
  cannotImport,
  conversationsText,
  count,
  estimateText,
  leftOutParts,
  writesText,
} from "../../lib/transfer";

interface Props {
  preview: ImportPreview;
  /** Where it goes, in words ("Personal", "each workspace of the same id"). */
  target: string;
  /** The token budget as typed (conversations). */
  budget: string;
  onBudget: (text: string) => void;
  /** The typed budget read as tokens (`null`: it cannot be read). */
  budgetTokens: number | null;
  /** Offered beside the sentence that says no model is set. */
  onOpenSettings: () => void;
  /** Shown after the facts, before why Import cannot start (a whole-home export's workspaces). */
  children?: ReactNode;
}

/**
 * What an import would do, before anything is written: the format and the workspace, what it
 * writes (memories, files, types) or — for conversations — what reading them would cost, what
 * it leaves out and why, and a few samples. Item names, reasons and paths quote the source (files
 * other tools wrote): shown through `printable`.
 */
export function ImportSummary({ preview: p, target, budget, onBudget, budgetTokens, onOpenSettings, children }: Props) {
  const c = p.conversations;
  const left = leftOutParts(p);
  const blocked = cannotImport(p);
  const types = byTypeText(p);
  return (
    <section className="import-preview" data-testid="import-preview" data-format={p.format ?? ""} aria-label="What the import would do">
      <dl className="import-facts">
        <dt>Format</dt>
        <dd data-testid="import-format">{p.format_label || "Not recognised"}</dd>
        <dt>Into</dt>
        <dd data-testid="import-target">{printable(target)}</dd>
        {c ? (
          <>
            <dt>Conversations</dt>
            <dd data-testid="import-conversations">{conversationsText(c)}</dd>
            <dt>Cost</dt>
            <dd data-testid="import-estimate">
              {estimateText(c)}, read by the model; it decides what is worth keeping.
            </dd>
          </>
        ) : (
          <>
            <dt>Writes</dt>
            <dd data-testid="import-writes">
              {writesText(p)}
              {types && <span className="muted"> ({types})</span>}
            </dd>
          </>
        )}
        <dt>Left out</dt>
        <dd data-testid="import-left-out">{left.length > 0 ? left.join(" · ") : "Nothing"}</dd>
      </dl>

      {c && c.model_ready && (
        <div className="field import-budget">
          <label htmlFor="import-budget">Token budget</label>
          <input
            id="import-budget"
            data-testid="import-budget"
            inputMode="numeric"
            value={budget}
            aria-describedby="import-budget-hint"
            aria-invalid={budgetTokens === null}
            onChange={(e) => onBudget(e.target.value)}
          />
          <span id="import-budget-hint" className="muted import-hint">
            {budgetTokens === null ? "Write the budget as a whole number of tokens, e.g. 200,000." : budgetText({ ...c, budget_tokens: budgetTokens })} A
            stopped import goes on where it left off when you run it again.
          </span>
        </div>
      )}

      {children}

      {blocked && (
        <div className="problem import-blocked" role="note" data-testid="import-blocked">
          {blocked}
          {c && !c.model_ready && (
            <>
              {" "}
              <button type="button" className="link-button" data-testid="import-settings" onClick={onOpenSettings}>
                Open settings
              </button>
            </>
          )}
        </div>
      )}

      {p.reasons.length > 0 && (
        <details className="import-reasons" open={p.reasons.length <= 5}>
          <summary>
            Why {p.reasons.length === 1 ? "one item was" : `${count(p.reasons.length)} items were`} left out or changed
            {p.reasons.length >= 100 && " (the first 100)"}
          </summary>
          <ul data-testid="import-reasons" tabIndex={0} aria-label="Items left out or changed">
            {p.reasons.slice(0, 100).map((r, i) => (
              <li key={i}>
                <span className="import-item">{printable(r.item)}</span>: {printable(r.reason)}
              </li>
            ))}
          </ul>
        </details>
      )}

      {p.samples.length > 0 && (
        <>
          <h3>Samples</h3>
          <ul className="import-samples" data-testid="import-samples">
            {p.samples.map((s, i) => (
              <li key={i}>
                <span className={`type-chip type-${s.type}`}>{s.type}</span> <span className="import-sample-text">{printable(s.text)}</span>{" "}
                <span className="muted">
                  → <code>{printable(s.path)}</code>
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
