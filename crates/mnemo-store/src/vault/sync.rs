//! Keeping the index in step with the files: stat-based sync, rebuild, the watcher's path
//! updates, and announcing changes made outside this process.

use std::collections::{BTreeMap, HashMap, HashSet};

use mnemo_core::{ChangeSource, ErrorCode, MemoryChanged, Result, WorkspaceKind};

use super::scan::walk;
use super::{SyncReport, Vault, guard};
use crate::doc::{self, DocKind, DocRecord};
use crate::fsutil;
use crate::journal::Journal;
use crate::rootdir::RootDir;
use crate::workspace::Workspace;

impl Vault {
    // ----- keeping the index in step with the files -----------------------------------------

    /// Bring one workspace's index up to date with its files (stat first, read only what
    /// changed). Changes made outside Mnemo are journaled (source `watcher`) and announced.
    pub fn sync(&self, ws: &Workspace) -> Result<SyncReport> {
        let (report, _) = self.sync_scope(ws, None)?;
        Ok(report)
    }

    /// Bring every workspace up to date.
    pub fn sync_all(&self) -> Result<SyncReport> {
        let mut total = SyncReport::default();
        for ws in self.workspaces()? {
            let r = self.sync(&ws)?;
            total.scanned += r.scanned;
            total.updated += r.updated;
            total.removed += r.removed;
        }
        Ok(total)
    }

    /// Drop the index and rebuild it from the files of every workspace (nothing journaled).
    pub fn rebuild(&self) -> Result<SyncReport> {
        // First record outside edits the index can still tell apart, so none are lost to history
        // (only where there is an earlier scan to compare with).
        for ws in self.workspaces()? {
            if guard(&self.index).was_synced(&ws.id)? {
                self.sync(&ws)?;
            }
        }
        guard(&self.index).batch(|b| b.clear())?;
        let mut total = SyncReport::default();
        for ws in self.workspaces()? {
            let (r, _) = self.sync_scope(&ws, None)?;
            total.scanned += r.scanned;
            total.updated += r.updated;
        }
        Ok(total)
    }

    /// Apply changes to specific paths (from the watcher). Returns the paths that changed and
    /// who changed them.
    pub fn apply_paths(
        &self,
        ws: &Workspace,
        rels: &[String],
    ) -> Result<Vec<(String, ChangeSource)>> {
        Ok(self.sync_scope(ws, Some(rels))?.1)
    }

    /// Remember the current hashes of a workspace's files (the watcher's starting point).
    pub fn seed_seen(&self, ws: &Workspace) -> Result<()> {
        let states = guard(&self.index).file_states(&ws.id)?;
        let mut seen = guard(&self.seen);
        for (path, st) in states {
            seen.insert((ws.id.clone(), path), Some(st.hash));
        }
        guard(&self.seeded).insert(ws.id.clone());
        Ok(())
    }

