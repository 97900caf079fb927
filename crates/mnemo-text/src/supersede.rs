//! Corrections retire the old fact. When a fact is replaced — an agent rewrites an
//! entry ("Moved to Lisbon" where "Lives in Berlin" was), or a person uses Replace — the old
//! entry stays in the file, just before its successor, with one more line:
//!
//! ```text
//! - Lives in Berlin
//!   Superseded: 2026-11-26 by "Moved to Lisbon"; extraction
//! ```
//!
//! Recall never injects a superseded entry ([`strip`]); search still finds it; the detail pane
//! shows the chain. Plain markdown, so other tools read it as a note. Pure: no IO.

use serde::{Deserialize, Serialize};

use crate::format::{Entry, TopicFile, entries, summary_key};

/// The line that marks an entry superseded.
pub const PREFIX: &str = "Superseded:";

/// When, by what and why an entry was superseded.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Supersession`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Supersession {
    pub at: String,
    pub by: String,
    pub why: Option<String>,
}

/// The supersession an entry's text carries, if any.
#[must_use]
pub fn of_entry(text: &str) -> Option<Supersession> {
    let rest = text
        .lines()
        .skip(1)
        .find_map(|l| l.trim().strip_prefix(PREFIX))?
        .trim();
    let (at, rest) = rest.split_once(" by ").unwrap_or((rest, ""));
    let rest = rest.trim();
    let (by, why) = match rest.strip_prefix('"').and_then(|r| r.split_once('"')) {
        Some((by, tail)) => (by.to_owned(), tail.trim_start_matches(';').trim()),
        None => (rest.to_owned(), ""),
    };
    Some(Supersession {
        at: at.trim().to_owned(),
        by,
        why: (!why.is_empty()).then(|| why.to_owned()),
    })
}

/// `entry` with the line saying it was superseded.
#[must_use]
pub fn mark(entry: &str, s: &Supersession) -> String {
    let indent = if entry.trim_start().starts_with("- ") {
        "  "
    } else {
        ""
    };
    let by = s.by.replace('"', "'");
    let why = s
        .why
        .as_deref()
        .map(|w| format!("; {w}"))
        .unwrap_or_default();
    format!(
        "{}\n{indent}{PREFIX} {} by \"{by}\"{why}",
        entry.trim_end(),
        s.at
    )
}

/// A body without its superseded entries (what recall injects).
#[must_use]
pub fn strip(body: &str) -> String {
    let kept: Vec<String> = entries(body)
        .into_iter()
        .filter(|e| of_entry(&e.text).is_none())
        .map(|e| e.text)
        .collect();
    if kept.len() == entries(body).len() {
        return body.to_owned();
    }
    kept.join("\n\n")
}

fn words(s: &str) -> std::collections::BTreeSet<String> {
    summary_key(s)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether `new` replaces `old` as a different fact (not a typo fix, an enrichment, or the same
/// summary with other lines).
fn replaces(old: &Entry, new: &Entry) -> bool {
    let (o, n) = (words(&old.summary), words(&new.summary));
    !o.is_empty() && o != n && !o.is_subset(&n)
}

/// An agent's rewrite of a topic file from `before` to `after`, with every entry it replaced in
/// place kept as superseded just before its successor; `None` when it replaced nothing.
#[must_use]
pub fn retire(before: &str, after: &str, at: &str, why: &str) -> Option<String> {
    let (b, mut a) = (TopicFile::parse(before), TopicFile::parse(after));
    let (old, new) = (entries(b.body()), entries(a.body()));
    let old_texts: Vec<&str> = old.iter().map(|e| e.text.as_str()).collect();
    let new_texts: Vec<&str> = new.iter().map(|e| e.text.as_str()).collect();
    let kept_keys: std::collections::HashSet<String> =
        new.iter().map(|e| summary_key(&e.summary)).collect();
    // For each new entry, the old ones it supersedes.
    let mut before_new: Vec<Vec<String>> = vec![Vec::new(); new.len()];
    let mut any = false;
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old_texts, &new_texts) {
        if let similar::DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } = op
        {
            for i in 0..old_len.min(new_len) {
                let (o, n) = (&old[old_index + i], &new[new_index + i]);
                if of_entry(&o.text).is_some()
                    || kept_keys.contains(&summary_key(&o.summary))
                    || !replaces(o, n)
                {
                    continue;
                }
                let s = Supersession {
                    at: at.to_owned(),
                    by: n.summary.trim().trim_start_matches("- ").to_owned(),
                    why: Some(why.to_owned()),
                };
                before_new[new_index + i].push(mark(&o.text, &s));
                any = true;
            }
        }
    }
    if !any {
        return None;
    }
    let mut out = Vec::new();
    for (e, olds) in new.iter().zip(before_new) {
        out.extend(olds);
        out.push(e.text.clone());
    }
    a.set_body(&out.join("\n\n"));
    Some(a.render())
}

