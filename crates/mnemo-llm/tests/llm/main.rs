//! The client against the fake OpenAI-compatible server, over real HTTP on 127.0.0.1.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use mnemo_llm::{
    CancellationToken, ChatRequest, Client, Delta, LlmError, LlmSettings, Message, Tool,
};
use mnemo_testkit::{FakeModel, Formats, Reply};
use serde_json::json;

fn client(fake: &FakeModel) -> Client {
    client_for(fake, "fake-main")
}

/// A client for one model: what structured output a server + model accepts is remembered for
/// the process, so tests that make a server refuse use a model name of their own.
fn client_for(fake: &FakeModel, model: &str) -> Client {
    let s = LlmSettings {
        base_url: fake.base_url().to_owned(),
        api_key: Some("sk-test-secret".into()),
        model: model.into(),
        fast_model: "fake-fast".into(),
        timeout_secs: 5,
        ..LlmSettings::default()
    };
    // The clients of these tests share what they learn of their fake servers, as the API's do
    // (each fake has a port of its own).
    static PROFILES: std::sync::OnceLock<mnemo_llm::Profiles> = std::sync::OnceLock::new();
    let profiles = PROFILES.get_or_init(mnemo_llm::Profiles::default).clone();
    let mut c = Client::with_profiles(s, profiles).unwrap();
    c.backoff = Duration::from_millis(10);
    c
}

fn req(text: &str) -> ChatRequest {
    ChatRequest {
        messages: vec![Message::system("be brief"), Message::user(text)],
        ..ChatRequest::default()
    }
}

#[tokio::test]
async fn chat_sends_the_conversation_and_returns_the_answer() {
    let fake = FakeModel::start().await;
    fake.push(Reply::text("Hello there"));
    let r = client(&fake)
        .chat(&req("hi"), &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.message.content.as_deref(), Some("Hello there"));
    let sent = &fake.requests()[0];
    assert_eq!(sent["model"], "fake-main");
    assert_eq!(sent["messages"][1]["content"], "hi");
    assert_eq!(sent["stream"], false);
}

#[tokio::test]
async fn streaming_delivers_text_and_tool_call_deltas() {
    let fake = FakeModel::start().await;
    fake.push(Reply::text("Streaming works, 你好!"));
    fake.push(Reply::tool("read_file", json!({"path": "notes/a.md"})));
    let c = client(&fake);
    let mut pieces = Vec::new();
    let r = c
        .chat_stream(&req("hi"), &CancellationToken::new(), |d| {
            pieces.push(d.clone());
        })
        .await
        .unwrap();
    assert_eq!(r.message.content.as_deref(), Some("Streaming works, 你好!"));
    assert!(pieces.len() > 2, "arrived in pieces: {pieces:?}");
    let tool = Tool {
        name: "read_file".into(),
        description: "read".into(),
        parameters: json!({"type": "object"}),
    };
    let mut deltas = Vec::new();
    let r = c
        .chat_stream(
            &ChatRequest {
                tools: vec![tool],
                ..req("read it")
            },
            &CancellationToken::new(),
            |d| deltas.push(d.clone()),
        )
        .await
        .unwrap();
    assert_eq!(r.message.tool_calls[0].function.name, "read_file");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&r.message.tool_calls[0].function.arguments)
            .unwrap(),
        json!({"path": "notes/a.md"})
    );
    assert!(
        deltas
            .iter()
            .any(|d| matches!(d, Delta::ToolCallStart { name, .. } if name == "read_file"))
    );
    assert!(
        deltas
            .iter()
            .filter(|d| matches!(d, Delta::ToolCallArgs { .. }))
            .count()
            > 1
    );
    assert_eq!(
        fake.requests()[1]["tools"][0]["function"]["name"],
        "read_file"
    );
}

