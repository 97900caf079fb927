//! Mnemo's shared vocabulary: the closed set of memory types, workspace kinds, change sources,
//! memory task kinds and statuses, stable error codes and the `memory_changed` event. Every other
//! crate speaks in these types.
//!
//! This crate performs no IO; it is safe to use from any layer (store, engine, API, transports).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

mod dream;
mod journal;
mod memory;
mod task;
pub use dream::{DreamStatus, DreamStrategy, DreamTrigger};
pub use journal::{ChangeOp, DocKind, EntryOp, ProposalStatus};
pub use memory::{NewMemory, Patch};
pub use task::{TaskKind, TaskReason, TaskStatus};

/// The closed set of memory types.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, specta::Type,
)]
#[serde(rename_all = "lowercase")]
pub enum MemoryType {
    /// Who the user is: role, skills, habits.
    User,
    /// How the assistant should behave: corrections and confirmed approaches.
    Feedback,
    /// Goals, decisions, deadlines not derivable from code or history.
    Project,
    /// Pointers to external systems.
    Reference,
}

impl MemoryType {
    /// All types, in display order.
    pub const ALL: [MemoryType; 4] = [Self::User, Self::Feedback, Self::Project, Self::Reference];

    /// The lowercase name used in frontmatter and on every wire.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Feedback => "feedback",
            Self::Project => "project",
            Self::Reference => "reference",
        }
    }
}

impl fmt::Display for MemoryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MemoryType {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|t| t.as_str() == s.trim())
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidType,
                    format!(
                        "unknown memory type `{s}`: use one of user, feedback, project, reference"
                    ),
                )
                .on(Some(Field::Type))
            })
    }
}

/// Where a workspace comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum WorkspaceKind {
    /// Created and owned by Mnemo under `$MNEMO_HOME/workspaces/`.
    Mnemo,
    /// A Claude Code auto-memory folder.
    Claude,
    /// A Qwen Code auto-memory folder.
    Qwen,
    /// A folder the user added.
    Folder,
}

impl WorkspaceKind {
    /// The lowercase name used on every wire.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Mnemo => "mnemo",
            Self::Claude => "claude",
            Self::Qwen => "qwen",
            Self::Folder => "folder",
        }
    }
}

/// Who made a change (recorded in the journal, carried by events).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum ChangeSource {
    /// A person, through the app or the HTTP API.
    User,
    /// A person at the command line (`mnemo`).
    Cli,
    /// An outside program, seen by the watcher or a rescan.
    Watcher,
    /// Background extraction after a chat turn.
    Extract,
    /// Consolidation.
    Dream,
    /// The forget flow.
    Forget,
    /// The sessionless remember lane.
    Remember,
    /// The chat model, using its memory tools during a conversation.
    Chat,
    /// An assistant connected over the Model Context Protocol (`mnemo mcp`).
    Mcp,
    /// A sync with the home's git remote: what other machines (or teammates) changed, merged in.
    Sync,
}

impl ChangeSource {
    /// Whether this is an automatic writer — a model or a job acting on its own, whose writes to
    /// memories review mode turns into proposals. People (the app, the CLI, a
    /// forget they chose), other programs and syncs are not.
    #[must_use]
    pub fn is_automatic(self) -> bool {
        match self {
            Self::Extract | Self::Dream | Self::Remember | Self::Chat | Self::Mcp => true,
            Self::User | Self::Cli | Self::Watcher | Self::Forget | Self::Sync => false,
        }
    }

    /// The lowercase name used on every wire.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Cli => "cli",
            Self::Watcher => "watcher",
            Self::Extract => "extract",
            Self::Dream => "dream",
            Self::Forget => "forget",
            Self::Remember => "remember",
            Self::Chat => "chat",
            Self::Mcp => "mcp",
            Self::Sync => "sync",
        }
    }
}

impl FromStr for ChangeSource {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        [
            Self::User,
            Self::Cli,
            Self::Watcher,
            Self::Extract,
            Self::Dream,
            Self::Forget,
            Self::Remember,
            Self::Chat,
            Self::Mcp,
            Self::Sync,
        ]
        .into_iter()
        .find(|c| c.as_str() == s)
        .ok_or_else(|| Error::new(ErrorCode::Corrupt, format!("unknown change source `{s}`")))
    }
}

/// Emitted whenever memory files change, whoever changed them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct MemoryChanged {
    /// The workspace id.
    pub workspace: String,
    /// Paths relative to the memory root, sorted.
    pub paths: Vec<String>,
    /// Who made the change.
    pub source: ChangeSource,
}

