use mnemo_core::{ChangeSource, ErrorCode, MemoryType};
use mnemo_store::{NewMemory, Patch, lock};

use crate::{Fixture, topic};

fn problem_of(f: &Fixture, path: &str) -> Option<String> {
    let list = f.vault.list(Some("personal"), None).unwrap();
    let d = list
        .iter()
        .find(|d| d.path == path)
        .unwrap_or_else(|| panic!("{path} not listed: {list:?}"));
    assert_eq!(d.valid, d.problem.is_none());
    d.problem.as_ref().map(|p| p.code.clone())
}

#[test]
fn bad_files_are_listed_flagged_and_left_untouched() {
    let f = Fixture::new();
    let cases: Vec<(&str, Vec<u8>, Option<&str>)> = vec![
        (
            "missing.md",
            b"just some text\n".to_vec(),
            Some("invalid_frontmatter"),
        ),
        (
            "broken.md",
            b"---\nname: [oops\n---\nx\n".to_vec(),
            Some("invalid_frontmatter"),
        ),
        (
            "unclosed.md",
            b"---\nname: a\ndescription: b\n".to_vec(),
            Some("invalid_frontmatter"),
        ),
        (
            "badtype.md",
            topic("A", "b", "note", "x").into_bytes(),
            Some("invalid_type"),
        ),
        (
            "binary.md",
            vec![0x89, b'P', b'N', b'G', 0, 0, 1, 2],
            Some("invalid_content"),
        ),
        (
            "latin1.md",
            b"---\nname: caf\xe9\n---\n".to_vec(),
            Some("invalid_content"),
        ),
        ("empty.md", Vec::new(), Some("invalid_frontmatter")),
        (
            "crlf.md",
            topic("C", "crlf file", "user", "line")
                .replace('\n', "\r\n")
                .into_bytes(),
            None,
        ),
        (
            "bom.md",
            format!("\u{feff}{}", topic("B", "bom file", "user", "x")).into_bytes(),
            None,
        ),
    ];
    for (name, bytes, _) in &cases {
        f.write(name, bytes);
    }
    for (name, bytes, code) in &cases {
        assert_eq!(problem_of(&f, name).as_deref(), *code, "{name}");
        assert_eq!(
            &std::fs::read(f.personal().join(name)).unwrap(),
            bytes,
            "{name} untouched"
        );
    }
    // Shown read-only: binary content is not echoed, text content is exact.
    assert!(
        f.vault
            .get("personal", "binary.md")
            .unwrap()
            .content
            .is_none()
    );
    let crlf = f.vault.get("personal", "crlf.md").unwrap();
    assert_eq!(crlf.content.unwrap().into_bytes(), cases[7].1);
    // Flagged files are searchable by name and never make it into MEMORY.md.
    let md = std::fs::read_to_string(f.personal().join("MEMORY.md")).unwrap_or_default();
    assert!(!md.contains("binary.md") && !md.contains("missing.md"));
}

#[test]
fn a_fifty_megabyte_file_is_flagged_not_loaded_and_not_editable() {
    let f = Fixture::new();
    let p = f.personal().join("huge.md");
    std::fs::File::create(&p)
        .unwrap()
        .set_len(50 * 1024 * 1024)
        .unwrap();
    assert_eq!(problem_of(&f, "huge.md").as_deref(), Some("too_large"));
    let patch = Patch {
        body: Some("x".into()),
        ..Patch::default()
    };
    assert_eq!(
        f.vault
            .update("personal", "huge.md", &patch, ChangeSource::User)
            .unwrap_err()
            .code,
        ErrorCode::TooLarge
    );
    assert_eq!(std::fs::metadata(&p).unwrap().len(), 50 * 1024 * 1024);
    let huge_body = NewMemory {
        path: None,
        name: "Big".into(),
        description: "d".into(),
        memory_type: MemoryType::User,
        body: "x".repeat(2 * 1024 * 1024),
    };
    assert_eq!(
        f.vault
            .create("personal", &huge_body, ChangeSource::User)
            .unwrap_err()
            .code,
        ErrorCode::TooLarge
    );
}

#[test]
fn editing_a_crlf_bom_file_keeps_its_style() {
    let f = Fixture::new();
    let text = format!(
        "\u{feff}{}",
        topic("C", "d", "user", "one").replace('\n', "\r\n")
    );
    f.write("c.md", &text);
    let patch = Patch {
        body: Some("two\nthree".into()),
        ..Patch::default()
    };
    f.vault
        .update("personal", "c.md", &patch, ChangeSource::User)
        .unwrap();
    let after = std::fs::read_to_string(f.personal().join("c.md")).unwrap();
    assert!(after.starts_with('\u{feff}'));
    assert!(after.ends_with("two\r\nthree\r\n"));
    assert!(!after.replace("\r\n", "").contains('\n'));
}

