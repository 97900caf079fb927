//! The encoder: post-LayerNorm BERT (XLM-RoBERTa's shape), GELU (erf), 4-bit matrices.
//!
//! A batch of windows runs as one `[tokens][hidden]` matrix — every matrix is read once per
//! batch, the key to throughput — and attention stays inside each window. The word table stays
//! 4-bit; only the rows of the tokens at hand are de-quantised. The result is every token's last
//! hidden state; a window's dense vector is their mean ([`mean_of`], `<s>` and `</s>` included,
//! not yet unit length), the sparse head reads them one by one.

use rayon::prelude::*;

use super::format::{Parsed, Q4_BLOCK_BYTES, QK, Shape};
use super::quant::{self, Q4Matrix, QActs};

/// Below this many tokens (a query), the small steps around the matrix products run on one
/// thread: handing them out costs more than they take.
const SERIAL_BELOW: usize = 64;

struct Layer {
    /// Query, key and value stacked: `[3 · hidden][hidden]`.
    qkv: Q4Matrix,
    qkv_b: Vec<f32>,
    out: Q4Matrix,
    out_b: Vec<f32>,
    ln1: (Vec<f32>, Vec<f32>),
    up: Q4Matrix,
    up_b: Vec<f32>,
    down: Q4Matrix,
    down_b: Vec<f32>,
    ln2: (Vec<f32>, Vec<f32>),
}

/// The weights, out of the file.
pub(crate) struct Encoder {
    shape: Shape,
    /// The word table as raw `Q4_0` blocks, `[vocab][hidden / 32]`.
    word: Vec<u8>,
    pos: Vec<f32>,
    /// Token type 0's row.
    type0: Vec<f32>,
    ln: (Vec<f32>, Vec<f32>),
    layers: Vec<Layer>,
}

/// Working buffers, reused across layers.
#[derive(Default)]
struct Buffers {
    acts: QActs,
    scratch: Vec<f32>,
    qkv: Vec<f32>,
    ctx: Vec<f32>,
    tmp: Vec<f32>,
    mid: Vec<f32>,
}

impl Encoder {
    /// Take the tensors out of the file.
    pub(crate) fn load(bytes: &[u8], parsed: &Parsed) -> Result<Self, String> {
        let s = parsed.shape;
        let (h, ff) = (s.hidden, s.ff);
        let get = |name: &str, quantized: bool, count: usize| -> Result<&[u8], String> {
            let t = parsed
                .tensors
                .get(name)
                .ok_or_else(|| format!("it has no tensor {name}"))?;
            if t.quantized != quantized || t.count != count {
                return Err(format!(
                    "tensor {name} is not the expected {} of {count} values",
                    if quantized { "Q4_0" } else { "f32" }
                ));
            }
            Ok(&bytes[t.offset..t.offset + t.bytes])
        };
        let f32s = |name: &str, count: usize| -> Result<Vec<f32>, String> {
            let raw = get(name, false, count)?;
            let v: Vec<f32> = raw
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            if v.iter().any(|x| !x.is_finite()) {
                return Err(format!("tensor {name} holds a value that is not a number"));
            }
            Ok(v)
        };
        let q4 = |name: &str, rows: usize, cols: usize| -> Result<Q4Matrix, String> {
            Q4Matrix::from_blocks(get(name, true, rows * cols)?, rows, cols)
                .ok_or_else(|| format!("tensor {name} does not fit {rows} × {cols}"))
        };
        let word = get("emb.word", true, s.vocab * h)?.to_vec();
        let types = f32s("emb.type", 2 * h).or_else(|_| f32s("emb.type", h))?;
        let mut layers = Vec::with_capacity(s.layers);
        for l in 0..s.layers {
            let n = |p: &str| format!("l{l}.{p}");
            let qkv = Q4Matrix::concat(&[
                q4(&n("q.w"), h, h)?,
                q4(&n("k.w"), h, h)?,
                q4(&n("v.w"), h, h)?,
            ]);
            let mut qkv_b = f32s(&n("q.b"), h)?;
            qkv_b.extend(f32s(&n("k.b"), h)?);
            qkv_b.extend(f32s(&n("v.b"), h)?);
            layers.push(Layer {
                qkv,
                qkv_b,
                out: q4(&n("ao.w"), h, h)?,
                out_b: f32s(&n("ao.b"), h)?,
                ln1: (f32s(&n("aln.w"), h)?, f32s(&n("aln.b"), h)?),
                up: q4(&n("fi.w"), ff, h)?,
                up_b: f32s(&n("fi.b"), ff)?,
                down: q4(&n("fo.w"), h, ff)?,
                down_b: f32s(&n("fo.b"), h)?,
                ln2: (f32s(&n("oln.w"), h)?, f32s(&n("oln.b"), h)?),
            });
        }
        Ok(Self {
            shape: s,
            word,
            pos: f32s("emb.pos", s.positions * h)?,
            type0: types[..h].to_vec(),
            ln: (f32s("emb.ln.w", h)?, f32s("emb.ln.b", h)?),
            layers,
        })
    }

