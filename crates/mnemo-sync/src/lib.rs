//! Sync across machines (and teammates) through git, above the vault: each home
//! keeps a bare repository of its own (`$MNEMO_HOME/sync/repo.git`, no work tree) and syncs it
//! with one remote; a workspace shared with a team syncs through the team's remote instead, in a
//! bare repository of its own under `sync/team/`. Memory merges three-way against the last
//! synced state by entry ([`mnemo_store::merge`], the same entry merge the review inbox uses);
//! every change a sync makes here goes through the vault's journaled writes (one change group
//! per workspace, source `sync`).
//!
//! - [`layout`]: where each workspace lives in the repository (keyed by repository identity).
//! - [`meta`]: pure merges of whole files and bookkeeping; what may cross; conflict records.
//! - [`git`]: the `git` binary, plumbing only, every call time-limited.
//! - [`state`]: `[sync]` settings and `sync/state.json` (this crate owns `sync/`).
//! - `channel`: which remote each workspace syncs through (the home's, or a team's).
//! - `extras`: files a sync may carry that the store does not own (chat sessions, when asked).
//! - [`run`]: a sync; `status`: the status, resolving a conflict, `reset-local`.
//! - `quiet`: a sync with nothing to do, known from `stat` and the remote's branches alone.
//!
//! ```no_run
//! use mnemo_store::{Home, Vault};
//! use mnemo_sync::VaultSync;
//! let vault = Vault::open(Home::resolve(None)?)?;
//! let report = vault.sync_remote(None, None)?;
//! println!("at {:?}, {} workspace(s) carried", report.commit, report.workspaces.len());
//! # Ok::<(), mnemo_core::Error>(())
//! ```

mod adopt;
mod apply;
pub mod channel;
mod combine;
pub mod extras;
pub mod git;
pub mod layout;
mod local;
pub mod meta;
mod quiet;
mod read;
mod refs;
mod report;
pub mod run;
pub mod state;
mod status;

use mnemo_core::{ChangeSource, Result};
use mnemo_store::Vault;

pub use extras::Extras;
pub use meta::{SyncChoice, SyncConflict};
#[doc(hidden)]
pub use quiet::quiet_syncs;
pub use run::{FileCounts, RemoteKey, RemoteSync, WorkspaceSync};
pub use state::{SyncFlag, SyncRun, SyncSettings};

/// One vault seen by sync: the rounds, the status and the conflict commands are its methods.
/// It reads and writes memory only through the vault's public, journaled writes.
struct Syncer<'v> {
    vault: &'v Vault,
}

impl std::ops::Deref for Syncer<'_> {
    type Target = Vault;

    fn deref(&self) -> &Vault {
        self.vault
    }
}

/// Sync as methods of the vault (`use mnemo_sync::VaultSync`).
pub trait VaultSync {
    /// Sync every carried workspace (or only `only`) with its remote; see [`run`].
    ///
    /// # Errors
    /// No remote set, the sync lock held too long, git failing, or a refused remote.
    fn sync_remote(&self, only: Option<&str>, extras: Option<&dyn Extras>) -> Result<RemoteSync>;

    /// What sync would carry and what it last did, from disk, without running git's network.
    ///
    /// # Errors
    /// Unreadable settings.
    fn sync_status(&self) -> Result<RemoteSync>;

    /// The memory files of `workspace` holding a sync conflict still open in them (relative
    /// paths): cheap — the state file and those files, no git — so recall can read it every
    /// turn and say that a memory's versions disagree. Empty when nothing syncs it.
    fn open_conflicts(&self, workspace: &str) -> Vec<String>;

    /// Settle open conflict `id`: keep choice `keep`, or `None` to keep every version as it is;
    /// the file changes through the journaled write path and the choice travels with the next sync.
    ///
    /// # Errors
    /// No such conflict, or a version out of range.
    fn sync_resolve(
        &self,
        id: &str,
        keep: Option<usize>,
        source: ChangeSource,
    ) -> Result<SyncConflict>;

    /// Drop the local sync repository and every key's base; keep every file and open conflict.
    ///
    /// # Errors
    /// The sync lock, or the repository could not be removed.
    fn sync_reset_local(&self) -> Result<()>;
}

impl VaultSync for Vault {
    fn sync_remote(&self, only: Option<&str>, extras: Option<&dyn Extras>) -> Result<RemoteSync> {
        Syncer { vault: self }.sync_remote(only, extras)
    }

    fn sync_status(&self) -> Result<RemoteSync> {
        Syncer { vault: self }.sync_status()
    }

    fn open_conflicts(&self, workspace: &str) -> Vec<String> {
        Syncer { vault: self }.open_conflicts(workspace)
    }

    fn sync_resolve(
        &self,
        id: &str,
        keep: Option<usize>,
        source: ChangeSource,
    ) -> Result<SyncConflict> {
        Syncer { vault: self }.sync_resolve(id, keep, source)
    }

    fn sync_reset_local(&self) -> Result<()> {
        Syncer { vault: self }.sync_reset_local()
    }
}
