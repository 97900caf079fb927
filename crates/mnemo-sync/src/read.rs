//! A sync's view of this home: its memory files, and the head overlaid with them.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use mnemo_core::{Error, Result};

use super::Syncer;
use super::channel::Scope;
use super::extras::Extras;
use super::git::{Git, Tree, blob_id};
use super::layout::{self, Meta, Part, Reach};
use super::local::{Found, local_files};
use super::meta::{self, Switches};
use super::run::{Round, item, remote_flag};
use super::state::{State, SyncFlag, SyncSettings};
use mnemo_store::fsutil;
use mnemo_store::workspace::Workspace;

impl Syncer<'_> {
    /// This home's side: the head, with each synced workspace's files and bookkeeping overlaid.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read_ours(
        &self,
        git: &Git,
        settings: &SyncSettings,
        scope: &Scope,
        extras: Option<&dyn Extras>,
        st: &State,
        mut base: Tree,
        head: Tree,
        theirs: Tree,
    ) -> Result<Round> {
        let reach = Reach {
            claude: settings.claude,
            qwen: settings.qwen,
        };
        // Every folder here that syncs as each key: a project cloned twice, a worktree, a
        // project moved — their memories are one set of files, merged, never one folder
        // replacing another.
        let mut folders: BTreeMap<String, Vec<Workspace>> = BTreeMap::new();
        for ws in self.workspaces()? {
            if !scope.covers(&ws.id) {
                continue;
            }
            if let Ok(key) =
                layout::key_of(&ws, reach, &|p| mnemo_store::repo::identity(Path::new(p)))
            {
                folders.entry(key).or_default().push(ws);
            }
        }
        // Keys whose folder this round had to create: this home held none of their files.
        let mut created_now: BTreeSet<String> = BTreeSet::new();
        // A Mnemo workspace another home created arrives here too.
        {
            let keys: BTreeSet<String> = theirs
                .keys()
                .filter_map(|p| layout::split(p).map(|(k, _)| k))
                .collect();
            for key in keys {
                if folders.contains_key(&key) {
                    continue;
                }
                if let Some(id) = layout::mnemo_id(&key)
                    && scope.covers(id)
                {
                    let memory = self.home().root.join("workspaces").join(id).join("memory");
                    if !memory.is_dir() {
                        created_now.insert(key.clone());
                    }
                    std::fs::create_dir_all(&memory)
                        .map_err(|e| Error::io(format!("creating {}", memory.display()), &e))?;
                    folders.insert(key.clone(), vec![self.workspace(id)?]);
                }
            }
        }
        // The folders that synced as the key last time first: the first names the key.
        for (key, group) in &mut folders {
            if let Some(known) = st.keys.get(key).and_then(|k| k.folders.as_ref()) {
                group.sort_by_key(|w| !known.contains(&w.id));
            }
        }
        let mapped: BTreeMap<String, Workspace> = folders
            .iter()
            .map(|(k, g)| (k.clone(), g[0].clone()))
            .collect();
        let mut holds = BTreeMap::new();
        for ws in folders.values().flatten() {
            // The index (and so MEMORY.md) current first: a sync killed after a file's write
            // and before its indexing left it behind.
            self.sync(ws)?;
            let hold = self.hold_writes(ws)?;
            // Under the lock no Mnemo writer is midway: a temp file now is one a killed writer
            // left behind.
            if ws.memory_root.is_dir() {
                let swept = hold.root()?.sweep_temps();
                if swept > 0 {
                    tracing::info!(workspace = %ws.id, swept, "removed temp files a killed write left");
                }
            }
            // Mnemo's own MEMORY.md, rebuilt if a killed sync left it behind its files (writes
            // only when it differs; another tool's MEMORY.md is rebuilt only after a write).
            if ws.kind == mnemo_core::WorkspaceKind::Mnemo {
                self.write_memory_md(ws, mnemo_core::ChangeSource::Sync)?;
            }
            holds.insert(ws.id.clone(), hold);
        }
        let mut ours = head.clone();
        let mut held_trees: HashMap<String, Tree> = HashMap::new();
        let mut bytes = HashMap::new();
        let mut local: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        let mut flagged_here: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut local_sessions = BTreeMap::new();
        let mut flagged: BTreeMap<String, Vec<SyncFlag>> = BTreeMap::new();
        let mut refused_theirs = BTreeSet::new();
        for (path, it) in &theirs {
            if let Some((key, Part::Memory(rel))) = layout::split(path)
                && mapped.contains_key(&key)
                && let Some(why) = meta::refusal(&rel, Some(&it.mode), None)
            {
                refused_theirs.insert(path.clone());
                flagged
                    .entry(key)
                    .or_default()
                    .push(remote_flag(&rel, &why));
            }
        }
        for (key, group) in &folders {
            let prefix = format!("{key}/memory/");
            let ks = st.keys.get(key);
            // Which folders held every file of the key after its last sync: a file missing
            // from one of them was deleted there; a folder new to the key deleted nothing.
            let known: BTreeSet<&str> = match ks.and_then(|k| k.folders.as_ref()) {
                Some(f) => f.iter().map(String::as_str).collect(),
                None if group.len() == 1 => BTreeSet::from([group[0].id.as_str()]),
                None => BTreeSet::new(),
            };
            // Gone here: deleted only if this home held it after its last sync of this key (a
            // folder that appeared since, or a file that never came here, deletes nothing: what
            // the remote holds is written here instead).
            let held = if created_now.contains(key) {
                BTreeSet::new()
            } else {
                held_paths(git, st, key, &mut held_trees)
            };
            let behind = ks.map(|k| &k.behind);
            // What each folder says of each path: its blob, or `None` (deleted there).
            let mut opinions: BTreeMap<String, Vec<Option<String>>> = BTreeMap::new();
            // Each folder's files first: whether another folder holds a path decides below
            // what a missing copy means.
            let (listed, all_present): (Vec<_>, Vec<BTreeSet<String>>) = group
                .iter()
                .map(|ws| {
                    let files = local_files(&ws.memory_root, &|rel| {
                        head.get(&layout::memory_path(key, rel))
                            .map(|i| i.id.clone())
                    });
                    let present = files
                        .iter()
                        .map(|f| layout::memory_path(key, &f.rel))
                        .collect();
                    (files, present)
                })
                .unzip();
            for (i, (ws, files)) in group.iter().zip(listed).enumerate() {
                let present = &all_present[i];
                let elsewhere = |p: &String| {
                    all_present
                        .iter()
                        .enumerate()
                        .any(|(j, other)| j != i && other.contains(p))
                };
                let mine = local.entry(ws.id.clone()).or_default();
                for f in files {
                    let path = layout::memory_path(key, &f.rel);
                    let why = match f.found {
                        // As the head holds it: checked when it was committed, its bytes in git.
                        Found::Same(id) => {
                            mine.insert(f.rel.clone(), id.clone());
                            opinions.entry(path).or_default().push(Some(id));
                            continue;
                        }
                        Found::Read(b, id) => {
                            // Bytes the head already holds passed these checks when committed.
                            let why = if head.get(&path).map(|i| &i.id) == Some(&id) {
                                None
                            } else {
                                meta::refusal(&f.rel, None, Some(&b))
                            };
                            if why.is_none() {
                                mine.insert(f.rel.clone(), id.clone());
                                bytes.insert(id.clone(), b);
                                // Left behind by earlier syncs (flagged, or held open): its
                                // changes are taken against the blob it was last in step with,
                                // and what came from other homes since is kept.
                                let id = match behind.and_then(|b| b.get(&f.rel)) {
                                    Some(was) if was.as_ref() != base.get(&path).map(|i| &i.id) => {
                                        // Its changes since `was`, rebased onto the base.
                                        merge_versions(
                                            git,
                                            &mut bytes,
                                            &f.rel,
                                            was.as_ref(),
                                            Some(&id),
                                            base.get(&path).map(|i| &i.id),
                                        )?
                                    }
                                    _ => Some(id),
                                };
                                opinions.entry(path).or_default().push(id);
                                continue;
                            }
                            why
                        }
                        Found::Refused(why) => Some(why),
                    };
                    if let Some(why) = why {
                        // Not sent: ours keeps what was synced before, and the file here is
                        // never overwritten until it can be sent again.
                        flagged_here
                            .entry(ws.id.clone())
                            .or_default()
                            .insert(f.rel.clone());
                        let shown = if ws.id == group[0].id {
                            f.rel.clone()
                        } else {
                            format!("{} (in {})", f.rel, fsutil::printable(&ws.id))
                        };
                        flagged.entry(key.clone()).or_default().push(SyncFlag {
                            path: shown,
                            why: format!("not sent: {why}"),
                            side: "here".into(),
                        });
                    }
                }
                // Deleted in a folder that held the key's files after the last sync.
                if known.contains(ws.id.as_str()) {
                    let mut candidates: Vec<&String> = Vec::new();
                    for p in &held {
                        if present.contains(p) || !head.contains_key(p) {
                            continue;
                        }
                        // A copy a sync wrote here and an undo took back, while another folder
                        // of the key holds the file: the folder is as before that sync, which
                        // deletes nothing (the file is the other folder's, and comes back here).
                        if elsewhere(p) && self.undid_sync_copy(&ws.id, &p[prefix.len()..])? {
                            continue;
                        }
                        candidates.push(p);
                    }
                    let ids: Vec<String> = candidates.iter().map(|p| head[*p].id.clone()).collect();
                    let contents = git.blobs(&ids, fsutil::MAX_FILE_BYTES)?;
                    for p in candidates {
                        let rel = &p[prefix.len()..];
                        let it = &head[p];
                        let b = contents.get(&it.id).map_or(&[][..], Vec::as_slice);
                        // Over the cap (not loaded) or refused: it never came here.
                        if contents.contains_key(&it.id)
                            && meta::refusal(rel, Some(&it.mode), Some(b)).is_none()
                        {
                            opinions.entry(p.clone()).or_default().push(None);
                        }
                    }
                }
            }
            // A path in the head that no folder here holds or deleted: never held here (a
            // folder that appeared since) — the remote's copy is written here.
            let stale: Vec<String> = head
                .range(prefix.clone()..)
                .take_while(|(p, _)| p.starts_with(&prefix))
                .map(|(p, _)| p.clone())
                .filter(|p| !all_present.iter().any(|s| s.contains(p)) && !opinions.contains_key(p))
                .collect();
            for p in stale {
                if !held.contains(&p) {
                    ours.remove(&p);
                    base.remove(&p);
                }
            }
            // Each path: the folders' versions merged against the base, one after another.
            for (p, ops) in opinions {
                let b = base.get(&p).map(|i| i.id.clone());
                let mut acc = b.clone();
                for v in ops {
                    if acc == b || v == acc {
                        acc = v;
                    } else if v != b {
                        acc = merge_versions(
                            git,
                            &mut bytes,
                            &p[prefix.len()..],
                            b.as_ref(),
                            acc.as_ref(),
                            v.as_ref(),
                        )?;
                    }
                }
                match acc {
                    Some(id) => {
                        ours.insert(p, item(id));
                    }
                    None => {
                        ours.remove(&p);
                    }
                }
            }
            let primary = &group[0];
            // Chat sessions, when asked: added and appended to, never deleted by a sync (one
            // missing here keeps what was synced).
            if let Some(x) = extras {
                for (name, b) in x.list(primary)? {
                    if !super::extras::valid_name(&name) {
                        continue;
                    }
                    if let Some(why) = meta::content_refusal(&b) {
                        flagged.entry(key.clone()).or_default().push(SyncFlag {
                            path: format!("sessions/{name}"),
                            why: format!("not sent: {why}"),
                            side: "here".into(),
                        });
                        continue;
                    }
                    let id = blob_id(&b);
                    bytes.insert(id.clone(), b);
                    let path = layout::session_path(key, &name);
                    local_sessions.insert(path.clone(), id.clone());
                    ours.insert(path, item(id));
                }
            }
            // Bookkeeping: what any of the key's folders forgot is forgotten.
            let mut forgotten = BTreeSet::new();
            for ws in group {
                forgotten.extend(self.forgotten_keys(&ws.id)?);
            }
            let mut switches = Switches::new();
            for section in ["auto_dream", "auto_extract"] {
                if let Some(on) =
                    mnemo_store::settings::switch(&self.home().root, section, &primary.id)
                {
                    switches.insert(section.to_owned(), on);
                }
            }
            let conflicts = ks.map(|k| k.conflicts.clone()).unwrap_or_default();
            let metas: [(Meta, Option<Vec<u8>>); 3] = [
                (
                    Meta::Forgotten,
                    (!forgotten.is_empty()).then(|| meta::encode_set(&forgotten)),
                ),
                (
                    Meta::Switches,
                    (!switches.is_empty()).then(|| meta::encode_json(&switches)),
                ),
                (
                    Meta::Conflicts,
                    (!conflicts.is_empty()).then(|| meta::encode_json(&conflicts)),
                ),
            ];
            for (m, content) in metas {
                let path = layout::meta_path(key, m);
                match content {
                    Some(b) => {
                        let id = blob_id(&b);
                        bytes.insert(id.clone(), b);
                        ours.insert(path, item(id));
                    }
                    None => {
                        ours.remove(&path);
                    }
                }
            }
        }
        Ok(Round {
            base,
            head,
            theirs,
            ours,
            bytes,
            mapped,
            folders,
            local,
            flagged_here,
            flagged,
            refused_theirs,
            holds,
            local_sessions,
            label: "Sync: changes from the remote".to_owned(),
        })
    }
}

