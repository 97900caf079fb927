//! Recall (SPEC §3): candidates from the index (never by reading every file), lexical scoring
//! (name and description weigh more than the body — the index's bm25 weights; a query naming the
//! memory's type adds a little; ties go to the newest), score 0 dropped, top five; then the
//! prompt block with ages, the "Before recommending from memory" rule, ignore-memory semantics
//! and the MEMORY.md index. Every recall records a telemetry event.

use std::collections::HashSet;
use std::time::Instant;

use chrono::{DateTime, NaiveDate, Utc};
use mnemo_core::{MemoryType, Result};
use mnemo_store::Vault;
use mnemo_store::doc::DocKind;
use mnemo_store::index::Hit;
use mnemo_store::tokenize;
use serde::{Deserialize, Serialize};
use specta::Type;

/// Most memories injected per turn.
pub const MAX_SELECTED: usize = 5;
/// Longest body injected per memory, in characters.
pub const MAX_BODY_CHARS: usize = 1_200;
/// Candidates fetched from the index before filtering.
const POOL: usize = 50;
/// A query naming a memory's type adds this share of the best score.
const TYPE_BONUS: f64 = 0.05;

/// How the memories were chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// Nothing recalled (no memories, no searchable words, or nothing matched).
    None,
    /// Lexical full-text scoring.
    Heuristic,
    /// The fast model chose (later issue).
    Model,
    /// Vectors fused with BM25 (later issue).
    Hybrid,
}

/// What to recall for.
#[derive(Debug, Clone, Default)]
pub struct RecallRequest {
    /// Workspace id.
    pub workspace: String,
    /// The user's message.
    pub query: String,
    /// Paths already surfaced earlier in this chat session (never repeated).
    pub already_surfaced: Vec<String>,
    /// Paths written during this turn (excluded).
    pub written_this_turn: Vec<String>,
    /// How many to select (default [`MAX_SELECTED`]; benchmarks ask for more).
    pub limit: Option<usize>,
    /// Tools the conversation has been using (§3.2 `recentTools`): model selection skips
    /// memories that merely document them, unless they hold warnings or gotchas.
    pub recent_tools: Vec<String>,
}

/// One recalled memory and why.
#[derive(Debug, Clone, Serialize, Type)]
pub struct Recalled {
    /// Path relative to the memory root.
    pub path: String,
    /// Name.
    pub name: String,
    /// Type.
    #[serde(rename = "type")]
    pub memory_type: Option<MemoryType>,
    /// Score (higher is better).
    pub score: f64,
    /// Last modification (RFC 3339).
    pub mtime: String,
    /// "today", "yesterday", "N days ago".
    pub age: String,
    /// Characters of this memory put in the prompt.
    pub chars_injected: usize,
}

/// The result of a recall.
#[derive(Debug, Clone, Serialize, Type)]
pub struct RecallResult {
    /// How the memories were chosen.
    pub strategy: Strategy,
    /// The chosen memories, best first.
    pub selected: Vec<Recalled>,
    /// Topic memories in the workspace (the candidate set).
    pub docs_scanned: u32,
    /// The memory section of the system prompt.
    pub prompt: String,
    /// Characters of memory content injected in all.
    pub chars_injected: usize,
    /// Wall time in milliseconds.
    pub duration_ms: u32,
}

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

/// Age of a memory as the prompt states it (calendar days in UTC).
#[must_use]
pub fn age_text(mtime: &str, now: DateTime<Utc>) -> String {
    let day = |d: NaiveDate| d;
    let Ok(then) = DateTime::parse_from_rfc3339(mtime) else {
        return "at an unknown time".to_owned();
    };
    let days = (day(now.date_naive()) - day(then.with_timezone(&Utc).date_naive())).num_days();
    match days {
        i64::MIN..=0 => "today".to_owned(),
        1 => "yesterday".to_owned(),
        n => format!("{n} days ago"),
    }
}

/// One memory as the prompt shows it.
#[derive(Debug, Clone)]
pub struct PromptMemory<'a> {
    /// Path.
    pub path: &'a str,
    /// Name.
    pub name: &'a str,
    /// Type.
    pub memory_type: Option<MemoryType>,
    /// Age text.
    pub age: &'a str,
    /// Body (cut here when longer than [`MAX_BODY_CHARS`]).
    pub body: &'a str,
}

