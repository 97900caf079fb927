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

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use mnemo_core::{
    ChangeSource, Error, ErrorCode, MemoryChanged, MemoryType, Result, WorkspaceKind,
};
use serde::Serialize;
use walkdir::WalkDir;

use crate::doc::{self, DocKind, DocRecord};
use crate::events::EventBus;
use crate::format::{self, TopicFile};
use crate::fsutil::{self, ReadOutcome};
use crate::index::{Counts, DocSummary, Hit, Index, ProblemOut};
use crate::journal::{Change, ChangeSummary, Journal};
use crate::lock;
use crate::memory_md;
use crate::state::{self, Cursor, Loaded, Meta};
use crate::workspace::{Home, Workspace};

/// A workspace with its counts, as `workspaces` shows it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct WorkspaceInfo {
    /// The workspace.
    #[serde(flatten)]
    pub workspace: Workspace,
    /// Counts from the index.
    pub counts: Counts,
}

/// One memory with its content, as `show` gives it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct MemoryDetail {
    /// Listing fields.
    #[serde(flatten)]
    pub summary: DocSummary,
    /// Content hash (pass back to `update` to detect concurrent edits).
    pub hash: String,
    /// The exact file text (`None` for binary / non-UTF-8 / too-large files).
    pub content: Option<String>,
    /// The body after the frontmatter.
    pub body: String,
    /// Body entries with stable ids.
    pub entries: Vec<EntryOut>,
}

/// An entry with its stable id.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct EntryOut {
    /// `relPath` or `relPath:index`.
    pub id: String,
    /// Summary line.
    pub summary: String,
    /// `Why:` text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// `How to apply:` text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub how: Option<String>,
}

/// A new memory.
#[derive(Debug, Clone)]
pub struct NewMemory {
    /// Path relative to the memory root; default: a slug of the name.
    pub path: Option<String>,
    /// Name.
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Type.
    pub memory_type: MemoryType,
    /// Body.
    pub body: String,
}

/// Changes to a memory; `None` fields stay as they are.
#[derive(Debug, Clone, Default)]
pub struct Patch {
    /// New name.
    pub name: Option<String>,
    /// New description.
    pub description: Option<String>,
    /// New type (validated against the closed set).
    pub memory_type: Option<String>,
    /// New body.
    pub body: Option<String>,
    /// Refuse with `conflict` unless the file still has this hash.
    pub expected_hash: Option<String>,
}

/// What a write did.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct WriteOutcome {
    /// Workspace id.
    pub workspace: String,
    /// Path relative to the memory root.
    pub path: String,
    /// Journal id (`None` when the content was already as asked: nothing changed).
    pub change_id: Option<i64>,
    /// Hash of the new content (`None` after a delete).
    pub hash: Option<String>,
}

/// What a sync or rebuild did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SyncReport {
    /// Files looked at.
    pub scanned: usize,
    /// Docs added or changed in the index.
    pub updated: usize,
    /// Docs removed from the index.
    pub removed: usize,
}

/// Status of the home.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Status {
    /// `$MNEMO_HOME`.
    pub home: String,
    /// Workspaces and counts.
    pub workspaces: Vec<WorkspaceStatus>,
    /// Size of index.db in bytes.
    pub index_bytes: u64,
    /// Recoveries that happened while opening (corrupt files moved aside, …).
    pub warnings: Vec<String>,
}

