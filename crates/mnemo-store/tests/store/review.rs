//! Review in the store: a staged group writes nothing and reads its own writes back;
//! its proposal survives a restart; 10,000 pending proposals page; old ones expire into
//! "expired" with a note; a proposal is refused a secret at proposal time; two proposals over
//! one entry — the second is a conflict once the first landed.

use mnemo_core::{ChangeSource, ErrorCode};
use mnemo_store::journal::{AcceptChoice, Origin, ProposalOrigin, ProposalStatus};

use super::{Fixture, topic};

fn staged_write(f: &Fixture, group: i64, rel: &str, text: &str) -> mnemo_core::Result<()> {
    let ws = f.vault.workspace("personal").unwrap();
    let origin = Origin {
        source: ChangeSource::Extract,
        group: Some(group),
    };
    let bytes = text.as_bytes().to_vec();
    f.vault
        .mutate(&ws, rel, origin, None, |_, _| Ok(Some(bytes)))
        .map(|_| ())
}

fn propose(f: &Fixture, rel: &str, text: &str) -> i64 {
    let group = f
        .vault
        .begin_group("personal", "extract", None, "test")
        .unwrap();
    f.vault.stage_group(group, "personal");
    staged_write(f, group, rel, text).unwrap();
    f.vault
        .finish_stage(
            group,
            ChangeSource::Extract,
            "extract",
            "test",
            &ProposalOrigin::default(),
        )
        .unwrap()
        .unwrap()
}

#[test]
fn a_staged_group_writes_nothing_reads_its_own_writes_and_survives_a_restart() {
    let f = Fixture::new();
    let group = f
        .vault
        .begin_group("personal", "extract", None, "test")
        .unwrap();
    f.vault.stage_group(group, "personal");
    let text = topic("Tea", "Drinks", "user", "- Likes green tea");
    staged_write(&f, group, "tea.md", &text).unwrap();
    assert!(!f.personal().join("tea.md").exists(), "nothing written");
    let origin = Origin {
        source: ChangeSource::Extract,
        group: Some(group),
    };
    // The job reads its own write; everyone else sees the disk.
    assert_eq!(
        f.vault
            .get_as(origin, "personal", "tea.md")
            .unwrap()
            .body
            .trim(),
        "- Likes green tea"
    );
    assert_eq!(
        f.vault.get("personal", "tea.md").unwrap_err().code,
        ErrorCode::NotFound
    );
    // A later write in the job sees the staged bytes.
    let ws = f.vault.workspace("personal").unwrap();
    let mut seen = None;
    f.vault
        .mutate(&ws, "tea.md", origin, None, |cur, _| {
            seen = cur.map(<[u8]>::to_vec);
            Ok(Some(format!("{text}\n- Likes oolong\n").into_bytes()))
        })
        .unwrap();
    assert_eq!(seen.as_deref(), Some(text.as_bytes()));
    let id = f
        .vault
        .finish_stage(
            group,
            ChangeSource::Extract,
            "extract",
            "test",
            &ProposalOrigin::default(),
        )
        .unwrap()
        .unwrap();
    assert!(
        f.vault.history(None, None, 10).unwrap().is_empty(),
        "nothing journaled"
    );

    // Kept in the journal: another process (a restart) sees it.
    let again = f.reopen();
    let p = again.proposal(id).unwrap();
    assert_eq!(p.summary.status, ProposalStatus::Pending);
    assert_eq!(p.files.len(), 1);
    assert!(p.files[0].after.as_deref().unwrap().contains("oolong"));
    let done = again.accept_proposal(id, &AcceptChoice::default()).unwrap();
    assert_eq!(done.paths, ["tea.md"]);
    assert!(
        std::fs::read_to_string(f.personal().join("tea.md"))
            .unwrap()
            .contains("oolong")
    );
}

#[test]
fn a_secret_is_refused_at_proposal_time() {
    let f = Fixture::new();
    let group = f
        .vault
        .begin_group("personal", "extract", None, "test")
        .unwrap();
    f.vault.stage_group(group, "personal");
    let e = staged_write(
        &f,
        group,
        "keys.md",
        &topic(
            "Keys",
            "Keys",
            "reference",
            "- The key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
        ),
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidContent);
    assert!(
        !e.message.contains("abcdefghijklmnop"),
        "never echoes the secret"
    );
    let none = f
        .vault
        .finish_stage(
            group,
            ChangeSource::Extract,
            "extract",
            "test",
            &ProposalOrigin::default(),
        )
        .unwrap();
    assert_eq!(none, None, "nothing to propose");
}

#[test]
fn ten_thousand_pending_proposals_page() {
    let f = Fixture::new();
    for i in 0..10_000 {
        propose(
            &f,
            &format!("p/{i}.md"),
            &topic(&format!("M{i}"), "d", "user", "- x y z"),
        );
    }
    let first = f
        .vault
        .proposals("personal", Some(ProposalStatus::Pending), 0, 50)
        .unwrap();
    assert_eq!(
        (first.total, first.pending, first.items.len()),
        (10_000, 10_000, 50)
    );
    assert_eq!(first.items[0].paths, ["p/9999.md"], "newest first");
    let last = f.vault.proposals("personal", None, 9_990, 50).unwrap();
    assert_eq!(last.items.len(), 10);
    assert_eq!(last.items[9].paths, ["p/0.md"]);
}

