//! The telemetry events the memory loop records — one row each in `index.db`'s `telemetry`
//! table, never sent anywhere: what a recall chose, what an extraction wrote, what a dream did.
//! Each kind is a type, so a field cannot be misspelt or dropped from one writer; the status
//! panel reads them back as rows.

use mnemo_core::{MemoryType, Result};
use mnemo_store::Vault;
use mnemo_store::dream_report::{DreamStatus, DreamStrategy, DreamTrigger};
use serde::Serialize;

use crate::recall::Strategy;

/// One telemetry event.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Event<'a> {
    /// A recall.
    Recall(Recall<'a>),
    /// An extraction.
    Extract(Extract),
    /// A dream.
    Dream(Dream),
}

impl Event<'_> {
    /// The row's kind.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Recall(_) => "recall",
            Self::Extract(_) => "extract",
            Self::Dream(_) => "dream",
        }
    }

    /// Record it for workspace `ws`.
    pub fn record(&self, vault: &Vault, ws: &str) -> Result<()> {
        let data = serde_json::to_value(self).map_err(|e| {
            mnemo_core::Error::new(
                mnemo_core::ErrorCode::Io,
                format!("encoding a telemetry event: {e}"),
            )
        })?;
        vault.record_event(self.kind(), ws, &data)
    }
}

/// What a recall chose.
#[derive(Debug, Clone, Serialize)]
pub struct Recall<'a> {
    /// The query's length in characters (never its text).
    pub query_len: usize,
    /// Documents looked at.
    pub docs_scanned: u32,
    /// Memories chosen.
    pub docs_selected: usize,
    /// How they were chosen.
    pub strategy: Strategy,
    /// How long it took.
    pub duration_ms: u32,
    /// The chosen memories' paths.
    pub paths: Vec<&'a str>,
    /// Memories carried from earlier turns.
    pub carried: usize,
    /// Tokens the memory block put in the prompt.
    pub tokens_injected: u32,
    /// The id each memory's usage row carries.
    pub recall_id: &'a str,
    /// The chat session, if any.
    pub session: Option<&'a str>,
    /// Each memory in the prompt: path, tokens, carried or chosen now.
    pub memories: Vec<Injected<'a>>,
}

/// One memory a recall put in the prompt.
#[derive(Debug, Clone, Serialize)]
pub struct Injected<'a> {
    /// Its path.
    pub path: &'a str,
    /// Its tokens.
    pub tokens: u32,
    /// Carried from an earlier turn.
    pub carried: bool,
}

/// What an extraction wrote.
#[derive(Debug, Clone, Serialize)]
pub struct Extract {
    /// `auto` (after chat turns) or `import` (a conversation import).
    pub trigger: &'static str,
    /// How it ended.
    pub status: &'static str,
    /// Memory files written.
    pub entries_written: usize,
    /// The road it took (`agent`, `planner`).
    pub road: &'static str,
    /// Facts the checks dropped.
    pub dropped: usize,
    /// The types it touched.
    pub touched_types: Vec<MemoryType>,
    /// How long it took.
    pub duration_ms: u64,
}

/// What a dream did.
#[derive(Debug, Clone, Serialize)]
pub struct Dream {
    /// Manual or automatic.
    pub trigger: DreamTrigger,
    /// How it ended.
    pub status: DreamStatus,
    /// The agent, the planner or the mechanical pass.
    pub strategy: DreamStrategy,
    /// Entries merged into others.
    pub entries_merged: u32,
    /// The types it touched.
    pub touched_types: Vec<MemoryType>,
    /// Files it changed.
    pub files_touched: usize,
    /// Files it deleted.
    pub files_deleted: usize,
    /// How long it took.
    pub duration_ms: u64,
}
