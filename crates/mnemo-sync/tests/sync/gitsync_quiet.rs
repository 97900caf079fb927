//! A sync with nothing to do: answered from `stat` and the remote's branches alone,
//! and every kind of change since — on the remote, in a file here (also one rewritten to the
//! same size at once), a file added or removed, a switch in the settings — still makes a full
//! round that carries it.

use std::time::Duration;

use mnemo_sync::quiet_syncs;

use super::gitsync::{Side, two};
use super::topic;

/// Past the racy-file window: a file's stamp stands for its bytes only once it is this old.
fn settle() {
    std::thread::sleep(Duration::from_millis(2_200));
}

/// Settle, then a full round (it changes nothing and arms the quiet path), then a sync that
/// must be quiet: its report is the full round's, with the time moved on.
fn arm_and_check_quiet(s: &Side) {
    settle();
    let full = s.sync();
    let before = quiet_syncs(&s.vault.home().root);
    let quiet = s.sync();
    assert_eq!(
        quiet_syncs(&s.vault.home().root),
        before + 1,
        "a sync with nothing to do was not quiet"
    );
    assert_eq!(quiet.commit, full.commit);
    assert_eq!(quiet.workspaces.len(), full.workspaces.len());
    for (q, f) in quiet.workspaces.iter().zip(&full.workspaces) {
        assert_eq!(
            (&q.workspace, q.pending, q.incoming),
            (&f.workspace, f.pending, f.incoming)
        );
    }
    let (q, f) = (quiet.last_run.unwrap(), full.last_run.unwrap());
    assert!(q.at >= f.at && q.error.is_none(), "{q:?} {f:?}");
}

#[test]
fn an_idle_sync_is_quiet_and_every_change_since_still_travels() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _remote) = two(t.path());
    a.write(
        "user_a.md",
        &topic("A", "a fact", "user", "The user likes tea."),
    );
    a.sync();
    b.sync();
    assert_eq!(b.read("user_a.md"), a.read("user_a.md"));

    // The remote moved on (another home pushed): the next sync takes it.
    arm_and_check_quiet(&a);
    b.write(
        "user_b.md",
        &topic("B", "b fact", "user", "The user cycles."),
    );
    b.sync();
    a.sync();
    assert_eq!(a.read("user_b.md"), b.read("user_b.md"));
    assert_eq!(
        quiet_syncs(&a.vault.home().root),
        0,
        "a round ran, not the quiet path"
    );

    // A file here rewritten at once to the same size (its stamp may keep its second).
    arm_and_check_quiet(&a);
    let same_size = topic("A", "a fact", "user", "The user likes tee.");
    assert_eq!(same_size.len(), a.read("user_a.md").unwrap().len());
    a.write("user_a.md", &same_size);
    a.sync();
    b.sync();
    assert_eq!(b.read("user_a.md").as_deref(), Some(same_size.as_str()));

    // A file added in a new folder, and one removed.
    arm_and_check_quiet(&a);
    a.write(
        "notes/project_c.md",
        &topic("C", "c fact", "project", "Ships in May."),
    );
    std::fs::remove_file(a.root().join("user_b.md")).unwrap();
    a.sync();
    b.sync();
    assert!(b.read("notes/project_c.md").is_some());
    assert_eq!(b.read("user_b.md"), None);

    // A per-workspace switch in the settings (no memory file changed).
    arm_and_check_quiet(&a);
    mnemo_store::settings::set_switch(&a.dir.join("home"), "auto_dream", "personal", false)
        .unwrap();
    a.sync();
    b.sync();
    assert_eq!(
        mnemo_store::settings::switch(&b.dir.join("home"), "auto_dream", "personal"),
        Some(false)
    );

    // Both homes end equal, and still quiet when nothing more happens.
    assert_eq!(a.files(), b.files());
    arm_and_check_quiet(&b);
}
