//! Replacing memory files only over the bytes a write read (issue 32): an editor's append that
//! lands while Mnemo writes is never overwritten. One file ([`replace_if`]) or many with one flush
//! to disk ([`replace_all_if`]: a sync receiving thousands of files).
//!
//! Holding Mnemo's write lock keeps Mnemo's writers out, but an editor appending with `>>` takes
//! no lock: the bytes are compared again just before the swap, and on Linux the swap itself is
//! an exchange (`renameat2`) whose displaced file is compared once more — an append that landed
//! in between is put back, never lost. Atomic and durable as `fsutil::write_atomic`: the new
//! bytes are on disk before the rename, the folder after it.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use mnemo_core::{Error, Result};

use crate::fsutil::{TEMP_PREFIX, hash, sync_dir};

/// One file of a [`replace_all_if`].
#[derive(Debug, Clone, Copy)]
pub struct Replacement<'a> {
    /// The file.
    pub path: &'a Path,
    /// Its new bytes (`None`: remove it).
    pub new: Option<&'a [u8]>,
    /// What it must still hold (`None`: absent).
    pub expected: Option<&'a [u8]>,
}

/// Above this many files a batch flushes the file system once instead of each file.
const FLUSH_EACH_UP_TO: usize = 8;

/// Replace (`Some`) or remove (`None`) the file at `path` only if it still holds `expected`
/// (`None`: absent) at the moment of the swap; `Ok(false)` when another program changed it
/// since it was read (nothing is written then).
pub fn replace_if(path: &Path, new: Option<&[u8]>, expected: Option<&[u8]>) -> Result<bool> {
    Ok(replace_all_if(&[Replacement {
        path,
        new,
        expected,
    }])?
    .first()
    .copied()
    .unwrap_or(false))
}

/// [`replace_if`] for many files: each new file's bytes written beside it, one flush, then each
/// swapped in only over its expected bytes (one result per file, in order), then each folder
/// flushed once. A file that changed meanwhile is left as it is (`false`) and the rest go on.
pub fn replace_all_if(items: &[Replacement<'_>]) -> Result<Vec<bool>> {
    let mut temps = Vec::with_capacity(items.len());
    for it in items {
        temps.push(match it.new {
            Some(b) => Some(stage(it.path, b)?),
            None => None,
        });
    }
    flush(&temps)?;
    let mut out = Vec::with_capacity(items.len());
    let mut displaced = Vec::new();
    for (i, (it, tmp)) in items.iter().zip(temps).enumerate() {
        let (done, d) = match tmp {
            Some(tmp) => swap_in(it.path, tmp, it.expected)?,
            None => remove_if(it.path, it.expected)?,
        };
        out.push(done);
        if let Some(d) = d {
            displaced.push((i, d));
        }
    }
    settle_late_writes(items, displaced, &mut out)?;
    let dirs: BTreeSet<PathBuf> = items
        .iter()
        .zip(&out)
        .filter(|(_, done)| **done)
        .filter_map(|(it, _)| it.path.parent().map(Path::to_path_buf))
        .collect();
    for d in dirs {
        sync_dir(&d);
    }
    Ok(out)
}

/// Where open files cannot be listed: how long a writer that opened a file just before it was
/// swapped has to finish writing to it (an `echo >>` opens, then writes). On Linux a write
/// waits instead until no other open file description may still write to it (at most
/// [`WRITERS`]).
const GRACE: std::time::Duration = std::time::Duration::from_millis(2);
/// The longest a write waits for other programs to close a file it displaced.
const WRITERS: std::time::Duration = std::time::Duration::from_millis(250);

/// Wait (at most [`WRITERS`]) until no process of this user holds one of the displaced files
/// open for writing, other than through this process's own handles on them (`/proc/*/fd`).
fn wait_for_writers(displaced: &[(usize, Displaced)]) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::io::AsRawFd;
        let ours: BTreeSet<i32> = displaced.iter().map(|(_, d)| d.old.as_raw_fd()).collect();
        let inodes: BTreeSet<(u64, u64)> = displaced
            .iter()
            .filter_map(|(_, d)| d.old.metadata().ok().map(|m| (m.dev(), m.ino())))
            .collect();
        let me = std::process::id().to_string();
        let writing = || -> bool {
            let Ok(procs) = fs::read_dir("/proc") else {
                return false;
            };
            for p in procs.flatten() {
                let pid = p.file_name().to_string_lossy().into_owned();
                if !pid.bytes().all(|b| b.is_ascii_digit()) {
                    continue;
                }
                let Ok(fds) = fs::read_dir(p.path().join("fd")) else {
                    continue;
                };
                for fd in fds.flatten() {
                    let name = fd.file_name().to_string_lossy().into_owned();
                    if pid == me && name.parse().is_ok_and(|n: i32| ours.contains(&n)) {
                        continue;
                    }
                    let Ok(m) = fs::metadata(fd.path()) else {
                        continue;
                    };
                    if !inodes.contains(&(m.dev(), m.ino())) {
                        continue;
                    }
                    // Only writers matter (a pager reading it does not).
                    let info =
                        fs::read_to_string(p.path().join("fdinfo").join(&name)).unwrap_or_default();
                    let flags = info
                        .lines()
                        .find_map(|l| l.strip_prefix("flags:"))
                        .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
                        .unwrap_or(0o2);
                    if flags & 0o3 != 0 {
                        return true;
                    }
                }
            }
            false
        };
        let until = std::time::Instant::now() + WRITERS;
        while writing() && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = displaced;
}

