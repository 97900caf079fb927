import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { SyncStatus } from "./SyncStatus";
import { commands } from "../../lib/bindings";
import type { ApiError, RemoteSync } from "../../lib/bindings";
import type { Result } from "../../lib/transport";
import { formatTime } from "../../lib/format";
import { DOCS, MODEL_SETTINGS, SYNC_SETTINGS, err, ok, remoteSync, syncConflict, workspaceSync } from "../../test/fixtures";
import { CONFLICT_RECALL } from "../../lib/sync";

vi.mock("../../lib/bindings", async (importOriginal) => ({ ...(await importOriginal<object>()),
  commands: {
    syncStatus: vi.fn(),
    list: vi.fn(),
    syncNow: vi.fn(),
    syncResolve: vi.fn(),
    undoGroup: vi.fn(),
    syncSettings: vi.fn(),
    setSyncSettings: vi.fn(),
    getModelSettings: vi.fn(),
    // The local model's state: not read in these tests (the welcome and settings say they could not).
    localModel: vi.fn(async () => ({ status: "error", error: { code: "io", message: "not read in this test" } })),
    setModelSettings: vi.fn(),
    testModel: vi.fn(),
    modelList: vi.fn(),
  },
}));

const api = vi.mocked(commands);
const onOpenMemory = vi.fn();

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();

beforeEach(() => {
  vi.clearAllMocks();
  api.syncStatus.mockResolvedValue(ok(remoteSync({ workspaces: [workspaceSync({ last_synced: minutesAgo(5) })] })));
  api.syncSettings.mockResolvedValue(ok(SYNC_SETTINGS));
  api.getModelSettings.mockResolvedValue(ok(MODEL_SETTINGS));
  api.modelList.mockResolvedValue(ok([]));
  // The memory list names prefs.md; 发布冻结.md is not in it (its conflict names it by its path).
  api.list.mockResolvedValue(ok([{ ...DOCS[0], path: "prefs.md", name: "Editor preferences" }]));
});

function renderSync(workspace = "personal") {
  return render(<SyncStatus workspace={workspace} onOpenMemory={onOpenMemory} />);
}

const sentence = async () => (await screen.findByTestId("sync-sentence")).textContent;

