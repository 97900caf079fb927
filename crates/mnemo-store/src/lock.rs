//! The consolidation lock (SPEC §4.3): `consolidation.lock` in a workspace's lock dir holds the
//! owner's PID. Taken atomically (create-exclusive, then re-read to confirm); a lock whose PID is
//! dead, whose content is unreadable, or that is older than an hour is reclaimed. The same file
//! name and format as Qwen Code, so the two tools never consolidate one folder at once.
//!
//! Invariant: a [`LockGuard`] releases the lock when dropped (every exit path), and only removes
//! the file if it still holds this process's PID.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use mnemo_core::{Error, ErrorCode, Result};

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

fn read_pid(path: &Path) -> Option<u32> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Why an existing lock may be taken over, or `None` if it must be respected.
fn stale_reason(path: &Path) -> Option<String> {
    let age = fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
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
    for _ in 0..3 {
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                f.write_all(pid.to_string().as_bytes())
                    .and_then(|()| f.sync_all())
                    .map_err(|e| Error::io(format!("writing {}", path.display()), &e))?;
                drop(f);
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
            Err(e) => return Err(Error::io(format!("creating {}", path.display()), &e)),
        }
    }
    Err(held(&path))
}

/// Move a stale lock out of the way without clobbering a fresh one that replaced it meanwhile.
fn reclaim(path: &Path, reason: &str) -> Result<()> {
    let before = fs::read(path).ok();
    let aside = path.with_extension(format!("lock.stale-{}", std::process::id()));
    match fs::rename(path, &aside) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(format!("reclaiming {}", path.display()), &e)),
    }
    if fs::read(&aside).ok() != before {
        // We moved a lock someone else took a moment ago: put it back (never over a newer one).
        let _ = fs::hard_link(&aside, path);
        let _ = fs::remove_file(&aside);
        return Err(held(path));
    }
    let _ = fs::remove_file(&aside);
    tracing::info!("reclaimed {} ({reason})", path.display());
    Ok(())
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

/// Who holds the lock in `dir`, if anyone (stale locks count as free).
#[must_use]
pub fn holder(dir: &Path) -> Option<Holder> {
    let path = dir.join(LOCK_FILE);
    if !path.exists() || stale_reason(&path).is_some() {
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
}
