//! One chat turn, and the extraction that follows it.

use std::time::Duration;

use chrono::{SecondsFormat, Utc};
use mnemo_core::{ChangeSource, Error, ErrorCode, Result};
use mnemo_llm::{CancellationToken, Client, Delta, LlmError, Message, Role};
use mnemo_store::journal::Origin;
use mnemo_store::settings::Switches;
use mnemo_store::{Vault, Workspace};

use super::compact::{self, Fit};
use super::markup::{MarkupFilter, strip_tool_markup};
use super::sessions::{compacted_of, messages_of, recent_tools_of, surfaced_of};
use super::{
    BASE_PROMPT, ChatCommand, Compaction, CompactionSource, MAX_TOOL_ROUNDS, NEW_CHAT_TITLE,
    NO_TOOLS_PROMPT, PLAIN_PROMPT, Record, Sessions, TurnEvent, TurnResult, model_error,
    recall_timeout, status_text,
};
use crate::agent::{AgentEvent, AgentLimits, AgentMachine, AgentOutcome};
use crate::extract::{ExtractRequest, ExtractResult, ExtractStatus, run_extract};
use crate::recall::{RecallRequest, RecallResult, recall, recall_with_model};
use crate::secrets::StreamRedactor;
use crate::tools::MemoryTools;

/// Longest a chat reply may take, tool rounds included.
const TURN_WALL_TIME: Duration = Duration::from_secs(600);

/// The sampling temperature of replies by a model without tools (see [`Turn::run`]).
const REPLY_TEMPERATURE_WITHOUT_TOOLS: f32 = 0.2;

/// What should follow a saved turn; the caller (the API) only schedules it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FollowUp {
    /// Nothing: a command, or memory is ignored for this chat (its messages are already marked
    /// processed, so turning the toggle off later never sends them to extraction).
    Nothing,
    /// Extraction for this session; `chat_wrote`: the chat model wrote memory itself this turn
    /// (extraction then only marks the messages processed).
    Extract {
        /// The chat model wrote memory this turn.
        chat_wrote: bool,
    },
    /// Extraction is switched off for the workspace (the messages are marked processed).
    ExtractOff,
    /// A command the API runs and words the reply of (`/remember`, `/forget`, `/dream`).
    Command(ChatCommand),
}

/// One chat turn, owned here from start to end: the session read once, recall, the
/// streamed reply with the memory tools (on the same agent machine as the memory agent), the
/// turn saved to the session, and what extraction should see next.
pub struct Turn {
    ws: Workspace,
    sessions: Sessions,
    session: String,
    text: String,
    records: Vec<Record>,
    query_vector: Option<crate::recall::QueryVector>,
    redacted: Option<String>,
    conflicted: Vec<String>,
    /// How the chat model's own writes land: as `Chat`, or within a change group — a staged
    /// one in review mode (`staged`: its writes become a proposal, nothing is written).
    writes: Origin,
    staged: bool,
    switches: Switches,
}

impl Turn {
    /// Prepare a turn: the session is read here, once. `switches`: the workspace's, as the
    /// caller read them from the settings.
    pub fn open(
        vault: &Vault,
        workspace: &str,
        session: &str,
        text: &str,
        switches: Switches,
    ) -> Result<Self> {
        let ws = vault.workspace(workspace)?;
        // A secret typed into the chat never reaches the model, the session file, the daily log
        // or any event: it is replaced by `[redacted: rule]` here, at intake.
        let (text, hits) = crate::secrets::redact(text);
        let redacted = (!hits.is_empty()).then(|| {
            let mut rules: Vec<&str> = hits.iter().map(|h| h.rule).collect();
            rules.dedup();
            tracing::warn!(
                session,
                "a secret in a chat message was redacted ({})",
                rules.join(", ")
            );
            format!(
                "Your message held what looks like a secret ({}). Mnemo replaced it with [redacted] before the model saw it or anything was saved.",
                rules.join(", ")
            )
        });
        let text = text.as_str();
        let sessions = Sessions::of(&ws);
        let records = sessions.records(session)?;
        Ok(Self {
            ws,
            sessions,
            session: session.to_owned(),
            text: text.to_owned(),
            records,
            query_vector: None,
            conflicted: Vec::new(),
            redacted,
            writes: ChangeSource::Chat.into(),
            staged: false,
            switches,
        })
    }

