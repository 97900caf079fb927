//! The index paths of recall: the query without function words and
//! greetings; a message with no substance (one CJK character, one short word, only stop words)
//! recalls nothing. Lexical: candidates from the index (topic docs only, bm25 weights: name and
//! description weigh more than the body), the type bonus, ties to the newest, excluded paths
//! dropped. Hybrid (when the query has a vector and the workspace has vectors for its model):
//! both candidate lists fused ([`super::hybrid`]).

use std::collections::HashSet;
use std::time::Instant;

use chrono::{DateTime, Utc};
use mnemo_core::Result;
use mnemo_store::Vault;
use mnemo_store::doc::DocKind;
use mnemo_store::index::Hit;
use mnemo_store::tokenize::{self, STOP_WORDS};

use super::finish::{Pick, finish};
use super::hybrid::{candidates_for, fuse, normalise_lexical};
use super::{MAX_SELECTED, QueryVector, RecallRequest, RecallResult, Strategy};

/// Candidates fetched from the index before filtering.
const POOL: usize = 50;
/// A query naming a memory's type adds this share of the best score.
const TYPE_BONUS: f64 = 0.05;

/// Particles that split a CJK query into words: no character pair holding one is searched
/// ("们的", "の名").
const PARTICLES: &[char] = &['的', '了', '吗', '呢', '吧', '啊', 'の', 'を'];

/// Chinese, Japanese and Korean function words and pronouns, as the character pairs (or single
/// characters) a CJK query is searched by: "我的", "什么", "です", "어떤"…
const CJK_STOP: &[&str] = &[
    // Chinese
    "我",
    "你",
    "他",
    "她",
    "它",
    "的",
    "了",
    "是",
    "在",
    "吗",
    "呢",
    "吧",
    "啊",
    "和",
    "也",
    "都",
    "就",
    "有",
    "我的",
    "你的",
    "他的",
    "她的",
    "我们",
    "你们",
    "他们",
    "什么",
    "怎么",
    "哪个",
    "哪里",
    "哪儿",
    "一个",
    "这个",
    "那个",
    "是不",
    "不是",
    "可以",
    "告诉",
    "用户",
    "记忆",
    // Japanese
    "の",
    "は",
    "を",
    "が",
    "に",
    "で",
    "と",
    "も",
    "か",
    "よ",
    "ね",
    "私",
    "です",
    "ます",
    "でし",
    "した",
    "して",
    "しま",
    "ません",
    "こと",
    "もの",
    "これ",
    "それ",
    "あれ",
    "どこ",
    "なに",
    "なん",
    "何を",
    "何が",
    "私の",
    "私は",
    "わた",
    "たし",
    "ある",
    "いる",
    "には",
    "のは",
    "とは",
    "ですか",
    "すか",
    "ユー",
    "ーザ",
    "ザー",
    // Korean
    "어떤",
    "무엇",
    "뭐야",
    "저는",
    "나는",
    "제가",
    "내가",
    "우리",
    "있어",
    "해요",
    "합니",
    "니다",
    "입니",
    "이야",
    "뭐예",
    "예요",
    "에요",
    "저의",
    "나의",
    "사용",
    "용자",
];

/// Whether a content query (see [`content_query`]) says enough to recall on: a CJK pair, a
/// word of three or more letters — and, when it is a single Latin word, four or more. One CJK
/// character or one short word would match half the memories.
#[must_use]
pub fn has_substance(content: &str) -> bool {
    let terms: Vec<&str> = content.split_whitespace().collect();
    let is_cjk = |t: &str| t.chars().any(is_cjk_char);
    let long_enough = |t: &&str| {
        let n = t.chars().count();
        if is_cjk(t) {
            n >= 2
        } else if terms.len() == 1 {
            n >= 4
        } else {
            n >= 3
        }
    };
    terms.iter().any(long_enough)
}

