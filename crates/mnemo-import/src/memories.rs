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
    /// A grouping (mem0 category, claude-mem project, a JSON `topic` / `category` / tag): facts
    /// of one topic share a file, named after it.
    pub topic: Option<String>,
    /// When it was made, as the source says.
    pub created: Option<String>,
    /// Further lines kept with the fact (claude-mem's narrative and facts).
    pub lines: Vec<String>,
    /// What the source says about the fact beyond its text (claude-mem's kind, project,
    /// concepts and files; categories or tags the file name does not already say), each a short
    /// `label: value` piece kept on the entry's `Source:` line, so nothing the source gave is
    /// lost.
    pub meta: Vec<String>,
    /// Told apart by its id and its whole text, not its id alone: claude-mem's ids are row
    /// numbers of one computer's database, so two exports (two machines, a reinstall) reuse
    /// them for different observations.
    pub id_per_source: bool,
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

/// A list the source gives as a JSON array of strings, a JSON array inside a string (claude-mem
/// keeps `facts`, `concepts` and files that way) or a comma-separated string; blanks dropped.
fn list_of(v: &Value, key: &str) -> Vec<String> {
    let items: Vec<String> = match v.get(key) {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|f| match f {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .collect(),
        Some(Value::String(s)) if s.trim_start().starts_with('[') => {
            serde_json::from_str::<Vec<String>>(s).unwrap_or_else(|_| vec![s.clone()])
        }
        Some(Value::String(s)) if key != "facts" && s.contains(',') => {
            s.split(',').map(str::to_owned).collect()
        }
        Some(Value::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    };
    items
        .into_iter()
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty())
        .collect()
}

/// `label: a, b` when the list says more than `topic` alone (the file name says that much).
fn listed(label: &str, items: &[String], topic: Option<&str>) -> Option<String> {
    let only_topic = matches!(items, [one] if Some(one.as_str()) == topic);
    (!items.is_empty() && !only_topic).then(|| format!("{label}: {}", items.join(", ")))
}

fn candidate(format: ImportFormat, v: &Value, item: String) -> Candidate {
    let id = str_of(v, &["id", "uuid", "memory_id"]);
    match format {
        ImportFormat::Mem0 => {
            let mut categories = list_of(v, "categories");
            if categories.is_empty() {
                categories = list_of(&v["metadata"], "categories");
            }
            // `misc` files nothing: such a fact is named by its words, its category kept.
            let topic = categories
                .iter()
                .find(|c| !super::naming::generic_topic(c))
                .cloned();
            Candidate {
                item,
                id,
                text: str_of(v, &["memory", "text"]).unwrap_or_default(),
                type_raw: str_of(&v["metadata"], &["type", "memory_type"])
                    .or_else(|| str_of(v, &["type"])),
                inferred: infer(&categories),
                meta: listed("categories", &categories, topic.as_deref())
                    .into_iter()
                    .collect(),
                topic,
                created: date_of(v, &["created_at", "createdAt", "created"]),
                lines: Vec::new(),
                id_per_source: false,
            }
        }
        ImportFormat::ClaudeMem => claude_mem(v, item, id),
        _ => {
            let tags = list_of(v, "tags");
            let topic = ["topic", "category"]
                .iter()
                .filter_map(|k| str_of(v, &[k]))
                .chain(tags.iter().cloned())
                .find(|t| !super::naming::generic_topic(t));
            Candidate {
                item,
                id,
                text: str_of(v, &["text", "content", "memory"]).unwrap_or_default(),
                type_raw: str_of(v, &["type"]),
                inferred: None,
                meta: listed("tags", &tags, topic.as_deref())
                    .into_iter()
                    .collect(),
                topic,
                created: date_of(v, &["created", "created_at", "date"]),
                lines: Vec::new(),
                id_per_source: false,
            }
        }
    }
}

/// A claude-mem observation: its title is the summary; subtitle, narrative (or the older
/// `text`) and facts the lines under it; its kind (`discovery`, `bugfix`…), project, concepts
/// and files kept as the entry's source details.
fn claude_mem(v: &Value, item: String, id: Option<String>) -> Candidate {
    let mut lines = Vec::new();
    for key in ["subtitle", "narrative", "text"] {
        if let Some(s) = str_of(v, &[key])
            && !lines.contains(&s)
        {
            lines.push(s);
        }
    }
    let facts = list_of(v, "facts");
    if !facts.is_empty() {
        lines.push(format!("Facts: {}", facts.join("; ")));
    }
    // Without a title, its `text` (an older observation's whole content), else its first line.
    let untitled = str_of(v, &["text"])
        .and_then(|t| lines.iter().position(|l| *l == t))
        .unwrap_or(0);
    let text = match str_of(v, &["title"]) {
        Some(title) => title,
        None if lines.is_empty() => String::new(),
        None => lines.remove(untitled),
    };
    let project = str_of(v, &["project"]);
    let concepts = list_of(v, "concepts");
    let mut meta = Vec::new();
    if let Some(kind) = str_of(v, &["type"]) {
        meta.push(kind);
    }
    if let Some(p) = &project {
        meta.push(format!("project: {p}"));
    }
    for (label, key) in [
        ("concepts", "concepts"),
        ("files read", "files_read"),
        ("files modified", "files_modified"),
    ] {
        let items = if key == "concepts" {
            concepts.clone()
        } else {
            list_of(v, key)
        };
        meta.extend(listed(label, &items, None));
    }
    Candidate {
        item,
        id,
        text,
        type_raw: None,
        // Observations of work on a project: decisions, bug fixes, discoveries.
        inferred: Some(MemoryType::Project),
        // Grouped by project; an observation of none by its first concept.
        topic: project.or_else(|| concepts.first().cloned()),
        created: date_of(v, &["created_at", "created_at_epoch", "created"]),
        lines,
        meta,
        id_per_source: true,
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
            let names = file
                .metadata()
                .map_or(1, |m| mnemo_text::files::link_count(&m));
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_are_read_in_every_shape_a_source_writes_them() {
        let v = json!({"a": ["x", " y ", ""], "b": "[\"x\", \"y\"]", "c": "x, y", "d": "x",
                       "facts": "one, two"});
        for key in ["a", "b", "c"] {
            assert_eq!(list_of(&v, key), vec!["x", "y"], "{key}");
        }
        assert_eq!(list_of(&v, "d"), vec!["x"]);
        assert_eq!(
            list_of(&v, "facts"),
            vec!["one, two"],
            "a fact may hold a comma"
        );
        assert!(list_of(&v, "missing").is_empty());
    }

    #[test]
    fn a_claude_mem_observation_keeps_its_kind_project_concepts_and_files() {
        let v = json!({"id": 7, "project": "tidepool", "type": "discovery",
                       "title": "Index rebuilds are quadratic", "subtitle": null,
                       "narrative": "Each file re-sorts the whole list.", "text": null,
                       "facts": "[]", "concepts": "[\"gotcha\"]",
                       "files_read": "[\"src/index.rs\"]", "files_modified": "[]"});
        let c = candidate(ImportFormat::ClaudeMem, &v, "item 1".into());
        assert_eq!(
            (c.text.as_str(), c.lines.clone(), c.topic.as_deref()),
            (
                "Index rebuilds are quadratic",
                vec!["Each file re-sorts the whole list.".to_owned()],
                Some("tidepool")
            )
        );
        assert_eq!(
            c.meta,
            vec![
                "discovery",
                "project: tidepool",
                "concepts: gotcha",
                "files read: src/index.rs"
            ]
        );
        assert!(c.id_per_source);
        // mem0 and JSON ids stay unique across their export.
        let m = candidate(
            ImportFormat::Mem0,
            &json!({"id": "a", "memory": "x"}),
            "item 1".into(),
        );
        assert!(!m.id_per_source && m.meta.is_empty());
    }
}
