//! One sync: fetch, merge three-way against the last synced commit, write what changed here
//! (journaled, one change group per workspace, never over a local change it has not merged),
//! commit, push; a rejected push fetches and merges again.
//!
//! Order, so a process killed at any instant leaves a state the next sync completes:
//! bookkeeping (forgotten hashes, switches, conflicts) first, then the files (each atomic and
//! journaled), then the commit and the local branch (an atomic ref update), then the push. The
//! merge is idempotent: a change already here is taken once.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use mnemo_core::{ChangeSource, Error, ErrorCode, Result};
use serde::Serialize;

use super::git::{Content, Git, Item, Tree, blob_id};
use super::layout::{self, Meta, Part, Reach};
use super::meta::{self, Switches, SyncConflict};
use super::state::{self, KeyState, State, SyncFlag, SyncRun, SyncSettings};
use crate::fsutil::{self, ReadOutcome};
use crate::journal::Origin;
use crate::vault::{Batch, Vault, WriteHold};
use crate::workspace::Workspace;

/// A workspace's sync, as a sync left it or as `sync status` sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct WorkspaceSync {
    /// Workspace id.
    pub workspace: String,
    /// Its label.
    pub label: String,
    /// Where it lives in the remote (`None`: it does not sync).
    pub key: Option<String>,
    /// Why it does not sync.
    pub not_synced: Option<String>,
    /// When it last synced (RFC 3339).
    pub last_synced: Option<String>,
    /// Files changed here since the last sync, not yet sent.
    pub pending: u32,
    /// Files changed on the remote (as last fetched), not yet merged here.
    pub incoming: u32,
    /// Files this sync changed here.
    pub changed: Vec<String>,
    /// The change group holding them (undo it to take the sync's changes back).
    pub group: Option<i64>,
    /// What waits for a choice.
    pub conflicts: Vec<SyncConflict>,
    /// Files left out, and why.
    pub flagged: Vec<SyncFlag>,
}

/// The home's sync: a run's report, or the status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct RemoteSync {
    /// The remote (`None`: sync is not set up).
    pub remote: Option<String>,
    /// Automatic sync is on.
    pub auto: bool,
    /// The commit this home is at.
    pub commit: Option<String>,
    /// Commits here the remote lacks / on the remote not merged here (as last fetched).
    pub ahead: u32,
    /// See `ahead`.
    pub behind: u32,
    /// How the last attempt ended.
    pub last_run: Option<SyncRun>,
    /// Per workspace.
    pub workspaces: Vec<WorkspaceSync>,
}

const MAX_ATTEMPTS: u32 = 10;

/// A local memory file as a sync reads it.
struct LocalFile {
    rel: String,
    bytes: std::result::Result<Vec<u8>, String>,
}

/// Every memory file under `root` (hidden names and symbolic links are not memory).
fn local_files(root: &Path) -> Vec<LocalFile> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let rel = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_symlink() {
                if name.ends_with(".md") {
                    out.push(LocalFile {
                        rel,
                        bytes: Err("it is a symbolic link".to_owned()),
                    });
                }
            } else if ft.is_dir() {
                stack.push((e.path(), rel));
            } else if crate::doc::doc_kind(&rel).is_some() {
                let bytes = match fsutil::read_capped(&e.path()) {
                    Ok(ReadOutcome::Bytes(b)) => Ok(b),
                    Ok(ReadOutcome::TooLarge(n)) => Err(format!(
                        "it is {n} bytes, over the {} byte limit",
                        fsutil::MAX_FILE_BYTES
                    )),
                    Ok(ReadOutcome::Missing) => continue,
                    Err(e) => Err(e.message),
                };
                out.push(LocalFile { rel, bytes });
            }
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

/// What one round saw and decided.
struct Round {
    base: Tree,
    head: Tree,
    theirs: Tree,
    /// This home's state as a tree (the head with every synced workspace's files overlaid).
    ours: Tree,
    /// Bytes of blobs not (necessarily) in git: local files, merge results, bookkeeping.
    bytes: HashMap<String, Vec<u8>>,
    /// Per key: the workspace it maps to.
    mapped: BTreeMap<String, Workspace>,
    /// Per key: files left out.
    flagged: BTreeMap<String, Vec<SyncFlag>>,
    /// Paths never written here (refused on the remote).
    refused_theirs: BTreeSet<String>,
    /// Each synced workspace's write lock, from reading its files to writing the merge.
    holds: BTreeMap<String, WriteHold>,
}

