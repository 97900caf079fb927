//! What a background task does, where it is in its life, and why it was skipped or failed.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{Error, ErrorCode};

/// What a background memory task does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// Extraction after a chat turn.
    Extract,
    /// Consolidation.
    Dream,
    /// The sessionless remember lane.
    Remember,
    /// Forgetting on request.
    Forget,
    /// Computing embedding vectors for hybrid recall.
    Embed,
    /// Importing memories or past conversations.
    Import,
    /// Installing the model that comes with Mnemo (not a memory job: it shares the task list
    /// so its progress shows and it can be stopped).
    ModelInstall,
}

impl TaskKind {
    /// The snake_case name used on every wire.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Extract => "extract",
            Self::Dream => "dream",
            Self::Remember => "remember",
            Self::Forget => "forget",
            Self::Embed => "embed",
            Self::Import => "import",
            Self::ModelInstall => "model_install",
        }
    }
}

impl FromStr for TaskKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        [
            Self::Extract,
            Self::Dream,
            Self::Remember,
            Self::Forget,
            Self::Embed,
            Self::Import,
            Self::ModelInstall,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
        .ok_or_else(|| {
            Error::usage(format!(
                "`{s}` is not a task kind: use extract, dream, remember, forget, embed, import or model_install"
            ))
        })
    }
}

/// Where a memory task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Waiting for its turn.
    Queued,
    /// Under way.
    Running,
    /// Done.
    Completed,
    /// Ended with an error (`interrupted` when its process died).
    Failed,
    /// Not run, with a reason (replaced by a newer request, nothing to do, cancelled, …).
    Skipped,
}

impl TaskStatus {
    /// The snake_case name used on every wire.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Skipped => "skipped",
        }
    }

    /// Whether the task is over.
    #[must_use]
    pub fn is_finished(self) -> bool {
        !matches!(self, Self::Queued | Self::Running)
    }
}

impl FromStr for TaskStatus {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        [
            Self::Queued,
            Self::Running,
            Self::Completed,
            Self::Failed,
            Self::Skipped,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
        .ok_or_else(|| {
            Error::usage(format!(
                "`{s}` is not a task status: use queued, running, completed, failed or skipped"
            ))
        })
    }
}

/// Why a task was skipped or failed, in a word. Clients match on these (the UI has a sentence
/// for each); what happened in detail is the task's `error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum TaskReason {
    /// Automatic runs are switched off for the workspace.
    Disabled,
    /// Auto-dream: this chat dreamed last.
    SameSession,
    /// Auto-dream: too soon after the last dream.
    MinHours,
    /// Auto-dream: transcripts were scanned a moment ago.
    ScanThrottled,
    /// Auto-dream: not enough sessions since the last dream.
    MinSessions,
    /// Another process held the workspace's consolidation lock.
    Locked,
    /// A dream was already running.
    Running,
    /// Nothing new to read.
    NothingToDo,
    /// A newer request for the same chat took its place.
    Replaced,
    /// Someone stopped it.
    Cancelled,
    /// Its process ended before it finished.
    Interrupted,
    /// It crashed (a panic in its run).
    Panicked,
    /// It could not start (no async runtime to run on).
    NoRuntime,
    /// It spent its token budget.
    Budget,
    /// The file changed under it (a forget that met an outside edit).
    Conflict,
    /// The model could not save a remember request.
    RememberFailed,
    /// A remember's model tried to write outside the memory folder.
    RememberPathEscape,
    /// A remember's model answered without writing anything.
    RememberNothingWritten,
    /// Any other error (the task's `error` says which).
    Error,
    /// A reason this version does not know (a row written by another version).
    #[serde(other)]
    Other,
}

impl TaskReason {
    /// The reason a task that failed with `code` records.
    #[must_use]
    pub fn from_error(code: ErrorCode) -> Self {
        match code {
            ErrorCode::Conflict => Self::Conflict,
            ErrorCode::Locked => Self::Locked,
            ErrorCode::Cancelled => Self::Cancelled,
            ErrorCode::BudgetSpent => Self::Budget,
            ErrorCode::RememberFailed => Self::RememberFailed,
            ErrorCode::RememberPathEscape => Self::RememberPathEscape,
            ErrorCode::RememberNothingWritten => Self::RememberNothingWritten,
            _ => Self::Error,
        }
    }

    /// The snake_case name used on every wire.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Disabled => "disabled",
            Self::SameSession => "same_session",
            Self::MinHours => "min_hours",
            Self::ScanThrottled => "scan_throttled",
            Self::MinSessions => "min_sessions",
            Self::Locked => "locked",
            Self::Running => "running",
            Self::NothingToDo => "nothing_to_do",
            Self::Replaced => "replaced",
            Self::Cancelled => "cancelled",
            Self::Interrupted => "interrupted",
            Self::Panicked => "panicked",
            Self::NoRuntime => "no_runtime",
            Self::Budget => "budget",
            Self::Conflict => "conflict",
            Self::RememberFailed => "remember_failed",
            Self::RememberPathEscape => "remember_path_escape",
            Self::RememberNothingWritten => "remember_nothing_written",
            Self::Error => "error",
            Self::Other => "other",
        }
    }
}

impl fmt::Display for TaskReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_serialise_as_their_names_and_unknown_ones_read_as_other() {
        for r in [
            TaskReason::Disabled,
            TaskReason::MinSessions,
            TaskReason::NothingToDo,
            TaskReason::RememberPathEscape,
            TaskReason::Other,
        ] {
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{}\"", r.as_str()));
            assert_eq!(serde_json::from_str::<TaskReason>(&json).unwrap(), r);
        }
        let old: TaskReason = serde_json::from_str("\"the model file is missing\"").unwrap();
        assert_eq!(old, TaskReason::Other);
    }

    #[test]
    fn an_error_code_maps_to_its_reason_or_to_error() {
        assert_eq!(
            TaskReason::from_error(ErrorCode::Conflict),
            TaskReason::Conflict
        );
        assert_eq!(
            TaskReason::from_error(ErrorCode::BudgetSpent),
            TaskReason::Budget
        );
        assert_eq!(
            TaskReason::from_error(ErrorCode::NotFound),
            TaskReason::Error
        );
    }
}
