//! Learning from past conversations through the API with the fake model: the
//! estimate, a budget that stops the run before a conversation would pass it, a cancel midway,
//! and the next run finishing in the same change group without resending finished
//! conversations.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mnemo_api::Api;
use mnemo_api::reexports::ImportOptions;
use mnemo_core::TaskStatus;
use serde_json::{Value, json};

use crate::common::api;

fn root(api: &Api, ws: &str) -> PathBuf {
    api.home_dir().join("workspaces").join(ws).join("memory")
}

fn memory_text(dir: &Path) -> String {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            out.insert(e.path(), memory_text(&e.path()));
        } else {
            out.insert(
                e.path(),
                String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned(),
            );
        }
    }
    out.into_values().collect()
}

/// Import `src` and wait for its task.
async fn run_import(
    api: &Api,
    src: &str,
    opts: Option<ImportOptions>,
) -> mnemo_api::reexports::TaskInfo {
    let (a, s2) = (api.clone(), src.to_owned());
    common::blocking(move || {
        let t = a.import_start(s2, None, opts, None).unwrap();
        a.wait_task(&t.id, Duration::from_secs(60)).unwrap()
    })
    .await
}

/// Claude.ai conversations, each with one fact.
fn claude_ai(n: usize) -> Value {
    Value::Array(
        (1..=n)
            .map(|k| {
                json!({"uuid": format!("c{k}"), "name": format!("Chat {k}"), "chat_messages": [
                {"sender": "human", "text": format!("The user's locker number is {k}")},
                {"sender": "assistant", "text": "Noted."}]})
            })
            .collect(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_import_stops_at_its_budget_or_when_cancelled_and_goes_on_later() {
    use mnemo_testkit::{FakeModel, Reply};
    let (d, api) = api();
    let fake = FakeModel::start().await;
    common::configure(&api, &fake).await;
    fake.set_fallback(Reply::Delay(
        Duration::from_millis(100),
        Box::new(Reply::SaveFirstUserLine),
    ));
    let src = d.path().join("conversations.json");
    std::fs::write(&src, claude_ai(6).to_string()).unwrap();
    let src = src.to_string_lossy().into_owned();
    let a = api.clone();
    let s2 = src.clone();
    let p = common::blocking(move || a.import_preview(s2, None, None).unwrap()).await;
    let est = p.conversations.unwrap();
    assert_eq!((est.conversations, est.model_calls), (6, 12));
    assert!(est.model_ready);
    // A budget for about two conversations: it stops before the third, saying why.
    let per = est.tokens / 6;
    let opts = ImportOptions {
        budget_tokens: Some(per * 2 + per / 2),
        ..ImportOptions::default()
    };
    let t = run_import(&api, &src, Some(opts)).await;
    assert_eq!(
        (t.status, t.reason.map(|r| r.as_str())),
        (TaskStatus::Failed, Some("budget")),
        "{t:?}"
    );
    let summary = t.result.as_ref().unwrap().summary.clone();
    assert!(
        summary.starts_with("stopped at the budget after 2 conversations"),
        "{summary}"
    );
    let group = t.result.unwrap().group.unwrap();
    // Cancelled while learning: it stops; what it finished stays.
    let (a, s2) = (api.clone(), src.clone());
    let opts = ImportOptions {
        budget_tokens: Some(est.tokens * 2),
        ..ImportOptions::default()
    };
    let t = common::blocking(move || {
        let t = a.import_start(s2, None, Some(opts), None).unwrap();
        let started = std::time::Instant::now();
        loop {
            let now = a.task(t.id.clone()).unwrap();
            if now.phase.as_deref() == Some("Conversation 4 / 6") || now.status.is_finished() {
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(30));
            std::thread::sleep(Duration::from_millis(10));
        }
        a.task_cancel(t.id.clone()).unwrap();
        a.wait_task(&t.id, Duration::from_secs(60)).unwrap()
    })
    .await;
    assert_eq!(
        (t.status, t.reason.map(|r| r.as_str())),
        (TaskStatus::Failed, Some("cancelled")),
        "{t:?}"
    );
    // The rest, with a budget of its own; everything in the one group.
    let t = run_import(&api, &src, None).await;
    assert_eq!(t.status, TaskStatus::Completed, "{t:?}");
    assert_eq!(
        t.result.unwrap().group,
        Some(group),
        "one group across the three runs"
    );
    let all = memory_text(&root(&api, "personal"));
    for k in 1..=6 {
        assert_eq!(
            all.matches(&format!("locker number is {k}\n")).count(),
            1,
            "{k}"
        );
    }
    let sent: Vec<String> = fake
        .requests()
        .iter()
        .filter_map(|r| {
            r["messages"]
                .as_array()?
                .iter()
                .find(|m| m["role"] == "user")?["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    // A finished conversation is sent once (a write, then the answer: two requests); only the
    // one the cancel interrupted is sent again.
    let counts: Vec<usize> = (1..=6)
        .map(|k| {
            sent.iter()
                .filter(|s| s.contains(&format!("locker number is {k}\n")))
                .count()
        })
        .collect();
    assert!(counts.iter().all(|n| (2..=3).contains(n)), "{counts:?}");
    assert!(
        counts.iter().filter(|n| **n == 3).count() <= 1,
        "{counts:?}"
    );
    // Undone by the person: the import starts over — every conversation learnt from again.
    api.undo_group(group).unwrap();
    assert!(!memory_text(&root(&api, "personal")).contains("locker number is"));
    let (a, s2) = (api.clone(), src.clone());
    let p = common::blocking(move || a.import_preview(s2, None, None).unwrap()).await;
    assert_eq!(p.conversations.unwrap().done_before, 0);
    let t = run_import(&api, &src, None).await;
    assert_eq!(t.status, TaskStatus::Completed, "{t:?}");
    assert!(t.result.unwrap().summary.starts_with("learnt from 6 of 6"));
    assert_eq!(
        memory_text(&root(&api, "personal"))
            .matches("locker number is ")
            .count(),
        6
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_the_model_fails_on_is_tried_again_next_time_and_three_in_a_row_stop_the_run()
 {
    use mnemo_testkit::{FakeModel, Reply};
    let (d, api) = api();
    let fake = FakeModel::start().await;
    common::configure(&api, &fake).await;
    fake.set_fallback(Reply::SaveFirstUserLine);
    let src = d.path().join("conversations.json");
    std::fs::write(&src, claude_ai(5).to_string()).unwrap();
    let src = src.to_string_lossy().into_owned();
    // The first conversation's answer is unusable: it is passed over, the rest learnt.
    fake.push(Reply::Raw(200, r#"{"choices": []}"#.into()));
    let t = run_import(&api, &src, None).await;
    assert_eq!(
        (t.status, t.reason.map(|r| r.as_str())),
        (TaskStatus::Failed, Some("error")),
        "{t:?}"
    );
    let summary = t.result.unwrap().summary;
    assert!(
        summary.starts_with(
            "learnt from 4 of 5 conversations; 1 could not be learnt from (\"Chat 1\""
        ),
        "{summary}"
    );
    assert!(
        summary.ends_with("run the import again to try them again"),
        "{summary}"
    );
    // Again: only that one.
    let t = run_import(&api, &src, None).await;
    assert_eq!(t.status, TaskStatus::Completed, "{t:?}");
    assert!(
        t.result
            .unwrap()
            .summary
            .starts_with("learnt from 1 of 5 conversations")
    );
    assert_eq!(
        memory_text(&root(&api, "personal"))
            .matches("locker number is ")
            .count(),
        5
    );

    // A model failing every time: the run stops after three in a row, none marked done.
    let src2 = d.path().join("more.json");
    let more: Vec<Value> = (1..=5)
        .map(|k| json!({"uuid": format!("m{k}"), "name": format!("More {k}"), "chat_messages": [{"sender": "human", "text": format!("The user's desk number is {k}")}]}))
        .collect();
    std::fs::write(&src2, Value::Array(more).to_string()).unwrap();
    fake.set_fallback(Reply::Raw(200, r#"{"choices": []}"#.into()));
    let t = run_import(&api, &src2.to_string_lossy(), None).await;
    assert_eq!(
        (t.status, t.reason.map(|r| r.as_str())),
        (TaskStatus::Failed, Some("error")),
        "{t:?}"
    );
    let summary = t.result.unwrap().summary;
    assert!(
        summary.contains("the model failed on 3 conversations in a row"),
        "{summary}"
    );
    let a = api.clone();
    let s2 = src2.to_string_lossy().into_owned();
    let p = common::blocking(move || a.import_preview(s2, None, None).unwrap()).await;
    assert_eq!(p.conversations.unwrap().done_before, 0);
}

/// An imported conversation reaches the model redacted (as chat redacts at intake),
/// and a secret in the source's file name never reaches the journal as the group's label.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_conversation_and_its_file_name_pass_the_secret_gate() {
    use mnemo_testkit::{FakeModel, Reply};
    let (d, api) = api();
    let fake = FakeModel::start().await;
    common::configure(&api, &fake).await;
    fake.set_fallback(Reply::SaveFirstUserLine);
    let token = "ghp_R8x2Kq7Lm3Np9Vt4Wz6Yb1Cd5Fg0Hj2Ks4Mx";
    let chats = json!([{"uuid": "c1", "name": "Setup", "chat_messages": [
        {"sender": "human", "text": format!("My github token is {token}, and I use Helix.")},
        {"sender": "assistant", "text": format!("Stored {token} for later.")}]}]);
    let src = d.path().join(format!("{token}.json"));
    std::fs::write(&src, chats.to_string()).unwrap();
    let t = run_import(&api, &src.to_string_lossy(), None).await;
    assert_eq!(t.status, TaskStatus::Completed, "{t:?}");
    let sent = serde_json::to_string(&fake.requests()).unwrap();
    assert!(sent.contains("Helix"), "the conversation was sent");
    assert!(!sent.contains(token), "the token reached the model");
    let group = t.result.unwrap().group.unwrap();
    let info = api.change_group(group).unwrap();
    assert!(!info.label.contains(token), "{}", info.label);
    // Nowhere in the home: journal, tasks, index, cursors, memory files.
    let mut stack = vec![api.home_dir().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            assert!(!p.to_string_lossy().contains(token), "{}", p.display());
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap_or_default();
                assert!(
                    !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
                    "the token is in {}",
                    p.display()
                );
            }
        }
    }
}

/// When the budget was spent on conversations the model failed on, the stop says so
/// first — the cause is the model, not the budget alone (it was only a log line).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budget_spent_on_failures_says_the_model_failed() {
    use mnemo_testkit::{FakeModel, Reply};
    let (d, api) = api();
    let fake = FakeModel::start().await;
    common::configure(&api, &fake).await;
    // The first conversation is learnt from; then the model refuses every request.
    fake.push(Reply::SaveFirstUserLine);
    fake.push(Reply::SaveFirstUserLine);
    fake.set_fallback(Reply::Status(
        400,
        json!({"error": {"message": "context length exceeded"}}),
    ));
    let src = d.path().join("conversations.json");
    std::fs::write(&src, claude_ai(6).to_string()).unwrap();
    let src = src.to_string_lossy().into_owned();
    let (a, s2) = (api.clone(), src.clone());
    let est = common::blocking(move || a.import_preview(s2, None, None).unwrap())
        .await
        .conversations
        .unwrap();
    let per = est.tokens / 6;
    let opts = ImportOptions {
        budget_tokens: Some(per * 2 + per / 2),
        ..ImportOptions::default()
    };
    let t = run_import(&api, &src, Some(opts)).await;
    assert_eq!(t.reason.map(|r| r.as_str()), Some("budget"), "{t:?}");
    let summary = t.result.as_ref().unwrap().summary.clone();
    assert!(
        summary.starts_with("stopped at the budget after 1 conversation ("),
        "{summary}"
    );
    // Failed conversations cost less than learnt ones: two were tried before the budget.
    assert!(
        summary.contains("the model failed on 2 of them (last \"Chat 3\""),
        "{summary}"
    );
    assert!(summary.contains("check the model"), "{summary}");
    assert_eq!(t.error.as_deref(), Some(summary.as_str()));
}