fn item(id: String) -> Item {
    Item {
        mode: "100644".to_owned(),
        id,
    }
}

impl Vault {
    /// Sync with the home's remote (all synced workspaces, or only `only`): see the module docs.
    /// Racing syncs of one home (the app and the CLI) take turns.
    pub fn sync_remote(&self, only: Option<&str>) -> Result<RemoteSync> {
        let home = self.home().root.clone();
        let settings = state::load_settings(&home)?;
        let Some(url) = settings.remote.clone() else {
            return Err(Error::usage(
                "no sync remote is set: run `mnemo sync remote set URL` (any git URL, or a folder \
                 holding a bare repository), or set it in the app's settings",
            ));
        };
        if let Some(id) = only {
            self.workspace(id)?;
        }
        let dir = state::sync_dir(&home);
        fsutil::private_dir(&dir)
            .map_err(|e| Error::io(format!("creating {}", dir.display()), &e))?;
        let _lock = fsutil::lock_file(&dir.join(".sync.lock"))?;
        let git = Git::open(&dir.join("repo.git"))?;
        git.set_remote(&url)?;
        let mut st = State::load(&home);
        let mut groups: BTreeMap<String, (i64, Vec<String>)> = BTreeMap::new();
        let mut result = Err(Error::new(ErrorCode::Io, "sync did not run"));
        for attempt in 1..=MAX_ATTEMPTS {
            result = self.sync_round(&git, &settings, only, &mut st, &mut groups);
            match &result {
                Ok(true) => break,
                Ok(false) => {
                    tracing::info!(
                        attempt,
                        "the remote moved on (or a file changed) during sync: again"
                    );
                    // Back off a little, by a varying amount, so two homes pushing at once part.
                    let jitter = u64::from(
                        std::time::SystemTime::now()
                            .duration_since(std::time::UNIX_EPOCH)
                            .map_or(0, |d| d.subsec_nanos())
                            % 100,
                    );
                    std::thread::sleep(std::time::Duration::from_millis(
                        u64::from(attempt) * (50 + jitter),
                    ));
                    result = Err(Error::new(
                        ErrorCode::Conflict,
                        format!(
                            "the remote kept moving (or files here kept changing) through {MAX_ATTEMPTS} \
                             attempts: sync again in a moment"
                        ),
                    ));
                }
                Err(_) => break,
            }
        }
        let now = now();
        st.last_run = Some(SyncRun {
            at: now,
            error: result
                .as_ref()
                .err()
                .map(|e| Error::new(e.code, crate::secrets::redact(&e.message).0)),
            commit: git.local_head(),
        });
        st.save(&home)?;
        result?;
        let mut report = self.sync_status_with(&git, &settings, &st)?;
        for w in &mut report.workspaces {
            if let Some((g, changed)) = groups.get(&w.workspace) {
                w.group = Some(*g);
                w.changed.clone_from(changed);
            }
        }
        Ok(report)
    }

