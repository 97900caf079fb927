//! The memory files of one folder as a sync sees them: read whole for a round, or only named
//! by their blob id for the status — from a cache keyed by what `stat` says, so a status that
//! follows a sync (or the app's poll) does not read 2,000 unchanged files again.
//!
//! The cache follows git's rule for racy entries: a file is only remembered when its
//! modification and change times are [`SETTLED`] in the past when it was read (a write in the
//! same clock tick could otherwise leave the same stamp on new bytes), and the stamp is taken
//! before the bytes are read (a write in between makes the next stamp differ).

use std::collections::HashMap;
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use super::git::blob_id;
use super::meta;
use mnemo_store::fsutil::{self, ReadOutcome};
use mnemo_store::rootdir::RootDir;

/// How old a file's times must be for its id to be remembered.
const SETTLED: Duration = Duration::from_secs(2);
/// Paths remembered at most (then the cache starts again).
const KEPT: usize = 200_000;

/// A local memory file as a round finds it.
pub(super) struct LocalFile {
    pub(super) rel: String,
    pub(super) found: Found,
}

/// What a round found in a local memory file.
pub(super) enum Found {
    /// Its bytes, read, and their blob id.
    Read(Vec<u8>, String),
    /// Not read: its stamp names a blob the head already holds at this path (git has the bytes).
    Same(String),
    /// Why a sync cannot take it (a link, named `….MD`, over the size limit, unreadable).
    Refused(String),
}

