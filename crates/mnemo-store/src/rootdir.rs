//! Memory roots held by handle: a root is opened once as a directory handle, and
//! every read, write, rename and delete under it resolves beneath that handle, never by path
//! again. A folder swapped or replaced by a link after the open — the root itself, any
//! ancestor, any folder inside — cannot redirect a write: the handle still names the folder
//! that was opened.
//!
//! - The root is opened with no symbolic link anywhere on its path
//!   (`openat2(RESOLVE_NO_SYMLINKS)`): workspace discovery hands out real paths
//!   (`Home::workspaces`), so a link on one now means the folder was moved or swapped since.
//! - Below the root, `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`: a link may point to
//!   another file inside the root (as before), never outside it — the kernel refuses, with no
//!   window between a check and the use.
//! - Files are created exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`) under random names; the
//!   swap into place is a `renameat2` within one folder handle.
//! - Where `openat2` is missing (Linux before 5.6, some sandboxes) or on other systems, each
//!   component is opened on its own with `O_NOFOLLOW`: the same confinement, with links inside
//!   the root no longer followed.

use std::fs;
use std::io::{self, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

use mnemo_core::{Error, ErrorCode, Result};
use rustix::fs::{Mode, OFlags};

use crate::fsutil::{MAX_FILE_BYTES, ReadOutcome, TEMP_PREFIX, hard_link_refusal, link_count};

/// A memory root, held open.
#[derive(Debug)]
pub struct RootDir {
    dir: Folder,
}

/// One folder at or beneath a root, held open (`O_RDONLY | O_DIRECTORY`: usable for `*at`
/// calls and for `fsync`).
#[derive(Debug, Clone)]
pub struct Folder {
    fd: std::sync::Arc<OwnedFd>,
    /// Where it was when opened: for messages only, never opened again.
    path: PathBuf,
}

fn io_err(e: rustix::io::Errno) -> io::Error {
    io::Error::from(e)
}

impl RootDir {
    /// Open the folder at `path` (an absolute, real path: no symbolic link on it).
    /// `path_escape` when a link is on it now, `not_found` when it does not exist.
    pub fn open(path: &Path) -> Result<Self> {
        match open_real(path) {
            Ok(fd) => Ok(Self {
                dir: Folder::new(fd, path.to_path_buf()),
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(Error::not_found(format!(
                "the memory folder {} does not exist",
                path.display()
            ))),
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
                Err(moved(path))
            }
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NOTDIR.raw_os_error()) => {
                Err(moved(path))
            }
            Err(e) => Err(Error::io(format!("opening {}", path.display()), &e)),
        }
    }

    /// [`RootDir::open`], creating the folder (and its missing parents) first — each created
    /// beneath its parent's handle, so a link on the path is refused, never followed.
    pub fn open_or_create(path: &Path) -> Result<Self> {
        match Self::open(path) {
            Err(e) if e.code == ErrorCode::NotFound => {}
            other => return other,
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Self::open(path);
        };
        let up = Self::open_or_create(parent)?;
        match rustix::fs::mkdirat(&*up.dir.fd, name, Mode::from_raw_mode(0o777)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => {
                return Err(Error::io(
                    format!("creating {}", path.display()),
                    &io_err(e),
                ));
            }
        }
        Self::open(path)
    }

    /// Where the root was when opened (for messages and for other programs).
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.dir.path
    }

    /// `rel` as a path for messages.
    #[must_use]
    pub fn shown(&self, rel: &str) -> PathBuf {
        self.dir.path.join(rel)
    }

    /// Every document beneath the root (relative paths, `/`-separated) with its metadata: each
    /// folder listed through its handle (see `vault::scan`).
    #[must_use]
    pub fn documents(&self) -> Vec<(String, fs::Metadata)> {
        crate::vault::scan::walk(self)
    }

    /// Remove the temp files (`.mnemo-tmp-…`) a writer killed midway left anywhere beneath
    /// the root; returns how many. Only for a caller holding the workspace's write lock: every
    /// Mnemo writer makes its temp files under it, so none of them is in use then.
    pub fn sweep_temps(&self) -> usize {
        crate::vault::scan::sweep_temps(&self.dir)
    }

    /// The root folder itself.
    #[must_use]
    pub fn folder(&self) -> &Folder {
        &self.dir
    }

    /// The folder holding `rel` and `rel`'s last name. Missing folders are created when
    /// `create`, else `Ok(None)`. A folder leading outside the root is `path_escape`.
    pub fn parent(&self, rel: &str, create: bool) -> Result<Option<(Folder, String)>> {
        let (dir, name) = match rel.rsplit_once('/') {
            Some((d, n)) => (d, n),
            None => ("", rel),
        };
        if name.is_empty() || name == "." || name == ".." {
            return Err(self.escape(rel));
        }
        let shown = self.shown(dir);
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        if dir.is_empty() {
            let fd = rustix::fs::openat(&*self.dir.fd, ".", flags, Mode::empty())
                .map_err(|e| Error::io(format!("opening {}", shown.display()), &io_err(e)))?;
            return Ok(Some((Folder::new(fd, shown), name.to_owned())));
        }
        match beneath(&self.dir.fd, dir, flags) {
            Ok(fd) => return Ok(Some((Folder::new(fd, shown), name.to_owned()))),
            Err(e) if e.kind() == io::ErrorKind::NotFound && create => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.refusal(dir, &e)),
        }
        // Create each missing folder in turn, each beneath the one before it.
        let mut at = rustix::fs::openat(&*self.dir.fd, ".", flags, Mode::empty())
            .map_err(|e| Error::io(format!("opening {}", self.path().display()), &io_err(e)))?;
        for part in dir.split('/').filter(|p| !p.is_empty() && *p != ".") {
            if part == ".." {
                return Err(self.escape(rel));
            }
            match rustix::fs::mkdirat(&at, part, Mode::from_raw_mode(0o777)) {
                Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                Err(e) => {
                    return Err(Error::io(
                        format!("creating {}", shown.display()),
                        &io_err(e),
                    ));
                }
            }
            at = rustix::fs::openat(&at, part, flags | OFlags::NOFOLLOW, Mode::empty())
                .map_err(|e| self.refusal(dir, &io_err(e)))?;
        }
        Ok(Some((Folder::new(at, shown), name.to_owned())))
    }

    /// The folder `rel` (`""`: the root), opened beneath the root; `Ok(None)` when missing.
    pub fn subdir(&self, rel: &str) -> Result<Option<Folder>> {
        if rel.is_empty() {
            return Ok(Some(self.dir.clone()));
        }
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        match beneath(&self.dir.fd, rel, flags) {
            Ok(fd) => Ok(Some(Folder::new(fd, self.shown(rel)))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.refusal(rel, &e)),
        }
    }

    /// Open `rel` for reading (a link inside the root is followed; one leading out is refused).
    /// `Ok(None)` when it does not exist. Never blocks on a FIFO.
    pub fn open_file(&self, rel: &str) -> Result<Option<fs::File>> {
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
        match beneath(&self.dir.fd, rel, flags) {
            Ok(fd) => Ok(Some(fs::File::from(fd))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.refusal(rel, &e)),
        }
    }

    /// The metadata of what `rel` names (through a link inside the root), `None` when missing.
    pub fn metadata(&self, rel: &str) -> Result<Option<fs::Metadata>> {
        let flags = OFlags::PATH | OFlags::CLOEXEC;
        match beneath(&self.dir.fd, rel, flags) {
            Ok(fd) => fs::File::from(fd)
                .metadata()
                .map(Some)
                .map_err(|e| Error::io(format!("reading {}", self.shown(rel).display()), &e)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.refusal(rel, &e)),
        }
    }

    /// `fsutil::read_capped` beneath the root: at most [`MAX_FILE_BYTES`] are read; a hard
    /// link, a folder or a device is refused.
    pub fn read_capped(&self, rel: &str) -> Result<ReadOutcome> {
        let Some(file) = self.open_file(rel)? else {
            return Ok(ReadOutcome::Missing);
        };
        let shown = self.shown(rel);
        let meta = file
            .metadata()
            .map_err(|e| Error::io(format!("reading {}", shown.display()), &e))?;
        if !meta.is_file() {
            return Err(Error::usage(format!(
                "{} is not a file: a memory is a plain markdown file",
                crate::fsutil::shown(&shown.display().to_string())
            )));
        }
        if link_count(&meta) > 1 {
            return Err(hard_link_refusal(&shown, link_count(&meta)));
        }
        let mut buf = Vec::new();
        (&file)
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut buf)
            .map_err(|e| Error::io(format!("reading {}", shown.display()), &e))?;
        if buf.len() as u64 > MAX_FILE_BYTES {
            return Ok(ReadOutcome::TooLarge(meta.len().max(buf.len() as u64)));
        }
        Ok(ReadOutcome::Bytes(buf))
    }

    /// Write `bytes` at `rel` atomically beneath the root: a temp file of its own in the same
    /// folder, flushed, renamed over the target (which keeps its mode), the folder flushed.
    pub fn write_atomic(&self, rel: &str, bytes: &[u8]) -> Result<()> {
        let (folder, name) = self.parent(rel, true)?.ok_or_else(|| self.escape(rel))?;
        let mut tmp = folder.create_temp(folder.mode_of(&name))?;
        use std::io::Write;
        tmp.file
            .write_all(bytes)
            .and_then(|()| tmp.file.sync_all())
            .map_err(|e| Error::io(format!("writing {}", folder.shown(&name).display()), &e))?;
        folder
            .rename(&tmp.name, &name, rustix::fs::RenameFlags::empty())
            .map_err(|e| Error::io(format!("replacing {}", folder.shown(&name).display()), &e))?;
        tmp.keep();
        folder.sync();
        Ok(())
    }

    fn escape(&self, rel: &str) -> Error {
        Error::new(
            ErrorCode::PathEscape,
            format!(
                "path `{}` is not a file inside {}",
                crate::fsutil::shown(rel),
                self.path().display()
            ),
        )
    }

    /// The error for a resolution the kernel refused: a link out of the root, or a file where
    /// a folder should be.
    fn refusal(&self, rel: &str, e: &io::Error) -> Error {
        let errno = e.raw_os_error();
        if errno == Some(rustix::io::Errno::XDEV.raw_os_error())
            || errno == Some(rustix::io::Errno::LOOP.raw_os_error())
            || errno == Some(rustix::io::Errno::NOTDIR.raw_os_error())
        {
            Error::new(
                ErrorCode::PathEscape,
                format!(
                    "path `{}` resolves outside the memory folder {} (a symbolic link, or a \
                     folder moved meanwhile): nothing was read or written there",
                    crate::fsutil::shown(rel),
                    self.path().display()
                ),
            )
        } else {
            Error::io(format!("opening {}", self.shown(rel).display()), e)
        }
    }
}

