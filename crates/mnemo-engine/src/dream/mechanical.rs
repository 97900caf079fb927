//! The mechanical dream, pure: topic texts in, a plan out. Within each file, entries
//! with the same case-folded summary become one (their `Why:` / `How to apply:` merged) and the
//! entries are sorted; across the files of one type, an entry whose summary an earlier file (by
//! path) already holds is merged into that file and dropped here; a file left with no entries is
//! deleted. Invalid and pinned files are never touched. Deterministic: planning the planned state
//! again gives no change.
//!
//! Sorting only reorders files made of entry-shaped blocks (a summary line plus `Why:` /
//! `How to apply:` lines): a file of prose paragraphs or headings keeps its order, so no text
//! loses its sense — it is still de-duplicated.

use std::collections::{BTreeMap, HashMap};

use mnemo_core::MemoryType;
use mnemo_store::doc;
use mnemo_store::dream_report::DreamMerge;
use mnemo_store::format::{Entry, TopicFile};

use super::summary_key;

/// One planned file change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Relative path.
    pub path: String,
    /// The new text; `None`: delete the file.
    pub new: Option<String>,
    /// Entries before and after.
    pub entries_before: usize,
    /// Entries after (0 when deleted).
    pub entries_after: usize,
    /// The file's type.
    pub memory_type: Option<MemoryType>,
    /// Why it changes, for people ("2 duplicate entries merged into one; entries put in A–Z
    /// order"; a delete says where every entry it held is kept). Every rewritten file has one.
    pub reason: String,
}

/// What the mechanical dream would do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Writes first (in path order: a merge's target always sorts before its sources), then
    /// deletes.
    pub changes: Vec<FileChange>,
    /// What was merged where.
    pub merges: Vec<DreamMerge>,
    /// Entries merged away.
    pub entries_merged: u32,
}

