//! Writing an import: what a workspace holds (for de-duplication), and a plan's
//! files written through [`Vault::mutate`] in one change group and one batch — all of them,
//! or (an error, a file that appeared meanwhile, a cancel) none: the ones already written are
//! taken back by undoing the group. A process killed while it writes leaves a marker whose lock
//! nobody holds; the next process to open the home takes that group back (`recover_imports`).

use std::collections::BTreeMap;

use mnemo_core::{ChangeSource, Error, ErrorCode, Result};

use super::{Vault, scan};
use crate::fsutil::{self, ReadOutcome};
use crate::import::plan::{Existing, PlannedFile};
use crate::journal::Origin;
use crate::memory_md;

/// What applying an import wrote, per workspace.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ImportWritten {
    /// The workspace.
    pub workspace: String,
    /// Its change group (undo the import with it).
    pub group: i64,
    /// Files created.
    pub files: Vec<String>,
    /// Memories in them.
    pub memories: u32,
}

/// Who an import's writes are journaled as, and under what label and task.
#[derive(Debug, Clone, Copy)]
pub struct ImportBy<'a> {
    /// The person's source (`user` in the app, `cli` at the command line).
    pub source: ChangeSource,
    /// The change group's label.
    pub label: &'a str,
    /// The task it runs as.
    pub task: Option<&'a str>,
}

/// Files an import writes in one step (one journal transaction, one flush, one index
/// transaction): 1,024 keeps a step's fsyncs rare and its lock short.
pub const IMPORT_STEP: usize = 1024;

/// The pause between an import's steps, with no lock held (50 ms for 10,000 notes).
const STEP_PAUSE: std::time::Duration = std::time::Duration::from_millis(5);

impl Vault {
    /// Write one chunk of an import's new files: each must be absent (or already hold the same
    /// bytes, then it is left alone); one that holds other bytes appeared since the plan and
    /// fails the import (`conflict`), which then takes back what it wrote. Returns the paths
    /// written.
    fn write_chunk(
        &self,
        ws: &crate::workspace::Workspace,
        origin: Origin,
        chunk: &[&PlannedFile],
    ) -> Result<std::collections::HashSet<String>> {
        let appeared = |rel: &str| {
            Error::new(
                ErrorCode::Conflict,
                format!("`{rel}` appeared while importing: preview the import again"),
            )
        };
        // The plans never hold one; nor does what is written.
        if let Some(f) = chunk.iter().find(|f| super::in_records_folder(&f.path)) {
            return Err(super::records_refusal(&f.path));
        }
        let hold = self.hold_writes(ws)?;
        let writes: Vec<super::ManyWrite> = chunk
            .iter()
            .map(|f| super::ManyWrite {
                path: f.path.clone(),
                expect: None,
                new: Some(f.bytes.clone()),
            })
            .collect();
        let (paths, all_expected) = self.write_many_held(&hold, ws, origin, &writes)?;
        if all_expected {
            return Ok(paths.into_iter().collect());
        }
        if !paths.is_empty() {
            // Some were written before one was found changed: that one appeared meanwhile.
            let wrote: std::collections::HashSet<&str> = paths.iter().map(String::as_str).collect();
            let odd = chunk
                .iter()
                .find(|f| !wrote.contains(f.path.as_str()))
                .map_or("a file", |f| f.path.as_str());
            return Err(appeared(odd));
        }
        // Nothing written: a file is already there. The same bytes are fine (left alone); other
        // bytes fail the import. The rest is written again without those.
        let root = hold.root()?;
        let mut rest = Vec::new();
        for (f, w) in chunk.iter().zip(writes) {
            let rel = fsutil::normalise(&f.path)?;
            match root.read_capped(&rel)? {
                ReadOutcome::Missing => rest.push(w),
                ReadOutcome::Bytes(b) if b == f.bytes => {}
                _ => return Err(appeared(&rel)),
            }
        }
        let (paths, all_expected) = self.write_many_held(&hold, ws, origin, &rest)?;
        if !all_expected {
            return Err(appeared("a file"));
        }
        Ok(paths.into_iter().collect())
    }

