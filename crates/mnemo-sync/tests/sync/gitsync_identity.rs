//! A project's memory is carried under its repository's identity — its URL and its
//! first commit. Two unrelated repositories given one URL never share; what was kept under the
//! old key (the URL alone) is adopted by the first sync after the change, nothing lost, resent
//! or brought back.

use std::path::{Path, PathBuf};

use super::gitsync::{Side, encoded, files_under, git, two};
use super::gitsync_edges::project;
use super::topic;

/// A repository of its own (its own first commit) at `t/<dir>`, its `origin` set to `url`.
fn repo_with_url(t: &Path, dir: &str, url: &str) -> PathBuf {
    let p = t.join(dir);
    std::fs::create_dir_all(&p).unwrap();
    git(&p, &["init", "-q"]);
    std::fs::write(p.join("README"), format!("{dir}\n")).unwrap();
    git(&p, &["add", "README"]);
    git(&p, &["commit", "-q", "-m", dir]);
    git(&p, &["remote", "add", "origin", url]);
    p
}

fn claude_memory(side: &Side, checkout: &Path) -> PathBuf {
    side.dir
        .join("claude/projects")
        .join(encoded(checkout))
        .join("memory")
}

fn names(dir: &Path) -> Vec<String> {
    files_under(dir).into_keys().collect()
}

#[test]
fn two_unrelated_repositories_with_one_url_never_share_a_memory() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    let url = "git@example.com:me/scratch.git";
    let ra = repo_with_url(t.path(), "ana-code/scratch", url);
    let rb = repo_with_url(t.path(), "ben-code/scratch", url);
    let (ma, mb) = (claude_memory(&a, &ra), claude_memory(&b, &rb));
    for d in [&ma, &mb] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(
        ma.join("a.md"),
        topic("A", "a", "project", "Ana's project."),
    )
    .unwrap();
    std::fs::write(
        mb.join("b.md"),
        topic("B", "b", "project", "Ben's project."),
    )
    .unwrap();
    for _ in 0..2 {
        a.sync();
        b.sync();
    }
    assert_eq!(
        names(&ma),
        ["a.md"],
        "Ana's memory holds only her project's"
    );
    assert_eq!(
        names(&mb),
        ["b.md"],
        "Ben's memory holds only his project's"
    );
}

/// Rename a key on the remote (as a Mnemo from before the change kept it) and in a home's
/// state; returns the new commit.
fn as_before_the_change(t: &Path, remote: &Path, new_key: &str, old_key: &str) -> String {
    let work = t.join("rewrite");
    git(
        t,
        &[
            "clone",
            "-q",
            remote.to_str().unwrap(),
            work.to_str().unwrap(),
        ],
    );
    std::fs::create_dir_all(work.join(old_key).parent().unwrap()).unwrap();
    git(&work, &["mv", new_key, old_key]);
    git(&work, &["commit", "-q", "-m", "as an older Mnemo kept it"]);
    git(&work, &["push", "-q", "origin", "HEAD:main"]);
    git(&work, &["rev-parse", "HEAD"]).trim().to_owned()
}

/// A home's sync history as an older Mnemo left it: its own repository at the remote's commit.
fn local_history_at_remote(side: &Side) {
    let mut stack = vec![side.dir.join("home/sync")];
    while let Some(d) = stack.pop() {
        if d.join("HEAD").is_file() && d.join("objects").is_dir() {
            git(
                &d,
                &["fetch", "-q", "origin", "+refs/heads/main:refs/heads/main"],
            );
            git(
                &d,
                &[
                    "fetch",
                    "-q",
                    "origin",
                    "+refs/heads/*:refs/remotes/origin/*",
                ],
            );
            return;
        }
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            }
        }
    }
    panic!("no sync repository under {}", side.dir.display());
}

fn rename_state_key(side: &Side, new_key: &str, old_key: &str, base: &str) {
    local_history_at_remote(side);
    let p = side.dir.join("home/sync/state.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    let keys = v["keys"].as_object_mut().unwrap();
    let mut ks = keys.remove(new_key).unwrap();
    ks["base"] = serde_json::Value::String(base.to_owned());
    keys.insert(old_key.to_owned(), ks);
    std::fs::write(&p, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}

#[test]
fn what_was_kept_under_the_url_alone_is_adopted_nothing_lost_or_brought_back() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, remote) = two(t.path());
    let m = project(t.path(), &[&a, &b]);
    for d in &m {
        std::fs::create_dir_all(d).unwrap();
    }
    for n in ["x", "y", "z"] {
        std::fs::write(
            m[0].join(format!("{n}.md")),
            topic(n, n, "project", &format!("Fact {n}.")),
        )
        .unwrap();
    }
    a.sync();
    b.sync();
    assert_eq!(names(&m[1]), ["x.md", "y.md", "z.md"]);
    // The key today, and the one an older Mnemo used (the URL alone).
    let checkout = t.path().join("clone-0/code/webapp");
    let id = mnemo_store::repo::identity(&checkout).unwrap();
    let old_id = mnemo_store::repo::legacy_identity(&checkout).unwrap();
    assert!(id.starts_with(&format!("{old_id}@")), "{id} / {old_id}");
    let new_key = format!("project/{}/claude", mnemo_sync::layout::slug(&id));
    let old_key = format!("project/{}/claude", mnemo_sync::layout::slug(&old_id));
    let at = as_before_the_change(t.path(), &remote, &new_key, &old_key);
    rename_state_key(&a, &new_key, &old_key, &at);
    rename_state_key(&b, &new_key, &old_key, &at);
    // Meanwhile: Ben deletes y, Ana edits x and adds w.
    std::fs::remove_file(m[1].join("y.md")).unwrap();
    std::fs::write(
        m[0].join("x.md"),
        topic("x", "x", "project", "Fact x, edited."),
    )
    .unwrap();
    std::fs::write(m[0].join("w.md"), topic("w", "w", "project", "Fact w.")).unwrap();
    let r = a.sync();
    let removed: u32 = r.workspaces.iter().map(|x| x.sent.removed).sum();
    assert_eq!(removed, 0, "adopting deletes nothing: {r:?}");
    b.sync();
    a.sync();
    for (who, dir) in [("Ana", &m[0]), ("Ben", &m[1])] {
        assert_eq!(
            names(dir),
            ["w.md", "x.md", "z.md"],
            "{who}: Ben's deletion holds, Ana's new file arrived"
        );
        assert!(files_under(dir)["x.md"].contains("edited"), "{who}");
    }
    // The remote now carries the project under its new key; the old one is left as it was.
    let tree = git(&remote, &["ls-tree", "-r", "--name-only", "main"]);
    assert!(tree.contains(&format!("{new_key}/memory/w.md")), "{tree}");
    assert!(!tree.contains(&format!("{old_key}/memory/w.md")), "{tree}");
}