/// A person's Replace: entry `index` (1-based) of `text` becomes `replacement`, the old one kept
/// as superseded just before it. `None` when there is no such entry (or it is superseded).
#[must_use]
pub fn replace_entry(
    text: &str,
    index: usize,
    replacement: &str,
    at: &str,
    why: Option<&str>,
) -> Option<String> {
    let mut f = TopicFile::parse(text);
    let list = entries(f.body());
    let old = list.get(index.checked_sub(1)?)?;
    if of_entry(&old.text).is_some() {
        return None;
    }
    let replacement = replacement.trim();
    let summary = entries(replacement).first()?.summary.clone();
    let s = Supersession {
        at: at.to_owned(),
        by: summary.trim_start_matches("- ").to_owned(),
        why: why.map(str::to_owned).filter(|w| !w.trim().is_empty()),
    };
    let mut out: Vec<String> = Vec::new();
    for (i, e) in list.iter().enumerate() {
        if i + 1 == index {
            out.push(mark(&e.text, &s));
            out.push(replacement.to_owned());
        } else {
            out.push(e.text.clone());
        }
    }
    f.set_body(&out.join("\n\n"));
    Some(f.render())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str =
        "---\nname: Home\ndescription: Where\ntype: user\n---\n- Lives in Berlin\n\n- Has a cat\n";

    #[test]
    fn a_rewritten_entry_is_kept_as_superseded_before_its_successor() {
        let after = BEFORE.replace("Lives in Berlin", "Moved to Lisbon in 2026");
        let out = retire(BEFORE, &after, "2026-11-26", "extraction").unwrap();
        assert_eq!(
            out,
            "---\nname: Home\ndescription: Where\ntype: user\n---\n- Lives in Berlin\n  Superseded: 2026-11-26 by \"Moved to Lisbon in 2026\"; extraction\n\n- Moved to Lisbon in 2026\n\n- Has a cat\n"
        );
        let body = TopicFile::parse(&out).body().to_owned();
        assert_eq!(strip(&body), "- Moved to Lisbon in 2026\n\n- Has a cat");
        let s = of_entry(&entries(&body)[0].text).unwrap();
        assert_eq!(
            s,
            Supersession {
                at: "2026-11-26".into(),
                by: "Moved to Lisbon in 2026".into(),
                why: Some("extraction".into())
            }
        );
        // Retiring again changes nothing more (the old one is already kept).
        assert_eq!(retire(&out, &out, "2026-11-27", "x"), None);
    }

    #[test]
    fn typo_fixes_enrichments_and_new_lines_are_not_replacements() {
        for after in [
            BEFORE.replace("Lives in Berlin", "Lives in Berlin."),
            BEFORE.replace("Lives in Berlin", "Lives in Berlin, Kreuzberg"),
            BEFORE.replace("- Lives in Berlin", "- Lives in Berlin\n  Why: said so"),
            BEFORE.replace("\n- Has a cat", "\n- Has a cat\n\n- Plays chess"),
        ] {
            assert_eq!(retire(BEFORE, &after, "d", "w"), None, "{after}");
        }
    }

    #[test]
    fn a_person_replaces_an_entry() {
        let out =
            replace_entry(BEFORE, 1, "- Moved to Lisbon", "2026-11-26", Some("moved")).unwrap();
        assert!(out.contains("- Lives in Berlin\n  Superseded: 2026-11-26 by \"Moved to Lisbon\"; moved\n\n- Moved to Lisbon\n\n- Has a cat"));
        assert_eq!(replace_entry(BEFORE, 9, "x", "d", None), None);
        assert_eq!(
            replace_entry(&out, 1, "- Again", "d", None),
            None,
            "already superseded"
        );
    }
}