    /// Where the chat model's own writes go: the API opens the job's group through its one
    /// review gate (`staged`: review mode is on, they become a proposal).
    #[must_use]
    pub fn with_writes(mut self, origin: Origin, staged: bool) -> Self {
        self.writes = origin;
        self.staged = staged;
        self
    }

    /// The memory files holding an open sync conflict: recall says their versions disagree.
    #[must_use]
    pub fn with_conflicts(mut self, paths: Vec<String>) -> Self {
        self.conflicted = paths;
        self
    }

    /// What recall searches by for this message ([`super::sessions::recall_query`]): the
    /// message, with the previous one before it when it is a follow-up. Its embedding is what
    /// [`Turn::with_query_vector`] wants.
    #[must_use]
    pub fn recall_query(&self) -> String {
        super::sessions::recall_query(&self.records, &self.text)
    }

    /// The message's embedding: recall is hybrid where the workspace has vectors for its model.
    #[must_use]
    pub fn with_query_vector(mut self, v: Option<crate::recall::QueryVector>) -> Self {
        self.query_vector = v;
        self
    }

    /// Whether memory is ignored for this chat.
    #[must_use]
    pub fn ignores_memory(&self) -> bool {
        self.records.iter().any(|r| {
            matches!(
                r,
                Record::Meta {
                    ignore_memory: true,
                    ..
                }
            )
        })
    }

