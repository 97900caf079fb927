//! The consolidation lock: `consolidation.lock` in a workspace's lock dir holds the
//! owner's PID. Taken atomically (create-exclusive, then re-read to confirm); a lock whose PID is
//! dead, whose content is unreadable, or that is older than an hour is reclaimed. The same file
//! name and format as Qwen Code, so the two tools never consolidate one folder at once.
//!
//! Invariant: a [`LockGuard`] releases the lock when dropped (every exit path), and only removes
//! the file if it still holds this process's PID.
//!
//! Invariant: a lock cannot be aimed. No lock or temp file is ever opened through a
//! symbolic link at its name — temp files get random names created exclusively, lock files are
//! read and written with `O_NOFOLLOW`, a linked Claude Code lock is refused — and the lock of a
//! layer a repository controls (Qwen Code's team memory, `<repo>/.qwen`) is Mnemo's own under
//! `$MNEMO_HOME`; Qwen Code's lock in the repository is only read, to respect it.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use mnemo_core::{Error, ErrorCode, Result, WorkspaceKind};

use crate::workspace::Workspace;

/// File name of the lock.
pub const LOCK_FILE: &str = "consolidation.lock";
/// Locks older than this are reclaimed whatever their PID (guards against PID reuse).
pub const STALE_AFTER: Duration = Duration::from_secs(60 * 60);
/// An unreadable lock younger than this may be mid-write by its owner; it is respected.
const WRITE_GRACE: Duration = Duration::from_secs(5);

/// Who holds a lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    /// A live process.
    Pid(u32),
}

/// Proof that this process holds the consolidation lock of one workspace.
#[derive(Debug)]
pub struct LockGuard {
    path: PathBuf,
    pid: u32,
}

impl LockGuard {
    /// The lock file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        if read_pid(&self.path) == Some(self.pid)
            && let Err(e) = fs::remove_file(&self.path)
        {
            tracing::warn!("could not release {}: {e}", self.path.display());
        }
    }
}

/// Whether a process with this PID is alive.
#[must_use]
pub fn pid_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(raw) = i32::try_from(pid) else {
            return false;
        };
        match rustix::process::Pid::from_raw(raw) {
            // EPERM means it exists but belongs to someone else: alive.
            Some(p) => !matches!(
                rustix::process::test_kill_process(p),
                Err(rustix::io::Errno::SRCH)
            ),
            None => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// Open `path` without following a symbolic link at its final name (`ELOOP` then).
fn open_nofollow(path: &Path, opts: &mut fs::OpenOptions) -> std::io::Result<fs::File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        #[allow(clippy::cast_possible_wrap)]
        opts.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    opts.open(path)
}

/// Write `bytes` as the whole of the file at `path` (created if missing), never through a link.
fn write_nofollow(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = open_nofollow(
        path,
        fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true),
    )?;
    f.write_all(bytes)
}

fn read_pid(path: &Path) -> Option<u32> {
    use std::io::Read;
    let mut text = String::new();
    open_nofollow(path, fs::OpenOptions::new().read(true))
        .ok()?
        .take(64)
        .read_to_string(&mut text)
        .ok()?;
    text.trim().parse().ok()
}

/// The lock's times, of the name itself (a link is not followed).
fn modified(path: &Path) -> Option<SystemTime> {
    fs::symlink_metadata(path).and_then(|m| m.modified()).ok()
}

/// Why an existing lock may be taken over, or `None` if it must be respected.
fn stale_reason(path: &Path) -> Option<String> {
    let age = modified(path)
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .unwrap_or_default();
    if age > STALE_AFTER {
        return Some(format!("older than {} minutes", STALE_AFTER.as_secs() / 60));
    }
    match read_pid(path) {
        Some(pid) if pid_alive(pid) => None,
        Some(pid) => Some(format!("its owner (PID {pid}) is gone")),
        None if age > WRITE_GRACE => Some("its content is not a PID".to_owned()),
        None => None,
    }
}

