//! Whole chat turns through the API against the fake model server: model settings, recall into
//! the prompt, the streamed reply as chat events, background extraction writing a memory, and
//! what happens without a model.

use std::sync::mpsc::Receiver;
use std::time::Duration;

use mnemo_api::{Api, ChatEvent, ModelSettings, NewMemory};
use mnemo_core::{ChangeSource, ErrorCode, MemoryChanged, MemoryType};
use mnemo_testkit::{FakeModel, Kind, Reply};

use crate::common::{api, blocking, settings};
use serde_json::json;

fn seed(api: &Api) {
    api.create(
        "personal".into(),
        NewMemory {
            path: Some("deploy.md".into()),
            name: "Deploy checklist".into(),
            description: "Steps before a production deploy".into(),
            memory_type: MemoryType::Project,
            body: "Run the smoke suite, then tag the release.\n".into(),
        },
    )
    .unwrap();
}

const NEW_MEMORY: &str = "---\nname: Deploy day\ndescription: The team ships to production on Tuesdays\ntype: project\n---\nThe team ships to production every Tuesday.\nWhy: stated by the user.\n";

fn next_extracted(rx: &Receiver<ChatEvent>) -> ChatEvent {
    loop {
        let ev = rx.recv_timeout(Duration::from_secs(30)).unwrap();
        if matches!(ev, ChatEvent::Extracted { .. }) {
            return ev;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_recalls_streams_and_extracts_in_the_background() {
    let (_d, api) = api();
    seed(&api);
    let fake = FakeModel::start().await;
    let a = api.clone();
    let s = settings(&fake);
    let shown = blocking(move || a.set_model_settings(s)).await.unwrap();
    assert!(shown.configured && shown.has_key);
    assert_eq!(shown.api_key, None, "the key is never sent back");
    let key_file = api.home_dir().join("llm.key");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let toml = std::fs::read_to_string(api.home_dir().join("settings.toml")).unwrap();
    assert!(
        !toml.contains("sk-test-123"),
        "the key stays out of settings.toml"
    );

    fake.push_for(Kind::Json, Reply::json(&json!({"paths": ["deploy.md"]})));
    fake.push_for(
        Kind::Stream,
        Reply::text("Run the smoke suite first, then tag."),
    );
    fake.push_for(
        Kind::Tools,
        Reply::tool(
            "write_file",
            json!({"path": "project/deploy-day.md", "content": NEW_MEMORY}),
        ),
    );
    fake.push_for(Kind::Tools, Reply::text("Saved 1 memory."));

    let session = api.chat_create("personal".into(), None).unwrap();
    assert_eq!(session.title, "New chat");
    let chat_rx = api.subscribe_chat();
    let changes: Receiver<MemoryChanged> = api.subscribe();
    let (a, id) = (api.clone(), session.id.clone());
    let turn = blocking(move || {
        a.chat_send(
            "personal".into(),
            id,
            "How do I deploy? We ship on Tuesdays.".into(),
        )
    })
    .await
    .unwrap();
    assert_eq!(turn.reply, "Run the smoke suite first, then tag.");
    assert_eq!(turn.command, None);
    let recall = turn.recall.clone().unwrap();
    assert_eq!(recall.selected[0].path, "deploy.md");

    // Events: recall first, then the reply piece by piece.
    let mut streamed = String::new();
    let mut saw_recall_first = false;
    while streamed != turn.reply {
        match chat_rx.recv_timeout(Duration::from_secs(10)).unwrap() {
            ChatEvent::Recalled { recall, .. } => {
                assert!(streamed.is_empty());
                assert_eq!(recall.selected[0].path, "deploy.md");
                saw_recall_first = true;
            }
            ChatEvent::Delta { text, session, .. } => {
                assert_eq!(session, turn.session);
                streamed.push_str(&text);
            }
            _ => {}
        }
    }
    assert!(saw_recall_first);

    // The recalled memory's body is in the system prompt of the streamed request.
    let reqs = fake.requests();
    let chat_req = reqs.iter().find(|r| r["stream"] == true).unwrap();
    let system = chat_req["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("Run the smoke suite, then tag the release."));
    assert_eq!(reqs[0]["model"], "fake-fast", "recall asks the fast model");

    // Extraction runs in the background and writes a well-formed memory.
    let ChatEvent::Extracted { result, .. } = next_extracted(&chat_rx) else {
        unreachable!()
    };
    assert_eq!(
        result.status,
        mnemo_api::wire::ExtractStatus::Completed,
        "{result:?}"
    );
    assert_eq!(result.files_written, vec!["project/deploy-day.md"]);
    assert_eq!(result.upto, 2, "the run covered the turn's two messages");
    let m = api
        .get("personal".into(), "project/deploy-day.md".into())
        .unwrap();
    assert!(m.summary.valid);
    assert_eq!(m.summary.memory_type, Some(MemoryType::Project));
    let announced = std::iter::from_fn(|| changes.recv_timeout(Duration::from_secs(5)).ok())
        .find(|c| c.paths.contains(&"project/deploy-day.md".to_owned()))
        .unwrap();
    assert_eq!(announced.source, ChangeSource::Extract);
    let history = api
        .history(
            Some("personal".into()),
            Some("project/deploy-day.md".into()),
            None,
        )
        .unwrap();
    assert_eq!(history[0].source, ChangeSource::Extract);

    // The extraction request carried the turn's transcript.
    let extract_req = fake
        .requests()
        .into_iter()
        .find(|r| Kind::of(r) == Kind::Tools)
        .unwrap();
    let task = extract_req["messages"][1]["content"].as_str().unwrap();
    assert!(task.contains("We ship on Tuesdays"), "{task}");

    // The session: titled after the first message, both messages saved, recall remembered.
    let t = api
        .chat_transcript("personal".into(), session.id.clone())
        .unwrap();
    assert_eq!(t.session.title, "How do I deploy? We ship on Tuesdays.");
    assert_eq!(t.messages.len(), 2);
    assert_eq!(t.messages[1].recalled, vec!["deploy.md"]);
    assert_eq!(
        t.messages[1].wrote,
        vec!["project/deploy-day.md"],
        "the wrote badge survives a reload"
    );
    assert_eq!(api.chat_sessions("personal".into()).unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_model_chat_says_what_to_configure_and_the_rest_works() {
    let (_d, api) = api();
    seed(&api);
    let shown = api.get_model_settings().unwrap();
    assert!(!shown.configured);
    let s = api
        .chat_create("personal".into(), Some("Hi".into()))
        .unwrap();
    let a = api.clone();
    let id = s.id.clone();
    let e = blocking(move || a.chat_send("personal".into(), id, "hello".into()))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::ModelNotConfigured);
    assert!(e.message.contains("Settings"), "{}", e.message);
    let e = api.test_model(None).unwrap_err();
    assert_eq!(e.code, ErrorCode::ModelNotConfigured);
    // `/memory` needs no model.
    let a = api.clone();
    let id = s.id.clone();
    let status = blocking(move || a.chat_send("personal".into(), id, "/memory".into()))
        .await
        .unwrap();
    assert_eq!(status.command, Some(mnemo_api::ChatCommand::Memory));
    assert!(status.reply.contains("1 memories"), "{}", status.reply);
    // Lexical recall, search and browsing work.
    let r = api
        .recall("personal".into(), "deploy smoke".into(), None, None)
        .unwrap();
    assert_eq!(r.selected[0].path, "deploy.md");
    assert_eq!(
        api.search(None, "smoke".into(), None, None)
            .unwrap()
            .iter()
            .filter(|h| !h.weak)
            .count(),
        1
    );
    assert_eq!(
        api.chat_transcript("personal".into(), s.id)
            .unwrap()
            .messages
            .len(),
        0,
        "nothing was added to the transcript"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_model_and_test_connection() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    let a = api.clone();
    let s = settings(&fake);
    blocking(move || a.set_model_settings(s)).await.unwrap();
    fake.push_for(Kind::Plain, Reply::text("ok"));
    let a = api.clone();
    let t = blocking(move || a.test_model(None)).await.unwrap();
    assert_eq!((t.model.as_str(), t.reply.as_str()), ("fake-main", "ok"));
    let req = fake.requests().pop().unwrap();
    assert_eq!(req["max_tokens"], 5);
    // A server that refuses the key.
    fake.push_for(Kind::Plain, Reply::error(401, "bad key"));
    let a = api.clone();
    let e = blocking(move || a.test_model(None)).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::ModelNotConfigured);
    assert!(e.message.contains("API key"), "{}", e.message);
    // Nothing listening.
    let dead = ModelSettings {
        base_url: "http://127.0.0.1:9/v1".into(),
        api_key: None,
        ..settings(&fake)
    };
    let a = api.clone();
    let kept = blocking(move || a.set_model_settings(dead)).await.unwrap();
    assert!(
        !kept.has_key,
        "a new base URL without a key drops the stored one: it never follows to another host"
    );
    assert!(!api.home_dir().join("llm.key").exists());
    let a = api.clone();
    let e = blocking(move || a.test_model(None)).await.unwrap_err();
    assert_eq!(
        e.code,
        ErrorCode::ModelUnreachable,
        "configured, not reachable"
    );
    assert!(e.message.contains("unreachable"), "{}", e.message);
}

/// "Test connection" tries what the person typed and saves nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn testing_unsaved_settings_writes_nothing() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    let a = api.clone();
    let s = settings(&fake);
    blocking(move || a.set_model_settings(s)).await.unwrap();
    let toml = api.home_dir().join("settings.toml");
    let before = std::fs::read(&toml).unwrap();
    let key_before = std::fs::read(api.home_dir().join("llm.key")).unwrap();
    // A mistyped model on the same server: tried with the stored key, not saved.
    fake.push_for(Kind::Plain, Reply::text("ok"));
    let typo = ModelSettings {
        model: "fake-typo".into(),
        api_key: None,
        ..settings(&fake)
    };
    let a = api.clone();
    let t = blocking(move || a.test_model(Some(typo))).await.unwrap();
    assert_eq!(t.model, "fake-typo");
    let req = fake.requests().pop().unwrap();
    assert_eq!(req["model"], "fake-typo");
    // An unreachable address: refused as unreachable, not saved, and the key never sent there.
    let dead = ModelSettings {
        base_url: "http://127.0.0.1:9/v1".into(),
        api_key: None,
        ..settings(&fake)
    };
    let a = api.clone();
    let e = blocking(move || a.test_model(Some(dead)))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::ModelUnreachable);
    assert_eq!(
        std::fs::read(&toml).unwrap(),
        before,
        "settings.toml untouched"
    );
    assert_eq!(
        std::fs::read(api.home_dir().join("llm.key")).unwrap(),
        key_before
    );
    assert_eq!(api.get_model_settings().unwrap().model, "fake-main");
}

#[test]
fn model_settings_are_validated_and_the_key_can_be_removed() {
    let (_d, api) = api();
    let base = ModelSettings {
        base_url: "http://127.0.0.1:11434/v1".into(),
        model: "llama".into(),
        context_window: 32_768,
        timeout_secs: 60,
        api_key: Some("k".into()),
        ..ModelSettings::default()
    };
    for bad in [
        ModelSettings {
            base_url: "127.0.0.1:11434".into(),
            ..base.clone()
        },
        ModelSettings {
            model: " ".into(),
            ..base.clone()
        },
        ModelSettings {
            context_window: 10,
            ..base.clone()
        },
        ModelSettings {
            timeout_secs: 0,
            ..base.clone()
        },
    ] {
        let e = api.set_model_settings(bad).unwrap_err();
        assert_eq!(e.code, ErrorCode::Usage, "{}", e.message);
    }
    assert!(
        !api.home_dir().join("settings.toml").exists(),
        "nothing written for bad input"
    );
    assert!(api.set_model_settings(base.clone()).unwrap().has_key);
    let removed = api
        .set_model_settings(ModelSettings {
            api_key: Some(String::new()),
            ..base
        })
        .unwrap();
    assert!(!removed.has_key);
    assert!(!api.home_dir().join("llm.key").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_reply_at_a_time_per_chat_and_stop() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    let a = api.clone();
    let s = settings(&fake);
    blocking(move || a.set_model_settings(s)).await.unwrap();
    let s = api.chat_create("personal".into(), None).unwrap();
    fake.push_for(Kind::Json, Reply::json(&json!({"paths": []})));
    fake.push_for(
        Kind::Stream,
        Reply::Delay(Duration::from_secs(20), Box::new(Reply::text("late"))),
    );
    let (a, id) = (api.clone(), s.id.clone());
    let first =
        tokio::task::spawn_blocking(move || a.chat_send("personal".into(), id, "slow one".into()));
    // Wait until the streamed request is under way.
    while !fake.requests().iter().any(|r| r["stream"] == true) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (a, id) = (api.clone(), s.id.clone());
    let e = blocking(move || a.chat_send("personal".into(), id, "second".into()))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    assert!(api.chat_cancel(s.id.clone()).unwrap());
    let e = first.await.unwrap().unwrap_err();
    assert!(e.message.contains("stopped"), "{}", e.message);
    assert!(!api.chat_cancel(s.id.clone()).unwrap(), "nothing runs now");
    assert_eq!(
        api.chat_transcript("personal".into(), s.id)
            .unwrap()
            .messages
            .len(),
        0,
        "a stopped turn saves nothing"
    );
}

#[test]
fn sessions_rename_ignore_memory_delete_and_bad_input() {
    let (_d, api) = api();
    let s = api.chat_create("personal".into(), None).unwrap();
    let u = api
        .chat_update(
            "personal".into(),
            s.id.clone(),
            Some("Plans".into()),
            Some(true),
        )
        .unwrap();
    assert_eq!((u.title.as_str(), u.ignore_memory), ("Plans", true));
    assert_eq!(
        api.chat_update("personal".into(), s.id.clone(), Some("  ".into()), None)
            .unwrap_err()
            .code,
        ErrorCode::Usage
    );
    assert_eq!(
        api.chat_transcript("personal".into(), "../x".into())
            .unwrap_err()
            .code,
        ErrorCode::Usage
    );
    assert_eq!(
        api.chat_transcript("personal".into(), "nope".into())
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );
    assert_eq!(
        api.chat_sessions("no-such-workspace".into())
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );
    let huge = "x".repeat(mnemo_api::MAX_MESSAGE_BYTES + 1);
    assert_eq!(
        api.chat_send("personal".into(), s.id.clone(), huge)
            .unwrap_err()
            .code,
        ErrorCode::TooLarge
    );
    api.chat_delete("personal".into(), s.id.clone()).unwrap();
    assert!(api.chat_sessions("personal".into()).unwrap().is_empty());
    assert_eq!(
        api.chat_delete("personal".into(), s.id).unwrap_err().code,
        ErrorCode::NotFound
    );
}

/// Settings offers the server's own model list (`GET /models`) for what is typed,
/// before a model is named, and writes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_lists_its_models_for_unsaved_settings() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    let typed = ModelSettings {
        model: String::new(),
        fast_model: String::new(),
        ..settings(&fake)
    };
    let a = api.clone();
    let listed = blocking(move || a.model_list(Some(typed))).await.unwrap();
    assert_eq!(listed, ["fake-fast", "fake-main"]);
    assert_eq!(
        api.get_model_settings().unwrap().base_url,
        "",
        "listing saved nothing"
    );
    assert!(!api.home_dir().join("llm.key").exists());
    // Nothing set and nothing typed: no server to ask.
    let e = api.model_list(None).unwrap_err();
    assert_eq!(e.code, ErrorCode::ModelNotConfigured);
    // Nothing listening there: unreachable, in words.
    let dead = ModelSettings {
        base_url: "http://127.0.0.1:9/v1".into(),
        ..settings(&fake)
    };
    let a = api.clone();
    let e = blocking(move || a.model_list(Some(dead)))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::ModelUnreachable);
    // A server without the list (the fake below `/v1`): said so, not "wrong model".
    let root = ModelSettings {
        base_url: fake.base_url().trim_end_matches("/v1").to_owned(),
        ..settings(&fake)
    };
    let a = api.clone();
    let e = blocking(move || a.model_list(Some(root)))
        .await
        .unwrap_err();
    assert!(
        e.message.contains("does not list its models"),
        "{}",
        e.message
    );
    // A bad address is refused before anything is sent.
    let bad = ModelSettings {
        base_url: "ftp://example".into(),
        ..settings(&fake)
    };
    assert_eq!(
        api.model_list(Some(bad)).unwrap_err().code,
        ErrorCode::Usage
    );
}
