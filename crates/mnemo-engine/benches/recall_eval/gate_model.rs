//! The calibrated gate, as measured: one logistic model that turns a memory's meaning signals
//! into the probability that it answers the query. Recall does not use it (it reads a cosine
//! through the embedding model's fixed calibration); the bench fits and judges it, and the
//! engine's tests run its unit tests (`tests/engine/main.rs`).
//!
//! Features of one document for one query ([`FEATURES`], in order), per signal (e5 dense, e5's
//! sparse head, USE-multilingual):
//!
//! - **background z**: how far its score stands above the query's own scores against the
//!   background passages (`mnemo_embed::background`), in their standard deviations — a query
//!   about nothing scores every memory much like it scores neutral text;
//! - **home z**: how far it stands above the query's scores over the home's documents;
//! - **gap**: how far it falls below the home's best document (0 for the best), in background
//!   standard deviations;
//!
//! and, once per document, the **lexical coverage** (the share of the query's content words the
//! document holds, as the index reads words) and the home's size (`ln` of its documents).
//!
//! A signal whose model is missing is a column of zeros (the gate says which signals it was fit
//! with; [`Gate::fits`]). Everything here is arithmetic: no model and no IO, so the gate is fit
//! and judged in a bench and tested here on made-up numbers. The coefficients are data
//! ([`Gate::DEFAULT_JSON`], written by `cargo bench -p mnemo-engine --bench recall_eval -- --fit`),
//! never hand-set.

use serde::{Deserialize, Serialize};

/// How many meaning signals the gate reads.
pub const SIGNALS: usize = 3;

/// The signals' names, in order.
pub const SIGNAL_NAMES: [&str; SIGNALS] = ["e5 dense", "e5 sparse", "USE"];

/// Features per signal.
const PER_SIGNAL: usize = 3;

/// How many features a document has.
pub const N_FEATURES: usize = SIGNALS * PER_SIGNAL + 3;

/// The features' names, in order.
pub const FEATURES: [&str; N_FEATURES] = [
    "e5 dense background z",
    "e5 dense home z",
    "e5 dense gap",
    "e5 sparse background z",
    "e5 sparse home z",
    "e5 sparse gap",
    "USE background z",
    "USE home z",
    "USE gap",
    "least background z",
    "lexical coverage",
    "ln documents",
];

/// The least spread a z-score divides by.
const MIN_SD: f64 = 1e-3;

/// A query's scores against the background passages under one signal: their mean and spread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Null {
    pub mean: f64,
    pub sd: f64,
}

impl Null {
    /// Mean and standard deviation of `scores` (`None` when empty).
    #[must_use]
    #[allow(clippy::cast_precision_loss)]
    pub fn of(scores: &[f64]) -> Option<Self> {
        if scores.is_empty() {
            return None;
        }
        let n = scores.len() as f64;
        let mean = scores.iter().sum::<f64>() / n;
        let sd = (scores.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        Some(Self { mean, sd })
    }

    fn sd(&self) -> f64 {
        self.sd.max(MIN_SD)
    }
}

/// One signal's scores for one query: against every document of the home, and its null.
#[derive(Debug, Clone, Copy)]
pub struct SignalScores<'a> {
    /// One score per document, in the home's document order.
    pub docs: &'a [f64],
    pub null: Null,
}