/// The file a swap displaced, held open for a moment: an editor that opened it just before the
/// swap may still append to it.
struct Displaced {
    old: fs::File,
    len: u64,
    /// For a removal: where it waits until it is let go (put back if it grew).
    aside: Option<PathBuf>,
}

/// After a short grace, whatever was appended to a displaced file is carried over: appended to
/// the new file, or — for a removal — the file put back (that write then did not happen).
fn settle_late_writes(
    items: &[Replacement<'_>],
    displaced: Vec<(usize, Displaced)>,
    out: &mut [bool],
) -> Result<()> {
    if displaced.is_empty() {
        return Ok(());
    }
    // On Linux the open files of every process are looked at (a writer still holding the old
    // file is waited for); elsewhere a short grace is all there is.
    if cfg!(target_os = "linux") {
        wait_for_writers(&displaced);
    } else {
        std::thread::sleep(GRACE);
    }
    for (i, d) in displaced {
        let path = items[i].path;
        let now = d.old.metadata().map(|m| m.len()).unwrap_or(d.len);
        match d.aside {
            Some(aside) if now != d.len => {
                put_back(&aside, path)?;
                out[i] = false;
            }
            Some(aside) => {
                fs::remove_file(&aside)
                    .map_err(|e| Error::io(format!("removing {}", aside.display()), &e))?;
            }
            None => carry_over(d.old, d.len, path)?,
        }
    }
    Ok(())
}

/// Whether `p` holds `expected` (sizes first: a file grown huge meanwhile is never read).
fn holds(p: &Path, expected: Option<&[u8]>) -> Result<bool> {
    let meta = match fs::metadata(p) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(expected.is_none()),
        Err(e) => return Err(Error::io(format!("reading {}", p.display()), &e)),
    };
    let Some(exp) = expected else {
        return Ok(false);
    };
    if !meta.is_file() || meta.len() != exp.len() as u64 {
        return Ok(false);
    }
    let b = fs::read(p).map_err(|e| Error::io(format!("reading {}", p.display()), &e))?;
    Ok(b == exp)
}

/// The new bytes in a temp file beside `path` (not yet flushed), with `path`'s mode.
fn stage(path: &Path, bytes: &[u8]) -> Result<tempfile::TempPath> {
    let dir = path
        .parent()
        .ok_or_else(|| Error::usage(format!("{} has no parent folder", path.display())))?;
    fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), &e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)
        .map_err(|e| Error::io(format!("creating a temp file in {}", dir.display()), &e))?;
    tmp.write_all(bytes)
        .map_err(|e| Error::io(format!("writing {}", path.display()), &e))?;
    if let Ok(meta) = fs::metadata(path) {
        let _ = fs::set_permissions(tmp.path(), meta.permissions());
    }
    Ok(tmp.into_temp_path())
}

