//! Change groups: the changes one job made, shown as one row and undone as one —
//! every file of the group or none.

use std::collections::BTreeMap;

use mnemo_core::{ChangeSource, Error, ErrorCode, MemoryChanged, Result};
use serde::Serialize;

use super::{Vault, guard};
use crate::fsutil::{self, ReadOutcome};
use crate::journal::{Change, GroupInfo, Origin};
use crate::memory_md;

/// What undoing a group did.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::GroupUndo`.
#[derive(Debug, Clone, Serialize)]
pub struct GroupUndo {
    pub undone: i64,
    pub group: i64,
    pub workspace: String,
    pub paths: Vec<String>,
    /// What a person should know about where the undo goes: set when the group was a sync's
    /// (changes another machine made): the undo travels with the next sync to every machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Said when a sync's group is undone: the next sync carries the undo to the machine that wrote
/// the memory too, deleting it there (which once happened with no word).
pub const SYNC_UNDO_NOTE: &str = "These changes came from another machine through sync. Undoing \
    them here is a change like any other: the next sync carries it to every machine that syncs, \
    the one that made them included. To keep them elsewhere, redo this before the next sync.";

/// One file of a group: where it must be now, and what it goes back to.
struct Restore {
    rel: String,
    /// The group's last change of this file (the undo points at it).
    last: i64,
    /// Hash the file must have now (`None`: the group left it deleted).
    expected: Option<String>,
    /// Bytes from before the group's first change of it (`None`: it did not exist).
    before: Option<Vec<u8>>,
}

fn plan(id: i64, changes: Vec<Change>) -> Result<Vec<Restore>> {
    let mut by_path: BTreeMap<String, Restore> = BTreeMap::new();
    for c in changes {
        // MEMORY.md is regenerated after the undo instead of restored.
        if c.summary.path == memory_md::FILE_NAME {
            continue;
        }
        if let Some(r) = by_path.get_mut(&c.summary.path) {
            r.last = c.summary.id;
            r.expected = c.after_hash;
            continue;
        }
        if let Some(e) = c.unrestorable() {
            return Err(Error::new(
                e.code,
                format!("group {id} cannot be undone: {}", e.message),
            ));
        }
        by_path.insert(
            c.summary.path.clone(),
            Restore {
                rel: c.summary.path,
                last: c.summary.id,
                expected: c.after_hash,
                before: c.before,
            },
        );
    }
    Ok(by_path.into_values().collect())
}

impl Vault {
    /// Open a change group for one job (`kind`: extract, dream, forget, remember) in a workspace;
    /// write with `Origin { source, group: Some(id) }`.
    pub fn begin_group(
        &self,
        workspace: &str,
        kind: &str,
        task: Option<&str>,
        label: &str,
    ) -> Result<i64> {
        guard(&self.journal).begin_group(workspace, kind, task, label, None)
    }

    /// The newest change group of one kind (`dream`, `extract`…) in a workspace.
    pub fn last_group(&self, workspace: &str, kind: &str) -> Result<Option<i64>> {
        guard(&self.journal).last_group(workspace, kind)
    }

    /// The group that undid group `id` and is still in effect, if any.
    pub fn group_undone_by(&self, id: i64) -> Result<Option<i64>> {
        guard(&self.journal).group_undone_by(id)
    }

    /// A change group with its changes. `not_found` for an unknown id.
    pub fn group(&self, id: i64) -> Result<GroupInfo> {
        guard(&self.journal).group(id)
    }

    /// Forget a group its job left empty; `true` when it was removed.
    pub fn discard_group_if_empty(&self, id: i64) -> Result<bool> {
        guard(&self.journal).discard_group_if_empty(id)
    }

