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
/// JSON, told apart by the first element's fields.
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
        return first_lines(path, 20)?
            .iter()
            .find_map(|l| classify_line(l))
            .ok_or_else(|| {
                unknown(
                    path,
                    "its lines are neither transcript records nor {text} memories",
                )
            });
    }
    let file =
        File::open(path).map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
    match stream::first(file)? {
        None => Err(unknown(path, "it holds no items")),
        Some((pos, v)) => classify(pos.key.as_deref(), &v)
            .ok_or_else(|| unknown(path, "its items have none of the fields those formats use")),
    }
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
/// is not itself an export holding an array (`{"results": [...]}` on one line).
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
            })
        }))
}

/// The first `n` non-blank lines, read up to 4 MiB (a transcript may open with summary lines).
fn first_lines(path: &Path, n: usize) -> Result<Vec<String>> {
    let f = File::open(path).map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
    let mut r = BufReader::new(f.take(4 << 20));
    let mut out = Vec::new();
    let mut buf = Vec::new();
    while out.len() < n {
        buf.clear();
        let read = r
            .read_until(b'\n', &mut buf)
            .map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
        if read == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&buf);
        if !text.trim().is_empty() {
            out.push(text.trim_start_matches('\u{feff}').to_owned());
        }
    }
    Ok(out)
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

/// A JSONL line's format.
#[must_use]
pub fn classify_line(line: &str) -> Option<ImportFormat> {
    let v: Value = serde_json::from_str(line.trim().trim_start_matches('\u{feff}')).ok()?;
    if v.get("message").is_some()
        && (v.get("sessionId").is_some() || v.get("type").is_some_and(Value::is_string))
    {
        return Some(ImportFormat::Transcripts);
    }
    if v.get("memory").is_some() {
        return Some(ImportFormat::Mem0);
    }
    if v.get("text").is_some() || v.get("content").is_some_and(Value::is_string) {
        return Some(ImportFormat::Json);
    }
    None
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
