//! Replacing memory files only over the bytes a write read: an editor's append that
//! lands while Mnemo writes is never overwritten. One file ([`replace_if`]) or many with one flush
//! to disk ([`replace_all_if`]: a sync receiving thousands of files).
//!
//! Holding Mnemo's write lock keeps Mnemo's writers out, but an editor appending with `>>` takes
//! no lock: the bytes are compared again just before the swap, and on Linux the swap itself is
//! an exchange (`renameat2`) whose displaced file is compared once more — an append that landed
//! in between is put back, never lost. Atomic and durable as `fsutil::write_atomic`: the new
//! bytes are on disk before the rename, the folder after it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{self, Write};

use mnemo_core::{Error, Result};
use rustix::fs::{OFlags, RenameFlags};

use crate::fsutil::{TEMP_PREFIX, hash};
use crate::rootdir::{Folder, RootDir, Temp};

/// One file of a [`replace_all_if`].
#[derive(Debug, Clone, Copy)]
pub struct Replacement<'a> {
    /// The memory root it is in (held open: every step resolves beneath it).
    pub root: &'a RootDir,
    /// Its path relative to the root (`/`-separated, already confined).
    pub rel: &'a str,
    /// Its new bytes (`None`: remove it).
    pub new: Option<&'a [u8]>,
    /// What it must still hold (`None`: absent).
    pub expected: Option<&'a [u8]>,
}

/// Above this many files a batch flushes the file system once instead of each file.
const FLUSH_EACH_UP_TO: usize = 8;

/// Replace (`Some`) or remove (`None`) the file `rel` beneath `root` only if it still holds
/// `expected` (`None`: absent) at the moment of the swap; `Ok(false)` when another program
/// changed it since it was read (nothing is written then).
pub fn replace_if(
    root: &RootDir,
    rel: &str,
    new: Option<&[u8]>,
    expected: Option<&[u8]>,
) -> Result<bool> {
    Ok(replace_all_if(&[Replacement {
        root,
        rel,
        new,
        expected,
    }])?
    .first()
    .copied()
    .unwrap_or(false))
}

/// Where one file of a batch lives: its folder (opened beneath the root, once per folder) and
/// its name there.
struct Place {
    folder: Folder,
    name: String,
}

