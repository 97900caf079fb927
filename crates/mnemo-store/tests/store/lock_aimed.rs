//! Locks that cannot be aimed: a repository that commits symbolic links under every
//! lock and temp name Mnemo uses, and a linked Claude Code `.consolidate-lock`, leave their
//! targets byte-identical and create nothing outside.

use std::os::unix::fs::symlink;
use std::path::Path;

use mnemo_core::{ErrorCode, WorkspaceKind};
use mnemo_store::Workspace;
use mnemo_store::lock::{CLAUDE_LOCK_FILE, LOCK_FILE, acquire, acquire_workspace, holder_for};

fn victim(t: &Path) -> (std::path::PathBuf, Vec<u8>) {
    let v = t.join("outside/victim.txt");
    std::fs::create_dir_all(v.parent().unwrap()).unwrap();
    let bytes = b"the person's own file\n".to_vec();
    std::fs::write(&v, &bytes).unwrap();
    (v, bytes)
}

/// Links under every name a lock or its temp file could take in `dir` (this process's PID, and
/// the first thousand counters of the old `tmp-<pid>-<n>` scheme).
fn plant(dir: &Path, target: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let pid = std::process::id();
    for n in 0..1000 {
        symlink(target, dir.join(format!(".{LOCK_FILE}.tmp-{pid}-{n}"))).unwrap();
    }
}

fn team(t: &Path) -> Workspace {
    let repo = t.join("repo");
    Workspace {
        id: "qwen:@team:repo".into(),
        kind: WorkspaceKind::Qwen,
        label: "repo — Qwen Code team memory".into(),
        origin: repo.join(".qwen/team-memory").display().to_string(),
        memory_root: repo.join(".qwen/team-memory"),
        state_dir: t.join("home/external/qwen/@team-repo"),
        lock_dir: repo.join(".qwen"),
        shared: None,
    }
}

#[test]
fn a_repository_full_of_links_under_lock_names_cannot_aim_a_dream_s_lock() {
    let t = tempfile::tempdir().unwrap();
    let (v, bytes) = victim(t.path());
    let ws = team(t.path());
    std::fs::create_dir_all(&ws.memory_root).unwrap();
    plant(&ws.lock_dir, &v);
    symlink(&v, ws.lock_dir.join(LOCK_FILE)).unwrap();
    plant(&ws.state_dir, &v);
    let lock = acquire_workspace(&ws).unwrap();
    assert!(
        lock.path().starts_with(&ws.state_dir),
        "Mnemo's own lock, under its home"
    );
    assert!(holder_for(&ws).is_some());
    drop(lock);
    assert_eq!(std::fs::read(&v).unwrap(), bytes, "the target is untouched");
    assert!(
        std::fs::symlink_metadata(ws.lock_dir.join(LOCK_FILE))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the repository's files are left as they are"
    );
    // The same for a lock dir of its own (Qwen Code's project state, Mnemo's workspaces).
    let dir = t.path().join("lockdir");
    plant(&dir, &v);
    drop(acquire(&dir).unwrap());
    assert_eq!(std::fs::read(&v).unwrap(), bytes);
}

#[test]
fn qwen_code_s_own_team_lock_in_the_repository_is_respected() {
    let t = tempfile::tempdir().unwrap();
    let ws = team(t.path());
    std::fs::create_dir_all(&ws.lock_dir).unwrap();
    // PID 1 is always alive: Qwen Code is consolidating the team memory.
    std::fs::write(ws.lock_dir.join(LOCK_FILE), "1").unwrap();
    let e = acquire_workspace(&ws).unwrap_err();
    assert_eq!(e.code, ErrorCode::Locked, "{e}");
}

#[test]
fn a_linked_claude_lock_is_refused_and_its_target_untouched() {
    let t = tempfile::tempdir().unwrap();
    let (v, bytes) = victim(t.path());
    let ws = Workspace {
        id: "claude:-p".into(),
        kind: WorkspaceKind::Claude,
        label: "p".into(),
        origin: "p".into(),
        memory_root: t.path().join("claude/projects/-p/memory"),
        state_dir: t.path().join("home/external/claude/-p"),
        lock_dir: t.path().join("home/external/claude/-p"),
        shared: None,
    };
    std::fs::create_dir_all(&ws.memory_root).unwrap();
    let lock = ws.memory_root.join(CLAUDE_LOCK_FILE);
    symlink(&v, &lock).unwrap();
    let e = acquire_workspace(&ws).unwrap_err();
    assert_eq!(e.code, ErrorCode::PathEscape, "{e}");
    assert!(e.message.contains("Remove it"), "{e}");
    assert_eq!(std::fs::read(&v).unwrap(), bytes);
    // A dangling link creates nothing where it points.
    std::fs::remove_file(&lock).unwrap();
    let nowhere = t.path().join("outside/created.txt");
    symlink(&nowhere, &lock).unwrap();
    assert!(acquire_workspace(&ws).is_err());
    assert!(!nowhere.exists());
    // A plain file works as before.
    std::fs::remove_file(&lock).unwrap();
    let mut held = acquire_workspace(&ws).unwrap();
    held.succeeded();
    drop(held);
    assert!(std::fs::symlink_metadata(&lock).unwrap().is_file());
}
