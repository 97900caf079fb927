//! Topic-file format: YAML frontmatter (`name`, `description`, `type`) and a body of
//! blank-line separated entries.
//!
//! Invariant: [`TopicFile::parse`] never fails and never loses bytes — `parse(x).render() == x`
//! for every UTF-8 input, valid or not. Problems are reported in [`TopicFile::problem`] so invalid
//! files are listed and flagged, never dropped. Edits touch only the frontmatter lines they change.

use mnemo_core::{Error, ErrorCode, Field, MemoryType, Result};

const BOM: &str = "\u{feff}";

/// Why a file is not a well-formed memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// `invalid_frontmatter`, `invalid_type`, `invalid_content` or `too_large`.
    pub code: ErrorCode,
    /// What is wrong and how to fix it.
    pub message: String,
    /// The frontmatter field at fault, when one is.
    pub field: Option<Field>,
}

impl Problem {
    fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            field: None,
        }
    }

    /// Turn the problem into an error (for writes, which refuse invalid files).
    #[must_use]
    pub fn into_error(self) -> Error {
        Error::new(self.code, self.message).on(self.field)
    }
}

/// Check that raw bytes are text Mnemo can handle: non-binary UTF-8.
pub fn decode(bytes: &[u8]) -> std::result::Result<&str, Problem> {
    if bytes.contains(&0) {
        return Err(Problem::new(
            ErrorCode::InvalidContent,
            "binary file (contains NUL bytes): memories are markdown text",
        ));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        Problem::new(
            ErrorCode::InvalidContent,
            format!(
                "not valid UTF-8 (first bad byte at offset {}): re-save the file as UTF-8",
                e.valid_up_to()
            ),
        )
    })
}

/// The parsed frontmatter fields Mnemo understands. Unknown keys stay in the raw text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields {
    /// Short title.
    pub name: Option<String>,
    /// One line used to judge relevance.
    pub description: Option<String>,
    /// The raw `type` value (may be outside the closed set: then the file is flagged).
    pub type_raw: Option<String>,
    /// `pinned: true`: extraction and dream never change or delete the memory.
    pub pinned: bool,
    /// `archived: true`: out of recall and MEMORY.md, still searchable; a person
    /// restores it by removing the flag.
    pub archived: bool,
    /// `title`: how notes other tools write (basic-memory, Obsidian) name themselves.
    pub title: Option<String>,
    /// A note another tool wrote (a `title` and no `name`), read as that tool writes it:
    /// `name` is its title, `description` its own or else its first sentence of prose, `type`
    /// its own when it is one of Mnemo's, else `reference`. Nothing in the file changes.
    pub foreign: bool,
}

/// A topic file split into its parts, losslessly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicFile {
    bom: bool,
    /// From the opening `---` line through the closing `---` line, with its line ending.
    frontmatter: Option<String>,
    body: String,
    /// Line ending used by the file (`\n` or `\r\n`).
    eol: &'static str,
    /// Its frontmatter's YAML was read (as a mapping), valid as a memory or not: a field can
    /// then be set by touching its line alone.
    readable: bool,
    /// Parsed fields (empty when the frontmatter is missing or unreadable).
    pub fields: Fields,
    /// Why the file is not a valid memory, if it is not.
    pub problem: Option<Problem>,
}

impl TopicFile {
    /// Split text into BOM, frontmatter and body, and validate the frontmatter.
    #[must_use]
    pub fn parse(text: &str) -> Self {
        let (bom, rest) = match text.strip_prefix(BOM) {
            Some(r) => (true, r),
            None => (false, text),
        };
        let eol = if rest.contains("\r\n") { "\r\n" } else { "\n" };
        let mut file = Self {
            bom,
            frontmatter: None,
            body: rest.to_owned(),
            eol,
            readable: false,
            fields: Fields::default(),
            problem: None,
        };
        if rest.trim().is_empty() {
            file.problem = Some(Problem::new(
                ErrorCode::InvalidFrontmatter,
                "empty file: a memory needs frontmatter with name, description and type",
            ));
            return file;
        }
        let Some((fm_len, yaml)) = split_frontmatter(rest) else {
            file.problem = Some(Problem::new(
                ErrorCode::InvalidFrontmatter,
                if first_line(rest) == "---" {
                    "frontmatter is not closed: add a `---` line after the fields"
                } else {
                    "missing frontmatter: start the file with `---`, name, description, type, `---`"
                },
            ));
            return file;
        };
        file.frontmatter = Some(rest[..fm_len].to_owned());
        file.body = rest[fm_len..].to_owned();
        match parse_fields(yaml) {
            Ok(mut fields) => {
                read_as_foreign_note(&mut fields, &file.body);
                file.problem = validate(&fields);
                file.fields = fields;
                file.readable = true;
            }
            Err(p) => file.problem = Some(p),
        }
        file
    }

