//! Pure parts of a sync: a whole file merged three-way (created, deleted, edited on either
//! side), the bookkeeping files' formats and merges (forgotten hashes and conflicts as sets,
//! switches by field), what may cross between a home and the repository, and conflicts as
//! records a person resolves.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use mnemo_store::doc::{self, DocKind};
use mnemo_store::format::TopicFile;
use mnemo_store::merge::{self, Conflict};

/// One choice of a conflict: a version and who made it.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::SyncChoice`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncChoice {
    pub label: String,
    pub texts: Vec<String>,
}

/// What a sync could not decide alone: kept for a person's choice, synced to every home.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::SyncConflict`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncConflict {
    pub id: String,
    pub path: String,
    pub kind: String,
    pub field: Option<String>,
    pub choices: Vec<SyncChoice>,
    pub at: String,
}

/// A file's three versions merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMerge {
    /// The merged text, `None` = the file is gone.
    pub text: Option<String>,
    /// What needs a choice.
    pub conflicts: Vec<Conflict>,
}

/// Merge a memory file's three versions (`None` = absent). Deleted on one side and edited on
/// the other: the edit survives, reported.
#[must_use]
pub fn merge_file(rel: &str, b: Option<&str>, o: Option<&str>, t: Option<&str>) -> FileMerge {
    let keep = |text: Option<&str>| FileMerge {
        text: text.map(str::to_owned),
        conflicts: Vec::new(),
    };
    if o == t || b == t {
        return keep(o);
    }
    if b == o {
        return keep(t);
    }
    let log = doc::doc_kind(rel).is_some_and(DocKind::is_record);
    match (o, t) {
        (None, None) => keep(None),
        (None, Some(t)) | (Some(t), None) => {
            let deleted_by_us = o.is_none();
            let base = b.map(body_entries).unwrap_or_default();
            let kept: Vec<String> = body_entries(t)
                .into_iter()
                .filter(|e| !base.contains(e))
                .collect();
            FileMerge {
                text: Some(t.to_owned()),
                conflicts: vec![Conflict::DeletedAndEdited {
                    base,
                    kept,
                    deleted_by_us,
                }],
            }
        }
        (Some(o), Some(t)) if log => keep(Some(&merge::merge_log(b.unwrap_or(""), o, t))),
        (Some(o), Some(t)) => {
            let m = merge::merge_topic(b.unwrap_or(""), o, t);
            FileMerge {
                text: Some(m.text),
                conflicts: m.conflicts,
            }
        }
    }
}

fn body_entries(text: &str) -> Vec<String> {
    merge::entry_texts(TopicFile::parse(text).body())
}

/// Why a file may not cross (from the repository to a home, or back), or `None` when it may.
#[must_use]
pub fn refusal(rel: &str, mode: Option<&str>, bytes: Option<&[u8]>) -> Option<String> {
    if rel
        .split('/')
        .any(|p| p.is_empty() || p == "." || p == "..")
    {
        return Some("its path would leave the memory folder".to_owned());
    }
    if let Some(why) = name_refusal(rel) {
        return Some(why);
    }
    match mode {
        Some("120000") => return Some("it is a symbolic link".to_owned()),
        Some("160000") => return Some("it is a submodule, not a file".to_owned()),
        _ => {}
    }
    if doc::doc_kind(rel).is_none() {
        return Some(misnamed(rel).unwrap_or_else(|| {
            "it is not a memory file (only visible `.md` files sync)".to_owned()
        }));
    }
    let bytes = bytes?;
    if let Some(why) = content_refusal(bytes) {
        return Some(why);
    }
    let text = std::str::from_utf8(bytes).ok()?;
    if doc::doc_kind(rel) == Some(DocKind::Topic)
        && let Err(e) = TopicFile::parse(text).check()
    {
        return Some(format!(
            "its frontmatter is invalid ({}): fix it in an editor",
            e.message
        ));
    }
    None
}

