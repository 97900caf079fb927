// "The app tells one truth", as the app wires it: below 1,200 px the chat is a modal drawer
// that starts closed; Settings has a home in the sidebar and Ctrl+, (and asks before it
// drops typed values); the workspace chosen survives a reload; Undo gives the focus to what it
// brought back; the keyboard reaches the editor in a few Tabs.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { App } from "./App";
import { ToastProvider } from "./components/common/Toasts";
import { commands } from "./lib/bindings";
import { WORKSPACE_KEY } from "./lib/prefs";
import { DOCS, MODEL_SETTINGS, SYNC_SETTINGS, WORKSPACES, detailOf, err, ok, proposalPage, remoteSync, reviewMode, status } from "./test/fixtures";

vi.mock("./lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    workspaces: vi.fn(),
    list: vi.fn(),
    logs: vi.fn(),
    get: vi.fn(),
    remove: vi.fn(),
    undo: vi.fn(),
    search: vi.fn(),
    history: vi.fn(),
    status: vi.fn(),
    getModelSettings: vi.fn(),
    // The local model's state: not read in these tests (the welcome and settings say they could not).
    localModel: vi.fn(async () => ({ status: "error", error: { code: "io", message: "not read in this test" } })),
    setModelSettings: vi.fn(),
    modelList: vi.fn(),
    chatSessions: vi.fn(),
    chatTranscript: vi.fn(),
    tasks: vi.fn(),
    autoDream: vi.fn(),
    syncStatus: vi.fn(),
    syncSettings: vi.fn(),
    reviewMode: vi.fn(),
    inbox: vi.fn(),
    memoryUsage: vi.fn(),
  },
}));

const api = vi.mocked(commands);

class FakeEventSource {
  addEventListener() {}
  close() {}
}

/** A window `width` px wide, as far as `matchMedia` goes (jsdom lays nothing out). */
function windowWidth(width: number) {
  const listeners = new Set<() => void>();
  vi.stubGlobal("matchMedia", (query: string) => {
    const max = Number(/max-width:\s*(\d+)px/.exec(query)?.[1] ?? Infinity);
    return {
      matches: width <= max,
      media: query,
      addEventListener: (_: string, l: () => void) => listeners.add(l),
      removeEventListener: (_: string, l: () => void) => listeners.delete(l),
    };
  });
}

