//! `mnemo inbox`, `mnemo review`, `mnemo stats --memories` on real homes: usage per
//! memory after 20 recalls equals the recall telemetry exactly; a mechanical dream in review mode
//! is one proposal, shown, partly accepted and rejected from the command line.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Env, topic, write};

const MEMORIES: [(&str, &str, &str); 6] = [
    (
        "coffee.md",
        "Coffee",
        "The user drinks oat milk flat whites every morning.",
    ),
    (
        "deploy.md",
        "Deploys",
        "Production deploys happen on Tuesdays after the smoke suite.",
    ),
    (
        "cat.md",
        "Cat",
        "The user's cat is called Tofu and hates the vacuum cleaner.",
    ),
    (
        "tea.md",
        "Tea",
        "Green tea in the afternoon, never after six.",
    ),
    (
        "bike.md",
        "Bike",
        "Cycles to work on a green steel bike, even in rain.",
    ),
    (
        "never.md",
        "Quiet",
        "A memory about harpsichord tuning nobody asks for.",
    ),
];

const QUERIES: [&str; 5] = [
    "what coffee does the user drink in the morning",
    "when do production deploys happen",
    "what is the cat called",
    "tea in the afternoon or green bike",
    "deploys coffee cat",
];

#[test]
fn usage_per_memory_matches_the_recall_telemetry_exactly() {
    let e = Env::new();
    for (rel, name, body) in MEMORIES {
        write(&e.personal().join(rel), &topic(name, name, "user", body));
    }
    e.json(&["index"]);
    for i in 0..20 {
        let r = e.json(&["recall", QUERIES[i % QUERIES.len()], "--lexical"]);
        assert!(
            !r["selected"].as_array().unwrap().is_empty(),
            "recall {i} chose something"
        );
    }
    // What the telemetry says: per path, times chosen and tokens.
    let (index, _) = mnemo_store::index::Index::open(&e.home().join("index.db")).unwrap();
    let events = index.events(Some("recall"), 1_000).unwrap();
    assert_eq!(events.len(), 20);
    let mut want: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (_, _, _, data) in &events {
        for m in data["memories"].as_array().unwrap() {
            let w = want
                .entry(m["path"].as_str().unwrap().to_owned())
                .or_default();
            w.0 += 1;
            w.1 += m["tokens"].as_u64().unwrap();
        }
        // The event's per-memory list is the recall's selection.
        assert_eq!(
            data["memories"].as_array().unwrap().len() as u64,
            data["docs_selected"].as_u64().unwrap()
        );
    }
    let usage = e.json(&["stats", "--memories"]);
    let got: BTreeMap<String, (u64, u64)> = usage
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["recalls"].as_u64().unwrap() > 0)
        .map(|u| {
            (
                u["path"].as_str().unwrap().to_owned(),
                (
                    u["recalls"].as_u64().unwrap(),
                    u["tokens"].as_u64().unwrap(),
                ),
            )
        })
        .collect();
    assert_eq!(got, want, "stats --memories equals the telemetry");
    assert!(
        want.values().all(|(n, t)| *t >= *n),
        "every recall cost tokens"
    );
    // Most recalled first; the memory nobody asked for is listed as never recalled.
    let list = usage.as_array().unwrap();
    assert!(
        list.windows(2)
            .all(|w| w[0]["recalls"].as_u64() >= w[1]["recalls"].as_u64())
    );
    let never: Vec<&Value> = list.iter().filter(|u| u["path"] == "never.md").collect();
    assert_eq!(never.len(), 1);
    assert_eq!(never[0]["recalls"], 0);
    assert!(never[0]["last_recalled"].is_null());
    // The text form says it in columns.
    let out = e.run(&["stats", "--memories"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("recalls") && text.contains("never.md") && text.contains("never"));
}

fn dup(name: &str, fact: &str) -> String {
    topic(
        name,
        name,
        "project",
        &format!(
            "- {fact}\n\n- {}\n\n- Another fact of {name}",
            fact.to_lowercase()
        ),
    )
}

