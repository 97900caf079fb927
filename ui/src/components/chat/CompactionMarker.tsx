import { useId, useState } from "react";
import type { Compaction } from "../../lib/bindings";
import { compactionAuthor } from "../../lib/chat";
import { formatTime } from "../../lib/format";

interface Props {
  compaction: Compaction;
  /** Open a file of the chat workspace (the daily log the summary was saved in). */
  onOpenPath: (path: string) => void;
}

const MARKER_TEXT = "Conversation compacted — the model now sees a summary of the messages above";

/**
 * Where the conversation was compacted: the messages above stay shown (the transcript keeps them
 * all), but the model gets a summary in their place. The summary is one click away.
 */
export function CompactionMarker({ compaction: c, onOpenPath }: Props) {
  const [open, setOpen] = useState(false);
  const summaryId = useId();
  const when = formatTime(c.at);
  const log = c.log;
  return (
    <div className="chat-compaction" data-testid="chat-compaction" data-upto={c.upto}>
      {/* The rule itself is the separator; the text and the button stay outside it, so
          assistive technology reads them (a separator's children are presentational). */}
      <div
        role="separator"
        aria-label={`Conversation compacted after ${c.upto} ${c.upto === 1 ? "message" : "messages"}`}
        className="chat-compaction-rule"
      />
      <div className="chat-compaction-line">
        <span className="chat-compaction-text" title={when ? `Compacted ${when}` : undefined}>
          {MARKER_TEXT}
        </span>
        <button
          type="button"
          className="chat-badge"
          aria-expanded={open}
          aria-controls={summaryId}
          data-testid="compaction-toggle"
          onClick={() => setOpen((o) => !o)}
        >
          {open ? "Hide summary ▾" : "Show summary ▸"}
        </button>
      </div>
      {open && (
        <div id={summaryId} className="chat-compaction-summary" data-testid="compaction-summary">
          <div className="chat-compaction-meta muted" data-testid="compaction-by">
            Summary {compactionAuthor(c.by)}
            {when && <> · {when}</>}
          </div>
          {/* Plain text: React escapes it; CSS keeps the line breaks. */}
          <div className="chat-compaction-body">{c.summary}</div>
          {log && (
            <div className="chat-compaction-meta muted" data-testid="compaction-log">
              Also saved in the daily log{" "}
              <button
                type="button"
                className="link-button chat-path"
                title="Open this daily log"
                data-testid="compaction-log-link"
                onClick={() => onOpenPath(log)}
              >
                {log}
              </button>
            </div>
          )}
        </div>
      )}
    </div>
  );
}
