//! `mnemo sync` at its edges: a hostile remote's huge blobs under a memory limit,
//! control characters and a token in a remote's `conflicts.json`, output piped into a reader
//! that goes away, and `mnemo sync reset-local`.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use super::{Env, topic, write};

pub(super) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=Eve", "-c", "user.email=eve@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A bare remote whose one commit holds what `files` gives (path, bytes), written with
/// `git fast-import` so big blobs never touch the disk unpacked.
pub(super) fn crafted_remote(
    dir: &Path,
    files: &mut dyn Iterator<Item = (String, Vec<u8>)>,
) -> String {
    let r = dir.join("remote.git");
    std::fs::create_dir_all(&r).unwrap();
    git(&r, &["init", "-q", "--bare", "--initial-branch", "main"]);
    let mut child = Command::new("git")
        .arg("-C")
        .arg(&r)
        .args(["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut w = std::io::BufWriter::new(child.stdin.take().unwrap());
    writeln!(w, "commit refs/heads/main").unwrap();
    writeln!(w, "committer Eve <eve@example.com> 1700000000 +0000").unwrap();
    writeln!(w, "data 5\ncraft").unwrap();
    let marker = b"Mnemo memory, synced through git. Layout 1.\n";
    writeln!(w, "M 100644 inline .mnemo-sync\ndata {}", marker.len()).unwrap();
    w.write_all(marker).unwrap();
    writeln!(w).unwrap();
    for (path, bytes) in files {
        writeln!(w, "M 100644 inline {path}\ndata {}", bytes.len()).unwrap();
        w.write_all(&bytes).unwrap();
        writeln!(w).unwrap();
    }
    drop(w);
    assert!(child.wait().unwrap().success());
    r.display().to_string()
}

pub(super) fn setup(e: &Env, remote: &str) {
    for args in [
        &["sync", "remote", "set", remote][..],
        &["sync", "author", "Ana <ana@example.com>"][..],
    ] {
        let out = e.run(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `mnemo` run under `ulimit -v` (KiB of address space for the whole process and the git it
/// runs; a soft limit, so the remote's side — on another machine in life — can leave it).
fn limited(e: &Env, kib: u64, args: &[&str]) -> std::process::Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -S -v {kib} && exec \"$@\""))
        .arg("sh")
        .arg(super::BIN)
        .args(args)
        .env("MNEMO_HOME", e.home())
        .env("MNEMO_CLAUDE_DIR", e.dir.path().join("claude"))
        .env("MNEMO_QWEN_DIR", e.dir.path().join("qwen"))
        .env("MNEMO_EMBED_MODEL", "off")
        // A glibc arena per thread would reserve address space the test is not about.
        .env("MALLOC_ARENA_MAX", "2")
        .output()
        .unwrap()
}

#[test]
fn huge_blobs_on_a_remote_are_refused_without_reading_them() {
    let e = Env::new();
    const MB: usize = 1024 * 1024;
    // 12 blobs of 50 MB (600 MB, a few MB packed): more than the whole limit below.
    let remote = crafted_remote(
        e.dir.path(),
        &mut (0..12).map(|i| {
            let mut b =
                format!("---\nname: Big {i}\ndescription: big\ntype: user\n---\n").into_bytes();
            b.resize(50 * MB, b'a' + u8::try_from(i).unwrap());
            (format!("mnemo/personal/memory/big-{i}.md"), b)
        }),
    );
    setup(&e, &remote);
    // The remote's side of the fetch runs here too: it is another machine in life, so it is
    // not held to this process's limit.
    let serve = e.dir.path().join("upload-pack.sh");
    std::fs::write(
        &serve,
        "#!/bin/sh\nulimit -S -v unlimited\nexec git-upload-pack \"$@\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&serve, std::fs::Permissions::from_mode(0o755)).unwrap();
    let repo = e.home().join("sync/repo.git");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "--bare", "--initial-branch", "main"]);
    git(&repo, &["remote", "add", "origin", &remote]);
    git(
        &repo,
        &[
            "config",
            "remote.origin.uploadpack",
            serve.to_str().unwrap(),
        ],
    );
    write(
        &e.personal().join("mine.md"),
        &topic("Mine", "mine", "user", "Stays."),
    );
    const LIMIT: u64 = 512 * 1024;
    // The limit leaves `mnemo` room to work: a status runs under it.
    let base = limited(&e, LIMIT, &["sync", "status"]);
    assert!(
        base.status.success(),
        "{}",
        String::from_utf8_lossy(&base.stderr)
    );
    let out = limited(&e, LIMIT, &["--json", "sync"]);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ws = v["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["workspace"] == "personal")
        .unwrap();
    let flagged = ws["flagged"].as_array().unwrap();
    assert_eq!(flagged.len(), 12, "{flagged:?}");
    assert!(
        flagged
            .iter()
            .all(|f| f["why"].as_str().unwrap().contains("size limit")),
        "{flagged:?}"
    );
    assert!(!e.personal().join("big-0.md").exists());
    assert!(e.personal().join("mine.md").exists());
}

#[test]
fn control_characters_and_tokens_from_a_remote_never_reach_the_terminal_or_the_disk() {
    let e = Env::new();
    let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let evil = format!("\u{1b}]0;TITLE\u{7}\u{1b}[2J from {token}");
    let conflicts = serde_json::json!([{
        "id": "0123456789abcdef",
        "path": "prefs.md",
        "kind": "edited",
        "field": null,
        "choices": [
            { "label": format!("{evil}'s version"), "texts": ["Deploys on Mondays."] },
            { "label": "Ben's version", "texts": ["Deploys on Tuesdays."] }
        ],
        "at": evil,
    }]);
    let remote = crafted_remote(
        e.dir.path(),
        &mut [
            (
                "mnemo/personal/memory/prefs.md".to_owned(),
                topic(
                    "Prefs",
                    "prefs",
                    "user",
                    "Deploys on Mondays.\n\nDeploys on Tuesdays.",
                )
                .into_bytes(),
            ),
            (
                "mnemo/personal/conflicts.json".to_owned(),
                serde_json::to_vec_pretty(&conflicts).unwrap(),
            ),
            (
                format!("mnemo/personal/memory/{token}\u{1b}[2J.md"),
                topic("X", "x", "user", "Named badly.").into_bytes(),
            ),
        ]
        .into_iter(),
    );
    setup(&e, &remote);
    let out = e.run(&["sync"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let status = e.run(&["sync", "status"]);
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&status.stdout)
    );
    assert!(
        shown.contains("0123456789abcdef"),
        "the conflict is listed: {shown}"
    );
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
        "{shown:?}"
    );
    assert!(!shown.contains("ghp_abc"), "{shown}");
    let state = std::fs::read_to_string(e.home().join("sync/state.json")).unwrap();
    assert!(
        !state.contains("ghp_abc") && !state.contains("\\u001b") && !state.contains('\u{1b}'),
        "{state}"
    );
}

/// Run `mnemo ARGS` with its output (and with `stderr_too`, its errors) going to a reader that
/// is already gone.
fn into_closed_pipe_with(e: &Env, args: &[&str], stderr_too: bool) -> std::process::Output {
    let mut c = e.cmd();
    let mut child = c
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    if stderr_too {
        drop(child.stderr.take());
    }
    child.wait_with_output().unwrap()
}

fn into_closed_pipe(e: &Env, args: &[&str]) -> std::process::Output {
    into_closed_pipe_with(e, args, false)
}

#[test]
fn output_into_a_reader_that_went_away_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let e = Env::new();
    let remote = crafted_remote(e.dir.path(), &mut std::iter::empty());
    setup(&e, &remote);
    for i in 0..40 {
        write(
            &e.personal().join(format!("m{i}.md")),
            &topic(&format!("M{i}"), "m", "user", "Fact."),
        );
    }
    assert!(e.run(&["sync"]).status.success());
    for args in [
        &["sync", "status"][..],
        &["history"][..],
        &["list"][..],
        &["sync"][..],
    ] {
        let out = into_closed_pipe(&e, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            out.status.code() == Some(0)
                || out.status.code() == Some(141)
                || out.status.signal() == Some(13),
            "{args:?}: {:?} {err}",
            out.status
        );
    }
}

/// `mnemo … 2>&1 | true`: both streams go to a reader that is gone. A command that says its
/// error, or its progress, on stderr ends as quietly as one that prints on stdout.
#[test]
fn errors_and_progress_into_a_reader_that_went_away_end_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let e = Env::new();
    write(
        &e.personal().join("kept.md"),
        &topic("Kept", "k", "user", "Fact."),
    );
    let zip = e.dir.path().join("out.zip");
    let zip = zip.to_str().unwrap();
    for args in [
        &["show", "no-such-memory"][..],
        &["export", zip][..],
        &["import", "/no/such/file.zip"][..],
    ] {
        let status = into_closed_pipe_with(&e, args, true).status;
        // Exit 101 is Rust's panic: what a closed stderr used to give.
        assert!(
            status.code().is_some_and(|c| c != 101) || status.signal() == Some(13),
            "{args:?}: {status:?}"
        );
    }
}

#[test]
fn reset_local_keeps_every_file_and_the_next_sync_deletes_nothing() {
    let e = Env::new();
    let remote_dir = e.dir.path().join("r");
    std::fs::create_dir_all(&remote_dir).unwrap();
    let remote = crafted_remote(
        &remote_dir,
        &mut std::iter::once((
            "mnemo/personal/memory/theirs.md".to_owned(),
            topic("Theirs", "t", "user", "From the remote.").into_bytes(),
        )),
    );
    setup(&e, &remote);
    write(
        &e.personal().join("mine.md"),
        &topic("Mine", "m", "user", "From here."),
    );
    assert!(e.run(&["sync"]).status.success());
    let out = e.run(&["sync", "reset-local"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("every memory file is kept"));
    assert!(!e.home().join("sync/repo.git").exists());
    std::fs::remove_file(e.personal().join("theirs.md")).unwrap();
    assert!(e.run(&["sync"]).status.success());
    assert!(
        e.personal().join("theirs.md").exists() && e.personal().join("mine.md").exists(),
        "a first sync again: nothing taken for deleted"
    );
}
