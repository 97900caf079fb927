//! Sync benchmark, two homes on this machine and a bare repository on local disk, the
//! real `git`: the first sync of 10,000 memories; an incremental sync of one changed memory at
//! 10,000 (sending it, and receiving it on the other home); a sync merging 1,000 entry edits
//! made on each home. Side by side, in the same run, the baseline a person would otherwise use:
//! plain git in a work tree (`git add -A && git commit && git push`, and `git pull` — which
//! merges lines and stops at conflicts); and a sync with nothing to do (`git pull && git push`),
//! right after files were written and at rest.
//!
//! `cargo bench -p mnemo-sync --bench sync` (`SYNC_BENCH_N` changes the 10,000).

#![allow(clippy::unwrap_used, clippy::cast_precision_loss)]

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use mnemo_store::{Home, Vault};
use mnemo_sync::VaultSync;
use mnemo_sync::state::{SyncSettings, save_settings};

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=Bench", "-c", "user.email=b@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn topic(i: usize, extra: &str) -> String {
    format!(
        "---\nname: Memory {i}\ndescription: fact number {i}\ntype: project\n---\nThe service {i} listens on port {}.\nWhy: measured on day {i}.\n\nIts owner is team {}.{extra}\n",
        8000 + i,
        i % 17
    )
}

