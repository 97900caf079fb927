import { useState } from "react";
import type { RefObject } from "react";
import { CHAT_COMMANDS } from "../../lib/bindings";
import { restoreInput } from "../../lib/chat";
import type { UiError } from "../../lib/transport";
import { InlineError } from "../common/InlineError";

/** What a send may do to the text in the box. */
export interface ComposerText {
  /** The message is on its way: the box empties. */
  clear: () => void;
  /** It failed: the text comes back (after anything typed meanwhile). */
  restore: (text: string) => void;
}

interface Props {
  inputRef: RefObject<HTMLTextAreaElement | null>;
  /** A turn is being answered: Stop instead of Send. */
  busy: boolean;
  /** The session's messages are loading: nothing is sent yet. */
  loading: boolean;
  onSend: (text: string, box: ComposerText) => void;
  onStop: () => void;
  /** Why the last send failed (Retry sends the box's text again). */
  sendError: UiError | null;
  onOpenSettings: () => void;
}

/** Where a message is typed: the slash commands offered as one types, Send or Stop, and a failed send's error. */
export function ChatComposer({ inputRef, busy, loading, onSend, onStop, sendError, onOpenSettings }: Props) {
  const [input, setInput] = useState("");
  const send = () =>
    onSend(input, {
      clear: () => setInput(""),
      restore: (text) => setInput((cur) => restoreInput(cur, text)),
    });

  return (
    <>
      {sendError && (
        <div className="chat-error" data-testid="chat-error">
          <InlineError error={sendError} onRetry={send} onOpenSettings={onOpenSettings} />
        </div>
      )}

      {/^\/\S*$/.test(input) && (
        <ul className="chat-commands" aria-label="Chat commands" data-testid="chat-commands">
          {CHAT_COMMANDS.filter((c) => c.name.startsWith(input.trim())).map((c) => (
            <li key={c.name}>
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  setInput(c.takes ? `${c.name} ` : c.name);
                  inputRef.current?.focus();
                }}
              >
                <code>
                  {c.name}
                  {c.takes ? ` ${c.takes}` : ""}
                </code>
              </button>{" "}
              <span className="muted">{c.what}</span>
            </li>
          ))}
        </ul>
      )}

      <form
        className="chat-composer"
        onSubmit={(e) => {
          e.preventDefault();
          send();
        }}
      >
        <textarea
          ref={inputRef}
          value={input}
          rows={3}
          placeholder={`Message (Enter to send, Shift+Enter for a new line)`}
          aria-label="Message"
          data-testid="chat-input"
          onChange={(e) => setInput(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              send();
            }
          }}
        />
        {busy ? (
          <button type="button" data-testid="chat-stop" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button type="submit" className="primary" data-testid="chat-send" disabled={!input.trim() || loading}>
            Send
          </button>
        )}
      </form>
    </>
  );
}
