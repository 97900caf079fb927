//! The model side of the API: the current client (rebuilt when model settings are saved),
//! model settings and "Test connection", recall through the fast model, and the shared state
//! chat turns and background extraction use.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use mnemo_core::{Error, Result};
use mnemo_engine::chat;
use mnemo_engine::recall::RecallRequest;
use mnemo_llm::{CancellationToken, Client, LlmError, LlmSettings};
use mnemo_store::Vault;
use mnemo_store::events::EventBus;
use mnemo_store::settings as stored;
use mnemo_sync::VaultSync;
use serde::{Deserialize, Serialize};
use specta::Type;

use crate::Api;
use crate::chat::{ChatEvent, check_message};
use crate::extract::Queue;
use crate::runtime::Runtime;

/// How long model recall may take before lexical recall answers instead.
const RECALL_TIMEOUT: Duration = Duration::from_secs(10);
/// How long "Test connection" waits.
const TEST_TIMEOUT: Duration = Duration::from_secs(30);

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
    /// How extraction and remember write: `auto`, `tools` or `planner` (on write: `null` keeps
    /// the stored value).
    #[serde(default)]
    pub extraction: Option<String>,
    /// Read-only: the way the model in effect gets now, and why (`None`: no model).
    #[serde(default)]
    pub extraction_choice: Option<crate::wire::Choice>,
    /// Use the model that comes with Mnemo, on this computer, instead of the server above
    /// (`null`: as stored — on read, `null` means "when no server is set").
    #[serde(default)]
    pub local: Option<bool>,
    /// Read-only: the local model is the one in effect.
    #[serde(default)]
    pub local_in_use: bool,
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
            .field("extraction", &self.extraction)
            .field("local", &self.local)
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

/// Model state shared by every clone of the API.
pub(crate) struct ModelState {
    client: RwLock<Arc<Client>>,
    /// What is learnt of each server + model, kept across settings changes and shared by
    /// every client this state makes (trial clients included).
    profiles: mnemo_llm::Profiles,
    env_overrides: RwLock<Vec<String>>,
    pub(crate) runtime: Runtime,
    pub(crate) queue: Queue,
    /// Settings changes take turns (read-modify-write of the stored settings).
    saving: Mutex<()>,
    /// Replies being written, by session: their cancel tokens.
    pub(crate) turns: Mutex<HashMap<String, CancellationToken>>,
    pub(crate) bus: EventBus<ChatEvent>,
    /// The local model is the one in effect.
    local: std::sync::atomic::AtomicBool,
    /// Whether the local model was installed when the settings were last read.
    local_installed: std::sync::atomic::AtomicBool,
    /// This process's use of the local model's server (let go when the process ends).
    pub(crate) lease: Mutex<Option<mnemo_local::server::Lease>>,
}

/// What is stored (`[llm]` and the key), without environment overrides.
fn load_stored(home: &std::path::Path) -> Result<LlmSettings> {
    LlmSettings::from_stored(stored::read_section(home, "llm")?, stored::read_key(home))
}

/// What the settings in effect are, as read from the home and the models folder.
struct Effective {
    settings: LlmSettings,
    /// The environment overrides used.
    env: Vec<String>,
    /// They are the local model's (its client then carries a placeholder address until
    /// [`ModelState::ready`]).
    local: bool,
    /// The local model was installed when they were read.
    installed: bool,
}

fn effective_settings(home: &std::path::Path) -> Effective {
    let installed = crate::local_model::installed();
    match load_stored(home) {
        Ok(stored) => {
            let mut s = stored.clone();
            let env: Vec<String> = s.apply_env().into_iter().map(str::to_owned).collect();
            let env_url = env.iter().any(|v| v == "MNEMO_LLM_BASE_URL");
            let local = crate::local_model::in_effect(&stored, env_url, installed);
            Effective {
                settings: if local {
                    crate::local_model::placeholder_settings(&stored)
                } else {
                    s
                },
                env,
                local,
                installed,
            }
        }
        Err(e) => {
            tracing::warn!("model settings unreadable, chat is off until fixed: {e}");
            Effective {
                settings: LlmSettings::default(),
                env: Vec::new(),
                local: false,
                installed,
            }
        }
    }
}

