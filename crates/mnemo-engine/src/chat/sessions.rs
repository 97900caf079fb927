//! Chat sessions: `sessions/<id>.jsonl` in the workspace's state dir, one JSON record per line
//! (messages plus bookkeeping: what recall surfaced, what was written, how far extraction got).

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;

use chrono::{SecondsFormat, Utc};
use mnemo_core::{Error, ErrorCode, Result};
use mnemo_llm::Message;
use mnemo_store::{Workspace, fsutil};
use serde::{Deserialize, Serialize};

use super::NEW_CHAT_TITLE;

/// One line of a session file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Record {
    /// Title and flags.
    Meta {
        /// Title shown in the list.
        title: String,
        /// Memory ignored for this chat.
        #[serde(default)]
        ignore_memory: bool,
    },
    /// A chat message.
    Message {
        /// When.
        at: String,
        /// The message.
        message: Message,
    },
    /// Paths recall put in the prompt for a turn.
    Recalled {
        /// Paths.
        paths: Vec<String>,
    },
    /// Memory files written in this session's turns (by the chat model or by extraction), for
    /// the reply at message position `upto` (1-based count of messages).
    Wrote {
        /// Messages in the transcript when they were written.
        upto: u64,
        /// Paths relative to the memory root.
        paths: Vec<String>,
    },
    /// In review mode: the proposal the chat model's own writes in a turn became (nothing was
    /// written), for the reply at message position `upto` — so a reloaded chat still says so.
    Proposed {
        /// Messages in the transcript when it was proposed.
        upto: u64,
        /// The proposal's id.
        proposal: i64,
    },
    /// Memory tools the chat model used in a turn (fed back to recall as `recentTools`).
    Tools {
        /// Tool names, in order of use.
        names: Vec<String>,
    },
    /// Extraction has processed the first `upto` messages of this session (the latest mark
    /// counts): the one record of how far this session was extracted — written after a run
    /// that did not fail, and for turns memory ignores.
    Extracted {
        /// Messages processed.
        upto: u64,
    },
    /// The first `upto` messages were compacted into `summary` (the messages stay in the file;
    /// later requests send the summary in their place).
    Compacted {
        /// When.
        at: String,
        /// Messages the summary stands for (1-based count from the start of the session).
        upto: u64,
        /// The summary.
        summary: String,
        /// Who wrote the summary.
        by: super::CompactionSource,
        /// The daily log the summary was appended to, if that write worked.
        #[serde(default)]
        log: Option<String>,
    },
}

/// A session in the list.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::SessionInfo`.
#[derive(Debug, Clone, Serialize)]
pub struct SessionInfo {
    pub id: String,
    pub title: String,
    pub messages: u32,
    pub updated_at: String,
    pub ignore_memory: bool,
}

/// Sessions of one workspace.
pub struct Sessions {
    dir: PathBuf,
}

/// Appends and rewrites of one workspace's session files take turns — between threads and
/// between processes (the app and `mnemo chat`), by an OS lock on `sessions/.writes.lock` — so a
/// rename, which rewrites the file, never loses a record appended meanwhile. Held until dropped.
fn writes_turn(dir: &std::path::Path) -> Result<std::fs::File> {
    fsutil::lock_file(&dir.join(".writes.lock"))
}

fn valid_id(id: &str) -> Result<()> {
    if id.is_empty() || id.len() > 64 || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        return Err(Error::usage(format!("`{id}` is not a session id")));
    }
    Ok(())
}

impl Sessions {
    /// The sessions of a workspace.
    #[must_use]
    pub fn of(ws: &Workspace) -> Self {
        Self {
            dir: ws.state_dir.join("sessions"),
        }
    }

    fn path(&self, id: &str) -> Result<PathBuf> {
        valid_id(id)?;
        Ok(self.dir.join(format!("{id}.jsonl")))
    }