impl Plan {
    /// The files whose entries this plan merges into `target` (they must keep their copies if
    /// the write to `target` does not happen).
    #[must_use]
    pub fn sources_of(&self, target: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .merges
            .iter()
            .filter(|m| m.into == target)
            .flat_map(|m| m.from.iter().filter(|f| *f != target).cloned())
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// An entry being rebuilt.
#[derive(Debug, Clone)]
struct Draft {
    key: String,
    summary: String,
    lines: Vec<String>,
    why: Option<String>,
    how: Option<String>,
    /// Original position, to keep ties and unsortable files in order.
    index: usize,
}

impl Draft {
    fn of(e: &Entry) -> Self {
        Self {
            key: summary_key(&e.summary),
            summary: e.summary.clone(),
            lines: e.text.lines().map(str::to_owned).collect(),
            why: e.why.clone(),
            how: e.how.clone(),
            index: e.index,
        }
    }

    /// Whether folding `other` into this entry keeps all its text: every line besides its
    /// summary and `Why:` / `How to apply:` is already here. (Otherwise the two are not the same
    /// fact, whatever their first lines say, and both stay.)
    fn covers(&self, other: &Self) -> bool {
        other.lines.iter().skip(1).all(|l| {
            let t = l.trim();
            t.starts_with("Why:")
                || t.starts_with("How to apply:")
                || self.lines.iter().any(|m| m.trim() == t)
        })
    }

    /// Fold another copy's `Why:` / `How to apply:` into this one. Returns whether it changed.
    fn absorb(&mut self, other: &Self) -> bool {
        let mut changed = false;
        for (label, mine, theirs) in [
            ("Why:", &mut self.why, &other.why),
            ("How to apply:", &mut self.how, &other.how),
        ] {
            let Some(t) = theirs.as_deref().filter(|t| !t.trim().is_empty()) else {
                continue;
            };
            let merged = match mine.as_deref() {
                None => t.to_owned(),
                Some(m) if m.to_lowercase().contains(&t.to_lowercase()) => continue,
                Some(m) if m.trim().is_empty() => t.to_owned(),
                Some(m) => format!("{m}; {t}"),
            };
            let line = format!("{label} {merged}");
            match self
                .lines
                .iter()
                .position(|l| l.trim_start().starts_with(label))
            {
                Some(i) => self.lines[i] = line,
                None => self.lines.push(line),
            }
            *mine = Some(merged);
            changed = true;
        }
        changed
    }
}

/// Whether every block is entry-shaped (then sorting keeps each fact whole and readable).
fn sortable(drafts: &[Draft]) -> bool {
    drafts.iter().all(|d| {
        d.lines.iter().enumerate().all(|(i, l)| {
            let t = l.trim_start();
            if i == 0 {
                !t.starts_with('#')
            } else {
                t.starts_with("Why:") || t.starts_with("How to apply:")
            }
        })
    })
}

struct FileState {
    path: String,
    file: TopicFile,
    memory_type: Option<MemoryType>,
    before: usize,
    kept: Vec<Draft>,
    dirty: bool,
    /// Entries folded into an earlier copy in this same file.
    merged_within: usize,
    /// Entries dropped here because an earlier file holds them: those files.
    moved_to: Vec<String>,
    /// Copies from later files folded into this file's entries.
    took_in: usize,
}

/// Plan the mechanical dream over a workspace's topic files (`(path, text)`; other files are
/// ignored).
#[must_use]
pub fn plan(files: &[(String, String)]) -> Plan {
    let mut states: Vec<FileState> = files
        .iter()
        .filter(|(p, _)| doc::doc_kind(p) == Some(doc::DocKind::Topic))
        .filter(|(p, t)| !doc::is_pinned(p, t))
        .filter_map(|(p, t)| {
            let file = TopicFile::parse(t);
            if file.problem.is_some() {
                return None;
            }
            let entries = file.entries();
            Some(FileState {
                path: p.clone(),
                memory_type: file.memory_type(),
                before: entries.len(),
                kept: Vec::new(),
                dirty: false,
                merged_within: 0,
                moved_to: Vec::new(),
                took_in: 0,
                file,
            })
        })
        .collect();
    states.sort_by(|a, b| a.path.cmp(&b.path));
    let mut out = Plan::default();
    // Per type: summary key → (file index, position in its kept list).
    let mut seen: HashMap<(Option<MemoryType>, String), (usize, usize)> = HashMap::new();
    let mut merges: BTreeMap<(usize, usize), DreamMerge> = BTreeMap::new();
    for fi in 0..states.len() {
        let entries = states[fi].file.entries();
        for e in &entries {
            let d = Draft::of(e);
            if d.key.is_empty() {
                states[fi].kept.push(d);
                continue;
            }
            let slot = (states[fi].memory_type, d.key.clone());
            if let Some(&(tf, ti)) = seen
                .get(&slot)
                .filter(|&&(tf, ti)| states[tf].kept[ti].covers(&d))
            {
                if states[tf].kept[ti].absorb(&d) {
                    states[tf].dirty = true;
                    if tf != fi {
                        states[tf].took_in += 1;
                    }
                }
                states[fi].dirty = true;
                out.entries_merged += 1;
                let into = states[tf].path.clone();
                if tf == fi {
                    states[fi].merged_within += 1;
                } else if !states[fi].moved_to.contains(&into) {
                    states[fi].moved_to.push(into.clone());
                }
                let summary = states[tf].kept[ti].summary.clone();
                merges
                    .entry((tf, ti))
                    .or_insert_with(|| DreamMerge {
                        summary,
                        into,
                        from: Vec::new(),
                    })
                    .from
                    .push(states[fi].path.clone());
            } else {
                seen.insert(slot, (fi, states[fi].kept.len()));
                states[fi].kept.push(d);
            }
        }
    }
    out.merges = merges.into_values().collect();
    let mut deletes = Vec::new();
    for s in &mut states {
        let mut ordered = s.kept.clone();
        if sortable(&ordered) {
            ordered.sort_by(|a, b| a.key.cmp(&b.key).then(a.index.cmp(&b.index)));
        }
        let reordered = ordered.iter().zip(&s.kept).any(|(a, b)| a.index != b.index);
        if !s.dirty && !reordered {
            continue;
        }
        if ordered.is_empty() {
            deletes.push(FileChange {
                path: s.path.clone(),
                new: None,
                entries_before: s.before,
                entries_after: 0,
                memory_type: s.memory_type,
                reason: reason(s, false),
            });
            continue;
        }
        let lead: String = s
            .file
            .body()
            .chars()
            .take_while(|c| *c == '\n' || *c == '\r')
            .filter(|c| *c == '\n')
            .collect();
        let body = ordered
            .iter()
            .map(|d| d.lines.join("\n"))
            .collect::<Vec<_>>()
            .join("\n\n");
        let mut file = s.file.clone();
        file.set_body(&format!("{lead}{body}"));
        out.changes.push(FileChange {
            path: s.path.clone(),
            new: Some(file.render()),
            entries_before: s.before,
            entries_after: ordered.len(),
            memory_type: s.memory_type,
            reason: reason(s, reordered),
        });
    }
    out.changes.extend(deletes);
    out
}

fn entries(n: usize) -> String {
    format!("{n} entr{}", if n == 1 { "y" } else { "ies" })
}

/// Why the mechanical dream changes a file, in words: what it merged where, and whether it only
/// put the entries in order.
fn reason(s: &FileState, reordered: bool) -> String {
    let moved = s.moved_to.join(", ");
    if s.kept.is_empty() {
        return format!("deleted {}: every entry it held is kept in {moved}", s.path);
    }
    let mut parts = Vec::new();
    if s.merged_within > 0 {
        parts.push(format!(
            "{} repeated in it merged into one copy",
            entries(s.merged_within)
        ));
    }
    if !s.moved_to.is_empty() {
        let n = s.before - s.kept.len() - s.merged_within;
        parts.push(format!("{} already in {moved} left only there", entries(n)));
    }
    if s.took_in > 0 {
        parts.push(format!(
            "the Why / How to apply of {} from other files added to its copies",
            entries(s.took_in)
        ));
    }
    if reordered {
        parts.push("entries put in A–Z order by their first line (no text changed)".to_owned());
    }
    format!("{}: {}", s.path, parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topic(ty: &str, body: &str) -> String {
        format!("---\nname: n\ndescription: d\ntype: {ty}\n---\n{body}")
    }

    fn files(list: &[(&str, String)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(p, t)| ((*p).to_owned(), t.clone()))
            .collect()
    }

    fn apply(input: &[(String, String)], plan: &Plan) -> Vec<(String, String)> {
        let mut map: BTreeMap<String, String> = input.iter().cloned().collect();
        for c in &plan.changes {
            match &c.new {
                Some(t) => map.insert(c.path.clone(), t.clone()),
                None => map.remove(&c.path),
            };
        }
        map.into_iter().collect()
    }

    #[test]
    fn dedupes_within_a_file_merging_why_and_how_and_sorts() {
        let input = files(&[(
            "a.md",
            topic(
                "user",
                "Zed likes tea.\nWhy: said so.\n\nAmy codes in Rust.\n\nzed LIKES tea.\nHow to apply: offer tea.\n",
            ),
        )]);
        let p = plan(&input);
        assert_eq!(p.entries_merged, 1);
        assert_eq!(p.changes.len(), 1);
        assert_eq!(
            p.changes[0].new.as_deref().unwrap(),
            topic(
                "user",
                "Amy codes in Rust.\n\nZed likes tea.\nWhy: said so.\nHow to apply: offer tea.\n"
            )
        );
        assert_eq!(p.merges[0].summary, "Zed likes tea.");
        assert_eq!(p.merges[0].from, vec!["a.md"]);
        // Every rewritten file says why, the reordering included.
        assert_eq!(
            p.changes[0].reason,
            "a.md: 1 entry repeated in it merged into one copy; entries put in A–Z order by their \
             first line (no text changed)"
        );
        // A second run is a noop.
        assert_eq!(plan(&apply(&input, &p)), Plan::default());
    }

    #[test]
    fn merges_across_files_of_one_type_into_the_first_and_deletes_emptied() {
        let input = files(&[
            ("b.md", topic("project", "Ship v2 in May.\nWhy: board.\n")),
            (
                "a.md",
                topic("project", "Ship v2 in May.\n\nUse Postgres.\n"),
            ),
            ("c.md", topic("user", "Ship v2 in May.\n")),
        ]);
        let p = plan(&input);
        assert_eq!(p.entries_merged, 1);
        let paths: Vec<(&str, bool)> = p
            .changes
            .iter()
            .map(|c| (c.path.as_str(), c.new.is_some()))
            .collect();
        // The target is written before the emptied source is deleted; another type is untouched.
        assert_eq!(paths, vec![("a.md", true), ("b.md", false)]);
        assert_eq!(
            p.changes[0].reason,
            "a.md: the Why / How to apply of 1 entry from other files added to its copies"
        );
        // A deletion says where what it held went.
        assert_eq!(
            p.changes[1].reason,
            "deleted b.md: every entry it held is kept in a.md"
        );
        assert_eq!(p.sources_of("a.md"), vec!["b.md"]);
        assert!(p.sources_of("b.md").is_empty());
        assert!(
            p.changes[0]
                .new
                .as_deref()
                .unwrap()
                .contains("Ship v2 in May.\nWhy: board.\n")
        );
        assert_eq!(plan(&apply(&input, &p)), Plan::default());
    }

    #[test]
    fn a_file_only_put_in_order_says_so_and_one_that_lost_an_entry_says_where_it_is() {
        let input = files(&[
            ("a.md", topic("user", "Likes tea.\n")),
            (
                "b.md",
                topic("user", "Zed codes.\n\nLikes tea.\n\nAmy sings.\n"),
            ),
            ("c.md", topic("user", "Walks daily.\n\nBikes to work.\n")),
        ]);
        let p = plan(&input);
        let reasons: Vec<&str> = p.changes.iter().map(|c| c.reason.as_str()).collect();
        assert_eq!(
            reasons,
            vec![
                "b.md: 1 entry already in a.md left only there; entries put in A–Z order by \
                 their first line (no text changed)",
                "c.md: entries put in A–Z order by their first line (no text changed)",
            ]
        );
    }

    #[test]
    fn invalid_pinned_and_prose_files_are_respected() {
        let prose = topic(
            "user",
            "# Notes\nSome prose.\n\nA later paragraph.\n\n# Notes\nSome prose.\n",
        );
        let input = files(&[
            ("bad.md", "no frontmatter\n\nx\n\nx\n".to_owned()),
            (
                "pin.md",
                topic("user", "b fact\n\na fact\n\na fact\n")
                    .replace("type: user", "type: user\npinned: true"),
            ),
            ("pinned/q.md", topic("user", "b\n\na\n")),
            ("prose.md", prose),
            ("logs/2026/01/2026-01-01.md", "x\n\nx\n".to_owned()),
        ]);
        let p = plan(&input);
        assert_eq!(p.changes.len(), 1, "{p:?}");
        // The duplicate paragraph goes; the order of the rest stays.
        assert_eq!(
            p.changes[0].new.as_deref().unwrap(),
            topic("user", "# Notes\nSome prose.\n\nA later paragraph.\n")
        );
    }

    #[test]
    fn same_first_line_with_different_text_is_not_a_duplicate() {
        let input = files(&[(
            "a.md",
            topic(
                "user",
                "# May
Shipped v1.

# May
Hired Bo.
",
            ),
        )]);
        assert_eq!(plan(&input), Plan::default());
    }

    #[test]
    fn an_untouched_sorted_file_is_not_rewritten() {
        let input = files(&[("a.md", topic("user", "\nalpha\n\n\nbeta\n\n"))]);
        assert_eq!(plan(&input), Plan::default());
    }
}
