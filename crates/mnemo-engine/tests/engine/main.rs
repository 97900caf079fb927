//! Recall against a real vault on disk.

#![allow(clippy::unwrap_used)]

mod agent;
mod chat;
mod corrections;
mod dream;
mod extract;
mod faults;
// The calibrated gate lives with the bench that fits and judges it (recall does not use it);
// its unit tests run here, with the engine's. The bench calls the rest of it.
#[allow(dead_code)]
#[path = "../../benches/recall_eval/gate_model.rs"]
mod gate_model;
mod hybrid;
mod model_recall;
mod planner;
mod prompt_budget;
mod recall_eval;
mod records;
mod secret_props;
mod transcripts;

use chrono::{Duration, Utc};
use mnemo_core::ChangeSource;
use mnemo_engine::{RecallRequest, Strategy, recall};
use mnemo_store::{Home, NewMemory, Vault};

/// A client for the fake model: main model `fake-main`, fast model `fake-fast`, quick retries.
/// What these tests' clients learn of their fake servers, shared as the API's clients share it
/// (every fake has a port of its own, so nothing learnt crosses from one test to another).
fn profiles() -> &'static mnemo_llm::Profiles {
    static P: std::sync::OnceLock<mnemo_llm::Profiles> = std::sync::OnceLock::new();
    P.get_or_init(mnemo_llm::Profiles::default)
}

pub fn client(fake: &mnemo_testkit::FakeModel) -> mnemo_llm::Client {
    let s = mnemo_llm::LlmSettings {
        base_url: fake.base_url().to_owned(),
        model: "fake-main".into(),
        fast_model: "fake-fast".into(),
        timeout_secs: 10,
        ..mnemo_llm::LlmSettings::default()
    };
    let mut c = mnemo_llm::Client::with_profiles(s, profiles().clone()).unwrap();
    c.backoff = std::time::Duration::from_millis(5);
    c
}

pub fn vault() -> (tempfile::TempDir, Vault) {
    let d = tempfile::tempdir().unwrap();
    let home = Home {
        root: d.path().join("home"),
        claude_dir: d.path().join("c"),
        qwen_dir: d.path().join("q"),
    };
    let v = Vault::open(home).unwrap();
    (d, v)
}

pub fn add(v: &Vault, path: &str, name: &str, desc: &str, ty: mnemo_core::MemoryType, body: &str) {
    v.create(
        "personal",
        &NewMemory {
            path: Some(path.into()),
            name: name.into(),
            description: desc.into(),
            memory_type: ty,
            body: body.into(),
        },
        ChangeSource::User,
    )
    .unwrap();
}

pub fn req(q: &str) -> RecallRequest {
    RecallRequest {
        workspace: "personal".into(),
        query: q.into(),
        ..RecallRequest::default()
    }
}

#[test]
fn recalls_the_relevant_memory_with_its_body_in_the_prompt() {
    use mnemo_core::MemoryType::*;
    let (_d, v) = vault();
    add(
        &v,
        "deploy.md",
        "Deploy checklist",
        "Steps before a production deploy",
        Project,
        "Run the smoke suite, then tag.",
    );
    add(
        &v,
        "style.md",
        "Response style",
        "Keep answers terse",
        Feedback,
        "No closing recap.",
    );
    add(
        &v,
        "board.md",
        "Latency board",
        "Grafana board for API latency",
        Reference,
        "https://grafana/d/api",
    );
    let r = recall(&v, &req("How do I deploy to production?"), Utc::now()).unwrap();
    assert_eq!(r.strategy, Strategy::Heuristic);
    assert_eq!(r.selected[0].path, "deploy.md");
    assert_eq!(r.docs_scanned, 3);
    assert!(r.prompt.contains("Run the smoke suite, then tag."));
    assert!(r.prompt.contains("## Before recommending from memory"));
    assert!(
        r.prompt.contains("- [Deploy checklist](deploy.md)"),
        "MEMORY.md index included"
    );
    assert_eq!(r.selected[0].age, "today");
    assert!(r.chars_injected >= "Run the smoke suite, then tag.".len());
    // Telemetry recorded.
    let events = v.events(Some("recall"), 5).unwrap();
    assert_eq!(events[0].3["strategy"], "heuristic");
    assert_eq!(events[0].3["docs_selected"], r.selected.len());
}

#[test]
fn already_surfaced_and_just_written_are_excluded_and_nothing_matching_is_none() {
    use mnemo_core::MemoryType::*;
    let (_d, v) = vault();
    add(
        &v,
        "a.md",
        "Kubernetes cluster",
        "The staging kubernetes cluster",
        Reference,
        "k8s",
    );
    add(
        &v,
        "b.md",
        "Kubernetes upgrade",
        "Upgrade plan for kubernetes",
        Project,
        "plan",
    );
    let mut r = req("kubernetes");
    r.already_surfaced = vec!["a.md".into()];
    r.written_this_turn = vec!["b.md".into()];
    let out = recall(&v, &r, Utc::now()).unwrap();
    assert!(out.selected.is_empty());
    assert_eq!(out.strategy, Strategy::None);
    assert!(!out.prompt.contains("## Memories relevant"));
    let none = recall(&v, &req("what is it"), Utc::now()).unwrap();
    assert_eq!(none.strategy, Strategy::None, "only stop words");
    let cjk = recall(&v, &req("ｋｕｂｅｒｎｅｔｅｓ"), Utc::now()).unwrap();
    assert_eq!(cjk.selected.len(), 2, "full-width folds");
}

#[test]
fn recall_finds_cjk_memories_and_logs_are_not_candidates() {
    use mnemo_core::MemoryType::*;
    let (d, v) = vault();
    add(
        &v,
        "zh.md",
        "发布冻结",
        "移动端发布前的合并冻结窗口",
        Project,
        "每月最后一周冻结合并。",
    );
    let log = d
        .path()
        .join("home/workspaces/personal/memory/logs/2026/11/2026-11-20.md");
    std::fs::create_dir_all(log.parent().unwrap()).unwrap();
    std::fs::write(&log, "讨论了合并冻结窗口。\n").unwrap();
    v.sync_all().unwrap();
    let r = recall(
        &v,
        &req("合并冻结什么时候开始？"),
        Utc::now() + Duration::days(3),
    )
    .unwrap();
    let paths: Vec<&str> = r.selected.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(paths, ["zh.md"]);
    assert_eq!(r.selected[0].age, "3 days ago");
    assert!(r.prompt.contains("point-in-time observation"));
}
