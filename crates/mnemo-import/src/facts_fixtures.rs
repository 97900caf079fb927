//! Fact imports planned end to end from fixtures in the shape each tool exports
//! (`tests/fixtures/import-facts/`): what is told apart, what is kept of each item, and the
//! names and descriptions of the files written.

use chrono::{DateTime, Utc};

use super::ImportFormat;
use super::ImportOptions;
use super::memories;
use super::plan::{Existing, FactPlanner, ImportPlan};
use mnemo_text::format::TopicFile;

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import-facts")
        .join(name)
}

fn day() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-04T10:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

/// A fixture planned as an import of `format` into a workspace holding `existing`.
fn plan_of(name: &str, format: ImportFormat, existing: &Existing) -> ImportPlan {
    let opts = ImportOptions::default();
    let mut p = FactPlanner::new(format, &opts, existing, day());
    memories::for_each(&fixture(name), format, |c| p.add(&c)).unwrap();
    p.finish()
}

/// Each file as (path, name, description, body).
fn files(plan: &ImportPlan) -> Vec<(String, String, String, String)> {
    plan.files
        .iter()
        .map(|f| {
            let file = TopicFile::parse(std::str::from_utf8(&f.bytes).unwrap());
            (
                f.path.clone(),
                file.fields.name.clone().unwrap_or_default(),
                file.fields.description.clone().unwrap_or_default(),
                file.body().to_owned(),
            )
        })
        .collect()
}

/// Each file's path, name and description.
fn heads_of(got: &[(String, String, String, String)]) -> Vec<(&str, &str, &str)> {
    got.iter()
        .map(|(p, n, d, _)| (p.as_str(), n.as_str(), d.as_str()))
        .collect()
}

fn reasons(plan: &ImportPlan) -> Vec<String> {
    plan.preview
        .reasons
        .iter()
        .map(|r| format!("{}: {}", r.item, r.reason))
        .collect()
}

/// The workspace after `plan` was applied to it.
fn after(plan: &ImportPlan) -> Existing {
    let mut e = Existing::default();
    for f in &plan.files {
        e.add_file(&f.path, &f.bytes);
    }
    e
}

#[test]
fn claude_mem_observations_are_told_apart_by_id_and_text_and_keep_their_details() {
    // An observation of another project sharing a title was skipped as "the same as item
    // 1"; its kind, concepts and files were dropped.
    let plan = plan_of(
        "claude-mem.json",
        ImportFormat::ClaudeMem,
        &Existing::default(),
    );
    let pv = &plan.preview;
    assert_eq!(
        (pv.items, pv.memories, pv.duplicates, pv.skipped),
        (7, 5, 2, 0)
    );
    assert_eq!(
        reasons(&plan),
        vec![
            "item 4: its id 11 is also item 1's, with other text (an export of another \
             database reuses ids): both kept",
            "item 5: its id 11 appears twice (first at item 1): kept once",
            "item 6: the same as item 2",
        ]
    );
    let got = files(&plan);
    let heads = heads_of(&got);
    assert_eq!(
        heads,
        vec![
            (
                "kelp-cli.md",
                "Kelp-cli",
                "2 observations about kelp-cli (config), imported from claude-mem on 2026-03-04"
            ),
            (
                "pattern.md",
                "Pattern",
                "1 observation about pattern, imported from claude-mem on 2026-03-04"
            ),
            (
                "tidepool.md",
                "Tidepool",
                "2 observations about tidepool (watcher, renames, removed), imported from \
                 claude-mem on 2026-03-04"
            ),
        ]
    );
    assert_eq!(
        got[0].3,
        "File watcher loses events during atomic renames\n\
         The CLI's config reload misses saves from vim because the watch is on the inode, not the path.\n\
         Source: claude-mem export 3, 2026-01-28 · discovery · project: kelp-cli · concepts: gotcha · \
         files read: cmd/reload.go\n\
         \n\
         Config stays in TOML\n\
         TOML keeps the comments people write in their config; YAML was rejected.\n\
         Facts: comments survive a rewrite\n\
         Source: claude-mem export 11, 2026-01-28 · decision · project: kelp-cli · concepts: \
         trade-off, why-it-exists · files modified: cmd/config.go\n"
    );
    // Without a title, its text is the summary; without a project, its first concept groups it.
    assert_eq!(
        got[1].3,
        "Retry network calls with jittered backoff, capped at 30 s.\n\
         Source: claude-mem export 57, 2026-02-15 · change · concepts: pattern · files \
         modified: src/net/retry.rs\n"
    );
    assert!(
        got[2].3.starts_with(
            "File watcher loses events during atomic renames\n\
             Editors save through a temp file\n\
             Saving from most editors writes a temp file and renames it over the original, so \
             the watcher sees the original removed and never re-adds it.\n\
             Facts: the rename arrives as remove + create; only macOS FSEvents coalesces them\n\
             Source: claude-mem export 11, 2026-02-11 · discovery · project: tidepool · \
             concepts: gotcha, how-it-works · files read: src/watch.rs\n\n"
        ),
        "{}",
        got[2].3
    );
    // Imported again: all of it is there already — by its whole text, not its title.
    let again = plan_of("claude-mem.json", ImportFormat::ClaudeMem, &after(&plan));
    assert_eq!((again.preview.memories, again.preview.duplicates), (0, 7));
}