/// The features of every document of a home for one query. `signals[s]` is `None` when that
/// signal's model is missing; `lexical` holds each document's coverage (see [`coverage`]).
///
/// # Panics
/// When a signal's or the lexical column's length is not the number of documents.
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn features(
    signals: &[Option<SignalScores<'_>>; SIGNALS],
    lexical: &[f64],
) -> Vec<[f64; N_FEATURES]> {
    let n = lexical.len();
    let mut out = vec![[0.0; N_FEATURES]; n];
    for (s, sig) in signals.iter().enumerate() {
        let Some(sig) = sig else { continue };
        assert_eq!(sig.docs.len(), n, "one score per document");
        let home = Null::of(sig.docs).unwrap_or(Null { mean: 0.0, sd: 0.0 });
        let best = sig.docs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        for (row, x) in out.iter_mut().zip(sig.docs) {
            row[s * PER_SIGNAL] = (x - sig.null.mean) / sig.null.sd();
            row[s * PER_SIGNAL + 1] = (x - home.mean) / home.sd();
            row[s * PER_SIGNAL + 2] = (best - x) / sig.null.sd();
        }
    }
    let size = (n.max(1) as f64).ln();
    let there: Vec<usize> = (0..SIGNALS).filter(|s| signals[*s].is_some()).collect();
    for (row, c) in out.iter_mut().zip(lexical) {
        row[SIGNALS * PER_SIGNAL] = there
            .iter()
            .map(|s| row[s * PER_SIGNAL])
            .fold(f64::INFINITY, f64::min)
            .min(f64::MAX);
        if there.is_empty() {
            row[SIGNALS * PER_SIGNAL] = 0.0;
        }
        row[SIGNALS * PER_SIGNAL + 1] = *c;
        row[SIGNALS * PER_SIGNAL + 2] = size;
    }
    out
}

/// The share of `query`'s content words that `doc` holds, as the index reads words (NFKC,
/// lowercase, English stems, CJK bigrams; stop words and Latin words under three letters left
/// out). 0 for a query without content words.
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn coverage(query_terms: &[String], doc: &str) -> f64 {
    if query_terms.is_empty() {
        return 0.0;
    }
    let tokens: std::collections::HashSet<&str> = doc.split_whitespace().collect();
    let held = query_terms
        .iter()
        .filter(|t| tokens.contains(t.as_str()))
        .count();
    held as f64 / query_terms.len() as f64
}

/// A query's content words for [`coverage`]: `mnemo_store::tokenize::search_terms` without
/// stop words and short Latin words.
#[must_use]
pub fn content_terms(query: &str) -> Vec<String> {
    use mnemo_store::tokenize::{STOP_WORDS, is_cjk, search_terms};
    search_terms(query)
        .into_iter()
        .filter(|t| {
            t.chars().any(is_cjk) || (t.chars().count() >= 3 && !STOP_WORDS.contains(&t.as_str()))
        })
        .collect()
}

/// The fitted gate: standardisation, weights, bias and the threshold recall injects above.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gate {
    /// Bumped when the features change; a gate of another version is refused.
    pub version: u32,
    /// What it was fit on, in words.
    pub fit_on: String,
    /// Which signals were there when it was fit ([`SIGNAL_NAMES`] order).
    pub signals: [bool; SIGNALS],
    /// The features' names, as [`FEATURES`].
    pub features: Vec<String>,
    pub mean: Vec<f64>,
    pub sd: Vec<f64>,
    pub weights: Vec<f64>,
    pub bias: f64,
    /// Recall injects a document whose probability is above this.
    pub threshold: f64,
}

/// The features' version; [`Gate::version`] must equal it.
pub const VERSION: u32 = 1;

impl Gate {
    /// The gate fit on the recall eval's train queries with the default models.
    pub const DEFAULT_JSON: &'static str = include_str!("gate.json");

    /// The gate that ships (`None` when its file is of another version or unreadable, which a
    /// test rules out).
    #[must_use]
    pub fn default_gate() -> Option<Self> {
        Self::from_json(Self::DEFAULT_JSON).ok()
    }

