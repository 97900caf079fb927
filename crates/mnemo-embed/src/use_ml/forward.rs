//! The network: weights checked and laid out at load, and the forward pass over a block of
//! token windows (see the module's documentation for the architecture).

use super::kernel::{Init, Packed, matmul};
use super::weights::Tensors;

/// Width of a piece's embedding, and of the output vector.
pub(crate) const DIM: usize = 512;
/// Width of each convolution branch.
const CNN: usize = 256;
/// Width of the token features that are pooled: the embedding and the three branches.
pub(crate) const FEAT: usize = DIM + 3 * CNN;
/// Width of the output network's hidden layers.
const HIDDEN: usize = 320;
/// Interleaved chunks of the quantised embedding table.
const CHUNKS: usize = 17;
/// Bytes of one packed table row (512 six-bit codes).
const ROW_BYTES: usize = DIM * 3 / 4;
/// The three branches: (n-gram width, tokens of left context).
const ORDERS: [(usize, usize); 3] = [(2, 0), (3, 1), (5, 2)];
/// How far a token's pooled features reach on each side: two stacked convolutions of at most
/// two tokens of context each.
pub(crate) const REACH: usize = 4;

/// One convolution branch: two n-gram convolutions, each `relu(window · W + b)` added to its
/// input.
struct Branch {
    width: usize,
    left: usize,
    w1: Packed,
    b1: Vec<f32>,
    w2: Packed,
    b2: Vec<f32>,
}

/// The loaded network.
pub(crate) struct Net {
    /// Six-bit codes, row by piece id.
    table: Vec<u8>,
    /// Per chunk, the value of each of the 64 codes (`code · scale + lo`).
    levels: Vec<[f32; 64]>,
    proj: Packed,
    proj_b: Vec<f32>,
    proj_g: Vec<f32>,
    proj_beta: Vec<f32>,
    branches: Vec<Branch>,
    ln_g: Vec<f32>,
    ln_b: Vec<f32>,
    cnn_w: Packed,
    cnn_b: Vec<f32>,
    d0: Packed,
    p1: Packed,
    d1: Packed,
    d2: Packed,
    p3: Packed,
    d3: Packed,
    eps: f32,
}

fn packed(t: &mut Tensors, name: &str, k: usize, n: usize) -> Result<Packed, String> {
    let w = t.f32s(name, &[k, n])?;
    Packed::new(&w, k, n).ok_or_else(|| format!("tensor {name} cannot be laid out"))
}

impl Net {
    /// Read and check every tensor.
    pub(crate) fn load(t: &mut Tensors) -> Result<Self, String> {
        let rows = t
            .shape("embedding.q6")
            .and_then(|s| s.first().copied())
            .ok_or("the weights have no embedding table (embedding.q6)")?;
        let table = t.bytes("embedding.q6", "U8", &[rows, ROW_BYTES])?;
        let scale = t.f32s("embedding.scale", &[CHUNKS])?;
        let lo = t.f32s("embedding.lo", &[CHUNKS])?;
        #[allow(clippy::cast_precision_loss)]
        let levels = (0..CHUNKS)
            .map(|c| std::array::from_fn(|q| q as f32 * scale[c] + lo[c]))
            .collect();
        let cat = |t: &mut Tensors, stem: &str, shape: &[usize]| -> Result<Vec<f32>, String> {
            let mut out = Vec::new();
            for (n, _) in ORDERS {
                out.extend(t.f32s(&format!("{stem}{n}"), shape)?);
            }
            Ok(out)
        };
        let mut proj_w = vec![0.0; DIM * 3 * CNN];
        for (i, (n, _)) in ORDERS.iter().enumerate() {
            let w = t.f32s(&format!("proj{n}"), &[DIM, CNN])?;
            for r in 0..DIM {
                proj_w[r * 3 * CNN + i * CNN..][..CNN].copy_from_slice(&w[r * CNN..][..CNN]);
            }
        }
        let proj = Packed::new(&proj_w, DIM, 3 * CNN).ok_or("the projection cannot be laid out")?;
        let mut branches = Vec::new();
        for (width, left) in ORDERS {
            branches.push(Branch {
                width,
                left,
                w1: packed(t, &format!("w1_{width}"), width * CNN, CNN)?,
                b1: t.f32s(&format!("b1_{width}"), &[CNN])?,
                w2: packed(t, &format!("w2_{width}"), width * CNN, CNN)?,
                b2: t.f32s(&format!("b2_{width}"), &[CNN])?,
            });
        }
        let eps = t.f32s("eps", &[])?[0];
        if eps <= 0.0 {
            return Err("eps is not positive".to_owned());
        }
        Ok(Self {
            table,
            levels,
            proj,
            proj_b: cat(t, "proj_b", &[CNN])?,
            proj_g: cat(t, "ln_g", &[CNN])?,
            proj_beta: cat(t, "ln_b", &[CNN])?,
            branches,
            ln_g: t.f32s("ln_g", &[FEAT])?,
            ln_b: t.f32s("ln_b", &[FEAT])?,
            cnn_w: packed(t, "cnn_W", FEAT, DIM)?,
            cnn_b: t.f32s("cnn_b", &[DIM])?,
            d0: packed(t, "d0", DIM, HIDDEN)?,
            p1: packed(t, "p1", DIM, HIDDEN)?,
            d1: packed(t, "d1", HIDDEN, HIDDEN)?,
            d2: packed(t, "d2", HIDDEN, DIM)?,
            p3: packed(t, "p3", HIDDEN, DIM)?,
            d3: packed(t, "d3", DIM, DIM)?,
            eps,
        })
    }