    /// One round; `Ok(false)`: do it again (the push was rejected, or a file changed under it).
    fn sync_round(
        &self,
        git: &Git,
        settings: &SyncSettings,
        only: Option<&str>,
        st: &mut State,
        groups: &mut BTreeMap<String, (i64, Vec<String>)>,
    ) -> Result<bool> {
        git.fetch()?;
        let (h, r) = (git.local_head(), git.remote_head());
        let theirs = match &r {
            Some(r) => {
                let t = git.tree(r)?;
                if !t.contains_key(layout::MARKER) {
                    return Err(Error::new(
                        ErrorCode::RemoteRefused,
                        "the sync remote holds something other than Mnemo's memory (no \
                         `.mnemo-sync` at its root): give an empty repository, or one another \
                         Mnemo home syncs with",
                    ));
                }
                t
            }
            None => Tree::new(),
        };
        let base_commit = match (&h, &r) {
            (Some(h), Some(r)) => Some(git.merge_base(h, r).ok_or_else(|| {
                Error::new(
                    ErrorCode::RemoteRefused,
                    "the sync remote holds another history than this home's (no commit in \
                     common): point this home at the remote it synced with before, or at a new \
                     empty one",
                )
            })?),
            (Some(h), None) => Some(h.clone()),
            (None, _) => None,
        };
        let head = h
            .as_deref()
            .map(|h| git.tree(h))
            .transpose()?
            .unwrap_or_default();
        let base = match &base_commit {
            Some(b) if Some(b) == h.as_ref() => head.clone(),
            Some(b) => git.tree(b)?,
            None => Tree::new(),
        };
        let theirs = if r.is_some() { theirs } else { head.clone() };
        let author = state::author_line(settings.author.as_deref())?;
        let theirs_by = r
            .as_deref()
            .and_then(|r| git.author_of(r))
            .unwrap_or_else(|| "the other machine".to_owned());
        let base = self.key_bases(git, st, base, r.as_deref())?;
        let mut round = self.read_ours(git, settings, only, st, base, head, theirs)?;
        let merged = self.merge_round(
            git,
            &mut round,
            st,
            &state::author_name(&author),
            &theirs_by,
        )?;
        let mut batches = Vec::new();
        let applied = self.apply_here(git, &round, &merged, st, groups, &mut batches);
        // The locks go before the batches end (MEMORY.md is rebuilt under the lock).
        round.holds.clear();
        drop(batches);
        let Some(refused_here) = applied? else {
            return Ok(false);
        };
        for (key, flag) in refused_here {
            round.flagged.entry(key).or_default().push(flag);
        }
        // Commit what this home now holds, unless the remote or the head already is it.
        let new_head = if r.is_some() && same(&merged, &round.theirs) {
            r.clone()
        } else if h.is_some() && same(&merged, &round.head) && (r.is_none() || base_commit == r) {
            h.clone()
        } else {
            let mut parents: Vec<String> = h.iter().cloned().collect();
            if let Some(r) = &r
                && base_commit.as_ref() != Some(r)
            {
                parents.push(r.clone());
            }
            let first = if h.is_some() {
                &round.head
            } else {
                &round.theirs
            };
            let changes = diff(first, &merged, &round.bytes);
            let message = commit_message(&groups_summary(groups));
            Some(git.commit(&parents, &changes, &message, &author)?)
        };
        if let Some(c) = &new_head
            && new_head != h
        {
            git.set_local_head(c, h.as_deref())?;
        }
        let synced_at = now();
        for key in round.mapped.keys() {
            let ks = st.keys.entry(key.clone()).or_default();
            ks.last_synced = Some(synced_at.clone());
            ks.base.clone_from(&new_head);
            ks.flagged = round.flagged.get(key).cloned().unwrap_or_default();
        }
        if new_head.is_none() || new_head == r {
            return Ok(true);
        }
        git.push()
    }

