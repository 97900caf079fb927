//! The planner against the fake model: patches checked and written by Mnemo, dropped
//! ones listed with their reasons, `auto` falling back from an agent that writes nothing and
//! learning it, remember by plan — and conversation records recalled in a new chat when no
//! model saves anything.

use mnemo_core::{ChangeSource, MemoryType};
use mnemo_engine::chat::{Sessions, chat_turn};
use mnemo_engine::extract::{ExtractRequest, ExtractResult, ExtractStatus, run_extract};
use mnemo_engine::planner::choice::Road;
use mnemo_engine::remember::{ContextMode, RememberRequest, run_remember};
use mnemo_llm::{CancellationToken, Client, Extraction, LlmSettings, Message};
use mnemo_store::Vault;
use mnemo_testkit::{FakeModel, Kind, Reply};
use serde_json::json;

use crate::vault;

pub(crate) fn client_with(fake: &FakeModel, extraction: Extraction) -> Client {
    let mut c = Client::new(LlmSettings {
        base_url: fake.base_url().to_owned(),
        model: "fake-main".into(),
        fast_model: "fake-fast".into(),
        timeout_secs: 10,
        extraction,
        ..LlmSettings::default()
    })
    .unwrap();
    c.backoff = std::time::Duration::from_millis(5);
    c
}

pub(crate) async fn extract(v: &Vault, c: &Client, transcript: &[Message]) -> ExtractResult {
    let req = ExtractRequest {
        workspace: "personal",
        session_id: "s1",
        messages: transcript,
        from: 0,
        chat_wrote_memory: false,
        origin: ChangeSource::Extract.into(),
        imported: false,
    };
    run_extract(v, c, &req, &CancellationToken::new(), |_| {})
        .await
        .unwrap()
}

fn ana() -> Vec<Message> {
    vec![
        Message::user(
            "Hi! I'm Ana, a data engineer in Lisbon. I'm allergic to peanuts, and please keep answers short. What is the capital of France?",
        ),
        Message::new(mnemo_llm::Role::Assistant, "Paris. Noted, Ana!"),
    ]
}

fn plan() -> serde_json::Value {
    json!({"memories": [
        {"source": 1, "type": "user", "topic": "Health", "fact": "Allergic to peanuts"},
        {"source": 1, "type": "feedback", "topic": "Answers", "fact": "Keep answers short", "how_to_apply": "every reply"},
        {"source": 2, "type": "reference", "topic": "Geography", "fact": "The capital of France is Paris"},
        {"source": 1, "type": "user", "topic": "Hobbies", "fact": "Plays the cello in an orchestra"}
    ]})
}

fn kinds(fake: &FakeModel) -> Vec<Kind> {
    fake.requests()
        .iter()
        .filter(|r| r.get("messages").is_some())
        .map(Kind::of)
        .collect()
}

#[tokio::test]
async fn the_planner_writes_what_the_user_said_and_lists_what_it_dropped() {
    let (_d, v) = vault();
    let fake = FakeModel::start().await;
    fake.push_for(Kind::Json, Reply::json(&plan()));
    let c = client_with(&fake, Extraction::Planner);
    let r = extract(&v, &c, &ana()).await;
    assert_eq!(r.status, ExtractStatus::Completed, "{:?}", r.detail);
    assert_eq!(r.road, Some(Road::Planner));
    assert_eq!(r.files_written, ["feedback_answers.md", "user_health.md"]);
    let reasons: Vec<(&str, &str)> = r
        .dropped
        .iter()
        .map(|d| (d.fact.as_str(), d.reason.as_str()))
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(
        reasons[0].1.contains("question the user asked") || reasons[0].1.contains("assistant's"),
        "{reasons:?}"
    );
    assert!(reasons[1].1.contains("did not say it"), "{reasons:?}");
    let ws = v.workspace("personal").unwrap();
    let health = std::fs::read_to_string(ws.memory_root.join("user_health.md")).unwrap();
    assert_eq!(
        health,
        "---\nname: Health\ndescription: Allergic to peanuts\ntype: user\n---\nAllergic to peanuts\n"
    );
    let answers = std::fs::read_to_string(ws.memory_root.join("feedback_answers.md")).unwrap();
    assert!(
        answers.contains("Keep answers short\nHow to apply: every reply"),
        "{answers}"
    );
    assert!(
        v.history(Some("personal"), Some("user_health.md"), 5)
            .unwrap()
            .iter()
            .all(|h| h.source == ChangeSource::Extract),
        "journaled as extraction"
    );
    // One bounded side query, held to the schema, at temperature 0.
    let reqs = fake.requests();
    let asked = reqs.iter().find(|r| Kind::of(r) == Kind::Json).unwrap();
    assert_eq!(
        asked["response_format"]["json_schema"]["name"],
        "memory_plan"
    );
    assert_eq!(asked["temperature"], 0.0);
    assert!(asked["max_tokens"].as_u64().unwrap() <= 768);
    assert!(!kinds(&fake).contains(&Kind::Tools), "no agent ran");
    // The same message again, in another chat: nothing new is written.
    fake.push_for(Kind::Json, Reply::json(&plan()));
    let msgs = ana();
    let req = ExtractRequest {
        workspace: "personal",
        session_id: "s2",
        messages: &msgs,
        from: 0,
        chat_wrote_memory: false,
        origin: ChangeSource::Extract.into(),
        imported: false,
    };
    let again = run_extract(&v, &c, &req, &CancellationToken::new(), |_| {})
        .await
        .unwrap();
    assert!(again.files_written.is_empty(), "{:?}", again.files_written);
    assert!(
        again
            .dropped
            .iter()
            .any(|d| d.reason == "it is already saved")
    );
}

