//! Extraction end to end against the fake model: the slice after the session's mark, the
//! agent's write, the entry filters, meta/telemetry bookkeeping, skip and failure paths. The
//! helper keeps the mark as a chat turn does: it moves to `upto` unless the run failed.

use mnemo_core::ChangeSource;
use mnemo_engine::extract::{ExtractRequest, ExtractResult, ExtractStatus, run_extract};
use mnemo_llm::{CancellationToken, Message};
use mnemo_store::Vault;
use mnemo_testkit::{FakeModel, Reply};
use serde_json::json;

use crate::{client, vault};

/// Extraction of session `s1` in `personal` from the mark `from`, which moves to the run's
/// `upto` unless it failed; `chat_wrote` = the chat agent already wrote memory.
async fn extract(
    v: &Vault,
    fake: &FakeModel,
    transcript: &[Message],
    from: &mut usize,
    chat_wrote: bool,
) -> ExtractResult {
    let req = ExtractRequest {
        workspace: "personal",
        session_id: "s1",
        messages: transcript,
        from: *from,
        chat_wrote_memory: chat_wrote,
        origin: ChangeSource::Extract.into(),
        imported: false,
    };
    let r = run_extract(v, &client(fake), &req, &CancellationToken::new(), |_| {})
        .await
        .unwrap();
    if r.status != ExtractStatus::Failed {
        *from = r.upto as usize;
    }
    r
}

const ROLE: &str = "---\nname: Role\ndescription: Senior Go engineer new to React\ntype: user\n---\nSenior Go engineer, first React project.\nWhy: said so.\n\nIs currently fixing a flaky test\n";

#[tokio::test]
async fn extraction_reads_only_the_new_slice_writes_filters_and_covers_it() {
    let (_d, v) = vault();
    let fake = FakeModel::start().await;
    let ws = v.workspace("personal").unwrap();
    let mut mark = 0;
    let mut transcript = vec![
        Message::user("I'm a senior Go engineer and this is my first React project."),
        Message::new(mnemo_llm::Role::Assistant, "Got it."),
    ];
    fake.push(Reply::tool(
        "write_file",
        json!({"path": "user/role.md", "content": ROLE}),
    ));
    fake.push(Reply::text("Saved 1 memory."));
    let r = extract(&v, &fake, &transcript, &mut mark, false).await;
    assert_eq!(r.status, ExtractStatus::Completed);
    assert_eq!(r.files_written, ["user/role.md"]);
    assert_eq!(r.touched_types, [mnemo_core::MemoryType::User]);
    let text = std::fs::read_to_string(ws.memory_root.join("user/role.md")).unwrap();
    assert!(text.contains("Senior Go engineer, first React project."));
    assert!(
        !text.contains("currently"),
        "the momentary entry was filtered: {text}"
    );
    let task = fake.requests()[0]["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(task.contains("first React project"));
    assert_eq!((r.upto, mark), (2, 2));
    assert_eq!(
        v.meta(&ws).unwrap().value.last_extract_status.as_deref(),
        Some("completed")
    );
    let ev = &v.events(Some("extract"), 1).unwrap()[0].3;
    assert_eq!(ev["status"], "completed");
    assert_eq!(ev["entries_written"], 1);
    assert!(
        v.history(Some("personal"), Some("user/role.md"), 5)
            .unwrap()
            .iter()
            .all(|c| c.source == mnemo_core::ChangeSource::Extract)
    );

    // Next turn: only the unprocessed slice is sent, with the manifest preloaded.
    transcript.push(Message::user("Please always answer in British English."));
    transcript.push(Message::new(mnemo_llm::Role::Assistant, "Will do."));
    fake.push(Reply::text("Nothing new worth saving."));
    extract(&v, &fake, &transcript, &mut mark, false).await;
    let second = &fake.requests()[2];
    let task = second["messages"][1]["content"].as_str().unwrap();
    assert!(task.contains("British English"));
    assert!(
        !task.contains("first React project"),
        "already processed: {task}"
    );
    assert!(
        second["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("[user] user/role.md"),
        "manifest preloaded"
    );
    assert_eq!(mark, 4);
}

#[tokio::test]
async fn a_skip_covers_the_turn_and_a_failure_covers_nothing() {
    let (_d, v) = vault();
    let ws = v.workspace("personal").unwrap();
    let mut mark = 0;
    let fake = FakeModel::start().await;
    let transcript = vec![
        Message::user("Remember that I deploy on Tuesdays."),
        Message::new(mnemo_llm::Role::Assistant, "Noted."),
    ];
    let r = extract(&v, &fake, &transcript, &mut mark, true).await;
    assert_eq!(r.status, ExtractStatus::Skipped);
    assert!(
        fake.requests().is_empty(),
        "no model call when the chat agent already wrote memory"
    );
    assert_eq!((r.upto, mark), (2, 2), "the skipped turn counts as handled");
    let mut transcript = transcript;
    transcript.push(Message::user("Also: I never deploy on Fridays."));
    for _ in 0..3 {
        fake.push(Reply::error(503, "overloaded"));
    }
    let r = extract(&v, &fake, &transcript, &mut mark, false).await;
    assert_eq!(r.status, ExtractStatus::Failed);
    assert_eq!(mark, 2, "the mark moves only after a run that did not fail");
    assert!(
        fake.requests().iter().all(|q| {
            let task = q["messages"][1]["content"].as_str().unwrap_or_default();
            !task.contains("Tuesdays")
        }),
        "the turn the chat agent handled is not read again"
    );
    assert_eq!(
        v.meta(&ws).unwrap().value.last_extract_status.as_deref(),
        Some("failed")
    );
    assert_eq!(
        v.events(Some("extract"), 1).unwrap()[0].3["status"],
        "failed"
    );
}
