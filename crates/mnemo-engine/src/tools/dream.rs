//! The two tools only a dream run gets: `delete_file` (a topic file, and only when every one of
//! its entries survives in another valid file — so a merge is written before its source is
//! removed, and a kill at any instant loses no fact) and `grep_transcripts` (narrow, read-only
//! searches of recent chat transcripts; they live outside the memory root and are never written,
//! and only regular files among them are read — see [`mnemo_store::transcripts`]).

use mnemo_core::{Error, ErrorCode};
use mnemo_store::format::TopicFile;
use mnemo_store::{doc, fsutil, transcripts};
use serde_json::json;

use super::{MemoryTools, ToolOutput};
use crate::dream::entries_elsewhere;

/// Transcripts searched at most (the most recently changed).
const MAX_TRANSCRIPTS: usize = 20;
/// Matching lines answered at most.
const MAX_TRANSCRIPT_MATCHES: usize = 50;
/// Bytes of one transcript searched at most.
const MAX_TRANSCRIPT_BYTES: u64 = 16 << 20;
/// Characters shown around a match.
const SNIPPET: usize = 240;

pub(super) fn definitions() -> Vec<mnemo_llm::Tool> {
    vec![
        mnemo_llm::Tool {
            name: "delete_file".to_owned(),
            description: "Delete a topic file whose entries all live on in other files (merge them there first). Refused otherwise.".to_owned(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string", "description": "Path relative to the memory folder"}}, "required": ["path"]}),
        },
        mnemo_llm::Tool {
            name: "grep_transcripts".to_owned(),
            description: "Search the most recent chat transcripts (read-only) for a regular expression, case-insensitive; answers file:line: snippet. Use narrow patterns.".to_owned(),
            parameters: json!({"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}),
        },
    ]
}

impl MemoryTools<'_> {
    /// In a run that deleted files: refuse to give `rel` the text `new` when that would remove
    /// the last copy of an entry of a deleted file (so a kill at any instant loses no fact).
    pub(super) fn check_owed(&self, rel: &str, new: &str) -> Result<(), Error> {
        if self.owed.is_empty() {
            return Ok(());
        }
        let mut pool = entries_elsewhere(self.vault, &self.ws, self.origin, rel);
        pool.add(new);
        match self.owed.iter().find(|(_, e)| !pool.holds(e)) {
            None => Ok(()),
            Some((from, e)) => Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "this would remove the last copy of \"{}\" (from {from}, deleted in this run): keep it in some file",
                    e.summary.chars().take(80).collect::<String>()
                ),
            )),
        }
    }

    pub(super) fn delete(&mut self, path: &str) -> Result<ToolOutput, Error> {
        let (_, rel) = self.confine_write(path)?;
        if doc::doc_kind(&rel) != Some(doc::DocKind::Topic) {
            return Err(Error::new(
                ErrorCode::InvalidArguments,
                format!(
                    "`{rel}` is not a topic file: only topic files can be deleted (daily logs and MEMORY.md stay)"
                ),
            ));
        }
        let bytes = match self.read_rel(&rel)? {
            fsutil::ReadOutcome::Bytes(b) => b,
            _ => return Err(Error::not_found(format!("`{rel}` does not exist"))),
        };
        let checked = fsutil::hash(&bytes);
        let elsewhere = entries_elsewhere(self.vault, &self.ws, self.origin, &rel);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let lost: Vec<String> = TopicFile::parse(&text)
            .entries()
            .into_iter()
            .filter(|e| !elsewhere.holds(e))
            .map(|e| e.summary)
            .collect();
        if !lost.is_empty() {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "`{rel}` holds {} entr{} found in no other file with its Why / How to apply (first: \"{}\"): write them into another file before deleting it",
                    lost.len(),
                    if lost.len() == 1 { "y" } else { "ies" },
                    lost[0].chars().take(80).collect::<String>()
                ),
            ));
        }
        let out = self
            .vault
            .mutate(&self.ws, &rel, self.origin, None, |cur, rel| {
                self.guard(rel, cur)?;
                if cur.map(fsutil::hash).as_deref() != Some(checked.as_str()) {
                    return Err(Error::new(
                        ErrorCode::Conflict,
                        format!("`{rel}` changed while it was being checked: read it again"),
                    ));
                }
                Ok(None)
            })?;
        self.owed.extend(
            TopicFile::parse(&text)
                .entries()
                .into_iter()
                .map(|e| (out.path.clone(), e)),
        );
        self.originals.entry(out.path.clone()).or_insert(Some(text));
        self.known.insert(out.path.clone(), None);
        self.touched.remove(&out.path);
        self.deleted.insert(out.path.clone());
        Ok(ToolOutput::ok(format!("deleted {}", out.path)))
    }

    pub(super) fn grep_transcripts(&self, pattern: &str) -> Result<ToolOutput, Error> {
        let re = regex::RegexBuilder::new(pattern)
            .case_insensitive(true)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| Error::new(ErrorCode::InvalidArguments, format!("bad pattern: {e}")))?;
        let mut files: Vec<transcripts::Listed> = self
            .dream
            .iter()
            .flatten()
            .flat_map(|d| transcripts::list(d))
            .collect();
        files.sort_by(|a, b| b.modified.cmp(&a.modified).then(b.path.cmp(&a.path)));
        let mut lines = Vec::new();
        'files: for listed in files.into_iter().take(MAX_TRANSCRIPTS) {
            let path = listed.path;
            let name = fsutil::printable(
                &path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            );
            // Another program's file: a regular file only, never through a link,
            // never waiting on a FIFO, at most 16 MiB — anything else is skipped and said.
            let b = match transcripts::read(&path, MAX_TRANSCRIPT_BYTES) {
                transcripts::Reading::Text { bytes, cut } => {
                    if cut {
                        lines.push(format!(
                            "({name} is larger than 16 MiB: only its start was searched)"
                        ));
                    }
                    bytes
                }
                transcripts::Reading::Skipped(why) => {
                    tracing::warn!(
                        transcript = %fsutil::printable(&path.display().to_string()),
                        "a dream skipped a transcript: {why}"
                    );
                    lines.push(format!("({name} was skipped: {why})"));
                    continue;
                }
            };
            let text = String::from_utf8_lossy(&b);
            for (i, l) in text.lines().enumerate() {
                if let Some(m) = re.find(l) {
                    let start = l[..m.start()]
                        .char_indices()
                        .rev()
                        .nth(SNIPPET / 2)
                        .map_or(0, |(i, _)| i);
                    let snippet: String = l[start..].chars().take(SNIPPET).collect();
                    lines.push(format!("{name}:{}: {snippet}", i + 1));
                    if lines.len() >= MAX_TRANSCRIPT_MATCHES {
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
}
