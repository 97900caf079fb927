//! Writes: create, update, delete, undo — all through [`Vault::mutate`], the one write path.

use std::fs;

use mnemo_core::{ChangeSource, Error, ErrorCode, Field, MemoryChanged, Result, WorkspaceKind};

use super::{NewMemory, Patch, Vault, WriteOutcome, guard, not_a_memory, slug};
use crate::doc::{self, DocKind};
use crate::format::{self, TopicFile};
use crate::fsutil::{self, ReadOutcome};
use crate::journal::Origin;
use crate::memory_md;
use crate::rootdir::RootDir;
use crate::workspace::Workspace;

impl Vault {
    // ----- writes ----------------------------------------------------------------------------

    /// Create a memory. `conflict` if the file exists; `invalid_path` under `chats/`.
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
        // Conversation records are the record writer's alone, whoever asks.
        super::refuse_records_folder(&fsutil::normalise(&rel)?)?;
        let file = TopicFile::new(&new.name, &new.description, new.memory_type, &new.body)?;
        let bytes = file.render().into_bytes();
        self.mutate(&ws, &rel, source, None, |current, rel| match current {
            Some(_) => Err(Error::new(
                ErrorCode::Conflict,
                format!("`{rel}` already exists: edit it, or pick another path"),
            )
            .on(Some(Field::Path))),
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
            if doc::doc_kind(rel).is_some_and(DocKind::is_record) {
                // A daily log is plain markdown: its text is its body.
                if patch.name.is_some()
                    || patch.description.is_some()
                    || patch.memory_type.is_some()
                {
                    return Err(Error::usage(
                        "a daily log has no name, description or type: edit its text",
                    ));
                }
                return Ok(Some(match &patch.body {
                    Some(b) => b.clone().into_bytes(),
                    None => text.as_bytes().to_vec(),
                }));
            }
            let mut file = TopicFile::parse(text);
            if let Some(t) = patch.memory_type {
                file.set_field("type", t.as_str())?;
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
        if let Some(by) = change.summary.undone_by {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "change {id} is already undone (by change {by}); to bring it back, undo change {by}"
                ),
            ));
        }
        let ws = self.workspace(&change.summary.workspace)?;
        self.mutate(&ws, &change.summary.path, source, Some(id), |current, rel| {
            if current.map(fsutil::hash) != change.after_hash {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!("`{rel}` changed after change {id}: undo the later changes first (see `mnemo history {rel}`)"),
                ));
            }
            if let Some(e) = change.unrestorable() {
                return Err(e);
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
        origin: impl Into<Origin>,
        undoes: Option<i64>,
        f: impl FnOnce(Option<&[u8]>, &str) -> Result<Option<Vec<u8>>>,
    ) -> Result<WriteOutcome> {
        let rel = fsutil::normalise(path)?;
        let undoing_index = undoes.is_some() && rel == memory_md::FILE_NAME;
        if doc::doc_kind(&rel).is_none() && !undoing_index {
            super::gate::refuse_secret_name(&rel)?;
            return Err(not_a_memory(&rel));
        }
        let hold = self.hold_writes(ws)?;
        self.mutate_held(&hold, ws, path, origin, undoes, f)
    }

    /// Hold a workspace's write lock across several steps (a sync reads, merges and writes with
    /// no other writer in between); write meanwhile with [`Vault::mutate_held`]. Other processes'
    /// and threads' writes wait. Drop it before any [`Batch`] of the workspace ends.
    pub fn hold_writes(&self, ws: &Workspace) -> Result<WriteHold> {
        Ok(WriteHold {
            workspace: ws.id.clone(),
            _lock: self.write_lock(ws)?,
            memory_root: ws.memory_root.clone(),
            root: std::sync::OnceLock::new(),
        })
    }

