import { fireEvent, render, screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { RecallResult, Recalled } from "../../lib/bindings";
import type { ChatMessage } from "../../lib/chat";
import { ChatMessageView } from "./ChatMessage";
import { CONFLICT_RECALL } from "../../lib/sync";

const recalled = (path: string, name: string, conflict: boolean): Recalled => ({
  path,
  name,
  type: "user",
  score: 0.8,
  vector: null,
  lexical: 1,
  mtime: "2026-11-20T10:00:00Z",
  age: "7 days ago",
  chars_injected: 30,
  tokens_injected: 10,
  conflict,
});

const recall: RecallResult = {
  strategy: "heuristic",
  selected: [recalled("home-city.md", "Home city", true), recalled("editor.md", "Editor", false)],
  docs_scanned: 2,
  prompt: "",
  chars_injected: 60,
  duration_ms: 3,
  carried: [],
  tokens_injected: 20,
  budget_tokens: null,
  cuts: [],
};

const reply: ChatMessage = {
  key: "r1",
  role: "assistant",
  text: "You live in Lisbon or Porto — which is it now?",
  streaming: false,
  stopped: false,
  unsaved: false,
  recall,
  recalledPaths: [],
  tools: [],
  wrote: [],
  proposal: null,
  extraction: null,
  memory: null,
} as ChatMessage;

describe("a recalled memory holding a sync conflict", () => {
  it("says its versions disagree, on that memory only", () => {
    render(<ChatMessageView message={reply} onOpenPath={vi.fn()} />);
    fireEvent.click(screen.getByTestId("recall-badge"));
    const items = screen.getByTestId("recall-details").querySelectorAll(".recall-item");
    expect(items).toHaveLength(2);
    // What a conflict means for recall: the one sentence every place says.
    expect(within(items[0] as HTMLElement).getByTestId("recall-conflict").textContent).toBe(
      `A sync conflict you have not settled. ${CONFLICT_RECALL} Open it to choose.`,
    );
    expect(within(items[1] as HTMLElement).queryByTestId("recall-conflict")).toBeNull();
  });
});

describe("the chat model's own write in review mode", () => {
  it("says it was proposed, never that it was written", () => {
    render(<ChatMessageView message={{ ...reply, proposal: 7 }} onOpenPath={vi.fn()} />);
    expect(screen.getByTestId("proposal-note").textContent).toBe(
      "Proposed a change to your memory for review: nothing is written until you accept it in the Inbox.",
    );
    expect(screen.queryByTestId("wrote-badge")).toBeNull();
  });
});
