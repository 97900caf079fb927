//! Chat (SPEC §5): sessions as `sessions/<id>.jsonl` in the workspace's state dir (one JSON
//! record per line: messages plus bookkeeping such as what recall surfaced), and one chat turn:
//! recall before (unless memory is ignored for this chat), a streamed reply from the main model
//! that may itself use the memory tools, then extraction after.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use chrono::{SecondsFormat, Utc};
use mnemo_core::{ChangeSource, Error, ErrorCode, Result};
use mnemo_llm::{CancellationToken, Client, Delta, LlmError, Message, Role};
use mnemo_store::journal::Origin;
use mnemo_store::state::Cursor;
use mnemo_store::{Vault, Workspace, fsutil};
use serde::{Deserialize, Serialize};
use specta::Type;

use crate::agent::{AgentEvent, AgentLimits, AgentMachine, AgentOutcome};
use crate::extract::{ExtractRequest, ExtractResult, run_extract};
use crate::recall::{RecallRequest, RecallResult, recall, recall_with_model};
use crate::tools::MemoryTools;

/// Tool rounds the chat model may take in one turn (the round after them answers in words).
const MAX_TOOL_ROUNDS: u32 = 5;
/// A new chat's title until its first message names it.
pub const NEW_CHAT_TITLE: &str = "New chat";
/// How long model recall may take before falling back to lexical.
const RECALL_TIMEOUT: Duration = Duration::from_secs(10);

/// One line of a session file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Record {
    /// Title and flags.
    Meta {
        /// Title shown in the list.
        title: String,
        /// Memory ignored for this chat.
        #[serde(default)]
        ignore_memory: bool,
    },
    /// A chat message.
    Message {
        /// When.
        at: String,
        /// The message.
        message: Message,
    },
    /// Paths recall put in the prompt for a turn.
    Recalled {
        /// Paths.
        paths: Vec<String>,
    },
    /// Memory files written in this session's turns (by the chat model or by extraction), for
    /// the reply at message position `upto` (1-based count of messages).
    Wrote {
        /// Messages in the transcript when they were written.
        upto: u64,
        /// Paths relative to the memory root.
        paths: Vec<String>,
    },
    /// Memory tools the chat model used in a turn (fed back to recall as `recentTools`).
    Tools {
        /// Tool names, in order of use.
        names: Vec<String>,
    },
    /// Extraction has processed the first `upto` messages of this session. The workspace's
    /// extract cursor follows one session; this lets a session picked up again resume where
    /// its own extraction stopped instead of starting over.
    Extracted {
        /// Messages processed.
        upto: u64,
    },
}

/// A session in the list.
#[derive(Debug, Clone, Serialize, Type)]
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

/// Sessions of one workspace.
pub struct Sessions {
    dir: PathBuf,
}

/// Appends and rewrites of session files in this process take turns, so a rename (which
/// rewrites the file) never loses a record appended meanwhile.
static SESSION_WRITES: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn session_writes() -> std::sync::MutexGuard<'static, ()> {
    SESSION_WRITES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn valid_id(id: &str) -> Result<()> {
    if id.is_empty() || id.len() > 64 || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        return Err(Error::usage(format!("`{id}` is not a session id")));
    }
    Ok(())
}

impl Sessions {
    /// The sessions of a workspace.
    #[must_use]
    pub fn of(ws: &Workspace) -> Self {
        Self {
            dir: ws.state_dir.join("sessions"),
        }
    }

    fn path(&self, id: &str) -> Result<PathBuf> {
        valid_id(id)?;
        Ok(self.dir.join(format!("{id}.jsonl")))
    }

    /// Start a session.
    pub fn create(&self, title: &str) -> Result<String> {
        let now = Utc::now();
        // Time, then bits of the process id and the clock's nanoseconds: unique across
        // processes and workspaces even for chats started in the same second.
        let id = format!(
            "{}-{:04x}{:04x}",
            now.format("%Y%m%d-%H%M%S"),
            std::process::id() & 0xffff,
            now.timestamp_subsec_nanos() & 0xffff
        );
        let mut n = 0;
        let mut unique = id.clone();
        while self.path(&unique)?.exists() {
            n += 1;
            unique = format!("{id}-{n}");
        }
        let title = if title.trim().is_empty() {
            NEW_CHAT_TITLE.to_owned()
        } else {
            title.trim().chars().take(80).collect()
        };
        self.rewrite(
            &unique,
            &[Record::Meta {
                title,
                ignore_memory: false,
            }],
        )?;
        Ok(unique)
    }

