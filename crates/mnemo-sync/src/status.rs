//! The sync status (no network) and resolving a conflict.

use std::collections::BTreeSet;
use std::path::Path;

use mnemo_core::{ChangeSource, Error, ErrorCode, Result};

use super::Syncer;
use super::channel;
use super::git::{Git, Tree};
use super::layout::{self, Reach};
use super::meta::{self, SyncConflict};
use super::state::{self, State, SyncSettings};
use mnemo_store::fsutil::{self};

use super::local::{local_ids, read};
use super::read::held_paths;
use super::run::{FileCounts, RemoteSync, WorkspaceSync};

impl Syncer<'_> {
    /// The sync status: no network (incoming counts are as of the last fetch).
    pub fn sync_status(&self) -> Result<RemoteSync> {
        let home = self.home().root.clone();
        let settings = state::load_settings(&home)?;
        let st = State::load(&home);
        self.status_of(&settings, &st)
    }

    /// See [`crate::VaultSync::open_conflicts`].
    pub fn open_conflicts(&self, workspace: &str) -> Vec<String> {
        let home = self.home().root.clone();
        let mut st = State::load(&home);
        if st.keys.values().all(|k| k.conflicts.is_empty()) {
            return Vec::new();
        }
        let (Ok(settings), Ok(ws)) = (state::load_settings(&home), self.workspace(workspace))
        else {
            return Vec::new();
        };
        let reach = Reach {
            claude: settings.claude,
            qwen: settings.qwen,
        };
        let Ok(key) = layout::key_of(&ws, reach, &|p| mnemo_store::repo::identity(Path::new(p)))
        else {
            return Vec::new();
        };
        let Some(ks) = st.keys.remove(&key) else {
            return Vec::new();
        };
        let mut out: Vec<String> = still_open_in(&ws, ks.conflicts)
            .into_iter()
            .map(|c| c.path)
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The status from the settings, the state and each remote's repository here.
    pub(super) fn status_of(&self, settings: &SyncSettings, st: &State) -> Result<RemoteSync> {
        let reach = Reach {
            claude: settings.claude,
            qwen: settings.qwen,
        };
        let chans = channel::channels(&self.home().root, settings, None);
        let mut s = RemoteSync {
            remote: settings.remote.clone(),
            auto: settings.auto,
            commit: None,
            ahead: 0,
            behind: 0,
            last_run: st.last_run.clone(),
            workspaces: Vec::new(),
            elsewhere: Vec::new(),
        };
        // Each remote's head and last-fetched trees, read once.
        let mut views: Vec<Option<View>> = Vec::new();
        for ch in &chans {
            let view = if ch.dir.join("HEAD").is_file() {
                let git = Git::open(&ch.dir)?;
                let (h, r) = (git.local_head(), git.remote_head());
                let tree = |c: Option<&str>| -> Result<Tree> {
                    c.map(|c| git.tree(c))
                        .transpose()
                        .map(Option::unwrap_or_default)
                };
                let (head, remote) = (tree(h.as_deref())?, tree(r.as_deref())?);
                if !ch.team {
                    if let (Some(h), Some(r)) = (&h, &r) {
                        let (a, b) = git.ahead_behind(h, r);
                        (s.ahead, s.behind) = (
                            u32::try_from(a).unwrap_or(u32::MAX),
                            u32::try_from(b).unwrap_or(u32::MAX),
                        );
                    }
                    s.commit.clone_from(&h);
                }
                Some(View {
                    head,
                    remote: r.is_some().then_some(remote),
                    git,
                })
            } else {
                None
            };
            views.push(view);
        }
        let mut seen_keys = BTreeSet::new();
        let mut ids: Vec<String> = Vec::new();
        let mut held_trees = std::collections::HashMap::new();
        for ws in self.workspaces()? {
            let at = chans.iter().position(|c| c.scope.covers(&ws.id));
            // No remote carries it: no need to ask git for its repository's identity (the app
            // reads the status every minute).
            let key = match at {
                Some(_) => {
                    layout::key_of(&ws, reach, &|p| mnemo_store::repo::identity(Path::new(p)))
                }
                None => Err(
                    "no sync remote is set: `mnemo sync remote set URL`, or share it with a team"
                        .to_owned(),
                ),
            };
            let mut w = WorkspaceSync {
                workspace: ws.id.clone(),
                label: ws.label.clone(),
                key: None,
                remote: at.map(|i| chans[i].url.clone()),
                shared: at.is_some_and(|i| chans[i].team),
                not_synced: None,
                last_synced: None,
                pending: 0,
                incoming: 0,
                changed: Vec::new(),
                group: None,
                conflicts: Vec::new(),
                flagged: Vec::new(),
                shares_with: Vec::new(),
                sent: FileCounts::default(),
                received: FileCounts::default(),
            };
            match key {
                Err(why) => w.not_synced = Some(why),
                Ok(k) => {
                    seen_keys.insert((at, k.clone()));
                    let ks = st.keys.get(&k).cloned().unwrap_or_default();
                    w.last_synced = ks.last_synced;
                    w.flagged = ks.flagged;
                    // Conflicts still open in the files as they are now.
                    w.conflicts = still_open_in(&ws, ks.conflicts);
                    if let Some(view) = at.and_then(|i| views[i].as_ref()) {
                        let held = held_paths(&view.git, st, &k, &mut held_trees);
                        (w.pending, w.incoming) = counts(&ws.memory_root, &k, view, &held);
                    }
                    w.key = Some(k);
                }
            }
            ids.push(w.workspace.clone());
            s.workspaces.push(w);
        }
        // Folders here that sync as one key (a project cloned twice, a worktree) share one memory.
        let keys: Vec<Option<String>> = s.workspaces.iter().map(|w| w.key.clone()).collect();
        for (i, w) in s.workspaces.iter_mut().enumerate() {
            if let Some(k) = &keys[i] {
                w.shares_with = s_ids(&keys, k, i, &ids);
            }
        }
        // What the home's remote carries that no workspace here takes.
        for (i, ch) in chans.iter().enumerate() {
            let Some(view) = views[i].as_ref().filter(|_| !ch.team) else {
                continue;
            };
            let tree = view.remote.as_ref().unwrap_or(&view.head);
            let mut files: std::collections::BTreeMap<String, u32> = Default::default();
            for p in tree.keys() {
                if let Some((k, layout::Part::Memory(_))) = layout::split(p) {
                    *files.entry(k).or_default() += 1;
                }
            }
            // Memory on another branch of the remote (a `master` someone committed to by hand).
            for (branch, commit) in view.git.other_remote_branches() {
                let Ok(t) = view.git.tree(&commit) else {
                    continue;
                };
                let n = t
                    .keys()
                    .filter(|p| matches!(layout::split(p), Some((_, layout::Part::Memory(_)))))
                    .count();
                if n > 0 {
                    let branch = fsutil::printable(&mnemo_store::secrets::redact(&branch).0);
                    s.elsewhere.push(super::run::RemoteKey {
                        key: format!("branch {branch}"),
                        files: u32::try_from(n).unwrap_or(u32::MAX),
                        why: format!(
                            "memory committed to the remote's branch `{branch}`, which Mnemo does \
                             not read: it syncs through `{}`. Merge `{branch}` into `{}` with git \
                             (or commit there) to bring it to every machine",
                            super::git::BRANCH,
                            super::git::BRANCH
                        ),
                    });
                }
            }
            for (key, n) in files {
                if seen_keys.contains(&(Some(i), key.clone())) {
                    continue;
                }
                let why = elsewhere_why(&key, settings);
                s.elsewhere.push(super::run::RemoteKey {
                    key: fsutil::printable(&mnemo_store::secrets::redact(&key).0),
                    files: n,
                    why,
                });
            }
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
                layout::key_of(w, reach, &|p| mnemo_store::repo::identity(Path::new(p))).as_deref()
                    == Ok(&key)
            })
            .ok_or_else(|| Error::not_found(format!("no workspace here syncs as {key}")))?;
        // "Delete it, as Ana did": the other side's edit is all that kept the file.
        let delete = c.kind == "deleted_and_edited"
            && keep
                .and_then(|k| c.choices.get(k))
                .is_some_and(|ch| ch.texts.is_empty());
        if delete {
            self.mutate(&ws, &c.path, source, None, |current, rel| {
                current.ok_or_else(|| {
                    Error::not_found(format!("`{rel}` is gone: the conflict is over"))
                })?;
                Ok(None)
            })?;
        } else if keep.is_some() {
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

impl Syncer<'_> {
    /// Drop this home's copy of the sync history (`sync/repo.git` and the team repositories),
    /// keeping every memory file and the open conflicts: the next sync is a first sync, which
    /// merges the files here with whatever the remote holds and deletes nothing. The cure when
    /// a remote was replaced by one with another history.
    pub fn sync_reset_local(&self) -> Result<()> {
        let home = self.home().root.clone();
        let dir = state::sync_dir(&home);
        fsutil::private_dir(&dir)
            .map_err(|e| Error::io(format!("creating {}", dir.display()), &e))?;
        let _lock = fsutil::lock_file(&dir.join(".sync.lock"))?;
        let mut st = State::load(&home);
        // The state first: a kill after it leaves old repositories no base points into.
        for ks in st.keys.values_mut() {
            ks.base = None;
        }
        st.save(&home)?;
        for d in [dir.join("repo.git"), dir.join("team")] {
            match std::fs::remove_dir_all(&d) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(format!("removing {}", d.display()), &e)),
            }
        }
        Ok(())
    }
}