/// Why a path's characters may not cross, or `None`: a tab, a line break, another control
/// character, a character that turns text around, or a backslash (a folder separator on
/// Windows) in one of its names.
fn name_refusal(rel: &str) -> Option<String> {
    let names: Vec<&str> = rel.split('/').collect();
    let (at, c) = names.iter().enumerate().find_map(|(i, name)| {
        name.chars()
            .find(|&c| mnemo_store::fsutil::unsafe_char(c) || c == '\\')
            .map(|c| (i, c))
    })?;
    let whose = if at + 1 == names.len() {
        "its name".to_owned()
    } else {
        format!(
            "the folder `{}` in its path",
            mnemo_store::fsutil::printable(names[at])
        )
    };
    let what = match c {
        '\t' => "a tab".to_owned(),
        '\n' | '\r' => "a line break".to_owned(),
        '\\' => "a backslash (a folder separator on Windows)".to_owned(),
        c if c.is_control() => format!("a control character ({})", c.escape_unicode()),
        c => {
            return Some(format!(
                "{whose} holds a character that turns text around ({}), which can make a name \
                 read as another: rename it to sync it",
                c.escape_unicode()
            ));
        }
    };
    Some(format!(
        "{whose} holds {what}, which other machines' file systems and tools may not take: \
         rename it to sync it"
    ))
}

/// Why a file named `….MD` (or `.Md`, `.mD`) is not synced, when it would be a memory file
/// named `….md`; `None` for any other name.
#[must_use]
pub fn misnamed(rel: &str) -> Option<String> {
    let cut = rel.len().checked_sub(3)?;
    let (stem, ext) = (rel.get(..cut)?, rel.get(cut..)?);
    if ext == ".md" || !ext.eq_ignore_ascii_case(".md") {
        return None;
    }
    doc::doc_kind(&format!("{stem}.md"))?;
    let name = stem.rsplit('/').next().unwrap_or(stem);
    Some(format!(
        "its name ends in `{}`, not `.md`: rename it to `{}.md` to sync it",
        mnemo_store::fsutil::printable(ext),
        mnemo_store::fsutil::printable(name)
    ))
}

/// Why a file's bytes may not cross whatever its path, or `None` when they may: over the cap,
/// not UTF-8, a secret. All a chat session is checked for (its text was redacted when it was
/// written; a secret that got in anyway stays here); memory files are checked for more.
#[must_use]
pub fn content_refusal(bytes: &[u8]) -> Option<String> {
    if bytes.len() as u64 > mnemo_store::fsutil::MAX_FILE_BYTES {
        return Some(format!(
            "it is {} bytes, over the {} byte limit",
            bytes.len(),
            mnemo_store::fsutil::MAX_FILE_BYTES
        ));
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Some("it is not UTF-8 text".to_owned());
    };
    let hits = mnemo_store::secrets::scan(text);
    (!hits.is_empty()).then(|| {
        format!(
            "it holds a secret ({}), and secrets never sync",
            mnemo_store::secrets::describe(&hits)
        )
    })
}

/// The `forgotten` file: sorted hashes, one a line.
#[must_use]
pub fn encode_set(set: &BTreeSet<String>) -> Vec<u8> {
    let mut s = String::new();
    for h in set {
        s.push_str(h);
        s.push('\n');
    }
    s.into_bytes()
}

/// Read a `forgotten` file (lines that are not hashes are ignored).
#[must_use]
pub fn decode_set(bytes: &[u8]) -> BTreeSet<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && l.len() <= 128 && l.chars().all(|c| c.is_ascii_hexdigit()))
        .map(str::to_owned)
        .collect()
}

/// Three-way merge of sets: what either side added stays, what either side removed goes.
#[must_use]
pub fn merge_sets<T: Ord + Clone>(
    b: &BTreeSet<T>,
    o: &BTreeSet<T>,
    t: &BTreeSet<T>,
) -> BTreeSet<T> {
    o.union(t)
        .filter(|x| (o.contains(x) && t.contains(x)) || !b.contains(x))
        .cloned()
        .collect()
}

/// `switches.json`: a workspace's switches that were ever set.
pub type Switches = BTreeMap<String, bool>;

/// Encode switches (sorted keys, a final newline: the same state is the same blob).
#[must_use]
pub fn encode_json<T: Serialize>(v: &T) -> Vec<u8> {
    let mut b = serde_json::to_vec_pretty(v).unwrap_or_default();
    b.push(b'\n');
    b
}