#[test]
fn mem0_facts_are_filed_by_category_and_a_second_import_gets_names_of_its_own() {
    let first = plan_of("mem0.json", ImportFormat::Mem0, &Existing::default());
    let got = files(&first);
    let heads = heads_of(&got);
    assert_eq!(
        heads,
        vec![
            (
                "orchestra.md",
                "Orchestra",
                "2 facts about orchestra, imported from mem0 on 2026-03-04"
            ),
            (
                "food.md",
                "Food",
                "2 facts about food (bakes, sourdough), imported from mem0 on 2026-03-04"
            ),
            (
                "travel.md",
                "Travel",
                "3 facts about travel (night, train), imported from mem0 on 2026-03-04"
            ),
        ]
    );
    // `misc` names nothing: those facts are named by what they share, `misc` kept.
    assert!(
        got[0].3.starts_with(
            "Plays cello in a community orchestra\n\
             Source: mem0 export d9e8f7a6-b5c4-4d3e-8f2a-1b0c9d8e7f6a, 2025-11-09 · \
             categories: misc\n"
        ),
        "{}",
        got[0].3
    );
    // A second category is kept on the entry; the file name says the first.
    assert!(
        got[2].3.contains(
            "Eats only vegetarian food when travelling in Spain\n\
             Source: mem0 export c31a7b2e-9d40-4f6c-a8e5-1b2d3c4e5f60, 2025-11-04 · \
             categories: travel, food\n"
        ),
        "{}",
        got[2].3
    );
    // Other facts of the same category, imported later the same day: a file of their own,
    // named and described so it is told from the first.
    let later = plan_of("mem0-later.json", ImportFormat::Mem0, &after(&first));
    let got = files(&later);
    let heads = heads_of(&got);
    assert_eq!(
        heads,
        vec![(
            "travel-hiking.md",
            "Travel: hiking",
            "2 facts about travel (hiking), imported from mem0 on 2026-03-04"
        )]
    );
}

#[test]
fn json_facts_are_filed_by_topic_category_or_tag_else_named_by_what_they_say() {
    let plan = plan_of("facts.jsonl", ImportFormat::Json, &Existing::default());
    let got = files(&plan);
    let heads = heads_of(&got);
    assert_eq!(
        heads,
        vec![
            (
                "allergic-to-penicillin-and-1-more.md",
                "Allergic to penicillin, and 1 more",
                "2 facts imported from a JSON file on 2026-03-04: Allergic to penicillin; Has \
                 a standing desk at home"
            ),
            (
                "garden.md",
                "Garden",
                "2 facts about garden (tomatoes), imported from a JSON file on 2026-03-04"
            ),
            (
                "reading.md",
                "Reading",
                "1 fact about reading, imported from a JSON file on 2026-03-04"
            ),
        ]
    );
    assert_eq!(
        got[1].3,
        "Waters the tomatoes before eight in summer\n\
         Source: JSON memories, 2025-07-01 · tags: garden, tomatoes\n\
         \n\
         Grows basil next to the tomatoes to keep aphids off\n\
         Source: JSON memories\n"
    );
}
