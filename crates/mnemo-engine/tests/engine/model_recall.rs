//! Model-driven recall against the fake model server.

use std::time::Duration;

use chrono::Utc;
use mnemo_core::MemoryType;
use mnemo_engine::{RecallRequest, RecallResult, Strategy, recall_with_model};
use mnemo_llm::CancellationToken;
use mnemo_store::Vault;
use mnemo_testkit::{FakeModel, Reply};
use serde_json::json;

use crate::{add, client, req, vault};

/// Model recall at the current time with a fresh cancellation token.
async fn select(v: &Vault, fake: &FakeModel, r: &RecallRequest, timeout: Duration) -> RecallResult {
    recall_with_model(
        v,
        &client(fake),
        r,
        Utc::now(),
        timeout,
        &CancellationToken::new(),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn the_fast_model_chooses_from_the_manifest() {
    let (_d, v) = vault();
    add(
        &v,
        "style.md",
        "Response style",
        "Keep answers terse",
        MemoryType::Feedback,
        "No closing recap.",
    );
    add(
        &v,
        "board.md",
        "Latency board",
        "Grafana board for API latency",
        MemoryType::Reference,
        "https://grafana/d/api",
    );
    let fake = FakeModel::start().await;
    fake.push(Reply::json(&json!({"paths": ["board.md"]})));
    let r = select(&v, &fake, &req("is the API slow?"), Duration::from_secs(5)).await;
    assert_eq!(r.strategy, Strategy::Model);
    assert_eq!(
        r.selected
            .iter()
            .map(|s| s.path.as_str())
            .collect::<Vec<_>>(),
        ["board.md"]
    );
    assert!(r.prompt.contains("https://grafana/d/api"));
    let sent = &fake.requests()[0];
    assert_eq!(sent["model"], "fake-fast");
    assert_eq!(sent["max_tokens"], 256);
    assert_eq!(sent["response_format"]["type"], "json_schema");
    let system = sent["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("[reference] board.md ("), "{system}");
    assert!(system.contains("): Grafana board for API latency"));
    assert!(system.contains("[feedback] style.md"));
    assert!(
        !system.contains("Tools in active use"),
        "no tools note without recent tools"
    );
    // recentTools: the selection is told which tools are in use.
    fake.push(Reply::json(&json!({"paths": []})));
    let with_tools = RecallRequest {
        recent_tools: vec!["grep_search".into(), "read_file".into()],
        ..req("is the API slow?")
    };
    select(&v, &fake, &with_tools, Duration::from_secs(5)).await;
    let system = fake.requests()[1]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        system.contains("Tools in active use: grep_search, read_file.")
            && system.contains("warnings, gotchas"),
        "{system}"
    );
}

/// A vault holding one memory, `deploy.md`.
fn deploy_vault() -> (tempfile::TempDir, mnemo_store::Vault) {
    let (d, v) = vault();
    add(
        &v,
        "deploy.md",
        "Deploy checklist",
        "Steps before a production deploy",
        MemoryType::Project,
        "Run the smoke suite.",
    );
    (d, v)
}

#[tokio::test]
async fn invented_paths_are_rejected_and_failures_fall_back_to_lexical() {
    let (_d, v) = deploy_vault();
    // Invented twice: the retry names the problem, then recall falls back.
    let fake = FakeModel::start().await;
    fake.push(Reply::json(&json!({"paths": ["secrets/passwords.md"]})));
    fake.push(Reply::json(&json!({"paths": ["made-up.md"]})));
    let r = select(&v, &fake, &req("how do I deploy?"), Duration::from_secs(5)).await;
    assert_eq!(r.strategy, Strategy::Heuristic);
    assert_eq!(r.selected[0].path, "deploy.md");
    assert!(
        fake.requests()[1]["messages"]
            .to_string()
            .contains("not in the manifest")
    );
    // A timeout falls back too.
    let fake = FakeModel::start().await;
    fake.push(Reply::Delay(
        Duration::from_secs(20),
        Box::new(Reply::json(&json!({"paths": ["deploy.md"]}))),
    ));
    let r = select(&v, &fake, &req("deploy"), Duration::from_millis(200)).await;
    assert_eq!(r.strategy, Strategy::Heuristic);
    // Invalid JSON twice falls back as well.
    let fake = FakeModel::start().await;
    fake.push(Reply::text("I think deploy.md"));
    fake.push(Reply::text("still prose"));
    let r = select(&v, &fake, &req("deploy"), Duration::from_secs(5)).await;
    assert_eq!(r.strategy, Strategy::Heuristic);
    // An empty choice is respected (nothing injected).
    let fake = FakeModel::start().await;
    fake.push(Reply::json(&json!({"paths": []})));
    let r = select(&v, &fake, &req("deploy"), Duration::from_secs(5)).await;
    assert_eq!(r.strategy, Strategy::None);
    assert!(r.selected.is_empty());
}

#[tokio::test]
async fn a_server_whose_picks_keep_failing_is_not_asked_again() {
    let (_d, v) = deploy_vault();
    let fake = FakeModel::start().await;
    for _ in 0..2 * mnemo_engine::recall::MAX_FAILED_SELECTIONS {
        fake.push(Reply::json(&json!({"paths": ["invented.md"]})));
    }
    for _ in 0..mnemo_engine::recall::MAX_FAILED_SELECTIONS {
        let r = select(&v, &fake, &req("how do I deploy?"), Duration::from_secs(5)).await;
        assert_eq!(r.strategy, Strategy::Heuristic);
    }
    let asked = fake.requests().len();
    assert!(!mnemo_engine::recall::model_selection_usable(&client(
        &fake
    )));
    // The next recall goes straight to the lexical path: no wasted round trip.
    let r = select(&v, &fake, &req("how do I deploy?"), Duration::from_secs(5)).await;
    assert_eq!(r.strategy, Strategy::Heuristic);
    assert_eq!(r.selected[0].path, "deploy.md");
    assert_eq!(fake.requests().len(), asked);
}

#[test]
fn the_manifest_is_newest_first_and_capped() {
    use mnemo_store::doc::DocKind;
    use mnemo_store::index::DocSummary;
    let doc = |i: usize, valid: bool| DocSummary {
        workspace: "w".into(),
        path: format!("m{i:04}.md"),
        kind: DocKind::Topic,
        memory_type: Some(MemoryType::Project),
        name: format!("n{i}"),
        description: "d".repeat(150),
        mtime: format!("2026-01-01T00:{:02}:{:02}Z", (i / 60) % 60, i % 60),
        valid,
        problem: None,
        secret: None,
        pinned: false,
        archived: false,
    };
    let docs: Vec<DocSummary> = (0..400).map(|i| doc(i, i != 399)).collect();
    let exclude = ["m0398.md"].into_iter().collect();
    let (text, paths) = mnemo_engine::recall::manifest(&docs, &exclude, &[]);
    assert!(paths.len() <= mnemo_engine::recall::MANIFEST_MAX_ITEMS);
    assert!(text.len() <= mnemo_engine::recall::MANIFEST_MAX_BYTES);
    assert_eq!(paths[0], "m0397.md", "newest valid, not excluded, first");
    assert!(
        !paths.contains(&"m0399.md".to_owned()),
        "invalid files are not offered"
    );
    assert!(text.starts_with("[project] m0397.md (2026-01-01T00:06:37Z): ddd"));
}
