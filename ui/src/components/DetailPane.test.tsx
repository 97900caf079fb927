import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { DetailPane } from "./DetailPane";
import { ToastProvider } from "./Toasts";
import { commands } from "../lib/bindings";
import { installBrowserTransport } from "../lib/transport";
import { DOCS, WORKSPACES, detailOf, err, ok } from "../test/fixtures";

vi.mock("../lib/bindings", () => ({
  commands: {
    get: vi.fn(),
    update: vi.fn(),
    remove: vi.fn(),
    history: vi.fn(),
    openFolder: vi.fn(),
    setPinned: vi.fn(),
  },
}));

const api = vi.mocked(commands);

type W = Window & { __TAURI_INTERNALS__?: unknown };

beforeEach(() => {
  delete (window as W).__TAURI_INTERNALS__;
  api.get.mockResolvedValue(ok(detailOf(DOCS[0])));
  api.openFolder.mockResolvedValue(ok(null));
});

afterEach(() => {
  clearMocks();
  delete (window as W).__TAURI_INTERNALS__;
});

function renderPane() {
  const noop = () => {};
  return render(
    <ToastProvider>
      <DetailPane
        target={{ mode: "existing", workspace: "personal", path: DOCS[0].path }}
        workspaces={WORKSPACES}
        change={null}
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

describe("Pin", () => {
  const outcome = { workspace: "personal", path: DOCS[0].path, change_id: 5, hash: "h2" };

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
