//! Conversation records in recall: when topic memories leave room, the records of
//! other chats that answer the message — by its words, or by meaning through each record's
//! chunks of turns — come after them, never before, so a topic memory that answers
//! still ranks first; each cut to the turns that match. A record counts only when
//! the journal attributes its text to the person ([`Vault::record_is_persons`]).

use std::collections::{HashMap, HashSet};

use mnemo_store::doc::{self, DocKind};
use mnemo_store::index::Hit;
use mnemo_store::{Vault, tokenize};

use super::RecallRequest;
use super::finish::Pick;
use super::lexical::{content_query, has_substance, rank_lexical};

/// Most records one recall adds.
pub const MAX_RECORDS: usize = 2;
/// Most turns of one record put in the prompt.
pub const MAX_TURNS: usize = 3;
/// A record's score is its share of the best record's times this: below any topic memory's.
const RECORD_WEIGHT: f64 = 0.5;
/// Chunks asked of the vector side (a record counts once, by its nearest).
const CHUNK_CANDIDATES: usize = 40;

/// Whether a path is a conversation record.
#[must_use]
pub fn is_record(path: &str) -> bool {
    doc::chat_record_day(path).is_some()
}

/// Records of other sessions that answer the message, for `room` more places at most: by its
/// words, and — when the request carries the query's vector — by meaning, each record by its
/// nearest chunk of turns, both sides fused and held to the meaning floors memories are.
pub(super) fn picks(
    vault: &Vault,
    ws: &str,
    req: &RecallRequest,
    room: usize,
    taken: &HashSet<&str>,
) -> Vec<Pick> {
    let room = room.min(MAX_RECORDS);
    let query = content_query(&req.query);
    if room == 0 || !has_substance(&query) {
        return Vec::new();
    }
    // This chat's own record holds what the model already has in the conversation.
    let own = req.session.as_deref().map(|s| {
        let day = chrono::NaiveDate::from_ymd_opt(2000, 1, 1).unwrap_or_default();
        let path = mnemo_store::vault::chat_record_path(day, s);
        let file = path.rsplit('/').next().unwrap_or("");
        format!("-{}", file.get(11..).unwrap_or(""))
    });
    let mut exclude: HashSet<&str> = taken.clone();
    exclude.extend(req.already_surfaced.iter().map(String::as_str));
    let other = |h: &Hit| {
        own.as_deref().is_none_or(|o| !h.path.ends_with(o)) && !exclude.contains(h.path.as_str())
    };
    let lexical: Vec<Hit> = vault
        .search_kind_indexed(Some(ws), &query, 20, Some(DocKind::Chat))
        .unwrap_or_default()
        .into_iter()
        .filter(|h| other(h))
        .collect();
    let (ranked, turns, fused) = match by_meaning(vault, ws, req, &lexical, &other) {
        Some((ranked, turns)) => (ranked, turns, true),
        None => (
            rank_lexical(&req.query, lexical, &exclude, usize::MAX),
            HashMap::new(),
            false,
        ),
    };
    // Only records whose text the journal gives the person: a file a model or
    // another program put under `chats/` takes no place from them.
    let ranked: Vec<Hit> = ranked
        .into_iter()
        .filter(|h| {
            vault
                .get(ws, &h.path)
                .is_ok_and(|d| vault.record_is_persons(ws, &h.path, &d.hash))
        })
        .take(room)
        .collect();
    let best = ranked.iter().map(|h| h.score).fold(0.0_f64, f64::max);
    ranked
        .into_iter()
        .map(|h| {
            let share = if best > 0.0 { h.score / best } else { 0.0 };
            Pick {
                turns: turns.get(&h.path).cloned(),
                path: h.path,
                name: h.name,
                memory_type: None,
                mtime: h.mtime,
                score: share * RECORD_WEIGHT,
                vector: h.vector,
                // Fused: each side's own reading; by words alone: the share of the best.
                lexical: if fused { h.lexical } else { Some(share) },
            }
        })
        .collect()
}

/// Records ranked by words and meaning fused, with the turns of each one's nearest chunk;
/// `None` when the request has no query vector or no chunk has a vector of its model yet.
fn by_meaning(
    vault: &Vault,
    ws: &str,
    req: &RecallRequest,
    lexical: &[Hit],
    other: &dyn Fn(&Hit) -> bool,
) -> Option<(Vec<Hit>, HashMap<String, String>)> {
    let qv = req.query_vector.as_ref()?;
    let (chunks, n) = vault
        .record_chunk_search(
            Some(ws),
            &qv.model,
            &qv.vector,
            CHUNK_CANDIDATES,
            qv.background.as_deref().map(Vec::as_slice),
        )
        .ok()?;
    if n == 0 {
        return None;
    }
    let chunks: Vec<Hit> = chunks.into_iter().filter(|h| other(h)).collect();
    let turns: HashMap<String, String> = chunks
        .iter()
        .filter_map(|h| Some((h.path.clone(), h.passage.as_ref()?.text.clone())))
        .collect();
    let meaning = super::meaning_for(&qv.model, qv.null, n);
    let fused = super::fuse(lexical, &chunks, req.fusion, meaning, usize::MAX);
    Some((fused, turns))
}

/// The turns of a record that share words with the message (at most [`MAX_TURNS`], best
/// first, then in order), without the record's heading.
#[must_use]
pub fn matching_turns(body: &str, query: &str) -> String {
    let want: HashSet<String> = tokenize::search_terms(&content_query(query))
        .into_iter()
        .collect();
    let entries = mnemo_store::format::entries(body);
    let mut scored: Vec<(usize, usize, &str)> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.text.starts_with("# "))
        .map(|(i, e)| {
            let have: HashSet<String> = tokenize::search_terms(&e.text).into_iter().collect();
            (want.intersection(&have).count(), i, e.text.as_str())
        })
        .filter(|(n, _, _)| *n > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.truncate(MAX_TURNS);
    scored.sort_by_key(|s| s.1);
    scored.iter().map(|s| s.2).collect::<Vec<_>>().join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_turns_that_match_are_shown() {
        let body = "# Chat on 2026-11-27 (UTC)\n\n09:01 — Good morning!\n\n09:02 — I'm allergic to peanuts, by the way.\n\n09:05 — Which trains go to Porto?\n";
        assert_eq!(
            matching_turns(body, "what am I allergic to?"),
            "09:02 — I'm allergic to peanuts, by the way."
        );
        assert_eq!(matching_turns(body, "weather tomorrow"), "");
        assert!(is_record("chats/2026/11/2026-11-27-abc.md"));
        assert!(!is_record("logs/2026/11/2026-11-27.md"));
    }
}
