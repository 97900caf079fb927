//! Telling an export's format from its contents (never from its name alone).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use mnemo_core::{Error, ErrorCode, Result};
use serde_json::Value;

use super::ImportFormat;
use super::stream;

/// The formats, said when a source is none of them.
pub const SUPPORTED: &str = "ChatGPT or Claude.ai conversations.json, Claude Code / Qwen Code \
     transcripts (.jsonl), a mem0 or claude-mem export, JSON / JSONL of {text, type?, created?}, \
     a folder of markdown notes, or a Mnemo export (.zip)";

/// Which format `path` holds. A folder: markdown notes, or session transcripts when it holds
/// `.jsonl` files and no notes. A file: a zip (a Mnemo export), JSONL (one object per line) or
/// JSON, told apart by the first element's fields — or, for a file holding one conversation
/// rather than an array of them, by that conversation's.
pub fn detect(path: &Path) -> Result<ImportFormat> {
    let meta = std::fs::metadata(path).map_err(|e| {
        Error::new(
            if e.kind() == std::io::ErrorKind::NotFound {
                ErrorCode::NotFound
            } else {
                ErrorCode::Io
            },
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    if meta.is_dir() {
        return folder(path);
    }
    let mut head = [0u8; 4];
    let n = File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
    if head[..n].starts_with(b"PK\x03\x04") {
        return Ok(ImportFormat::MnemoExport);
    }
    if n == 0 {
        return Err(unknown(path, "the file is empty"));
    }
    if is_jsonl(path)? {
        return jsonl_format(path)?.ok_or_else(|| {
            unknown(
                path,
                "its lines are neither transcript records nor {text} memories",
            )
        });
    }
    let file =
        File::open(path).map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
    match stream::first(file)? {
        None => single_object(path)?
            .and_then(|v| classify(None, &v))
            .filter(|f| matches!(f, ImportFormat::Chatgpt | ImportFormat::ClaudeAi))
            .ok_or_else(|| unknown(path, "it holds no items")),
        Some((pos, v)) => classify(pos.key.as_deref(), &v)
            .ok_or_else(|| unknown(path, "its items have none of the fields those formats use")),
    }
}

/// The object a JSON file holds at its top level, read as one element (so within
/// [`stream::MAX_ELEMENT_BYTES`]): a file holding a single conversation rather than an array of
/// them. `None` when the file does not hold an object.
pub(super) fn single_object(path: &Path) -> Result<Option<Value>> {
    let reading = |e: std::io::Error| Error::io(format!("reading {}", path.display()), &e);
    let f = File::open(path).map_err(reading)?;
    let mut r = BufReader::new(f);
    if r.fill_buf().map_err(reading)?.starts_with(b"\xEF\xBB\xBF") {
        r.consume(3);
    }
    loop {
        let buf = r.fill_buf().map_err(reading)?;
        let blanks = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if blanks < buf.len() {
            if buf[blanks] != b'{' {
                return Ok(None);
            }
            r.consume(blanks);
            break;
        }
        if buf.is_empty() {
            return Ok(None);
        }
        r.consume(blanks);
    }
    // `[` + the object + `]`: the stream reads it as the one element of an array.
    let wrapped = (&b"["[..]).chain(r).chain(&b"]"[..]);
    Ok(stream::first(wrapped)?.map(|(_, v)| v))
}

fn unknown(path: &Path, why: &str) -> Error {
    Error::new(
        ErrorCode::InvalidContent,
        format!(
            "{} is not a format Mnemo imports ({why}); it reads {SUPPORTED}",
            path.display()
        ),
    )
}

/// JSONL: the file is named `.jsonl`, or its first non-blank line is a whole JSON object that
/// is not itself an export holding an array (`{"results": [...]}` on one line) nor a single
/// ChatGPT or Claude.ai conversation written on one line.
pub fn is_jsonl(path: &Path) -> Result<bool> {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"))
    {
        return Ok(true);
    }
    let line = first_line(path)?;
    Ok(line.trim_start().starts_with('{')
        && serde_json::from_str::<Value>(line.trim()).is_ok_and(|v| {
            v.as_object().is_some_and(|o| {
                !stream::ARRAY_KEYS
                    .iter()
                    .any(|k| o.get(*k).is_some_and(Value::is_array))
                    && !o.contains_key("mapping")
                    && !o.contains_key("chat_messages")
            })
        }))
}

/// How many non-blank lines of a JSONL file are read to tell its format.
const SCAN_LINES: usize = 1000;

/// A JSONL file's format, from its first line that tells: a transcript may open with many
/// lines that carry no message (`summary`, `file-history-snapshot`), so up to [`SCAN_LINES`]
/// non-blank lines within 4 MiB are read. A file whose lines read are all a transcript's
/// bookkeeping is a transcript (with no messages yet).
fn jsonl_format(path: &Path) -> Result<Option<ImportFormat>> {
    let f = File::open(path).map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
    let mut r = BufReader::new(f.take(4 << 20));
    let mut buf = Vec::new();
    let (mut lines, mut bookkeeping) = (0, false);
    while lines < SCAN_LINES {
        buf.clear();
        let read = r
            .read_until(b'\n', &mut buf)
            .map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
        if read == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim().trim_start_matches('\u{feff}');
        if text.is_empty() {
            continue;
        }
        lines += 1;
        let Ok(v) = serde_json::from_str::<Value>(text) else {
            continue;
        };
        if let Some(format) = line_format(&v) {
            return Ok(Some(format));
        }
        bookkeeping |= is_bookkeeping(&v);
    }
    Ok(bookkeeping.then_some(ImportFormat::Transcripts))
}

/// The first non-blank line, read up to 4 MiB.
fn first_line(path: &Path) -> Result<String> {
    let f = File::open(path).map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
    let mut r = BufReader::new(f.take(4 << 20));
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = r
            .read_until(b'\n', &mut buf)
            .map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
        if n == 0 {
            return Ok(String::new());
        }
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim_start_matches('\u{feff}');
        if !text.trim().is_empty() {
            return Ok(text.to_owned());
        }
    }
}

/// A JSONL line's format (`None` for a transcript's bookkeeping line: it does not tell).
#[must_use]
pub fn classify_line(line: &str) -> Option<ImportFormat> {
    let v: Value = serde_json::from_str(line.trim().trim_start_matches('\u{feff}')).ok()?;
    line_format(&v)
}

/// A parsed JSONL line's format; a transcript's bookkeeping line tells nothing, even when it
/// has a `content` string.
fn line_format(v: &Value) -> Option<ImportFormat> {
    if v.get("message").is_some()
        && (v.get("sessionId").is_some() || v.get("type").is_some_and(Value::is_string))
    {
        return Some(ImportFormat::Transcripts);
    }
    if is_bookkeeping(v) {
        return None;
    }
    if v.get("memory").is_some() {
        return Some(ImportFormat::Mem0);
    }
    if v.get("text").is_some() || v.get("content").is_some_and(Value::is_string) {
        return Some(ImportFormat::Json);
    }
    None
}

/// A Claude Code / Qwen Code line that carries no message: a `summary`, a file history
/// snapshot, a `system` or queue record. A `system` line has a `content` string, so without
/// this it would pass for a `{content}` memory.
fn is_bookkeeping(v: &Value) -> bool {
    v.get("message").is_none()
        && matches!(
            v["type"].as_str(),
            Some("summary" | "file-history-snapshot" | "system" | "queue-operation")
        )
        && ["sessionId", "leafUuid", "messageId", "uuid"]
            .iter()
            .any(|k| v.get(*k).is_some())
}

/// A JSON export's format from its first element (and the key of the array holding it).
#[must_use]
pub fn classify(key: Option<&str>, v: &Value) -> Option<ImportFormat> {
    if v.get("mapping").is_some() {
        return Some(ImportFormat::Chatgpt);
    }
    if v.get("chat_messages").is_some() {
        return Some(ImportFormat::ClaudeAi);
    }
    if key == Some("observations") || (v.get("narrative").is_some() && v.get("title").is_some()) {
        return Some(ImportFormat::ClaudeMem);
    }
    if v.get("memory").is_some() {
        return Some(ImportFormat::Mem0);
    }
    if v.get("text").is_some() || v.get("content").is_some_and(Value::is_string) {
        return Some(ImportFormat::Json);
    }
    None
}

/// A folder: notes when it holds markdown (outside hidden folders), else transcripts when it
/// holds `.jsonl` files.
fn folder(path: &Path) -> Result<ImportFormat> {
    if !super::files_under(path, ".md")?.is_empty() {
        return Ok(ImportFormat::Markdown);
    }
    if !super::files_under(path, ".jsonl")?.is_empty() {
        return Ok(ImportFormat::Transcripts);
    }
    Err(unknown(
        path,
        "the folder holds no markdown notes and no .jsonl transcripts",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::fixture;

    #[test]
    fn a_file_holding_one_conversation_is_told_by_it() {
        for (name, want) in [
            ("chatgpt_single.json", ImportFormat::Chatgpt),
            ("chatgpt_single_line.json", ImportFormat::Chatgpt),
            ("claude_ai_single.json", ImportFormat::ClaudeAi),
            ("claude_ai_single_line.json", ImportFormat::ClaudeAi),
            ("chatgpt_children_only.json", ImportFormat::Chatgpt),
        ] {
            assert_eq!(detect(&fixture(name)).unwrap(), want, "{name}");
        }
        assert!(!is_jsonl(&fixture("chatgpt_single_line.json")).unwrap());
        // An object that is no conversation still holds no items.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("other.json");
        std::fs::write(&p, "{\n  \"results\": [],\n  \"count\": 0\n}\n").unwrap();
        let e = detect(&p).unwrap_err();
        assert!(e.message.contains("holds no items"), "{}", e.message);
    }

    #[test]
    fn a_transcript_opening_with_many_summaries_is_a_transcript() {
        let p = fixture("claude_code_summaries_first.jsonl");
        assert_eq!(detect(&p).unwrap(), ImportFormat::Transcripts);
        // Named otherwise, it is still told by its lines.
        let dir = tempfile::tempdir().unwrap();
        let q = dir.path().join("session.log");
        std::fs::copy(&p, &q).unwrap();
        assert_eq!(detect(&q).unwrap(), ImportFormat::Transcripts);
        // A `system` line's `content` does not make it a `{content}` memory.
        let noise = fixture("claude_code_noise.jsonl");
        let lines = std::fs::read_to_string(&noise).unwrap();
        let system = lines.lines().find(|l| l.contains(r#""type":"system""#));
        assert_eq!(classify_line(system.unwrap()), None);
        // Only bookkeeping lines so far: a transcript with no messages yet.
        let r = dir.path().join("only-summaries.jsonl");
        let text = std::fs::read_to_string(&p).unwrap();
        let head: Vec<&str> = text.lines().take(25).collect();
        std::fs::write(&r, head.join("\n")).unwrap();
        assert_eq!(detect(&r).unwrap(), ImportFormat::Transcripts);
    }
}
