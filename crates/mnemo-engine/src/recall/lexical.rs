//! The lexical path (SPEC §3.1, §3.3): the query without function words, candidates from the
//! index (topic docs only, bm25 weights: name and description weigh more than the body), the
//! type bonus, ties to the newest, excluded paths dropped.

use std::collections::HashSet;
use std::time::Instant;

use chrono::{DateTime, Utc};
use mnemo_core::Result;
use mnemo_store::Vault;
use mnemo_store::doc::DocKind;
use mnemo_store::index::Hit;
use mnemo_store::tokenize;

use super::finish::{Pick, finish};
use super::{MAX_SELECTED, RecallRequest, RecallResult, Strategy};

/// Candidates fetched from the index before filtering.
const POOL: usize = 50;
/// A query naming a memory's type adds this share of the best score.
const TYPE_BONUS: f64 = 0.05;

/// English function words that carry no topic (dropped from the lexical query).
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "been", "before", "but", "by", "can", "could", "did", "do", "does", "doing", "for", "from",
    "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if",
    "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "she", "should", "so",
    "some", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "those", "to", "was", "we", "were", "what", "when", "where", "which", "who", "whom", "why",
    "will", "with", "would", "you", "your",
];

/// The query with function words removed (CJK and other scripts untouched).
#[must_use]
pub fn content_query(query: &str) -> String {
    let stop: HashSet<&str> = STOP_WORDS.iter().copied().collect();
    tokenize::query_terms(query)
        .into_iter()
        .filter(|t| !stop.contains(t.as_str()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Re-rank index hits: drop excluded paths and non-positive scores, add the type bonus, order
/// by score then newest, keep `limit`.
#[must_use]
pub fn rank_lexical(
    query: &str,
    hits: Vec<Hit>,
    exclude: &HashSet<&str>,
    limit: usize,
) -> Vec<Hit> {
    let words: HashSet<String> = tokenize::query_terms(query).into_iter().collect();
    let best = hits.iter().map(|h| h.score).fold(0.0_f64, f64::max);
    let mut kept: Vec<Hit> = hits
        .into_iter()
        .filter(|h| h.score > 0.0 && !exclude.contains(h.path.as_str()))
        .map(|mut h| {
            if h.memory_type.is_some_and(|t| words.contains(t.as_str())) {
                h.score += best * TYPE_BONUS;
            }
            h
        })
        .collect();
    kept.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| b.mtime.cmp(&a.mtime))
    });
    kept.truncate(limit);
    kept
}

/// Recall for one chat turn, lexical path (SPEC §3.1, §3.3, §3.5, §3.6).
pub fn recall(vault: &Vault, req: &RecallRequest, now: DateTime<Utc>) -> Result<RecallResult> {
    let started = Instant::now();
    let ws = vault.workspace(&req.workspace)?;
    let limit = req.limit.unwrap_or(MAX_SELECTED).max(1);
    let docs_scanned = u32::try_from(vault.topic_count(&ws.id)?).unwrap_or(u32::MAX);
    let exclude: HashSet<&str> = req
        .already_surfaced
        .iter()
        .chain(&req.written_this_turn)
        .map(String::as_str)
        .collect();
    let query = content_query(&req.query);
    let hits = if query.is_empty() || docs_scanned == 0 {
        Vec::new()
    } else {
        let pool = (limit + exclude.len()).max(POOL);
        vault.search_kind_indexed(Some(&ws.id), &query, pool, Some(DocKind::Topic))?
    };
    let ranked = rank_lexical(&req.query, hits, &exclude, limit);
    let picks = ranked
        .into_iter()
        .map(|h| Pick {
            path: h.path,
            name: h.name,
            memory_type: h.memory_type,
            mtime: h.mtime,
            score: h.score,
        })
        .collect();
    finish(
        vault,
        &ws,
        req,
        picks,
        Strategy::Heuristic,
        docs_scanned,
        started,
        now,
    )
}

#[cfg(test)]
mod tests {
    use mnemo_core::MemoryType;

    use super::*;

    fn hit(path: &str, score: f64, ty: Option<MemoryType>, mtime: &str) -> Hit {
        Hit {
            workspace: "w".into(),
            path: path.into(),
            score,
            name: path.into(),
            memory_type: ty,
            description: String::new(),
            mtime: mtime.into(),
        }
    }

    #[test]
    fn stop_words_are_dropped_but_cjk_is_kept() {
        assert_eq!(
            content_query("What did Caroline do at the support group?"),
            "caroline support group"
        );
        assert_eq!(
            content_query("我们的部署流程"),
            "我们 们的 的部 部署 署流 流程"
        );
        assert_eq!(content_query("what is it"), "");
    }

    #[test]
    fn ranking_excludes_surfaced_drops_zero_and_breaks_ties_by_newest() {
        let hits = vec![
            hit("old.md", 2.0, None, "2026-01-01T00:00:00Z"),
            hit("new.md", 2.0, None, "2026-06-01T00:00:00Z"),
            hit("seen.md", 9.0, None, "2026-06-01T00:00:00Z"),
            hit("zero.md", 0.0, None, "2026-06-01T00:00:00Z"),
        ];
        let exclude: HashSet<&str> = ["seen.md"].into_iter().collect();
        let r = rank_lexical("deploy", hits, &exclude, 5);
        let paths: Vec<&str> = r.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(paths, ["new.md", "old.md"]);
    }

    #[test]
    fn naming_the_type_adds_a_little() {
        let hits = vec![
            hit("a.md", 1.00, Some(MemoryType::User), "2026-01-01T00:00:00Z"),
            hit(
                "b.md",
                0.98,
                Some(MemoryType::Feedback),
                "2026-01-01T00:00:00Z",
            ),
        ];
        let r = rank_lexical("feedback on style", hits, &HashSet::new(), 5);
        assert_eq!(r[0].path, "b.md");
        let hits = vec![
            hit("a.md", 1.0, Some(MemoryType::User), "2026-01-01T00:00:00Z"),
            hit(
                "b.md",
                0.5,
                Some(MemoryType::Feedback),
                "2026-01-01T00:00:00Z",
            ),
        ];
        assert_eq!(
            rank_lexical("feedback", hits, &HashSet::new(), 5)[0].path,
            "a.md",
            "only a little"
        );
    }

    #[test]
    fn ranking_respects_the_limit() {
        let hits: Vec<Hit> = (0..9)
            .map(|i| {
                hit(
                    &format!("{i}.md"),
                    f64::from(i) + 1.0,
                    None,
                    "2026-01-01T00:00:00Z",
                )
            })
            .collect();
        assert_eq!(
            rank_lexical("x", hits, &HashSet::new(), MAX_SELECTED).len(),
            MAX_SELECTED
        );
    }
}
