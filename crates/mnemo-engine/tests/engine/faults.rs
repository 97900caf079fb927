//! A model server misbehaving — never stopping, invalid JSON, empty choices, a broken stream, a
//! hang-up, answers cut at their cap, the same call again and again, a tool result larger than
//! the window, a context window smaller than configured — and a server without tool calls:
//! each run ends with a clear outcome within its bound, nothing half-written.

use std::time::{Duration, Instant};

use mnemo_core::ChangeSource;
use mnemo_engine::{AgentLimits, AgentMachine, AgentOutcome, MemoryTools, run_agent};
use mnemo_llm::{CancellationToken, ChatRequest, LlmError, Message};
use mnemo_testkit::{FakeModel, Reply};
use serde_json::json;

use crate::{client, vault};

const LIMITS: AgentLimits = AgentLimits {
    max_turns: 4,
    wall_time: Duration::from_secs(20),
    step_tokens: 256,
    total_tokens: 100_000,
};
const GOOD: &str = "---\nname: Peanuts\ndescription: The user is allergic to peanuts\ntype: user\n---\nThe user is allergic to peanuts.\n";

/// One agent run against `fake` in a fresh vault: the outcome, the memory folder's files.
async fn run(fake: &FakeModel, limits: AgentLimits) -> (AgentOutcome, Vec<String>) {
    let (_d, v) = vault();
    let ws = v.workspace("personal").unwrap();
    let mut tools = MemoryTools::new(&v, ws.clone(), ChangeSource::Extract);
    let out = run_agent(
        &client(fake),
        &mut tools,
        AgentMachine::new(limits, "You keep memory.", "Remember: peanuts."),
        &CancellationToken::new(),
        |_| {},
    )
    .await;
    let files = std::fs::read_dir(&ws.memory_root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md") && n != "MEMORY.md")
        .collect();
    (out, files)
}

fn failed_with(out: &AgentOutcome, words: &str) {
    match out {
        AgentOutcome::Failed(r) => assert!(r.contains(words), "{r}"),
        other => panic!("expected a failure naming `{words}`, got {other:?}"),
    }
}

#[tokio::test]
async fn a_server_that_never_stops_streaming_or_answering_is_cut_off() {
    let fake = FakeModel::start().await;
    fake.push(Reply::Endless);
    let started = Instant::now();
    let limits = AgentLimits {
        wall_time: Duration::from_secs(2),
        ..LIMITS
    };
    let (out, files) = run(&fake, limits).await;
    assert_eq!(out, AgentOutcome::TimedOut);
    assert!(files.is_empty());
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "bounded by the run's wall time"
    );
    // A streamed call is bounded by its own time limit too.
    fake.push(Reply::Endless);
    let req = ChatRequest {
        messages: vec![Message::user("hi")],
        timeout: Some(Duration::from_millis(500)),
        ..ChatRequest::default()
    };
    let got = client(&fake)
        .chat_stream(&req, &CancellationToken::new(), |_| {})
        .await;
    assert!(matches!(got, Err(LlmError::Timeout(_))), "{got:?}");
}