/// Try to take the lock in `dir` for this process.
///
/// Returns `Err(locked)` naming the holder when another live process has it.
pub fn acquire(dir: &Path) -> Result<LockGuard> {
    acquire_as(dir, std::process::id())
}

/// [`acquire`] on behalf of a given PID (tests and helpers holding it for a child).
pub fn acquire_as(dir: &Path, pid: u32) -> Result<LockGuard> {
    fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), &e))?;
    let path = dir.join(LOCK_FILE);
    // The lock appears with its PID already in it (written to a temp file, then hard-linked into
    // place — atomic, and refused if the lock exists), so a process killed at any instant never
    // leaves an empty lock that others must wait out.
    // The temp file's name is random and created exclusively: a link planted under any name
    // cannot receive the PID.
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{LOCK_FILE}.tmp-"))
        .tempfile_in(dir)
        .map_err(|e| Error::io(format!("creating a temp file in {}", dir.display()), &e))?;
    tmp.write_all(pid.to_string().as_bytes())
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| Error::io(format!("writing {}", tmp.path().display()), &e))?;
    take_with(tmp.path(), &path, pid)
}

fn take_with(tmp: &Path, path: &Path, pid: u32) -> Result<LockGuard> {
    let path = path.to_path_buf();
    for _ in 0..3 {
        match fs::hard_link(tmp, &path) {
            Ok(()) => {
                // Re-read to confirm: a racing reclaimer may have replaced the file.
                if read_pid(&path) == Some(pid) {
                    return Ok(LockGuard { path, pid });
                }
                return Err(held(&path));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let Some(reason) = stale_reason(&path) else {
                    return Err(held(&path));
                };
                reclaim(&path, &reason)?;
            }
            // A filesystem without hard links (FAT, some network mounts): create it directly.
            Err(_) => return take_by_create(&path, pid),
        }
    }
    Err(held(&path))
}

fn take_by_create(path: &Path, pid: u32) -> Result<LockGuard> {
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => held(path),
            _ => Error::io(format!("creating {}", path.display()), &e),
        })?;
    f.write_all(pid.to_string().as_bytes())
        .and_then(|()| f.sync_all())
        .map_err(|e| Error::io(format!("writing {}", path.display()), &e))?;
    drop(f);
    if read_pid(path) == Some(pid) {
        return Ok(LockGuard {
            path: path.to_path_buf(),
            pid,
        });
    }
    Err(held(path))
}

/// Move a stale lock out of the way without clobbering a fresh one that replaced it meanwhile.
fn reclaim(path: &Path, reason: &str) -> Result<()> {
    let before = read_pid(path);
    let aside = path.with_extension(format!("lock.stale-{}", std::process::id()));
    match fs::rename(path, &aside) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(format!("reclaiming {}", path.display()), &e)),
    }
    if read_pid(&aside) != before {
        // We moved a lock someone else took a moment ago: put it back (never over a newer one).
        let _ = fs::hard_link(&aside, path);
        let _ = fs::remove_file(&aside);
        return Err(held(path));
    }
    let _ = fs::remove_file(&aside);
    tracing::warn!("reclaimed {} ({reason})", path.display());
    Ok(())
}

fn held_by(path: &Path, pid: u32) -> Error {
    Error::new(
        ErrorCode::Locked,
        format!(
            "{} is held by process {pid}: a consolidation is running; try again when it finishes",
            path.display()
        ),
    )
}

fn held(path: &Path) -> Error {
    let who =
        read_pid(path).map_or_else(|| "another process".to_owned(), |p| format!("process {p}"));
    Error::new(
        ErrorCode::Locked,
        format!(
            "{} is held by {who}: a consolidation is running; try again when it finishes",
            path.display()
        ),
    )
}

/// Claude Code's lock, inside its memory folder: the body is the holder's PID, the mtime is
/// Claude Code's "last consolidated" time, and the file stays after a consolidation.
pub const CLAUDE_LOCK_FILE: &str = ".consolidate-lock";

