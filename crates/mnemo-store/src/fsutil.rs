//! Safe filesystem primitives: path confinement to a memory root, atomic writes, capped reads.
//!
//! Invariant: every path that reaches the filesystem from outside input has gone through
//! [`confine`]; every write goes through [`write_atomic`] (temp file in the same folder, fsync,
//! rename, fsync of the folder) so a crash leaves either the old or the new file.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

use mnemo_core::{Error, ErrorCode, Result};
pub use mnemo_text::files::{MAX_FILE_BYTES, hash, link_count, printable, unsafe_char};

/// Prefix of the temp files [`write_atomic`] creates; scanners and the watcher skip them.
pub const TEMP_PREFIX: &str = ".mnemo-tmp-";

/// The longest memory path accepted, in bytes (well inside Linux's 4,096 for the whole path).
pub const MAX_PATH_BYTES: usize = 1024;
/// The longest file or folder name accepted, in bytes (the file system's own limit).
pub const MAX_NAME_BYTES: usize = 255;

/// A path as an error message shows it: [`printable`], and cut after 120 characters.
#[must_use]
pub fn shown(s: &str) -> String {
    const SHOWN: usize = 120;
    match s.char_indices().nth(SHOWN) {
        Some((i, _)) => format!("{}… ({} bytes)", printable(&s[..i]), s.len()),
        None => printable(s),
    }
}

/// `p` with every symbolic link on it resolved (its deepest existing folder made canonical,
/// the missing rest appended): the real path a memory root is held by (see
/// [`crate::rootdir::RootDir::open`], which refuses a link on it later).
#[must_use]
pub fn real_path(p: &Path) -> PathBuf {
    let mut base = p.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(c) = fs::canonicalize(&base) {
            let mut out = c;
            out.extend(rest.iter().rev());
            return out;
        }
        match (
            base.file_name().map(std::ffi::OsStr::to_os_string),
            base.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                base = parent.to_path_buf();
            }
            _ => return p.to_path_buf(),
        }
    }
}

/// Normalise a user-supplied relative path and check it stays inside `root`.
///
/// Refuses empty paths, absolute paths, `..` components, and paths whose existing part resolves
/// (through symlinks) outside the canonical root. Returns the absolute path and the normalised
/// relative path (forward slashes).
pub fn confine(root: &Path, rel: &str) -> Result<(PathBuf, String)> {
    let norm = normalise(rel)?;
    let escape = |why: &str| path_escape(rel, why);
    // The root itself must be a real folder: a root that is a link would make everything under
    // its target count as "inside" (discovery refuses such roots; this holds if one appears later).
    if fs::symlink_metadata(root).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(escape(
            "is in a memory folder that is a symbolic link (Mnemo only uses real folders)",
        ));
    }
    let abs = root.join(&norm);
    check_resolves_inside(root, &abs).map_err(|_| escape("resolves outside the memory folder"))?;
    Ok((abs, norm))
}

/// `path_escape` for `rel`, saying `why` and what to give instead.
fn path_escape(rel: &str, why: &str) -> Error {
    Error::new(
        ErrorCode::PathEscape,
        format!(
            "path `{}` {why}; use a path relative to the memory folder",
            shown(rel)
        ),
    )
}

