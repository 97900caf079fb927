//! Repository identity with the real `git` (issue 22): two clones of one remote at different
//! paths are one project; a repository without a remote is its first commit; a folder outside
//! any repository has none.

use std::path::Path;
use std::process::Command;

use mnemo_store::repo::identity;

fn git(dir: &Path, args: &[&str]) {
    let st = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        st.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&st.stderr)
    );
}

#[test]
fn two_clones_at_different_paths_are_one_project() {
    let t = tempfile::tempdir().unwrap();
    let seed = t.path().join("seed");
    std::fs::create_dir_all(&seed).unwrap();
    git(&seed, &["init", "-q"]);
    std::fs::write(seed.join("README"), "hello\n").unwrap();
    git(&seed, &["add", "README"]);
    git(&seed, &["commit", "-q", "-m", "first"]);
    let bare = t.path().join("remote.git");
    git(
        t.path(),
        &[
            "clone",
            "-q",
            "--bare",
            seed.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    let a = t.path().join("home/a/webapp");
    let b = t.path().join("Users/a/code/webapp");
    for dir in [&a, &b] {
        std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
        git(
            t.path(),
            &["clone", "-q", bare.to_str().unwrap(), dir.to_str().unwrap()],
        );
    }
    let (ia, ib) = (identity(&a).unwrap(), identity(&b).unwrap());
    assert_eq!(ia, ib);
    assert!(ia.starts_with("remote:file/"), "{ia}");
    // A sub-folder of a checkout is the same project.
    std::fs::create_dir_all(a.join("src")).unwrap();
    assert_eq!(identity(&a.join("src")).unwrap(), ia);
    // Without a remote: the first commit, the same in every copy.
    let root = identity(&seed).unwrap();
    assert!(root.starts_with("root:") && root.len() == 5 + 40, "{root}");
    git(&a, &["remote", "remove", "origin"]);
    assert_eq!(identity(&a).unwrap(), root);
    // Not a repository, or a repository without commits: no identity.
    let plain = t.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    assert_eq!(identity(&plain), None);
    let empty = t.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    git(&empty, &["init", "-q"]);
    assert_eq!(identity(&empty), None);
}