/// Make the staged bytes durable: each file on its own for a few, else the file system of each
/// folder once (`syncfs`).
fn flush(temps: &[Option<tempfile::TempPath>]) -> Result<()> {
    let staged: Vec<&Path> = temps.iter().flatten().map(|t| t.as_ref()).collect();
    let each = |p: &Path| {
        fs::File::open(p)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(format!("writing {}", p.display()), &e))
    };
    #[cfg(target_os = "linux")]
    if staged.len() > FLUSH_EACH_UP_TO {
        use std::os::unix::fs::MetadataExt;
        let mut devices = BTreeSet::new();
        for p in &staged {
            let dev = fs::metadata(p).map(|m| m.dev()).unwrap_or_default();
            if devices.insert(dev) {
                let f = fs::File::open(p)
                    .map_err(|e| Error::io(format!("writing {}", p.display()), &e))?;
                rustix::fs::syncfs(&f).map_err(|e| {
                    Error::io(format!("flushing {}", p.display()), &io::Error::from(e))
                })?;
            }
        }
        return Ok(());
    }
    for p in staged {
        each(p)?;
    }
    Ok(())
}

/// What was appended to `file` (a file just swapped out) past its first `len` bytes is appended
/// to `path`, so no writer's bytes are lost.
fn carry_over(mut file: fs::File, len: u64, path: &Path) -> Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let now = file.metadata().map(|m| m.len()).unwrap_or(len);
    if now <= len {
        return Ok(());
    }
    let mut late = Vec::new();
    file.seek(SeekFrom::Start(len))
        .and_then(|_| file.read_to_end(&mut late))
        .map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
    tracing::info!(
        "{} bytes appended to {} while Mnemo replaced it: carried over",
        late.len(),
        path.display()
    );
    fs::OpenOptions::new()
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(&late).and_then(|()| f.sync_all()))
        .map_err(|e| Error::io(format!("writing {}", path.display()), &e))
}

/// Swap the staged file in over `expected`; `None` (and nothing changed) when `path` holds
/// something else, else the file it displaced (if any), held open.
fn swap_in(
    path: &Path,
    tmp: tempfile::TempPath,
    expected: Option<&[u8]>,
) -> Result<(bool, Option<Displaced>)> {
    if !holds(path, expected)? {
        return Ok((false, None));
    }
    let staged = fs::metadata(&tmp)
        .map_err(|e| Error::io(format!("reading {}", tmp.display()), &e))?
        .len();
    if !swap(&tmp, path, expected.is_some())? {
        return Ok((false, None));
    }
    let Some(exp) = expected else {
        let _ = tmp.keep(); // renamed into place: nothing left to remove
        return Ok((true, None));
    };
    // The displaced file is at the temp path now: held open before it goes, then checked.
    let old =
        fs::File::open(&tmp).map_err(|e| Error::io(format!("reading {}", tmp.display()), &e))?;
    if !holds(&tmp, expected)? {
        // An append landed on the old file: it goes back. Whatever was appended to the new one
        // meanwhile (by path) moves over with it.
        let new = fs::File::open(path)
            .map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
        swap(&tmp, path, true)?;
        return Ok((
            false,
            Some(Displaced {
                old: new,
                len: staged,
                aside: None,
            }),
        ));
    }
    Ok((
        true,
        Some(Displaced {
            old,
            len: exp.len() as u64,
            aside: None,
        }),
    ))
    // `tmp` (the old name) goes when it drops; the open file stays readable.
}

/// Remove `path` if it still holds `expected`: moved aside and compared (put back if it
/// differs); let go after the grace (see [`settle_late_writes`]).
fn remove_if(path: &Path, expected: Option<&[u8]>) -> Result<(bool, Option<Displaced>)> {
    if !holds(path, expected)? {
        return Ok((false, None));
    }
    let Some(exp) = expected else {
        return Ok((true, None));
    };
    let dir = path
        .parent()
        .ok_or_else(|| Error::usage(format!("{} has no parent folder", path.display())))?;
    let aside = dir.join(format!(
        "{TEMP_PREFIX}gone-{}-{}",
        std::process::id(),
        hash(path.as_os_str().as_encoded_bytes())
    ));
    fs::rename(path, &aside).map_err(|e| Error::io(format!("removing {}", path.display()), &e))?;
    let old = fs::File::open(&aside)
        .map_err(|e| Error::io(format!("reading {}", aside.display()), &e))?;
    if !holds(&aside, expected)? {
        put_back(&aside, path)?;
        return Ok((false, None));
    }
    Ok((
        true,
        Some(Displaced {
            old,
            len: exp.len() as u64,
            aside: Some(aside),
        }),
    ))
}