/// Read `rel` (already normalised) beneath the root at `root`, opened for this one read:
/// `Missing` when the root or the file does not exist.
pub fn read_in(root: &Path, rel: &str) -> Result<ReadOutcome> {
    match RootDir::open(root) {
        Ok(r) => r.read_capped(rel),
        Err(e) if e.code == ErrorCode::NotFound => Ok(ReadOutcome::Missing),
        Err(e) => Err(e),
    }
}

fn moved(path: &Path) -> Error {
    Error::new(
        ErrorCode::PathEscape,
        format!(
            "the memory folder {} is reached through a symbolic link now (it was moved or \
             replaced since Mnemo found it): nothing was read or written; check the folder and \
             run the command again",
            path.display()
        ),
    )
}

/// A temp file created exclusively in a [`Folder`]; removed when dropped unless kept.
#[derive(Debug)]
pub struct Temp {
    folder: Folder,
    /// Its name in the folder.
    pub name: String,
    /// The open file (write-only).
    pub file: fs::File,
    kept: bool,
}

impl Temp {
    /// It was renamed into place: nothing to remove.
    pub fn keep(&mut self) {
        self.kept = true;
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.kept {
            let _ = self.folder.unlink(&self.name);
        }
    }
}

impl Folder {
    fn new(fd: OwnedFd, path: PathBuf) -> Self {
        Self {
            fd: std::sync::Arc::new(fd),
            path,
        }
    }