    /// Rows of the embedding table (piece ids it covers).
    pub(crate) fn rows(&self) -> usize {
        self.table.len() / ROW_BYTES
    }

    /// Write piece `id`'s embedding into `out` (512 numbers).
    fn embed_piece(&self, id: usize, out: &mut [f32]) {
        let levels = &self.levels[id % CHUNKS];
        let row = &self.table[id * ROW_BYTES..(id + 1) * ROW_BYTES];
        for (b, o) in row.chunks_exact(3).zip(out.chunks_exact_mut(4)) {
            let w = u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16;
            for (j, v) in o.iter_mut().enumerate() {
                *v = levels[(w >> (6 * j) & 63) as usize];
            }
        }
    }

    /// The pooled features of a block of windows: for each window, the sum over its own tokens
    /// (`own`, positions within the window) of their normalised 1,280 features. A window is
    /// zero-padded at both ends, as a whole text is.
    pub(crate) fn pool(&self, windows: &[(&[u32], std::ops::Range<usize>)]) -> Vec<[f32; FEAT]> {
        let total: usize = windows.iter().map(|w| w.0.len()).sum();
        let mut feats = vec![0.0f32; total * FEAT];
        let mut row = 0;
        for (ids, _) in windows {
            for &id in *ids {
                self.embed_piece(id as usize, &mut feats[row * FEAT..row * FEAT + DIM]);
                row += 1;
            }
        }
        // The three branches' inputs: one projection, normalised over all 768 numbers.
        let mut x = vec![0.0f32; total * 3 * CNN];
        matmul(
            &feats,
            FEAT,
            total,
            &self.proj,
            Init::Bias(&self.proj_b),
            &mut x,
            3 * CNN,
        );
        for r in x.chunks_exact_mut(3 * CNN) {
            layer_norm(r, &self.proj_g, &self.proj_beta, self.eps);
        }
        let widest = ORDERS.iter().map(|o| o.0).max().unwrap_or(1);
        let mut cols = vec![0.0f32; total * widest * CNN];
        let mut h = vec![0.0f32; total * CNN];
        for (i, b) in self.branches.iter().enumerate() {
            let k = b.width * CNN;
            window_rows(windows, b, &x[i * CNN..], 3 * CNN, &mut cols[..total * k]);
            matmul(&cols, k, total, &b.w1, Init::Bias(&b.b1), &mut h, CNN);
            for (t, hr) in h.chunks_exact_mut(CNN).enumerate() {
                let xr = &x[t * 3 * CNN + i * CNN..][..CNN];
                for (v, &xv) in hr.iter_mut().zip(xr) {
                    *v = v.max(0.0) + xv;
                }
            }
            window_rows(windows, b, &h, CNN, &mut cols[..total * k]);
            let at = DIM + i * CNN;
            matmul(
                &cols,
                k,
                total,
                &b.w2,
                Init::Bias(&b.b2),
                &mut feats[at..],
                FEAT,
            );
            for (t, hr) in h.chunks_exact(CNN).enumerate() {
                let fr = &mut feats[t * FEAT + at..][..CNN];
                for (v, &hv) in fr.iter_mut().zip(hr) {
                    *v = v.max(0.0) + hv;
                }
            }
        }
        let mut out = Vec::with_capacity(windows.len());
        let mut start = 0;
        for (ids, own) in windows {
            let mut sum = [0.0f32; FEAT];
            for t in start..start + ids.len() {
                let r = &mut feats[t * FEAT..(t + 1) * FEAT];
                layer_norm(r, &self.ln_g, &self.ln_b, self.eps);
                if own.contains(&(t - start)) {
                    for (s, v) in sum.iter_mut().zip(r.iter()) {
                        *s += v;
                    }
                }
            }
            out.push(sum);
            start += ids.len();
        }
        out
    }

