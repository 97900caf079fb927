import { useState } from "react";
import type { Dropped, Recalled, RecallResult, Strategy } from "../../lib/bindings";
import { countMemories, recallLabel, recallSentence, strategyText, whyRecalled, wroteFiles } from "../../lib/chat";
import type { ChatMessage } from "../../lib/chat";
import { printable } from "../../lib/printable";
import { CONFLICT_RECALL } from "../../lib/sync";
import { MemoryCard } from "./MemoryCard";

interface Props {
  message: ChatMessage;
  /** Open a memory (a path relative to the chat workspace's memory root). */
  onOpenPath: (path: string) => void;
  /** The chat workspace's name (the `/memory` card's heading). */
  workspaceLabel?: string;
  /** The model's context window in tokens, when known (the recall panel says what share memory took). */
  contextWindow?: number;
}

/** One message: user text, or a reply with what recall put in and what was written after. */
export function ChatMessageView({ message: m, onOpenPath, workspaceLabel, contextWindow }: Props) {
  const isReply = m.role === "assistant";
  return (
    <div
      className={`chat-message chat-${m.role}`}
      data-testid="chat-message"
      data-role={m.role}
      data-streaming={m.streaming ? "true" : undefined}
    >
      {m.role === "command" && <div className="chat-command-label">Mnemo</div>}
      {m.memory ? (
        <MemoryCard snapshot={m.memory} workspaceLabel={workspaceLabel} />
      ) : (
        /* Plain text: React escapes it; CSS keeps the line breaks. */
        <div className="chat-text">
          {m.text}
          {m.streaming && <span className="chat-cursor" aria-label="Writing…" />}
        </div>
      )}
      {m.tools.length > 0 && (
        <div className="chat-tools">
          {m.tools.map((t, i) => (
            <span key={i} className="chat-tool" data-testid="chat-tool">
              used {t}
            </span>
          ))}
        </div>
      )}
      {m.stopped && (
        <div className="chat-note" data-testid="chat-stopped">
          Stopped — this reply was not saved.
        </div>
      )}
      {isReply && m.recall && <RecallBadge recall={m.recall} onOpenPath={onOpenPath} contextWindow={contextWindow} />}
      {isReply && !m.recall && m.recalledPaths.length > 0 && (
        <RecallBadge paths={m.recalledPaths} onOpenPath={onOpenPath} />
      )}
      {isReply && !m.streaming && <WriteNotes message={m} onOpenPath={onOpenPath} />}
    </div>
  );
}

function RecallBadge({
  recall,
  paths,
  onOpenPath,
  contextWindow,
}: {
  recall?: RecallResult;
  paths?: string[];
  onOpenPath: (path: string) => void;
  contextWindow?: number;
}) {
  const [open, setOpen] = useState(false);
  const n = recall ? recall.selected.length : (paths?.length ?? 0);
  return (
    <div className="chat-recall">
      <button
        type="button"
        className={`chat-badge ${n === 0 && (recall?.carried.length ?? 0) === 0 ? "empty" : ""}`}
        aria-expanded={open}
        data-testid="recall-badge"
        onClick={() => setOpen((o) => !o)}
      >
        {recallLabel(n, recall?.carried.length ?? 0)} {open ? "▾" : "▸"}
      </button>
      {open && (
        <div className="recall-details" data-testid="recall-details">
          {recall && (
            <div className="recall-summary muted">
              <span data-testid="recall-strategy" title={`Strategy: ${strategyText(recall.strategy)}`}>
                {recallSentence(recall.strategy, recall.docs_scanned)}
              </span>
              <div data-testid="recall-tokens">
                Memory in the prompt: about {recall.tokens_injected.toLocaleString()} tokens
                {recall.budget_tokens !== null ? ` (its budget: ${recall.budget_tokens.toLocaleString()})` : ""}
                {contextWindow ? `, ${windowShare(recall.tokens_injected, contextWindow)} of the model's ${contextWindow.toLocaleString()}-token context window` : ""}. Took{" "}
                {recall.duration_ms} ms.
              </div>
            </div>
          )}
          {recall?.selected.map((r) => (
            <div key={r.path} className="recall-item">
              <div className="recall-line">
                <span className="recall-name">{printable(r.name || r.path)}</span>
                {r.type && <span className={`type-chip type-${r.type}`}>{r.type}</span>}
              </div>
              {r.conflict && (
                <div className="recall-conflict" data-testid="recall-conflict">
                  A sync conflict you have not settled. {CONFLICT_RECALL} Open it to choose.
                </div>
              )}
              <button
                type="button"
                className="link-button chat-path"
                title="Open this memory"
                data-testid="recall-item"
                onClick={() => onOpenPath(r.path)}
              >
                {printable(r.path)}
              </button>
              <RecallMeta recalled={r} strategy={recall.strategy} />
            </div>
          ))}
          {recall && recall.carried.length > 0 && (
            <div className="recall-carried" data-testid="recall-carried">
              <div className="muted">Still in view from earlier in this chat:</div>
              {recall.carried.map((c) => (
                <div key={c.path} className="recall-item">
                  <div className="recall-line">
                    <span className="recall-name">{printable(c.name || c.path)}</span>
                    {c.type && <span className={`type-chip type-${c.type}`}>{c.type}</span>}
                  </div>
                  <button
                    type="button"
                    className="link-button chat-path"
                    title="Open this memory"
                    data-testid="recall-carried-item"
                    onClick={() => onOpenPath(c.path)}
                  >
                    {printable(c.path)}
                  </button>
                  <div className="recall-meta muted">recalled earlier · about {tokensOf(c.chars_injected)} tokens</div>
                </div>
              ))}
            </div>
          )}
          {recall && recall.cuts.length > 0 && (
            <ul className="recall-cuts muted" data-testid="recall-cuts">
              {recall.cuts.map((c) => (
                <li key={c}>Cut to fit: {c}.</li>
              ))}
            </ul>
          )}
          {!recall &&
            paths?.map((p) => (
              <div key={p} className="recall-item">
                <button
                  type="button"
                  className="link-button chat-path"
                  title="Open this memory"
                  data-testid="recall-item"
                  onClick={() => onOpenPath(p)}
                >
                  {p}
                </button>
              </div>
            ))}
        </div>
      )}
    </div>
  );
}

