//! The memory agent's tools: `read_file`, `write_file`, `edit` (exact-string
//! replace), `list_directory`, `grep_search`, `glob` — each confined to the workspace's memory
//! root (symlinks resolved before the check). Writes go through the vault (atomic, journaled,
//! announced) after the secret scan and frontmatter validation. Failures are answers to
//! the model, never panics.
//!
//! Guards on every write: a pinned memory is never changed or deleted; a file that changed
//! on disk since this run read it (or since the run's snapshot) is not overwritten — the agent
//! must read it again; nothing under `chats/` (the conversation records) is written at all. A
//! dream run also gets `delete_file` (refused unless every entry of the file survives in another
//! valid file) and `grep_transcripts` (read-only): see [`dream`].

mod checks;
mod dream;

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use mnemo_core::{Error, ErrorCode};
use mnemo_store::format::TopicFile;
use mnemo_store::journal::Origin;
use mnemo_store::rootdir::{Folder, RootDir};
use mnemo_store::{Vault, Workspace, doc, fsutil};
use serde_json::{Value, json};

use crate::secrets;

/// Most characters a tool answer carries back to the model.
const MAX_OUTPUT: usize = 20_000;
/// Most lines `grep_search` and `glob` list.
const MAX_MATCHES: usize = 100;

/// Name, description and JSON-Schema parameters of every tool, for the model.
#[must_use]
pub fn specs() -> Vec<(&'static str, &'static str, Value)> {
    let path = json!({"type": "string", "description": "Path relative to the memory folder"});
    vec![
        (
            "read_file",
            "Read a file in the memory folder.",
            json!({"type": "object", "properties": {"path": path}, "required": ["path"]}),
        ),
        (
            "write_file",
            "Create or replace a memory file. Topic files need frontmatter with name, description and type (user, feedback, project, reference).",
            json!({"type": "object", "properties": {"path": path, "content": {"type": "string"}}, "required": ["path", "content"]}),
        ),
        (
            "edit",
            "Replace one exact occurrence of old_string with new_string in a file.",
            json!({"type": "object", "properties": {"path": path, "old_string": {"type": "string"}, "new_string": {"type": "string"}}, "required": ["path", "old_string", "new_string"]}),
        ),
        (
            "list_directory",
            "List a folder of the memory folder (\".\" for its root).",
            json!({"type": "object", "properties": {"path": path}, "required": ["path"]}),
        ),
        (
            "grep_search",
            "Search memory files for a regular expression (case-insensitive); answers path:line: text.",
            json!({"type": "object", "properties": {"pattern": {"type": "string"}, "path": path}, "required": ["pattern"]}),
        ),
        (
            "glob",
            "List memory files whose path matches a glob such as **/*.md.",
            json!({"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}),
        ),
    ]
}

/// The six tools as the model client offers them.
#[must_use]
pub fn definitions() -> Vec<mnemo_llm::Tool> {
    specs()
        .into_iter()
        .map(|(name, description, parameters)| mnemo_llm::Tool {
            name: name.to_owned(),
            description: description.to_owned(),
            parameters,
        })
        .collect()
}

/// The answer of one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// Whether the call did what it was asked.
    pub ok: bool,
    /// Text for the model.
    pub text: String,
}

impl ToolOutput {
    fn ok(text: impl Into<String>) -> Self {
        // What the model reads passes the secret gate: a file another program wrote may hold one.
        let mut text: String = secrets::redact(&text.into()).0;
        if text.chars().count() > MAX_OUTPUT {
            text = text.chars().take(MAX_OUTPUT).collect::<String>() + "\n[output cut]";
        }
        Self { ok: true, text }
    }
    fn err(e: &Error) -> Self {
        Self {
            ok: false,
            text: format!("error[{}]: {}", e.code, e.message),
        }
    }
}

/// Runs tool calls for one agent run in one workspace.
pub struct MemoryTools<'a> {
    vault: &'a Vault,
    ws: Workspace,
    origin: Origin,
    /// Each file's hash as this run last saw it (`None`: absent); a write to a file whose disk
    /// content differs is refused.
    known: HashMap<String, Option<String>>,
    /// Dream runs: `delete_file` and `grep_transcripts` over these transcript folders.
    dream: Option<Vec<PathBuf>>,
    /// Paths deleted by `delete_file`.
    pub deleted: BTreeSet<String>,
    /// The entries of deleted files (with the file): no later write may remove their last copy.
    owed: Vec<(String, mnemo_store::format::Entry)>,
    /// Paths written or edited (relative to the memory root).
    pub touched: BTreeSet<String>,
    /// Set when the agent tried a path outside the memory root.
    pub escaped: bool,
    /// Content of each touched file before this run first changed it (`None`: it did not exist).
    pub originals: std::collections::BTreeMap<String, Option<String>>,
    /// The memory root, held open from the run's first read: every read, listing and search
    /// resolves beneath it (a folder swapped meanwhile is never read through).
    root: std::sync::OnceLock<RootDir>,
}