fn client_for(settings: LlmSettings, profiles: &mnemo_llm::Profiles) -> Result<Client> {
    Client::with_profiles(settings, profiles.clone()).map_err(|e| chat::model_error(&e))
}

impl ModelState {
    pub(crate) fn load(home: &std::path::Path) -> Result<Self> {
        let e = effective_settings(home);
        let profiles = mnemo_llm::Profiles::default();
        Ok(Self {
            client: RwLock::new(Arc::new(client_for(e.settings, &profiles)?)),
            profiles,
            local: std::sync::atomic::AtomicBool::new(e.local),
            local_installed: std::sync::atomic::AtomicBool::new(e.installed),
            lease: Mutex::new(None),
            env_overrides: RwLock::new(e.env),
            runtime: Runtime::default(),
            queue: Mutex::default(),
            saving: Mutex::new(()),
            turns: Mutex::new(HashMap::new()),
            bus: EventBus::default(),
        })
    }

    pub(crate) fn client(&self) -> Arc<Client> {
        Arc::clone(&self.client.read().unwrap_or_else(PoisonError::into_inner))
    }

    pub(crate) fn set_client(&self, client: Arc<Client>) {
        *self.client.write().unwrap_or_else(PoisonError::into_inner) = client;
    }

    /// Read the settings in effect again (after a save, or the local model's install): the
    /// client, whether it is the local model's, the environment overrides.
    pub(crate) fn refresh(&self, home: &std::path::Path) -> Result<()> {
        let e = effective_settings(home);
        self.set_client(Arc::new(client_for(e.settings, &self.profiles)?));
        self.local
            .store(e.local, std::sync::atomic::Ordering::SeqCst);
        self.local_installed
            .store(e.installed, std::sync::atomic::Ordering::SeqCst);
        *self
            .env_overrides
            .write()
            .unwrap_or_else(PoisonError::into_inner) = e.env;
        Ok(())
    }