#[test]
fn paths_outside_the_root_are_refused_everywhere() {
    let f = Fixture::new();
    let outside = f.dir.path().join("outside.md");
    std::fs::write(&outside, topic("S", "secret", "user", "secret")).unwrap();
    let new = |p: &str| NewMemory {
        path: Some(p.into()),
        name: "n".into(),
        description: "d".into(),
        memory_type: MemoryType::User,
        body: String::new(),
    };
    for bad in [
        "../outside.md",
        "/etc/passwd.md",
        "a/../../outside.md",
        outside.to_str().unwrap(),
    ] {
        assert_eq!(
            f.vault
                .create("personal", &new(bad), ChangeSource::User)
                .unwrap_err()
                .code,
            ErrorCode::PathEscape,
            "{bad}"
        );
        assert_eq!(
            f.vault.get("personal", bad).unwrap_err().code,
            ErrorCode::PathEscape,
            "{bad}"
        );
        assert_eq!(
            f.vault
                .delete("personal", bad, ChangeSource::User)
                .unwrap_err()
                .code,
            ErrorCode::PathEscape,
            "{bad}"
        );
    }
    std::os::unix::fs::symlink(&outside, f.personal().join("link.md")).unwrap();
    std::os::unix::fs::symlink(f.dir.path(), f.personal().join("dirlink")).unwrap();
    assert_eq!(
        f.vault.get("personal", "link.md").unwrap_err().code,
        ErrorCode::PathEscape
    );
    assert_eq!(
        f.vault
            .delete("personal", "link.md", ChangeSource::User)
            .unwrap_err()
            .code,
        ErrorCode::PathEscape
    );
    assert_eq!(
        f.vault
            .create("personal", &new("dirlink/x.md"), ChangeSource::User)
            .unwrap_err()
            .code,
        ErrorCode::PathEscape
    );
    // Never indexed, never read.
    assert!(f.vault.list(Some("personal"), None).unwrap().is_empty());
    assert!(
        f.vault
            .search(Some("personal"), "secret", 5)
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        topic("S", "secret", "user", "secret")
    );
    // Non-memory targets are refused with a usage error.
    assert_eq!(
        f.vault.get("personal", "MEMORY.md").unwrap_err().code,
        ErrorCode::Usage
    );
    assert_eq!(
        f.vault
            .create("personal", &new("notes.txt.md/../x"), ChangeSource::User)
            .unwrap_err()
            .code,
        ErrorCode::PathEscape
    );
}

#[test]
fn a_file_deleted_between_scan_and_read_is_dropped_quietly() {
    let f = Fixture::new();
    f.write("a.md", topic("A", "a", "user", "x"));
    f.vault.sync_all().unwrap();
    std::fs::remove_file(f.personal().join("a.md")).unwrap();
    // The watcher reports a path that no longer exists.
    let ws = f.vault.workspace("personal").unwrap();
    let changed = f
        .vault
        .apply_paths(&ws, &["a.md".into(), "never-existed.md".into()])
        .unwrap();
    assert_eq!(changed.len(), 1);
    assert!(f.vault.list(Some("personal"), None).unwrap().is_empty());
    assert_eq!(
        mnemo_store::doc::analyze_in(
            &mnemo_store::rootdir::RootDir::open(&f.personal()).unwrap(),
            "a.md",
            mnemo_store::doc::DocKind::Topic,
        )
        .unwrap()
        .map(|_| ()),
        None
    );
}

#[test]
fn a_corrupt_index_is_moved_aside_and_rebuilt_from_files() {
    let f = Fixture::new();
    f.vault
        .create(
            "personal",
            &NewMemory {
                path: None,
                name: "Kept".into(),
                description: "survives index loss".into(),
                memory_type: MemoryType::User,
                body: "zebra".into(),
            },
            ChangeSource::User,
        )
        .unwrap();
    let index = f.dir.path().join("home/index.db");
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", index.display()));
    }
    std::fs::write(
        &index,
        b"this is not a sqlite database at all, just garbage bytes....",
    )
    .unwrap();
    let v = f.reopen();
    assert!(
        v.warnings().iter().any(|w| w.contains("index.db")),
        "{:?}",
        v.warnings()
    );
    assert_eq!(
        v.search(Some("personal"), "zebra", 5).unwrap()[0].path,
        "kept.md"
    );
    let aside = std::fs::read_dir(f.dir.path().join("home"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("index.db.corrupt-")
        })
        .count();
    assert_eq!(aside, 1);
    // The journal lives apart and survived.
    assert_eq!(v.history(None, None, 10).unwrap().len(), 1);
    // Deleting the index loses nothing either.
    drop(v);
    std::fs::remove_file(&index).unwrap();
    let v = f.reopen();
    assert_eq!(v.list(None, None).unwrap().len(), 1);
}