    /// A restored workspace's MEMORY.md as the export holds it, so a whole-home restore gives
    /// back every byte (another tool's index is its own words, not Mnemo's rendering). Written
    /// into the import's change group, journaled, so undoing the import takes it back too; a
    /// MEMORY.md already the same is left alone, one holding a secret is refused.
    pub fn restore_index(
        &self,
        workspace: &str,
        bytes: &[u8],
        group: i64,
        source: ChangeSource,
    ) -> Result<bool> {
        if crate::secrets::held(&String::from_utf8_lossy(bytes)).is_some() {
            return Ok(false);
        }
        let ws = self.workspace(workspace)?;
        let root = crate::rootdir::RootDir::open(&ws.memory_root)?;
        let name = memory_md::FILE_NAME;
        let old = match root.read_capped(name)? {
            ReadOutcome::Bytes(b) => Some(b),
            _ => None,
        };
        if old.as_deref() == Some(bytes) {
            return Ok(false);
        }
        let journal = super::guard(&self.journal);
        let id = journal.begin(
            &ws.id,
            name,
            Origin {
                source,
                group: Some(group),
            },
            old.as_deref(),
            old.as_deref().map(fsutil::hash).as_deref(),
            Some(bytes),
            Some(fsutil::hash(bytes)).as_deref(),
            None,
        )?;
        if let Err(e) = root.write_atomic(name, bytes) {
            journal.abort(id)?;
            return Err(e);
        }
        journal.commit(id)?;
        Ok(true)
    }

    /// Where the markers of imports being written live: `<home>/imports/applying-<group>.lock`,
    /// each locked (an OS lock) by the process writing that group for as long as it writes.
    fn marker(&self, group: i64) -> std::path::PathBuf {
        self.home
            .root
            .join("imports")
            .join(format!("applying-{group}.lock"))
    }

    /// Take back imports a killed process left half-written (at open): a marker whose lock
    /// nobody holds belongs to a process that is gone — its group is undone, all of it. A marker
    /// younger than 2 s is left alone (its writer may be between creating and locking it).
    pub(super) fn recover_imports(&self) {
        let dir = self.home.root.join("imports");
        let Ok(rd) = std::fs::read_dir(&dir) else {
            return;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(group) = name
                .strip_prefix("applying-")
                .and_then(|n| n.strip_suffix(".lock"))
                .and_then(|n| n.parse::<i64>().ok())
            else {
                continue;
            };
            let young = e
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_none_or(|age| age < std::time::Duration::from_secs(2));
            if young {
                continue;
            }
            let Ok(file) = std::fs::OpenOptions::new().write(true).open(e.path()) else {
                continue;
            };
            if file.try_lock().is_err() {
                continue; // its import is still being written
            }
            // A writer that finished removes its marker before unlocking it: one still linked at
            // this path, locked by us, is a dead writer's.
            let still_there = std::fs::metadata(e.path())
                .ok()
                .zip(file.metadata().ok())
                .is_some_and(|(a, b)| {
                    use std::os::unix::fs::MetadataExt;
                    a.ino() == b.ino() && a.dev() == b.dev()
                });
            if !still_there {
                continue;
            }
            let taken_back = match self.group(group) {
                Ok(g) if g.undone_by.is_none() && !g.changes.is_empty() => {
                    let source = g.changes[0].source;
                    self.undo_group(group, source).map(|_| ())
                }
                Ok(_) | Err(_) => Ok(()),
            };
            match taken_back {
                Ok(()) => self.warn(format!(
                    "an import was interrupted (change group {group}); what it had written was taken back: run it again"
                )),
                Err(err) => self.warn(format!(
                    "an import was interrupted (change group {group}) and could not be taken back ({}): undo group {group} by hand",
                    err.message
                )),
            }
            drop(file);
            let _ = fsutil::remove_file(&e.path());
        }
    }

    /// Every document of a workspace (MEMORY.md aside) as an import compares against it, and
    /// the summaries forgotten there.
    pub fn import_existing(&self, workspace: &str) -> Result<Existing> {
        let ws = self.workspace(workspace)?;
        let mut existing = Existing {
            forgotten: self.forgotten_keys(workspace)?,
            ..Existing::default()
        };
        let Ok(root) = crate::rootdir::RootDir::open(&ws.memory_root) else {
            return Ok(existing);
        };
        for (rel, _) in scan::walk(&root) {
            if rel == memory_md::FILE_NAME {
                continue;
            }
            if let ReadOutcome::Bytes(b) = root.read_capped(&rel)? {
                existing.add_file(&rel, &b);
            }
        }
        Ok(existing)
    }

