//! What a memory file is by its path: a topic, a daily log or a conversation record; under
//! `pinned/` or `chats/`. Paths only — nothing here reads a file.

use crate::format::TopicFile;
use crate::memory_md;

pub use mnemo_core::DocKind;

/// Which relative paths are documents: `.md` files, not `MEMORY.md` at the root, nothing hidden,
/// no name that holds a secret (it would land in the index, the journal and MEMORY.md; such a
/// file is left out, with a warning at sync).
#[must_use]
pub fn doc_kind(rel: &str) -> Option<DocKind> {
    // Case-insensitive: on macOS and Windows `memory.md` *is* `MEMORY.md`.
    if !rel.ends_with(".md") || rel.eq_ignore_ascii_case(memory_md::FILE_NAME) {
        return None;
    }
    if crate::secrets::name_holds_secret(rel) {
        return None;
    }
    if rel.split('/').any(|c| c.starts_with('.')) {
        return None;
    }
    if is_daily_log(rel) {
        Some(DocKind::Log)
    } else if chat_record_day(rel).is_some() {
        Some(DocKind::Chat)
    } else {
        Some(DocKind::Topic)
    }
}

/// `logs/YYYY/MM/YYYY-MM-DD.md`.
#[must_use]
pub fn is_daily_log(rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    let [logs, y, m, file] = parts.as_slice() else {
        return false;
    };
    let Some(day) = file.strip_suffix(".md") else {
        return false;
    };
    *logs == "logs"
        && y.len() == 4
        && m.len() == 2
        && day.len() == 10
        && day.starts_with(&format!("{y}-{m}-"))
        && chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").is_ok()
}

/// The day of a conversation record, `chats/YYYY/MM/YYYY-MM-DD-<session>.md` (`<session>`:
/// 1–64 letters, digits, `-` or `_`).
#[must_use]
pub fn chat_record_day(rel: &str) -> Option<chrono::NaiveDate> {
    let parts: Vec<&str> = rel.split('/').collect();
    let ["chats", y, m, file] = parts.as_slice() else {
        return None;
    };
    let stem = file.strip_suffix(".md")?;
    let (day, session) = (stem.get(..10)?, stem.get(11..)?);
    let ok = y.len() == 4
        && m.len() == 2
        && stem.as_bytes().get(10) == Some(&b'-')
        && day.starts_with(&format!("{y}-{m}-"))
        && (1..=64).contains(&session.len())
        && session
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_');
    if !ok {
        return None;
    }
    chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").ok()
}

/// Under Qwen Code's `pinned/` folder (at the root of the memory folder).
#[must_use]
pub fn in_pinned_folder(rel: &str) -> bool {
    rel.starts_with("pinned/")
}

/// Whether a memory is pinned: under `pinned/`, or `pinned: true` in its frontmatter.
#[must_use]
pub fn is_pinned(rel: &str, text: &str) -> bool {
    in_pinned_folder(rel) || TopicFile::parse(text).fields.pinned
}

/// Whether `rel` (a normalised path) is under `chats/`, the folder of conversation records.
#[must_use]
pub fn in_records_folder(rel: &str) -> bool {
    rel.trim_start_matches("./")
        .split('/')
        .next()
        .is_some_and(|c| c.eq_ignore_ascii_case("chats"))
}
