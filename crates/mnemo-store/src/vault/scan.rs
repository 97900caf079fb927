//! Listing a memory folder's documents with their stats — the first step of every sync, so a
//! one-shot command at 100,000 files spends most of its time here. Each folder is read once
//! and each entry stat-ed relative to its folder (no full path walk per file); the top-level
//! folders are shared out across cores. Hidden entries (`.git`, `.mnemo`, editors' swap files)
//! are skipped; symlinked folders are not followed; a symlinked file counts only when it
//! resolves inside the root.

use std::fs;

use crate::doc;
use crate::rootdir::{Folder, RootDir};

/// Every document under `root` (paths relative to it, `/`-separated) with its metadata — read
/// through the root's handle: a folder swapped meanwhile is never listed through.
pub(crate) fn walk(root: &RootDir) -> Vec<(String, fs::Metadata)> {
    let mut out = Vec::new();
    let mut dirs: Vec<(Folder, String)> = Vec::new();
    visit(root, root.folder(), "", &mut out, &mut Some(&mut dirs));
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(dirs.len());
    if threads < 2 {
        for (dir, rel) in dirs {
            visit(root, &dir, &rel, &mut out, &mut None);
        }
        return out;
    }
    let mut shares: Vec<Vec<(Folder, String)>> = vec![Vec::new(); threads];
    for (i, d) in dirs.into_iter().enumerate() {
        shares[i % threads].push(d);
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = shares
            .into_iter()
            .map(|share| {
                s.spawn(move || {
                    let mut found = Vec::new();
                    for (dir, rel) in share {
                        visit(root, &dir, &rel, &mut found, &mut None);
                    }
                    found
                })
            })
            .collect();
        for h in handles {
            out.extend(h.join().unwrap_or_default());
        }
    });
    out
}

/// Remove every `.mnemo-tmp-…` file beneath `top` (see `RootDir::sweep_temps`).
pub(crate) fn sweep_temps(top: &Folder) -> usize {
    let mut gone = 0;
    let mut stack = vec![top.clone()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = folder.read_dir() else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() && !name.starts_with('.') {
                if let Ok(Some(sub)) = folder.subfolder(&name) {
                    stack.push(sub);
                }
            } else if kind.is_file()
                && name.starts_with(crate::fsutil::TEMP_PREFIX)
                && folder.unlink(&name).is_ok()
            {
                gone += 1;
            }
        }
    }
    gone
}

/// [`walk`] of the folder at `path`: nothing when it does not exist or cannot be held.
#[cfg(test)]
pub(super) fn walk_path(path: &std::path::Path) -> Vec<(String, fs::Metadata)> {
    RootDir::open(path).map(|r| walk(&r)).unwrap_or_default()
}

/// Read one folder. Sub-folders go to `defer` when given (the top level), else are read now.
fn visit(
    root: &RootDir,
    dir: &Folder,
    rel: &str,
    out: &mut Vec<(String, fs::Metadata)>,
    defer: &mut Option<&mut Vec<(Folder, String)>>,
) {
    let Ok(entries) = dir.read_dir() else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let child = if rel.is_empty() {
            name.to_owned()
        } else {
            format!("{rel}/{name}")
        };
        let Ok(ft) = entry.file_type() else {
            continue;
        };
        if ft.is_dir() {
            // Opened beneath this folder, never through a link.
            let Ok(Some(sub)) = dir.subfolder(name) else {
                continue;
            };
            match defer {
                Some(d) => d.push((sub, child)),
                None => visit(root, &sub, &child, out, &mut None),
            }
            continue;
        }
        if doc::doc_kind(&child).is_none() {
            if child.ends_with(".md") && crate::secrets::name_holds_secret(&child) {
                // Never the name itself: it is the secret.
                tracing::warn!(
                    folder = %if rel.is_empty() { "." } else { rel },
                    "a file whose name looks like a secret is left out of Mnemo: rename it"
                );
            }
            continue;
        }
        let meta = if ft.is_symlink() {
            // Followed only while it stays beneath the root (the kernel refuses the rest).
            match root.metadata(&child) {
                Ok(Some(m)) if m.is_file() => m,
                _ => continue,
            }
        } else if ft.is_file() {
            // A file deleted between listing and stat is simply not there.
            match entry.metadata() {
                Ok(m) => m,
                Err(_) => continue,
            }
        } else {
            continue;
        };
        out.push((child, meta));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_documents_in_every_folder_and_skips_hidden_and_escaping_links() {
        let d = tempfile::tempdir().expect("tmp");
        let root = d.path().join("memory");
        for f in [
            "top.md",
            "user/a.md",
            "user/deep/b.md",
            "project/c.md",
            "feedback/x/y/z.md",
            "logs/2026/01/2026-01-02.md",
            ".hidden/h.md",
            "user/.swap.md",
            "notes.txt",
        ] {
            let p = root.join(f);
            fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            fs::write(&p, "x").expect("write");
        }
        let outside = d.path().join("outside.md");
        fs::write(&outside, "secret").expect("write");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&outside, root.join("user/escape.md")).expect("link");
            // A relative link that stays inside is followed; an absolute one is not, even to a
            // file inside (it names a place by path, which a swapped folder redirects).
            std::os::unix::fs::symlink("../top.md", root.join("user/inside.md")).expect("link");
            std::os::unix::fs::symlink(root.join("top.md"), root.join("user/absolute.md"))
                .expect("link");
            std::os::unix::fs::symlink(d.path(), root.join("linked-dir")).expect("link");
        }
        let mut found: Vec<String> = walk_path(&root).into_iter().map(|(p, _)| p).collect();
        found.sort();
        let mut want = vec![
            "feedback/x/y/z.md",
            "logs/2026/01/2026-01-02.md",
            "project/c.md",
            "top.md",
            "user/a.md",
            "user/deep/b.md",
        ];
        if cfg!(unix) {
            want.push("user/inside.md");
            want.sort_unstable();
        }
        assert_eq!(found, want);
    }

    #[test]
    fn a_missing_root_lists_nothing() {
        let d = tempfile::tempdir().expect("tmp");
        assert!(walk_path(&d.path().join("nope")).is_empty());
    }
}
