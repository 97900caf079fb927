//! Review, the pure parts: what a proposal changes, entry by entry, which of those
//! changes a person picked, and how a proposal made against older bytes is rebased onto the
//! file as it is now. No IO: the vault (`vault/review.rs`) stages writes and applies proposals,
//! the journal (`journal/proposals.rs`) keeps them.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::doc::{self, DocKind};
use crate::format::TopicFile;
use crate::journal::ChangeOp;
use crate::merge::{self, Conflict, entry_texts};

pub use mnemo_core::EntryOp;

/// One change a person can accept or leave.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::EntryChange`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryChange {
    pub id: String,
    pub op: EntryOp,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// The diff of one file: the base a proposal was made from and what it proposes.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::ProposalFile`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposalFile {
    pub path: String,
    pub op: ChangeOp,
    pub base_hash: Option<String>,
    pub before: Option<String>,
    pub after: Option<String>,
    pub entries: Vec<EntryChange>,
}

impl ProposalFile {
    /// The diff of `path` from `before` to `after`.
    #[must_use]
    pub fn new(path: &str, before: Option<String>, after: Option<String>) -> Self {
        let op = match (&before, &after) {
            (None, _) => ChangeOp::Create,
            (Some(_), None) => ChangeOp::Delete,
            _ => ChangeOp::Modify,
        };
        let entries = entry_changes(path, before.as_deref(), after.as_deref());
        Self {
            path: path.to_owned(),
            op,
            base_hash: before.as_deref().map(|t| crate::fsutil::hash(t.as_bytes())),
            before,
            after,
            entries,
        }
    }
}

/// One change between two bodies: what it does, the entry before, the entry after.
type Change = (EntryOp, Option<String>, Option<String>);

/// One step of walking `before`'s entries into `after`'s: an entry kept, or where a change
/// sits — at the old entry's place (`Old`) or the new one's (`New`).
enum Step {
    Keep(String),
    Old(usize),
    New(usize),
}

/// The steps and the changes between two bodies' entries. An entry that only moved (the same
/// text removed in one place, added in another — a dream's sorting or merge) is one `Move`,
/// so accepting part of a proposal can never drop or duplicate it; a removal and an addition
/// at one place are an `Edit`.
fn steps(before: &[String], after: &[String]) -> (Vec<Step>, Vec<Change>) {
    // Raw walk: kept, deleted (with its hunk), inserted (with its hunk).
    enum Raw {
        Keep(usize),
        Del(usize, usize),
        Ins(usize, usize),
    }
    let mut raw = Vec::new();
    for (hunk, op) in similar::capture_diff_slices(similar::Algorithm::Myers, before, after)
        .into_iter()
        .enumerate()
    {
        let (o, ol, n, nl) = match op {
            similar::DiffOp::Equal { old_index, len, .. } => {
                raw.extend((old_index..old_index + len).map(Raw::Keep));
                continue;
            }
            similar::DiffOp::Delete {
                old_index, old_len, ..
            } => (old_index, old_len, 0, 0),
            similar::DiffOp::Insert {
                new_index, new_len, ..
            } => (0, 0, new_index, new_len),
            similar::DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (old_index, old_len, new_index, new_len),
        };
        raw.extend((o..o + ol).map(|i| Raw::Del(i, hunk)));
        raw.extend((n..n + nl).map(|i| Raw::Ins(i, hunk)));
    }
    // Pair moves (same text) first, then edits (the same hunk, in order).
    let dels: Vec<(usize, usize)> = raw
        .iter()
        .filter_map(|r| match r {
            Raw::Del(i, h) => Some((*i, *h)),
            _ => None,
        })
        .collect();
    let inss: Vec<(usize, usize)> = raw
        .iter()
        .filter_map(|r| match r {
            Raw::Ins(i, h) => Some((*i, *h)),
            _ => None,
        })
        .collect();
    let mut ins_of_del: std::collections::HashMap<usize, (usize, EntryOp)> =
        std::collections::HashMap::new();
    let mut taken = std::collections::HashSet::new();
    for (d, _) in &dels {
        if let Some((a, _)) = inss
            .iter()
            .find(|(a, _)| !taken.contains(a) && after[*a] == before[*d])
        {
            taken.insert(*a);
            ins_of_del.insert(*d, (*a, EntryOp::Move));
        }
    }
    for (d, h) in &dels {
        if ins_of_del.contains_key(d) {
            continue;
        }
        if let Some((a, _)) = inss.iter().find(|(a, ah)| ah == h && !taken.contains(a)) {
            taken.insert(*a);
            ins_of_del.insert(*d, (*a, EntryOp::Edit));
        }
    }
    let del_of_ins: std::collections::HashMap<usize, (usize, EntryOp)> = ins_of_del
        .iter()
        .map(|(d, (a, op))| (*a, (*d, *op)))
        .collect();
    // A paired change is numbered where it is first met (a move may be met at its new place).
    let mut changes: Vec<Change> = Vec::new();
    let mut change_of_ins = std::collections::HashMap::new();
    let mut change_of_del = std::collections::HashMap::new();
    let mut steps = Vec::new();
    for r in &raw {
        match r {
            Raw::Keep(i) => steps.push(Step::Keep(before[*i].clone())),
            Raw::Del(d, _) => {
                let c = match change_of_del.get(d) {
                    Some(c) => *c,
                    None => {
                        let c = changes.len();
                        match ins_of_del.get(d) {
                            Some((a, op)) => {
                                changes.push((
                                    *op,
                                    Some(before[*d].clone()),
                                    Some(after[*a].clone()),
                                ));
                                change_of_ins.insert(*a, c);
                            }
                            None => {
                                changes.push((EntryOp::Remove, Some(before[*d].clone()), None));
                            }
                        }
                        c
                    }
                };
                steps.push(Step::Old(c));
            }
            Raw::Ins(a, _) => {
                let c = match (change_of_ins.get(a), del_of_ins.get(a)) {
                    (Some(c), _) => *c,
                    (None, Some((d, op))) => {
                        let c = changes.len();
                        changes.push((*op, Some(before[*d].clone()), Some(after[*a].clone())));
                        change_of_del.insert(*d, c);
                        c
                    }
                    (None, None) => {
                        changes.push((EntryOp::Add, None, Some(after[*a].clone())));
                        changes.len() - 1
                    }
                };
                steps.push(Step::New(c));
            }
        }
    }
    (steps, changes)
}

