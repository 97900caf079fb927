//! The model side of the API: model settings and "Test connection", chat sessions and turns
//! (streamed to subscribers as [`ChatEvent`]s), and background extraction after each turn — one
//! run per workspace, coalescing (SPEC §4.1).
//!
//! The API stays synchronous for its transports: model work runs on a small runtime owned
//! here, and a command waits for its result on the caller's (blocking) thread.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};
use std::time::{Duration, Instant};

use mnemo_core::{Error, ErrorCode, Result};
use mnemo_engine::chat::{self, Record, SessionInfo, Sessions, TurnEvent, TurnResult};
use mnemo_engine::extract::{Admission, ExtractQueue, ExtractResult};
use mnemo_engine::{RecallResult, recall::RecallRequest};
use mnemo_llm::{CancellationToken, Client, Delta, LlmError, LlmSettings, Role};
use mnemo_store::Vault;
use mnemo_store::events::EventBus;
use serde::{Deserialize, Serialize};
use specta::Type;

use crate::Api;

/// Longest chat message accepted.
pub const MAX_MESSAGE_BYTES: usize = 100_000;
/// How long model recall may take before lexical recall answers instead.
const RECALL_TIMEOUT: Duration = Duration::from_secs(10);
/// How long "Test connection" waits.
const TEST_TIMEOUT: Duration = Duration::from_secs(30);
const NEW_CHAT: &str = "New chat";

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
        recall: RecallResult,
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
    },
    /// Background extraction finished.
    Extracted {
        /// Workspace.
        workspace: String,
        /// Session.
        session: String,
        /// What it wrote.
        result: ExtractResult,
    },
}

/// Model settings as clients see and change them. The key is write-only.
#[derive(Clone, Default, Serialize, Deserialize, Type)]
pub struct ModelSettings {
    /// OpenAI-compatible base URL, e.g. `http://127.0.0.1:11434/v1` (empty: no model).
    pub base_url: String,
    /// Main model (chat, extraction).
    pub model: String,
    /// Fast model for side queries such as recall (empty: the main model).
    pub fast_model: String,
    /// Context window in tokens.
    pub context_window: u32,
    /// Seconds to wait for an answer.
    pub timeout_secs: u32,
    /// On write: a new key (`""` removes it; `null` keeps the stored one). Never sent back.
    pub api_key: Option<String>,
    /// Read-only: a key is set.
    #[serde(default)]
    pub has_key: bool,
    /// Read-only: a base URL and model are set.
    #[serde(default)]
    pub configured: bool,
    /// Read-only: `MNEMO_LLM_*` variables overriding the stored values.
    #[serde(default)]
    pub env_overrides: Vec<String>,
}

impl std::fmt::Debug for ModelSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelSettings")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("fast_model", &self.fast_model)
            .field("context_window", &self.context_window)
            .field("timeout_secs", &self.timeout_secs)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("has_key", &self.has_key)
            .field("configured", &self.configured)
            .field("env_overrides", &self.env_overrides)
            .finish()
    }
}

/// The answer to "Test connection".
#[derive(Debug, Clone, Serialize, Type)]
pub struct ModelTest {
    /// Model that answered.
    pub model: String,
    /// What it said.
    pub reply: String,
    /// Round trip in milliseconds.
    pub latency_ms: u32,
}

/// One message of a transcript.
#[derive(Debug, Clone, Serialize, Type)]
pub struct ChatLine {
    /// `user` or `assistant`.
    pub role: String,
    /// Text.
    pub text: String,
    /// When (RFC 3339).
    pub at: String,
    /// For an assistant message: the memories recall put in the prompt for that turn.
    pub recalled: Vec<String>,
    /// For an assistant message: memory files written after it (by the chat model itself or
    /// by extraction).
    pub wrote: Vec<String>,
}

/// A session with its messages.
#[derive(Debug, Clone, Serialize, Type)]
pub struct ChatTranscript {
    /// The session.
    pub session: SessionInfo,
    /// Its messages, oldest first.
    pub messages: Vec<ChatLine>,
}

#[derive(Debug, Clone)]
struct ExtractJob {
    session: String,
    chat_wrote: bool,
}

