//! A correction later in the same chat, through the planner against the fake model: the fact a
//! later message replaced is taken out before anything is written, and said so; when the
//! correction question gets no usable answer, every checked fact is written as before; a plan
//! whose facts all come from one message asks nothing more.

use mnemo_engine::extract::ExtractStatus;
use mnemo_llm::{Extraction, Message, Role};
use mnemo_testkit::{FakeModel, Kind, Reply};
use serde_json::json;

use crate::planner::{client_with, extract};
use crate::vault;

fn moved() -> Vec<Message> {
    vec![
        Message::user("Can you suggest bouldering gyms near me? I live in Berlin."),
        Message::new(Role::Assistant, "Sure. Central, or a district?"),
        Message::user("Oh wait, actually I moved to Munich last month. Near Schwabing, please."),
        Message::new(Role::Assistant, "Munich it is."),
    ]
}

fn plan() -> serde_json::Value {
    json!({"memories": [
        {"source": 1, "fact": "I live in Berlin", "type": "user", "topic": "Home"},
        {"source": 2, "fact": "I moved to Munich last month", "type": "user", "topic": "Moved"}
    ]})
}

fn written(v: &mnemo_store::Vault) -> String {
    let ws = v.workspace("personal").unwrap();
    let mut all = String::new();
    for e in std::fs::read_dir(&ws.memory_root).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            all.push_str(&std::fs::read_to_string(p).unwrap());
        }
    }
    all
}

#[tokio::test]
async fn the_fact_a_later_message_replaced_is_not_written() {
    let (_d, v) = vault();
    let fake = FakeModel::start().await;
    fake.push_for(Kind::Json, Reply::json(&plan()));
    fake.push_for(Kind::Json, Reply::json(&json!({"outdated": [1]})));
    let c = client_with(&fake, Extraction::Planner);
    let r = extract(&v, &c, &moved()).await;
    assert_eq!(r.status, ExtractStatus::Completed, "{:?}", r.detail);
    let text = written(&v);
    assert!(text.contains("I moved to Munich last month"), "{text}");
    assert!(
        !text.contains("Berlin"),
        "the replaced fact was written: {text}"
    );
    assert!(
        r.dropped
            .iter()
            .any(|d| d.fact == "I live in Berlin" && d.reason.contains("later message")),
        "{:?}",
        r.dropped
    );
    // The question names both facts with their messages, and only the earlier one may be named.
    let asked = fake
        .requests()
        .into_iter()
        .filter(|r| Kind::of(r) == Kind::Json)
        .nth(1)
        .expect("the correction question was asked");
    let q = asked["messages"][1]["content"].as_str().unwrap();
    assert!(
        q.contains("1. (message 1) I live in Berlin\n2. (message 2) I moved to Munich last month"),
        "{q}"
    );
    assert!(
        asked["max_tokens"].as_u64().is_some_and(|n| n <= 64),
        "{asked}"
    );
    let schema = asked["response_format"].to_string();
    assert!(schema.contains("\"enum\":[1]"), "{schema}");
}

#[tokio::test]
async fn without_a_usable_answer_every_checked_fact_is_written() {
    let (_d, v) = vault();
    let fake = FakeModel::start().await;
    fake.push_for(Kind::Json, Reply::json(&plan()));
    fake.push_for(Kind::Json, Reply::error(500, "out of memory"));
    let c = client_with(&fake, Extraction::Planner);
    let r = extract(&v, &c, &moved()).await;
    assert_eq!(r.status, ExtractStatus::Completed, "{:?}", r.detail);
    let text = written(&v);
    assert!(text.contains("Berlin") && text.contains("Munich"), "{text}");
}

#[tokio::test]
async fn facts_of_one_message_ask_nothing_more() {
    let (_d, v) = vault();
    let fake = FakeModel::start().await;
    fake.push_for(
        Kind::Json,
        Reply::json(&json!({"memories": [
            {"source": 1, "fact": "I live in Berlin", "type": "user", "topic": "Home"},
            {"source": 1, "fact": "I go bouldering", "type": "user", "topic": "Sport"}
        ]})),
    );
    let c = client_with(&fake, Extraction::Planner);
    let r = extract(
        &v,
        &c,
        &[Message::user(
            "I live in Berlin and I go bouldering twice a week. Any gym tips?",
        )],
    )
    .await;
    assert_eq!(r.status, ExtractStatus::Completed, "{:?}", r.detail);
    let asked = fake
        .requests()
        .iter()
        .filter(|r| Kind::of(r) == Kind::Json)
        .count();
    assert_eq!(asked, 1, "only the plan was asked for");
}