/// Put `from` back at `to`; if something was created at `to` meanwhile, keep both (the newcomer
/// is left as it is and the old file stays beside it under its temp name, named in the log).
fn put_back(from: &Path, to: &Path) -> Result<()> {
    if !swap(from, to, false)? {
        tracing::warn!(
            "{} was recreated while Mnemo removed it; its earlier content is kept at {}",
            to.display(),
            from.display()
        );
    }
    Ok(())
}

/// Move `from` to `to`: exchanging the two (`exchange`, both must exist) or only when `to` does
/// not exist (`Ok(false)` when it does). Linux does either atomically; elsewhere a plain rename.
fn swap(from: &Path, to: &Path, exchange: bool) -> Result<bool> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        let flags = if exchange {
            RenameFlags::EXCHANGE
        } else {
            RenameFlags::NOREPLACE
        };
        match renameat_with(CWD, from, CWD, to, flags) {
            Ok(()) => Ok(true),
            Err(rustix::io::Errno::EXIST) if !exchange => Ok(false),
            Err(rustix::io::Errno::NOENT) if exchange => Ok(false),
            Err(e) => Err(Error::io(
                format!("replacing {}", to.display()),
                &io::Error::from(e),
            )),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        if !exchange && to.exists() {
            return Ok(false);
        }
        fs::rename(from, to)
            .map(|()| true)
            .map_err(|e| Error::io(format!("replacing {}", to.display()), &e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_only_over_the_bytes_read() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.md");
        fs::write(&p, "one\n").unwrap();
        assert!(replace_if(&p, Some(b"two\n"), Some(b"one\n")).unwrap());
        assert_eq!(fs::read(&p).unwrap(), b"two\n");
        // Someone appended since it was read: nothing written, the append kept.
        fs::write(&p, "two\nthree\n").unwrap();
        assert!(!replace_if(&p, Some(b"four\n"), Some(b"two\n")).unwrap());
        assert_eq!(fs::read(&p).unwrap(), b"two\nthree\n");
        // Created meanwhile / gone meanwhile / removed.
        let q = d.path().join("b.md");
        fs::write(&q, "x").unwrap();
        assert!(!replace_if(&q, Some(b"y"), None).unwrap());
        assert!(!replace_if(&d.path().join("c.md"), Some(b"y"), Some(b"x")).unwrap());
        assert!(!replace_if(&q, None, Some(b"z")).unwrap());
        assert!(replace_if(&q, None, Some(b"x")).unwrap());
        assert!(!q.exists());
        let names: Vec<_> = fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "no temp file left: {names:?}");
    }

    #[test]
    fn a_batch_goes_on_past_a_file_that_changed() {
        let d = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = (0..20).map(|i| d.path().join(format!("{i}.md"))).collect();
        for p in &paths[..10] {
            fs::write(p, "old").unwrap();
        }
        fs::write(&paths[3], "changed").unwrap();
        let items: Vec<Replacement<'_>> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| Replacement {
                path: p,
                new: Some(b"new"),
                expected: (i < 10).then_some(&b"old"[..]),
            })
            .collect();
        let done = replace_all_if(&items).unwrap();
        assert_eq!(done.iter().filter(|d| !**d).count(), 1);
        assert!(!done[3]);
        assert_eq!(fs::read(&paths[3]).unwrap(), b"changed");
        assert!(
            paths
                .iter()
                .enumerate()
                .all(|(i, p)| i == 3 || fs::read(p).unwrap() == b"new")
        );
        assert_eq!(
            fs::read_dir(d.path()).unwrap().count(),
            20,
            "no temp file left"
        );
    }
}
