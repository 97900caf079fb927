//! Planning an import (pure): candidate facts and notes → the topic files it writes, and its
//! preview — counts by type, duplicates, secrets refused, reasons, samples. Applying a plan
//! writes exactly its files (`vault/import.rs`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use mnemo_core::MemoryType;

use super::memories::Candidate;
use super::{ImportFormat, ImportOptions, ImportPreview, Sample, SkipKind, TypeCount};
use crate::format::{self, TopicFile};
use crate::{fsutil, secrets};

/// Entries per imported topic file (a bigger import spreads over `-2`, `-3`… files).
pub const ENTRIES_PER_FILE: usize = 100;
/// Bytes per imported topic file, at most.
pub const BYTES_PER_FILE: usize = 200 * 1024;
/// The longest fact imported (a file may hold 1 MiB).
pub const MAX_ENTRY: usize = 256 * 1024;
/// Samples a preview shows.
pub const SAMPLES: usize = 10;
/// The most an import's plan holds of the memories it will write (their text, ids and keys):
/// a source bigger than that is refused at the item where the budget ran out, so a preview
/// never grows with the source (a 500 MB array of facts is refused in a few tens of MB).
pub const MAX_PLANNED_BYTES: usize = 64 << 20;
/// What one held string costs beyond its bytes (map slots, allocation), counted in the budget.
const HELD_OVERHEAD: usize = 64;

/// What the workspace holds already (for de-duplication).
#[derive(Debug, Clone, Default)]
pub struct Existing {
    /// Summary keys ([`format::summary_key`]) of every entry of every topic file.
    pub keys: HashSet<String>,
    /// Every file: path → content hash.
    pub files: HashMap<String, String>,
    /// Content hashes of every file.
    pub hashes: HashSet<String>,
    /// Forgotten summaries' keys ([`crate::journal::forgotten_key`]).
    pub forgotten: BTreeSet<String>,
}

impl Existing {
    /// Take in one file of the workspace.
    pub fn add_file(&mut self, path: &str, bytes: &[u8]) {
        let h = fsutil::hash(bytes);
        self.hashes.insert(h.clone());
        self.files.insert(path.to_owned(), h);
        if let Ok(text) = std::str::from_utf8(bytes) {
            for e in TopicFile::parse(text).entries() {
                self.keys.insert(format::summary_key(&e.summary));
            }
        }
    }
}

/// One file an import writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    /// The workspace it goes into (`None`: the import's workspace).
    pub workspace: Option<String>,
    /// Its path in the memory folder.
    pub path: String,
    /// Its bytes, exactly.
    pub bytes: Vec<u8>,
    /// Memories it holds (entries, or 1 for a note).
    pub memories: u32,
    /// Its type (`None` for a daily log).
    pub memory_type: Option<MemoryType>,
}

/// An import's files and its preview.
#[derive(Debug, Clone, Default)]
pub struct ImportPlan {
    /// The files, in writing order.
    pub files: Vec<PlannedFile>,
    /// What a person is shown.
    pub preview: ImportPreview,
}

impl ImportPlan {
    /// Fill the preview's totals, samples and fingerprint from the files.
    pub fn finish(&mut self) {
        let p = &mut self.preview;
        p.files = u32::try_from(self.files.len()).unwrap_or(u32::MAX);
        p.memories = self.files.iter().map(|f| f.memories).sum();
        let mut by: BTreeMap<MemoryType, u32> = BTreeMap::new();
        for f in &self.files {
            if let Some(t) = f.memory_type {
                *by.entry(t).or_default() += f.memories;
            }
        }
        p.by_type = by
            .into_iter()
            .map(|(memory_type, count)| TypeCount { memory_type, count })
            .collect();
        let mut h = blake3::Hasher::new();
        for f in &self.files {
            h.update(f.workspace.as_deref().unwrap_or("").as_bytes());
            h.update(b"\0");
            h.update(f.path.as_bytes());
            h.update(b"\0");
            h.update(&(f.bytes.len() as u64).to_le_bytes());
            h.update(&f.bytes);
        }
        p.plan = h.finalize().to_hex()[..16].to_owned();
        if p.samples.is_empty() {
            p.samples = self
                .files
                .iter()
                .filter_map(|f| {
                    let text = std::str::from_utf8(&f.bytes).ok()?;
                    let file = TopicFile::parse(text);
                    let t = f.memory_type?;
                    let first = file
                        .entries()
                        .into_iter()
                        .next()
                        .map(|e| e.summary)
                        .unwrap_or_default();
                    Some(Sample {
                        path: f.path.clone(),
                        memory_type: t,
                        text: short(&first),
                    })
                })
                .take(SAMPLES)
                .collect();
        }
    }
}

