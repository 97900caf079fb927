//! The journal: every change to a memory file, whoever made it, with before/after
//! content, so any change can be shown as a diff and undone.
//!
//! Lives in `$MNEMO_HOME/journal.db`, apart from `index.db`: the index is a disposable cache
//! rebuilt from files, the journal is history that cannot be rebuilt. Writes are journaled
//! ahead: [`Journal::begin`] records a `pending` row before the file changes, [`Journal::commit`]
//! marks it `done` after; [`Journal::recover`] settles rows a crash left pending.

use std::path::Path;

use chrono::{SecondsFormat, Utc};
use mnemo_core::{ChangeSource, Error, ErrorCode, Result};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use crate::db::{self, MigrateOutcome};

mod authors;
mod forgotten;
mod proposals;
mod schema;
mod usage;

pub use forgotten::forgotten_key;
pub use mnemo_core::ChangeOp;
pub use proposals::{
    AcceptChoice, FileEdit, NewProposal, Proposal, ProposalOrigin, ProposalPage, ProposalStatus,
    ProposalSummary,
};
pub use usage::MemoryUsage;

use schema::MIGRATIONS;

/// The change that undid change `c` and is not itself undone (a redo puts `c` back).
const CHANGE_UNDONE_BY: &str =
    "(SELECT u.id FROM changes u WHERE u.undoes = c.id AND u.state = 'done'
    AND NOT EXISTS (SELECT 1 FROM changes r WHERE r.undoes = u.id AND r.state = 'done')
    ORDER BY u.id DESC LIMIT 1) AS undone_by";

/// The group that undid group `g` and is not itself undone.
const GROUP_UNDONE_BY: &str = "(SELECT u.id FROM groups u WHERE u.undoes = g.id
    AND NOT EXISTS (SELECT 1 FROM groups r WHERE r.undoes = u.id)
    ORDER BY u.id DESC LIMIT 1) AS undone_by";

/// One change of [`Journal::begin_many`]: workspace, path, bytes before and after.
pub type PendingRow<'a> = (&'a str, &'a str, Option<&'a [u8]>, Option<&'a [u8]>);

/// Who is writing: the source, and the change group (one job's changes) if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    /// Who made the change.
    pub source: ChangeSource,
    /// The change group it belongs to (`None`: a single change).
    pub group: Option<i64>,
}

impl From<ChangeSource> for Origin {
    fn from(source: ChangeSource) -> Self {
        Self {
            source,
            group: None,
        }
    }
}

/// A change group: the changes one job (an extraction run, a dream, a group undo…) made.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::GroupInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroupInfo {
    pub id: i64,
    pub workspace: String,
    pub kind: String,
    pub task: Option<String>,
    pub label: String,
    pub at: String,
    pub undoes: Option<i64>,
    pub undone_by: Option<i64>,
    pub changes: Vec<ChangeSummary>,
}

/// Largest content kept verbatim; larger sides keep only their hash.
pub const MAX_KEPT_BYTES: usize = crate::fsutil::MAX_FILE_BYTES as usize;

/// One journaled change, without its content.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::ChangeSummary`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeSummary {
    pub id: i64,
    pub workspace: String,
    pub path: String,
    pub source: ChangeSource,
    pub at: String,
    pub op: ChangeOp,
    /// The change this one undid, if it is an undo.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undoes: Option<i64>,
    pub group: Option<i64>,
    pub undone_by: Option<i64>,
}

/// One journaled change with its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Id, path, source, time.
    pub summary: ChangeSummary,
    /// Content before (`None`: the file did not exist, or was too large — see `before_hash`).
    pub before: Option<Vec<u8>>,
    /// Content after (`None`: deleted, or too large).
    pub after: Option<Vec<u8>>,
    /// Hash before (`None`: the file did not exist).
    pub before_hash: Option<String>,
    /// Hash after (`None`: deleted).
    pub after_hash: Option<String>,
    /// The secrets the content before held (`github_token (line 3)`): its text was not kept.
    pub before_secret: Option<String>,
    /// The secrets the content after held: its text was not kept.
    pub after_secret: Option<String>,
}