#[tokio::test]
async fn retries_on_429_500_and_resets_then_succeeds() {
    let fake = FakeModel::start().await;
    fake.push(Reply::error(429, "slow down"));
    fake.push(Reply::Hangup);
    fake.push(Reply::text("third time lucky"));
    let r = client(&fake)
        .chat(&req("hi"), &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.message.content.as_deref(), Some("third time lucky"));
    assert_eq!(fake.requests().len(), 3);
    let fake = FakeModel::start().await;
    for _ in 0..3 {
        fake.push(Reply::error(503, "down"));
    }
    let e = client(&fake)
        .chat(&req("hi"), &CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::Http(503, _)), "{e:?}");
}

#[tokio::test]
async fn errors_are_typed() {
    let fake = FakeModel::start().await;
    let c = client(&fake);
    let cancel = CancellationToken::new();
    fake.push(Reply::error(401, "bad key"));
    assert_eq!(
        c.chat(&req("x"), &cancel).await.unwrap_err(),
        LlmError::Unauthorized(401)
    );
    fake.push(Reply::error(404, "model not found"));
    assert_eq!(
        c.chat(&req("x"), &cancel).await.unwrap_err(),
        LlmError::ModelNotFound("fake-main".into())
    );
    fake.push(Reply::error(
        400,
        "This model's maximum context length is 8192 tokens",
    ));
    assert!(matches!(
        c.chat(&req("x"), &cancel).await.unwrap_err(),
        LlmError::ContextTooLong(_)
    ));
    fake.push(Reply::Status(200, json!({"unexpected": true})));
    assert!(matches!(
        c.chat(&req("x"), &cancel).await.unwrap_err(),
        LlmError::BadResponse(_)
    ));
    // Nothing listening at all.
    let dead = Client::new(LlmSettings {
        base_url: "http://127.0.0.1:9/v1".into(),
        model: "m".into(),
        ..LlmSettings::default()
    })
    .unwrap();
    let mut dead = dead;
    dead.attempts = 1;
    assert!(matches!(
        dead.chat(&req("x"), &cancel).await.unwrap_err(),
        LlmError::Unreachable(..)
    ));
}

#[tokio::test]
async fn timeouts_and_cancellation() {
    let fake = FakeModel::start().await;
    let mut c = client(&fake);
    c.attempts = 1;
    fake.push(Reply::Delay(
        Duration::from_secs(30),
        Box::new(Reply::text("late")),
    ));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    assert_eq!(
        c.chat(&req("x"), &cancel).await.unwrap_err(),
        LlmError::Cancelled
    );
    let mut s = c.settings().clone();
    s.timeout_secs = 1;
    let mut quick = Client::new(s).unwrap();
    quick.attempts = 1;
    fake.push(Reply::Delay(
        Duration::from_secs(5),
        Box::new(Reply::text("late")),
    ));
    assert_eq!(
        quick
            .chat(&req("x"), &CancellationToken::new())
            .await
            .unwrap_err(),
        LlmError::Timeout(1)
    );
}

#[derive(serde::Deserialize, Debug, PartialEq)]
struct Pick {
    paths: Vec<String>,
}

