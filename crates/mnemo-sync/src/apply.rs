//! Bringing this home to the merged state: bookkeeping first, then each file through the
//! write path, journaled as one sync group per workspace.

use std::collections::{BTreeMap, BTreeSet};

use mnemo_core::{ChangeSource, Error, ErrorCode, Result};

use super::Syncer;
use super::extras::Extras;
use super::git::{Git, Tree};
use super::layout::{self, Meta};
use super::meta::{self, Switches};
use super::run::{Groups, Round, remote_flag};
use super::state::{State, SyncFlag};
use mnemo_store::fsutil::{self};
use mnemo_store::journal::Origin;
use mnemo_store::vault::{Batch, ManyWrite};
use mnemo_store::workspace::Workspace;

/// A file not brought up to date (held open by a writer): its path and the blob read.
pub(super) type Deferred = (String, Option<String>);

/// What a round left out here: the key, the flag, and a file left behind (held open or
/// changed while written) with the blob read.
pub(super) type Left = (String, SyncFlag, Option<Deferred>);

/// A file to write here: workspace id, path, its blob as read (absent: none), the merged blob.
type Write = (String, String, Option<String>, Option<String>);

impl Syncer<'_> {
    /// Bring this home to the merged state: bookkeeping, then files (journaled, one group per
    /// workspace); the files from the remote that may not come here. `Ok(None)`: a file changed
    /// here meanwhile — merge again.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn apply_here<'a>(
        &'a self,
        git: &Git,
        round: &Round,
        merged: &Tree,
        extras: Option<&dyn Extras>,
        st: &State,
        groups: &mut Groups,
        batches: &mut Vec<Batch<'a>>,
    ) -> Result<Option<Vec<Left>>> {
        st.save(&self.home().root)?;
        // Only what this home may write: the synced workspaces' files (another project's
        // memory, carried along in the repository, is never read here) that the merge changed.
        let none = BTreeMap::new();
        let local_of = |ws: &str| round.local.get(ws).unwrap_or(&none);
        let mut need: BTreeSet<String> = BTreeSet::new();
        for (key, group) in &round.folders {
            let prefix = format!("{key}/memory/");
            for (p, i) in merged.range(prefix.clone()..) {
                if !p.starts_with(&prefix) {
                    break;
                }
                let rel = &p[prefix.len()..];
                if !round.bytes.contains_key(&i.id)
                    && group
                        .iter()
                        .any(|ws| local_of(&ws.id).get(rel) != Some(&i.id))
                {
                    need.insert(i.id.clone());
                }
            }
        }
        // The key's chat sessions the merge changed (when carried).
        for key in round.folders.keys() {
            let prefix = format!("{key}/sessions/");
            for (p, i) in merged.range(prefix.clone()..) {
                if !p.starts_with(&prefix) {
                    break;
                }
                if round.local_sessions.get(p) != Some(&i.id) && !round.bytes.contains_key(&i.id) {
                    need.insert(i.id.clone());
                }
            }
        }
        // The key's bookkeeping the merge changed.
        for key in round.folders.keys() {
            for m in Meta::ALL {
                let p = layout::meta_path(key, m);
                if let Some(i) = merged.get(&p)
                    && round.ours.get(&p) != Some(i)
                    && !round.bytes.contains_key(&i.id)
                {
                    need.insert(i.id.clone());
                }
            }
        }
        let need: Vec<String> = need.into_iter().collect();
        let loaded = git.blobs(&need, fsutil::MAX_FILE_BYTES)?;
        let content_of = |id: &String| round.bytes.get(id).or_else(|| loaded.get(id));
        let mut writes: Vec<Write> = Vec::new();
        let mut refused_here: Vec<Left> = Vec::new();
        for (key, group) in &round.folders {
            // Forgotten hashes: every folder of the key forgets what the merge says.
            let fpath = layout::meta_path(key, Meta::Forgotten);
            if round.ours.get(&fpath) != merged.get(&fpath) || group.len() > 1 {
                let want = merged
                    .get(&fpath)
                    .and_then(|i| content_of(&i.id))
                    .map(|b| meta::decode_set(b))
                    .unwrap_or_default();
                for ws in group {
                    let have = self.forgotten_keys(&ws.id)?;
                    let add: Vec<String> = want.difference(&have).cloned().collect();
                    let remove: Vec<String> = have.difference(&want).cloned().collect();
                    if !add.is_empty() || !remove.is_empty() {
                        self.change_forgotten_keys(&ws.id, &add, &remove)?;
                    }
                }
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
                        for ws in group {
                            mnemo_store::settings::set_switch(
                                &self.home().root,
                                &section,
                                &ws.id,
                                on,
                            )?;
                        }
                    }
                }
            }
            let prefix = format!("{key}/memory/");
            for ws in group {
                let here = local_of(&ws.id);
                let skip = round.flagged_here.get(&ws.id);
                let rels: BTreeSet<&str> = merged
                    .range(prefix.clone()..)
                    .take_while(|(p, _)| p.starts_with(&prefix))
                    .map(|(p, _)| &p[prefix.len()..])
                    .chain(here.keys().map(String::as_str))
                    .collect();
                for rel in rels {
                    let p = layout::memory_path(key, rel);
                    let (o, m) = (here.get(rel), merged.get(&p).map(|i| &i.id));
                    if o == m || round.refused_theirs.contains(&p) {
                        continue;
                    }
                    // A file that was left out here (flagged) is never overwritten.
                    if skip.is_some_and(|s| s.contains(rel)) {
                        continue;
                    }
                    if let Some(m) = merged.get(&p) {
                        let why = match content_of(&m.id) {
                            Some(b) => meta::refusal(rel, Some(&m.mode), Some(b)),
                            None => Some("it is over the size limit".to_owned()),
                        };
                        if let Some(why) = why {
                            refused_here.push((key.clone(), remote_flag(rel, &why), None));
                            continue;
                        }
                    }
                    writes.push((ws.id.clone(), rel.to_owned(), o.cloned(), m.cloned()));
                }
            }
        }
        // A file another program holds open for writing is never replaced under it (what it
        // writes next would land in the replaced file): the remote's changes to it wait, and
        // the next sync after it is closed merges them in (`KeyState.behind`).
        let busy = open_for_writing(round, &writes);
        let by_id: BTreeMap<&String, (&String, &Workspace)> = round
            .folders
            .iter()
            .flat_map(|(k, g)| g.iter().map(move |w| (&w.id, (k, w))))
            .collect();
        // A file's name as a flag shows it: with its folder when it is not the key's first.
        let shown = |key: &String, ws: &Workspace, rel: &str| {
            if round.mapped[key].id == ws.id {
                rel.to_owned()
            } else {
                format!("{rel} (in {})", fsutil::printable(&ws.id))
            }
        };
        let mut by_ws: BTreeMap<&String, Vec<&Write>> = BTreeMap::new();
        for w in &writes {
            if busy.contains(&(w.0.clone(), w.1.clone())) {
                let (key, ws) = by_id[&w.0];
                refused_here.push((
                    key.clone(),
                    SyncFlag {
                        path: shown(key, ws, &w.1),
                        why: "not brought up to date: another program has it open for writing; \
                              the changes from other machines are merged in at the first sync \
                              after it is closed"
                            .to_owned(),
                        side: "here".into(),
                    },
                    Some((w.1.clone(), w.2.clone())),
                ));
                continue;
            }
            by_ws.entry(&w.0).or_default().push(w);
        }
        for (id, ws_writes) in by_ws {
            let (_, ws) = by_id[id];
            let entry = match groups.get(&ws.id).and_then(|d| d.group) {
                Some(g) => g,
                None => {
                    let g = self.begin_group(&ws.id, "sync", None, &round.label)?;
                    groups.entry(ws.id.clone()).or_default().group = Some(g);
                    g
                }
            };
            let origin = Origin {
                source: ChangeSource::Sync,
                group: Some(entry),
            };
            batches.push(self.begin_batch(ws, origin));
            let hold = &round.holds[&ws.id];
            let mut many = Vec::with_capacity(ws_writes.len());
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
                many.push(ManyWrite {
                    path: rel.clone(),
                    expect: expect.clone(),
                    new: content,
                });
            }
            // One journal transaction, one flush and one index transaction for all of them. A
            // file another program changed meanwhile is left as it is: what it held when read
            // was merged and is sent, and the next sync merges its newer bytes the same way.
            let (written, left) = self.write_many_held_each(hold, ws, origin, &many)?;
            let done = groups.entry(ws.id.clone()).or_default();
            for rel in written {
                if let Some(w) = many.iter().find(|m| m.path == rel) {
                    match (&w.expect, &w.new) {
                        (None, _) => done.received.added += 1,
                        (_, None) => done.received.removed += 1,
                        _ => done.received.changed += 1,
                    }
                }
                if !done.changed.contains(&rel) {
                    done.changed.push(rel);
                }
            }
            let key = by_id[id].0;
            for rel in left {
                let read = many
                    .iter()
                    .find(|m| m.path == rel)
                    .and_then(|m| m.expect.clone());
                refused_here.push((
                    key.clone(),
                    SyncFlag {
                        path: shown(key, ws, &rel),
                        why: "not brought up to date: it changed while this sync was writing \
                              it; the changes from other machines are merged in at the next sync"
                            .to_owned(),
                        side: "here".into(),
                    },
                    Some((rel, read)),
                ));
            }
        }
        // Chat sessions, when asked: each one that differs here from the merge, through its owner.
        if let Some(x) = extras {
            for (key, ws) in &round.mapped {
                let prefix = format!("{key}/sessions/");
                for (p, m) in merged.range(prefix.clone()..) {
                    if !p.starts_with(&prefix) {
                        break;
                    }
                    let here = round.local_sessions.get(p);
                    if here == Some(&m.id) {
                        continue;
                    }
                    let name = &p[prefix.len()..];
                    let Some(new) = content_of(&m.id) else {
                        continue;
                    };
                    if let Some(why) = meta::content_refusal(new) {
                        refused_here.push((
                            key.clone(),
                            remote_flag(&format!("sessions/{name}"), &why),
                            None,
                        ));
                        continue;
                    }
                    let expected = here.and_then(|id| round.bytes.get(id)).map(Vec::as_slice);
                    if !x.replace(ws, name, expected, new)? {
                        return Ok(None);
                    }
                }
            }
        }
        Ok(Some(refused_here))
    }
}

/// The writes (workspace id, path) that would replace or remove a file another program holds
/// open for writing.
fn open_for_writing(round: &Round, writes: &[Write]) -> BTreeSet<(String, String)> {
    use std::os::unix::fs::MetadataExt;
    let mut at: BTreeMap<(u64, u64), Vec<(String, String)>> = BTreeMap::new();
    for (ws, rel, was, _) in writes {
        if was.is_none() {
            continue;
        }
        let Some(hold) = round.holds.get(ws) else {
            continue;
        };
        let Ok(Some(m)) = hold.root().and_then(|r| r.metadata(rel)) else {
            continue;
        };
        at.entry((m.dev(), m.ino()))
            .or_default()
            .push((ws.clone(), rel.clone()));
    }
    let inodes: BTreeSet<(u64, u64)> = at.keys().copied().collect();
    fsutil::open_for_writing(&inodes, &BTreeSet::new())
        .into_iter()
        .flat_map(|i| at.remove(&i).unwrap_or_default())
        .collect()
}