    /// Undo a whole group: every file goes back to its bytes from before the group, or — when
    /// any of them changed since (`conflict`, naming them) — nothing is written. The undo is one
    /// new group. A write failing midway puts back the files already restored.
    pub fn undo_group(&self, id: i64, source: ChangeSource) -> Result<GroupUndo> {
        let info = self.group(id)?;
        if let Some(by) = info.undone_by {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "change group {id} is already undone (by group {by}); to bring it back, undo group {by}"
                ),
            ));
        }
        let ws = self.workspace(&info.workspace)?;
        let restores = plan(id, guard(&self.journal).group_changes(id)?)?;
        if restores.is_empty() {
            return Err(Error::not_found(format!(
                "change group {id} changed no memory file: nothing to undo"
            )));
        }
        let _lock = self.write_lock(&ws)?;
        let root = crate::rootdir::RootDir::open_or_create(&ws.memory_root)?;
        let root = &root;
        let mut current = Vec::with_capacity(restores.len());
        let mut changed_since = Vec::new();
        for r in &restores {
            let rel = fsutil::normalise(&r.rel)?;
            let bytes = match root.read_capped(&rel)? {
                ReadOutcome::Bytes(b) => Some(b),
                ReadOutcome::Missing => None,
                ReadOutcome::TooLarge(_) => {
                    changed_since.push(rel.clone());
                    None
                }
            };
            if bytes.as_deref().map(fsutil::hash) != r.expected {
                changed_since.push(rel.clone());
            }
            current.push((rel, bytes));
        }
        if !changed_since.is_empty() {
            changed_since.dedup();
            return Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "group {id} cannot be undone: changed since — {}. Undo those later changes first (see `mnemo history`); nothing was written",
                    changed_since.join(", ")
                ),
            ));
        }
        let group = guard(&self.journal).begin_group(
            &ws.id,
            "undo",
            None,
            &format!("undo of group {id} ({})", info.label),
            Some(id),
        )?;
        let origin = Origin {
            source,
            group: Some(group),
        };
        // Written a step at a time (an import of 10,000 notes took 43 s to undo file
        // by file): one journal transaction, one flush, one index transaction per step.
        let mut done: Vec<usize> = Vec::new();
        let all: Vec<usize> = (0..restores.len()).collect();
        for step in all.chunks(UNDO_STEP) {
            if let Err(e) = self.undo_step(&ws, root, origin, &restores, &current, step, &mut done)
            {
                // All or none: put back what this undo already restored (journaled too).
                for &j in done.iter().rev() {
                    let (rel, now) = &current[j];
                    let back = self.write_journaled(
                        &ws,
                        root,
                        rel,
                        origin,
                        None,
                        restores[j].before.as_deref(),
                        now.as_deref(),
                    );
                    if let Err(e2) = back {
                        self.warn(format!(
                            "putting back {rel} after a failed group undo: {e2}"
                        ));
                    }
                    self.index_written(&ws, root, rel, now.as_deref());
                }
                return Err(e);
            }
        }
        remove_emptied_folders(
            root,
            restores
                .iter()
                .filter(|r| r.before.is_none())
                .map(|r| r.rel.as_str()),
        );
        if let Err(e) = self.write_memory_md_in(&ws, root, origin) {
            self.warn(format!("regenerating MEMORY.md in {} failed: {e}", ws.id));
        }
        let paths: Vec<String> = restores.into_iter().map(|r| r.rel).collect();
        self.bus.emit(&MemoryChanged {
            workspace: ws.id.clone(),
            paths: paths.clone(),
            source,
        });
        Ok(GroupUndo {
            undone: id,
            group,
            workspace: ws.id,
            paths,
            note: (info.kind == "sync").then(|| SYNC_UNDO_NOTE.to_owned()),
        })
    }
}

/// Files an undo restores in one step (as an import writes them).
const UNDO_STEP: usize = super::IMPORT_STEP;

/// Folders an undo emptied by removing the files a group created: removed, deepest first, up
/// to the root (undoing an import used to leave its empty folders behind). A folder holding
/// anything else stays.
fn remove_emptied_folders<'a>(
    root: &crate::rootdir::RootDir,
    removed: impl Iterator<Item = &'a str>,
) {
    let mut dirs: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for rel in removed {
        let mut at = rel;
        while let Some((dir, _)) = at.rsplit_once('/') {
            dirs.insert(dir.to_owned());
            at = dir;
        }
    }
    // Longest first: a folder's children before it.
    let mut dirs: Vec<String> = dirs.into_iter().collect();
    dirs.sort_by_key(|d| std::cmp::Reverse(d.matches('/').count()));
    for dir in dirs {
        if let Ok(Some((parent, name))) = root.parent(&dir, false) {
            parent.remove_empty_dir(&name);
        }
    }
}