/// Cut a body at [`MAX_BODY_CHARS`] characters, with a note naming how much was left out.
#[must_use]
pub fn cut_body(body: &str, path: &str) -> String {
    let body = body.trim();
    let total = body.chars().count();
    if total <= MAX_BODY_CHARS {
        return body.to_owned();
    }
    let kept: String = body.chars().take(MAX_BODY_CHARS).collect();
    format!(
        "{kept}…\n[cut: {} more characters in {path}; read the file for the rest]",
        total - MAX_BODY_CHARS
    )
}

/// The memory section of the system prompt.
#[must_use]
pub fn build_prompt(memories: &[PromptMemory<'_>], memory_md: &str) -> String {
    let mut p = String::from(
        "# Memory\n\
         You have a persistent, file-based memory of earlier conversations with this user.\n\n\
         ## Before recommending from memory\n\
         A memory that names a file, function, flag or command is a claim about the past, not a fact about now: \
         check that it still exists before you recommend it.\n\n\
         ## If the user says to ignore memory\n\
         Proceed as if memory were empty, and never mention it.\n",
    );
    if !memory_md.trim().is_empty() {
        p.push_str("\n## Index (MEMORY.md)\n");
        p.push_str(memory_md.trim_end());
        p.push('\n');
    }
    if !memories.is_empty() {
        p.push_str("\n## Memories relevant to this message\n");
        for m in memories {
            let ty = m.memory_type.map_or("memory", MemoryType::as_str);
            p.push_str(&format!(
                "\n### {} ({ty}, {}) — saved {}\n",
                m.name, m.path, m.age
            ));
            if m.age != "today" {
                p.push_str(&format!(
                    "This is a point-in-time observation from {}; things may have changed since.\n",
                    m.age
                ));
            }
            p.push_str(&cut_body(m.body, m.path));
            p.push('\n');
        }
    }
    p
}

/// A memory chosen for the prompt, by whichever strategy.
struct Pick {
    path: String,
    name: String,
    memory_type: Option<MemoryType>,
    mtime: String,
    score: f64,
}

/// Shared tail of every strategy: read the chosen bodies from disk, build the prompt block,
/// record the telemetry event.
#[allow(clippy::too_many_arguments)]
fn finish(
    vault: &Vault,
    ws: &mnemo_store::Workspace,
    req: &RecallRequest,
    picks: Vec<Pick>,
    strategy_when_any: Strategy,
    docs_scanned: u32,
    started: Instant,
    now: DateTime<Utc>,
) -> Result<RecallResult> {
    // Bodies come from the files (the truth), confined like every read.
    let bodies: Vec<String> = picks
        .iter()
        .map(|p| {
            vault
                .get(&ws.id, &p.path)
                .map(|d| d.body)
                .unwrap_or_default()
        })
        .collect();
    let ages: Vec<String> = picks.iter().map(|p| age_text(&p.mtime, now)).collect();
    let items: Vec<PromptMemory<'_>> = picks
        .iter()
        .zip(&bodies)
        .zip(&ages)
        .map(|((p, b), a)| PromptMemory {
            path: &p.path,
            name: &p.name,
            memory_type: p.memory_type,
            age: a,
            body: b,
        })
        .collect();
    let prompt = build_prompt(&items, &read_memory_md(ws));
    let selected: Vec<Recalled> = picks
        .into_iter()
        .zip(&bodies)
        .zip(ages)
        .map(|((p, b), age)| Recalled {
            chars_injected: cut_body(b, &p.path).chars().count(),
            path: p.path,
            name: p.name,
            memory_type: p.memory_type,
            score: p.score,
            mtime: p.mtime,
            age,
        })
        .collect();
    let strategy = if selected.is_empty() {
        Strategy::None
    } else {
        strategy_when_any
    };
    let chars_injected = selected.iter().map(|s| s.chars_injected).sum();
    let duration_ms = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
    vault.record_event(
        "recall",
        &ws.id,
        &serde_json::json!({
            "query_len": req.query.chars().count(),
            "docs_scanned": docs_scanned,
            "docs_selected": selected.len(),
            "strategy": strategy,
            "duration_ms": duration_ms,
        }),
    )?;
    Ok(RecallResult {
        strategy,
        selected,
        docs_scanned,
        prompt,
        chars_injected,
        duration_ms,
    })
}

/// MEMORY.md of a workspace, read like any memory: confined to the root (a symlink out is not
/// followed) and capped in size.
fn read_memory_md(ws: &mnemo_store::Workspace) -> String {
    match mnemo_store::fsutil::confine(&ws.memory_root, mnemo_store::memory_md::FILE_NAME)
        .and_then(|(abs, _)| mnemo_store::fsutil::read_capped(&abs))
    {
        Ok(mnemo_store::fsutil::ReadOutcome::Bytes(b)) => String::from_utf8_lossy(&b).into_owned(),
        _ => String::new(),
    }
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

    #[test]
    fn ages() {
        let now = DateTime::parse_from_rfc3339("2026-11-21T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(age_text("2026-11-21T01:00:00Z", now), "today");
        assert_eq!(age_text("2026-11-22T01:00:00Z", now), "today");
        assert_eq!(age_text("2026-11-20T23:59:00Z", now), "yesterday");
        assert_eq!(age_text("2026-11-01T00:00:00Z", now), "20 days ago");
        assert_eq!(age_text("garbage", now), "at an unknown time");
    }

    #[test]
    fn bodies_are_cut_at_1200_characters_with_a_note() {
        let body = "字".repeat(1500);
        let cut = cut_body(&body, "a.md");
        assert!(cut.starts_with(&"字".repeat(MAX_BODY_CHARS)));
        assert!(cut.contains("300 more characters in a.md"));
        assert_eq!(cut_body("short", "a.md"), "short");
    }

    #[test]
    fn prompt_carries_rules_index_ages_and_bodies() {
        let mems = [
            PromptMemory {
                path: "a.md",
                name: "Style",
                memory_type: Some(MemoryType::Feedback),
                age: "today",
                body: "Be terse.",
            },
            PromptMemory {
                path: "b.md",
                name: "Board",
                memory_type: Some(MemoryType::Reference),
                age: "3 days ago",
                body: "grafana",
            },
        ];
        let p = build_prompt(&mems, "- [Style](a.md) — terse\n");
        assert!(p.contains("## Before recommending from memory"));
        assert!(p.contains("check that it still exists"));
        assert!(p.contains("ignore memory"));
        assert!(p.contains("never mention it"));
        assert!(p.contains("- [Style](a.md) — terse"));
        assert!(p.contains("### Style (feedback, a.md) — saved today\nBe terse."));
        assert!(p.contains("### Board (reference, b.md) — saved 3 days ago\nThis is a point-in-time observation from 3 days ago"));
    }
}

/// Most candidates in the model's manifest.
pub const MANIFEST_MAX_ITEMS: usize = 200;
/// Most bytes of the model's manifest.
pub const MANIFEST_MAX_BYTES: usize = 25_000;
/// Output tokens allowed for the selection.
pub const SELECTION_MAX_TOKENS: u32 = 256;

/// The manifest the fast model chooses from: one line per candidate,
/// `[type] path (ISO mtime): description`, newest first, within both caps.
#[must_use]
pub fn manifest(
    docs: &[mnemo_store::index::DocSummary],
    exclude: &HashSet<&str>,
) -> (String, Vec<String>) {
    let mut sorted: Vec<&mnemo_store::index::DocSummary> = docs
        .iter()
        .filter(|d| d.valid && !exclude.contains(d.path.as_str()))
        .collect();
    sorted.sort_by(|a, b| b.mtime.cmp(&a.mtime).then_with(|| a.path.cmp(&b.path)));
    let mut text = String::new();
    let mut paths = Vec::new();
    for d in sorted.into_iter().take(MANIFEST_MAX_ITEMS) {
        let ty = d.memory_type.map_or("memory", MemoryType::as_str);
        let line = format!("[{ty}] {} ({}): {}\n", d.path, d.mtime, d.description);
        if text.len() + line.len() > MANIFEST_MAX_BYTES {
            break;
        }
        text.push_str(&line);
        paths.push(d.path.clone());
    }
    (text, paths)
}

#[derive(Debug, Deserialize)]
struct Selection {
    paths: Vec<String>,
}

/// Recall with model selection (SPEC §3.2): one side query to the fast model with the manifest,
/// JSON-schema output naming at most five paths; invented paths are rejected; a timeout, an
/// error or an unusable answer falls back to the lexical path (§3.3).
pub async fn recall_with_model(
    vault: &Vault,
    client: &mnemo_llm::Client,
    req: &RecallRequest,
    now: DateTime<Utc>,
    timeout: std::time::Duration,
    cancel: &mnemo_llm::CancellationToken,
) -> Result<RecallResult> {
    let started = Instant::now();
    let ws = vault.workspace(&req.workspace)?;
    let exclude: HashSet<&str> = req
        .already_surfaced
        .iter()
        .chain(&req.written_this_turn)
        .map(String::as_str)
        .collect();
    let docs = vault.list_indexed(Some(&ws.id), None)?;
    let (manifest_text, allowed) = manifest(&docs, &exclude);
    if allowed.is_empty() || req.query.trim().is_empty() {
        return recall(vault, req, now);
    }
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"paths": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_SELECTED}},
        "required": ["paths"],
        "additionalProperties": false
    });
    let tools_note = if req.recent_tools.is_empty() {
        String::new()
    } else {
        format!(
            "\n\nTools in active use: {}. Do not choose memories that only describe how to use these tools \
             (they are already in use); do choose ones holding warnings, gotchas or known issues about them.",
            req.recent_tools.join(", ")
        )
    };
    let chat = mnemo_llm::ChatRequest {
        model: Some(client.settings().fast().to_owned()),
        messages: vec![
            mnemo_llm::Message::system(format!(
                "You select memories that will clearly help answer the user's next message. \
                 Choose at most {MAX_SELECTED} paths from the manifest below, only ones that are certainly useful; \
                 an empty list is a fine answer. Answer as JSON {{\"paths\": [...]}}.{tools_note}\n\nManifest:\n{manifest_text}"
            )),
            mnemo_llm::Message::user(req.query.clone()),
        ],
        temperature: Some(0.0),
        max_tokens: Some(SELECTION_MAX_TOKENS),
        ..mnemo_llm::ChatRequest::default()
    };
    let allowed_set: HashSet<&str> = allowed.iter().map(String::as_str).collect();
    // Invented paths make the answer unusable (one retry names the problem).
    let validate = |s: &Selection| match s.paths.iter().find(|p| !allowed_set.contains(p.as_str()))
    {
        Some(p) => Err(format!(
            "`{p}` is not in the manifest; choose only listed paths"
        )),
        None => Ok(()),
    };
    let answer = tokio::time::timeout(
        timeout,
        client.json::<Selection>(chat, "memory_selection", &schema, validate, cancel),
    )
    .await;
    let chosen: Vec<String> = match answer {
        Ok(Ok(sel)) => {
            let mut seen = HashSet::new();
            sel.paths
                .into_iter()
                .filter(|p| seen.insert(p.clone()))
                .take(MAX_SELECTED)
                .collect()
        }
        Ok(Err(e)) => {
            tracing::warn!("model recall failed ({e}); falling back to lexical recall");
            return recall(vault, req, now);
        }
        Err(_) => {
            tracing::warn!(
                "model recall timed out after {timeout:?}; falling back to lexical recall"
            );
            return recall(vault, req, now);
        }
    };
    let by_path: std::collections::HashMap<&str, &mnemo_store::index::DocSummary> =
        docs.iter().map(|d| (d.path.as_str(), d)).collect();
    let found: Vec<&mnemo_store::index::DocSummary> = chosen
        .iter()
        .filter_map(|p| by_path.get(p.as_str()).copied())
        .collect();
    let n = found.len();
    let picks = found
        .into_iter()
        .enumerate()
        .map(|(rank, d)| Pick {
            path: d.path.clone(),
            name: d.name.clone(),
            memory_type: d.memory_type,
            mtime: d.mtime.clone(),
            // The model's order, as a score: first is best.
            score: f64::from(u32::try_from(n - rank).unwrap_or(0)),
        })
        .collect();
    let docs_scanned = u32::try_from(allowed.len()).unwrap_or(u32::MAX);
    finish(
        vault,
        &ws,
        req,
        picks,
        Strategy::Model,
        docs_scanned,
        started,
        now,
    )
}
