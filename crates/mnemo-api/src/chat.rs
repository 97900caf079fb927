//! Chat over the API: sessions, transcripts, and turns — the engine's [`Turn`] does the turn;
//! this module only runs it on the model runtime, streams its events to subscribers as
//! [`ChatEvent`]s, and schedules the extraction that follows as a memory task.

use std::sync::{Arc, Mutex, PoisonError};

use mnemo_core::{ChangeSource, Error, ErrorCode, Result};
use mnemo_engine::chat::{
    ChatCommand, FollowUp, NEW_CHAT_TITLE, Record, Sessions, Turn, TurnEvent,
};
use mnemo_llm::{CancellationToken, Delta, Role};
use mnemo_sync::VaultSync;
use serde::Serialize;
use specta::Type;

use crate::{Api, wire};

/// Longest chat message accepted.
pub const MAX_MESSAGE_BYTES: usize = 100_000;

/// What happens in chats, as it happens.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChatEvent {
    /// Recall chose what goes into the prompt (before the model answers).
    Recalled {
        /// Workspace.
        workspace: String,
        /// Session.
        session: String,
        /// What was recalled and why.
        recall: crate::wire::RecallResult,
    },
    /// More reply text.
    Delta {
        /// Workspace.
        workspace: String,
        /// Session.
        session: String,
        /// The new text.
        text: String,
    },
    /// The chat model ran a memory tool.
    Tool {
        /// Workspace.
        workspace: String,
        /// Session.
        session: String,
        /// Tool name.
        name: String,
    },
    /// Background extraction started for a session.
    Extracting {
        /// Workspace.
        workspace: String,
        /// Session.
        session: String,
        /// Its memory task.
        task: String,
    },
    /// Background extraction finished.
    Extracted {
        /// Workspace.
        workspace: String,
        /// Session.
        session: String,
        /// Its memory task.
        task: String,
        /// What it wrote.
        result: crate::wire::ExtractResult,
    },
}

/// Who said a message of a transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "lowercase")]
pub enum ChatRole {
    /// The person.
    User,
    /// The chat model.
    Assistant,
}

/// One message of a transcript.
#[derive(Debug, Clone, Serialize, Type)]
pub struct ChatLine {
    /// Who said it.
    pub role: ChatRole,
    /// Text.
    pub text: String,
    /// When (RFC 3339).
    pub at: String,
    /// For an assistant message: the memories recall put in the prompt for that turn.
    pub recalled: Vec<String>,
    /// For an assistant message: memory files written after it (by the chat model itself or
    /// by extraction).
    pub wrote: Vec<String>,
    /// For an assistant message, in review mode: the proposal the chat model's own writes in
    /// that turn became (nothing was written until it is accepted).
    pub proposal: Option<i64>,
}

/// A session with its messages.
#[derive(Debug, Clone, Serialize, Type)]
pub struct ChatTranscript {
    /// The session.
    pub session: crate::wire::SessionInfo,
    /// Its messages, oldest first (all of them: compaction never removes any from disk).
    pub messages: Vec<ChatLine>,
    /// Where the conversation was compacted, oldest first: the chat pane draws a marker after
    /// `upto` messages and can show the summary the model saw in their place.
    pub compactions: Vec<crate::wire::Compaction>,
}

/// A reply being written; leaves `turns` when dropped.
struct Running<'a> {
    turns: &'a Mutex<std::collections::HashMap<String, CancellationToken>>,
    session: &'a str,
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.turns
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(self.session);
    }
}

pub(crate) fn check_message(message: &str) -> Result<()> {
    if message.len() > MAX_MESSAGE_BYTES {
        return Err(Error::new(
            ErrorCode::TooLarge,
            format!("a chat message may be at most {MAX_MESSAGE_BYTES} bytes"),
        ));
    }
    Ok(())
}

// Commands take owned arguments: transports hand over values they deserialised.
#[allow(clippy::needless_pass_by_value)]
impl Api {
    fn sessions(&self, workspace: &str) -> Result<Sessions> {
        Ok(Sessions::of(&self.vault.workspace(workspace)?))
    }

    /// Every chat event from now on (replies streaming, recall, extraction).
    pub fn subscribe_chat(&self) -> std::sync::mpsc::Receiver<ChatEvent> {
        self.model.bus.subscribe()
    }