    /// Every record of a session; a torn last line (crash mid-append) is skipped.
    pub fn records(&self, id: &str) -> Result<Vec<Record>> {
        let path = self.path(id)?;
        let text = std::fs::read_to_string(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::not_found(format!("no chat session `{id}`"))
            } else {
                Error::io(format!("reading {}", path.display()), &e)
            }
        })?;
        Ok(text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect())
    }

    /// The messages of a session.
    pub fn messages(&self, id: &str) -> Result<Vec<Message>> {
        Ok(messages_of(&self.records(id)?))
    }

    /// Append records (one line each, flushed and synced).
    pub fn append(&self, id: &str, records: &[Record]) -> Result<()> {
        let _turn = session_writes();
        let path = self.path(id)?;
        if !path.exists() {
            return Err(Error::not_found(format!("no chat session `{id}`")));
        }
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| Error::io(format!("opening {}", path.display()), &e))?;
        let mut buf = String::new();
        // A crash mid-append can leave a last line without its newline: end it first, so the
        // torn line stays one bad line and the new records stay readable.
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        if len > 0 {
            use std::io::{Read, Seek, SeekFrom};
            let mut last = [0u8; 1];
            let mut r = std::fs::File::open(&path)
                .map_err(|e| Error::io(format!("opening {}", path.display()), &e))?;
            if r.seek(SeekFrom::End(-1))
                .and_then(|_| r.read_exact(&mut last))
                .is_ok()
                && last[0] != b'\n'
            {
                buf.push('\n');
            }
        }
        for r in records {
            buf.push_str(
                &serde_json::to_string(r).map_err(|e| Error::new(ErrorCode::Io, e.to_string()))?,
            );
            buf.push('\n');
        }
        f.write_all(buf.as_bytes())
            .and_then(|()| f.sync_data())
            .map_err(|e| Error::io(format!("writing {}", path.display()), &e))
    }

    fn rewrite(&self, id: &str, records: &[Record]) -> Result<()> {
        let mut text = String::new();
        for r in records {
            text.push_str(
                &serde_json::to_string(r).map_err(|e| Error::new(ErrorCode::Io, e.to_string()))?,
            );
            text.push('\n');
        }
        fsutil::write_atomic(&self.path(id)?, text.as_bytes())
    }

    /// Change the title and/or the ignore-memory flag.
    pub fn update_meta(
        &self,
        id: &str,
        title: Option<&str>,
        ignore_memory: Option<bool>,
    ) -> Result<()> {
        let _turn = session_writes();
        let mut records = self.records(id)?;
        let mut found = false;
        for r in &mut records {
            if let Record::Meta {
                title: t,
                ignore_memory: ig,
            } = r
            {
                if let Some(new) = title {
                    *t = new.trim().chars().take(80).collect();
                }
                if let Some(v) = ignore_memory {
                    *ig = v;
                }
                found = true;
            }
        }
        if !found {
            records.insert(
                0,
                Record::Meta {
                    title: title.unwrap_or("Chat").to_owned(),
                    ignore_memory: ignore_memory.unwrap_or(false),
                },
            );
        }
        self.rewrite(id, &records)
    }

    /// Set the title only while it is still `current` (a rename made meanwhile wins).
    pub fn retitle_if(&self, id: &str, current: &str, title: &str) -> Result<()> {
        if self.info(id)?.title == current && !title.trim().is_empty() {
            self.update_meta(id, Some(title), None)?;
        }
        Ok(())
    }

    /// Delete a session.
    pub fn delete(&self, id: &str) -> Result<()> {
        let _turn = session_writes();
        let path = self.path(id)?;
        if !path.is_file() {
            return Err(Error::not_found(format!("no chat session `{id}`")));
        }
        fsutil::remove_file(&path)
    }

    /// One session's entry in the list.
    pub fn info(&self, id: &str) -> Result<SessionInfo> {
        let records = self.records(id)?;
        let (mut title, mut ignore_memory, mut messages) = ("Chat".to_owned(), false, 0u32);
        for r in &records {
            match r {
                Record::Meta {
                    title: t,
                    ignore_memory: ig,
                } => {
                    title.clone_from(t);
                    ignore_memory = *ig;
                }
                Record::Message { .. } => messages += 1,
                Record::Recalled { .. }
                | Record::Extracted { .. }
                | Record::Wrote { .. }
                | Record::Tools { .. } => {}
            }
        }
        let updated_at = std::fs::metadata(self.path(id)?)
            .and_then(|m| m.modified())
            .map(|t| chrono::DateTime::<Utc>::from(t).to_rfc3339_opts(SecondsFormat::Millis, true))
            .unwrap_or_default();
        Ok(SessionInfo {
            id: id.to_owned(),
            title,
            messages,
            updated_at,
            ignore_memory,
        })
    }

    /// Sessions, most recently changed first.
    pub fn list(&self) -> Result<Vec<SessionInfo>> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(id) = name.strip_suffix(".jsonl") else {
                continue;
            };
            if let Ok(info) = self.info(id) {
                out.push(info);
            }
        }
        out.sort_by(|a, b| {
            b.updated_at
                .cmp(&a.updated_at)
                .then_with(|| b.id.cmp(&a.id))
        });
        Ok(out)
    }

    /// How many messages of this session extraction has processed (its latest `extracted` mark).
    pub fn extracted_upto(&self, id: &str) -> Result<Option<u64>> {
        Ok(self.records(id)?.iter().rev().find_map(|r| match r {
            Record::Extracted { upto } => Some(*upto),
            _ => None,
        }))
    }

    /// Tools the chat model used in the session's last three turns that used any, most recent
    /// first, without repeats.
    pub fn recent_tools(&self, id: &str) -> Result<Vec<String>> {
        Ok(recent_tools_of(&self.records(id)?))
    }

    /// Paths already surfaced by recall in this session.
    pub fn surfaced(&self, id: &str) -> Result<Vec<String>> {
        Ok(surfaced_of(&self.records(id)?))
    }
}

