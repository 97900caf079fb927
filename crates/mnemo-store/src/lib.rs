//! Mnemo's vault: memory files on disk and everything that keeps them safe and findable.
//!
//! - [`workspace`]: `MNEMO_HOME`, Mnemo / Claude Code / Qwen Code / folder workspaces.
//! - [`format`], [`doc`], [`memory_md`]: topic files, entries, daily logs, the MEMORY.md index.
//! - [`fsutil`]: path confinement, atomic writes, capped reads.
//! - [`journal`]: every change with before/after content; undo.
//! - [`index`], [`tokenize`]: the SQLite + FTS5 index (CJK-aware, NFKC-folded), embeddings.
//! - [`watch`]: the debounced watcher that applies outside edits and emits `memory_changed`.
//! - [`lock`]: the consolidation lock shared with Qwen Code.
//! - [`settings`]: the owner of `settings.toml` and `llm.key`.
//! - [`tasks`]: `tasks.db`, background memory tasks seen by every process.
//! - `secrets`: the one secret gate every write Mnemo makes passes.
//! - `review`, `merge`, `supersede`: a proposal's changes entry by entry, the three-way entry
//!   merge that sync and the inbox share, a replaced fact kept as superseded.
//! - `import`, `export`, `transcripts`: other tools' exports read in, zips written out, chat
//!   transcripts (Mnemo's and other tools') read for a dream.
//! - `repo`, `rootdir`, `replace`: a project keyed by its repository across machines, memory
//!   roots held by handle, files replaced only over the bytes a write read.
//! - `state`, `dream_report`, `events`, `db`: bookkeeping files, the dream report, the change
//!   event channel, SQLite plumbing.
//! - [`vault`]: the facade tying these together — start here.
//!
//! ```no_run
//! use mnemo_store::{Home, Vault};
//! let vault = Vault::open(Home::resolve(None)?)?;
//! for hit in vault.search(None, "response style", 5)? {
//!     println!("{} {}", hit.path, hit.score);
//! }
//! # Ok::<(), mnemo_core::Error>(())
//! ```

pub mod db;
pub mod doc;
pub mod dream_report;
pub mod events;
pub mod export;
pub mod format;
pub mod fsutil;
pub mod import;
pub mod index;
pub mod journal;
pub mod lock;
pub mod memory_md;
pub mod merge;
mod par;
pub mod replace;
pub mod repo;
pub mod review;
pub mod rootdir;
pub mod secrets;
pub mod settings;
pub mod state;
pub mod supersede;
pub mod tasks;
pub mod tokenize;
pub mod transcripts;
pub mod vault;
pub mod watch;
pub mod workspace;

pub use vault::{MemoryDetail, NewMemory, Patch, SyncReport, Vault, WriteOutcome};
pub use workspace::{Home, Workspace};
