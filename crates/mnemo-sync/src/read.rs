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
        let mut mapped: BTreeMap<String, Workspace> = BTreeMap::new();
        for ws in self.workspaces()? {
            if !scope.covers(&ws.id) {
                continue;
            }
            if let Ok(key) =
                layout::key_of(&ws, reach, &|p| mnemo_store::repo::identity(Path::new(p)))
            {
                mapped.entry(key).or_insert(ws);
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
                if mapped.contains_key(&key) {
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
                    mapped.insert(key.clone(), self.workspace(id)?);
                }
            }
        }
        let mut holds = BTreeMap::new();
        for (key, ws) in &mapped {
            // The index (and so MEMORY.md) current first: a sync killed after a file's write
            // and before its indexing left it behind.
            self.sync(ws)?;
            let hold = self.hold_writes(ws)?;
            // Mnemo's own MEMORY.md, rebuilt if a killed sync left it behind its files (writes
            // only when it differs; another tool's MEMORY.md is rebuilt only after a write).
            if ws.kind == mnemo_core::WorkspaceKind::Mnemo {
                self.write_memory_md(ws, mnemo_core::ChangeSource::Sync)?;
            }
            holds.insert(key.clone(), hold);
        }
        let mut ours = head.clone();
        let mut held_trees: HashMap<String, Tree> = HashMap::new();
        let mut bytes = HashMap::new();
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
        for (key, ws) in &mapped {
            let prefix = format!("{key}/memory/");
            let files = local_files(&ws.memory_root, &|rel| {
                head.get(&layout::memory_path(key, rel))
                    .map(|i| i.id.clone())
            });
            let present: BTreeSet<String> = files
                .iter()
                .map(|f| layout::memory_path(key, &f.rel))
                .collect();
            // Gone here: deleted only if this home held it after its last sync of this key (a
            // folder that appeared since, or a file that never came here, deletes nothing: what
            // the remote holds is written here instead).
            let held = if created_now.contains(key) {
                BTreeSet::new()
            } else {
                held_paths(git, st, key, &mut held_trees)
            };
            let mut candidates: Vec<&String> = Vec::new();
            for p in head
                .keys()
                .filter(|p| p.starts_with(&prefix) && !present.contains(*p))
            {
                if held.contains(p) {
                    candidates.push(p);
                } else {
                    ours.remove(p);
                    base.remove(p);
                }
            }
            let ids: Vec<String> = candidates.iter().map(|p| head[*p].id.clone()).collect();
            let contents = git.blobs(&ids, fsutil::MAX_FILE_BYTES)?;
            let gone: Vec<String> = candidates
                .into_iter()
                .filter(|p| {
                    let rel = &p[prefix.len()..];
                    let it = &head[*p];
                    let b = contents.get(&it.id).map_or(&[][..], Vec::as_slice);
                    // Over the cap (not loaded) or refused: it never came here.
                    contents.contains_key(&it.id)
                        && meta::refusal(rel, Some(&it.mode), Some(b)).is_none()
                })
                .cloned()
                .collect();
            for p in gone {
                ours.remove(&p);
            }
            for f in files {
                let path = layout::memory_path(key, &f.rel);
                let why = match f.found {
                    // As the head holds it: checked when it was committed, its bytes in git.
                    Found::Same(id) => {
                        ours.insert(path, item(id));
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
                            bytes.insert(id.clone(), b);
                            ours.insert(path, item(id));
                            continue;
                        }
                        why
                    }
                    Found::Refused(why) => Some(why),
                };
                if let Some(why) = why {
                    // Not sent: ours keeps what was synced before.
                    flagged.entry(key.clone()).or_default().push(SyncFlag {
                        path: f.rel.clone(),
                        why: format!("not sent: {why}"),
                        side: "here".into(),
                    });
                }
            }
            // Chat sessions, when asked: added and appended to, never deleted by a sync (one
            // missing here keeps what was synced).
            if let Some(x) = extras {
                for (name, b) in x.list(ws)? {
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
            // Bookkeeping.
            let forgotten = self.forgotten_keys(&ws.id)?;
            let mut switches = Switches::new();
            for section in ["auto_dream", "auto_extract"] {
                if let Some(on) = mnemo_store::settings::switch(&self.home().root, section, &ws.id)
                {
                    switches.insert(section.to_owned(), on);
                }
            }
            let conflicts = st
                .keys
                .get(key)
                .map(|k| k.conflicts.clone())
                .unwrap_or_default();
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
