//! Search (the `search` command): as many hits as asked, ranked, each with the passage that
//! matched. What recall injects is decided elsewhere; search ranks every candidate
//! and flags the ones under its floors as [`Hit::weak`] instead of dropping them, so a client
//! that asks for ten gets ten — matches first, then the nearest of the rest by meaning.

use std::collections::HashSet;

use mnemo_core::Result;
use mnemo_store::Vault;
use mnemo_store::index::{Hit, Passage};

use super::QueryVector;
use super::hybrid::{SEARCH_FUSION, SEARCH_RELATIVE_FLOOR, candidates_for, fuse};
use super::lexical::matched_words;

/// The longest passage a hit carries, in characters.
pub const PASSAGE_CHARS: usize = 320;

/// Characters kept before the first matched word when a long paragraph is cut to it.
const LEAD_CHARS: usize = 80;

/// Search hybrid when a query vector is given and the scope has vectors for its model, else
/// `None` (the caller searches lexically). Logs and conversation records are searched too.
/// Unlike recall, a short query is not refused — search as you type matches single characters
/// lexically. The fused matches come first ([`mark_search_floor`]), then the other meaning
/// candidates by cosine, flagged weak, up to `limit`.
pub fn search_hybrid(
    vault: &Vault,
    workspace: Option<&str>,
    query: &str,
    qv: &QueryVector,
    limit: usize,
) -> Result<Option<Vec<Hit>>> {
    let n = candidates_for(limit);
    let (vec, memories) = vault.vector_search_against(
        workspace,
        &qv.model,
        &qv.vector,
        n,
        None,
        qv.background.as_deref().map(Vec::as_slice),
    )?;
    if vec.is_empty() {
        return Ok(None);
    }
    let lex = vault.search_indexed(workspace, query, n)?;
    let fused = fuse(
        &lex,
        &vec,
        SEARCH_FUSION,
        super::meaning_for(&qv.model, qv.null, memories),
        limit,
    );
    Ok(Some(fill_weak(mark_search_floor(fused), &vec, limit)))
}

/// Flag the hits far below the best one ([`SEARCH_RELATIVE_FLOOR`]) as weak; order kept.
#[must_use]
pub fn mark_search_floor(mut hits: Vec<Hit>) -> Vec<Hit> {
    let best = hits.iter().map(|h| h.score).fold(0.0_f64, f64::max);
    for h in &mut hits {
        h.weak |= h.score < best * SEARCH_RELATIVE_FLOOR;
    }
    hits
}

/// `ranked` followed by the meaning candidates it lacks (in `vector`'s order, nearest first),
/// each weak with a score of 0, up to `limit` in all.
#[must_use]
pub fn fill_weak(mut ranked: Vec<Hit>, vector: &[Hit], limit: usize) -> Vec<Hit> {
    let have: HashSet<(String, String)> = ranked
        .iter()
        .map(|h| (h.workspace.clone(), h.path.clone()))
        .collect();
    for v in vector {
        if ranked.len() >= limit {
            break;
        }
        if have.contains(&(v.workspace.clone(), v.path.clone())) {
            continue;
        }
        ranked.push(Hit {
            vector: Some(v.score),
            score: 0.0,
            lexical: None,
            weak: true,
            ..v.clone()
        });
    }
    ranked.truncate(limit);
    ranked
}

