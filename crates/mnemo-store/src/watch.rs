//! The file watcher: a debounced `notify` watcher over every workspace's memory root.
//! Outside edits (create, modify, delete, rename) are applied to the index and journal through
//! [`Vault::apply_paths`], which also emits `memory_changed` on the vault's event bus.
//!
//! Invariant: the watcher never writes memory files itself; it only reports what changed.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::channel;
use std::thread::JoinHandle;
use std::time::Duration;

use mnemo_core::{Error, ErrorCode, Result};
use notify::RecursiveMode;
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

use crate::doc;
use crate::fsutil::TEMP_PREFIX;
use crate::vault::Vault;
use crate::workspace::Workspace;

/// How long the watcher waits for a burst of events to settle: an editor's save (write, or a
/// temp file renamed over) is one burst well within it; a longer one is applied twice, the same.
/// At 100 ms it was most of an outside edit's wait (10,000 memories: p50 133 ms).
pub const DEBOUNCE: Duration = Duration::from_millis(40);

/// A running watcher; dropping it stops watching.
pub struct WatchHandle {
    debouncer: Option<Debouncer<notify::RecommendedWatcher, RecommendedCache>>,
    worker: Option<JoinHandle<()>>,
}

impl Drop for WatchHandle {
    fn drop(&mut self) {
        // Dropping the debouncer closes the channel, which ends the worker.
        drop(self.debouncer.take());
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

/// Start watching `workspaces`. Subscribe to [`Vault::subscribe`] to receive the events.
pub fn watch(vault: Arc<Vault>, workspaces: Vec<Workspace>) -> Result<WatchHandle> {
    let (tx, rx) = channel::<DebounceEventResult>();
    let mut debouncer = new_debouncer(DEBOUNCE, None, tx)
        .map_err(|e| Error::new(ErrorCode::Io, format!("starting the file watcher: {e}")))?;
    let mut roots: Vec<(PathBuf, Workspace)> = Vec::new();
    for ws in workspaces {
        if !ws.memory_root.is_dir() {
            continue;
        }
        vault.seed_seen(&ws)?;
        debouncer
            .watch(&ws.memory_root, RecursiveMode::Recursive)
            .map_err(|e| {
                Error::new(
                    ErrorCode::Io,
                    format!(
                        "watching {}: {e} (on Linux, raise fs.inotify.max_user_watches if the limit is reached)",
                        ws.memory_root.display()
                    ),
                )
            })?;
        let canon =
            std::fs::canonicalize(&ws.memory_root).unwrap_or_else(|_| ws.memory_root.clone());
        roots.push((ws.memory_root.clone(), ws.clone()));
        if canon != ws.memory_root {
            roots.push((canon, ws));
        }
    }
    // Longest root first, so nested roots win.
    roots.sort_by_key(|(r, _)| std::cmp::Reverse(r.as_os_str().len()));
    let worker = std::thread::Builder::new()
        .name("mnemo-watch".into())
        .spawn(move || {
            for result in rx {
                match result {
                    Ok(events) => {
                        // Access events (a file opened or read, including by this very worker)
                        // change nothing; reacting to them would loop forever.
                        let paths: Vec<PathBuf> = events
                            .into_iter()
                            .filter(|e| !matches!(e.event.kind, notify::EventKind::Access(_)))
                            .flat_map(|e| e.event.paths)
                            .collect();
                        if paths.is_empty() {
                            continue;
                        }
                        apply(&vault, &roots, &paths);
                    }
                    Err(errors) => {
                        for e in errors {
                            tracing::warn!("file watcher: {e}");
                        }
                    }
                }
            }
        })
        .map_err(|e| Error::io("starting the watcher thread", &e))?;
    Ok(WatchHandle {
        debouncer: Some(debouncer),
        worker: Some(worker),
    })
}

/// A watcher of one file; dropping it stops watching.
pub struct FileWatch {
    _debouncer: Debouncer<notify::RecommendedWatcher, RecommendedCache>,
}

/// Call `changed` (on the watcher's thread) after each burst of writes that creates, replaces
/// (an atomic write: a temporary file renamed over it), changes or removes `dir/name` — by
/// this process or any other. `dir` is created when missing, so a file not written yet is
/// watched too.
pub fn watch_file(
    dir: &Path,
    name: &str,
    changed: impl Fn() + Send + 'static,
) -> Result<FileWatch> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::io(format!("creating {}", dir.display()), &e))?;
    let name = std::ffi::OsString::from(name);
    let mut debouncer = new_debouncer(DEBOUNCE, None, move |result: DebounceEventResult| {
        if let Ok(events) = result
            && events.iter().any(|e| {
                !matches!(e.event.kind, notify::EventKind::Access(_))
                    && e.event.paths.iter().any(|p| p.file_name() == Some(&name))
            })
        {
            changed();
        }
    })
    .map_err(|e| Error::new(ErrorCode::Io, format!("starting the file watcher: {e}")))?;
    debouncer
        .watch(dir, RecursiveMode::NonRecursive)
        .map_err(|e| Error::new(ErrorCode::Io, format!("watching {}: {e}", dir.display())))?;
    Ok(FileWatch {
        _debouncer: debouncer,
    })
}

fn apply(vault: &Vault, roots: &[(PathBuf, Workspace)], paths: &[PathBuf]) {
    // Group changed paths by workspace; anything that is not a document file (a folder renamed
    // or removed, say) makes that workspace re-scan in full.
    let mut per_ws: Vec<(&Workspace, Vec<String>, bool)> = Vec::new();
    for p in paths {
        let Some((root, ws)) = roots.iter().find(|(r, _)| p.starts_with(r)) else {
            continue;
        };
        let Some(rel) = relative(root, p) else {
            continue;
        };
        if rel.is_empty()
            || rel
                .rsplit('/')
                .next()
                .is_some_and(|n| n.starts_with(TEMP_PREFIX))
        {
            continue;
        }
        let idx = match per_ws.iter().position(|(w, _, _)| w.id == ws.id) {
            Some(i) => i,
            None => {
                per_ws.push((ws, Vec::new(), false));
                per_ws.len() - 1
            }
        };
        if doc::doc_kind(&rel).is_some() {
            if !per_ws[idx].1.contains(&rel) {
                per_ws[idx].1.push(rel);
            }
        } else if rel != crate::memory_md::FILE_NAME && (p.is_dir() || !p.exists()) {
            // A folder created, moved or removed: its documents changed without own events.
            per_ws[idx].2 = true;
        }
    }
    for (ws, rels, rescan) in per_ws {
        let result = if rescan {
            vault.sync(ws).map(|_| ())
        } else {
            vault.apply_paths(ws, &rels).map(|_| ())
        };
        if let Err(e) = result {
            tracing::warn!("applying outside changes in {}: {e}", ws.id);
        }
    }
}

fn relative(root: &Path, p: &Path) -> Option<String> {
    let rel = p.strip_prefix(root).ok()?;
    Some(rel.to_str()?.replace('\\', "/"))
}
