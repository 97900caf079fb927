//! Context compaction: a chat driven past a small context window keeps
//! working — every request stays under the window, older turns are replaced by a summary (the
//! model's, else extractive) that is appended to today's daily log, extraction still saw the
//! turns before they were compacted, and the whole transcript stays on disk. A newest message
//! too long for the window alone is a clear error and saves nothing.

use std::time::Duration;

use mnemo_api::{ChatEvent, ModelSettings};
use mnemo_core::ErrorCode;
use mnemo_engine::chat::compact;
use mnemo_testkit::{FakeModel, Kind, Reply};
use serde_json::{Value, json};

use crate::common::{api, blocking, settings};

const WINDOW: u32 = 4_096;

/// A user message of ~1,000 estimated tokens carrying a marker word.
fn long_message(marker: &str) -> String {
    format!(
        "{marker}: {}",
        "we compared flights, hotels and trains for the trip in detail. ".repeat(45)
    )
}

/// The estimated tokens of a request body as the model receives it (messages and tools).
fn request_tokens(body: &Value) -> usize {
    let msgs: usize = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| 4 + compact::estimate_tokens(m["content"].as_str().unwrap_or_default()))
        .sum();
    msgs + compact::estimate_tokens(&body["tools"].to_string())
}

/// A fresh API whose model (the fake) has a `WINDOW`-token context.
async fn small_window() -> (tempfile::TempDir, mnemo_api::Api, FakeModel) {
    let (d, api) = api();
    let fake = FakeModel::start().await;
    let a = api.clone();
    let s = ModelSettings {
        context_window: WINDOW,
        ..settings(&fake)
    };
    blocking(move || a.set_model_settings(s)).await.unwrap();
    (d, api, fake)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_past_a_small_window_is_compacted_into_the_daily_log_and_keeps_working() {
    let (_d, api, fake) = small_window().await;
    let events = api.subscribe_chat();
    let session = api.chat_create("personal".into(), None).unwrap();

    fake.push_for(
        Kind::Plain,
        Reply::text("SUMMARY: the user is planning a trip to Lisbon (alpha, bravo turns)."),
    );
    // Later summaries fail: they are written without the model.
    for _ in 0..5 {
        fake.push_for(
            Kind::Plain,
            Reply::Status(400, json!({"error": {"message": "nope"}})),
        );
    }
    let markers = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];
    let mut compactions = Vec::new();
    let mut compacted_at = Vec::new();
    for (turn, m) in markers.into_iter().enumerate() {
        fake.push_for(Kind::Stream, Reply::text(format!("Noted about {m}.")));
        let (a, sid, text) = (api.clone(), session.id.clone(), long_message(m));
        let r = blocking(move || a.chat_send("personal".into(), sid, text))
            .await
            .unwrap_or_else(|e| panic!("turn {m}: {e:?}"));
        assert_eq!(r.reply, format!("Noted about {m}."));
        if let Some(c) = r.compacted {
            compactions.push(c);
            compacted_at.push(turn);
        }
        // Each turn's extraction runs in the background: let it finish before the next turn.
        loop {
            let ev = events.recv_timeout(Duration::from_secs(30)).unwrap();
            if matches!(ev, ChatEvent::Extracted { .. }) {
                break;
            }
        }
    }

    // It was compacted, first by the model, later without it (the summary request failed).
    assert!(compactions.len() >= 2, "{compactions:?}");
    assert_eq!(compactions[0].by, mnemo_api::wire::CompactionSource::Model);
    assert!(
        compactions[0]
            .summary
            .starts_with("SUMMARY: the user is planning")
    );
    assert_eq!(
        compactions[1].by,
        mnemo_api::wire::CompactionSource::Extractive
    );
    assert!(
        compactions[1]
            .summary
            .contains("SUMMARY: the user is planning"),
        "carries the earlier summary"
    );
    assert!(compactions[1].upto > compactions[0].upto);

    // Every chat request stayed under the window, and after a compaction the compacted turns
    // were not sent again — their summary was.
    let replies: Vec<Value> = fake
        .requests()
        .into_iter()
        .filter(|b| Kind::of(b) == Kind::Stream)
        .collect();
    assert_eq!(replies.len(), markers.len());
    let limit = usize::try_from(WINDOW).unwrap() - compact::reply_reserve(WINDOW as usize);
    for (i, body) in replies.iter().enumerate() {
        let t = request_tokens(body);
        assert!(t <= limit, "request {i}: {t} estimated tokens > {limit}");
    }
    for turn in compacted_at {
        let sent = replies[turn].to_string();
        assert!(
            !sent.contains("alpha: we compared"),
            "alpha's turn was compacted away"
        );
        assert!(
            sent.contains("SUMMARY: the user is planning"),
            "its summary was sent instead"
        );
        assert!(
            sent.contains(&format!("{}: we compared", markers[turn])),
            "the newest message is there"
        );
    }

    // The summaries are in today's daily log, journaled.
    let log = compactions[0]
        .log
        .clone()
        .expect("appended to the daily log");
    let today = chrono::Utc::now()
        .format("logs/%Y/%m/%Y-%m-%d.md")
        .to_string();
    assert_eq!(log, today);
    let text =
        std::fs::read_to_string(api.home_dir().join("workspaces/personal/memory").join(&log))
            .unwrap();
    assert!(text.contains("SUMMARY: the user is planning"), "{text}");
    assert!(text.contains("compacted"), "{text}");
    let history = api
        .history(Some("personal".into()), Some(log.clone()), None)
        .unwrap();
    assert!(
        history.iter().all(|h| h.source.as_str() == "chat"),
        "{history:?}"
    );
    assert!(!history.is_empty());
    // The daily logs are listed for the browser, newest day first.
    let logs = api.logs("personal".into()).unwrap();
    assert_eq!(logs[0].path, log);
    // And found by search like any memory.
    let hits = api
        .search(Some("personal".into()), "Lisbon".into(), None, Some(true))
        .unwrap();
    assert!(hits.iter().any(|h| h.path == log), "{hits:?}");

    // Extraction saw the turns before they were compacted.
    let extracted: String = fake
        .requests()
        .into_iter()
        .filter(|b| Kind::of(b) == Kind::Tools)
        .map(|b| b.to_string())
        .collect();
    assert!(
        extracted.contains("alpha: we compared"),
        "alpha's turn reached extraction"
    );

    // The transcript keeps every message, with the markers.
    let t = api
        .chat_transcript("personal".into(), session.id.clone())
        .unwrap();
    assert_eq!(t.messages.len(), markers.len() * 2);
    assert_eq!(t.compactions.len(), compactions.len());
    assert_eq!(t.compactions[0].upto, compactions[0].upto);

    // A newest message too long for the window on its own: a clear error, nothing saved.
    let (a, sid) = (api.clone(), session.id.clone());
    let huge = "too long ".repeat(3_000);
    let e = blocking(move || a.chat_send("personal".into(), sid, huge))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge, "{}", e.message);
    assert!(e.message.contains("context window"), "{}", e.message);
    let after = api.chat_transcript("personal".into(), session.id).unwrap();
    assert_eq!(after.messages.len(), markers.len() * 2, "nothing saved");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_that_ignores_memory_is_compacted_without_touching_the_daily_log() {
    let (_d, api, fake) = small_window().await;
    let session = api.chat_create("personal".into(), None).unwrap();
    api.chat_update("personal".into(), session.id.clone(), None, Some(true))
        .unwrap();
    fake.push_for(Kind::Plain, Reply::text("SUMMARY: private planning."));
    let mut compacted = None;
    for m in ["alpha", "bravo", "charlie", "delta", "echo"] {
        fake.push_for(Kind::Stream, Reply::text("ok."));
        let (a, sid, text) = (api.clone(), session.id.clone(), long_message(m));
        let r = blocking(move || a.chat_send("personal".into(), sid, text))
            .await
            .unwrap();
        compacted = compacted.or(r.compacted);
    }
    let c = compacted.expect("compacted");
    assert_eq!(c.summary, "SUMMARY: private planning.");
    assert_eq!(c.log, None, "an ignored chat's summary stays out of memory");
    assert!(api.logs("personal".into()).unwrap().is_empty());
    assert!(
        !api.home_dir()
            .join("workspaces/personal/memory/logs")
            .exists()
    );
}
