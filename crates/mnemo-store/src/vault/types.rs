//! What the vault's reads and writes return.

use mnemo_core::WorkspaceKind;
use serde::Serialize;

use crate::index::{Counts, DocSummary};
use crate::workspace::Workspace;

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct WorkspaceInfo {
    /// The workspace.
    #[serde(flatten)]
    pub workspace: Workspace,
    /// Counts from the index.
    pub counts: Counts,
}

/// One memory with its content, as `show` gives it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct MemoryDetail {
    /// Listing fields.
    #[serde(flatten)]
    pub summary: DocSummary,
    /// Content hash (pass back to `update` to detect concurrent edits).
    pub hash: String,
    /// The file text: exact, or redacted when it holds a secret (`summary.secret`); `None` for
    /// binary / non-UTF-8 / too-large files.
    pub content: Option<String>,
    /// The body after the frontmatter.
    pub body: String,
    /// Body entries with stable ids.
    pub entries: Vec<EntryOut>,
    /// Pinned: extraction and dream never change or delete it.
    pub pinned: bool,
}

/// An entry with its stable id.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct EntryOut {
    /// `relPath` or `relPath:index`.
    pub id: String,
    /// Summary line.
    pub summary: String,
    /// `Why:` text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// `How to apply:` text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub how: Option<String>,
    /// Replaced by a newer fact (kept, never recalled): when, by what, why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded: Option<crate::supersede::Supersession>,
}

pub use mnemo_core::{NewMemory, Patch};

/// What a write did.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct WriteOutcome {
    /// Workspace id.
    pub workspace: String,
    /// Path relative to the memory root.
    pub path: String,
    /// Journal id (`None` when the content was already as asked: nothing changed).
    pub change_id: Option<i64>,
    /// Hash of the new content (`None` after a delete).
    pub hash: Option<String>,
    /// Said plainly when the change reaches other people: the workspace is shared through git
    /// (Qwen Code's team memory).
    pub shared: Option<String>,
}

/// What a sync or rebuild did.
#[derive(Debug, Clone, Default, Serialize, specta::Type)]
pub struct SyncReport {
    /// Files looked at.
    pub scanned: usize,
    /// Docs added or changed in the index.
    pub updated: usize,
    /// Docs removed from the index.
    pub removed: usize,
}

/// Status of the home.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Status {
    /// `$MNEMO_HOME`.
    pub home: String,
    /// Workspaces and counts.
    pub workspaces: Vec<WorkspaceStatus>,
    /// Size of index.db in bytes.
    pub index_bytes: u64,
    /// Recoveries that happened while opening (corrupt files moved aside, …).
    pub warnings: Vec<String>,
    /// Semantic (hybrid) search: the local embedding model and how far embedding has got.
    pub semantic: Semantic,
}

/// Whether hybrid search can run (the API fills this in; the vault knows only the vectors).
#[derive(Debug, Clone, Default, Serialize, specta::Type)]
pub struct Semantic {
    /// `ready`, `not_installed`, `broken`, `off` (or `unknown` before the API looked).
    pub state: String,
    /// The model's id, when loaded.
    pub model: Option<String>,
    /// Memories (and logs) with a vector for that model.
    pub embedded: u64,
    /// Memories (and logs) in all.
    pub total: u64,
    /// What it means and what to do (how to install the model, what is wrong with its files).
    pub message: String,
}

/// Status of one workspace.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct WorkspaceStatus {
    /// Workspace id.
    pub id: String,
    /// Kind.
    pub kind: WorkspaceKind,
    /// Counts.
    pub counts: Counts,
    /// Last extraction (from meta.json).
    pub last_extract_at: Option<String>,
    /// Last dream (from meta.json).
    pub last_dream_at: Option<String>,
    /// PID holding `consolidation.lock`, if any.
    pub consolidation_locked_by: Option<u32>,
}
