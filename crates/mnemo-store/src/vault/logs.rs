//! Daily logs: `logs/YYYY/MM/YYYY-MM-DD.md`, append-only notes of the day
//! (compaction summaries among them). Appends go through `mutate` like every write: atomic,
//! journaled, indexed, announced. And conversation records:
//! `chats/YYYY/MM/YYYY-MM-DD-<session>.md`, what the person said in one chat on one day.
//!
//! Records belong to Mnemo: only [`Vault::append_chat_record`] writes under `chats/`
//! — the memory tools, a new memory and imports are refused there ([`records_refusal`]) — and a
//! record whose present text the journal does not attribute to it (or to the person's own hand)
//! is never recalled as the person's words ([`Vault::record_is_persons`]).

use chrono::NaiveDate;
use mnemo_core::{ChangeSource, Error, ErrorCode, Result};

use super::{Vault, WriteOutcome, guard};
use crate::index::DocSummary;
use crate::journal::Origin;
use crate::workspace::Workspace;
pub use mnemo_text::kind::in_records_folder;

/// The path of a day's log, relative to the memory root.
#[must_use]
pub fn log_path(day: NaiveDate) -> String {
    format!("logs/{}", day.format("%Y/%m/%Y-%m-%d.md"))
}

/// The conversation record of one chat session on one day:
/// `chats/YYYY/MM/YYYY-MM-DD-<session>.md`, the session id kept to letters, digits, `-` and `_`
/// (64 at most).
#[must_use]
pub fn chat_record_path(day: NaiveDate, session: &str) -> String {
    let mut id: String = session
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(64)
        .collect();
    if id.is_empty() {
        id.push_str("chat");
    }
    format!("chats/{}-{id}.md", day.format("%Y/%m/%Y-%m-%d"))
}

/// `invalid_path` for a write under `chats/` by anything but the record writer, in words a
/// model reads as a tool error too.
#[must_use]
pub fn records_refusal(rel: &str) -> Error {
    Error::new(
        ErrorCode::InvalidPath,
        format!(
            "`{}`: chats/ holds the conversation records Mnemo keeps itself; write memories \
             elsewhere",
            crate::fsutil::shown(rel)
        ),
    )
}

/// [`records_refusal`] when `rel` is under `chats/`.
pub fn refuse_records_folder(rel: &str) -> Result<()> {
    if in_records_folder(rel) {
        return Err(records_refusal(rel));
    }
    Ok(())
}

/// One turn as a record's entry: `HH:MM — text`, the text's blank lines closed up so the turn
/// stays one entry.
#[must_use]
pub fn chat_record_entry(at: chrono::DateTime<chrono::Utc>, text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    format!("{} — {}", at.format("%H:%M"), lines.join("\n"))
}

impl Vault {
    /// Append what the person said in a chat turn (already through the secret gate) to that
    /// session's record of the day, created with a heading when new. Journaled like any write.
    pub fn append_chat_record(
        &self,
        ws: &Workspace,
        at: chrono::DateTime<chrono::Utc>,
        session: &str,
        text: &str,
        origin: impl Into<Origin>,
    ) -> Result<WriteOutcome> {
        let day = at.date_naive();
        let path = chat_record_path(day, session);
        let entry = chat_record_entry(at, text);
        self.mutate(ws, &path, origin, None, |old, _| {
            let mut text = match old {
                Some(b) => String::from_utf8_lossy(b).into_owned(),
                None => format!("# Chat on {} (UTC)\n", day.format("%Y-%m-%d")),
            };
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push('\n');
            text.push_str(&entry);
            text.push('\n');
            Ok(Some(text.into_bytes()))
        })
    }

    /// Whether the conversation record `rel` of `workspace`, holding bytes of hash `hash` now,
    /// is the person's words: the journal attributes them to the record writer (source `chat`:
    /// the chat model's own tools never write under `chats/`), to the person's own hand (`user`,
    /// `cli`: an edit in the app or at the command line) or to a forget, which only takes text
    /// out — an undo followed back to what it put back — or to a sync, which brings the records
    /// the record writer kept on the person's other machines (a sync remote is the person's
    /// own). Bytes no journaled change made (there before Mnemo first looked, or written by
    /// another program or an assistant) are not.
    #[must_use]
    pub fn record_is_persons(&self, workspace: &str, rel: &str, hash: &str) -> bool {
        match guard(&self.journal).author_of(workspace, rel, hash) {
            Ok(Some(by)) => matches!(
                by,
                ChangeSource::Chat
                    | ChangeSource::User
                    | ChangeSource::Cli
                    | ChangeSource::Forget
                    | ChangeSource::Sync
            ),
            Ok(None) => false,
            Err(e) => {
                tracing::warn!("reading who wrote {rel}: {e}");
                false
            }
        }
    }

    /// Append `section` to the day's log (created with a `# YYYY-MM-DD` heading when new),
    /// separated from what is there by a blank line.
    pub fn append_log(
        &self,
        ws: &Workspace,
        day: NaiveDate,
        section: &str,
        origin: impl Into<Origin>,
    ) -> Result<WriteOutcome> {
        let path = log_path(day);
        self.mutate(ws, &path, origin, None, |old, _| {
            let mut text = match old {
                Some(b) => String::from_utf8_lossy(b).into_owned(),
                None => format!("# {}\n", day.format("%Y-%m-%d")),
            };
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push('\n');
            text.push_str(section.trim_end());
            text.push('\n');
            Ok(Some(text.into_bytes()))
        })
    }

    /// The daily logs and conversation records of a workspace, newest day first (index brought
    /// up to date first; records by their day too).
    pub fn logs(&self, workspace: &str) -> Result<Vec<DocSummary>> {
        let ws = self.workspace(workspace)?;
        self.sync(&ws)?;
        let mut logs = guard(&self.index).list_logs(&ws.id)?;
        let day = |p: &str| {
            crate::doc::chat_record_day(p)
                .map(|d| d.format("%Y-%m-%d").to_string())
                .unwrap_or_else(|| p.rsplit('/').next().unwrap_or(p).to_owned())
        };
        logs.sort_by(|a, b| day(&b.path).cmp(&day(&a.path)).then(b.path.cmp(&a.path)));
        Ok(logs)
    }
}