#[test]
fn a_dream_in_review_mode_is_reviewed_from_the_command_line() {
    let e = Env::new();
    write(&e.personal().join("a.md"), &dup("Alpha", "Ship v2 in May"));
    write(
        &e.personal().join("b.md"),
        &dup("Beta", "Use Postgres everywhere"),
    );
    e.json(&["index"]);
    let before_a = std::fs::read_to_string(e.personal().join("a.md")).unwrap();
    assert_eq!(e.json(&["review"])["on"], false);
    assert_eq!(e.json(&["review", "on"])["on"], true);

    // The text report says what the dream proposes, never "wrote".
    let text = e.run(&["dream", "--mechanical"]);
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(
        text.contains("would write  a.md")
            && text.contains("would merge  \"Ship v2 in May\" into a.md")
            && text.contains("note: a.md: 1 entry repeated in it merged into one copy")
            && text.contains("mnemo inbox accept"),
        "{text}"
    );
    assert!(
        !text.contains("  wrote") && !text.contains("  merged") && !text.contains("undo it"),
        "{text}"
    );
    let first = e.json(&["inbox"])["items"][0]["id"].as_i64().unwrap();
    assert_eq!(
        e.json(&["inbox", "reject", &first.to_string()])["status"],
        "rejected"
    );

    let d = e.json(&["dream", "--mechanical"]);
    let id = d["result"]["proposal"].as_i64().expect("a proposal");
    assert!(d["result"]["group"].is_null());
    // Counted as proposed, not "updated", in the report, the status and the Dreams chart.
    assert_eq!(d["result"]["dream"]["status"], "proposed", "{d}");
    assert_eq!(e.json(&["stats"])["last_dream_status"], "proposed");
    assert_eq!(
        std::fs::read_to_string(e.personal().join("a.md")).unwrap(),
        before_a,
        "nothing written"
    );
    let list = e.json(&["inbox"]);
    assert_eq!(list["pending"], 1);
    assert_eq!(list["items"][0]["id"], id);
    let shown = e.json(&["inbox", "show", &id.to_string()]);
    let files = shown["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    let text = e.run(&["inbox", "show", &id.to_string()]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("a.md#1") && text.contains("accept: mnemo inbox accept"));

    // An id typed with another workspace's `-w` is refused, nothing written.
    for action in ["show", "accept", "reject"] {
        assert_eq!(
            e.json_err(
                &["--workspace", "work", "inbox", action, &id.to_string()],
                1
            ),
            "not_found",
            "{action}"
        );
    }
    assert_eq!(e.json(&["inbox"])["pending"], 1);

    // Accept only a.md's changes: b.md stays as it was.
    let mut args = vec!["inbox".to_owned(), "accept".to_owned(), id.to_string()];
    for c in files.iter().find(|f| f["path"] == "a.md").unwrap()["entries"]
        .as_array()
        .unwrap()
    {
        args.push("--entry".to_owned());
        args.push(c["id"].as_str().unwrap().to_owned());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let done = e.json(&args);
    assert_eq!(done["paths"], serde_json::json!(["a.md"]));
    let a = std::fs::read_to_string(e.personal().join("a.md")).unwrap();
    assert_eq!(
        a.matches("Ship v2 in May").count() + a.matches("ship v2 in may").count(),
        1
    );
    assert!(
        std::fs::read_to_string(e.personal().join("b.md"))
            .unwrap()
            .contains("use postgres everywhere")
    );
    // One group, undone as one.
    let g = done["group"].as_i64().unwrap();
    e.json(&["undo", "--group", &g.to_string()]);
    assert_eq!(
        std::fs::read_to_string(e.personal().join("a.md")).unwrap(),
        before_a
    );

    // Bad input: clear codes and exits.
    assert_eq!(
        e.json_err(&["inbox", "accept", &id.to_string()], 1),
        "conflict"
    );
    assert_eq!(e.json_err(&["inbox", "show", "4242"], 1), "not_found");
    assert_eq!(
        e.json_err(&["inbox", "list", "--status", "maybe"], 1),
        "invalid_arguments"
    );
    let again = e.json(&["dream", "--mechanical"]);
    let id2 = again["result"]["proposal"].as_i64().unwrap();
    assert_eq!(
        e.json_err(
            &["inbox", "accept", &id2.to_string(), "--entry", "nope.md#9"],
            1
        ),
        "invalid_arguments"
    );
    let rejected = e.json(&["inbox", "reject", &id2.to_string(), "--dont-learn"]);
    assert_eq!(rejected["status"], "rejected");
    assert_eq!(e.json(&["inbox"])["pending"], 0);
    // The text report's proposal (rejected above), this one and the one accepted.
    assert_eq!(e.json(&["inbox", "list", "--status", "all"])["total"], 3);
}
