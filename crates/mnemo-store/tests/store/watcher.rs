//! The watcher against real files: outside edits reach the index, the journal and subscribers.

use mnemo_store::journal::ChangeOp;
use std::sync::Arc;
use std::time::Duration;

use mnemo_core::{ChangeSource, MemoryChanged};

use crate::{Fixture, topic};

/// Generous bound so a loaded machine does not hang the suite; not a latency assertion
/// (latency is measured by the benchmark).
const WAIT: Duration = Duration::from_secs(10);

fn next_for(rx: &std::sync::mpsc::Receiver<MemoryChanged>, path: &str) -> MemoryChanged {
    loop {
        let ev = rx
            .recv_timeout(WAIT)
            .unwrap_or_else(|_| panic!("no event for {path}"));
        if ev.paths.iter().any(|p| p == path) {
            return ev;
        }
    }
}

#[test]
fn outside_create_modify_rename_delete_are_applied_and_announced() {
    let f = Fixture::new();
    let vault = Arc::new(f.reopen());
    let ws = vault.workspace("personal").unwrap();
    vault.sync(&ws).unwrap();
    let rx = vault.subscribe();
    let _w = mnemo_store::watch::watch(Arc::clone(&vault), vec![ws]).unwrap();

    f.write(
        "new.md",
        topic("Fresh", "made by an editor", "user", "kumquat"),
    );
    let ev = next_for(&rx, "new.md");
    assert_eq!(ev.source, ChangeSource::Watcher);
    assert_eq!(ev.workspace, "personal");
    assert_eq!(
        vault
            .search_indexed(Some("personal"), "kumquat", 5)
            .unwrap()[0]
            .path,
        "new.md"
    );

    f.write(
        "new.md",
        topic("Fresh", "made by an editor", "user", "persimmon"),
    );
    next_for(&rx, "new.md");
    assert!(
        vault
            .search_indexed(Some("personal"), "kumquat", 5)
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        vault
            .search_indexed(Some("personal"), "persimmon", 5)
            .unwrap()
            .len(),
        1
    );

    std::fs::rename(f.personal().join("new.md"), f.personal().join("renamed.md")).unwrap();
    next_for(&rx, "renamed.md");
    let paths: Vec<String> = vault
        .search_indexed(Some("personal"), "persimmon", 5)
        .unwrap()
        .into_iter()
        .map(|d| d.path)
        .collect();
    assert_eq!(paths, ["renamed.md"]);

    std::fs::remove_file(f.personal().join("renamed.md")).unwrap();
    next_for(&rx, "renamed.md");
    assert!(
        vault
            .search_indexed(Some("personal"), "persimmon", 5)
            .unwrap()
            .is_empty()
    );

    // Every outside change is in the journal, with content, and can be undone.
    let h = vault.history(Some("personal"), None, 50).unwrap();
    assert!(h.iter().all(|c| c.source == ChangeSource::Watcher));
    let ops: Vec<(&str, &str)> = h
        .iter()
        .rev()
        .map(|c| (c.op.as_str(), c.path.as_str()))
        .collect();
    assert!(ops.contains(&("create", "new.md")));
    assert!(ops.contains(&("modify", "new.md")));
    assert!(ops.contains(&("delete", "new.md")));
    assert!(ops.contains(&("create", "renamed.md")));
    assert!(ops.contains(&("delete", "renamed.md")));
    let last_delete = h
        .iter()
        .find(|c| c.op == ChangeOp::Delete && c.path == "renamed.md")
        .unwrap();
    vault.undo(last_delete.id, ChangeSource::User).unwrap();
    assert!(
        std::fs::read_to_string(f.personal().join("renamed.md"))
            .unwrap()
            .contains("persimmon")
    );
}

