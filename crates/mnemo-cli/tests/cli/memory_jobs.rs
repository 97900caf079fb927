//! `mnemo forget`, `mnemo remember`, `mnemo stats` on real homes.

use std::io::Write;
use std::process::Stdio;

use super::{Env, topic, write};

fn seed(e: &Env) {
    let p = e.personal();
    write(
        &p.join("drinks.md"),
        &topic(
            "Drinks",
            "What the user drinks",
            "user",
            "Likes green tea.\n\nDrinks coffee at 9.",
        ),
    );
    write(
        &p.join("tea.md"),
        &topic("Tea", "Tea origin", "user", "Green tea from Kyoto."),
    );
    e.json(&["index"]);
}

#[test]
fn forget_previews_then_removes_exactly_those_entries() {
    let e = Env::new();
    seed(&e);
    let p = e.json(&["forget", "green tea", "--dry-run"]);
    let ids: Vec<&str> = p["selected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec!["drinks.md:1", "tea.md"]);
    let human = e.run(&["forget", "green tea", "--dry-run"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("would forget 2 entries") && text.contains("tea.md  Green tea from Kyoto."),
        "{text}"
    );
    assert!(
        e.personal().join("tea.md").exists(),
        "a dry run writes nothing"
    );
    // Without --yes and without a terminal to ask on: a usage error, nothing written.
    let mut c = e.cmd();
    let out = c
        .args(["forget", "green tea"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(e.personal().join("tea.md").exists());
    let t = e.json(&["forget", "green tea", "--yes"]);
    assert_eq!(t["result"]["summary"], "forgot 2 entries");
    assert!(!e.personal().join("tea.md").exists());
    let drinks = std::fs::read_to_string(e.personal().join("drinks.md")).unwrap();
    assert!(
        !drinks.contains("green tea") && drinks.contains("Drinks coffee at 9."),
        "{drinks}"
    );
    let hits = e.json(&["search", "kyoto"]);
    assert!(hits.as_array().unwrap().is_empty(), "{hits}");
    let none = e.json(&["forget", "sailing", "--yes"]);
    assert!(none["selected"].as_array().unwrap().is_empty());
    // Undo brings them back.
    let group = t["result"]["group"].as_i64().unwrap();
    e.json(&["undo", "--group", &group.to_string()]);
    assert!(e.personal().join("tea.md").exists());
}

#[test]
fn stats_print_the_status_figures() {
    let e = Env::new();
    seed(&e);
    write(&e.personal().join("broken.md"), "no frontmatter\n");
    e.json(&["index"]);
    let s = e.json(&["stats"]);
    assert_eq!(s["invalid"], serde_json::json!(["broken.md"]));
    assert_eq!(s["auto_extract"], true);
    let out = e.run(&["stats"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("auto-extraction on, auto-dream on") && text.contains("1 invalid"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn remember_writes_the_fact_and_reads_stdin() {
    use mnemo_testkit::{FakeModel, Kind, Reply};
    let e = Env::new();
    // Without a model: exit 1, managed_memory_unavailable.
    assert_eq!(
        e.json_err(&["remember", "tea"], 1),
        "managed_memory_unavailable"
    );
    let fake = FakeModel::start().await;
    fake.push_for(Kind::Tools, Reply::SaveFact);
    fake.push_for(Kind::Tools, Reply::text("Saved it."));
    let mut child = e
        .cmd()
        .args(["--json", "remember", "-", "--wait"])
        .env("MNEMO_LLM_BASE_URL", fake.base_url())
        .env("MNEMO_LLM_MODEL", "fake-main")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"The user's cat is called Tofu.")
        .unwrap();
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "completed", "{v}");
    let file = v["result"]["filesTouched"][0].as_str().unwrap();
    assert!(
        std::fs::read_to_string(e.personal().join(file))
            .unwrap()
            .contains("called Tofu")
    );
}