impl Change {
    /// Why this change cannot be undone from the journal, if it cannot: the content before was
    /// too large to keep, or held a secret. `None` when it can.
    #[must_use]
    pub fn unrestorable(&self) -> Option<Error> {
        if self.before_hash.is_none() || self.before.is_some() {
            return None;
        }
        let path = &self.summary.path;
        let id = self.summary.id;
        Some(match &self.before_secret {
            Some(rules) => Error::new(
                ErrorCode::InvalidContent,
                format!(
                    "change {id} cannot be undone: before it, {path} held what looks like a secret ({rules}), and Mnemo never keeps secrets, so it has no copy of that text. Restore it from your own copy if you need it."
                ),
            ),
            None => Error::new(
                ErrorCode::TooLarge,
                format!(
                    "change {id} replaced {path}, a file too large to keep in the journal; it cannot be undone"
                ),
            ),
        })
    }
}

/// The journal database.
pub struct Journal {
    conn: Connection,
}

fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The secrets a side holds, if any (the secret gate: such a side is kept as its hash only).
fn secret_in(b: Option<&[u8]>) -> Option<String> {
    b.and_then(|b| crate::secrets::held(&String::from_utf8_lossy(b)))
}

/// The bytes of a side the journal keeps: none when too large or when it holds a secret.
fn keep(b: Option<&[u8]>) -> Option<&[u8]> {
    b.filter(|b| b.len() <= MAX_KEPT_BYTES && secret_in(Some(b)).is_none())
}

impl Journal {
    /// Open (or create) the journal. A corrupt journal is an error, never silently replaced:
    /// it is history that cannot be rebuilt.
    pub fn open(path: &Path) -> Result<Self> {
        let mut conn = db::open(path, true).map_err(|e| {
            Error::new(
                if db::is_corruption(&e) {
                    ErrorCode::Corrupt
                } else {
                    ErrorCode::Io
                },
                format!("opening the journal {}: {e}", path.display()),
            )
        })?;
        match db::migrate(&mut conn, "journal", MIGRATIONS) {
            Ok(MigrateOutcome::Ready) => Ok(Self { conn }),
            Ok(MigrateOutcome::TooNew { found, known }) => Err(Error::new(
                ErrorCode::Corrupt,
                format!(
                    "{} has schema version {found}, this Mnemo knows {known}: upgrade Mnemo",
                    path.display()
                ),
            )),
            Err(e) => Err(Error::new(
                if db::is_corruption(&e) {
                    ErrorCode::Corrupt
                } else {
                    ErrorCode::Io
                },
                format!(
                    "the journal {} is unreadable ({e}); move it aside to start a new history",
                    path.display()
                ),
            )),
        }
    }

    /// Record a change about to happen. Returns its id.
    #[allow(clippy::too_many_arguments)]
    pub fn begin(
        &self,
        workspace: &str,
        path: &str,
        origin: impl Into<Origin>,
        before: Option<&[u8]>,
        before_hash: Option<&str>,
        after: Option<&[u8]>,
        after_hash: Option<&str>,
        undoes: Option<i64>,
    ) -> Result<i64> {
        self.insert(
            workspace,
            path,
            origin.into(),
            (before, before_hash, None),
            (after, after_hash),
            undoes,
        )
    }

