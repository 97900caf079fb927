//! Memories kept by other tools, read as candidate facts (mem0, claude-mem, plain JSON /
//! JSONL) or notes (a folder of markdown: basic-memory, Obsidian).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use mnemo_core::{Error, ErrorCode, MemoryType, Result};
use serde_json::Value;

use super::ImportFormat;
use super::stream::{self, Next};

/// One memory from another tool, before planning.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Candidate {
    /// How the item is named to a person (`item 12`, `line 3`).
    pub item: String,
    /// Its id in the source, if any.
    pub id: Option<String>,
    /// The fact (first line = its summary).
    pub text: String,
    /// Its type as the source says it, if any.
    pub type_raw: Option<String>,
    /// A type inferred from the source's categories.
    pub inferred: Option<MemoryType>,
    /// A grouping (mem0 category, claude-mem project), used for file names.
    pub topic: Option<String>,
    /// When it was made, as the source says.
    pub created: Option<String>,
    /// Further lines kept with the fact (claude-mem's narrative and facts).
    pub lines: Vec<String>,
}

/// Call `f` with each memory of a mem0, claude-mem or JSON / JSONL export, in order.
pub fn for_each(
    path: &Path,
    format: ImportFormat,
    mut f: impl FnMut(Candidate) -> Result<()>,
) -> Result<()> {
    let open =
        || File::open(path).map_err(|e| Error::io(format!("reading {}", path.display()), &e));
    if super::detect::is_jsonl(path)? {
        let mut r = BufReader::new(open()?);
        let mut buf = Vec::new();
        let mut line = 0usize;
        loop {
            buf.clear();
            line += 1;
            // A line is read only up to the cap: a bigger one stops the import, never held.
            let n = (&mut r)
                .take(super::stream::MAX_ELEMENT_BYTES + 1)
                .read_until(b'\n', &mut buf)
                .map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
            if n == 0 {
                return Ok(());
            }
            if n as u64 > super::stream::MAX_ELEMENT_BYTES {
                return Err(Error::new(
                    ErrorCode::TooLarge,
                    format!(
                        "line {line} of the export is larger than {} MiB, more than any memory \
                         Mnemo imports, so the import stops there — remove or split that line, then \
                         import again",
                        super::stream::MAX_ELEMENT_BYTES / (1024 * 1024)
                    ),
                ));
            }
            let text = std::str::from_utf8(&buf).map_err(|_| {
                Error::new(
                    ErrorCode::InvalidContent,
                    format!("line {line} of the export is not valid UTF-8 text: export it again as UTF-8"),
                )
            })?;
            let text = text.trim().trim_start_matches('\u{feff}');
            if text.is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(text).map_err(|e| {
                Error::new(
                    ErrorCode::InvalidContent,
                    format!("line {line} of the export is not a JSON object ({e}): is the file truncated? Export it again"),
                )
            })?;
            f(candidate(format, &v, format!("line {line}")))?;
        }
    }
    stream::for_each(open()?, |pos, v| {
        f(candidate(format, &v, format!("item {}", pos.index + 1)))?;
        Ok(Next::More)
    })
}

fn str_of(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| match v.get(*k) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    })
}

/// A date as the source gives it: RFC 3339 / ISO text, or seconds (or milliseconds) since 1970.
fn date_of(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| match v.get(*k) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Some(Value::Number(n)) => {
            let secs = n.as_f64()?;
            let secs = if secs > 1e11 { secs / 1000.0 } else { secs };
            #[allow(clippy::cast_possible_truncation)]
            let t = chrono::DateTime::from_timestamp(secs as i64, 0)?;
            Some(t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        }
        _ => None,
    })
}

/// A type from category words (mem0's categories).
fn infer(words: &[String]) -> Option<MemoryType> {
    for w in words {
        let w = w.to_lowercase();
        let has = |xs: &[&str]| xs.iter().any(|x| w.contains(x));
        if has(&["feedback", "instruction", "procedur", "style"]) {
            return Some(MemoryType::Feedback);
        }
        if has(&[
            "project",
            "work",
            "professional",
            "goal",
            "plan",
            "task",
            "decision",
        ]) {
            return Some(MemoryType::Project);
        }
        if has(&[
            "personal",
            "prefer",
            "family",
            "health",
            "hobb",
            "food",
            "relationship",
            "user",
        ]) {
            return Some(MemoryType::User);
        }
        if has(&["reference", "link", "url", "resource", "tool"]) {
            return Some(MemoryType::Reference);
        }
    }
    None
}

