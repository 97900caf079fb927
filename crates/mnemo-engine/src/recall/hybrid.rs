//! Hybrid ranking: BM25 candidates and vector candidates, min(200, 3·k)
//! from each side, merged by document. A document counts only if its meaning is close enough
//! (its cosine at or above the model's floor, [`Calibration`]) or it shares words with the
//! query, and its score — `0.5 · vector + 0.5 · BM25`, BM25 as a share of the best candidate's,
//! the cosine read through the model's calibration — must reach [`MIN_SCORE`]: a query about
//! nothing in memory returns nothing. Search orders by that score (it is shown); recall orders
//! by standardised scores ([`Fusion::Standardised`]: each side's spread decides how
//! much it counts). Every fusion is measured side by side on LoCoMo (`benches/locomo.rs`).
//!
//! Pure: the caller embeds the query and fetches both candidate lists.

use std::collections::HashMap;

use mnemo_store::index::Hit;

/// Weight of the vector side. The original 0.7 fell below lexical recall on LoCoMo's dialog
/// turns (MiniLM: R@5 52.7 vs 53.8; e5: 55.4 vs 57.4); 0.5 is the balance (measured with
/// `benches/locomo.rs`).
pub const VECTOR_WEIGHT: f64 = 0.5;
/// Weight of the lexical side.
pub const LEXICAL_WEIGHT: f64 = 0.5;
/// Most candidates taken from each side.
pub const MAX_CANDIDATES: usize = 200;
/// Cosine similarity below which an all-MiniLM-L6-v2 candidate is unrelated (unrelated
/// sentences sit around 0.0–0.2, paraphrases above 0.4); each model's floors are its
/// [`Calibration`].
pub const MIN_COSINE: f64 = 0.25;
/// Lowest fused score returned.
pub const MIN_SCORE: f64 = 0.05;
/// The search command's cut-off: a result scoring under this share of the best result is left
/// out ("which pet does the user own" matched every memory holding "user" at 0.05 beside the
/// pets at 0.6–0.8). Recall keeps its own rules: its candidates are ranked, not shown.
pub const SEARCH_RELATIVE_FLOOR: f64 = 0.2;
/// Reciprocal-rank fusion's constant.
pub const RRF_K: f64 = 60.0;

/// How a model's cosine similarities spread, for fusing them with word matches: a query whose
/// best cosine is under `query_floor` has no meaning match at all (nothing in memory is about
/// it); otherwise a memory counts from `doc_floor`, scored linearly from `zero` (0) to `one` (1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// The best cosine a query needs for its meaning side to count.
    pub query_floor: f64,
    /// The cosine a memory needs to count by meaning.
    pub doc_floor: f64,
    /// The cosine scored 0.
    pub zero: f64,
    /// The cosine scored 1.
    pub one: f64,
}

impl Calibration {
    /// A cosine as a 0–1 score.
    #[must_use]
    pub fn score(&self, cos: f64) -> f64 {
        ((cos - self.zero) / (self.one - self.zero)).clamp(0.0, 1.0)
    }
}

/// A query's null distribution: how its cosines to a background of neutral passages spread
/// (`mnemo_embed::background`). Whether a memory is about the query is read as how
/// many standard deviations its cosine stands above this — not as an absolute cosine, which
/// says more about the query's wording than about the memories.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct QueryNull {
    /// Mean cosine to the background.
    pub mean: f64,
    /// Their standard deviation.
    pub sd: f64,
}