    fn insert(
        &self,
        workspace: &str,
        path: &str,
        origin: Origin,
        (before, before_hash, before_withheld): (Option<&[u8]>, Option<&str>, Option<&str>),
        (after, after_hash): (Option<&[u8]>, Option<&str>),
        undoes: Option<i64>,
    ) -> Result<i64> {
        let op = match (before_hash, after_hash) {
            (None, Some(_)) => "create",
            (Some(_), None) => "delete",
            _ => "modify",
        };
        self.conn
            .execute(
                "INSERT INTO changes (workspace, path, source, at, op, before, after, before_hash, after_hash, undoes, grp, before_secret, after_secret)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![workspace, path, origin.source.as_str(), now(), op, keep(before), keep(after), before_hash, after_hash, undoes, origin.group, secret_in(before).or(before_withheld.map(str::to_owned)), secret_in(after)],
            )
            .map_err(db::err("writing the journal"))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// [`Journal::begin`] for many changes of one job in one transaction (one flush): each
    /// `(workspace, path, before, after)` with its hashes. Returns their ids, in order.
    pub fn begin_many(&self, origin: Origin, rows: &[PendingRow<'_>]) -> Result<Vec<i64>> {
        self.begin_many_undoing(origin, rows, &[])
    }

    /// [`Journal::begin_many`] where row `i` undoes change `undoes[i]` (an undo of a group
    /// written in steps; a shorter `undoes` leaves the rest undoing nothing).
    pub fn begin_many_undoing(
        &self,
        origin: Origin,
        rows: &[PendingRow<'_>],
        undoes: &[Option<i64>],
    ) -> Result<Vec<i64>> {
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(db::err("writing the journal"))?;
        let mut ids = Vec::with_capacity(rows.len());
        for (i, (workspace, path, before, after)) in rows.iter().enumerate() {
            let (bh, ah) = (
                before.map(crate::fsutil::hash),
                after.map(crate::fsutil::hash),
            );
            ids.push(self.insert(
                workspace,
                path,
                origin,
                (*before, bh.as_deref(), None),
                (*after, ah.as_deref()),
                undoes.get(i).copied().flatten(),
            )?);
        }
        tx.commit().map_err(db::err("writing the journal"))?;
        Ok(ids)
    }

    /// Settle many pending changes in one transaction: `done` applied, `dropped` did not happen.
    pub fn settle_many(&self, done: &[i64], dropped: &[i64]) -> Result<()> {
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(db::err("writing the journal"))?;
        for id in done {
            self.commit(*id)?;
        }
        for id in dropped {
            self.abort(*id)?;
        }
        tx.commit().map_err(db::err("writing the journal"))
    }

    /// Mark a change as applied.
    pub fn commit(&self, id: i64) -> Result<()> {
        let n = self
            .conn
            .execute(
                "UPDATE changes SET state = 'done' WHERE id = ?1 AND state = 'pending'",
                [id],
            )
            .map_err(db::err("writing the journal"))?;
        if n == 1 {
            Ok(())
        } else {
            Err(Error::new(
                ErrorCode::Corrupt,
                format!(
                    "journal entry {id} vanished before it was committed; the file was written — see `mnemo history`"
                ),
            ))
        }
    }

    /// Drop a change that did not happen (the write failed).
    pub fn abort(&self, id: i64) -> Result<()> {
        self.conn
            .execute(
                "DELETE FROM changes WHERE id = ?1 AND state = 'pending'",
                [id],
            )
            .map(|_| ())
            .map_err(db::err("writing the journal"))
    }

    /// Record an already-applied change in one step (changes seen by the watcher). `before`:
    /// bytes, hash, and the secrets it held when its bytes were withheld (the index keeps none
    /// of a file holding a secret).
    pub fn record(
        &self,
        workspace: &str,
        path: &str,
        origin: impl Into<Origin>,
        before: (Option<&[u8]>, Option<&str>, Option<&str>),
        after: (Option<&[u8]>, Option<&str>),
    ) -> Result<i64> {
        let id = self.insert(workspace, path, origin.into(), before, after, None)?;
        self.commit(id)?;
        Ok(id)
    }

    /// Rows left `pending`: (id, workspace, path). A row stays pending only while its write is
    /// under way, or forever if the writer crashed; [`Journal::settle`] decides which.
    pub fn pending(&self) -> Result<Vec<(i64, String, String)>> {
        let mut st = self
            .conn
            .prepare("SELECT id, workspace, path FROM changes WHERE state = 'pending'")
            .map_err(db::err("reading the journal"))?;
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .and_then(Iterator::collect)
            .map_err(db::err("reading the journal"))
    }

    /// Settle a pending row given the hash now on disk: kept when it matches the row's
    /// after-hash (the write happened), dropped otherwise. Call it holding the workspace's write
    /// lock, so a write still under way is never mistaken for a crashed one.
    pub fn settle(&self, id: i64, current_hash: Option<&str>) -> Result<()> {
        let e = db::err("writing the journal");
        let kept = self
            .conn
            .execute(
                "UPDATE changes SET state = 'done' WHERE id = ?1 AND state = 'pending' AND after_hash IS ?2",
                params![id, current_hash],
            )
            .map_err(&e)?;
        if kept == 0 {
            self.conn
                .execute(
                    "DELETE FROM changes WHERE id = ?1 AND state = 'pending'",
                    [id],
                )
                .map_err(&e)?;
        }
        Ok(())
    }

    /// Settle every pending row (single-process use: tests, tools).
    pub fn recover(&self, current_hash: impl Fn(&str, &str) -> Option<String>) -> Result<usize> {
        let pending = self.pending()?;
        for (id, ws, path) in &pending {
            self.settle(*id, current_hash(ws, path).as_deref())?;
        }
        Ok(pending.len())
    }

    /// Changes, newest first, optionally for one workspace and one path.
    pub fn history(
        &self,
        workspace: Option<&str>,
        path: Option<&str>,
        limit: usize,
    ) -> Result<Vec<ChangeSummary>> {
        let mut st = self
            .conn
            .prepare_cached(
                &format!("SELECT id, workspace, path, source, at, op, undoes, grp, {CHANGE_UNDONE_BY} FROM changes c
                 WHERE state = 'done' AND (?1 IS NULL OR workspace = ?1) AND (?2 IS NULL OR path = ?2)
                 ORDER BY id DESC LIMIT ?3"),
            )
            .map_err(db::err("reading the journal"))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        st.query_map(params![workspace, path, limit], summary_row)
            .and_then(Iterator::collect)
            .map_err(db::err("reading the journal"))
    }

    /// One change with its content.
    pub fn get(&self, id: i64) -> Result<Change> {
        self.conn
            .query_row(
                &format!("SELECT id, workspace, path, source, at, op, undoes, grp, before, after, before_hash, after_hash, before_secret, after_secret, {CHANGE_UNDONE_BY}
                 FROM changes c WHERE id = ?1 AND state = 'done'"),
                [id],
                change_row,
            )
            .optional()
            .map_err(db::err("reading the journal"))?
            .ok_or_else(|| Error::not_found(format!("no change {id}: see `mnemo history`")))
    }

    /// Open a change group for one job's changes; pass the id in [`Origin::group`].
    pub fn begin_group(
        &self,
        workspace: &str,
        kind: &str,
        task: Option<&str>,
        label: &str,
        undoes: Option<i64>,
    ) -> Result<i64> {
        // A label is built from words a person or a file gave (an import's file name, a chat's
        // title): it passes the secret gate like every byte kept.
        let label = crate::secrets::redact(label).0;
        self.conn
            .execute(
                "INSERT INTO groups (workspace, kind, task, label, at, undoes) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![workspace, kind, task, label, now(), undoes],
            )
            .map_err(db::err("writing the journal"))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// A change group with its changes (oldest first). `not_found` for an unknown id.
    pub fn group(&self, id: i64) -> Result<GroupInfo> {
        let mut info = self
            .conn
            .query_row(
                &format!("SELECT id, workspace, kind, task, label, at, undoes, {GROUP_UNDONE_BY} FROM groups g WHERE id = ?1"),
                [id],
                |r| {
                    Ok(GroupInfo {
                        id: r.get(0)?,
                        workspace: r.get(1)?,
                        kind: r.get(2)?,
                        task: r.get(3)?,
                        label: r.get(4)?,
                        at: r.get(5)?,
                        undoes: r.get(6)?,
                        undone_by: r.get(7)?,
                        changes: Vec::new(),
                    })
                },
            )
            .optional()
            .map_err(db::err("reading the journal"))?
            .ok_or_else(|| {
                Error::not_found(format!("no change group {id}: see `mnemo history`"))
            })?;
        info.changes = self
            .group_changes(id)?
            .into_iter()
            .map(|c| c.summary)
            .collect();
        Ok(info)
    }

    /// The newest group of one kind (`dream`, `extract`…) in a workspace.
    pub fn last_group(&self, workspace: &str, kind: &str) -> Result<Option<i64>> {
        self.conn
            .query_row(
                "SELECT id FROM groups WHERE workspace = ?1 AND kind = ?2 ORDER BY id DESC LIMIT 1",
                [workspace, kind],
                |r| r.get(0),
            )
            .optional()
            .map_err(db::err("reading the journal"))
    }

    /// The group that undid group `id` and is still in effect, if any.
    pub fn group_undone_by(&self, id: i64) -> Result<Option<i64>> {
        self.conn
            .query_row(
                &format!("SELECT {GROUP_UNDONE_BY} FROM groups g WHERE id = ?1"),
                [id],
                |r| r.get(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(db::err("reading the journal"))
    }

    /// Every applied change of a group, with content, oldest first.
    pub fn group_changes(&self, id: i64) -> Result<Vec<Change>> {
        let mut st = self
            .conn
            .prepare_cached(
                &format!("SELECT id, workspace, path, source, at, op, undoes, grp, before, after, before_hash, after_hash, before_secret, after_secret, {CHANGE_UNDONE_BY}
                 FROM changes c WHERE grp = ?1 AND state = 'done' ORDER BY id"),
            )
            .map_err(db::err("reading the journal"))?;
        st.query_map([id], change_row)
            .and_then(Iterator::collect)
            .map_err(db::err("reading the journal"))
    }

    /// Forget a group that holds no change (a job that wrote nothing); `true` when it was removed.
    pub fn discard_group_if_empty(&self, id: i64) -> Result<bool> {
        self.conn
            .execute(
                "DELETE FROM groups WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM changes WHERE grp = ?1)",
                [id],
            )
            .map(|n| n > 0)
            .map_err(db::err("writing the journal"))
    }

    /// The newest change recorded for a path whose result has this hash (who made it?).
    pub fn source_of(
        &self,
        workspace: &str,
        path: &str,
        after_hash: Option<&str>,
    ) -> Result<Option<ChangeSource>> {
        self.conn
            .query_row(
                "SELECT source FROM changes WHERE workspace = ?1 AND path = ?2 AND after_hash IS ?3
                 ORDER BY id DESC LIMIT 1",
                params![workspace, path, after_hash],
                |r| r.get::<_, String>(0),
            )
            .optional()
            .map_err(db::err("reading the journal"))?
            .map(|s| s.parse())
            .transpose()
    }
}

fn change_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Change> {
    Ok(Change {
        summary: summary_row(r)?,
        before: r.get(8)?,
        after: r.get(9)?,
        before_hash: r.get(10)?,
        after_hash: r.get(11)?,
        before_secret: r.get(12)?,
        after_secret: r.get(13)?,
    })
}

fn summary_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ChangeSummary> {
    let source: String = r.get(3)?;
    Ok(ChangeSummary {
        id: r.get(0)?,
        workspace: r.get(1)?,
        path: r.get(2)?,
        source: source.parse().unwrap_or(ChangeSource::Watcher),
        at: r.get(4)?,
        op: ChangeOp::parse(&r.get::<_, String>(5)?),
        undoes: r.get(6)?,
        group: r.get(7)?,
        undone_by: r.get("undone_by")?,
    })
}

#[cfg(test)]
mod tests;
