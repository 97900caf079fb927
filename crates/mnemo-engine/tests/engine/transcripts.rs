//! A dream reads transcripts only where the person's own tools keep them, and only
//! regular files there — a link (to a file outside, or to a FIFO) or a FIFO is skipped and said,
//! never followed, never waited on.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mnemo_core::{ChangeSource, WorkspaceKind};
use mnemo_engine::MemoryTools;
use mnemo_store::Workspace;

use crate::vault;

fn mkfifo(p: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(p)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo {}", p.display());
}

/// A transcripts folder holding a real transcript, a link to a file outside, a FIFO and a link
/// to a FIFO outside; the file outside.
fn hostile_folder(root: &Path) -> (PathBuf, PathBuf) {
    let outside = root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let secret = outside.join("notes.txt");
    std::fs::write(&secret, "TOPSECRET the deploy key is under the mat\n").unwrap();
    mkfifo(&outside.join("pipe"));
    let chats = root.join("chats");
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::write(
        chats.join("real.jsonl"),
        "{\"role\":\"user\",\"text\":\"we deploy on fridays\"}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&secret, chats.join("link.jsonl")).unwrap();
    std::os::unix::fs::symlink(outside.join("pipe"), chats.join("piped.jsonl")).unwrap();
    mkfifo(&chats.join("fifo.jsonl"));
    (chats, secret)
}

#[test]
fn grep_transcripts_reads_regular_files_only_and_says_what_it_skipped() {
    let (tx, rx) = std::sync::mpsc::channel();
    // In a thread of its own: before the fix, opening the FIFO blocked for ever.
    std::thread::spawn(move || {
        let (d, v) = vault();
        let (chats, _) = hostile_folder(d.path());
        let ws = v.workspace("personal").unwrap();
        let mut tools = MemoryTools::new(&v, ws, ChangeSource::Dream)
            .for_dream(vec![chats], std::collections::HashMap::new());
        let out = tools.run("grep_transcripts", r#"{"pattern": "deploy|TOPSECRET"}"#);
        let _ = tx.send(out);
    });
    let out = rx
        .recv_timeout(Duration::from_secs(600))
        .expect("grep_transcripts never came back (blocked on a FIFO?)");
    assert!(out.ok, "{}", out.text);
    assert!(
        out.text.contains("real.jsonl:1:") && out.text.contains("we deploy on fridays"),
        "{}",
        out.text
    );
    assert!(!out.text.contains("TOPSECRET"), "{}", out.text);
    assert!(!out.text.contains("under the mat"), "{}", out.text);
    for (name, why) in [
        ("link.jsonl", "symbolic link"),
        ("piped.jsonl", "symbolic link"),
        ("fifo.jsonl", "FIFO"),
    ] {
        assert!(
            out.text
                .lines()
                .any(|l| l.contains(&format!("{name} was skipped")) && l.contains(why)),
            "{name}: {}",
            out.text
        );
    }
}

#[test]
fn a_repositorys_qwen_chats_are_no_transcripts_and_links_count_no_sessions() {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    let (chats, _) = hostile_folder(&repo.join(".qwen"));
    assert_eq!(chats, repo.join(".qwen/chats"));
    let ws = |id: &str, lock_dir: PathBuf| Workspace {
        id: id.to_owned(),
        kind: WorkspaceKind::Qwen,
        label: id.to_owned(),
        origin: String::new(),
        memory_root: d.path().join("memory"),
        state_dir: d.path().join("state"),
        lock_dir,
        shared: None,
    };
    let team = ws(
        &format!("{}{}", mnemo_store::workspace::QWEN_TEAM_PREFIX, "repo"),
        repo.join(".qwen"),
    );
    assert!(mnemo_engine::dream::transcript_dirs(&team).is_empty());
    assert_eq!(mnemo_engine::dream::sessions_touched_since(&team, None), 0);
    // Qwen Code's own project folder is read; only its regular files count as sessions.
    let own = ws("qwen:-home-p", repo.join(".qwen"));
    assert_eq!(mnemo_engine::dream::transcript_dirs(&own), [chats]);
    assert_eq!(mnemo_engine::dream::sessions_touched_since(&own, None), 1);
}
