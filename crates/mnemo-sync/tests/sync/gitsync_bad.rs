//! Sync's bad input: an unreachable remote, a wrong URL, refused credentials, a remote
//! with another history or other content, a remote holding invalid, oversized, linked or
//! escaping files, and local files that must not leave — each a clear error or a flagged file,
//! nothing local lost.

use std::io::{Read, Write};
use std::path::Path;

use mnemo_core::ErrorCode;
use mnemo_sync::VaultSync;
use mnemo_sync::state::{SyncSettings, save_settings};

use super::gitsync::{Side, bare, files_under, git};
use super::topic;

fn point(side: &Side, remote: &str) {
    save_settings(
        &side.dir.join("home"),
        &SyncSettings {
            remote: Some(remote.to_owned()),
            claude: true,
            qwen: true,
            ..SyncSettings::default()
        },
    )
    .unwrap();
}

fn seeded(t: &Path) -> Side {
    let r = bare(t);
    let a = Side::new(t, "ana", &r);
    a.write("keep.md", &topic("Keep", "keep", "user", "Never lose me."));
    a
}

#[test]
fn unreachable_wrong_and_refusing_remotes_are_clear_errors_and_nothing_is_lost() {
    let t = tempfile::tempdir().unwrap();
    let a = seeded(t.path());
    let before = a.files();
    // Nothing listens on port 9: offline.
    point(&a, "http://127.0.0.1:9/memory.git");
    let e = a.vault.sync_remote(None, None).unwrap_err();
    assert_eq!(e.code, ErrorCode::RemoteUnreachable, "{e:?}");
    assert!(e.message.contains("local changes wait"), "{e}");
    let s = a.vault.sync_status().unwrap();
    assert_eq!(
        s.last_run.unwrap().error.unwrap().code,
        ErrorCode::RemoteUnreachable
    );
    // A path that holds no repository.
    point(&a, &t.path().join("nowhere.git").display().to_string());
    let e = a.vault.sync_remote(None, None).unwrap_err();
    assert_eq!(e.code, ErrorCode::RemoteRefused, "{e:?}");
    assert!(e.message.contains("mnemo sync remote set"), "{e}");
    // A server that asks for credentials (git never prompts here).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in listener.incoming().flatten() {
            let mut s = s;
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = s.write_all(
                b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"git\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    point(&a, &format!("http://127.0.0.1:{port}/memory.git"));
    let e = a.vault.sync_remote(None, None).unwrap_err();
    assert_eq!(e.code, ErrorCode::RemoteRefused, "{e:?}");
    assert!(e.message.contains("credentials"), "{e}");
    // A URL carrying a password is refused before it is stored.
    let e = save_settings(
        &a.dir.join("home"),
        &SyncSettings {
            remote: Some("https://ana:hunter2@example.com/m.git".into()),
            ..SyncSettings::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArguments);
    assert_eq!(a.files(), before, "nothing local changed");
}

#[test]
fn a_remote_with_another_history_or_other_content_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let a = seeded(t.path());
    a.sync();
    let before = a.files();
    // Another home synced with another remote: a history with nothing in common.
    let other = t.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let r2 = bare(&other);
    let c = Side::new(&other, "cleo", &r2);
    c.write("c.md", &topic("C", "c", "user", "From C."));
    c.sync();
    point(&a, &r2.display().to_string());
    let e = a.vault.sync_remote(None, None).unwrap_err();
    assert_eq!(e.code, ErrorCode::RemoteRefused);
    assert!(e.message.contains("another history"), "{e}");
    // A repository of something else entirely.
    let code = t.path().join("code");
    std::fs::create_dir_all(&code).unwrap();
    git(&code, &["init", "-q", "--initial-branch", "main"]);
    std::fs::write(code.join("main.rs"), "fn main() {}\n").unwrap();
    git(&code, &["add", "-A"]);
    git(&code, &["commit", "-q", "-m", "code"]);
    let fresh = Side::new(t.path(), "dan", &code);
    fresh.write("d.md", &topic("D", "d", "user", "Mine."));
    let e = fresh.vault.sync_remote(None, None).unwrap_err();
    assert_eq!(e.code, ErrorCode::RemoteRefused);
    assert!(e.message.contains("other than Mnemo"), "{e}");
    assert_eq!(a.files(), before);
    assert!(fresh.read("d.md").is_some());
}

#[test]
fn bad_files_on_the_remote_are_flagged_and_never_written_here() {
    let t = tempfile::tempdir().unwrap();
    let a = seeded(t.path());
    a.sync();
    let remote = t.path().join("remote.git");
    // Someone pushes bad files with plain git.
    let w = t.path().join("w");
    git(
        t.path(),
        &["clone", "-q", remote.to_str().unwrap(), w.to_str().unwrap()],
    );
    let mem = w.join("mnemo/personal/memory");
    std::fs::write(mem.join("invalid.md"), "no frontmatter at all\n").unwrap();
    std::fs::write(
        mem.join("huge.md"),
        topic("Huge", "huge", "user", &"x".repeat(1024 * 1024 + 10)),
    )
    .unwrap();
    std::os::unix::fs::symlink("../../../../../etc/passwd", mem.join("link.md")).unwrap();
    std::fs::write(
        mem.join("secret.md"),
        topic(
            "Key",
            "a key",
            "reference",
            "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
        ),
    )
    .unwrap();
    std::fs::write(mem.join("good.md"), topic("Good", "good", "user", "Fine.")).unwrap();
    // And a tree entry that would climb out of the memory folder, made by plumbing.
    git(&w, &["add", "-A"]);
    git(&w, &["commit", "-q", "-m", "bad files"]);
    git(&w, &["push", "-q", "origin", "main"]);
    // An entry named `..` (git itself never makes one): a crafted commit on top.
    let escape = craft_escape(&w);
    git(
        &w,
        &[
            "push",
            "-q",
            "-f",
            "origin",
            &format!("{escape}:refs/heads/main"),
        ],
    );
    let r = a.sync();
    let p = r
        .workspaces
        .iter()
        .find(|w| w.workspace == "personal")
        .unwrap();
    let flagged: Vec<&str> = p.flagged.iter().map(|f| f.path.as_str()).collect();
    for bad in ["invalid.md", "huge.md", "link.md", "secret.md"] {
        assert!(flagged.contains(&bad), "{bad} flagged: {:?}", p.flagged);
        assert!(a.read(bad).is_none(), "{bad} not written here");
    }
    assert!(
        p.flagged
            .iter()
            .any(|f| f.why.contains("leave the memory folder")),
        "{:?}",
        p.flagged
    );
    assert!(a.read("good.md").is_some());
    assert!(a.read("keep.md").is_some());
    assert!(!a.dir.join("home/workspaces/personal/escape.md").exists());
    // The next sync keeps them on the remote (they are someone's files), still flagged.
    a.sync();
    git(&w, &["fetch", "-q", "origin"]);
    let names = git(&w, &["ls-tree", "-r", "--name-only", "origin/main"]);
    for kept in [
        "invalid.md",
        "huge.md",
        "link.md",
        "secret.md",
        "../escape.md",
    ] {
        assert!(
            names.contains(&format!("mnemo/personal/memory/{kept}")),
            "{kept}: {names}"
        );
    }
}

/// A commit whose tree holds `mnemo/personal/memory/../escape.md`, written with `git mktree`.
fn craft_escape(w: &Path) -> String {
    let run = |args: &[&str], input: &str| -> String {
        let mut c = std::process::Command::new("git")
            .arg("-C")
            .arg(w)
            .args(["-c", "user.name=T", "-c", "user.email=t@e"])
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        c.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    let blob = run(
        &["hash-object", "-w", "--stdin"],
        &topic("E", "e", "user", "Escaped."),
    );
    let inner = run(&["mktree"], &format!("100644 blob {blob}\tescape.md\n"));
    // memory/ holds `..` → a tree holding escape.md, next to the real files.
    let memory_entries = git(w, &["ls-tree", "HEAD:mnemo/personal/memory"]);
    let memory = run(
        &["mktree", "--missing"],
        &format!("{memory_entries}040000 tree {inner}\t..\n"),
    );
    let personal_entries: String = git(w, &["ls-tree", "HEAD:mnemo/personal"])
        .lines()
        .filter(|l| !l.ends_with("\tmemory"))
        .map(|l| format!("{l}\n"))
        .collect();
    let personal = run(
        &["mktree"],
        &format!("{personal_entries}040000 tree {memory}\tmemory\n"),
    );
    let mnemo = run(&["mktree"], &format!("040000 tree {personal}\tpersonal\n"));
    let root_entries: String = git(w, &["ls-tree", "HEAD"])
        .lines()
        .filter(|l| !l.ends_with("\tmnemo"))
        .map(|l| format!("{l}\n"))
        .collect();
    let root = run(
        &["mktree"],
        &format!("{root_entries}040000 tree {mnemo}\tmnemo\n"),
    );
    run(&["commit-tree", &root, "-p", "HEAD", "-m", "escape"], "")
}

#[test]
fn local_files_that_must_not_leave_are_flagged_not_sent() {
    let t = tempfile::tempdir().unwrap();
    let a = seeded(t.path());
    a.write(
        "token.md",
        &topic(
            "Token",
            "a token",
            "reference",
            "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        ),
    );
    a.write(
        "big.md",
        &topic("Big", "big", "user", &"y".repeat(1024 * 1024 + 1)),
    );
    std::os::unix::fs::symlink("/etc/hostname", a.root().join("linked.md")).unwrap();
    // A name another machine may not take is flagged for what it holds, and a file
    // named `.MD` is flagged with its fix rather than passed over.
    a.write("tab\there.md", &topic("Tab", "tab", "user", "Tabbed."));
    a.write("UPPER.MD", &topic("Upper", "upper", "user", "Shouted."));
    let r = a.sync();
    let p = r
        .workspaces
        .iter()
        .find(|w| w.workspace == "personal")
        .unwrap();
    let flagged: Vec<&str> = p.flagged.iter().map(|f| f.path.as_str()).collect();
    for bad in [
        "token.md",
        "big.md",
        "linked.md",
        "tab\there.md",
        "UPPER.MD",
    ] {
        assert!(flagged.contains(&bad), "{bad}: {:?}", p.flagged);
    }
    let why = |path: &str| {
        p.flagged
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.why.clone())
            .unwrap_or_default()
    };
    assert!(
        why("tab\there.md").contains("its name holds a tab"),
        "{}",
        why("tab\there.md")
    );
    assert!(
        why("UPPER.MD").contains("rename it to `UPPER.md` to sync it"),
        "{}",
        why("UPPER.MD")
    );
    let w = t.path().join("w");
    git(
        t.path(),
        &[
            "clone",
            "-q",
            t.path().join("remote.git").to_str().unwrap(),
            w.to_str().unwrap(),
        ],
    );
    let sent = files_under(&w.join("mnemo/personal/memory"));
    assert_eq!(sent.keys().collect::<Vec<_>>(), ["keep.md"]);
    // Nothing in the sync repository holds the secret either.
    let objects = git(&w, &["log", "-p", "--all"]);
    assert!(!objects.contains("ghp_"));
    assert!(a.read("token.md").is_some(), "the local file is left alone");
}

/// A git killed mid-push into a remote on this machine leaves the remote's ref locked
/// (`refs/heads/main.lock`): every later push from every home was refused for good — the model
/// test found it (a sync's process group killed 97 ms in). A lock older than git ever holds
/// one is removed and the push goes through; a lock outside the remote is never touched.
#[test]
fn a_lock_a_killed_push_left_in_the_remote_does_not_stop_every_home() {
    let t = tempfile::tempdir().unwrap();
    let remote = bare(t.path());
    let a = Side::new(t.path(), "a", &remote);
    a.write("a.md", &topic("A", "a", "user", "One."));
    a.sync();
    let lock = remote.join("refs/heads/main.lock");
    std::fs::write(&lock, "0000000000000000000000000000000000000000\n").unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&lock)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let outside = t.path().join("elsewhere.lock");
    std::fs::write(&outside, "keep\n").unwrap();
    a.write("b.md", &topic("B", "b", "user", "Two."));
    a.sync();
    assert!(!lock.exists(), "the stale lock is gone");
    assert!(outside.exists());
    let b = Side::new(t.path(), "b", &remote);
    b.sync();
    assert_eq!(b.files(), a.files(), "the push went through");
}