describe("sync status", () => {
  it("says when the workspace last synced, in local time, and what waits to go out and come in", async () => {
    const at = minutesAgo(5);
    api.syncStatus.mockResolvedValue(ok(remoteSync({ workspaces: [workspaceSync({ last_synced: at, incoming: 3 })] })));
    renderSync();
    expect(await sentence()).toBe("3 changes on the remote wait to come in.");
    expect(screen.getByTestId("sync-last").textContent).toBe(`Last synced: ${formatTime(at)} (5 minutes ago)`);
    expect(screen.getByTestId("sync-pending").textContent).toBe("To send: 0");
    expect(screen.getByTestId("sync-incoming").textContent).toBe("To receive: 3");
    expect(screen.getByTestId("sync-remote-shown").textContent).toBe("through git@git.example:me/memory.git");
  });

  it("when sync is not set up, says so in one sentence and opens the settings at their Sync section", async () => {
    api.syncStatus.mockResolvedValue(ok(remoteSync({ remote: null, last_run: null })));
    renderSync();
    expect(await sentence()).toBe("Sync is not set up: this memory stays on this computer.");
    expect(screen.queryByTestId("sync-now")).toBeNull();
    fireEvent.click(screen.getByTestId("sync-setup"));
    const dialog = await screen.findByTestId("model-settings");
    const remote = await within(dialog).findByTestId("sync-remote");
    await waitFor(() => expect(document.activeElement).toBe(remote));
  });

  it("names the team remote of a workspace shared with a team, even with no remote of this home", async () => {
    api.syncStatus.mockResolvedValue(
      ok(remoteSync({ remote: null, workspaces: [workspaceSync({ workspace: "team", remote: "/srv/team.git", shared: true, last_synced: minutesAgo(1) })] })),
    );
    renderSync("team");
    await sentence();
    expect(screen.getByTestId("sync-remote-shown").textContent).toBe("shared with your team through /srv/team.git");
    expect(screen.getByTestId("sync-now")).toBeTruthy();
  });

  it("says why a workspace does not sync", async () => {
    api.syncStatus.mockResolvedValue(
      ok(remoteSync({ workspaces: [workspaceSync({ workspace: "notes", key: null, not_synced: "a folder you added stays on this machine" })] })),
    );
    renderSync("notes");
    expect(await sentence()).toBe("Not synced: a folder you added stays on this machine.");
    expect(screen.getByTestId("sync-status").getAttribute("data-state")).toBe("not_synced");
    expect(screen.queryByTestId("sync-now")).toBeNull();
  });

  it("syncs now, waits while it runs, says what changed here and undoes it", async () => {
    let finish: (r: Result<RemoteSync, ApiError>) => void = () => {};
    api.syncNow.mockReturnValue(new Promise((r) => (finish = r)));
    api.undoGroup.mockResolvedValue(ok({ undone: 42, group: 43, workspace: "personal", paths: ["a.md", "b.md", "c.md"] }));
    renderSync();
    const button = await screen.findByTestId<HTMLButtonElement>("sync-now");
    fireEvent.click(button);
    expect(api.syncNow).toHaveBeenCalledWith("personal");
    await waitFor(() => expect(button.disabled).toBe(true));
    expect(button.textContent).toBe("Syncing…");
    finish(ok(remoteSync({ workspaces: [workspaceSync({ changed: ["a.md", "b.md", "c.md"], group: 42 })] })));
    const outcome = await screen.findByTestId("sync-outcome");
    expect(outcome.textContent).toBe("3 files changed here — Undo");
    expect(button.disabled).toBe(false);
    // The status is read again after the sync.
    await waitFor(() => expect(api.syncStatus).toHaveBeenCalledTimes(2));
    fireEvent.click(screen.getByTestId("sync-undo"));
    await waitFor(() => expect(api.undoGroup).toHaveBeenCalledWith(42));
    await waitFor(() => expect(screen.getByTestId("sync-outcome").getAttribute("data-undone")).toBe("true"));
    expect(screen.getByTestId("sync-outcome").textContent).toMatch(/^Undone/);
  });

  it("offers no Undo when a sync changed nothing here", async () => {
    api.syncNow.mockResolvedValue(ok(remoteSync()));
    renderSync();
    fireEvent.click(await screen.findByTestId("sync-now"));
    expect((await screen.findByTestId("sync-outcome")).textContent).toBe("Nothing changed here.");
    expect(screen.queryByTestId("sync-undo")).toBeNull();
  });

  it("shows each conflict's versions side by side, keeps the one chosen and reads the status again", async () => {
    const deleted = syncConflict({
      id: "k2",
      path: "发布冻结.md",
      kind: "deleted_and_edited",
      choices: [
        { label: "keep Ana's edit", texts: ["每月最后一周冻结合并。"] },
        { label: "delete it, as laptop did", texts: [] },
      ],
    });
    api.syncStatus.mockResolvedValueOnce(ok(remoteSync({ workspaces: [workspaceSync({ conflicts: [syncConflict(), deleted] })] })));
    api.syncStatus.mockResolvedValue(ok(remoteSync({ workspaces: [workspaceSync({ conflicts: [deleted] })] })));
    api.syncResolve.mockResolvedValue(ok(syncConflict()));
    renderSync();
    expect(await sentence()).toBe("2 conflicts wait for your choice.");
    const [edited, gone] = screen.getAllByTestId("sync-conflict");
    // What a conflict means for recall: the one sentence every place says.
    expect(screen.getByTestId("sync-conflicts-recall").textContent).toBe(CONFLICT_RECALL);
    // Named by its memory's name (from the memory list), else by its path: never a made-up title.
    expect(await within(edited).findByText(/^Editor preferences: the same entry was edited on two machines/)).toBeTruthy();
    expect(within(gone).getByText(/^发布冻结\.md: an entry was deleted on one machine/)).toBeTruthy();
    expect(api.list).toHaveBeenCalledWith("personal", null);
    const versions = within(edited).getAllByTestId("sync-version");
    expect(versions.map((v) => v.querySelector("h4")?.textContent)).toEqual(["Ana's version", "Laptop's version"]);
    expect(versions[0].textContent).toContain("Tabs, width 4.");
    expect(versions[1].textContent).toContain("Spaces, width 2.");
    expect(within(edited).getAllByTestId("sync-keep").map((b) => b.textContent)).toEqual(["Keep Ana's version", "Keep laptop's version"]);
    expect(within(edited).getByTestId("sync-keep-all").textContent).toBe("Keep both");
    // An empty version deletes the entry.
    const [, deletes] = within(gone).getAllByTestId("sync-version");
    expect(deletes.getAttribute("data-deletes")).toBe("true");
    expect(deletes.textContent).toMatch(/Deleted: keeping this removes the entry/);
    expect(within(gone).getAllByTestId("sync-keep").map((b) => b.textContent)).toEqual(["Keep Ana's edit", "Delete it, as laptop did"]);

    fireEvent.click(within(edited).getAllByTestId("sync-keep")[0]);
    await waitFor(() => expect(api.syncResolve).toHaveBeenCalledWith("k1", 0));
    await waitFor(() => expect(screen.getAllByTestId("sync-conflict")).toHaveLength(1));
    expect(await sentence()).toBe("1 conflict waits for your choice.");
    fireEvent.click(screen.getByTestId("sync-keep-all"));
    await waitFor(() => expect(api.syncResolve).toHaveBeenLastCalledWith("k2", null));
    // The file opens from the conflict.
    fireEvent.click(screen.getByTestId("sync-conflict-open"));
    expect(onOpenMemory).toHaveBeenCalledWith("personal", "发布冻结.md");
  });

  it("shows a failed choice inside its conflict", async () => {
    api.syncStatus.mockResolvedValue(ok(remoteSync({ workspaces: [workspaceSync({ conflicts: [syncConflict()] })] })));
    api.syncResolve.mockResolvedValue(err("not_found", "`prefs.md` is gone: the conflict is over"));
    renderSync();
    fireEvent.click((await screen.findAllByTestId("sync-keep"))[1]);
    const error = await within(screen.getByTestId("sync-conflict")).findByTestId("inline-error");
    expect(error.textContent).toBe("“prefs.md” is gone: the conflict is over.");
  });

  it("lists files left out, and why", async () => {
    api.syncStatus.mockResolvedValue(
      ok(
        remoteSync({
          workspaces: [
            workspaceSync({
              flagged: [
                { path: "keys.md", why: "not sent: it holds what looks like a secret", side: "here" },
                { path: "huge.md", why: "not taken from the remote: it is larger than 1 MiB", side: "remote" },
              ],
            }),
          ],
        }),
      ),
    );
    renderSync();
    const flags = await screen.findAllByTestId("sync-flag");
    expect(flags.map((f) => f.textContent)).toEqual([
      "keys.md (on this computer) Not sent: it holds what looks like a secret.",
      "huge.md (on the remote) Not taken from the remote: it is larger than 1 MiB.",
    ]);
  });

  it("names the other checkouts that share the workspace's memory", async () => {
    api.syncStatus.mockResolvedValue(
      ok(
        remoteSync({
          workspaces: [workspaceSync({ shares_with: ["claude:-home-ana-code-a-feature"] })],
        }),
      ),
    );
    renderSync();
    expect((await screen.findByTestId("sync-shares")).textContent).toBe(
      "Shares one memory with claude:-home-ana-code-a-feature: checkouts of one project sync as one set of files, so a memory deleted in one is deleted in all.",
    );
  });

  it("lists what the remote carries that this computer does not take, and why; nothing when there is none", async () => {
    const why =
      "a Claude Code project memory from another machine: it arrives once a clone of that repository on this computer has a Claude Code memory folder (use Claude Code there once), and nothing of it is deleted meanwhile";
    api.syncStatus.mockResolvedValue(
      ok(remoteSync({ elsewhere: [{ key: "project/remote~github.com~ana~webapp/claude", files: 3, why }] })),
    );
    const { unmount } = renderSync();
    const list = await screen.findByTestId("sync-elsewhere");
    expect(screen.getByRole("heading", { name: "Also on the remote, not on this computer" })).toBeTruthy();
    const items = within(list).getAllByTestId("sync-elsewhere-item");
    expect(items.map((i) => i.textContent)).toEqual([
      "Claude Code memory of webapp (3 memories) A Claude Code project memory from another machine: it arrives once a clone of that repository on this computer has a Claude Code memory folder (use Claude Code there once), and nothing of it is deleted meanwhile.",
    ]);
    expect(list.textContent).not.toContain("remote~");
    unmount();

    api.syncStatus.mockResolvedValue(ok(remoteSync({ elsewhere: [{ key: "qwen-user", files: 1, why: "Qwen Code sync is switched off here" }] })));
    const one = renderSync();
    expect((await screen.findByTestId("sync-elsewhere-item")).textContent).toBe("Qwen Code's memory of you (1 memory) Qwen Code sync is switched off here.");
    one.unmount();

    api.syncStatus.mockResolvedValue(ok(remoteSync({ elsewhere: [] })));
    renderSync();
    await sentence();
    expect(screen.queryByTestId("sync-elsewhere")).toBeNull();
    expect(screen.queryByText("Also on the remote, not on this computer")).toBeNull();
  });

  it("shows the last run's error with its next step: Retry syncs now, Open settings opens them", async () => {
    const failed = (code: "remote_unreachable" | "remote_refused", message: string) =>
      ok(remoteSync({ last_run: { at: "2026-03-01T10:00:00Z", commit: null, error: { code, message } } }));
    api.syncStatus.mockResolvedValue(failed("remote_unreachable", "the sync remote took more than 30 s: local changes wait; sync again later"));
    api.syncNow.mockResolvedValue(err("remote_unreachable", "the sync remote took more than 30 s: local changes wait; sync again later"));
    renderSync();
    const error = await screen.findByTestId("inline-error");
    expect(error.textContent).toMatch(/^The sync remote can't be reached right now\./);
    expect(error.textContent).not.toContain("remote_unreachable");
    expect(screen.getByTestId("sync-failed-at").textContent).toContain(formatTime("2026-03-01T10:00:00Z"));
    fireEvent.click(screen.getByTestId("error-retry"));
    await waitFor(() => expect(api.syncNow).toHaveBeenCalledWith("personal"));
    // The failed run is its own error now, not the recorded one twice.
    await waitFor(() => expect(screen.queryByTestId("sync-failed-at")).toBeNull());
    expect(screen.getAllByTestId("inline-error")).toHaveLength(1);
  });

  it("sends a refused remote to the settings", async () => {
    api.syncStatus.mockResolvedValue(
      ok(
        remoteSync({
          last_run: {
            at: "2026-03-01T10:00:00Z",
            commit: null,
            error: { code: "remote_refused", message: "the sync remote refused the credentials (fatal: Authentication failed): check your access to it, then sync again" },
          },
        }),
      ),
    );
    renderSync();
    expect((await screen.findByTestId("inline-error")).textContent).toMatch(/check the address in Settings/);
    fireEvent.click(screen.getByTestId("error-settings"));
    await screen.findByTestId("model-settings");
  });

  it("shows a failed status read", async () => {
    api.syncStatus.mockResolvedValueOnce(err("corrupt", "sync/state.json is not valid JSON"));
    renderSync();
    expect((await screen.findByTestId("inline-error")).textContent).toMatch(/^A file Mnemo keeps is damaged\./);
    expect(screen.queryByTestId("error-retry")).toBeNull();
  });
});
