//! What `mnemo sync` prints: what was sent and received on each side, which folders
//! share one project's memory, and a warning with the way back whenever a sync deletes more
//! than a few memories — for a second checkout of a project and for a deletion made on the
//! remote with plain git. The reports print (`--nocapture`) as a person sees them.

use super::sync_edges::git;
use super::{Env, topic, write};
use std::path::{Path, PathBuf};

fn bare(dir: &Path, name: &str) -> PathBuf {
    let r = dir.join(name);
    std::fs::create_dir_all(&r).unwrap();
    git(&r, &["init", "-q", "--bare", "--initial-branch", "main"]);
    r
}

fn setup(e: &Env, remote: &Path, name: &str) {
    for args in [
        vec!["sync", "remote", "set", remote.to_str().unwrap()],
        vec!["sync", "author", &format!("{name} <{name}@example.com>")],
    ] {
        let out = e.run(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `mnemo sync` on `e`, printed under `who`; its standard output.
fn sync(e: &Env, who: &str) -> String {
    let out = e.run(&["sync"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    println!("--- mnemo sync on {who}\n{text}");
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// Claude Code's memory folder of a checkout at `path` in home `e`.
fn claude_memory(e: &Env, path: &Path) -> PathBuf {
    let encoded: String = path
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    e.dir
        .path()
        .join("claude/projects")
        .join(encoded)
        .join("memory")
}

fn names(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md") && n != "MEMORY.md")
        .collect();
    out.sort();
    out
}

#[test]
fn a_second_checkout_is_reported_as_sharing_one_memory_and_deletes_nothing() {
    let (a, b) = (Env::new(), Env::new());
    let remote = bare(a.dir.path(), "remote.git");
    setup(&a, &remote, "ana");
    setup(&b, &remote, "ben");
    // One project, cloned on each machine.
    let origin = bare(a.dir.path(), "webapp.git");
    let seed = a.dir.path().join("seed");
    git(
        a.dir.path(),
        &[
            "clone",
            "-q",
            origin.to_str().unwrap(),
            seed.to_str().unwrap(),
        ],
    );
    std::fs::write(seed.join("README"), "webapp\n").unwrap();
    git(&seed, &["add", "README"]);
    git(&seed, &["commit", "-q", "-m", "first"]);
    git(&seed, &["push", "-q", "origin", "HEAD:main"]);
    let clone = |e: &Env| {
        let p = e.dir.path().join("code/webapp");
        git(
            e.dir.path(),
            &["clone", "-q", origin.to_str().unwrap(), p.to_str().unwrap()],
        );
        p
    };
    let (pa, pb) = (clone(&a), clone(&b));
    let (ma, mb) = (claude_memory(&a, &pa), claude_memory(&b, &pb));
    write(
        &ma.join("x.md"),
        &topic("X", "the build", "project", "Run make first."),
    );
    std::fs::create_dir_all(&mb).unwrap();
    sync(&a, "A");
    sync(&b, "B");
    // A worktree on A whose path sorts first, its Claude Code memory holding only its own file.
    let tree = a.dir.path().join("code/a-feature");
    git(&pa, &["worktree", "add", "-q", tree.to_str().unwrap()]);
    let mw = claude_memory(&a, &tree);
    write(
        &mw.join("w.md"),
        &topic("W", "the feature", "project", "The flag is BETA_UI."),
    );
    let out = sync(&a, "A, after the worktree's first memory");
    assert!(out.contains("shares one memory with claude:"), "{out}");
    assert!(out.contains("sent +1"), "{out}");
    assert!(!out.contains("warning"), "{out}");
    assert!(!out.contains("   "), "no padding inside sentences: {out}");
    let out = sync(&b, "B");
    assert!(out.contains("received +1"), "{out}");
    for dir in [&ma, &mw, &mb] {
        assert_eq!(names(dir), ["w.md", "x.md"], "{}", dir.display());
    }
}

#[test]
fn a_deletion_made_on_the_remote_is_reported_with_a_warning_and_the_way_back() {
    let (a, b) = (Env::new(), Env::new());
    let remote = bare(a.dir.path(), "remote.git");
    setup(&a, &remote, "ana");
    setup(&b, &remote, "ben");
    for n in ["one", "two", "three", "four"] {
        write(
            &a.personal().join(format!("{n}.md")),
            &topic(n, n, "user", &format!("Fact {n}.")),
        );
    }
    sync(&a, "A");
    sync(&b, "B");
    assert_eq!(names(&b.personal()).len(), 4);
    // A plain commit on the remote removes Mnemo's folder.
    let hand = a.dir.path().join("hand");
    git(
        a.dir.path(),
        &[
            "clone",
            "-q",
            remote.to_str().unwrap(),
            hand.to_str().unwrap(),
        ],
    );
    git(&hand, &["rm", "-q", "-r", "mnemo"]);
    git(&hand, &["commit", "-q", "-m", "clean up"]);
    git(&hand, &["push", "-q", "origin", "HEAD:main"]);
    let out = sync(&b, "B, after the remote's deletion");
    assert!(out.contains("received −4"), "{out}");
    assert!(
        out.contains("warning: this sync deleted 4 memories here"),
        "{out}"
    );
    let group = out
        .split("`mnemo undo --group ")
        .nth(1)
        .and_then(|s| s.split('`').next())
        .unwrap_or_else(|| panic!("the way back is named: {out}"))
        .to_owned();
    assert!(names(&b.personal()).is_empty());
    // The way back: undo the group here, and the next sync restores them everywhere.
    let undo = b.run(&["undo", "--group", &group]);
    assert!(undo.status.success());
    let out = sync(&b, "B, after undoing the sync's group");
    assert!(out.contains("sent +4"), "{out}");
    sync(&a, "A");
    assert_eq!(names(&a.personal()).len(), 4);
    // A deletion made here that reaches every machine is warned of too.
    for n in ["one", "two", "three"] {
        std::fs::remove_file(a.personal().join(format!("{n}.md"))).unwrap();
    }
    let out = sync(&a, "A, after deleting three memories");
    assert!(out.contains("sent −3"), "{out}");
    assert!(
        out.contains("warning: this sync deleted 3 memories on the remote"),
        "{out}"
    );
}
