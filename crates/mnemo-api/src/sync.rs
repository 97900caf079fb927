//! Sync across machines through git: the commands, and automatic sync in a watching
//! process (the app, `mnemo serve`): after local changes (debounced) and on an interval, when
//! switched on. The work itself is `mnemo_sync`.

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use mnemo_core::{ChangeSource, Result};
use mnemo_store::events::EventBus;
use mnemo_store::watch::FileWatch;
use mnemo_sync::VaultSync;
use mnemo_sync::state;
use serde::Serialize;

use crate::Api;
use crate::wire::{RemoteSync, SyncConflict, SyncSettings};

/// Quiet time after a local change before an automatic sync (`MNEMO_SYNC_DEBOUNCE_SECS`).
const DEBOUNCE: Duration = Duration::from_secs(20);
/// An automatic sync at least this often, so what others pushed arrives without a local change
/// (`MNEMO_SYNC_INTERVAL_SECS`).
const INTERVAL: Duration = Duration::from_secs(5 * 60);

fn seconds(var: &str, default: Duration) -> Duration {
    std::env::var(var)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|s| *s > 0)
        .map_or(default, Duration::from_secs)
}

/// The sync state changed (`sync_changed`): a sync ran, left or closed a conflict, flagged a
/// file, or the local history was reset — in this process or another (`mnemo sync` at the
/// command line, another window). What `sync_status` says may differ now: read it again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, specta::Type)]
pub struct SyncChanged {}

/// Who hears of sync state changes, and the watch that tells them (while the API watches).
#[derive(Default)]
pub(crate) struct SyncEvents {
    bus: Arc<EventBus<SyncChanged>>,
    watch: Mutex<Option<FileWatch>>,
}

// Commands take owned arguments: transports hand over values they deserialised.
#[allow(clippy::needless_pass_by_value)]
impl Api {
    /// Sync now with the home's remote (every synced workspace, or only `workspace`): what
    /// changed here, per workspace, with its change group; conflicts; flagged files.
    pub fn sync_now(&self, workspace: Option<String>) -> Result<RemoteSync> {
        self.sync_with_sessions(workspace.as_deref())
            .map(Into::into)
    }

    /// A sync, carrying chat sessions when the settings ask for it.
    fn sync_with_sessions(&self, workspace: Option<&str>) -> Result<mnemo_sync::RemoteSync> {
        let sessions = self.sync_settings()?.sessions;
        let extras: Option<&dyn mnemo_sync::extras::Extras> =
            sessions.then_some(&mnemo_engine::chat::SessionSync);
        self.vault.sync_remote(workspace, extras)
    }

    /// Sync status per workspace, without touching the network: last synced, changes waiting
    /// to go out and to come in (as last fetched), conflicts, flagged files, the last error.
    pub fn sync_status(&self) -> Result<RemoteSync> {
        self.vault.sync_status().map(Into::into)
    }

    /// The sync settings (`[sync]`).
    pub fn sync_settings(&self) -> Result<SyncSettings> {
        state::load_settings(&self.vault.home().root).map(Into::into)
    }

    /// Check and save the sync settings (a URL holding a password is refused); returns what
    /// was stored.
    pub fn set_sync_settings(&self, settings: SyncSettings) -> Result<SyncSettings> {
        for id in settings.shared.keys() {
            self.vault.workspace(id)?;
        }
        state::save_settings(&self.vault.home().root, &settings.into()).map(Into::into)
    }

    /// Resolve a sync conflict: keep choice `keep` (0-based), or every version (`null`). The
    /// file changes as the person's own write; the choice reaches other homes with the next
    /// sync.
    pub fn sync_resolve(&self, id: String, keep: Option<u32>) -> Result<SyncConflict> {
        self.vault
            .sync_resolve(&id, keep.map(|k| k as usize), self.person)
            .map(Into::into)
    }

    /// Drop this home's copy of the sync history, keeping every memory file: the next sync is
    /// a first sync that merges this home's files with the remote's and deletes nothing (the
    /// cure when the remote was replaced by one with another history).
    pub fn sync_reset_local(&self) -> Result<()> {
        self.vault.sync_reset_local()
    }

    /// Every `sync_changed` from now on (while the API watches: [`Api::start_watching`]).
    pub fn subscribe_sync(&self) -> Receiver<SyncChanged> {
        self.syncs.bus.subscribe()
    }

    /// Watch the sync state for a watching process (started once, with the watcher): a
    /// conflict left by a sync elsewhere changes no memory file, so no `memory_changed` says so.
    pub(crate) fn start_sync_events(&self) {
        let bus = Arc::clone(&self.syncs.bus);
        match state::watch(&self.vault.home().root, move || {
            bus.emit(&SyncChanged {});
        }) {
            Ok(w) => {
                *self
                    .syncs
                    .watch
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) = Some(w);
            }
            Err(e) => tracing::warn!("sync changes made elsewhere will show late: {e}"),
        }
    }

    /// Automatic sync for a watching process (started once, with the watcher).
    pub(crate) fn start_auto_sync(&self) {
        let api = self.clone();
        let events = self.vault.subscribe();
        let debounce = seconds("MNEMO_SYNC_DEBOUNCE_SECS", DEBOUNCE);
        let interval = seconds("MNEMO_SYNC_INTERVAL_SECS", INTERVAL);
        let spawned = std::thread::Builder::new()
            .name("mnemo-auto-sync".into())
            .spawn(move || {
                let mut due: Option<Instant> = None;
                let mut last = Instant::now();
                loop {
                    let wait = due
                        .unwrap_or(last + interval)
                        .saturating_duration_since(Instant::now())
                        .max(Duration::from_millis(50));
                    match events.recv_timeout(wait) {
                        Ok(ev) if ev.source != ChangeSource::Sync => {
                            due = Some(Instant::now() + debounce);
                            continue;
                        }
                        Ok(_) => continue,
                        Err(RecvTimeoutError::Disconnected) => return,
                        Err(RecvTimeoutError::Timeout) => {}
                    }
                    if due.is_none_or(|d| d > Instant::now()) && last.elapsed() < interval {
                        continue;
                    }
                    due = None;
                    last = Instant::now();
                    let on = api
                        .sync_settings()
                        .is_ok_and(|s| s.auto && s.remote.is_some());
                    if !on {
                        continue;
                    }
                    match api.sync_with_sessions(None) {
                        Ok(r) => tracing::info!(
                            changed = r.workspaces.iter().map(|w| w.changed.len()).sum::<usize>(),
                            "automatic sync done"
                        ),
                        // Recorded in the sync state; the status panel says what to do.
                        Err(e) => tracing::warn!("automatic sync: {e}"),
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot start automatic sync: {e}");
        }
    }
}
