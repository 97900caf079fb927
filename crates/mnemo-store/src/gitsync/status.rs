//! The sync status (no network) and resolving a conflict.

use std::collections::BTreeSet;
use std::path::Path;

use mnemo_core::{ChangeSource, Error, ErrorCode, Result};

use super::git::{Git, blob_id};
use super::layout::{self, Reach};
use super::meta::{self, SyncConflict};
use super::state::{self, State, SyncSettings};
use crate::fsutil::{self};
use crate::vault::Vault;

use super::read::local_files;
use super::run::{RemoteSync, WorkspaceSync};

impl Vault {
    /// The sync status: no network (incoming counts are as of the last fetch).
    pub fn sync_status(&self) -> Result<RemoteSync> {
        let home = self.home().root.clone();
        let settings = state::load_settings(&home)?;
        let st = State::load(&home);
        let dir = state::sync_dir(&home).join("repo.git");
        if settings.remote.is_none() || !dir.join("HEAD").is_file() {
            let mut s = self.sync_status_with_none(&settings, &st)?;
            s.remote.clone_from(&settings.remote);
            return Ok(s);
        }
        let git = Git::open(&dir)?;
        self.sync_status_with(&git, &settings, &st)
    }

    fn sync_status_with_none(&self, settings: &SyncSettings, st: &State) -> Result<RemoteSync> {
        let reach = Reach {
            claude: settings.claude,
            qwen: settings.qwen,
        };
        let workspaces = self
            .workspaces()?
            .into_iter()
            .map(|ws| {
                let key = layout::key_of(&ws, reach, &|p| crate::repo::identity(Path::new(p)));
                WorkspaceSync {
                    workspace: ws.id.clone(),
                    label: ws.label,
                    pending: 0,
                    incoming: 0,
                    not_synced: key.as_ref().err().cloned(),
                    key: key.ok(),
                    last_synced: None,
                    changed: Vec::new(),
                    group: None,
                    conflicts: Vec::new(),
                    flagged: Vec::new(),
                }
            })
            .collect();
        Ok(RemoteSync {
            remote: None,
            auto: settings.auto,
            commit: None,
            ahead: 0,
            behind: 0,
            last_run: st.last_run.clone(),
            workspaces,
        })
    }

    pub(super) fn sync_status_with(
        &self,
        git: &Git,
        settings: &SyncSettings,
        st: &State,
    ) -> Result<RemoteSync> {
        let mut s = self.sync_status_with_none(settings, st)?;
        s.remote.clone_from(&settings.remote);
        let (h, r) = (git.local_head(), git.remote_head());
        if let (Some(h), Some(r)) = (&h, &r) {
            let (a, b) = git.ahead_behind(h, r);
            (s.ahead, s.behind) = (
                u32::try_from(a).unwrap_or(u32::MAX),
                u32::try_from(b).unwrap_or(u32::MAX),
            );
        }
        let head = h
            .as_deref()
            .map(|h| git.tree(h))
            .transpose()?
            .unwrap_or_default();
        let remote = r
            .as_deref()
            .map(|r| git.tree(r))
            .transpose()?
            .unwrap_or_default();
        s.commit = h;
        let mut seen_keys = BTreeSet::new();
        for w in &mut s.workspaces {
            let Some(key) = w.key.clone() else { continue };
            if !seen_keys.insert(key.clone()) {
                w.not_synced = Some(format!("another workspace here already syncs as {key}"));
                w.key = None;
                continue;
            }
            let ks = st.keys.get(&key).cloned().unwrap_or_default();
            w.last_synced = ks.last_synced;
            w.flagged = ks.flagged;
            let ws = self.workspace(&w.workspace)?;
            let prefix = format!("{key}/memory/");
            let files = local_files(&ws.memory_root);
            let mut pending = 0u32;
            let mut here = BTreeSet::new();
            for f in &files {
                let path = layout::memory_path(&key, &f.rel);
                here.insert(path.clone());
                if let Ok(b) = &f.bytes
                    && meta::refusal(&f.rel, None, Some(b)).is_none()
                    && head.get(&path).map(|i| &i.id) != Some(&blob_id(b))
                {
                    pending += 1;
                }
            }
            pending += u32::try_from(
                head.keys()
                    .filter(|p| p.starts_with(&prefix) && !here.contains(*p))
                    .count(),
            )
            .unwrap_or(0);
            w.pending = pending;
            if r.is_some() {
                let differs = |p: &&String| head.get(*p) != remote.get(*p);
                w.incoming = u32::try_from(
                    head.keys()
                        .chain(remote.keys())
                        .filter(|p| p.starts_with(&prefix))
                        .collect::<BTreeSet<_>>()
                        .into_iter()
                        .filter(differs)
                        .count(),
                )
                .unwrap_or(0);
            }
            // Conflicts still open in the files as they are now.
            w.conflicts = ks
                .conflicts
                .into_iter()
                .filter(|c| {
                    let t = std::fs::read_to_string(ws.memory_root.join(&c.path)).ok();
                    meta::still_open(c, t.as_deref())
                })
                .collect();
        }
        Ok(s)
    }

    /// Resolve a conflict: keep choice `keep` (`None`: keep every version as it is, and close
    /// it). The file changes through the normal write path, journaled as `source`; the choice
    /// reaches other homes with the next sync.
    pub fn sync_resolve(
        &self,
        id: &str,
        keep: Option<usize>,
        source: ChangeSource,
    ) -> Result<SyncConflict> {
        let home = self.home().root.clone();
        let dir = state::sync_dir(&home);
        let _lock = fsutil::lock_file(&dir.join(".sync.lock"))?;
        let mut st = State::load(&home);
        let (key, c) = st
            .keys
            .iter()
            .find_map(|(k, ks)| {
                ks.conflicts
                    .iter()
                    .find(|c| c.id == id)
                    .map(|c| (k.clone(), c.clone()))
            })
            .ok_or_else(|| {
                Error::not_found(format!(
                    "no open sync conflict `{id}`: `mnemo sync status` lists them"
                ))
            })?;
        if let Some(k) = keep
            && k >= c.choices.len()
        {
            return Err(Error::new(
                ErrorCode::InvalidArguments,
                format!(
                    "conflict `{id}` has {} choices (0–{})",
                    c.choices.len(),
                    c.choices.len() - 1
                ),
            ));
        }
        let settings = state::load_settings(&home)?;
        let reach = Reach {
            claude: settings.claude,
            qwen: settings.qwen,
        };
        let ws = self
            .workspaces()?
            .into_iter()
            .find(|w| {
                layout::key_of(w, reach, &|p| crate::repo::identity(Path::new(p))).as_deref()
                    == Ok(&key)
            })
            .ok_or_else(|| Error::not_found(format!("no workspace here syncs as {key}")))?;
        if keep.is_some() {
            self.mutate(&ws, &c.path, source, None, |current, rel| {
                let text = current
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .ok_or_else(|| {
                        Error::not_found(format!("`{rel}` is gone: the conflict is over"))
                    })?;
                Ok(Some(
                    meta::resolve_text(&c, &text, keep)
                        .unwrap_or(text)
                        .into_bytes(),
                ))
            })?;
        }
        if let Some(ks) = st.keys.get_mut(&key) {
            ks.conflicts.retain(|x| x.id != id);
        }
        st.save(&home)?;
        Ok(c)
    }
}
