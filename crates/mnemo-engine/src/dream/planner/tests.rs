//! The dream planner's listing, checks and plans, on a snapshot in memory.

use super::*;

fn topic(ty: &str, name: &str, body: &str) -> Vec<u8> {
    format!("---\nname: {name}\ndescription: {name}\ntype: {ty}\n---\n{body}\n").into_bytes()
}

fn snap() -> Snapshot {
    let mut s = Snapshot::new();
    s.insert(
        "user_allergy.md".into(),
        topic("user", "Allergy", "I'm allergic to peanuts"),
    );
    s.insert(
        "user_job.md".into(),
        topic("user", "Job", "I'm a data engineer in Lisbon"),
    );
    s.insert(
        "user_peanuts.md".into(),
        topic(
            "user",
            "Peanuts",
            "The user is allergic to peanuts.\n\nPlays chess on Sundays",
        ),
    );
    s.insert(
        "pinned_note.md".into(),
        b"---\nname: P\ndescription: P\ntype: user\npinned: true\n---\nI'm allergic to peanuts\n"
            .to_vec(),
    );
    s.insert(
        "feedback_style.md".into(),
        topic("feedback", "Style", "Keep answers short"),
    );
    s
}

#[test]
fn entries_are_listed_with_ids_and_pinned_files_are_left_out() {
    let l = list(&snap());
    let shown: Vec<String> = l
        .iter()
        .map(|l| format!("{} {}:{}", l.id, l.path, l.index))
        .collect();
    assert_eq!(
        shown,
        [
            "E1 feedback_style.md:1",
            "E2 user_allergy.md:1",
            "E3 user_job.md:1",
            "E4 user_peanuts.md:1",
            "E5 user_peanuts.md:2"
        ]
    );
    assert!(numbered(&l).contains("E4 (user): The user is allergic to peanuts."));
}

#[test]
fn only_drops_that_keep_what_they_said_elsewhere_pass() {
    let l = list(&snap());
    let m = |drop: &str, keep: &str, why: &str| Merge {
        drop: drop.into(),
        keep: keep.into(),
        why: why.into(),
    };
    let p = Proposal {
        merges: vec![
            m("E4", "E2", "both say the user is allergic to peanuts"),
            m("E3", "E2", "both about the user"),
            m("E1", "E2", "same"),
            m("E2", "E2", "same"),
            m("E9", "E2", "same"),
            m("E5", "E4", ""),
        ],
        contradictions: vec![],
        prunes: vec![Prune {
            id: "E5".into(),
            why: "trivia".into(),
        }],
    };
    let c = check(&l, &p);
    assert_eq!(c.drops.len(), 1, "{c:?}");
    assert_eq!(
        (c.drops[0].gone.id.as_str(), c.drops[0].kept.id.as_str()),
        ("E4", "E2")
    );
    let refused = c.refused.join("\n");
    assert!(refused.contains("share no word"), "{refused}");
    assert!(refused.contains("different types"), "{refused}");
    assert!(refused.contains("cannot replace itself"), "{refused}");
    assert!(refused.contains("no such memory"), "{refused}");
    assert!(refused.contains("no reason"), "{refused}");
    assert_eq!(c.suggested.len(), 1);
    assert!(c.suggested[0].contains("it was kept"));
    // The plan: user_peanuts.md loses its first entry, keeps the second.
    let plan = to_plan(&snap(), &c);
    assert_eq!(plan.changes.len(), 1);
    let ch = &plan.changes[0];
    assert_eq!(
        (ch.path.as_str(), ch.entries_before, ch.entries_after),
        ("user_peanuts.md", 2, 1)
    );
    let new = ch.new.as_deref().unwrap();
    assert!(
        new.contains("Plays chess on Sundays") && !new.contains("allergic"),
        "{new}"
    );
    assert!(
        ch.reason
            .contains("merged into \"I'm allergic to peanuts\" (user_allergy.md)"),
        "{}",
        ch.reason
    );
    assert_eq!(plan.entries_merged, 1);
    assert_eq!(plan.merges[0].into, "user_allergy.md");
}

#[test]
fn a_file_left_empty_is_deleted_after_the_writes_and_a_chain_is_refused() {
    let mut s = snap();
    s.insert(
        "user_peanuts.md".into(),
        topic("user", "Peanuts", "The user is allergic to peanuts."),
    );
    let l = list(&s);
    let p = Proposal {
        merges: vec![Merge {
            drop: "E4".into(),
            keep: "E2".into(),
            why: "same allergy".into(),
        }],
        contradictions: vec![Contradiction {
            older: "E2".into(),
            newer: "E4".into(),
            why: "newer".into(),
        }],
        prunes: vec![],
    };
    let mut p = p;
    p.merges.push(Merge {
        drop: "E2".into(),
        keep: "E4".into(),
        why: "same allergy".into(),
    });
    let c = check(&l, &p);
    assert_eq!(c.drops.len(), 1);
    assert!(
        c.suggested[0].contains("may replace") && c.suggested[0].contains("both were kept"),
        "{:?}",
        c.suggested
    );
    assert!(
        c.refused[0].contains("itself removed") || c.refused[0].contains("already kept"),
        "{:?}",
        c.refused
    );
    let plan = to_plan(&s, &c);
    assert_eq!(plan.changes.len(), 1);
    assert!(plan.changes[0].new.is_none());
    assert!(
        plan.changes[0]
            .reason
            .starts_with("deleted user_peanuts.md: ")
    );
}

#[test]
fn pairs_are_of_one_type_and_share_a_word_most_alike_first() {
    let l = list(&snap());
    let pairs: Vec<(&str, &str)> = candidates(&l)
        .into_iter()
        .map(|(a, b)| (l[a].id.as_str(), l[b].id.as_str()))
        .collect();
    assert_eq!(pairs, [("E2", "E4")], "{}", numbered(&l));
    assert_eq!(schema()["required"], json!(["why", "relation"]));
}
