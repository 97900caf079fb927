//! What the vault's reads and writes return.

use mnemo_core::WorkspaceKind;
use serde::Serialize;

use crate::index::{Counts, DocSummary};
use crate::workspace::Workspace;

/// Its fields are documented where clients read them: `mnemo_api::wire::WorkspaceInfo`.
#[derive(Debug, Clone, Serialize)]
pub struct WorkspaceInfo {
    /// The workspace.
    #[serde(flatten)]
    pub workspace: Workspace,
    pub counts: Counts,
}

/// One memory with its content, as `show` gives it.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::MemoryDetail`.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryDetail {
    /// Listing fields.
    #[serde(flatten)]
    pub summary: DocSummary,
    pub hash: String,
    pub content: Option<String>,
    pub body: String,
    pub entries: Vec<EntryOut>,
    pub pinned: bool,
}

/// An entry with its stable id.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::EntryOut`.
#[derive(Debug, Clone, Serialize)]
pub struct EntryOut {
    pub id: String,
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
///
/// Its fields are documented where clients read them: `mnemo_api::wire::WriteOutcome`.
#[derive(Debug, Clone, Serialize)]
pub struct WriteOutcome {
    pub workspace: String,
    pub path: String,
    pub change_id: Option<i64>,
    pub hash: Option<String>,
    pub shared: Option<String>,
}

/// What a sync or rebuild did.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::SyncReport`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SyncReport {
    pub scanned: usize,
    pub updated: usize,
    pub removed: usize,
}

/// Status of the home.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Status`.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub home: String,
    pub workspaces: Vec<WorkspaceStatus>,
    pub index_bytes: u64,
    pub warnings: Vec<String>,
}

/// Status of one workspace.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::WorkspaceStatus`.
#[derive(Debug, Clone, Serialize)]
pub struct WorkspaceStatus {
    pub id: String,
    pub kind: WorkspaceKind,
    pub counts: Counts,
    pub last_extract_at: Option<String>,
    pub last_dream_at: Option<String>,
    pub consolidation_locked_by: Option<u32>,
}
