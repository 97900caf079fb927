//! Local embeddings for hybrid recall: the model is found and loaded
//! once per process ([`mnemo_embed::Embedder::discover`]); vectors are filled in the background
//! (a watching process: after start and after every change) or, in a one-shot process, before a
//! search when only a few are missing. A long fill is a visible `embed` task with progress
//! ("Embedding 3,210 / 10,000"). Without a model everything stays lexical, and `status` says so
//! and how to install one.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use mnemo_core::{Error, ErrorCode, Result, TaskKind, TaskReason, TaskStatus};
use mnemo_embed::{EmbedError, Embedder};
use mnemo_engine::recall::QueryVector;
use mnemo_store::Vault;
use mnemo_store::tasks::{TaskInfo, TaskResult};

use crate::Api;
use crate::wire::{self, Semantic, SemanticState};

/// A one-shot search embeds at most this many missing memories first; more is left to
/// `mnemo embed` or a running app.
pub(crate) const INLINE_MAX: u64 = 64;
/// Fills of at least this many show as an `embed` task (smaller ones run quietly).
const TASK_MIN: u64 = 20;

/// Why there is no model.
#[derive(Debug, Clone)]
pub(crate) struct Unavailable {
    state: SemanticState,
    message: String,
}

/// The process's embedding state, shared by every clone of the API.
#[derive(Default)]
pub(crate) struct Embeddings {
    model: OnceLock<std::result::Result<Arc<Embedder>, Unavailable>>,
    running: Mutex<Option<String>>,
    /// The background fill loop was started (once per process).
    looping: std::sync::atomic::AtomicBool,
}

impl Embeddings {
    /// The model, loading it on first use (once per process and model folder: every `Api` of
    /// the process shares it).
    pub(crate) fn model(
        &self,
        home: &std::path::Path,
    ) -> std::result::Result<Arc<Embedder>, Unavailable> {
        self.model.get_or_init(|| load_shared(home)).clone()
    }
}

type Loaded = std::result::Result<Arc<Embedder>, Unavailable>;

fn load_shared(home: &std::path::Path) -> Loaded {
    static LOADED: OnceLock<Mutex<HashMap<PathBuf, Loaded>>> = OnceLock::new();
    let dir = match mnemo_embed::locate(Some(home)) {
        mnemo_embed::Located::Found(d) => d,
        mnemo_embed::Located::Disabled => return Err(unavailable(&EmbedError::Disabled)),
        mnemo_embed::Located::Missing(s) => return Err(unavailable(&EmbedError::NotFound(s))),
    };
    let mut map = LOADED
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    map.entry(dir.clone())
        .or_insert_with(|| match Embedder::load(&dir) {
            Ok(m) => Ok(Arc::new(m)),
            Err(e) => Err(unavailable(&e)),
        })
        .clone()
}

fn unavailable(e: &EmbedError) -> Unavailable {
    let state = match e {
        EmbedError::NotFound(_) => SemanticState::NotInstalled,
        EmbedError::Disabled => SemanticState::Off,
        EmbedError::BadModel { .. } | EmbedError::Inference(_) => SemanticState::Broken,
    };
    if state == SemanticState::Broken {
        tracing::warn!("{e}; search stays lexical");
    } else {
        tracing::info!("{e}; search stays lexical");
    }
    Unavailable {
        state,
        message: e.to_string(),
    }
}

