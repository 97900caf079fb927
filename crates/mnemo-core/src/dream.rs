//! How a dream ended, which path it took and what started it.

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
