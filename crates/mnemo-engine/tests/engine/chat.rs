//! Whole chat turns against the fake model, asserting on the recorded requests.

use mnemo_core::{ErrorCode, MemoryType};
use mnemo_engine::chat::{Sessions, TurnEvent, TurnResult, chat_turn, memory_status};
use mnemo_engine::extract::ExtractStatus;
use mnemo_llm::{CancellationToken, Client, Delta, LlmSettings};
use mnemo_store::Vault;
use mnemo_testkit::{FakeModel, Reply};
use serde_json::json;

use crate::{add, client, vault};

/// One chat turn in `personal` with no event handler and a fresh cancellation token.
async fn say(v: &Vault, c: &Client, id: &str, text: &str) -> mnemo_core::Result<TurnResult> {
    chat_turn(
        v,
        c,
        mnemo_engine::chat::Turn::open(
            v,
            "personal",
            id,
            text,
            mnemo_store::settings::Switches::ON,
        )
        .unwrap(),
        &CancellationToken::new(),
        |_| {},
    )
    .await
}

const NEW_MEMORY: &str = "---\nname: Deploy day\ndescription: The user deploys on Tuesdays\ntype: project\n---\nDeploys go out on Tuesdays after the smoke suite.\n";

#[tokio::test]
async fn a_turn_recalls_into_the_prompt_streams_the_reply_and_extracts_after() {
    let (_d, v) = vault();
    add(
        &v,
        "deploy.md",
        "Deploy checklist",
        "Steps before a production deploy",
        MemoryType::Project,
        "Run the smoke suite, then tag the release.",
    );
    add(
        &v,
        "style.md",
        "Response style",
        "Keep answers terse",
        MemoryType::Feedback,
        "No closing recap.",
    );
    let fake = FakeModel::start().await;
    fake.push(Reply::json(&json!({"paths": ["deploy.md"]}))); // recall: the fast model picks
    fake.push(Reply::text("Run the smoke suite first, then tag.")); // the streamed reply
    fake.push(Reply::tool(
        "write_file",
        json!({"path": "project/deploy-day.md", "content": NEW_MEMORY}),
    )); // extraction
    fake.push(Reply::text("Saved 1 memory."));
    let ws = v.workspace("personal").unwrap();
    let sessions = Sessions::of(&ws);
    let id = sessions.create("Deploys").unwrap();
    let mut streamed = String::new();
    let mut recalled_first = None;
    let turn = chat_turn(
        &v,
        &client(&fake),
        mnemo_engine::chat::Turn::open(
            &v,
            "personal",
            &id,
            "How do I deploy? We ship on Tuesdays.",
            mnemo_store::settings::Switches::ON,
        )
        .unwrap(),
        &CancellationToken::new(),
        |ev| match ev {
            TurnEvent::Delta(Delta::Text(t)) => streamed.push_str(t),
            TurnEvent::Recalled(r) => recalled_first = Some(r.selected.len()),
            _ => {}
        },
    )
    .await
    .unwrap();
    assert_eq!(turn.reply, "Run the smoke suite first, then tag.");
    assert_eq!(streamed, turn.reply, "the reply arrived streamed");
    assert_eq!(
        recalled_first,
        Some(1),
        "recall is announced before the reply"
    );
    let recall = turn.recall.unwrap();
    assert_eq!(recall.selected[0].path, "deploy.md");
    let reqs = fake.requests();
    assert_eq!(reqs[0]["model"], "fake-fast");
    assert_eq!(reqs[1]["stream"], true);
    let system = reqs[1]["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("Run the smoke suite, then tag the release."),
        "recalled body in the system prompt"
    );
    assert!(system.contains("Before recommending from memory"));
    // Extraction got the turn, and wrote a well-formed memory.
    let extract = turn.extract.unwrap();
    assert_eq!(extract.status, ExtractStatus::Completed);
    assert_eq!(extract.files_written, ["project/deploy-day.md"]);
    let written = v.get("personal", "project/deploy-day.md").unwrap();
    assert!(written.summary.valid);
    assert!(
        reqs[2]["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("We ship on Tuesdays")
    );
    // The session holds both messages and what was surfaced.
    assert_eq!(sessions.messages(&id).unwrap().len(), 2);
    assert_eq!(sessions.surfaced(&id).unwrap(), ["deploy.md"]);
    assert_eq!(sessions.list().unwrap()[0].title, "Deploys");

    // Next turn: deploy.md is not offered again (alreadySurfaced); extraction sees only the new slice.
    fake.push(Reply::json(&json!({"paths": []})));
    fake.push(Reply::text("Sure."));
    fake.push(Reply::text("Nothing to save."));
    let second = say(&v, &client(&fake), &id, "Thanks!").await.unwrap();
    let reqs = fake.requests();
    let manifest = reqs[4]["messages"][0]["content"].as_str().unwrap();
    assert!(
        !manifest.contains("] deploy.md ("),
        "already surfaced: {manifest}"
    );
    // ... yet the model still has it: turn 1's recalled memory is in turn 2's request.
    let system = reqs[5]["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("## Memories recalled earlier in this conversation")
            && system.contains("Run the smoke suite, then tag the release."),
        "turn 2 still carries deploy.md: {system}"
    );
    let recall = second.recall.unwrap();
    assert!(recall.selected.is_empty());
    assert_eq!(recall.carried.len(), 1);
    assert_eq!(recall.carried[0].path, "deploy.md");
    assert!(recall.tokens_injected > 0);
    assert!(recall.budget_tokens.is_some());
    let slice = reqs[6]["messages"][1]["content"].as_str().unwrap();
    assert!(
        slice.contains("Thanks!") && !slice.contains("We ship on Tuesdays"),
        "{slice}"
    );
}

#[tokio::test]
async fn ignore_memory_and_missing_model() {
    let (_d, v) = vault();
    add(
        &v,
        "deploy.md",
        "Deploy checklist",
        "Steps before a production deploy",
        MemoryType::Project,
        "Run the smoke suite.",
    );
    let ws = v.workspace("personal").unwrap();
    let sessions = Sessions::of(&ws);
    let id = sessions.create("").unwrap();
    sessions
        .update_meta(&id, Some("Private"), Some(true))
        .unwrap();
    let fake = FakeModel::start().await;
    fake.push(Reply::text("Hi."));
    let turn = say(&v, &client(&fake), &id, "How do I deploy?")
        .await
        .unwrap();
    assert!(turn.recall.is_none() && turn.extract.is_none());
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 1, "no recall side query, no extraction");
    assert!(
        !reqs[0]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("smoke suite")
    );
    // No model configured: a plain error saying what to configure; nothing appended.
    let none = Client::new(LlmSettings::default()).unwrap();
    let err = say(&v, &none, &id, "hello").await.unwrap_err();
    assert_eq!(err.code, ErrorCode::ModelNotConfigured);
    assert!(
        err.message.contains("MNEMO_LLM_BASE_URL"),
        "{}",
        err.message
    );
    assert_eq!(sessions.messages(&id).unwrap().len(), 2);
    // `/memory` needs no model, says memory is ignored here, and is not added to the transcript.
    let status = say(&v, &none, &id, "/memory").await.unwrap();
    assert_eq!(
        status.command,
        Some(mnemo_engine::chat::ChatCommand::Memory)
    );
    assert!(
        status.reply.contains("off for this chat"),
        "{}",
        status.reply
    );
    assert!(status.reply.contains("Auto-dream: on"), "{}", status.reply);
    assert!(
        status.reply.contains("1 memories: 1 project"),
        "{}",
        status.reply
    );
    assert_eq!(sessions.messages(&id).unwrap().len(), 2);
    assert!(
        memory_status(
            &v,
            "personal",
            None,
            true,
            mnemo_store::settings::Switches::ON
        )
        .unwrap()
        .starts_with("Auto-memory: on")
    );
    // Without a model, switched-on extraction is not called "on": it waits for one.
    let waiting = memory_status(
        &v,
        "personal",
        None,
        false,
        mnemo_store::settings::Switches::ON,
    )
    .unwrap();
    assert!(
        waiting.starts_with("Auto-memory: waiting for a model"),
        "{waiting}"
    );
    assert!(
        waiting.contains("Auto-extraction: on, but it needs a model and none is set"),
        "{waiting}"
    );
    // Sessions: rename, list, delete; ids are validated.
    sessions.update_meta(&id, Some("Renamed"), None).unwrap();
    assert_eq!(sessions.list().unwrap()[0].title, "Renamed");
    assert_eq!(
        sessions.records("../../etc/passwd").unwrap_err().code,
        ErrorCode::Usage
    );
    sessions.delete(&id).unwrap();
    assert!(sessions.list().unwrap().is_empty());
}

