import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { SyncSettings } from "./SyncSettings";
import { commands } from "../../lib/bindings";
import type { RemoteSync, SyncSettings as Settings } from "../../lib/bindings";
import type { Result } from "../../lib/transport";
import type { ApiError } from "../../lib/bindings";
import { queryClient } from "../../lib/queryClient";
import { SYNC_SETTINGS, err, ok, remoteSync, syncConflict, workspaceSync } from "../../test/fixtures";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    syncSettings: vi.fn(),
    setSyncSettings: vi.fn(),
    syncNow: vi.fn(),
  },
}));

const api = vi.mocked(commands);
const onSaved = vi.fn();
const REMOTE = "git@git.example:me/memory.git";

beforeEach(() => {
  onSaved.mockReset();
  api.syncSettings.mockResolvedValue(ok(SYNC_SETTINGS));
  api.setSyncSettings.mockReset();
  api.setSyncSettings.mockImplementation(async (s: Settings) => ok({ ...s, remote: s.remote?.trim() || null }));
  api.syncNow.mockReset();
});

async function renderSettings(props: { autoFocus?: boolean } = {}) {
  render(<SyncSettings onSaved={onSaved} {...props} />);
  return screen.findByTestId<HTMLInputElement>("sync-remote");
}

const field = (id: string) => screen.getByTestId<HTMLInputElement>(id);
const button = (id: string) => screen.getByTestId<HTMLButtonElement>(id);

