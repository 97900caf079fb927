import { Fragment, type ComponentProps } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { EditorView } from "@codemirror/view";
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { DetailPane } from "./DetailPane";
import { ToastProvider } from "../common/Toasts";
import { commands } from "../../lib/bindings";
import { installBrowserTransport } from "../../lib/transport";
import { DOCS, WORKSPACES, detailOf, err, memoryUsage, ok } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    get: vi.fn(),
    update: vi.fn(),
    create: vi.fn(),
    remove: vi.fn(),
    history: vi.fn(),
    openFolder: vi.fn(),
    setPinned: vi.fn(),
    memoryUsage: vi.fn(),
  },
}));

const api = vi.mocked(commands);

type W = Window & { __TAURI_INTERNALS__?: unknown };

beforeEach(() => {
  delete (window as W).__TAURI_INTERNALS__;
  api.get.mockResolvedValue(ok(detailOf(DOCS[0])));
  api.openFolder.mockResolvedValue(ok(null));
  api.memoryUsage.mockResolvedValue(ok([]));
});

afterEach(() => {
  clearMocks();
  delete (window as W).__TAURI_INTERNALS__;
});

/** The pane on one memory, every callback a no-op unless `extra` gives it. */
function pane(path = DOCS[0].path, extra: Partial<ComponentProps<typeof DetailPane>> = {}) {
  const noop = () => {};
  return (
    <DetailPane
      target={{ mode: "existing", workspace: "personal", path }}
      workspaces={WORKSPACES}
      onDirtyChange={noop}
      onCreated={noop}
      onSaved={noop}
      onDeleted={noop}
      onClose={noop}
      onRecreate={noop}
      {...extra}
    />
  );
}

function renderPane(path = DOCS[0].path) {
  return render(<ToastProvider>{pane(path)}</ToastProvider>);
}

async function loaded() {
  await waitFor(() => expect(screen.getByTestId<HTMLInputElement>("detail-name").value).toBe(DOCS[0].name));
}

describe("Open folder", () => {
  it("is hidden in a browser, where the server cannot open folders", async () => {
    installBrowserTransport();
    renderPane();
    await loaded();
    expect(screen.getByTestId("delete-button")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Open folder" })).toBeNull();
  });

  it("opens the workspace's folder in the app", async () => {
    mockIPC(() => null);
    renderPane();
    await loaded();
    fireEvent.click(screen.getByRole("button", { name: "Open folder" }));
    await waitFor(() => expect(api.openFolder).toHaveBeenCalledWith("personal"));
  });
});

describe("Usage", () => {
  it("says in one line how often the memory was recalled and what it cost; never recalled, so", async () => {
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000 - 60_000).toISOString();
    api.memoryUsage.mockResolvedValue(ok([memoryUsage(DOCS[0].path, { recalls: 14, last_recalled: twoDaysAgo, tokens: 3087, sessions: 4, last_tokens: 220 })]));
    renderPane();
    await loaded();
    const line = await screen.findByTestId("detail-usage");
    expect(api.memoryUsage).toHaveBeenCalledWith("personal", DOCS[0].path);
    expect(line.textContent).toBe("Recalled 14 times, last 2 days ago, ~3,087 tokens injected.");
    expect(line.getAttribute("title")).toContain("In 4 chats.");
  });

  it("says a memory was never recalled, and shows nothing when usage cannot be read", async () => {
    api.memoryUsage.mockResolvedValue(ok([memoryUsage(DOCS[0].path)]));
    const { unmount } = renderPane();
    expect((await screen.findByTestId("detail-usage")).textContent).toBe("Never recalled yet.");
    unmount();
    api.memoryUsage.mockResolvedValue(err("corrupt", "journal.db is damaged"));
    renderPane();
    await loaded();
    await waitFor(() => expect(api.memoryUsage).toHaveBeenCalledTimes(2));
    expect(screen.queryByTestId("detail-usage")).toBeNull();
    expect(screen.queryByTestId("inline-error")).toBeNull();
  });
});

