//! Embedding vectors in index.db: content-addressed, gone with their file, re-embedded when
//! damaged or when the model changes. Vectors here are made up; the real model is tested in
//! mnemo-embed and through the CLI.

use mnemo_store::doc::DocKind;

use super::{Fixture, topic};

fn unit(dim: usize, hot: usize) -> Vec<f32> {
    let mut v = vec![0.0; dim];
    v[hot] = 1.0;
    v
}

fn open_db(f: &Fixture) -> rusqlite::Connection {
    rusqlite::Connection::open(f.dir.path().join("home/index.db")).unwrap()
}

#[test]
fn vectors_follow_content_and_go_with_their_file() {
    let f = Fixture::new();
    f.write("a.md", topic("Alpha", "first", "user", "alpha body"));
    f.write("b.md", topic("Beta", "second", "user", "beta body"));
    f.write("c.md", topic("Beta", "second", "user", "beta body")); // same content as b.md
    f.vault.list(None, None).unwrap();
    let missing = f.vault.vectors_missing(None, "m1", 4, 100).unwrap();
    assert_eq!(missing.len(), 2, "one job per distinct content");
    assert!(missing.iter().any(|j| j.text.starts_with("Alpha: first\n")));
    let rows: Vec<(String, Vec<f32>, bool)> = missing
        .iter()
        .enumerate()
        .map(|(i, j)| (j.hash.clone(), unit(4, i), false))
        .collect();
    f.vault.store_vectors("m1", &rows).unwrap();
    let c = f.vault.vector_counts(Some("personal"), "m1", 4).unwrap();
    assert_eq!((c.embedded, c.total), (3, 3));
    assert!(
        f.vault
            .vectors_missing(None, "m1", 4, 100)
            .unwrap()
            .is_empty()
    );

    // Nearest first, cosine as the score, both copies of the shared content found.
    let q = unit(4, usize::from(!missing[0].text.starts_with("Alpha")));
    let hits = f
        .vault
        .vector_search_indexed(Some("personal"), "m1", &q, 10, Some(DocKind::Topic))
        .unwrap();
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[0].score, 1.0);
    assert_eq!(hits[0].vector, Some(1.0));

    // A changed file needs a new vector; the old one is collected.
    f.write(
        "a.md",
        topic("Alpha", "first, changed", "user", "alpha body"),
    );
    f.vault.list(None, None).unwrap();
    assert_eq!(
        f.vault.vectors_missing(None, "m1", 4, 100).unwrap().len(),
        1
    );
    assert_eq!(f.vault.gc_vectors("m1", 4).unwrap(), 1);

    // A deleted file's vector goes with it (its twin keeps the shared one).
    std::fs::remove_file(f.personal().join("c.md")).unwrap();
    f.vault.list(None, None).unwrap();
    assert_eq!(
        f.vault.gc_vectors("m1", 4).unwrap(),
        0,
        "b.md still uses it"
    );
    std::fs::remove_file(f.personal().join("b.md")).unwrap();
    f.vault.list(None, None).unwrap();
    assert_eq!(f.vault.gc_vectors("m1", 4).unwrap(), 1);
    let n: i64 = open_db(&f)
        .query_row("SELECT count(*) FROM vectors", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 0);
}

#[test]
fn a_model_change_re_embeds_and_damaged_rows_are_redone() {
    let f = Fixture::new();
    f.write("a.md", topic("Alpha", "first", "user", "alpha body"));
    f.write("b.md", topic("Beta", "second", "user", "beta body"));
    f.vault.list(None, None).unwrap();
    let jobs = f.vault.vectors_missing(None, "m1", 4, 100).unwrap();
    let rows: Vec<_> = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| (j.hash.clone(), unit(4, i), false))
        .collect();
    f.vault.store_vectors("m1", &rows).unwrap();
    let q = unit(4, 0);
    // The search caches the matrix; the damage below comes from another connection.
    assert_eq!(
        f.vault
            .vector_search_indexed(None, "m1", &q, 10, None)
            .unwrap()
            .len(),
        2
    );

    // Another process damages one row (wrong length) and another (NaN).
    let db = open_db(&f);
    db.execute(
        "UPDATE vectors SET vec = x'0000' WHERE hash = ?1",
        [&jobs[0].hash],
    )
    .unwrap();
    let nan: Vec<u8> = [f32::NAN, 0.0, 0.0, 0.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    db.execute(
        "UPDATE vectors SET vec = ?1 WHERE hash = ?2",
        rusqlite::params![nan, jobs[1].hash],
    )
    .unwrap();
    drop(db);
    // Neither is used for search.
    assert!(
        f.vault
            .vector_search_indexed(None, "m1", &q, 10, None)
            .unwrap()
            .is_empty()
    );
    // The short one is missing at once; the NaN one after the damage check drops both.
    assert_eq!(
        f.vault.vectors_missing(None, "m1", 4, 100).unwrap().len(),
        1
    );
    assert_eq!(f.vault.gc_vectors("m1", 4).unwrap(), 2);
    assert_eq!(
        f.vault.vectors_missing(None, "m1", 4, 100).unwrap().len(),
        2
    );

    // Another model: everything needs embedding again; the old model's rows are collected.
    f.vault.store_vectors("m1", &rows).unwrap();
    assert_eq!(
        f.vault.vectors_missing(None, "m2", 4, 100).unwrap().len(),
        2
    );
    assert_eq!(f.vault.gc_vectors("m2", 4).unwrap(), 2);
}

