//! Three-way merge of memory files (the part sync builds on): a pure function of the
//! last synced state (`base`) and the two sides, by **entry**, not by line.
//!
//! A topic body is a list of entries (blank-line separated blocks, [`crate::format::entries`]).
//! Each side is diffed against the base at entry level (Myers, crate `similar`); entries both
//! sides kept anchor the merge, and each stretch between anchors is resolved alone:
//! - changed on one side only → that side's entries;
//! - changed the same way on both → once;
//! - added on both sides → both kept (ours first, an entry both added once);
//! - an entry deleted on one side and untouched on the other → deleted;
//! - edited differently on both sides → both versions kept, reported as a [`Conflict`];
//! - deleted on one side, edited on the other → the edit survives, reported.
//!
//! Frontmatter merges by field (name, description, type, pinned): a field changed on one side
//! takes that change; changed differently on both keeps ours and is reported. Daily logs merge by
//! appending what the other side appended.

use crate::format::{TopicFile, entries};

/// What needs a person's choice after a merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conflict {
    /// The same entries edited differently on both sides: both versions were kept.
    Edited {
        /// The entries as they were at the last sync.
        base: Vec<String>,
        /// Our versions.
        ours: Vec<String>,
        /// Their versions.
        theirs: Vec<String>,
    },
    /// Entries deleted on one side and edited on the other: the edit was kept.
    DeletedAndEdited {
        /// The entries as they were at the last sync.
        base: Vec<String>,
        /// The edited versions that were kept.
        kept: Vec<String>,
        /// Whether the deleting side was ours.
        deleted_by_us: bool,
    },
    /// A frontmatter field changed differently on both sides: ours was kept.
    Field {
        /// The field's key.
        key: String,
        /// Our value (kept).
        ours: String,
        /// Their value.
        theirs: String,
    },
}

/// A merged file and what in it needs a choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The merged text.
    pub text: String,
    /// Conflicts, in file order (fields first).
    pub conflicts: Vec<Conflict>,
}

/// Merge two versions of a body's entries against their common base; the entries' texts, in
/// order, and the conflicts.
#[must_use]
pub fn merge_entries(
    base: &[String],
    ours: &[String],
    theirs: &[String],
) -> (Vec<String>, Vec<Conflict>) {
    let o_of = matches(base, ours);
    let t_of = matches(base, theirs);
    let mut out = Vec::new();
    let mut conflicts = Vec::new();
    let (mut b0, mut o0, mut t0) = (0, 0, 0);
    let anchors = (0..base.len())
        .filter_map(|b| Some((b, o_of[b]?, t_of[b]?)))
        .chain(std::iter::once((base.len(), ours.len(), theirs.len())));
    for (b, o, t) in anchors {
        resolve(
            &base[b0..b],
            &ours[o0..o],
            &theirs[t0..t],
            &mut out,
            &mut conflicts,
        );
        if b < base.len() {
            out.push(base[b].clone());
        }
        (b0, o0, t0) = (b + 1, o + 1, t + 1);
    }
    (out, conflicts)
}

/// For each base entry, where a side kept it unchanged (a monotonic matching). Entries are
/// compared as interned ids: the diff compares numbers, not texts.
fn matches(base: &[String], side: &[String]) -> Vec<Option<usize>> {
    let mut ids = std::collections::HashMap::new();
    let b = intern(base, &mut ids);
    let s = intern(side, &mut ids);
    let mut at = vec![None; base.len()];
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &b, &s) {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                at[old_index + k] = Some(new_index + k);
            }
        }
    }
    at
}

/// Each text as a small number, the same text the same number.
fn intern<'a>(
    list: &'a [String],
    ids: &mut std::collections::HashMap<&'a str, usize>,
) -> Vec<usize> {
    list.iter()
        .map(|e| {
            let next = ids.len();
            *ids.entry(e.as_str()).or_insert(next)
        })
        .collect()
}