/// Fill missing vectors of a scope with the loaded model (see [`mnemo_engine::embed::fill`]).
pub(crate) fn fill(
    vault: &Vault,
    model: &Embedder,
    workspace: Option<&str>,
    stop: &dyn Fn() -> bool,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<mnemo_engine::embed::Filled> {
    let embed = |texts: &[&str]| -> Result<Vec<(Vec<f32>, bool)>> {
        model
            .embed(texts)
            .map(|v| v.into_iter().map(|e| (e.vector, e.truncated)).collect())
            .map_err(|e| Error::new(ErrorCode::EmbeddingUnavailable, e.to_string()))
    };
    let m = mnemo_engine::embed::Model {
        id: model.model_id(),
        dim: model.dim(),
        embed: &embed,
    };
    mnemo_engine::embed::fill(vault, &m, workspace, stop, progress)
}

pub(crate) fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

// Commands take owned arguments: transports hand over values they deserialised.
#[allow(clippy::needless_pass_by_value)]
impl Api {
    /// The query's embedding, when a model is loaded (else `None`: lexical).
    pub(crate) fn query_vector(&self, text: &str) -> Option<QueryVector> {
        let model = self.embeddings.model(self.home_dir()).ok()?;
        if !model.reads(text) {
            tracing::debug!(model = %model.model_id(), "the model does not read this query's language; searching by words");
            return None;
        }
        match model.embed_query(text) {
            Ok(e) => Some(QueryVector {
                model: model.model_id().to_owned(),
                // Meaning is read by the model's fixed floors. Reading it against the background
                // (`model.null`, `model.background_queries`) found more paraphrases
                // but let a short generic memory answer unrelated questions in tiny homes
                // ("quantum chromodynamics lecture notes" → "Terse answers", standing 4.6); it
                // stays measured beside the floors in the recall_fixture and locomo benches.
                null: None,
                background: None,
                vector: e.vector,
            }),
            Err(e) => {
                tracing::warn!("embedding the query failed ({e}); searching lexically");
                None
            }
        }
    }

    /// Semantic search's state for `status`.
    pub(crate) fn semantic(&self) -> Result<Semantic> {
        Ok(match self.embeddings.model(self.home_dir()) {
            Ok(m) => {
                let c = self.vault.vector_counts(None, m.model_id(), m.dim())?;
                let message = if c.embedded < c.total {
                    format!(
                        "hybrid search on; {} of {} memories embedded so far (run `mnemo embed` to finish now)",
                        thousands(c.embedded),
                        thousands(c.total)
                    )
                } else {
                    "hybrid search on (meaning and words)".to_owned()
                };
                Semantic {
                    state: SemanticState::Ready,
                    model: Some(m.model_id().to_owned()),
                    embedded: c.embedded,
                    total: c.total,
                    message,
                }
            }
            Err(u) => Semantic {
                state: u.state,
                model: None,
                embedded: 0,
                total: 0,
                message: format!("search is lexical only: {}", u.message),
            },
        })
    }

    /// Compute the missing vectors of one workspace (or all) as an `embed` task; the task
    /// already under way is returned if there is one. `embedding_unavailable` without a model.
    pub fn embed(&self, workspace: Option<String>) -> Result<wire::TaskInfo> {
        if let Some(w) = &workspace {
            self.vault.workspace(w)?;
        }
        let model = self
            .embeddings
            .model(self.home_dir())
            .map_err(|u| Error::new(ErrorCode::EmbeddingUnavailable, u.message))?;
        if let Some(id) = self.running_embed()
            && let Ok(t) = self.task(id)
        {
            return Ok(t);
        }
        if !self.watching() {
            match &workspace {
                Some(w) => {
                    self.vault.sync(&self.vault.workspace(w)?)?;
                }
                None => {
                    self.vault.sync_all()?;
                }
            }
        }
        Ok(self.start_embed_task(&model, workspace.as_deref()).into())
    }

    fn running_embed(&self) -> Option<String> {
        self.embeddings
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Start an `embed` task on its own thread (CPU work, not the model runtime's).
    fn start_embed_task(&self, model: &Arc<Embedder>, workspace: Option<&str>) -> TaskInfo {
        let (mut task, token) = self
            .tasks
            .create(TaskKind::Embed, workspace.unwrap_or("*"), None);
        *self
            .embeddings
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(task.id.clone());
        let started = task.clone();
        let (api, model, ws) = (
            self.clone(),
            Arc::clone(model),
            workspace.map(str::to_owned),
        );
        let spawned = std::thread::Builder::new()
            .name("mnemo-embed".into())
            .spawn(move || {
                task.set_status(TaskStatus::Running);
                task.phase = Some("Embedding…".to_owned());
                api.tasks.save(&task);
                let probe = task.clone();
                let stop = || api.tasks.cancelled(&probe, &token);
                let mut last = std::time::Instant::now();
                let mut progress = |done: u64, total: u64| {
                    if last.elapsed() >= Duration::from_millis(200) || done == total {
                        last = std::time::Instant::now();
                        task.set_progress(
                            format!("Embedding {} / {}", thousands(done), thousands(total)),
                            done,
                            total,
                        );
                        api.tasks.save(&task);
                    }
                };
                let out = fill(&api.vault, &model, ws.as_deref(), &stop, &mut progress);
                *api.embeddings
                    .running
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) = None;
                match out {
                    Ok(f) => {
                        let cut = f.truncated;
                        let mut summary = format!("embedded {} memories", thousands(f.embedded));
                        if f.chunks > 0 {
                            summary.push_str(&format!(
                                " and {} passages of conversation records",
                                thousands(f.chunks)
                            ));
                        }
                        if cut > 0 {
                            summary.push_str(&format!(
                                " ({cut} too long for the model: embedded from their first part — name, description, start of the body)"
                            ));
                        }
                        task.result = Some(TaskResult {
                            summary,
                            ..TaskResult::default()
                        });
                        if api.tasks.cancelled(&task, &token) {
                            api.tasks.finish(&mut task, TaskStatus::Skipped, Some(TaskReason::Cancelled));
                        } else {
                            api.tasks.finish(&mut task, TaskStatus::Completed, None);
                        }
                    }
                    Err(e) => {
                        task.error = Some(e.message);
                        api.tasks.finish(&mut task, TaskStatus::Failed, Some(TaskReason::Error));
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot start embedding: {e}");
        }
        started
    }

    /// Whether a one-shot search should load the model at all: not when the scope has no
    /// vector yet and more are missing than it would embed itself (loading costs ~0.2 s; the
    /// search would be lexical anyway). A watching process always has it loaded.
    pub(crate) fn hybrid_worthwhile(&self, workspace: Option<&str>) -> bool {
        if self.watching() {
            return true;
        }
        let dir = match mnemo_embed::locate(Some(self.home_dir())) {
            mnemo_embed::Located::Found(d) => d,
            _ => return false,
        };
        let Ok((id, _dim)) = mnemo_embed::peek(&dir) else {
            // Let loading say what is wrong with it.
            return true;
        };
        if self.vault.has_vectors(&id).unwrap_or(true) {
            return true;
        }
        // Nothing embedded yet: worth loading the model only to fill a few vectors inline.
        let cap = usize::try_from(INLINE_MAX).unwrap_or(usize::MAX);
        match self
            .vault
            .doc_count_capped(workspace, cap.saturating_add(1))
        {
            Ok(n) if n > cap => {
                tracing::warn!(
                    "more than {INLINE_MAX} memories have no vector yet: searching by words; \
                     `mnemo embed` (or the app) embeds them for search by meaning"
                );
                false
            }
            _ => true,
        }
    }

    /// Fill a few missing vectors now (one-shot processes, before a search); `None` scope is
    /// every workspace. More than [`INLINE_MAX`] missing: left for later, said in the log.
    pub(crate) fn embed_inline(&self, workspace: Option<&str>) {
        let Ok(model) = self.embeddings.model(self.home_dir()) else {
            return;
        };
        let Ok(c) = self
            .vault
            .vector_counts(workspace, model.model_id(), model.dim())
        else {
            return;
        };
        let missing = c.total.saturating_sub(c.embedded);
        if missing == 0 {
            return;
        }
        if missing > INLINE_MAX {
            tracing::warn!(
                "{missing} memories have no vector yet: they are found by their words only until \
                 `mnemo embed` (or the app) embeds them"
            );
            return;
        }
        if let Err(e) = fill(&self.vault, &model, workspace, &|| false, &mut |_, _| {}) {
            tracing::warn!("embedding failed ({e}); searching with what is there");
        }
    }

    /// Keep vectors filled in the background in a long-lived process that does not watch the
    /// folders (the MCP server): what is written or imported through it is embedded (batched,
    /// as an `embed` task with progress when large), and the model is loaded before the first
    /// search needs it. A watching process does this already ([`Api::start_watching`]).
    pub fn start_background_embedding(&self) {
        self.start_embedding_loop();
    }

    /// Keep vectors filled: once now, then after each burst of changes. Large fills show as
    /// `embed` tasks. Started once per process.
    pub(crate) fn start_embedding_loop(&self) {
        if self
            .embeddings
            .looping
            .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        let api = self.clone();
        let rx = self.vault.subscribe();
        let spawned = std::thread::Builder::new()
            .name("mnemo-embed-watch".into())
            .spawn(move || {
                let Ok(model) = api.embeddings.model(api.home_dir()) else {
                    return;
                };
                // The first search should not pay for the encoder's first pass.
                let _ = model.embed_query("warm");
                loop {
                    // Without a watcher the index learns of files only when it is synced.
                    if !api.watching()
                        && let Err(e) = api.vault.sync_all()
                    {
                        tracing::warn!("cannot bring the index up to date to embed: {e}");
                    }
                    api.fill_in_background(&model);
                    // Wait for a change, then let the burst settle.
                    if rx.recv().is_err() {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(300));
                    while rx.try_recv().is_ok() {}
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot start background embedding: {e}");
        }
    }

    fn fill_in_background(&self, model: &Arc<Embedder>) {
        if self.running_embed().is_some() {
            return;
        }
        let missing = self
            .vault
            .vector_counts(None, model.model_id(), model.dim())
            .map_or(0, |c| c.total.saturating_sub(c.embedded));
        if missing >= TASK_MIN {
            // Visible, cancellable, with progress; the loop's next change re-checks after it.
            let task = self.start_embed_task(model, None);
            while self
                .task(task.id.clone())
                .is_ok_and(|t| !t.status.is_finished())
            {
                std::thread::sleep(Duration::from_millis(100));
            }
        } else if missing > 0
            && let Err(e) = fill(&self.vault, model, None, &|| false, &mut |_, _| {})
        {
            tracing::warn!("background embedding failed: {e}");
        }
    }
}