    /// This home's side: the head, with each synced workspace's files and bookkeeping overlaid.
    #[allow(clippy::too_many_arguments)]
    fn read_ours(
        &self,
        git: &Git,
        settings: &SyncSettings,
        only: Option<&str>,
        st: &State,
        base: Tree,
        head: Tree,
        theirs: Tree,
    ) -> Result<Round> {
        let reach = Reach {
            claude: settings.claude,
            qwen: settings.qwen,
        };
        let mut mapped: BTreeMap<String, Workspace> = BTreeMap::new();
        for ws in self.workspaces()? {
            if only.is_some_and(|o| o != ws.id) {
                continue;
            }
            if let Ok(key) = layout::key_of(&ws, reach, &|p| crate::repo::identity(Path::new(p))) {
                mapped.entry(key).or_insert(ws);
            }
        }
        // A Mnemo workspace another home created arrives here too.
        if only.is_none() {
            let keys: BTreeSet<String> = theirs
                .keys()
                .filter_map(|p| layout::split(p).map(|(k, _)| k))
                .collect();
            for key in keys {
                if mapped.contains_key(&key) {
                    continue;
                }
                if let Some(id) = layout::mnemo_id(&key) {
                    let memory = self.home().root.join("workspaces").join(id).join("memory");
                    std::fs::create_dir_all(&memory)
                        .map_err(|e| Error::io(format!("creating {}", memory.display()), &e))?;
                    mapped.insert(key.clone(), self.workspace(id)?);
                }
            }
        }
        let mut holds = BTreeMap::new();
        for (key, ws) in &mapped {
            holds.insert(key.clone(), self.hold_writes(ws)?);
        }
        let mut ours = head.clone();
        let mut bytes = HashMap::new();
        let mut flagged: BTreeMap<String, Vec<SyncFlag>> = BTreeMap::new();
        let mut refused_theirs = BTreeSet::new();
        for (path, it) in &theirs {
            if let Some((key, Part::Memory(rel))) = layout::split(path)
                && mapped.contains_key(&key)
                && let Some(why) = meta::refusal(&rel, Some(&it.mode), None)
            {
                refused_theirs.insert(path.clone());
                flagged.entry(key).or_default().push(remote_flag(&rel, why));
            }
        }
        for (key, ws) in &mapped {
            let prefix = format!("{key}/memory/");
            let files = local_files(&ws.memory_root);
            let present: BTreeSet<String> = files
                .iter()
                .map(|f| layout::memory_path(key, &f.rel))
                .collect();
            // Gone here: deleted, unless it never came here (refused, or not readable as ours).
            let candidates: Vec<&String> = head
                .keys()
                .filter(|p| p.starts_with(&prefix) && !present.contains(*p))
                .collect();
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
                let why = match &f.bytes {
                    Ok(b) => meta::refusal(&f.rel, None, Some(b)),
                    Err(why) => Some(why.clone()),
                };
                if let Some(why) = why {
                    flagged.entry(key.clone()).or_default().push(SyncFlag {
                        path: f.rel.clone(),
                        why: format!("not sent: {why}"),
                        side: "here".into(),
                    });
                    continue; // ours keeps what was synced before
                }
                let b = f.bytes.unwrap_or_default();
                let id = blob_id(&b);
                bytes.insert(id.clone(), b);
                ours.insert(path, item(id));
            }
            // Bookkeeping.
            let forgotten = self.forgotten_keys(&ws.id)?;
            let mut switches = Switches::new();
            for section in ["auto_dream", "auto_extract"] {
                if let Some(on) = crate::settings::switch(&self.home().root, section, &ws.id) {
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
        })
    }