/// A runtime that may be dropped anywhere (also inside another runtime).
struct BgRuntime(Option<tokio::runtime::Runtime>);

impl Drop for BgRuntime {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

/// Model state shared by every clone of the API.
pub(crate) struct ModelState {
    client: RwLock<Arc<Client>>,
    env_overrides: RwLock<Vec<String>>,
    runtime: OnceLock<std::result::Result<BgRuntime, String>>,
    queue: Mutex<ExtractQueue<Vec<ExtractJob>>>,
    /// Settings changes take turns (read-modify-write of settings.toml).
    saving: Mutex<()>,
    turns: Mutex<HashMap<String, CancellationToken>>,
    bus: EventBus<ChatEvent>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn effective_settings(home: &std::path::Path) -> (LlmSettings, Vec<String>) {
    match LlmSettings::load_stored(home) {
        Ok(mut s) => {
            let env = s.apply_env().into_iter().map(str::to_owned).collect();
            (s, env)
        }
        Err(e) => {
            tracing::warn!("model settings unreadable, chat is off until fixed: {e}");
            (LlmSettings::default(), Vec::new())
        }
    }
}

fn client_for(settings: LlmSettings) -> Result<Client> {
    Client::new(settings).map_err(|e| chat::model_error(&e))
}

impl ModelState {
    pub(crate) fn load(home: &std::path::Path) -> Result<Self> {
        let (settings, env) = effective_settings(home);
        Ok(Self {
            client: RwLock::new(Arc::new(client_for(settings)?)),
            env_overrides: RwLock::new(env),
            runtime: OnceLock::new(),
            queue: Mutex::new(ExtractQueue::default()),
            saving: Mutex::new(()),
            turns: Mutex::new(HashMap::new()),
            bus: EventBus::default(),
        })
    }

    fn client(&self) -> Arc<Client> {
        Arc::clone(&self.client.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn runtime(&self) -> Result<&tokio::runtime::Runtime> {
        let rt = self.runtime.get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("mnemo-model")
                .enable_all()
                .build()
                .map(|rt| BgRuntime(Some(rt)))
                .map_err(|e| e.to_string())
        });
        match rt {
            Ok(BgRuntime(Some(rt))) => Ok(rt),
            Ok(BgRuntime(None)) => Err(Error::new(ErrorCode::Io, "the model runtime stopped")),
            Err(e) => Err(Error::new(
                ErrorCode::Io,
                format!("cannot start the model runtime: {e}"),
            )),
        }
    }

    /// Run a future on the model runtime and wait for it on this (blocking) thread.
    fn block_on<F>(&self, fut: F) -> Result<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (tx, rx) = std::sync::mpsc::channel();
        self.runtime()?.spawn(async move {
            let _ = tx.send(fut.await);
        });
        rx.recv()
            .map_err(|_| Error::new(ErrorCode::Io, "the model task stopped unexpectedly"))
    }
}

/// A reply being written; leaves `turns` when dropped.
struct Running<'a> {
    turns: &'a Mutex<HashMap<String, CancellationToken>>,
    session: &'a str,
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        lock(self.turns).remove(self.session);
    }
}

fn check_message(message: &str) -> Result<()> {
    if message.len() > MAX_MESSAGE_BYTES {
        return Err(Error::new(
            ErrorCode::TooLarge,
            format!("a chat message may be at most {MAX_MESSAGE_BYTES} bytes"),
        ));
    }
    Ok(())
}

