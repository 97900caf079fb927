//! Who wrote what a file holds now: the change whose result it is, an undo followed
//! back to the change whose result it put back. A conversation record is the person's words only
//! when its present text is the record writer's (or the person's own hand's). And whether a
//! file is missing because a sync's copy of it was undone (not because someone deleted it).

use mnemo_core::{ChangeSource, Result};
use rusqlite::{OptionalExtension as _, params};

use super::Journal;
use crate::db;

/// Changes of one path looked at, newest first (a record gains one a turn).
const LOOKED_AT: i64 = 2_000;

impl Journal {
    /// The source of the newest change to `path` whose result has the hash `hash` — through an
    /// undo, the source of the change whose result the undo put back. `None` when no journaled
    /// change made those bytes (the file was there before Mnemo first indexed it, or is not as
    /// the journal last saw it).
    pub fn author_of(
        &self,
        workspace: &str,
        path: &str,
        hash: &str,
    ) -> Result<Option<ChangeSource>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT id, source, undoes FROM changes
                 WHERE workspace = ?1 AND path = ?2 AND after_hash = ?3 AND state = 'done'
                 ORDER BY id DESC LIMIT ?4",
            )
            .map_err(db::err("reading the journal"))?;
        let rows: Vec<(i64, String, Option<i64>)> = st
            .query_map(params![workspace, path, hash, LOOKED_AT], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .and_then(Iterator::collect)
            .map_err(db::err("reading the journal"))?;
        // An undo restores the bytes from before the change it undid: those are the result of
        // an older change with the same hash.
        let mut below = i64::MAX;
        for (id, source, undoes) in rows {
            if id >= below {
                continue;
            }
            match undoes {
                Some(u) => below = u,
                None => return source.parse().map(Some),
            }
        }
        Ok(None)
    }

    /// Whether `path` is missing because an undo took back the sync that created it: the newest
    /// change to it is a deletion undoing a sync's creation. The folder is then as it was before
    /// that sync (it never held the file by anyone's hand), which is not a person's deletion.
    pub fn undid_sync_copy(&self, workspace: &str, path: &str) -> Result<bool> {
        let row: Option<(String, Option<String>, Option<String>)> = self
            .conn
            .query_row(
                "SELECT c.op, u.source, u.op FROM changes c LEFT JOIN changes u ON u.id = c.undoes
                 WHERE c.workspace = ?1 AND c.path = ?2 AND c.state = 'done'
                 ORDER BY c.id DESC LIMIT 1",
                params![workspace, path],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(db::err("reading the journal"))?;
        Ok(matches!(
            row,
            Some((op, Some(source), Some(undone)))
                if op == "delete" && source == ChangeSource::Sync.as_str() && undone == "create"
        ))
    }
}