fn short(s: &str) -> String {
    let line = s.lines().next().unwrap_or_default().trim();
    if line.chars().count() > 200 {
        let mut t: String = line.chars().take(199).collect();
        t.push('…');
        t
    } else {
        line.to_owned()
    }
}

/// A file-name part: lowercase letters, digits and dashes (other scripts kept as they are).
#[must_use]
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.trim().chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out
        .trim_end_matches('-')
        .chars()
        .take(48)
        .collect::<String>();
    out.trim_end_matches('-').to_owned()
}

/// A date as a day (`YYYY-MM-DD`), or why it is not kept.
fn day_of(raw: &str, now: DateTime<Utc>) -> Result<String, String> {
    let t = raw.trim();
    let parsed = DateTime::parse_from_rfc3339(t)
        .map(|d| d.with_timezone(&Utc))
        .ok()
        .or_else(|| {
            [
                "%Y-%m-%dT%H:%M:%S%.f",
                "%Y-%m-%d %H:%M:%S%.f",
                "%Y-%m-%dT%H:%M:%S",
                "%Y-%m-%d %H:%M:%S",
            ]
            .iter()
            .find_map(|f| NaiveDateTime::parse_from_str(t, f).ok())
            .map(|d| d.and_utc())
        })
        .or_else(|| {
            NaiveDate::parse_from_str(t, "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
                .map(|d| d.and_utc())
        });
    match parsed {
        None => Err(format!(
            "its date \"{}\" is not a date Mnemo reads: imported without it",
            short(t)
        )),
        Some(d) if d > now + chrono::Duration::days(1) => Err(format!(
            "its date {} is in the future: imported without it",
            d.format("%Y-%m-%d")
        )),
        Some(d) => Ok(d.format("%Y-%m-%d").to_string()),
    }
}

/// Plans facts (mem0, claude-mem, JSON): one entry each, grouped by type and topic into topic
/// files named after the source, de-duplicated against the workspace and within the import.
pub struct FactPlanner<'a> {
    format: ImportFormat,
    options: &'a ImportOptions,
    existing: &'a Existing,
    now: DateTime<Utc>,
    ids: HashMap<String, String>,
    keys: HashMap<String, String>,
    groups: BTreeMap<(MemoryType, String), Vec<String>>,
    preview: ImportPreview,
    /// Bytes held so far (see [`MAX_PLANNED_BYTES`]).
    held: usize,
}

impl<'a> FactPlanner<'a> {
    /// A planner for one import.
    #[must_use]
    pub fn new(
        format: ImportFormat,
        options: &'a ImportOptions,
        existing: &'a Existing,
        now: DateTime<Utc>,
    ) -> Self {
        Self {
            format,
            options,
            existing,
            now,
            ids: HashMap::new(),
            keys: HashMap::new(),
            groups: BTreeMap::new(),
            held: 0,
            preview: ImportPreview {
                format: Some(format),
                format_label: format.label().to_owned(),
                ..ImportPreview::default()
            },
        }
    }

    /// Take one candidate: planned, or skipped with its reason. `too_large` when the plan would
    /// hold more than [`MAX_PLANNED_BYTES`]: the import is refused there, naming the item.
    pub fn add(&mut self, c: &Candidate) -> mnemo_core::Result<()> {
        self.take(c);
        if self.held > MAX_PLANNED_BYTES {
            return Err(mnemo_core::Error::new(
                mnemo_core::ErrorCode::TooLarge,
                format!(
                    "{}: this import would plan more than {} MiB of memories, more than Mnemo \
                     takes in one import — split the source into smaller files and import each",
                    c.item,
                    MAX_PLANNED_BYTES >> 20
                ),
            ));
        }
        Ok(())
    }

