//! Four ways a sync once lost memory, each with the real `git` and a bare remote — a
//! second checkout of a project (a `git worktree`) mapping to the same key, a file flagged here
//! and fixed later, a file another program holds open for appending, and Claude Code's own
//! `MEMORY.md`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use super::gitsync::{Side, encoded, files_under, git, two};
use super::gitsync_edges::project;
use super::topic;

/// The Claude Code memory folder of a checkout at `path` on home `side`.
fn claude_memory(side: &Side, path: &Path) -> PathBuf {
    side.dir
        .join("claude/projects")
        .join(encoded(path))
        .join("memory")
}

/// The checkout `project` made on home `i`.
fn checkout(t: &Path, i: usize) -> PathBuf {
    t.join(format!("clone-{i}/code/webapp"))
}

#[test]
fn a_second_checkout_of_a_project_merges_its_memory_and_deletes_nothing_anywhere() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    let m = project(t.path(), &[&a, &b]);
    for dir in &m {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(
        m[0].join("x.md"),
        topic("X", "the build", "project", "Run make first."),
    )
    .unwrap();
    a.sync();
    b.sync();
    assert!(m[1].join("x.md").exists());
    // On A: a worktree whose path sorts before the first checkout, and Claude Code's memory
    // there holds only its own new file.
    let worktree = t.path().join("clone-0/code/a-feature");
    git(
        &checkout(t.path(), 0),
        &["worktree", "add", "-q", worktree.to_str().unwrap()],
    );
    let w = claude_memory(&a, &worktree);
    std::fs::create_dir_all(&w).unwrap();
    std::fs::write(
        w.join("w.md"),
        topic(
            "W",
            "the feature",
            "project",
            "The feature flag is BETA_UI.",
        ),
    )
    .unwrap();
    let r = a.sync();
    print_report("A, after the worktree's first sync", &r);
    let first = r
        .workspaces
        .iter()
        .find(|x| {
            x.key.as_deref().is_some_and(|k| k.ends_with("/claude")) && !x.shares_with.is_empty()
        })
        .unwrap_or_else(|| panic!("the two checkouts are said to share one memory: {r:?}"));
    assert!(first.not_synced.is_none(), "{first:?}");
    let sent: u32 = r.workspaces.iter().map(|x| x.sent.removed).sum();
    assert_eq!(sent, 0, "nothing deleted on the remote: {r:?}");
    let rb = b.sync();
    print_report("B", &rb);
    let want = ["w.md", "x.md"];
    for (who, dir) in [("A's checkout", &m[0]), ("A's worktree", &w), ("B", &m[1])] {
        let names: Vec<String> = files_under(dir).into_keys().collect();
        assert_eq!(names, want, "{who} holds both memories");
    }
    // And on: more syncs delete nothing, an edit in either checkout reaches everyone.
    std::fs::write(
        w.join("w.md"),
        topic(
            "W",
            "the feature",
            "project",
            "The feature flag is BETA_UI.\n\nShip it on Friday.",
        ),
    )
    .unwrap();
    a.sync();
    b.sync();
    a.sync();
    for dir in [&m[0], &w, &m[1]] {
        let files = files_under(dir);
        assert_eq!(files.len(), 2, "{files:?}");
        assert!(files["w.md"].contains("Ship it on Friday."), "{files:?}");
    }
    // A deletion in a checkout that synced as the key is a deletion: it reaches every folder.
    std::fs::remove_file(m[0].join("x.md")).unwrap();
    let r = a.sync();
    print_report("A, after deleting x.md", &r);
    let removed: u32 = r.workspaces.iter().map(|x| x.sent.removed).sum();
    assert_eq!(removed, 1, "{r:?}");
    b.sync();
    a.sync();
    for dir in [&m[0], &w, &m[1]] {
        let names: Vec<String> = files_under(dir).into_keys().collect();
        assert_eq!(names, ["w.md"]);
    }
}