#[tokio::test]
async fn auto_hands_an_agent_that_wrote_nothing_to_the_planner_and_learns_it() {
    let (d, v) = vault();
    let fake = FakeModel::start().await;
    fake.push_for(Kind::Tools, Reply::text("I saved the result of the edit."));
    fake.push_for(Kind::Json, Reply::json(&plan()));
    let c = client_with(&fake, Extraction::Auto);
    let r = extract(&v, &c, &ana()).await;
    assert_eq!(r.status, ExtractStatus::Completed);
    assert_eq!(r.road, Some(Road::Planner));
    assert_eq!(r.files_written.len(), 2);
    let learned = std::fs::read_to_string(d.path().join("home/model-paths.json")).unwrap();
    assert!(learned.contains("\"path\": \"planner\""), "{learned}");
    assert!(
        learned.contains("the tool agent wrote nothing where the planner found 2 fact(s)"),
        "{learned}"
    );
    // From now on this model goes straight to the planner.
    let before = kinds(&fake).len();
    fake.push_for(Kind::Json, Reply::json(&json!({"memories": []})));
    let next = extract(
        &v,
        &c,
        &[ana(), vec![Message::user("I moved to Porto last month.")]].concat(),
    )
    .await;
    assert_eq!(next.road, Some(Road::Planner));
    assert_eq!(kinds(&fake)[before..], [Kind::Json], "no agent ran");
    let choice = mnemo_engine::planner::choice::current(&v.home().root, &c);
    assert_eq!(choice.road, Road::Planner);
    assert!(choice.why.starts_with("learned on "), "{}", choice.why);
}

#[tokio::test]
async fn auto_keeps_the_agent_for_a_model_that_writes() {
    let (d, v) = vault();
    let fake = FakeModel::start().await;
    let role = "---\nname: Role\ndescription: Data engineer in Lisbon\ntype: user\n---\nData engineer in Lisbon.\n";
    fake.push_for(
        Kind::Tools,
        Reply::tool(
            "write_file",
            json!({"path": "user/role.md", "content": role}),
        ),
    );
    fake.push_for(Kind::Tools, Reply::text("Saved."));
    let c = client_with(&fake, Extraction::Auto);
    let r = extract(&v, &c, &ana()).await;
    assert_eq!((r.road, r.files_written.len()), (Some(Road::Tools), 1));
    assert!(
        !kinds(&fake).contains(&Kind::Json),
        "the planner did not run"
    );
    let learned = std::fs::read_to_string(d.path().join("home/model-paths.json")).unwrap();
    assert!(learned.contains("\"path\": \"tools\""), "{learned}");
}

