//! The model that comes with Mnemo, as the API serves it. When the person chose it in Settings
//! (`[llm] local = true`), or chose nothing and it is installed, it is the model in effect: the
//! client then carries a placeholder address until the first call, and [`ModelState::ready`]
//! starts the server on demand (the supervisor of `mnemo-local`, shared by every process of the
//! home) and points the client at it. This process holds a lease while it uses the server; the
//! server's watchdog stops it when no live process holds one, or when it is idle.

use std::path::Path;
use std::sync::{Arc, PoisonError};

use mnemo_core::{Error, ErrorCode, Result, TaskKind, TaskReason, TaskStatus};
use mnemo_llm::{Client, LlmSettings};
use mnemo_local::manifest::QWEN_CODER_1_5B;
use mnemo_local::{LocalError, Supervisor};
use mnemo_store::tasks::TaskResult;
use serde::{Deserialize, Serialize};
use specta::Type;

use crate::model::ModelState;
use crate::{Api, wire};

/// `MNEMO_LOCAL_MODEL=off`: never pick the local model unasked (test suites set it, so a
/// machine with the model installed runs them as any other).
pub const ENV_LOCAL: &str = "MNEMO_LOCAL_MODEL";
/// The address a client carries until the local server runs (port 0 is never listened on).
pub(crate) const PLACEHOLDER_URL: &str = "http://127.0.0.1:0/v1";

/// The local model, as Settings and `mnemo model status` show it.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
pub struct LocalModelInfo {
    /// The model's name.
    pub name: String,
    /// Its size in words ("1.1 GB").
    pub size: String,
    /// Its file is in the shared models folder.
    pub installed: bool,
    /// `llama-server` was found.
    pub server_found: bool,
    /// It is the model in effect.
    pub in_use: bool,
    /// Its server runs now (pid).
    pub pid: Option<u32>,
    /// The server's log.
    pub log: String,
    /// What to do before it can run, in a sentence (`None`: it can).
    pub missing: Option<String>,
}

/// Whether the local model is installed in the shared models folder.
#[must_use]
pub fn installed() -> bool {
    mnemo_local::models_dir().is_some_and(|m| mnemo_local::install::installed(&QWEN_CODER_1_5B, &m))
}

/// Whether the stored settings put the local model in effect (`env_url`: a base URL comes from
/// `MNEMO_LLM_BASE_URL`).
pub(crate) fn in_effect(stored: &LlmSettings, env_url: bool, is_installed: bool) -> bool {
    match stored.local {
        Some(chosen) => chosen,
        None => {
            !env_url
                && stored.base_url.trim().is_empty()
                && std::env::var(ENV_LOCAL).as_deref() != Ok("off")
                && is_installed
        }
    }
}

/// The settings a client for the local model starts with (placeholder address).
pub(crate) fn placeholder_settings(stored: &LlmSettings) -> LlmSettings {
    LlmSettings {
        base_url: PLACEHOLDER_URL.to_owned(),
        api_key: None,
        model: QWEN_CODER_1_5B.name.to_owned(),
        fast_model: String::new(),
        context_window: QWEN_CODER_1_5B.context,
        local: Some(true),
        ..stored.clone()
    }
}

pub(crate) fn supervisor(home: &Path) -> std::result::Result<Supervisor, LocalError> {
    let models = mnemo_local::models_dir().ok_or(LocalError::NotInstalled {
        size: mnemo_local::size_words(QWEN_CODER_1_5B.size()),
    })?;
    Supervisor::new(home, QWEN_CODER_1_5B, &models)
}

/// A supervisor error as the API says it.
/// An install task's result: the model is in place, and where.
fn installed_result(path: &Path) -> TaskResult {
    TaskResult {
        summary: format!(
            "{} ({}) is installed in {}",
            QWEN_CODER_1_5B.name,
            mnemo_local::size_words(QWEN_CODER_1_5B.size()),
            path.display()
        ),
        files: Vec::new(),
        group: None,
        touched_types: Vec::new(),
        dream: None,
        undone_by: None,
        proposal: None,
    }
}