#[test]
fn vectors_survive_an_index_rebuild() {
    let f = Fixture::new();
    f.write("a.md", topic("Alpha", "first", "user", "alpha body"));
    f.vault.list(None, None).unwrap();
    let jobs = f.vault.vectors_missing(None, "m1", 4, 100).unwrap();
    f.vault
        .store_vectors("m1", &[(jobs[0].hash.clone(), unit(4, 0), false)])
        .unwrap();
    f.vault.rebuild().unwrap();
    assert!(
        f.vault
            .vectors_missing(None, "m1", 4, 100)
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        f.vault.vector_counts(None, "m1", 4).unwrap().embedded,
        1,
        "content-addressed: the rebuilt doc finds its vector"
    );
}

/// A conversation record is embedded in chunks of turns beside its own vector; it
/// counts embedded once every chunk is; search finds a record by its nearest chunk, with the
/// chunk's turns and line as the passage; a record that grows keeps its earlier chunks' vectors
/// and the collector keeps every chunk still cut from a record.
#[test]
fn records_are_embedded_and_found_chunk_by_chunk() {
    use mnemo_core::ChangeSource;
    let f = Fixture::new();
    let ws = f.vault.workspace("personal").unwrap();
    let at = chrono::Utc::now();
    let turns = [
        "Good morning!",
        "I'm allergic to peanuts and sesame.",
        "Which trains go to Porto?",
        "What is a good name for a beagle?",
    ];
    let mut path = String::new();
    for t in &turns[..3] {
        path = f
            .vault
            .append_chat_record(&ws, at, "s1", t, ChangeSource::Chat)
            .unwrap()
            .path;
    }
    let embed_all = |f: &Fixture| {
        let jobs = f.vault.vectors_missing(None, "m1", 4, 100).unwrap();
        let rows: Vec<(String, Vec<f32>, bool)> = jobs
            .iter()
            .map(|j| {
                let hot = if j.text.contains("beagle") { 1 } else { 0 };
                (
                    j.hash.clone(),
                    unit(4, if j.chunk { hot } else { 3 }),
                    false,
                )
            })
            .collect();
        f.vault.store_vectors("m1", &rows).unwrap();
    };
    let jobs = f.vault.vectors_missing(None, "m1", 4, 100).unwrap();
    assert_eq!(
        jobs.iter().map(|j| j.chunk).collect::<Vec<_>>(),
        [false, true],
        "the record itself, then its one chunk of three turns: {jobs:?}"
    );
    assert!(jobs[1].text.starts_with("Good morning!\nI'm allergic"));
    embed_all(&f);
    let c = f.vault.vector_counts(Some("personal"), "m1", 4).unwrap();
    assert_eq!((c.embedded, c.total), (1, 1));

    // A fourth turn: the record changed (a new vector), a new chunk; the first chunk is kept.
    f.vault
        .append_chat_record(&ws, at, "s1", turns[3], ChangeSource::Chat)
        .unwrap();
    let jobs = f.vault.vectors_missing(None, "m1", 4, 100).unwrap();
    assert_eq!(jobs.iter().filter(|j| j.chunk).count(), 1, "{jobs:?}");
    // Its own vector is there, a chunk's is not: not counted embedded yet.
    let partial: Vec<(String, Vec<f32>, bool)> = jobs
        .iter()
        .filter(|j| !j.chunk)
        .map(|j| (j.hash.clone(), unit(4, 3), false))
        .collect();
    f.vault.store_vectors("m1", &partial).unwrap();
    let c = f.vault.vector_counts(Some("personal"), "m1", 4).unwrap();
    assert_eq!((c.embedded, c.total), (0, 1));
    embed_all(&f);
    let c = f.vault.vector_counts(Some("personal"), "m1", 4).unwrap();
    assert_eq!((c.embedded, c.total), (1, 1));
    // The old record vector goes; both chunks stay.
    assert_eq!(f.vault.gc_vectors("m1", 4).unwrap(), 1);
    assert!(
        f.vault
            .vectors_missing(None, "m1", 4, 100)
            .unwrap()
            .is_empty()
    );

    let (hits, n) = f
        .vault
        .record_chunk_search(Some("personal"), "m1", &unit(4, 1), 10, None)
        .unwrap();
    assert_eq!(n, 2, "two chunks have vectors");
    assert_eq!(hits.len(), 1, "one record, by its nearest chunk");
    assert_eq!(hits[0].path, path);
    assert_eq!(hits[0].score, 1.0);
    let passage = hits[0].passage.clone().unwrap();
    assert!(
        passage.text.ends_with("What is a good name for a beagle?")
            && !passage.text.contains("allergic"),
        "the beagle chunk only: {passage:?}"
    );
    let file = std::fs::read_to_string(f.personal().join(&path)).unwrap();
    let line = file.lines().nth(passage.line as usize - 1).unwrap();
    assert!(
        line.ends_with("What is a good name for a beagle?"),
        "{line}"
    );

    // Gone with the record.
    std::fs::remove_file(f.personal().join(&path)).unwrap();
    f.vault.list(None, None).unwrap();
    assert_eq!(f.vault.gc_vectors("m1", 4).unwrap(), 3);
    let (hits, n) = f
        .vault
        .record_chunk_search(Some("personal"), "m1", &unit(4, 1), 10, None)
        .unwrap();
    assert!(hits.is_empty() && n == 0);
}