/// The checks of [`confine`] that need no file system: a relative path's normal form
/// (`/`-separated, no `.`), or why it is refused (empty, too long, absolute, `..`, NUL, control
/// characters, bidirectional overrides). Reads and writes beneath a held root
/// ([`crate::rootdir::RootDir`]) use this; the kernel refuses the rest (links out of the root).
pub fn normalise(rel: &str) -> Result<String> {
    let escape = |why: &str| path_escape(rel, why);
    let trimmed = rel.trim();
    if trimmed.is_empty() {
        return Err(Error::usage(
            "empty path: name a file inside the memory folder",
        ));
    }
    // Checked before anything walks the path: each later step costs time in its length.
    if trimmed.len() > MAX_PATH_BYTES {
        return Err(Error::new(
            ErrorCode::InvalidPath,
            format!(
                "path `{}` is {} bytes long; memory paths are at most {MAX_PATH_BYTES} bytes",
                shown(rel),
                trimmed.len()
            ),
        ));
    }
    if let Some(long) = trimmed.split('/').find(|c| c.len() > MAX_NAME_BYTES) {
        return Err(Error::new(
            ErrorCode::InvalidPath,
            format!(
                "path `{}` has a name of {} bytes; a file or folder name is at most {MAX_NAME_BYTES} bytes",
                shown(rel),
                long.len()
            ),
        ));
    }
    if trimmed.contains('\0') {
        return Err(escape("contains a NUL byte"));
    }
    if trimmed.chars().any(unsafe_char) {
        return Err(Error::new(
            ErrorCode::InvalidPath,
            format!(
                "path `{}` holds a control character or a bidirectional override: rename it with printable characters only",
                printable(trimmed)
            ),
        ));
    }
    let candidate = Path::new(trimmed);
    let mut parts: Vec<String> = Vec::new();
    for comp in candidate.components() {
        match comp {
            Component::Normal(p) => parts.push(
                p.to_str()
                    .ok_or_else(|| escape("is not valid UTF-8"))?
                    .to_owned(),
            ),
            Component::CurDir => {}
            Component::ParentDir => return Err(escape("contains `..`")),
            Component::RootDir | Component::Prefix(_) => return Err(escape("is absolute")),
        }
    }
    if parts.is_empty() {
        return Err(escape("names the memory folder itself"));
    }
    Ok(parts.join("/"))
}

/// Check that the deepest existing ancestor of `abs` (the path itself if it exists) resolves,
/// after following symlinks, to a place inside `root`.
fn check_resolves_inside(root: &Path, abs: &Path) -> std::result::Result<(), ()> {
    let root_canon = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut probe = abs.to_path_buf();
    loop {
        // symlink_metadata: a dangling symlink still "exists" and must be checked.
        if fs::symlink_metadata(&probe).is_ok() {
            let resolved = match fs::canonicalize(&probe) {
                Ok(p) => p,
                // A dangling symlink: resolve its target by hand.
                Err(_) => match fs::read_link(&probe) {
                    Ok(target) => {
                        // Resolve the link's folder too: it may itself sit behind a symlink.
                        let parent = probe.parent().unwrap_or(root);
                        let base =
                            fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
                        let t = if target.is_absolute() {
                            target
                        } else {
                            base.join(target)
                        };
                        lexical_normalise(&t)
                    }
                    Err(_) => return Err(()),
                },
            };
            return if resolved.starts_with(&root_canon) {
                Ok(())
            } else {
                Err(())
            };
        }
        if !probe.pop() {
            return Err(());
        }
    }
}

fn lexical_normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Write `bytes` to `path` atomically: temp file in the same folder, fsync, rename over the target,
/// fsync the folder. Creates missing parent folders. Keeps the permissions of a file it replaces.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, false)
}

/// Write a private file (mode 0600 on Unix) atomically: the temp file is 0600 before any byte is
/// written, so the content is never readable by others, not even for an instant. The one helper
/// for secrets under `$MNEMO_HOME` (`llm.key`, `server.token`).
/// Make sure `path` is a file only its owner can read and write: created empty with mode 0600 if
/// missing, tightened to 0600 (with a warning) if it is looser. Databases, journals and task
/// stores pass through here before SQLite opens them (SQLite gives `-wal` / `-shm` the
/// database's own mode).
pub fn private_file(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        let f = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(path)?;
        tighten(path, &f.metadata()?, 0o600)?;
        for side in ["-wal", "-shm", "-journal"] {
            let p = PathBuf::from(format!("{}{side}", path.display()));
            if let Ok(m) = fs::metadata(&p) {
                tighten(&p, &m, 0o600)?;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = path;
    }
    Ok(())
}

/// Make sure `dir` exists and only its owner can enter it (0700), tightening a looser one with a
/// warning: `$MNEMO_HOME`.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        tighten(dir, &fs::metadata(dir)?, 0o700)?;
    }
    #[cfg(not(unix))]
    fs::create_dir_all(dir)?;
    Ok(())
}

