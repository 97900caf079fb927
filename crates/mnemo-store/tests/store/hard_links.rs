//! Hard links: a memory file that is another name for a file elsewhere on the disk is
//! listed with its problem and never read; a notes import leaves such a note out. The outside
//! file stays byte-identical.

use mnemo_core::ErrorCode;

use crate::{Fixture, topic};

#[test]
fn a_hard_link_is_listed_with_its_problem_and_never_read_or_imported() {
    let f = Fixture::new();
    let outside = f.dir.path().join("outside/private.md");
    std::fs::create_dir_all(outside.parent().unwrap()).unwrap();
    let bytes = topic("Keys", "my keys", "user", "the person's private text").into_bytes();
    std::fs::write(&outside, &bytes).unwrap();
    f.write(
        "own.md",
        topic("Own", "a memory of its own", "user", "kept"),
    );
    std::fs::hard_link(&outside, f.personal().join("linked.md")).unwrap();

    let list = f.vault.list(Some("personal"), None).unwrap();
    let linked = list.iter().find(|d| d.path == "linked.md").unwrap();
    let problem = linked.problem.as_ref().expect("a hard link has a problem");
    assert_eq!(problem.code, ErrorCode::PathEscape.as_str());
    assert!(problem.message.contains("hard link"), "{}", problem.message);
    assert!(!linked.valid);
    assert!(list.iter().any(|d| d.path == "own.md" && d.valid));

    // Shown with its problem, its content never read.
    let got = f.vault.get("personal", "linked.md").unwrap();
    assert!(got.content.is_none() && got.body.is_empty(), "{got:?}");
    let problem = got.summary.problem.as_ref().unwrap();
    assert!(
        problem.message.contains("cp --remove-destination"),
        "{}",
        problem.message
    );
    assert!(!format!("{got:?}").contains("private text"));
    assert!(
        !serde_json::to_string(&list)
            .unwrap()
            .contains("private text"),
        "nothing of it is shown"
    );
    let hits = f.vault.search(Some("personal"), "private", 10).unwrap();
    assert!(hits.iter().all(|h| h.path != "linked.md"), "{hits:?}");

    // A notes folder holding a hard link to the same file: that note is not read.
    let notes = f.dir.path().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(notes.join("a.md"), "# A note\n\nplain text\n").unwrap();
    std::fs::hard_link(&outside, notes.join("b.md")).unwrap();
    let read = mnemo_store::import::memories::notes(&notes).unwrap();
    let b = read.iter().find(|n| n.rel == "b.md").unwrap();
    assert!(b.hard_link && b.bytes.is_empty());
    assert!(read.iter().any(|n| n.rel == "a.md" && !n.hard_link));

    assert_eq!(
        std::fs::read(&outside).unwrap(),
        bytes,
        "the outside file is unchanged"
    );
}