beforeEach(() => {
  vi.clearAllMocks();
  vi.stubGlobal("EventSource", FakeEventSource);
  api.workspaces.mockResolvedValue(ok(WORKSPACES));
  api.logs.mockResolvedValue(ok([]));
  api.status.mockResolvedValue(ok(status()));
  api.list.mockResolvedValue(ok(DOCS));
  api.get.mockImplementation(async (workspace, path) => {
    const d = DOCS.find((x) => x.workspace === workspace && x.path === path);
    return d ? ok(detailOf(d)) : err("not_found", `no memory ${path}`);
  });
  api.search.mockResolvedValue(ok([]));
  api.history.mockResolvedValue(ok([]));
  api.getModelSettings.mockResolvedValue(ok(MODEL_SETTINGS));
  api.modelList.mockResolvedValue(ok([]));
  api.chatSessions.mockResolvedValue(ok([]));
  api.tasks.mockResolvedValue(ok([]));
  api.autoDream.mockResolvedValue(ok(true));
  api.syncStatus.mockResolvedValue(ok(remoteSync({ remote: null })));
  api.syncSettings.mockResolvedValue(ok(SYNC_SETTINGS));
  api.reviewMode.mockResolvedValue(ok(reviewMode()));
  api.inbox.mockResolvedValue(ok(proposalPage()));
  api.memoryUsage.mockResolvedValue(ok([]));
  localStorage.clear();
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function renderApp() {
  return render(
    <ToastProvider>
      <App />
    </ToastProvider>,
  );
}

const rowPaths = () => screen.queryAllByTestId("memory-row").map((r) => r.getAttribute("data-path"));

describe("the chat below 1,200 px", () => {
  it("starts closed, even when it was open last time in a wide window", async () => {
    localStorage.setItem("mnemo.chatOpen", "1");
    windowWidth(1000);
    renderApp();
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    expect(screen.queryByTestId("chat-pane")).toBeNull();
    expect(screen.getByTestId("chat-toggle").getAttribute("aria-pressed")).toBe("false");
  });

  it("opens as a modal drawer: a backdrop, the message box focused, Escape closes it and the focus goes back", async () => {
    windowWidth(1000);
    renderApp();
    const toggle = await screen.findByTestId("chat-toggle");
    toggle.focus();
    fireEvent.click(toggle);
    const drawer = await screen.findByTestId("chat-pane");
    expect(drawer.getAttribute("role")).toBe("dialog");
    expect(drawer.getAttribute("aria-modal")).toBe("true");
    expect(screen.getByTestId("chat-backdrop")).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByTestId("chat-input"));
    // Tab from the last control goes back to the first: the focus stays in the drawer.
    const send = screen.getByTestId("chat-send");
    fireEvent.change(screen.getByTestId("chat-input"), { target: { value: "hi" } });
    send.focus();
    fireEvent.keyDown(document, { key: "Tab" });
    expect(drawer.contains(document.activeElement)).toBe(true);
    fireEvent.keyDown(document.body, { key: "Escape" });
    await waitFor(() => expect(screen.queryByTestId("chat-pane")).toBeNull());
    expect(document.activeElement).toBe(toggle);
    // The wide window's choice is left alone.
    expect(localStorage.getItem("mnemo.chatOpen")).not.toBe("0");
  });

  it("closes on a click outside it (the backdrop)", async () => {
    windowWidth(1000);
    renderApp();
    fireEvent.click(await screen.findByTestId("chat-toggle"));
    fireEvent.mouseDown(await screen.findByTestId("chat-backdrop"));
    await waitFor(() => expect(screen.queryByTestId("chat-pane")).toBeNull());
  });

  it("stays a side pane, no backdrop, at 1,440 px", async () => {
    windowWidth(1440);
    renderApp();
    const pane = await screen.findByTestId("chat-pane");
    expect(pane.getAttribute("role")).toBeNull();
    expect(screen.queryByTestId("chat-backdrop")).toBeNull();
  });
});

describe("Settings", () => {
  it("opens from the sidebar's footer and with Ctrl+, — chat hidden or not", async () => {
    localStorage.setItem("mnemo.chatOpen", "0");
    renderApp();
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    expect(screen.queryByTestId("chat-pane")).toBeNull();
    const button = screen.getByTestId("settings-button");
    expect(button.closest("nav")).toBeTruthy();
    expect(button.getAttribute("aria-keyshortcuts")).toBe("Control+Comma");
    button.focus();
    fireEvent.click(button);
    expect(await screen.findByTestId("model-settings")).toBeTruthy();
    fireEvent.click(screen.getByTestId("model-close"));
    await waitFor(() => expect(screen.queryByTestId("model-settings")).toBeNull());
    expect(document.activeElement).toBe(button);

    fireEvent.keyDown(window, { key: ",", ctrlKey: true });
    expect(await screen.findByTestId("model-settings")).toBeTruthy();
  });

  it("asks before Escape drops typed values: Keep editing has the focus and keeps them; Discard closes", async () => {
    renderApp();
    fireEvent.keyDown(window, { key: ",", metaKey: true });
    const url = await screen.findByTestId<HTMLInputElement>("model-base-url");
    fireEvent.change(url, { target: { value: "http://127.0.0.1:8080/v1" } });
    fireEvent.keyDown(document.body, { key: "Escape" });
    const ask = await screen.findByText("Discard your changes?");
    const dialog = ask.closest<HTMLElement>('[role="dialog"]')!;
    expect(document.activeElement).toBe(within(dialog).getByRole("button", { name: "Keep editing" }));
    // Escape on the question keeps editing, as Keep editing does.
    fireEvent.keyDown(document.body, { key: "Escape" });
    await waitFor(() => expect(screen.queryByText("Discard your changes?")).toBeNull());
    expect(screen.getByTestId<HTMLInputElement>("model-base-url").value).toBe("http://127.0.0.1:8080/v1");
    // Close (or a click outside) asks too; Discard closes without saving.
    fireEvent.click(screen.getByTestId("model-close"));
    fireEvent.click(await screen.findByTestId("discard-confirm"));
    await waitFor(() => expect(screen.queryByTestId("model-settings")).toBeNull());
    expect(api.setModelSettings).not.toHaveBeenCalled();
  });
});

describe("the workspace chosen", () => {
  it("is remembered across a reload", async () => {
    const first = renderApp();
    const items = await screen.findAllByTestId("workspace-item");
    fireEvent.click(items.find((i) => i.getAttribute("data-id") === "claude-proj")!);
    await waitFor(() => expect(api.list).toHaveBeenCalledWith("claude-proj", null));
    expect(localStorage.getItem(WORKSPACE_KEY)).toBe("claude-proj");
    first.unmount();
    api.list.mockClear();
    renderApp();
    await waitFor(() => expect(api.list).toHaveBeenCalledWith("claude-proj", null));
    const chosen = (await screen.findAllByTestId("workspace-item")).find((i) => i.getAttribute("aria-current") === "true");
    expect(chosen?.getAttribute("data-id")).toBe("claude-proj");
  });

  it("falls back to all workspaces when the one remembered is gone, without an error", async () => {
    localStorage.setItem(WORKSPACE_KEY, "a-folder-removed-since");
    api.list.mockImplementation(async (ws) => (ws === "a-folder-removed-since" ? err("not_found", "no workspace a-folder-removed-since") : ok(DOCS)));
    renderApp();
    await waitFor(() => expect(screen.getByTestId("workspace-all").getAttribute("aria-current")).toBe("true"));
    await waitFor(() => expect(rowPaths()).toHaveLength(DOCS.length));
    expect(screen.queryByTestId("inline-error")).toBeNull();
    expect(localStorage.getItem(WORKSPACE_KEY)).toBe("");
  });
});

describe("focus after Undo", () => {
  it("goes to the heading of the memory a deletion's Undo brought back, never to the page", async () => {
    api.remove.mockResolvedValue(ok({ workspace: "personal", path: "proj.md", hash: null, change_id: 41, shared: null }));
    api.undo.mockResolvedValue(ok({ workspace: "personal", path: "proj.md", hash: "h9", change_id: 42, shared: null }));
    renderApp();
    fireEvent.click(await screen.findByText((_, el) => el?.getAttribute("data-path") === "proj.md"));
    await waitFor(() => expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe("Launch date"));
    fireEvent.click(screen.getByTestId("delete-button"));
    // The safe choice has the focus in the confirmation.
    expect(document.activeElement?.textContent).toBe("Cancel");
    fireEvent.click(screen.getByTestId("confirm-delete"));
    const toast = await screen.findByText("Deleted “Launch date”");
    const undo = within(toast.closest<HTMLElement>('[data-testid="toast"]')!).getByRole("button", { name: "Undo" });
    undo.focus();
    fireEvent.click(undo);
    await waitFor(() => expect(api.undo).toHaveBeenCalledWith(41));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId("detail-heading")));
    expect(screen.getByTestId("detail-heading").textContent).toBe("Launch date");
  });
});

