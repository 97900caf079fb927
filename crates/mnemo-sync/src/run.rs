//! One sync: fetch, merge three-way against the last synced commit, write what changed here
//! (journaled, one change group per workspace, never over a local change it has not merged),
//! commit, push; a rejected push fetches and merges again.
//!
//! Order, so a process killed at any instant leaves a state the next sync completes:
//! bookkeeping (forgotten hashes, switches, conflicts) first, then the files (each atomic and
//! journaled), then the commit and the local branch (an atomic ref update), then the push. The
//! merge is idempotent: a change already here is taken once.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use mnemo_core::{Error, ErrorCode, Result};

use super::Syncer;
use super::channel::{self, Scope};
use super::extras::Extras;
use super::git::{Content, Git, Item, Tree};
use super::layout::{self};
use super::state::{self, State, SyncFlag, SyncRun, SyncSettings};
use mnemo_store::fsutil::{self};
use mnemo_store::vault::WriteHold;
use mnemo_store::workspace::Workspace;

pub(super) use super::report::Groups;
pub use super::report::{FileCounts, RemoteKey, RemoteSync, WorkspaceSync};
use super::report::{commit_message, commit_title, groups_summary, sent_counts};

/// Added to a flag when another machine's changes to the file wait for it.
const WAITS: &str = "; another machine's changes to it wait, and are merged in once it can be sent";

/// How long a sync keeps merging again while the remote (or a file here) keeps moving under it.
const MAX_CONTENTION: std::time::Duration = std::time::Duration::from_secs(120);

/// The pause before attempt `attempt + 1`: exponential (25 ms doubling, at most 2 s), half of
/// it random, so homes pushing at once part instead of colliding again in step.
fn backoff(attempt: u32) -> std::time::Duration {
    let cap = 25u64.saturating_mul(1 << attempt.min(7)).min(2_000);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let noise = u64::from(seed ^ std::process::id().rotate_left(16)) % 1_000;
    std::time::Duration::from_millis(cap / 2 + cap * noise / 2_000)
}

/// What one round saw and decided.
pub(super) struct Round {
    pub(super) base: Tree,
    pub(super) head: Tree,
    pub(super) theirs: Tree,
    /// This home's state as a tree (the head with every synced workspace's files overlaid).
    pub(super) ours: Tree,
    /// Bytes of blobs not (necessarily) in git: local files, merge results, bookkeeping.
    pub(super) bytes: HashMap<String, Vec<u8>>,
    /// Per key: the workspace it maps to (the first of its folders).
    pub(super) mapped: BTreeMap<String, Workspace>,
    /// Per key: every folder here that syncs as it (checkouts of one project share a key).
    pub(super) folders: BTreeMap<String, Vec<Workspace>>,
    /// Per workspace id: its memory files as read (path → blob id), those it may send.
    pub(super) local: BTreeMap<String, BTreeMap<String, String>>,
    /// Per workspace id: files that were not sent, never overwritten by this round.
    pub(super) flagged_here: BTreeMap<String, BTreeSet<String>>,
    /// Per key: files left out.
    pub(super) flagged: BTreeMap<String, Vec<SyncFlag>>,
    /// Paths never written here (refused on the remote).
    pub(super) refused_theirs: BTreeSet<String>,
    /// Each synced workspace's write lock (by workspace id), from reading its files to writing
    /// the merge.
    pub(super) holds: BTreeMap<String, WriteHold>,
    /// Chat sessions as they are here (repository path → blob id), when carried.
    pub(super) local_sessions: BTreeMap<String, String>,
    /// The label of the change groups this round opens (who the changes are from).
    pub(super) label: String,
}

pub(super) fn item(id: String) -> Item {
    Item {
        mode: "100644".to_owned(),
        id,
    }
}

