//! [`Vault`]: the one entry point to memory on disk. It ties workspaces, safe writes, the
//! journal, the index, MEMORY.md and change events together so that every change — by a person,
//! an agent or an outside program — is validated, written atomically, journaled, indexed and
//! announced exactly once.
//!
//! Invariants:
//! - Every mutation of a memory file goes through [`Vault::mutate`], under the workspace's write
//!   lock (an OS file lock, so several processes can share a home safely).
//! - The journal row is written before the file changes and committed after (write-ahead).
//! - Files are the truth: a failed index update is logged and repaired by the next sync.

mod accept;
mod gate;
mod groups;
mod import;
mod logs;
mod read;
mod review;
pub(crate) mod scan;
mod scopes;
mod sync;
mod types;
mod usage;
mod vectors;
mod write;
mod write_many;

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard, PoisonError};

use mnemo_core::{Error, MemoryChanged, Result};

use crate::doc::DocRecord;
use crate::events::EventBus;
use crate::fsutil::{self, ReadOutcome};
use crate::index::{DocSummary, Index, ProblemOut};
use crate::journal::Journal;
use crate::workspace::{Home, Workspace};

pub use groups::{GroupUndo, SYNC_UNDO_NOTE};
pub use import::{IMPORT_STEP, ImportBy, ImportWritten};
pub use logs::{
    chat_record_entry, chat_record_path, in_records_folder, log_path, records_refusal,
    refuse_records_folder,
};
pub use read::{memory_index_for_prompt, memory_index_of};
pub use review::{Accepted, DEFAULT_EXPIRE_DAYS};
pub use scopes::Copied;
pub use types::{
    EntryOut, MemoryDetail, NewMemory, Patch, Status, SyncReport, WorkspaceInfo, WorkspaceStatus,
    WriteOutcome,
};
pub use write::{Batch, WriteHold};
pub use write_many::ManyWrite;

/// Memory on disk: files, journal, index, events.
pub struct Vault {
    home: Home,
    index: Mutex<Index>,
    journal: Mutex<Journal>,
    bus: EventBus,
    /// Content hash of each file as this process last saw it (watcher de-duplication).
    seen: Mutex<HashMap<(String, String), Option<String>>>,
    /// Workspaces whose `seen` entries were seeded (watched by this process).
    seeded: Mutex<HashSet<String>>,
    warnings: Mutex<Vec<String>>,
    /// Workspaces whose MEMORY.md regeneration waits for the end of a batch of writes: open
    /// batches, and whether a topic file was written meanwhile.
    deferred: Mutex<HashMap<String, (u32, bool)>>,
    /// Change groups whose writes are held as a proposal (review mode), by group id.
    stages: Mutex<HashMap<i64, review::Stage>>,
}

fn guard<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Turn a name into a file name: lowercase ASCII words joined by `-`, other scripts kept.
#[must_use]
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.trim().chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out: String = out.trim_end_matches('-').chars().take(80).collect();
    if out.is_empty() {
        "memory".to_owned()
    } else {
        out
    }
}

impl Vault {
    /// Open a home: create it and `personal` if needed, open (or rebuild) the index, open the
    /// journal and settle writes a crash interrupted, then bring the index up to date.
    pub fn open(home: Home) -> Result<Self> {
        home.ensure()?;
        let (index, warning) = Index::open(&home.index_path())?;
        let journal = Journal::open(&home.journal_path())?;
        let vault = Self {
            home,
            index: Mutex::new(index),
            journal: Mutex::new(journal),
            bus: EventBus::default(),
            seen: Mutex::new(HashMap::new()),
            seeded: Mutex::new(HashSet::new()),
            warnings: Mutex::new(warning.into_iter().collect()),
            deferred: Mutex::new(HashMap::new()),
            stages: Mutex::new(HashMap::new()),
        };
        vault.settle_interrupted_writes()?;
        vault.recover_proposals();
        vault.recover_imports();
        Ok(vault)
    }

    /// Settle journal rows left pending by a crashed writer. Each is checked under its
    /// workspace's write lock, so a write still under way in another process is left alone.
    fn settle_interrupted_writes(&self) -> Result<()> {
        let pending = guard(&self.journal).pending()?;
        if pending.is_empty() {
            return Ok(());
        }
        let workspaces = self.home.workspaces()?;
        for (id, ws_id, path) in pending {
            // A workspace that is not there now (folder unmounted, say) keeps its rows for later.
            let Some(ws) = workspaces.iter().find(|w| w.id == ws_id) else {
                continue;
            };
            let _lock = self.write_lock(ws)?;
            let current = match fsutil::normalise(&path)
                .map(|rel| crate::rootdir::read_in(&ws.memory_root, &rel))
            {
                Ok(Ok(ReadOutcome::Bytes(b))) => Some(fsutil::hash(&b)),
                _ => None,
            };
            guard(&self.journal).settle(id, current.as_deref())?;
            tracing::info!("settled journal entry {id} left pending by an interrupted write");
        }
        Ok(())
    }

    /// The home this vault lives in.
    #[must_use]
    pub fn home(&self) -> &Home {
        &self.home
    }

    /// Recoveries that happened so far (corrupt index moved aside, corrupt meta.json, …).
    #[must_use]
    pub fn warnings(&self) -> Vec<String> {
        guard(&self.warnings).clone()
    }

    fn warn(&self, w: String) {
        tracing::warn!("{w}");
        guard(&self.warnings).push(w);
    }

    /// Receive every `memory_changed` event from now on.
    pub fn subscribe(&self) -> std::sync::mpsc::Receiver<MemoryChanged> {
        self.bus.subscribe()
    }

    /// Every workspace.
    pub fn workspaces(&self) -> Result<Vec<Workspace>> {
        self.home.workspaces()
    }

    /// Every workspace with its counts.
    pub fn workspace_infos(&self) -> Result<Vec<WorkspaceInfo>> {
        let counts = guard(&self.index).counts()?;
        Ok(self
            .workspaces()?
            .into_iter()
            .map(|w| WorkspaceInfo {
                counts: counts.get(&w.id).cloned().unwrap_or_default(),
                workspace: w,
            })
            .collect())
    }

    /// One workspace by id.
    pub fn workspace(&self, id: &str) -> Result<Workspace> {
        self.home.workspace(id)
    }

    /// Scope for reads: one workspace id, or all when `None`.
    pub fn scope(&self, workspace: Option<&str>) -> Result<Vec<Workspace>> {
        match workspace {
            Some(id) => Ok(vec![self.workspace(id)?]),
            None => self.workspaces(),
        }
    }
}

fn not_a_memory(rel: &str) -> Error {
    Error::usage(format!(
        "`{rel}` is not a memory file: memories are `.md` files (MEMORY.md is generated, hidden files are ignored)"
    ))
}

fn summary_of(workspace: &str, rel: &str, rec: &DocRecord) -> DocSummary {
    DocSummary {
        workspace: workspace.to_owned(),
        path: rel.to_owned(),
        kind: rec.kind,
        memory_type: rec.memory_type,
        name: rec.name.clone(),
        description: rec.description.clone(),
        mtime: chrono::DateTime::from_timestamp_millis(rec.mtime_ms)
            .unwrap_or_default()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        valid: rec.problem.is_none(),
        problem: rec.problem.as_ref().map(|p| ProblemOut {
            code: p.code.as_str().to_owned(),
            message: p.message.clone(),
        }),
        secret: rec.secret.clone(),
        pinned: rec.pinned,
        archived: rec.archived,
    }
}
