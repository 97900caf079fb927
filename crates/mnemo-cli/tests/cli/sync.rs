//! `mnemo sync` on two real homes and a bare repository: the remote and author set
//! from the command line; A adds, B edits and forgets, both converge; the same entry edited on
//! both is named by `mnemo sync status` until resolved on A, which reaches B; a sync's group
//! undone byte-exact; bad remotes exit 1 with their code.

use std::path::Path;

use super::{Env, topic, write};

fn bare(dir: &Path) -> String {
    let r = dir.join("remote.git");
    let st = std::process::Command::new("git")
        .args(["init", "-q", "--bare", "--initial-branch", "main"])
        .arg(&r)
        .status()
        .unwrap();
    assert!(st.success());
    r.display().to_string()
}

fn setup(e: &Env, remote: &str, name: &str) {
    let out = e.run(&["sync", "remote", "set", remote]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = e.run(&["sync", "author", &format!("{name} <{name}@example.com>")]);
    assert!(out.status.success());
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn two_homes_converge_and_a_conflict_waits_for_a_choice() {
    let (a, b) = (Env::new(), Env::new());
    let remote = bare(a.dir.path());
    setup(&a, &remote, "ana");
    setup(&b, &remote, "ben");
    write(
        &a.personal().join("prefs.md"),
        &topic(
            "Prefs",
            "prefs",
            "user",
            "Likes dark mode.\n\nDeploys on Fridays.",
        ),
    );
    write(
        &a.personal().join("tea.md"),
        &topic("Tea", "tea", "user", "Green tea from Kyoto."),
    );
    write(
        &a.personal().join("coffee.md"),
        &topic("Coffee", "coffee", "user", "Drinks coffee at 9."),
    );
    a.json(&["sync"]);
    b.json(&["sync"]);
    // A adds; B edits and forgets.
    a.json(&[
        "add",
        "--type",
        "user",
        "--name",
        "Editor",
        "--description",
        "tools",
        "--body",
        "Uses Helix.",
    ]);
    b.json(&["edit", "coffee.md", "--body", "Drinks coffee at 10."]);
    b.json(&["forget", "green tea", "--yes"]);
    b.json(&["sync"]);
    a.json(&["sync"]);
    b.json(&["sync"]);
    for e in [&a, &b] {
        assert!(e.personal().join("editor.md").exists());
        assert!(
            std::fs::read_to_string(e.personal().join("coffee.md"))
                .unwrap()
                .contains("at 10.")
        );
        assert!(!e.personal().join("tea.md").exists());
    }
    // The same entry, edited differently on both.
    write(
        &a.personal().join("prefs.md"),
        &topic(
            "Prefs",
            "prefs",
            "user",
            "Likes dark mode.\n\nDeploys on Mondays.",
        ),
    );
    write(
        &b.personal().join("prefs.md"),
        &topic(
            "Prefs",
            "prefs",
            "user",
            "Likes dark mode.\n\nDeploys on Tuesdays.",
        ),
    );
    a.json(&["sync"]);
    b.json(&["sync"]);
    a.json(&["sync"]);
    let both = std::fs::read_to_string(a.personal().join("prefs.md")).unwrap();
    assert!(
        both.contains("Mondays") && both.contains("Tuesdays"),
        "{both}"
    );
    let status = text(&a.run(&["sync", "status"]));
    assert!(
        status.contains("conflict ") && status.contains("prefs.md"),
        "{status}"
    );
    assert!(
        status.contains("ana's version") && status.contains("ben's version"),
        "{status}"
    );
    let s = a.json(&["sync", "status"]);
    let w = s["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["workspace"] == "personal")
        .unwrap();
    let c = &w["conflicts"][0];
    let id = c["id"].as_str().unwrap();
    let monday = c["choices"]
        .as_array()
        .unwrap()
        .iter()
        .position(|ch| ch["texts"].to_string().contains("Mondays"))
        .unwrap();
    // The same conflict on B.
    let sb = b.json(&["sync", "status"]);
    assert!(sb.to_string().contains(id));
    let out = a.run(&["sync", "resolve", id, "--keep", &(monday + 1).to_string()]);
    assert!(out.status.success(), "{}", text(&out));
    a.json(&["sync"]);
    b.json(&["sync"]);
    let resolved = topic(
        "Prefs",
        "prefs",
        "user",
        "Likes dark mode.\n\nDeploys on Mondays.",
    );
    assert_eq!(
        std::fs::read_to_string(b.personal().join("prefs.md")).unwrap(),
        resolved
    );
    assert!(!text(&b.run(&["sync", "status"])).contains("conflict "));
    // A sync's change group undoes byte-exact.
    let before = std::fs::read(b.personal().join("prefs.md")).unwrap();
    write(
        &a.personal().join("prefs.md"),
        &topic(
            "Prefs",
            "prefs",
            "user",
            "Likes dark mode.\n\nDeploys on Mondays.\n\nReviews on Thursdays.",
        ),
    );
    a.json(&["sync"]);
    let r = b.json(&["sync"]);
    let g = r["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["workspace"] == "personal")
        .unwrap()["group"]
        .as_i64()
        .unwrap();
    b.json(&["undo", "--group", &g.to_string()]);
    assert_eq!(
        std::fs::read(b.personal().join("prefs.md")).unwrap(),
        before
    );
}

#[test]
fn bad_remotes_exit_1_with_their_code() {
    let e = Env::new();
    assert_eq!(e.json_err(&["sync"], 2), "usage");
    assert_eq!(
        e.json_err(
            &[
                "sync",
                "remote",
                "set",
                "https://me:tok3n@example.com/m.git"
            ],
            1
        ),
        "invalid_arguments"
    );
    let missing = e.dir.path().join("missing.git").display().to_string();
    setup(&e, &missing, "ana");
    assert_eq!(e.json_err(&["sync"], 1), "remote_refused");
    let status = text(&e.run(&["sync", "status"]));
    assert!(
        status.contains("last sync") && status.contains("failed"),
        "{status}"
    );
    setup(&e, "http://127.0.0.1:9/m.git", "ana");
    assert_eq!(e.json_err(&["sync"], 1), "remote_unreachable");
}

/// `mnemo serve` on A with automatic sync on (short debounce and interval for the test): an
/// outside edit on A goes out by itself, and what B pushes arrives on A without a change there.
#[test]
fn automatic_sync_in_a_watching_process() {
    use std::io::BufRead;
    let (a, b) = (Env::new(), Env::new());
    let remote = bare(a.dir.path());
    setup(&a, &remote, "ana");
    setup(&b, &remote, "ben");
    assert!(a.run(&["sync", "auto", "on"]).status.success());
    let mut serve = a.cmd();
    serve
        .args(["serve", "--port", "0"])
        .env("MNEMO_SYNC_DEBOUNCE_SECS", "1")
        .env("MNEMO_SYNC_INTERVAL_SECS", "2")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let mut child = serve.spawn().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap(); // started and watching
    let result = std::panic::catch_unwind(|| {
        write(
            &a.personal().join("tea.md"),
            &topic("Tea", "tea", "user", "Green tea from Kyoto."),
        );
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !b.personal().join("tea.md").exists() {
            assert!(
                std::time::Instant::now() < deadline,
                "A never synced by itself"
            );
            std::thread::sleep(std::time::Duration::from_millis(300));
            b.json(&["sync"]);
        }
        write(
            &b.personal().join("coffee.md"),
            &topic("Coffee", "coffee", "user", "Drinks coffee at 9."),
        );
        b.json(&["sync"]);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !a.personal().join("coffee.md").exists() {
            assert!(
                std::time::Instant::now() < deadline,
                "B's change never arrived on A"
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        let s = a.json(&["sync", "status"]);
        assert_eq!(s["auto"], true);
        assert!(s["last_run"]["error"].is_null(), "{s}");
    });
    let _ = child.kill();
    let _ = child.wait();
    drop(out);
    if let Err(p) = result {
        std::panic::resume_unwind(p);
    }
}