    /// Start a session (its title is cleaned like every title: see [`clean_title`]).
    pub fn create(&self, title: &str) -> Result<String> {
        let now = Utc::now();
        // Time, then bits of the process id and the clock's nanoseconds: unique across
        // processes and workspaces even for chats started in the same second.
        let id = format!(
            "{}-{:04x}{:04x}",
            now.format("%Y%m%d-%H%M%S"),
            std::process::id() & 0xffff,
            now.timestamp_subsec_nanos() & 0xffff
        );
        let mut n = 0;
        let mut unique = id.clone();
        while self.path(&unique)?.exists() {
            n += 1;
            unique = format!("{id}-{n}");
        }
        let title = if title.trim().is_empty() {
            NEW_CHAT_TITLE.to_owned()
        } else {
            clean_title(title)
        };
        self.rewrite(
            &unique,
            &[Record::Meta {
                title,
                ignore_memory: false,
            }],
        )?;
        Ok(unique)
    }

    /// Every record of a session; a torn last line (crash mid-append) is skipped.
    pub fn records(&self, id: &str) -> Result<Vec<Record>> {
        let path = self.path(id)?;
        let text = std::fs::read_to_string(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::not_found(format!("no chat session `{id}`"))
            } else {
                Error::io(format!("reading {}", path.display()), &e)
            }
        })?;
        Ok(text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect())
    }

    /// The messages of a session.
    pub fn messages(&self, id: &str) -> Result<Vec<Message>> {
        Ok(messages_of(&self.records(id)?))
    }

    /// Append records (one line each, flushed and synced).
    pub fn append(&self, id: &str, records: &[Record]) -> Result<()> {
        let _turn = writes_turn(&self.dir)?;
        let path = self.path(id)?;
        if !path.exists() {
            return Err(Error::not_found(format!("no chat session `{id}`")));
        }
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| Error::io(format!("opening {}", path.display()), &e))?;
        let mut buf = String::new();
        // A crash mid-append can leave a last line without its newline: end it first, so the
        // torn line stays one bad line and the new records stay readable.
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        if len > 0 {
            use std::io::{Read, Seek, SeekFrom};
            let mut last = [0u8; 1];
            let mut r = std::fs::File::open(&path)
                .map_err(|e| Error::io(format!("opening {}", path.display()), &e))?;
            if r.seek(SeekFrom::End(-1))
                .and_then(|_| r.read_exact(&mut last))
                .is_ok()
                && last[0] != b'\n'
            {
                buf.push('\n');
            }
        }
        for r in records {
            buf.push_str(
                &serde_json::to_string(r).map_err(|e| Error::new(ErrorCode::Io, e.to_string()))?,
            );
            buf.push('\n');
        }
        f.write_all(buf.as_bytes())
            .and_then(|()| f.sync_data())
            .map_err(|e| Error::io(format!("writing {}", path.display()), &e))
    }

    fn rewrite(&self, id: &str, records: &[Record]) -> Result<()> {
        let mut text = String::new();
        for r in records {
            text.push_str(
                &serde_json::to_string(r).map_err(|e| Error::new(ErrorCode::Io, e.to_string()))?,
            );
            text.push('\n');
        }
        fsutil::write_atomic(&self.path(id)?, text.as_bytes())
    }

    /// Change the title and/or the ignore-memory flag.
    pub fn update_meta(
        &self,
        id: &str,
        title: Option<&str>,
        ignore_memory: Option<bool>,
    ) -> Result<()> {
        let _turn = writes_turn(&self.dir)?;
        let mut records = self.records(id)?;
        let mut found = false;
        for r in &mut records {
            if let Record::Meta {
                title: t,
                ignore_memory: ig,
            } = r
            {
                if let Some(new) = title {
                    *t = clean_title(new);
                }
                if let Some(v) = ignore_memory {
                    *ig = v;
                }
                found = true;
            }
        }
        if !found {
            records.insert(
                0,
                Record::Meta {
                    title: clean_title(title.unwrap_or("Chat")),
                    ignore_memory: ignore_memory.unwrap_or(false),
                },
            );
        }
        self.rewrite(id, &records)
    }

    /// Set the title only while it is still `current` (a rename made meanwhile wins).
    pub fn retitle_if(&self, id: &str, current: &str, title: &str) -> Result<()> {
        if self.info(id)?.title == current && !title.trim().is_empty() {
            self.update_meta(id, Some(title), None)?;
        }
        Ok(())
    }

    /// Delete a session.
    pub fn delete(&self, id: &str) -> Result<()> {
        let _turn = writes_turn(&self.dir)?;
        let path = self.path(id)?;
        if !path.is_file() {
            return Err(Error::not_found(format!("no chat session `{id}`")));
        }
        fsutil::remove_file(&path)
    }

    /// One session's entry in the list.
    pub fn info(&self, id: &str) -> Result<SessionInfo> {
        let records = self.records(id)?;
        let (mut title, mut ignore_memory, mut messages) = ("Chat".to_owned(), false, 0u32);
        for r in &records {
            match r {
                Record::Meta {
                    title: t,
                    ignore_memory: ig,
                } => {
                    title.clone_from(t);
                    ignore_memory = *ig;
                }
                Record::Message { .. } => messages += 1,
                Record::Recalled { .. }
                | Record::Extracted { .. }
                | Record::Wrote { .. }
                | Record::Proposed { .. }
                | Record::Tools { .. }
                | Record::Compacted { .. } => {}
            }
        }
        let updated_at = std::fs::metadata(self.path(id)?)
            .and_then(|m| m.modified())
            .map(|t| chrono::DateTime::<Utc>::from(t).to_rfc3339_opts(SecondsFormat::Millis, true))
            .unwrap_or_default();
        Ok(SessionInfo {
            id: id.to_owned(),
            title,
            messages,
            updated_at,
            ignore_memory,
        })
    }

    /// Sessions, most recently changed first.
    pub fn list(&self) -> Result<Vec<SessionInfo>> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(id) = name.strip_suffix(".jsonl") else {
                continue;
            };
            if let Ok(info) = self.info(id) {
                out.push(info);
            }
        }
        out.sort_by(|a, b| {
            b.updated_at
                .cmp(&a.updated_at)
                .then_with(|| b.id.cmp(&a.id))
        });
        Ok(out)
    }

    /// How many messages of this session extraction has processed (its latest `extracted` mark).
    pub fn extracted_upto(&self, id: &str) -> Result<Option<u64>> {
        Ok(self.records(id)?.iter().rev().find_map(|r| match r {
            Record::Extracted { upto } => Some(*upto),
            _ => None,
        }))
    }

    /// Tools the chat model used in the session's last three turns that used any, most recent
    /// first, without repeats.
    pub fn recent_tools(&self, id: &str) -> Result<Vec<String>> {
        Ok(recent_tools_of(&self.records(id)?))
    }

    /// Paths already surfaced by recall in this session.
    pub fn surfaced(&self, id: &str) -> Result<Vec<String>> {
        Ok(surfaced_of(&self.records(id)?))
    }
}

