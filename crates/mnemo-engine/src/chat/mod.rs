//! Chat: sessions as `sessions/<id>.jsonl` in the workspace's state dir (one JSON
//! record per line: messages plus bookkeeping such as what recall surfaced), and one chat turn:
//! recall before (unless memory is ignored for this chat), a streamed reply from the main model
//! that may itself use the memory tools, then extraction after.

mod command;
pub mod compact;
pub mod markup;
mod respect;
mod sessions;
mod turn;

use std::time::Duration;

use mnemo_core::{Error, ErrorCode, Result};
use mnemo_llm::{Delta, LlmError};
use mnemo_store::{Vault, Workspace};
use serde::Serialize;

use crate::extract::ExtractResult;
use crate::recall::RecallResult;

pub use command::{CHAT_COMMANDS, ChatCommand, CommandHelp};
pub use sessions::{Record, SessionInfo, SessionSync, Sessions};
pub use turn::{ExtractContext, FollowUp, Turn, chat_turn, extract_after_turn};

/// Tool rounds the chat model may take in one turn (the round after them answers in words).
const MAX_TOOL_ROUNDS: u32 = 5;
/// A new chat's title until its first message names it.
pub const NEW_CHAT_TITLE: &str = "New chat";
/// How long model recall may take before falling back to lexical.
const RECALL_TIMEOUT: Duration = Duration::from_secs(10);
/// The same for the model that comes with Mnemo: on two cores beside the embedding model and a
/// build, its pick of memories took longer than 10 s, and the fallback could not link a snack
/// question to a peanut allergy.
const LOCAL_RECALL_TIMEOUT: Duration = Duration::from_secs(40);

/// How long model recall may take with this client.
#[must_use]
pub fn recall_timeout(client: &mnemo_llm::Client) -> Duration {
    if client.settings().local == Some(true) {
        LOCAL_RECALL_TIMEOUT
    } else {
        RECALL_TIMEOUT
    }
}

/// What one turn produced.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::TurnResult`.
#[derive(Debug, Clone, Serialize)]
pub struct TurnResult {
    pub session: String,
    pub reply: String,
    pub command: Option<ChatCommand>,
    pub recall: Option<RecallResult>,
    pub wrote: Vec<String>,
    pub proposal: Option<i64>,
    pub extract: Option<ExtractResult>,
    pub extract_task: Option<String>,
    pub dream_task: Option<String>,
    pub command_task: Option<String>,
    pub compacted: Option<Compaction>,
    pub redacted: Option<String>,
}

/// Who wrote a compaction's summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CompactionSource {
    /// The chat model.
    Model,
    /// Mnemo, without a model (sentences taken from the messages).
    Extractive,
}

impl CompactionSource {
    /// The wire name (`model`, `extractive`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Model => "model",
            Self::Extractive => "extractive",
        }
    }
}

/// A compaction of a chat's older messages into a summary.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Compaction`.
#[derive(Debug, Clone, Serialize)]
pub struct Compaction {
    pub upto: u32,
    pub summary: String,
    pub by: CompactionSource,
    pub at: String,
    pub log: Option<String>,
}