// What a session's records say, derived from one read of the file.

/// The messages, oldest first.
fn messages_of(records: &[Record]) -> Vec<Message> {
    records
        .iter()
        .filter_map(|r| match r {
            Record::Message { message, .. } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

/// Paths recall surfaced, first time first.
fn surfaced_of(records: &[Record]) -> Vec<String> {
    let mut seen = HashSet::new();
    records
        .iter()
        .filter_map(|r| match r {
            Record::Recalled { paths } => Some(paths),
            _ => None,
        })
        .flatten()
        .filter(|p| seen.insert(p.as_str()))
        .cloned()
        .collect()
}

/// Tools used in the last three tool-using turns, most recent first, without repeats.
fn recent_tools_of(records: &[Record]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for names in records
        .iter()
        .rev()
        .filter_map(|r| match r {
            Record::Tools { names } => Some(names),
            _ => None,
        })
        .take(3)
    {
        for n in names.iter().rev() {
            if !out.contains(n) {
                out.push(n.clone());
            }
        }
    }
    out
}

/// What one turn produced.
#[derive(Debug, Clone, Serialize, Type)]
pub struct TurnResult {
    /// The session.
    pub session: String,
    /// The assistant's reply.
    pub reply: String,
    /// Answered by Mnemo itself (a slash command such as `/memory`), not by the model; such
    /// turns are not part of the transcript.
    pub command: bool,
    /// What recall injected (absent when memory is ignored for this chat).
    pub recall: Option<RecallResult>,
    /// Memory files the chat model wrote itself this turn.
    pub wrote: Vec<String>,
    /// What extraction did after the turn (`null`: not run inline — it runs in the background,
    /// or memory is ignored for this chat).
    pub extract: Option<ExtractResult>,
    /// The background memory task extracting after this turn, if one was scheduled.
    pub extract_task: Option<String>,
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

/// The error chat gives when no model is configured or reachable: what to configure.
#[must_use]
pub fn model_error(e: &LlmError) -> Error {
    if *e == LlmError::Cancelled {
        return Error::new(
            ErrorCode::Io,
            "the reply was stopped before it finished; nothing was saved",
        );
    }
    let code = match e {
        LlmError::NotConfigured
        | LlmError::Unauthorized(_)
        | LlmError::ModelNotFound(_)
        | LlmError::Unreachable(..) => ErrorCode::ModelNotConfigured,
        _ => ErrorCode::Io,
    };
    Error::new(code, format!("chat needs a model: {e}"))
}

/// Whether the text is a chat command Mnemo answers itself.
#[must_use]
pub fn is_command(text: &str) -> bool {
    text.trim() == "/memory"
}

/// `/memory`: what memory this chat uses and what happened to it lately. Needs no model.
pub fn memory_status(vault: &Vault, workspace: &str, session_id: Option<&str>) -> Result<String> {
    let ws = vault.workspace(workspace)?;
    let ignored = match session_id {
        Some(id) => Sessions::of(&ws).info(id)?.ignore_memory,
        None => false,
    };
    status_text(vault, &ws, ignored)
}

fn status_text(vault: &Vault, ws: &Workspace, ignored: bool) -> Result<String> {
    let meta = vault.meta(ws)?.value;
    let mut out = format!(
        "Auto-memory: {} — workspace `{}` ({})\n",
        if ignored {
            "off for this chat (memory ignored: no recall, no extraction)"
        } else {
            "on"
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
        "Auto-dream: off (consolidation is not available in this version)\nLast extraction: {} ({})\nLast dream: {}",
        meta.last_extract_at.as_deref().unwrap_or("never"),
        meta.last_extract_status.as_deref().unwrap_or("—"),
        meta.last_dream_at.as_deref().unwrap_or("never"),
    ));
    Ok(out)
}

/// Longest a chat reply may take, tool rounds included.
const TURN_WALL_TIME: Duration = Duration::from_secs(600);

/// What should follow a saved turn; the caller (the API) only schedules it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowUp {
    /// Nothing: a command, or memory is ignored for this chat (its messages are already marked
    /// processed, so turning the toggle off later never sends them to extraction).
    Nothing,
    /// Extraction for this session; `chat_wrote`: the chat model wrote memory itself this turn
    /// (extraction then only moves the cursor).
    Extract {
        /// The chat model wrote memory this turn.
        chat_wrote: bool,
    },
}

/// One chat turn (SPEC §5), owned here from start to end: the session read once, recall, the
/// streamed reply with the memory tools (on the same agent machine as the memory agent), the
/// turn saved to the session, and what extraction should see next.
pub struct Turn {
    ws: Workspace,
    sessions: Sessions,
    session: String,
    text: String,
    records: Vec<Record>,
}

impl Turn {
    /// Prepare a turn: the session is read here, once.
    pub fn open(vault: &Vault, workspace: &str, session: &str, text: &str) -> Result<Self> {
        let ws = vault.workspace(workspace)?;
        let sessions = Sessions::of(&ws);
        let records = sessions.records(session)?;
        Ok(Self {
            ws,
            sessions,
            session: session.to_owned(),
            text: text.to_owned(),
            records,
        })
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
        if is_command(&self.text) {
            let reply = status_text(vault, &self.ws, ignore_memory)?;
            return Ok((
                self.result(reply, true, None, Vec::new()),
                FollowUp::Nothing,
            ));
        }
        if self.text.trim().is_empty() {
            return Err(Error::usage("the message is empty"));
        }
        if !client.settings().is_configured() {
            return Err(model_error(&LlmError::NotConfigured));
        }
        let history = messages_of(&self.records);
        let recalled = if ignore_memory {
            None
        } else {
            let r = self.recall(vault, client, cancel).await?;
            on_event(TurnEvent::Recalled(&r));
            Some(r)
        };
        // Ignoring memory means a plain assistant: no memory prompt and no memory tools.
        let system = match &recalled {
            Some(r) => format!("{BASE_PROMPT}\n\n{}", r.prompt),
            None if ignore_memory => PLAIN_PROMPT.to_owned(),
            None => BASE_PROMPT.to_owned(),
        };
        let mut messages = vec![Message::system(system)];
        messages.extend(history.iter().cloned());
        messages.push(Message::user(&self.text));
        let limits = AgentLimits {
            max_turns: MAX_TOOL_ROUNDS + 1,
            wall_time: TURN_WALL_TIME,
        };
        let machine = AgentMachine::conversation(limits, messages, !ignore_memory);
        let mut mem_tools = MemoryTools::new(vault, self.ws.clone(), ChangeSource::Chat);
        let used_tools = std::sync::Mutex::new(Vec::<String>::new());
        let on_event = std::sync::Mutex::new(&mut on_event);
        let emit = |ev: TurnEvent<'_>| {
            (on_event
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner))(ev);
        };
        let mut stream = |d: &Delta| emit(TurnEvent::Delta(d));
        let (outcome, error) = crate::drive(
            client,
            &mut mem_tools,
            machine,
            cancel,
            Some(&mut stream),
            |e| {
                if let AgentEvent::ToolCall { name, .. } = e {
                    used_tools
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push(name.clone());
                    emit(TurnEvent::Tool(name));
                }
            },
        )
        .await;
        let reply = match outcome {
            AgentOutcome::Completed { summary, .. } => summary,
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
                    "the reply took too long and was stopped; nothing was saved",
                ));
            }
        };
        let used_tools = used_tools
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let wrote: Vec<String> = mem_tools.touched.iter().cloned().collect();
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
        if ignore_memory {
            new_records.push(Record::Extracted { upto });
        }
        self.sessions.append(&self.session, &new_records)?;
        // The turn is saved: what follows is bookkeeping, whose failures are logged, never
        // reported as a failed turn (the client would send the message again).
        if let Err(e) = self.after_save(vault, history.is_empty(), ignore_memory, upto) {
            tracing::warn!(session = %self.session, "after the turn: {e}");
        }
        let follow = if ignore_memory {
            FollowUp::Nothing
        } else {
            FollowUp::Extract {
                chat_wrote: !wrote.is_empty(),
            }
        };
        Ok((self.result(reply, false, recalled, wrote), follow))
    }

    async fn recall(
        &self,
        vault: &Vault,
        client: &Client,
        cancel: &CancellationToken,
    ) -> Result<RecallResult> {
        let req = RecallRequest {
            workspace: self.ws.id.clone(),
            query: self.text.clone(),
            already_surfaced: surfaced_of(&self.records),
            recent_tools: recent_tools_of(&self.records),
            ..RecallRequest::default()
        };
        match recall_with_model(vault, client, &req, Utc::now(), RECALL_TIMEOUT, cancel).await {
            Ok(r) => Ok(r),
            Err(_) => recall(vault, &req, Utc::now()),
        }
    }

    /// The first message names a chat still called "New chat" (a rename made meanwhile wins);
    /// an ignored turn moves the extract cursor past it when the cursor follows this session.
    fn after_save(&self, vault: &Vault, first: bool, ignored: bool, upto: u64) -> Result<()> {
        if first {
            let title: String = self.text.split_whitespace().collect::<Vec<_>>().join(" ");
            let title: String = title.chars().take(60).collect();
            self.sessions
                .retitle_if(&self.session, NEW_CHAT_TITLE, &title)?;
        }
        if ignored {
            let cursor = vault.cursor(&self.ws)?.value;
            if cursor.session_id == self.session {
                vault.save_cursor(&self.ws, &Cursor::at(&self.session, upto))?;
            }
        }
        Ok(())
    }

    fn result(
        &self,
        reply: String,
        command: bool,
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
        }
    }
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
        // The cursor follows the last session extracted; coming back to this one, resume from
        // this session's own mark rather than from its start.
        let cursor = vault.cursor(&ws)?.value;
        let mark = records.iter().rev().find_map(|r| match r {
            Record::Extracted { upto } => Some(*upto),
            _ => None,
        });
        if cursor.session_id != session_id
            && let Some(upto) = mark
        {
            vault.save_cursor(&ws, &Cursor::at(session_id, upto))?;
        }
        Ok((sessions, messages_of(&records)))
    });
    let (sessions, transcript) = match prepared {
        Ok(p) => p,
        Err(e) => return failed(&e),
    };
    let req = ExtractRequest {
        workspace,
        session_id,
        messages: &transcript,
        chat_wrote_memory,
        origin: ctx.origin,
    };
    let result = run_extract(vault, client, &req, cancel, |e| (ctx.on_event)(e))
        .await
        .unwrap_or_else(|e| failed(&e));
    if result.status != "failed" {
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

/// One whole chat turn with extraction inline (engine tests and embedders; the API schedules
/// extraction as a task instead). Same parts, no other logic.
pub async fn chat_turn(
    vault: &Vault,
    client: &Client,
    workspace: &str,
    session_id: &str,
    user_text: &str,
    cancel: &CancellationToken,
    on_event: impl FnMut(TurnEvent<'_>) + Send,
) -> Result<TurnResult> {
    let turn = Turn::open(vault, workspace, session_id, user_text)?;
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
