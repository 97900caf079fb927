//! Hybrid recall over a real vault with made-up vectors (the real model is exercised by the API
//! and CLI tests): fusion, 0–1 scores with both sides, the minimum score, and the precision gate.

use chrono::Utc;
use mnemo_core::MemoryType::{Project, User};
use mnemo_engine::recall::QueryVector;
use mnemo_engine::{Strategy, recall};

use super::{add, req, vault};

const MODEL: &str = "test-model@0";

fn unit(v: [f32; 3]) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / n).collect()
}

/// Vectors: the pet memory points one way, the deploy memory another.
fn embedded() -> (tempfile::TempDir, mnemo_store::Vault) {
    let (d, v) = vault();
    add(
        &v,
        "dog.md",
        "Dog named Biscuit",
        "walks the beagle twice a day",
        User,
        "Biscuit.",
    );
    add(
        &v,
        "deploy.md",
        "Deploy checklist",
        "staging first",
        Project,
        "Run the smoke suite.",
    );
    for j in v.vectors_missing(None, MODEL, 3, 10).unwrap() {
        let vec = if j.text.starts_with("Dog") {
            unit([1.0, 0.1, 0.0])
        } else {
            unit([0.0, 1.0, 0.1])
        };
        v.store_vectors(MODEL, &[(j.hash, vec, false)]).unwrap();
    }
    (d, v)
}

fn with_vector(q: &str, vec: [f32; 3]) -> mnemo_engine::RecallRequest {
    mnemo_engine::RecallRequest {
        query_vector: Some(QueryVector {
            model: MODEL.into(),
            vector: unit(vec),
            null: None,
            background: None,
        }),
        ..req(q)
    }
}

#[test]
fn meaning_recalls_what_shares_no_word_with_scores_from_both_sides() {
    let (_d, v) = embedded();
    let r = recall(
        &v,
        &with_vector("which pet does the user own", [0.9, 0.2, 0.0]),
        Utc::now(),
    )
    .unwrap();
    assert_eq!(r.strategy, Strategy::Hybrid);
    assert_eq!(
        r.selected.len(),
        1,
        "the deploy memory is unrelated: {:?}",
        r.selected
    );
    let s = &r.selected[0];
    assert_eq!(s.path, "dog.md");
    assert!(s.vector.is_some_and(|c| c > 0.9));
    assert_eq!(s.lexical, None, "no shared word");
    assert!((0.0..=1.0).contains(&s.score));
    // Words and meaning together.
    let r = recall(
        &v,
        &with_vector("smoke suite before deploys", [0.0, 1.0, 0.0]),
        Utc::now(),
    )
    .unwrap();
    assert_eq!(r.selected[0].path, "deploy.md");
    assert!(r.selected[0].lexical.is_some() && r.selected[0].vector.is_some());
    // The same query without a vector is lexical and finds nothing for the pet question.
    let r = recall(&v, &req("which pet does the user own"), Utc::now()).unwrap();
    assert_eq!(r.strategy, Strategy::None);
}

#[test]
fn a_query_about_nothing_in_memory_recalls_nothing() {
    let (_d, v) = embedded();
    let r = recall(
        &v,
        &with_vector("quarterly tax filing", [0.0, 0.0, 1.0]),
        Utc::now(),
    )
    .unwrap();
    assert_eq!(r.strategy, Strategy::None);
    assert!(r.selected.is_empty());
    let r = recall(&v, &req("quarterly tax filing"), Utc::now()).unwrap();
    assert!(r.selected.is_empty());
}

#[test]
fn one_character_one_short_word_or_stop_words_recall_nothing() {
    let (_d, v) = vault();
    add(&v, "cat.md", "猫の名前", "猫はタマ", User, "猫 cat ok db");
    add(
        &v,
        "db.md",
        "db choice",
        "we use db postgres",
        Project,
        "db",
    );
    for q in ["猫", "db", "ok", "what is it?", "the", "hi!"] {
        let r = recall(&v, &req(q), Utc::now()).unwrap();
        assert!(r.selected.is_empty(), "{q:?} recalled {:?}", r.selected);
        let r = recall(&v, &with_vector(q, [1.0, 0.0, 0.0]), Utc::now()).unwrap();
        assert!(
            r.selected.is_empty(),
            "{q:?} (hybrid) recalled {:?}",
            r.selected
        );
    }
    // Enough to go on: found.
    assert_eq!(
        recall(&v, &req("猫の名前"), Utc::now()).unwrap().selected[0].path,
        "cat.md"
    );
    assert_eq!(
        recall(&v, &req("postgres"), Utc::now()).unwrap().selected[0].path,
        "db.md"
    );
}

#[test]
fn lexical_scores_read_zero_to_one() {
    let (_d, v) = embedded();
    let r = recall(&v, &req("smoke suite"), Utc::now()).unwrap();
    assert_eq!(r.strategy, Strategy::Heuristic);
    assert!((r.selected[0].score - 1.0).abs() < 1e-9);
    assert_eq!(r.selected[0].lexical, Some(r.selected[0].score));
}

#[test]
fn fill_embeds_each_content_once_reports_progress_and_stops_when_nothing_sticks() {
    use mnemo_engine::embed::{Model, fill};
    let (_d, v) = vault();
    add(&v, "a.md", "Alpha", "first", User, "a");
    add(&v, "b.md", "Beta", "second", User, "b");
    let calls = std::cell::Cell::new(0);
    let good = |t: &[&str]| {
        calls.set(calls.get() + t.len());
        Ok(t.iter().map(|_| (unit([1.0, 0.0, 0.0]), false)).collect())
    };
    let m = Model {
        id: MODEL,
        dim: 3,
        embed: &good,
    };
    let mut seen = Vec::new();
    let f = fill(&v, &m, None, &|| false, &mut |d, t| seen.push((d, t))).unwrap();
    assert_eq!((f.embedded, f.truncated, calls.get()), (2, 0, 2));
    assert_eq!(seen.last(), Some(&(2, 2)));
    assert_eq!(
        fill(&v, &m, None, &|| false, &mut |_, _| {})
            .unwrap()
            .embedded,
        0
    );

    // A model whose vectors never fit (wrong length) is an error, not an endless loop.
    let wrong = |t: &[&str]| Ok(t.iter().map(|_| (vec![1.0; 2], false)).collect());
    let m = Model {
        id: "other@1",
        dim: 3,
        embed: &wrong,
    };
    let e = fill(&v, &m, None, &|| false, &mut |_, _| {}).unwrap_err();
    assert!(e.message.contains("no progress"), "{e}");
    // A stop request between batches keeps what was stored and ends quietly.
    let m = Model {
        id: "third@1",
        dim: 3,
        embed: &good,
    };
    assert_eq!(
        fill(&v, &m, None, &|| true, &mut |_, _| {})
            .unwrap()
            .embedded,
        0
    );
}
