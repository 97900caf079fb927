//! 4-bit weights × 8-bit activations: the encoder's hot path.
//!
//! Weights stay in GGML's `Q4_0` (blocks of 32: one scale, 32 nibbles; value = (q − 8) · d);
//! activations are quantised per block of 32 to int8 (`Q8_0`: scale = max |x| / 127, round half
//! to even). One output is `Σ_blocks d_w · d_a · (⟨q_w, q_a⟩ − 8 · Σ q_a)`.
//!
//! Both sides are re-laid in **groups of four blocks** (128 values) so that one 8-lane SIMD
//! register accumulates whole half-blocks in integers: lane `L` holds block `L / 2`, half
//! `L % 2`, and step `i` (0–3) of the group brings that half's bytes `4i..4i + 4`. Four
//! multiply-add steps (`vpdpbusd` with AVX-VNNI, `vpmaddubsw` + `vpmaddwd` on AVX2) start from
//! the lane's −8 correction (−8 · its activations' sum, an integer), then one conversion and one
//! fused multiply-add by the lane's scale product finish the group: per 128 products, 7 vector
//! operations instead of 12 (and no per-tile set-up). Weights are re-laid once at load
//! (nibbles of step `i` packed as 16 bytes: byte `n` = lane byte `n` low, `n + 16` high),
//! activations at each quantisation. A tile is 2 weight rows × up to 4 tokens. Without AVX2 and
//! FMA (checked at run time) a portable loop computes the same lanes.
//!
//! This module and `use_ml::kernel` are the crate's only `unsafe` code; here, SIMD intrinsics
//! behind a run-time CPU check, loads only from slices whose bounds were checked first.
#![allow(unsafe_code)]

use rayon::prelude::*;

use super::format::{Q4_BLOCK_BYTES, QK};

/// Rows per tile.
const TILE_ROWS: usize = 2;
/// Tokens per tile, at most.
const TILE_TOKENS: usize = 4;

/// Blocks per group of the interleaved layout (see the module's documentation).
pub(crate) const GROUP_BLOCKS: usize = 4;
/// Values per group.
const GROUP: usize = GROUP_BLOCKS * QK;
/// Lanes of one group: two per block.
const LANES: usize = 2 * GROUP_BLOCKS;

/// Where value `pos` (0–127) of step `step` of a group comes from: (block in the group, index in
/// the block).
fn source_of(step: usize, pos: usize) -> (usize, usize) {
    let (lane, byte) = (pos / 4, pos % 4);
    (lane / 2, 16 * (lane % 2) + 4 * step + byte)
}

/// A `Q4_0` matrix `[rows][cols]`, interleaved by groups of four blocks.
#[derive(Debug)]
pub(crate) struct Q4Matrix {
    rows: usize,
    cols: usize,
    /// `[rows][groups][8]`: each lane's block scale.
    lane_scales: Vec<f32>,
    /// `[rows][groups][4 steps][16]` packed nibbles.
    nibbles: Vec<u8>,
}

impl Q4Matrix {
    /// From GGML `Q4_0` blocks (`rows · cols / 32` of 18 bytes). `None` when the sizes do not
    /// fit (columns a multiple of 128, rows of 2).
    pub(crate) fn from_blocks(bytes: &[u8], rows: usize, cols: usize) -> Option<Self> {
        if !cols.is_multiple_of(GROUP) || !rows.is_multiple_of(TILE_ROWS) || rows == 0 {
            return None;
        }
        let nb = cols / QK;
        if bytes.len() != rows * nb * Q4_BLOCK_BYTES {
            return None;
        }
        let mut lane_scales = Vec::with_capacity(rows * nb * 2);
        let mut nibbles = Vec::with_capacity(rows * nb * 16);
        for row in bytes.chunks_exact(nb * Q4_BLOCK_BYTES) {
            for group in row.chunks_exact(GROUP_BLOCKS * Q4_BLOCK_BYTES) {
                let block = |b: usize| &group[b * Q4_BLOCK_BYTES..(b + 1) * Q4_BLOCK_BYTES];
                for lane in 0..LANES {
                    let blk = block(lane / 2);
                    lane_scales.push(half::f16::from_le_bytes([blk[0], blk[1]]).to_f32());
                }
                let value = |b: usize, x: usize| {
                    let q = block(b)[2 + x % 16];
                    if x < 16 { q & 0x0F } else { q >> 4 }
                };
                for step in 0..GROUP_BLOCKS {
                    for n in 0..16 {
                        let (b0, x0) = source_of(step, n);
                        let (b1, x1) = source_of(step, n + 16);
                        nibbles.push(value(b0, x0) | (value(b1, x1) << 4));
                    }
                }
            }
        }
        Some(Self {
            rows,
            cols,
            lane_scales,
            nibbles,
        })
    }