/// The consolidation lock of a workspace, whichever tool's convention it follows:
/// Mnemo's and Qwen Code's `consolidation.lock` in the lock dir (deleted on
/// release), or Claude Code's `.consolidate-lock` in the memory folder (kept; see
/// [`WorkspaceLock::succeeded`]).
#[must_use]
pub fn lock_path(ws: &Workspace) -> PathBuf {
    if ws.kind == WorkspaceKind::Claude {
        ws.memory_root.join(CLAUDE_LOCK_FILE)
    } else {
        own_lock_dir(ws).join(LOCK_FILE)
    }
}

/// A Qwen Code team memory: its folder (and `.qwen`) come with a repository, so anyone who can
/// commit to it controls what lies there.
fn is_team_layer(ws: &Workspace) -> bool {
    ws.id.starts_with(crate::workspace::QWEN_TEAM_PREFIX)
}

/// Where Mnemo takes a workspace's lock: the lock dir, except for a layer a repository controls,
/// whose lock is Mnemo's own under `$MNEMO_HOME` (the workspace's state dir).
fn own_lock_dir(ws: &Workspace) -> PathBuf {
    if is_team_layer(ws) {
        ws.state_dir.clone()
    } else {
        ws.lock_dir.clone()
    }
}

/// A held workspace lock. Dropping it releases the lock on every path: a Mnemo/Qwen lock file is
/// removed; Claude Code's is kept with an empty body (its mtime now the last consolidation) after
/// [`WorkspaceLock::succeeded`], and otherwise rolled back to how it was (removed if it did not
/// exist, else its old mtime put back), as Claude Code does after a failed consolidation.
#[derive(Debug)]
pub struct WorkspaceLock {
    inner: Inner,
    ok: bool,
}

#[derive(Debug)]
enum Inner {
    Pid(LockGuard),
    Claude {
        path: PathBuf,
        pid: u32,
        prior: Option<SystemTime>,
    },
}

impl WorkspaceLock {
    /// The run succeeded: a Claude Code lock keeps its new mtime.
    pub fn succeeded(&mut self) {
        self.ok = true;
    }

    /// The lock file.
    #[must_use]
    pub fn path(&self) -> &Path {
        match &self.inner {
            Inner::Pid(g) => g.path(),
            Inner::Claude { path, .. } => path,
        }
    }
}

impl Drop for WorkspaceLock {
    fn drop(&mut self) {
        let Inner::Claude { path, pid, prior } = &self.inner else {
            return; // the PID guard releases itself
        };
        if read_pid(path) != Some(*pid) {
            return; // someone reclaimed it: theirs now
        }
        let done = match (self.ok, prior) {
            (true, _) => write_nofollow(path, b""),
            (false, None) => fs::remove_file(path),
            (false, Some(t)) => write_nofollow(path, b"").and_then(|()| {
                open_nofollow(path, fs::OpenOptions::new().write(true))
                    .and_then(|f| f.set_modified(*t))
            }),
        };
        if let Err(e) = done {
            tracing::warn!("could not release {}: {e}", path.display());
        }
    }
}

