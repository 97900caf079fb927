//! The search planner at sizes where it matters: common words, the newest-matches window, the
//! typed prefix.

use std::time::{Duration, SystemTime};

use super::{Fixture, topic};

/// The paths a search in `personal` finds, sorted.
fn found(f: &Fixture, q: &str) -> Vec<String> {
    let mut p: Vec<String> = f
        .vault
        .search(Some("personal"), q, 10)
        .unwrap()
        .into_iter()
        .map(|h| h.path)
        .collect();
    p.sort();
    p
}

/// Set a file's mtime (the index's "newest").
fn age(p: &std::path::Path, days_ago: u64) {
    let t = SystemTime::now() - Duration::from_secs(days_ago * 86_400);
    std::fs::File::options()
        .write(true)
        .open(p)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

#[test]
fn a_word_in_most_memories_ranks_the_newest_and_a_rare_word_still_decides() {
    let f = Fixture::new();
    // 2,300 memories all about "deploy"; the best-scoring one by bm25 (the word three times in
    // its name) is also the oldest.
    for i in 0..2_300 {
        let p = f.write(
            &format!("m/{i:05}.md"),
            topic(
                &format!("Note {i}"),
                "deploy notes",
                "project",
                &format!("deploy step {i}"),
            ),
        );
        age(&p, 400 - (i as u64 % 300));
    }
    let best = f.write(
        "oldest.md",
        topic(
            "deploy deploy deploy",
            "deploy",
            "project",
            "deploy deploy, and a kiwi",
        ),
    );
    age(&best, 1_000);
    f.vault.rebuild().unwrap();
    let hits = f.vault.search(Some("personal"), "deploy", 10).unwrap();
    assert_eq!(hits.len(), 10);
    assert!(
        hits.iter().all(|h| h.path != "oldest.md"),
        "only the newest 2,000 matches of a word in every memory are ranked"
    );
    // A rarer word in the query decides, across every memory, however old.
    let hits = f.vault.search(Some("personal"), "deploy kiwi", 10).unwrap();
    assert_eq!(hits[0].path, "oldest.md");

    // Changing the old memory makes it new: it enters the window.
    std::fs::write(
        &best,
        topic(
            "deploy deploy deploy",
            "deploy",
            "project",
            "deploy deploy, edited",
        ),
    )
    .unwrap();
    let hits = f.vault.search(Some("personal"), "deploy", 10).unwrap();
    assert_eq!(hits[0].path, "oldest.md", "{hits:?}");
}

#[test]
fn the_last_word_is_a_prefix_only_while_it_is_being_typed() {
    let f = Fixture::new();
    f.write(
        "a.md",
        topic("Car", "the car", "project", "the car is parked outside"),
    );
    f.write(
        "b.md",
        topic(
            "Cargo",
            "cargo builds",
            "project",
            "cargo builds the workspace",
        ),
    );
    let paths = |q: &str| found(&f, q);
    assert_eq!(paths("ca"), Vec::<String>::new(), "two letters: no prefix");
    assert_eq!(
        paths("car"),
        ["a.md"],
        "a whole word of the index: that word"
    );
    assert_eq!(paths("car "), ["a.md"]);
    assert_eq!(paths("carg"), ["b.md"], "still typing: a prefix");
}

#[test]
fn an_english_word_finds_its_other_forms() {
    let f = Fixture::new();
    f.write(
        "a.md",
        topic("Deploy", "how we deploy", "project", "deploy on Tuesdays"),
    );
    f.write(
        "b.md",
        topic(
            "Deployment",
            "deployment windows",
            "project",
            "deployments freeze in December",
        ),
    );
    f.write(
        "c.md",
        topic("Sunrise", "a painting", "user", "Melanie painted a sunrise"),
    );
    let paths = |q: &str| found(&f, q);
    assert_eq!(
        paths("deploy"),
        ["a.md", "b.md"],
        "deployment and deployments are forms of deploy"
    );
    assert_eq!(paths("deploying"), ["a.md", "b.md"]);
    assert_eq!(paths("depl"), ["a.md", "b.md"], "still typing: a prefix");
    assert_eq!(
        paths("deploym"),
        ["b.md"],
        "the typed letters, not the stem"
    );
    assert_eq!(paths("paints"), ["c.md"]);
    assert_eq!(paths("who paints sunrises"), ["c.md"]);
    // Words of other scripts are left alone.
    assert_eq!(paths("painté"), Vec::<String>::new());
}
