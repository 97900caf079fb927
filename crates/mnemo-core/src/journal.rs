//! What a file is, what a change did to it, where a proposal stands and what one proposed
//! change does to an entry: the closed sets the journal, the index and the review inbox speak.

use serde::{Deserialize, Serialize};

/// What kind of document a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum DocKind {
    /// A topic file (a memory).
    Topic,
    /// A daily log under `logs/YYYY/MM/`.
    Log,
    /// A conversation record under `chats/YYYY/MM/`: what the person said in one
    /// chat session on one day.
    Chat,
}

impl DocKind {
    /// Wire name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Topic => "topic",
            Self::Log => "log",
            Self::Chat => "chat",
        }
    }

    /// From the wire name (anything else is a topic).
    #[must_use]
    pub fn parse(s: &str) -> Self {
        match s {
            "log" => Self::Log,
            "chat" => Self::Chat,
            _ => Self::Topic,
        }
    }

    /// Plain markdown whose text is its body, appended to and merged by appending: a daily log
    /// or a conversation record (no frontmatter, name or type).
    #[must_use]
    pub fn is_record(self) -> bool {
        matches!(self, Self::Log | Self::Chat)
    }
}

/// What a change did to its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ChangeOp {
    /// The file was created.
    Create,
    /// The file's content changed.
    Modify,
    /// The file was deleted.
    Delete,
}

impl ChangeOp {
    /// The lowercase name used on every wire and in `journal.db`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Modify => "modify",
            Self::Delete => "delete",
        }
    }

    /// From the name in `journal.db` (anything unknown reads as `modify`).
    #[must_use]
    pub fn parse(s: &str) -> Self {
        match s {
            "create" => Self::Create,
            "delete" => Self::Delete,
            _ => Self::Modify,
        }
    }
}

impl std::fmt::Display for ChangeOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a proposal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ProposalStatus {
    /// Waiting for a person.
    Pending,
    /// Being applied (a process stopped midway is finished by the next).
    Accepting,
    /// Applied (all of it, or the changes a person picked: see `note`).
    Accepted,
    /// Turned down.
    Rejected,
    /// Nobody decided in time: treated as rejected.
    Expired,
}

impl ProposalStatus {
    /// The name on every wire and in `journal.db`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Accepting => "accepting",
            Self::Accepted => "accepted",
            Self::Rejected => "rejected",
            Self::Expired => "expired",
        }
    }

    /// From the name in `journal.db` (anything unknown reads as `pending`).
    #[must_use]
    pub fn parse(s: &str) -> Self {
        match s {
            "accepting" => Self::Accepting,
            "accepted" => Self::Accepted,
            "rejected" => Self::Rejected,
            "expired" => Self::Expired,
            _ => Self::Pending,
        }
    }
}

/// What one change in a proposal does to an entry (or, for files that are not topic files, to
/// the whole file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum EntryOp {
    /// A new entry.
    Add,
    /// An entry taken out.
    Remove,
    /// An entry rewritten.
    Edit,
    /// An entry moved to another place in the file (a dream's sorting).
    Move,
    /// Only the frontmatter (name, description, type) changes.
    Fields,
    /// The whole file (a daily log, or a file deleted whole).
    File,
}