/// Every memory file under `root` (hidden names and symbolic links are not memory), read
/// unless its stamp says it is still the blob `head(rel)` names.
pub(super) fn local_files(root: &Path, head: &dyn Fn(&str) -> Option<String>) -> Vec<LocalFile> {
    let mut out = Vec::new();
    walk(root, &mut |rel, handle, stamp, refused| {
        if let Some(why) = refused {
            out.push(LocalFile {
                rel,
                found: Found::Refused(why),
            });
            return;
        }
        let path = root.join(&rel);
        if let Some(id) = stamp.as_ref().and_then(|m| known(&path, m))
            && head(&rel).as_ref() == Some(&id)
        {
            out.push(LocalFile {
                rel,
                found: Found::Same(id),
            });
            return;
        }
        let found = match read(handle, &rel) {
            None => return,
            Some(Ok(b)) => {
                let id = blob_id(&b);
                if let Some(m) = &stamp {
                    remember(&path, m, id.clone());
                }
                Found::Read(b, id)
            }
            Some(Err(why)) => Found::Refused(why),
        };
        out.push(LocalFile { rel, found });
    });
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

/// A local memory file as the status names it: its blob id, or why it cannot be sent.
pub(super) struct LocalId {
    pub(super) rel: String,
    pub(super) id: std::result::Result<String, String>,
}

/// Every memory file under `root` by blob id: from the cache when its stamp is unchanged.
pub(super) fn local_ids(root: &Path) -> Vec<LocalId> {
    let mut out = Vec::new();
    walk(root, &mut |rel, handle, stamp, refused| {
        let path = root.join(&rel);
        if let Some(why) = refused {
            out.push(LocalId { rel, id: Err(why) });
            return;
        }
        if let Some(id) = stamp.as_ref().and_then(|m| known(&path, m)) {
            out.push(LocalId { rel, id: Ok(id) });
            return;
        }
        let Some(bytes) = read(handle, &rel) else {
            return;
        };
        let id = bytes.map(|b| {
            let id = blob_id(&b);
            if let Some(m) = &stamp {
                remember(&path, m, id.clone());
            }
            id
        });
        out.push(LocalId { rel, id });
    });
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

/// The file's bytes, read beneath its root's handle, or why a sync cannot take them (`None`:
/// gone meanwhile).
pub(super) fn read(root: &RootDir, rel: &str) -> Option<std::result::Result<Vec<u8>, String>> {
    match root.read_capped(rel) {
        Ok(ReadOutcome::Bytes(b)) => Some(Ok(b)),
        Ok(ReadOutcome::TooLarge(n)) => Some(Err(format!(
            "it is {n} bytes, over the {} byte limit",
            fsutil::MAX_FILE_BYTES
        ))),
        Ok(ReadOutcome::Missing) => None,
        Err(e) => Some(Err(e.message)),
    }
}

/// Every memory file under `root` by what `stat` says of it (path, device, inode, size, times;
/// a refused file by its path and why), written to `out` — what a round would read, without
/// reading it. `false` when a file's times are not [`SETTLED`] in the past: a write in the same
/// clock tick could leave the same stamp on new bytes, so the stamps cannot stand for them.
pub(super) fn stamps(root: &Path, out: &mut String) -> bool {
    use std::fmt::Write as _;
    let mut all = Vec::new();
    let mut settled = true;
    walk(root, &mut |rel, _, meta, refused| {
        let line = match (refused, meta.as_ref().and_then(stamp)) {
            (Some(why), _) => format!("{rel}\trefused\t{why}"),
            (None, Some(s)) => {
                settled &= is_settled(&s);
                format!(
                    "{rel}\t{}:{}:{}:{}.{}:{}.{}",
                    s.dev, s.ino, s.len, s.mtime.0, s.mtime.1, s.ctime.0, s.ctime.1
                )
            }
            (None, None) => {
                settled = false;
                rel
            }
        };
        all.push(line);
    });
    all.sort();
    let _ = writeln!(out, "{}\t{}", root.display(), all.len());
    for l in all {
        out.push_str(&l);
        out.push('\n');
    }
    settled
}

/// Whether a stamp's times are [`SETTLED`] in the past.
fn is_settled(s: &Stamp) -> bool {
    SystemTime::now().checked_sub(SETTLED).is_some_and(|line| {
        let old = |t: (i64, i64)| {
            u64::try_from(t.0).is_ok_and(|secs| {
                SystemTime::UNIX_EPOCH + Duration::new(secs, u32::try_from(t.1).unwrap_or(0)) < line
            })
        };
        old(s.mtime) && old(s.ctime)
    })
}

/// What [`walk`] calls for each memory document: its path, the root held, its stat, and why a
/// sync cannot take it whatever it holds (a link, a misnamed file), if so.
type Visit<'a> = dyn FnMut(String, &RootDir, Option<Metadata>, Option<String>) + 'a;

/// Each memory document under `root`: its path relative to the root, the root held open (every
/// folder is listed and every file read beneath it, so a folder swapped meanwhile is never
/// read through), its stat, and why a sync cannot take it unread — a symbolic link (only links
/// named as memory are reported), or a file that would be memory if its name ended in `.md`
/// rather than `.MD` (`meta::misnamed`: reported, not skipped, so a person learns why it does
/// not sync).
fn walk(root: &Path, f: &mut Visit<'_>) {
    let Ok(handle) = RootDir::open(root) else {
        return;
    };
    let mut stack = vec![(handle.folder().clone(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let Ok(rd) = dir.read_dir() else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let rel = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_symlink() {
                if name.ends_with(".md") || meta::misnamed(&rel).is_some() {
                    f(rel, &handle, None, Some("it is a symbolic link".to_owned()));
                }
            } else if ft.is_dir() {
                if let Ok(Some(sub)) = dir.subfolder(&name) {
                    stack.push((sub, rel));
                }
            } else if mnemo_store::doc::doc_kind(&rel).is_some() {
                f(rel, &handle, e.metadata().ok(), None);
            } else if let Some(why) = meta::misnamed(&rel) {
                let why = meta::refusal(&rel, None, None).unwrap_or(why);
                f(rel, &handle, None, Some(why));
            }
        }
    }
}

/// What `stat` says of a file, as far as a change of its bytes would change it.
#[derive(Clone, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

#[cfg(unix)]
fn stamp(m: &Metadata) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    Some(Stamp {
        dev: m.dev(),
        ino: m.ino(),
        len: m.len(),
        mtime: (m.mtime(), m.mtime_nsec()),
        ctime: (m.ctime(), m.ctime_nsec()),
    })
}

#[cfg(not(unix))]
fn stamp(_: &Metadata) -> Option<Stamp> {
    None
}

static IDS: Mutex<Option<HashMap<PathBuf, (Stamp, String)>>> = Mutex::new(None);

fn known(path: &Path, m: &Metadata) -> Option<String> {
    let s = stamp(m)?;
    let ids = IDS.lock().ok()?;
    let (was, id) = ids.as_ref()?.get(path)?;
    (*was == s).then(|| id.clone())
}

fn remember(path: &Path, m: &Metadata, id: String) {
    let Some(s) = stamp(m) else { return };
    let settled = is_settled(&s);
    let Ok(mut ids) = IDS.lock() else { return };
    let ids = ids.get_or_insert_with(HashMap::new);
    if !settled {
        ids.remove(path);
        return;
    }
    if ids.len() >= KEPT {
        ids.clear();
    }
    ids.insert(path.to_owned(), (s, id));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_file_is_read_again_and_a_settled_one_is_named_from_the_cache() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.md");
        std::fs::write(&p, "one\n").unwrap();
        // Just written: not remembered (a write in the same tick could keep its stamp).
        let ids = local_ids(d.path());
        assert_eq!(ids.len(), 1);
        assert_eq!(ids[0].id.as_deref().ok(), Some(blob_id(b"one\n").as_str()));
        let m = std::fs::metadata(&p).unwrap();
        assert_eq!(known(&p, &m), None);
        // Settled: remembered; a change of the bytes changes the stamp and is read again.
        let old = SystemTime::now() - Duration::from_secs(60);
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(old).unwrap();
        drop(f);
        std::thread::sleep(SETTLED + Duration::from_millis(100));
        let m = std::fs::metadata(&p).unwrap();
        remember(&p, &m, "cached".to_owned());
        assert_eq!(local_ids(d.path())[0].id.as_deref().ok(), Some("cached"));
        std::fs::write(&p, "two\n").unwrap();
        assert_eq!(
            local_ids(d.path())[0].id.as_deref().ok(),
            Some(blob_id(b"two\n").as_str())
        );
    }

    #[test]
    fn a_file_named_upper_case_md_is_reported_with_its_fix_not_skipped() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("UPPER.MD"), "x\n").unwrap();
        std::fs::create_dir(d.path().join("notes")).unwrap();
        std::fs::write(d.path().join("notes/Work.Md"), "x\n").unwrap();
        // Not memory whatever its case: still passed over without a word.
        std::fs::write(d.path().join("MEMORY.MD"), "x\n").unwrap();
        std::fs::write(d.path().join("notes.txt"), "x\n").unwrap();
        std::fs::write(d.path().join("good.md"), "x\n").unwrap();
        let files = local_files(d.path(), &|_| None);
        let got: Vec<(&str, Option<&str>)> = files
            .iter()
            .map(|f| {
                let why = match &f.found {
                    Found::Refused(why) => Some(why.as_str()),
                    _ => None,
                };
                (f.rel.as_str(), why)
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "UPPER.MD",
                    Some("its name ends in `.MD`, not `.md`: rename it to `UPPER.md` to sync it")
                ),
                ("good.md", None),
                (
                    "notes/Work.Md",
                    Some("its name ends in `.Md`, not `.md`: rename it to `Work.md` to sync it")
                ),
            ]
        );
        let ids: Vec<(String, bool)> = local_ids(d.path())
            .into_iter()
            .map(|f| (f.rel, f.id.is_err()))
            .collect();
        assert_eq!(
            ids,
            vec![
                ("UPPER.MD".to_owned(), true),
                ("good.md".to_owned(), false),
                ("notes/Work.Md".to_owned(), true),
            ]
        );
    }

    #[test]
    fn a_name_with_a_tab_is_read_and_refused_for_the_tab() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a\tb.md"), "x\n").unwrap();
        let files = local_files(d.path(), &|_| None);
        assert_eq!(files.len(), 1);
        let Found::Read(b, _) = &files[0].found else {
            panic!("read")
        };
        let why = meta::refusal(&files[0].rel, None, Some(b)).unwrap();
        assert!(why.starts_with("its name holds a tab"), "{why}");
    }
}