/// One stretch between anchors.
fn resolve(
    b: &[String],
    o: &[String],
    t: &[String],
    out: &mut Vec<String>,
    conflicts: &mut Vec<Conflict>,
) {
    if o == b {
        out.extend_from_slice(t);
        return;
    }
    if t == b || o == t {
        out.extend_from_slice(o);
        return;
    }
    let in_ = |s: &[String], e: &String| s.contains(e);
    // Ours, without what theirs deleted untouched; theirs' own changes after.
    let keep_o: Vec<String> = o
        .iter()
        .filter(|e| !in_(b, e) || in_(t, e))
        .cloned()
        .collect();
    let keep_t: Vec<String> = t
        .iter()
        .filter(|e| !in_(o, e) && !in_(b, e))
        .cloned()
        .collect();
    // A choice is needed only where both sides changed the same base entry differently, or
    // one edited what the other deleted. Which base entry a new entry edits: the most similar
    // one (shared words), else — when a side removed exactly one entry here — that one.
    let added_o: Vec<&String> = o.iter().filter(|e| !in_(b, e)).collect();
    let added_t: Vec<&String> = t.iter().filter(|e| !in_(b, e)).collect();
    let removed =
        |side: &[String]| -> Vec<usize> { (0..b.len()).filter(|&i| !in_(side, &b[i])).collect() };
    let (gone_o, gone_t) = (removed(o), removed(t));
    let both: Vec<usize> = gone_o
        .iter()
        .copied()
        .filter(|i| gone_t.contains(i))
        .collect();
    if both.is_empty() {
        out.extend(keep_o);
        out.extend(keep_t);
        return;
    }
    // Each new entry's base entry, worked out once per side (words of each entry read once).
    let base_words: Vec<Words> = b.iter().map(|e| words(e)).collect();
    let pairs = |added: &[&String], gone: &[usize]| -> Vec<(String, Option<usize>)> {
        added
            .iter()
            .map(|e| ((*e).clone(), edited_base(&base_words, gone, &words(e))))
            .collect()
    };
    let (pairs_o, pairs_t) = (pairs(&added_o, &gone_o), pairs(&added_t, &gone_t));
    let edits_of = |pairs: &[(String, Option<usize>)], i: usize| -> Vec<String> {
        pairs
            .iter()
            .filter(|(_, p)| *p == Some(i))
            .map(|(e, _)| e.clone())
            .collect()
    };
    for i in both {
        let (eo, et) = (edits_of(&pairs_o, i), edits_of(&pairs_t, i));
        match (eo.is_empty(), et.is_empty()) {
            (false, false) if eo != et => {
                // What one side already took from the other is not a version of its own.
                let only = |x: &[String], y: &[String]| -> Vec<String> {
                    let rest: Vec<String> = x.iter().filter(|e| !y.contains(e)).cloned().collect();
                    if rest.is_empty() { x.to_vec() } else { rest }
                };
                conflicts.push(Conflict::Edited {
                    base: vec![b[i].clone()],
                    ours: only(&eo, &et),
                    theirs: only(&et, &eo),
                });
            }
            (true, false) => conflicts.push(Conflict::DeletedAndEdited {
                base: vec![b[i].clone()],
                kept: et,
                deleted_by_us: true,
            }),
            (false, true) => conflicts.push(Conflict::DeletedAndEdited {
                base: vec![b[i].clone()],
                kept: eo,
                deleted_by_us: false,
            }),
            _ => {}
        }
    }
    out.extend(keep_o);
    out.extend(keep_t);
}

/// An entry's words, lowercased.
type Words = std::collections::HashSet<String>;

