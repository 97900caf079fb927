//! The journal's unit tests: write-ahead, recovery, corruption.

use super::*;

#[test]
fn begin_commit_history_get() {
    let d = tempfile::tempdir().unwrap();
    let j = Journal::open(&d.path().join("journal.db")).unwrap();
    let id = j
        .begin(
            "personal",
            "a.md",
            ChangeSource::User,
            None,
            None,
            Some(b"x"),
            Some("h1"),
            None,
        )
        .unwrap();
    assert!(
        j.history(None, None, 10).unwrap().is_empty(),
        "pending rows are not history"
    );
    j.commit(id).unwrap();
    let h = j.history(Some("personal"), Some("a.md"), 10).unwrap();
    assert_eq!(h.len(), 1);
    assert_eq!(h[0].op, ChangeOp::Create);
    let c = j.get(id).unwrap();
    assert_eq!(c.after.as_deref(), Some(&b"x"[..]));
    assert_eq!(c.before, None);
    assert_eq!(j.get(999).unwrap_err().code, ErrorCode::NotFound);
}

#[test]
fn recover_keeps_applied_and_drops_unapplied() {
    let d = tempfile::tempdir().unwrap();
    let j = Journal::open(&d.path().join("journal.db")).unwrap();
    let applied = j
        .begin(
            "w",
            "a.md",
            ChangeSource::User,
            None,
            None,
            Some(b"1"),
            Some("h-a"),
            None,
        )
        .unwrap();
    let lost = j
        .begin(
            "w",
            "b.md",
            ChangeSource::User,
            None,
            None,
            Some(b"2"),
            Some("h-b"),
            None,
        )
        .unwrap();
    let n = j
        .recover(|_, p| (p == "a.md").then(|| "h-a".to_owned()))
        .unwrap();
    assert_eq!(n, 2);
    assert!(j.get(applied).is_ok());
    assert_eq!(j.get(lost).unwrap_err().code, ErrorCode::NotFound);
}

#[test]
fn corrupt_journal_is_an_error_not_a_silent_reset() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("journal.db");
    std::fs::write(&p, vec![7u8; 8192]).unwrap();
    let err = Journal::open(&p).err().unwrap();
    assert_eq!(err.code, ErrorCode::Corrupt);
    assert_eq!(
        std::fs::read(&p).unwrap(),
        vec![7u8; 8192],
        "left untouched"
    );
}
