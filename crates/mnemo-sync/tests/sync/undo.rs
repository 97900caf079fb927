//! Undoing what a sync brought: the undo is a change like any other and reaches every
//! machine at the next sync — so the undo says so, and a redo before that sync keeps it.

use mnemo_core::ChangeSource;
use mnemo_store::vault::SYNC_UNDO_NOTE;

use super::gitsync::{Side, two};
use super::topic;

/// The change group `side`'s last sync wrote.
fn last_group(side: &Side) -> i64 {
    side.sync().workspaces.iter().find_map(|w| w.group).unwrap()
}

#[test]
fn undoing_a_received_group_says_it_reaches_every_machine_and_it_does() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    a.write(
        "car.md",
        &topic("Car", "car", "user", "Drives a Toyota Corolla."),
    );
    a.sync();
    let g = last_group(&b);
    let undo = b.vault.undo_group(g, ChangeSource::User).unwrap();
    assert_eq!(undo.note.as_deref(), Some(SYNC_UNDO_NOTE));
    assert!(b.read("car.md").is_none());
    // Redone before the next sync: nothing leaves (the redo is the person's: no note).
    let redo = b.vault.undo_group(undo.group, ChangeSource::User).unwrap();
    assert_eq!(redo.note, None);
    b.sync();
    a.sync();
    assert!(a.read("car.md").is_some() && b.read("car.md").is_some());
    // Undone and synced: gone on the machine that wrote it too, as the note says.
    a.write(
        "bike.md",
        &topic("Bike", "bike", "user", "Rides a blue bike."),
    );
    a.sync();
    let g = last_group(&b);
    assert!(b.read("bike.md").is_some());
    b.vault.undo_group(g, ChangeSource::User).unwrap();
    b.sync();
    a.sync();
    assert!(a.read("bike.md").is_none());
    assert_eq!(a.files(), b.files());
}