    /// Write a plan's files: per workspace one change group (`kind` `import`, tied to `task`)
    /// and one batch (MEMORY.md rebuilt once). Each file is created; one already there with the
    /// same bytes is left alone, with other bytes it is a `conflict` — and then, as on any
    /// error or when `stop` says so, every file this call wrote is taken back (the groups are
    /// undone) and the error returned. `progress(done, total)` after each file.
    pub fn apply_import(
        &self,
        default_workspace: &str,
        files: &[PlannedFile],
        by: ImportBy<'_>,
        mut progress: impl FnMut(usize, usize),
        stop: impl Fn() -> bool,
    ) -> Result<Vec<ImportWritten>> {
        let ImportBy {
            source,
            label,
            task,
        } = by;
        let mut by_ws: BTreeMap<&str, Vec<&PlannedFile>> = BTreeMap::new();
        for f in files {
            by_ws
                .entry(f.workspace.as_deref().unwrap_or(default_workspace))
                .or_default()
                .push(f);
        }
        let total = files.len();
        let mut done = 0;
        let mut written: Vec<ImportWritten> = Vec::new();
        // Held (locked) while each group is written; left behind only by a killed process.
        let mut markers: Vec<(std::path::PathBuf, std::fs::File)> = Vec::new();
        let outcome = (|| -> Result<()> {
            for (ws_id, files) in &by_ws {
                let ws = self.workspace(ws_id)?;
                let group = self.begin_group(ws_id, "import", task, label)?;
                let marker = self.marker(group);
                markers.push((marker.clone(), fsutil::lock_file(&marker)?));
                written.push(ImportWritten {
                    workspace: (*ws_id).to_owned(),
                    group,
                    files: Vec::new(),
                    memories: 0,
                });
                let origin = Origin {
                    source,
                    group: Some(group),
                };
                let _batch = self.begin_batch(&ws, origin);
                // Written a step at a time: one journal transaction, one flush and
                // one index transaction per chunk, not per file; the write lock is held for a
                // chunk only, so other processes go on between chunks.
                for chunk in files.chunks(IMPORT_STEP) {
                    if stop() {
                        return Err(Error::new(
                            ErrorCode::Cancelled,
                            "the import was cancelled: nothing of it was kept",
                        ));
                    }
                    let wrote = self.write_chunk(&ws, origin, chunk)?;
                    // The step's lock is released: a moment for another process waiting on it
                    // (a `status`, a person's edit) to take it, instead of the next step
                    // taking it back at once and keeping it waiting until the import ends.
                    std::thread::sleep(STEP_PAUSE);
                    let w = written.last_mut().expect("pushed above");
                    for f in chunk.iter().filter(|f| wrote.contains(&f.path)) {
                        w.files.push(f.path.clone());
                        w.memories += f.memories;
                    }
                    done += chunk.len();
                    progress(done, total);
                }
            }
            Ok(())
        })();
        let done_with_markers = |markers: Vec<(std::path::PathBuf, std::fs::File)>| {
            // Removed while still locked: another process never sees it unlocked.
            for (path, file) in markers {
                let _ = fsutil::remove_file(&path);
                drop(file);
            }
        };
        match outcome {
            Ok(()) => {
                done_with_markers(markers);
                for w in &written {
                    if w.files.is_empty() {
                        self.discard_group_if_empty(w.group)?;
                    }
                }
                written.retain(|w| !w.files.is_empty());
                Ok(written)
            }
            Err(e) => {
                // Every group taken back; any that cannot be is named (and its marker kept, so
                // the next process tries again).
                let mut stuck: Vec<String> = Vec::new();
                for w in written.iter().rev() {
                    if w.files.is_empty() {
                        let _ = self.discard_group_if_empty(w.group);
                    } else if let Err(undo) = self.undo_group(w.group, source) {
                        tracing::warn!(
                            group = w.group,
                            "could not take back a failed import: {undo}"
                        );
                        stuck.push(format!("group {} ({})", w.group, undo.message));
                    }
                }
                if !stuck.is_empty() {
                    return Err(Error::new(
                        e.code,
                        format!(
                            "{} — and taking back what was written failed for {}: undo it by hand",
                            e.message,
                            stuck.join(", ")
                        ),
                    ));
                }
                done_with_markers(markers);
                Err(e)
            }
        }
    }
}