/** "2 %" / "under 1 %": the share of the context window memory took. */
export function windowShare(tokens: number, window: number): string {
  const pct = (tokens / window) * 100;
  return pct > 0 && pct < 1 ? "under 1 %" : `${Math.round(pct)} %`;
}

/** About how many tokens a text of `chars` characters costs (Mnemo counts 3 bytes a token). */
function tokensOf(chars: number): string {
  return Math.max(1, Math.round(chars / 3)).toLocaleString();
}

/** Why one memory was recalled: "close in meaning 0.62 · shares words 0.80 · match 0.71 · today · about 40 tokens". */
function RecallMeta({ recalled: r, strategy }: { recalled: Recalled; strategy: Strategy }) {
  const parts = [whyRecalled(strategy, r), r.age, `about ${tokensOf(r.chars_injected)} tokens`].filter((p) => p !== "");
  return (
    <div className="recall-meta muted" data-testid="recall-meta">
      {parts.join(" · ")}
    </div>
  );
}

/** What was written after a reply: by the chat model itself or by background extraction. */
function WriteNotes({ message: m, onOpenPath }: Props) {
  const files = wroteFiles(m);
  const ex = m.extraction;
  return (
    <>
      {files.length > 0 && (
        <div className="chat-wrote">
          <span className="chat-badge wrote" data-testid="wrote-badge">
            Wrote {countMemories(files.length)}
          </span>
          <ul className="chat-wrote-list">
            {files.map((f) => (
              <li key={f}>
                <button
                  type="button"
                  className="link-button chat-path"
                  title="Open this memory"
                  data-testid="wrote-link"
                  onClick={() => onOpenPath(f)}
                >
                  {printable(f)}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      {m.proposal !== null && (
        <div className="chat-note" data-testid="proposal-note">
          Proposed a change to your memory for review: nothing is written until you accept it in the Inbox.
        </div>
      )}
      {ex?.running && (
        <div className="chat-note" data-testid="extracting-indicator">
          Saving memories…
        </div>
      )}
      {ex && !ex.running && ex.last?.status === "failed" && (
        <div className="chat-note" data-testid="extract-note">
          Could not save memories{ex.last.detail ? `: ${ex.last.detail}` : "."}
        </div>
      )}
      {ex && !ex.running && ex.last && ex.last.status !== "failed" && files.length === 0 && (
        <div className="chat-note" data-testid="extract-note">
          No new memories
        </div>
      )}
      {ex && !ex.running && (ex.last?.dropped?.length ?? 0) > 0 && <DroppedFacts dropped={ex.last?.dropped ?? []} />}
    </>
  );
}

/** Facts the planner proposed but did not save, each with why, behind "N not saved". */
function DroppedFacts({ dropped }: { dropped: readonly Dropped[] }) {
  return (
    <details className="chat-dropped" data-testid="extract-dropped">
      <summary className="chat-note">{dropped.length} not saved</summary>
      <ul className="chat-dropped-list">
        {dropped.map((d, i) => (
          /* Text as the model gave it: React escapes it. */
          <li key={i} data-testid="extract-dropped-item">
            {d.fact} <span className="muted">— {d.reason}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}
