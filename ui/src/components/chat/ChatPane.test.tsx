import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ChatPane } from "./ChatPane";
import { commands } from "../../lib/bindings";
import { RECENT_PROPOSALS } from "../../lib/useInbox";
import type { ApiError, ChatEvent, Compaction, RecallResult, SessionInfo, TurnResult } from "../../lib/bindings";
import { onChatEvent } from "../../lib/transport";
import type { Result } from "../../lib/transport";
import { DOCS, MODEL_SETTINGS, SYNC_SETTINGS, err, memoryStats, ok, proposalPage, proposalSummary } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    getModelSettings: vi.fn(),
    // The local model's state: not read in these tests (the welcome and settings say they could not).
    localModel: vi.fn(async () => ({ status: "error", error: { code: "io", message: "not read in this test" } })),
    setModelSettings: vi.fn(),
    testModel: vi.fn(),
    modelList: vi.fn(),
    syncSettings: vi.fn(),
    setSyncSettings: vi.fn(),
    syncNow: vi.fn(),
    chatSessions: vi.fn(),
    chatCreate: vi.fn(),
    chatTranscript: vi.fn(),
    chatUpdate: vi.fn(),
    chatDelete: vi.fn(),
    chatSend: vi.fn(),
    chatCancel: vi.fn(),
    stats: vi.fn(),
    list: vi.fn(),
    inbox: vi.fn(),
  },
}));

vi.mock("../../lib/transport", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../lib/transport")>()),
  onChatEvent: vi.fn(),
}));

const api = vi.mocked(commands);

let listeners: ((e: ChatEvent) => void)[] = [];