// What a session's records say, derived from one read of the file.

/// The messages, oldest first.
pub(super) fn messages_of(records: &[Record]) -> Vec<Message> {
    records
        .iter()
        .filter_map(|r| match r {
            Record::Message { message, .. } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

/// The last compaction's summary and how many messages it stands for.
pub(super) fn compacted_of(records: &[Record]) -> Option<(u64, String)> {
    records.iter().rev().find_map(|r| match r {
        Record::Compacted { upto, summary, .. } => Some((*upto, summary.clone())),
        _ => None,
    })
}

/// Paths recall surfaced, first time first.
/// A chat title as it is kept: trimmed, at most 80 characters, any secret in it redacted (titles
/// are listed everywhere and stored in the session file).
#[must_use]
pub fn clean_title(title: &str) -> String {
    let (title, _) = crate::secrets::redact(title.trim());
    title.chars().take(80).collect()
}

pub(super) fn surfaced_of(records: &[Record]) -> Vec<String> {
    let mut seen = HashSet::new();
    records
        .iter()
        .filter_map(|r| match r {
            Record::Recalled { paths } => Some(paths),
            _ => None,
        })
        .flatten()
        .filter(|p| seen.insert(p.as_str()))
        .cloned()
        .collect()
}

/// A message with fewer content words than this is read as a follow-up ("and for dinner?").
pub(super) const FOLLOW_UP_WORDS: usize = 4;

/// What recall searches by for a message (the query is the conversation, not one line): the
/// message itself, and — when it is a follow-up, with fewer than [`FOLLOW_UP_WORDS`] content
/// words — the person's previous message before it, so "and for dinner?" recalls what "what
/// should I eat for lunch?" did.
#[must_use]
pub fn recall_query(records: &[Record], text: &str) -> String {
    let words = crate::recall::content_query(text);
    if words.split_whitespace().count() >= FOLLOW_UP_WORDS {
        return text.to_owned();
    }
    let previous = records.iter().rev().find_map(|r| match r {
        Record::Message { message, .. } if message.role == mnemo_llm::Role::User => message
            .content
            .as_deref()
            .filter(|c| !c.trim().is_empty() && !c.trim_start().starts_with('/')),
        _ => None,
    });
    match previous {
        Some(p) => format!("{}\n{text}", p.trim()),
        None => text.to_owned(),
    }
}

/// Tools used in the last three tool-using turns, most recent first, without repeats.
pub(super) fn recent_tools_of(records: &[Record]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for names in records
        .iter()
        .rev()
        .filter_map(|r| match r {
            Record::Tools { names } => Some(names),
            _ => None,
        })
        .take(3)
    {
        for n in names.iter().rev() {
            if !out.contains(n) {
                out.push(n.clone());
            }
        }
    }
    out
}

/// Chat sessions as a sync carries them when asked (`[sync] sessions`): listed and replaced
/// here, their owner, under the same turn-taking as appends and rewrites.
pub struct SessionSync;

impl mnemo_sync::extras::Extras for SessionSync {
    fn list(&self, ws: &Workspace) -> Result<Vec<(String, Vec<u8>)>> {
        let dir = Sessions::of(ws).dir;
        let mut out = Vec::new();
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !mnemo_sync::extras::valid_name(&name) || !e.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            if let fsutil::ReadOutcome::Bytes(b) = fsutil::read_capped(&e.path())? {
                out.push((name, b));
            }
        }
        Ok(out)
    }

    fn replace(
        &self,
        ws: &Workspace,
        name: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool> {
        let sessions = Sessions::of(ws);
        let id = name.strip_suffix(".jsonl").unwrap_or(name);
        let path = sessions.path(id)?;
        // Only what reads as a session: every line a record.
        let readable = std::str::from_utf8(new).is_ok_and(|t| {
            t.lines()
                .filter(|l| !l.trim().is_empty())
                .all(|l| serde_json::from_str::<Record>(l).is_ok())
        });
        if !readable {
            tracing::warn!(
                session = id,
                "a synced session is not readable as one; left out"
            );
            return Ok(true);
        }
        let _turn = writes_turn(&sessions.dir)?;
        let current = std::fs::read(&path).ok();
        if current.as_deref() != expected {
            return Ok(false);
        }
        std::fs::create_dir_all(&sessions.dir)
            .map_err(|e| Error::io(format!("creating {}", sessions.dir.display()), &e))?;
        fsutil::write_atomic(&path, new)?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(role: mnemo_llm::Role, text: &str) -> Record {
        Record::Message {
            at: String::new(),
            message: Message::new(role, text),
        }
    }

    #[test]
    fn a_follow_up_is_read_with_the_message_before_it() {
        use mnemo_llm::Role::{Assistant, User};
        let records = [
            said(User, "what should I eat for lunch today, given my diet?"),
            said(Assistant, "A salad would suit you."),
        ];
        assert_eq!(
            recall_query(&records, "and for dinner?"),
            "what should I eat for lunch today, given my diet?\nand for dinner?"
        );
        // A message that says enough stands alone.
        let full = "which restaurants near the office serve vegetarian food";
        assert_eq!(recall_query(&records, full), full);
        // The first message of a chat, and a command before it, add nothing.
        assert_eq!(recall_query(&[], "and for dinner?"), "and for dinner?");
        let command = [said(User, "/ignore memory")];
        assert_eq!(recall_query(&command, "and then?"), "and then?");
    }
}