#[tokio::test]
async fn json_output_with_schema_fallback_and_one_retry() {
    let schema = json!({"type": "object", "properties": {"paths": {"type": "array", "items": {"type": "string"}}}, "required": ["paths"]});
    let only_known = |p: &Pick| {
        if p.paths.iter().all(|x| x.ends_with(".md")) {
            Ok(())
        } else {
            Err("paths must name memory files".to_owned())
        }
    };
    // Schema-constrained server.
    let fake = FakeModel::start().await;
    let c = client(&fake);
    fake.push(Reply::json(&json!({"paths": ["a.md"]})));
    let p: Pick = c
        .json(
            req("pick"),
            "pick",
            &schema,
            only_known,
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(p.paths, ["a.md"]);
    assert_eq!(fake.requests()[0]["response_format"]["type"], "json_schema");
    // A server refusing JSON-schema output: steps down to `json_object` plus instructions, then
    // retries once on an invalid answer with the problem spelled out.
    let fake = FakeModel::start().await;
    let c = client_for(&fake, "no-structured-output");
    fake.push(Reply::error(
        400,
        "response_format json_schema is not supported",
    ));
    fake.push(Reply::text("Here you go: {\"paths\": [\"invented\"]}"));
    fake.push(Reply::text("```json\n{\"paths\": [\"b.md\"]}\n```"));
    let p: Pick = c
        .json(
            req("pick"),
            "pick",
            &schema,
            only_known,
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(p.paths, ["b.md"]);
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(reqs[1]["response_format"]["type"], "json_object");
    assert!(reqs[1]["messages"].to_string().contains("JSON Schema"));
    assert!(
        reqs[2]["messages"]
            .to_string()
            .contains("paths must name memory files")
    );
    // Still invalid after the retry: a clear error.
    fake.push(Reply::text("nope"));
    fake.push(Reply::text("still nope"));
    let e = c
        .json::<Pick>(
            req("pick"),
            "pick",
            &schema,
            only_known,
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::BadResponse(_)));
}

fn pick_schema() -> serde_json::Value {
    json!({"type": "object", "properties": {"paths": {"type": "array", "items": {"type": "string"}}}, "required": ["paths"]})
}

async fn pick(c: &Client, request: ChatRequest) -> Result<Pick, LlmError> {
    c.json(
        request,
        "pick",
        &pick_schema(),
        |_: &Pick| Ok(()),
        &CancellationToken::new(),
    )
    .await
}

fn schema_instructed(body: &serde_json::Value) -> bool {
    body["messages"].as_array().unwrap().iter().any(|m| {
        m["role"] == "system"
            && m["content"].as_str().unwrap().contains("JSON Schema")
            && m["content"].as_str().unwrap().contains("\"paths\"")
    })
}

#[tokio::test]
async fn json_steps_down_to_json_object_on_a_llama_cpp_server_and_remembers_it() {
    let fake = FakeModel::start().await;
    fake.set_formats(Formats::LlamaCpp);
    fake.push(Reply::json(&json!({"paths": ["a.md"]})));
    let p = pick(&client_for(&fake, "llama-a"), req("pick"))
        .await
        .unwrap();
    assert_eq!(p.paths, ["a.md"]);
    let reqs = fake.requests();
    assert_eq!(
        reqs.len(),
        2,
        "the HTTP 500 refusal is not retried: {reqs:?}"
    );
    assert_eq!(reqs[0]["response_format"]["type"], "json_schema");
    assert_eq!(
        reqs[1]["response_format"],
        json!({"type": "json_object", "schema": pick_schema()})
    );
    assert!(!schema_instructed(&reqs[0]));
    assert!(schema_instructed(&reqs[1]));
    // A new client for the same server and model starts at `json_object`.
    fake.push(Reply::json(&json!({"paths": ["b.md"]})));
    let p = pick(&client_for(&fake, "llama-a"), req("pick"))
        .await
        .unwrap();
    assert_eq!(p.paths, ["b.md"]);
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(reqs[2]["response_format"]["type"], "json_object");
    assert!(schema_instructed(&reqs[2]));
    // The model named in the request is the one remembered, not the client's default.
    let by_request = ChatRequest {
        model: Some("llama-a".into()),
        ..req("pick")
    };
    fake.push(Reply::json(&json!({"paths": []})));
    pick(&client_for(&fake, "llama-other"), by_request)
        .await
        .unwrap();
    assert_eq!(fake.requests()[3]["response_format"]["type"], "json_object");
    // Another model on the same server learns for itself.
    fake.push(Reply::json(&json!({"paths": []})));
    pick(&client_for(&fake, "llama-b"), req("pick"))
        .await
        .unwrap();
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 6);
    assert_eq!(reqs[4]["response_format"]["type"], "json_schema");
    assert_eq!(reqs[5]["response_format"]["type"], "json_object");
}