function emit(e: ChatEvent) {
  act(() => {
    for (const cb of listeners) cb(e);
  });
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const session = (id: string, title: string, updated_at: string, extra: Partial<SessionInfo> = {}): SessionInfo => ({
  id,
  title,
  messages: 2,
  updated_at,
  ignore_memory: false,
  ...extra,
});

const OLD = session("s-old", "Older chat", "2026-01-01T10:00:00Z");
const NEW = session("s-new", "Trip planning", "2026-02-01T10:00:00Z");

const RECALL: RecallResult = {
  strategy: "heuristic",
  selected: [
    {
      path: "response-style.md",
      name: "Response style",
      type: "feedback",
      score: 0.5,
      vector: null,
      lexical: null,
      mtime: "2026-01-01T00:00:00Z",
      age: "2 days ago",
      chars_injected: 120,
      tokens_injected: 30,
      conflict: false,
    },
  ],
  docs_scanned: 6,
  prompt: "## Memory",
  chars_injected: 120,
  duration_ms: 7,
  carried: [{ path: "editor.md", name: "Editor", type: "user", chars_injected: 40, tokens_injected: 10 }],
  tokens_injected: 310,
  budget_tokens: 2048,
  cuts: ["MEMORY.md is 400 lines, 41000 bytes: only its first part was loaded (200 lines / 25000 bytes at most)"],
};

function turn(extra: Partial<TurnResult> = {}): TurnResult {
  return { session: "s-new", reply: "Hello there.\nSecond line", command: null, recall: RECALL, wrote: [], extract: null, extract_task: null, dream_task: null, command_task: null, compacted: null, redacted: null, proposal: null, ...extra };
}

const onOpenMemory = vi.fn();

beforeEach(() => {
  listeners = [];
  vi.mocked(onChatEvent).mockImplementation((cb) => {
    listeners.push(cb);
    return () => {
      listeners = listeners.filter((x) => x !== cb);
    };
  });
  api.getModelSettings.mockResolvedValue(ok(MODEL_SETTINGS));
  api.syncSettings.mockResolvedValue(ok(SYNC_SETTINGS));
  api.inbox.mockResolvedValue(ok(proposalPage()));
  api.chatSessions.mockResolvedValue(ok([OLD, NEW]));
  api.chatTranscript.mockImplementation(async (_ws, id) =>
    ok({
      session: id === NEW.id ? NEW : OLD,
      messages:
        id === NEW.id
          ? [
              { role: "user", text: "How should you answer?", at: "2026-02-01T10:00:00Z", recalled: [], wrote: [], proposal: null },
              { role: "assistant", text: "Tersely.", at: "2026-02-01T10:00:01Z", recalled: ["response-style.md"], wrote: [], proposal: null },
            ]
          : [{ role: "user", text: "old question", at: "2026-01-01T10:00:00Z", recalled: [], wrote: [], proposal: null }],
      compactions: [],
    }),
  );
  api.chatCancel.mockResolvedValue(ok(true));
});

function renderPane() {
  return render(<ChatPane workspace="personal" workspaceLabel="Personal" onOpenMemory={onOpenMemory} />);
}

const messages = () =>
  screen.queryAllByTestId("chat-message").map((m) => [m.getAttribute("data-role"), m.querySelector(".chat-text")?.textContent]);

async function loaded() {
  await waitFor(() => expect(messages()).toHaveLength(2));
}

function type(text: string) {
  fireEvent.change(screen.getByTestId("chat-input"), { target: { value: text } });
}

describe("chat pane", () => {
  it("opens the most recent session and shows what recall put into a saved reply", async () => {
    renderPane();
    expect(screen.getByText("Chat — memory: Personal")).toBeTruthy();
    await loaded();
    expect(api.chatTranscript).toHaveBeenCalledWith("personal", "s-new");
    const select = screen.getByTestId<HTMLSelectElement>("chat-session-select");
    expect([...select.options].map((o) => o.text)).toEqual(["Trip planning", "Older chat"]);
    expect(select.value).toBe("s-new");
    expect(messages()).toEqual([
      ["user", "How should you answer?"],
      ["assistant", "Tersely."],
    ]);

    const badge = screen.getByTestId("recall-badge");
    expect(badge.textContent).toContain("Recalled 1 memory");
    fireEvent.click(badge);
    fireEvent.click(within(screen.getByTestId("recall-details")).getByTestId("recall-item"));
    expect(onOpenMemory).toHaveBeenCalledWith("personal", "response-style.md");

    fireEvent.change(select, { target: { value: "s-old" } });
    await waitFor(() => expect(messages()).toEqual([["user", "old question"]]));
    expect(api.chatTranscript).toHaveBeenLastCalledWith("personal", "s-old");
  });

  it("sees a model another program set once the window is back in focus", async () => {
    api.getModelSettings.mockResolvedValue(ok({ ...MODEL_SETTINGS, base_url: "", model: "", configured: false }));
    renderPane();
    await screen.findByTestId("chat-no-model");
    api.getModelSettings.mockResolvedValue(ok(MODEL_SETTINGS));
    fireEvent.focus(window);
    await waitFor(() => expect(screen.queryByTestId("chat-no-model")).toBeNull());
  });

  it("says when no model is configured, and updates once settings are saved", async () => {
    api.getModelSettings.mockResolvedValue(ok({ ...MODEL_SETTINGS, base_url: "", model: "", configured: false }));
    api.setModelSettings.mockResolvedValue(ok(MODEL_SETTINGS));
    renderPane();
    const banner = await screen.findByTestId("chat-no-model");
    expect(banner.textContent).toContain("No model is configured");
    expect(banner.textContent).toContain("MNEMO_LLM_BASE_URL");
    expect(banner.textContent).toContain("search and recall keep working");

    // A message is not sent and makes no empty "New chat"; it stays in the box.
    const box = screen.getByTestId<HTMLTextAreaElement>("chat-input");
    fireEvent.change(box, { target: { value: "Suggest a snack" } });
    fireEvent.keyDown(box, { key: "Enter" });
    expect((await within(banner).findByTestId("chat-needs-model")).textContent).toMatch(/Your message was not sent/);
    expect(api.chatCreate).not.toHaveBeenCalled();
    expect(api.chatSend).not.toHaveBeenCalled();
    expect(box.value).toBe("Suggest a snack");
    expect(document.activeElement).toBe(within(banner).getByTestId("chat-no-model-settings"));

    fireEvent.click(within(banner).getByRole("button", { name: "Open settings" }));
    const dialog = await screen.findByTestId("model-settings");
    fireEvent.change(await within(dialog).findByTestId("model-base-url"), { target: { value: "http://127.0.0.1:11434/v1" } });
    fireEvent.change(within(dialog).getByTestId("model-name"), { target: { value: "qwen3:8b" } });
    fireEvent.click(within(dialog).getByTestId("model-save"));
    await waitFor(() => expect(screen.queryByTestId("chat-no-model")).toBeNull());
    fireEvent.click(screen.getByTestId("model-close"));
    expect(screen.queryByTestId("model-settings")).toBeNull();
  });

  it("as a drawer, sits below a dialog opened over it: one backdrop dims it like the rest", async () => {
    render(<ChatPane workspace="personal" workspaceLabel="Personal" onOpenMemory={onOpenMemory} onClose={() => {}} drawer />);
    await loaded();
    const backdrop = screen.getByTestId("chat-backdrop");
    expect(backdrop.className).toBe("drawer-backdrop");
    fireEvent.click(screen.getByTestId("chat-settings-button"));
    const dialog = await screen.findByTestId("model-settings");
    // The dialog is on top: the drawer's own dimming steps aside, the dialog's backdrop covers both.
    await waitFor(() => expect(screen.getByTestId("chat-backdrop").getAttribute("data-covered")).toBe("true"));
    expect(screen.getByTestId("chat-backdrop").classList.contains("covered")).toBe(true);
    expect(screen.getByTestId("chat-pane").getAttribute("data-covered")).toBe("true");
    expect(dialog.closest(".modal-backdrop")).toBeTruthy();
    fireEvent.click(within(dialog).getByTestId("model-close"));
    await waitFor(() => expect(screen.queryByTestId("model-settings")).toBeNull());
    expect(screen.getByTestId("chat-backdrop").classList.contains("covered")).toBe(false);
  });

  it("streams a reply, then shows the final one with recall details, tool use and what was written", async () => {
    const reply = deferred<Result<TurnResult, ApiError>>();
    api.chatSend.mockReturnValue(reply.promise);
    renderPane();
    await loaded();

    type("Plan my trip");
    fireEvent.keyDown(screen.getByTestId("chat-input"), { key: "Enter" });
    await waitFor(() => expect(api.chatSend).toHaveBeenCalledWith("personal", "s-new", "Plan my trip"));
    expect(screen.getByTestId<HTMLTextAreaElement>("chat-input").value).toBe("");
    expect(screen.getByTestId("chat-stop")).toBeTruthy();

    const streaming = () => screen.getAllByTestId("chat-message").at(-1) as HTMLElement;
    expect(streaming().getAttribute("data-streaming")).toBe("true");
    emit({ kind: "recalled", workspace: "personal", session: "s-new", recall: RECALL });
    emit({ kind: "delta", workspace: "personal", session: "s-new", text: "Hel" });
    emit({ kind: "delta", workspace: "personal", session: "s-new", text: "lo" });
    // Other workspaces and sessions do not leak in.
    emit({ kind: "delta", workspace: "other", session: "s-new", text: "XX" });
    emit({ kind: "delta", workspace: "personal", session: "s-old", text: "YY" });
    expect(streaming().querySelector(".chat-text")?.textContent).toBe("Hello");
    emit({ kind: "tool", workspace: "personal", session: "s-new", name: "write_file" });
    expect(within(streaming()).getByTestId("chat-tool").textContent).toBe("used write_file");

    await act(async () => reply.resolve(ok(turn({ wrote: ["trips.md"] }))));
    expect(streaming().getAttribute("data-streaming")).toBeNull();
    expect(streaming().querySelector(".chat-text")?.textContent).toBe("Hello there.\nSecond line");
    // A late delta does not touch the finished reply.
    emit({ kind: "delta", workspace: "personal", session: "s-new", text: "late" });
    expect(streaming().querySelector(".chat-text")?.textContent).toBe("Hello there.\nSecond line");
    expect(screen.getByTestId("chat-send")).toBeTruthy();
    await waitFor(() => expect(api.chatSessions).toHaveBeenCalledTimes(2));

    const last = streaming();
    fireEvent.click(within(last).getByTestId("recall-badge"));
    const details = within(last).getByTestId("recall-details");
    expect(details.textContent).toContain("Chosen by the words they share with your message, from 6 memories.");
    expect(details.textContent).toContain("Response style");
    expect(details.textContent).toContain("match 0.50 · 2 days ago · about 40 tokens");
    expect(details.textContent).toContain("2 days ago");
    fireEvent.click(within(details).getByTestId("recall-item"));
    expect(onOpenMemory).toHaveBeenLastCalledWith("personal", "response-style.md");
    // Memories from earlier turns still in the prompt, the tokens injected and what was cut.
    expect(within(details).getByTestId("recall-carried").textContent).toContain("Still in view from earlier in this chat");
    fireEvent.click(within(details).getByTestId("recall-carried-item"));
    expect(onOpenMemory).toHaveBeenLastCalledWith("personal", "editor.md");
    expect(within(details).getByTestId("recall-tokens").textContent).toContain("about 310 tokens (its budget: 2,048)");
    // And what share of the model's whole context window that is.
    expect(within(details).getByTestId("recall-tokens").textContent).toContain("under 1 % of the model's 32,768-token context window");
    expect(within(details).getByTestId("recall-cuts").textContent).toContain("only its first part was loaded");

    emit({ kind: "extracting", workspace: "personal", session: "s-new", task: "t1" });
    expect(within(last).getByTestId("extracting-indicator").textContent).toBe("Saving memories…");
    emit({
      kind: "extracted",
      workspace: "personal",
      session: "s-new",
      task: "t1",
      result: { status: "completed", files_written: ["travel-prefs.md"], touched_types: ["user"], detail: null, upto: 0, road: "tools", dropped: [] },
    });
    expect(within(last).queryByTestId("extracting-indicator")).toBeNull();
    expect(within(last).getByTestId("wrote-badge").textContent).toBe("Wrote 2 memories");
    const links = within(last).getAllByTestId("wrote-link");
    expect(links.map((l) => l.textContent)).toEqual(["trips.md", "travel-prefs.md"]);
    fireEvent.click(links[1]);
    expect(onOpenMemory).toHaveBeenLastCalledWith("personal", "travel-prefs.md");
  });

  it("explains a hybrid recall: the strategy in words, 0–1 scores, and meaning and words scores", async () => {
    const recalled = (path: string, score: number, vector: number | null, lexical: number | null) => ({
      ...RECALL.selected[0],
      path,
      name: path,
      score,
      vector,
      lexical,
    });
    const hybrid: RecallResult = {
      ...RECALL,
      strategy: "hybrid",
      selected: [recalled("both.md", 0.7149, 0.6213, 0.8), recalled("words.md", 0.00000015, null, 0.4)],
    };
    api.chatSend.mockResolvedValue(ok(turn({ recall: hybrid })));
    renderPane();
    await loaded();
    type("which pet do I own?");
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(screen.getAllByTestId("recall-badge")).toHaveLength(2));
    const last = screen.getAllByTestId("chat-message").at(-1)!;
    fireEvent.click(within(last).getByTestId("recall-badge"));
    const details = within(last).getByTestId("recall-details");
    expect(within(details).getByTestId("recall-strategy").textContent).toMatch(/^Chosen by closeness in meaning and shared words, from \d+ memor/);
    const metas = within(details).getAllByTestId("recall-meta").map((m) => m.textContent);
    expect(metas).toEqual([
      "close in meaning 0.62 · shares words 0.80 · match 0.71 · 2 days ago · about 40 tokens",
      // Never exponent notation; no meaning score when it was no vector candidate.
      "shares words 0.40 · match 0.00 · 2 days ago · about 40 tokens",
    ]);
  });

  it("keeps an extraction result that arrives before the reply resolves, and says when it failed", async () => {
    const reply = deferred<Result<TurnResult, ApiError>>();
    api.chatSend.mockReturnValue(reply.promise);
    renderPane();
    await loaded();
    type("hi");
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(api.chatSend).toHaveBeenCalled());
    emit({
      kind: "extracted",
      workspace: "personal",
      session: "s-new",
      task: "t1",
      result: { status: "completed", files_written: ["early.md"], touched_types: [], detail: null, upto: 0, road: "tools", dropped: [] },
    });
    await act(async () => reply.resolve(ok(turn())));
    expect(screen.getByTestId("wrote-badge").textContent).toBe("Wrote 1 memory");
    emit({
      kind: "extracted",
      workspace: "personal",
      session: "s-new",
      task: "t1",
      result: { status: "failed", files_written: [], touched_types: [], detail: "model timed out", upto: 0, road: null, dropped: [] },
    });
    expect(screen.getByTestId("extract-note").textContent).toContain("model timed out");
  });

  it("lists the facts the planner did not save, each with why, behind a disclosure", async () => {
    api.chatSend.mockResolvedValue(ok(turn()));
    renderPane();
    await loaded();
    type("I'm allergic to peanuts and my cat is called <b>Tom</b>");
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(screen.getAllByTestId("recall-badge")).toHaveLength(2));
    const last = screen.getAllByTestId("chat-message").at(-1)!;
    expect(within(last).queryByTestId("extract-dropped")).toBeNull();
    emit({
      kind: "extracted",
      workspace: "personal",
      session: "s-new",
      task: "t1",
      result: {
        status: "completed",
        files_written: ["allergies.md"],
        touched_types: ["user"],
        detail: null,
        upto: 0,
        road: "planner",
        dropped: [
          { fact: "The user's cat is called <b>Tom</b>", reason: "no message you wrote says so" },
          { fact: "The user likes peanuts", reason: "it says the opposite of what you wrote" },
        ],
      },
    });
    const dropped = within(last).getByTestId("extract-dropped");
    expect(dropped.tagName).toBe("DETAILS");
    expect(dropped.querySelector("summary")?.textContent).toBe("2 not saved");
    const items = within(dropped).getAllByTestId("extract-dropped-item");
    // The fact is text: shown as written, never as markup.
    expect(items.map((i) => i.textContent)).toEqual([
      "The user's cat is called <b>Tom</b> — no message you wrote says so",
      "The user likes peanuts — it says the opposite of what you wrote",
    ]);
    expect(dropped.querySelector("b")).toBeNull();
    expect(within(last).getByTestId("wrote-badge").textContent).toBe("Wrote 1 memory");
  });

  it("shows a failed send inline and keeps the message in the input", async () => {
    api.chatSend.mockResolvedValue(err("model_not_configured", "chat needs a model: no base URL is configured"));
    renderPane();
    await loaded();
    type("Remember that I like tea");
    fireEvent.click(screen.getByTestId("chat-send"));
    const error = await screen.findByTestId("chat-error");
    expect(error.textContent).toContain("Chat needs a model, and none is set up yet. No base URL is configured.");
    expect(error.textContent).not.toContain("model_not_configured");
    expect(screen.getByTestId<HTMLTextAreaElement>("chat-input").value).toBe("Remember that I like tea");
    expect(messages()).toHaveLength(2);
    fireEvent.click(within(error).getByRole("button", { name: "Open settings" }));
    expect(await screen.findByTestId("model-settings")).toBeTruthy();
  });

  it("lists the chat commands when the message starts with /", async () => {
    api.chatSessions.mockResolvedValue(ok([]));
    renderPane();
    expect(await screen.findByText("No chats yet")).toBeTruthy();
    type("/");
    const list = await screen.findByTestId("chat-commands");
    expect(list.textContent).toContain("/memory");
    expect(list.textContent).toContain("/remember <fact>");
    type("/re");
    expect(screen.getByTestId("chat-commands").textContent).not.toContain("/memory");
    fireEvent.click(screen.getByText("/remember <fact>"));
    expect((screen.getByTestId("chat-input") as HTMLTextAreaElement).value).toBe("/remember ");
    expect(screen.queryByTestId("chat-commands")).toBeNull();
  });

  it("says in a sentence when a secret was taken out of the message", async () => {
    api.chatSessions.mockResolvedValue(ok([]));
    api.chatCreate.mockResolvedValue(ok(session("s-1", "New chat", "2026-03-01T00:00:00Z", { messages: 0 })));
    const note =
      "Your message held what looks like a secret (github_token). Mnemo replaced it with [redacted] before the model saw it or anything was saved.";
    api.chatSend.mockResolvedValue(ok(turn({ session: "s-1", reply: "Noted.", recall: null, redacted: note })));
    renderPane();
    expect(await screen.findByText("No chats yet")).toBeTruthy();
    type("my token is ghp_x");
    fireEvent.keyDown(screen.getByTestId("chat-input"), { key: "Enter" });
    expect((await screen.findByTestId("chat-redacted")).textContent).toBe(note);
  });

  it("sends only on Enter without Shift, and creates a session when there is none", async () => {
    api.chatSessions.mockResolvedValue(ok([]));
    api.chatCreate.mockResolvedValue(ok(session("s-1", "New chat", "2026-03-01T00:00:00Z", { messages: 0 })));
    api.chatSend.mockResolvedValue(ok(turn({ session: "s-1", reply: "Hi!", recall: null })));
    renderPane();
    expect(await screen.findByText("No chats yet")).toBeTruthy();
    type("hello");
    fireEvent.keyDown(screen.getByTestId("chat-input"), { key: "Enter", shiftKey: true });
    expect(api.chatCreate).not.toHaveBeenCalled();
    fireEvent.keyDown(screen.getByTestId("chat-input"), { key: "Enter" });
    await waitFor(() => expect(api.chatSend).toHaveBeenCalledWith("personal", "s-1", "hello"));
    expect(api.chatCreate).toHaveBeenCalledWith("personal", null);
    await waitFor(() => expect(messages()).toEqual([["user", "hello"], ["assistant", "Hi!"]]));
    expect(screen.queryByTestId("recall-badge")).toBeNull();
  });

  it("shows /memory as a card: memories by type, last runs in local time, the undone dream, the model", async () => {
    api.chatSend.mockResolvedValue(ok(turn({ command: { name: "memory" }, recall: null, reply: "Auto-memory: on\n6 memories: …" })));
    const dreamed = "2026-02-28T10:00:00Z";
    api.stats.mockResolvedValue(
      ok(memoryStats({ last_dream_at: dreamed, last_dream_status: "updated", last_dream_undone_by: 7, auto_dream: true })),
    );
    api.list.mockResolvedValue(ok(DOCS));
    renderPane();
    await loaded();
    type("/memory");
    fireEvent.click(screen.getByTestId("chat-send"));
    const card = await screen.findByTestId("memory-card");
    expect(api.stats).toHaveBeenCalledWith("personal");
    expect(api.list).toHaveBeenCalledWith("personal", null);
    const message = card.closest('[data-testid="chat-message"]');
    expect(message?.getAttribute("data-role")).toBe("command");
    // The card replaces the text dump.
    expect(message?.querySelector(".chat-text")).toBeNull();
    expect(card.textContent).not.toContain("Auto-memory:");
    expect(within(card).getByTestId("memory-card-memories").textContent).toContain("6 memories: 2 user, 1 feedback");
    expect(within(card).getByTestId("memory-card-auto-dream").textContent).toContain("On");
    const local = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" }).format(new Date(dreamed));
    expect(within(card).getByTestId("memory-card-last-dream").textContent).toContain(local);
    expect(within(card).getByTestId("memory-card-last-dream").textContent).not.toContain(dreamed);
    expect(within(card).getByTestId("memory-card-last-dream-undone").textContent).toBe("· undone since");
    expect(within(card).getByTestId("memory-card-model").textContent).toBe("qwen3:8b");
  });

  it("shows in /memory where the last dream's proposal stands, read when asked", async () => {
    api.chatSend.mockResolvedValue(ok(turn({ command: { name: "memory" }, recall: null, reply: "Memory: Personal" })));
    const dreamed = "2026-02-28T10:00:00Z";
    api.stats.mockResolvedValue(ok(memoryStats({ last_dream_at: dreamed, last_dream_status: "proposed" })));
    api.list.mockResolvedValue(ok(DOCS));
    api.inbox.mockResolvedValue(ok(proposalPage([proposalSummary(4, { kind: "dream", source: "dream", at: "2026-02-28T10:00:01Z", status: "accepted" })])));
    renderPane();
    await loaded();
    type("/memory");
    fireEvent.click(screen.getByTestId("chat-send"));
    const card = await screen.findByTestId("memory-card");
    expect(api.inbox).toHaveBeenCalledWith("personal", null, 0, RECENT_PROPOSALS);
    expect(within(card).getByTestId("memory-card-last-dream").textContent).toContain("Proposed, then accepted");
    expect(within(card).getByTestId("memory-card-last-dream").textContent).not.toContain("waiting in the Inbox");
  });

  it("shows /memory's text when its figures cannot be read", async () => {
    api.chatSend.mockResolvedValue(ok(turn({ command: { name: "memory" }, recall: null, reply: "Memory: Personal (6 memories)" })));
    api.stats.mockResolvedValue(err("io", "cannot read the index"));
    api.list.mockResolvedValue(ok(DOCS));
    renderPane();
    await loaded();
    type("/memory");
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(messages().at(-1)).toEqual(["command", "Memory: Personal (6 memories)"]));
    expect(screen.queryByTestId("memory-card")).toBeNull();
  });

  it("leaves other commands' answers as text, without reading the figures", async () => {
    api.chatSend.mockResolvedValue(ok(turn({ command: { name: "remember", fact: "x" }, recall: null, reply: "Remembering…", command_task: "r1" })));
    renderPane();
    await loaded();
    type("/remember Tea, not coffee");
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(messages().at(-1)).toEqual(["command", "Remembering…"]));
    expect(api.stats).not.toHaveBeenCalled();
    expect(screen.queryByTestId("memory-card")).toBeNull();
  });

  it("stops a reply being written", async () => {
    const reply = deferred<Result<TurnResult, ApiError>>();
    api.chatSend.mockReturnValue(reply.promise);
    renderPane();
    await loaded();
    type("long story");
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(api.chatSend).toHaveBeenCalled());
    emit({ kind: "delta", workspace: "personal", session: "s-new", text: "Once upon" });
    fireEvent.click(screen.getByTestId("chat-stop"));
    await waitFor(() => expect(api.chatCancel).toHaveBeenCalledWith("s-new"));
    await act(async () => reply.resolve(err("io", "chat needs a model: cancelled")));
    expect(screen.getByTestId("chat-stopped")).toBeTruthy();
    expect(screen.queryByTestId("chat-error")).toBeNull();
    expect(messages().at(-1)).toEqual(["assistant", "Once upon"]);
  });

  it("sets ignore-memory for the chat", async () => {
    api.chatUpdate.mockResolvedValue(ok({ ...NEW, ignore_memory: true }));
    renderPane();
    await loaded();
    const box = screen.getByTestId<HTMLInputElement>("chat-ignore-memory");
    expect(box.checked).toBe(false);
    fireEvent.click(box);
    await waitFor(() => expect(api.chatUpdate).toHaveBeenCalledWith("personal", "s-new", null, true));
    expect(screen.getByTestId<HTMLInputElement>("chat-ignore-memory").checked).toBe(true);
  });

  it("creates, renames and deletes chats", async () => {
    api.chatCreate.mockResolvedValue(ok(session("s-3", "New chat", "2026-03-01T00:00:00Z", { messages: 0 })));
    api.chatTranscript.mockResolvedValueOnce(
      ok({ session: NEW, messages: [{ role: "user", text: "q", at: "", recalled: [], wrote: [], proposal: null }, { role: "assistant", text: "a", at: "", recalled: [], wrote: [], proposal: null }], compactions: [] }),
    );
    api.chatUpdate.mockResolvedValue(ok(session("s-3", "Packing list", "2026-03-01T00:00:01Z", { messages: 0 })));
    api.chatDelete.mockResolvedValue(ok(null));
    renderPane();
    await loaded();

    const fresh = session("s-3", "New chat", "2026-03-01T00:00:00Z", { messages: 0 });
    api.chatTranscript.mockImplementation(async (_ws, id) => ok({ session: id === "s-3" ? fresh : NEW, messages: [], compactions: [] }));
    fireEvent.click(screen.getByTestId("chat-new"));
    await waitFor(() => expect(screen.getByTestId<HTMLSelectElement>("chat-session-select").value).toBe("s-3"));
    expect(api.chatCreate).toHaveBeenCalledWith("personal", null);
    await waitFor(() => expect(messages()).toEqual([]));

    fireEvent.click(screen.getByTestId("chat-rename"));
    const input = screen.getByTestId<HTMLInputElement>("chat-rename-input");
    expect(input.value).toBe("New chat");
    fireEvent.change(input, { target: { value: "Packing list" } });
    fireEvent.keyDown(input, { key: "Enter" });
    await waitFor(() => expect(api.chatUpdate).toHaveBeenCalledWith("personal", "s-3", "Packing list", null));
    const select = await screen.findByTestId<HTMLSelectElement>("chat-session-select");
    await waitFor(() => expect(select.options[select.selectedIndex].text).toBe("Packing list"));

    fireEvent.click(screen.getByTestId("chat-delete"));
    expect(screen.getByRole("dialog").textContent).toContain("Packing list");
    fireEvent.click(screen.getByTestId("chat-delete-confirm"));
    await waitFor(() => expect(api.chatDelete).toHaveBeenCalledWith("personal", "s-3"));
    // The next most recent chat opens.
    await waitFor(() => expect(screen.getByTestId<HTMLSelectElement>("chat-session-select").value).toBe("s-new"));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect([...screen.getByTestId<HTMLSelectElement>("chat-session-select").options].map((o) => o.value)).toEqual([
      "s-new",
      "s-old",
    ]);
  });
});

