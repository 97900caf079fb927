//! The journal and the review inbox on the wire: changes and change groups, proposals with their
//! diffs and a person's choice when accepting, what a memory was recalled for.

use mnemo_core::{ChangeOp, ChangeSource, EntryOp, ProposalStatus};
use serde::{Deserialize, Serialize};

/// A change group: the changes one job (an extraction run, a dream, a group undo…) made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct GroupInfo {
    /// Group id (for `undo_group`).
    pub id: i64,
    /// Workspace id.
    pub workspace: String,
    /// What made it: `extract`, `dream`, `forget`, `remember`, `undo`.
    pub kind: String,
    /// The memory task that made it, if any.
    pub task: Option<String>,
    /// A human label.
    pub label: String,
    /// When it began (RFC 3339, UTC).
    pub at: String,
    /// The group this one undid, if it is a group undo.
    pub undoes: Option<i64>,
    /// The group that undid this one (`null`: in effect).
    pub undone_by: Option<i64>,
    /// Its changes, oldest first.
    pub changes: Vec<ChangeSummary>,
}

mirror!(mnemo_store::journal::GroupInfo => GroupInfo {
    id, workspace, kind, task, label, at, undoes, undone_by, changes: each,
});

/// One journaled change, without its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct ChangeSummary {
    /// Change id (for `undo`).
    pub id: i64,
    /// Workspace id.
    pub workspace: String,
    /// Path relative to the memory root.
    pub path: String,
    /// Who made it.
    pub source: ChangeSource,
    /// When (RFC 3339, UTC).
    pub at: String,
    /// `create`, `modify` or `delete`.
    pub op: ChangeOp,
    /// The change this one undid, if it is an undo.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undoes: Option<i64>,
    /// The change group it belongs to (`null`: a single change).
    pub group: Option<i64>,
    /// The change that undid this one, recorded in the journal (`null`: in effect; a redo —
    /// undoing that undo — puts it back in effect).
    pub undone_by: Option<i64>,
}

mirror!(mnemo_store::journal::ChangeSummary => ChangeSummary {
    id, workspace, path, source, at, op, undoes, group, undone_by,
});

/// What a proposal came from, as far as it is known.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ProposalOrigin {
    /// The chat session whose turn was extracted.
    pub session: Option<String>,
    /// The chat message (or remember request) it came from, cut to 300 characters.
    pub message: Option<String>,
    /// The MCP client or remember client that asked.
    pub client: Option<String>,
    /// The memory task that made it.
    pub task: Option<String>,
}

mirror!(mnemo_store::journal::ProposalOrigin => ProposalOrigin { session, message, client, task });

/// A proposal without its files' text (what the inbox lists).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ProposalSummary {
    /// Its id (`mnemo inbox show ID`).
    pub id: i64,
    /// Workspace id.
    pub workspace: String,
    /// Who proposed it.
    pub source: ChangeSource,
    /// The job: `extract`, `dream`, `remember`.
    pub kind: String,
    /// In a few words.
    pub label: String,
    /// What it came from.
    pub origin: ProposalOrigin,
    /// When it was made (RFC 3339, UTC).
    pub at: String,
    /// Where it stands.
    pub status: ProposalStatus,
    /// When it was decided.
    pub resolved_at: Option<String>,
    /// Why it ended as it did (expired, partly accepted, rejected and not to be learnt).
    pub note: Option<String>,
    /// The change group that applied it (accepted), for history and undo.
    pub group: Option<i64>,
    /// The files it changes.
    pub paths: Vec<String>,
    /// How many changes (entries) it holds.
    pub changes: u32,
}

mirror!(mnemo_store::journal::ProposalSummary => ProposalSummary {
    id, workspace, source, kind, label, origin: into, at, status, resolved_at, note, group, paths,
    changes,
});

/// A proposal with each file's diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct Proposal {
    /// The listing fields.
    #[serde(flatten)]
    pub summary: ProposalSummary,
    /// Each file: what it was, what the proposal makes of it, entry by entry.
    pub files: Vec<ProposalFile>,
}