#[tokio::test]
async fn remember_by_plan_writes_the_fact_or_says_why_not() {
    let (_d, v) = vault();
    let fake = FakeModel::start().await;
    let c = client_with(&fake, Extraction::Planner);
    let fact = "The user edits code in the Helix editor and always indents with tabs.";
    fake.push_for(
        Kind::Json,
        Reply::json(&json!({"memories": [
            {"source": 1, "type": "user", "topic": "Editor", "fact": "Edits code in the Helix editor"},
            {"source": 1, "type": "feedback", "topic": "Indentation", "fact": "Always indents with tabs"}
        ]})),
    );
    let req = |content| RememberRequest {
        workspace: "personal",
        content,
        mode: ContextMode::Workspace,
        origin: ChangeSource::Remember.into(),
    };
    let done = run_remember(&v, &c, req(fact), &CancellationToken::new(), |_| {})
        .await
        .unwrap();
    assert_eq!(done.files, ["feedback_indentation.md", "user_editor.md"]);
    assert_eq!(done.types, [MemoryType::Feedback, MemoryType::User]);
    // A plan that only restates the world: nothing saved, and the error says why.
    fake.push_for(
        Kind::Json,
        Reply::json(&json!({"memories": [{"source": 1, "type": "user", "topic": "X", "fact": "The capital of France is Paris"}]})),
    );
    let e = run_remember(
        &v,
        &c,
        req("My sister Inês lives in Coimbra."),
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, mnemo_core::ErrorCode::RememberNothingWritten);
    assert!(e.message.contains("did not say it"), "{}", e.message);
}

