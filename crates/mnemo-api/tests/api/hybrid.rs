//! Hybrid recall through the API with the real local model (installed by the README's set-up;
//! required under CI and with MNEMO_REQUIRE_MODEL=1, skipped with a note otherwise): background
//! embedding as a task with progress while watching, hybrid recall in a chat turn and through
//! `recall`, scores 0–1 with both sides, precision, vectors of a deleted file gone.

use crate::common;

use std::time::{Duration, Instant};

use mnemo_api::Api;
use mnemo_api::reexports::{MemoryType, TaskKind};
use mnemo_api::wire::Strategy;

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
    assert_eq!(s.semantic.state, mnemo_api::wire::SemanticState::Ready);
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

/// A fact said once in a chat whose model saves nothing is held by the conversation
/// record alone; a new chat asking for it in other words recalls that record by meaning (its
/// chunks of turns are embedded like memories) and the model sees the turn. A question about
/// nothing recalls no record.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_was_said_in_one_chat_is_recalled_in_another_by_other_words() {
    use mnemo_testkit::{FakeModel, Kind, Reply};
    if mnemo_embed::model_for_tests().is_none() {
        return;
    }
    let (_d, api) = common::api();
    let fake = FakeModel::start().await;
    common::configure(&api, &fake).await;
    // The model answers and saves nothing, however it is asked.
    fake.set_fallback(Reply::text("Nothing to save."));
    let session = api.chat_create("personal".into(), None).unwrap();
    for said in [
        "I'm planning my meals for next week.",
        "By the way, I am allergic to peanuts and sesame.",
        "I'd like more vegetables and less sugar.",
    ] {
        fake.push_for(Kind::Stream, Reply::text("Noted."));
        let (a, id, m) = (api.clone(), session.id.clone(), said.to_owned());
        let turn = common::blocking(move || a.chat_send("personal".into(), id, m))
            .await
            .unwrap();
        if let Some(task) = turn.extract_task {
            let a = api.clone();
            common::blocking(move || a.wait_task(&task, Duration::from_secs(60)).unwrap()).await;
        }
    }
    let topics = api.list(Some("personal".into()), None).unwrap();
    assert!(
        topics
            .iter()
            .all(|m| m.kind != mnemo_store::doc::DocKind::Topic),
        "the model saved nothing: {topics:?}"
    );
    let a = api.clone();
    common::blocking(move || {
        a.start_watching().unwrap();
        wait_embedded(&a);
    })
    .await;

    for (query, found) in [
        ("Which foods should I avoid eating?", true),
        ("Can you suggest a snack for my afternoon break?", true),
        ("quarterly tax filing deadline", false),
        ("how do I restart the api service?", false),
    ] {
        fake.push_for(Kind::Stream, Reply::text("Here you go."));
        let turn = common::send(&api, query).await;
        let recall = turn.recall.clone().unwrap();
        let meals: Vec<_> = recall
            .selected
            .iter()
            .filter(|s| s.path.starts_with("chats/") && s.path.contains(&session.id))
            .collect();
        assert_eq!(!meals.is_empty(), found, "{query}: {:?}", recall.selected);
        // Found by meaning: no word of the question is in the record.
        assert!(
            meals
                .iter()
                .all(|s| s.vector.is_some() && s.lexical.is_none()),
            "{query}: {meals:?}"
        );
        let reqs = fake.requests();
        let chat_req = reqs.iter().rev().find(|r| r["stream"] == true).unwrap();
        let system = chat_req["messages"][0]["content"].as_str().unwrap();
        assert_eq!(
            system.contains("allergic to peanuts and sesame"),
            found,
            "{query}: {system}"
        );
    }
}
