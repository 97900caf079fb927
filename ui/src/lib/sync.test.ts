import { describe, expect, it } from "vitest";
import type { SyncRun } from "./bindings";
import {
  NOT_SET_UP,
  ago,
  changedText,
  conflictSentence,
  elsewhereLine,
  conflictName,
  flagSentence,
  keepAllLabel,
  keepLabel,
  lastErrorSentence,
  memoriesText,
  remoteKeyName,
  runSummary,
  sentText,
  sameSyncForm,
  syncBadge,
  syncFormOf,
  syncSentence,
  syncSettingsOf,
} from "./sync";
import { SYNC_SETTINGS, remoteSync, syncConflict, workspaceSync } from "../test/fixtures";

const NOW = new Date("2026-03-01T10:05:30Z");

describe("a workspace's sync in one sentence", () => {
  it("says when it last synced", () => {
    expect(syncSentence(remoteSync(), workspaceSync(), NOW)).toBe("Synced 5 minutes ago.");
    expect(syncSentence(remoteSync(), workspaceSync({ last_synced: "2026-03-01T10:05:10Z" }), NOW)).toBe("Synced just now.");
    expect(syncSentence(remoteSync(), workspaceSync({ last_synced: "2026-03-01T09:04:00Z" }), NOW)).toBe("Synced 1 hour ago.");
    expect(syncSentence(remoteSync(), workspaceSync({ last_synced: null }), NOW)).toBe("Not synced yet: press Sync now to send it.");
  });

  it("puts what needs the person first: conflicts, then changes to send, then changes to receive", () => {
    const w = workspaceSync({ pending: 2, incoming: 3, conflicts: [syncConflict()] });
    expect(syncSentence(remoteSync(), w, NOW)).toBe("1 conflict waits for your choice.");
    expect(syncSentence(remoteSync(), { ...w, conflicts: [syncConflict(), syncConflict({ id: "k2" })] }, NOW)).toBe(
      "2 conflicts wait for your choice.",
    );
    expect(syncSentence(remoteSync(), { ...w, conflicts: [] }, NOW)).toBe("2 changes wait to be sent.");
    expect(syncSentence(remoteSync(), { ...w, conflicts: [], pending: 1 }, NOW)).toBe("1 change waits to be sent.");
    expect(syncSentence(remoteSync(), { ...w, conflicts: [], pending: 0 }, NOW)).toBe("3 changes on the remote wait to come in.");
  });

  it("says why a workspace does not sync, and when sync is not set up", () => {
    const folder = workspaceSync({ key: null, not_synced: "a folder you added stays on this machine" });
    expect(syncSentence(remoteSync(), folder, NOW)).toBe("Not synced: a folder you added stays on this machine.");
    expect(syncSentence(remoteSync({ remote: null }), folder, NOW)).toBe(NOT_SET_UP);
    expect(syncSentence(remoteSync(), undefined, NOW)).toMatch(/^Not synced yet/);
  });

  it("reads times in words", () => {
    expect(ago("2026-03-01T08:05:00Z", NOW)).toBe("2 hours ago");
    expect(ago("not a time", NOW)).toBe("");
    expect(ago("2026-02-25T10:00:00Z", NOW)).toBe("4 days ago");
  });
});