    /// Matrices of one width stacked row-wise (query, key and value as one).
    pub(crate) fn concat(parts: &[Self]) -> Self {
        let cols = parts.first().map_or(0, |p| p.cols);
        assert!(parts.iter().all(|p| p.cols == cols), "one width");
        Self {
            rows: parts.iter().map(|p| p.rows).sum(),
            cols,
            lane_scales: parts
                .iter()
                .flat_map(|p| p.lane_scales.iter().copied())
                .collect(),
            nibbles: parts
                .iter()
                .flat_map(|p| p.nibbles.iter().copied())
                .collect(),
        }
    }

    /// Bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.lane_scales.len() * 4 + self.nibbles.len()
    }
}

/// De-quantise one `Q4_0` row (`out.len()` weights) from its raw blocks.
pub(crate) fn dequantize_row(blocks: &[u8], out: &mut [f32]) {
    for (b, o) in blocks
        .chunks_exact(Q4_BLOCK_BYTES)
        .zip(out.chunks_exact_mut(QK))
    {
        let d = half::f16::from_le_bytes([b[0], b[1]]).to_f32();
        for j in 0..16 {
            let q = b[2 + j];
            o[j] = f32::from(i8::try_from(q & 0x0F).unwrap_or(0) - 8) * d;
            o[j + 16] = f32::from(i8::try_from(q >> 4).unwrap_or(0) - 8) * d;
        }
    }
}

/// Activations `[tokens][cols]` quantised per block of 32, natural and interleaved.
#[derive(Debug, Default)]
pub(crate) struct QActs {
    tokens: usize,
    cols: usize,
    /// `[tokens][cols]` int8 values, natural order.
    q: Vec<i8>,
    /// `[tokens][cols / 32]` scales.
    d: Vec<f32>,
    /// `[tokens][cols / 32]` sums of the block's int8 values.
    sums: Vec<f32>,
    /// `[tokens][cols]` int8 values in the interleaved order of [`Q4Matrix`].
    lanes: Vec<i8>,
    /// `[tokens][groups][8]`: each lane's block scale.
    lane_scales: Vec<f32>,
    /// `[tokens][groups][8]`: −8 · the sum of each lane's 16 values.
    lane_corr: Vec<i32>,
}

impl QActs {
    /// Quantise `x` (`tokens · cols` values, row-major) into `self`, reusing its buffers.
    pub(crate) fn quantize(&mut self, x: &[f32], tokens: usize, cols: usize) {
        let nb = cols / QK;
        self.tokens = tokens;
        self.cols = cols;
        self.q.resize(tokens * cols, 0);
        self.d.resize(tokens * nb, 0.0);
        self.sums.resize(tokens * nb, 0.0);
        let simd_done = {
            #[cfg(target_arch = "x86_64")]
            {
                if simd() == Simd::None {
                    false
                } else {
                    // SAFETY: AVX2 and FMA were detected at run time; the function works on
                    // slices.
                    unsafe {
                        avx2_kernel::quantize(
                            &x[..tokens * cols],
                            &mut self.q,
                            &mut self.d,
                            &mut self.sums,
                        );
                    }
                    true
                }
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                false
            }
        };
        if !simd_done {
            quantize_portable(
                &x[..tokens * cols],
                &mut self.q,
                &mut self.d,
                &mut self.sums,
            );
        }
        self.interleave(nb);
    }