/// Why a key the remote carries is not taken here, and what brings it.
fn elsewhere_why(key: &str, settings: &SyncSettings) -> String {
    let tool = key.rsplit('/').next().unwrap_or("");
    if key == "qwen-user" {
        return if settings.qwen {
            "Qwen Code's memory of you from another machine: it arrives once Qwen Code has a \
             memory folder on this computer"
                .to_owned()
        } else {
            "Qwen Code sync is switched off here".to_owned()
        };
    }
    match (key.starts_with("project/"), tool) {
        (true, "claude") if !settings.claude => "Claude Code sync is switched off here".to_owned(),
        (true, "qwen") if !settings.qwen => "Qwen Code sync is switched off here".to_owned(),
        (true, "claude") => "a Claude Code project memory from another machine: it arrives once \
             a clone of that repository on this computer has a Claude Code memory folder (use \
             Claude Code there once), and nothing of it is deleted meanwhile"
            .to_owned(),
        (true, "qwen") => "a Qwen Code project memory from another machine: it arrives once a \
             clone of that repository on this computer has a Qwen Code memory folder"
            .to_owned(),
        (true, _) => "a Mnemo workspace bound to a repository on another machine: it arrives \
             once that repository is cloned here and bound to a workspace"
            .to_owned(),
        _ => "a workspace another machine syncs that this home does not take (it is shared \
             with a team here, or cannot be named here)"
            .to_owned(),
    }
}