    fn take(&mut self, c: &Candidate) {
        self.preview.items += 1;
        let item = c.item.clone();
        let mut lines: Vec<String> = c
            .text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect();
        if lines.is_empty() {
            self.preview.skip(SkipKind::Other, item, "it has no text");
            return;
        }
        for l in &c.lines {
            let flat = l.split_whitespace().collect::<Vec<_>>().join(" ");
            if !flat.is_empty() {
                lines.push(flat);
            }
        }
        let entry_bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
        if entry_bytes > MAX_ENTRY {
            self.preview.skip(
                SkipKind::Other,
                item,
                "it is longer than 256 KiB, more than one memory should hold: split it first",
            );
            return;
        }
        // Everything of it that reaches the disk: its text, its id (in the `Source:` line) and
        // its topic (in a file name).
        let probe = format!(
            "{}\n{}\n{}",
            lines.join("\n"),
            c.id.as_deref().unwrap_or_default(),
            c.topic.as_deref().unwrap_or_default()
        );
        if let Some(what) = secrets::held(&probe) {
            self.preview.skip(
                SkipKind::Secret,
                item,
                format!("it holds a secret ({what}): Mnemo never stores one"),
            );
            return;
        }
        if let Some(id) = &c.id {
            if let Some(first) = self.ids.get(id) {
                let reason = format!("its id {id} appears twice (first at {first}): kept once");
                self.preview.skip(SkipKind::Duplicate, item, reason);
                return;
            }
            self.held += id.len() + item.len() + HELD_OVERHEAD;
            self.ids.insert(id.clone(), item.clone());
        }
        let key = format::summary_key(&lines[0]);
        if self.existing.keys.contains(&key) {
            self.preview
                .skip(SkipKind::Duplicate, item, "this workspace already holds it");
            return;
        }
        // Held by its hash: the plan keeps the entry once, not its text twice.
        let key_hash = fsutil::hash(key.as_bytes());
        if let Some(first) = self.keys.get(&key_hash) {
            let reason = format!("the same as {first}");
            self.preview.skip(SkipKind::Duplicate, item, reason);
            return;
        }
        if self
            .existing
            .forgotten
            .contains(&crate::journal::forgotten_key(&lines[0]))
        {
            self.preview.skip(
                SkipKind::Other,
                item,
                "you asked Mnemo to forget this: add it by hand to bring it back",
            );
            return;
        }
        self.held += key_hash.len() + item.len() + HELD_OVERHEAD;
        self.keys.insert(key_hash, item.clone());
        let memory_type = match c.type_raw.as_deref() {
            Some(raw) => match raw.parse::<MemoryType>() {
                Ok(t) => t,
                Err(_) => {
                    let t = c.inferred.unwrap_or_else(|| self.options.default_type());
                    let reason = format!(
                        "its type \"{}\" is not one of user, feedback, project, reference: imported as {t}",
                        short(raw)
                    );
                    self.preview.skip(SkipKind::Note, item.clone(), reason);
                    t
                }
            },
            None => c.inferred.unwrap_or_else(|| self.options.default_type()),
        };
        let day = match c.created.as_deref().map(|d| day_of(d, self.now)) {
            Some(Ok(d)) => Some(d),
            Some(Err(why)) => {
                self.preview.skip(SkipKind::Note, item, why);
                None
            }
            None => None,
        };
        let mut source = format!("Source: {}", self.format.label());
        if let Some(id) = &c.id {
            source.push_str(&format!(" {}", short(id)));
        }
        if let Some(d) = day {
            source.push_str(&format!(", {d}"));
        }
        lines.push(source);
        let topic = c.topic.as_deref().map(slug).unwrap_or_default();
        self.held += lines.iter().map(|l| l.len() + 1).sum::<usize>() + HELD_OVERHEAD;
        self.groups
            .entry((memory_type, topic))
            .or_default()
            .push(lines.join("\n"));
    }

