//! Hybrid ranking (SPEC §3.4, issue 11): BM25 candidates and vector candidates, min(200, 3·k)
//! from each side, merged by document. Each side is normalised to [0, 1] — BM25 by the best
//! candidate's score, the vector side is its cosine (unit vectors: already at most 1) — and fused
//! as `0.5 · vector + 0.5 · BM25` (measured on LoCoMo against the seed's 0.7 / 0.3, 0.3 / 0.7,
//! reciprocal-rank fusion and vectors alone: the one that never fell below lexical recall). A document counts only if its meaning is close enough
//! (its cosine at or above the model's floor, [`Calibration`]) or it shares words with the query, and the fused score must reach
//! [`MIN_SCORE`]: a query about nothing in memory returns nothing.
//!
//! Pure: the caller embeds the query and fetches both candidate lists.

use std::collections::HashMap;

use mnemo_store::index::Hit;

/// Weight of the vector side. The seed's 0.7 fell below lexical recall on LoCoMo's dialog turns
/// (R@5 52.7 vs 53.8); 0.5 beat lexical at every k on both databases (see the closing note of
/// issue 11 and `benches/locomo.rs`).
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

/// The calibration for a model id.
#[must_use]
pub fn calibration_of(model_id: &str) -> Calibration {
    // Ids are `<name>@<hash>`; e5's name is `multilingual-e5-small-q4` (see `mnemo-embed`).
    if model_id.starts_with("multilingual-e5") {
        E5_CALIBRATION
    } else {
        MINILM_CALIBRATION
    }
}

/// all-MiniLM-L6-v2: unrelated sentences sit around 0.0–0.2, paraphrases above 0.4 (issue 11).
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
}

impl Default for Fusion {
    fn default() -> Self {
        Self::Weighted {
            vector: VECTOR_WEIGHT,
        }
    }
}

fn key(h: &Hit) -> (String, String) {
    (h.workspace.clone(), h.path.clone())
}

/// Search results without the tail far below the best one ([`SEARCH_RELATIVE_FLOOR`]); order
/// kept.
#[must_use]
pub fn above_search_floor(hits: Vec<Hit>) -> Vec<Hit> {
    let best = hits.iter().map(|h| h.score).fold(0.0_f64, f64::max);
    hits.into_iter()
        .filter(|h| h.score >= best * SEARCH_RELATIVE_FLOOR)
        .collect()
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
    cal: Calibration,
    limit: usize,
) -> Vec<Hit> {
    let best = vector.iter().map(|h| h.score).fold(f64::MIN, f64::max);
    let vector = if best >= cal.query_floor { vector } else { &[] };
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
    let best_cos = vector.iter().map(|h| h.score).fold(cal.doc_floor, f64::max);
    for (rank, h) in vector.iter().enumerate() {
        let e = merged.entry(key(h)).or_insert_with(|| Hit {
            lexical: None,
            ..h.clone()
        });
        let base = if e.lexical.is_some() { e.score } else { 0.0 };
        e.vector = Some(h.score);
        let norm = match fusion {
            Fusion::Relative { .. } => (cal.score(h.score) / cal.score(best_cos)).clamp(0.0, 1.0),
            _ => cal.score(h.score),
        };
        let part = if h.score >= cal.doc_floor {
            rank_part(fusion, rank, vector_weight(fusion), norm)
        } else {
            0.0
        };
        e.score = base + part;
    }
    let mut out: Vec<Hit> = merged
        .into_values()
        .filter(|s| s.lexical.is_some() || s.vector.is_some_and(|c| c >= cal.doc_floor))
        .filter(|s| s.score >= MIN_SCORE)
        .collect();
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| b.mtime.cmp(&a.mtime))
            .then_with(|| a.path.cmp(&b.path))
    });
    out.truncate(limit);
    out
}

fn vector_weight(f: Fusion) -> f64 {
    match f {
        Fusion::Weighted { vector } | Fusion::Relative { vector } => vector,
        Fusion::Rrf => 0.5,
    }
}

/// One side's contribution: weighted normalised score, or its rank-fusion share (scaled so
/// first on both sides makes 1).
fn rank_part(f: Fusion, rank: usize, weight: f64, normalised: f64) -> f64 {
    match f {
        Fusion::Weighted { .. } | Fusion::Relative { .. } => weight * normalised,
        Fusion::Rrf => {
            #[allow(clippy::cast_precision_loss)]
            let r = rank as f64;
            weight * (RRF_K + 1.0) / (RRF_K + 1.0 + r)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(path: &str, score: f64) -> Hit {
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
        }
    }

    #[test]
    fn search_leaves_out_results_far_below_the_best() {
        let hits = vec![
            hit("pet.md", 0.77),
            hit("cat.md", 0.64),
            hit("edge.md", 0.77 * SEARCH_RELATIVE_FLOOR),
            hit("hobby.md", 0.054),
            hit("birthday.md", 0.051),
        ];
        let kept: Vec<String> = above_search_floor(hits)
            .into_iter()
            .map(|h| h.path)
            .collect();
        assert_eq!(kept, ["pet.md", "cat.md", "edge.md"]);
        assert!(above_search_floor(Vec::new()).is_empty());
    }

    #[test]
    fn both_sides_add_up_and_scores_read_zero_to_one() {
        let lex = vec![hit("a.md", 4e-6), hit("b.md", 2e-6)];
        let vec = vec![hit("b.md", 0.9), hit("c.md", 0.5)];
        let r = fuse(&lex, &vec, Fusion::default(), MINILM_CALIBRATION, 10);
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
    fn candidates_are_three_per_result_up_to_two_hundred() {
        assert_eq!(candidates_for(5), 15);
        assert_eq!(candidates_for(100), 200);
    }
}
