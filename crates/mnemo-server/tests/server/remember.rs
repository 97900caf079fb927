//! The remember endpoints over real HTTP: every error code with its status; a fact posted,
//! polled to completion, in a memory file, announced on SSE with its task id; and 1,000 requests
//! from 50 concurrent clients — each 202 or 429, every accepted one ends with a code, every
//! accepted fact is in memory, no file torn, nothing outside the root.

use std::collections::HashSet;
use std::time::Duration;

use mnemo_testkit::{FakeModel, Kind, Reply};
use serde_json::{Value, json};

use super::{Running, client, start};

async fn configure(s: &Running, fake: &FakeModel) {
    let (code, shown) = s
        .call(
            "set_model_settings",
            json!({"settings": {"base_url": fake.base_url(), "model": "fake-main", "fast_model": "",
                "context_window": 32768, "timeout_secs": 30, "api_key": null}}),
        )
        .await;
    assert_eq!(code, 200, "{shown}");
}

async fn post(s: &Running, body: reqwest::Body, client_id: Option<&str>) -> (u16, Value) {
    let mut r = client()
        .post(format!("{}/workspace/memory/remember", s.base))
        .bearer_auth(&s.token)
        .header("content-type", "application/json")
        .body(body);
    if let Some(c) = client_id {
        r = r.header("X-Mnemo-Client-Id", c);
    }
    let r = r.send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

async fn get(s: &Running, id: &str, client_id: Option<&str>) -> (u16, Value) {
    let mut r = client()
        .get(format!("{}/workspace/memory/remember/{id}", s.base))
        .bearer_auth(&s.token);
    if let Some(c) = client_id {
        r = r.header("X-Mnemo-Client-Id", c);
    }
    let r = r.send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

fn json_body(v: &Value) -> reqwest::Body {
    reqwest::Body::from(v.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_its_code_and_status() {
    let s = start().await;
    let code = |r: (u16, Value)| (r.0, r.1["code"].as_str().unwrap_or("").to_owned());
    // No model: 409 before anything is queued.
    assert_eq!(
        code(post(&s, json_body(&json!({"content": "tea"})), None).await),
        (409, "managed_memory_unavailable".into())
    );
    let fake = FakeModel::start().await;
    configure(&s, &fake).await;
    for (body, want) in [
        (json_body(&json!({"content": ""})), "invalid_content"),
        (json_body(&json!({"content": 42})), "invalid_content"),
        (
            json_body(&json!({"content": "x".repeat(65 * 1024)})),
            "invalid_content",
        ),
        (
            json_body(&json!({"content": "tea", "contextMode": "deep"})),
            "invalid_context_mode",
        ),
        (
            json_body(&json!({"content": "tea", "contextMode": 3})),
            "invalid_context_mode",
        ),
        (
            reqwest::Body::from(b"{\"content\": \"\xff\xfe\"}".to_vec()),
            "invalid_content",
        ),
    ] {
        assert_eq!(code(post(&s, body, None).await), (400, want.into()));
    }
    assert_eq!(
        code(post(&s, json_body(&json!({"content": "tea"})), Some("bad id!")).await),
        (400, "invalid_client_id".into())
    );
    assert_eq!(
        code(get(&s, "remember-unknown", None).await),
        (404, "remember_task_not_found".into())
    );
    // /capabilities advertises the feature and its modes.
    let caps: Value = client()
        .get(format!("{}/capabilities", s.base))
        .bearer_auth(&s.token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        caps["workspace_memory_remember"]["modes"],
        json!(["workspace", "clean"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_posted_fact_is_remembered_and_announced() {
    let s = start().await;
    let fake = FakeModel::start().await;
    configure(&s, &fake).await;
    fake.push_for(Kind::Tools, Reply::SaveFact);
    fake.push_for(Kind::Tools, Reply::text("Saved."));
    let mut events = client()
        .get(format!("{}/events", s.base))
        .bearer_auth(&s.token)
        .send()
        .await
        .unwrap();
    let (code, t) = post(
        &s,
        json_body(&json!({"content": "The user's dog is called Miso."})),
        Some("script-1"),
    )
    .await;
    assert_eq!(code, 202, "{t}");
    let id = t["taskId"].as_str().unwrap().to_owned();
    assert!(id.starts_with("remember-"));
    assert_eq!(
        (t["status"].as_str(), t["contextMode"].as_str()),
        (Some("queued"), Some("workspace"))
    );
    assert!(t["createdAt"].is_string() && t["updatedAt"].is_string());
    let done = loop {
        let (code, t) = get(&s, &id, Some("script-1")).await;
        assert_eq!(code, 200);
        if t["status"] == "completed" || t["status"] == "failed" {
            break t;
        }
        assert!(t["result"].is_null() && t["error"].is_null());
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(done["status"], "completed", "{done}");
    let file = done["result"]["filesTouched"][0].as_str().unwrap();
    let text =
        std::fs::read_to_string(s.home.join("workspaces/personal/memory").join(file)).unwrap();
    assert!(text.contains("called Miso"));
    assert_eq!(done["result"]["touchedTypes"], json!(["user"]));
    // Another client cannot read it.
    assert_eq!(get(&s, &id, Some("someone-else")).await.0, 404);
    // SSE: memory_changed with scope, source, task id and types.
    let mut buf = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !buf.contains("workspace_memory_remember") {
        let chunk = tokio::time::timeout_at(deadline, events.chunk())
            .await
            .expect("the event in time")
            .unwrap()
            .unwrap();
        buf.push_str(&String::from_utf8_lossy(&chunk));
    }
    let ev: Value = buf
        .split("event: memory_changed")
        .filter_map(|e| e.lines().find_map(|l| l.strip_prefix("data:")))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|v| v["source"] == "workspace_memory_remember")
        .unwrap();
    assert_eq!(
        (ev["scope"].as_str(), ev["taskId"].as_str()),
        (Some("managed"), Some(id.as_str()))
    );
    assert_eq!(ev["touchedTypes"], json!(["user"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_requests_from_fifty_clients() {
    let s = std::sync::Arc::new(start().await);
    let fake = FakeModel::start().await;
    configure(&s, &fake).await;
    for _ in 0..1_000 {
        fake.push_for(Kind::Tools, Reply::SaveFact);
        fake.push_for(Kind::Tools, Reply::text("Saved."));
    }
    let mut clients = Vec::new();
    for c in 0..50 {
        let s = std::sync::Arc::clone(&s);
        clients.push(tokio::spawn(async move {
            let mut out = Vec::new();
            for i in 0..20 {
                let fact = format!("Fact {c}-{i}: client {c} likes the number {i}.");
                let client_id = format!("client-{c}");
                let (code, v) =
                    post(&s, json_body(&json!({"content": fact})), Some(&client_id)).await;
                out.push((code, v, fact, client_id));
            }
            out
        }));
    }
    let mut accepted = Vec::new();
    let (mut ok, mut full) = (0, 0);
    for c in clients {
        for (code, v, fact, client_id) in c.await.unwrap() {
            match code {
                202 => {
                    ok += 1;
                    accepted.push((v["taskId"].as_str().unwrap().to_owned(), fact, client_id));
                }
                429 => {
                    assert_eq!(v["code"], "remember_queue_full");
                    full += 1;
                }
                other => panic!("unexpected {other}: {v}"),
            }
        }
    }
    assert_eq!(ok + full, 1_000);
    assert!(ok >= 16, "at least a full lane was accepted ({ok})");
    // Every accepted task ends, completed or failed with a code.
    let mut ids = HashSet::new();
    for (id, _, client_id) in &accepted {
        assert!(ids.insert(id.clone()), "task ids are unique");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        loop {
            let (code, t) = get(&s, id, Some(client_id)).await;
            assert_eq!(code, 200);
            match t["status"].as_str() {
                Some("completed") => break,
                Some("failed") => {
                    assert!(t["error"]["code"].is_string(), "{t}");
                    break;
                }
                _ => {}
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "task {id} never ended"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    // Every accepted fact is in memory; every file is a whole, valid memory; nothing outside.
    let root = s.home.join("workspaces/personal/memory");
    let mut texts = String::new();
    for e in std::fs::read_dir(root.join("facts")).unwrap().flatten() {
        let t = std::fs::read_to_string(e.path()).unwrap();
        assert!(t.starts_with("---\n") && t.ends_with('\n'), "torn: {t}");
        assert!(mnemo_store::format::TopicFile::parse(&t).problem.is_none());
        texts.push_str(&t);
    }
    for (_, fact, _) in &accepted {
        assert!(texts.contains(fact.as_str()), "lost: {fact}");
    }
    let stray: Vec<_> = std::fs::read_dir(s.home.join("workspaces/personal"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
    eprintln!("{ok} accepted, {full} refused with remember_queue_full");
}
