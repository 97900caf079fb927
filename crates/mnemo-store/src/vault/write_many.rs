//! Many writes to one workspace as one step: a sync receiving thousands of files
//! journals them in one transaction, flushes the disk once, indexes them in one transaction and
//! announces them once — with the guarantees of [`Vault::mutate_held`] for each file: journaled
//! ahead, atomic, only over the bytes the caller expects.

use mnemo_core::{Error, ErrorCode, MemoryChanged, Result};

use super::{Vault, guard, not_a_memory};
use crate::doc::{self, DocKind};
use crate::fsutil::{self, ReadOutcome};
use crate::journal::Origin;
use crate::replace::{Replacement, replace_all_if};
use crate::vault::WriteHold;
use crate::workspace::Workspace;

/// One file of [`Vault::write_many_held`].
#[derive(Debug, Clone)]
pub struct ManyWrite {
    /// Relative to the workspace's memory folder.
    pub path: String,
    /// What the file must hold now, by git blob id (`None`: absent); anything else and nothing
    /// is written.
    pub expect: Option<String>,
    /// Its new bytes (`None`: delete it).
    pub new: Option<Vec<u8>>,
}

impl Vault {
    /// Write many files of `ws` as one step. Returns the files that changed, and whether every
    /// file held what the caller expected: when one did not (another program changed it), it
    /// is left as it is — if that was seen before the writes began nothing was written, else
    /// the others were (each at its new state, journaled) — and the caller merges again.
    pub fn write_many_held(
        &self,
        hold: &WriteHold,
        ws: &Workspace,
        origin: Origin,
        writes: &[ManyWrite],
    ) -> Result<(Vec<String>, bool)> {
        let (written, left) = self.write_many(hold, ws, origin, writes, false)?;
        Ok((written, left.is_empty()))
    }

    /// As [`Vault::write_many_held`], but a file that does not hold what the caller expected
    /// (another program changed it) is left as it is and the others are written: returns the
    /// files that changed and the paths left as they were (a sync merges those at its next
    /// round instead of starting this one again).
    pub fn write_many_held_each(
        &self,
        hold: &WriteHold,
        ws: &Workspace,
        origin: Origin,
        writes: &[ManyWrite],
    ) -> Result<(Vec<String>, Vec<String>)> {
        self.write_many(hold, ws, origin, writes, true)
    }

    fn write_many(
        &self,
        hold: &WriteHold,
        ws: &Workspace,
        origin: Origin,
        writes: &[ManyWrite],
        each: bool,
    ) -> Result<(Vec<String>, Vec<String>)> {
        let mut left: Vec<String> = Vec::new();
        if hold.workspace != ws.id {
            return Err(Error::new(
                ErrorCode::Locked,
                format!("writing {} needs its own write lock", ws.id),
            ));
        }
        // Read and check every file first.
        let root = hold.root()?;
        let mut plan = Vec::new();
        for w in writes {
            let rel = fsutil::normalise(&w.path)?;
            if doc::doc_kind(&rel).is_none() {
                return Err(not_a_memory(&rel));
            }
            let current = match root.read_capped(&rel)? {
                ReadOutcome::Bytes(b) => Some(b),
                ReadOutcome::Missing => None,
                ReadOutcome::TooLarge(_) if each => {
                    left.push(rel);
                    continue;
                }
                ReadOutcome::TooLarge(_) => return Ok((Vec::new(), vec![rel])),
            };
            if current.as_deref().map(crate::fsutil::blob_id) != w.expect {
                if each {
                    left.push(rel);
                    continue;
                }
                return Ok((Vec::new(), vec![rel]));
            }
            if let Some(b) = &w.new
                && b.len() as u64 > fsutil::MAX_FILE_BYTES
            {
                return Err(Error::new(
                    ErrorCode::TooLarge,
                    format!(
                        "a memory file may hold at most {} bytes; `{rel}` would hold {}",
                        fsutil::MAX_FILE_BYTES,
                        b.len()
                    ),
                ));
            }
            if current.as_deref() == w.new.as_deref() {
                continue;
            }
            plan.push((rel, current, w.new.as_deref()));
        }
        if plan.is_empty() {
            return Ok((Vec::new(), left));
        }
        let rows: Vec<crate::journal::PendingRow<'_>> = plan
            .iter()
            .map(|(rel, cur, new)| (ws.id.as_str(), rel.as_str(), cur.as_deref(), *new))
            .collect();
        let journal = guard(&self.journal);
        let ids = journal.begin_many(origin, &rows)?;
        let items: Vec<Replacement<'_>> = plan
            .iter()
            .map(|(rel, cur, new)| Replacement {
                root,
                rel,
                new: *new,
                expected: cur.as_deref(),
            })
            .collect();
        let done = match replace_all_if(&items) {
            Ok(d) => d,
            Err(e) => {
                // What was written is settled from the disk by the journal's recovery.
                drop(journal);
                self.warn(format!("a batch write to {} failed midway: {e}", ws.id));
                return Err(e);
            }
        };
        let (ok, dropped): (Vec<i64>, Vec<i64>) = {
            let mut ok = Vec::new();
            let mut dropped = Vec::new();
            for (id, d) in ids.iter().zip(&done) {
                if *d { ok.push(*id) } else { dropped.push(*id) }
            }
            (ok, dropped)
        };
        journal.settle_many(&ok, &dropped)?;
        drop(journal);
        let written: Vec<usize> = (0..plan.len()).filter(|i| done[*i]).collect();
        self.index_written_many(
            ws,
            root,
            &written
                .iter()
                .map(|i| (plan[*i].0.as_str(), plan[*i].2))
                .collect::<Vec<_>>(),
        );
        let paths: Vec<String> = written.iter().map(|i| plan[*i].0.clone()).collect();
        let topics = paths
            .iter()
            .any(|p| doc::doc_kind(p) == Some(DocKind::Topic));
        if topics {
            let deferred = guard(&self.deferred)
                .get_mut(&ws.id)
                .map(|(_, dirty)| *dirty = true)
                .is_some();
            if !deferred && let Err(e) = self.write_memory_md_in(ws, root, origin) {
                self.warn(format!("regenerating MEMORY.md in {} failed: {e}", ws.id));
            }
        }
        if !paths.is_empty() {
            self.bus.emit(&MemoryChanged {
                workspace: ws.id.clone(),
                paths: paths.clone(),
                source: origin.source,
            });
        }
        left.extend(
            (0..plan.len())
                .filter(|i| !done[*i])
                .map(|i| plan[i].0.clone()),
        );
        Ok((paths, left))
    }
}
