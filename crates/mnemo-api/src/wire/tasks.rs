//! Background memory tasks on the wire: a task, its tool steps and result, a dream's report and
//! plan, what an import wrote.

use mnemo_core::{
    DreamStatus, DreamStrategy, DreamTrigger, MemoryType, TaskKind, TaskReason, TaskStatus,
};
use serde::{Deserialize, Serialize};

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

mirror!(mnemo_store::dream_report::DreamMerge => DreamMerge { summary, into, from });

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

mirror!(mnemo_store::dream_report::DreamReport => DreamReport {
    status, strategy, trigger, files_touched, files_created, files_deleted, entries_merged,
    merges: each, touched_types, duration_ms, notes,
});

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

/// One tool call of a task's agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ToolStep {
    /// Tool name.
    pub name: String,
    /// What it was asked (a short preview of its arguments).
    pub detail: String,
    /// `null` while it runs; then whether it succeeded.
    pub ok: Option<bool>,
}

mirror!(mnemo_store::tasks::ToolStep => ToolStep { name, detail, ok });

/// What a task did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct TaskResult {
    /// One line for people.
    pub summary: String,
    /// Memory files written or deleted, relative to the memory root.
    pub files: Vec<String>,
    /// The change group holding its changes (`null`: it changed nothing).
    pub group: Option<i64>,
    /// Memory types of the files it wrote.
    #[serde(default)]
    pub touched_types: Vec<MemoryType>,
    /// A dream's report (`null` for other kinds).
    #[serde(default)]
    pub dream: Option<DreamReport>,
    /// The change group that undid `group` (`null`: its changes are in effect). Read from the
    /// journal whenever the task is read (`Api::tasks`, `Api::task`): undone is the journal's fact.
    #[serde(default)]
    pub undone_by: Option<i64>,
    /// The proposal its writes became (review mode: nothing was written until a person accepts).
    #[serde(default)]
    pub proposal: Option<i64>,
}

mirror!(mnemo_store::tasks::TaskResult => TaskResult {
    summary, files, group, touched_types, dream: opt, undone_by, proposal,
});

/// How far a task's work has got, in the units its phase names (files, memories, conversations,
/// bytes): what a progress bar shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct TaskProgress {
    /// Done so far.
    pub done: u64,
    /// In all.
    pub total: u64,
}

mirror!(mnemo_store::tasks::TaskProgress => TaskProgress { done, total });

/// A background memory task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct TaskInfo {
    /// Id.
    pub id: String,
    /// What it does.
    pub kind: TaskKind,
    /// Workspace id.
    pub workspace: String,
    /// The chat session it works for, if any.
    pub session: Option<String>,
    /// Where it is.
    pub status: TaskStatus,
    /// Why it was skipped or failed, in a word.
    pub reason: Option<TaskReason>,
    /// Current phase, for display (`waiting`, `reading the transcript`, …).
    pub phase: Option<String>,
    /// How far the work has got, when the phase counts something (`null` otherwise and once it
    /// ended).
    pub progress: Option<TaskProgress>,
    /// The tool calls so far (the newest 200 at most).
    pub tools: Vec<ToolStep>,
    /// What it did, once completed.
    pub result: Option<TaskResult>,
    /// What went wrong, once failed.
    pub error: Option<String>,
    /// Created (RFC 3339, UTC).
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
    /// Began running.
    pub started_at: Option<String>,
    /// Ended.
    pub finished_at: Option<String>,
}

mirror!(mnemo_store::tasks::TaskInfo => TaskInfo {
    id, kind, workspace, session, status, reason, phase, progress: opt, tools: each, result: opt,
    error, created_at, updated_at, started_at, finished_at,
});