#[tokio::test]
async fn coming_back_to_a_session_extracts_only_what_is_new_in_it() {
    let (_d, v) = vault();
    let fake = FakeModel::start().await;
    let ws = v.workspace("personal").unwrap();
    let sessions = Sessions::of(&ws);
    let a = sessions.create("A").unwrap();
    let b = sessions.create("B").unwrap();
    let turn = |id: String, text: &'static str| {
        let (v, c) = (&v, client(&fake));
        async move { say(v, &c, &id, text).await.unwrap() }
    };
    for _ in 0..3 {
        // recall (no memories: lexical, no request), reply, extraction answer
        fake.push(Reply::text("Noted."));
        fake.push(Reply::text("Nothing to save."));
    }
    turn(a.clone(), "Alpha one: I use Fedora at home.").await;
    turn(b.clone(), "Beta one: my team is called Falcon.").await;
    let t = turn(a.clone(), "Alpha two: and Debian at work.").await;
    assert_eq!(t.extract.unwrap().status, ExtractStatus::Completed);
    assert_eq!(sessions.extracted_upto(&a).unwrap(), Some(4));
    let reqs = fake.requests();
    let last = reqs.last().unwrap()["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(last.contains("Alpha two"), "{last}");
    assert!(
        !last.contains("Alpha one"),
        "already extracted before switching sessions: {last}"
    );
}