describe("the keyboard", () => {
  it("reaches the Name field from the search box in a few Tabs: toolbars and tabs are one stop each", async () => {
    renderApp();
    const items = await screen.findAllByTestId("workspace-item");
    fireEvent.click(items.find((i) => i.getAttribute("data-id") === "personal")!);
    await screen.findByTestId("remember-button");
    fireEvent.click(await screen.findByText((_, el) => el?.getAttribute("data-path") === "proj.md"));
    await waitFor(() => expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe("Launch date"));
    // The list is the workspace's alone by now (all workspaces' rows may still show for a moment).
    await waitFor(() =>
      expect(screen.getAllByTestId("memory-row").every((r) => r.getAttribute("data-workspace") === "personal")).toBe(true),
    );
    // Every control Tab can reach, in document order, from the search box to the Name field.
    const tabbable = [...document.querySelectorAll<HTMLElement>("input, button, select, textarea, [tabindex]")].filter(
      (el) => el.tabIndex >= 0 && !(el as HTMLButtonElement).disabled && !el.closest("[hidden]"),
    );
    const from = tabbable.indexOf(screen.getByTestId("search-input"));
    const to = tabbable.indexOf(screen.getByTestId("detail-name"));
    expect(from).toBeGreaterThanOrEqual(0);
    const between = tabbable
      .slice(from, to + 1)
      .map((el) => el.getAttribute("data-testid") ?? el.getAttribute("aria-label") ?? el.textContent?.slice(0, 30) ?? el.tagName);
    expect(to - from, `the stops: ${between.join(" | ")}`).toBeLessThanOrEqual(9);
    // The workspace tools are one stop: ←/→ move inside.
    const tools = screen.getByRole("toolbar", { name: "Workspace memory" });
    const stops = within(tools).getAllByRole("button").filter((b) => b.tabIndex === 0);
    expect(stops).toHaveLength(1);
    stops[0].focus();
    fireEvent.keyDown(stops[0], { key: "ArrowRight" });
    expect(document.activeElement).toBe(screen.getByTestId("forget-button"));
    expect(screen.getByTestId("forget-button").tabIndex).toBe(0);
    expect(screen.getByTestId("remember-button").tabIndex).toBe(-1);
  });
});
