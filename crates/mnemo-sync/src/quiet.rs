//! A sync with nothing to do, known without a round (auto-sync runs every few seconds
//! on every machine). A round that changed nothing here and ended with this home and each remote
//! in step leaves a record in this process: a fingerprint of everything a round reads here,
//! taken before it read — the settings, the sync bookkeeping, each synced workspace (its key,
//! folder, forgotten hashes, every memory file by `stat`, its chat sessions when they travel),
//! each repository's branches — and the remote branches it was in step with. The next sync
//! compares them first: all equal, it has nothing to do, and its report is the last one's.
//!
//! Git's rule for racy files holds: no fingerprint is taken while a file's times are less than
//! `local::SETTLED` old (a write in the same clock tick could keep its stamp). The remote's
//! branches are read from its folder when it is on this machine (no process at all), else with
//! one `git ls-remote`. Anything unknown or different means a full round.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;

use super::Syncer;
use super::channel::Channel;
use super::extras::Extras;
use super::git::{Git, blob_id};
use super::layout::{self, Reach};
use super::local;
use super::report::RemoteSync;
use super::state::{State, SyncSettings};

/// What a quiet round left, per home (by its root).
struct Quiet {
    here: String,
    /// Per remote URL: the branches it held.
    remotes: BTreeMap<String, BTreeMap<String, String>>,
    report: RemoteSync,
    /// Syncs it answered (the tests ask, through [`quiet_syncs`]).
    answered: u64,
}

static QUIET: Mutex<Option<HashMap<PathBuf, Quiet>>> = Mutex::new(None);

impl Syncer<'_> {
    /// Everything a round reads here, as text; `None` when it cannot stand for it (a file
    /// written too lately, a repository's refs unreadable).
    pub(super) fn fingerprint(
        &self,
        settings: &SyncSettings,
        chans: &[Channel],
        extras: Option<&dyn Extras>,
        st: &State,
    ) -> Option<String> {
        let home = &self.home().root;
        let mut f = String::new();
        // The whole settings file: `[sync]`, the per-workspace switches, the added folders.
        let table = mnemo_store::settings::read_table(home).ok()?;
        let _ = writeln!(f, "{table:?}");
        let _ = writeln!(f, "{settings:?}");
        // The bookkeeping, but when each key last synced (every round sets it).
        let mut keys = st.keys.clone();
        for k in keys.values_mut() {
            k.last_synced = None;
        }
        let _ = writeln!(f, "{}", serde_json::to_string(&keys).ok()?);
        for ch in chans {
            let (own, fetched) = Git::open(&ch.dir).ok()?.refs_on_disk()?;
            let _ = writeln!(f, "{} {:?} {own:?} {fetched:?}", ch.url, ch.scope);
        }
        let reach = Reach {
            claude: settings.claude,
            qwen: settings.qwen,
        };
        for ws in self.workspaces().ok()? {
            if !chans.iter().any(|c| c.scope.covers(&ws.id)) {
                continue;
            }
            let key = layout::key_of(&ws, reach, &|p| {
                mnemo_store::repo::identity(std::path::Path::new(p))
            });
            let forgotten = self.forgotten_keys(&ws.id).ok()?;
            let _ = writeln!(f, "{ws:?} {key:?} {forgotten:?}");
            if !local::stamps(&ws.memory_root, &mut f) {
                return None;
            }
            if let Some(x) = extras {
                for (name, b) in x.list(&ws).ok()? {
                    let _ = writeln!(f, "session {name} {}", blob_id(&b));
                }
            }
        }
        Some(f)
    }

    /// The last quiet round's report when nothing changed since, here or on any remote.
    pub(super) fn quiet_report(&self, here: &str, chans: &[Channel]) -> Option<RemoteSync> {
        let home = self.home().root.clone();
        let remotes = {
            let guard = QUIET.lock().ok()?;
            let q = guard.as_ref()?.get(&home)?;
            if q.here != here || q.remotes.len() != chans.len() {
                return None;
            }
            q.remotes.clone()
        };
        // Not under the lock: asking a remote elsewhere may take a while.
        for ch in chans {
            let was = remotes.get(&ch.url)?;
            let git = Git::open(&ch.dir).ok()?;
            if git.remote_branches(&ch.url)? != *was {
                return None;
            }
        }
        let mut guard = QUIET.lock().ok()?;
        let q = guard.as_mut()?.get_mut(&home)?;
        (q.here == here && q.remotes == remotes).then(|| {
            q.answered += 1;
            q.report.clone()
        })
    }

    /// Remember a round as quiet: `before` (its fingerprint taken before it read) still holds,
    /// it changed nothing here, and each repository's branch is what it last fetched.
    pub(super) fn remember_quiet(
        &self,
        before: String,
        after: Option<&str>,
        chans: &[Channel],
        report: &RemoteSync,
    ) {
        let home = self.home().root.clone();
        let mut remotes = BTreeMap::new();
        let quiet = after == Some(before.as_str())
            && report
                .workspaces
                .iter()
                .all(|w| w.changed.is_empty() && w.conflicts.is_empty() && w.flagged.is_empty())
            && chans.iter().all(|ch| {
                let Some((own, fetched)) = Git::open(&ch.dir).ok().and_then(|g| g.refs_on_disk())
                else {
                    return false;
                };
                let in_step = own.contains_key(super::git::BRANCH)
                    && own.get(super::git::BRANCH) == fetched.get(super::git::BRANCH);
                remotes.insert(ch.url.clone(), fetched);
                in_step
            });
        if !quiet {
            return self.forget_quiet();
        }
        if let Ok(mut guard) = QUIET.lock() {
            guard.get_or_insert_with(HashMap::new).insert(
                home,
                Quiet {
                    here: before,
                    remotes,
                    report: report.clone(),
                    answered: 0,
                },
            );
        }
    }

    /// Forget this home's quiet round (a round failed: the next one runs in full).
    pub(super) fn forget_quiet(&self) {
        if let Ok(mut guard) = QUIET.lock()
            && let Some(all) = guard.as_mut()
        {
            all.remove(&self.home().root);
        }
    }
}

/// How many syncs of the home at `root` this process answered as quiet since its last full
/// round (for tests: a quiet sync runs no git at all when the remote is on this machine).
#[doc(hidden)]
#[must_use]
pub fn quiet_syncs(root: &std::path::Path) -> u64 {
    QUIET
        .lock()
        .ok()
        .and_then(|g| g.as_ref()?.get(root).map(|q| q.answered))
        .unwrap_or(0)
}