/// The paragraph of `body` holding most of the content query's words (the first on a tie, the
/// first paragraph when none holds any), cut to [`PASSAGE_CHARS`] around its first matched
/// word, with the line of the file it starts on (`body_line`: where the body starts). `None`
/// for a body without text.
#[must_use]
pub fn passage(body: &str, body_line: u32, content: &str) -> Option<Passage> {
    // (first line index within the body, its lines)
    let mut paragraphs: Vec<(usize, Vec<&str>)> = Vec::new();
    let mut open = false;
    for (i, line) in body.lines().enumerate() {
        if line.trim().is_empty() {
            open = false;
        } else if open {
            if let Some((_, lines)) = paragraphs.last_mut() {
                lines.push(line);
            }
        } else {
            paragraphs.push((i, vec![line]));
            open = true;
        }
    }
    let mut best: Option<(usize, Vec<String>, usize, Vec<&str>)> = None;
    for (start, lines) in paragraphs {
        let words = matched_words(content, &lines.join("\n"));
        let distinct: HashSet<&String> = words.iter().collect();
        if best.as_ref().is_none_or(|(n, ..)| distinct.len() > *n) {
            best = Some((distinct.len(), words.clone(), start, lines));
        }
    }
    let (_, words, start, lines) = best?;
    let text = lines.join("\n");
    // Where the first matched word is written (folded words are looked up lowercase).
    let lower = text.to_lowercase();
    let at = words
        .first()
        .and_then(|w| lower.find(w.as_str()))
        .filter(|_| lower.len() == text.len())
        .unwrap_or(0);
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let first = chars.iter().position(|(b, _)| *b >= at).unwrap_or(0);
    let from = if chars.len() <= PASSAGE_CHARS {
        0
    } else {
        first
            .saturating_sub(LEAD_CHARS)
            .min(chars.len() - PASSAGE_CHARS)
    };
    // Start a cut passage at a word.
    let from = if from == 0 {
        0
    } else {
        (from..first.max(from))
            .find(|i| chars[*i].1.is_whitespace())
            .map_or(from, |i| i + 1)
    };
    let to = (from + PASSAGE_CHARS).min(chars.len());
    let byte = |i: usize| chars.get(i).map_or(text.len(), |(b, _)| *b);
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    out.push_str(text[byte(from)..byte(to)].trim());
    if to < chars.len() {
        out.push('…');
    }
    let skipped = text[..byte(from)].matches('\n').count();
    let line = u64::from(body_line) + start as u64 + skipped as u64;
    Some(Passage {
        text: out,
        line: u32::try_from(line).unwrap_or(u32::MAX),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::content_query;
    use crate::recall::hybrid::tests::hit;

    #[test]
    fn search_flags_results_far_below_the_best() {
        let hits = vec![
            hit("pet.md", 0.77),
            hit("cat.md", 0.64),
            hit("edge.md", 0.77 * SEARCH_RELATIVE_FLOOR),
            hit("hobby.md", 0.054),
            hit("birthday.md", 0.051),
        ];
        let marked: Vec<(String, bool)> = mark_search_floor(hits)
            .into_iter()
            .map(|h| (h.path, h.weak))
            .collect();
        let want = [
            ("pet.md", false),
            ("cat.md", false),
            ("edge.md", false),
            ("hobby.md", true),
            ("birthday.md", true),
        ];
        assert_eq!(marked, want.map(|(p, w)| (p.to_owned(), w)));
        assert!(mark_search_floor(Vec::new()).is_empty());
    }

    #[test]
    fn the_tail_is_flagged_not_dropped_and_the_rest_fills_up_to_the_limit() {
        let ranked = mark_search_floor(vec![hit("a", 0.9), hit("b", 0.5), hit("c", 0.1)]);
        let weak: Vec<bool> = ranked.iter().map(|h| h.weak).collect();
        assert_eq!(weak, [false, false, true]);
        let vector = [
            hit("b", 0.88),
            hit("d", 0.84),
            hit("e", 0.81),
            hit("f", 0.80),
        ];
        let all = fill_weak(ranked.clone(), &vector, 5);
        let paths: Vec<&str> = all.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(paths, ["a", "b", "c", "d", "e"]);
        assert!(all[3].weak && all[4].weak);
        assert_eq!(all[3].score, 0.0);
        assert_eq!(all[3].vector, Some(0.84));
        // Never more than asked, and nothing invented when the candidates run out.
        assert_eq!(fill_weak(ranked.clone(), &vector, 2).len(), 2);
        assert_eq!(fill_weak(ranked, &vector, 50).len(), 6);
    }

    #[test]
    fn the_passage_is_the_paragraph_with_most_query_words_and_says_its_line() {
        let body = "Intro line.\n\nWe deploy on Fridays\nafter the freeze.\n\nThe database moved to Postgres in May.\nDeploys wait for it.\n";
        let p = passage(body, 5, &content_query("database deploy")).unwrap();
        assert_eq!(
            p.text,
            "The database moved to Postgres in May.\nDeploys wait for it."
        );
        assert_eq!(p.line, 5 + 5);
        // No word in common: the first paragraph.
        let p = passage(body, 1, &content_query("holiday")).unwrap();
        assert_eq!((p.text.as_str(), p.line), ("Intro line.", 1));
        assert_eq!(passage("\n\n", 1, "x"), None);
    }

    #[test]
    fn a_long_paragraph_is_cut_around_its_first_match_at_a_word() {
        let long = format!(
            "{} the kettle is broken {}",
            "filler words here. ".repeat(40),
            "more filler after. ".repeat(40)
        );
        let p = passage(&long, 3, &content_query("kettle")).unwrap();
        assert!(
            p.text.starts_with('…') && p.text.ends_with('…'),
            "{}",
            p.text
        );
        assert!(p.text.contains("kettle"), "{}", p.text);
        assert!(p.text.chars().count() <= PASSAGE_CHARS + 2);
        assert!(
            p.text[3..].starts_with(|c: char| c.is_alphabetic()),
            "{}",
            p.text
        );
        assert_eq!(p.line, 3);
        // CJK and a cut inside multibyte text stay on character boundaries.
        let zh = format!(
            "{}咖啡机坏了{}",
            "很长的句子。".repeat(80),
            "后面还有。".repeat(80)
        );
        let p = passage(&zh, 1, &content_query("咖啡")).unwrap();
        assert!(p.text.contains("咖啡"), "{}", p.text);
    }
}