/// A memory's *standing* for a query, read against both nulls: how many standard deviations
/// its cosine stands above the query's null (its cosines to background passages) plus how many
/// above the memory's own (its cosines to background queries). The second side keeps a short,
/// generic memory — close to everything — from standing out for every query. Measured on the
/// recall eval of `tests/engine/recall_eval.rs` (60 memories, paraphrases vs questions about
/// nothing, multilingual-e5-small):
/// at the same share of quiet no-result queries, two-sided standing finds about three times the
/// paraphrases a raw cosine floor or the query's null alone does.
///
/// The best memory needs a standing of `QUERY_BASE + QUERY_SPREAD · √(2 ln N)` for the query's
/// meaning side to count, N the memories searched: the best of N memories unrelated to a query
/// stands higher the more there are (the expected maximum of N draws grows as √(2 ln N)).
/// Fitted on Qwen Code's recall fixture, the six-memory home and the recall eval's homes of
/// 5, 25 and 60: 3.2 for 5 memories, 4.7 for 22, 5.7 for 60, 9.2 for 10,000.
pub const NULL_QUERY_BASE: f64 = -1.5;
/// See [`NULL_QUERY_BASE`].
pub const NULL_QUERY_SPREAD: f64 = 2.5;
/// The query floor never goes under this: in a home of four or five memories a short generic
/// one ("Terse answers — prefers short replies") stood 3.2–3.6 for "quantum chromodynamics
/// lecture notes" and "quarterly tax filing deadline".
pub const NULL_QUERY_MIN: f64 = 3.8;
/// How far under the query floor a memory may stand and still count (never under
/// [`NULL_QUERY_MIN`]).
pub const NULL_DOC_BELOW: f64 = 1.5;
/// The standing scored 1, above the memory floor.
pub const NULL_SCALE: f64 = 5.5;

/// The query floor for a search over `memories` memories ([`NULL_QUERY_BASE`]).
#[must_use]
pub fn null_query_floor(memories: usize) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let n = memories.max(2) as f64;
    (NULL_QUERY_BASE + NULL_QUERY_SPREAD * (2.0 * n.ln()).sqrt()).max(NULL_QUERY_MIN)
}

/// How a query's cosines are read: against the model's fixed floors, or as standings over the
/// nulls (when the embedder gave the query's null).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Meaning {
    /// Absolute cosines, the model's [`Calibration`].
    Fixed(Calibration),
    /// Standings over the query's null and each memory's (when the search gave it; a memory
    /// without one counts its query-side z twice), among `memories` searched.
    Null {
        /// The query's null.
        null: QueryNull,
        /// How many memories were searched (the query floor rises with them).
        memories: usize,
    },
}

impl From<Calibration> for Meaning {
    fn from(c: Calibration) -> Self {
        Self::Fixed(c)
    }
}

impl Meaning {
    /// A vector hit's standing (`cos` its cosine).
    #[must_use]
    pub fn standing(&self, cos: f64, doc_null: Option<(f64, f64)>) -> f64 {
        match self {
            Self::Fixed(_) => cos,
            Self::Null { null: q, .. } => {
                let zq = (cos - q.mean) / q.sd.max(1e-6);
                let zm = doc_null.map_or(zq, |(mean, sd)| (cos - mean) / sd.max(1e-6));
                zq + zm
            }
        }
    }

    fn query_floor(&self) -> f64 {
        match self {
            Self::Fixed(c) => c.query_floor,
            Self::Null { memories, .. } => null_query_floor(*memories),
        }
    }

    fn doc_floor(&self) -> f64 {
        match self {
            Self::Fixed(c) => c.doc_floor,
            Self::Null { .. } => (self.query_floor() - NULL_DOC_BELOW).max(NULL_QUERY_MIN),
        }
    }

    /// A standing as a 0–1 score.
    fn score(&self, standing: f64) -> f64 {
        match self {
            Self::Fixed(c) => c.score(standing),
            Self::Null { .. } => {
                let zero = self.doc_floor() - 0.5;
                ((standing - zero) / NULL_SCALE).clamp(0.0, 1.0)
            }
        }
    }

    fn of(&self, h: &Hit) -> f64 {
        self.standing(h.vector.unwrap_or(h.score), h.doc_null)
    }
}

/// How a query's meaning is read: over its null when the embedder gave one, else by the
/// model's fixed floors ([`calibration_of`]).
#[must_use]
pub fn meaning_for(model_id: &str, null: Option<QueryNull>, memories: usize) -> Meaning {
    match null {
        Some(n) if n.sd > 0.0 && n.mean.is_finite() => Meaning::Null { null: n, memories },
        _ => Meaning::Fixed(calibration_of(model_id)),
    }
}

/// The calibration for a model id, when no null is known (fixed floors, measured by hand).
#[must_use]
pub fn calibration_of(model_id: &str) -> Calibration {
    // Ids are `<name>@<hash>`; e5's name is `multilingual-e5-small-q4` (see `mnemo-embed`).
    if model_id.starts_with("multilingual-e5") {
        E5_CALIBRATION
    } else {
        MINILM_CALIBRATION
    }
}