#[tokio::test]
async fn turns_made_while_memory_was_ignored_are_never_extracted() {
    let (_d, v) = vault();
    let fake = FakeModel::start().await;
    let ws = v.workspace("personal").unwrap();
    let sessions = Sessions::of(&ws);
    let id = sessions.create("Mixed").unwrap();
    let c = client(&fake);
    // A model that calls a tool although none was offered must not write memory.
    sessions.update_meta(&id, None, Some(true)).unwrap();
    fake.push(Reply::tool(
        "write_file",
        json!({"path": "secret.md", "content": "---\nname: S\ndescription: private thing\ntype: user\n---\nPrivate.\n"}),
    ));
    let t = say(&v, &c, &id, "My salary is private.").await.unwrap();
    assert!(t.wrote.is_empty() && t.extract.is_none());
    assert!(
        v.get("personal", "secret.md").is_err(),
        "no tools in an ignored chat"
    );
    // Memory back on: the next extraction sees only the new turn.
    sessions.update_meta(&id, None, Some(false)).unwrap();
    fake.push(Reply::text("Noted."));
    fake.push(Reply::text("Nothing to save."));
    let t = say(&v, &c, &id, "I prefer tea to coffee.").await.unwrap();
    assert_eq!(t.extract.unwrap().status, ExtractStatus::Completed);
    let task = fake.requests().last().unwrap()["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(task.contains("tea"), "{task}");
    assert!(
        !task.contains("salary"),
        "an ignored turn reached extraction: {task}"
    );
}

#[tokio::test]
async fn tools_the_chat_model_used_reach_the_next_recall() {
    use mnemo_testkit::Kind;
    let (_d, v) = vault();
    add(
        &v,
        "grep.md",
        "Searching memory",
        "How to search the memory folder",
        MemoryType::Reference,
        "Use grep_search with a path.",
    );
    let fake = FakeModel::start().await;
    let ws = v.workspace("personal").unwrap();
    let sessions = Sessions::of(&ws);
    let id = sessions.create("Tools").unwrap();
    let c = client(&fake);
    fake.push_for(Kind::Json, Reply::json(&json!({"paths": []})));
    fake.push_for(
        Kind::Stream,
        Reply::tool("grep_search", json!({"pattern": "deploy"})),
    );
    fake.push_for(Kind::Stream, Reply::text("Nothing about deploys yet."));
    fake.push_for(Kind::Tools, Reply::text("Nothing to save."));
    say(&v, &c, &id, "What do you know about deploys?")
        .await
        .unwrap();
    assert_eq!(sessions.recent_tools(&id).unwrap(), ["grep_search"]);
    fake.push_for(Kind::Json, Reply::json(&json!({"paths": []})));
    fake.push_for(Kind::Stream, Reply::text("OK."));
    fake.push_for(Kind::Tools, Reply::text("Nothing to save."));
    say(&v, &c, &id, "And about searching?").await.unwrap();
    let selections: Vec<String> = fake
        .requests()
        .iter()
        // Recall's selections (the planner's side query, after an agent that saved nothing,
        // is another JSON request).
        .filter(|r| r["response_format"]["json_schema"]["name"] == "memory_selection")
        .map(|r| r["messages"][0]["content"].as_str().unwrap().to_owned())
        .collect();
    assert!(!selections[0].contains("Tools in active use"));
    assert!(
        selections[1].contains("Tools in active use: grep_search."),
        "{}",
        selections[1]
    );
}

/// A model that has not proven tool use is offered no tools in the chat, and tool markup it
/// writes as text is never shown or saved as its reply; a reply that is only markup is an error
/// that says what happened.
#[tokio::test]
async fn a_model_without_tool_use_gets_no_tools_and_its_tool_markup_is_not_prose() {
    let (_d, v) = vault();
    let fake = FakeModel::start().await;
    fake.push_for(mnemo_testkit::Kind::Probe, Reply::text("<tools></tools>"));
    fake.push_for(
        mnemo_testkit::Kind::Stream,
        Reply::text(
            "Try apple slices.<tool_call>\n{\"name\": \"save_memory\", \"arguments\": {}}\n</tool_call>",
        ),
    );
    fake.push_for(mnemo_testkit::Kind::Stream, Reply::text("<tools></tools>"));
    fake.set_fallback(Reply::json(&json!({"memories": []})));
    let c = client(&fake);
    let ws = v.workspace("personal").unwrap();
    let id = Sessions::of(&ws).create("Snacks").unwrap();
    let mut streamed = String::new();
    let turn = chat_turn(
        &v,
        &c,
        mnemo_engine::chat::Turn::open(
            &v,
            "personal",
            &id,
            "Can you suggest a snack for my afternoon break?",
            mnemo_store::settings::Switches::ON,
        )
        .unwrap(),
        &CancellationToken::new(),
        |ev| {
            if let TurnEvent::Delta(Delta::Text(t)) = ev {
                streamed.push_str(t);
            }
        },
    )
    .await
    .unwrap();
    assert_eq!(turn.reply, "Try apple slices.");
    assert_eq!(streamed, "Try apple slices.", "no markup was streamed");
    let reqs = fake.requests();
    let chat = reqs
        .iter()
        .find(|r| r["stream"].as_bool() == Some(true))
        .expect("the reply was streamed");
    assert!(
        chat["tools"].as_array().is_none_or(Vec::is_empty),
        "no tools offered: {}",
        chat["tools"]
    );
    let system = chat["messages"][0]["content"].as_str().unwrap();
    assert!(!system.contains("your tools"), "{system}");
    let err = say(&v, &c, &id, "And one for the evening?")
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Io);
    assert!(
        err.message.contains("tool markup instead of words"),
        "{}",
        err.message
    );
    assert_eq!(fake.probes().len(), 1, "probed once");
}