#[test]
fn old_proposals_expire_into_expired_with_a_note() {
    let f = Fixture::new();
    let old = propose(&f, "a.md", &topic("A", "d", "user", "- old fact here"));
    let new = propose(&f, "b.md", &topic("B", "d", "user", "- new fact here"));
    std::fs::write(
        f.dir.path().join("home/settings.toml"),
        "review_expire_days = 2\n",
    )
    .unwrap();
    let db = rusqlite::Connection::open(f.dir.path().join("home/journal.db")).unwrap();
    db.execute(
        "UPDATE proposals SET at = '2020-01-01T00:00:00.000Z' WHERE id = ?1",
        [old],
    )
    .unwrap();
    let page = f.vault.proposals("personal", None, 0, 50).unwrap();
    assert_eq!(page.pending, 1);
    let p = f.vault.proposal(old).unwrap().summary;
    assert_eq!(p.status, ProposalStatus::Expired);
    assert!(p.note.unwrap().contains("within 2 days"));
    assert_eq!(
        f.vault.proposal(new).unwrap().summary.status,
        ProposalStatus::Pending
    );
    let e = f
        .vault
        .accept_proposal(old, &AcceptChoice::default())
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    assert!(e.message.contains("expired"), "{}", e.message);
    assert!(!f.personal().join("a.md").exists());
}

#[test]
fn two_proposals_over_one_entry_the_second_is_a_conflict() {
    let f = Fixture::new();
    let base = topic("Home", "Where", "user", "- Lives in Berlin\n\n- Has a cat");
    f.write("home.md", &base);
    f.vault.sync_all().unwrap();
    let one = propose(&f, "home.md", &base.replace("Berlin", "Lisbon"));
    let two = propose(&f, "home.md", &base.replace("Berlin", "Porto"));
    f.vault
        .accept_proposal(one, &AcceptChoice::default())
        .unwrap();
    let e = f
        .vault
        .accept_proposal(two, &AcceptChoice::default())
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    let now = std::fs::read_to_string(f.personal().join("home.md")).unwrap();
    assert!(now.contains("Lisbon") && !now.contains("Porto"));
    // Rejecting it is still possible; it is then decided.
    let s = f.vault.reject_proposal(two, false).unwrap();
    assert_eq!(s.status, ProposalStatus::Rejected);
    assert_eq!(
        f.vault.reject_proposal(two, false).unwrap_err().code,
        ErrorCode::Conflict
    );
}

#[test]
fn part_of_a_merge_across_files_cannot_lose_the_fact() {
    let f = Fixture::new();
    let a = topic("A", "d", "user", "- Likes tea");
    let b = topic("B", "d", "user", "- Plays chess");
    f.write("a.md", &a);
    f.write("b.md", &b);
    f.vault.sync_all().unwrap();
    // A dream-like proposal: b.md's entry merged into a.md, b.md deleted.
    let ws = f.vault.workspace("personal").unwrap();
    let g = f.vault.begin_group("personal", "dream", None, "t").unwrap();
    f.vault.stage_group(g, "personal");
    let origin = Origin {
        source: ChangeSource::Dream,
        group: Some(g),
    };
    let merged = topic("A", "d", "user", "- Likes tea\n\n- Plays chess");
    f.vault
        .mutate(&ws, "a.md", origin, None, |_, _| {
            Ok(Some(merged.clone().into_bytes()))
        })
        .unwrap();
    f.vault
        .mutate(&ws, "b.md", origin, None, |_, _| Ok(None))
        .unwrap();
    let id = f
        .vault
        .finish_stage(
            g,
            ChangeSource::Dream,
            "dream",
            "t",
            &ProposalOrigin::default(),
        )
        .unwrap()
        .unwrap();
    let p = f.vault.proposal(id).unwrap();
    let delete = p.files.iter().find(|x| x.path == "b.md").unwrap().entries[0]
        .id
        .clone();
    let add = p.files.iter().find(|x| x.path == "a.md").unwrap().entries[0]
        .id
        .clone();
    // Only the deletion: refused, nothing written.
    let e = f
        .vault
        .accept_proposal(
            id,
            &AcceptChoice {
                entries: Some(vec![delete]),
                edits: Vec::new(),
            },
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Usage);
    assert!(e.message.contains(&add), "{}", e.message);
    assert!(f.personal().join("b.md").exists());
    // Only the addition: fine (the fact is then in both files).
    f.vault
        .accept_proposal(
            id,
            &AcceptChoice {
                entries: Some(vec![add]),
                edits: Vec::new(),
            },
        )
        .unwrap();
    assert!(f.personal().join("b.md").exists());
    assert_eq!(
        std::fs::read_to_string(f.personal().join("a.md")).unwrap(),
        merged
    );
}