    /// Where it was when opened (for messages).
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `name` in this folder, for messages.
    #[must_use]
    pub fn shown(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Open `name` here with `flags` (never following a link in `name`).
    pub fn open(&self, name: &str, flags: OFlags) -> io::Result<Option<fs::File>> {
        match rustix::fs::openat(
            &self.fd,
            name,
            flags | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NOCTTY,
            Mode::empty(),
        ) {
            Ok(fd) => Ok(Some(fs::File::from(fd))),
            Err(rustix::io::Errno::NOENT) => Ok(None),
            Err(e) => Err(io_err(e)),
        }
    }

    /// The metadata of `name` itself (a link is not followed), `None` when missing.
    pub fn metadata(&self, name: &str) -> io::Result<Option<fs::Metadata>> {
        self.open(name, OFlags::PATH)?
            .map(|f| f.metadata())
            .transpose()
    }

    /// The permission bits of `name`, when it is a plain file (a replaced file keeps them).
    #[must_use]
    pub fn mode_of(&self, name: &str) -> Option<u32> {
        use std::os::unix::fs::PermissionsExt;
        self.metadata(name)
            .ok()
            .flatten()
            .filter(fs::Metadata::is_file)
            .map(|m| m.permissions().mode() & 0o7777)
    }

    /// A new temp file here, created exclusively under a random name, with `mode` (else 0600:
    /// a new memory is its owner's alone).
    pub fn create_temp(&self, mode: Option<u32>) -> Result<Temp> {
        for _ in 0..16 {
            let name = format!("{TEMP_PREFIX}{}", random_suffix());
            match rustix::fs::openat(
                &self.fd,
                name.as_str(),
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_raw_mode(0o600),
            ) {
                Ok(fd) => {
                    let file = fs::File::from(fd);
                    if let Some(bits) = mode {
                        let _ = rustix::fs::fchmod(file.as_fd(), Mode::from_raw_mode(bits));
                    }
                    return Ok(Temp {
                        folder: self.clone(),
                        name,
                        file,
                        kept: false,
                    });
                }
                Err(rustix::io::Errno::EXIST) => {}
                Err(e) => {
                    return Err(Error::io(
                        format!("creating a temp file in {}", self.path.display()),
                        &io_err(e),
                    ));
                }
            }
        }
        Err(Error::io(
            format!("creating a temp file in {}", self.path.display()),
            &io::Error::from(io::ErrorKind::AlreadyExists),
        ))
    }

    /// Rename `from` to `to`, both in this folder (`flags`: exchange, no-replace).
    pub fn rename(&self, from: &str, to: &str, flags: rustix::fs::RenameFlags) -> io::Result<()> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            rustix::fs::renameat_with(&self.fd, from, &self.fd, to, flags).map_err(io_err)
        }
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        {
            if flags.contains(rustix::fs::RenameFlags::NOREPLACE) && self.metadata(to)?.is_some() {
                return Err(io::Error::from(io::ErrorKind::AlreadyExists));
            }
            rustix::fs::renameat(&self.fd, from, &self.fd, to).map_err(io_err)
        }
    }

    /// The folder `name` here, opened beneath this one (`Ok(None)`: not a folder, or a link).
    pub fn subfolder(&self, name: &str) -> io::Result<Option<Folder>> {
        match rustix::fs::openat(
            &*self.fd,
            name,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => Ok(Some(Folder::new(fd, self.path.join(name)))),
            Err(rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR | rustix::io::Errno::LOOP) => {
                Ok(None)
            }
            Err(e) => Err(io_err(e)),
        }
    }

    /// This folder's entries, read through the handle (on Linux its `/proc/self/fd` name, so
    /// the folder listed is the one held, whatever its path names now).
    pub fn read_dir(&self) -> io::Result<fs::ReadDir> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            match fs::read_dir(format!("/proc/self/fd/{}", self.fd.as_raw_fd())) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                other => return other,
            }
        }
        fs::read_dir(&self.path)
    }

    /// Remove the file `name` here.
    pub fn unlink(&self, name: &str) -> io::Result<()> {
        rustix::fs::unlinkat(&self.fd, name, rustix::fs::AtFlags::empty()).map_err(io_err)
    }

    /// Remove the folder `name` here if it is empty (`false`: it holds something, or is not
    /// there). Never follows a link: a link is not a folder to `rmdir`.
    pub fn remove_empty_dir(&self, name: &str) -> bool {
        rustix::fs::unlinkat(&self.fd, name, rustix::fs::AtFlags::REMOVEDIR).is_ok()
    }

    /// Make renames and removals here durable (best effort, as `fsutil::sync_dir`).
    pub fn sync(&self) {
        let _ = rustix::fs::fsync(&self.fd);
    }
}