/// Stable error codes. Clients match on these, never on messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The workspace, file or change does not exist.
    NotFound,
    /// Frontmatter is missing or malformed.
    InvalidFrontmatter,
    /// `type` is not one of the four memory types.
    InvalidType,
    /// A path leaves the memory root (`..`, absolute, or a symlink out).
    PathEscape,
    /// The file changed since it was read, or already exists.
    Conflict,
    /// A filesystem or database operation failed.
    Io,
    /// The command line or request was malformed.
    Usage,
    /// Content is not acceptable (binary, not UTF-8, empty where text is required).
    InvalidContent,
    /// A file or request is larger than Mnemo accepts.
    TooLarge,
    /// Another process holds the lock.
    Locked,
    /// Stored state could not be read and was not recoverable.
    Corrupt,
    /// The API has no command of that name.
    UnknownCommand,
    /// A command's arguments do not fit its signature.
    InvalidArguments,
    /// A request without the right bearer token (HTTP).
    Unauthorized,
    /// The feature needs a model and none is configured, or the one configured refuses it (its
    /// key, its model name).
    ModelNotConfigured,
    /// A model is configured but its server cannot be reached (not running, wrong address,
    /// timed out): retry, or check the address.
    ModelUnreachable,
    /// Only the desktop app can do this (e.g. open a folder in the file manager).
    DesktopOnly,
    /// Remember: `contextMode` is neither `workspace` nor `clean`.
    InvalidContextMode,
    /// Remember over HTTP: the `X-Mnemo-Client-Id` header is malformed.
    InvalidClientId,
    /// Remember needs a model and none is configured.
    ManagedMemoryUnavailable,
    /// Remember: 16 tasks are already pending in this workspace's lane.
    RememberQueueFull,
    /// Remember: the agent named a path outside the memory folder (nothing was written there).
    RememberPathEscape,
    /// Remember: the agent failed or timed out.
    RememberFailed,
    /// Remember: the agent finished without the fact in any memory file (it wrote nothing, or
    /// what it wrote does not hold the fact — taken back). Nothing was saved: try again.
    RememberNothingWritten,
    /// Remember: no such task (or it belongs to another client).
    RememberTaskNotFound,
    /// No usable local embedding model (not installed, turned off, or its files are damaged).
    EmbeddingUnavailable,
    /// A path or name holds a control character or a bidirectional override (they would inject
    /// lines into MEMORY.md or paint a terminal).
    InvalidPath,
    /// Sync: the remote cannot be reached now (offline, timed out): local changes wait; retry.
    RemoteUnreachable,
    /// Sync: the remote refused or is not a Mnemo memory repository (wrong URL, authentication
    /// refused, another history): fix the remote setting.
    RemoteRefused,
    /// An import of conversations stopped at its token budget (what it learnt is kept): run it
    /// again with a bigger budget to go on.
    BudgetSpent,
    /// A person stopped the work before it finished; nothing of it was kept.
    Cancelled,
    /// An export of several workspaces cannot all go into the one named: import it into each
    /// workspace of the same id, or name one of its own.
    SeveralWorkspaces,
}

impl ErrorCode {
    /// The snake_case name that crosses every boundary.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotFound => "not_found",
            Self::InvalidFrontmatter => "invalid_frontmatter",
            Self::InvalidType => "invalid_type",
            Self::PathEscape => "path_escape",
            Self::Conflict => "conflict",
            Self::Io => "io",
            Self::Usage => "usage",
            Self::InvalidContent => "invalid_content",
            Self::TooLarge => "too_large",
            Self::Locked => "locked",
            Self::Corrupt => "corrupt",
            Self::UnknownCommand => "unknown_command",
            Self::InvalidArguments => "invalid_arguments",
            Self::Unauthorized => "unauthorized",
            Self::ModelNotConfigured => "model_not_configured",
            Self::ModelUnreachable => "model_unreachable",
            Self::DesktopOnly => "desktop_only",
            Self::InvalidContextMode => "invalid_context_mode",
            Self::InvalidClientId => "invalid_client_id",
            Self::ManagedMemoryUnavailable => "managed_memory_unavailable",
            Self::RememberQueueFull => "remember_queue_full",
            Self::RememberPathEscape => "remember_path_escape",
            Self::RememberFailed => "remember_failed",
            Self::RememberNothingWritten => "remember_nothing_written",
            Self::RememberTaskNotFound => "remember_task_not_found",
            Self::EmbeddingUnavailable => "embedding_unavailable",
            Self::InvalidPath => "invalid_path",
            Self::RemoteUnreachable => "remote_unreachable",
            Self::RemoteRefused => "remote_refused",
            Self::BudgetSpent => "budget_spent",
            Self::Cancelled => "cancelled",
            Self::SeveralWorkspaces => "several_workspaces",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The one error type that crosses crate boundaries: a stable code plus a message that says what
/// went wrong and what to do next. Serialises as `{"code": "...", "message": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, thiserror::Error)]
#[serde(rename = "ApiError")]
#[error("{message}")]
pub struct Error {
    /// Stable, machine-readable code.
    pub code: ErrorCode,
    /// Human-readable explanation.
    pub message: String,
    /// The field of a memory the error is about, when it is about one: a form shows it there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<Field>,
}

/// A field of a memory, as an error names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum Field {
    /// The file's path under the memory root.
    Path,
    /// `name:` in the frontmatter.
    Name,
    /// `description:` in the frontmatter.
    Description,
    /// `type:` in the frontmatter.
    Type,
}