    /// Bytes the weights hold in memory.
    pub(crate) fn heap_bytes(&self) -> usize {
        let per_layer: usize = self
            .layers
            .iter()
            .map(|l| {
                l.qkv.heap_bytes() + l.out.heap_bytes() + l.up.heap_bytes() + l.down.heap_bytes()
            })
            .sum();
        self.word.len() + (self.pos.len() + self.type0.len()) * 4 + per_layer
    }

    pub(crate) fn shape(&self) -> Shape {
        self.shape
    }

    /// Run windows (each already `<s> … </s>`, ids below the vocabulary size, at most the
    /// position count long) and return every token's last hidden state (`[tokens][hidden]`, the
    /// windows one after another) and where each window starts (one more entry: the total).
    pub(crate) fn hidden(&self, windows: &[Vec<u32>]) -> (Vec<f32>, Vec<usize>) {
        let h = self.shape.hidden;
        let total: usize = windows.iter().map(Vec::len).sum();
        let mut seg_of = Vec::with_capacity(total);
        let mut starts = Vec::with_capacity(windows.len() + 1);
        starts.push(0usize);
        for (i, w) in windows.iter().enumerate() {
            seg_of.extend(std::iter::repeat_n(i, w.len()));
            starts.push(starts[i] + w.len());
        }
        // Embeddings: word row (de-quantised) + position + type 0, then LayerNorm.
        let mut x = vec![0.0_f32; total * h];
        let row_bytes = h / QK * Q4_BLOCK_BYTES;
        let positions: Vec<(u32, usize)> = windows
            .iter()
            .flat_map(|w| w.iter().enumerate().map(|(p, id)| (*id, p)))
            .collect();
        let embed = |(row, (id, p)): (&mut [f32], &(u32, usize))| {
            let at = *id as usize * row_bytes;
            quant::dequantize_row(&self.word[at..at + row_bytes], row);
            let pp = &self.pos[p * h..(p + 1) * h];
            for ((r, a), b) in row.iter_mut().zip(pp).zip(&self.type0) {
                *r += a + b;
            }
        };
        if total >= SERIAL_BELOW {
            x.par_chunks_mut(h)
                .zip(positions.par_iter())
                .for_each(embed);
        } else {
            x.chunks_mut(h).zip(positions.iter()).for_each(embed);
        }
        layer_norm(&mut x, None, &self.ln, h, self.shape.eps);

        let mut buf = Buffers::default();
        for l in &self.layers {
            self.layer(l, &mut x, &seg_of, &starts, &mut buf);
        }
        (x, starts)
    }