    /// `/memory` without a chat: what memory a workspace uses and what happened to it lately.
    pub fn memory_status(&self, workspace: String, session: Option<String>) -> Result<String> {
        let model_set = self.model.client().settings().is_configured();
        let switches = self.switches(&self.vault.workspace(&workspace)?);
        mnemo_engine::chat::memory_status(
            &self.vault,
            &workspace,
            session.as_deref(),
            model_set,
            switches,
        )
    }

    /// Chat sessions of a workspace, most recent first.
    pub fn chat_sessions(&self, workspace: String) -> Result<Vec<wire::SessionInfo>> {
        self.sessions(&workspace)?.list().map(wire::all)
    }

    /// Start a chat session.
    pub fn chat_create(
        &self,
        workspace: String,
        title: Option<String>,
    ) -> Result<wire::SessionInfo> {
        let sessions = self.sessions(&workspace)?;
        let id = sessions.create(title.as_deref().unwrap_or(NEW_CHAT_TITLE))?;
        sessions.info(&id).map(Into::into)
    }

    /// A session's messages.
    pub fn chat_transcript(&self, workspace: String, session: String) -> Result<ChatTranscript> {
        let sessions = self.sessions(&workspace)?;
        let info = sessions.info(&session)?;
        let mut messages: Vec<ChatLine> = Vec::new();
        let mut compactions = Vec::new();
        for r in sessions.records(&session)? {
            match r {
                Record::Message { at, message } => {
                    let role = match message.role {
                        Role::User => ChatRole::User,
                        Role::Assistant => ChatRole::Assistant,
                        _ => continue,
                    };
                    messages.push(ChatLine {
                        role,
                        text: message.content.unwrap_or_default(),
                        at,
                        recalled: Vec::new(),
                        wrote: Vec::new(),
                        proposal: None,
                    });
                }
                Record::Recalled { paths } => {
                    if let Some(last) = messages
                        .iter_mut()
                        .rev()
                        .find(|m| m.role == ChatRole::Assistant)
                    {
                        last.recalled = paths;
                    }
                }
                Record::Wrote { upto, paths } => {
                    if let Some(reply) = reply_at(&mut messages, upto) {
                        for p in paths {
                            if !reply.wrote.contains(&p) {
                                reply.wrote.push(p);
                            }
                        }
                    }
                }
                Record::Proposed { upto, proposal } => {
                    if let Some(reply) = reply_at(&mut messages, upto) {
                        reply.proposal = Some(proposal);
                    }
                }
                Record::Compacted {
                    at,
                    upto,
                    summary,
                    by,
                    log,
                } => compactions.push(mnemo_engine::chat::Compaction {
                    upto: u32::try_from(upto).unwrap_or(u32::MAX),
                    summary,
                    by,
                    at,
                    log,
                }),
                Record::Meta { .. } | Record::Extracted { .. } | Record::Tools { .. } => {}
            }
        }
        Ok(ChatTranscript {
            session: info.into(),
            messages,
            compactions: crate::wire::all(compactions),
        })
    }

    /// Rename a session and/or set "ignore memory for this chat".
    pub fn chat_update(
        &self,
        workspace: String,
        session: String,
        title: Option<String>,
        ignore_memory: Option<bool>,
    ) -> Result<wire::SessionInfo> {
        if let Some(t) = &title
            && t.trim().is_empty()
        {
            return Err(Error::usage("a chat's title cannot be empty"));
        }
        let sessions = self.sessions(&workspace)?;
        sessions.update_meta(&session, title.as_deref(), ignore_memory)?;
        sessions.info(&session).map(Into::into)
    }

    /// Delete a session.
    pub fn chat_delete(&self, workspace: String, session: String) -> Result<()> {
        self.sessions(&workspace)?.delete(&session)
    }