    /// Start a new, well-formed topic file.
    pub fn new(name: &str, description: &str, memory_type: MemoryType, body: &str) -> Result<Self> {
        let mut text = String::from("---\n");
        for (k, v) in [("name", name), ("description", description)] {
            text.push_str(&format!("{k}: {}\n", yaml_scalar(k, v)?));
        }
        text.push_str(&format!("type: {memory_type}\n---\n"));
        let mut file = Self::parse(&text);
        file.set_body(body);
        file.check()?;
        Ok(file)
    }

    /// The exact text this file was parsed from (or its edited form).
    #[must_use]
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(
            self.body.len() + self.frontmatter.as_ref().map_or(0, String::len) + 3,
        );
        if self.bom {
            out.push_str(BOM);
        }
        if let Some(fm) = &self.frontmatter {
            out.push_str(fm);
        }
        out.push_str(&self.body);
        out
    }

    /// The body (everything after the frontmatter).
    #[must_use]
    pub fn body(&self) -> &str {
        &self.body
    }

    /// The memory type, if the file is valid.
    #[must_use]
    pub fn memory_type(&self) -> Option<MemoryType> {
        self.fields.type_raw.as_deref().and_then(|t| t.parse().ok())
    }

    /// Error out if the file is not a valid memory.
    pub fn check(&self) -> Result<()> {
        match &self.problem {
            Some(p) => Err(p.clone().into_error()),
            None => Ok(()),
        }
    }

    /// Replace the body, keeping the file's line-ending style and ending with a newline.
    pub fn set_body(&mut self, body: &str) {
        let mut b = body.replace("\r\n", "\n");
        if !b.ends_with('\n') {
            b.push('\n');
        }
        if self.eol == "\r\n" {
            b = b.replace('\n', "\r\n");
        }
        self.body = b;
    }

    /// Set one frontmatter field, touching only its line (other keys, comments and order stay).
    /// A file whose frontmatter is missing or unreadable gets a fresh one built from what is known.
    pub fn set_field(&mut self, key: &str, value: &str) -> Result<()> {
        let rendered = format!("{key}: {}", yaml_scalar(key, value)?);
        let fm = match &self.frontmatter {
            Some(fm) if self.readable => replace_key_line(fm, key, &rendered, self.eol),
            _ => {
                // Rebuild: keep the known fields, drop the unreadable block, keep the body.
                let mut fields = self.fields.clone();
                match key {
                    "name" => fields.name = Some(value.to_owned()),
                    "description" => fields.description = Some(value.to_owned()),
                    _ => fields.type_raw = Some(value.to_owned()),
                }
                let eol = self.eol;
                let mut fm = format!("---{eol}");
                for (k, v) in [
                    ("name", &fields.name),
                    ("description", &fields.description),
                    ("type", &fields.type_raw),
                ] {
                    if let Some(v) = v {
                        fm.push_str(&format!("{k}: {}{eol}", yaml_scalar(k, v)?));
                    }
                }
                fm.push_str(&format!("---{eol}"));
                fm
            }
        };
        let text = format!("{}{fm}{}", if self.bom { BOM } else { "" }, self.body);
        *self = Self::parse(&text);
        Ok(())
    }

    /// Set several frontmatter fields at once, as [`TopicFile::set_field`] one after another
    /// would, with the frontmatter read once and the file once more at the end (an import
    /// names, describes and types 10,000 notes: each `set_field` reads the YAML twice).
    pub fn set_fields(&mut self, pairs: &[(&str, &str)]) -> Result<()> {
        let fm = match &self.frontmatter {
            Some(fm) if self.readable => fm.clone(),
            // Unreadable or missing: the first field rebuilds it, the rest follow on the
            // readable block that leaves.
            _ => match pairs.split_first() {
                Some(((k, v), rest)) => {
                    self.set_field(k, v)?;
                    return if rest.is_empty() {
                        Ok(())
                    } else {
                        self.set_fields(rest)
                    };
                }
                None => return Ok(()),
            },
        };
        let mut fm = fm;
        for (key, value) in pairs {
            let rendered = format!("{key}: {}", yaml_scalar(key, value)?);
            fm = replace_key_line(&fm, key, &rendered, self.eol);
        }
        let text = format!("{}{fm}{}", if self.bom { BOM } else { "" }, self.body);
        *self = Self::parse(&text);
        Ok(())
    }

    /// Pin or unpin: `pinned: true` is added, or the `pinned:` line removed; nothing else in
    /// the frontmatter changes. A file without valid frontmatter cannot be pinned.
    pub fn set_pinned(&mut self, pinned: bool) -> Result<()> {
        self.set_flag("pinned", pinned)
    }

    /// Archive or restore: `archived: true` is added, or the `archived:` line removed.
    pub fn set_archived(&mut self, archived: bool) -> Result<()> {
        self.set_flag("archived", archived)
    }

    fn set_flag(&mut self, key: &str, on: bool) -> Result<()> {
        let fm = match &self.frontmatter {
            Some(fm) if self.readable => fm.clone(),
            _ => {
                return Err(Error::new(
                    ErrorCode::InvalidFrontmatter,
                    format!(
                        "only a memory with valid frontmatter can be {key}: fix its frontmatter first"
                    ),
                ));
            }
        };
        let fm = if on {
            replace_key_line(&fm, key, &format!("{key}: true"), self.eol)
        } else {
            remove_key_line(&fm, key)
        };
        let text = format!("{}{fm}{}", if self.bom { BOM } else { "" }, self.body);
        *self = Self::parse(&text);
        Ok(())
    }

    /// The entries of the body (blank-line separated blocks).
    #[must_use]
    pub fn entries(&self) -> Vec<Entry> {
        entries(&self.body)
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim_end()
}