describe("Pin", () => {
  const outcome = { workspace: "personal", path: DOCS[0].path, change_id: 5, hash: "h2", shared: null };

  it("pins a memory, then shows it pinned and offers Unpin", async () => {
    api.setPinned.mockResolvedValue(ok(outcome));
    renderPane();
    await loaded();
    expect(screen.queryByTestId("pinned-marker")).toBeNull();
    const pin = screen.getByTestId("pin-button");
    expect(pin.textContent).toBe("Pin");
    expect(pin.getAttribute("aria-pressed")).toBe("false");
    api.get.mockResolvedValue(ok({ ...detailOf(DOCS[0], "h2"), pinned: true }));
    fireEvent.click(pin);
    await waitFor(() => expect(api.setPinned).toHaveBeenCalledWith("personal", DOCS[0].path, true));
    expect((await screen.findByTestId("pinned-marker")).textContent).toBe("pinned");
    expect(screen.getByTestId("pin-button").textContent).toBe("Unpin");
    expect(screen.getByTestId("pin-button").getAttribute("aria-pressed")).toBe("true");
    expect(await screen.findByText("Pinned: extraction and dream will leave it alone")).toBeTruthy();
    // Read once after the write, and its usage line read again with it.
    expect(api.get).toHaveBeenCalledTimes(2);
    await waitFor(() => expect(api.memoryUsage).toHaveBeenCalledTimes(2));
  });

  it("unpins a pinned memory", async () => {
    api.get.mockResolvedValue(ok({ ...detailOf(DOCS[0]), pinned: true }));
    api.setPinned.mockResolvedValue(ok(outcome));
    renderPane();
    await loaded();
    expect(screen.getByTestId("pinned-marker")).toBeTruthy();
    api.get.mockResolvedValue(ok({ ...detailOf(DOCS[0], "h2"), pinned: false }));
    fireEvent.click(screen.getByRole("button", { name: "Unpin" }));
    await waitFor(() => expect(api.setPinned).toHaveBeenCalledWith("personal", DOCS[0].path, false));
    await waitFor(() => expect(screen.queryByTestId("pinned-marker")).toBeNull());
    expect(screen.getByTestId("pin-button").textContent).toBe("Pin");
  });

  it("shows a refusal inline and waits for unsaved edits to be saved", async () => {
    api.setPinned.mockResolvedValue(err("conflict", "`x.md` is in the pinned/ folder, which pins it: move it out to unpin it"));
    renderPane();
    await loaded();
    fireEvent.click(screen.getByTestId("pin-button"));
    const error = await screen.findByTestId("inline-error");
    expect(error.getAttribute("data-code")).toBe("conflict");
    expect(error.textContent).toContain("pinned/ folder");
    expect(screen.queryByTestId("pinned-marker")).toBeNull();

    fireEvent.change(screen.getByTestId("detail-name"), { target: { value: "Edited" } });
    expect(screen.getByTestId<HTMLButtonElement>("pin-button").disabled).toBe(true);
  });

  it("is not offered for daily logs", async () => {
    const log = { ...detailOf(DOCS[0]), kind: "log" as const, type: null, path: "logs/2026/03/2026-03-01.md" };
    api.get.mockResolvedValue(ok(log));
    renderPane();
    await waitFor(() => expect(screen.getByText("Daily log")).toBeTruthy());
    expect(screen.queryByTestId("pin-button")).toBeNull();
  });
});