/// A remote's trees as this home last saw them.
struct View {
    head: Tree,
    /// As last fetched (`None`: the remote has nothing yet).
    remote: Option<Tree>,
    git: Git,
}

/// Files changed here since the last sync, and on the remote not yet merged here.
fn counts(root: &Path, key: &str, view: &View, held: &BTreeSet<String>) -> (u32, u32) {
    let prefix = format!("{key}/memory/");
    let mut pending = 0usize;
    let mut here = BTreeSet::new();
    let handle = mnemo_store::rootdir::RootDir::open(root).ok();
    for f in local_ids(root) {
        let path = layout::memory_path(key, &f.rel);
        if let Ok(id) = &f.id
            && view.head.get(&path).map(|i| &i.id) != Some(id)
            && let Some(handle) = &handle
            && let Some(Ok(b)) = read(handle, &f.rel)
            && meta::refusal(&f.rel, None, Some(&b)).is_none()
        {
            pending += 1;
        }
        here.insert(path);
    }
    // Deleted here: only what this home held after its last sync (the rest is still to come).
    let mut to_come = 0usize;
    for p in view
        .head
        .keys()
        .filter(|p| p.starts_with(&prefix) && !here.contains(*p))
    {
        if held.contains(p) {
            pending += 1;
        } else if view
            .remote
            .as_ref()
            .is_none_or(|r| r.get(p) == view.head.get(p))
        {
            to_come += 1;
        }
    }
    let incoming = to_come
        + view.remote.as_ref().map_or(0, |remote| {
            view.head
                .keys()
                .chain(remote.keys())
                .filter(|p| p.starts_with(&prefix))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .filter(|p| view.head.get(*p) != remote.get(*p))
                .count()
        });
    (
        u32::try_from(pending).unwrap_or(u32::MAX),
        u32::try_from(incoming).unwrap_or(u32::MAX),
    )
}

/// The conflicts still open in the workspace's files as they are now (a person may have settled
/// one by editing the file).
fn still_open_in(ws: &mnemo_store::Workspace, conflicts: Vec<SyncConflict>) -> Vec<SyncConflict> {
    conflicts
        .into_iter()
        .filter(|c| {
            let t = std::fs::read_to_string(ws.memory_root.join(&c.path)).ok();
            meta::still_open(c, t.as_deref())
        })
        .collect()
}

/// The other workspaces (of `ids`, by position) whose key is `key`.
fn s_ids(keys: &[Option<String>], key: &str, me: usize, ids: &[String]) -> Vec<String> {
    keys.iter()
        .enumerate()
        .filter(|(j, k)| *j != me && k.as_deref() == Some(key))
        .map(|(j, _)| ids[j].clone())
        .collect()
}
