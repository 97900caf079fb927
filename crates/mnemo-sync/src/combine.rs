//! The three-way merge of a round: by blob id where one side alone changed, by content
//! (entries, sets, fields) where both did; conflicts found, carried and pruned.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use mnemo_core::Result;

use super::Syncer;
use super::git::{Git, Item, Tree, blob_id};
use super::layout::{self, Meta, Part};
use super::meta::{self, Switches, SyncConflict};
use super::run::{Round, item, now, remote_flag};
use super::state::State;
use mnemo_store::fsutil::{self};
use mnemo_store::merge;

impl Syncer<'_> {
    /// The merged tree; new conflicts land in `st` (this home's copy).
    pub(super) fn merge_round(
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
        let mut new_conflicts: BTreeMap<String, Vec<SyncConflict>> = BTreeMap::new();
        let at = now();
        let settled =
            self.settled_differently(git, round, ours_by, theirs_by, &at, &mut new_conflicts)?;
        let mut contested = Vec::new();
        for p in paths {
            if let Some(text) = settled.get(&p) {
                if let Some(b) = text {
                    let id = blob_id(b);
                    round.bytes.insert(id.clone(), b.clone());
                    merged.insert(p, item(id));
                }
                continue;
            }
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
                                "it is over the size limit, not text, holds a secret or has invalid frontmatter",
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
                // A session is appended to: ours, then the lines theirs added.
                Some((_, Part::Session(_))) => match (o, t) {
                    (Some(o), Some(t)) => {
                        Some(merge::merge_log(b.as_deref().unwrap_or(""), &o, &t).into_bytes())
                    }
                    (o, t) => o.or(t).map(String::into_bytes),
                },
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
                        s.map(|s| meta::decode_conflicts(s.as_bytes()))
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
                .map(|b| meta::decode_conflicts(b))
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
                st.keys.entry(key).or_default().conflicts = list;
            }
        }
        let marker = layout::MARKER_TEXT.as_bytes().to_vec();
        let id = blob_id(&marker);
        round.bytes.insert(id.clone(), marker);
        merged.insert(layout::MARKER.to_owned(), item(id));
        Ok(merged)
    }

    /// Conflicts open at the base that the two sides settled differently (see
    /// [`meta::disagreement`]): each such file's merged bytes (`None`: deleted) by path, the new
    /// conflict added to `found`.
    fn settled_differently(
        &self,
        git: &Git,
        round: &Round,
        ours_by: &str,
        theirs_by: &str,
        at: &str,
        found: &mut BTreeMap<String, Vec<SyncConflict>>,
    ) -> Result<BTreeMap<String, Option<Vec<u8>>>> {
        let mut out = BTreeMap::new();
        let read = |tree: &Tree, path: &str| -> Result<Option<Vec<u8>>> {
            let Some(i) = tree.get(path) else {
                return Ok(None);
            };
            if let Some(b) = round.bytes.get(&i.id) {
                return Ok(Some(b.clone()));
            }
            Ok(git
                .blobs(std::slice::from_ref(&i.id), fsutil::MAX_FILE_BYTES)?
                .remove(&i.id))
        };
        let list = |tree: &Tree, key: &str| -> Result<Vec<SyncConflict>> {
            Ok(read(tree, &layout::meta_path(key, Meta::Conflicts))?
                .map(|b| meta::decode_conflicts(&b))
                .unwrap_or_default())
        };
        for key in round.mapped.keys() {
            let open_at_base = list(&round.base, key)?;
            if open_at_base.is_empty() {
                continue;
            }
            let ours_open = list(&round.ours, key)?;
            let theirs_open = list(&round.theirs, key)?;
            for c in &open_at_base {
                let path = layout::memory_path(key, &c.path);
                let text = |tree: &Tree| -> Result<Option<String>> {
                    Ok(read(tree, &path)?.map(|b| String::from_utf8_lossy(&b).into_owned()))
                };
                let (b, o, t) = (text(&round.base)?, text(&round.ours)?, text(&round.theirs)?);
                let listed = |l: &[SyncConflict]| l.iter().any(|x| x.id == c.id);
                if let Some((text, again)) = meta::disagreement(
                    c,
                    b.as_deref(),
                    (listed(&ours_open), o.as_deref()),
                    (listed(&theirs_open), t.as_deref()),
                    ours_by,
                    theirs_by,
                    at,
                ) {
                    tracing::info!(path = %c.path, "a conflict was settled differently on two homes: both kept, asked again");
                    out.insert(path, text.map(String::into_bytes));
                    found.entry(key.clone()).or_default().push(again);
                }
            }
        }
        Ok(out)
    }
}