pub(crate) fn error_of(e: &LocalError) -> Error {
    let code = match e {
        LocalError::NotInstalled { .. } | LocalError::NoServer => ErrorCode::ModelNotConfigured,
        _ => ErrorCode::ModelUnreachable,
    };
    Error::new(code, e.to_string())
}

impl ModelState {
    /// The client for a model call now: for the local model, its server started (or started
    /// again after a crash) and the client pointed at it.
    pub(crate) async fn ready(&self, home: &Path) -> Result<Arc<Client>> {
        let current = self.client();
        if !self.is_local() {
            return Ok(current);
        }
        let sup = supervisor(home).map_err(|e| error_of(&e))?;
        {
            // Held before the server starts, so its watchdog never finds it unused by anyone.
            let mut lease = self.lease.lock().unwrap_or_else(PoisonError::into_inner);
            if lease.is_none() {
                *lease = sup.lease().ok();
            }
        }
        let running = sup.ensure().await.map_err(|e| error_of(&e))?;
        let s = current.settings();
        if s.base_url == running.base_url && s.api_key.as_deref() == Some(running.key.as_str()) {
            return Ok(current);
        }
        let settings = LlmSettings {
            base_url: running.base_url,
            api_key: Some(running.key),
            model: running.model,
            ..s.clone()
        };
        let client = Arc::new(
            Client::with_profiles(settings, current.profiles().clone())
                .map_err(|e| mnemo_engine::chat::model_error(&e))?,
        );
        self.set_client(Arc::clone(&client));
        Ok(client)
    }

    /// A model error, said for the local model: its server ended during the call (a crash or a
    /// kill), and the next message starts it again.
    pub(crate) fn explain_local(&self, e: Error) -> Error {
        if !self.is_local() || e.code != ErrorCode::ModelUnreachable {
            return e;
        }
        Error::new(
            ErrorCode::ModelUnreachable,
            "the local model stopped during the reply (its server ended), so nothing was saved; \
             your next message starts it again. If it keeps stopping, `mnemo model status` names its log.",
        )
    }

    /// [`Self::ready`], waited for on this (blocking) thread.
    pub(crate) fn ready_blocking(self: &Arc<Self>, home: &Path) -> Result<Arc<Client>> {
        if !self.is_local() {
            return Ok(self.client());
        }
        let (me, home) = (Arc::clone(self), home.to_owned());
        self.runtime
            .block_on(async move { me.ready(&home).await })?
    }
}

// Commands take owned arguments: transports hand over values they deserialised.
impl Api {
    /// The local model: installed, found, in use, running.
    pub fn local_model(&self) -> Result<LocalModelInfo> {
        let home = &self.vault.home().root;
        // Installed or removed since this process read its settings (by another process, or
        // the install task): the model in effect follows.
        let is_installed = installed();
        if is_installed != self.model.local_installed() {
            self.model.refresh(home)?;
        }
        // Looked for once: it lists the cache folder.
        let server = mnemo_local::server::find_server();
        let found = server.is_some();
        let sup = mnemo_local::models_dir().map(|m| {
            Supervisor::with(
                home,
                QWEN_CODER_1_5B,
                QWEN_CODER_1_5B.path(&m),
                server.unwrap_or_default(),
            )
        });
        let missing = if !is_installed {
            Some(format!(
                "It is not installed yet: run `mnemo model install` ({} to fetch).",
                mnemo_local::size_words(QWEN_CODER_1_5B.size())
            ))
        } else if !found {
            Some(LocalError::NoServer.to_string())
        } else {
            None
        };
        Ok(LocalModelInfo {
            name: QWEN_CODER_1_5B.name.to_owned(),
            size: mnemo_local::size_words(QWEN_CODER_1_5B.size()),
            installed: is_installed,
            server_found: found,
            in_use: self.model.is_local(),
            pid: sup.as_ref().and_then(Supervisor::running).map(|s| s.pid),
            log: sup
                .map(|s| s.log_path().display().to_string())
                .unwrap_or_default(),
            missing,
        })
    }