/// Find the frontmatter block: returns its byte length (through the closing line's ending) and
/// the YAML between the delimiters.
fn split_frontmatter(text: &str) -> Option<(usize, &str)> {
    if first_line(text) != "---" {
        return None;
    }
    let open_end = text.find('\n')? + 1;
    let mut pos = open_end;
    while pos < text.len() {
        let line_end = text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1);
        let line = text[pos..line_end].trim_end();
        if line == "---" || line == "..." {
            return Some((line_end, &text[open_end..pos]));
        }
        pos = line_end;
    }
    None
}

fn parse_fields(yaml: &str) -> std::result::Result<Fields, Problem> {
    if yaml.trim().is_empty() {
        return Ok(Fields::default());
    }
    let value: serde_yaml_ng::Value = serde_yaml_ng::from_str(yaml).map_err(|e| {
        Problem::new(
            ErrorCode::InvalidFrontmatter,
            format!("frontmatter is not valid YAML: {e}"),
        )
    })?;
    let serde_yaml_ng::Value::Mapping(map) = value else {
        return Err(Problem::new(
            ErrorCode::InvalidFrontmatter,
            "frontmatter must be `key: value` lines",
        ));
    };
    let get = |k: &str| -> Option<String> {
        match map.get(k)? {
            serde_yaml_ng::Value::String(s) => Some(s.clone()),
            serde_yaml_ng::Value::Number(n) => Some(n.to_string()),
            serde_yaml_ng::Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    };
    Ok(Fields {
        name: get("name"),
        description: get("description"),
        type_raw: get("type"),
        pinned: matches!(map.get("pinned"), Some(serde_yaml_ng::Value::Bool(true)))
            || get("pinned").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")),
        archived: matches!(map.get("archived"), Some(serde_yaml_ng::Value::Bool(true)))
            || get("archived").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")),
        title: get("title"),
        foreign: false,
    })
}

/// A note another tool wrote — it has a `title` and no `name` — is read as that tool writes it
/// ([`Fields::foreign`]); the same reading a folder import writes into the files it copies
/// (`import::notes`).
fn read_as_foreign_note(f: &mut Fields, body: &str) {
    let blank = |v: &Option<String>| v.as_deref().is_none_or(|s| s.trim().is_empty());
    if !blank(&f.name) || blank(&f.title) {
        return;
    }
    let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let title = flat(f.title.as_deref().unwrap_or_default());
    f.foreign = true;
    f.description = f
        .description
        .as_deref()
        .and_then(crate::prose::meaningful)
        .map(flat)
        .or_else(|| crate::prose::first_sentence(body))
        .or_else(|| Some(title.clone()));
    if f.type_raw
        .as_deref()
        .is_none_or(|t| t.parse::<MemoryType>().is_err())
    {
        f.type_raw = Some(MemoryType::Reference.as_str().to_owned());
    }
    f.name = Some(title);
}

fn validate(f: &Fields) -> Option<Problem> {
    let missing: Vec<&str> = [
        ("name", &f.name),
        ("description", &f.description),
        ("type", &f.type_raw),
    ]
    .into_iter()
    .filter(|(_, v)| v.as_deref().is_none_or(|s| s.trim().is_empty()))
    .map(|(k, _)| k)
    .collect();
    if !missing.is_empty() {
        return Some(Problem {
            field: Field::of_key(missing[0]),
            ..Problem::new(
                ErrorCode::InvalidFrontmatter,
                format!("frontmatter lacks {}", missing.join(", ")),
            )
        });
    }
    let t = f.type_raw.as_deref().unwrap_or_default();
    t.parse::<MemoryType>().err().map(|e| Problem {
        field: e.field,
        ..Problem::new(e.code, e.message)
    })
}

/// Render a single-line YAML scalar safely (quoted when YAML would misread it).
fn yaml_scalar(key: &str, value: &str) -> Result<String> {
    let v = value.trim();
    if v.is_empty() {
        return Err(Error::new(
            ErrorCode::InvalidFrontmatter,
            format!("`{key}` must not be empty"),
        )
        .on(Field::of_key(key)));
    }
    if v.contains(['\n', '\r']) {
        return Err(Error::new(
            ErrorCode::InvalidFrontmatter,
            format!("`{key}` must be a single line"),
        )
        .on(Field::of_key(key)));
    }
    let s = serde_yaml_ng::to_string(&v).map_err(|e| {
        Error::new(
            ErrorCode::InvalidFrontmatter,
            format!("cannot encode `{key}`: {e}"),
        )
        .on(Field::of_key(key))
    })?;
    Ok(s.trim_end_matches('\n').to_owned())
}

/// Drop the `key:` line (and its indented continuation lines) from a frontmatter block.
fn remove_key_line(fm: &str, key: &str) -> String {
    let lines: Vec<&str> = fm.split_inclusive('\n').collect();
    let last = lines.len().saturating_sub(1);
    let mut out = String::with_capacity(fm.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let is_key = i > 0
            && i < last
            && line
                .strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with(':'));
        i += 1;
        if is_key {
            while i < last && lines[i].starts_with([' ', '\t']) {
                i += 1;
            }
            continue;
        }
        out.push_str(line);
    }
    out
}

