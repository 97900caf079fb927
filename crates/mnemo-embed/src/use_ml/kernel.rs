//! The one hot loop of the encoder: `out = init + a · W` for a row-major activation block `a`
//! (m rows of k numbers, rows `lda` apart) and a fixed weight matrix `W` (k × n).
//!
//! `W` is re-laid once at load ([`Packed`]) in panels of 16 columns, each panel's k rows of 16
//! numbers contiguous, so the kernel reads a panel front to back. An output tile is up to 4 rows
//! × 16 columns held in registers (8 AVX vectors) while k runs: per step, one 16-wide weight row,
//! one activation per tile row, 4 × 2 fused multiply-adds. Plain f32 Rust; the compiler
//! vectorises it. On x86-64 with AVX2 and FMA (checked at run time) the same loop is compiled
//! with those features and `mul_add` becomes a fused instruction; elsewhere it is a multiply
//! and an add (the same numbers up to rounding).
//!
//! The only `unsafe` here is calling the AVX2 + FMA copy after the run-time check says the CPU
//! has both; the loop itself is safe code over bounds-checked slices.
#![allow(unsafe_code)]

/// Columns per panel and per output tile.
pub(crate) const PANEL: usize = 16;
/// Rows per output tile.
const ROWS: usize = 4;

/// A k × n weight matrix (n a multiple of [`PANEL`]) in panels of 16 columns.
#[derive(Debug)]
pub(crate) struct Packed {
    k: usize,
    n: usize,
    /// Panel `p`, row `r`, column `c` (of the panel) at `(p * k + r) * PANEL + c`.
    data: Vec<[f32; PANEL]>,
}

impl Packed {
    /// Re-lay a row-major k × n matrix; `None` when n is not a multiple of 16 or the length is
    /// not k · n.
    pub(crate) fn new(w: &[f32], k: usize, n: usize) -> Option<Self> {
        if n == 0 || !n.is_multiple_of(PANEL) || w.len() != k.checked_mul(n)? {
            return None;
        }
        let mut data = Vec::with_capacity(k * n / PANEL);
        for p in 0..n / PANEL {
            for r in 0..k {
                let start = r * n + p * PANEL;
                let mut row = [0.0; PANEL];
                row.copy_from_slice(&w[start..start + PANEL]);
                data.push(row);
            }
        }
        Some(Self { k, n, data })
    }
}

/// What an output tile starts from.
#[derive(Clone, Copy)]
pub(crate) enum Init<'a> {
    /// The bias row (n numbers).
    Bias(&'a [f32]),
    /// Zero.
    Zero,
    /// What `out` already holds (a second product added to a first).
    Accumulate,
}

