//! How far an import of past conversations got, per source and workspace
//! (`<state>/imports/<key>.json`, owned here): the conversations learnt from, the change group
//! every run writes into, the budget and what was spent. Saved after each conversation, so a
//! run killed at any point resumes after the last finished one.

use std::path::{Path, PathBuf};

use mnemo_core::Result;
use serde::{Deserialize, Serialize};

use crate::state;
use crate::workspace::Workspace;

/// One source's progress.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportCursor {
    /// The source, as imported (an absolute path).
    pub source: String,
    /// Conversation ids learnt from (every run skips them).
    pub done: Vec<String>,
    /// The change group the import writes into (one for all its runs).
    pub group: Option<i64>,
    /// The budget (estimated tokens) over all runs.
    pub budget_tokens: u64,
    /// Tokens spent so far (estimated).
    pub spent_tokens: u64,
}

/// The file of `source`'s cursor in `ws`.
#[must_use]
pub fn path(ws: &Workspace, source: &Path) -> PathBuf {
    let key = blake3::hash(source.to_string_lossy().as_bytes()).to_hex();
    ws.state_dir
        .join("imports")
        .join(format!("{}.json", &key[..16]))
}

/// Read a cursor (missing → a fresh one; corrupt → moved aside, fresh, warned).
pub fn load(ws: &Workspace, source: &Path) -> Result<ImportCursor> {
    let mut c: ImportCursor = state::load(&path(ws, source))?.value;
    if c.source.is_empty() {
        c.source = source.to_string_lossy().into_owned();
    }
    Ok(c)
}

/// Save a cursor atomically.
pub fn save(ws: &Workspace, source: &Path, c: &ImportCursor) -> Result<()> {
    let p = path(ws, source);
    if let Some(dir) = p.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| mnemo_core::Error::io(format!("creating {}", dir.display()), &e))?;
    }
    // The source's path is kept for a person reading the file; a file may be named by a secret.
    let mut kept = c.clone();
    kept.source = crate::secrets::redact(&kept.source).0;
    state::save(&p, &kept)
}