fn is_topic(path: &str) -> bool {
    doc::doc_kind(path) == Some(DocKind::Topic)
}

/// The changes from `before` to `after` of `path`, each with its id.
#[must_use]
pub fn entry_changes(path: &str, before: Option<&str>, after: Option<&str>) -> Vec<EntryChange> {
    let raw: Vec<Change> = match (before, after) {
        (b, Some(a)) if is_topic(path) => {
            let bt = b
                .map(|b| entry_texts(TopicFile::parse(b).body()))
                .unwrap_or_default();
            let at = entry_texts(TopicFile::parse(a).body());
            let (_, mut changes) = steps(&bt, &at);
            let fields_changed =
                b.is_some_and(|b| TopicFile::parse(b).fields != TopicFile::parse(a).fields);
            if changes.is_empty() && (fields_changed || b.is_none()) {
                changes.push((EntryOp::Fields, b.map(str::to_owned), Some(a.to_owned())));
            }
            changes
        }
        (b, a) if b != a => vec![(EntryOp::File, b.map(str::to_owned), a.map(str::to_owned))],
        _ => Vec::new(),
    };
    raw.into_iter()
        .enumerate()
        .map(|(i, (op, before, after))| EntryChange {
            id: format!("{path}#{}", i + 1),
            op,
            before,
            after,
        })
        .collect()
}

