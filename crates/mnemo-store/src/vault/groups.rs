//! Change groups (SPEC §1.3): the changes one job made, shown as one row and undone as one —
//! every file of the group or none.

use std::collections::BTreeMap;

use mnemo_core::{ChangeSource, Error, ErrorCode, MemoryChanged, Result};
use serde::Serialize;

use super::{Vault, guard};
use crate::fsutil::{self, ReadOutcome};
use crate::journal::{Change, GroupInfo, Origin};
use crate::memory_md;

/// What undoing a group did.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct GroupUndo {
    /// The group undone.
    pub undone: i64,
    /// The new group holding the undo (itself undoable).
    pub group: i64,
    /// Workspace id.
    pub workspace: String,
    /// Files restored, relative to the memory root.
    pub paths: Vec<String>,
    /// What a person should know about where the undo goes: set when the group was a sync's
    /// (changes another machine made): the undo travels with the next sync to every machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Said when a sync's group is undone (issue 32: it deleted the memory on the machine that wrote
/// it, with no word).
pub const SYNC_UNDO_NOTE: &str = "These changes came from another machine through sync. Undoing     them here is a change like any other: the next sync carries it to every machine that syncs,     the one that made them included. To keep them elsewhere, redo this before the next sync.";

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
        let mut done: Vec<usize> = Vec::new();
        for (i, r) in restores.iter().enumerate() {
            let (rel, now) = &current[i];
            let wrote = self.write_journaled(
                &ws,
                root,
                rel,
                origin,
                Some(r.last),
                now.as_deref(),
                r.before.as_deref(),
            );
            if let Err(e) = wrote {
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
            self.index_written(&ws, root, rel, r.before.as_deref());
            done.push(i);
        }
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

impl Vault {
    /// Remember these summaries as forgotten in a workspace (SPEC §4.4): agents will not write
    /// them back; a person can.
    pub fn add_forgotten(&self, workspace: &str, summaries: &[String]) -> Result<()> {
        guard(&self.journal).add_forgotten(workspace, summaries)
    }

    /// When a summary was forgotten in a workspace, if it was.
    pub fn forgotten_at(&self, workspace: &str, summary: &str) -> Result<Option<String>> {
        guard(&self.journal).forgotten_at(workspace, summary)
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