#[tokio::test]
async fn invalid_json_empty_choices_a_broken_stream_and_a_hang_up_are_clear_failures() {
    let fake = FakeModel::start().await;
    fake.push(Reply::Raw(200, "{\"choices\": [{\"message\": ".into()));
    let (out, files) = run(&fake, LIMITS).await;
    failed_with(&out, "not JSON");
    assert!(files.is_empty());

    fake.push(Reply::Raw(200, r#"{"choices": []}"#.into()));
    let (out, _) = run(&fake, LIMITS).await;
    failed_with(&out, "no choices");

    for _ in 0..3 {
        fake.push(Reply::Hangup); // retried, then given up
    }
    let (out, _) = run(&fake, LIMITS).await;
    failed_with(&out, "unreachable");

    fake.push(Reply::BrokenStream("Half an ans".into()));
    let got = client(&fake)
        .chat_stream(
            &ChatRequest {
                messages: vec![Message::user("hi")],
                ..ChatRequest::default()
            },
            &CancellationToken::new(),
            |_| {},
        )
        .await;
    assert!(
        matches!(&got, Err(LlmError::Http(500, m)) if m.contains("failed while generating")),
        "{got:?}"
    );
}

#[tokio::test]
async fn an_answer_cut_at_its_cap_is_asked_again_then_stops_the_run_never_as_an_overflow() {
    let fake = FakeModel::start().await;
    fake.push(Reply::Cut(
        "{\"path\": \"peanuts.md\", \"content\": \"---\\nna".into(),
    ));
    fake.push(Reply::tool(
        "write_file",
        json!({"path": "peanuts.md", "content": GOOD}),
    ));
    fake.push(Reply::text("Saved."));
    let (out, files) = run(&fake, LIMITS).await;
    assert!(matches!(out, AgentOutcome::Completed { .. }), "{out:?}");
    assert_eq!(files, ["peanuts.md"]);
    let reqs = fake.requests();
    assert_eq!(
        reqs[0]["max_tokens"], 256,
        "every call carries its output cap"
    );
    let retry = reqs[1]["messages"].as_array().unwrap();
    assert!(
        retry.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .contains("cut off at the 256-token limit"),
        "the retry is firmer"
    );

    let fake = FakeModel::start().await;
    fake.push(Reply::Cut("a".repeat(100)));
    fake.push(Reply::Cut("b".repeat(100)));
    let (out, files) = run(&fake, LIMITS).await;
    failed_with(&out, "ran past its 256-token output limit twice");
    assert!(!format!("{out:?}").contains("context window"));
    assert!(files.is_empty());
}

#[tokio::test]
async fn a_model_repeating_the_same_call_is_stopped() {
    let fake = FakeModel::start().await;
    for _ in 0..4 {
        fake.push(Reply::tool("read_file", json!({"path": "nothing.md"})));
    }
    let (out, _) = run(&fake, LIMITS).await;
    failed_with(&out, "same read_file call 3 times");
    assert_eq!(fake.requests().len(), 3, "stopped at the third repeat");
    let second = fake.requests()[2]["messages"].as_array().unwrap().clone();
    assert!(
        second.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .contains("You already made this exact call"),
        "the repeat was answered without running it"
    );
}

#[tokio::test]
async fn a_tool_result_larger_than_the_window_is_cut_to_fit() {
    let (_d, v) = vault();
    let ws = v.workspace("personal").unwrap();
    // A memory of ~60 KB: reading it whole would overflow a 4,096-token window many times.
    let big = format!(
        "---\nname: Big\ndescription: A very long memory\ntype: project\n---\n{}\n",
        "A long line of project history that goes on. ".repeat(1_300)
    );
    std::fs::write(ws.memory_root.join("big.md"), &big).unwrap();
    let fake = FakeModel::start().await;
    fake.set_context_window(4096);
    fake.push(Reply::tool("read_file", json!({"path": "big.md"})));
    fake.push(Reply::text("Read it."));
    let mut tools = MemoryTools::new(&v, ws.clone(), ChangeSource::Extract);
    let out = run_agent(
        &client(&fake),
        &mut tools,
        AgentMachine::new(LIMITS, "You keep memory.", "Summarise big.md."),
        &CancellationToken::new(),
        |_| {},
    )
    .await;
    assert!(matches!(out, AgentOutcome::Completed { .. }), "{out:?}");
    let second = &fake.requests()[1];
    let body = second.to_string();
    // Estimated at three bytes a token, the request stays inside the 4,096-token window.
    assert!(body.len() < 4096 * 3, "{} bytes", body.len());
    assert!(body.contains("cut to fit the model's context window"));
}

#[tokio::test]
async fn a_server_without_tool_calls_gets_the_text_protocol_and_it_is_remembered() {
    let (_d, v) = vault();
    let ws = v.workspace("personal").unwrap();
    let fake = FakeModel::start().await;
    fake.push(Reply::error(500, "tools param requires --jinja flag"));
    fake.push(Reply::text(
        json!({"tool": "write_file", "arguments": {"path": "peanuts.md", "content": GOOD}})
            .to_string(),
    ));
    fake.push(Reply::text("I will now save it {not json"));
    fake.push(Reply::text(r#"{"done": "Saved the allergy."}"#));
    let c = client(&fake);
    let mut tools = MemoryTools::new(&v, ws.clone(), ChangeSource::Remember);
    let out = run_agent(
        &c,
        &mut tools,
        AgentMachine::new(LIMITS, "You keep memory.", "Remember: peanuts."),
        &CancellationToken::new(),
        |_| {},
    )
    .await;
    assert_eq!(
        out,
        AgentOutcome::Completed {
            summary: "Saved the allergy.".into(),
            turns: 3
        }
    );
    assert_eq!(
        std::fs::read_to_string(ws.memory_root.join("peanuts.md")).unwrap(),
        GOOD
    );
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 4, "the refusal is not retried: {reqs:?}");
    assert!(reqs[0]["tools"].is_array());
    for r in &reqs[1..] {
        assert!(r["tools"].is_null(), "no native tools after the refusal");
        let system = r["messages"][0]["content"].as_str().unwrap();
        assert!(system.contains("## How to use tools") && system.contains("- write_file:"));
    }
    let third = reqs[3]["messages"].as_array().unwrap();
    assert!(
        third.iter().any(|m| m["role"] == "user"
            && m["content"]
                .as_str()
                .unwrap()
                .starts_with("Result of write_file")),
        "the tool result came back as text: {third:?}"
    );
    assert!(
        third.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .contains("could not be used"),
        "the unusable answer was fed back"
    );
    // Remembered: the next run starts with the text protocol.
    fake.push(Reply::text(r#"{"done": "Nothing to do."}"#));
    let mut tools = MemoryTools::new(&v, ws, ChangeSource::Remember);
    run_agent(
        &c,
        &mut tools,
        AgentMachine::new(LIMITS, "s", "t"),
        &CancellationToken::new(),
        |_| {},
    )
    .await;
    assert!(fake.requests()[4]["tools"].is_null());
}

#[tokio::test]
async fn an_overflow_naming_the_window_teaches_it_and_the_call_is_fitted_again() {
    let (_d, v) = vault();
    let ws = v.workspace("personal").unwrap();
    let fake = FakeModel::start().await;
    fake.push(Reply::error(
        400,
        "request (9000 tokens) exceeds the available context size (2048 tokens), try increasing it",
    ));
    fake.push(Reply::text("Done."));
    let c = client(&fake);
    let mut tools = MemoryTools::new(&v, ws, ChangeSource::Extract);
    let task = format!(
        "Remember: {}",
        "the user likes tea and biscuits. ".repeat(400)
    );
    let out = run_agent(
        &c,
        &mut tools,
        AgentMachine::new(LIMITS, "You keep memory.", task),
        &CancellationToken::new(),
        |_| {},
    )
    .await;
    assert!(matches!(out, AgentOutcome::Completed { .. }), "{out:?}");
    assert_eq!(c.known_context_window(), 2048);
    let second = fake.requests()[1].to_string();
    assert!(second.len() < 2048 * 3, "{} bytes", second.len());
    assert!(second.contains("cut to fit the model's context window"));
}
