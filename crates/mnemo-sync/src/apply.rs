//! Bringing this home to the merged state: bookkeeping first, then each file through the
//! write path, journaled as one sync group per workspace.

use std::collections::{BTreeMap, BTreeSet};

use mnemo_core::{ChangeSource, Error, ErrorCode, Result};

use super::Syncer;
use super::extras::Extras;
use super::git::{Git, Tree};
use super::layout::{self, Meta};
use super::meta::{self, Switches};
use super::run::{Round, remote_flag};
use super::state::{State, SyncFlag};
use mnemo_store::fsutil::{self};
use mnemo_store::journal::Origin;
use mnemo_store::vault::{Batch, ManyWrite};

/// A file to write here: key, path, its blob as read (absent: none), the merged blob.
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
        groups: &mut BTreeMap<String, (i64, Vec<String>)>,
        batches: &mut Vec<Batch<'a>>,
    ) -> Result<Option<Vec<(String, SyncFlag)>>> {
        st.save(&self.home().root)?;
        // Only what this home may write: the synced workspaces' files (another project's
        // memory, carried along in the repository, is never read here) that the merge changed.
        let need: Vec<String> = merged
            .iter()
            .filter(|(p, i)| {
                round.ours.get(*p) != Some(*i)
                    && layout::split(p).is_some_and(|(k, _)| round.mapped.contains_key(&k))
            })
            .map(|(_, i)| i.id.clone())
            .filter(|id| !round.bytes.contains_key(id))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let loaded = git.blobs(&need, fsutil::MAX_FILE_BYTES)?;
        let content_of = |id: &String| round.bytes.get(id).or_else(|| loaded.get(id));
        let mut writes: Vec<Write> = Vec::new();
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
                        mnemo_store::settings::set_switch(&self.home().root, &section, &ws.id, on)?;
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
                        refused_here.push((key.clone(), remote_flag(&rel, &why)));
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
        let mut by_key: BTreeMap<&String, Vec<&Write>> = BTreeMap::new();
        for w in &writes {
            by_key.entry(&w.0).or_default().push(w);
        }
        for (key, ws_writes) in by_key {
            let ws = &round.mapped[key];
            let entry = match groups.get(&ws.id) {
                Some((g, _)) => *g,
                None => {
                    let g = self.begin_group(&ws.id, "sync", None, &round.label)?;
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
            // One journal transaction, one flush and one index transaction for all of them.
            let (written, complete) = self.write_many_held(hold, ws, origin, &many)?;
            if let Some((_, changed)) = groups.get_mut(&ws.id) {
                for rel in written {
                    if !changed.contains(&rel) {
                        changed.push(rel);
                    }
                }
            }
            if !complete {
                // A file changed here while syncing: merge again.
                return Ok(None);
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
                        refused_here
                            .push((key.clone(), remote_flag(&format!("sessions/{name}"), &why)));
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
