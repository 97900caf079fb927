//! The wire: every shape a command takes or returns, declared here and only here with its
//! TypeScript binding (`specta::Type`) — the store's, the engine's, sync's and import's own
//! types stay free to change. Each wire type is made from one of theirs with a `From` that names
//! every field, so a field added to or dropped from a type below fails to compile here instead of
//! changing what clients see without anyone deciding it. Closed sets every layer speaks (memory
//! types, task, change, proposal and dream states, error codes) are `mnemo_core`'s.

/// `From` a source type to its wire type, and back for an input (`… } back`), naming every
/// field of both so that a field added to or dropped from either fails to compile here. A bare
/// field moves as it is; `field: into` converts it, `field: opt` what its `Option` holds,
/// `field: each` every item of its list, `field: map` every value of its map. `skip` names the
/// source's fields that never cross (internal to it).
macro_rules! mirror {
    ($src:path => $wire:ident { $($field:ident $(: $how:ident)?),* $(,)? } back) => {
        mirror!($src => $wire { $($field $(: $how)?),* });
        impl From<$wire> for $src {
            fn from(v: $wire) -> Self {
                let $wire { $($field),* } = v;
                Self { $($field: convert!($field $(, $how)?),)* }
            }
        }
    };
    ($src:path => $wire:ident { $($field:ident $(: $how:ident)?),* $(,)? } $(skip $($skipped:ident),+)?) => {
        impl From<$src> for $wire {
            fn from(v: $src) -> Self {
                let $src { $($field,)* $($($skipped: _,)+)? } = v;
                Self { $($field: convert!($field $(, $how)?),)* }
            }
        }
    };
}

/// One field's conversion in [`mirror!`].
macro_rules! convert {
    ($x:ident) => {
        $x
    };
    ($x:ident, into) => {
        $x.into()
    };
    ($x:ident, opt) => {
        $x.map(Into::into)
    };
    ($x:ident, each) => {
        $x.into_iter().map(Into::into).collect()
    };
    ($x:ident, map) => {
        $x.into_iter().map(|(k, v)| (k, v.into())).collect()
    };
}

mod chat;
mod home;
mod import;
mod journal;
mod recall;
mod sync;
mod tasks;
mod vault;

pub use chat::{
    ChatCommand, Choice, Compaction, CompactionSource, Dropped, ExtractResult, ExtractStatus, Road,
    SessionInfo, TurnResult,
};
pub use home::{
    FolderEntry, Semantic, SemanticState, Settings, Sharing, Status, Workspace, WorkspaceInfo,
    WorkspaceStatus,
};
pub use import::{
    ConversationEstimate, FolderType, ImportFormat, ImportOptions, ImportPreview, RestoreChoice,
    Sample, Skip, TypeCount,
};
pub use journal::{
    AcceptChoice, Accepted, ChangeSummary, EntryChange, FileEdit, GroupInfo, GroupUndo,
    MemoryUsage, Proposal, ProposalFile, ProposalOrigin, ProposalPage, ProposalSummary,
};
pub use recall::{
    Carried, ForgetEntry, ForgetPick, ForgetPreview, MemoryStats, RecallResult, Recalled, Strategy,
    TelemetryEvent,
};
pub use sync::{
    FileCounts, RemoteKey, RemoteSync, SyncChoice, SyncConflict, SyncFlag, SyncRun, SyncSettings,
    WorkspaceSync,
};
pub use tasks::{
    DreamMerge, DreamPlan, DreamReport, PlannedChange, TaskInfo, TaskProgress, TaskResult, ToolStep,
};
pub use vault::{
    Copied, Counts, DocSummary, EntryOut, ExportResult, Hit, MemoryDetail, Passage, ProblemOut,
    Supersession, SyncReport, WriteOutcome,
};

#[cfg(test)]
mod tests;

/// Every item of a list, as the wire has it.
pub(crate) fn all<T, W: From<T>>(items: Vec<T>) -> Vec<W> {
    items.into_iter().map(W::from).collect()
}
