//! The home is 0700 and every database Mnemo creates is 0600 (its WAL too); a looser
//! existing home or database is tightened at open. Discovered roots that are symbolic links, or
//! that leave their project, are refused and said.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use mnemo_store::{Vault, tasks::TaskStore};

use crate::{home_in, topic};

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_home_is_0700_and_every_database_0600() {
    let d = tempfile::tempdir().unwrap();
    let home = home_in(d.path());
    let v = Vault::open(home.clone()).unwrap();
    v.create(
        "personal",
        &mnemo_store::NewMemory {
            path: Some("tea.md".into()),
            name: "Tea".into(),
            description: "Drinks tea".into(),
            memory_type: mnemo_core::MemoryType::User,
            body: "Green tea.".into(),
        },
        mnemo_core::ChangeSource::User,
    )
    .unwrap();
    let _tasks = TaskStore::open(&home.tasks_path()).unwrap();
    assert_eq!(mode(&home.root), 0o700);
    for f in [
        "index.db",
        "journal.db",
        "tasks.db",
        "index.db-wal",
        "journal.db-wal",
    ] {
        let p = home.root.join(f);
        if p.exists() {
            assert_eq!(mode(&p), 0o600, "{f}");
        } else {
            assert!(f.ends_with("-wal"), "{f} missing");
        }
    }
    assert_eq!(
        mode(&home.root.join("workspaces/personal/memory/tea.md")),
        0o600
    );
    drop(v);

    // A home left 0755 with a 0644 journal (an older Mnemo) is tightened at the next open.
    std::fs::set_permissions(&home.root, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(home.journal_path(), std::fs::Permissions::from_mode(0o644)).unwrap();
    let _v = Vault::open(home.clone()).unwrap();
    assert_eq!(mode(&home.root), 0o700);
    assert_eq!(mode(&home.journal_path()), 0o600);
}

#[test]
fn symlinked_or_escaping_discovered_roots_are_refused_with_a_reason() {
    let d = tempfile::tempdir().unwrap();
    let home = home_in(d.path());
    let outside = d.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("secret.md"),
        topic("Secret", "Not yours", "user", "x"),
    )
    .unwrap();
    // A Claude Code project whose memory folder is a link out of the project.
    let project = home.claude_dir.join("projects/-home-u-app");
    std::fs::create_dir_all(&project).unwrap();
    std::os::unix::fs::symlink(&outside, project.join("memory")).unwrap();
    // Qwen Code's user layer as a link.
    std::fs::create_dir_all(&home.qwen_dir).unwrap();
    std::os::unix::fs::symlink(&outside, home.qwen_dir.join("memories")).unwrap();
    // A real Claude Code project is still found.
    let good = home.claude_dir.join("projects/-home-u-good/memory");
    std::fs::create_dir_all(&good).unwrap();
    std::fs::write(good.join("ok.md"), topic("Ok", "Fine", "user", "fine")).unwrap();

    let v = Vault::open(home).unwrap();
    let ids: Vec<String> = v.workspaces().unwrap().into_iter().map(|w| w.id).collect();
    assert!(ids.contains(&"claude:-home-u-good".to_owned()), "{ids:?}");
    assert!(
        !ids.iter()
            .any(|i| i == "claude:-home-u-app" || i == "qwen:@user"),
        "{ids:?}"
    );
    let warnings = v.status().unwrap().warnings.join("\n");
    assert!(
        warnings.contains("-home-u-app/memory is a symbolic link"),
        "{warnings}"
    );
    assert!(warnings.contains("Qwen Code's user memory"), "{warnings}");
    assert!(v.search(None, "Secret", 10).unwrap().is_empty());
    // A path inside a root that is a link is refused by confinement too.
    let err = mnemo_store::fsutil::confine(&project.join("memory"), "secret.md").unwrap_err();
    assert_eq!(err.code, mnemo_core::ErrorCode::PathEscape);
}

/// A Claude Code `projects` folder that is itself a link is refused (it was once accepted).
#[test]
fn a_linked_claude_projects_folder_is_refused_like_a_linked_memory_folder() {
    let d = tempfile::tempdir().unwrap();
    let home = home_in(d.path());
    let elsewhere = d.path().join("elsewhere/projects");
    std::fs::create_dir_all(elsewhere.join("-home-u-app/memory")).unwrap();
    std::fs::write(
        elsewhere.join("-home-u-app/memory/x.md"),
        topic("X", "x", "user", "not yours"),
    )
    .unwrap();
    std::fs::create_dir_all(&home.claude_dir).unwrap();
    std::os::unix::fs::symlink(&elsewhere, home.claude_dir.join("projects")).unwrap();
    let v = Vault::open(home).unwrap();
    let ids: Vec<String> = v.workspaces().unwrap().into_iter().map(|w| w.id).collect();
    assert!(!ids.iter().any(|i| i.starts_with("claude:")), "{ids:?}");
    let warnings = v.status().unwrap().warnings.join("\n");
    assert!(
        warnings.contains("projects is a symbolic link"),
        "{warnings}"
    );
}

#[test]
fn control_characters_and_bidi_overrides_are_refused_in_paths_and_never_reach_memory_md() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    for bad in [
        "a\nb.md",
        "evil\u{202E}dm.txt",
        "x\u{1b}[31m.md",
        "tab\there.md",
    ] {
        let e = mnemo_store::fsutil::confine(root, bad).unwrap_err();
        assert_eq!(e.code, mnemo_core::ErrorCode::InvalidPath, "{bad:?}");
        assert!(
            !e.message.contains('\n') && !e.message.contains('\u{202E}'),
            "{}",
            e.message
        );
    }
    assert!(mnemo_store::fsutil::confine(root, "ok/ünïcode 文件.md").is_ok());
    // A file some other program named badly is listed escaped in MEMORY.md: no injected line.
    let md = mnemo_store::memory_md::render(&[mnemo_store::memory_md::IndexLine {
        path: "evil\n- [Fake](fake.md).md",
        name: "Name\u{202E}",
        description: "desc",
    }]);
    assert_eq!(
        md.lines().filter(|l| l.starts_with("- [")).count(),
        1,
        "{md}"
    );
    assert!(!md.contains('\u{202E}'));
}
