//! Extraction: after an assistant turn, a headless memory agent (or the planner) reads the
//! slice of the session's transcript not yet processed — after the session's last `extracted`
//! mark, which the caller passes in and writes back — with the existing manifest preloaded and
//! writes memories; weak entries are filtered out afterwards; meta.json and telemetry record
//! what happened.
//!
//! - [`plan`] (pure): which messages a run reads or why it is skipped; which entries a run's
//!   writes keep; the sentences it reports.
//! - [`run`]: the apply step — the model's road, the writes, the filter, the records.
//! - [`queue`] (pure): the schedule.

use std::time::Duration;

use mnemo_core::MemoryType;
use mnemo_llm::Message;
use mnemo_store::journal::Origin;
use serde::Serialize;

use crate::agent::AgentLimits;
use crate::planner::{Dropped, choice::Road};

mod plan;
mod queue;
mod run;

pub use plan::{Plan, Refine, fact_width, filter_body, keep_entry, plan, refine};
pub use queue::{Admission, ExtractQueue};
pub use run::run_extract;

/// Limits of an extraction run.
pub const LIMITS: AgentLimits = AgentLimits {
    max_turns: 5,
    wall_time: Duration::from_secs(120),
    step_tokens: 768,
    total_tokens: 60_000,
};
/// Entries saying less than this ([`fact_width`]) are dropped.
pub const MIN_FACT_WIDTH: usize = 10;

/// One extraction run's inputs.
#[derive(Debug, Clone, Copy)]
pub struct ExtractRequest<'a> {
    /// Workspace id.
    pub workspace: &'a str,
    /// The session whose transcript is read.
    pub session_id: &'a str,
    /// Its messages, oldest first.
    pub messages: &'a [Message],
    /// How many of them were processed already (the session's last `extracted` mark; 0 for a
    /// new session or an imported conversation). A mark beyond the end reads nothing.
    pub from: usize,
    /// The main chat agent already wrote a memory file this turn: the run is skipped.
    pub chat_wrote_memory: bool,
    /// How writes are journaled (source `extract`, in the run's change group).
    pub origin: Origin,
    /// A past conversation brought in by an import: the workspace's last-extraction fields
    /// are left alone and the model is told where the conversation comes from.
    pub imported: bool,
}

impl ExtractResult {
    /// A run that failed before it could cover any message.
    #[must_use]
    pub fn failed(detail: impl Into<String>) -> Self {
        Self::unread(ExtractStatus::Failed, detail.into(), 0)
    }

    /// A run that had nothing to read, or was not to: `why`; the messages up to `upto` count as
    /// seen.
    #[must_use]
    pub fn skipped(why: impl Into<String>, upto: u32) -> Self {
        Self::unread(ExtractStatus::Skipped, why.into(), upto)
    }

    /// A run that ended without reading with a model.
    fn unread(status: ExtractStatus, detail: String, upto: u32) -> Self {
        Self {
            status,
            files_written: Vec::new(),
            touched_types: Vec::new(),
            detail: Some(detail),
            upto,
            road: None,
            dropped: Vec::new(),
        }
    }
}

/// How an extraction run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtractStatus {
    /// It ran to the end.
    Completed,
    /// Nothing to do (nothing new, or the chat model already wrote memory).
    Skipped,
    /// It failed or was stopped.
    Failed,
}

impl ExtractStatus {
    /// The snake_case name (meta.json, telemetry).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Skipped => "skipped",
            Self::Failed => "failed",
        }
    }
}

/// The outcome of an extraction run.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::ExtractResult`.
#[derive(Debug, Clone, Serialize)]
pub struct ExtractResult {
    pub status: ExtractStatus,
    pub files_written: Vec<String>,
    pub touched_types: Vec<MemoryType>,
    pub detail: Option<String>,
    pub upto: u32,
    pub road: Option<Road>,
    pub dropped: Vec<Dropped>,
}