    fn layer(&self, l: &Layer, x: &mut [f32], seg_of: &[usize], starts: &[usize], b: &mut Buffers) {
        let s = self.shape;
        let (h, t) = (s.hidden, seg_of.len());
        b.acts.quantize(x, t, h);
        quant::matmul(&l.qkv, &l.qkv_b, &b.acts, &mut b.qkv, &mut b.scratch);
        attention(&b.qkv, &mut b.ctx, seg_of, starts, h, s.heads);
        b.acts.quantize(&b.ctx, t, h);
        quant::matmul(&l.out, &l.out_b, &b.acts, &mut b.tmp, &mut b.scratch);
        layer_norm(x, Some(&b.tmp), &l.ln1, h, s.eps);
        b.acts.quantize(x, t, h);
        quant::matmul(&l.up, &l.up_b, &b.acts, &mut b.mid, &mut b.scratch);
        if t >= SERIAL_BELOW {
            b.mid
                .par_chunks_mut(4096)
                .for_each(|c| c.iter_mut().for_each(|v| *v = gelu(*v)));
        } else {
            b.mid.iter_mut().for_each(|v| *v = gelu(*v));
        }
        b.acts.quantize(&b.mid, t, s.ff);
        quant::matmul(&l.down, &l.down_b, &b.acts, &mut b.tmp, &mut b.scratch);
        layer_norm(x, Some(&b.tmp), &l.ln2, h, s.eps);
    }
}

/// The mean of the hidden states of tokens `from..to` (`<s>` and `</s>` included).
pub(crate) fn mean_of(x: &[f32], from: usize, to: usize, h: usize) -> Vec<f32> {
    let mut m = vec![0.0_f32; h];
    for t in from..to {
        for (a, b) in m.iter_mut().zip(&x[t * h..(t + 1) * h]) {
            *a += b;
        }
    }
    #[allow(clippy::cast_precision_loss)]
    let inv = 1.0 / (to - from).max(1) as f32;
    m.iter_mut().for_each(|v| *v *= inv);
    m
}

/// GELU with the error function (not the tanh approximation).
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// erf by Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7) and [`exp_neg`]: plain
/// arithmetic without branches or calls, so loops over it vectorise (libm's `erff` per value
/// took a tenth of a query's time).
fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = ((((1.061_405_4 * t - 1.453_152_1) * t + 1.421_413_8) * t - 0.284_496_74) * t
        + 0.254_829_6)
        * t;
    (1.0 - poly * exp_neg(-a * a)).copysign(x)
}

/// e^x for x ≤ 0 (relative error under 1e-5, ~1e-7 near 0; under e^-87 it is e^-87): 2^n by the exponent bits
/// and 2^f, |f| ≤ ½, by its Taylor series.
#[inline(always)]
#[allow(clippy::inline_always)]
fn exp_neg(x: f32) -> f32 {
    const ROUND: f32 = 12_582_912.0; // 1.5 · 2^23: adding it rounds to an integer.
    let y = x.max(-87.0) * std::f32::consts::LOG2_E;
    let shifted = y + ROUND;
    let n = shifted - ROUND;
    let f = (y - n) * std::f32::consts::LN_2;
    let p = 1.0
        + f * (1.0
            + f * (0.5
                + f * (1.0 / 6.0 + f * (1.0 / 24.0 + f * (1.0 / 120.0 + f * (1.0 / 720.0))))));
    // The rounded integer sits in the low mantissa bits of `shifted`.
    let k = shifted.to_bits().wrapping_sub(ROUND.to_bits());
    p * f32::from_bits(k.wrapping_add(127) << 23)
}

/// `x = LayerNorm(x + y)` per token (`y` absent: `LayerNorm(x)`).
fn layer_norm(x: &mut [f32], y: Option<&[f32]>, (w, b): &(Vec<f32>, Vec<f32>), h: usize, eps: f32) {
    #[allow(clippy::cast_precision_loss)]
    let hf = h as f32;
    for (t, r) in x.chunks_exact_mut(h).enumerate() {
        if let Some(y) = y {
            for (a, v) in r.iter_mut().zip(&y[t * h..(t + 1) * h]) {
                *a += v;
            }
        }
        let mean = r.iter().sum::<f32>() / hf;
        let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / hf;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, g), c) in r.iter_mut().zip(w).zip(b) {
            *v = (*v - mean) * inv * g + c;
        }
    }
}