    pub(super) fn sync_scope(
        &self,
        ws: &Workspace,
        only: Option<&[String]>,
    ) -> Result<(SyncReport, Vec<(String, ChangeSource)>)> {
        let _lock = self.write_lock(ws)?;
        // The root held once for the whole pass (a missing root holds nothing).
        let root = match RootDir::open(&ws.memory_root) {
            Ok(r) => Some(r),
            Err(e) if e.code == ErrorCode::NotFound => None,
            Err(e) => return Err(e),
        };
        let mut report = SyncReport::default();
        let (candidates, first_time) = {
            let index = guard(&self.index);
            let first_time = !index.was_synced(&ws.id)?;
            let candidates = match only {
                // The watcher's path: look only at what changed, not the whole workspace.
                Some(rels) => rels.to_vec(),
                None => {
                    let stats = index.file_stats(&ws.id)?;
                    drop(index);
                    changed_files(root.as_ref(), &stats, &mut report)
                }
            };
            (candidates, first_time)
        };
        let seeded = only.is_none() && guard(&self.seeded).contains(&ws.id);
        // Stored states (hashes, for the journal) of what changed — of everything only when a
        // watching process must find what other processes changed.
        let known = {
            let index = guard(&self.index);
            if seeded {
                index.file_states(&ws.id)?
            } else {
                index.file_states_of(&ws.id, &candidates)?
            }
        };
        let mut records = self.analyze_all(root.as_ref(), &known, candidates);
        // Oldest first, so rowids follow recency after a rebuild too (see `index::search`).
        records.sort_by_key(|(_, r)| r.as_ref().map_or(i64::MIN, |r| r.mtime_ms));
        let mut changed: Vec<(String, ChangeSource)> = Vec::new();
        let mut topic_changed = false;
        let mut index = guard(&self.index);
        let journal = guard(&self.journal);
        for (rel, rec) in &records {
            let old_hash = known.get(rel).map(|o| o.hash.clone());
            let new_hash = rec.as_ref().map(|r| r.hash.clone());
            let seen_before =
                guard(&self.seen).insert((ws.id.clone(), rel.clone()), new_hash.clone());
            if old_hash != new_hash {
                if rec.is_some() {
                    report.updated += 1;
                } else {
                    report.removed += 1;
                }
                topic_changed |= doc::doc_kind(rel) == Some(DocKind::Topic);
                if !first_time {
                    let (old_raw, old_secret) = match &old_hash {
                        Some(_) => index.raw(&ws.id, rel)?.unwrap_or_default(),
                        None => (None, None),
                    };
                    journal.record(
                        &ws.id,
                        rel,
                        ChangeSource::Watcher,
                        (
                            old_raw.as_deref(),
                            old_hash.as_deref(),
                            old_secret.as_deref(),
                        ),
                        (
                            rec.as_ref().and_then(|r| r.raw.as_deref()),
                            new_hash.as_deref(),
                        ),
                    )?;
                }
                changed.push((rel.clone(), ChangeSource::Watcher));
            } else if only.is_some() && seen_before.flatten() != new_hash {
                // Already indexed by another Mnemo process: announce it with its journaled source.
                let src = journal
                    .source_of(&ws.id, rel, new_hash.as_deref())?
                    .unwrap_or(ChangeSource::Watcher);
                changed.push((rel.clone(), src));
            }
        }
        if seeded {
            self.changes_by_others(ws, &known, &records, &journal, &mut changed)?;
        }
        drop(journal);
        index.batch(|b| {
            b.mark_synced(&ws.id)?;
            for (rel, rec) in &records {
                match rec {
                    Some(r) => b.upsert(&ws.id, rel, r)?,
                    None => {
                        b.remove(&ws.id, rel)?;
                    }
                }
            }
            Ok(())
        })?;
        drop(index);
        if topic_changed
            && ws.kind == WorkspaceKind::Mnemo
            && let Err(e) = self.write_memory_md(ws, ChangeSource::Watcher)
        {
            self.warn(format!("regenerating MEMORY.md in {} failed: {e}", ws.id));
        }
        self.announce(ws, &changed);
        Ok((report, changed))
    }

    /// Read and analyse the candidate files — on every core when there are many (a rebuild):
    /// reading, hashing and tokenising are most of its time.
    fn analyze_all(
        &self,
        root: Option<&RootDir>,
        known: &HashMap<String, crate::index::FileState>,
        candidates: Vec<String>,
    ) -> Vec<(String, Option<DocRecord>)> {
        let one = |rel: String| -> Option<(String, Option<DocRecord>)> {
            let kind = doc::doc_kind(&rel)?;
            // A name holding control characters, `..` and the like: never read; forgotten if
            // it was indexed.
            if fsutil::normalise(&rel).is_err() {
                return known.contains_key(&rel).then_some((rel, None));
            }
            let Some(root) = root else {
                return Some((rel, None));
            };
            match doc::analyze_in(root, &rel, kind) {
                Ok(mut rec) => {
                    if let Some(r) = rec.as_mut() {
                        r.tokenize(&rel);
                    }
                    Some((rel, rec))
                }
                // A link leading out of the root: never read; forget it if it was indexed.
                Err(e) if e.code == ErrorCode::PathEscape => {
                    known.contains_key(&rel).then_some((rel, None))
                }
                // One unreadable file (permissions, say) must not block the whole workspace.
                Err(e) => {
                    self.warn(format!("skipped {}: {e}", root.shown(&rel).display()));
                    None
                }
            }
        };
        crate::par::map(candidates, 256, one)
            .into_iter()
            .flatten()
            .collect()
    }