describe("sync settings", () => {
  it("says how sync works: a git repository the person owns, no password in the address, Qwen Code's team memory left out", async () => {
    await renderSettings();
    const intro = screen.getByTestId("sync-intro").textContent ?? "";
    expect(intro).toMatch(/git repository you own/);
    expect(intro).toMatch(/private repository.*server.*folder/);
    expect(intro).toMatch(/Never put a password in the address: git's credential helper or an SSH key/);
    expect(intro).toMatch(/Qwen Code's team memory is already shared through its own repository/);
    expect(field("sync-author").placeholder).toMatch(/Name <email>.*history on your other machines/);
  });

  it("saves the remote, the author and the switches, and says so", async () => {
    // The status as the badges last read it.
    queryClient.setQueryData(["sync_status"], remoteSync());
    await renderSettings();
    expect(field("sync-remote").value).toBe("");
    expect(field("sync-claude").checked).toBe(true);
    expect(field("sync-qwen").checked).toBe(true);
    expect(field("sync-auto").checked).toBe(false);
    expect(field("sync-sessions").checked).toBe(false);
    // Saved by the dialog's one Save (or Enter in a field): no Save of its own.
    expect(screen.queryByTestId("sync-save")).toBeNull();
    // Nothing to sync with yet.
    expect(button("sync-settings-now").disabled).toBe(true);

    fireEvent.change(field("sync-remote"), { target: { value: ` ${REMOTE} ` } });
    fireEvent.change(field("sync-author"), { target: { value: "Ana <ana@example.org>" } });
    fireEvent.click(field("sync-auto"));
    fireEvent.click(field("sync-qwen"));
    fireEvent.click(field("sync-sessions"));
    fireEvent.submit(screen.getByTestId("sync-form"));
    await waitFor(() =>
      expect(api.setSyncSettings).toHaveBeenCalledWith({ remote: REMOTE, author: "Ana <ana@example.org>", auto: true, claude: true, qwen: false, sessions: true, shared: {} }),
    );
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith(expect.objectContaining({ remote: REMOTE, auto: true })));
    expect(field("sync-remote").value).toBe(REMOTE);
    // The badges and the Status view read the status again.
    expect(queryClient.getQueryState(["sync_status"])?.isInvalidated).toBe(true);
  });

  it("shows a refused address in sentences, never its code, and keeps what was typed", async () => {
    api.setSyncSettings.mockResolvedValue(
      err(
        "invalid_arguments",
        "the sync remote's URL holds a password or token: Mnemo never stores one — use git's credential helper or an SSH key, and give the URL without it",
      ),
    );
    await renderSettings();
    fireEvent.change(field("sync-remote"), { target: { value: "https://ana:hunter2@git.example/memory.git" } });
    fireEvent.submit(screen.getByTestId("sync-form"));
    const error = await screen.findByTestId("inline-error");
    expect(error.textContent).toMatch(/^The sync remote's URL holds a password or token/);
    expect(error.textContent).not.toContain("invalid_arguments");
    expect(error.getAttribute("data-code")).toBe("invalid_arguments");
    expect(field("sync-remote").value).toBe("https://ana:hunter2@git.example/memory.git");
    expect(onSaved).not.toHaveBeenCalled();
  });

  it("syncs now and says what changed; unsaved changes are saved first", async () => {
    api.syncSettings.mockResolvedValue(ok({ ...SYNC_SETTINGS, remote: REMOTE }));
    let finish: (r: Result<RemoteSync, ApiError>) => void = () => {};
    api.syncNow.mockReturnValue(new Promise((r) => (finish = r)));
    await renderSettings();
    await waitFor(() => expect(field("sync-remote").value).toBe(REMOTE));
    fireEvent.click(field("sync-claude"));
    fireEvent.click(button("sync-settings-now"));
    await waitFor(() => expect(api.syncNow).toHaveBeenCalledWith(null));
    expect(api.setSyncSettings).toHaveBeenCalledWith(expect.objectContaining({ claude: false }));
    expect(api.setSyncSettings.mock.invocationCallOrder[0]).toBeLessThan(api.syncNow.mock.invocationCallOrder[0]);
    expect(button("sync-settings-now").disabled).toBe(true);
    expect(button("sync-settings-now").textContent).toBe("Syncing…");
    finish(ok(remoteSync({ workspaces: [workspaceSync({ changed: ["a.md", "b.md"], conflicts: [syncConflict()] })] })));
    await waitFor(() =>
      expect(screen.getByTestId("sync-result").textContent).toBe(
        "Synced: 2 files changed here. 1 conflict waits for your choice. Open Status to choose.",
      ),
    );
    expect(button("sync-settings-now").disabled).toBe(false);
  });

  it("offers Retry when the remote can't be reached", async () => {
    api.syncSettings.mockResolvedValue(ok({ ...SYNC_SETTINGS, remote: REMOTE }));
    api.syncNow.mockResolvedValue(
      err("remote_unreachable", "fetching from the sync remote failed (ssh: connect to host git.example port 22: Network is unreachable): local changes wait; sync again later"),
    );
    await renderSettings();
    await waitFor(() => expect(button("sync-settings-now").disabled).toBe(false));
    fireEvent.click(button("sync-settings-now"));
    const error = await screen.findByTestId("inline-error");
    expect(error.textContent).toMatch(/^The sync remote can't be reached right now\. Your changes wait here/);
    api.syncNow.mockResolvedValue(ok(remoteSync()));
    fireEvent.click(screen.getByTestId("error-retry"));
    await waitFor(() => expect(screen.getByTestId("sync-result").textContent).toBe("Synced: nothing changed here."));
    expect(api.syncNow).toHaveBeenCalledTimes(2);
    expect(screen.queryByTestId("inline-error")).toBeNull();
  });

  it("focuses the remote when opened to set up sync", async () => {
    const remote = await renderSettings({ autoFocus: true });
    expect(document.activeElement).toBe(remote);
  });

  it("shows a failed load with Retry", async () => {
    api.syncSettings.mockResolvedValueOnce(err("io", "reading settings.toml: permission denied"));
    render(<SyncSettings />);
    const error = await screen.findByTestId("inline-error");
    expect(error.textContent).toContain("Reading settings.toml: permission denied.");
    fireEvent.click(screen.getByTestId("error-retry"));
    await screen.findByTestId("sync-remote");
  });
});
