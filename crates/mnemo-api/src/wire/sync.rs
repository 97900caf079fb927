//! Sync on the wire: its settings, its last run, each workspace's state, conflicts to resolve.

use std::collections::BTreeMap;

use mnemo_core::Error;
use serde::{Deserialize, Serialize};

/// One choice of a conflict: a version and who made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct SyncChoice {
    /// Whose version, in words ("Ana's version", "deleted on laptop").
    pub label: String,
    /// The version: entry texts (for a field, its one value). Empty = the entries deleted.
    pub texts: Vec<String>,
}

mirror!(mnemo_sync::SyncChoice => SyncChoice { label, texts } back);

/// What a sync could not decide alone: kept for a person's choice, synced to every home.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct SyncConflict {
    /// Stable id (the same conflict has the same id on every home).
    pub id: String,
    /// The memory file, relative to its workspace's root.
    pub path: String,
    /// `edited` (both versions kept), `deleted_and_edited` (the edit kept), `field` (ours kept).
    pub kind: String,
    /// The frontmatter field, for `field`.
    pub field: Option<String>,
    /// The versions to choose from.
    pub choices: Vec<SyncChoice>,
    /// When it was found (RFC 3339).
    pub at: String,
}

mirror!(mnemo_sync::SyncConflict => SyncConflict { id, path, kind, field, choices: each, at });

/// A workspace's sync, as a sync left it or as `sync status` sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct WorkspaceSync {
    /// Workspace id.
    pub workspace: String,
    /// Its label.
    pub label: String,
    /// Where it lives in the remote (`None`: it does not sync).
    pub key: Option<String>,
    /// The remote it syncs through (a team's, when it is shared).
    pub remote: Option<String>,
    /// It is shared with a team through its own remote.
    pub shared: bool,
    /// Why it does not sync.
    pub not_synced: Option<String>,
    /// When it last synced (RFC 3339).
    pub last_synced: Option<String>,
    /// Files changed here since the last sync, not yet sent.
    pub pending: u32,
    /// Files changed on the remote (as last fetched), not yet merged here.
    pub incoming: u32,
    /// Files this sync changed here.
    pub changed: Vec<String>,
    /// The change group holding them (undo it to take the sync's changes back).
    pub group: Option<i64>,
    /// What waits for a choice.
    pub conflicts: Vec<SyncConflict>,
    /// Files left out, and why.
    pub flagged: Vec<SyncFlag>,
    /// Other workspaces here that sync as the same memory (checkouts of one project, a
    /// worktree): their files are merged as one set and each holds all of them.
    pub shares_with: Vec<String>,
    /// What this sync changed on the remote, for every machine (on the first workspace of a key).
    pub sent: FileCounts,
    /// What this sync changed here.
    pub received: FileCounts,
}

mirror!(mnemo_sync::WorkspaceSync => WorkspaceSync {
    workspace, label, key, remote, shared, not_synced, last_synced, pending, incoming, changed,
    group, conflicts: each, flagged: each, shares_with, sent: into, received: into,
});

/// Memory files added, removed and changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, specta::Type)]
pub struct FileCounts {
    /// Added.
    pub added: u32,
    /// Removed.
    pub removed: u32,
    /// Changed.
    pub changed: u32,
}

mirror!(mnemo_sync::FileCounts => FileCounts { added, removed, changed });

/// The home's sync: a run's report, or the status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct RemoteSync {
    /// The remote (`None`: sync is not set up).
    pub remote: Option<String>,
    /// Automatic sync is on.
    pub auto: bool,
    /// The commit this home is at.
    pub commit: Option<String>,
    /// Commits here the remote lacks / on the remote not merged here (as last fetched).
    pub ahead: u32,
    /// See `ahead`.
    pub behind: u32,
    /// How the last attempt ended.
    pub last_run: Option<SyncRun>,
    /// Per workspace.
    pub workspaces: Vec<WorkspaceSync>,
    /// What the remote carries that no workspace here takes, and why (as last fetched).
    pub elsewhere: Vec<RemoteKey>,
}

mirror!(mnemo_sync::RemoteSync => RemoteSync {
    remote, auto, commit, ahead, behind, last_run: opt, workspaces: each, elsewhere: each,
});

/// Memory the remote carries that this home does not take (yet).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct RemoteKey {
    /// Where it lives in the remote.
    pub key: String,
    /// Its memory files.
    pub files: u32,
    /// Why it is not here, and what brings it.
    pub why: String,
}

mirror!(mnemo_sync::RemoteKey => RemoteKey { key, files, why });

/// `[sync]` in settings.toml.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct SyncSettings {
    /// The remote: any git URL or a path to a (bare) repository. `None`: sync is off.
    pub remote: Option<String>,
    /// Who this home's commits are by (`Name <email>`); default `Mnemo on <host>`.
    pub author: Option<String>,
    /// Sync automatically: after local changes (debounced) and on an interval.
    #[serde(default)]
    pub auto: bool,
    /// Carry Claude Code's project memories (default on).
    #[serde(default = "yes")]
    pub claude: bool,
    /// Carry Qwen Code's project memories and user layer (default on).
    #[serde(default = "yes")]
    pub qwen: bool,
    /// Carry chat sessions too (whole conversations; off unless asked).
    #[serde(default)]
    pub sessions: bool,
    /// Workspaces shared with a team: workspace id → the team's remote. A shared workspace
    /// syncs through that remote instead of the home's.
    #[serde(default)]
    pub shared: BTreeMap<String, String>,
}

mirror!(mnemo_sync::SyncSettings => SyncSettings {
    remote, author, auto, claude, qwen, sessions, shared,
} back);

/// A file a sync did not carry, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct SyncFlag {
    /// The file, relative to its workspace's root.
    pub path: String,
    /// Why it was left out, in a sentence.
    pub why: String,
    /// `here` (a local file that was not sent) or `remote` (a file on the remote not taken).
    pub side: String,
}

mirror!(mnemo_sync::SyncFlag => SyncFlag { path, why, side });

/// How the last sync attempt ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct SyncRun {
    /// When it ended (RFC 3339).
    pub at: String,
    /// The error, if it failed (`remote_unreachable`: offline — local changes wait).
    pub error: Option<Error>,
    /// The commit this home is at afterwards.
    pub commit: Option<String>,
}

mirror!(mnemo_sync::SyncRun => SyncRun { at, error, commit });

fn yes() -> bool {
    true
}

impl FileCounts {
    /// Nothing at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.added == 0 && self.removed == 0 && self.changed == 0
    }
}
