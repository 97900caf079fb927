//! Proposals: change sets held beside the files, waiting for a person. Each is a row
//! in `proposals` (who proposed it, from what, its status) and one `proposal_files` row per file
//! (the bytes it was made from, the bytes it proposes). A proposal being accepted is marked
//! `accepting` with its group and the person's choice before any file is written, so a process
//! killed midway is finished by the next one ([`crate::Vault::recover_proposals`]).

use mnemo_core::{ChangeSource, Error, Result};
use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::{Journal, now};
use crate::db;
use crate::review::ProposalFile;

pub use mnemo_core::ProposalStatus;

/// What a proposal came from, as far as it is known.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::ProposalOrigin`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposalOrigin {
    pub session: Option<String>,
    pub message: Option<String>,
    pub client: Option<String>,
    pub task: Option<String>,
}

/// A proposal without its files' text (what the inbox lists).
///
/// Its fields are documented where clients read them: `mnemo_api::wire::ProposalSummary`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposalSummary {
    pub id: i64,
    pub workspace: String,
    pub source: ChangeSource,
    pub kind: String,
    pub label: String,
    pub origin: ProposalOrigin,
    pub at: String,
    pub status: ProposalStatus,
    pub resolved_at: Option<String>,
    pub note: Option<String>,
    pub group: Option<i64>,
    pub paths: Vec<String>,
    pub changes: u32,
}

/// A proposal with each file's diff.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::Proposal`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    /// The listing fields.
    #[serde(flatten)]
    pub summary: ProposalSummary,
    pub files: Vec<ProposalFile>,
}

/// One page of a workspace's proposals, newest first.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::ProposalPage`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposalPage {
    pub items: Vec<ProposalSummary>,
    pub total: u32,
    pub pending: u32,
}

/// A person's choice when accepting: which changes (all when `entries` is `None`), and files
/// they edited first (their text replaces the proposal's for that file).
///
/// Its fields are documented where clients read them: `mnemo_api::wire::AcceptChoice`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcceptChoice {
    pub entries: Option<Vec<String>>,
    /// Files edited before accepting.
    #[serde(default)]
    pub edits: Vec<FileEdit>,
}

/// A file's text as a person edited it in a proposal.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::FileEdit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEdit {
    pub path: String,
    pub content: String,
}

/// One file of a proposal about to be saved: its path, the bytes before, the bytes proposed.
pub type StagedFile = (String, Option<Vec<u8>>, Option<Vec<u8>>);

/// A proposal about to be saved.
pub struct NewProposal<'a> {
    /// Workspace id.
    pub workspace: &'a str,
    /// Who proposed it.
    pub source: ChangeSource,
    /// The job.
    pub kind: &'a str,
    /// In a few words.
    pub label: &'a str,
    /// What it came from.
    pub origin: &'a ProposalOrigin,
    /// `(path, before, after)` for each file.
    pub files: Vec<StagedFile>,
}

const SUMMARY_COLUMNS: &str = "p.id, p.workspace, p.source, p.kind, p.label, p.origin, p.at, p.status, p.resolved_at, p.note, p.grp,
    (SELECT group_concat(path, char(10)) FROM proposal_files f WHERE f.proposal = p.id), p.changes";

fn summary_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ProposalSummary> {
    let source: String = r.get(2)?;
    let origin: String = r.get(5)?;
    let status: String = r.get(7)?;
    let paths: Option<String> = r.get(11)?;
    Ok(ProposalSummary {
        id: r.get(0)?,
        workspace: r.get(1)?,
        source: source.parse().unwrap_or(ChangeSource::Extract),
        kind: r.get(3)?,
        label: r.get(4)?,
        origin: serde_json::from_str(&origin).unwrap_or_default(),
        at: r.get(6)?,
        status: ProposalStatus::parse(&status),
        resolved_at: r.get(8)?,
        note: r.get(9)?,
        group: r.get(10)?,
        paths: paths
            .map(|p| p.lines().map(str::to_owned).collect())
            .unwrap_or_default(),
        changes: r.get(12)?,
    })
}

fn text(b: Option<Vec<u8>>) -> Option<String> {
    b.map(|b| String::from_utf8_lossy(&b).into_owned())
}

