//! Planning an import (pure): candidate facts and notes → the topic files it writes, and its
//! preview — counts by type, duplicates, secrets refused, reasons, samples. Applying a plan
//! writes exactly its files (`vault/import.rs`). Facts are planned by [`FactPlanner`]
//! (`facts.rs`), notes by `notes.rs`.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use mnemo_core::MemoryType;

pub use super::facts::FactPlanner;
use super::{ImportPreview, Sample, TypeCount};
use mnemo_text::files;
use mnemo_text::format::{self, TopicFile};

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

/// What the workspace holds already (for de-duplication).
#[derive(Debug, Clone, Default)]
pub struct Existing {
    /// Summary keys ([`format::summary_key`]) of every entry of every topic file.
    pub keys: HashSet<String>,
    /// Every file: path → content hash.
    pub files: HashMap<String, String>,
    /// Content hashes of every file.
    pub hashes: HashSet<String>,
    /// Forgotten summaries' keys ([`mnemo_text::format::forgotten_key`]).
    pub forgotten: BTreeSet<String>,
    /// Hashes of every entry's whole-text key ([`entry_key`]): what a claude-mem observation is
    /// compared by, its title alone being shared by different observations.
    pub texts: HashSet<String>,
    /// Every topic file's `name`, case-folded: an import names no file the same.
    pub names: HashSet<String>,
    /// Every topic file's `description`, case-folded: an import describes no file the same.
    pub descriptions: HashSet<String>,
}

impl Existing {
    /// Take in one file of the workspace.
    pub fn add_file(&mut self, path: &str, bytes: &[u8]) {
        let h = files::hash(bytes);
        self.hashes.insert(h.clone());
        self.files.insert(path.to_owned(), h);
        if let Ok(text) = std::str::from_utf8(bytes) {
            let file = TopicFile::parse(text);
            if let Some(n) = &file.fields.name {
                self.names.insert(n.trim().to_lowercase());
            }
            if let Some(d) = &file.fields.description {
                self.descriptions.insert(d.trim().to_lowercase());
            }
            for e in file.entries() {
                self.keys.insert(format::summary_key(&e.summary));
                let whole = entry_key(e.text.lines());
                self.texts.insert(files::hash(whole.as_bytes()));
            }
        }
    }
}

/// The key an entry is compared by when all its text counts (claude-mem): its lines but the
/// `Source:` line an import adds under them (its id and date differ between two exports of the
/// same observation), folded as [`format::summary_key`] folds a summary.
#[must_use]
pub fn entry_key<'a>(lines: impl IntoIterator<Item = &'a str>) -> String {
    let kept: Vec<&str> = lines
        .into_iter()
        .map(str::trim)
        .enumerate()
        .filter(|(i, l)| *i == 0 || !l.starts_with("Source:"))
        .map(|(_, l)| l)
        .collect();
    format::summary_key(&kept.join("\n"))
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
    /// A Mnemo export's MEMORY.md per workspace it holds (`(workspace, bytes)`): not written
    /// with the files (the index is rebuilt from them), only back into a workspace the restore
    /// made, so a whole home comes back byte for byte.
    pub indexes: Vec<(String, Vec<u8>)>,
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

/// A text's first line, at most 200 characters (for samples and reasons).
pub(super) fn short(s: &str) -> String {
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