    /// The interleaved copy of the values, with each lane's scale and −8 correction.
    fn interleave(&mut self, nb: usize) {
        let n = self.tokens * self.cols;
        self.lanes.resize(n, 0);
        self.lane_scales.resize(self.tokens * nb * 2, 0.0);
        self.lane_corr.resize(self.tokens * nb * 2, 0);
        for ((src, dst), corr) in self.q[..n]
            .chunks_exact(GROUP)
            .zip(self.lanes.chunks_exact_mut(GROUP))
            .zip(self.lane_corr.chunks_exact_mut(LANES))
        {
            for step in 0..GROUP_BLOCKS {
                for lane in 0..LANES {
                    let (b, x) = source_of(step, lane * 4);
                    let at = step * 32 + lane * 4;
                    dst[at..at + 4].copy_from_slice(&src[b * QK + x..b * QK + x + 4]);
                }
            }
            // Lane `L` covers half `L % 2` of block `L / 2`: the group's 16-value halves in order.
            for (c, half) in corr.iter_mut().zip(src.chunks_exact(16)) {
                *c = -8 * half.iter().map(|v| i32::from(*v)).sum::<i32>();
            }
        }
        // Scales per lane: the block's scale of each token.
        for (lanes, d) in self
            .lane_scales
            .chunks_exact_mut(LANES)
            .zip(self.d.chunks_exact(GROUP_BLOCKS))
        {
            for (lane, s) in lanes.iter_mut().enumerate() {
                *s = d[lane / 2];
            }
        }
    }
}

/// The portable quantiser (what the SIMD one computes).
fn quantize_portable(x: &[f32], q: &mut [i8], d: &mut [f32], sums: &mut [f32]) {
    for ((src, q), (d, s)) in x
        .chunks_exact(QK)
        .zip(q.chunks_exact_mut(QK))
        .zip(d.iter_mut().zip(sums.iter_mut()))
    {
        let amax = src.iter().fold(0.0_f32, |m, v| m.max(v.abs()));
        let scale = amax / 127.0;
        let inv = if scale > 0.0 { 1.0 / scale } else { 0.0 };
        let mut sum = 0i32;
        for (o, v) in q.iter_mut().zip(src) {
            #[allow(clippy::cast_possible_truncation)]
            let r = (v * inv).round_ties_even().clamp(-128.0, 127.0) as i32;
            *o = i8::try_from(r).unwrap_or(0);
            sum += r;
        }
        *d = scale;
        #[allow(clippy::cast_precision_loss)]
        {
            *s = sum as f32;
        }
    }
}

/// One token's attention ([`super::encoder::attend_token`]), compiled for AVX2 and FMA when the
/// CPU has them.
pub(crate) fn attend(a: &super::encoder::Attend<'_>, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if simd() != Simd::None {
        // SAFETY: AVX2 and FMA were detected at run time; the function is safe code otherwise.
        unsafe { avx2_kernel::attend(a, out) };
        return;
    }
    super::encoder::attend_token(a, out);
}

/// Which kernel this CPU runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Simd {
    /// No AVX2: the portable loop.
    None,
    /// AVX2 and FMA.
    Avx2,
    /// AVX2, FMA and AVX-VNNI (one instruction per four byte products).
    Vnni,
}

/// The kernel for this CPU, decided once per process (`MNEMO_EMBED_PORTABLE` forces the portable
/// loop, `MNEMO_EMBED_NO_VNNI` plain AVX2: for comparing them).
fn simd() -> Simd {
    static CHOSEN: std::sync::OnceLock<Simd> = std::sync::OnceLock::new();
    *CHOSEN.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if std::env::var_os("MNEMO_EMBED_PORTABLE").is_some() || !(has!("avx2") && has!("fma"))
            {
                return Simd::None;
            }
            if has!("avxvnni") && std::env::var_os("MNEMO_EMBED_NO_VNNI").is_none() {
                Simd::Vnni
            } else {
                Simd::Avx2
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Simd::None
        }
    })
}