    /// [`Vault::mutate`] for a caller holding the workspace's write lock.
    pub fn mutate_held(
        &self,
        hold: &WriteHold,
        ws: &Workspace,
        path: &str,
        origin: impl Into<Origin>,
        undoes: Option<i64>,
        f: impl FnOnce(Option<&[u8]>, &str) -> Result<Option<Vec<u8>>>,
    ) -> Result<WriteOutcome> {
        if hold.workspace != ws.id {
            return Err(Error::new(
                ErrorCode::Locked,
                format!("writing {} needs its own write lock", ws.id),
            ));
        }
        let origin = origin.into();
        let rel = fsutil::normalise(path)?;
        let kind = doc::doc_kind(&rel);
        // MEMORY.md is generated; the only write to it from here is undoing a regeneration.
        let undoing_index = undoes.is_some() && rel == memory_md::FILE_NAME;
        if kind.is_none() && !undoing_index {
            return Err(not_a_memory(&rel));
        }
        let root = hold.root()?;
        let current = match root.read_capped(&rel)? {
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
        // Review mode: a staged group's writes become a proposal, not a file change; an
        // automatic writer outside one is refused.
        if let Some(group) = origin.group
            && self.is_staged(origin)
        {
            return self.stage_write(ws, group, &rel, current, f);
        }
        self.refuse_unreviewed(&ws.id, origin, &rel)?;
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
        // Undo puts back bytes that were on disk; every other write passes the secret gate.
        if undoes.is_none() {
            super::gate::refuse_added_secrets(&rel, current.as_deref(), new.as_deref())?;
        }
        let before_hash = current.as_deref().map(fsutil::hash);
        let after_hash = new.as_deref().map(fsutil::hash);
        if before_hash == after_hash {
            return Ok(WriteOutcome {
                workspace: ws.id.clone(),
                path: rel,
                change_id: None,
                hash: after_hash,
                shared: None,
            });
        }
        let id = self.write_journaled(
            ws,
            root,
            &rel,
            origin,
            undoes,
            current.as_deref(),
            new.as_deref(),
        )?;
        self.index_written(ws, root, &rel, new.as_deref());
        let deferred = kind == Some(DocKind::Topic)
            && guard(&self.deferred)
                .get_mut(&ws.id)
                .map(|(_, dirty)| *dirty = true)
                .is_some();
        if kind == Some(DocKind::Topic)
            && !deferred
            && let Err(e) = self.write_memory_md_in(ws, root, origin)
        {
            self.warn(format!("regenerating MEMORY.md in {} failed: {e}", ws.id));
        }
        self.bus.emit(&MemoryChanged {
            workspace: ws.id.clone(),
            paths: vec![rel.clone()],
            source: origin.source,
        });
        let shared = ws.shared.as_ref().map(|s| s.sentence(&ws.label));
        if let Some(note) = &shared {
            tracing::info!(workspace = %ws.id, path = %rel, "{note}");
        }
        Ok(WriteOutcome {
            workspace: ws.id.clone(),
            path: rel,
            change_id: Some(id),
            hash: after_hash,
            shared,
        })
    }

    /// Journal ahead, write (or delete) atomically, commit. Call it holding the workspace's write
    /// lock, with `current` as read under that lock.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn write_journaled(
        &self,
        ws: &Workspace,
        root: &RootDir,
        rel: &str,
        origin: Origin,
        undoes: Option<i64>,
        current: Option<&[u8]>,
        new: Option<&[u8]>,
    ) -> Result<i64> {
        let journal = guard(&self.journal);
        let id = journal.begin(
            &ws.id,
            rel,
            origin,
            current,
            current.map(fsutil::hash).as_deref(),
            new,
            new.map(fsutil::hash).as_deref(),
            undoes,
        )?;
        // Only over the bytes read: another program's edit since (an editor's append) is
        // never overwritten — the write is refused and the caller reads again.
        let written = fsutil::replace_if(root, rel, new, current).and_then(|done| {
            if done {
                Ok(())
            } else {
                Err(Error::new(
                    ErrorCode::Conflict,
                    format!(
                        "`{rel}` changed on disk while Mnemo was writing it (another program \
                         edited it): nothing was overwritten; try again"
                    ),
                ))
            }
        });
        if let Err(e) = written {
            journal.abort(id)?;
            return Err(e);
        }
        journal.commit(id)?;
        Ok(id)
    }