/// `out[i * ldc + j] = init + Σ_r a[i * lda + r] · W[r][j]` for i < m, j < n.
///
/// # Panics
/// When a slice is shorter than the shapes say (a bug in the caller, never input-dependent).
pub(crate) fn matmul(
    a: &[f32],
    lda: usize,
    m: usize,
    w: &Packed,
    init: Init<'_>,
    out: &mut [f32],
    ldc: usize,
) {
    if m == 0 {
        return;
    }
    assert!(
        lda >= w.k && a.len() >= (m - 1) * lda + w.k,
        "activation block too short"
    );
    assert!(
        ldc >= w.n && out.len() >= (m - 1) * ldc + w.n,
        "output block too short"
    );
    if let Init::Bias(b) = init {
        assert!(b.len() == w.n, "bias length");
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has AVX2 and FMA (checked just above), all `matmul_avx2` needs.
        unsafe { matmul_avx2(a, lda, m, w, init, out, ldc) };
        return;
    }
    run::<Plain>(a, lda, m, w, init, out, ldc);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn matmul_avx2(
    a: &[f32],
    lda: usize,
    m: usize,
    w: &Packed,
    init: Init<'_>,
    out: &mut [f32],
    ldc: usize,
) {
    run::<Fused>(a, lda, m, w, init, out, ldc);
}

/// How one multiply-add is done.
trait MulAdd {
    fn mul_add(a: f32, b: f32, c: f32) -> f32;
}

/// One fused instruction (used only where the CPU has FMA).
#[cfg(target_arch = "x86_64")]
struct Fused;
#[cfg(target_arch = "x86_64")]
impl MulAdd for Fused {
    #[inline(always)]
    fn mul_add(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
}

/// A multiply and an add.
struct Plain;
impl MulAdd for Plain {
    #[inline(always)]
    fn mul_add(a: f32, b: f32, c: f32) -> f32 {
        a * b + c
    }
}

#[inline(always)]
fn run<F: MulAdd>(
    a: &[f32],
    lda: usize,
    m: usize,
    w: &Packed,
    init: Init<'_>,
    out: &mut [f32],
    ldc: usize,
) {
    let k = w.k;
    for (p, panel) in w.data.chunks_exact(k).enumerate() {
        let col = p * PANEL;
        let mut row = 0;
        while row + ROWS <= m {
            tile::<F, ROWS>(a, lda, row, panel, init, out, ldc, col);
            row += ROWS;
        }
        match m - row {
            3 => tile::<F, 3>(a, lda, row, panel, init, out, ldc, col),
            2 => tile::<F, 2>(a, lda, row, panel, init, out, ldc, col),
            1 => tile::<F, 1>(a, lda, row, panel, init, out, ldc, col),
            _ => {}
        }
    }
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn tile<F: MulAdd, const R: usize>(
    a: &[f32],
    lda: usize,
    row: usize,
    panel: &[[f32; PANEL]],
    init: Init<'_>,
    out: &mut [f32],
    ldc: usize,
    col: usize,
) {
    let k = panel.len();
    let rows: [&[f32]; R] = std::array::from_fn(|r| &a[(row + r) * lda..(row + r) * lda + k]);
    let mut acc = [[0.0f32; PANEL]; R];
    for (r, acc_row) in acc.iter_mut().enumerate() {
        match init {
            Init::Bias(b) => acc_row.copy_from_slice(&b[col..col + PANEL]),
            Init::Zero => {}
            Init::Accumulate => {
                let at = (row + r) * ldc + col;
                acc_row.copy_from_slice(&out[at..at + PANEL]);
            }
        }
    }
    for i in 0..k {
        let wrow = &panel[i];
        for r in 0..R {
            let x = rows[r][i];
            for c in 0..PANEL {
                acc[r][c] = F::mul_add(x, wrow[c], acc[r][c]);
            }
        }
    }
    for (r, acc_row) in acc.iter().enumerate() {
        let at = (row + r) * ldc + col;
        out[at..at + PANEL].copy_from_slice(acc_row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[f32], m: usize, k: usize, w: &[f32], n: usize, bias: &[f32]) -> Vec<f32> {
        let mut out = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut s = f64::from(bias[j]);
                for r in 0..k {
                    s += f64::from(a[i * k + r]) * f64::from(w[r * n + j]);
                }
                #[allow(clippy::cast_possible_truncation)]
                {
                    out[i * n + j] = s as f32;
                }
            }
        }
        out
    }

    #[allow(clippy::cast_precision_loss)]
    fn values(len: usize, seed: u32) -> Vec<f32> {
        (0..len)
            .map(|i| {
                ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) % 1000) as f32 / 500.0
                    - 1.0
            })
            .collect()
    }

    #[test]
    fn every_tile_height_matches_the_plain_product() {
        let (k, n) = (37, 48);
        let w = values(k * n, 3);
        let bias = values(n, 9);
        let packed = Packed::new(&w, k, n).expect("pack");
        for m in 1..=9 {
            let a = values(m * k, 5);
            let mut out = vec![0.0; m * n];
            matmul(&a, k, m, &packed, Init::Bias(&bias), &mut out, n);
            let want = naive(&a, m, k, &w, n, &bias);
            for (x, y) in out.iter().zip(&want) {
                assert!((x - y).abs() < 1e-4, "m={m}: {x} vs {y}");
            }
            // A second product added on top: the bias once, the product twice.
            matmul(&a, k, m, &packed, Init::Accumulate, &mut out, n);
            for (i, (x, y)) in out.iter().zip(&want).enumerate() {
                let twice = 2.0 * y - bias[i % n];
                assert!((x - twice).abs() < 2e-4, "m={m}: {x} vs {twice}");
            }
        }
    }

    #[test]
    fn strided_rows_and_a_column_window_of_the_output() {
        let (k, n, m) = (8, 16, 3);
        let w = values(k * n, 1);
        let packed = Packed::new(&w, k, n).expect("pack");
        let lda = 11;
        let a = values(m * lda, 2);
        let dense: Vec<f32> = (0..m)
            .flat_map(|i| a[i * lda..i * lda + k].to_vec())
            .collect();
        let ldc = 40;
        let mut out = vec![7.0; m * ldc];
        matmul(&a, lda, m, &packed, Init::Zero, &mut out[5..], ldc);
        let want = naive(&dense, m, k, &w, n, &[0.0; 16]);
        for i in 0..m {
            for j in 0..n {
                assert!((out[i * ldc + 5 + j] - want[i * n + j]).abs() < 1e-5);
            }
            assert!(out[i * ldc..i * ldc + 5].iter().all(|&x| x == 7.0));
        }
    }

    #[test]
    fn shapes_that_cannot_be_packed_are_refused() {
        assert!(Packed::new(&[0.0; 15], 1, 15).is_none());
        assert!(Packed::new(&[0.0; 31], 2, 16).is_none());
        assert!(Packed::new(&[], 0, 0).is_none());
    }
}
