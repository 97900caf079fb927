//! `mnemo forget`, `mnemo remember`, `mnemo stats` on real homes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

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
    let mut ids: Vec<&str> = p["selected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    // Newest first: the two files may be written in different seconds, so the order may vary.
    ids.sort_unstable();
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
        text.contains("auto-dream on") && text.contains("1 invalid"),
        "{text}"
    );
    // No model here: extraction is switched on but says it needs one, as /memory does.
    assert!(
        text.contains("auto-extraction on, but it needs a model and none is set"),
        "{text}"
    );
    assert!(!text.contains("extraction writes with"), "{text}");
    let memory = e.run(&["chat", "/memory"]);
    let memory = String::from_utf8_lossy(&memory.stdout);
    assert!(
        memory.contains("Auto-extraction: on, but it needs a model and none is set"),
        "{memory}"
    );
    // With a model: plainly on, and which way it writes.
    let out = e
        .cmd()
        .args(["stats"])
        .env("MNEMO_LLM_BASE_URL", "http://127.0.0.1:9/v1")
        .env("MNEMO_LLM_MODEL", "some-model")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("auto-extraction on, after each chat turn"),
        "{text}"
    );
    assert!(text.contains("extraction writes with the"), "{text}");
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
    // A fact may begin with dashes (`-----BEGIN …` was once taken for an option).
    assert_eq!(
        e.json_err(
            &[
                "remember",
                "-----BEGIN marks where a PEM block starts",
                "--wait"
            ],
            1
        ),
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

#[tokio::test(flavor = "multi_thread")]
async fn chat_shows_extraction_progress_and_ctrl_c_leaves_it_for_the_next_turn() {
    use mnemo_testkit::{FakeModel, Kind, Reply};
    let e = Env::new();
    let fake = FakeModel::start().await;
    fake.push_for(Kind::Json, Reply::json(&serde_json::json!({"paths": []})));
    fake.push_for(Kind::Stream, Reply::text("Noted."));
    // A slow extraction: the person should not have to wait for it.
    fake.push_for(
        Kind::Tools,
        Reply::Delay(Duration::from_secs(60), Box::new(Reply::text("Saved."))),
    );
    let mut child = e
        .cmd()
        .args(["chat", "I moved to Lisbon last month."])
        .env("MNEMO_LLM_BASE_URL", fake.base_url())
        .env("MNEMO_LLM_MODEL", "fake-main")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr)
            .lines()
            .map_while(std::result::Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    // The reply is printed, then the wait for extraction announces itself; then Ctrl+C.
    loop {
        let line = tokio::task::block_in_place(|| rx.recv_timeout(Duration::from_secs(60)))
            .expect("the chat said nothing");
        seen.push(line.clone());
        if line.contains("saving memories in the background") {
            break;
        }
    }
    let sent = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    seen.extend(rx.try_iter());
    let err = seen.join("\n");
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Noted."));
    assert!(err.contains("Ctrl+C leaves it for later"), "{err}");
    assert!(err.contains("stopped waiting"), "{err}");
    let session = err
        .lines()
        .find_map(|l| l.strip_prefix("[session ")?.strip_suffix(']'))
        .unwrap()
        .to_owned();
    // The extraction's task ended with its process; its messages were not marked processed.
    let tasks = e.json(&["tasks", "--kind", "extract"]);
    let t = &tasks.as_array().unwrap()[0];
    assert_eq!(t["status"], "failed", "{t}");
    // The next turn in the chat extracts them again: nothing was lost.
    fake.push_for(Kind::Json, Reply::json(&serde_json::json!({"paths": []})));
    fake.push_for(Kind::Stream, Reply::text("Tea it is."));
    fake.push_for(Kind::Tools, Reply::text("Nothing to save."));
    let v = e.json_of(
        {
            let mut c = e.cmd();
            c.env("MNEMO_LLM_BASE_URL", fake.base_url())
                .env("MNEMO_LLM_MODEL", "fake-main");
            c
        },
        &["chat", "--session", &session, "And I like tea."],
    );
    assert_eq!(v["extract"]["status"], "completed", "{v}");
    let last_tools = fake
        .requests()
        .into_iter()
        .rev()
        .find(|r| r["tools"].is_array())
        .unwrap();
    let task_text = last_tools["messages"][1]["content"].as_str().unwrap();
    assert!(
        task_text.contains("Lisbon") && task_text.contains("like tea"),
        "the interrupted turn is extracted with the new one: {task_text}"
    );
}