    /// Run the turn. `/memory` is answered locally, without a model. A stopped or failed reply
    /// saves nothing.
    pub async fn run(
        self,
        vault: &Vault,
        client: &Client,
        cancel: &CancellationToken,
        mut on_event: impl FnMut(TurnEvent<'_>) + Send,
    ) -> Result<(TurnResult, FollowUp)> {
        let ignore_memory = self.ignores_memory();
        // A command Mnemo answers itself: `/memory` here, the others by the API (it runs them
        // and words the reply).
        if let Some(command) = ChatCommand::parse(&self.text) {
            let reply = if command == ChatCommand::Memory {
                let model_set = client.settings().is_configured();
                status_text(vault, &self.ws, ignore_memory, model_set, self.switches)?
            } else {
                String::new()
            };
            let follow = match &command {
                ChatCommand::Memory => FollowUp::Nothing,
                other => FollowUp::Command(other.clone()),
            };
            return Ok((self.result(reply, Some(command), None, Vec::new()), follow));
        }
        if self.text.trim().is_empty() {
            return Err(Error::usage("the message is empty"));
        }
        if !client.settings().is_configured() {
            return Err(model_error(&LlmError::NotConfigured));
        }
        let history = messages_of(&self.records);
        // The memory tools go only to a model that can call them (`auto` probes a new model
        // once); ignoring memory means a plain assistant: no memory prompt and no memory tools.
        let with_tools = !ignore_memory
            && crate::planner::choice::decide(&vault.home().root, client, cancel)
                .await
                .road
                == crate::planner::choice::Road::Tools;
        let recalled = if ignore_memory {
            None
        } else {
            // A model without tools reads the compact block (what was recalled, one line each).
            let r = self.recall(vault, client, !with_tools, cancel).await?;
            on_event(TurnEvent::Recalled(&r));
            Some(r)
        };
        let base = if with_tools {
            BASE_PROMPT
        } else {
            NO_TOOLS_PROMPT
        };
        let system = match &recalled {
            Some(r) if !r.prompt.trim().is_empty() => format!("{base}\n\n{}", r.prompt),
            Some(_) => base.to_owned(),
            None if ignore_memory => PLAIN_PROMPT.to_owned(),
            None => base.to_owned(),
        };
        let (context, summary, compacted) = self
            .fit_context(vault, client, &system, &history, with_tools, cancel)
            .await?;
        let system = match &summary {
            Some(s) => format!(
                "{system}\n\n## Earlier in this conversation\nOlder messages were compacted to fit the context window; this is their summary:\n{s}"
            ),
            None => system,
        };
        // A model without tools reads what it remembers in the person's own turn, just before
        // the question: measured with Qwen2.5-Coder-1.5B, a snack question heeded a recalled
        // peanut allergy 9 times in 12 so, once in 8 with the same lines in the system prompt.
        // (The context was fitted with the block counted in the system prompt: the same tokens.)
        let (system, asked) = match recalled.as_ref().filter(|_| !with_tools) {
            Some(r) if !r.prompt.trim().is_empty() => {
                let system = system.replacen(&format!("\n\n{}", r.prompt), "", 1);
                let asked = format!("{} {}", r.prompt.trim_end(), self.text);
                // Which recalled fact the answer must respect, said again where a small
                // model heeds it ([`super::respect`]).
                match super::respect::ask(client, &r.prompt, &self.text, cancel).await {
                    Some(fact) => super::respect::restate(&system, &asked, &fact),
                    None => (system, asked),
                }
            }
            _ => (system, self.text.clone()),
        };
        let mut messages = vec![Message::system(system)];
        messages.extend(context.iter().cloned());
        messages.push(Message::user(asked));
        let window = client.known_context_window();
        let limits = AgentLimits {
            max_turns: MAX_TOOL_ROUNDS + 1,
            wall_time: TURN_WALL_TIME,
            // The reply gets the room compaction kept for it.
            step_tokens: u32::try_from(compact::reply_reserve(
                usize::try_from(window).unwrap_or(usize::MAX),
            ))
            .unwrap_or(u32::MAX),
            total_tokens: u32::MAX,
        };
        let mut machine = AgentMachine::conversation(limits, messages, with_tools);
        if !with_tools && !ignore_memory {
            // A model without tools is a small one here: sampled at the server's default (0.8
            // on llama.cpp) Qwen2.5-Coder-1.5B wandered ("a nut-free peanut butter").
            machine = machine.with_reply_temperature(REPLY_TEMPERATURE_WITHOUT_TOOLS);
        }
        let mut mem_tools = MemoryTools::new(vault, self.ws.clone(), self.writes);
        let mut used_tools: Vec<String> = Vec::new();
        // The reply's deltas and the tool events both reach the caller's callback.
        let on_event = std::sync::Mutex::new(&mut on_event);
        let emit = |ev: TurnEvent<'_>| {
            (on_event
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner))(ev);
        };
        // The reply streams without tool markup written as text, and redacted (a secret the
        // model repeats or invents is never shown); the same before it is saved.
        let redactor = std::sync::Mutex::new((MarkupFilter::new(), StreamRedactor::new()));
        let mut stream = |d: &Delta| match d {
            Delta::Text(t) => {
                let mut guard = redactor
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                let (markup, secrets) = &mut *guard;
                let shown = secrets.push(&markup.push(t));
                if !shown.is_empty() {
                    emit(TurnEvent::Delta(&Delta::Text(shown)));
                }
            }
            other => emit(TurnEvent::Delta(other)),
        };
        let (outcome, error) = crate::drive(
            client,
            &mut mem_tools,
            machine,
            cancel,
            Some(&mut stream),
            |e| {
                if let AgentEvent::ToolCall { name, .. } = e {
                    used_tools.push(name.clone());
                    emit(TurnEvent::Tool(name));
                }
            },
        )
        .await;
        let (mut markup, mut secrets) = redactor
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut rest = secrets.push(&markup.finish());
        rest.push_str(&secrets.finish());
        if !rest.is_empty() {
            emit(TurnEvent::Delta(&Delta::Text(rest)));
        }
        let reply = match outcome {
            AgentOutcome::Completed { summary, .. } => {
                let prose = strip_tool_markup(&summary);
                if prose.trim().is_empty() && !summary.trim().is_empty() {
                    return Err(Error::new(
                        ErrorCode::Io,
                        "the model answered with tool markup instead of words, so there is no reply to show; nothing was saved. Try again, or pick another model in Settings.",
                    ));
                }
                crate::secrets::redact(&prose).0
            }
            AgentOutcome::Cancelled => return Err(model_error(&LlmError::Cancelled)),
            AgentOutcome::Failed(e) => {
                return Err(match error {
                    Some(e) => model_error(&e),
                    None => Error::new(ErrorCode::Io, format!("chat failed: {e}")),
                });
            }
            AgentOutcome::TimedOut | AgentOutcome::MaxTurns(_) => {
                return Err(Error::new(
                    ErrorCode::Io,
                    "the reply took too long and was stopped; nothing was saved. Try again, or pick a faster model in Settings.",
                ));
            }
        };
        let touched: Vec<String> = mem_tools.touched.iter().cloned().collect();
        // Staged (review mode): nothing was written — the API says what was proposed instead.
        let wrote: Vec<String> = if self.staged {
            Vec::new()
        } else {
            touched.clone()
        };
        let upto = u64::try_from(history.len() + 2).unwrap_or(u64::MAX);
        let now = Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true);
        let mut new_records = vec![
            Record::Message {
                at: now.clone(),
                message: Message::user(&self.text),
            },
            Record::Message {
                at: now,
                message: Message::new(Role::Assistant, reply.clone()),
            },
        ];
        if let Some(r) = &recalled {
            new_records.push(Record::Recalled {
                paths: r.selected.iter().map(|s| s.path.clone()).collect(),
            });
        }
        if !used_tools.is_empty() {
            new_records.push(Record::Tools { names: used_tools });
        }
        if !wrote.is_empty() {
            new_records.push(Record::Wrote {
                upto,
                paths: wrote.clone(),
            });
        }
        // Extraction switched off for the workspace: like an ignored chat, these messages are
        // marked processed, so switching it on later does not extract them after the fact.
        let extract_off = !ignore_memory && !self.switches.auto_extract;
        if ignore_memory || extract_off {
            new_records.push(Record::Extracted { upto });
        }
        self.sessions.append(&self.session, &new_records)?;
        // The turn is saved: what follows is bookkeeping, whose failures are logged, never
        // reported as a failed turn (the client would send the message again).
        if let Err(e) = self.after_save(history.is_empty()) {
            tracing::warn!(session = %self.session, "after the turn: {e}");
        }
        // What the person said stays findable however weak the model: unless
        // memory is ignored in this chat or records are switched off for the workspace.
        if !ignore_memory
            && self.switches.chat_records
            && let Err(e) = vault.append_chat_record(
                &self.ws,
                Utc::now(),
                &self.session,
                &self.text,
                ChangeSource::Chat,
            )
        {
            tracing::warn!(session = %self.session, "could not keep the conversation record: {e}");
        }
        let follow = if ignore_memory {
            FollowUp::Nothing
        } else if extract_off {
            FollowUp::ExtractOff
        } else {
            FollowUp::Extract {
                chat_wrote: !touched.is_empty(),
            }
        };
        let mut result = self.result(reply, None, recalled, wrote);
        result.compacted = compacted;
        Ok((result, follow))
    }

    /// The conversation the request carries: everything since the last compaction — or, when
    /// that and the new message would not fit the model's context window, a new compaction
    /// first (summary written by the model, else extractively; recorded in the session and —
    /// unless memory is ignored for this chat (`with_tools` false) — appended to the day's log).
    /// Returns the messages kept, the summary standing for the rest, and the compaction made now.
    async fn fit_context(
        &self,
        vault: &Vault,
        client: &Client,
        system: &str,
        history: &[Message],
        with_tools: bool,
        cancel: &CancellationToken,
    ) -> Result<(Vec<Message>, Option<String>, Option<Compaction>)> {
        let previous = compacted_of(&self.records);
        let start = previous
            .as_ref()
            .map_or(0, |(upto, _)| usize::try_from(*upto).unwrap_or(usize::MAX))
            .min(history.len());
        let summary = previous.map(|(_, s)| s);
        let context = &history[start..];
        let window = usize::try_from(client.context_window(cancel).await).unwrap_or(usize::MAX);
        let tools = if with_tools {
            serde_json::to_string(&crate::tools::definitions())
                .map_or(0, |t| compact::estimate_tokens(&t))
        } else {
            0
        };
        let fixed = compact::estimate_tokens(system)
            + summary.as_deref().map_or(0, compact::estimate_tokens)
            + tools
            + compact::message_tokens(&Message::user(&self.text));
        match compact::plan(window, fixed, context) {
            Fit::Fits => Ok((context.to_vec(), summary, None)),
            Fit::TooLong { needed, available } => Err(Error::new(
                ErrorCode::TooLarge,
                format!(
                    "this message needs about {needed} tokens with the memory prompt, and the model's \
                     context window ({window} tokens) leaves {available}: shorten it, or raise the \
                     context window in Settings; nothing was saved"
                ),
            )),
            Fit::Compact {
                split,
                summary_tokens,
            } => {
                let older = &context[..split];
                let (text, by) = summarize(
                    client,
                    summary.as_deref(),
                    older,
                    summary_tokens,
                    window,
                    cancel,
                )
                .await;
                let upto = start + split;
                let at = Utc::now();
                // An ignored chat never reaches memory: its summary stays in the session only.
                let log = if with_tools {
                    self.log_compaction(vault, at, &text)
                } else {
                    None
                };
                let record = Record::Compacted {
                    at: at.to_rfc3339_opts(SecondsFormat::Secs, true),
                    upto: u64::try_from(upto).unwrap_or(u64::MAX),
                    summary: text.clone(),
                    by,
                    log: log.clone(),
                };
                self.sessions.append(&self.session, &[record])?;
                tracing::info!(session = %self.session, upto, by = by.as_str(), "compacted the conversation");
                let made = Compaction {
                    upto: u32::try_from(upto).unwrap_or(u32::MAX),
                    summary: text.clone(),
                    by,
                    at: at.to_rfc3339_opts(SecondsFormat::Secs, true),
                    log,
                };
                Ok((context[split..].to_vec(), Some(text), Some(made)))
            }
        }
    }

    /// Append a compaction's summary to today's log (journaled like any write); a failure is
    /// logged, never fatal — the session keeps the summary either way.
    fn log_compaction(
        &self,
        vault: &Vault,
        at: chrono::DateTime<Utc>,
        summary: &str,
    ) -> Option<String> {
        let title = self
            .sessions
            .info(&self.session)
            .map(|i| i.title)
            .unwrap_or_default();
        let section = format!(
            "## {} — chat \"{}\" compacted\n\n{}\n",
            at.format("%H:%M UTC"),
            title.replace('"', "'"),
            summary.trim()
        );
        match vault.append_log(&self.ws, at.date_naive(), &section, ChangeSource::Chat) {
            Ok(_) => Some(mnemo_store::vault::log_path(at.date_naive())),
            Err(e) => {
                tracing::warn!("could not append the compaction to the daily log: {e}");
                None
            }
        }
    }

    async fn recall(
        &self,
        vault: &Vault,
        client: &Client,
        compact: bool,
        cancel: &CancellationToken,
    ) -> Result<RecallResult> {
        let surfaced = surfaced_of(&self.records);
        // The memory block's share of the window: a quarter, at least 512 tokens.
        let window = usize::try_from(client.context_window(cancel).await).unwrap_or(usize::MAX);
        let req = RecallRequest {
            workspace: self.ws.id.clone(),
            query: self.recall_query(),
            carried: surfaced.iter().rev().cloned().collect(),
            budget_tokens: Some((window / 4).max(512)),
            already_surfaced: surfaced,
            recent_tools: recent_tools_of(&self.records),
            query_vector: self.query_vector.clone(),
            session: Some(self.session.clone()),
            conflicted: self.conflicted.clone(),
            compact,
            ..RecallRequest::default()
        };
        match recall_with_model(
            vault,
            client,
            &req,
            Utc::now(),
            recall_timeout(client),
            cancel,
        )
        .await
        {
            Ok(r) => Ok(r),
            Err(_) => recall(vault, &req, Utc::now()),
        }
    }

    /// The first message names a chat still called "New chat" (a rename made meanwhile wins).
    fn after_save(&self, first: bool) -> Result<()> {
        if first {
            let title: String = self.text.split_whitespace().collect::<Vec<_>>().join(" ");
            let title: String = title.chars().take(60).collect();
            self.sessions
                .retitle_if(&self.session, NEW_CHAT_TITLE, &title)?;
        }
        Ok(())
    }

    fn result(
        &self,
        reply: String,
        command: Option<ChatCommand>,
        recall: Option<RecallResult>,
        wrote: Vec<String>,
    ) -> TurnResult {
        TurnResult {
            session: self.session.clone(),
            reply,
            command,
            recall,
            wrote,
            extract: None,
            extract_task: None,
            dream_task: None,
            command_task: None,
            compacted: None,
            redacted: self.redacted.clone(),
            proposal: None,
        }
    }
}

