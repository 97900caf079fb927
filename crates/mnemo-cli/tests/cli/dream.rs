//! `mnemo dream`: a mechanical dream merges duplicates across files, rebuilds MEMORY.md and
//! writes one history group that `mnemo undo --group` restores byte-exact; `--dry-run` writes
//! nothing; a second dream while another live process holds the lock exits 1 with `locked`.

use std::process::Stdio;
use std::time::{Duration, Instant};

use super::{Env, topic, write};

fn seed(e: &Env) -> Vec<(String, Option<Vec<u8>>)> {
    let p = e.personal();
    write(
        &p.join("stack.md"),
        &topic(
            "Stack",
            "The team's stack",
            "project",
            "Use Postgres 16.\n\nDeploy with Nomad.",
        ),
    );
    write(
        &p.join("infra/db.md"),
        &topic(
            "Database",
            "Database choice",
            "project",
            "use postgres 16.\nWhy: the team knows it.\n\nBack up nightly.",
        ),
    );
    write(
        &p.join("me.md"),
        &topic(
            "Me",
            "Who the user is",
            "user",
            "Writes Rust.\n\nWrites Rust.\nHow to apply: Rust examples.",
        ),
    );
    e.json(&["index"]);
    ["stack.md", "infra/db.md", "me.md", "MEMORY.md"]
        .iter()
        .map(|r| ((*r).to_owned(), std::fs::read(p.join(r)).ok()))
        .collect()
}

#[test]
fn mechanical_dream_merges_rebuilds_the_index_and_undoes_as_one_group() {
    let e = Env::new();
    let before = seed(&e);
    // --dry-run: the plan, nothing written.
    let plan = e.json(&["dream", "--dry-run"]);
    assert_eq!(plan["entries_merged"], 2, "{plan}");
    for (p, b) in &before {
        assert_eq!(&std::fs::read(e.personal().join(p)).ok(), b);
    }
    let human = e.run(&["dream", "--dry-run"]);
    assert!(String::from_utf8_lossy(&human.stdout).contains("would merge 2 duplicate entries"));

    let t = e.json(&["dream", "--mechanical"]);
    assert_eq!(t["status"], "completed", "{t}");
    let r = &t["result"]["dream"];
    assert_eq!(r["strategy"], "mechanical");
    assert_eq!(r["status"], "updated");
    assert_eq!(r["entries_merged"], 2);
    // Merged into the first file by path (infra/db.md sorts before stack.md).
    let db = std::fs::read_to_string(e.personal().join("infra/db.md")).unwrap();
    assert!(
        db.contains("use postgres 16.\nWhy: the team knows it."),
        "{db}"
    );
    let stack = std::fs::read_to_string(e.personal().join("stack.md")).unwrap();
    assert!(
        !stack.to_lowercase().contains("postgres") && stack.contains("Deploy with Nomad."),
        "{stack}"
    );
    let index = std::fs::read_to_string(e.personal().join("MEMORY.md")).unwrap();
    assert!(
        index.contains("(stack.md)") && index.contains("(infra/db.md)"),
        "{index}"
    );

    // One group in the history; undoing it restores every file byte-exact.
    let group = t["result"]["group"].as_i64().unwrap();
    let history = e.json(&["history"]);
    let rows: Vec<&serde_json::Value> = history
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["group"] == group)
        .collect();
    assert!(rows.len() >= 3, "{history}");
    assert!(rows.iter().all(|r| r["source"] == "dream"));
    e.json(&["undo", "--group", &group.to_string()]);
    for (p, b) in &before {
        assert_eq!(
            &std::fs::read(e.personal().join(p)).ok(),
            b,
            "{p} restored byte-exact"
        );
    }
    // The human report names the undo command.
    let out = e.run(&["dream", "--mechanical"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("merged 2 duplicate entries") && text.contains("mnemo undo --group"),
        "{text}"
    );
    // Nothing left to merge: a noop.
    let again = e.json(&["dream", "--mechanical"]);
    assert_eq!(again["result"]["dream"]["status"], "noop");
}

#[test]
fn a_second_dream_while_another_process_holds_the_lock_exits_locked() {
    let e = Env::new();
    seed(&e);
    let lock = e.home().join("workspaces/personal/consolidation.lock");
    // Another live process (here: a sleeping child) holds the lock.
    let mut holder = std::process::Command::new("sleep")
        .arg("30")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    std::fs::write(&lock, holder.id().to_string()).unwrap();
    assert_eq!(e.json_err(&["dream", "--mechanical"], 1), "locked");
    let out = e.run(&["dream", "--mechanical"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[locked]"));
    assert!(
        std::fs::read_to_string(e.personal().join("me.md"))
            .unwrap()
            .matches("Writes Rust.")
            .count()
            == 2,
        "nothing written"
    );
    holder.kill().unwrap();
    holder.wait().unwrap();
    // Its holder gone, the lock is reclaimed.
    let t = e.json(&["dream", "--mechanical"]);
    assert_eq!(t["result"]["dream"]["status"], "updated");
    assert!(!lock.exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_mnemo_dream_while_one_runs_exits_locked() {
    use mnemo_testkit::{FakeModel, Kind, Reply};
    let e = Env::new();
    seed(&e);
    let fake = FakeModel::start().await;
    // The first dream's agent waits on the model: it holds the lock meanwhile.
    fake.push_for(
        Kind::Tools,
        Reply::Delay(
            Duration::from_secs(4),
            Box::new(Reply::text("Nothing to merge.")),
        ),
    );
    let first = e
        .cmd()
        .args(["--json", "dream"])
        .env("MNEMO_LLM_BASE_URL", fake.base_url())
        .env("MNEMO_LLM_MODEL", "fake-main")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lock = e.home().join("workspaces/personal/consolidation.lock");
    let started = Instant::now();
    while !lock.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the first dream never took the lock"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let e2 = e
        .cmd()
        .args(["--json", "dream", "--mechanical"])
        .output()
        .unwrap();
    assert_eq!(e2.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&e2.stdout).unwrap();
    assert_eq!(v["error"]["code"], "locked", "{v}");
    let out = tokio::task::spawn_blocking(move || first.wait_with_output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success());
    let t: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The agent changed nothing, so the mechanical pass ran after it.
    assert_eq!(t["result"]["dream"]["strategy"], "mechanical", "{t}");
    assert!(!lock.exists());
}

#[test]
fn a_dream_in_a_fresh_process_rebuilds_a_complete_index() {
    let e = Env::new();
    let p = e.personal();
    // Files written before any command ran: the index has never seen them.
    write(
        &p.join("a.md"),
        &topic("A", "First", "user", "Tea.\n\ntea."),
    );
    write(&p.join("b.md"), &topic("B", "Second", "user", "Coffee."));
    write(
        &p.join("c.md"),
        &topic("C", "Third", "project", "Ship in May."),
    );
    let t = e.json(&["dream", "--mechanical"]);
    assert_eq!(t["result"]["dream"]["status"], "updated", "{t}");
    let index = std::fs::read_to_string(p.join("MEMORY.md")).unwrap();
    for f in ["(a.md)", "(b.md)", "(c.md)"] {
        assert!(index.contains(f), "{f} missing from MEMORY.md:\n{index}");
    }
}