/// `y[t][r] = bias[r] + Σ_c w[r][c] · x[t][c]` for the quantised activations `a`; `y` holds
/// `a.tokens · w.rows` values. Work is shared out over the thread pool: by tokens when there
/// are many (each task writes its own rows of `y`), else by weight rows (into `scratch`,
/// transposed, then copied).
pub(crate) fn matmul(
    w: &Q4Matrix,
    bias: &[f32],
    a: &QActs,
    y: &mut Vec<f32>,
    scratch: &mut Vec<f32>,
) {
    assert_eq!(a.cols, w.cols, "activation width");
    assert_eq!(bias.len(), w.rows, "bias length");
    let (t, rows) = (a.tokens, w.rows);
    let avx2 = simd();
    let threads = rayon::current_num_threads().max(1);
    // Every value is written below: keeping the buffer's old values saves zeroing it.
    y.resize(t * rows, 0.0);
    if t == 0 {
        return;
    }
    if t >= 4 * TILE_TOKENS * threads {
        let per = t.div_ceil(threads * 2).div_ceil(TILE_TOKENS) * TILE_TOKENS;
        y.par_chunks_mut(per * rows)
            .enumerate()
            .for_each(|(i, out)| {
                let t0 = i * per;
                let n_t = out.len() / rows;
                for r in (0..rows).step_by(TILE_ROWS) {
                    let mut tt = 0;
                    while tt < n_t {
                        let n = (n_t - tt).min(TILE_TOKENS);
                        let mut tile = [[0.0_f32; TILE_TOKENS]; TILE_ROWS];
                        tile_dot(w, r, a, t0 + tt, n, avx2, &mut tile);
                        for (k, row) in tile.iter().enumerate() {
                            for (j, v) in row[..n].iter().enumerate() {
                                out[(tt + j) * rows + r + k] = v + bias[r + k];
                            }
                        }
                        tt += n;
                    }
                }
            });
        return;
    }
    // Few tokens (a query): split the rows; the result comes out `[rows][tokens]`.
    let per = (rows / (threads * 4)).max(TILE_ROWS);
    let per = per.div_ceil(TILE_ROWS) * TILE_ROWS;
    scratch.clear();
    scratch.resize(rows * t, 0.0);
    scratch
        .par_chunks_mut(per * t)
        .enumerate()
        .for_each(|(i, out)| {
            let r0 = i * per;
            for r in (r0..r0 + out.len() / t).step_by(TILE_ROWS) {
                let mut t0 = 0;
                while t0 < t {
                    let n = (t - t0).min(TILE_TOKENS);
                    let mut tile = [[0.0_f32; TILE_TOKENS]; TILE_ROWS];
                    tile_dot(w, r, a, t0, n, avx2, &mut tile);
                    for (k, row) in tile.iter().enumerate() {
                        let base = (r - r0 + k) * t + t0;
                        out[base..base + n].copy_from_slice(&row[..n]);
                    }
                    t0 += n;
                }
            }
        });
    for (r, col) in scratch.chunks_exact(t).enumerate() {
        for (tok, v) in col.iter().enumerate() {
            y[tok * rows + r] = v + bias[r];
        }
    }
}