describe("compaction marker", () => {
  const SUMMARY: Compaction = {
    upto: 2,
    summary: "The user asked how to answer.\nAnswer tersely.",
    by: "model",
    at: "2026-02-01T10:05:00Z",
    log: "logs/2026/02/2026-02-01.md",
  };

  /** The message texts and markers of the pane, in order. */
  const shown = () =>
    [...screen.getByTestId("chat-messages").querySelectorAll("[data-testid=chat-message], [data-testid=chat-compaction]")].map((el) =>
      el.getAttribute("data-testid") === "chat-compaction"
        ? `--${el.getAttribute("data-upto")}--`
        : (el.querySelector(".chat-text")?.textContent ?? ""),
    );

  it("draws a saved compaction between the messages, with the summary one click away", async () => {
    api.chatTranscript.mockResolvedValue(
      ok({
        session: NEW,
        messages: [
          { role: "user", text: "How should you answer?", at: "", recalled: [], wrote: [], proposal: null },
          { role: "assistant", text: "Tersely.", at: "", recalled: [], wrote: [], proposal: null },
          { role: "user", text: "And now?", at: "", recalled: [], wrote: [], proposal: null },
          { role: "assistant", text: "Still tersely.", at: "", recalled: [], wrote: [], proposal: null },
        ],
        compactions: [SUMMARY],
      }),
    );
    renderPane();
    await waitFor(() => expect(messages()).toHaveLength(4));
    // Every message stays shown; the marker sits after the two it stands for.
    expect(shown()).toEqual(["How should you answer?", "Tersely.", "--2--", "And now?", "Still tersely."]);

    const marker = screen.getByTestId("chat-compaction");
    expect(within(marker).getByRole("separator", { name: "Conversation compacted after 2 messages" })).toBeTruthy();
    expect(marker.textContent).toContain("Conversation compacted — the model now sees a summary of the messages above");
    expect(within(marker).queryByTestId("compaction-summary")).toBeNull();

    const toggle = within(marker).getByRole("button", { name: /Show summary/ });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    const summary = within(marker).getByTestId("compaction-summary");
    expect(toggle.getAttribute("aria-controls")).toBe(summary.id);
    expect(summary.textContent).toContain("The user asked how to answer.\nAnswer tersely.");
    expect(within(summary).getByTestId("compaction-by").textContent).toContain("written by the model");
    expect(within(summary).getByTestId("compaction-log").textContent).toContain(
      "Also saved in the daily log logs/2026/02/2026-02-01.md",
    );
    fireEvent.click(within(summary).getByTestId("compaction-log-link"));
    expect(onOpenMemory).toHaveBeenLastCalledWith("personal", "logs/2026/02/2026-02-01.md");

    fireEvent.click(within(marker).getByRole("button", { name: /Hide summary/ }));
    expect(within(marker).queryByTestId("compaction-summary")).toBeNull();
  });

  it("says when the summary was written without a model, and no log when none was written", async () => {
    api.chatTranscript.mockResolvedValue(
      ok({
        session: NEW,
        messages: [
          { role: "user", text: "q", at: "", recalled: [], wrote: [], proposal: null },
          { role: "assistant", text: "a", at: "", recalled: [], wrote: [], proposal: null },
        ],
        compactions: [{ ...SUMMARY, by: "extractive", log: null }],
      }),
    );
    renderPane();
    await loaded();
    fireEvent.click(screen.getByTestId("compaction-toggle"));
    expect(screen.getByTestId("compaction-by").textContent).toContain("written without a model (extractive)");
    expect(screen.queryByTestId("compaction-log")).toBeNull();
  });

  it("adds the marker a send compacted, above the new turn", async () => {
    api.chatSend.mockResolvedValue(ok(turn({ reply: "Here is the plan.", compacted: SUMMARY })));
    renderPane();
    await loaded();
    expect(screen.queryByTestId("chat-compaction")).toBeNull();
    type("Plan my trip");
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(screen.getByTestId("chat-compaction")).toBeTruthy());
    expect(shown()).toEqual(["How should you answer?", "Tersely.", "--2--", "Plan my trip", "Here is the plan."]);
    expect(screen.getByRole("separator", { name: "Conversation compacted after 2 messages" })).toBeTruthy();
  });
});
