//! Folder snapshots for tests that prove a tree outside Mnemo's roots is left alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every entry under `dir` (links not followed), by path relative to it: a file's bytes, a
/// link's target (`link -> …`), or `folder` for a folder. Equal before and after means nothing
/// in it was written, created, removed or re-aimed.
///
/// # Panics
/// On an unreadable entry (a test's own tree).
#[must_use]
pub fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            let ft = e.file_type().expect("file type");
            let rel = p.strip_prefix(dir).expect("under dir").to_path_buf();
            if ft.is_symlink() {
                let t = std::fs::read_link(&p).expect("link");
                out.insert(rel, format!("link -> {}", t.display()).into_bytes());
            } else if ft.is_dir() {
                out.insert(rel, b"folder".to_vec());
                stack.push(p);
            } else {
                out.insert(rel, std::fs::read(&p).expect("read"));
            }
        }
    }
    out
}

/// Copy the folder `from` to `to` (created), files and sub-folders.
///
/// # Panics
/// On any IO error (a test's own tree).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir").flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_dir(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).expect("copy");
        }
    }
}