/// What accepting `chosen` (change ids) of a file's proposal makes of its base: `None` when no
/// change of the file was chosen (the file is left alone), `Some(None)` to delete it.
#[must_use]
pub fn select(file: &ProposalFile, chosen: &HashSet<String>) -> Option<Option<String>> {
    let picked: Vec<bool> = file
        .entries
        .iter()
        .map(|e| chosen.contains(&e.id))
        .collect();
    if !picked.iter().any(|p| *p) {
        return None;
    }
    if picked.iter().all(|p| *p) {
        return Some(file.after.clone());
    }
    // Some of a topic file's changes (a whole-file change is one change: all or nothing).
    let after = file.after.as_deref()?;
    let before_entries = file
        .before
        .as_deref()
        .map(|b| entry_texts(TopicFile::parse(b).body()))
        .unwrap_or_default();
    let parsed_after = TopicFile::parse(after);
    let (steps, changes) = steps(&before_entries, &entry_texts(parsed_after.body()));
    let mut out = Vec::new();
    for s in steps {
        match s {
            Step::Keep(t) => out.push(t),
            // At the old entry's place: an edit taken writes the new text there; a change left
            // out keeps the old one; a removal or move taken leaves nothing.
            Step::Old(i) => {
                let (op, b, a) = &changes[i];
                let take = picked.get(i).copied().unwrap_or(false);
                match (take, op) {
                    (true, EntryOp::Edit) => out.extend(a.clone()),
                    (true, _) => {}
                    (false, _) => out.extend(b.clone()),
                }
            }
            // At the new entry's place: an addition or move taken writes it there.
            Step::New(i) => {
                let (op, _, a) = &changes[i];
                if picked.get(i).copied().unwrap_or(false) && *op != EntryOp::Edit {
                    out.extend(a.clone());
                }
            }
        }
    }
    // The frontmatter is the proposal's when anything of it is taken (a new file needs it).
    let mut f = parsed_after;
    f.set_body(&out.join("\n\n"));
    Some(Some(f.render()))
}

/// Why a proposal cannot be applied to a file as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RebaseConflict {
    /// The file.
    pub path: String,
    /// In a sentence.
    pub why: String,
}