/// Merge switches by field: one side's change wins; both changed differently → ours.
#[must_use]
pub fn merge_switches(b: &Switches, o: &Switches, t: &Switches) -> Switches {
    let keys: BTreeSet<&String> = o.keys().chain(t.keys()).chain(b.keys()).collect();
    let mut out = Switches::new();
    for k in keys {
        let (bv, ov, tv) = (b.get(k), o.get(k), t.get(k));
        let v = if ov == bv { tv } else { ov };
        if let Some(v) = v {
            out.insert(k.clone(), *v);
        }
    }
    out
}

/// Merge conflict records as a set (by id).
#[must_use]
pub fn merge_conflicts(
    b: &[SyncConflict],
    o: &[SyncConflict],
    t: &[SyncConflict],
) -> Vec<SyncConflict> {
    let ids = |l: &[SyncConflict]| l.iter().map(|c| c.id.clone()).collect::<BTreeSet<_>>();
    let keep = merge_sets(&ids(b), &ids(o), &ids(t));
    let mut out: BTreeMap<String, SyncConflict> = BTreeMap::new();
    for c in o.iter().chain(t) {
        if keep.contains(&c.id) {
            out.entry(c.id.clone()).or_insert_with(|| c.clone());
        }
    }
    out.into_values().collect()
}

/// Whether a conflict still waits: its file still holds every version it names (a person who
/// removed one version, here or on another machine, resolved it). Field conflicts wait until
/// resolved by choice.
#[must_use]
pub fn still_open(c: &SyncConflict, text: Option<&str>) -> bool {
    let Some(text) = text else {
        return false;
    };
    if c.kind == "field" {
        return true;
    }
    let have = body_entries(text);
    c.choices
        .iter()
        .flat_map(|ch| &ch.texts)
        .all(|t| have.contains(t))
}

/// Conflicts from a merge as records, labelled with who made each side.
#[must_use]
pub fn records(
    rel: &str,
    found: &[Conflict],
    ours_by: &str,
    theirs_by: &str,
    at: &str,
) -> Vec<SyncConflict> {
    found
        .iter()
        .map(|c| {
            let (kind, field, choices) = match c {
                Conflict::Edited { ours, theirs, .. } => (
                    "edited",
                    None,
                    vec![
                        SyncChoice {
                            label: format!("{ours_by}'s version"),
                            texts: ours.clone(),
                        },
                        SyncChoice {
                            label: format!("{theirs_by}'s version"),
                            texts: theirs.clone(),
                        },
                    ],
                ),
                Conflict::DeletedAndEdited {
                    kept,
                    deleted_by_us,
                    ..
                } => {
                    let (editor, deleter) = if *deleted_by_us {
                        (theirs_by, ours_by)
                    } else {
                        (ours_by, theirs_by)
                    };
                    (
                        "deleted_and_edited",
                        None,
                        vec![
                            SyncChoice {
                                label: format!("keep {editor}'s edit"),
                                texts: kept.clone(),
                            },
                            SyncChoice {
                                label: format!("delete it, as {deleter} did"),
                                texts: Vec::new(),
                            },
                        ],
                    )
                }
                Conflict::Field { key, ours, theirs } => (
                    "field",
                    Some(key.clone()),
                    vec![
                        SyncChoice {
                            label: format!("{ours_by}'s {key}"),
                            texts: vec![ours.clone()],
                        },
                        SyncChoice {
                            label: format!("{theirs_by}'s {key}"),
                            texts: vec![theirs.clone()],
                        },
                    ],
                ),
            };
            // The same conflict found on either home gets the same id: its versions, sorted.
            let mut versions: Vec<&String> = choices.iter().flat_map(|c| &c.texts).collect();
            versions.sort();
            let mut key = format!("{rel}\n{kind}\n{}", field.as_deref().unwrap_or(""));
            for v in versions {
                key.push('\n');
                key.push_str(v);
            }
            SyncConflict {
                id: mnemo_store::fsutil::hash(key.as_bytes())[..16].to_owned(),
                path: rel.to_owned(),
                kind: kind.to_owned(),
                field,
                choices,
                at: at.to_owned(),
            }
        })
        .collect()
}