    /// After a write: the index entry (a failure is logged; the next sync repairs it) and what
    /// this process has seen of the file.
    pub(super) fn index_written(
        &self,
        ws: &Workspace,
        root: &RootDir,
        rel: &str,
        new: Option<&[u8]>,
    ) {
        let kind = doc::doc_kind(rel);
        let record = kind
            .zip(new)
            .map(|(kind, b)| written_record(root, rel, kind, b));
        let indexed = guard(&self.index).batch(|b| match (&record, kind) {
            (Some(r), _) => b.upsert(&ws.id, rel, r),
            (None, Some(_)) => b.remove(&ws.id, rel).map(|_| ()),
            (None, None) => Ok(()),
        });
        if let Err(e) = indexed {
            self.warn(format!(
                "index update for {rel} failed ({e}); the next sync repairs it"
            ));
        }
        guard(&self.seen).insert((ws.id.clone(), rel.to_owned()), new.map(fsutil::hash));
    }

    /// [`Vault::index_written`] for many files, in one index transaction.
    pub(super) fn index_written_many(
        &self,
        ws: &Workspace,
        root: &RootDir,
        files: &[(&str, Option<&[u8]>)],
    ) {
        // Read and tokenised before the index is locked, on every core for a big batch.
        let records: Vec<_> = crate::par::map(files.to_vec(), 256, |(rel, new)| {
            let kind = doc::doc_kind(rel);
            let record = kind.zip(new).map(|(kind, b)| {
                let mut r = written_record(root, rel, kind, b);
                r.tokenize(rel);
                r
            });
            (rel, kind, record)
        });
        let indexed = guard(&self.index).batch(|b| {
            for (rel, kind, record) in &records {
                match (record, kind) {
                    (Some(r), _) => b.upsert(&ws.id, rel, r)?,
                    (None, Some(_)) => {
                        b.remove(&ws.id, rel)?;
                    }
                    (None, None) => {}
                }
            }
            Ok(())
        });
        if let Err(e) = indexed {
            self.warn(format!(
                "index update of {} files in {} failed ({e}); the next sync repairs it",
                files.len(),
                ws.id
            ));
        }
        let mut seen = guard(&self.seen);
        for (rel, new) in files {
            seen.insert((ws.id.clone(), (*rel).to_owned()), new.map(fsutil::hash));
        }
    }

    /// Take the workspace's write lock (an OS advisory lock; blocks until free).
    pub(super) fn write_lock(&self, ws: &Workspace) -> Result<fs::File> {
        fsutil::lock_file(&ws.state_dir.join(".mnemo-write.lock"))
    }

    /// Run a batch of writes to one workspace with MEMORY.md regenerated once at the end instead
    /// of after each write (a dream over thousands of files). See [`Vault::begin_batch`].
    pub fn batch<T>(&self, ws: &Workspace, origin: impl Into<Origin>, f: impl FnOnce() -> T) -> T {
        let _batch = self.begin_batch(ws, origin);
        f()
    }