/// all-MiniLM-L6-v2: unrelated sentences sit around 0.0–0.2, paraphrases above 0.4 (measured).
pub const MINILM_CALIBRATION: Calibration = Calibration {
    query_floor: 0.25,
    doc_floor: 0.25,
    zero: 0.0,
    one: 1.0,
};

/// multilingual-e5-small: every pair of texts lands between ~0.67 and ~0.95 (measured: junk
/// queries such as "x", "the" or "asdkjh qwe" reach 0.80–0.81 with unrelated memories; true
/// matches sit at 0.86–0.90, "首屏加载太久了" → "降低冷启动时间" 0.90).
pub const E5_CALIBRATION: Calibration = Calibration {
    query_floor: 0.83,
    doc_floor: 0.78,
    zero: 0.75,
    one: 0.92,
};

/// Candidates to fetch from each side for `limit` results.
#[must_use]
pub fn candidates_for(limit: usize) -> usize {
    (limit.saturating_mul(3)).clamp(1, MAX_CANDIDATES)
}

/// How the two lists are merged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fusion {
    /// `w · vector + (1 − w) · bm25`, both normalised.
    Weighted {
        /// The vector side's weight.
        vector: f64,
    },
    /// Like `Weighted`, with the vector side as a share of the best candidate's cosine (both
    /// sides relative to their best).
    Relative {
        /// The vector side's weight.
        vector: f64,
    },
    /// Reciprocal-rank fusion, `Σ 1 / (k + rank)`, rescaled so the best possible is 1.
    Rrf,
    /// Kept and scored like `Weighted`, **ordered** by standardised scores: each side's raw
    /// scores (BM25, cosine) as z-scores over its candidates, `w · z_vector + (1 − w) · z_bm25`,
    /// a document missing from a side (or under the memory floor) taking that side's lowest. A
    /// side whose candidates spread widely decides more; a flat one (every short turn about as
    /// close to the question) less. Recall's default: on LoCoMo it was the only fusion at or
    /// above lexical recall at every k on both databases (see `benches/locomo.rs`). Search keeps
    /// `Weighted`, whose scores are shown and so must follow the order.
    Standardised {
        /// The vector side's weight.
        vector: f64,
    },
}

impl Default for Fusion {
    fn default() -> Self {
        Self::Standardised {
            vector: VECTOR_WEIGHT,
        }
    }
}

/// The fusion search uses: its scores are shown as bars, so its order is its scores' order.
pub const SEARCH_FUSION: Fusion = Fusion::Weighted {
    vector: VECTOR_WEIGHT,
};

fn key(h: &Hit) -> (String, String) {
    (h.workspace.clone(), h.path.clone())
}

/// BM25 scores as 0–1, the best candidate at 1.
#[must_use]
pub fn normalise_lexical(hits: &[Hit]) -> Vec<f64> {
    let best = hits.iter().map(|h| h.score).fold(0.0_f64, f64::max);
    hits.iter()
        .map(|h| {
            if best > 0.0 {
                (h.score / best).clamp(0.0, 1.0)
            } else {
                0.0
            }
        })
        .collect()
}

/// A cosine as 0–1 (negative similarity counts as none).
#[must_use]
pub fn normalise_cosine(cos: f64) -> f64 {
    cos.clamp(0.0, 1.0)
}