/// The file's text after choosing `keep` (`None`: keep every version, only dismiss).
pub fn resolve_text(c: &SyncConflict, text: &str, keep: Option<usize>) -> Option<String> {
    let keep = keep?;
    let chosen = c.choices.get(keep)?;
    let mut file = TopicFile::parse(text);
    if c.kind == "field" {
        let field = c.field.as_deref()?;
        file.set_field(field, chosen.texts.first()?).ok()?;
        return Some(file.render());
    }
    let drop: BTreeSet<&String> = c
        .choices
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != keep)
        .flat_map(|(_, ch)| &ch.texts)
        .filter(|t| !chosen.texts.contains(t))
        .collect();
    let kept: Vec<String> = merge::entry_texts(file.body())
        .into_iter()
        .filter(|e| !drop.contains(e))
        .collect();
    file.set_body(&kept.join("\n\n"));
    Some(file.render())
}

/// Read a `conflicts.json` as it came (from another home, or a hostile remote): records that
/// are not a well-formed conflict are dropped; words are made printable and any secret in them
/// redacted before anything is stored here or shown.
#[must_use]
pub fn decode_conflicts(bytes: &[u8]) -> Vec<SyncConflict> {
    let Ok(list) = serde_json::from_slice::<Vec<SyncConflict>>(bytes) else {
        return Vec::new();
    };
    list.into_iter().filter_map(clean_conflict).collect()
}

fn clean_conflict(c: SyncConflict) -> Option<SyncConflict> {
    let words = |s: &str| mnemo_store::fsutil::printable(&mnemo_store::secrets::redact(s).0);
    let well_formed = c.id.len() == 16
        && c.id.chars().all(|ch| ch.is_ascii_hexdigit())
        && ["edited", "deleted_and_edited", "field"].contains(&c.kind.as_str())
        && refusal(&c.path, None, None).is_none()
        && c.choices.len() >= 2
        && c.choices.len() <= 16;
    if !well_formed {
        return None;
    }
    Some(SyncConflict {
        id: c.id,
        path: c.path,
        kind: c.kind,
        field: c.field.as_deref().map(words),
        choices: c
            .choices
            .into_iter()
            .map(|ch| SyncChoice {
                label: words(&ch.label),
                texts: ch
                    .texts
                    .iter()
                    .map(|t| mnemo_store::secrets::redact(t).0)
                    .collect(),
            })
            .collect(),
        at: words(&c.at),
    })
}

/// How one home settled a conflict it had open, read from what that home holds now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decision {
    /// Every version kept (dismissed).
    All,
    /// One choice kept.
    Keep(usize),
}

fn decision(c: &SyncConflict, text: Option<&str>) -> Option<Decision> {
    match c.kind.as_str() {
        "deleted_and_edited" => Some(match text {
            None => Decision::Keep(1),
            Some(_) => Decision::Keep(0),
        }),
        "edited" => {
            let have = body_entries(text?);
            let holds = |ch: &SyncChoice| ch.texts.iter().all(|t| have.contains(t));
            if c.choices.iter().all(holds) {
                return Some(Decision::All);
            }
            let only = |i: usize| {
                holds(&c.choices[i])
                    && c.choices.iter().enumerate().all(|(j, other)| {
                        j == i
                            || other
                                .texts
                                .iter()
                                .all(|t| c.choices[i].texts.contains(t) || !have.contains(t))
                    })
            };
            (0..c.choices.len()).find(|i| only(*i)).map(Decision::Keep)
        }
        _ => None,
    }
}