/// Replace the `key:` line (and its indented continuation lines) in a frontmatter block, or add
/// it before the closing delimiter.
fn replace_key_line(fm: &str, key: &str, rendered: &str, eol: &str) -> String {
    let lines: Vec<&str> = fm.split_inclusive('\n').collect();
    let mut out = String::with_capacity(fm.len() + rendered.len());
    let mut i = 0;
    let mut done = false;
    let last = lines.len().saturating_sub(1);
    while i < lines.len() {
        let line = lines[i];
        let is_key = i > 0
            && i < last
            && line
                .strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with(':'));
        if is_key && !done {
            out.push_str(rendered);
            out.push_str(eol);
            done = true;
            i += 1;
            // Continuation lines of the old value: indented, or blank inside a block scalar.
            while i < last && (lines[i].starts_with([' ', '\t']) || lines[i].trim().is_empty()) {
                i += 1;
            }
            continue;
        }
        if i == last && !done {
            out.push_str(rendered);
            out.push_str(eol);
            done = true;
        }
        out.push_str(line);
        i += 1;
    }
    out
}

/// One entry of a topic body: a summary line with optional `Why:` and `How to apply:` lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// 1-based position in the body.
    pub index: usize,
    /// The first line.
    pub summary: String,
    /// The `Why:` line's text.
    pub why: Option<String>,
    /// The `How to apply:` line's text.
    pub how: Option<String>,
    /// The whole entry text.
    pub text: String,
}

/// Split a body into entries (blank-line separated blocks).
#[must_use]
pub fn entries(body: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut block: Vec<&str> = Vec::new();
    let flush = |block: &mut Vec<&str>, out: &mut Vec<Entry>| {
        if block.is_empty() {
            return;
        }
        let mut summary = String::new();
        let (mut why, mut how) = (None, None);
        for l in block.iter() {
            let t = l.trim();
            if let Some(w) = t.strip_prefix("Why:") {
                why = Some(w.trim().to_owned());
            } else if let Some(h) = t.strip_prefix("How to apply:") {
                how = Some(h.trim().to_owned());
            } else if summary.is_empty() {
                summary = t.trim_start_matches("- ").to_owned();
            }
        }
        out.push(Entry {
            index: out.len() + 1,
            summary,
            why,
            how,
            text: block.join("\n"),
        });
        block.clear();
    };
    for line in body.lines() {
        if line.trim().is_empty() {
            flush(&mut block, &mut out);
        } else {
            block.push(line.trim_end_matches('\r'));
        }
    }
    flush(&mut block, &mut out);
    out
}

/// The key a forgotten entry is remembered by: the hash of its case-folded summary.
#[must_use]
pub fn forgotten_key(summary: &str) -> String {
    crate::files::hash(summary_key(summary).as_bytes())
}

/// The key entries are compared by (de-duplication, forgetting): the summary, trimmed, without
/// a list dash, whitespace collapsed, case-folded.
#[must_use]
pub fn summary_key(summary: &str) -> String {
    summary
        .trim()
        .trim_start_matches("- ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Stable id of an entry: `relPath` for a single-entry file, `relPath:index` (1-based) otherwise.
#[must_use]
pub fn entry_id(rel: &str, index: usize, total: usize) -> String {
    if total <= 1 {
        rel.to_owned()
    } else {
        format!("{rel}:{index}")
    }
}

#[cfg(test)]
mod tests;