/// Tighten a looser mode, with a warning; a file this user may not change (another owner's
/// shared home) is left as it is, with a warning saying so — never an error.
#[cfg(unix)]
#[allow(clippy::unnecessary_wraps)]
fn tighten(path: &Path, meta: &fs::Metadata, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let now = meta.permissions().mode() & 0o777;
    if now & 0o077 != 0 {
        match fs::set_permissions(path, fs::Permissions::from_mode(mode)) {
            Ok(()) => tracing::warn!(
                "{} was readable by others ({now:o}); tightened to {mode:o}",
                path.display()
            ),
            Err(e) => tracing::warn!(
                "{} is readable by others ({now:o}) and could not be tightened: {e}",
                path.display()
            ),
        }
    }
    Ok(())
}

pub fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, true)
}

fn replace(path: &Path, bytes: &[u8], private: bool) -> Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| Error::usage(format!("{} has no parent folder", path.display())))?;
    fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), &e))?;
    // A temp name of its own (no two writers share one).
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)
        .map_err(|e| Error::io(format!("creating a temp file in {}", dir.display()), &e))?;
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o600))
            .map_err(|e| Error::io(format!("restricting {}", tmp.path().display()), &e))?;
    }
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| Error::io(format!("writing {}", path.display()), &e))?;
    if !private && let Ok(meta) = fs::metadata(path) {
        // Best effort: a replaced file keeps its mode.
        let _ = fs::set_permissions(tmp.path(), meta.permissions());
    }
    tmp.persist(path)
        .map_err(|e| Error::io(format!("replacing {}", path.display()), &e.error))?;
    sync_dir(dir);
    Ok(())
}

pub use crate::replace::{open_for_writing, replace_all_if, replace_if};

/// Take an exclusive OS advisory lock on `path` (created if missing, with its folder); held until
/// the returned file is dropped. Blocks until free. Per open file: one process must not take the
/// same lock twice.
pub fn lock_file(path: &Path) -> Result<fs::File> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)
            .map_err(|e| Error::io(format!("creating {}", dir.display()), &e))?;
    }
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| Error::io(format!("opening {}", path.display()), &e))?;
    file.lock()
        .map_err(|e| Error::io(format!("locking {}", path.display()), &e))?;
    Ok(file)
}

/// Remove a file and fsync its folder.
pub fn remove_file(path: &Path) -> Result<()> {
    fs::remove_file(path).map_err(|e| Error::io(format!("removing {}", path.display()), &e))?;
    if let Some(dir) = path.parent() {
        sync_dir(dir);
    }
    Ok(())
}

pub(crate) fn sync_dir(dir: &Path) {
    // Directory fsync makes the rename durable; not every platform allows opening a directory.
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// What reading a file gave.
#[derive(Debug)]
pub enum ReadOutcome {
    /// The file's bytes (at most [`MAX_FILE_BYTES`]).
    Bytes(Vec<u8>),
    /// The file is larger than the cap; only its size is known.
    TooLarge(u64),
    /// The file does not exist (or vanished between scan and read).
    Missing,
}

/// The refusal of a file that is a hard link: its bytes may be any file of the same disk, so
/// Mnemo treats it as not its own.
#[must_use]
pub fn hard_link_refusal(path: &Path, names: u64) -> Error {
    Error::new(
        ErrorCode::PathEscape,
        format!(
            "{} is a hard link ({names} names for one file): Mnemo reads only files of their own, \
             so a link cannot show it a file from elsewhere — replace it with a copy \
             (`cp --remove-destination <source> <it>`) to use it",
            shown(&path.display().to_string())
        ),
    )
}

/// Read a file without ever loading more than [`MAX_FILE_BYTES`] (+1 to detect overflow).
/// A hard link (a file with more than one name) is refused ([`hard_link_refusal`]).
pub fn read_capped(path: &Path) -> Result<ReadOutcome> {
    let file = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(ReadOutcome::Missing),
        Err(e) => return Err(Error::io(format!("opening {}", path.display()), &e)),
    };
    // Of the file opened, not of the path (which may have changed since).
    if let Ok(meta) = file.metadata()
        && meta.is_file()
        && link_count(&meta) > 1
    {
        return Err(hard_link_refusal(path, link_count(&meta)));
    }
    let mut buf = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
    if buf.len() as u64 > MAX_FILE_BYTES {
        let size = fs::metadata(path).map_or(buf.len() as u64, |m| m.len());
        return Ok(ReadOutcome::TooLarge(size));
    }
    Ok(ReadOutcome::Bytes(buf))
}