    /// Whether the local model was installed when the settings were last read.
    pub(crate) fn local_installed(&self) -> bool {
        self.local_installed
            .load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The local model is the one in effect.
    pub(crate) fn is_local(&self) -> bool {
        self.local.load(std::sync::atomic::Ordering::SeqCst)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn check_settings(s: &ModelSettings) -> Result<()> {
    check_server(s)?;
    if let Some(e) = &s.extraction {
        mnemo_llm::Extraction::parse(e)?;
    }
    if !s.base_url.trim().is_empty() && s.model.trim().is_empty() {
        return Err(Error::usage("name the model to use with this base URL"));
    }
    Ok(())
}

/// What every use of settings needs, a model name aside (listing the server's models).
fn check_server(s: &ModelSettings) -> Result<()> {
    let url = s.base_url.trim();
    if !(url.is_empty() || url.starts_with("http://") || url.starts_with("https://")) {
        return Err(Error::usage(format!(
            "the base URL `{url}` must start with http:// or https:// (e.g. http://127.0.0.1:11434/v1)"
        )));
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
    /// The model settings in effect (the key is never returned).
    pub fn get_model_settings(&self) -> Result<ModelSettings> {
        let client = self.model.client();
        let local = self.model.is_local();
        let stored = load_stored(&self.vault.home().root).unwrap_or_default();
        // The local model's client carries its server's address: the form shows the person's own.
        let shown = if local {
            let mut s = stored.clone();
            s.apply_env();
            s
        } else {
            client.settings().clone()
        };
        let s = &shown;
        Ok(ModelSettings {
            base_url: s.base_url.clone(),
            model: s.model.clone(),
            fast_model: s.fast_model.clone(),
            context_window: s.context_window,
            timeout_secs: u32::try_from(s.timeout_secs).unwrap_or(u32::MAX),
            api_key: None,
            has_key: s.api_key.is_some(),
            configured: local || s.is_configured(),
            env_overrides: self
                .model
                .env_overrides
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
            extraction: Some(s.extraction.as_str().to_owned()),
            extraction_choice: (local || s.is_configured()).then(|| {
                mnemo_engine::planner::choice::current(&self.vault.home().root, &client).into()
            }),
            local: stored.local,
            local_in_use: local,
        })
    }

    /// Store new model settings (`[llm]` in settings.toml, the key in `llm.key`, 0600) and use
    /// them from now on. Environment overrides still win, and are never written.
    pub fn set_model_settings(&self, settings: ModelSettings) -> Result<ModelSettings> {
        check_settings(&settings)?;
        let _saving = lock(&self.model.saving);
        let home = &self.vault.home().root;
        // A field overridden by a MNEMO_LLM_* variable keeps its stored value: clients send
        // back what they were shown (the effective value), which must not reach the disk.
        let overridden = LlmSettings::default().apply_env();
        let free = |var: &str| !overridden.contains(&var);
        // Read and written under the settings lock: another process's change is never lost.
        stored::update_section(home, "llm", |old| {
            let mut s = LlmSettings::from_stored(old, stored::read_key(home))?;
            // A key belongs to the server it was given for: a new base URL without a key of its
            // own drops the stored one, so it is never sent to another host.
            let moved = free("MNEMO_LLM_BASE_URL")
                && !s.base_url.trim().is_empty()
                && s.base_url.trim().trim_end_matches('/')
                    != settings.base_url.trim().trim_end_matches('/');
            if free("MNEMO_LLM_BASE_URL") {
                s.base_url = settings.base_url.trim().to_owned();
            }
            if free("MNEMO_LLM_MODEL") {
                s.model = settings.model.trim().to_owned();
            }
            if free("MNEMO_LLM_FAST_MODEL") {
                s.fast_model = settings.fast_model.trim().to_owned();
            }
            s.context_window = settings.context_window;
            s.timeout_secs = u64::from(settings.timeout_secs);
            if let Some(e) = &settings.extraction {
                s.extraction = mnemo_llm::Extraction::parse(e)?;
            }
            if settings.local.is_some() {
                s.local = settings.local;
            }
            if let Some(k) = &settings.api_key
                && free("MNEMO_LLM_API_KEY")
            {
                stored::write_key(home, Some(k.trim()).filter(|k| !k.is_empty()))?;
            } else if moved && free("MNEMO_LLM_API_KEY") {
                tracing::info!("the model's base URL changed: the stored key was dropped");
                stored::write_key(home, None)?;
            }
            s.to_stored().map(Some)
        })?;
        self.model.refresh(home)?;
        tracing::info!("model settings changed");
        self.get_model_settings()
    }

    /// "Test connection": a one-token request to the main model. With `settings`, the values a
    /// person is still editing are tried as they would be saved (same key rules, environment
    /// overrides still win) and **nothing is written**; without, the settings in effect.
    pub fn test_model(&self, settings: Option<ModelSettings>) -> Result<ModelTest> {
        let client = match settings {
            None => self.model.ready_blocking(&self.vault.home().root)?,
            Some(given) => {
                check_settings(&given)?;
                Arc::new(client_for(
                    self.trial_settings(&given),
                    &self.model.profiles,
                )?)
            }
        };
        if !client.settings().is_configured() {
            return Err(chat::model_error(&LlmError::NotConfigured));
        }
        let started = Instant::now();
        let c = Arc::clone(&client);
        let reply = self.model.runtime.block_on(async move {
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

    /// The models the server offers (`GET {base_url}/models`), for the settings being edited
    /// (`settings`, tried as [`Api::test_model`] tries them: nothing is written) or those in
    /// effect. Only the base URL (and key) are needed: the model may still be unset.
    pub fn model_list(&self, settings: Option<ModelSettings>) -> Result<Vec<String>> {
        let client = match settings {
            None => self.model.ready_blocking(&self.vault.home().root)?,
            Some(given) => {
                check_server(&given)?;
                Arc::new(client_for(
                    self.trial_settings(&given),
                    &self.model.profiles,
                )?)
            }
        };
        if client.settings().base_url.trim().is_empty() {
            return Err(chat::model_error(&LlmError::NotConfigured));
        }
        let c = Arc::clone(&client);
        let listed = self.model.runtime.block_on(async move {
            let cancel = CancellationToken::new();
            match tokio::time::timeout(TEST_TIMEOUT, c.list_models(&cancel)).await {
                Ok(r) => r,
                Err(_) => Err(LlmError::Timeout(TEST_TIMEOUT.as_secs())),
            }
        })?;
        listed.map_err(|e| chat::model_error(&e))
    }

    /// The settings `given` would put in effect, without saving them: the key rules of
    /// [`Api::set_model_settings`] (a new base URL without a key of its own has no key).
    fn trial_settings(&self, given: &ModelSettings) -> LlmSettings {
        let current = self.model.client().settings().clone();
        let overridden = LlmSettings::default().apply_env();
        let free = |var: &str| !overridden.contains(&var);
        let mut s = current.clone();
        if free("MNEMO_LLM_BASE_URL") {
            s.base_url = given.base_url.trim().to_owned();
        }
        if free("MNEMO_LLM_MODEL") {
            s.model = given.model.trim().to_owned();
        }
        if free("MNEMO_LLM_FAST_MODEL") {
            s.fast_model = given.fast_model.trim().to_owned();
        }
        s.context_window = given.context_window;
        s.timeout_secs = u64::from(given.timeout_secs);
        let moved = current.base_url.trim().trim_end_matches('/')
            != s.base_url.trim().trim_end_matches('/');
        if free("MNEMO_LLM_API_KEY") {
            if let Some(k) = &given.api_key {
                s.api_key = Some(k.trim().to_owned()).filter(|k| !k.is_empty());
            } else if moved {
                s.api_key = None;
            }
        }
        s
    }

    /// Recall for a message: through the fast model when one is configured (unless `lexical`),
    /// else lexical — what would be injected into the system prompt, and why.
    pub fn recall(
        &self,
        workspace: String,
        query: String,
        already_surfaced: Option<Vec<String>>,
        lexical: Option<bool>,
    ) -> Result<crate::wire::RecallResult> {
        check_message(&query)?;
        if !self.watching() {
            self.vault.sync(&self.vault.workspace(&workspace)?)?;
        }
        let query_vector = if lexical == Some(true) || !self.hybrid_worthwhile(Some(&workspace)) {
            None
        } else {
            self.query_vector(&query)
        };
        if query_vector.is_some() && !self.watching() {
            self.embed_inline(Some(&workspace));
        }
        let req = RecallRequest {
            conflicted: self.vault.open_conflicts(&workspace),
            workspace,
            query,
            already_surfaced: already_surfaced.unwrap_or_default(),
            query_vector,
            ..RecallRequest::default()
        };
        if lexical == Some(true) || !self.model.client().settings().is_configured() {
            return mnemo_engine::recall(&self.vault, &req, chrono::Utc::now()).map(Into::into);
        }
        let client = self.model.ready_blocking(&self.vault.home().root)?;
        let vault: Arc<Vault> = Arc::clone(&self.vault);
        self.model
            .runtime
            .block_on(async move {
                mnemo_engine::recall_with_model(
                    &vault,
                    &client,
                    &req,
                    chrono::Utc::now(),
                    chat::recall_timeout(&client).max(RECALL_TIMEOUT),
                    &CancellationToken::new(),
                )
                .await
            })?
            .map(Into::into)
    }
}