#[test]
fn corrupt_meta_is_recovered_with_a_warning() {
    let f = Fixture::new();
    let state = f.dir.path().join("home/workspaces/personal");
    std::fs::write(state.join("meta.json"), b"{{{{").unwrap();
    let status = f.vault.status().unwrap();
    assert!(status.warnings.iter().any(|w| w.contains("meta.json")));
    let names: Vec<String> = std::fs::read_dir(&state)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(names.iter().any(|n| n.starts_with("meta.json.corrupt-")));
}

#[test]
fn a_corrupt_lock_is_reported_free_in_status() {
    let f = Fixture::new();
    let state = f.dir.path().join("home/workspaces/personal");
    let p = state.join(lock::LOCK_FILE);
    std::fs::write(&p, "not-a-pid").unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let st = f.vault.status().unwrap();
    assert_eq!(st.workspaces[0].consolidation_locked_by, None);
    let g = lock::acquire(&state).unwrap();
    assert_eq!(
        f.vault.status().unwrap().workspaces[0].consolidation_locked_by,
        Some(std::process::id())
    );
    drop(g);
}

#[test]
fn an_interrupted_write_is_settled_on_open() {
    let f = Fixture::new();
    // Simulate a crash after the journal row was written but before the rename happened.
    let j = mnemo_store::journal::Journal::open(&f.dir.path().join("home/journal.db")).unwrap();
    let id = j
        .begin(
            "personal",
            "ghost.md",
            ChangeSource::User,
            None,
            None,
            Some(b"x"),
            Some("h"),
            None,
        )
        .unwrap();
    drop(j);
    let v = f.reopen();
    assert_eq!(v.change(id).unwrap_err().code, ErrorCode::NotFound);
}

#[test]
fn fifos_and_folders_named_md_are_not_documents() {
    let f = Fixture::new();
    f.write("ok.md", topic("Ok", "fine", "user", "x"));
    std::fs::create_dir_all(f.personal().join("folder.md")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(f.personal().join("pipe.md"))
        .status()
        .unwrap();
    assert!(status.success());
    let ws = f.vault.workspace("personal").unwrap();
    // Neither a full scan nor a targeted update blocks on the FIFO or fails on the folder.
    let list = f.vault.list(Some("personal"), None).unwrap();
    assert_eq!(
        list.iter().map(|d| d.path.as_str()).collect::<Vec<_>>(),
        ["ok.md"]
    );
    f.vault
        .apply_paths(&ws, &["pipe.md".into(), "folder.md".into()])
        .unwrap();
}

#[test]
fn a_dangling_symlink_behind_a_symlinked_folder_is_refused() {
    let f = Fixture::new();
    let outside = f.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink("x-does-not-exist", outside.join("d.md")).unwrap();
    std::os::unix::fs::symlink(&outside, f.personal().join("alias")).unwrap();
    let new = NewMemory {
        path: Some("alias/d.md".into()),
        name: "n".into(),
        description: "d".into(),
        memory_type: MemoryType::User,
        body: String::new(),
    };
    assert_eq!(
        f.vault
            .create("personal", &new, ChangeSource::User)
            .unwrap_err()
            .code,
        ErrorCode::PathEscape
    );
    assert!(!outside.join("x-does-not-exist").exists());
}

#[test]
fn memory_md_is_reserved_whatever_its_case() {
    let f = Fixture::new();
    let new = NewMemory {
        path: None,
        name: "Memory".into(),
        description: "d".into(),
        memory_type: MemoryType::User,
        body: String::new(),
    };
    assert_eq!(
        f.vault
            .create("personal", &new, ChangeSource::User)
            .unwrap_err()
            .code,
        ErrorCode::Usage
    );
}

#[test]
fn an_outside_rewrite_of_a_non_utf8_file_can_be_undone_exactly() {
    let f = Fixture::new();
    let latin1 = b"---\nname: caf\xe9\n---\n".to_vec();
    f.write("l.md", &latin1);
    f.vault.sync_all().unwrap();
    f.write("l.md", topic("Cafe", "now utf-8", "user", "x"));
    f.vault.sync_all().unwrap();
    let h = f.vault.history(Some("personal"), Some("l.md"), 5).unwrap();
    assert_eq!(h[0].source, ChangeSource::Watcher);
    f.vault.undo(h[0].id, ChangeSource::User).unwrap();
    assert_eq!(std::fs::read(f.personal().join("l.md")).unwrap(), latin1);
}

#[test]
fn rebuild_journals_outside_edits_it_finds_first() {
    let f = Fixture::new();
    f.write("a.md", topic("A", "a", "user", "before"));
    f.vault.sync_all().unwrap();
    f.write("a.md", topic("A", "a", "user", "after, longer body"));
    f.vault.rebuild().unwrap();
    let h = f.vault.history(Some("personal"), Some("a.md"), 5).unwrap();
    assert_eq!(h.len(), 1);
    assert_eq!(h[0].op, mnemo_store::journal::ChangeOp::Modify);
}