/// Scaled dot-product attention of each token over its own window; `qkv` is `[t][3h]`.
fn attention(
    qkv: &[f32],
    ctx: &mut Vec<f32>,
    seg_of: &[usize],
    starts: &[usize],
    h: usize,
    heads: usize,
) {
    let t = seg_of.len();
    let hd = h / heads;
    #[allow(clippy::cast_precision_loss)]
    let scale = 1.0 / (hd as f32).sqrt();
    ctx.clear();
    ctx.resize(t * h, 0.0);
    let one = |(i, out): (usize, &mut [f32])| {
        let seg = seg_of[i];
        let (s0, s1) = (starts[seg], starts[seg + 1]);
        quant::attend(
            &Attend {
                qkv,
                i,
                s0,
                s1,
                h,
                heads,
                scale,
            },
            out,
        );
    };
    if t >= SERIAL_BELOW {
        ctx.par_chunks_mut(h)
            .enumerate()
            .with_min_len(4)
            .for_each(one);
    } else {
        ctx.chunks_mut(h).enumerate().for_each(one);
    }
}

/// One token's attention over its window `s0..s1` (all heads): what [`attend_token`] reads.
pub(super) struct Attend<'a> {
    pub qkv: &'a [f32],
    pub i: usize,
    pub s0: usize,
    pub s1: usize,
    pub h: usize,
    pub heads: usize,
    pub scale: f32,
}

/// One token's attention: written into `out` (`h` values, zero on entry). Always inlined, so
/// `quant::attend` can compile it for AVX2 and FMA where the CPU has them (these loops are a
/// seventh of a passage's time; the baseline build has only SSE2).
#[inline(always)]
#[allow(clippy::inline_always)]
pub(super) fn attend_token(a: &Attend<'_>, out: &mut [f32]) {
    let Attend {
        qkv,
        i,
        s0,
        s1,
        h,
        heads,
        scale,
    } = *a;
    let hd = h / heads;
    // A window is at most 512 tokens.
    let mut buf = [0.0_f32; 512];
    let prob = &mut buf[..s1 - s0];
    for head in 0..heads {
        let q = &qkv[i * 3 * h + head * hd..i * 3 * h + (head + 1) * hd];
        let mut max = f32::NEG_INFINITY;
        for (j, p) in (s0..s1).zip(prob.iter_mut()) {
            let k = &qkv[j * 3 * h + h + head * hd..j * 3 * h + h + (head + 1) * hd];
            let d = dot(q, k) * scale;
            *p = d;
            max = max.max(d);
        }
        // Two passes, so the exponentials vectorise (a running sum would chain them).
        for p in prob.iter_mut() {
            *p = exp_neg(*p - max);
        }
        let inv = 1.0 / lane_sum(prob);
        let o = &mut out[head * hd..(head + 1) * hd];
        for (j, p) in (s0..s1).zip(prob.iter()) {
            let v = &qkv[j * 3 * h + 2 * h + head * hd..j * 3 * h + 2 * h + (head + 1) * hd];
            let p = p * inv;
            for (a, b) in o.iter_mut().zip(v) {
                *a += p * b;
            }
        }
    }
}

/// Dot product in eight independent lanes: a plain `sum()` adds one product after another
/// (each add waits for the last), which made attention a seventh of a passage's time.
#[inline(always)]
#[allow(clippy::inline_always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0_f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for ((s, x), y) in acc.iter_mut().zip(x).zip(y) {
            *s += x * y;
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// Sum in eight independent lanes.
#[inline(always)]
#[allow(clippy::inline_always)]
fn lane_sum(v: &[f32]) -> f32 {
    let mut acc = [0.0_f32; 8];
    let chunks = v.chunks_exact(8);
    let tail: f32 = chunks.remainder().iter().sum();
    for c in chunks {
        for (s, x) in acc.iter_mut().zip(c) {
            *s += x;
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_erf_and_exp_match_the_library() {
        for i in -4000..=4000 {
            #[allow(clippy::cast_precision_loss)]
            let x = i as f32 / 500.0;
            let e = (erf(x) - libm::erff(x)).abs();
            assert!(e < 5e-7, "erf({x}) off by {e}");
        }
        for i in 0..=1000 {
            #[allow(clippy::cast_precision_loss)]
            let x = -(i as f32) / 10.0;
            let want = x.max(-87.0).exp();
            let rel = ((exp_neg(x) - want) / want).abs();
            assert!(rel < 1e-5, "exp({x}) off by {rel}");
        }
    }
}