    /// The output network, for texts whose pooled sums and token counts are given: a
    /// projection of the mean scaled by √n, two residual ReLU blocks, tanh, unit length.
    pub(crate) fn head(&self, pooled: &[([f32; FEAT], usize)]) -> Vec<Vec<f32>> {
        let m = pooled.len();
        let sums: Vec<f32> = pooled.iter().flat_map(|p| p.0).collect();
        let mut mean = vec![0.0f32; m * DIM];
        matmul(&sums, FEAT, m, &self.cnn_w, Init::Zero, &mut mean, DIM);
        for (r, (_, n)) in mean.chunks_exact_mut(DIM).zip(pooled) {
            #[allow(clippy::cast_precision_loss)]
            let n = *n as f32;
            let scale = 1.0 / n.sqrt();
            for (v, b) in r.iter_mut().zip(&self.cnn_b) {
                *v = (*v + n * b) * scale;
            }
        }
        let relu = |v: &mut [f32]| v.iter_mut().for_each(|x| *x = x.max(0.0));
        let mut y0 = vec![0.0f32; m * HIDDEN];
        matmul(&mean, DIM, m, &self.d0, Init::Zero, &mut y0, HIDDEN);
        relu(&mut y0);
        let mut y1 = vec![0.0f32; m * HIDDEN];
        matmul(&mean, DIM, m, &self.p1, Init::Zero, &mut y1, HIDDEN);
        matmul(&y0, HIDDEN, m, &self.d1, Init::Accumulate, &mut y1, HIDDEN);
        relu(&mut y1);
        let mut y2 = vec![0.0f32; m * DIM];
        matmul(&y1, HIDDEN, m, &self.d2, Init::Zero, &mut y2, DIM);
        relu(&mut y2);
        let mut z = vec![0.0f32; m * DIM];
        matmul(&y1, HIDDEN, m, &self.p3, Init::Zero, &mut z, DIM);
        matmul(&y2, DIM, m, &self.d3, Init::Accumulate, &mut z, DIM);
        z.chunks_exact(DIM)
            .map(|r| {
                let v: Vec<f32> = r.iter().map(|x| x.tanh()).collect();
                let norm = v.iter().map(|x| x * x).sum::<f32>().max(self.eps).sqrt();
                v.iter().map(|x| x / norm).collect()
            })
            .collect()
    }
}

/// Lay out each token's n-gram window of `src` rows (256 numbers at `stride`) side by side in
/// `cols` (n · 256 per token), zeros where the window reaches past its window's ends.
fn window_rows(
    windows: &[(&[u32], std::ops::Range<usize>)],
    b: &Branch,
    src: &[f32],
    stride: usize,
    cols: &mut [f32],
) {
    let k = b.width * CNN;
    let mut start = 0;
    for (ids, _) in windows {
        let len = ids.len();
        for p in 0..len {
            let out = &mut cols[(start + p) * k..(start + p + 1) * k];
            for (o, slot) in out.chunks_exact_mut(CNN).enumerate() {
                match (p + o).checked_sub(b.left).filter(|&q| q < len) {
                    Some(q) => slot.copy_from_slice(&src[(start + q) * stride..][..CNN]),
                    None => slot.fill(0.0),
                }
            }
        }
        start += len;
    }
}

/// Layer normalisation of one row: zero mean, unit variance (`eps` added), then `· g + b`.
fn layer_norm(x: &mut [f32], g: &[f32], b: &[f32], eps: f32) {
    #[allow(clippy::cast_precision_loss)]
    let n = x.len() as f32;
    let mean = x.iter().sum::<f32>() / n;
    let mut var = 0.0f32;
    for v in x.iter_mut() {
        *v -= mean;
        var += *v * *v;
    }
    let inv = 1.0 / (var / n + eps).sqrt();
    for ((v, g), b) in x.iter_mut().zip(g).zip(b) {
        *v = *v * inv * g + b;
    }
}