fn candidate(format: ImportFormat, v: &Value, item: String) -> Candidate {
    let id = str_of(v, &["id", "uuid", "memory_id"]);
    match format {
        ImportFormat::Mem0 => {
            let categories: Vec<String> = v["categories"]
                .as_array()
                .or_else(|| v["metadata"]["categories"].as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|c| c.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            Candidate {
                item,
                id,
                text: str_of(v, &["memory", "text"]).unwrap_or_default(),
                type_raw: str_of(&v["metadata"], &["type", "memory_type"])
                    .or_else(|| str_of(v, &["type"])),
                inferred: infer(&categories),
                topic: categories.first().cloned(),
                created: date_of(v, &["created_at", "createdAt", "created"]),
                lines: Vec::new(),
            }
        }
        ImportFormat::ClaudeMem => {
            let facts: Vec<String> = match &v["facts"] {
                Value::Array(a) => a
                    .iter()
                    .filter_map(|f| f.as_str().map(str::to_owned))
                    .collect(),
                Value::String(s) => {
                    serde_json::from_str::<Vec<String>>(s).unwrap_or_else(|_| vec![s.clone()])
                }
                _ => Vec::new(),
            };
            let mut lines = Vec::new();
            if let Some(s) = str_of(v, &["subtitle"]) {
                lines.push(s);
            }
            if let Some(n) = str_of(v, &["narrative"]) {
                lines.push(n);
            }
            let facts: Vec<String> = facts.into_iter().filter(|f| !f.trim().is_empty()).collect();
            if !facts.is_empty() {
                lines.push(format!("Facts: {}", facts.join("; ")));
            }
            let title = str_of(v, &["title", "text"]);
            let text = title
                .clone()
                .unwrap_or_else(|| lines.first().cloned().unwrap_or_default());
            if title.is_none() && !lines.is_empty() {
                lines.remove(0);
            }
            Candidate {
                item,
                id,
                text,
                type_raw: None,
                // Observations of work on a project: decisions, bug fixes, discoveries.
                inferred: Some(MemoryType::Project),
                topic: str_of(v, &["project"]),
                created: date_of(v, &["created_at", "created_at_epoch", "created"]),
                lines,
            }
        }
        _ => Candidate {
            item,
            id,
            text: str_of(v, &["text", "content", "memory"]).unwrap_or_default(),
            type_raw: str_of(v, &["type"]),
            inferred: None,
            topic: str_of(v, &["topic", "category"]),
            created: date_of(v, &["created", "created_at", "date"]),
            lines: Vec::new(),
        },
    }
}

/// One markdown note of a folder import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// Its path relative to the imported folder (`/`-separated).
    pub rel: String,
    /// Its bytes (at most 1 MiB + 1: a bigger note is refused when planned).
    pub bytes: Vec<u8>,
    /// It is a hard link (more than one name): not read, refused when planned.
    pub hard_link: bool,
}

/// Largest note imported.
pub const MAX_NOTE: u64 = 1 << 20;

/// Every `.md` note under `root` (hidden folders such as `.obsidian` left out; 8 levels
/// deep), sorted by path.
pub fn notes(root: &Path) -> Result<Vec<Note>> {
    super::files_under(root, ".md")?
        .into_iter()
        .map(|(rel, path)| {
            let mut bytes = Vec::new();
            let file = File::open(&path)
                .map_err(|err| Error::io(format!("reading {}", path.display()), &err))?;
            let names = file.metadata().map_or(1, |m| crate::fsutil::link_count(&m));
            if names > 1 {
                // Not read: its bytes may be any file of the same disk.
                return Ok(Note {
                    rel,
                    bytes,
                    hard_link: true,
                });
            }
            file.take(MAX_NOTE + 1)
                .read_to_end(&mut bytes)
                .map_err(|err| Error::io(format!("reading {}", path.display()), &err))?;
            Ok(Note {
                rel,
                bytes,
                hard_link: false,
            })
        })
        .collect()
}
