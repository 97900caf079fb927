//! `mnemo sync` killed with SIGKILL at 60 points, its git children with it (the whole
//! process group, as at a power cut), over a home with 130 changed memories merging with 150
//! changed on the remote. After each kill: every file is byte-equal to its state before or after
//! the sync; the remote is a consistent repository; the next sync leaves no pending journal row
//! and converges to exactly the state of an uninterrupted sync, which the remote then holds.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::{BIN, topic, write};

type Files = BTreeMap<String, Vec<u8>>;

fn snapshot(root: &Path) -> Files {
    let mut out = Files::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn mnemo(dir: &Path, side: &str) -> Command {
    let mut c = Command::new(BIN);
    c.env("MNEMO_HOME", dir.join(side).join("home"))
        .env("MNEMO_CLAUDE_DIR", dir.join(side).join("claude"))
        .env("MNEMO_QWEN_DIR", dir.join(side).join("qwen"))
        .env("MNEMO_EMBED_MODEL", "off")
        .env_remove("MNEMO_LOG");
    c
}

fn ok(mut c: Command, args: &[&str]) {
    let out = c.args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn personal(dir: &Path) -> PathBuf {
    dir.join("a/home/workspaces/personal/memory")
}

/// Home A about to sync: both A and the remote changed since they last met.
fn template(dir: &Path) {
    let remote = dir.join("remote.git");
    std::fs::create_dir_all(&remote).unwrap();
    git(
        &remote,
        &["init", "-q", "--bare", "--initial-branch", "main"],
    );
    let r = remote.display().to_string();
    for side in ["a", "b"] {
        ok(mnemo(dir, side), &["sync", "remote", "set", &r]);
        ok(
            mnemo(dir, side),
            &["sync", "author", &format!("{side} <{side}@example.com>")],
        );
    }
    let pa = personal(dir);
    for i in 0..150 {
        write(
            &pa.join(format!("t{i:03}.md")),
            &topic(
                &format!("T{i}"),
                "fixture",
                "user",
                &format!("Fact {i} one.\n\nFact {i} two."),
            ),
        );
    }
    ok(mnemo(dir, "a"), &["sync"]);
    ok(mnemo(dir, "b"), &["sync"]);
    let pb = dir.join("b/home/workspaces/personal/memory");
    for i in 50..150 {
        write(
            &pb.join(format!("t{i:03}.md")),
            &topic(
                &format!("T{i}"),
                "fixture",
                "user",
                &format!("Fact {i} one.\n\nFact {i} two, edited on B."),
            ),
        );
    }
    for i in 0..50 {
        write(
            &pb.join(format!("b{i:03}.md")),
            &topic(&format!("B{i}"), "from b", "user", &format!("B fact {i}.")),
        );
    }
    ok(mnemo(dir, "b"), &["sync"]);
    for i in 0..100 {
        write(
            &pa.join(format!("t{i:03}.md")),
            &topic(
                &format!("T{i}"),
                "fixture",
                "user",
                &format!("Fact {i} one.\n\nFact {i} two.\n\nFact {i} three, from A."),
            ),
        );
    }
    for i in 0..30 {
        write(
            &pa.join(format!("a{i:03}.md")),
            &topic(&format!("A{i}"), "from a", "user", &format!("A fact {i}.")),
        );
    }
    // Any read brings the index and MEMORY.md up to A's edits: that is the state before.
    ok(mnemo(dir, "a"), &["list"]);
}

fn copy(from: &Path, to: &Path) {
    let st = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(st.success());
}

#[test]
fn sync_killed_at_60_points_leaves_before_or_after_and_converges() {
    let t = tempfile::tempdir().unwrap();
    let tpl = t.path().join("tpl");
    template(&tpl);
    let before = snapshot(&personal(&tpl));
    // The uninterrupted sync.
    let reference = t.path().join("ref");
    copy(&tpl, &reference);
    let start = Instant::now();
    ok(mnemo(&reference, "a"), &["sync"]);
    let full = start.elapsed();
    let after = snapshot(&personal(&reference));
    assert_ne!(before, after);
    let runs: u32 = 60;
    // Kill a sync after `delay`; returns whether any file had changed, and whether all had.
    let kill_at = |run: u32, delay: std::time::Duration| -> (bool, bool) {
        let dir = t.path().join(format!("run{run}"));
        copy(&tpl, &dir);
        let mut c = mnemo(&dir, "a");
        c.arg("sync").process_group(0);
        let mut child = c.spawn().unwrap();
        std::thread::sleep(delay);
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .status();
        child.wait().unwrap();
        // Every file at its before or after state.
        let now = snapshot(&personal(&dir));
        let mut changed = false;
        for p in before.keys().chain(after.keys()).chain(now.keys()) {
            let (b, a, n) = (before.get(p), after.get(p), now.get(p));
            assert!(
                n == b || n == a,
                "run {run}: {p} is neither its before nor its after state"
            );
            changed |= n != b;
        }
        let outcome = (changed, now == after);
        // The remote is a whole repository.
        git(&dir.join("remote.git"), &["fsck", "--no-progress"]);
        // The next sync completes, leaves no pending journal row, and converges.
        ok(mnemo(&dir, "a"), &["sync"]);
        let journal = mnemo_store::journal::Journal::open(&dir.join("a/home/journal.db")).unwrap();
        assert!(
            journal.pending().unwrap().is_empty(),
            "run {run}: pending journal rows"
        );
        let end = snapshot(&personal(&dir));
        let differ: Vec<String> = end
            .keys()
            .chain(after.keys())
            .filter(|p| end.get(*p) != after.get(*p))
            .map(|p| {
                let show = |f: &Files| f.get(p).map(|b| String::from_utf8_lossy(b).into_owned());
                if p == "MEMORY.md" {
                    let lines = |f: &Files| -> Vec<String> {
                        show(f)
                            .unwrap_or_default()
                            .lines()
                            .map(str::to_owned)
                            .collect()
                    };
                    let (n, a) = (lines(&end), lines(&after));
                    let only_now: Vec<&String> = n.iter().filter(|l| !a.contains(l)).collect();
                    let only_after: Vec<&String> = a.iter().filter(|l| !n.contains(l)).collect();
                    return format!(
                        "MEMORY.md: only now {only_now:?}, only uninterrupted {only_after:?}"
                    );
                }
                format!(
                    "{p}: now {:?}, uninterrupted {:?}",
                    show(&end),
                    show(&after)
                )
            })
            .collect();
        assert!(
            differ.is_empty(),
            "run {run}: does not converge to the uninterrupted result: {differ:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
        outcome
    };
    let mut mid = 0;
    let (mut untouched, mut done) = (std::time::Duration::ZERO, full.mul_f64(1.1));
    for run in 0..runs {
        let delay = full.mul_f64(1.1 * (f64::from(run) + 0.5) / f64::from(runs));
        let (changed, complete) = kill_at(run, delay);
        mid += usize::from(changed && !complete);
        if !changed {
            untouched = untouched.max(delay);
        }
        if complete {
            done = done.min(delay);
        }
    }
    // A sync writes a workspace's files as one batch, within a few ms: more kills aimed inside
    // the window the spaced ones found (after the last that found nothing written, before the
    // first that found everything), until enough land mid-write.
    let (from, to) = if done > untouched {
        (untouched, done)
    } else {
        (
            done.saturating_sub(std::time::Duration::from_millis(20)),
            untouched + std::time::Duration::from_millis(20),
        )
    };
    let mut aimed = 0;
    while mid < 5 && aimed < 120 {
        let frac = (f64::from((aimed * 37) % 120) + 0.5) / 120.0;
        let (changed, complete) = kill_at(runs + aimed, from + (to - from).mul_f64(frac));
        mid += usize::from(changed && !complete);
        aimed += 1;
    }
    eprintln!(
        "sync: {mid} of {} kills landed mid-write ({aimed} aimed at the write window \
         {from:?}–{to:?}; full run {full:?})",
        runs + aimed
    );
    // The kills must have hit the writing itself, not only before or after it.
    assert!(mid >= 5, "only {mid} kills landed mid-write");
}