/// Move a corrupt file aside as `<name>.corrupt-<timestamp>` and return the new path.
pub fn quarantine(path: &Path) -> Result<PathBuf> {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ");
    let name = path
        .file_name()
        .map_or_else(|| "file".to_owned(), |n| n.to_string_lossy().into_owned());
    let aside = path.with_file_name(format!("{name}.corrupt-{stamp}"));
    fs::rename(path, &aside)
        .map_err(|e| Error::io(format!("moving aside {}", path.display()), &e))?;
    Ok(aside)
}

/// The id git gives these bytes as a blob (SHA-1 of `blob <len>\0<bytes>`), computed here so
/// unchanged files never reach git.
#[must_use]
pub fn blob_id(bytes: &[u8]) -> String {
    let mut h = sha1_smol::Sha1::new();
    h.update(format!("blob {}\0", bytes.len()).as_bytes());
    h.update(bytes);
    h.digest().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confine_accepts_plain_and_nested_paths() {
        let dir = tempfile::tempdir().unwrap();
        let (abs, rel) = confine(dir.path(), "./a/b.md").unwrap();
        assert_eq!(rel, "a/b.md");
        assert_eq!(abs, dir.path().join("a/b.md"));
    }

    #[test]
    fn confine_refuses_parent_and_absolute_paths() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["../x.md", "a/../../x.md", "/etc/passwd", "a/../b.md"] {
            let err = confine(dir.path(), bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::PathEscape, "{bad}");
        }
        assert_eq!(confine(dir.path(), " ").unwrap_err().code, ErrorCode::Usage);
    }

    #[test]
    fn confine_refuses_overlong_paths_and_names_without_echoing_them() {
        let dir = tempfile::tempdir().unwrap();
        let deep = "d/".repeat(2_500_000);
        let err = confine(dir.path(), &deep).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidPath);
        assert!(err.message.len() < 400, "{}", err.message.len());
        assert!(err.message.contains("5000000 bytes"), "{}", err.message);
        let name = format!("{}.md", "n".repeat(300));
        assert_eq!(
            confine(dir.path(), &name).unwrap_err().code,
            ErrorCode::InvalidPath
        );
        let fits = format!("{}/{}.md", "a".repeat(250), "b".repeat(250));
        assert!(confine(dir.path(), &fits).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn confine_refuses_symlinks_resolving_outside() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), root.path().join("s.md"))
            .unwrap();
        std::os::unix::fs::symlink("/nonexistent/dangling", root.path().join("d.md")).unwrap();
        for bad in ["out/secret.md", "out/new.md", "s.md", "d.md"] {
            assert_eq!(
                confine(root.path(), bad).unwrap_err().code,
                ErrorCode::PathEscape,
                "{bad}"
            );
        }
        // A symlink that stays inside is fine.
        std::fs::create_dir(root.path().join("real")).unwrap();
        std::os::unix::fs::symlink(root.path().join("real"), root.path().join("alias")).unwrap();
        assert!(confine(root.path(), "alias/x.md").is_ok());
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/f.md");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path().join("sub"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn read_capped_flags_huge_files_without_reading_them() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.md");
        let f = std::fs::File::create(&p).unwrap();
        f.set_len(50 * 1024 * 1024).unwrap();
        match read_capped(&p).unwrap() {
            ReadOutcome::TooLarge(n) => assert_eq!(n, 50 * 1024 * 1024),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            read_capped(&dir.path().join("gone.md")).unwrap(),
            ReadOutcome::Missing
        ));
    }
}