#[tokio::test]
async fn json_steps_down_to_prompt_instructions_on_a_server_refusing_both() {
    let fake = FakeModel::start().await;
    fake.set_formats(Formats::TextOnly);
    fake.push(Reply::text("{\"paths\": [\"c.md\"]}"));
    let p = pick(&client_for(&fake, "text-only"), req("pick"))
        .await
        .unwrap();
    assert_eq!(p.paths, ["c.md"]);
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 3, "{reqs:?}");
    assert_eq!(reqs[0]["response_format"]["type"], "json_schema");
    assert_eq!(reqs[1]["response_format"]["type"], "json_object");
    assert!(reqs[2].get("response_format").is_none());
    assert!(schema_instructed(&reqs[2]));
    assert_eq!(
        reqs[2]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["content"].as_str().unwrap().contains("JSON Schema"))
            .count(),
        1,
        "the instructions are given once"
    );
    // Remembered: the next call goes straight to the prompt.
    fake.push(Reply::text("{\"paths\": []}"));
    pick(&client_for(&fake, "text-only"), req("pick"))
        .await
        .unwrap();
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 4);
    assert!(reqs[3].get("response_format").is_none());
    assert!(schema_instructed(&reqs[3]));
}

#[tokio::test]
async fn json_does_not_step_down_on_failures_that_are_not_refusals() {
    // A 500 about something else is retried as before, then is the error.
    let fake = FakeModel::start().await;
    for _ in 0..3 {
        fake.push(Reply::error(500, "CUDA out of memory"));
    }
    let e = pick(&client_for(&fake, "plain-500"), req("pick"))
        .await
        .unwrap_err();
    assert_eq!(e, LlmError::Http(500, "CUDA out of memory".into()));
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 3, "retried");
    assert!(
        reqs.iter()
            .all(|r| r["response_format"]["type"] == "json_schema")
    );
    // Transient: one 500, then the answer, still with JSON-schema output; nothing remembered.
    fake.push(Reply::error(500, "CUDA out of memory"));
    fake.push(Reply::json(&json!({"paths": []})));
    pick(&client_for(&fake, "plain-500"), req("pick"))
        .await
        .unwrap();
    fake.push(Reply::json(&json!({"paths": []})));
    pick(&client_for(&fake, "plain-500"), req("pick"))
        .await
        .unwrap();
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 6);
    assert!(
        reqs[3..]
            .iter()
            .all(|r| r["response_format"]["type"] == "json_schema")
    );
    // A refused key is not a refused format, whatever the message says.
    let fake = FakeModel::start().await;
    fake.push(Reply::error(401, "unsupported API key"));
    let e = pick(&client_for(&fake, "bad-key"), req("pick"))
        .await
        .unwrap_err();
    assert_eq!(e, LlmError::Unauthorized(401));
    fake.push(Reply::json(&json!({"paths": []})));
    pick(&client_for(&fake, "bad-key"), req("pick"))
        .await
        .unwrap();
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 2);
    assert!(
        reqs.iter()
            .all(|r| r["response_format"]["type"] == "json_schema")
    );
}

#[tokio::test]
async fn embeddings_keep_input_order() {
    let fake = FakeModel::start().await;
    let inputs = vec!["alpha".to_owned(), "beta".to_owned()];
    let v = client(&fake)
        .embeddings("embed", &inputs, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(v[0], mnemo_testkit::fake_vector("alpha"));
    assert_eq!(fake.requests()[0]["input"][1], "beta");
}

#[test]
fn stored_settings_round_trip_without_the_key() {
    let s = LlmSettings {
        base_url: "http://127.0.0.1:11434/v1".into(),
        api_key: Some("sk-secret".into()),
        model: "qwen3".into(),
        ..LlmSettings::default()
    };
    let table = s.to_stored().unwrap();
    let text = toml::to_string(&table).unwrap();
    assert!(text.contains("qwen3"));
    assert!(!text.contains("sk-secret"), "the key is never in [llm]");
    let back = LlmSettings::from_stored(Some(table), Some("sk-secret".into())).unwrap();
    assert_eq!(back, s);
    assert_eq!(
        back.fast(),
        "qwen3",
        "fast model defaults to the main model"
    );
    assert!(!format!("{back:?}").contains("sk-secret"), "never in logs");
    assert!(!LlmSettings::default().is_configured());
    let bad = toml::Value::String("nope".into());
    assert_eq!(
        LlmSettings::from_stored(Some(bad), None).unwrap_err().code,
        mnemo_core::ErrorCode::Corrupt
    );
}