/// Undoing the sync that copied one folder's memory into the other folder of its key (a
/// worktree and the first checkout): each folder is back as before that sync, and that is no
/// one's deletion — the next sync deletes nothing and each folder holds both files again.
/// Undoing a copy both folders hold (from another home) deletes nothing either.
#[test]
fn undoing_the_sync_that_joined_a_worktree_and_its_checkout_deletes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    let m = project(t.path(), &[&a, &b]);
    let worktree = t.path().join("clone-0/code/a-feature");
    git(
        &checkout(t.path(), 0),
        &["worktree", "add", "-q", worktree.to_str().unwrap()],
    );
    let w = claude_memory(&a, &worktree);
    for dir in [&m[0], &m[1], &w] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(
        w.join("w.md"),
        topic("W", "the feature", "project", "The flag is BETA_UI."),
    )
    .unwrap();
    std::fs::write(
        m[0].join("x.md"),
        topic("X", "the build", "project", "Run make first."),
    )
    .unwrap();
    let r = a.sync();
    // Every group that sync wrote (one per folder: x.md into the worktree, w.md into the
    // checkout), undone.
    let groups: Vec<i64> = r.workspaces.iter().filter_map(|x| x.group).collect();
    assert_eq!(groups.len(), 2, "a group per folder: {r:?}");
    for g in groups {
        a.vault
            .undo_group(g, mnemo_core::ChangeSource::User)
            .unwrap();
    }
    assert!(!m[0].join("w.md").exists() && !w.join("x.md").exists());
    let r = a.sync();
    print_report("A, after undoing the sync that joined the folders", &r);
    let removed: u32 = r.workspaces.iter().map(|x| x.sent.removed).sum();
    assert_eq!(removed, 0, "nothing deleted on the remote: {r:?}");
    b.sync();
    for (who, dir) in [("A's checkout", &m[0]), ("A's worktree", &w), ("B", &m[1])] {
        let names: Vec<String> = files_under(dir).into_keys().collect();
        assert_eq!(names, ["w.md", "x.md"], "{who} holds both memories");
    }
    // A file from another home lands in both folders; undoing its copy in one deletes nothing.
    std::fs::write(
        m[1].join("y.md"),
        topic("Y", "the deploy", "project", "Deploys go out on Tuesdays."),
    )
    .unwrap();
    b.sync();
    let r = a.sync();
    let g = r
        .workspaces
        .iter()
        .find(|x| x.changed.iter().any(|c| c == "y.md"))
        .and_then(|x| x.group)
        .unwrap_or_else(|| panic!("y.md arrived: {r:?}"));
    a.vault
        .undo_group(g, mnemo_core::ChangeSource::User)
        .unwrap();
    a.sync();
    b.sync();
    for dir in [&m[0], &w, &m[1]] {
        assert!(dir.join("y.md").exists(), "{} keeps y.md", dir.display());
    }
}

#[test]
fn a_project_moved_before_its_new_folder_was_made_deletes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    let m = project(t.path(), &[&a, &b]);
    for dir in &m {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(m[0].join("x.md"), topic("X", "x", "project", "One.")).unwrap();
    a.sync();
    b.sync();
    // On A the project moves; Claude Code makes a new, nearly empty folder for the new path
    // (the old one stays in ~/.claude, its path gone).
    let moved = t.path().join("clone-0/elsewhere/webapp");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(checkout(t.path(), 0), &moved).unwrap();
    let n = claude_memory(&a, &moved);
    std::fs::create_dir_all(&n).unwrap();
    std::fs::write(n.join("n.md"), topic("N", "n", "project", "Two.")).unwrap();
    let r = a.sync();
    let removed: u32 = r.workspaces.iter().map(|x| x.sent.removed).sum();
    assert_eq!(removed, 0, "{r:?}");
    b.sync();
    let names: Vec<String> = files_under(&m[1]).into_keys().collect();
    assert_eq!(names, ["n.md", "x.md"]);
    let names: Vec<String> = files_under(&n).into_keys().collect();
    assert_eq!(names, ["n.md", "x.md"]);
}