describe("daily logs", () => {
  const LOG_PATH = "logs/2026/11/2026-11-23.md";
  const LOG_TEXT = "# 2026-11-23\n\n## 10:00 UTC — chat \"Trip\" compacted\n\nThe user plans a trip.\n";
  const log = (hash = "h1", body = LOG_TEXT) => ({
    ...detailOf(DOCS[0], hash),
    path: LOG_PATH,
    kind: "log" as const,
    type: null,
    name: "2026-11-23",
    description: "Daily log 2026-11-23",
    content: body,
    body,
  });

  /** Types into the CodeMirror body as a user would (appending at the end). */
  /** Type at the end of the body; CodeMirror mounts in an effect after the first paint, so it is
   * waited for (a slow machine may not have it yet when the heading shows). */
  async function typeInBody(text: string) {
    const view = await waitFor(() => {
      const dom = screen.getByTestId("detail-editor").querySelector<HTMLElement>(".cm-editor");
      const found = dom && EditorView.findFromDOM(dom);
      if (!found) throw new Error("no editor yet");
      return found;
    });
    act(() => view.dispatch({ changes: { from: view.state.doc.length, insert: text } }));
  }

  it("opens a log with its text and no name, description or type", async () => {
    api.get.mockResolvedValue(ok(log()));
    renderPane(LOG_PATH);
    expect(await screen.findByRole("heading", { name: "Daily log 2026-11-23" })).toBeTruthy();
    expect(screen.getByText("Daily log")).toBeTruthy();
    expect(screen.queryByTestId("detail-name")).toBeNull();
    expect(screen.queryByTestId("detail-description")).toBeNull();
    expect(screen.queryByTestId("detail-type")).toBeNull();
    // CodeMirror mounts in an effect after the first paint: wait for its content.
    await waitFor(() =>
      expect(screen.getByTestId("detail-editor").querySelector(".cm-content")?.textContent).toContain("The user plans a trip."),
    );
    expect(screen.getByTestId<HTMLButtonElement>("save-button").disabled).toBe(true);
  });

  it("saves an edit with only the new body and the hash it was read at", async () => {
    api.get.mockResolvedValue(ok(log()));
    api.update.mockResolvedValue(ok({ workspace: "personal", path: LOG_PATH, change_id: 3, hash: "h2", shared: null }));
    renderPane(LOG_PATH);
    await screen.findByRole("heading", { name: "Daily log 2026-11-23" });
    await typeInBody("Also: book the train.\n");
    const save = screen.getByTestId<HTMLButtonElement>("save-button");
    await waitFor(() => expect(save.disabled).toBe(false));
    api.get.mockResolvedValue(ok(log("h2", LOG_TEXT + "Also: book the train.\n")));
    fireEvent.click(save);
    await waitFor(() =>
      expect(api.update).toHaveBeenCalledWith("personal", LOG_PATH, {
        name: null,
        description: null,
        type: null,
        body: LOG_TEXT + "Also: book the train.\n",
        expected_hash: "h1",
      }),
    );
    expect(await screen.findByText("Saved")).toBeTruthy();
    await waitFor(() => expect(save.disabled).toBe(true));
  });

  it("opens a conversation record like a log: its name, its text, no name, description or type to edit", async () => {
    const path = "chats/2026/11/2026-11-27-s1.md";
    const text = "# Chat on 2026-11-27 (UTC)\n\n14:02 — I'm allergic to peanuts\n";
    const record = {
      ...log("h1", text),
      path,
      kind: "chat" as const,
      name: "From your chat on 27 Nov 2026",
      description: "What you said in a chat on 27 Nov 2026",
    };
    api.get.mockResolvedValue(ok(record));
    api.update.mockResolvedValue(ok({ workspace: "personal", path, change_id: 5, hash: "h2", shared: null }));
    renderPane(path);
    expect(await screen.findByRole("heading", { name: "From your chat on 27 Nov 2026" })).toBeTruthy();
    expect(screen.getByTestId("body-label").textContent).toBe("Conversation record");
    expect(screen.queryByTestId("detail-name")).toBeNull();
    expect(screen.queryByTestId("detail-description")).toBeNull();
    expect(screen.queryByTestId("detail-type")).toBeNull();
    expect(screen.queryByTestId("facts-toggle")).toBeNull();
    expect(screen.queryByTestId("pin-button")).toBeNull();
    await waitFor(() =>
      expect(screen.getByTestId("detail-editor").querySelector(".cm-content")?.textContent).toContain("I'm allergic to peanuts"),
    );
    await typeInBody("14:05 — and to shellfish\n");
    const save = screen.getByTestId<HTMLButtonElement>("save-button");
    await waitFor(() => expect(save.disabled).toBe(false));
    api.get.mockResolvedValue(ok({ ...record, hash: "h2", content: text + "14:05 — and to shellfish\n", body: text + "14:05 — and to shellfish\n" }));
    fireEvent.click(save);
    await waitFor(() =>
      expect(api.update).toHaveBeenCalledWith("personal", path, {
        name: null,
        description: null,
        type: null,
        body: text + "14:05 — and to shellfish\n",
        expected_hash: "h1",
      }),
    );
    expect(await screen.findByText("Saved")).toBeTruthy();
  });

  it("says plainly when a save reaches collaborators through git", async () => {
    api.get.mockResolvedValue(ok(log()));
    const shared = "/repo/.qwen/team-memory is Qwen Code's team memory of /repo: it is tracked by git";
    api.update.mockResolvedValue(ok({ workspace: "personal", path: LOG_PATH, change_id: 4, hash: "h2", shared }));
    renderPane(LOG_PATH);
    await screen.findByRole("heading", { name: "Daily log 2026-11-23" });
    await typeInBody("Shared line.\n");
    const save = screen.getByTestId<HTMLButtonElement>("save-button");
    await waitFor(() => expect(save.disabled).toBe(false));
    fireEvent.click(save);
    expect(await screen.findByText(`Saved. Shared through git: ${shared}.`)).toBeTruthy();
  });
});