/// Apply `theirs` (what the proposal makes of `base`) to the file as it is now (`current`):
/// unchanged since → `theirs`; already there → as it is; else merged at entry level (a topic
/// file: `merge::merge_topic`; a daily log: appended lines), and a conflict — both changed the
/// same entry, or the file was deleted or created meanwhile — is refused, never applied blind.
///
/// # Errors
/// A [`RebaseConflict`] naming the file.
pub fn rebase(
    path: &str,
    base: Option<&str>,
    current: Option<&str>,
    theirs: Option<&str>,
) -> Result<Option<String>, RebaseConflict> {
    if current == base || current == theirs {
        return Ok(theirs.map(str::to_owned));
    }
    let conflict = |why: &str| RebaseConflict {
        path: path.to_owned(),
        why: why.to_owned(),
    };
    match (base, current, theirs) {
        (Some(_), None, _) => Err(conflict("it was deleted after the proposal was made")),
        (_, Some(_), None) => Err(conflict(
            "the proposal deletes it, but it changed after the proposal was made",
        )),
        (None, Some(_), Some(_)) if !is_topic(path) => Err(conflict(
            "a file with this name was created after the proposal was made",
        )),
        (b, Some(c), Some(t)) => {
            if doc::doc_kind(path).is_some_and(DocKind::is_record) {
                return Ok(Some(merge::merge_log(b.unwrap_or(""), c, t)));
            }
            let m = merge::merge_topic(b.unwrap_or(""), c, t);
            match m.conflicts.first() {
                None => Ok(Some(m.text)),
                Some(Conflict::Field { key, .. }) => Err(conflict(&format!(
                    "its {key} was changed after the proposal was made, and the proposal changes it too"
                ))),
                Some(_) => Err(conflict(
                    "an entry the proposal changes was also changed after the proposal was made",
                )),
            }
        }
        (_, None, _) => Ok(theirs.map(str::to_owned)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str =
        "---\nname: Facts\ndescription: d\ntype: user\n---\n- Likes tea\n\n- Lives in Berlin\n";

    fn after() -> String {
        "---\nname: Facts\ndescription: d\ntype: user\n---\n- Likes tea\n\n- Lives in Lisbon\n\n- Plays chess\n\n- Owns a cat\n"
            .to_owned()
    }

    #[test]
    fn changes_are_listed_entry_by_entry_with_ids() {
        let f = ProposalFile::new("facts.md", Some(BASE.into()), Some(after()));
        let ops: Vec<(String, EntryOp)> = f.entries.iter().map(|e| (e.id.clone(), e.op)).collect();
        assert_eq!(
            ops,
            vec![
                ("facts.md#1".into(), EntryOp::Edit),
                ("facts.md#2".into(), EntryOp::Add),
                ("facts.md#3".into(), EntryOp::Add),
            ]
        );
        assert_eq!(f.op, ChangeOp::Modify);
    }

    #[test]
    fn selecting_some_changes_applies_exactly_those() {
        let f = ProposalFile::new("facts.md", Some(BASE.into()), Some(after()));
        let chosen: HashSet<String> = ["facts.md#1".to_owned(), "facts.md#3".to_owned()].into();
        let out = select(&f, &chosen).unwrap().unwrap();
        assert!(out.contains("- Lives in Lisbon") && out.contains("- Owns a cat"));
        assert!(!out.contains("Berlin") && !out.contains("chess"));
        assert_eq!(select(&f, &HashSet::new()), None);
        let all: HashSet<String> = f.entries.iter().map(|e| e.id.clone()).collect();
        assert_eq!(select(&f, &all), Some(Some(after())));
    }

    #[test]
    fn a_moved_entry_is_one_change_never_dropped_or_doubled() {
        let after = BASE.replace(
            "- Likes tea\n\n- Lives in Berlin\n",
            "- Lives in Berlin\n\n- Likes tea\n\n- Owns a cat\n",
        );
        let f = ProposalFile::new("facts.md", Some(BASE.into()), Some(after));
        let ops: Vec<EntryOp> = f.entries.iter().map(|e| e.op).collect();
        assert!(ops.contains(&EntryOp::Move), "{ops:?}");
        assert_eq!(ops.iter().filter(|o| **o == EntryOp::Add).count(), 1);
        // Every subset keeps exactly one copy of each entry.
        let ids: Vec<String> = f.entries.iter().map(|e| e.id.clone()).collect();
        for mask in 0..(1u32 << ids.len()) {
            let chosen: HashSet<String> = ids
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, id)| id.clone())
                .collect();
            let out = select(&f, &chosen)
                .flatten()
                .unwrap_or_else(|| BASE.to_owned());
            assert_eq!(out.matches("Likes tea").count(), 1, "{out}");
            assert_eq!(out.matches("Lives in Berlin").count(), 1, "{out}");
        }
    }

    #[test]
    fn a_new_file_takes_only_the_chosen_entries_with_its_frontmatter() {
        let f = ProposalFile::new("new.md", None, Some(after()));
        assert_eq!(f.entries.len(), 4);
        let chosen: HashSet<String> = ["new.md#2".to_owned()].into();
        let out = select(&f, &chosen).unwrap().unwrap();
        assert!(out.starts_with("---\nname: Facts"));
        assert!(out.contains("- Lives in Lisbon") && !out.contains("tea"));
    }

    #[test]
    fn rebase_merges_other_entries_and_refuses_the_same_entry() {
        let theirs = after();
        // Someone added an entry meanwhile: merged.
        let current = format!("{BASE}\n- Speaks Dutch\n");
        let out = rebase("facts.md", Some(BASE), Some(&current), Some(&theirs))
            .unwrap()
            .unwrap();
        assert!(
            out.contains("Speaks Dutch") && out.contains("Lisbon") && out.contains("Owns a cat")
        );
        // Someone rewrote the entry the proposal rewrites: a conflict.
        let current = BASE.replace("Lives in Berlin", "Lives in Paris");
        let e = rebase("facts.md", Some(BASE), Some(&current), Some(&theirs)).unwrap_err();
        assert!(e.why.contains("also changed"), "{e:?}");
        // Deleted meanwhile: a conflict.
        assert!(rebase("facts.md", Some(BASE), None, Some(&theirs)).is_err());
        // Already applied: as it is.
        assert_eq!(
            rebase("facts.md", Some(BASE), Some(&theirs), Some(&theirs)).unwrap(),
            Some(theirs.clone())
        );
    }

    #[test]
    fn a_log_is_one_change_and_rebases_by_appending() {
        let f = ProposalFile::new(
            "logs/2026/11/2026-11-26.md",
            Some("# d\n- a\n".into()),
            Some("# d\n- a\n- b\n".into()),
        );
        assert_eq!(f.entries.len(), 1);
        assert_eq!(f.entries[0].op, EntryOp::File);
        let out = rebase(
            &f.path,
            Some("# d\n- a\n"),
            Some("# d\n- a\n- c\n"),
            Some("# d\n- a\n- b\n"),
        )
        .unwrap()
        .unwrap();
        assert!(out.contains("- b") && out.contains("- c"));
    }
}
