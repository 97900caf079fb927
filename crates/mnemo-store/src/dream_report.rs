//! What a dream did, as its task records it and every client shows it: the dream
//! report. A type only — the engine's `dream` module fills it in.

use mnemo_core::MemoryType;
use serde::{Deserialize, Serialize};

pub use mnemo_core::{DreamStatus, DreamStrategy, DreamTrigger};

/// Entries with one summary merged into one copy.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::DreamMerge`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DreamMerge {
    pub summary: String,
    pub into: String,
    pub from: Vec<String>,
}

/// The dream report.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::DreamReport`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DreamReport {
    pub status: DreamStatus,
    pub strategy: DreamStrategy,
    pub trigger: DreamTrigger,
    pub files_touched: Vec<String>,
    /// Of those, the files that did not exist before the dream, sorted.
    #[serde(default)]
    pub files_created: Vec<String>,
    pub files_deleted: Vec<String>,
    pub entries_merged: u32,
    pub merges: Vec<DreamMerge>,
    pub touched_types: Vec<MemoryType>,
    pub duration_ms: u64,
    pub notes: Vec<String>,
}