describe("the sidebar badge", () => {
  it("shows nothing when all is synced, sync is off, or the workspace does not sync", () => {
    expect(syncBadge(remoteSync(), "personal").kind).toBe("none");
    expect(syncBadge(null, "personal").kind).toBe("none");
    expect(syncBadge(remoteSync({ remote: null, workspaces: [workspaceSync({ pending: 3 })] }), "personal").kind).toBe("none");
    expect(syncBadge(remoteSync({ workspaces: [workspaceSync({ key: null, pending: 3 })] }), "personal").kind).toBe("none");
    expect(syncBadge(remoteSync(), "elsewhere").kind).toBe("none");
  });

  it("counts conflicts, then tells a failed sync, then changes waiting", () => {
    const failed: SyncRun = { at: "2026-03-01T10:00:00Z", commit: null, error: { code: "remote_unreachable", message: "the sync remote took more than 30 s: local changes wait; sync again later" } };
    const busy = workspaceSync({ pending: 2, incoming: 1, conflicts: [syncConflict(), syncConflict({ id: "k2" })] });
    const conflict = syncBadge(remoteSync({ workspaces: [busy], last_run: failed }), "personal");
    expect(conflict).toEqual({ kind: "conflict", text: "⇅2", title: "2 conflicts wait for your choice. Open Status to choose." });
    const error = syncBadge(remoteSync({ workspaces: [{ ...busy, conflicts: [] }], last_run: failed }), "personal");
    expect(error.kind).toBe("error");
    expect(error.title).toMatch(/^The last sync failed\. The sync remote can't be reached right now\./);
    expect(error.title).not.toContain("remote_unreachable");
    const pending = syncBadge(remoteSync({ workspaces: [{ ...busy, conflicts: [] }] }), "personal");
    expect(pending).toEqual({ kind: "pending", text: "⇅", title: "2 changes wait to be sent. 1 change on the remote waits to come in." });
  });
});

describe("conflicts in words", () => {
  it("names the memory by its name, else by its path, and says what was kept meanwhile", () => {
    const home = syncConflict({ path: "lives-in-lisbon.md" });
    expect(conflictSentence(home, "Where I live")).toBe("Where I live: the same entry was edited on two machines; both versions are kept until you choose.");
    // No name known: the path as it is, never "Lives in lisbon".
    expect(conflictSentence(home)).toBe("lives-in-lisbon.md: the same entry was edited on two machines; both versions are kept until you choose.");
    expect(conflictSentence(home, "  ")).toMatch(/^lives-in-lisbon\.md: /);
    expect(conflictName(home, null)).toBe("lives-in-lisbon.md");
    expect(conflictSentence(syncConflict({ kind: "deleted_and_edited", path: "team/deploy-rules.md" }), "Deploy rules")).toBe(
      "Deploy rules: an entry was deleted on one machine and edited on another; the edit is kept until you choose.",
    );
    expect(conflictSentence(syncConflict({ kind: "field", field: "description" }))).toBe(
      "prefs.md: its description was changed differently on two machines; this machine's is kept until you choose.",
    );
    expect(conflictSentence(syncConflict({ kind: "new_kind", path: "发布冻结.md" }), "发布冻结")).toMatch(/^发布冻结: two machines changed it/);
  });

  it("turns each choice into a button", () => {
    expect(keepLabel("Ana's version")).toBe("Keep Ana's version");
    expect(keepLabel("keep Ana's edit")).toBe("Keep Ana's edit");
    expect(keepLabel("delete it, as Bo did")).toBe("Delete it, as Bo did");
    expect(keepAllLabel(syncConflict())).toBe("Keep both");
    expect(keepAllLabel(syncConflict({ kind: "field" }))).toBe("Keep it as it is");
  });
});

describe("errors, flags and results", () => {
  it("explains the last error, never with its code", () => {
    expect(lastErrorSentence(remoteSync())).toBe("");
    expect(lastErrorSentence(null)).toBe("");
    const s = lastErrorSentence(
      remoteSync({ last_run: { at: "2026-03-01T10:00:00Z", commit: null, error: { code: "remote_refused", message: "the sync remote refused the credentials (fatal: Authentication failed): check your access to it, then sync again" } } }),
    );
    expect(s).toMatch(/^The last sync failed\. The sync remote refused Mnemo/);
    expect(s).toContain("Authentication failed");
    expect(s).not.toContain("remote_refused");
  });

  it("says why a file was left out, and what a sync changed", () => {
    expect(flagSentence("not sent: it holds what looks like a secret (an API key)")).toBe("Not sent: it holds what looks like a secret (an API key).");
    expect(changedText(0)).toBe("Nothing changed here.");
    expect(changedText(1)).toBe("1 file changed here");
    expect(changedText(3)).toBe("3 files changed here");
    const two = remoteSync({ workspaces: [workspaceSync({ changed: ["a.md", "b.md"] }), workspaceSync({ workspace: "w2", changed: ["c.md"], conflicts: [syncConflict()] })] });
    expect(runSummary(two)).toBe("Synced: 3 files changed here. 1 conflict waits for your choice. Open Status to choose.");
    expect(runSummary(remoteSync())).toBe("Synced: nothing changed here.");
  });
});

describe("what the remote carries that this computer does not take", () => {
  it("names each key in words: the tool and the repository, a workspace, Qwen Code's memory of you", () => {
    expect(remoteKeyName("project/remote~github.com~ana~webapp/claude")).toBe("Claude Code memory of webapp");
    expect(remoteKeyName("project/remote~github.com~ana~webapp/qwen")).toBe("Qwen Code memory of webapp");
    expect(remoteKeyName("project/remote~git.example~team~api-server/mnemo")).toBe("Mnemo workspace bound to api-server");
    expect(remoteKeyName("project/root~0123456789abcdef0123456789abcdef01234567/claude")).toBe("Claude Code memory of a repository");
    expect(remoteKeyName("project/remote~github.com~ana~/claude")).toBe("Claude Code memory of a repository");
    expect(remoteKeyName("project/github.com~a~web/claude")).toBe("Claude Code memory of web");
    expect(remoteKeyName("project/webapp/claude")).toBe("Claude Code memory of webapp");
    expect(remoteKeyName("qwen-user")).toBe("Qwen Code's memory of you");
    expect(remoteKeyName("mnemo/work")).toBe("Workspace work");
    expect(remoteKeyName("mnemo/personal")).toBe("Workspace personal");
    // A key this app does not know yet keeps its name.
    expect(remoteKeyName("project/remote~x~y/other")).toBe("Memory of y");
    expect(remoteKeyName("something/else/entirely")).toBe("something/else/entirely");
  });

  it("counts memories and says why as a sentence", () => {
    expect(memoriesText(1)).toBe("1 memory");
    expect(memoriesText(3)).toBe("3 memories");
    expect(memoriesText(0)).toBe("0 memories");
    expect(
      elsewhereLine({
        key: "project/remote~github.com~ana~webapp/claude",
        files: 3,
        why: "a Claude Code project memory from another machine: it arrives once a clone of that repository on this computer has a Claude Code memory folder (use Claude Code there once), and nothing of it is deleted meanwhile",
      }),
    ).toEqual({
      name: "Claude Code memory of webapp",
      count: "3 memories",
      why: "A Claude Code project memory from another machine: it arrives once a clone of that repository on this computer has a Claude Code memory folder (use Claude Code there once), and nothing of it is deleted meanwhile.",
    });
    expect(elsewhereLine({ key: "qwen-user", files: 1, why: "Qwen Code sync is switched off here" })).toEqual({
      name: "Qwen Code's memory of you",
      count: "1 memory",
      why: "Qwen Code sync is switched off here.",
    });
  });
});

describe("the settings form", () => {
  it("round-trips the settings, empty fields as null", () => {
    const f = syncFormOf(SYNC_SETTINGS);
    expect(f).toEqual({ remote: "", author: "", auto: false, claude: true, qwen: true, sessions: false });
    expect(syncSettingsOf({ ...f, remote: "  /srv/memory.git ", author: " " })).toEqual({
      remote: "/srv/memory.git",
      author: null,
      auto: false,
      claude: true,
      qwen: true,
      sessions: false,
      shared: {},
    });
    // Workspaces shared with a team (not in the form) are kept as loaded.
    const loaded = { ...SYNC_SETTINGS, shared: { team: "/srv/team.git" } };
    expect(syncSettingsOf(syncFormOf(loaded), loaded).shared).toEqual({ team: "/srv/team.git" });
    // Fields a server leaves out take their defaults.
    expect(syncFormOf({ remote: "x", author: null })).toEqual({ remote: "x", author: "", auto: false, claude: true, qwen: true, sessions: false });
    expect(sameSyncForm(f, { ...f })).toBe(true);
    expect(sameSyncForm(f, { ...f, qwen: false })).toBe(false);
    expect(sameSyncForm(f, { ...f, sessions: true })).toBe(false);
  });
});

describe("what a sync sent to the other machines", () => {
  it("says nothing when nothing went out, counts what did, and warns of many deletions", () => {
    expect(sentText({ added: 0, removed: 0, changed: 0 })).toBe("");
    expect(sentText({ added: 1, removed: 1, changed: 0 })).toBe(
      "Sent 2 files to your other machines (1 deletion).",
    );
    const many = sentText({ added: 0, removed: 4, changed: 0 });
    expect(many).toContain("Sent 4 files to your other machines (4 deletions).");
    expect(many).toContain("undo the deletions in History");
  });

  it("adds what went out to the summary of a sync", () => {
    const s = remoteSync({
      workspaces: [workspaceSync({ changed: ["a.md"], sent: { added: 2, removed: 0, changed: 1 } })],
    });
    expect(runSummary(s)).toBe("Synced: 1 file changed here. Sent 3 files to your other machines.");
  });
});