    /// The merged tree; new conflicts land in `st` (this home's copy).
    fn merge_round(
        &self,
        git: &Git,
        round: &mut Round,
        st: &mut State,
        ours_by: &str,
        theirs_by: &str,
    ) -> Result<Tree> {
        let paths: BTreeSet<String> = round
            .base
            .keys()
            .chain(round.ours.keys())
            .chain(round.theirs.keys())
            .filter(|p| *p != layout::MARKER)
            .cloned()
            .collect();
        let mut merged = Tree::new();
        let mut contested = Vec::new();
        for p in paths {
            let (b, o, t) = (round.base.get(&p), round.ours.get(&p), round.theirs.get(&p));
            let pick = if o == t || b == t {
                o
            } else if b == o {
                t
            } else {
                contested.push(p);
                continue;
            };
            if let Some(it) = pick {
                merged.insert(p, it.clone());
            }
        }
        // Contents of every version a contested path needs, from git or from here.
        let want: Vec<String> = contested
            .iter()
            .flat_map(|p| [round.base.get(p), round.ours.get(p), round.theirs.get(p)])
            .flatten()
            .map(|i| i.id.clone())
            .filter(|id| !round.bytes.contains_key(id))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let loaded = git.blobs(&want, fsutil::MAX_FILE_BYTES)?;
        let text = |i: Option<&Item>, bytes: &HashMap<String, Vec<u8>>| -> Option<String> {
            let id = &i?.id;
            let b = bytes.get(id).or_else(|| loaded.get(id))?;
            Some(String::from_utf8_lossy(b).into_owned())
        };
        let mut new_conflicts: BTreeMap<String, Vec<SyncConflict>> = BTreeMap::new();
        let at = now();
        for p in contested {
            let (bi, oi, ti) = (round.base.get(&p), round.ours.get(&p), round.theirs.get(&p));
            let (b, o, t) = (
                text(bi, &round.bytes),
                text(oi, &round.bytes),
                text(ti, &round.bytes),
            );
            let out: Option<Vec<u8>> = match layout::split(&p) {
                Some((key, Part::Memory(rel))) => {
                    let t_refused = ti.is_some_and(|i| {
                        let raw = round.bytes.get(&i.id).or_else(|| loaded.get(&i.id));
                        raw.is_none_or(|raw| {
                            meta::refusal(&rel, Some(&i.mode), Some(raw)).is_some()
                        })
                    });
                    if round.refused_theirs.contains(&p) || t_refused {
                        // Theirs may not come here: ours stands.
                        if round.mapped.contains_key(&key) && !round.refused_theirs.contains(&p) {
                            round.flagged.entry(key.clone()).or_default().push(remote_flag(
                                &rel,
                                "it is over the size limit, not text, holds a secret or has invalid frontmatter".to_owned(),
                            ));
                        }
                        o.map(String::into_bytes)
                    } else {
                        let m = meta::merge_file(&rel, b.as_deref(), o.as_deref(), t.as_deref());
                        if !m.conflicts.is_empty() {
                            new_conflicts.entry(key).or_default().extend(meta::records(
                                &rel,
                                &m.conflicts,
                                ours_by,
                                theirs_by,
                                &at,
                            ));
                        }
                        m.text.map(String::into_bytes)
                    }
                }
                Some((_, Part::Meta(Meta::Forgotten))) => {
                    let set =
                        |s: Option<String>| meta::decode_set(s.unwrap_or_default().as_bytes());
                    let m = meta::merge_sets(&set(b), &set(o), &set(t));
                    (!m.is_empty()).then(|| meta::encode_set(&m))
                }
                Some((_, Part::Meta(Meta::Switches))) => {
                    let sw = |s: Option<String>| -> Switches {
                        s.and_then(|s| serde_json::from_str(&s).ok())
                            .unwrap_or_default()
                    };
                    let m = meta::merge_switches(&sw(b), &sw(o), &sw(t));
                    (!m.is_empty()).then(|| meta::encode_json(&m))
                }
                Some((_, Part::Meta(Meta::Conflicts))) => {
                    let cs = |s: Option<String>| -> Vec<SyncConflict> {
                        s.and_then(|s| serde_json::from_str(&s).ok())
                            .unwrap_or_default()
                    };
                    let m = meta::merge_conflicts(&cs(b), &cs(o), &cs(t));
                    (!m.is_empty()).then(|| meta::encode_json(&m))
                }
                // Something else in the repository: ours stands.
                None => {
                    if let Some(it) = oi {
                        merged.insert(p.clone(), it.clone());
                    }
                    continue;
                }
            };
            if let Some(b) = out {
                let id = blob_id(&b);
                round.bytes.insert(id.clone(), b);
                merged.insert(p, item(id));
            }
        }
        // Conflicts: what the trees say, plus what this merge found, minus what is resolved.
        let keys: BTreeSet<String> = merged
            .keys()
            .chain(round.theirs.keys())
            .filter_map(|p| layout::split(p).map(|(k, _)| k))
            .chain(new_conflicts.keys().cloned())
            .collect();
        let conflict_files: Vec<String> = keys
            .iter()
            .filter_map(|k| merged.get(&layout::meta_path(k, Meta::Conflicts)))
            .map(|i| i.id.clone())
            .filter(|id| !round.bytes.contains_key(id))
            .collect();
        let extra = git.blobs(&conflict_files, fsutil::MAX_FILE_BYTES)?;
        for key in keys {
            let cpath = layout::meta_path(&key, Meta::Conflicts);
            let mut list: Vec<SyncConflict> = merged
                .get(&cpath)
                .and_then(|i| round.bytes.get(&i.id).or_else(|| extra.get(&i.id)))
                .and_then(|b| serde_json::from_slice(b).ok())
                .unwrap_or_default();
            for c in new_conflicts.remove(&key).unwrap_or_default() {
                if !list.iter().any(|x| x.id == c.id) {
                    list.push(c);
                }
            }
            let file_text = |rel: &str| -> Option<String> {
                let i = merged.get(&layout::memory_path(&key, rel))?;
                let b = round
                    .bytes
                    .get(&i.id)
                    .or_else(|| loaded.get(&i.id))
                    .cloned()
                    .or_else(|| {
                        git.blobs(std::slice::from_ref(&i.id), fsutil::MAX_FILE_BYTES)
                            .ok()?
                            .remove(&i.id)
                    })?;
                Some(String::from_utf8_lossy(&b).into_owned())
            };
            list.retain(|c| meta::still_open(c, file_text(&c.path).as_deref()));
            list.sort_by(|a, b| a.id.cmp(&b.id));
            if list.is_empty() {
                merged.remove(&cpath);
            } else {
                let b = meta::encode_json(&list);
                let id = blob_id(&b);
                round.bytes.insert(id.clone(), b);
                merged.insert(cpath, item(id));
            }
            if round.mapped.contains_key(&key) {
                st.keys
                    .entry(key)
                    .or_insert_with(KeyState::default)
                    .conflicts = list;
            }
        }
        let marker = layout::MARKER_TEXT.as_bytes().to_vec();
        let id = blob_id(&marker);
        round.bytes.insert(id.clone(), marker);
        merged.insert(layout::MARKER.to_owned(), item(id));
        Ok(merged)
    }

