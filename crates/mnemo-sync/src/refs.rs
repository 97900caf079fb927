//! Refs as git keeps them on disk, read without running git: an idle sync (see `quiet`) compares
//! branches by reading files, not by starting a process.

use std::collections::BTreeMap;
use std::path::Path;
/// The refs under `refs/<under>/` of the repository at `gitdir` (name below it → commit), read
/// from its files as git keeps them — loose files first, then `packed-refs` — without running
/// git. `None` when a ref is not plainly a commit id (a symbolic ref, one being written).
pub(super) fn read_refs(gitdir: &Path, under: &str) -> Option<BTreeMap<String, String>> {
    let is_id =
        |s: &str| (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit());
    let mut refs = BTreeMap::new();
    let top = gitdir.join("refs").join(under);
    let mut stack = vec![(top, String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return None,
        };
        for e in rd {
            let e = e.ok()?;
            let name = e.file_name().to_str()?.to_owned();
            let full = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            let ft = e.file_type().ok()?;
            if ft.is_dir() {
                stack.push((e.path(), full));
            } else if name.ends_with(".lock") {
                // Being written right now.
                return None;
            } else if full == "HEAD" && under.starts_with("remotes/") {
                refs.insert(full, String::new());
            } else {
                let text = std::fs::read_to_string(e.path()).ok()?;
                let id = text.trim();
                if !is_id(id) {
                    return None;
                }
                refs.insert(full, id.to_owned());
            }
        }
    }
    let packed = match std::fs::read_to_string(gitdir.join("packed-refs")) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(_) => return None,
    };
    let prefix = format!("refs/{under}/");
    for line in packed.lines() {
        if line.starts_with('#') || line.starts_with('^') {
            continue;
        }
        let (id, name) = line.split_once(' ')?;
        if let Some(name) = name.strip_prefix(&prefix)
            && is_id(id)
        {
            refs.entry(name.to_owned()).or_insert_with(|| id.to_owned());
        }
    }
    Some(refs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    #[test]
    fn loose_and_packed_refs_read_as_git_shows_them() {
        let d = tempfile::tempdir().unwrap();
        let w = d.path();
        git(w, &["init", "-q", "-b", "main"]);
        git(w, &["commit", "-q", "--allow-empty", "-m", "one"]);
        git(w, &["branch", "side"]);
        git(w, &["commit", "-q", "--allow-empty", "-m", "two"]);
        git(w, &["branch", "deep/er"]);
        let shown = |w: &Path| -> BTreeMap<String, String> {
            git(
                w,
                &[
                    "for-each-ref",
                    "--format=%(refname:strip=2) %(objectname)",
                    "refs/heads/",
                ],
            )
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(n, i)| (n.to_owned(), i.to_owned()))
            .collect()
        };
        let gitdir = w.join(".git");
        assert_eq!(read_refs(&gitdir, "heads").unwrap(), shown(w));
        assert_eq!(shown(w).len(), 3);
        // Packed, then one branch moved on as a loose file over its packed line.
        git(w, &["pack-refs", "--all"]);
        assert_eq!(read_refs(&gitdir, "heads").unwrap(), shown(w));
        git(w, &["commit", "-q", "--allow-empty", "-m", "three"]);
        assert_eq!(read_refs(&gitdir, "heads").unwrap(), shown(w));
        // A ref being written, or not plainly a commit: not known.
        std::fs::write(gitdir.join("refs/heads/main.lock"), "x").unwrap();
        assert_eq!(read_refs(&gitdir, "heads"), None);
        std::fs::remove_file(gitdir.join("refs/heads/main.lock")).unwrap();
        std::fs::write(gitdir.join("refs/heads/odd"), "ref: refs/heads/main\n").unwrap();
        assert_eq!(read_refs(&gitdir, "heads"), None);
        // Nothing there: no branches.
        assert_eq!(
            read_refs(&d.path().join("none"), "heads").unwrap(),
            BTreeMap::new()
        );
    }
}
