//! Repository identity with the real `git`: two clones of one remote at different
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

/// Identity was once the URL alone, so two unrelated repositories given the same `origin`
/// (a scratch URL reused, a template re-initialised) shared one memory across homes. Now the
/// first commit is part of it; a fork (another URL, the same first commit) shares only when the
/// person says so with `git config mnemo.shareWith <URL>`.
#[test]
fn unrelated_repositories_with_one_url_are_two_projects_and_a_fork_shares_only_when_asked() {
    let t = tempfile::tempdir().unwrap();
    let make = |name: &str, text: &str| {
        let d = t.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        git(&d, &["init", "-q"]);
        std::fs::write(d.join("README"), text).unwrap();
        git(&d, &["add", "README"]);
        git(&d, &["commit", "-q", "-m", text]);
        d
    };
    let one = make("one", "first project\n");
    let two = make("two", "an unrelated project\n");
    for d in [&one, &two] {
        git(
            d,
            &["remote", "add", "origin", "git@example.com:me/scratch.git"],
        );
    }
    let (a, b) = (identity(&one).unwrap(), identity(&two).unwrap());
    assert_ne!(a, b, "same URL, unrelated histories");
    assert!(a.starts_with("remote:example.com/me/scratch@"), "{a}");
    // What Mnemo called them before: the URL alone (a sync adopts what was kept under it).
    assert_eq!(
        mnemo_store::repo::legacy_identity(&one).as_deref(),
        Some("remote:example.com/me/scratch")
    );
    // A fork: the same first commit under another URL is another project…
    let fork = t.path().join("fork");
    git(
        t.path(),
        &["clone", "-q", one.to_str().unwrap(), fork.to_str().unwrap()],
    );
    git(
        &fork,
        &[
            "remote",
            "set-url",
            "origin",
            "https://example.com/someone-else/scratch",
        ],
    );
    let f = identity(&fork).unwrap();
    assert_ne!(f, a);
    // …until the person says it shares the upstream's memory.
    git(
        &fork,
        &[
            "config",
            "mnemo.shareWith",
            "https://example.com/me/scratch.git",
        ],
    );
    assert_eq!(identity(&fork).unwrap(), a);
    // A remote added later is seen at once (nothing stale is kept in the process).
    let three = make("three", "no remote yet\n");
    assert!(identity(&three).unwrap().starts_with("root:"));
    git(
        &three,
        &["remote", "add", "origin", "https://example.com/me/three"],
    );
    assert!(
        identity(&three)
            .unwrap()
            .starts_with("remote:example.com/me/three@")
    );
}