    /// For a watched workspace during a full re-scan: files another Mnemo process changed (the
    /// index already agrees with the disk, but this process has not seen the change yet).
    pub(super) fn changes_by_others(
        &self,
        ws: &Workspace,
        known: &HashMap<String, crate::index::FileState>,
        records: &[(String, Option<DocRecord>)],
        journal: &Journal,
        changed: &mut Vec<(String, ChangeSource)>,
    ) -> Result<()> {
        let handled: HashSet<&String> = records.iter().map(|(r, _)| r).collect();
        let mut seen = guard(&self.seen);
        for (rel, st) in known {
            if handled.contains(rel) {
                continue;
            }
            let prev = seen
                .insert((ws.id.clone(), rel.clone()), Some(st.hash.clone()))
                .flatten();
            if prev.as_deref() != Some(st.hash.as_str()) {
                let src = journal
                    .source_of(&ws.id, rel, Some(&st.hash))?
                    .unwrap_or(ChangeSource::Watcher);
                changed.push((rel.clone(), src));
            }
        }
        let gone: Vec<String> = seen
            .iter()
            .filter(|((w, p), h)| {
                w == &ws.id && h.is_some() && !known.contains_key(p) && !handled.contains(p)
            })
            .map(|((_, p), _)| p.clone())
            .collect();
        for p in gone {
            seen.insert((ws.id.clone(), p.clone()), None);
            let src = journal
                .source_of(&ws.id, &p, None)?
                .unwrap_or(ChangeSource::Watcher);
            changed.push((p, src));
        }
        Ok(())
    }

    pub(super) fn announce(&self, ws: &Workspace, changed: &[(String, ChangeSource)]) {
        let mut by_source: BTreeMap<&str, (ChangeSource, Vec<String>)> = BTreeMap::new();
        for (p, s) in changed {
            by_source
                .entry(s.as_str())
                .or_insert((*s, Vec::new()))
                .1
                .push(p.clone());
        }
        for (_, (source, mut paths)) in by_source {
            paths.sort();
            self.bus.emit(&MemoryChanged {
                workspace: ws.id.clone(),
                paths,
                source,
            });
        }
    }
}

/// The files of a full scan that need reading: new or with other stats than the index has
/// (`stats`: path → (mtime ms, size)), and indexed paths no longer on disk.
fn changed_files(
    root: Option<&RootDir>,
    stats: &HashMap<String, (i64, i64)>,
    report: &mut SyncReport,
) -> Vec<String> {
    let found = root.map(walk).unwrap_or_default();
    report.scanned += found.len();
    let mut candidates = Vec::new();
    let mut still_there = 0;
    for (rel, meta) in &found {
        match stats.get(rel) {
            Some(&(mtime, size)) => {
                still_there += 1;
                if mtime != doc::mtime_ms(meta) || size != i64::try_from(meta.len()).unwrap_or(-1) {
                    candidates.push(rel.clone());
                }
            }
            None => candidates.push(rel.clone()),
        }
    }
    if still_there < stats.len() {
        let present: HashSet<&str> = found.iter().map(|(r, _)| r.as_str()).collect();
        candidates.extend(
            stats
                .keys()
                .filter(|k| !present.contains(k.as_str()))
                .cloned(),
        );
    }
    candidates
}
