//! Turning a file on disk into what the index stores: kind (topic or daily log), validity,
//! fields, entries, hash. Never fails on bad content — bad files become flagged records.

use std::path::Path;
use std::time::UNIX_EPOCH;

use mnemo_core::{ErrorCode, MemoryType, Result};

use crate::format::{self, Entry, Problem, TopicFile};
use crate::fsutil::{self, ReadOutcome};
use crate::rootdir::RootDir;

pub use mnemo_text::kind::{
    DocKind, chat_record_day, doc_kind, in_pinned_folder, in_records_folder, is_daily_log,
    is_pinned,
};

/// Everything the index stores about one file.
#[derive(Debug, Clone)]
pub struct DocRecord {
    /// Topic or log.
    pub kind: DocKind,
    /// Valid topic files only.
    pub memory_type: Option<MemoryType>,
    /// Name (file stem when missing).
    pub name: String,
    /// Description (empty when missing).
    pub description: String,
    /// Body text (empty for unreadable files).
    pub body: String,
    /// Exact bytes when small enough and text.
    pub raw: Option<Vec<u8>>,
    /// Why it is not a valid memory.
    pub problem: Option<Problem>,
    /// Modification time (ms).
    pub mtime_ms: i64,
    /// Size in bytes.
    pub size: i64,
    /// Content hash.
    pub hash: String,
    /// Body entries.
    pub entries: Vec<Entry>,
    /// Extraction and dream never change or delete it ([`is_pinned`]).
    pub pinned: bool,
    /// `archived: true`: out of recall and MEMORY.md, still searchable.
    pub archived: bool,
    /// The 1-based line of the file where its body starts (after the frontmatter).
    pub body_line: u32,
    /// Its full-text tokens when already computed (a rebuild tokenises on every core);
    /// `None`: the index tokenises when it stores the record.
    pub fts: Option<crate::tokenize::FtsText>,
    /// The secrets the file holds (`github_token (line 3)`), when it holds any. Its name,
    /// description, body and entries are then redacted, and [`DocRecord::kept_raw`] withholds
    /// its bytes: what Mnemo stores about a file never holds a secret, whoever wrote it.
    pub secret: Option<String>,
}

impl DocRecord {
    /// The exact bytes the index may keep: none for a file holding a secret.
    #[must_use]
    pub fn kept_raw(&self) -> Option<&[u8]> {
        self.raw.as_deref().filter(|_| self.secret.is_none())
    }

    /// Compute [`DocRecord::fts`] now (`rel`: the path relative to the memory root).
    pub fn tokenize(&mut self, rel: &str) {
        self.fts = Some(crate::tokenize::FtsText::of(
            rel,
            &self.name,
            &self.description,
            &self.body,
        ));
    }
}

fn stem(rel: &str) -> String {
    let file = rel.rsplit('/').next().unwrap_or(rel);
    file.strip_suffix(".md").unwrap_or(file).to_owned()
}

/// Build the record of a file from its bytes.
#[must_use]
pub fn analyze_bytes(rel: &str, kind: DocKind, bytes: &[u8], mtime_ms: i64) -> DocRecord {
    let mut rec = blank(rel, kind, mtime_ms, bytes.len() as u64, fsutil::hash(bytes));
    // Kept even when not text, so an outside change to it can still be undone exactly.
    rec.raw = Some(bytes.to_vec());
    let text = match format::decode(bytes) {
        Ok(t) => t,
        Err(p) => {
            rec.problem = Some(p);
            return rec;
        }
    };
    rec.secret = crate::secrets::held(text);
    read_text(&mut rec, rel, text);
    if rec.secret.is_some() {
        redact_record(&mut rec);
    }
    rec
}

/// A file another program wrote may hold a secret: its record is kept, every text in it
/// redacted (the structure was read from the real file, so it stays a valid memory).
fn redact_record(rec: &mut DocRecord) {
    let r = |t: &str| crate::secrets::redact(t).0;
    rec.name = r(&rec.name);
    rec.description = r(&rec.description);
    rec.body = r(&rec.body);
    if let Some(p) = &mut rec.problem {
        p.message = r(&p.message);
    }
    for e in &mut rec.entries {
        e.summary = r(&e.summary);
        e.why = e.why.as_deref().map(r);
        e.how = e.how.as_deref().map(r);
        e.text = r(&e.text);
    }
}

/// Fill the fields of a record from its (decoded) text.
fn read_text(rec: &mut DocRecord, rel: &str, text: &str) {
    if rec.kind == DocKind::Chat {
        let day =
            chat_record_day(rel).map_or_else(String::new, |d| d.format("%-d %b %Y").to_string());
        rec.name = format!("From your chat on {day}");
        rec.description = format!("What you said in a chat on {day}");
        rec.body = text.trim_start_matches('\u{feff}').to_owned();
        rec.entries = format::entries(&rec.body);
        return;
    }
    if rec.kind == DocKind::Log {
        rec.description = format!("Daily log {}", rec.name);
        rec.body = text.trim_start_matches('\u{feff}').to_owned();
        rec.entries = format::entries(&rec.body);
        return;
    }
    let file = TopicFile::parse(text);
    let head = &text[..text.len() - file.body().len()];
    rec.body_line = u32::try_from(head.matches('\n').count() + 1).unwrap_or(u32::MAX);
    rec.body = file.body().to_owned();
    rec.entries = file.entries();
    if let Some(n) = file.fields.name.as_deref().filter(|n| !n.trim().is_empty()) {
        rec.name = n.trim().to_owned();
    }
    rec.description = file
        .fields
        .description
        .clone()
        .unwrap_or_default()
        .trim()
        .to_owned();
    rec.memory_type = file.memory_type();
    rec.pinned |= file.fields.pinned;
    rec.archived = file.fields.archived;
    rec.problem = file.problem;
}

