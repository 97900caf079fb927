//! Reads: list, search, get, history, state files, status, telemetry.

use std::fs;

use mnemo_core::{Error, ErrorCode, MemoryType, Result};

use super::{
    EntryOut, MemoryDetail, Status, Vault, WorkspaceStatus, guard, not_a_memory, summary_of,
};
use crate::doc::{self, DocKind, DocRecord};
use crate::format;
use crate::fsutil;
use crate::index::{DocSummary, Hit};
use crate::journal::{Change, ChangeSummary};
use crate::lock;
use crate::rootdir::RootDir;
use crate::state::{self, Loaded, Meta};
use crate::workspace::Workspace;

impl Vault {
    // ----- reads -----------------------------------------------------------------------------

    /// Topic memories, optionally of one workspace and type (index brought up to date first).
    pub fn list(
        &self,
        workspace: Option<&str>,
        memory_type: Option<MemoryType>,
    ) -> Result<Vec<DocSummary>> {
        for w in self.scope(workspace)? {
            self.sync(&w)?;
        }
        guard(&self.index).list(workspace, memory_type)
    }

    /// Topic memories from the index as it is, without syncing first (with a watcher running).
    pub fn list_indexed(
        &self,
        workspace: Option<&str>,
        memory_type: Option<MemoryType>,
    ) -> Result<Vec<DocSummary>> {
        if let Some(id) = workspace {
            self.workspace(id)?;
        }
        guard(&self.index).list(workspace, memory_type)
    }

    /// A workspace's MEMORY.md as it is on disk (empty when there is none), read like any
    /// memory: confined to the root (a symlink out is not followed) and capped in size.
    pub fn memory_index_text(&self, workspace: &str) -> Result<String> {
        let ws = self.workspace(workspace)?;
        Ok(memory_index_of(&ws))
    }

    /// Full-text search, best first (index brought up to date first).
    pub fn search(&self, workspace: Option<&str>, query: &str, limit: usize) -> Result<Vec<Hit>> {
        for w in self.scope(workspace)? {
            self.sync(&w)?;
        }
        guard(&self.index).search(workspace, query, limit)
    }

    /// Search the index as it is, without syncing first (benchmarks, hot paths with a watcher).
    pub fn search_indexed(
        &self,
        workspace: Option<&str>,
        query: &str,
        limit: usize,
    ) -> Result<Vec<Hit>> {
        guard(&self.index).search(workspace, query, limit)
    }

    /// A document's body as the index holds it and the line of the file it starts on.
    pub fn body_indexed(&self, workspace: &str, path: &str) -> Result<Option<(String, u32)>> {
        guard(&self.index).body_of(workspace, path)
    }

    /// Full-text search over one kind of doc, from the index as it is (recall's candidates).
    pub fn search_kind_indexed(
        &self,
        workspace: Option<&str>,
        query: &str,
        limit: usize,
        kind: Option<DocKind>,
    ) -> Result<Vec<Hit>> {
        guard(&self.index).search_kind(workspace, query, limit, kind)
    }

    /// Topic memories in one workspace, from the index.
    pub fn topic_count(&self, workspace: &str) -> Result<u64> {
        guard(&self.index).topic_count(workspace)
    }

    /// Record a telemetry event in the index.
    pub fn record_event(
        &self,
        kind: &str,
        workspace: &str,
        data: &serde_json::Value,
    ) -> Result<()> {
        guard(&self.index).record_event(kind, workspace, data)
    }

    /// The newest telemetry events: (at, kind, workspace, data).
    pub fn events(
        &self,
        kind: Option<&str>,
        limit: usize,
    ) -> Result<Vec<(String, String, String, serde_json::Value)>> {
        guard(&self.index).events(kind, limit)
    }

    /// Paths of a workspace's archived memories (recall leaves them out).
    pub fn archived_paths(&self, workspace: &str) -> Result<Vec<String>> {
        guard(&self.index).archived_paths(workspace)
    }

    /// One memory, read from disk.
    pub fn get(&self, workspace: &str, path: &str) -> Result<MemoryDetail> {
        let ws = self.workspace(workspace)?;
        let rel = fsutil::normalise(path)?;
        let kind = doc::doc_kind(&rel).ok_or_else(|| not_a_memory(&rel))?;
        let missing = || Error::not_found(format!("no memory `{rel}` in workspace `{workspace}`"));
        let root = match RootDir::open(&ws.memory_root) {
            Err(e) if e.code == ErrorCode::NotFound => return Err(missing()),
            other => other?,
        };
        let rec = doc::analyze_in(&root, &rel, kind)?.ok_or_else(missing)?;
        Ok(detail_of(&ws.id, &rel, &rec))
    }