/// Two homes that settled one conflict differently (each dropped it from its open list, one
/// keeping one version, the other another — or deleting what the other kept). Merged blindly,
/// both versions would go and the body be left empty; instead both chosen versions stay and a
/// new conflict (its own id) asks again. Returns the file's text and that conflict, or `None`
/// when the two did not disagree.
#[must_use]
#[allow(clippy::too_many_arguments)]
pub fn disagreement(
    c: &SyncConflict,
    base: Option<&str>,
    ours: (bool, Option<&str>),
    theirs: (bool, Option<&str>),
    ours_by: &str,
    theirs_by: &str,
    at: &str,
) -> Option<(Option<String>, SyncConflict)> {
    // Still listed on a side: that side has not decided.
    if ours.0 || theirs.0 {
        return None;
    }
    let (Some(Decision::Keep(i)), Some(Decision::Keep(j))) =
        (decision(c, ours.1), decision(c, theirs.1))
    else {
        return None;
    };
    if i == j || i >= c.choices.len() || j >= c.choices.len() {
        return None;
    }
    let (text, choices) = if c.kind == "deleted_and_edited" {
        let (keeper, deleter) = if i == 0 {
            (ours_by, theirs_by)
        } else {
            (theirs_by, ours_by)
        };
        (
            ours.1.or(theirs.1).map(str::to_owned),
            vec![
                SyncChoice {
                    label: format!("keep it, as {keeper} chose"),
                    texts: c.choices[0].texts.clone(),
                },
                SyncChoice {
                    label: format!("delete it, as {deleter} chose"),
                    texts: Vec::new(),
                },
            ],
        )
    } else {
        let (o, t) = (ours.1?, theirs.1?);
        let merged = merge::merge_topic(base.unwrap_or(""), o, t);
        let mut file = TopicFile::parse(&merged.text);
        let mut entries = merge::entry_texts(file.body());
        for t in c.choices[i].texts.iter().chain(&c.choices[j].texts) {
            if !entries.contains(t) {
                entries.push(t.clone());
            }
        }
        file.set_body(&entries.join("\n\n"));
        (
            Some(file.render()),
            vec![
                SyncChoice {
                    label: format!("{ours_by}'s choice"),
                    texts: c.choices[i].texts.clone(),
                },
                SyncChoice {
                    label: format!("{theirs_by}'s choice"),
                    texts: c.choices[j].texts.clone(),
                },
            ],
        )
    };
    // The same on both homes whichever is ours: the old id and the chosen versions, sorted.
    let mut chosen: Vec<String> = choices
        .iter()
        .map(|ch| ch.texts.join("\n"))
        .collect::<Vec<_>>();
    chosen.sort();
    let key = format!("decided differently\n{}\n{}", c.id, chosen.join("\n--\n"));
    Some((
        text,
        SyncConflict {
            id: mnemo_store::fsutil::hash(key.as_bytes())[..16].to_owned(),
            path: c.path.clone(),
            kind: c.kind.clone(),
            field: None,
            choices,
            at: at.to_owned(),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(xs: &[&str]) -> BTreeSet<String> {
        xs.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn sets_merge_additions_and_removals_from_both_sides() {
        let m = merge_sets(&set(&["a", "b"]), &set(&["a", "c"]), &set(&["b", "d"]));
        assert_eq!(m, set(&["c", "d"]));
    }

    #[test]
    fn switches_merge_by_field() {
        let b = Switches::from([("auto_dream".into(), true)]);
        let o = Switches::from([("auto_dream".into(), true), ("auto_extract".into(), false)]);
        let t = Switches::from([("auto_dream".into(), false)]);
        let m = merge_switches(&b, &o, &t);
        assert_eq!(m.get("auto_dream"), Some(&false));
        assert_eq!(m.get("auto_extract"), Some(&false));
    }

    #[test]
    fn a_file_deleted_on_one_side_and_edited_on_the_other_keeps_the_edit() {
        let b = "---\nname: A\ndescription: a\ntype: user\n---\nOne.\n";
        let t = "---\nname: A\ndescription: a\ntype: user\n---\nOne, edited.\n";
        let m = merge_file("a.md", Some(b), None, Some(t));
        assert_eq!(m.text.as_deref(), Some(t));
        assert!(matches!(
            m.conflicts[0],
            Conflict::DeletedAndEdited {
                deleted_by_us: true,
                ..
            }
        ));
        assert_eq!(merge_file("a.md", Some(b), None, Some(b)).text, None);
    }

    #[test]
    fn conflicts_get_one_id_whichever_home_finds_them() {
        let c = Conflict::Edited {
            base: vec!["x".into()],
            ours: vec!["x1".into()],
            theirs: vec!["x2".into()],
        };
        let swapped = Conflict::Edited {
            base: vec!["x".into()],
            ours: vec!["x2".into()],
            theirs: vec!["x1".into()],
        };
        let a = records("a.md", &[c], "A", "B", "t");
        let b = records("a.md", &[swapped], "B", "A", "t");
        assert_eq!(a[0].id, b[0].id);
    }

    #[test]
    fn refusals_name_the_problem() {
        assert_eq!(
            refusal("../x.md", None, None).as_deref(),
            Some("its path would leave the memory folder")
        );
        assert!(
            refusal("a.md", Some("120000"), None)
                .unwrap()
                .contains("link")
        );
        assert!(
            refusal("a.md", None, Some(&vec![b'a'; 1024 * 1024 + 1]))
                .unwrap()
                .contains("limit")
        );
        assert!(refusal("a.md", None, Some(b"no frontmatter")).is_some());
        let ok = b"---\nname: A\ndescription: a\ntype: user\n---\nOne.\n";
        assert_eq!(refusal("a.md", Some("100644"), Some(ok)), None);
        assert_eq!(
            refusal("logs/2026/01/2026-01-02.md", None, Some(b"free")),
            None
        );
    }

    #[test]
    fn a_name_other_systems_cannot_take_is_refused_for_what_it_holds() {
        let why = |rel: &str| refusal(rel, None, None).unwrap_or_default();
        assert_eq!(
            why("a\tb.md"),
            "its name holds a tab, which other machines' file systems and tools may not take: \
             rename it to sync it"
        );
        assert!(
            why("a\nb.md").starts_with("its name holds a line break, "),
            "{}",
            why("a\nb.md")
        );
        assert!(why("a\rb.md").starts_with("its name holds a line break, "));
        assert!(
            why("a\u{7}b.md").starts_with("its name holds a control character (\\u{7}), "),
            "{}",
            why("a\u{7}b.md")
        );
        assert!(
            why("a\\b.md")
                .starts_with("its name holds a backslash (a folder separator on Windows), "),
            "{}",
            why("a\\b.md")
        );
        assert!(
            why("evil\u{202e}dm.txt.md")
                .starts_with("its name holds a character that turns text around (\\u{202e})"),
            "{}",
            why("evil\u{202e}dm.txt.md")
        );
        // In a folder's name: that folder is named, printably.
        assert_eq!(
            why("tab\there/a.md"),
            "the folder `tab\\u{9}here` in its path holds a tab, which other machines' file \
             systems and tools may not take: rename it to sync it"
        );
        for rel in ["a\tb.md", "a\\b.md", "x/a\nb.md"] {
            assert!(!why(rel).contains("leave"), "{rel}: {}", why(rel));
        }
        // Still a climb out of the folder, whatever else it holds.
        assert_eq!(why("../a\tb.md"), "its path would leave the memory folder");
    }

    #[test]
    fn a_name_ending_in_upper_case_md_is_named_with_its_fix() {
        let why = |rel: &str| refusal(rel, None, None);
        assert_eq!(
            why("UPPER.MD").as_deref(),
            Some("its name ends in `.MD`, not `.md`: rename it to `UPPER.md` to sync it")
        );
        assert_eq!(
            why("notes/Work.Md").as_deref(),
            Some("its name ends in `.Md`, not `.md`: rename it to `Work.md` to sync it")
        );
        assert_eq!(
            misnamed("x.mD").as_deref(),
            Some("its name ends in `.mD`, not `.md`: rename it to `x.md` to sync it")
        );
        // Not a memory file even as `.md`: the general reason, and `misnamed` says nothing.
        for rel in ["MEMORY.MD", "memory.MD", "notes.txt", "a.md.bak"] {
            assert_eq!(misnamed(rel), None, "{rel}");
            assert_eq!(
                why(rel).as_deref(),
                Some("it is not a memory file (only visible `.md` files sync)"),
                "{rel}"
            );
        }
        assert_eq!(misnamed("a.md"), None);
        assert_eq!(
            misnamed("é.MD").as_deref(),
            Some("its name ends in `.MD`, not `.md`: rename it to `é.md` to sync it")
        );
        assert_eq!(misnamed("MD"), None);
        assert_eq!(misnamed("éM"), None);
    }
}