/// Status of one workspace.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct WorkspaceStatus {
    /// Workspace id.
    pub id: String,
    /// Kind.
    pub kind: WorkspaceKind,
    /// Counts.
    pub counts: Counts,
    /// Last extraction (from meta.json).
    pub last_extract_at: Option<String>,
    /// Last dream (from meta.json).
    pub last_dream_at: Option<String>,
    /// PID holding `consolidation.lock`, if any.
    pub consolidation_locked_by: Option<u32>,
}

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
        };
        vault.settle_interrupted_writes()?;
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
            let current = match fsutil::confine(&ws.memory_root, &path)
                .map(|(abs, _)| fsutil::read_capped(&abs))
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
    fn scope(&self, workspace: Option<&str>) -> Result<Vec<Workspace>> {
        match workspace {
            Some(id) => Ok(vec![self.workspace(id)?]),
            None => self.workspaces(),
        }
    }

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

    /// One memory, read from disk.
    pub fn get(&self, workspace: &str, path: &str) -> Result<MemoryDetail> {
        let ws = self.workspace(workspace)?;
        let (abs, rel) = fsutil::confine(&ws.memory_root, path)?;
        let kind = doc::doc_kind(&rel).ok_or_else(|| not_a_memory(&rel))?;
        let rec = doc::analyze_path(&rel, kind, &abs)?.ok_or_else(|| {
            Error::not_found(format!("no memory `{rel}` in workspace `{workspace}`"))
        })?;
        let total = rec.entries.len();
        Ok(MemoryDetail {
            hash: rec.hash.clone(),
            content: rec
                .raw
                .as_ref()
                .and_then(|r| String::from_utf8(r.clone()).ok()),
            body: rec.body.clone(),
            entries: rec
                .entries
                .iter()
                .map(|e| EntryOut {
                    id: format::entry_id(&rel, e.index, total),
                    summary: e.summary.clone(),
                    why: e.why.clone(),
                    how: e.how.clone(),
                })
                .collect(),
            summary: summary_of(&ws.id, &rel, &rec),
        })
    }

    /// Journal entries, newest first.
    pub fn history(
        &self,
        workspace: Option<&str>,
        path: Option<&str>,
        limit: usize,
    ) -> Result<Vec<ChangeSummary>> {
        let rel = match (workspace, path) {
            (Some(w), Some(p)) => Some(fsutil::confine(&self.workspace(w)?.memory_root, p)?.1),
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

    /// `extract-cursor.json` of a workspace (corruption recovered).
    pub fn cursor(&self, ws: &Workspace) -> Result<Loaded<Cursor>> {
        let loaded: Loaded<Cursor> = state::load(&ws.state_dir.join(state::CURSOR_FILE))?;
        if let Some(w) = &loaded.warning {
            self.warn(w.clone());
        }
        Ok(loaded)
    }

    /// Write `extract-cursor.json` of a workspace.
    pub fn save_cursor(&self, ws: &Workspace, cursor: &Cursor) -> Result<()> {
        state::save(&ws.state_dir.join(state::CURSOR_FILE), cursor)
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
                consolidation_locked_by: lock::holder(&info.workspace.lock_dir)
                    .map(|lock::Holder::Pid(p)| p),
            });
        }
        Ok(Status {
            home: self.home.root.display().to_string(),
            workspaces,
            index_bytes: fs::metadata(self.home.index_path()).map_or(0, |m| m.len()),
            warnings: self.warnings(),
        })
    }

    // ----- writes ----------------------------------------------------------------------------

    /// Create a memory. `conflict` if the file exists.
    pub fn create(
        &self,
        workspace: &str,
        new: &NewMemory,
        source: ChangeSource,
    ) -> Result<WriteOutcome> {
        let ws = self.workspace(workspace)?;
        let mut rel = match &new.path {
            Some(p) => p.trim().to_owned(),
            None => format!("{}.md", slug(&new.name)),
        };
        if !rel.ends_with(".md") {
            rel.push_str(".md");
        }
        let file = TopicFile::new(&new.name, &new.description, new.memory_type, &new.body)?;
        let bytes = file.render().into_bytes();
        self.mutate(&ws, &rel, source, None, |current, rel| match current {
            Some(_) => Err(Error::new(
                ErrorCode::Conflict,
                format!("`{rel}` already exists: edit it, or pick another path"),
            )),
            None => Ok(Some(bytes)),
        })
    }

    /// Change fields and/or the body of a memory; only what is given changes.
    pub fn update(
        &self,
        workspace: &str,
        path: &str,
        patch: &Patch,
        source: ChangeSource,
    ) -> Result<WriteOutcome> {
        let ws = self.workspace(workspace)?;
        self.mutate(&ws, path, source, None, |current, rel| {
            let current = current.ok_or_else(|| {
                Error::not_found(format!("no memory `{rel}` in workspace `{workspace}`"))
            })?;
            if let Some(expected) = &patch.expected_hash
                && &fsutil::hash(current) != expected
            {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!(
                        "`{rel}` changed since you read it: reload it and apply your edit again"
                    ),
                ));
            }
            let text = format::decode(current).map_err(format::Problem::into_error)?;
            let mut file = TopicFile::parse(text);
            if let Some(t) = &patch.memory_type {
                t.parse::<MemoryType>()?;
                file.set_field("type", t)?;
            }
            if let Some(n) = &patch.name {
                file.set_field("name", n)?;
            }
            if let Some(d) = &patch.description {
                file.set_field("description", d)?;
            }
            if let Some(b) = &patch.body {
                file.set_body(b);
            }
            file.check()?;
            Ok(Some(file.render().into_bytes()))
        })
    }

    /// Delete a memory file.
    pub fn delete(
        &self,
        workspace: &str,
        path: &str,
        source: ChangeSource,
    ) -> Result<WriteOutcome> {
        let ws = self.workspace(workspace)?;
        self.mutate(&ws, path, source, None, |current, rel| match current {
            Some(_) => Ok(None),
            None => Err(Error::not_found(format!(
                "no memory `{rel}` in workspace `{workspace}`"
            ))),
        })
    }

    /// Undo a change: restore the exact bytes from before it (deleting a file it created).
    /// `conflict` when the file changed since. The undo is itself journaled.
    pub fn undo(&self, id: i64, source: ChangeSource) -> Result<WriteOutcome> {
        let change = self.change(id)?;
        let ws = self.workspace(&change.summary.workspace)?;
        self.mutate(&ws, &change.summary.path, source, Some(id), |current, rel| {
            if current.map(fsutil::hash) != change.after_hash {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!("`{rel}` changed after change {id}: undo the later changes first (see `mnemo history {rel}`)"),
                ));
            }
            if change.before_hash.is_some() && change.before.is_none() {
                return Err(Error::new(
                    ErrorCode::TooLarge,
                    format!("change {id} replaced a file too large to keep in the journal; it cannot be undone"),
                ));
            }
            Ok(change.before.clone())
        })
    }

    /// The one write path: under the workspace write lock, read the current bytes, let `f` decide
    /// the new content (`None` = delete), journal ahead, write atomically, index, regenerate
    /// MEMORY.md, announce.
    pub fn mutate(
        &self,
        ws: &Workspace,
        path: &str,
        source: ChangeSource,
        undoes: Option<i64>,
        f: impl FnOnce(Option<&[u8]>, &str) -> Result<Option<Vec<u8>>>,
    ) -> Result<WriteOutcome> {
        let (abs, rel) = fsutil::confine(&ws.memory_root, path)?;
        let kind = doc::doc_kind(&rel);
        // MEMORY.md is generated; the only write to it from here is undoing a regeneration.
        let undoing_index = undoes.is_some() && rel == memory_md::FILE_NAME;
        if kind.is_none() && !undoing_index {
            return Err(not_a_memory(&rel));
        }
        let _lock = self.write_lock(ws)?;
        let current = match fsutil::read_capped(&abs)? {
            ReadOutcome::Bytes(b) => Some(b),
            ReadOutcome::Missing => None,
            ReadOutcome::TooLarge(n) => {
                return Err(Error::new(
                    ErrorCode::TooLarge,
                    format!(
                        "`{rel}` is {n} bytes, over the {} byte limit: trim it in an editor first",
                        fsutil::MAX_FILE_BYTES
                    ),
                ));
            }
        };
        let new = f(current.as_deref(), &rel)?;
        if let Some(b) = &new
            && b.len() as u64 > fsutil::MAX_FILE_BYTES
        {
            return Err(Error::new(
                ErrorCode::TooLarge,
                format!(
                    "a memory file may hold at most {} bytes; this one would hold {}",
                    fsutil::MAX_FILE_BYTES,
                    b.len()
                ),
            ));
        }
        let before_hash = current.as_deref().map(fsutil::hash);
        let after_hash = new.as_deref().map(fsutil::hash);
        if before_hash == after_hash {
            return Ok(WriteOutcome {
                workspace: ws.id.clone(),
                path: rel,
                change_id: None,
                hash: after_hash,
            });
        }
        let journal = guard(&self.journal);
        let id = journal.begin(
            &ws.id,
            &rel,
            source,
            current.as_deref(),
            before_hash.as_deref(),
            new.as_deref(),
            after_hash.as_deref(),
            undoes,
        )?;
        let written = match &new {
            Some(b) => fsutil::write_atomic(&abs, b),
            None => fsutil::remove_file(&abs),
        };
        if let Err(e) = written {
            journal.abort(id)?;
            return Err(e);
        }
        journal.commit(id)?;
        drop(journal);
        let record = kind.zip(new.as_deref()).map(|(kind, b)| {
            let mtime = fs::metadata(&abs)
                .map(|m| doc::mtime_ms(&m))
                .unwrap_or_default();
            doc::analyze_bytes(&rel, kind, b, mtime)
        });
        let indexed = guard(&self.index).batch(|b| match (&record, kind) {
            (Some(r), _) => b.upsert(&ws.id, &rel, r),
            (None, Some(_)) => b.remove(&ws.id, &rel).map(|_| ()),
            (None, None) => Ok(()),
        });
        if let Err(e) = indexed {
            self.warn(format!(
                "index update for {rel} failed ({e}); the next sync repairs it"
            ));
        }
        if kind == Some(DocKind::Topic)
            && let Err(e) = self.write_memory_md(ws, source)
        {
            self.warn(format!("regenerating MEMORY.md in {} failed: {e}", ws.id));
        }
        guard(&self.seen).insert((ws.id.clone(), rel.clone()), after_hash.clone());
        self.bus.emit(&MemoryChanged {
            workspace: ws.id.clone(),
            paths: vec![rel.clone()],
            source,
        });
        Ok(WriteOutcome {
            workspace: ws.id.clone(),
            path: rel,
            change_id: Some(id),
            hash: after_hash,
        })
    }

    /// Take the workspace's write lock (an OS advisory lock; blocks until free).
    fn write_lock(&self, ws: &Workspace) -> Result<fs::File> {
        fs::create_dir_all(&ws.state_dir)
            .map_err(|e| Error::io(format!("creating {}", ws.state_dir.display()), &e))?;
        let path = ws.state_dir.join(".mnemo-write.lock");
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(format!("opening {}", path.display()), &e))?;
        file.lock()
            .map_err(|e| Error::io(format!("locking {}", path.display()), &e))?;
        Ok(file)
    }

    /// Regenerate MEMORY.md from the index; writes only when the text changes.
    ///
    /// In another tool's folder the previous MEMORY.md is journaled first (it may hold that
    /// tool's own notes), so the regeneration can be reviewed and undone.
    pub fn write_memory_md(&self, ws: &Workspace, source: ChangeSource) -> Result<()> {
        let lines = guard(&self.index).index_lines(&ws.id)?;
        let items: Vec<memory_md::IndexLine<'_>> = lines
            .iter()
            .map(|(p, n, d)| memory_md::IndexLine {
                path: p,
                name: n,
                description: d,
            })
            .collect();
        let text = memory_md::render(&items);
        let path = ws.memory_root.join(memory_md::FILE_NAME);
        let old = fs::read(&path).ok();
        if old.as_deref() == Some(text.as_bytes()) {
            return Ok(());
        }
        if ws.kind == WorkspaceKind::Mnemo || old.is_none() {
            return fsutil::write_atomic(&path, text.as_bytes());
        }
        let journal = guard(&self.journal);
        let (before, after) = (old.as_deref(), Some(text.as_bytes()));
        let id = journal.begin(
            &ws.id,
            memory_md::FILE_NAME,
            source,
            before,
            before.map(fsutil::hash).as_deref(),
            after,
            after.map(fsutil::hash).as_deref(),
            None,
        )?;
        if let Err(e) = fsutil::write_atomic(&path, text.as_bytes()) {
            journal.abort(id)?;
            return Err(e);
        }
        journal.commit(id)
    }

    // ----- keeping the index in step with the files -----------------------------------------

    /// Bring one workspace's index up to date with its files (stat first, read only what
    /// changed). Changes made outside Mnemo are journaled (source `watcher`) and announced.
    pub fn sync(&self, ws: &Workspace) -> Result<SyncReport> {
        let (report, _) = self.sync_scope(ws, None)?;
        Ok(report)
    }

    /// Bring every workspace up to date.
    pub fn sync_all(&self) -> Result<SyncReport> {
        let mut total = SyncReport::default();
        for ws in self.workspaces()? {
            let r = self.sync(&ws)?;
            total.scanned += r.scanned;
            total.updated += r.updated;
            total.removed += r.removed;
        }
        Ok(total)
    }

    /// Drop the index and rebuild it from the files of every workspace (nothing journaled).
    pub fn rebuild(&self) -> Result<SyncReport> {
        // First record outside edits the index can still tell apart, so none are lost to history
        // (only where there is an earlier scan to compare with).
        for ws in self.workspaces()? {
            if guard(&self.index).was_synced(&ws.id)? {
                self.sync(&ws)?;
            }
        }
        guard(&self.index).batch(|b| b.clear())?;
        let mut total = SyncReport::default();
        for ws in self.workspaces()? {
            let (r, _) = self.sync_scope(&ws, None)?;
            total.scanned += r.scanned;
            total.updated += r.updated;
        }
        Ok(total)
    }

    /// Apply changes to specific paths (from the watcher). Returns the paths that changed and
    /// who changed them.
    pub fn apply_paths(
        &self,
        ws: &Workspace,
        rels: &[String],
    ) -> Result<Vec<(String, ChangeSource)>> {
        Ok(self.sync_scope(ws, Some(rels))?.1)
    }

    /// Remember the current hashes of a workspace's files (the watcher's starting point).
    pub fn seed_seen(&self, ws: &Workspace) -> Result<()> {
        let states = guard(&self.index).file_states(&ws.id)?;
        let mut seen = guard(&self.seen);
        for (path, st) in states {
            seen.insert((ws.id.clone(), path), Some(st.hash));
        }
        guard(&self.seeded).insert(ws.id.clone());
        Ok(())
    }

    fn sync_scope(
        &self,
        ws: &Workspace,
        only: Option<&[String]>,
    ) -> Result<(SyncReport, Vec<(String, ChangeSource)>)> {
        let _lock = self.write_lock(ws)?;
        let (known, first_time) = {
            let index = guard(&self.index);
            // A workspace indexed for the first time is not "changed by an outside program".
            let known = match only {
                // The watcher's path: look up only what changed, not the whole workspace.
                Some(rels) => index.file_states_of(&ws.id, rels)?,
                None => index.file_states(&ws.id)?,
            };
            (known, !index.was_synced(&ws.id)?)
        };
        let mut report = SyncReport::default();
        let mut candidates: Vec<String> = Vec::new();
        match only {
            Some(rels) => candidates.extend(rels.iter().cloned()),
            None => {
                let mut present = HashSet::new();
                for (rel, meta) in walk(&ws.memory_root) {
                    report.scanned += 1;
                    let unchanged = known.get(&rel).is_some_and(|k| {
                        k.mtime_ms == doc::mtime_ms(&meta)
                            && k.size == i64::try_from(meta.len()).unwrap_or(-1)
                    });
                    if !unchanged {
                        candidates.push(rel.clone());
                    }
                    present.insert(rel);
                }
                candidates.extend(known.keys().filter(|k| !present.contains(*k)).cloned());
            }
        }
        let mut records: Vec<(String, Option<DocRecord>)> = Vec::with_capacity(candidates.len());
        for rel in candidates {
            let Some(kind) = doc::doc_kind(&rel) else {
                continue;
            };
            let Ok((abs, rel)) = fsutil::confine(&ws.memory_root, &rel) else {
                // A symlink leading out of the root: never read; forget it if it was indexed.
                if known.contains_key(&rel) {
                    records.push((rel, None));
                }
                continue;
            };
            match doc::analyze_path(&rel, kind, &abs) {
                Ok(rec) => records.push((rel.clone(), rec)),
                // One unreadable file (permissions, say) must not block the whole workspace.
                Err(e) => self.warn(format!("skipped {}: {e}", abs.display())),
            }
        }
        let mut changed: Vec<(String, ChangeSource)> = Vec::new();
        let mut topic_changed = false;
        let mut index = guard(&self.index);
        let journal = guard(&self.journal);
        for (rel, rec) in &records {
            let old_hash = known.get(rel).map(|o| o.hash.clone());
            let new_hash = rec.as_ref().map(|r| r.hash.clone());
            let seen_before =
                guard(&self.seen).insert((ws.id.clone(), rel.clone()), new_hash.clone());
            if old_hash != new_hash {
                if rec.is_some() {
                    report.updated += 1;
                } else {
                    report.removed += 1;
                }
                topic_changed |= doc::doc_kind(rel) == Some(DocKind::Topic);
                if !first_time {
                    let old_raw = match &old_hash {
                        Some(_) => index.raw(&ws.id, rel)?.and_then(|(_, raw)| raw),
                        None => None,
                    };
                    journal.record(
                        &ws.id,
                        rel,
                        ChangeSource::Watcher,
                        (old_raw.as_deref(), old_hash.as_deref()),
                        (
                            rec.as_ref().and_then(|r| r.raw.as_deref()),
                            new_hash.as_deref(),
                        ),
                    )?;
                }
                changed.push((rel.clone(), ChangeSource::Watcher));
            } else if only.is_some() && seen_before.flatten() != new_hash {
                // Already indexed by another Mnemo process: announce it with its journaled source.
                let src = journal
                    .source_of(&ws.id, rel, new_hash.as_deref())?
                    .unwrap_or(ChangeSource::Watcher);
                changed.push((rel.clone(), src));
            }
        }
        if only.is_none() && guard(&self.seeded).contains(&ws.id) {
            self.changes_by_others(ws, &known, &records, &journal, &mut changed)?;
        }
        drop(journal);
        index.batch(|b| {
            b.mark_synced(&ws.id)?;
            for (rel, rec) in &records {
                match rec {
                    Some(r) => b.upsert(&ws.id, rel, r)?,
                    None => {
                        b.remove(&ws.id, rel)?;
                    }
                }
            }
            Ok(())
        })?;
        drop(index);
        if topic_changed
            && ws.kind == WorkspaceKind::Mnemo
            && let Err(e) = self.write_memory_md(ws, ChangeSource::Watcher)
        {
            self.warn(format!("regenerating MEMORY.md in {} failed: {e}", ws.id));
        }
        self.announce(ws, &changed);
        Ok((report, changed))
    }

    /// For a watched workspace during a full re-scan: files another Mnemo process changed (the
    /// index already agrees with the disk, but this process has not seen the change yet).
    fn changes_by_others(
        &self,
        ws: &Workspace,
        known: &HashMap<String, crate::index::FileState>,
        records: &[(String, Option<DocRecord>)],
        journal: &Journal,
        changed: &mut Vec<(String, ChangeSource)>,
    ) -> Result<()> {
        let handled: HashSet<&String> = records.iter().map(|(r, _)| r).collect();
        let mut seen = guard(&self.seen);
        for (rel, st) in known {
            if handled.contains(rel) {
                continue;
            }
            let prev = seen
                .insert((ws.id.clone(), rel.clone()), Some(st.hash.clone()))
                .flatten();
            if prev.as_deref() != Some(st.hash.as_str()) {
                let src = journal
                    .source_of(&ws.id, rel, Some(&st.hash))?
                    .unwrap_or(ChangeSource::Watcher);
                changed.push((rel.clone(), src));
            }
        }
        let gone: Vec<String> = seen
            .iter()
            .filter(|((w, p), h)| {
                w == &ws.id && h.is_some() && !known.contains_key(p) && !handled.contains(p)
            })
            .map(|((_, p), _)| p.clone())
            .collect();
        for p in gone {
            seen.insert((ws.id.clone(), p.clone()), None);
            let src = journal
                .source_of(&ws.id, &p, None)?
                .unwrap_or(ChangeSource::Watcher);
            changed.push((p, src));
        }
        Ok(())
    }

    fn announce(&self, ws: &Workspace, changed: &[(String, ChangeSource)]) {
        let mut by_source: BTreeMap<&str, (ChangeSource, Vec<String>)> = BTreeMap::new();
        for (p, s) in changed {
            by_source
                .entry(s.as_str())
                .or_insert((*s, Vec::new()))
                .1
                .push(p.clone());
        }
        for (_, (source, mut paths)) in by_source {
            paths.sort();
            self.bus.emit(&MemoryChanged {
                workspace: ws.id.clone(),
                paths,
                source,
            });
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
    }
}

/// Every document file under a memory root with its metadata: hidden entries skipped, symlinks
/// followed only when they stay inside the root.
fn walk(root: &Path) -> Vec<(String, fs::Metadata)> {
    let mut out = Vec::new();
    let walker = WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in walker.flatten() {
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(rel) = rel.to_str().map(|r| r.replace('\\', "/")) else {
            continue;
        };
        if doc::doc_kind(&rel).is_none() {
            continue;
        }
        let ft = entry.file_type();
        let meta = if ft.is_symlink() {
            if fsutil::confine(root, &rel).is_err() {
                continue;
            }
            match fs::metadata(entry.path()) {
                Ok(m) if m.is_file() => m,
                _ => continue,
            }
        } else if ft.is_file() {
            // A file deleted between listing and stat is simply not there.
            match entry.metadata() {
                Ok(m) => m,
                Err(_) => continue,
            }
        } else {
            continue;
        };
        out.push((rel, meta));
    }
    out
}