/// What happens during a turn, for live display.
#[derive(Debug)]
pub enum TurnEvent<'a> {
    /// Recall chose these memories (before the model is called).
    Recalled(&'a RecallResult),
    /// A piece of the streamed answer.
    Delta(&'a Delta),
    /// The chat model ran one of its memory tools.
    Tool(&'a str),
}

const PLAIN_PROMPT: &str = "You are a helpful assistant.";

const BASE_PROMPT: &str = "You are a helpful assistant with a persistent memory of this user. \
    You may read and update that memory with your tools when the user asks you to remember or forget something.";

/// The memory prompt for a model offered no tools (it has not proven it can call them): what it
/// remembers reaches it in the compact block at the start of the person's message, and Mnemo
/// saves what it learns after the turn.
const NO_TOOLS_PROMPT: &str = "You are a helpful assistant who remembers this user. \
    The memories below are what they told you before, in their own words (\"I\" is the user). \
    Let every memory that bears on the question shape your answer, and say briefly when one does. \
    Answer in plain prose.";

/// The error chat gives when no model is configured or reachable: what to configure.
#[must_use]
pub fn model_error(e: &LlmError) -> Error {
    if *e == LlmError::Cancelled {
        return Error::new(
            ErrorCode::Io,
            "the reply was stopped before it finished; nothing was saved",
        );
    }
    match e {
        LlmError::NotConfigured | LlmError::Unauthorized(_) | LlmError::ModelNotFound(_) => {
            Error::new(
                ErrorCode::ModelNotConfigured,
                format!("chat needs a model: {e}"),
            )
        }
        // Configured, but not there: a different problem with a different next step (retry,
        // start the server, check the address), never "no model".
        LlmError::Unreachable(..) | LlmError::Timeout(_) => Error::new(
            ErrorCode::ModelUnreachable,
            format!("can't reach the model: {e}"),
        ),
        _ => Error::new(ErrorCode::Io, format!("the model failed: {e}")),
    }
}

/// A stored RFC 3339 time as the person's local time ("2026-11-25 14:05"), "never" for none;
/// a time that does not parse is shown as stored.
#[must_use]
pub fn local_time(at: Option<&str>) -> String {
    time_in(at, &chrono::Local)
}

fn time_in<Tz: chrono::TimeZone>(at: Option<&str>, tz: &Tz) -> String
where
    Tz::Offset: std::fmt::Display,
{
    match at {
        None => "never".to_owned(),
        Some(s) => chrono::DateTime::parse_from_rfc3339(s).map_or_else(
            |_| s.to_owned(),
            |t| t.with_timezone(tz).format("%Y-%m-%d %H:%M").to_string(),
        ),
    }
}

/// `/memory`: what memory this chat uses and what happened to it lately. Needs no model, but
/// says when extraction waits for one (`model_set`: a model is configured). `switches`: the
/// workspace's, as the caller read them.
pub fn memory_status(
    vault: &Vault,
    workspace: &str,
    session_id: Option<&str>,
    model_set: bool,
    switches: mnemo_store::settings::Switches,
) -> Result<String> {
    let ws = vault.workspace(workspace)?;
    let ignored = match session_id {
        Some(id) => Sessions::of(&ws).info(id)?.ignore_memory,
        None => false,
    };
    status_text(vault, &ws, ignored, model_set, switches)
}

/// Auto-extraction in words, the same in `/memory`, `mnemo stats` and the status panel:
/// switched on without a model is not "on" — nothing is extracted until one is set.
#[must_use]
pub fn extraction_state(auto_extract: bool, model_set: bool, chat_records: bool) -> String {
    match (auto_extract, model_set) {
        (false, _) => "off".to_owned(),
        (true, true) => "on, after each chat turn".to_owned(),
        (true, false) => format!(
            "on, but it needs a model and none is set: nothing is extracted until one is (Settings \
             in the app, or MNEMO_LLM_BASE_URL and MNEMO_LLM_MODEL){}",
            if chat_records {
                "; conversation records are still kept"
            } else {
                ""
            }
        ),
    }
}

pub(crate) fn status_text(
    vault: &Vault,
    ws: &Workspace,
    ignored: bool,
    model_set: bool,
    switches: mnemo_store::settings::Switches,
) -> Result<String> {
    let st = crate::stats::compute(vault, ws, switches)?;
    let mut out = format!(
        "Auto-memory: {} — workspace `{}` ({})\n",
        if ignored {
            "off for this chat (memory ignored: no recall, no extraction)"
        } else if st.auto_extract && !model_set {
            "waiting for a model (recall runs; extraction needs a model)"
        } else if st.auto_extract {
            "on"
        } else {
            "off for this workspace (recall still runs; switch extraction on in the status panel)"
        },
        ws.id,
        ws.memory_root.display()
    );
    let docs = vault.list_indexed(Some(&ws.id), None)?;
    let mut by_type: Vec<(&str, usize)> = Vec::new();
    for d in &docs {
        let t = d
            .memory_type
            .map_or("invalid", mnemo_core::MemoryType::as_str);
        match by_type.iter_mut().find(|(k, _)| *k == t) {
            Some((_, n)) => *n += 1,
            None => by_type.push((t, 1)),
        }
    }
    let parts: Vec<String> = by_type.iter().map(|(t, n)| format!("{n} {t}")).collect();
    out.push_str(&format!(
        "{} memories{}\n",
        docs.len(),
        if parts.is_empty() {
            String::new()
        } else {
            format!(": {}", parts.join(", "))
        }
    ));
    out.push_str(&format!(
        "Auto-extraction: {}\nAuto-dream: {}\nLast extraction: {} ({})\nLast dream: {}{}\n",
        extraction_state(st.auto_extract, model_set, st.chat_records),
        if st.auto_dream {
            "on (after chat turns, at most once a day, after 5 sessions)"
        } else {
            "off (run /dream, or switch it on for this workspace)"
        },
        local_time(st.last_extract_at.as_deref()),
        st.last_extract_status.as_deref().unwrap_or("—"),
        local_time(st.last_dream_at.as_deref()),
        st.last_dream_status
            .as_deref()
            .map(|s| match st.last_dream_undone_by {
                Some(by) => format!(" ({s}; undone since, by change group {by})"),
                None => format!(" ({s})"),
            })
            .unwrap_or_default(),
    ));
    out.push_str(&format!(
        "MEMORY.md: {} of {} lines, {} of {} bytes\nHealth: {} invalid, {} stale (90 days, never recalled), {} likely duplicate entries",
        st.memory_md_lines,
        st.memory_md_max_lines,
        st.memory_md_bytes,
        st.memory_md_max_bytes,
        st.invalid.len(),
        st.stale.len(),
        st.duplicates,
    ));
    let of = |k: &str| st.telemetry.iter().filter(|e| e.kind == k).count();
    let failed = |k: &str| {
        st.telemetry
            .iter()
            .filter(|e| e.kind == k && e.data.contains("\"status\":\"failed\""))
            .count()
    };
    out.push_str(&format!(
        "\nRecent activity: {} recalls, {} extractions ({} failed), {} dreams ({} failed)",
        of("recall"),
        of("extract"),
        failed("extract"),
        of("dream"),
        failed("dream"),
    ));
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn memory_status_times_read_in_the_persons_time_zone() {
        let india = chrono::FixedOffset::east_opt(5 * 3600 + 1800).unwrap();
        assert_eq!(
            super::time_in(Some("2026-11-25T03:04:05Z"), &india),
            "2026-11-25 08:34"
        );
        assert_eq!(super::time_in(None, &india), "never");
        assert_eq!(super::time_in(Some("soon"), &india), "soon");
    }
}