/// [`replace_if`] for many files: each new file's bytes written beside it, one flush, then each
/// swapped in only over its expected bytes (one result per file, in order), then each folder
/// flushed once. A file that changed meanwhile is left as it is (`false`) and the rest go on.
pub fn replace_all_if(items: &[Replacement<'_>]) -> Result<Vec<bool>> {
    // Each folder opened once, beneath its root (created for files being written).
    let mut folders: BTreeMap<(usize, String), Folder> = BTreeMap::new();
    let mut places: Vec<Option<Place>> = Vec::with_capacity(items.len());
    for it in items {
        let (dir, name) = it.rel.rsplit_once('/').unwrap_or(("", it.rel));
        let key = (std::ptr::from_ref(it.root) as usize, dir.to_owned());
        let folder = match folders.get(&key) {
            Some(f) => Some(f.clone()),
            None => match it.root.parent(it.rel, it.new.is_some())? {
                Some((f, _)) => {
                    folders.insert(key, f.clone());
                    Some(f)
                }
                None => None,
            },
        };
        places.push(folder.map(|folder| Place {
            folder,
            name: name.to_owned(),
        }));
    }
    let mut temps = Vec::with_capacity(items.len());
    for (it, place) in items.iter().zip(&places) {
        temps.push(match (it.new, place) {
            (Some(b), Some(p)) => Some(stage(p, b)?),
            _ => None,
        });
    }
    flush(&temps)?;
    let mut out = Vec::with_capacity(items.len());
    let mut displaced = Vec::new();
    for (i, ((it, tmp), place)) in items.iter().zip(temps).zip(&places).enumerate() {
        let Some(place) = place else {
            // Its folder is not there: nothing to remove, and it held nothing.
            out.push(it.new.is_none() && it.expected.is_none());
            continue;
        };
        let (done, d) = match tmp {
            Some(tmp) => swap_in(place, tmp, it.expected)?,
            None => remove_if(place, it.expected)?,
        };
        out.push(done);
        if let Some(d) = d {
            displaced.push((i, d));
        }
    }
    settle_late_writes(&places, displaced, &mut out)?;
    let mut synced = BTreeSet::new();
    for (place, done) in places.iter().zip(&out) {
        if let Some(p) = place
            && *done
            && synced.insert(p.folder.path().to_path_buf())
        {
            p.folder.sync();
        }
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
        let writing = || !open_for_writing(&inodes, &ours).is_empty();
        let until = std::time::Instant::now() + WRITERS;
        while writing() && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = displaced;
}

/// Which of `inodes` (device, inode) some process of this user holds open for writing, other
/// than through this process's descriptors `own_fds` (`/proc/*/fd` and `fdinfo`; a reader does
/// not count). Empty where open files cannot be listed.
#[must_use]
pub fn open_for_writing(
    inodes: &BTreeSet<(u64, u64)>,
    own_fds: &BTreeSet<i32>,
) -> BTreeSet<(u64, u64)> {
    let mut out = BTreeSet::new();
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        if inodes.is_empty() {
            return out;
        }
        let me = std::process::id().to_string();
        let Ok(procs) = fs::read_dir("/proc") else {
            return out;
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
                if pid == me && name.parse().is_ok_and(|n: i32| own_fds.contains(&n)) {
                    continue;
                }
                let Ok(m) = fs::metadata(fd.path()) else {
                    continue;
                };
                let ino = (m.dev(), m.ino());
                if !inodes.contains(&ino) || out.contains(&ino) {
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
                    out.insert(ino);
                }
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (inodes, own_fds);
    out
}

/// The file a swap displaced, held open for a moment: an editor that opened it just before the
/// swap may still append to it.
struct Displaced {
    old: fs::File,
    len: u64,
    /// For a removal: the name it waits under until it is let go (put back if it grew).
    aside: Option<String>,
}

/// After a short grace, whatever was appended to a displaced file is carried over: appended to
/// the new file, or — for a removal — the file put back (that write then did not happen).
fn settle_late_writes(
    places: &[Option<Place>],
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
        let Some(place) = &places[i] else { continue };
        let now = d.old.metadata().map(|m| m.len()).unwrap_or(d.len);
        match d.aside {
            Some(aside) if now != d.len => {
                put_back(place, &aside)?;
                out[i] = false;
            }
            Some(aside) => place.folder.unlink(&aside).map_err(|e| {
                Error::io(
                    format!("removing {}", place.folder.shown(&aside).display()),
                    &e,
                )
            })?,
            None => carry_over(d.old, d.len, place)?,
        }
    }
    Ok(())
}

/// Whether `name` in `folder` holds `expected` (sizes first: a file grown huge meanwhile is
/// never read). A link or anything but a plain file holds nothing expected.
fn holds(folder: &Folder, name: &str, expected: Option<&[u8]>) -> Result<bool> {
    let shown = || folder.shown(name).display().to_string();
    let meta = match folder.metadata(name) {
        Ok(Some(m)) => m,
        Ok(None) => return Ok(expected.is_none()),
        Err(e) => return Err(Error::io(format!("reading {}", shown()), &e)),
    };
    let Some(exp) = expected else {
        return Ok(false);
    };
    if !meta.is_file() || meta.len() != exp.len() as u64 {
        return Ok(false);
    }
    let mut b = Vec::with_capacity(exp.len());
    match folder.open(name, OFlags::RDONLY | OFlags::NONBLOCK) {
        Ok(Some(f)) => {
            use std::io::Read;
            f.take(exp.len() as u64 + 1)
                .read_to_end(&mut b)
                .map_err(|e| Error::io(format!("reading {}", shown()), &e))?;
        }
        Ok(None) => return Ok(false),
        Err(e) => return Err(Error::io(format!("reading {}", shown()), &e)),
    }
    Ok(b == exp)
}

/// The new bytes in a temp file beside the target (not yet flushed), with the target's mode.
fn stage(place: &Place, bytes: &[u8]) -> Result<Temp> {
    let mut tmp = place
        .folder
        .create_temp(place.folder.mode_of(&place.name))?;
    tmp.file.write_all(bytes).map_err(|e| {
        Error::io(
            format!("writing {}", place.folder.shown(&place.name).display()),
            &e,
        )
    })?;
    Ok(tmp)
}

/// Make the staged bytes durable: each file on its own for a few, else the file system of each
/// folder once (`syncfs`).
fn flush(temps: &[Option<Temp>]) -> Result<()> {
    let staged: Vec<&Temp> = temps.iter().flatten().collect();
    let failed = |t: &Temp, e: &io::Error| Error::io(format!("writing {}", t.name), e);
    #[cfg(target_os = "linux")]
    if staged.len() > FLUSH_EACH_UP_TO {
        use std::os::unix::fs::MetadataExt;
        let mut devices = BTreeSet::new();
        for t in &staged {
            let dev = t.file.metadata().map(|m| m.dev()).unwrap_or_default();
            if devices.insert(dev) {
                rustix::fs::syncfs(&t.file).map_err(|e| failed(t, &io::Error::from(e)))?;
            }
        }
        return Ok(());
    }
    for t in staged {
        t.file.sync_all().map_err(|e| failed(t, &e))?;
    }
    Ok(())
}

/// What was appended to `file` (a file just swapped out) past its first `len` bytes is appended
/// to the file now in its place, so no writer's bytes are lost.
fn carry_over(mut file: fs::File, len: u64, place: &Place) -> Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let shown = place.folder.shown(&place.name);
    let now = file.metadata().map(|m| m.len()).unwrap_or(len);
    if now <= len {
        return Ok(());
    }
    let mut late = Vec::new();
    file.seek(SeekFrom::Start(len))
        .and_then(|_| file.read_to_end(&mut late))
        .map_err(|e| Error::io(format!("reading {}", shown.display()), &e))?;
    tracing::info!(
        "{} bytes appended to {} while Mnemo replaced it: carried over",
        late.len(),
        shown.display()
    );
    match place
        .folder
        .open(&place.name, OFlags::WRONLY | OFlags::APPEND)
    {
        Ok(Some(mut f)) => f.write_all(&late).and_then(|()| f.sync_all()),
        Ok(None) => Err(io::Error::from(io::ErrorKind::NotFound)),
        Err(e) => Err(e),
    }
    .map_err(|e| Error::io(format!("writing {}", shown.display()), &e))
}

/// Swap the staged file in over `expected`; `None` (and nothing changed) when the target holds
/// something else, else the file it displaced (if any), held open.
fn swap_in(
    place: &Place,
    mut tmp: Temp,
    expected: Option<&[u8]>,
) -> Result<(bool, Option<Displaced>)> {
    let (folder, name) = (&place.folder, place.name.as_str());
    if !holds(folder, name, expected)? {
        return Ok((false, None));
    }
    let staged = tmp
        .file
        .metadata()
        .map_err(|e| Error::io(format!("reading {}", folder.shown(&tmp.name).display()), &e))?
        .len();
    if !swap(folder, &tmp.name, name, expected.is_some())? {
        return Ok((false, None));
    }
    let Some(exp) = expected else {
        tmp.keep(); // renamed into place: nothing left to remove
        return Ok((true, None));
    };
    // The displaced file is at the temp name now: held open before it goes, then checked.
    let reading = |n: &str| {
        folder
            .open(n, OFlags::RDONLY | OFlags::NONBLOCK)
            .and_then(|f| f.ok_or_else(|| io::Error::from(io::ErrorKind::NotFound)))
            .map_err(|e| Error::io(format!("reading {}", folder.shown(n).display()), &e))
    };
    let old = reading(&tmp.name)?;
    if !holds(folder, &tmp.name, expected)? {
        // An append landed on the old file: it goes back. Whatever was appended to the new one
        // meanwhile (by path) moves over with it.
        let new = reading(name)?;
        swap(folder, &tmp.name, name, true)?;
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

/// Remove the target if it still holds `expected`: moved aside and compared (put back if it
/// differs); let go after the grace (see [`settle_late_writes`]).
fn remove_if(place: &Place, expected: Option<&[u8]>) -> Result<(bool, Option<Displaced>)> {
    let (folder, name) = (&place.folder, place.name.as_str());
    if !holds(folder, name, expected)? {
        return Ok((false, None));
    }
    let Some(exp) = expected else {
        return Ok((true, None));
    };
    let aside = format!(
        "{TEMP_PREFIX}gone-{}-{}",
        std::process::id(),
        &hash(name.as_bytes())[..16]
    );
    folder
        .rename(name, &aside, RenameFlags::empty())
        .map_err(|e| Error::io(format!("removing {}", folder.shown(name).display()), &e))?;
    let old = match folder.open(&aside, OFlags::RDONLY | OFlags::NONBLOCK) {
        Ok(Some(f)) => f,
        Ok(None) => {
            return Err(Error::io(
                format!("reading {}", folder.shown(&aside).display()),
                &io::Error::from(io::ErrorKind::NotFound),
            ));
        }
        Err(e) => {
            return Err(Error::io(
                format!("reading {}", folder.shown(&aside).display()),
                &e,
            ));
        }
    };
    if !holds(folder, &aside, expected)? {
        put_back(place, &aside)?;
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

/// Put `from` back at the target; if something was created there meanwhile, keep both (the
/// newcomer is left as it is and the old file stays beside it under its temp name, named in
/// the log).
fn put_back(place: &Place, from: &str) -> Result<()> {
    if !swap(&place.folder, from, &place.name, false)? {
        tracing::warn!(
            "{} was recreated while Mnemo removed it; its earlier content is kept at {}",
            place.folder.shown(&place.name).display(),
            place.folder.shown(from).display()
        );
    }
    Ok(())
}

/// Move `from` to `to` within `folder`: exchanging the two (`exchange`, both must exist) or
/// only when `to` does not exist (`Ok(false)` when it does). Linux does either atomically;
/// elsewhere a plain rename.
fn swap(folder: &Folder, from: &str, to: &str, exchange: bool) -> Result<bool> {
    let flags = if exchange {
        RenameFlags::EXCHANGE
    } else {
        RenameFlags::NOREPLACE
    };
    match folder.rename(from, to, flags) {
        Ok(()) => Ok(true),
        Err(e) if !exchange && e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) if exchange && e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io(
            format!("replacing {}", folder.shown(to).display()),
            &e,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_only_over_the_bytes_read() {
        let d = tempfile::tempdir().unwrap();
        let r = RootDir::open(d.path()).unwrap();
        let p = d.path().join("a.md");
        fs::write(&p, "one\n").unwrap();
        assert!(replace_if(&r, "a.md", Some(b"two\n"), Some(b"one\n")).unwrap());
        assert_eq!(fs::read(&p).unwrap(), b"two\n");
        // Someone appended since it was read: nothing written, the append kept.
        fs::write(&p, "two\nthree\n").unwrap();
        assert!(!replace_if(&r, "a.md", Some(b"four\n"), Some(b"two\n")).unwrap());
        assert_eq!(fs::read(&p).unwrap(), b"two\nthree\n");
        // Created meanwhile / gone meanwhile / removed.
        let q = d.path().join("b.md");
        fs::write(&q, "x").unwrap();
        assert!(!replace_if(&r, "b.md", Some(b"y"), None).unwrap());
        assert!(!replace_if(&r, "c.md", Some(b"y"), Some(b"x")).unwrap());
        assert!(!replace_if(&r, "b.md", None, Some(b"z")).unwrap());
        assert!(replace_if(&r, "b.md", None, Some(b"x")).unwrap());
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
        let r = RootDir::open(d.path()).unwrap();
        let rels: Vec<String> = (0..20).map(|i| format!("{i}.md")).collect();
        let paths: Vec<std::path::PathBuf> = rels.iter().map(|n| d.path().join(n)).collect();
        for p in &paths[..10] {
            fs::write(p, "old").unwrap();
        }
        fs::write(&paths[3], "changed").unwrap();
        let items: Vec<Replacement<'_>> = rels
            .iter()
            .enumerate()
            .map(|(i, rel)| Replacement {
                root: &r,
                rel,
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
