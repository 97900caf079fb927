//! What a dream did, as its task records it and every client shows it: the dream
//! report. A type only — the engine's `dream` module fills it in.

use mnemo_core::MemoryType;
use serde::{Deserialize, Serialize};

/// How a dream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum DreamStatus {
    /// It changed memory files.
    Updated,
    /// Review mode: it proposed changes (one proposal in the inbox); nothing was written until
    /// a person accepts them.
    Proposed,
    /// Nothing needed changing.
    Noop,
    /// It could not run to the end (what it wrote before that is kept, checked, and undoable).
    Failed,
}

impl DreamStatus {
    /// The wire name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Updated => "updated",
            Self::Proposed => "proposed",
            Self::Noop => "noop",
            Self::Failed => "failed",
        }
    }
}

/// Which path consolidated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum DreamStrategy {
    /// The memory agent (a model that proved tool use is configured).
    Agent,
    /// A plan of merges and replacements from the model, checked and carried out by Mnemo (a
    /// model that has not proven tool use).
    Planner,
    /// The deterministic de-duplication (no model, the agent failed, or asked for).
    Mechanical,
}

/// What started a dream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum DreamTrigger {
    /// The gates after a chat turn.
    Auto,
    /// A person: the Dream button, `mnemo dream`, `/dream`.
    Manual,
}

/// Entries with one summary merged into one copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct DreamMerge {
    /// The summary kept.
    pub summary: String,
    /// The file holding the kept copy.
    pub into: String,
    /// Where the other copies were (a file may appear more than once: duplicates within it).
    pub from: Vec<String>,
}

/// The dream report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct DreamReport {
    /// `updated | noop | failed`.
    pub status: DreamStatus,
    /// `agent | mechanical`.
    pub strategy: DreamStrategy,
    /// `auto | manual`.
    pub trigger: DreamTrigger,
    /// Files written (relative to the memory root), sorted: the ones it created and the ones it
    /// changed.
    pub files_touched: Vec<String>,
    /// Of those, the files that did not exist before the dream, sorted.
    #[serde(default)]
    pub files_created: Vec<String>,
    /// Files deleted, sorted.
    pub files_deleted: Vec<String>,
    /// Entries merged away (each kept once).
    pub entries_merged: u32,
    /// What was merged where (mechanical path).
    pub merges: Vec<DreamMerge>,
    /// Memory types of the files touched or deleted.
    pub touched_types: Vec<MemoryType>,
    /// Wall time.
    pub duration_ms: u64,
    /// What happened on the way, for people: the agent's own summary, each safety repair
    /// ("restored x.md: …"), a refused action, why it fell back to the mechanical path.
    pub notes: Vec<String>,
}

/// One file a mechanical dream would change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct PlannedChange {
    /// Relative path.
    pub path: String,
    /// The file would be deleted (all its entries live on elsewhere).
    pub delete: bool,
    /// Entries now.
    pub entries_before: u32,
    /// Entries after.
    pub entries_after: u32,
}

/// What `mnemo dream --dry-run` shows: the mechanical plan, nothing written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct DreamPlan {
    /// Workspace id.
    pub workspace: String,
    /// Files that would change, writes first.
    pub changes: Vec<PlannedChange>,
    /// Entries that would be merged away.
    pub entries_merged: u32,
    /// What would be merged where.
    pub merges: Vec<DreamMerge>,
}
