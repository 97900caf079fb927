import { useEffect, useMemo, useRef } from "react";
import { chatItems } from "../../lib/chat";
import type { ChatState } from "../../lib/chat";
import { ChatMessageView } from "./ChatMessage";
import { CompactionMarker } from "./CompactionMarker";

/** Within this many pixels of the bottom, new text keeps the view scrolled to the end. */
const STICK_PX = 80;

interface Props {
  chat: ChatState;
  loading: boolean;
  workspaceLabel: string;
  /** The model's context window, when known (a reply's use of it is shown against it). */
  contextWindow?: number;
  onOpenPath: (path: string) => void;
}

/** The conversation: messages and compaction marks, kept scrolled to the newest text. */
export function ChatBody({ chat, loading, workspaceLabel, contextWindow, onOpenPath }: Props) {
  const messagesRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const items = useMemo(() => chatItems(chat), [chat]);

  // A message sent brings the view to the end; after that, new text keeps it there unless the
  // user scrolled up to read.
  const sending = chat.pending !== null;
  useEffect(() => {
    if (sending) atBottom.current = true;
  }, [sending]);
  useEffect(() => {
    const el = messagesRef.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [chat.messages]);

  return (
    <div
      className="chat-messages"
      data-testid="chat-messages"
      ref={messagesRef}
      onScroll={(e) => {
        const el = e.currentTarget;
        atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
      }}
    >
      {loading && chat.messages.length === 0 && <div className="empty">Loading…</div>}
      {!loading && chat.messages.length === 0 && (
        <div className="empty chat-empty">
          <div className="empty-title">Ask anything</div>
          <div className="muted">
            Relevant memories from {workspaceLabel} are recalled into each reply; what is worth keeping is saved
            afterwards. Type <code>/memory</code> to see what this chat uses.
          </div>
        </div>
      )}
      {items.map((it) =>
        it.kind === "message" ? (
          <ChatMessageView
            key={it.key}
            message={it.message}
            onOpenPath={onOpenPath}
            workspaceLabel={workspaceLabel}
            contextWindow={contextWindow}
          />
        ) : (
          <CompactionMarker key={it.key} compaction={it.compaction} onOpenPath={onOpenPath} />
        ),
      )}
    </div>
  );
}