/// The paths of `key` this home held after its last sync of that key: the key's files in the
/// commit it last synced at (none when it never synced here, or its folder was missing since).
pub(super) fn held_paths(
    git: &Git,
    st: &State,
    key: &str,
    cache: &mut HashMap<String, Tree>,
) -> BTreeSet<String> {
    let Some(c) = st.keys.get(key).and_then(|k| k.base.as_deref()) else {
        return BTreeSet::new();
    };
    if !cache.contains_key(c) {
        let Ok(t) = git.tree(c) else {
            return BTreeSet::new();
        };
        cache.insert(c.to_owned(), t);
    }
    let prefix = format!("{key}/memory/");
    cache[c]
        .range(prefix.clone()..)
        .take_while(|(p, _)| p.starts_with(&prefix))
        .map(|(p, _)| p.clone())
        .collect()
}

/// The text of blob `id`, from this round's bytes or from git.
fn text_of(
    git: &Git,
    bytes: &HashMap<String, Vec<u8>>,
    id: Option<&String>,
) -> Result<Option<String>> {
    let Some(id) = id else { return Ok(None) };
    if let Some(b) = bytes.get(id) {
        return Ok(Some(String::from_utf8_lossy(b).into_owned()));
    }
    Ok(git
        .blobs(std::slice::from_ref(id), fsutil::MAX_FILE_BYTES)?
        .remove(id)
        .map(|b| String::from_utf8_lossy(&b).into_owned()))
}

/// Two folders' versions of one path merged against the base (`None`: absent): entries both
/// kept, a deletion against an edit keeps the edit.
fn merge_versions(
    git: &Git,
    bytes: &mut HashMap<String, Vec<u8>>,
    rel: &str,
    base: Option<&String>,
    a: Option<&String>,
    b: Option<&String>,
) -> Result<Option<String>> {
    let (tb, ta, tt) = (
        text_of(git, bytes, base)?,
        text_of(git, bytes, a)?,
        text_of(git, bytes, b)?,
    );
    let m = meta::merge_file(rel, tb.as_deref(), ta.as_deref(), tt.as_deref());
    Ok(m.text.map(|t| {
        let b = t.into_bytes();
        let id = blob_id(&b);
        bytes.insert(id.clone(), b);
        id
    }))
}