impl Field {
    /// The field a frontmatter key is.
    #[must_use]
    pub fn of_key(key: &str) -> Option<Self> {
        match key {
            "name" => Some(Self::Name),
            "description" => Some(Self::Description),
            "type" => Some(Self::Type),
            _ => None,
        }
    }
}

impl Error {
    /// Build an error from a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            field: None,
        }
    }

    /// The same error, about `field`.
    #[must_use]
    pub fn on(mut self, field: Option<Field>) -> Self {
        self.field = field;
        self
    }

    /// `not_found` with a message.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    /// `usage` with a message.
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Usage, message)
    }

    /// `io` with context naming what was being done.
    pub fn io(context: impl fmt::Display, err: &std::io::Error) -> Self {
        let hint = match err.kind() {
            std::io::ErrorKind::PermissionDenied => {
                " — the folder or file is not writable by this user; fix its permissions"
            }
            std::io::ErrorKind::StorageFull => " — the disk is full; free some space",
            _ => "",
        };
        Self::new(ErrorCode::Io, format!("{context}: {err}{hint}"))
    }
}

/// Result with Mnemo's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_serialises_as_code_and_message() {
        let e = Error::new(ErrorCode::PathEscape, "nope");
        assert_eq!(
            serde_json::to_string(&e).unwrap(),
            r#"{"code":"path_escape","message":"nope"}"#
        );
    }

    #[test]
    fn error_codes_serialise_to_their_stable_names() {
        for code in [
            ErrorCode::NotFound,
            ErrorCode::InvalidFrontmatter,
            ErrorCode::InvalidType,
            ErrorCode::PathEscape,
            ErrorCode::Conflict,
            ErrorCode::Io,
            ErrorCode::Usage,
            ErrorCode::InvalidContent,
            ErrorCode::TooLarge,
            ErrorCode::Locked,
            ErrorCode::Corrupt,
            ErrorCode::UnknownCommand,
            ErrorCode::InvalidArguments,
            ErrorCode::Unauthorized,
            ErrorCode::ModelNotConfigured,
            ErrorCode::ModelUnreachable,
            ErrorCode::DesktopOnly,
            ErrorCode::InvalidContextMode,
            ErrorCode::InvalidClientId,
            ErrorCode::ManagedMemoryUnavailable,
            ErrorCode::RememberQueueFull,
            ErrorCode::RememberPathEscape,
            ErrorCode::RememberFailed,
            ErrorCode::RememberNothingWritten,
            ErrorCode::RememberTaskNotFound,
            ErrorCode::EmbeddingUnavailable,
            ErrorCode::InvalidPath,
            ErrorCode::RemoteUnreachable,
            ErrorCode::RemoteRefused,
            ErrorCode::BudgetSpent,
            ErrorCode::Cancelled,
            ErrorCode::SeveralWorkspaces,
        ] {
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                serde_json::Value::String(code.as_str().to_owned())
            );
        }
    }

    #[test]
    fn memory_type_parses_the_closed_set_only() {
        for t in MemoryType::ALL {
            assert_eq!(t.as_str().parse::<MemoryType>().unwrap(), t);
        }
        let err = "note".parse::<MemoryType>().unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidType);
        assert!(err.message.contains("note"));
    }

    #[test]
    fn change_source_round_trips() {
        for s in [
            "user", "cli", "watcher", "extract", "dream", "forget", "remember", "chat", "mcp",
            "sync",
        ] {
            assert_eq!(s.parse::<ChangeSource>().unwrap().as_str(), s);
        }
    }

    #[test]
    fn task_kinds_and_statuses_round_trip() {
        for s in ["extract", "dream", "remember", "forget"] {
            let k: TaskKind = s.parse().unwrap();
            assert_eq!(serde_json::to_value(k).unwrap(), s);
        }
        for s in ["queued", "running", "completed", "failed", "skipped"] {
            let st: TaskStatus = s.parse().unwrap();
            assert_eq!(serde_json::to_value(st).unwrap(), s);
            assert_eq!(st.is_finished(), !matches!(s, "queued" | "running"));
        }
        assert_eq!(
            "nap".parse::<TaskKind>().unwrap_err().code,
            ErrorCode::Usage
        );
        assert_eq!(
            "done".parse::<TaskStatus>().unwrap_err().code,
            ErrorCode::Usage
        );
    }
}