fn arg<'v>(args: &'v Value, name: &str) -> Result<&'v str, Error> {
    args[name].as_str().ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidArguments,
            format!("missing string argument `{name}`"),
        )
    })
}

impl<'a> MemoryTools<'a> {
    /// Tools over `ws`, writing as `origin` (a source, or a source within a change group).
    #[must_use]
    pub fn new(vault: &'a Vault, ws: Workspace, origin: impl Into<Origin>) -> Self {
        Self {
            vault,
            ws,
            origin: origin.into(),
            known: HashMap::new(),
            dream: None,
            deleted: BTreeSet::new(),
            owed: Vec::new(),
            touched: BTreeSet::new(),
            escaped: false,
            originals: std::collections::BTreeMap::new(),
            root: std::sync::OnceLock::new(),
        }
    }

    /// The memory root, held (`None` while it does not exist yet).
    fn root(&self) -> Result<Option<&RootDir>, Error> {
        if let Some(r) = self.root.get() {
            return Ok(Some(r));
        }
        match RootDir::open(&self.ws.memory_root) {
            Ok(r) => Ok(Some(self.root.get_or_init(|| r))),
            Err(e) if e.code == ErrorCode::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// A dream run's tools: also `delete_file` and a read-only `grep_transcripts` over
    /// `transcripts`; `snapshot` (path → hash) is what the run started from, so a file an
    /// outside editor changes meanwhile is never overwritten.
    #[must_use]
    pub fn for_dream(
        mut self,
        transcripts: Vec<PathBuf>,
        snapshot: HashMap<String, String>,
    ) -> Self {
        self.dream = Some(transcripts);
        self.known = snapshot.into_iter().map(|(k, v)| (k, Some(v))).collect();
        self
    }

    /// The tools this run offers, as the model client sends them.
    #[must_use]
    pub fn definitions(&self) -> Vec<mnemo_llm::Tool> {
        let mut defs = definitions();
        if self.dream.is_some() {
            defs.extend(dream::definitions());
        }
        defs
    }

    /// Run one call given the model's JSON arguments.
    pub fn run(&mut self, name: &str, arguments: &str) -> ToolOutput {
        let args: Value = match serde_json::from_str(if arguments.trim().is_empty() {
            "{}"
        } else {
            arguments
        }) {
            Ok(v) => v,
            Err(e) => {
                return ToolOutput::err(&Error::new(
                    ErrorCode::InvalidArguments,
                    format!("arguments are not JSON: {e}"),
                ));
            }
        };
        let result = match name {
            "read_file" => arg(&args, "path").and_then(|p| self.read(p)),
            "write_file" => arg(&args, "path")
                .and_then(|p| arg(&args, "content").and_then(|c| self.write(p, c))),
            "edit" => arg(&args, "path").and_then(|p| {
                arg(&args, "old_string")
                    .and_then(|o| arg(&args, "new_string").and_then(|n| self.edit(p, o, n)))
            }),
            "list_directory" => self.list(args["path"].as_str().unwrap_or(".")),
            "grep_search" => {
                arg(&args, "pattern").and_then(|pat| self.grep(pat, args["path"].as_str()))
            }
            "glob" => arg(&args, "pattern").and_then(|p| self.glob(p)),
            "delete_file" if self.dream.is_some() => {
                arg(&args, "path").and_then(|p| self.delete(p))
            }
            "grep_transcripts" if self.dream.is_some() => {
                arg(&args, "pattern").and_then(|p| self.grep_transcripts(p))
            }
            other => Err(Error::new(
                ErrorCode::UnknownCommand,
                format!(
                    "no tool `{other}`: use {}",
                    self.definitions()
                        .iter()
                        .map(|t| t.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        };
        match result {
            Ok(out) => out,
            Err(e) => {
                if e.code == ErrorCode::PathEscape {
                    self.escaped = true;
                }
                ToolOutput::err(&e)
            }
        }
    }

    pub(super) fn confine(&self, path: &str) -> Result<(std::path::PathBuf, String), Error> {
        // Checked here by form; beneath the held root the kernel refuses links out of it.
        fsutil::normalise(path).map(|rel| (self.ws.memory_root.join(&rel), rel))
    }

    /// A file as this run sees it: its own staged writes (review mode), else the disk.
    pub(super) fn read_rel(&self, rel: &str) -> Result<fsutil::ReadOutcome, Error> {
        match self.vault.staged(self.origin, rel) {
            Some(Some(b)) => Ok(fsutil::ReadOutcome::Bytes(b)),
            Some(None) => Ok(fsutil::ReadOutcome::Missing),
            None => match self.root()? {
                Some(root) => root.read_capped(rel),
                None => Ok(fsutil::ReadOutcome::Missing),
            },
        }
    }

    fn read(&mut self, path: &str) -> Result<ToolOutput, Error> {
        let (_, rel) = self.confine(path)?;
        match self.read_rel(&rel)? {
            fsutil::ReadOutcome::Bytes(b) => {
                self.known.insert(rel, Some(fsutil::hash(&b)));
                Ok(ToolOutput::ok(String::from_utf8_lossy(&b).into_owned()))
            }
            fsutil::ReadOutcome::Missing => {
                Err(Error::not_found(format!("`{rel}` does not exist")))
            }
            fsutil::ReadOutcome::TooLarge(n) => Err(Error::new(
                ErrorCode::TooLarge,
                format!("`{rel}` is {n} bytes; too large to read"),
            )),
        }
    }

    fn write(&mut self, path: &str, content: &str) -> Result<ToolOutput, Error> {
        let (_, rel) = self.confine_write(path)?;
        Self::check_content(&rel, content)?;
        let mut before = None;
        let out = self
            .vault
            .mutate(&self.ws, &rel, self.origin, None, |cur, rel| {
                self.guard(rel, cur)?;
                self.check_owed(rel, content)?;
                self.check_forgotten(rel, content, cur)?;
                before = Some(cur.map(|b| String::from_utf8_lossy(b).into_owned()));
                Ok(Some(self.retiring(rel, cur, content).into_bytes()))
            })?;
        if let Some(b) = before {
            self.originals.entry(out.path.clone()).or_insert(b);
        }
        self.known.insert(out.path.clone(), out.hash.clone());
        self.touched.insert(out.path.clone());
        Ok(ToolOutput::ok(format!(
            "wrote {} ({} bytes)",
            out.path,
            content.len()
        )))
    }

    /// Write `path` with the text `make` builds from what is there now (`None`: absent),
    /// through every check of `write_file`: how the planner writes (Mnemo builds the file, the
    /// tools guard it). A file that changes on disk between the read and the write is refused.
    pub fn write_from(
        &mut self,
        path: &str,
        make: impl FnOnce(Option<&str>) -> Result<String, Error>,
    ) -> ToolOutput {
        match self.write_from_inner(path, make) {
            Ok(out) => out,
            Err(e) => {
                if e.code == ErrorCode::PathEscape {
                    self.escaped = true;
                }
                ToolOutput::err(&e)
            }
        }
    }

    fn write_from_inner(
        &mut self,
        path: &str,
        make: impl FnOnce(Option<&str>) -> Result<String, Error>,
    ) -> Result<ToolOutput, Error> {
        let (_, rel) = self.confine(path)?;
        let current = match self.read_rel(&rel)? {
            fsutil::ReadOutcome::Bytes(b) => Some(b),
            fsutil::ReadOutcome::Missing => None,
            fsutil::ReadOutcome::TooLarge(n) => {
                return Err(Error::new(
                    ErrorCode::TooLarge,
                    format!("`{rel}` is {n} bytes; too large to add to"),
                ));
            }
        };
        let text = match &current {
            Some(b) => Some(String::from_utf8(b.clone()).map_err(|_| {
                Error::new(
                    ErrorCode::InvalidContent,
                    format!("`{rel}` is not UTF-8 text: it is left alone"),
                )
            })?),
            None => None,
        };
        self.known
            .insert(rel.clone(), current.as_deref().map(fsutil::hash));
        let content = make(text.as_deref())?;
        self.write(&rel, &content)
    }

    fn edit(&mut self, path: &str, old: &str, new: &str) -> Result<ToolOutput, Error> {
        let (_, rel) = self.confine_write(path)?;
        if old.is_empty() {
            return Err(Error::new(
                ErrorCode::InvalidArguments,
                "old_string must not be empty",
            ));
        }
        let mut before = None;
        let out = self
            .vault
            .mutate(&self.ws, &rel, self.origin, None, |current, rel| {
                let bytes =
                    current.ok_or_else(|| Error::not_found(format!("`{rel}` does not exist")))?;
                self.guard(rel, current)?;
                // Never rewrite bytes that are not UTF-8 (they would be lost).
                let text = String::from_utf8(bytes.to_vec()).map_err(|_| {
                    Error::new(
                        ErrorCode::InvalidContent,
                        format!("`{rel}` is not UTF-8 text; it cannot be edited"),
                    )
                })?;
                // A replaced (superseded) fact is history: jobs leave it as it is.
                if doc::doc_kind(rel) == Some(doc::DocKind::Topic) {
                    let file = TopicFile::parse(&text);
                    let live = mnemo_store::supersede::strip(file.body());
                    if text.contains(old) && !live.contains(old) && file.body().contains(old) {
                        return Err(Error::new(
                            ErrorCode::Conflict,
                            format!(
                                "old_string is in a replaced (superseded) fact of `{rel}`, which memory jobs leave as it is: edit a current fact"
                            ),
                        ));
                    }
                }
                match text.matches(old).count() {
                    1 => {}
                    0 => {
                        return Err(Error::not_found(format!(
                            "old_string does not occur in `{rel}`; read the file first"
                        )));
                    }
                    n => {
                        return Err(Error::new(
                            ErrorCode::Conflict,
                            format!("old_string occurs {n} times in `{rel}`; include more context"),
                        ));
                    }
                }
                let updated = text.replacen(old, new, 1);
                Self::check_content(rel, &updated)?;
                self.check_owed(rel, &updated)?;
                self.check_forgotten(rel, &updated, current)?;
                let updated = self.retiring(rel, current, &updated);
                before = Some(Some(text));
                Ok(Some(updated.into_bytes()))
            })?;
        if let Some(b) = before {
            self.originals.entry(out.path.clone()).or_insert(b);
        }
        self.known.insert(out.path.clone(), out.hash.clone());
        self.touched.insert(out.path.clone());
        Ok(ToolOutput::ok(format!("edited {}", out.path)))
    }

    /// A folder argument, relative to the root (`""`: the root).
    fn dir(&self, path: &str) -> Result<String, Error> {
        let p = path.trim();
        if p.is_empty() || p == "." || p == "./" || p == "/" {
            return Ok(String::new());
        }
        Ok(self.confine(p)?.1)
    }

    /// The folder `rel` beneath the held root (`None`: not there).
    fn folder(&self, rel: &str) -> Result<Option<Folder>, Error> {
        match self.root()? {
            Some(root) => root.subdir(rel),
            None => Ok(None),
        }
    }

    fn list(&self, path: &str) -> Result<ToolOutput, Error> {
        let prefix = self.dir(path)?;
        let listing = match self.folder(&prefix)? {
            Some(f) => f.read_dir(),
            None => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
        };
        let mut names: Vec<String> = listing
            .map_err(|e| Error::io(format!("listing {path}"), &e))?
            .flatten()
            .filter_map(|e| {
                let n = e.file_name().into_string().ok()?;
                if n.starts_with('.') {
                    return None;
                }
                Some(if e.file_type().ok()?.is_dir() {
                    format!("{n}/")
                } else {
                    n
                })
            })
            .collect();
        // This run's staged files (review mode) in that folder.
        for (p, now) in self.vault.staged_files(self.origin) {
            let rest = if prefix.is_empty() {
                Some(p.as_str())
            } else {
                p.strip_prefix(&format!("{prefix}/"))
            };
            let Some(rest) = rest else { continue };
            let name = match rest.split_once('/') {
                Some((d, _)) => format!("{d}/"),
                None => rest.to_owned(),
            };
            if now.is_some() && !names.contains(&name) {
                names.push(name);
            } else if now.is_none() && !rest.contains('/') {
                names.retain(|n| n != &name);
            }
        }
        names.sort();
        Ok(ToolOutput::ok(if names.is_empty() {
            "(empty)".to_owned()
        } else {
            names.join("\n")
        }))
    }

    /// Every file under the folder `dir` (relative to the root), listed beneath the held root.
    fn files_under(&self, dir: &str) -> Vec<String> {
        let mut out = Vec::new();
        let start = self.folder(dir).ok().flatten();
        let mut stack: Vec<(Folder, String)> =
            start.into_iter().map(|f| (f, dir.to_owned())).collect();
        while let Some((d, prefix)) = stack.pop() {
            for e in d.read_dir().into_iter().flatten().flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') {
                    continue;
                }
                let rel = if prefix.is_empty() {
                    name.clone()
                } else {
                    format!("{prefix}/{name}")
                };
                let Ok(ft) = e.file_type() else { continue };
                if ft.is_dir() {
                    if let Ok(Some(sub)) = d.subfolder(&name) {
                        stack.push((sub, rel));
                    }
                } else if ft.is_file() {
                    out.push(rel);
                }
            }
        }
        // This run's staged files (review mode) under that folder.
        for (rel, now) in self.vault.staged_files(self.origin) {
            out.retain(|r| r != &rel);
            let under = dir.is_empty() || rel.starts_with(&format!("{dir}/"));
            if now.is_some() && under {
                out.push(rel);
            }
        }
        out.sort();
        out
    }

    fn grep(&self, pattern: &str, path: Option<&str>) -> Result<ToolOutput, Error> {
        let re = regex::RegexBuilder::new(pattern)
            .case_insensitive(true)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| Error::new(ErrorCode::InvalidArguments, format!("bad pattern: {e}")))?;
        let dir = self.dir(path.unwrap_or("."))?;
        let mut lines = Vec::new();
        'files: for rel in self.files_under(&dir) {
            let Ok(fsutil::ReadOutcome::Bytes(b)) = self.read_rel(&rel) else {
                continue;
            };
            let text = String::from_utf8_lossy(&b);
            for (i, l) in text.lines().enumerate() {
                if re.is_match(l) {
                    lines.push(format!(
                        "{rel}:{}: {}",
                        i + 1,
                        l.chars().take(300).collect::<String>()
                    ));
                    if lines.len() >= MAX_MATCHES {
                        break 'files;
                    }
                }
            }
        }
        Ok(ToolOutput::ok(if lines.is_empty() {
            "(no matches)".to_owned()
        } else {
            lines.join("\n")
        }))
    }

    fn glob(&self, pattern: &str) -> Result<ToolOutput, Error> {
        let pat = glob::Pattern::new(pattern)
            .map_err(|e| Error::new(ErrorCode::InvalidArguments, format!("bad glob: {e}")))?;
        let opts = glob::MatchOptions {
            require_literal_separator: false,
            ..glob::MatchOptions::new()
        };
        let hits: Vec<String> = self
            .files_under("")
            .into_iter()
            .filter(|rel| pat.matches_with(rel, opts))
            .take(MAX_MATCHES)
            .collect();
        Ok(ToolOutput::ok(if hits.is_empty() {
            "(no files)".to_owned()
        } else {
            hits.join("\n")
        }))
    }
}