impl Syncer<'_> {
    /// Sync with the home's remote — and each shared workspace with its team's remote — (every
    /// synced workspace, or only `only`): see the module docs. Racing syncs of one home (the app
    /// and the CLI) take turns. A remote that fails does not stop the others; the first error
    /// is returned after all ran.
    pub fn sync_remote(
        &self,
        only: Option<&str>,
        extras: Option<&dyn Extras>,
    ) -> Result<RemoteSync> {
        let home = self.home().root.clone();
        let settings = state::load_settings(&home)?;
        if let Some(id) = only {
            self.workspace(id)?;
        }
        let chans = channel::channels(&home, &settings, only);
        if chans.is_empty() {
            return Err(Error::usage(match only {
                Some(w) => format!(
                    "no sync remote carries `{w}`: run `mnemo sync remote set URL` (any git URL, \
                     or a folder holding a bare repository), or share it with `mnemo sync share URL`"
                ),
                None => "no sync remote is set: run `mnemo sync remote set URL` (any git URL, or \
                         a folder holding a bare repository), or set it in the app's settings"
                    .to_owned(),
            }));
        }
        let dir = state::sync_dir(&home);
        fsutil::private_dir(&dir)
            .map_err(|e| Error::io(format!("creating {}", dir.display()), &e))?;
        let _lock = fsutil::lock_file(&dir.join(".sync.lock"))?;
        let mut st = State::load(&home);
        // Nothing changed here or on any remote since a round that changed nothing: done.
        let before = if only.is_none() {
            self.fingerprint(&settings, &chans, extras, &st)
        } else {
            None
        };
        if let Some(here) = &before
            && let Some(mut report) = self.quiet_report(here, &chans)
        {
            let at = now();
            for ks in st.keys.values_mut() {
                if ks.last_synced.is_some() {
                    ks.last_synced = Some(at.clone());
                }
            }
            for w in &mut report.workspaces {
                if w.last_synced.is_some() {
                    w.last_synced = Some(at.clone());
                }
            }
            st.last_run = Some(SyncRun {
                at,
                error: None,
                commit: report.commit.clone(),
            });
            st.save(&home)?;
            report.last_run.clone_from(&st.last_run);
            tracing::debug!("sync: nothing changed here or on the remote since the last round");
            return Ok(report);
        }
        let mut groups: Groups = BTreeMap::new();
        let mut first_error = None;
        let mut commit = None;
        for ch in &chans {
            let done = Git::open(&ch.dir).and_then(|git| {
                // Under the sync lock: a git killed mid-write (a sync stopped with SIGKILL) may
                // have left a ref lock that would refuse this round's update.
                git.clear_stale_locks();
                git.set_remote(&ch.url)?;
                let r = self.sync_channel(&git, &settings, &ch.scope, extras, &mut st, &mut groups);
                if !ch.team {
                    commit = git.local_head();
                }
                r
            });
            if let Err(e) = done {
                let e = Error::new(
                    e.code,
                    if ch.team {
                        format!(
                            "{} (team remote {})",
                            e.message,
                            mnemo_store::fsutil::printable(&ch.url)
                        )
                    } else {
                        e.message
                    },
                );
                first_error.get_or_insert(e);
            }
        }
        st.last_run = Some(SyncRun {
            at: now(),
            error: first_error
                .as_ref()
                .map(|e| Error::new(e.code, mnemo_store::secrets::redact(&e.message).0)),
            commit,
        });
        st.save(&home)?;
        if let Some(e) = first_error {
            self.forget_quiet();
            return Err(e);
        }
        let mut report = self.status_of(&settings, &st)?;
        for w in &mut report.workspaces {
            if let Some(d) = groups.get(&w.workspace) {
                w.group = d.group;
                w.changed.clone_from(&d.changed);
                w.received = d.received;
                w.sent = d.sent;
            }
        }
        if let Some(before) = before {
            let after = if groups.is_empty() {
                self.fingerprint(&settings, &chans, extras, &st)
            } else {
                None
            };
            self.remember_quiet(before, after.as_deref(), &chans, &report);
        }
        Ok(report)
    }

    /// Sync one remote: rounds until one pushes (or has nothing to push), backing off between.
    fn sync_channel(
        &self,
        git: &Git,
        settings: &SyncSettings,
        scope: &Scope,
        extras: Option<&dyn Extras>,
        st: &mut State,
        groups: &mut Groups,
    ) -> Result<()> {
        let start = std::time::Instant::now();
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            if self.sync_round(git, settings, scope, extras, st, groups)? {
                return Ok(());
            }
            if start.elapsed() > MAX_CONTENTION {
                break;
            }
            tracing::info!(
                attempt,
                "the remote moved on (or a file changed) during sync: again"
            );
            std::thread::sleep(backoff(attempt));
        }
        Err(Error::new(
            ErrorCode::Conflict,
            format!(
                "the remote kept moving (or files here kept changing) for {} s, through {attempt} \
                 attempts: nothing was lost; sync again in a moment",
                MAX_CONTENTION.as_secs()
            ),
        ))
    }

    /// One round; `Ok(false)`: do it again (the push was rejected, or a file changed under it).
    fn sync_round(
        &self,
        git: &Git,
        settings: &SyncSettings,
        scope: &Scope,
        extras: Option<&dyn Extras>,
        st: &mut State,
        groups: &mut Groups,
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
            (Some(h), Some(r)) => match git.merge_base(h, r) {
                Some(b) => Some(b),
                // This home's history never met this remote's: two first syncs at once, or a
                // first sync stopped before its push. Adopt the remote's history and merge this
                // home's files into it (no common base: nothing is taken for deleted).
                None if !git.has_met() => {
                    tracing::info!("the remote's history is new to this home: merging into it");
                    None
                }
                None => {
                    return Err(Error::new(
                        ErrorCode::RemoteRefused,
                        "the sync remote now holds another history than the one this home synced \
                         with (no commit in common: it was replaced or rewritten). If it is the \
                         right remote, run `mnemo sync reset-local` — it keeps every memory file \
                         here and drops only this home's copy of the sync history — then sync \
                         again; otherwise point this home at its old remote",
                    ));
                }
            },
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
        let mut theirs = if r.is_some() { theirs } else { head.clone() };
        let adopted = self.adopt_legacy_keys(settings, scope, st, &mut theirs)?;
        let author = state::author_line(settings.author.as_deref())?;
        let theirs_by = r
            .as_deref()
            .filter(|r| Some(*r) != h.as_deref())
            .and_then(|r| git.author_of(r))
            .unwrap_or_else(|| "the other machine".to_owned());
        let mut base = self.key_bases(git, st, base, r.as_deref())?;
        super::adopt::rebase_adopted(&mut base, &adopted);
        let mut round = self.read_ours(git, settings, scope, extras, st, base, head, theirs)?;
        if let Some(r) = &r {
            let names = git.authors(base_commit.as_deref(), r);
            if !names.is_empty() {
                round.label = format!("Sync: changes by {}", names.join(", "));
            }
        }
        let merged = self.merge_round(
            git,
            &mut round,
            st,
            &state::author_name(&author),
            &theirs_by,
        )?;
        let mut batches = Vec::new();
        let applied = self.apply_here(git, &round, &merged, extras, st, groups, &mut batches);
        // The locks go before the batches end (MEMORY.md is rebuilt under the lock).
        round.holds.clear();
        drop(batches);
        let Some(refused_here) = applied? else {
            return Ok(false);
        };
        let mut deferred: BTreeMap<String, Vec<super::apply::Deferred>> = BTreeMap::new();
        for (key, flag, held) in refused_here {
            if let Some(held) = held {
                deferred.entry(key.clone()).or_default().push(held);
            }
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
            let message = commit_message(
                &commit_title(first, &changes, &round.mapped, &state::author_name(&author)),
                &groups_summary(groups),
            );
            Some(git.commit(&parents, &changes, &message, &author)?)
        };
        if let Some(c) = &new_head
            && new_head != h
        {
            git.set_local_head(c, h.as_deref())?;
        }
        let synced_at = now();
        for (key, group) in &round.folders {
            let ks = st.keys.entry(key.clone()).or_default();
            ks.last_synced = Some(synced_at.clone());
            ks.base.clone_from(&new_head);
            ks.flagged = round.flagged.get(key).cloned().unwrap_or_default();
            ks.folders = Some(group.iter().map(|w| w.id.clone()).collect());
            // Files not brought up to date here keep the blob they were last in step with
            // (from the first sync that left them behind); the others are in step again.
            // A file not sent is in step with what was synced before it was left out; a file
            // held open is in step with what this round read of it and sent.
            let not_sent: BTreeSet<String> = group
                .iter()
                .flat_map(|w| round.flagged_here.get(&w.id).into_iter().flatten().cloned())
                .collect();
            let was = std::mem::take(&mut ks.behind);
            for rel in not_sent {
                let p = layout::memory_path(key, &rel);
                let at = match was.get(&rel) {
                    Some(at) => at.clone(),
                    None => round.base.get(&p).map(|i| i.id.clone()),
                };
                // Another machine changed it meanwhile: say that its version waits.
                if merged.get(&p).map(|i| &i.id) != at.as_ref() {
                    for f in &mut ks.flagged {
                        if f.side == "here" && f.path == rel && !f.why.contains(WAITS) {
                            f.why.push_str(WAITS);
                        }
                    }
                }
                ks.behind.insert(rel, at);
            }
            for (rel, read) in deferred.get(key).into_iter().flatten() {
                ks.behind.insert(rel.clone(), read.clone());
            }
        }
        // A key this repository carries that no folder here maps (a project whose memory folder
        // is gone, a switched-off tool): this home holds none of its files any more, so when
        // the folder comes back nothing is taken for deleted — the remote's files come here.
        if matches!(scope, Scope::All { .. }) {
            let carried: BTreeSet<String> = round
                .head
                .keys()
                .filter_map(|p| layout::split(p).map(|(k, _)| k))
                .collect();
            for (key, ks) in &mut st.keys {
                if carried.contains(key) && !round.mapped.contains_key(key) {
                    ks.base = None;
                }
            }
        }
        if new_head.is_none() || new_head == r {
            if let Some(r) = &r {
                git.mark_met(r)?;
            }
            return Ok(true);
        }
        let pushed = git.push()?;
        if pushed && let Some(c) = &new_head {
            git.mark_met(c)?;
            // What every other machine will take from this push.
            let remote_before = if r.is_some() {
                &round.theirs
            } else {
                &Tree::new()
            };
            for (key, n) in sent_counts(remote_before, &merged) {
                if let Some(ws) = round.mapped.get(&key) {
                    let d = groups.entry(ws.id.clone()).or_default();
                    d.sent.added += n.added;
                    d.sent.removed += n.removed;
                    d.sent.changed += n.changed;
                }
            }
        }
        Ok(pushed)
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
}

pub(super) fn remote_flag(rel: &str, why: &str) -> SyncFlag {
    // A name from the remote is shown and stored: printable, and no secret in it.
    SyncFlag {
        path: fsutil::printable(&mnemo_store::secrets::redact(rel).0),
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

pub(super) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