/// A file that could not be sent (a secret, over the size limit, broken frontmatter) still
/// gets what another home wrote once it is fixed.
#[test]
fn an_edit_from_another_home_survives_a_file_flagged_here_and_fixed_later() {
    let ok = topic("Travel", "trips", "user", "Flies from Lisbon.");
    let cases: [(&str, String); 3] = [
        (
            "a secret",
            topic(
                "Travel",
                "trips",
                "user",
                "Flies from Lisbon.\n\nGITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            ),
        ),
        (
            "over the size limit",
            topic(
                "Travel",
                "trips",
                "user",
                &format!("Flies from Lisbon.\n\n{}", "padding ".repeat(140_000)),
            ),
        ),
        (
            "broken frontmatter",
            "---\nname: Travel\ndescription: [unclosed\ntype: user\n---\nFlies from Lisbon.\n"
                .to_owned(),
        ),
    ];
    for (what, bad) in cases {
        let t = tempfile::tempdir().unwrap();
        let (a, b, _) = two(t.path());
        a.write("travel.md", &ok);
        a.sync();
        b.sync();
        // A breaks it: flagged, not sent.
        a.write("travel.md", &bad);
        let r = a.sync();
        let ws = r
            .workspaces
            .iter()
            .find(|w| w.workspace == "personal")
            .unwrap();
        assert!(
            ws.flagged
                .iter()
                .any(|f| f.path == "travel.md" && f.side == "here"),
            "{what}: flagged here: {ws:?}"
        );
        // B adds a fact meanwhile; A syncs (still flagged), then fixes its file and syncs.
        let from_b = format!("{}\n\nFact from B.\n", ok.trim_end());
        b.write("travel.md", &from_b);
        b.sync();
        let r = a.sync();
        assert_eq!(
            a.read("travel.md").unwrap(),
            bad,
            "{what}: a flagged file is left alone"
        );
        let ws = r
            .workspaces
            .iter()
            .find(|w| w.workspace == "personal")
            .unwrap();
        assert!(
            ws.flagged
                .iter()
                .any(|f| f.path == "travel.md"
                    && f.why.contains("another machine's changes to it wait")),
            "{what}: the flag says B's edit waits: {ws:?}"
        );
        let fixed = format!("{}\n\nFact from A.\n", ok.trim_end());
        a.write("travel.md", &fixed);
        a.sync();
        b.sync();
        for (who, side) in [("A", &a), ("B", &b)] {
            let text = side.read("travel.md").unwrap();
            assert!(
                text.contains("Fact from B."),
                "{what}: {who} keeps B's fact: {text}"
            );
            assert!(
                text.contains("Fact from A."),
                "{what}: {who} has A's fix: {text}"
            );
        }
        assert_eq!(a.read("travel.md"), b.read("travel.md"), "{what}");
    }
}

/// A shell that holds `file` open for appending (`exec 3>>`) and writes a numbered line every
/// 20 ms until `stop` exists (or 6,000 lines: a failed test never leaves it running).
fn appender(file: &Path, stop: &Path) -> Child {
    let script = format!(
        "exec 3>>'{}'; i=0; while [ ! -e '{}' ] && [ $i -lt 6000 ]; do i=$((i+1)); printf 'Held line %d.\\n' $i >&3; sleep 0.02; done; echo $i",
        file.display(),
        stop.display()
    );
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_file_held_open_for_appending_is_not_replaced_under_its_writer() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    a.write(
        "held.md",
        &topic("Held", "a log a program appends to", "project", "First."),
    );
    a.sync();
    b.sync();
    // B adds an entry; on A a program keeps the file open and appends to it.
    let theirs = b
        .read("held.md")
        .unwrap()
        .replace("First.", "First.\n\nFrom B.");
    b.write("held.md", &theirs);
    b.sync();
    let stop = t.path().join("stop");
    let child = appender(&a.root().join("held.md"), &stop);
    // However the test ends, the writer is told to stop.
    struct Stop(PathBuf);
    impl Drop for Stop {
        fn drop(&mut self) {
            let _ = std::fs::write(&self.0, "");
        }
    }
    let _stop = Stop(stop.clone());
    while !a.read("held.md").unwrap().contains("Held line 1.") {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // The writer is alive for the whole sync (it stops only when told).
    let r = a.sync();
    print_report("A, while a program appends to held.md", &r);
    let ws = r
        .workspaces
        .iter()
        .find(|w| w.workspace == "personal")
        .unwrap();
    assert!(
        ws.flagged
            .iter()
            .any(|f| f.path == "held.md" && f.why.contains("open for writing")),
        "{ws:?}"
    );
    std::fs::write(&stop, "").unwrap();
    let out = child.wait_with_output().unwrap();
    let lines: usize = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    assert!(lines >= 1);
    a.sync();
    b.sync();
    for (who, side) in [("A", &a), ("B", &b)] {
        let text = side.read("held.md").unwrap();
        for i in 1..=lines {
            assert!(
                text.contains(&format!("Held line {i}.\n")),
                "{who} lost line {i} of {lines}: {text}"
            );
        }
        assert!(text.contains("From B."), "{who}: {text}");
    }
    assert_eq!(a.read("held.md"), b.read("held.md"));
}

#[test]
fn claude_code_s_own_memory_md_keeps_its_lines_when_a_sync_writes_there() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    let m = project(t.path(), &[&a, &b]);
    for dir in &m {
        std::fs::create_dir_all(dir).unwrap();
    }
    let own = "# Memory\n\nThe user prefers tabs.\n- [Build](build.md) — how to build\n";
    std::fs::write(m[0].join("MEMORY.md"), own).unwrap();
    std::fs::write(
        m[0].join("build.md"),
        topic("Build", "how to build", "project", "Run make first."),
    )
    .unwrap();
    a.sync();
    std::fs::write(
        m[1].join("tests.md"),
        topic("Tests", "how to test", "project", "Tests need Postgres."),
    )
    .unwrap();
    b.sync();
    a.sync();
    assert!(m[0].join("tests.md").exists());
    let text = std::fs::read_to_string(m[0].join("MEMORY.md")).unwrap();
    assert!(
        text.starts_with(own),
        "Claude Code's own lines stay as they were: {text}"
    );
    assert!(text.contains("tests.md"), "the new file is listed: {text}");
    assert_eq!(text.matches("build.md").count(), 1, "{text}");
}

/// The report as `mnemo sync` would print it (the CLI's own rendering is tested in the CLI).
fn print_report(when: &str, r: &mnemo_sync::RemoteSync) {
    println!("--- {when}");
    for w in &r.workspaces {
        if w.key.is_none() {
            continue;
        }
        println!(
            "{}: sent +{} −{} ~{}, received +{} −{} ~{}, shares with {:?}, flagged {:?}",
            w.workspace,
            w.sent.added,
            w.sent.removed,
            w.sent.changed,
            w.received.added,
            w.received.removed,
            w.received.changed,
            w.shares_with,
            w.flagged
        );
    }
}

#[test]
fn memory_committed_to_another_branch_of_the_remote_is_named() {
    let t = tempfile::tempdir().unwrap();
    // A remote whose `master` already holds a README.
    let remote = t.path().join("remote.git");
    std::fs::create_dir_all(&remote).unwrap();
    git(
        &remote,
        &["init", "-q", "--bare", "--initial-branch", "master"],
    );
    let seed = t.path().join("seed");
    git(
        t.path(),
        &[
            "clone",
            "-q",
            remote.to_str().unwrap(),
            seed.to_str().unwrap(),
        ],
    );
    std::fs::write(seed.join("README"), "my memory\n").unwrap();
    git(&seed, &["add", "README"]);
    git(&seed, &["commit", "-q", "-m", "readme"]);
    git(&seed, &["push", "-q", "origin", "HEAD:master"]);
    let a = Side::new(t.path(), "ana", &remote);
    a.write("a.md", &topic("A", "a", "user", "One."));
    a.sync();
    // Someone commits a memory to `master` by hand.
    std::fs::create_dir_all(seed.join("mnemo/personal/memory")).unwrap();
    std::fs::write(
        seed.join("mnemo/personal/memory/hand.md"),
        topic("Hand", "by hand", "user", "Written on master."),
    )
    .unwrap();
    git(&seed, &["add", "."]);
    git(&seed, &["commit", "-q", "-m", "by hand"]);
    git(&seed, &["push", "-q", "origin", "HEAD:master"]);
    let r = a.sync();
    let k = r
        .elsewhere
        .iter()
        .find(|k| k.key == "branch master")
        .unwrap_or_else(|| panic!("the branch is named: {:?}", r.elsewhere));
    assert_eq!(k.files, 1);
    assert!(k.why.contains("Merge `master` into `main`"), "{}", k.why);
}