fn is_cjk_char(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// The query with function words removed (CJK and other scripts untouched).
#[must_use]
pub fn content_query(query: &str) -> String {
    let stop: HashSet<&str> = STOP_WORDS.iter().chain(CJK_STOP).copied().collect();
    // A particle splits its run, so the word beside it stays whole ("猫の名前" → 猫, 名前).
    let split: String = query
        .chars()
        .map(|c| if PARTICLES.contains(&c) { ' ' } else { c })
        .collect();
    tokenize::query_terms(&split)
        .into_iter()
        .filter(|t| !stop.contains(t.as_str()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words of `text` that match a content query ([`content_query`]), as written there
/// (folded): English words by their stems ("deploys" marks "Deploy"), CJK by the query's
/// character pairs. What a result list highlights: never a function word.
#[must_use]
pub fn matched_words(content: &str, text: &str) -> Vec<String> {
    let terms = tokenize::search_terms(content);
    // A last word still being typed marks the words it begins, as search matches them.
    let typing = tokenize::ends_in_word(content)
        .then(|| tokenize::query_terms(content).pop())
        .flatten()
        .filter(|t| t.chars().count() >= 3);
    let wanted: HashSet<String> = terms.into_iter().collect();
    if wanted.is_empty() {
        return Vec::new();
    }
    tokenize::query_terms(text)
        .into_iter()
        .filter(|t| {
            wanted.contains(t)
                || tokenize::stem(t).is_some_and(|s| wanted.contains(&s))
                || typing.as_ref().is_some_and(|p| t.starts_with(p.as_str()))
        })
        .collect()
}

/// Set each hit's [`Hit::matched`]: its name's and description's words that match the content
/// query.
pub fn mark_matches(content: &str, hits: &mut [Hit]) {
    for h in hits {
        h.matched = matched_words(content, &format!("{} {}", h.name, h.description));
    }
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

/// Recall for one chat turn from the index: hybrid when the request carries a query vector and
/// the workspace has vectors for its model, lexical otherwise.
pub fn recall(vault: &Vault, req: &RecallRequest, now: DateTime<Utc>) -> Result<RecallResult> {
    let started = Instant::now();
    let ws = vault.workspace(&req.workspace)?;
    let limit = req.limit.unwrap_or(MAX_SELECTED).max(1);
    let docs_scanned = u32::try_from(vault.topic_count(&ws.id)?).unwrap_or(u32::MAX);
    // Archived memories stay searchable but are never recalled.
    let archived = vault.archived_paths(&ws.id)?;
    let exclude: HashSet<&str> = req
        .already_surfaced
        .iter()
        .chain(&req.written_this_turn)
        .chain(&archived)
        .map(String::as_str)
        .collect();
    let query = content_query(&req.query);
    if !has_substance(&query) || docs_scanned == 0 {
        let strategy = Strategy::None;
        return finish(
            vault,
            &ws,
            req,
            Vec::new(),
            strategy,
            docs_scanned,
            started,
            now,
        );
    }
    let want = limit + exclude.len();
    if let Some(qv) = &req.query_vector {
        let fused = hybrid_candidates(vault, Some(&ws.id), &query, qv, want, req.fusion)?;
        if let Some(fused) = fused {
            let picks = fused
                .into_iter()
                .filter(|s| !exclude.contains(s.path.as_str()))
                .take(limit)
                .map(|s| Pick {
                    path: s.path,
                    name: s.name,
                    memory_type: s.memory_type,
                    mtime: s.mtime,
                    score: s.score,
                    vector: s.vector,
                    lexical: s.lexical,
                    turns: None,
                })
                .collect();
            let strategy = Strategy::Hybrid;
            return finish(vault, &ws, req, picks, strategy, docs_scanned, started, now);
        }
    }
    let hits =
        vault.search_kind_indexed(Some(&ws.id), &query, want.max(POOL), Some(DocKind::Topic))?;
    let ranked = rank_lexical(&req.query, hits, &exclude, limit);
    let shares = normalise_lexical(&ranked);
    let picks = ranked
        .into_iter()
        .zip(shares)
        .map(|(h, share)| Pick {
            path: h.path,
            name: h.name,
            memory_type: h.memory_type,
            mtime: h.mtime,
            score: share,
            vector: None,
            lexical: Some(share),
            turns: None,
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

/// Both candidate lists of a content query, fused; `None` when the scope has no vectors for the
/// query's model yet (the caller goes lexical).
fn hybrid_candidates(
    vault: &Vault,
    workspace: Option<&str>,
    content: &str,
    qv: &QueryVector,
    limit: usize,
    fusion: super::Fusion,
) -> Result<Option<Vec<Hit>>> {
    let n = candidates_for(limit).max(POOL.min(super::MAX_CANDIDATES));
    let (vec, memories) = vault.vector_search_against(
        workspace,
        &qv.model,
        &qv.vector,
        n,
        Some(DocKind::Topic),
        qv.background.as_deref().map(Vec::as_slice),
    )?;
    if vec.is_empty() {
        return Ok(None);
    }
    let lex = if content.is_empty() {
        Vec::new()
    } else {
        vault.search_kind_indexed(workspace, content, n, Some(DocKind::Topic))?
    };
    Ok(Some(fuse(
        &lex,
        &vec,
        fusion,
        super::meaning_for(&qv.model, qv.null, memories),
        limit,
    )))
}

/// The best candidates for a request, best first (hybrid when it can be, else lexical) — the
/// head of model selection's manifest.
pub(super) fn ranked_paths(vault: &Vault, req: &RecallRequest, n: usize) -> Result<Vec<String>> {
    let query = content_query(&req.query);
    if !has_substance(&query) {
        return Ok(Vec::new());
    }
    if let Some(qv) = &req.query_vector
        && let Some(fused) =
            hybrid_candidates(vault, Some(&req.workspace), &query, qv, n, req.fusion)?
    {
        return Ok(fused.into_iter().map(|s| s.path).collect());
    }
    Ok(vault
        .search_kind_indexed(Some(&req.workspace), &query, n, Some(DocKind::Topic))?
        .into_iter()
        .map(|h| h.path)
        .collect())
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
            vector: None,
            lexical: None,
            matched: Vec::new(),
            doc_null: None,
            passage: None,
            weak: false,
        }
    }

    #[test]
    fn stop_words_are_dropped_but_cjk_is_kept() {
        assert_eq!(
            content_query("What did Caroline do at the support group?"),
            "caroline support group"
        );
        assert_eq!(content_query("我们的部署流程"), "部署 署流 流程");
        assert_eq!(content_query("Which pet does the user own?"), "pet own");
        assert_eq!(content_query("私の猫の名前は？"), "猫 名前 前は");
        assert_eq!(content_query("어떤 언어를 공부해?"), "언어 어를 공부 부해");
        assert_eq!(content_query("what is it"), "");
        assert_eq!(content_query("ok thanks!"), "");
    }

    #[test]
    fn only_content_words_are_marked_as_written_in_the_memory() {
        let q = content_query("which pet does the user own");
        assert!(matched_words(&q, "user (JSON memories) Notes the user keeps").is_empty());
        assert_eq!(matched_words(&q, "Pets: a dog"), ["pets"]);
        let q = content_query("deploying to production");
        assert_eq!(
            matched_words(&q, "Deploy checklist for Production"),
            ["deploy", "production"]
        );
        let q = content_query("我的部署流程");
        assert_eq!(matched_words(&q, "生产部署流程"), ["部署", "署流", "流程"]);
        assert!(matched_words("", "anything").is_empty());
        assert_eq!(matched_words("grafa", "Grafana board"), ["grafana"]);
    }

    #[test]
    fn one_cjk_character_or_one_short_word_has_no_substance() {
        assert!(!has_substance(&content_query("猫")));
        assert!(!has_substance(&content_query("db")));
        assert!(!has_substance(&content_query("the")));
        assert!(!has_substance(&content_query("what is it?")));
        assert!(!has_substance(&content_query("hi!")));
        assert!(has_substance(&content_query("部署")));
        assert!(has_substance(&content_query("docker")));
        assert!(has_substance(&content_query("dog walks")));
        assert!(has_substance(&content_query("猫の名前")));
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