/// How long a summary may take before it is written without the model.
const SUMMARY_TIMEOUT: Duration = Duration::from_secs(60);

/// The summary of `older` (after `previous`): by the model, else extractive. Returns the text and
/// who wrote it.
async fn summarize(
    client: &Client,
    previous: Option<&str>,
    older: &[Message],
    max_tokens: usize,
    window: usize,
    cancel: &CancellationToken,
) -> (String, CompactionSource) {
    let instructions = compact::summary_prompt(max_tokens);
    let mut transcript = compact::transcript_text(previous, older);
    // The summary request itself must fit: keep the transcript's most recent part.
    let room = window
        .saturating_sub(compact::reply_reserve(window).max(max_tokens))
        .saturating_sub(compact::estimate_tokens(&instructions) + 16);
    while compact::estimate_tokens(&transcript) > room && !transcript.is_empty() {
        let cut = transcript.len() / 4;
        let cut = (cut..transcript.len())
            .find(|i| transcript.is_char_boundary(*i))
            .unwrap_or(transcript.len());
        transcript = format!("…{}", &transcript[cut..]);
    }
    let req = mnemo_llm::ChatRequest {
        messages: vec![Message::system(instructions), Message::user(transcript)],
        temperature: Some(0.2),
        max_tokens: u32::try_from(max_tokens).ok(),
        ..mnemo_llm::ChatRequest::default()
    };
    match tokio::time::timeout(SUMMARY_TIMEOUT, client.chat(&req, cancel)).await {
        Ok(Ok(r)) => {
            let text = r.message.content.unwrap_or_default();
            let text = text.trim();
            if !text.is_empty() {
                // The summary goes into the session and the daily log: no secret may.
                let (text, _) = crate::secrets::redact(&compact::cut_to(text, max_tokens));
                return (text, CompactionSource::Model);
            }
            tracing::warn!("the model's summary was empty: summarising without it");
        }
        Ok(Err(e)) => tracing::warn!("the model could not summarise ({e}): summarising without it"),
        Err(_) => tracing::warn!("the model's summary took too long: summarising without it"),
    }
    (
        crate::secrets::redact(&compact::extractive_summary(previous, older, max_tokens)).0,
        CompactionSource::Extractive,
    )
}