/// Take a workspace's consolidation lock for this process (`locked` naming the holder when a
/// live process has it; stale or corrupt locks are reclaimed with a warning).
pub fn acquire_workspace(ws: &Workspace) -> Result<WorkspaceLock> {
    if ws.kind != WorkspaceKind::Claude {
        if is_team_layer(ws) {
            // Qwen Code's own lock in the repository: respected, only ever read.
            if let Some(Holder::Pid(pid)) = holder(&ws.lock_dir) {
                return Err(held_by(&ws.lock_dir.join(LOCK_FILE), pid));
            }
        }
        return Ok(WorkspaceLock {
            inner: Inner::Pid(acquire(&own_lock_dir(ws))?),
            ok: false,
        });
    }
    let path = lock_path(ws);
    let pid = std::process::id();
    // Mnemo processes take turns at the check-then-write below; Claude Code itself writes and
    // re-reads, and the re-read settles a race with it.
    let _turn = crate::fsutil::lock_file(&ws.state_dir.join(".consolidate-turn.lock"))?;
    if fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
        return Err(Error::new(
            ErrorCode::PathEscape,
            format!(
                "{} is not a plain file (a link or a folder): Mnemo never writes through it. \
                 Remove it and run the dream again",
                path.display()
            ),
        ));
    }
    let prior = modified(&path);
    if claude_holder(&path).is_some() {
        return Err(held(&path));
    }
    if prior.is_some() && read_pid(&path).is_some() {
        tracing::warn!(
            "reclaimed {} (its holder is gone or it is over an hour old)",
            path.display()
        );
    }
    write_nofollow(&path, pid.to_string().as_bytes())
        .map_err(|e| Error::io(format!("writing {}", path.display()), &e))?;
    if read_pid(&path) != Some(pid) {
        return Err(held(&path));
    }
    Ok(WorkspaceLock {
        inner: Inner::Claude { path, pid, prior },
        ok: false,
    })
}

/// Claude Code's rule: held while its body is a live PID and it is under an hour old.
fn claude_holder(path: &Path) -> Option<Holder> {
    let age = modified(path).and_then(|t| SystemTime::now().duration_since(t).ok())?;
    let pid = read_pid(path)?;
    (age <= STALE_AFTER && pid_alive(pid)).then_some(Holder::Pid(pid))
}

/// Who holds a workspace's lock, if anyone (stale locks count as free).
#[must_use]
pub fn holder_for(ws: &Workspace) -> Option<Holder> {
    if ws.kind == WorkspaceKind::Claude {
        claude_holder(&lock_path(ws))
    } else if is_team_layer(ws) {
        holder(&ws.state_dir).or_else(|| holder(&ws.lock_dir))
    } else {
        holder(&ws.lock_dir)
    }
}

/// When Claude Code (or Mnemo on its behalf) last consolidated a Claude Code folder: the mtime
/// of its lock file when no one holds it. `None` for other kinds or a folder never consolidated.
#[must_use]
pub fn last_consolidated(ws: &Workspace) -> Option<SystemTime> {
    if ws.kind != WorkspaceKind::Claude {
        return None;
    }
    let path = lock_path(ws);
    if claude_holder(&path).is_some() {
        return None;
    }
    modified(&path)
}