#[tokio::test]
async fn with_a_model_that_saves_nothing_what_was_said_is_recalled_in_a_new_chat() {
    let (_d, v) = vault();
    let fake = FakeModel::start().await;
    // The model never calls a tool and plans nothing.
    fake.set_fallback(Reply::text("Noted."));
    let c = client_with(&fake, Extraction::Tools);
    let ws = v.workspace("personal").unwrap();
    let sessions = Sessions::of(&ws);
    let first = sessions.create("Hello").unwrap();
    chat_turn(
        &v,
        &c,
        mnemo_engine::chat::Turn::open(
            &v,
            "personal",
            &first,
            "I'm allergic to peanuts, by the way.",
            mnemo_store::settings::Switches::ON,
        )
        .unwrap(),
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap();
    let topics: Vec<_> = v
        .list_indexed(Some("personal"), None)
        .unwrap()
        .into_iter()
        .filter(|d| d.kind == mnemo_store::doc::DocKind::Topic)
        .collect();
    assert!(topics.is_empty(), "the model saved nothing: {topics:?}");
    let records: Vec<_> = v
        .logs("personal")
        .unwrap()
        .into_iter()
        .filter(|d| d.kind == mnemo_store::doc::DocKind::Chat)
        .collect();
    assert_eq!(records.len(), 1);
    assert!(
        records[0].name.starts_with("From your chat on "),
        "{}",
        records[0].name
    );
    // A new chat: its first turn's prompt carries what was said.
    let second = sessions.create("Snacks").unwrap();
    let before = fake.requests().len();
    let r = chat_turn(
        &v,
        &c,
        mnemo_engine::chat::Turn::open(
            &v,
            "personal",
            &second,
            "What am I allergic to? Suggest a snack.",
            mnemo_store::settings::Switches::ON,
        )
        .unwrap(),
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap();
    let recalled = r.recall.unwrap().selected;
    assert_eq!(recalled.len(), 1, "{recalled:?}");
    assert_eq!(recalled[0].path, records[0].path);
    let streamed = fake.requests()[before..]
        .iter()
        .find(|q| Kind::of(q) == Kind::Stream)
        .cloned()
        .unwrap();
    let system = streamed["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("allergic to peanuts"), "{system}");
    // In the chat it was said in, the record is not recalled back (the model has it already).
    let again = chat_turn(
        &v,
        &c,
        mnemo_engine::chat::Turn::open(
            &v,
            "personal",
            &first,
            "Anything with peanuts is out, remember?",
            mnemo_store::settings::Switches::ON,
        )
        .unwrap(),
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap();
    let recalled = again.recall.unwrap().selected;
    assert!(
        recalled.iter().all(|s| !s.path.contains(&first)),
        "{recalled:?}"
    );
}

#[tokio::test]
async fn a_topic_memory_that_answers_ranks_before_conversation_records() {
    let (_d, v) = vault();
    let ws = v.workspace("personal").unwrap();
    let at = chrono::Utc::now();
    for (i, s) in [
        "I'm allergic to peanuts.",
        "Peanuts again: allergic, truly.",
        "My allergy to peanuts is serious.",
    ]
    .iter()
    .enumerate()
    {
        v.append_chat_record(&ws, at, &format!("old{i}"), s, ChangeSource::Chat)
            .unwrap();
    }
    crate::add(
        &v,
        "health.md",
        "Allergy",
        "Allergic to peanuts",
        MemoryType::User,
        "Allergic to peanuts: no satay.",
    );
    let r = mnemo_engine::recall(
        &v,
        &crate::req("which allergy do I have? peanuts?"),
        chrono::Utc::now(),
    )
    .unwrap();
    let paths: Vec<&str> = r.selected.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(paths[0], "health.md", "{paths:?}");
    assert_eq!(
        paths.len(),
        1 + mnemo_engine::recall::records::MAX_RECORDS,
        "{paths:?}"
    );
    assert!(r.selected[1].score < r.selected[0].score);
}

/// LongMemEval-style: 40 past chats (each a record of its own session and day, most of them
/// chatter that shares words with the questions) beside 8 topic memories. For every question a
/// topic memory answers, that memory ranks first and the records come after it; for a question
/// only a past chat answers, the record holding the answer is recalled.
#[test]
fn records_never_crowd_out_a_topic_memory_that_answers() {
    let (_d, v) = vault();
    let ws = v.workspace("personal").unwrap();
    let topics = [
        (
            "diet.md",
            "Diet",
            "Vegetarian; no eggs",
            MemoryType::User,
            "Vegetarian and does not eat eggs.",
        ),
        (
            "city.md",
            "City",
            "Lives in Porto",
            MemoryType::User,
            "Lives in Porto since 2024.",
        ),
        (
            "editor.md",
            "Editor",
            "Uses Helix with tabs",
            MemoryType::User,
            "Edits code in Helix and indents with tabs.",
        ),
        (
            "answers.md",
            "Answers",
            "Short answers",
            MemoryType::Feedback,
            "Keep answers short, no recap.",
        ),
        (
            "freeze.md",
            "Release freeze",
            "Freeze starts 12 December",
            MemoryType::Project,
            "The release freeze starts 12 December.",
        ),
        (
            "db.md",
            "Billing database",
            "PostgreSQL for billing",
            MemoryType::Project,
            "Billing uses PostgreSQL, not MongoDB.",
        ),
        (
            "bugs.md",
            "Bug tracker",
            "Bugs go to Linear MOB",
            MemoryType::Reference,
            "Bugs go in the Linear project MOB.",
        ),
        (
            "dog.md",
            "Dog",
            "Beagle named Biscuit",
            MemoryType::User,
            "Has a beagle named Biscuit.",
        ),
    ];
    for (p, n, d, t, b) in topics {
        crate::add(&v, p, n, d, t, b);
    }
    let chatter = [
        "Can you explain how eggs are pasteurised?",
        "What's the weather like in Porto in spring?",
        "Any tips for Helix keybindings?",
        "Give me a short summary of this article.",
        "How do other teams plan a release freeze?",
        "Compare PostgreSQL and MongoDB indexes.",
        "How do I link a Linear issue to a PR?",
        "What do beagles usually eat?",
    ];
    let start = chrono::Utc::now() - chrono::Duration::days(60);
    for i in 0..40 {
        let at = start + chrono::Duration::days(i);
        v.append_chat_record(
            &ws,
            at,
            &format!("past{i:02}"),
            chatter[usize::try_from(i).unwrap() % chatter.len()],
            ChangeSource::Chat,
        )
        .unwrap();
    }
    // Only a past chat says this.
    v.append_chat_record(
        &ws,
        start,
        "past-guitar",
        "I bought a Yamaha guitar for my birthday.",
        ChangeSource::Chat,
    )
    .unwrap();
    let questions = [
        ("Do I eat eggs?", "diet.md"),
        ("Which city do I live in, Porto?", "city.md"),
        ("Which editor and Helix settings do I use?", "editor.md"),
        ("When does the release freeze start?", "freeze.md"),
        ("Which database does billing use, PostgreSQL?", "db.md"),
        ("Where do bugs go, Linear?", "bugs.md"),
        ("What is my beagle called?", "dog.md"),
    ];
    for (q, want) in questions {
        let r = mnemo_engine::recall(&v, &crate::req(q), chrono::Utc::now()).unwrap();
        let paths: Vec<&str> = r.selected.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(paths.first(), Some(&want), "{q}: {paths:?}");
        let first_record = paths.iter().position(|p| p.starts_with("chats/"));
        let last_topic = paths.iter().rposition(|p| !p.starts_with("chats/"));
        if let (Some(rec), Some(top)) = (first_record, last_topic) {
            assert!(
                rec > top,
                "{q}: a record ranks above a topic memory: {paths:?}"
            );
        }
        assert!(
            paths.iter().filter(|p| p.starts_with("chats/")).count()
                <= mnemo_engine::recall::records::MAX_RECORDS
        );
    }
    let r = mnemo_engine::recall(
        &v,
        &crate::req("which guitar did I buy?"),
        chrono::Utc::now(),
    )
    .unwrap();
    assert!(
        r.selected
            .iter()
            .any(|s| s.path.ends_with("-past-guitar.md")),
        "{:?}",
        r.selected.iter().map(|s| &s.path).collect::<Vec<_>>()
    );
    assert!(r.prompt.contains("Yamaha guitar"), "{}", r.prompt);
}

/// `auto` and a new model: one short probe decides, before any real work is given to the agent.
/// A model that answers the probe with tool markup as text (what Qwen2.5-Coder-1.5B wrote as its
/// chat reply) gets the planner for its first session, and the verdict is kept: the probe is not
/// made again.
#[tokio::test]
async fn auto_gives_the_planner_to_a_model_that_fails_the_tool_probe() {
    let (d, v) = vault();
    let fake = FakeModel::start().await;
    fake.push_for(Kind::Probe, Reply::text("<tools></tools>"));
    fake.push_for(Kind::Json, Reply::json(&plan()));
    let c = client_with(&fake, Extraction::Auto);
    let r = extract(&v, &c, &ana()).await;
    assert_eq!(r.status, ExtractStatus::Completed);
    assert_eq!(r.road, Some(Road::Planner));
    assert_eq!(r.files_written, ["feedback_answers.md", "user_health.md"]);
    assert!(!kinds(&fake).contains(&Kind::Tools), "no agent ran");
    assert_eq!(fake.probes().len(), 1);
    let probe = &fake.probes()[0];
    assert!(
        probe["max_tokens"].as_u64().is_some(),
        "the probe is capped"
    );
    let learned = std::fs::read_to_string(d.path().join("home/model-paths.json")).unwrap();
    assert!(learned.contains("\"path\": \"planner\""), "{learned}");
    assert!(learned.contains("tool markup written as text"), "{learned}");
    // The verdict is kept: the next job neither probes nor runs the agent.
    fake.push_for(Kind::Json, Reply::json(&json!({"memories": []})));
    let next = extract(
        &v,
        &c,
        &[ana(), vec![Message::user("I moved to Porto last month.")]].concat(),
    )
    .await;
    assert_eq!(next.road, Some(Road::Planner));
    assert_eq!(fake.probes().len(), 1, "probed once");
    assert!(!kinds(&fake).contains(&Kind::Tools));
}

/// A probe that gets no answer (the server is down) decides nothing: nothing is kept, and the
/// next job probes again.
#[tokio::test]
async fn a_probe_without_an_answer_is_not_kept() {
    let (d, v) = vault();
    let fake = FakeModel::start().await;
    for _ in 0..3 {
        // Every attempt the client makes.
        fake.push_for(Kind::Probe, Reply::error(503, "loading model"));
    }
    fake.push_for(Kind::Json, Reply::json(&plan()));
    let c = client_with(&fake, Extraction::Auto);
    let r = extract(&v, &c, &ana()).await;
    assert_eq!(r.road, Some(Road::Planner), "the planner while unproven");
    assert!(!kinds(&fake).contains(&Kind::Tools));
    let learned =
        std::fs::read_to_string(d.path().join("home/model-paths.json")).unwrap_or_default();
    assert!(!learned.contains("fake-main"), "{learned}");
    let probes = fake.probes().len();
    fake.push_for(Kind::Json, Reply::json(&json!({"memories": []})));
    extract(
        &v,
        &c,
        &[ana(), vec![Message::user("I moved to Porto last month.")]].concat(),
    )
    .await;
    assert!(fake.probes().len() > probes, "probed again");
}