    /// Until the returned guard is dropped, writes to `ws` from this process leave MEMORY.md as
    /// it is; dropping it (on every path, a panic included) regenerates it once. So MEMORY.md is
    /// only ever the index before or after a whole job — a crash midway leaves the one before,
    /// which the next write brings up to date. Nested batches regenerate at the outermost end.
    pub fn begin_batch(&self, ws: &Workspace, origin: impl Into<Origin>) -> Batch<'_> {
        guard(&self.deferred)
            .entry(ws.id.clone())
            .or_insert((0, false))
            .0 += 1;
        Batch {
            vault: self,
            ws: ws.clone(),
            origin: origin.into(),
        }
    }

    /// Regenerate MEMORY.md from the index; writes only when the text changes.
    ///
    /// The whole file only in Mnemo's own workspaces. Another tool's MEMORY.md (Claude Code's,
    /// Qwen Code's, an added folder's) is that tool's: there Mnemo only keeps its own marked
    /// block, listing the files the tool's text does not mention (see
    /// [`memory_md::with_block`]); every change to an existing one is journaled, so it can be
    /// reviewed and undone.
    pub fn write_memory_md(&self, ws: &Workspace, origin: impl Into<Origin>) -> Result<()> {
        let root = RootDir::open_or_create(&ws.memory_root)?;
        self.write_memory_md_in(ws, &root, origin)
    }

    /// [`Vault::write_memory_md`] beneath a root already held.
    pub(super) fn write_memory_md_in(
        &self,
        ws: &Workspace,
        root: &RootDir,
        origin: impl Into<Origin>,
    ) -> Result<()> {
        if ws.kind != WorkspaceKind::Mnemo {
            // Another tool's file: the block lists the topics its own lines do not mention.
            let lines = guard(&self.index).index_lines(&ws.id)?;
            return self.keep_memory_md_block(ws, root, &index_items(&lines), origin.into());
        }
        // Mnemo's own file lists the first topics by path and counts the rest: only those are
        // read (at 100,000 memories reading them all was most of an outside edit's wait).
        let (head, total) = guard(&self.index).index_lines_head(&ws.id, memory_md::MAX_LINES)?;
        let text = memory_md::render_head(&index_items(&head), total);
        let name = memory_md::FILE_NAME;
        let old = root.open_file(name)?.and_then(|mut f| {
            let mut b = Vec::new();
            std::io::Read::read_to_end(&mut f, &mut b).ok().map(|_| b)
        });
        if old.as_deref() == Some(text.as_bytes()) {
            return Ok(());
        }
        // An index of nothing is no file (undoing an import into an empty workspace once
        // left a 0-byte MEMORY.md): none is made, and Mnemo's own is removed.
        if text.is_empty() {
            if old.is_none() {
                return Ok(());
            }
            return root
                .folder()
                .unlink(name)
                .map_err(|e| Error::io(format!("removing {}", root.shown(name).display()), &e));
        }
        root.write_atomic(name, text.as_bytes())
    }

    /// Another tool's MEMORY.md: read beneath the root, its own text kept byte for
    /// byte and only Mnemo's block changed; written (or removed, when it held nothing but the
    /// block) only over the bytes read — a line the tool adds meanwhile is never overwritten
    /// (`conflict`; the next write keeps the block). A change to an existing file is journaled
    /// first; making one is not (nothing of the tool's is in it). A file over the read cap or
    /// not UTF-8 is left as it is.
    fn keep_memory_md_block(
        &self,
        ws: &Workspace,
        root: &RootDir,
        items: &[memory_md::IndexLine<'_>],
        origin: Origin,
    ) -> Result<()> {
        let name = memory_md::FILE_NAME;
        let shown = || crate::fsutil::shown(&root.shown(name).display().to_string());
        let old = match root.read_capped(name)? {
            ReadOutcome::Bytes(b) => Some(b),
            ReadOutcome::Missing => None,
            ReadOutcome::TooLarge(n) => {
                return Err(Error::new(
                    ErrorCode::TooLarge,
                    format!(
                        "{} is {n} bytes, over the {} byte limit: Mnemo left it as it is; trim \
                         it to list the files Mnemo wrote there",
                        shown(),
                        fsutil::MAX_FILE_BYTES
                    ),
                ));
            }
        };
        let existing = old
            .as_deref()
            .map(std::str::from_utf8)
            .transpose()
            .map_err(|_| {
                Error::usage(format!(
                    "{} is not UTF-8 text: Mnemo left it as it is; save it as UTF-8 to list the \
                     files Mnemo wrote there",
                    shown()
                ))
            })?;
        let new = memory_md::with_block(existing, items);
        if new.as_deref().map(str::as_bytes) == old.as_deref() {
            return Ok(());
        }
        let new = new.as_deref().map(str::as_bytes);
        let changed_meanwhile = || {
            Error::new(
                ErrorCode::Conflict,
                format!(
                    "{} changed while Mnemo was updating its block there: nothing was \
                     overwritten; the next write updates it",
                    shown()
                ),
            )
        };
        let Some(before) = old.as_deref() else {
            // Made only where none is: one the tool makes meanwhile is its own.
            if fsutil::replace_if(root, name, new, None)? {
                return Ok(());
            }
            return Err(changed_meanwhile());
        };
        let journal = guard(&self.journal);
        let id = journal.begin(
            &ws.id,
            name,
            origin,
            Some(before),
            Some(fsutil::hash(before).as_str()),
            new,
            new.map(fsutil::hash).as_deref(),
            None,
        )?;
        match fsutil::replace_if(root, name, new, Some(before)) {
            Ok(true) => journal.commit(id),
            Ok(false) => {
                journal.abort(id)?;
                Err(changed_meanwhile())
            }
            Err(e) => {
                journal.abort(id)?;
                Err(e)
            }
        }
    }
}

