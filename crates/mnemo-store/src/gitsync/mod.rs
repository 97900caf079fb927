//! Sync across machines (and teammates) through git (issue 22): each home keeps a bare
//! repository of its own (`$MNEMO_HOME/sync/repo.git`, no work tree) and syncs it with one
//! remote. Memory merges three-way against the last synced state by entry ([`crate::merge`]);
//! every change a sync makes here goes through [`crate::Vault::mutate`] (journaled, one change
//! group per workspace, source `sync`).
//!
//! - [`layout`]: where each workspace lives in the repository (keyed by repository identity).
//! - [`meta`]: pure merges of whole files and bookkeeping; what may cross; conflict records.
//! - [`git`]: the `git` binary, plumbing only, every call time-limited.
//! - [`state`]: `[sync]` settings and `sync/state.json`.
//! - [`run`]: a sync, the status, resolving a conflict.

mod apply;
pub mod channel;
mod combine;
pub mod extras;
pub mod git;
pub mod layout;
pub mod meta;
mod read;
pub mod run;
pub mod state;
mod status;

pub use meta::{SyncChoice, SyncConflict};
pub use run::{RemoteKey, RemoteSync, WorkspaceSync};
pub use state::{SyncFlag, SyncRun, SyncSettings};