    /// One memory as a job writing as `origin` sees it: its own staged writes (review mode)
    /// over the files on disk.
    pub fn get_as(
        &self,
        origin: crate::journal::Origin,
        workspace: &str,
        path: &str,
    ) -> Result<MemoryDetail> {
        let ws = self.workspace(workspace)?;
        let rel = fsutil::normalise(path)?;
        let kind = doc::doc_kind(&rel).ok_or_else(|| not_a_memory(&rel))?;
        match self.staged(origin, &rel) {
            None => self.get(workspace, path),
            Some(None) => Err(Error::not_found(format!(
                "no memory `{rel}` in workspace `{workspace}`"
            ))),
            Some(Some(b)) => Ok(detail_of(
                &ws.id,
                &rel,
                &doc::analyze_bytes(&rel, kind, &b, 0),
            )),
        }
    }
}

fn detail_of(ws: &str, rel: &str, rec: &DocRecord) -> MemoryDetail {
    {
        let total = rec.entries.len();
        MemoryDetail {
            pinned: rec.pinned,
            hash: rec.hash.clone(),
            // Every byte Mnemo hands out passes the secret gate: a file another program wrote
            // with a secret in it reads redacted (`summary.secret` says so).
            content: rec
                .raw
                .as_ref()
                .and_then(|r| String::from_utf8(r.clone()).ok())
                .map(|t| {
                    if rec.secret.is_some() {
                        crate::secrets::redact(&t).0
                    } else {
                        t
                    }
                }),
            body: rec.body.clone(),
            entries: rec
                .entries
                .iter()
                .map(|e| EntryOut {
                    id: format::entry_id(rel, e.index, total),
                    summary: e.summary.clone(),
                    why: e.why.clone(),
                    how: e.how.clone(),
                    superseded: crate::supersede::of_entry(&e.text),
                })
                .collect(),
            summary: summary_of(ws, rel, rec),
        }
    }
}

impl Vault {
    /// Journal entries, newest first.
    pub fn history(
        &self,
        workspace: Option<&str>,
        path: Option<&str>,
        limit: usize,
    ) -> Result<Vec<ChangeSummary>> {
        let rel = match (workspace, path) {
            (Some(w), Some(p)) => {
                self.workspace(w)?;
                Some(fsutil::normalise(p)?)
            }
            (None, Some(p)) => Some(p.trim().trim_start_matches("./").to_owned()),
            _ => None,
        };
        guard(&self.journal).history(workspace, rel.as_deref(), limit)
    }

    /// One journaled change with its before/after content.
    pub fn change(&self, id: i64) -> Result<Change> {
        guard(&self.journal).get(id)
    }

    /// `meta.json` of a workspace (corruption recovered).
    pub fn meta(&self, ws: &Workspace) -> Result<Loaded<Meta>> {
        let loaded: Loaded<Meta> = state::load(&ws.state_dir.join(state::META_FILE))?;
        if let Some(w) = &loaded.warning {
            self.warn(w.clone());
        }
        Ok(loaded)
    }

    /// Write `meta.json` of a workspace.
    pub fn save_meta(&self, ws: &Workspace, meta: &Meta) -> Result<()> {
        state::save(&ws.state_dir.join(state::META_FILE), meta)
    }

    /// Status of the home and every workspace.
    pub fn status(&self) -> Result<Status> {
        let infos = self.workspace_infos()?;
        let mut workspaces = Vec::with_capacity(infos.len());
        for info in infos {
            let meta = self.meta(&info.workspace)?.value;
            workspaces.push(WorkspaceStatus {
                id: info.workspace.id.clone(),
                kind: info.workspace.kind,
                counts: info.counts,
                last_extract_at: meta.last_extract_at,
                last_dream_at: meta.last_dream_at,
                consolidation_locked_by: lock::holder_for(&info.workspace)
                    .map(|lock::Holder::Pid(p)| p),
            });
        }
        Ok(Status {
            home: self.home.root.display().to_string(),
            workspaces,
            index_bytes: fs::metadata(self.home.index_path()).map_or(0, |m| m.len()),
            warnings: {
                let mut w = self.warnings();
                w.extend(self.home.refused_roots()?.iter().map(ToString::to_string));
                w
            },
        })
    }
}

/// MEMORY.md of a workspace as a prompt loads it: cut to 200 lines / 25,000 bytes with the
/// warning (see [`crate::memory_md::load_for_prompt`]).
#[must_use]
pub fn memory_index_for_prompt(ws: &Workspace) -> crate::memory_md::Loaded {
    crate::memory_md::load_for_prompt(&memory_index_of(ws))
}

/// MEMORY.md of a workspace (see [`Vault::memory_index_text`]).
#[must_use]
pub fn memory_index_of(ws: &Workspace) -> String {
    match RootDir::open(&ws.memory_root).and_then(|r| r.read_capped(crate::memory_md::FILE_NAME)) {
        Ok(fsutil::ReadOutcome::Bytes(b)) => String::from_utf8_lossy(&b).into_owned(),
        _ => String::new(),
    }
}