    /// Stop the reply being written in a session. `false`: nothing was running.
    pub fn chat_cancel(&self, session: String) -> Result<bool> {
        Ok(
            match self
                .model
                .turns
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&session)
            {
                Some(t) => {
                    t.cancel();
                    true
                }
                None => false,
            },
        )
    }

    /// `/forget <query>`: the preview as text; `/forget --yes <query>` forgets those at once.
    fn forget_in_chat(&self, workspace: &str, query: &str, task: &mut Option<String>) -> String {
        let (yes, query) = match query.strip_prefix("--yes") {
            Some(rest) => (true, rest.trim()),
            None => (false, query),
        };
        if query.is_empty() {
            return "Say what to forget: `/forget <query>` shows what would go; `/forget --yes <query>` forgets it.".into();
        }
        let preview = match self.forget_preview(workspace.to_owned(), query.to_owned()) {
            Ok(p) => p,
            Err(e) => return format!("Could not look for it: {}", e.message),
        };
        if preview.selected.is_empty() {
            return format!(
                "No memory in `{workspace}` has \"{query}\" in its name, description or entries: nothing to forget."
            );
        }
        let list: String = preview
            .selected
            .iter()
            .map(|e| format!("- {} ({})\n", e.summary, e.id))
            .collect();
        if !yes {
            return format!(
                "These {} entries would be forgotten:\n{list}\nTo forget them: `/forget --yes {query}` (or use Forget… in the browser).",
                preview.selected.len()
            );
        }
        let picks = preview
            .selected
            .iter()
            .map(|e| crate::wire::ForgetPick {
                id: e.id.clone(),
                hash: e.hash.clone(),
            })
            .collect();
        match self.forget(workspace.to_owned(), picks) {
            Ok(t) => {
                let group = t.result.as_ref().and_then(|r| r.group);
                *task = Some(t.id);
                format!(
                    "Forgot {} entries:\n{list}{}",
                    preview.selected.len(),
                    group
                        .map(|g| format!("\nUndo: history → group {g}."))
                        .unwrap_or_default()
                )
            }
            Err(e) => format!("Nothing was forgotten: {}", e.message),
        }
    }

    /// One chat turn: recall, the streamed reply (as `delta` events), saved to the session;
    /// extraction follows as a background memory task (`extracting` / `extracted` events, its
    /// id in `extractTask`). `/memory` answers with the memory status and needs no model.
    pub fn chat_send(
        &self,
        workspace: String,
        session: String,
        message: String,
    ) -> Result<wire::TurnResult> {
        check_message(&message)?;
        if !self.watching() {
            self.vault.sync(&self.vault.workspace(&workspace)?)?;
        }
        let cancel = CancellationToken::new();
        {
            let mut turns = self
                .model
                .turns
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if turns.contains_key(&session) {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    "a reply is still being written in this chat: wait for it or stop it",
                ));
            }
            turns.insert(session.clone(), cancel.clone());
        }
        // Removed from `turns` however the turn ends (panics included).
        let running = Running {
            turns: &self.model.turns,
            session: &session,
        };
        // Read once the session is ours: no other turn of it can finish in between.
        let switches = self.switches(&self.vault.workspace(&workspace)?);
        let turn = Turn::open(&self.vault, &workspace, &session, &message, switches)?;
        let turn = if turn.ignores_memory() {
            turn
        } else {
            let query = turn.recall_query();
            turn.with_query_vector(self.query_vector(&query))
                .with_conflicts(self.vault.open_conflicts(&workspace))
        };
        // The chat model's own memory writes pass the one gate every automatic writer does: in
        // review mode a staged group that becomes a proposal (nothing written).
        // Outside review mode its writes land one by one, as before (no group per turn).
        let job = if crate::review::review_on(&self.vault, &workspace) {
            crate::review::open_group(
                &self.vault,
                &workspace,
                "chat",
                None,
                "Chat: the assistant's own writes",
                ChangeSource::Chat,
            )
        } else {
            crate::review::JobGroup {
                id: None,
                staged: false,
            }
        };
        let turn = turn.with_writes(
            mnemo_store::journal::Origin {
                source: ChangeSource::Chat,
                group: job.id,
            },
            job.staged,
        );
        let (vault, model, client) = (
            Arc::clone(&self.vault),
            Arc::clone(&self.model),
            self.model.ready_blocking(&self.vault.home().root)?,
        );
        let (ws, id) = (workspace.clone(), session.clone());
        let result = self.model.runtime.block_on(async move {
            let emit = |ev: TurnEvent<'_>| {
                let (workspace, session) = (ws.clone(), id.clone());
                let ev = match ev {
                    TurnEvent::Recalled(r) => ChatEvent::Recalled {
                        workspace,
                        session,
                        recall: r.clone().into(),
                    },
                    TurnEvent::Delta(Delta::Text(t)) => ChatEvent::Delta {
                        workspace,
                        session,
                        text: t.clone(),
                    },
                    TurnEvent::Tool(name) => ChatEvent::Tool {
                        workspace,
                        session,
                        name: name.to_owned(),
                    },
                    TurnEvent::Delta(_) => return,
                };
                model.bus.emit(&ev);
            };
            turn.run(&vault, &client, &cancel, emit).await
        });
        drop(running);
        let turn_ok = matches!(&result, Ok(Ok(_)));
        let ended = crate::review::close_group(
            &self.vault,
            job,
            ChangeSource::Chat,
            "chat",
            "Chat: the assistant's own writes",
            &mnemo_store::journal::ProposalOrigin {
                session: Some(session.clone()),
                message: Some(
                    mnemo_store::secrets::redact(&message)
                        .0
                        .chars()
                        .take(300)
                        .collect(),
                ),
                client: Some("the chat model".to_owned()),
                task: None,
            },
            turn_ok,
        );
        let (mut result, follow) = result?.map_err(|e| self.model.explain_local(e))?;
        result.proposal = ended?.proposal;
        if let Some(proposal) = result.proposal {
            // Kept with the reply, so the chat says it after a reload too.
            let sessions = self.sessions(&workspace)?;
            let upto = sessions.messages(&session).map_or(0, |m| m.len());
            if let Err(e) = sessions.append(
                &session,
                &[Record::Proposed {
                    upto: u64::try_from(upto).unwrap_or(u64::MAX),
                    proposal,
                }],
            ) {
                tracing::warn!("could not keep the turn's proposal with the chat: {e}");
            }
        }
        match follow {
            FollowUp::Extract { chat_wrote } => {
                let extract = self.schedule_extract(&workspace, &session, chat_wrote);
                result.dream_task = self.dream_after_turn(&workspace, &session, Some(&extract));
                result.extract_task = Some(extract);
            }
            FollowUp::ExtractOff => {
                // Recorded, so the task list says why nothing was extracted.
                let (mut t, _) =
                    self.tasks
                        .create(mnemo_core::TaskKind::Extract, &workspace, Some(&session));
                t.error = Some("automatic extraction is off for this workspace".into());
                self.tasks.finish(
                    &mut t,
                    mnemo_core::TaskStatus::Skipped,
                    Some(mnemo_core::TaskReason::Disabled),
                );
                result.dream_task = self.dream_after_turn(&workspace, &session, None);
            }
            FollowUp::Command(ChatCommand::Remember { fact }) if fact.is_empty() => {
                result.reply = "Say what to remember: `/remember <fact>`.".into();
            }
            FollowUp::Command(ChatCommand::Remember { fact }) => {
                match self.remember(Some(workspace.clone()), fact, None, None) {
                    Ok(t) => {
                        result.reply = format!(
                            "Remembering it in `{workspace}` (task {}); the memory it writes shows up in the browser.",
                            t.task_id
                        );
                        result.command_task = Some(t.task_id);
                    }
                    Err(e) => result.reply = format!("Could not remember it: {}", e.message),
                }
            }
            FollowUp::Command(ChatCommand::Forget { query }) => {
                result.reply = self.forget_in_chat(&workspace, &query, &mut result.command_task);
            }
            FollowUp::Command(ChatCommand::Dream) => {
                match self.start_dream(&workspace, false, Some(&session)) {
                    Ok(task) => {
                        result.reply = format!(
                            "✦ Dreaming: consolidating the memory of `{workspace}` in the background (task {}). Progress and the report — with each change and one Undo — are in the task list.",
                            task.id
                        );
                        result.dream_task = Some(task.id);
                    }
                    Err(e) => result.reply = format!("Dream did not start: {}", e.message),
                }
            }
            FollowUp::Command(ChatCommand::Memory) | FollowUp::Nothing => {}
        }
        Ok(result.into())
    }
}

/// The reply at transcript position `upto` (a 1-based count of messages), or the last one before
/// it: where a record about a turn (files written, a proposal) belongs.
fn reply_at(messages: &mut [ChatLine], upto: u64) -> Option<&mut ChatLine> {
    let at = usize::try_from(upto)
        .unwrap_or(usize::MAX)
        .min(messages.len());
    messages[..at]
        .iter_mut()
        .rev()
        .find(|m| m.role == ChatRole::Assistant)
}