impl Journal {
    /// Save a proposal (one transaction: all of it or nothing). Returns its id.
    pub fn add_proposal(&self, p: &NewProposal<'_>) -> Result<i64> {
        let changes: usize = p
            .files
            .iter()
            .map(|(path, b, a)| {
                crate::review::entry_changes(
                    path,
                    text(b.clone()).as_deref(),
                    text(a.clone()).as_deref(),
                )
                .len()
            })
            .sum();
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(db::err("writing the journal"))?;
        tx.execute(
            "INSERT INTO proposals (workspace, source, kind, label, origin, at, changes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                p.workspace,
                p.source.as_str(),
                p.kind,
                p.label,
                serde_json::to_string(p.origin).unwrap_or_default(),
                now(),
                i64::try_from(changes).unwrap_or(i64::MAX)
            ],
        )
        .map_err(db::err("writing the journal"))?;
        let id = tx.last_insert_rowid();
        for (path, before, after) in &p.files {
            tx.execute(
                "INSERT INTO proposal_files (proposal, path, before, after) VALUES (?1, ?2, ?3, ?4)",
                params![id, path, before, after],
            )
            .map_err(db::err("writing the journal"))?;
        }
        tx.commit().map_err(db::err("writing the journal"))?;
        Ok(id)
    }

    /// One page of a workspace's proposals (all statuses when `status` is `None`), newest first.
    pub fn proposals(
        &self,
        workspace: &str,
        status: Option<ProposalStatus>,
        offset: u32,
        limit: u32,
    ) -> Result<ProposalPage> {
        let st = status.map(ProposalStatus::as_str);
        // One statement per filter, so each reads its index (newest first, a page at a time).
        let items = match st {
            Some(s) => self
                .conn
                .prepare_cached(&format!(
                    "SELECT {SUMMARY_COLUMNS} FROM proposals p WHERE p.workspace = ?1 AND p.status = ?2
                     ORDER BY p.id DESC LIMIT ?3 OFFSET ?4"
                ))
                .and_then(|mut q| {
                    q.query_map(params![workspace, s, limit, offset], summary_row)?
                        .collect()
                }),
            None => self
                .conn
                .prepare_cached(&format!(
                    "SELECT {SUMMARY_COLUMNS} FROM proposals p WHERE p.workspace = ?1
                     ORDER BY p.id DESC LIMIT ?2 OFFSET ?3"
                ))
                .and_then(|mut q| {
                    q.query_map(params![workspace, limit, offset], summary_row)?
                        .collect()
                }),
        }
        .map_err(db::err("reading the journal"))?;
        let count = |s: Option<&str>| -> Result<u32> {
            match s {
                Some(s) => self.conn.query_row(
                    "SELECT count(*) FROM proposals WHERE workspace = ?1 AND status = ?2",
                    params![workspace, s],
                    |r| r.get(0),
                ),
                None => self.conn.query_row(
                    "SELECT count(*) FROM proposals WHERE workspace = ?1",
                    params![workspace],
                    |r| r.get(0),
                ),
            }
            .map_err(db::err("reading the journal"))
        };
        Ok(ProposalPage {
            items,
            total: count(st)?,
            pending: count(Some("pending"))?,
        })
    }

    /// A proposal with its files. `not_found` for an unknown id.
    pub fn proposal(&self, id: i64) -> Result<Proposal> {
        let summary = self
            .conn
            .query_row(
                &format!("SELECT {SUMMARY_COLUMNS} FROM proposals p WHERE p.id = ?1"),
                [id],
                summary_row,
            )
            .optional()
            .map_err(db::err("reading the journal"))?
            .ok_or_else(|| Error::not_found(format!("no proposal {id}: see `mnemo inbox`")))?;
        let mut q = self
            .conn
            .prepare_cached(
                "SELECT path, before, after FROM proposal_files WHERE proposal = ?1 ORDER BY path",
            )
            .map_err(db::err("reading the journal"))?;
        let files = q
            .query_map([id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Option<Vec<u8>>>(1)?,
                    r.get::<_, Option<Vec<u8>>>(2)?,
                ))
            })
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(db::err("reading the journal"))?
            .into_iter()
            .map(|(path, b, a)| ProposalFile::new(&path, text(b), text(a)))
            .collect();
        Ok(Proposal { summary, files })
    }

    /// Mark a proposal `accepting` with the group that applies it and the person's choice
    /// (before any file is written).
    pub fn start_accepting(&self, id: i64, group: i64, choice: &AcceptChoice) -> Result<()> {
        self.conn
            .execute(
                "UPDATE proposals SET status = 'accepting', grp = ?2, choice = ?3 WHERE id = ?1",
                params![id, group, serde_json::to_string(choice).unwrap_or_default()],
            )
            .map(|_| ())
            .map_err(db::err("writing the journal"))
    }

    /// The choice and group of a proposal being accepted.
    pub fn accepting(&self, id: i64) -> Result<Option<(i64, AcceptChoice)>> {
        self.conn
            .query_row(
                "SELECT grp, choice FROM proposals WHERE id = ?1 AND status = 'accepting'",
                [id],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?)),
            )
            .optional()
            .map(|o| {
                o.map(|(g, c)| {
                    (
                        g,
                        c.and_then(|c| serde_json::from_str(&c).ok())
                            .unwrap_or_default(),
                    )
                })
            })
            .map_err(db::err("reading the journal"))
    }

    /// Proposals left `accepting` by a process that stopped (every workspace).
    pub fn proposals_accepting(&self) -> Result<Vec<(i64, String)>> {
        let mut q = self
            .conn
            .prepare("SELECT id, workspace FROM proposals WHERE status = 'accepting'")
            .map_err(db::err("reading the journal"))?;
        q.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(db::err("reading the journal"))
    }

    /// Settle a proposal: its final status, why, and the group that applied it.
    pub fn resolve_proposal(
        &self,
        id: i64,
        status: ProposalStatus,
        note: Option<&str>,
        group: Option<i64>,
    ) -> Result<()> {
        self.conn
            .execute(
                "UPDATE proposals SET status = ?2, note = ?3, grp = ?4, resolved_at = ?5, choice = NULL WHERE id = ?1",
                params![id, status.as_str(), note, group, now()],
            )
            .map(|_| ())
            .map_err(db::err("writing the journal"))
    }

    /// Back to pending (an accept refused before it wrote anything).
    pub fn reopen_proposal(&self, id: i64) -> Result<()> {
        self.conn
            .execute(
                "UPDATE proposals SET status = 'pending', grp = NULL, choice = NULL WHERE id = ?1",
                [id],
            )
            .map(|_| ())
            .map_err(db::err("writing the journal"))
    }

    /// Expire a workspace's pending proposals made before `before` (RFC 3339); how many.
    pub fn expire_proposals(&self, workspace: &str, before: &str, note: &str) -> Result<usize> {
        self.conn
            .execute(
                "UPDATE proposals SET status = 'expired', note = ?3, resolved_at = ?4
                 WHERE workspace = ?1 AND status = 'pending' AND at < ?2",
                params![workspace, before, note, now()],
            )
            .map_err(db::err("writing the journal"))
    }
}