/// A workspace's write lock, held (see [`Vault::hold_writes`]).
#[must_use = "the lock is released when this is dropped"]
pub struct WriteHold {
    pub(super) workspace: String,
    _lock: fs::File,
    memory_root: std::path::PathBuf,
    /// The workspace's root, opened once for everything written under this hold.
    root: std::sync::OnceLock<RootDir>,
}

impl WriteHold {
    /// The workspace's memory root, held open (created when missing) — the first call opens
    /// it; every later write under this hold resolves beneath the same folder.
    pub fn root(&self) -> Result<&RootDir> {
        if let Some(r) = self.root.get() {
            return Ok(r);
        }
        let r = RootDir::open_or_create(&self.memory_root)?;
        Ok(self.root.get_or_init(|| r))
    }
}

/// A batch of writes (see [`Vault::begin_batch`]); MEMORY.md is regenerated when it ends.
#[must_use = "the batch ends when this is dropped"]
pub struct Batch<'v> {
    vault: &'v Vault,
    ws: Workspace,
    origin: Origin,
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        let regenerate = {
            let mut d = guard(&self.vault.deferred);
            let (left, dirty) = d.get_mut(&self.ws.id).map_or((0, false), |(n, dirty)| {
                *n = n.saturating_sub(1);
                (*n, *dirty)
            });
            if left == 0 {
                d.remove(&self.ws.id);
            }
            // Only when a topic file changed: a batch that wrote nothing leaves MEMORY.md (in
            // another tool's folder, that tool's own file) alone.
            left == 0 && dirty
        };
        if !regenerate {
            return;
        }
        // Under the write lock, like every other write to the workspace.
        let done = self
            .vault
            .write_lock(&self.ws)
            .and_then(|_lock| self.vault.write_memory_md(&self.ws, self.origin));
        if let Err(e) = done {
            self.vault.warn(format!(
                "regenerating MEMORY.md in {} failed: {e}",
                self.ws.id
            ));
        }
    }
}

/// The index record of a file just written with `bytes` (its mtime read beneath the root).
fn written_record(root: &RootDir, rel: &str, kind: doc::DocKind, bytes: &[u8]) -> doc::DocRecord {
    let mtime = root
        .metadata(rel)
        .ok()
        .flatten()
        .map(|m| doc::mtime_ms(&m))
        .unwrap_or_default();
    doc::analyze_bytes(rel, kind, bytes, mtime)
}

/// The index's `(path, name, description)` rows as MEMORY.md's lines.
fn index_items(lines: &[(String, String, String)]) -> Vec<memory_md::IndexLine<'_>> {
    lines
        .iter()
        .map(|(p, n, d)| memory_md::IndexLine {
            path: p,
            name: n,
            description: d,
        })
        .collect()
}