/// What extraction after a turn needs besides the session: how to journal and report.
pub struct ExtractContext<'a> {
    /// Source `extract`, within the run's change group.
    pub origin: Origin,
    /// Each agent event, for the task's progress.
    pub on_event: &'a mut (dyn FnMut(&AgentEvent) + Send),
}

/// Extraction for a session after a turn; a failure is reported in the result, never raised
/// (the reply is already saved).
pub async fn extract_after_turn(
    vault: &Vault,
    client: &Client,
    workspace: &str,
    session_id: &str,
    chat_wrote_memory: bool,
    cancel: &CancellationToken,
    ctx: ExtractContext<'_>,
) -> ExtractResult {
    let failed = |e: &Error| ExtractResult::failed(e.to_string());
    let prepared = vault.workspace(workspace).and_then(|ws| {
        let sessions = Sessions::of(&ws);
        let records = sessions.records(session_id)?;
        // The session's own mark says how far extraction has read it.
        let from = records.iter().rev().find_map(|r| match r {
            Record::Extracted { upto } => Some(*upto),
            _ => None,
        });
        Ok((sessions, messages_of(&records), from))
    });
    let (sessions, transcript, from) = match prepared {
        Ok(p) => p,
        Err(e) => return failed(&e),
    };
    let req = ExtractRequest {
        workspace,
        session_id,
        messages: &transcript,
        from: from.map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX)),
        chat_wrote_memory,
        origin: ctx.origin,
        imported: false,
    };
    let result = run_extract(vault, client, &req, cancel, |e| (ctx.on_event)(e))
        .await
        .unwrap_or_else(|e| failed(&e));
    if result.status != ExtractStatus::Failed {
        let upto = u64::try_from(transcript.len()).unwrap_or(u64::MAX);
        let mut marks = vec![Record::Extracted { upto }];
        if !result.files_written.is_empty() {
            marks.push(Record::Wrote {
                upto,
                paths: result.files_written.clone(),
            });
        }
        if let Err(e) = sessions.append(session_id, &marks) {
            tracing::warn!("could not mark the session as extracted: {e}");
        }
    }
    result
}

/// One whole chat turn, opened with [`Turn::open`], with extraction inline (engine tests and
/// embedders; the API schedules extraction as a task instead). Same parts, no other logic.
pub async fn chat_turn(
    vault: &Vault,
    client: &Client,
    turn: Turn,
    cancel: &CancellationToken,
    on_event: impl FnMut(TurnEvent<'_>) + Send,
) -> Result<TurnResult> {
    let (workspace, session_id) = (turn.ws.id.clone(), turn.session.clone());
    let (workspace, session_id) = (workspace.as_str(), session_id.as_str());
    let (mut result, follow) = turn.run(vault, client, cancel, on_event).await?;
    if let FollowUp::Extract { chat_wrote } = follow {
        let ctx = ExtractContext {
            origin: ChangeSource::Extract.into(),
            on_event: &mut |_| {},
        };
        result.extract = Some(
            extract_after_turn(
                vault, client, workspace, session_id, chat_wrote, cancel, ctx,
            )
            .await,
        );
    }
    Ok(result)
}
