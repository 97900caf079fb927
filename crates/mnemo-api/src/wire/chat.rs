//! A chat turn on the wire: what it produced, the command it answered, its compaction, a
//! session, and what extraction did after it (with the planner's choice and what it dropped).

use mnemo_core::MemoryType;
use serde::{Deserialize, Serialize};

use super::RecallResult;

/// A chat command, parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(tag = "name", rename_all = "camelCase")]
pub enum ChatCommand {
    /// `/memory`: what memory this chat uses and what happened to it lately.
    Memory,
    /// `/remember <fact>` (the fact; may be empty: the reply says what to type).
    Remember {
        /// What to remember.
        fact: String,
    },
    /// `/forget <query>` (may be empty; `--yes` first forgets at once).
    Forget {
        /// What to look for.
        query: String,
    },
    /// `/dream`: consolidate the workspace's memories now.
    Dream,
}

impl From<mnemo_engine::chat::ChatCommand> for ChatCommand {
    fn from(v: mnemo_engine::chat::ChatCommand) -> Self {
        use mnemo_engine::chat::ChatCommand as C;
        match v {
            C::Memory => Self::Memory,
            C::Remember { fact } => Self::Remember { fact },
            C::Forget { query } => Self::Forget { query },
            C::Dream => Self::Dream,
        }
    }
}

/// What one turn produced.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct TurnResult {
    /// The session.
    pub session: String,
    /// The assistant's reply.
    pub reply: String,
    /// The command Mnemo answered itself (`/memory` and the like), not the model; such turns
    /// are not part of the transcript. `None`: a message the model answered.
    pub command: Option<ChatCommand>,
    /// What recall injected (absent when memory is ignored for this chat).
    pub recall: Option<RecallResult>,
    /// Memory files the chat model wrote itself this turn (none in review mode: see `proposal`).
    pub wrote: Vec<String>,
    /// In review mode: the proposal the chat model's own writes became (nothing was written).
    pub proposal: Option<i64>,
    /// What extraction did after the turn (`null`: not run inline — it runs in the background,
    /// or memory is ignored for this chat).
    pub extract: Option<ExtractResult>,
    /// The background memory task extracting after this turn, if one was scheduled.
    pub extract_task: Option<String>,
    /// The dream this turn started (`/dream`) or queued (auto-dream), if any.
    pub dream_task: Option<String>,
    /// The memory task a command started (`/remember`, `/forget --yes`), if any.
    pub command_task: Option<String>,
    /// The older part of the conversation was compacted before this turn's request.
    pub compacted: Option<Compaction>,
    /// What Mnemo removed from the message before anything saw or kept it, in a sentence
    /// ("Your message held what looks like a secret (github_token) …"); `null` when nothing.
    pub redacted: Option<String>,
}

mirror!(mnemo_engine::chat::TurnResult => TurnResult {
    session, reply, command: opt, recall: opt, wrote, proposal, extract: opt, extract_task,
    dream_task, command_task, compacted: opt, redacted,
});

/// Who wrote a compaction's summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum CompactionSource {
    /// The chat model.
    Model,
    /// Mnemo, without a model (sentences taken from the messages).
    Extractive,
}

impl From<mnemo_engine::chat::CompactionSource> for CompactionSource {
    fn from(v: mnemo_engine::chat::CompactionSource) -> Self {
        use mnemo_engine::chat::CompactionSource as S;
        match v {
            S::Model => Self::Model,
            S::Extractive => Self::Extractive,
        }
    }
}

/// A compaction of a chat's older messages into a summary.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Compaction {
    /// Messages (from the session's start) the summary stands for; the chat pane draws its
    /// marker after that many.
    pub upto: u32,
    /// The summary the model sees in their place.
    pub summary: String,
    /// Who wrote the summary.
    pub by: CompactionSource,
    /// When (RFC 3339).
    pub at: String,
    /// The daily log it was appended to (relative to the memory root), when that write worked.
    pub log: Option<String>,
}

mirror!(mnemo_engine::chat::Compaction => Compaction { upto, summary, by: into, at, log });

/// A session in the list.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct SessionInfo {
    /// Id (file stem).
    pub id: String,
    /// Title.
    pub title: String,
    /// Messages so far.
    pub messages: u32,
    /// Last change (RFC 3339).
    pub updated_at: String,
    /// Memory ignored for this chat.
    pub ignore_memory: bool,
}

mirror!(mnemo_engine::chat::SessionInfo => SessionInfo {
    id, title, messages, updated_at, ignore_memory,
});

/// How an extraction run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ExtractStatus {
    /// It ran to the end.
    Completed,
    /// Nothing to do (nothing new, or the chat model already wrote memory).
    Skipped,
    /// It failed or was stopped.
    Failed,
}

impl From<mnemo_engine::extract::ExtractStatus> for ExtractStatus {
    fn from(v: mnemo_engine::extract::ExtractStatus) -> Self {
        use mnemo_engine::extract::ExtractStatus as S;
        match v {
            S::Completed => Self::Completed,
            S::Skipped => Self::Skipped,
            S::Failed => Self::Failed,
        }
    }
}

/// The outcome of an extraction run.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ExtractResult {
    /// `completed`, `skipped` or `failed`.
    pub status: ExtractStatus,
    /// Memory files written (relative paths).
    pub files_written: Vec<String>,
    /// Types of the memories written.
    pub touched_types: Vec<MemoryType>,
    /// Why it failed or was skipped.
    pub detail: Option<String>,
    /// How many messages of the session's transcript this run covered (0 when it failed before
    /// reading them): clients attach the result to the reply at that position.
    pub upto: u32,
    /// Which way wrote (`None`: nothing ran).
    pub road: Option<Road>,
    /// Facts the planner proposed but did not write, each with why.
    pub dropped: Vec<Dropped>,
}

mirror!(mnemo_engine::extract::ExtractResult => ExtractResult {
    status: into, files_written, touched_types, detail, upto, road: opt, dropped: each,
});

/// A patch that was dropped, and why, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct Dropped {
    /// The fact as the model gave it (cut to 200 characters).
    pub fact: String,
    /// Why it was not written.
    pub reason: String,
}

mirror!(mnemo_engine::planner::Dropped => Dropped { fact, reason });

/// The two ways of writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum Road {
    /// The tool-calling memory agent.
    Tools,
    /// One side query held to a JSON schema; Mnemo writes the files.
    Planner,
}

impl From<mnemo_engine::planner::choice::Road> for Road {
    fn from(v: mnemo_engine::planner::choice::Road) -> Self {
        use mnemo_engine::planner::choice::Road as S;
        match v {
            S::Tools => Self::Tools,
            S::Planner => Self::Planner,
        }
    }
}

/// The way a model gets, and why, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct Choice {
    /// What runs first.
    pub road: Road,
    /// `auto` still learning: when the agent writes nothing, the planner reads the same
    /// messages.
    pub then_planner: bool,
    /// Why, in a sentence.
    pub why: String,
}

mirror!(mnemo_engine::planner::choice::Choice => Choice { road: into, then_planner, why });

impl ChatCommand {
    /// The command `text` is, if it is one (the engine's parser: the one place commands are read).
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        mnemo_engine::chat::ChatCommand::parse(text).map(Into::into)
    }
}

impl Road {
    /// The wire name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Planner => "planner",
        }
    }
}