fn words(s: &str) -> Words {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The base entry (index into the stretch's base) that an entry with words `we` is an edit of,
/// among those its side removed (`gone`): the one sharing the most words (Jaccard ≥ 1/3), else
/// the only one removed.
fn edited_base(base_words: &[Words], gone: &[usize], we: &Words) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for &i in gone {
        let wb = &base_words[i];
        let shared = we.iter().filter(|w| wb.contains(*w)).count();
        let union = we.len() + wb.len() - shared;
        if union == 0 {
            continue;
        }
        #[allow(clippy::cast_precision_loss)]
        let j = shared as f64 / union as f64;
        if j >= 1.0 / 3.0 && best.is_none_or(|(_, bj)| j > bj) {
            best = Some((i, j));
        }
    }
    best.map(|(i, _)| i)
        .or_else(|| (gone.len() == 1).then(|| gone[0]))
}

/// The texts of a body's entries.
#[must_use]
pub fn entry_texts(body: &str) -> Vec<String> {
    entries(body).into_iter().map(|e| e.text).collect()
}

/// Merge two versions of a topic file against their base: frontmatter by field, body by entry.
#[must_use]
pub fn merge_topic(base: &str, ours: &str, theirs: &str) -> Merged {
    let (b, o, t) = (
        TopicFile::parse(base),
        TopicFile::parse(ours),
        TopicFile::parse(theirs),
    );
    let mut merged = o.clone();
    let mut conflicts = Vec::new();
    let fields = [
        ("name", &b.fields.name, &o.fields.name, &t.fields.name),
        (
            "description",
            &b.fields.description,
            &o.fields.description,
            &t.fields.description,
        ),
        (
            "type",
            &b.fields.type_raw,
            &o.fields.type_raw,
            &t.fields.type_raw,
        ),
    ];
    for (key, bv, ov, tv) in fields {
        if ov == tv || tv == bv {
            continue;
        }
        if ov == bv {
            if let Some(v) = tv {
                // A value the format refuses stays ours (and the file stays valid).
                let _ = merged.set_field(key, v);
            }
        } else {
            conflicts.push(Conflict::Field {
                key: key.to_owned(),
                ours: ov.clone().unwrap_or_default(),
                theirs: tv.clone().unwrap_or_default(),
            });
        }
    }
    if o.fields.pinned == b.fields.pinned && t.fields.pinned != b.fields.pinned {
        let _ = merged.set_pinned(t.fields.pinned);
    }
    let (texts, body_conflicts) = merge_entries(
        &entry_texts(b.body()),
        &entry_texts(o.body()),
        &entry_texts(t.body()),
    );
    conflicts.extend(body_conflicts);
    if texts != entry_texts(o.body()) {
        merged.set_body(&texts.join("\n\n"));
    }
    Merged {
        text: merged.render(),
        conflicts,
    }
}

/// Merge two versions of a daily log: ours, then what theirs added that ours lacks (a log is
/// appended to; lines are never lost).
#[must_use]
pub fn merge_log(base: &str, ours: &str, theirs: &str) -> String {
    let mut out = ours.to_owned();
    let added: Vec<&str> = match theirs.strip_prefix(base) {
        Some(tail) => tail.lines().collect(),
        None => theirs.lines().collect(),
    };
    let have: std::collections::HashSet<&str> = ours.lines().collect();
    for line in added {
        if line.trim().is_empty() || have.contains(line) {
            continue;
        }
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| (*x).to_owned()).collect()
    }

    #[test]
    fn additions_on_both_sides_are_both_kept() {
        let (m, c) = merge_entries(&v(&["a", "b"]), &v(&["a", "b", "x"]), &v(&["a", "b", "y"]));
        assert_eq!(m, v(&["a", "b", "x", "y"]));
        assert!(c.is_empty());
    }

    #[test]
    fn an_edit_on_one_side_wins_over_an_untouched_other() {
        let (m, c) = merge_entries(
            &v(&["a", "b", "c"]),
            &v(&["a", "B", "c"]),
            &v(&["a", "b", "c", "d"]),
        );
        assert_eq!(m, v(&["a", "B", "c", "d"]));
        assert!(c.is_empty());
    }

    #[test]
    fn different_edits_keep_both_and_say_so() {
        let (m, c) = merge_entries(
            &v(&["a", "b", "c"]),
            &v(&["a", "b1", "c"]),
            &v(&["a", "b2", "c"]),
        );
        assert_eq!(m, v(&["a", "b1", "b2", "c"]));
        assert_eq!(
            c,
            vec![Conflict::Edited {
                base: v(&["b"]),
                ours: v(&["b1"]),
                theirs: v(&["b2"])
            }]
        );
    }

    #[test]
    fn edits_of_different_entries_are_no_conflict_even_without_an_anchor() {
        // Each side edited another entry and both dropped the third: nothing both kept.
        let b = v(&[
            "The port is 8000.",
            "The owner is team 4.",
            "Changed in round 0.",
        ]);
        let o = v(&["The port (A says) is 8000.", "The owner is team 4."]);
        let t = v(&["The port is 8000.", "The owner (B says) is team 4."]);
        let (m, c) = merge_entries(&b, &o, &t);
        assert_eq!(
            m,
            v(&[
                "The port (A says) is 8000.",
                "The owner (B says) is team 4."
            ])
        );
        assert!(c.is_empty(), "{c:?}");
    }

    #[test]
    fn a_deletion_meets_an_edit_and_the_edit_survives() {
        let (m, c) = merge_entries(&v(&["a", "b", "c"]), &v(&["a", "c"]), &v(&["a", "b2", "c"]));
        assert_eq!(m, v(&["a", "b2", "c"]));
        assert!(matches!(
            &c[..],
            [Conflict::DeletedAndEdited {
                deleted_by_us: true,
                ..
            }]
        ));
        let (m, _) = merge_entries(&v(&["a", "b", "c"]), &v(&["a", "c"]), &v(&["a", "b", "c"]));
        assert_eq!(m, v(&["a", "c"]), "deleted here, untouched there: deleted");
    }

    #[test]
    fn topic_files_merge_fields_and_entries() {
        let fm = |name: &str, desc: &str| {
            format!("---\nname: {name}\ndescription: {desc}\ntype: user\n---\n")
        };
        let base = format!(
            "{}Likes tea.\n\nLives in Oslo.\n",
            fm("Prefs", "what they like")
        );
        let ours = format!(
            "{}Likes tea.\n\nLives in Bergen.\n",
            fm("Prefs", "what they like")
        );
        let theirs = format!(
            "{}Likes tea.\n\nLives in Oslo.\n\nHas a dog.\n",
            fm("Preferences", "what they like")
        );
        let m = merge_topic(&base, &ours, &theirs);
        assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
        assert_eq!(
            m.text,
            format!(
                "{}Likes tea.\n\nLives in Bergen.\n\nHas a dog.\n",
                fm("Preferences", "what they like")
            )
        );
        let clash = format!(
            "{}Likes tea.\n\nLives in Oslo.\n",
            fm("Likes", "what they like")
        );
        let m = merge_topic(&base, &ours.replace("Prefs", "Tastes"), &clash);
        assert!(matches!(&m.conflicts[..], [Conflict::Field { key, .. }] if key == "name"));
        assert!(m.text.contains("name: Tastes"));
    }

    #[test]
    fn logs_merge_by_appending() {
        let base = "- 09:00 started\n";
        let ours = "- 09:00 started\n- 10:00 ours\n";
        let theirs = "- 09:00 started\n- 11:00 theirs\n";
        assert_eq!(
            merge_log(base, ours, theirs),
            "- 09:00 started\n- 10:00 ours\n- 11:00 theirs\n"
        );
        assert_eq!(merge_log(base, ours, base), ours);
    }
}