    /// A gate from its JSON, checked against this build's features.
    ///
    /// # Errors
    /// When the JSON does not parse, or the version or features differ.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let g: Self =
            serde_json::from_str(text).map_err(|e| format!("the gate does not parse: {e}"))?;
        if g.version != VERSION || g.features != FEATURES {
            return Err(format!(
                "the gate is of version {} with other features; this build reads version {VERSION}: \
                 refit it (cargo bench -p mnemo-engine --bench recall_eval -- --fit)",
                g.version
            ));
        }
        if [g.mean.len(), g.sd.len(), g.weights.len()] != [N_FEATURES; 3] {
            return Err("the gate's columns are not one per feature".to_owned());
        }
        Ok(g)
    }

    /// Whether the signals present now are the ones it was fit with.
    #[must_use]
    pub fn fits(&self, present: [bool; SIGNALS]) -> bool {
        self.signals == present
    }

    /// The probability that a document with these features answers the query.
    #[must_use]
    pub fn probability(&self, x: &[f64; N_FEATURES]) -> f64 {
        let z: f64 = self.bias
            + x.iter()
                .enumerate()
                .map(|(i, v)| self.weights[i] * (v - self.mean[i]) / self.sd[i])
                .sum::<f64>();
        sigmoid(z)
    }

    /// Whether recall injects a document of this probability.
    #[must_use]
    pub fn admits(&self, p: f64) -> bool {
        p > self.threshold
    }
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Fit a logistic regression with an L2 penalty `l2` (on the standardised weights, not the
/// bias) by Newton's method; `threshold` is set by the caller. Features that never vary are
/// kept with weight 0.
///
/// # Panics
/// When `xs` and `ys` differ in length or `xs` is empty.
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn fit(xs: &[[f64; N_FEATURES]], ys: &[bool], l2: f64) -> Gate {
    assert_eq!(xs.len(), ys.len(), "a label per sample");
    assert!(!xs.is_empty(), "samples to fit on");
    let n = xs.len() as f64;
    let mut mean = vec![0.0; N_FEATURES];
    let mut sd = vec![0.0; N_FEATURES];
    for j in 0..N_FEATURES {
        mean[j] = xs.iter().map(|x| x[j]).sum::<f64>() / n;
        sd[j] = (xs.iter().map(|x| (x[j] - mean[j]).powi(2)).sum::<f64>() / n).sqrt();
    }
    let live: Vec<bool> = sd.iter().map(|s| *s > 1e-12).collect();
    for s in &mut sd {
        if *s <= 1e-12 {
            *s = 1.0;
        }
    }
    let std: Vec<Vec<f64>> = xs
        .iter()
        .map(|x| {
            let mut r: Vec<f64> = (0..N_FEATURES)
                .map(|j| {
                    if live[j] {
                        (x[j] - mean[j]) / sd[j]
                    } else {
                        0.0
                    }
                })
                .collect();
            r.push(1.0);
            r
        })
        .collect();
    let k = N_FEATURES + 1;
    let mut w = vec![0.0; k];
    for _ in 0..50 {
        let mut grad = vec![0.0; k];
        let mut hess = vec![vec![0.0; k]; k];
        for (x, y) in std.iter().zip(ys) {
            let p = sigmoid(x.iter().zip(&w).map(|(a, b)| a * b).sum());
            let r = p - f64::from(u8::from(*y));
            let q = (p * (1.0 - p)).max(1e-9);
            for a in 0..k {
                grad[a] += r * x[a];
                for b in 0..k {
                    hess[a][b] += q * x[a] * x[b];
                }
            }
        }
        for a in 0..N_FEATURES {
            grad[a] += l2 * w[a];
            hess[a][a] += l2;
            if !live[a] {
                hess[a][a] += 1.0;
            }
        }
        let step = solve(hess, grad);
        let mut moved = 0.0_f64;
        for (wi, si) in w.iter_mut().zip(&step) {
            *wi -= si;
            moved = moved.max(si.abs());
        }
        if moved < 1e-9 {
            break;
        }
    }
    Gate {
        version: VERSION,
        fit_on: String::new(),
        signals: [true; SIGNALS],
        features: FEATURES.iter().map(|s| (*s).to_owned()).collect(),
        mean,
        sd,
        weights: w[..N_FEATURES].to_vec(),
        bias: w[N_FEATURES],
        threshold: 0.5,
    }
}

/// `a`⁻¹ `b` by Gaussian elimination with partial pivoting (`a` is positive definite here).
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let k = b.len();
    for c in 0..k {
        let p = (c..k)
            .max_by(|i, j| a[*i][c].abs().total_cmp(&a[*j][c].abs()))
            .unwrap_or(c);
        a.swap(c, p);
        b.swap(c, p);
        let d = a[c][c];
        if d.abs() < 1e-15 {
            continue;
        }
        for r in c + 1..k {
            let f = a[r][c] / d;
            if f == 0.0 {
                continue;
            }
            let (top, rest) = a.split_at_mut(r);
            for (x, p) in rest[0][c..].iter_mut().zip(&top[c][c..]) {
                *x -= f * p;
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = vec![0.0; k];
    for c in (0..k).rev() {
        let s: f64 = (c + 1..k).map(|j| a[c][j] * x[j]).sum();
        x[c] = if a[c][c].abs() < 1e-15 {
            0.0
        } else {
            (b[c] - s) / a[c][c]
        };
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(v: f64) -> [f64; N_FEATURES] {
        let mut r = [0.0; N_FEATURES];
        r[0] = v;
        r
    }

    #[test]
    fn features_stand_each_score_against_the_query_null_the_home_and_its_best() {
        let dense = [0.9, 0.8, 0.7];
        let sig = SignalScores {
            docs: &dense,
            null: Null { mean: 0.7, sd: 0.1 },
        };
        let f = features(&[Some(sig), None, None], &[1.0, 0.5, 0.0]);
        assert_eq!(f.len(), 3);
        assert!(
            (f[0][0] - 2.0).abs() < 1e-9,
            "background z of the best: {}",
            f[0][0]
        );
        assert!(
            f[0][1] > 0.0 && f[2][1] < 0.0 && f[1][1].abs() < 1e-9,
            "home z"
        );
        assert!(
            f[0][2].abs() < 1e-12 && (f[2][2] - 2.0).abs() < 1e-9,
            "gap to the best"
        );
        assert!(
            f.iter().all(|r| r[3..9].iter().all(|v| *v == 0.0)),
            "a missing signal is zeros"
        );
        assert!(
            (f[0][9] - 2.0).abs() < 1e-9,
            "the least background z of one signal is its own"
        );
        assert_eq!((f[1][10], f[1][11]), (0.5, 3f64.ln()));
    }

    #[test]
    fn coverage_counts_the_query_content_words_a_document_holds() {
        let terms = content_terms("Which PEANUT snacks are safe?");
        assert!(terms.iter().any(|t| t == "peanut"), "{terms:?}");
        let doc = mnemo_store::tokenize::index_tokens("Allergic to peanuts and sesame");
        let c = coverage(&terms, &doc);
        assert!(c > 0.0 && c < 1.0, "{c} of {terms:?} in {doc}");
        assert_eq!(coverage(&[], &doc), 0.0);
        let zh = content_terms("花生过敏");
        assert!(coverage(&zh, &mnemo_store::tokenize::index_tokens("对花生过敏")) > 0.99);
    }

    #[test]
    fn the_fit_separates_what_answers_and_its_probability_orders_by_the_evidence() {
        let xs: Vec<[f64; N_FEATURES]> = (0..200).map(|i| row(f64::from(i) / 20.0)).collect();
        // Above 5 answers, with some overlap so the optimum is finite.
        let ys: Vec<bool> = (0..200).map(|i| i > 100 || i % 17 == 0).collect();
        let g = fit(&xs, &ys, 1.0);
        assert!(g.weights[0] > 0.0);
        assert!(
            g.weights[1..].iter().all(|w| *w == 0.0),
            "features that never vary weigh nothing"
        );
        let lo = g.probability(&row(1.0));
        let hi = g.probability(&row(9.0));
        assert!(lo < 0.2 && hi > 0.8, "{lo} {hi}");
        let mid = g.probability(&row(5.0));
        assert!(lo < mid && mid < hi);
    }

    #[test]
    fn a_gate_round_trips_through_json_and_one_of_another_version_is_refused() {
        let xs: Vec<[f64; N_FEATURES]> = (0..40).map(|i| row(f64::from(i))).collect();
        let ys: Vec<bool> = (0..40).map(|i| i >= 20 || i == 3).collect();
        let g = fit(&xs, &ys, 1.0);
        let json = serde_json::to_string(&g).expect("serialises");
        assert_eq!(Gate::from_json(&json).expect("reads back"), g);
        let old = json.replace("\"version\":1", "\"version\":0");
        assert!(Gate::from_json(&old).unwrap_err().contains("refit"));
        assert!(Gate::from_json("{").is_err());
    }

    #[test]
    fn the_gate_that_ships_reads() {
        let g = Gate::default_gate().expect("gate.json is of this version");
        assert!(g.threshold > 0.0 && g.threshold < 1.0);
        assert!(g.weights.iter().all(|w| w.is_finite()));
    }
}