impl Vault {
    /// One step of [`Vault::undo_group`]: the restores `step` (indexes into `restores` and
    /// `current`), journaled in one transaction, swapped in only over the bytes checked
    /// before, indexed in one transaction. Each one restored is added to `done`; one changed
    /// meanwhile fails the step (`conflict`).
    #[allow(clippy::too_many_arguments)]
    fn undo_step(
        &self,
        ws: &crate::workspace::Workspace,
        root: &crate::rootdir::RootDir,
        origin: Origin,
        restores: &[Restore],
        current: &[(String, Option<Vec<u8>>)],
        step: &[usize],
        done: &mut Vec<usize>,
    ) -> Result<()> {
        let rows: Vec<crate::journal::PendingRow<'_>> = step
            .iter()
            .map(|&i| {
                (
                    ws.id.as_str(),
                    current[i].0.as_str(),
                    current[i].1.as_deref(),
                    restores[i].before.as_deref(),
                )
            })
            .collect();
        let undoes: Vec<Option<i64>> = step.iter().map(|&i| Some(restores[i].last)).collect();
        let journal = guard(&self.journal);
        let ids = journal.begin_many_undoing(origin, &rows, &undoes)?;
        let items: Vec<crate::replace::Replacement<'_>> = step
            .iter()
            .map(|&i| crate::replace::Replacement {
                root,
                rel: &current[i].0,
                new: restores[i].before.as_deref(),
                expected: current[i].1.as_deref(),
            })
            .collect();
        let wrote = match crate::replace::replace_all_if(&items) {
            Ok(w) => w,
            Err(e) => {
                drop(journal);
                self.warn(format!("an undo step in {} failed midway: {e}", ws.id));
                return Err(e);
            }
        };
        let mut ok = Vec::new();
        let mut dropped = Vec::new();
        for (id, w) in ids.iter().zip(&wrote) {
            if *w { ok.push(*id) } else { dropped.push(*id) }
        }
        journal.settle_many(&ok, &dropped)?;
        drop(journal);
        let written: Vec<usize> = step
            .iter()
            .zip(&wrote)
            .filter(|(_, w)| **w)
            .map(|(i, _)| *i)
            .collect();
        self.index_written_many(
            ws,
            root,
            &written
                .iter()
                .map(|&i| (current[i].0.as_str(), restores[i].before.as_deref()))
                .collect::<Vec<_>>(),
        );
        done.extend(&written);
        if let Some(&i) = step.iter().zip(&wrote).find(|(_, w)| !**w).map(|(i, _)| i) {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "{} changed while it was being undone: nothing of the undo was kept — undo \
                     again",
                    current[i].0
                ),
            ));
        }
        Ok(())
    }

    /// Remember these summaries as forgotten in a workspace: agents will not write
    /// them back; a person can.
    pub fn add_forgotten(&self, workspace: &str, summaries: &[String]) -> Result<()> {
        guard(&self.journal).add_forgotten(workspace, summaries)
    }

    /// When a summary was forgotten in a workspace, if it was.
    pub fn forgotten_at(&self, workspace: &str, summary: &str) -> Result<Option<String>> {
        guard(&self.journal).forgotten_at(workspace, summary)
    }

    /// Whether `path` is missing from a workspace because an undo took back the sync that
    /// created it (see [`crate::journal::Journal::undid_sync_copy`]).
    pub fn undid_sync_copy(&self, workspace: &str, path: &str) -> Result<bool> {
        guard(&self.journal).undid_sync_copy(workspace, path)
    }

    /// Every forgotten hash of a workspace.
    pub fn forgotten_keys(&self, workspace: &str) -> Result<std::collections::BTreeSet<String>> {
        guard(&self.journal).forgotten_keys(workspace)
    }

    /// Add and remove forgotten hashes (sync).
    pub fn change_forgotten_keys(
        &self,
        workspace: &str,
        add: &[String],
        remove: &[String],
    ) -> Result<()> {
        guard(&self.journal).change_forgotten_keys(workspace, add, remove)
    }

    /// A person wrote these summaries again: agents may write them too from now on.
    pub fn remove_forgotten(&self, workspace: &str, summaries: &[String]) -> Result<usize> {
        guard(&self.journal).remove_forgotten(workspace, summaries)
    }
}