/// Merge the two candidate lists by document and rank them; at most `limit`, best first, ties
/// to the newest. `cal` says how the model's cosines read ([`mnemo_embed::calibration_of`]):
/// when the best vector candidate is under its query floor the meaning side is left out.
#[must_use]
pub fn fuse(
    lexical: &[Hit],
    vector: &[Hit],
    fusion: Fusion,
    meaning: impl Into<Meaning>,
    limit: usize,
) -> Vec<Hit> {
    let m: Meaning = meaning.into();
    let best = vector.iter().map(|h| m.of(h)).fold(f64::MIN, f64::max);
    let vector = if best >= m.query_floor() { vector } else { &[] };
    let mut merged: HashMap<(String, String), Hit> = HashMap::new();
    let lex_norm = normalise_lexical(lexical);
    for (rank, (h, n)) in lexical.iter().zip(&lex_norm).enumerate() {
        if h.score <= 0.0 {
            continue;
        }
        let e = merged.entry(key(h)).or_insert_with(|| h.clone());
        e.lexical = Some(*n);
        e.score = rank_part(fusion, rank, 1.0 - vector_weight(fusion), *n);
    }
    let best_standing = vector.iter().map(|h| m.of(h)).fold(m.doc_floor(), f64::max);
    for (rank, h) in vector.iter().enumerate() {
        let e = merged.entry(key(h)).or_insert_with(|| Hit {
            lexical: None,
            ..h.clone()
        });
        let base = if e.lexical.is_some() { e.score } else { 0.0 };
        e.vector = Some(h.score);
        e.doc_null = h.doc_null;
        let standing = m.of(h);
        let norm = match fusion {
            Fusion::Relative { .. } => (m.score(standing) / m.score(best_standing)).clamp(0.0, 1.0),
            _ => m.score(standing),
        };
        let part = if standing >= m.doc_floor() {
            rank_part(fusion, rank, vector_weight(fusion), norm)
        } else {
            0.0
        };
        e.score = base + part;
    }
    let out: Vec<Hit> = merged
        .into_values()
        .filter(|s| s.lexical.is_some() || (s.vector.is_some() && m.of(s) >= m.doc_floor()))
        .filter(|s| s.score >= MIN_SCORE)
        .collect();
    let order: Vec<f64> = match fusion {
        Fusion::Standardised { vector: w } => standardised(&out, lexical, vector, w, &m),
        _ => out.iter().map(|h| h.score).collect(),
    };
    let mut ranked: Vec<(f64, Hit)> = order.into_iter().zip(out).collect();
    ranked.sort_by(|(ka, a), (kb, b)| {
        kb.total_cmp(ka)
            .then_with(|| b.mtime.cmp(&a.mtime))
            .then_with(|| a.path.cmp(&b.path))
    });
    ranked.into_iter().take(limit).map(|(_, h)| h).collect()
}

/// Each side's raw scores as z-scores over its candidates (all zero when fewer than two or no
/// spread).
fn z_scores(hits: &[&Hit]) -> HashMap<(String, String), f64> {
    #[allow(clippy::cast_precision_loss)]
    let n = hits.len() as f64;
    let mean = hits.iter().map(|h| h.score).sum::<f64>() / n.max(1.0);
    let var = hits.iter().map(|h| (h.score - mean).powi(2)).sum::<f64>() / n.max(1.0);
    let sd = var.sqrt();
    hits.iter()
        .map(|h| {
            let z = if hits.len() < 2 || sd < 1e-12 {
                0.0
            } else {
                (h.score - mean) / sd
            };
            (key(h), z)
        })
        .collect()
}

/// The ordering key of each kept document under [`Fusion::Standardised`].
fn standardised(kept: &[Hit], lexical: &[Hit], vector: &[Hit], w: f64, m: &Meaning) -> Vec<f64> {
    let lex: Vec<&Hit> = lexical.iter().filter(|h| h.score > 0.0).collect();
    // The vector side by standing (for fixed floors: the cosine itself).
    let standings: Vec<Hit> = vector
        .iter()
        .map(|h| Hit {
            score: m.of(h),
            ..h.clone()
        })
        .collect();
    let vec: Vec<&Hit> = standings.iter().collect();
    let (zl, zv) = (z_scores(&lex), z_scores(&vec));
    let lowest = |m: &HashMap<(String, String), f64>| m.values().copied().fold(0.0_f64, f64::min);
    let (l_miss, v_miss) = (lowest(&zl), lowest(&zv));
    kept.iter()
        .map(|h| {
            let k = key(h);
            let l = zl.get(&k).copied().unwrap_or(l_miss);
            let v = match zv.get(&k) {
                Some(z) if h.vector.is_some() && m.of(h) >= m.doc_floor() => *z,
                _ => v_miss,
            };
            (1.0 - w) * l + w * v
        })
        .collect()
}

fn vector_weight(f: Fusion) -> f64 {
    match f {
        Fusion::Weighted { vector }
        | Fusion::Relative { vector }
        | Fusion::Standardised { vector } => vector,
        Fusion::Rrf => 0.5,
    }
}