fn home(dir: &Path, name: &str, remote: &Path) -> Vault {
    let vault = Vault::open(Home {
        root: dir.join(name).join("home"),
        claude_dir: dir.join(name).join("claude"),
        qwen_dir: dir.join(name).join("qwen"),
    })
    .unwrap();
    save_settings(
        &dir.join(name).join("home"),
        &SyncSettings {
            remote: Some(remote.display().to_string()),
            author: Some(format!("{name} <{name}@example.com>")),
            claude: true,
            qwen: true,
            ..SyncSettings::default()
        },
    )
    .unwrap();
    vault
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    // Under `cargo test` (no `--bench` flag) a small smoke pass: every row runs, quickly.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let n: usize = std::env::var("SYNC_BENCH_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if smoke { 300 } else { 10_000 });
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    // Mnemo: two homes, one remote.
    let remote = dir.join("remote.git");
    std::fs::create_dir_all(&remote).unwrap();
    git(
        &remote,
        &["init", "-q", "--bare", "--initial-branch", "main"],
    );
    let a = home(dir, "a", &remote);
    let b = home(dir, "b", &remote);
    let ra = dir.join("a/home/workspaces/personal/memory");
    let rb = dir.join("b/home/workspaces/personal/memory");
    for i in 0..n {
        std::fs::write(ra.join(format!("m{i:05}.md")), topic(i, "")).unwrap();
    }
    // Baseline: the same files in a plain git work tree, and its clone.
    let premote = dir.join("plain.git");
    std::fs::create_dir_all(&premote).unwrap();
    git(
        &premote,
        &["init", "-q", "--bare", "--initial-branch", "main"],
    );
    let pa = dir.join("plain-a");
    std::fs::create_dir_all(&pa).unwrap();
    git(&pa, &["init", "-q", "--initial-branch", "main"]);
    git(&pa, &["remote", "add", "origin", premote.to_str().unwrap()]);
    for i in 0..n {
        std::fs::write(pa.join(format!("m{i:05}.md")), topic(i, "")).unwrap();
    }

    println!("sync benchmark: {n} memories, remote on local disk, real git");
    println!("{:<52} {:>12} {:>16}", "", "Mnemo (ms)", "plain git (ms)");
    let s = Instant::now();
    a.sync_remote(None, None).unwrap();
    let first_a = ms(s);
    let s = Instant::now();
    git(&pa, &["add", "-A"]);
    git(&pa, &["commit", "-q", "-m", "all"]);
    git(&pa, &["push", "-q", "origin", "main"]);
    let first_pa = ms(s);
    println!(
        "{:<52} {:>12.0} {:>16.0}",
        "first sync, sending every memory", first_a, first_pa
    );
    let pb = dir.join("plain-b");
    let s = Instant::now();
    b.sync_remote(None, None).unwrap();
    let first_b = ms(s);
    let s = Instant::now();
    git(
        dir,
        &[
            "clone",
            "-q",
            premote.to_str().unwrap(),
            pb.to_str().unwrap(),
        ],
    );
    let first_pb = ms(s);
    println!(
        "{:<52} {:>12.0} {:>16.0}",
        "first sync on a second home (receive all)", first_b, first_pb
    );

    // One changed memory, several times.
    let (mut send, mut recv, mut psend, mut precv) = (vec![], vec![], vec![], vec![]);
    for round in 0..7 {
        let i = (round * 997) % n;
        let extra = format!("\n\nChanged in round {round}.");
        std::fs::write(ra.join(format!("m{i:05}.md")), topic(i, &extra)).unwrap();
        let s = Instant::now();
        a.sync_remote(None, None).unwrap();
        send.push(ms(s));
        let s = Instant::now();
        let r = b.sync_remote(None, None).unwrap();
        recv.push(ms(s));
        assert_eq!(
            r.workspaces.iter().map(|w| w.changed.len()).sum::<usize>(),
            1
        );
        std::fs::write(pa.join(format!("m{i:05}.md")), topic(i, &extra)).unwrap();
        let s = Instant::now();
        git(&pa, &["add", "-A"]);
        git(&pa, &["commit", "-q", "-m", "one"]);
        git(&pa, &["push", "-q", "origin", "main"]);
        psend.push(ms(s));
        let s = Instant::now();
        git(&pb, &["pull", "-q", "--no-rebase", "origin", "main"]);
        precv.push(ms(s));
    }
    println!(
        "{:<52} {:>12.0} {:>16.0}",
        "one changed memory: send (median of 7)",
        median(send),
        median(psend)
    );
    println!(
        "{:<52} {:>12.0} {:>16.0}",
        "one changed memory: receive on the other home",
        median(recv),
        median(precv)
    );

    // 1,000 entry edits on each side, in the same files (different entries).
    let k = 1000.min(n);
    for i in 0..k {
        let body_a = topic(i, "").replace("listens on port", "listens (A says) on port");
        let body_b = topic(i, "").replace("Its owner is team", "Its owner (B says) is team");
        for (root, body) in [(&ra, &body_a), (&rb, &body_b)] {
            std::fs::write(root.join(format!("m{i:05}.md")), body).unwrap();
        }
        std::fs::write(pa.join(format!("m{i:05}.md")), &body_a).unwrap();
        std::fs::write(pb.join(format!("m{i:05}.md")), &body_b).unwrap();
    }
    a.sync_remote(None, None).unwrap();
    let s = Instant::now();
    let r = b.sync_remote(None, None).unwrap();
    let merge_mnemo = ms(s);
    let conflicts: usize = r.workspaces.iter().map(|w| w.conflicts.len()).sum();
    git(&pa, &["add", "-A"]);
    git(&pa, &["commit", "-q", "-m", "A edits"]);
    git(&pa, &["push", "-q", "origin", "main"]);
    git(&pb, &["add", "-A"]);
    git(&pb, &["commit", "-q", "-m", "B edits"]);
    let s = Instant::now();
    let out = Command::new("git")
        .arg("-C")
        .arg(&pb)
        .args([
            "-c",
            "user.name=B",
            "-c",
            "user.email=b@e",
            "pull",
            "-q",
            "--no-rebase",
            "origin",
            "main",
        ])
        .output()
        .unwrap();
    let merge_plain = ms(s);
    let unmerged =
        String::from_utf8_lossy(&git(&pb, &["diff", "--name-only", "--diff-filter=U"]).stdout)
            .lines()
            .count();
    println!(
        "{:<52} {:>12.0} {:>16.0}",
        format!("merge {k} entry edits made on each home"),
        merge_mnemo,
        merge_plain
    );
    println!(
        "{:<52} {:>12} {:>16}",
        "  files left for a person to merge",
        conflicts,
        if out.status.success() { 0 } else { unmerged }
    );
    let both = std::fs::read_to_string(rb.join("m00000.md")).unwrap();
    assert!(both.contains("A says") && both.contains("B says"), "{both}");
    // Nothing to do: both sides settled, a sync that finds nothing changed anywhere.
    a.sync_remote(None, None).unwrap();
    b.sync_remote(None, None).unwrap();
    a.sync_remote(None, None).unwrap();
    let idle_sync = || {
        median(
            (0..5)
                .map(|_| {
                    let s = Instant::now();
                    a.sync_remote(None, None).unwrap();
                    ms(s)
                })
                .collect(),
        )
    };
    // Right after the merge wrote 1,000 files: each is read again (a file changed in the last
    // 2 s is never named from its stamp alone — git's rule for racy entries).
    let idle_fresh = idle_sync();
    // A home at rest, as when automatic sync runs on its interval: unchanged files are named
    // by their stamp and not read.
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let idle = idle_sync();
    let idle_git = median(
        (0..5)
            .map(|_| {
                let s = Instant::now();
                git(&pa, &["pull", "-q", "--no-rebase", "origin", "main"]);
                git(&pa, &["push", "-q", "origin", "main"]);
                ms(s)
            })
            .collect(),
    );
    println!(
        "{:<52} {:>12.0} {:>16.0}",
        "nothing to sync, files just written (median of 5)", idle_fresh, idle_git
    );
    println!(
        "{:<52} {:>12.0} {:>16.0}",
        "nothing to sync, at rest (median of 5)", idle, idle_git
    );
}