/// Build the record of a file beneath a memory root held open. `Ok(None)`: the file is gone
/// (deleted between scan and read).
pub fn analyze_in(root: &RootDir, rel: &str, kind: DocKind) -> Result<Option<DocRecord>> {
    let Some(meta) = root.metadata(rel)? else {
        return Ok(None);
    };
    // A folder, FIFO or device named `*.md` is not a document (and opening a FIFO would block).
    if !meta.is_file() {
        return Ok(None);
    }
    let mtime_ms = mtime_ms(&meta);
    let names = fsutil::link_count(&meta);
    if names > 1 {
        // Listed with its problem, never read (see `fsutil::read_capped`).
        return Ok(Some(problem_record(
            rel,
            kind,
            &meta,
            mtime_ms,
            Problem {
                code: ErrorCode::PathEscape,
                message: fsutil::hard_link_refusal(Path::new(rel), names).message,
                field: None,
            },
        )));
    }
    match root.read_capped(rel)? {
        ReadOutcome::Missing => Ok(None),
        ReadOutcome::Bytes(b) => Ok(Some(analyze_bytes(rel, kind, &b, mtime_ms))),
        ReadOutcome::TooLarge(size) => Ok(Some(problem_record(
            rel,
            kind,
            &meta,
            mtime_ms,
            Problem {
                code: ErrorCode::TooLarge,
                message: format!(
                    "{size} bytes: larger than the {} byte limit for a memory file; split or trim it",
                    fsutil::MAX_FILE_BYTES
                ),
                field: None,
            },
        ))),
    }
}

/// A document that is listed with its problem but not read: too large, or a hard link.
fn problem_record(
    rel: &str,
    kind: DocKind,
    meta: &std::fs::Metadata,
    mtime_ms: i64,
    problem: Problem,
) -> DocRecord {
    let size = meta.len();
    // Not read, so not hashed: size + mtime (+ the problem) identify the version.
    let hash = format!("unread:{}:{size}:{mtime_ms}", problem.code.as_str());
    DocRecord {
        problem: Some(problem),
        ..blank(rel, kind, mtime_ms, size, hash)
    }
}

/// A record with nothing read from the file yet: its name from the path.
fn blank(rel: &str, kind: DocKind, mtime_ms: i64, size: u64, hash: String) -> DocRecord {
    DocRecord {
        kind,
        memory_type: None,
        name: stem(rel),
        description: String::new(),
        body: String::new(),
        raw: None,
        problem: None,
        mtime_ms,
        size: i64::try_from(size).unwrap_or(i64::MAX),
        hash,
        entries: Vec::new(),
        pinned: in_pinned_folder(rel),
        archived: false,
        body_line: 1,
        fts: None,
        secret: None,
    }
}

/// Modification time in ms since the epoch.
#[must_use]
pub fn mtime_ms(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(doc_kind("a.md"), Some(DocKind::Topic));
        assert_eq!(doc_kind("sub/a.md"), Some(DocKind::Topic));
        assert_eq!(doc_kind("MEMORY.md"), None);
        assert_eq!(doc_kind("sub/MEMORY.md"), Some(DocKind::Topic));
        assert_eq!(doc_kind("memory.md"), None);
        assert_eq!(doc_kind(".hidden.md"), None);
        assert_eq!(doc_kind(".mnemo-tmp-x.md"), None);
        assert_eq!(doc_kind("a.txt"), None);
        assert_eq!(
            doc_kind("keys/ghp_abcdefghijklmnopqrstuvwxyz0123456789.md"),
            None,
            "a name holding a secret is no document"
        );
        assert_eq!(doc_kind("logs/2026/11/2026-11-21.md"), Some(DocKind::Log));
        assert_eq!(doc_kind("logs/2026/11/2026-12-21.md"), Some(DocKind::Topic));
        assert_eq!(doc_kind("logs/2026/02/2026-02-30.md"), Some(DocKind::Topic));
    }

    #[test]
    fn bad_content_becomes_a_flagged_record() {
        let r = analyze_bytes("x.md", DocKind::Topic, b"\x00\x01binary", 0);
        assert_eq!(r.problem.unwrap().code, ErrorCode::InvalidContent);
        assert!(r.raw.is_some(), "bytes kept for the journal");
        let r = analyze_bytes("notes/x.md", DocKind::Topic, b"no frontmatter", 0);
        assert_eq!(r.name, "x");
        assert_eq!(r.problem.unwrap().code, ErrorCode::InvalidFrontmatter);
    }

    #[test]
    fn a_file_holding_a_secret_is_recorded_redacted_and_its_bytes_withheld() {
        let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
        let text = format!(
            "---\nname: Deploy {token}\ndescription: how we deploy\ntype: project\n---\n\nDeploy with {token} on Fridays.\n"
        );
        let r = analyze_bytes("deploy.md", DocKind::Topic, text.as_bytes(), 0);
        assert_eq!(
            r.secret.as_deref(),
            Some("github_token (line 2), github_token (line 7)")
        );
        assert!(r.problem.is_none(), "still a valid memory: {:?}", r.problem);
        for field in [&r.name, &r.description, &r.body] {
            assert!(!field.contains(token), "{field}");
        }
        assert!(r.entries.iter().all(|e| !e.summary.contains(token)));
        assert!(r.body.contains("[redacted: github_token]"));
        assert_eq!(r.kept_raw(), None, "the index keeps no bytes of it");
        assert_eq!(
            r.hash,
            fsutil::hash(text.as_bytes()),
            "the hash is the file's"
        );
        let clean = analyze_bytes("x.md", DocKind::Topic, b"plain", 0);
        assert!(clean.secret.is_none() && clean.kept_raw().is_some());
    }
}