mirror!(mnemo_store::journal::Proposal => Proposal { summary: into, files: each });

/// One page of a workspace's proposals, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ProposalPage {
    /// The proposals on this page.
    pub items: Vec<ProposalSummary>,
    /// How many match the filter.
    pub total: u32,
    /// How many wait for a decision (the badge).
    pub pending: u32,
}

mirror!(mnemo_store::journal::ProposalPage => ProposalPage { items: each, total, pending });

/// A person's choice when accepting: which changes (all when `entries` is `None`), and files
/// they edited first (their text replaces the proposal's for that file).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct AcceptChoice {
    /// Change ids (`path#n`) to apply; `None`: all.
    pub entries: Option<Vec<String>>,
    /// Files edited before accepting.
    #[serde(default)]
    pub edits: Vec<FileEdit>,
}

mirror!(mnemo_store::journal::AcceptChoice => AcceptChoice { entries, edits: each } back);

/// A file's text as a person edited it in a proposal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct FileEdit {
    /// Relative to the memory root.
    pub path: String,
    /// The whole text to write.
    pub content: String,
}

mirror!(mnemo_store::journal::FileEdit => FileEdit { path, content } back);

/// What one memory was recalled for and what it cost.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct MemoryUsage {
    /// Relative to the memory root.
    pub path: String,
    /// Times a recall chose it.
    pub recalls: u32,
    /// The last time (RFC 3339, UTC).
    pub last_recalled: Option<String>,
    /// Tokens injected over every recall, counting the turns that sent it again from earlier in
    /// a chat (estimated as the prompt block counts them).
    pub tokens: u64,
    /// Times it was sent again from an earlier turn of a chat.
    pub carried: u32,
    /// Tokens injected by the last recall.
    pub last_tokens: u32,
    /// Distinct chat sessions it served.
    pub sessions: u32,
    /// The newest of those sessions (at most 10), newest first.
    pub recent_sessions: Vec<String>,
}

mirror!(mnemo_store::journal::MemoryUsage => MemoryUsage {
    path, recalls, last_recalled, tokens, carried, last_tokens, sessions, recent_sessions,
});

/// One change a person can accept or leave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct EntryChange {
    /// `path#n` (1-based within the file): what `accept … entries` names.
    pub id: String,
    /// What it does.
    pub op: EntryOp,
    /// The entry (or file) before; `None` for an addition.
    pub before: Option<String>,
    /// The entry (or file) after; `None` for a removal.
    pub after: Option<String>,
}

mirror!(mnemo_store::review::EntryChange => EntryChange { id, op, before, after });

/// The diff of one file: the base a proposal was made from and what it proposes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ProposalFile {
    /// Relative to the memory root.
    pub path: String,
    /// Create, modify or delete.
    pub op: ChangeOp,
    /// Hash of the bytes the proposal was made from (`None`: the file did not exist).
    pub base_hash: Option<String>,
    /// Those bytes as text.
    pub before: Option<String>,
    /// The proposed text (`None`: delete the file).
    pub after: Option<String>,
    /// The changes, entry by entry.
    pub entries: Vec<EntryChange>,
}

mirror!(mnemo_store::review::ProposalFile => ProposalFile {
    path, op, base_hash, before, after, entries: each,
});

/// What undoing a group did.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct GroupUndo {
    /// The group undone.
    pub undone: i64,
    /// The new group holding the undo (itself undoable).
    pub group: i64,
    /// Workspace id.
    pub workspace: String,
    /// Files restored, relative to the memory root.
    pub paths: Vec<String>,
    /// What a person should know about where the undo goes: set when the group was a sync's
    /// (changes another machine made): the undo travels with the next sync to every machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

mirror!(mnemo_store::vault::GroupUndo => GroupUndo { undone, group, workspace, paths, note });

/// What accepting did.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Accepted {
    /// The proposal as it now stands.
    pub proposal: ProposalSummary,
    /// The change group that applied it (undo it to take it back).
    pub group: i64,
    /// Files written.
    pub paths: Vec<String>,
}

mirror!(mnemo_store::vault::Accepted => Accepted { proposal: into, group, paths });