#[test]
fn own_writes_are_announced_once_not_again_by_the_watcher() {
    let f = Fixture::new();
    let vault = Arc::new(f.reopen());
    let ws = vault.workspace("personal").unwrap();
    let rx = vault.subscribe();
    let _w = mnemo_store::watch::watch(Arc::clone(&vault), vec![ws]).unwrap();
    vault
        .create(
            "personal",
            &mnemo_store::NewMemory {
                path: None,
                name: "Mine".into(),
                description: "d".into(),
                memory_type: mnemo_core::MemoryType::User,
                body: "b".into(),
            },
            ChangeSource::User,
        )
        .unwrap();
    let ev = next_for(&rx, "mine.md");
    assert_eq!(ev.source, ChangeSource::User);
    // Then an outside edit of another file: the next event must be that one, not a duplicate.
    f.write("other.md", topic("O", "o", "user", "x"));
    let ev = rx.recv_timeout(WAIT).unwrap();
    assert_eq!(ev.paths, ["other.md"]);
    assert_eq!(ev.source, ChangeSource::Watcher);
}

#[test]
fn a_removed_folder_is_rescanned() {
    let f = Fixture::new();
    f.write("sub/a.md", topic("A", "a", "user", "wombat"));
    f.write("sub/b.md", topic("B", "b", "user", "wombat"));
    let vault = Arc::new(f.reopen());
    let ws = vault.workspace("personal").unwrap();
    vault.sync(&ws).unwrap();
    let rx = vault.subscribe();
    let _w = mnemo_store::watch::watch(Arc::clone(&vault), vec![ws]).unwrap();
    std::fs::remove_dir_all(f.personal().join("sub")).unwrap();
    let deadline = std::time::Instant::now() + WAIT;
    // search_indexed does not re-scan: only the watcher can empty it.
    while !vault
        .search_indexed(Some("personal"), "wombat", 5)
        .unwrap()
        .is_empty()
    {
        let _ = rx.recv_timeout(Duration::from_millis(200));
        assert!(
            std::time::Instant::now() < deadline,
            "folder removal not applied"
        );
    }
}

#[test]
fn the_watcher_does_not_react_to_its_own_reads() {
    let f = Fixture::new();
    f.write("logs/2026/11/2026-11-20.md", "a log\n");
    let vault = Arc::new(f.reopen());
    let ws = vault.workspace("personal").unwrap();
    vault.sync(&ws).unwrap();
    let rx = vault.subscribe();
    let _w = mnemo_store::watch::watch(Arc::clone(&vault), vec![ws]).unwrap();
    f.write("a.md", topic("A", "a", "user", "x"));
    next_for(&rx, "a.md");
    // Reading files (as the watcher itself does) must not produce more events.
    let _ = std::fs::read(f.personal().join("a.md"));
    let _ = std::fs::read_dir(f.personal().join("logs/2026"));
    assert!(
        rx.recv_timeout(Duration::from_secs(1)).is_err(),
        "spurious event after a read"
    );
    let before = vault.history(None, None, 100).unwrap().len();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(vault.history(None, None, 100).unwrap().len(), before);
}

#[test]
fn a_watched_full_rescan_announces_another_processes_write() {
    let f = Fixture::new();
    let vault = Arc::new(f.reopen());
    let ws = vault.workspace("personal").unwrap();
    vault.sync(&ws).unwrap();
    let rx = vault.subscribe();
    let _w = mnemo_store::watch::watch(Arc::clone(&vault), vec![ws]).unwrap();
    // "Another process": a second vault on the same home writes into a new folder.
    let other = f.reopen();
    other
        .create(
            "personal",
            &mnemo_store::NewMemory {
                path: Some("newdir/x.md".into()),
                name: "X".into(),
                description: "d".into(),
                memory_type: mnemo_core::MemoryType::User,
                body: "b".into(),
            },
            ChangeSource::User,
        )
        .unwrap();
    let ev = next_for(&rx, "newdir/x.md");
    assert_eq!(ev.source, ChangeSource::User);
}