fn check_settings(s: &ModelSettings) -> Result<()> {
    let url = s.base_url.trim();
    if !(url.is_empty() || url.starts_with("http://") || url.starts_with("https://")) {
        return Err(Error::usage(format!(
            "the base URL `{url}` must start with http:// or https:// (e.g. http://127.0.0.1:11434/v1)"
        )));
    }
    if !url.is_empty() && s.model.trim().is_empty() {
        return Err(Error::usage("name the model to use with this base URL"));
    }
    if !(1024..=10_000_000).contains(&s.context_window) {
        return Err(Error::usage(
            "the context window must be between 1,024 and 10,000,000 tokens",
        ));
    }
    if !(1..=3600).contains(&s.timeout_secs) {
        return Err(Error::usage(
            "the timeout must be between 1 and 3,600 seconds",
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

    /// The model settings in effect (the key is never returned).
    pub fn get_model_settings(&self) -> Result<ModelSettings> {
        let client = self.model.client();
        let s = client.settings();
        Ok(ModelSettings {
            base_url: s.base_url.clone(),
            model: s.model.clone(),
            fast_model: s.fast_model.clone(),
            context_window: s.context_window,
            timeout_secs: u32::try_from(s.timeout_secs).unwrap_or(u32::MAX),
            api_key: None,
            has_key: s.api_key.is_some(),
            configured: s.is_configured(),
            env_overrides: self
                .model
                .env_overrides
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
        })
    }

    /// Store new model settings (`[llm]` in settings.toml, the key in `llm.key`, 0600) and use
    /// them from now on. Environment overrides still win, and are never written.
    pub fn set_model_settings(&self, settings: ModelSettings) -> Result<ModelSettings> {
        check_settings(&settings)?;
        let _saving = lock(&self.model.saving);
        let home = &self.vault.home().root;
        let mut stored = LlmSettings::load_stored(home)?;
        // A field overridden by a MNEMO_LLM_* variable keeps its stored value: clients send
        // back what they were shown (the effective value), which must not reach the disk.
        let overridden = LlmSettings::default().apply_env();
        let free = |var: &str| !overridden.contains(&var);
        if free("MNEMO_LLM_BASE_URL") {
            stored.base_url = settings.base_url.trim().to_owned();
        }
        if free("MNEMO_LLM_MODEL") {
            stored.model = settings.model.trim().to_owned();
        }
        if free("MNEMO_LLM_FAST_MODEL") {
            stored.fast_model = settings.fast_model.trim().to_owned();
        }
        stored.context_window = settings.context_window;
        stored.timeout_secs = u64::from(settings.timeout_secs);
        if let Some(k) = settings.api_key
            && free("MNEMO_LLM_API_KEY")
        {
            stored.api_key = Some(k.trim().to_owned()).filter(|k| !k.is_empty());
        }
        stored.save(home)?;
        let (effective, env) = effective_settings(home);
        *self
            .model
            .client
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(client_for(effective)?);
        *self
            .model
            .env_overrides
            .write()
            .unwrap_or_else(PoisonError::into_inner) = env;
        tracing::info!("model settings changed");
        self.get_model_settings()
    }

    /// "Test connection": a one-token request to the main model.
    pub fn test_model(&self) -> Result<ModelTest> {
        let client = self.model.client();
        if !client.settings().is_configured() {
            return Err(chat::model_error(&LlmError::NotConfigured));
        }
        let started = Instant::now();
        let c = Arc::clone(&client);
        let reply = self.model.block_on(async move {
            let cancel = CancellationToken::new();
            match tokio::time::timeout(TEST_TIMEOUT, c.test_connection(&cancel)).await {
                Ok(r) => r,
                Err(_) => Err(LlmError::Timeout(TEST_TIMEOUT.as_secs())),
            }
        })?;
        let reply = reply.map_err(|e| chat::model_error(&e))?;
        Ok(ModelTest {
            model: client.settings().model.clone(),
            reply,
            latency_ms: u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX),
        })
    }

    /// Chat sessions of a workspace, most recent first.
    pub fn chat_sessions(&self, workspace: String) -> Result<Vec<SessionInfo>> {
        self.sessions(&workspace)?.list()
    }

    /// Start a chat session.
    pub fn chat_create(&self, workspace: String, title: Option<String>) -> Result<SessionInfo> {
        let sessions = self.sessions(&workspace)?;
        let id = sessions.create(title.as_deref().unwrap_or(NEW_CHAT))?;
        sessions.info(&id)
    }

    /// A session's messages.
    pub fn chat_transcript(&self, workspace: String, session: String) -> Result<ChatTranscript> {
        let sessions = self.sessions(&workspace)?;
        let info = sessions.info(&session)?;
        let mut messages: Vec<ChatLine> = Vec::new();
        for r in sessions.records(&session)? {
            match r {
                Record::Message { at, message } => {
                    let role = match message.role {
                        Role::User => "user",
                        Role::Assistant => "assistant",
                        _ => continue,
                    };
                    messages.push(ChatLine {
                        role: role.to_owned(),
                        text: message.content.unwrap_or_default(),
                        at,
                        recalled: Vec::new(),
                        wrote: Vec::new(),
                    });
                }
                Record::Recalled { paths } => {
                    if let Some(last) = messages.iter_mut().rev().find(|m| m.role == "assistant") {
                        last.recalled = paths;
                    }
                }
                Record::Wrote { upto, paths } => {
                    // The reply at that position (or the last one before it).
                    let at = usize::try_from(upto)
                        .unwrap_or(usize::MAX)
                        .min(messages.len());
                    if let Some(reply) = messages[..at]
                        .iter_mut()
                        .rev()
                        .find(|m| m.role == "assistant")
                    {
                        for p in paths {
                            if !reply.wrote.contains(&p) {
                                reply.wrote.push(p);
                            }
                        }
                    }
                }
                Record::Meta { .. } | Record::Extracted { .. } | Record::Tools { .. } => {}
            }
        }
        Ok(ChatTranscript {
            session: info,
            messages,
        })
    }

    /// Rename a session and/or set "ignore memory for this chat".
    pub fn chat_update(
        &self,
        workspace: String,
        session: String,
        title: Option<String>,
        ignore_memory: Option<bool>,
    ) -> Result<SessionInfo> {
        if let Some(t) = &title
            && t.trim().is_empty()
        {
            return Err(Error::usage("a chat's title cannot be empty"));
        }
        let sessions = self.sessions(&workspace)?;
        sessions.update_meta(&session, title.as_deref(), ignore_memory)?;
        sessions.info(&session)
    }

    /// Delete a session.
    pub fn chat_delete(&self, workspace: String, session: String) -> Result<()> {
        self.sessions(&workspace)?.delete(&session)
    }

    /// Stop the reply being written in a session. `false`: nothing was running.
    pub fn chat_cancel(&self, session: String) -> Result<bool> {
        Ok(match lock(&self.model.turns).get(&session) {
            Some(t) => {
                t.cancel();
                true
            }
            None => false,
        })
    }

    /// One chat turn: recall, the streamed reply (as `delta` events), saved to the session;
    /// extraction follows in the background (`extracting` / `extracted` events). `/memory`
    /// answers with the memory status and needs no model.
    pub fn chat_send(
        &self,
        workspace: String,
        session: String,
        message: String,
    ) -> Result<TurnResult> {
        check_message(&message)?;
        let sessions = self.sessions(&workspace)?;
        let info = sessions.info(&session)?;
        let cancel = CancellationToken::new();
        {
            let mut turns = lock(&self.model.turns);
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
        let result = self.run_turn(&workspace, &session, &message, &cancel);
        drop(running);
        let turn = result?;
        // The turn is saved: what follows is bookkeeping, whose failures are logged, never
        // reported as a failed turn (the client would send the message again).
        if let Err(e) = self.after_turn(&workspace, &session, &message, info.messages, &turn) {
            tracing::warn!(workspace, session, "after the turn: {e}");
        }
        Ok(turn)
    }

    fn after_turn(
        &self,
        workspace: &str,
        session: &str,
        message: &str,
        messages_before: u32,
        turn: &TurnResult,
    ) -> Result<()> {
        if turn.command {
            return Ok(());
        }
        let sessions = self.sessions(workspace)?;
        // Re-read: the chat may have been renamed while the reply was written.
        let info = sessions.info(session)?;
        if messages_before == 0 && info.title == NEW_CHAT {
            let title: String = message.split_whitespace().collect::<Vec<_>>().join(" ");
            let title: String = title.chars().take(60).collect();
            sessions.update_meta(session, Some(&title), None)?;
        }
        if chat::wants_extraction(&self.vault, workspace, turn)? {
            self.schedule_extract(
                workspace,
                ExtractJob {
                    session: session.to_owned(),
                    chat_wrote: !turn.wrote.is_empty(),
                },
            );
        } else {
            chat::settle_ignored_turn(&self.vault, workspace, session)?;
        }
        Ok(())
    }

    fn run_turn(
        &self,
        workspace: &str,
        session: &str,
        message: &str,
        cancel: &CancellationToken,
    ) -> Result<TurnResult> {
        if !self.watching() {
            self.vault.sync(&self.vault.workspace(workspace)?)?;
        }
        let (vault, model, client) = (
            Arc::clone(&self.vault),
            Arc::clone(&self.model),
            self.model.client(),
        );
        let (ws, id, text, cancel) = (
            workspace.to_owned(),
            session.to_owned(),
            message.to_owned(),
            cancel.clone(),
        );
        self.model.block_on(async move {
            let emit = |ev: TurnEvent<'_>| {
                let (workspace, session) = (ws.clone(), id.clone());
                let ev = match ev {
                    TurnEvent::Recalled(r) => ChatEvent::Recalled {
                        workspace,
                        session,
                        recall: r.clone(),
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
            chat::chat_reply(&vault, &client, &ws, &id, &text, &cancel, emit).await
        })?
    }

    fn schedule_extract(&self, workspace: &str, job: ExtractJob) {
        // One waiting job per session: a newer request for the same session replaces its
        // waiting one; other sessions' waiting jobs are kept.
        let admission = lock(&self.model.queue).request_merge(
            workspace,
            vec![job.clone()],
            |mut waiting, new| {
                for j in new {
                    waiting.retain(|w| w.session != j.session);
                    waiting.push(j);
                }
                waiting
            },
        );
        if let Admission::Queued { replaced } = admission {
            tracing::debug!(
                workspace,
                replaced,
                "extraction queued behind a running one"
            );
            return;
        }
        let (vault, model, ws) = (
            Arc::clone(&self.vault),
            Arc::clone(&self.model),
            workspace.to_owned(),
        );
        let runner = async move {
            let mut next = Some(vec![job]);
            while let Some(jobs) = next {
                for job in jobs {
                    let (vault, model2, ws2) = (Arc::clone(&vault), Arc::clone(&model), ws.clone());
                    let session = job.session.clone();
                    // Its own task: a panic in one run is reported and the queue moves on.
                    let run = tokio::spawn(async move {
                        model2.bus.emit(&ChatEvent::Extracting {
                            workspace: ws2.clone(),
                            session: job.session.clone(),
                        });
                        let client = model2.client();
                        chat::extract_after_turn(
                            &vault,
                            &client,
                            &ws2,
                            &job.session,
                            job.chat_wrote,
                            &CancellationToken::new(),
                        )
                        .await
                    });
                    let result = run.await.unwrap_or_else(|e| {
                        ExtractResult::failed(format!("extraction stopped unexpectedly: {e}"))
                    });
                    tracing::info!(
                        workspace = %ws,
                        status = %result.status,
                        written = result.files_written.len(),
                        "extraction finished"
                    );
                    model.bus.emit(&ChatEvent::Extracted {
                        workspace: ws.clone(),
                        session,
                        result,
                    });
                }
                next = lock(&model.queue).finished(&ws);
            }
        };
        match self.model.runtime() {
            Ok(rt) => {
                rt.spawn(runner);
            }
            Err(e) => {
                tracing::warn!("extraction could not start: {e}");
                lock(&self.model.queue).finished(workspace);
            }
        }
    }

    /// Recall for a message: through the fast model when one is configured (unless `lexical`),
    /// else lexical — what would be injected into the system prompt, and why.
    pub fn recall(
        &self,
        workspace: String,
        query: String,
        already_surfaced: Option<Vec<String>>,
        lexical: Option<bool>,
    ) -> Result<RecallResult> {
        check_message(&query)?;
        if !self.watching() {
            self.vault.sync(&self.vault.workspace(&workspace)?)?;
        }
        let req = RecallRequest {
            workspace,
            query,
            already_surfaced: already_surfaced.unwrap_or_default(),
            ..RecallRequest::default()
        };
        let client = self.model.client();
        if lexical == Some(true) || !client.settings().is_configured() {
            return mnemo_engine::recall(&self.vault, &req, chrono::Utc::now());
        }
        let vault: Arc<Vault> = Arc::clone(&self.vault);
        self.model.block_on(async move {
            mnemo_engine::recall_with_model(
                &vault,
                &client,
                &req,
                chrono::Utc::now(),
                RECALL_TIMEOUT,
                &CancellationToken::new(),
            )
            .await
        })?
    }
}
