//! Chat transcripts other tools keep (`<session>.jsonl`: Claude Code's beside a project's memory
//! folder, Qwen Code's under `~/.qwen`) and Mnemo's own sessions, read for a dream.
//! They are other programs' files: only regular files are read — opened `O_NOFOLLOW |
//! O_NONBLOCK`, so a link is never followed and a FIFO or a device never blocks the reader —,
//! and each read is bounded. A link, FIFO or device is skipped with the reason, for the caller
//! to say.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rustix::fs::{Mode, OFlags};

/// One `*.jsonl` in a transcript folder, as listed (not followed).
#[derive(Debug, Clone)]
pub struct Listed {
    /// Its path.
    pub path: PathBuf,
    /// When it last changed (of the name itself: a link's own time).
    pub modified: SystemTime,
    /// A regular file (not a link, FIFO, device or folder) when listed.
    pub regular: bool,
}

/// The `*.jsonl` names in `dir`, nothing followed; none when it cannot be read.
#[must_use]
pub fn list(dir: &Path) -> Vec<Listed> {
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .filter_map(|e| {
            // `DirEntry::metadata` does not follow a link: the name's own.
            let meta = e.metadata().ok()?;
            Some(Listed {
                path: e.path(),
                modified: meta.modified().ok()?,
                regular: meta.file_type().is_file(),
            })
        })
        .collect()
}

/// What reading one transcript gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// Its first bytes, at most the cap; `cut` when there was more.
    Text {
        /// The bytes read.
        bytes: Vec<u8>,
        /// It holds more than the cap.
        cut: bool,
    },
    /// Not read, and why (a sentence ending without a full stop).
    Skipped(String),
}

/// Read at most `cap` bytes of the transcript at `path`: a regular file only, opened without
/// following a link at its name and without waiting on a FIFO or a device.
#[must_use]
pub fn read(path: &Path, cap: u64) -> Reading {
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    let file = match rustix::fs::open(path, flags, Mode::empty()) {
        Ok(fd) => fs::File::from(fd),
        // `O_NOFOLLOW` on a link at the name.
        Err(rustix::io::Errno::LOOP | rustix::io::Errno::MLINK) => {
            return Reading::Skipped("it is a symbolic link: only regular files are read".into());
        }
        Err(e) => return Reading::Skipped(format!("it could not be opened ({e})")),
    };
    let kind = match file.metadata() {
        Ok(m) => m.file_type(),
        Err(e) => return Reading::Skipped(format!("it could not be read ({e})")),
    };
    if !kind.is_file() {
        return Reading::Skipped(format!(
            "it is {}: only regular files are read",
            what(&kind)
        ));
    }
    let mut bytes = Vec::new();
    if let Err(e) = (&file).take(cap.saturating_add(1)).read_to_end(&mut bytes) {
        return Reading::Skipped(format!("it could not be read ({e})"));
    }
    let cut = bytes.len() as u64 > cap;
    bytes.truncate(usize::try_from(cap).unwrap_or(usize::MAX));
    Reading::Text { bytes, cut }
}

/// "a FIFO", "a device", "a folder"… for a file type that is not a regular file.
fn what(kind: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO (a named pipe)"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_dir() {
        "a folder"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_to_the_cap_and_the_rest_skipped() {
        let d = tempfile::tempdir().unwrap();
        let outside = d.path().join("outside.txt");
        std::fs::write(&outside, "secret plans\n").unwrap();
        let dir = d.path().join("chats");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("a.jsonl"), "0123456789").unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("b.jsonl")).unwrap();
        let fifo = dir.join("c.jsonl");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        assert_eq!(
            read(&dir.join("a.jsonl"), 4),
            Reading::Text {
                bytes: b"0123".to_vec(),
                cut: true
            }
        );
        assert_eq!(
            read(&dir.join("a.jsonl"), 10),
            Reading::Text {
                bytes: b"0123456789".to_vec(),
                cut: false
            }
        );
        assert!(
            matches!(read(&dir.join("b.jsonl"), 100), Reading::Skipped(w) if w.contains("symbolic link"))
        );
        assert!(matches!(read(&fifo, 100), Reading::Skipped(w) if w.contains("FIFO")));
        let mut listed = list(&dir);
        listed.sort_by(|a, b| a.path.cmp(&b.path));
        let regular: Vec<bool> = listed.iter().map(|l| l.regular).collect();
        assert_eq!(regular, [true, false, false]);
    }
}