/// Open `rel` beneath `root` with `flags`: in one call with `openat2` where the kernel has
/// it, else one component at a time with `O_NOFOLLOW`.
fn beneath(root: &OwnedFd, rel: &str, flags: OFlags) -> io::Result<OwnedFd> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::ResolveFlags;
        match rustix::fs::openat2(
            root,
            rel,
            flags | OFlags::CLOEXEC,
            Mode::empty(),
            ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
        ) {
            Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {}
            // A retry after a rename elsewhere: the kernel asks to try again.
            Err(rustix::io::Errno::AGAIN) => {}
            other => return other.map_err(io_err),
        }
    }
    component_walk(root, rel, flags)
}

/// Each component opened on its own, never following a link, never going up.
fn component_walk(root: &OwnedFd, rel: &str, flags: OFlags) -> io::Result<OwnedFd> {
    let parts: Vec<&str> = rel
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.contains(&"..") {
        return Err(io::Error::from_raw_os_error(
            rustix::io::Errno::XDEV.raw_os_error(),
        ));
    }
    let dir_flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut at = rustix::fs::openat(root, ".", dir_flags, Mode::empty()).map_err(io_err)?;
    let Some((last, folders)) = parts.split_last() else {
        return rustix::fs::openat(root, ".", flags, Mode::empty()).map_err(io_err);
    };
    for part in folders {
        at = rustix::fs::openat(&at, *part, dir_flags, Mode::empty()).map_err(io_err)?;
    }
    rustix::fs::openat(&at, *last, flags | OFlags::NOFOLLOW, Mode::empty()).map_err(io_err)
}

/// Open an absolute real path as a folder, refusing any symbolic link on it.
fn open_real(path: &Path) -> io::Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::ResolveFlags;
        match rustix::fs::openat2(
            rustix::fs::CWD,
            path,
            flags,
            Mode::empty(),
            ResolveFlags::NO_SYMLINKS,
        ) {
            Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM | rustix::io::Errno::AGAIN) => {}
            other => return other.map_err(io_err),
        }
    }
    // Without openat2: from `/`, each component with O_NOFOLLOW.
    let mut at = rustix::fs::open("/", flags, Mode::empty()).map_err(io_err)?;
    for c in path.components() {
        match c {
            std::path::Component::Normal(p) => {
                at = rustix::fs::openat(&at, p, flags | OFlags::NOFOLLOW, Mode::empty())
                    .map_err(io_err)?;
            }
            std::path::Component::RootDir => {}
            _ => return Err(io::Error::from(io::ErrorKind::InvalidInput)),
        }
    }
    Ok(at)
}

fn random_suffix() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seed = format!("{}-{n}-{nanos}", std::process::id());
    blake3::hash(seed.as_bytes()).to_hex()[..16].to_owned()
}
