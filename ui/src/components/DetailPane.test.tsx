import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { DetailPane } from "./DetailPane";
import { ToastProvider } from "./Toasts";
import { commands } from "../lib/bindings";
import { installBrowserTransport } from "../lib/transport";
import { DOCS, WORKSPACES, detailOf, ok } from "../test/fixtures";

vi.mock("../lib/bindings", () => ({
  commands: {
    get: vi.fn(),
    update: vi.fn(),
    remove: vi.fn(),
    history: vi.fn(),
    openFolder: vi.fn(),
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
