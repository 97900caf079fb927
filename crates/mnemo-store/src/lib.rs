//! Mnemo's vault: memory files on disk and everything that keeps them safe and findable. What
//! a file *says* is parsed, judged and merged in `mnemo-text` (re-exported here as `format`,
//! `memory_md`, `secrets`, `tokenize`, `merge`, `supersede`); other tools' exports are read in
//! `mnemo-import` (re-exported as `import`). This crate owns the files under `MNEMO_HOME`.
//!
//! - [`workspace`]: `MNEMO_HOME`, Mnemo / Claude Code / Qwen Code / folder workspaces.
//! - [`doc`]: a file on disk turned into what the index stores.
//! - [`fsutil`]: path confinement, atomic writes, capped reads.
//! - [`journal`]: every change with before/after content; undo.
//! - [`index`]: the SQLite + FTS5 index and embeddings.
//! - [`watch`]: the debounced watcher that applies outside edits and emits `memory_changed`.
//! - [`lock`]: the consolidation lock shared with Qwen Code.
//! - [`settings`]: the owner of `settings.toml` and `llm.key`.
//! - [`tasks`]: `tasks.db`, background memory tasks seen by every process.
//! - `review`: a proposal's changes entry by entry.
//! - `export`, `import_cursor`: zips written out; how far an import source was read.
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
pub mod fsutil;
pub mod import_cursor;
pub mod index;
pub mod journal;
pub mod lock;
pub mod replace;
pub mod repo;
pub mod review;
pub mod rootdir;
pub mod settings;
pub mod state;
pub mod tasks;
pub mod vault;
pub mod watch;
pub mod workspace;

pub use mnemo_import as import;
pub use mnemo_import::transcripts;
pub use mnemo_text::{format, memory_md, merge, par, secrets, supersede, tokenize};

pub use vault::{MemoryDetail, NewMemory, Patch, SyncReport, Vault, WriteOutcome};
pub use workspace::{Home, Workspace};