/// One tile: rows `r..r + 2`, tokens `t0..t0 + n` (n ≤ 4), without bias.
#[allow(clippy::needless_range_loop)]
fn tile_dot(
    w: &Q4Matrix,
    r: usize,
    a: &QActs,
    t0: usize,
    n: usize,
    avx2: Simd,
    out: &mut [[f32; TILE_TOKENS]; TILE_ROWS],
) {
    // One kernel per tile width, so the accumulators stay in registers.
    #[cfg(target_arch = "x86_64")]
    macro_rules! by_width {
        ($kernel:ident) => {
            match n {
                4 => avx2_kernel::$kernel::<4>(w, r, a, t0, out),
                3 => avx2_kernel::$kernel::<3>(w, r, a, t0, out),
                2 => avx2_kernel::$kernel::<2>(w, r, a, t0, out),
                _ => avx2_kernel::$kernel::<1>(w, r, a, t0, out),
            }
        };
    }
    #[cfg(target_arch = "x86_64")]
    match avx2 {
        // SAFETY: the CPU features were detected at run time; the kernels read only inside the
        // slices they are given, whose lengths they check.
        Simd::Vnni => return unsafe { by_width!(tile_vnni) },
        // SAFETY: as above.
        Simd::Avx2 => return unsafe { by_width!(tile) },
        Simd::None => {}
    }
    let _ = avx2;
    // The same lanes as the SIMD kernels, one value at a time.
    let (cols, lanes_per_row) = (w.cols, w.cols / QK * 2);
    for k in 0..TILE_ROWS {
        let row = r + k;
        let wn = &w.nibbles[row * cols / 2..(row + 1) * cols / 2];
        let ws = &w.lane_scales[row * lanes_per_row..(row + 1) * lanes_per_row];
        for j in 0..n {
            let tok = t0 + j;
            let aq = &a.lanes[tok * cols..(tok + 1) * cols];
            let as_ = &a.lane_scales[tok * lanes_per_row..(tok + 1) * lanes_per_row];
            let ac = &a.lane_corr[tok * lanes_per_row..(tok + 1) * lanes_per_row];
            let mut total = 0.0_f32;
            for g in 0..cols / GROUP {
                let mut acc = [0i32; LANES];
                acc.copy_from_slice(&ac[g * LANES..(g + 1) * LANES]);
                for step in 0..GROUP_BLOCKS {
                    let packed = &wn[(g * GROUP_BLOCKS + step) * 16..][..16];
                    let acts = &aq[g * GROUP + step * 32..][..32];
                    for (pos, av) in acts.iter().enumerate() {
                        let q = if pos < 16 {
                            packed[pos] & 0x0F
                        } else {
                            packed[pos - 16] >> 4
                        };
                        acc[pos / 4] += i32::from(q) * i32::from(*av);
                    }
                }
                for lane in 0..LANES {
                    let scale = ws[g * LANES + lane] * as_[g * LANES + lane];
                    #[allow(clippy::cast_precision_loss)]
                    {
                        total += acc[lane] as f32 * scale;
                    }
                }
            }
            out[k][j] = total;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2_kernel {
    use std::arch::x86_64::{
        __m256, __m256i, _mm_add_epi32, _mm_add_ps, _mm_add_ss, _mm_and_si128, _mm_cvtsi128_si32,
        _mm_cvtss_f32, _mm_loadu_si128, _mm_max_ps, _mm_movehl_ps, _mm_set1_epi8,
        _mm_shuffle_epi32, _mm_shuffle_ps, _mm_srli_epi16, _mm256_add_epi32, _mm256_andnot_ps,
        _mm256_castps256_ps128, _mm256_cvtepi32_ps, _mm256_cvtps_epi32, _mm256_dpbusd_avx_epi32,
        _mm256_extractf128_ps, _mm256_extracti128_si256, _mm256_fmadd_ps, _mm256_loadu_ps,
        _mm256_loadu_si256, _mm256_madd_epi16, _mm256_maddubs_epi16, _mm256_max_ps, _mm256_mul_ps,
        _mm256_packs_epi16, _mm256_packs_epi32, _mm256_permutevar8x32_epi32, _mm256_set_m128i,
        _mm256_set1_epi16, _mm256_set1_ps, _mm256_setr_epi32, _mm256_setzero_ps,
        _mm256_setzero_si256, _mm256_storeu_si256,
    };

    use super::QK;
    use super::{GROUP, GROUP_BLOCKS, LANES, Q4Matrix, QActs, TILE_ROWS, TILE_TOKENS};

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn hsum(v: __m256) -> f32 {
        let lo = _mm256_castps256_ps128(v);
        let hi = _mm256_extractf128_ps(v, 1);
        let s = _mm_add_ps(lo, hi);
        let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        let s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
        _mm_cvtss_f32(s)
    }

    /// 8 floats from `s[at..at + 8]`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn load8(s: &[f32], at: usize) -> __m256 {
        let s = &s[at..at + 8];
        // SAFETY: `s` holds 8 floats.
        unsafe { _mm256_loadu_ps(s.as_ptr()) }
    }

    /// [`super::super::encoder::attend_token`] compiled with AVX2 and FMA (it is inlined here).
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn attend(a: &super::super::encoder::Attend<'_>, out: &mut [f32]) {
        super::super::encoder::attend_token(a, out);
    }

    /// Quantise blocks of 32 floats to int8 (round half to even, as `vcvtps2dq` does under the
    /// default rounding mode), with each block's scale and sum.
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn quantize(x: &[f32], q: &mut [i8], d: &mut [f32], sums: &mut [f32]) {
        let sign = _mm256_set1_ps(-0.0);
        let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        for (((src, dst), scale), sum) in x
            .chunks_exact(QK)
            .zip(q.chunks_exact_mut(QK))
            .zip(d.iter_mut())
            .zip(sums.iter_mut())
        {
            let v = [load8(src, 0), load8(src, 8), load8(src, 16), load8(src, 24)];
            let m = _mm256_max_ps(
                _mm256_max_ps(_mm256_andnot_ps(sign, v[0]), _mm256_andnot_ps(sign, v[1])),
                _mm256_max_ps(_mm256_andnot_ps(sign, v[2]), _mm256_andnot_ps(sign, v[3])),
            );
            let m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
            let m2 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
            let m1 = _mm_max_ps(m2, _mm_shuffle_ps(m2, m2, 1));
            let amax = _mm_cvtss_f32(m1);
            let dd = amax / 127.0;
            let inv = _mm256_set1_ps(if dd > 0.0 { 1.0 / dd } else { 0.0 });
            let qi = [
                _mm256_cvtps_epi32(_mm256_mul_ps(v[0], inv)),
                _mm256_cvtps_epi32(_mm256_mul_ps(v[1], inv)),
                _mm256_cvtps_epi32(_mm256_mul_ps(v[2], inv)),
                _mm256_cvtps_epi32(_mm256_mul_ps(v[3], inv)),
            ];
            let total = _mm256_add_epi32(
                _mm256_add_epi32(qi[0], qi[1]),
                _mm256_add_epi32(qi[2], qi[3]),
            );
            let t4 = _mm_add_epi32(
                std::arch::x86_64::_mm256_castsi256_si128(total),
                _mm256_extracti128_si256(total, 1),
            );
            let t2 = _mm_add_epi32(t4, _mm_shuffle_epi32(t4, 0b01_00_11_10));
            let t1 = _mm_add_epi32(t2, _mm_shuffle_epi32(t2, 0b10_11_00_01));
            let packed = _mm256_permutevar8x32_epi32(
                _mm256_packs_epi16(
                    _mm256_packs_epi32(qi[0], qi[1]),
                    _mm256_packs_epi32(qi[2], qi[3]),
                ),
                order,
            );
            // SAFETY: `dst` is 32 bytes long.
            unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), packed) };
            *scale = dd;
            #[allow(clippy::cast_precision_loss)]
            {
                *sum = _mm_cvtsi128_si32(t1) as f32;
            }
        }
    }

    /// `acc` plus the per-lane sums of four u8 × i8 products: three instructions on AVX2 (the
    /// pair sums of `vpmaddubsw` cannot saturate: 2 · 15 · 128 < 2^15).
    #[target_feature(enable = "avx2,fma")]
    fn dot_avx2(acc: __m256i, w: __m256i, a: __m256i) -> __m256i {
        _mm256_add_epi32(
            acc,
            _mm256_madd_epi16(_mm256_maddubs_epi16(w, a), _mm256_set1_epi16(1)),
        )
    }

    /// The same in one instruction (AVX-VNNI).
    #[target_feature(enable = "avx2,fma,avxvnni")]
    fn dot_vnni(acc: __m256i, w: __m256i, a: __m256i) -> __m256i {
        _mm256_dpbusd_avx_epi32(acc, w, a)
    }

    macro_rules! tile_kernel {
        ($name:ident, $features:literal, $dot:ident) => {
            /// The tile's outputs, −8 correction included.
            #[target_feature(enable = $features)]
            pub(super) fn $name<const N: usize>(
                w: &Q4Matrix,
                r: usize,
                a: &QActs,
                t0: usize,
                out: &mut [[f32; TILE_TOKENS]; TILE_ROWS],
            ) {
                let cols = w.cols;
                let groups = cols / GROUP;
                let lanes_per_row = groups * LANES;
                let wn = &w.nibbles[r * cols / 2..(r + TILE_ROWS) * cols / 2];
                let ws = &w.lane_scales[r * lanes_per_row..(r + TILE_ROWS) * lanes_per_row];
                let acts = &a.lanes[t0 * cols..(t0 + N) * cols];
                let as_ = &a.lane_scales[t0 * lanes_per_row..(t0 + N) * lanes_per_row];
                let ac = &a.lane_corr[t0 * lanes_per_row..(t0 + N) * lanes_per_row];
                let mask = _mm_set1_epi8(0x0F);
                let mut acc = [[_mm256_setzero_ps(); N]; TILE_ROWS];
                let mut wv = [_mm256_setzero_si256(); TILE_ROWS * GROUP_BLOCKS];
                for g in 0..groups {
                    for k in 0..TILE_ROWS {
                        let packed = &wn[k * cols / 2 + g * GROUP / 2..][..GROUP / 2];
                        for step in 0..GROUP_BLOCKS {
                            // SAFETY: `packed` holds 4 steps of 16 bytes.
                            let bytes =
                                unsafe { _mm_loadu_si128(packed[step * 16..].as_ptr().cast()) };
                            let lo = _mm_and_si128(bytes, mask);
                            let hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), mask);
                            wv[k * GROUP_BLOCKS + step] = _mm256_set_m128i(hi, lo);
                        }
                    }
                    for j in 0..N {
                        let av = &acts[j * cols + g * GROUP..][..GROUP];
                        let lane_at = j * lanes_per_row + g * LANES;
                        let da = load8(as_, lane_at);
                        for k in 0..TILE_ROWS {
                            // SAFETY: `ac` holds 8 lanes from `lane_at` (sliced above).
                            let mut s = unsafe {
                                _mm256_loadu_si256(ac[lane_at..][..LANES].as_ptr().cast())
                            };
                            for step in 0..GROUP_BLOCKS {
                                // SAFETY: `av` holds 4 steps of 32 bytes.
                                let x = unsafe {
                                    _mm256_loadu_si256(av[step * 32..][..32].as_ptr().cast())
                                };
                                s = $dot(s, wv[k * GROUP_BLOCKS + step], x);
                            }
                            let scale = _mm256_mul_ps(load8(ws, k * lanes_per_row + g * LANES), da);
                            acc[k][j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), scale, acc[k][j]);
                        }
                    }
                }
                for k in 0..TILE_ROWS {
                    for j in 0..N {
                        out[k][j] = hsum(acc[k][j]);
                    }
                }
            }
        };
    }

    tile_kernel!(tile, "avx2,fma", dot_avx2);
    tile_kernel!(tile_vnni, "avx2,fma,avxvnni", dot_vnni);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f16_bytes(x: f32) -> [u8; 2] {
        half::f16::from_f32(x).to_le_bytes()
    }

    /// A random-ish Q4 matrix and activations: the kernel equals the plain float product of the
    /// de-quantised weights and de-quantised activations.
    #[test]
    fn the_kernel_computes_the_dequantised_product() {
        let (rows, cols, tokens) = (6, 256, 7);
        let mut blocks = Vec::new();
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (seed >> 16) & 0x7fff
        };
        for i in 0..rows * cols / QK {
            #[allow(clippy::cast_precision_loss)]
            let d = 0.01 + (i % 5) as f32 * 0.003;
            blocks.extend_from_slice(&f16_bytes(d));
            for _ in 0..16 {
                blocks.push(u8::try_from(next() & 0xFF).expect("byte"));
            }
        }
        let w = Q4Matrix::from_blocks(&blocks, rows, cols).expect("fits");
        #[allow(clippy::cast_precision_loss)]
        let x: Vec<f32> = (0..tokens * cols)
            .map(|_| (next() % 2001) as f32 / 1000.0 - 1.0)
            .collect();
        let mut a = QActs::default();
        a.quantize(&x, tokens, cols);
        let bias: Vec<f32> = (0..rows)
            .map(|r| f32::from(u8::try_from(r).expect("small")) * 0.1)
            .collect();
        let (mut y, mut scratch) = (Vec::new(), Vec::new());
        matmul(&w, &bias, &a, &mut y, &mut scratch);
        // Reference: de-quantised weights × de-quantised activations.
        let mut wf = vec![0.0_f32; rows * cols];
        for r in 0..rows {
            let nb = cols / QK;
            dequantize_row(
                &blocks[r * nb * Q4_BLOCK_BYTES..(r + 1) * nb * Q4_BLOCK_BYTES],
                &mut wf[r * cols..(r + 1) * cols],
            );
        }
        for t in 0..tokens {
            for r in 0..rows {
                let mut want = bias[r];
                for c in 0..cols {
                    let qa = f32::from(a.q[t * cols + c]) * a.d[t * cols / QK + c / QK];
                    want += wf[r * cols + c] * qa;
                }
                let got = y[t * rows + r];
                assert!((got - want).abs() < 1e-3, "t{t} r{r}: {got} vs {want}");
            }
        }
        // The portable path gives the same numbers.
        let mut tile = [[0.0_f32; TILE_TOKENS]; TILE_ROWS];
        tile_dot(&w, 2, &a, 3, 4, Simd::None, &mut tile);
        for k in 0..TILE_ROWS {
            for j in 0..4 {
                let got = y[(3 + j) * rows + 2 + k] - bias[2 + k];
                assert!((got - tile[k][j]).abs() < 1e-4);
            }
        }
    }

    #[test]
    fn the_simd_quantiser_equals_the_portable_one() {
        let mut seed = 11u32;
        #[allow(clippy::cast_precision_loss)]
        let x: Vec<f32> = (0..32 * 40)
            .map(|i| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let v = (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5;
                if i % 97 == 0 {
                    v * 1000.0
                } else if i < 32 {
                    0.0
                } else {
                    v * 3.0
                }
            })
            .collect();
        let mut a = QActs::default();
        a.quantize(&x, 40, 32);
        let (mut q, mut d, mut s) = (vec![0i8; x.len()], vec![0.0; 40], vec![0.0; 40]);
        quantize_portable(&x, &mut q, &mut d, &mut s);
        assert_eq!(a.q, q);
        assert_eq!(a.d, d);
        assert_eq!(a.sums, s);
    }

    #[test]
    fn quantising_rounds_half_to_even_and_keeps_zero_blocks_zero() {
        let mut a = QActs::default();
        let mut x = vec![0.0_f32; 64];
        x[32] = 127.0;
        x[33] = 0.5;
        x[34] = 1.5;
        x[35] = -127.0;
        a.quantize(&x, 1, 64);
        assert_eq!(a.d[0], 0.0);
        assert!(a.q[..32].iter().all(|v| *v == 0));
        assert_eq!(&a.q[32..36], &[127, 0, 2, -127]);
        assert!((a.sums[1] - 2.0).abs() < f32::EPSILON);
    }
}