    /// The plan: topic files of at most [`ENTRIES_PER_FILE`] entries / [`BYTES_PER_FILE`]
    /// bytes, at paths free in the workspace.
    #[must_use]
    pub fn finish(self) -> ImportPlan {
        let mut plan = ImportPlan {
            files: Vec::new(),
            preview: self.preview,
        };
        let mut taken: HashSet<String> = self.existing.files.keys().cloned().collect();
        let src = self.format.slug();
        for ((t, topic), entries) in self.groups {
            let base = if topic.is_empty() {
                format!("{src}-{t}")
            } else {
                format!("{src}-{topic}")
            };
            let mut chunks: Vec<Vec<String>> = vec![Vec::new()];
            let mut size = 0;
            for e in entries {
                let last = chunks.last_mut().expect("one chunk");
                if !last.is_empty()
                    && (last.len() >= ENTRIES_PER_FILE || size + e.len() > BYTES_PER_FILE)
                {
                    chunks.push(Vec::new());
                    size = 0;
                }
                size += e.len() + 2;
                chunks.last_mut().expect("one chunk").push(e);
            }
            for chunk in chunks {
                let mut n = 1;
                let path = loop {
                    let p = if n == 1 {
                        format!("{base}.md")
                    } else {
                        format!("{base}-{n}.md")
                    };
                    if !taken.contains(&p) {
                        break p;
                    }
                    n += 1;
                };
                taken.insert(path.clone());
                let label = if topic.is_empty() {
                    t.to_string()
                } else {
                    topic.replace('-', " ")
                };
                let name = format!("{label} ({})", self.format.label());
                let description = format!("{t} memories imported from a {}", self.format.label());
                let body = chunk.join("\n\n");
                let Ok(file) = TopicFile::new(&name, &description, t, &body) else {
                    continue;
                };
                plan.files.push(PlannedFile {
                    workspace: None,
                    path,
                    bytes: file.render().into_bytes(),
                    memories: u32::try_from(chunk.len()).unwrap_or(u32::MAX),
                    memory_type: Some(t),
                });
            }
        }
        plan.finish();
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(i: usize, text: &str) -> Candidate {
        Candidate {
            item: format!("item {i}"),
            id: Some(format!("id{i}")),
            text: text.to_owned(),
            ..Candidate::default()
        }
    }

    #[test]
    fn a_plan_past_its_budget_is_refused_at_the_item_that_crossed_it() {
        let (existing, opts) = (Existing::default(), ImportOptions::default());
        let mut p = FactPlanner::new(ImportFormat::Mem0, &opts, &existing, Utc::now());
        let filler = "x".repeat(100_000);
        let mut refused = None;
        for i in 1..2_000 {
            if let Err(e) = p.add(&cand(i, &format!("Fact {i} {filler}"))) {
                refused = Some((i, e));
                break;
            }
        }
        let (i, e) = refused.expect("refused before 2,000 facts of 100 KB");
        assert_eq!(e.code, mnemo_core::ErrorCode::TooLarge);
        assert!(
            e.message.starts_with(&format!("item {i}:")),
            "{}",
            e.message
        );
        // Each fact is held once (its key by hash): about 100 KB apiece.
        assert!((600..=672).contains(&i), "64 MiB of 100 KB facts: {i}");
    }

    #[test]
    fn facts_are_grouped_deduplicated_and_skipped_with_reasons() {
        let mut existing = Existing::default();
        existing.add_file(
            "mem0-user.md",
            b"---\nname: a\ndescription: b\ntype: user\n---\nLikes green tea\n",
        );
        let opts = ImportOptions::default();
        let now = Utc::now();
        let mut p = FactPlanner::new(ImportFormat::Mem0, &opts, &existing, now);
        p.add(&cand(1, "likes green tea")).unwrap();
        p.add(&cand(2, "Lives in Lisbon")).unwrap();
        p.add(&cand(3, "lives in  lisbon")).unwrap();
        p.add(&cand(4, "api_key = sk-abcdefghijklmnopqrstuvwxyz123456"))
            .unwrap();
        p.add(&cand(5, "   ")).unwrap();
        p.add(&Candidate {
            created: Some("2999-01-01".into()),
            type_raw: Some("project".into()),
            ..cand(6, "Ships v2 in March")
        })
        .unwrap();
        p.add(&cand(2, "Another with the same id")).unwrap();
        let plan = p.finish();
        let pv = &plan.preview;
        assert_eq!(
            (pv.items, pv.memories, pv.duplicates, pv.secrets, pv.skipped),
            (7, 2, 3, 1, 1)
        );
        let paths: Vec<&str> = plan.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            vec!["mem0-user-2.md", "mem0-project.md"],
            "a free name, by type"
        );
        assert!(
            pv.reasons
                .iter()
                .any(|r| r.reason.contains("in the future"))
        );
        let text = String::from_utf8(plan.files[1].bytes.clone()).unwrap();
        assert!(
            text.ends_with("Ships v2 in March\nSource: mem0 export id6\n"),
            "{text}"
        );
        assert_eq!(pv.plan.len(), 16);
    }
}