describe("a new memory", () => {
  function renderNew() {
    const noop = () => {};
    return render(
      <ToastProvider>
        <DetailPane
          target={{ mode: "new", workspace: "personal" }}
          workspaces={WORKSPACES}
          onDirtyChange={noop}
          onCreated={noop}
          onSaved={noop}
          onDeleted={noop}
          onClose={noop}
          onRecreate={noop}
        />
      </ToastProvider>,
    );
  }

  it("hints with a placeholder that cannot pass for a value, and says a name clash under the Name field", async () => {
    api.create.mockResolvedValue(err("conflict", "`response-style.md` already exists: edit it, or pick another path", "path"));
    renderNew();
    const name = screen.getByTestId<HTMLInputElement>("detail-name");
    expect(name.placeholder).toBe("e.g. Response style");
    fireEvent.change(name, { target: { value: "Response style" } });
    fireEvent.click(screen.getByTestId("save-button"));
    const error = await screen.findByTestId("inline-error");
    expect(error.textContent).toBe(
      "This workspace already has a memory of that name (response-style.md): choose another name, or open that memory and edit it.",
    );
    expect(name.getAttribute("aria-invalid")).toBe("true");
    // Right under the Name row, before the Description field.
    const description = screen.getByTestId("detail-description");
    expect(error.compareDocumentPosition(description) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(name.compareDocumentPosition(error) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });
});

describe("the heading's focus after Undo", () => {
  it("takes the focus once and spends the request, so a remount of the same memory leaves the focus where the person put it", async () => {
    const spent = vi.fn();
    const opened = (key: number, focusHeading: boolean) => (
      <ToastProvider>
        <Fragment key={key}>{pane(DOCS[0].path, { focusHeading, onHeadingFocused: spent })}</Fragment>
        <button type="button">Dream</button>
      </ToastProvider>
    );
    const { rerender } = render(opened(1, true));
    await loaded();
    await waitFor(() => expect(document.activeElement?.getAttribute("data-testid")).toBe("detail-heading"));
    expect(spent).toHaveBeenCalledTimes(1);
    // The app clears its request when told; the person moves on; the memory is read again.
    screen.getByRole("button", { name: "Dream" }).focus();
    rerender(opened(2, false));
    await loaded();
    expect(document.activeElement?.textContent).toBe("Dream");
    expect(spent).toHaveBeenCalledTimes(1);
  });
});
