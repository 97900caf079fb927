//! Hybrid recall through the API with the real local model (installed by the README's set-up;
//! required under CI and with MNEMO_REQUIRE_MODEL=1, skipped with a note otherwise): background
//! embedding as a task with progress while watching, hybrid recall in a chat turn and through
//! `recall`, scores 0–1 with both sides, precision, vectors of a deleted file gone.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use mnemo_api::Api;
use mnemo_api::reexports::{MemoryType, TaskKind};
use mnemo_engine::Strategy;

fn add(api: &Api, name: &str, desc: &str, ty: MemoryType, body: &str) {
    api.create(
        "personal".into(),
        mnemo_api::NewMemory {
            path: None,
            name: name.into(),
            description: desc.into(),
            memory_type: ty,
            body: body.into(),
        },
    )
    .unwrap();
}

fn wait_embedded(api: &Api) -> mnemo_api::reexports::Status {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let s = api.status().unwrap();
        if s.semantic.total > 0 && s.semantic.embedded == s.semantic.total {
            return s;
        }
        assert!(
            Instant::now() < deadline,
            "never fully embedded: {:?}",
            s.semantic
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_watching_process_embeds_in_the_background_and_recalls_by_meaning() {
    if mnemo_embed::model_for_tests().is_none() {
        return;
    }
    let (_d, api) = common::api();
    add(
        &api,
        "Dog named Biscuit",
        "walks the beagle twice a day",
        MemoryType::User,
        "Biscuit is walked at 7 and at 18.",
    );
    for i in 0..30 {
        add(
            &api,
            &format!("Service {i} runbook"),
            &format!("how to restart service number {i} after an outage"),
            MemoryType::Reference,
            "Drain the node, restart, check the health endpoint.",
        );
    }
    let updates = api.subscribe_tasks();
    api.start_watching().unwrap();
    let s = wait_embedded(&api);
    assert_eq!(s.semantic.state, "ready");
    assert!(s.semantic.model.as_deref().is_some_and(|m| m.contains('@')));
    // 31 memories to embed at start: a visible task that said how far it had got.
    let tasks = api.tasks(None, Some(TaskKind::Embed), None, None).unwrap();
    let first = tasks.first().expect("an embed task");
    // The vectors are stored before the task records its result: wait for it to end.
    let t = &api.wait_task(&first.id, Duration::from_secs(60)).unwrap();
    assert!(
        t.result
            .as_ref()
            .is_some_and(|r| r.summary == "embedded 31 memories"),
        "{t:?}"
    );
    let phases: Vec<String> = updates
        .try_iter()
        .filter(|u| u.id == t.id)
        .filter_map(|u| u.phase)
        .collect();
    assert!(
        phases.iter().any(|p| p == "Embedding 31 / 31"),
        "progress as it went: {phases:?}"
    );

    let r = api
        .recall(
            "personal".into(),
            "which pet does the user own".into(),
            None,
            Some(true),
        )
        .unwrap();
    assert!(
        r.selected.is_empty(),
        "words alone share nothing with it: {:?}",
        r.selected
    );
    let r = api
        .recall(
            "personal".into(),
            "which pet does the user own".into(),
            None,
            None,
        )
        .unwrap();
    assert_eq!(r.strategy, Strategy::Hybrid);
    assert_eq!(r.selected[0].name, "Dog named Biscuit");
    assert!(r.selected[0].vector.is_some());
    assert!(r.selected.iter().all(|s| (0.0..=1.0).contains(&s.score)));

    // Nothing in memory about it: nothing, hybrid or lexical.
    for lexical in [None, Some(true)] {
        let r = api
            .recall(
                "personal".into(),
                "quarterly tax filing deadline".into(),
                None,
                lexical,
            )
            .unwrap();
        assert!(r.selected.is_empty(), "{lexical:?}: {:?}", r.selected);
        // Search gives the nearest by meaning to fill what was asked, every one weak.
        assert!(
            api.search(
                Some("personal".into()),
                "quarterly tax filing deadline".into(),
                None,
                lexical
            )
            .unwrap()
            .iter()
            .all(|h| h.weak)
        );
    }
    // One CJK character, one short word: nothing.
    for q in ["猫", "ok"] {
        let r = api.recall("personal".into(), q.into(), None, None).unwrap();
        assert!(r.selected.is_empty(), "{q}: {:?}", r.selected);
    }

    // A new memory is embedded soon after it is written (found by meaning, not by words).
    add(
        &api,
        "Allergic to peanuts",
        "never suggest recipes with peanuts",
        MemoryType::User,
        "Severe allergy.",
    );
    wait_embedded(&api);
    let hits = api
        .search(
            Some("personal".into()),
            "food the user must avoid".into(),
            Some(3),
            None,
        )
        .unwrap();
    assert_eq!(hits[0].name, "Allergic to peanuts", "{hits:?}");

    // Deleted: out of the counts at once (its vector row is collected: see the store's tests).
    let before = api.status().unwrap().semantic.total;
    api.remove("personal".into(), "allergic-to-peanuts.md".into())
        .unwrap();
    let s = wait_embedded(&api);
    assert_eq!(s.semantic.total, before - 1);
}