/// Who holds the lock in `dir`, if anyone (stale locks count as free).
#[must_use]
pub fn holder(dir: &Path) -> Option<Holder> {
    let path = dir.join(LOCK_FILE);
    if fs::symlink_metadata(&path).is_err() || stale_reason(&path).is_some() {
        return None;
    }
    read_pid(&path).map(Holder::Pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acquire_release_and_reacquire() {
        let d = tempfile::tempdir().unwrap();
        let g = acquire(d.path()).unwrap();
        assert_eq!(read_pid(g.path()), Some(std::process::id()));
        drop(g);
        assert!(!d.path().join(LOCK_FILE).exists());
        let _g2 = acquire(d.path()).unwrap();
    }

    #[test]
    fn a_live_holder_is_respected() {
        let d = tempfile::tempdir().unwrap();
        let _g = acquire(d.path()).unwrap();
        // Our own PID is alive: a second attempt is refused.
        let err = acquire(d.path()).unwrap_err();
        assert_eq!(err.code, ErrorCode::Locked);
        assert!(err.message.contains(&std::process::id().to_string()));
    }

    #[test]
    fn guard_does_not_remove_a_lock_it_no_longer_owns() {
        let d = tempfile::tempdir().unwrap();
        let g = acquire(d.path()).unwrap();
        fs::write(d.path().join(LOCK_FILE), "1").unwrap();
        drop(g);
        assert_eq!(read_pid(&d.path().join(LOCK_FILE)), Some(1));
    }

    #[test]
    fn corrupt_old_lock_is_reclaimed_but_fresh_corrupt_is_respected() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join(LOCK_FILE);
        fs::write(&p, "garbage").unwrap();
        assert_eq!(acquire(d.path()).unwrap_err().code, ErrorCode::Locked);
        let old = SystemTime::now() - Duration::from_secs(30);
        fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let g = acquire(d.path()).unwrap();
        assert_eq!(read_pid(g.path()), Some(std::process::id()));
    }

    #[test]
    fn lock_older_than_an_hour_is_reclaimed_even_if_pid_lives() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join(LOCK_FILE);
        fs::write(&p, "1").unwrap(); // PID 1 is always alive
        assert_eq!(acquire(d.path()).unwrap_err().code, ErrorCode::Locked);
        let old = SystemTime::now() - STALE_AFTER - Duration::from_secs(5);
        fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert!(acquire(d.path()).is_ok());
    }

    fn ws(d: &Path, kind: WorkspaceKind) -> Workspace {
        Workspace {
            id: "w".into(),
            kind,
            label: "w".into(),
            origin: "w".into(),
            memory_root: d.join("memory"),
            state_dir: d.join("state"),
            lock_dir: d.join("lockdir"),
            shared: None,
        }
    }

    fn mtime(p: &Path) -> SystemTime {
        fs::metadata(p).unwrap().modified().unwrap()
    }

    #[test]
    fn claude_lock_is_kept_after_success_and_rolled_back_after_failure() {
        let d = tempfile::tempdir().unwrap();
        let w = ws(d.path(), WorkspaceKind::Claude);
        fs::create_dir_all(&w.memory_root).unwrap();
        let p = lock_path(&w);
        assert_eq!(p, w.memory_root.join(CLAUDE_LOCK_FILE));
        // Never consolidated; a failed run leaves no file.
        let l = acquire_workspace(&w).unwrap();
        assert_eq!(read_pid(&p), Some(std::process::id()));
        assert_eq!(holder_for(&w), Some(Holder::Pid(std::process::id())));
        assert_eq!(acquire_workspace(&w).unwrap_err().code, ErrorCode::Locked);
        drop(l);
        assert!(!p.exists());
        assert_eq!(last_consolidated(&w), None);
        // Consolidated long ago (body: a dead holder): success leaves it, empty, with a new mtime.
        fs::write(&p, "999999999").unwrap();
        let old = SystemTime::now() - Duration::from_secs(3 * 24 * 3600);
        fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let mut l = acquire_workspace(&w).unwrap();
        l.succeeded();
        drop(l);
        assert_eq!(fs::read(&p).unwrap(), b"");
        assert!(mtime(&p) > old + Duration::from_secs(3600));
        assert!(last_consolidated(&w).is_some());
        assert_eq!(holder_for(&w), None);
        // A failed run puts the previous "last consolidated" time back.
        fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let l = acquire_workspace(&w).unwrap();
        drop(l);
        assert_eq!(mtime(&p), old);
        assert_eq!(fs::read(&p).unwrap(), b"");
    }

    #[test]
    fn a_panic_while_holding_a_workspace_lock_releases_it() {
        let d = tempfile::tempdir().unwrap();
        for kind in [
            WorkspaceKind::Mnemo,
            WorkspaceKind::Qwen,
            WorkspaceKind::Claude,
        ] {
            let w = ws(d.path(), kind);
            fs::create_dir_all(&w.memory_root).unwrap();
            let w2 = w.clone();
            let r = std::panic::catch_unwind(move || {
                let _l = acquire_workspace(&w2).unwrap();
                panic!("boom");
            });
            assert!(r.is_err());
            assert_eq!(holder_for(&w), None, "{kind:?}");
            assert!(acquire_workspace(&w).is_ok(), "{kind:?}");
        }
        assert_eq!(
            lock_path(&ws(d.path(), WorkspaceKind::Qwen)),
            d.path().join("lockdir").join(LOCK_FILE)
        );
    }
}