    /// Start the local model's server now (it also starts on its own when a message needs it).
    pub fn local_model_start(&self) -> Result<LocalModelInfo> {
        let home = self.vault.home().root.clone();
        let sup = supervisor(&home).map_err(|e| error_of(&e))?;
        self.model
            .runtime
            .block_on(async move { sup.ensure().await })?
            .map_err(|e| error_of(&e))?;
        self.local_model()
    }

    /// Install the local model in the background, as a task (`model_install`) whose phase says
    /// how far it has got ("part 3 of 22: 157.3 MB of 1.1 GB, 21.4 MB/s, about 48 s left"); it
    /// can be cancelled (it stops before the next part, and the next install resumes there).
    /// Already installed: a task completed at once that says so.
    pub fn local_model_install(&self) -> Result<wire::TaskInfo> {
        let models = mnemo_local::models_dir().ok_or_else(|| {
            Error::new(
                ErrorCode::Io,
                "this system names no data folder for the shared models folder: set XDG_DATA_HOME",
            )
        })?;
        let (mut task, token) = self.tasks.create(TaskKind::ModelInstall, "*", None);
        let path = QWEN_CODER_1_5B.path(&models);
        if mnemo_local::install::installed(&QWEN_CODER_1_5B, &models) {
            // Nothing to fetch: said so at once, without a "Fetching" phase.
            task.phase = None;
            task.result = Some(installed_result(&path));
            self.tasks.finish(&mut task, TaskStatus::Completed, None);
            return Ok(task.into());
        }
        let started = task.clone();
        let api = self.clone();
        std::thread::Builder::new()
            .name("mnemo-model-install".into())
            .spawn(move || {
                task.set_status(TaskStatus::Running);
                task.phase = Some(format!(
                    "Fetching {} ({})",
                    QWEN_CODER_1_5B.name,
                    mnemo_local::size_words(QWEN_CODER_1_5B.size())
                ));
                api.tasks.save(&task);
                let probe = task.clone();
                let mut shown = task.clone();
                let out = mnemo_local::install_with(
                    &QWEN_CODER_1_5B,
                    &models,
                    &mnemo_local::wheel_cache(),
                    &mnemo_local::python(),
                    |p| {
                        shown.set_progress(p.line(), p.done, p.total);
                        api.tasks.save(&shown);
                    },
                    || api.tasks.cancelled(&probe, &token),
                );
                task.phase = shown.phase;
                task.progress = shown.progress;
                // The model in effect follows at once (nothing set: the local model now).
                if let Err(e) = api.model.refresh(&api.vault.home().root) {
                    tracing::warn!("reading the model settings again after the install: {e}");
                }
                match out {
                    Ok(path) => {
                        task.result = Some(installed_result(&path));
                        api.tasks.finish(&mut task, TaskStatus::Completed, None);
                    }
                    Err(e) => {
                        let reason =
                            matches!(e, LocalError::Stopped(..)).then_some(TaskReason::Cancelled);
                        task.error = Some(e.to_string());
                        api.tasks.finish(
                            &mut task,
                            TaskStatus::Failed,
                            reason.or(Some(TaskReason::Error)),
                        );
                    }
                }
            })
            .map_err(|e| Error::io("starting the install", &e))?;
        Ok(started.into())
    }

    /// Stop the local model's server (it starts again when a message needs it).
    pub fn local_model_stop(&self) -> Result<LocalModelInfo> {
        if let Some(m) = mnemo_local::models_dir() {
            Supervisor::with(
                &self.vault.home().root,
                QWEN_CODER_1_5B,
                QWEN_CODER_1_5B.path(&m),
                std::path::PathBuf::new(),
            )
            .stop();
        }
        self.local_model()
    }
}