/// One side's contribution: weighted normalised score, or its rank-fusion share (scaled so
/// first on both sides makes 1).
fn rank_part(f: Fusion, rank: usize, weight: f64, normalised: f64) -> f64 {
    match f {
        Fusion::Weighted { .. } | Fusion::Relative { .. } | Fusion::Standardised { .. } => {
            weight * normalised
        }
        Fusion::Rrf => {
            #[allow(clippy::cast_precision_loss)]
            let r = rank as f64;
            weight * (RRF_K + 1.0) / (RRF_K + 1.0 + r)
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A hit of workspace `w` with a score and nothing else (the recall tests' one builder).
    pub(in crate::recall) fn hit(path: &str, score: f64) -> Hit {
        Hit {
            workspace: "w".into(),
            path: path.into(),
            score,
            name: path.into(),
            memory_type: None,
            description: String::new(),
            mtime: "2026-01-01T00:00:00Z".into(),
            vector: None,
            lexical: None,
            matched: Vec::new(),
            doc_null: None,
            passage: None,
            weak: false,
        }
    }

    #[test]
    fn standardised_fusion_orders_by_each_sides_spread_and_keeps_the_weighted_scores() {
        let lex = vec![hit("a.md", 10.0), hit("b.md", 9.0), hit("c.md", 1.0)];
        let vec = vec![hit("c.md", 0.90), hit("a.md", 0.80), hit("b.md", 0.79)];
        let paths = |f: Fusion| -> Vec<(String, f64)> {
            fuse(&lex, &vec, f, E5_CALIBRATION, 10)
                .into_iter()
                .map(|h| (h.path, h.score))
                .collect()
        };
        let weighted = paths(Fusion::Weighted { vector: 0.5 });
        let order = |v: &[(String, f64)]| v.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
        assert_eq!(order(&weighted), ["a.md", "b.md", "c.md"]);
        // c.md's cosine stands out among close cosines; b.md's words barely beat a.md's.
        let standard = paths(Fusion::default());
        assert_eq!(order(&standard), ["a.md", "c.md", "b.md"]);
        for (p, s) in &standard {
            let w = weighted.iter().find(|(q, _)| q == p).map(|(_, s)| *s);
            assert_eq!(Some(*s), w, "{p}: the score is the weighted one");
        }
        // Junk (best cosine under the query floor): words alone, in their order.
        let junk = vec![hit("c.md", 0.80)];
        let r = fuse(&lex, &junk, Fusion::default(), E5_CALIBRATION, 10);
        let got: Vec<&str> = r.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(got, ["a.md", "b.md", "c.md"]);
        assert!(r.iter().all(|h| h.vector.is_none()));
    }

    #[test]
    fn both_sides_add_up_and_scores_read_zero_to_one() {
        let lex = vec![hit("a.md", 4e-6), hit("b.md", 2e-6)];
        let vec = vec![hit("b.md", 0.9), hit("c.md", 0.5)];
        let r = fuse(&lex, &vec, SEARCH_FUSION, MINILM_CALIBRATION, 10);
        let paths: Vec<&str> = r.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(paths, ["b.md", "a.md", "c.md"]);
        let b = &r[0];
        assert_eq!(b.lexical, Some(0.5));
        assert_eq!(b.vector, Some(0.9));
        let expected = LEXICAL_WEIGHT * 0.5 + VECTOR_WEIGHT * normalise_cosine(0.9);
        assert!((b.score - expected).abs() < 1e-9);
        assert!(r.iter().all(|s| (0.0..=1.0).contains(&s.score)));
    }

    #[test]
    fn unrelated_vectors_alone_return_nothing() {
        let vec = vec![hit("a.md", 0.2), hit("b.md", 0.1)];
        assert!(fuse(&[], &vec, Fusion::default(), MINILM_CALIBRATION, 10).is_empty());
        assert!(fuse(&[], &vec, Fusion::Rrf, MINILM_CALIBRATION, 10).is_empty());
    }

    #[test]
    fn a_word_match_counts_even_when_the_meaning_is_far() {
        let lex = vec![hit("a.md", 3.0)];
        let vec = vec![hit("a.md", 0.1)];
        let r = fuse(&lex, &vec, Fusion::default(), MINILM_CALIBRATION, 10);
        assert_eq!(r.len(), 1);
        assert!((r[0].score - LEXICAL_WEIGHT).abs() < 1e-9);
    }

    #[test]
    fn e5_cosines_count_only_when_the_query_is_about_something() {
        assert_eq!(
            calibration_of("multilingual-e5-small-q4@0123456789ab"),
            E5_CALIBRATION
        );
        assert_eq!(
            calibration_of("all-MiniLM-L6-v2@54461cadce65"),
            MINILM_CALIBRATION
        );
        // A junk query: every memory at 0.80–0.81 — nothing.
        let junk = vec![hit("a.md", 0.812), hit("b.md", 0.80)];
        assert!(fuse(&[], &junk, Fusion::default(), E5_CALIBRATION, 10).is_empty());
        // A real one: the match and its near neighbours count, far ones do not.
        let real = vec![hit("a.md", 0.90), hit("b.md", 0.80), hit("c.md", 0.76)];
        let r = fuse(&[], &real, Fusion::default(), E5_CALIBRATION, 10);
        let paths: Vec<&str> = r.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(paths, ["a.md", "b.md"]);
        assert!(r[0].score > 2.0 * r[1].score);
    }

    #[test]
    fn relative_fusion_scales_the_vector_side_by_the_best_cosine() {
        let vec = vec![hit("b.md", 0.5)];
        let w = fuse(
            &[],
            &vec,
            Fusion::Weighted { vector: 0.5 },
            MINILM_CALIBRATION,
            10,
        );
        let r = fuse(
            &[],
            &vec,
            Fusion::Relative { vector: 0.5 },
            MINILM_CALIBRATION,
            10,
        );
        assert!((w[0].score - 0.25).abs() < 1e-9);
        assert!((r[0].score - 0.5).abs() < 1e-9);
    }

    #[test]
    fn rank_fusion_puts_agreement_first() {
        let lex = vec![hit("a.md", 3.0), hit("b.md", 2.0)];
        let vec = vec![hit("b.md", 0.8), hit("c.md", 0.7)];
        let r = fuse(&lex, &vec, Fusion::Rrf, MINILM_CALIBRATION, 10);
        assert_eq!(r[0].path, "b.md");
        assert!(r[0].score <= 1.0);
    }

    #[test]
    fn background_standings_add_both_nulls_and_the_bar_rises_with_the_home() {
        let null = QueryNull {
            mean: 0.80,
            sd: 0.02,
        };
        let m = Meaning::Null { null, memories: 5 };
        // 0.88: 4 sd above the query's null; the memory's own null puts it 2 sd up.
        let s = m.standing(0.88, Some((0.84, 0.02)));
        assert!((s - 6.0).abs() < 1e-9, "{s}");
        // Without the memory's null the query side counts twice.
        assert!((m.standing(0.88, None) - 8.0).abs() < 1e-9);
        assert!(
            (null_query_floor(5) - NULL_QUERY_MIN).abs() < 1e-9,
            "never under the minimum"
        );
        assert!(null_query_floor(60) > 5.5 && null_query_floor(10_000) > 9.0);
        // A generic memory close to everything does not stand out; a specific one does.
        let mut generic = hit("generic.md", 0.86);
        generic.vector = Some(0.86);
        generic.doc_null = Some((0.85, 0.02));
        let mut specific = hit("specific.md", 0.86);
        specific.vector = Some(0.86);
        specific.doc_null = Some((0.76, 0.02));
        let r = fuse(&[], &[generic.clone()], Fusion::default(), m, 10);
        assert!(r.is_empty(), "3 + 0.5 sd: under the bar");
        let r = fuse(&[], &[generic, specific], Fusion::default(), m, 10);
        let paths: Vec<&str> = r.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(paths, ["specific.md"]);
        assert_eq!(
            meaning_for("x", None, 5),
            Meaning::Fixed(MINILM_CALIBRATION)
        );
    }

    #[test]
    fn candidates_are_three_per_result_up_to_two_hundred() {
        assert_eq!(candidates_for(5), 15);
        assert_eq!(candidates_for(100), 200);
    }
}
