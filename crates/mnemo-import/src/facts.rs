//! Planning facts (mem0, claude-mem, plain JSON / JSONL): each candidate one entry, checked for
//! secrets and duplicates, grouped by type and topic into topic files named by
//! [`super::naming`].

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use mnemo_core::MemoryType;

use super::memories::Candidate;
use super::naming;
use super::plan::{
    BYTES_PER_FILE, ENTRIES_PER_FILE, Existing, ImportPlan, MAX_ENTRY, MAX_PLANNED_BYTES,
    PlannedFile, entry_key, short, slug,
};
use super::{ImportFormat, ImportOptions, ImportPreview, SkipKind};
use mnemo_text::format::{self, TopicFile};
use mnemo_text::{files, secrets};

/// What one held string costs beyond its bytes (map slots, allocation), counted in the budget.
const HELD_OVERHEAD: usize = 64;

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
/// files named after their topic or their facts ([`super::naming`]), de-duplicated against the
/// workspace and within the import.
pub struct FactPlanner<'a> {
    format: ImportFormat,
    options: &'a ImportOptions,
    existing: &'a Existing,
    now: DateTime<Utc>,
    /// Each id seen → the item it was first seen at and the hash of that item's key.
    ids: HashMap<String, (String, String)>,
    keys: HashMap<String, String>,
    groups: BTreeMap<(MemoryType, String), Vec<String>>,
    /// A topic's words as the source first wrote them, by its group's slug.
    topics: HashMap<String, String>,
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
            topics: HashMap::new(),
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
        let meta: Vec<String> = c
            .meta
            .iter()
            .map(|m| m.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|m| !m.is_empty())
            .collect();
        let entry_bytes: usize = lines.iter().chain(&meta).map(|l| l.len() + 3).sum();
        if entry_bytes > MAX_ENTRY {
            self.preview.skip(
                SkipKind::Other,
                item,
                "it is longer than 256 KiB, more than one memory should hold: split it first",
            );
            return;
        }
        // Everything of it that reaches the disk: its text, its id and details (in the `Source:`
        // line) and its topic (in a file name).
        let probe = format!(
            "{}\n{}\n{}\n{}",
            lines.join("\n"),
            c.id.as_deref().unwrap_or_default(),
            meta.join("\n"),
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
        // What it is compared by: its summary, or (claude-mem) its whole text.
        let key = if c.id_per_source {
            entry_key(lines.iter().map(String::as_str))
        } else {
            format::summary_key(&lines[0])
        };
        // Held by its hash: the plan keeps the entry once, not its text twice.
        let key_hash = files::hash(key.as_bytes());
        if let Some(id) = &c.id {
            match self.ids.get(id) {
                Some((first, first_key)) if !c.id_per_source || *first_key == key_hash => {
                    let reason = format!("its id {id} appears twice (first at {first}): kept once");
                    self.preview.skip(SkipKind::Duplicate, item, reason);
                    return;
                }
                Some((first, _)) => {
                    let reason = format!(
                        "its id {id} is also {first}'s, with other text (an export of another \
                         database reuses ids): both kept"
                    );
                    self.preview.skip(SkipKind::Note, item.clone(), reason);
                }
                None => {
                    self.held += id.len() + item.len() + key_hash.len() + HELD_OVERHEAD;
                    self.ids
                        .insert(id.clone(), (item.clone(), key_hash.clone()));
                }
            }
        }
        let held_already = if c.id_per_source {
            self.existing.texts.contains(&key_hash)
        } else {
            self.existing.keys.contains(&key)
        };
        if held_already {
            self.preview
                .skip(SkipKind::Duplicate, item, "this workspace already holds it");
            return;
        }
        if let Some(first) = self.keys.get(&key_hash) {
            let reason = format!("the same as {first}");
            self.preview.skip(SkipKind::Duplicate, item, reason);
            return;
        }
        if self
            .existing
            .forgotten
            .contains(&mnemo_text::format::forgotten_key(&lines[0]))
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
        for m in &meta {
            source.push_str(&format!(" · {m}"));
        }
        lines.push(source);
        let raw_topic = c
            .topic
            .as_deref()
            .map(str::trim)
            .filter(|t| !naming::generic_topic(t));
        let topic = raw_topic.map(slug).unwrap_or_default();
        if let Some(raw) = raw_topic
            && !topic.is_empty()
            && !self.topics.contains_key(&topic)
        {
            self.held += raw.len() + topic.len() + HELD_OVERHEAD;
            self.topics.insert(topic.clone(), raw.to_owned());
        }
        self.held += lines.iter().map(|l| l.len() + 1).sum::<usize>() + HELD_OVERHEAD;
        self.groups
            .entry((memory_type, topic))
            .or_default()
            .push(lines.join("\n"));
    }

    /// The plan: topic files of at most [`ENTRIES_PER_FILE`] entries / [`BYTES_PER_FILE`]
    /// bytes, each named after its topic or its facts, at paths free in the workspace.
    #[must_use]
    pub fn finish(self) -> ImportPlan {
        let mut plan = ImportPlan {
            files: Vec::new(),
            preview: self.preview,
            indexes: Vec::new(),
        };
        let mut taken: HashSet<String> = self.existing.files.keys().cloned().collect();
        let mut namer = naming::Namer::new(
            self.format,
            self.now.format("%Y-%m-%d").to_string(),
            &self.existing.names,
            &self.existing.descriptions,
        );
        for ((t, topic), entries) in self.groups {
            let raw_topic = self.topics.get(&topic).map(String::as_str);
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
                // Each entry's text without its `Source:` line (always its last).
                let facts: Vec<&str> = chunk
                    .iter()
                    .map(|e| e.rsplit_once('\n').map_or(e.as_str(), |(text, _)| text))
                    .collect();
                let named = namer.name(t, raw_topic, &facts);
                let mut n = 1;
                let path = loop {
                    let p = if n == 1 {
                        format!("{}.md", named.stem)
                    } else {
                        format!("{}-{n}.md", named.stem)
                    };
                    if !taken.contains(&p) {
                        break p;
                    }
                    n += 1;
                };
                taken.insert(path.clone());
                let body = chunk.join("\n\n");
                let Ok(file) = TopicFile::new(&named.name, &named.description, t, &body) else {
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
            "lives-in-lisbon.md",
            b"---\nname: Lives in Lisbon\ndescription: b\ntype: user\n---\nLikes green tea\n",
        );
        let opts = ImportOptions::default();
        let now = DateTime::parse_from_rfc3339("2026-03-04T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
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
            vec!["lives-in-lisbon-2.md", "ships-v2-in-march.md"],
            "named after their facts, by type; a name the workspace holds is not given again"
        );
        let user = TopicFile::parse(std::str::from_utf8(&plan.files[0].bytes).unwrap());
        assert_eq!(
            (
                user.fields.name.as_deref(),
                user.fields.description.as_deref()
            ),
            (
                Some("Lives in Lisbon (2)"),
                Some("A fact imported from mem0 on 2026-03-04: Lives in Lisbon")
            )
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