    /// Bring this home to the merged state: bookkeeping, then files (journaled, one group per
    /// workspace); the files from the remote that may not come here. `Ok(None)`: a file changed
    /// here meanwhile — merge again.
    fn apply_here<'a>(
        &'a self,
        git: &Git,
        round: &Round,
        merged: &Tree,
        st: &State,
        groups: &mut BTreeMap<String, (i64, Vec<String>)>,
        batches: &mut Vec<Batch<'a>>,
    ) -> Result<Option<Vec<(String, SyncFlag)>>> {
        st.save(&self.home().root)?;
        let need: Vec<String> = merged
            .values()
            .map(|i| i.id.clone())
            .filter(|id| !round.bytes.contains_key(id))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let loaded = git.blobs(&need, fsutil::MAX_FILE_BYTES)?;
        let content_of = |id: &String| round.bytes.get(id).or_else(|| loaded.get(id));
        let mut writes: Vec<(String, String, Option<String>, Option<String>)> = Vec::new();
        let mut refused_here: Vec<(String, SyncFlag)> = Vec::new();
        for (key, ws) in &round.mapped {
            // Forgotten hashes.
            let fpath = layout::meta_path(key, Meta::Forgotten);
            if round.ours.get(&fpath) != merged.get(&fpath) {
                let want = merged
                    .get(&fpath)
                    .and_then(|i| content_of(&i.id))
                    .map(|b| meta::decode_set(b))
                    .unwrap_or_default();
                let have = self.forgotten_keys(&ws.id)?;
                let add: Vec<String> = want.difference(&have).cloned().collect();
                let remove: Vec<String> = have.difference(&want).cloned().collect();
                self.change_forgotten_keys(&ws.id, &add, &remove)?;
            }
            let spath = layout::meta_path(key, Meta::Switches);
            if round.ours.get(&spath) != merged.get(&spath)
                && let Some(sw) = merged
                    .get(&spath)
                    .and_then(|i| content_of(&i.id))
                    .and_then(|b| serde_json::from_slice::<Switches>(b).ok())
            {
                for (section, on) in sw {
                    if ["auto_dream", "auto_extract"].contains(&section.as_str()) {
                        crate::settings::set_switch(&self.home().root, &section, &ws.id, on)?;
                    }
                }
            }
            let prefix = format!("{key}/memory/");
            let paths: BTreeSet<&String> = merged
                .keys()
                .chain(round.ours.keys())
                .filter(|p| p.starts_with(&prefix))
                .collect();
            for p in paths {
                let (o, m) = (round.ours.get(p), merged.get(p));
                if o == m || round.refused_theirs.contains(p) {
                    continue;
                }
                let rel = p[prefix.len()..].to_owned();
                // A file that was left out here (flagged) is never overwritten.
                if round
                    .flagged
                    .get(key)
                    .is_some_and(|f| f.iter().any(|f| f.path == rel && f.side == "here"))
                {
                    continue;
                }
                if let Some(m) = m {
                    let why = match content_of(&m.id) {
                        Some(b) => meta::refusal(&rel, Some(&m.mode), Some(b)),
                        None => Some("it is over the size limit".to_owned()),
                    };
                    if let Some(why) = why {
                        refused_here.push((key.clone(), remote_flag(&rel, why)));
                        continue;
                    }
                }
                writes.push((
                    key.clone(),
                    rel,
                    o.map(|i| i.id.clone()),
                    m.map(|i| i.id.clone()),
                ));
            }
        }
        let mut by_key: BTreeMap<&String, Vec<&(String, String, Option<String>, Option<String>)>> =
            BTreeMap::new();
        for w in &writes {
            by_key.entry(&w.0).or_default().push(w);
        }
        for (key, ws_writes) in by_key {
            let ws = &round.mapped[key];
            let entry = match groups.get(&ws.id) {
                Some((g, _)) => *g,
                None => {
                    let g =
                        self.begin_group(&ws.id, "sync", None, "Sync: changes from the remote")?;
                    groups.insert(ws.id.clone(), (g, Vec::new()));
                    g
                }
            };
            let origin = Origin {
                source: ChangeSource::Sync,
                group: Some(entry),
            };
            batches.push(self.begin_batch(ws, origin));
            let hold = &round.holds[key];
            for (_, rel, expect, new) in ws_writes {
                let content = match new {
                    Some(id) => Some(content_of(id).cloned().ok_or_else(|| {
                        Error::new(
                            ErrorCode::Io,
                            format!("git lost the content of {rel}: sync again"),
                        )
                    })?),
                    None => None,
                };
                let written = self.mutate_held(hold, ws, rel, origin, None, |current, _| {
                    if current.map(blob_id) != *expect {
                        return Err(Error::new(
                            ErrorCode::Conflict,
                            format!("{rel} changed here while syncing"),
                        ));
                    }
                    Ok(content)
                });
                match written {
                    Ok(w) => {
                        if w.change_id.is_some()
                            && let Some((_, changed)) = groups.get_mut(&ws.id)
                            && !changed.contains(rel)
                        {
                            changed.push(rel.clone());
                        }
                    }
                    Err(e) if e.code == ErrorCode::Conflict => return Ok(None),
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(Some(refused_here))
    }

    /// The base each key merges against: its own last sync (a sync of one workspace leaves the
    /// others' bases where they were), as far as the remote shares it; else the common base.
    fn key_bases(&self, git: &Git, st: &State, global: Tree, r: Option<&str>) -> Result<Tree> {
        let mut out = global;
        let mut cache: HashMap<String, Tree> = HashMap::new();
        for (key, ks) in &st.keys {
            let Some(recorded) = &ks.base else { continue };
            let Some(c) = (match r {
                Some(r) => git.merge_base(recorded, r),
                None => git.commit_of(recorded),
            }) else {
                continue;
            };
            if !cache.contains_key(&c) {
                let Ok(t) = git.tree(&c) else { continue };
                cache.insert(c.clone(), t);
            }
            let t = &cache[&c];
            let prefix = format!("{key}/");
            out.retain(|p, _| !p.starts_with(&prefix));
            for (p, i) in t.range(prefix.clone()..) {
                if !p.starts_with(&prefix) {
                    break;
                }
                out.insert(p.clone(), i.clone());
            }
        }
        Ok(out)
    }

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
                    label: ws.label.clone(),
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

    fn sync_status_with(
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

/// The sync settings (defaults when unset).
pub fn settings(home: &Path) -> Result<SyncSettings> {
    state::load_settings(home)
}

fn remote_flag(rel: &str, why: String) -> SyncFlag {
    SyncFlag {
        path: rel.to_owned(),
        why: format!("not taken from the remote: {why}"),
        side: "remote".into(),
    }
}

fn same(a: &Tree, b: &Tree) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((p, i), (q, j))| p == q && i.id == j.id)
}

/// What turns tree `from` into `to`.
fn diff(from: &Tree, to: &Tree, bytes: &HashMap<String, Vec<u8>>) -> Vec<(String, Content)> {
    let mut out = Vec::new();
    for (p, i) in to {
        if from.get(p).map(|f| &f.id) != Some(&i.id)
            || from.get(p).map(|f| &f.mode) != Some(&i.mode)
        {
            let c = match bytes.get(&i.id) {
                Some(b) => Content::Bytes(b.clone()),
                None => Content::Id(i.clone()),
            };
            out.push((p.clone(), c));
        }
    }
    for p in from.keys() {
        if !to.contains_key(p) {
            out.push((p.clone(), Content::Removed));
        }
    }
    out
}

fn groups_summary(groups: &BTreeMap<String, (i64, Vec<String>)>) -> String {
    let n: usize = groups.values().map(|(_, c)| c.len()).sum();
    if n == 0 {
        String::new()
    } else {
        format!("{n} file(s) merged here from the remote")
    }
}

fn commit_message(summary: &str) -> String {
    if summary.is_empty() {
        "Mnemo sync".to_owned()
    } else {
        format!("Mnemo sync\n\n{summary}\n")
    }
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
