//! The first session with the model that comes with Mnemo, as a new user has it: a fresh home
//! with default settings (no model server set), Qwen2.5-Coder-1.5B-Instruct from the shared
//! models folder run by Mnemo's own supervised `llama-server`, driven through the `mnemo` binary.
//! Chat 1 keeps the allergy as a topic memory with a real name; chat 2, a new session, selects
//! it in its recall and answers in prose (how often the reply heeds the allergy is printed); remember writes; a dream
//! merges a planted duplicate and says why; forget previews; killing the server mid-reply makes
//! the turn say so, and the next message starts it again.
//!
//! Runs wherever the model is installed. `MNEMO_REQUIRE_LOCAL_MODEL=1` (set by
//! `scripts/test.sh`) installs it first with `mnemo model install` and fails instead of
//! skipping; it needs `llama-server` (`scripts/llama.sh`, named by `MNEMO_LLAMA_SERVER`).

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mnemo");

fn required() -> bool {
    std::env::var("MNEMO_REQUIRE_LOCAL_MODEL").as_deref() == Ok("1")
}

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn root(&self) -> PathBuf {
        self.dir.path().join("home")
    }
    fn memory(&self) -> PathBuf {
        self.root().join("workspaces/personal/memory")
    }
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.env("MNEMO_HOME", self.root())
            .env("MNEMO_CLAUDE_DIR", self.dir.path().join("claude"))
            .env("MNEMO_QWEN_DIR", self.dir.path().join("qwen"))
            .env_remove("MNEMO_LOCAL_MODEL")
            .env_remove("MNEMO_LLM_BASE_URL")
            .env_remove("MNEMO_LLM_MODEL")
            .env_remove("MNEMO_LLM_FAST_MODEL")
            .env_remove("MNEMO_LLM_API_KEY")
            .env_remove("MNEMO_LOG")
            .args(args)
            .stdin(Stdio::null());
        c
    }
    fn run(&self, args: &[&str]) -> (Output, Duration) {
        let t = Instant::now();
        let out = self.cmd(args).output().unwrap();
        (out, t.elapsed())
    }
    /// Topic files (not MEMORY.md, not conversation records) and their text.
    fn topics(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = std::fs::read_dir(self.memory())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .filter(|p| p.file_name().is_some_and(|n| n != "MEMORY.md"))
            .map(|p| {
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read_to_string(&p).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    }
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn field<'a>(file: &'a str, key: &str) -> &'a str {
    file.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}: ")))
        .unwrap_or("")
        .trim()
}

/// Install the model when required; `false` (after a note) when it is absent and not required.
fn ready(home: &Home) -> bool {
    let (status, _) = home.run(&["model", "status", "--json"]);
    let info: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap_or_default();
    if !info["server_found"].as_bool().unwrap_or(false) {
        assert!(!required(), "llama-server was not found: {}", text(&status));
        eprintln!("note: skipped — no llama-server (run `. scripts/llama.sh`)");
        return false;
    }
    if !info["installed"].as_bool().unwrap_or(false) {
        if !required() {
            eprintln!("note: skipped — the local model is not installed (`mnemo model install`)");
            return false;
        }
        let (out, took) = home.run(&["model", "install"]);
        assert!(out.status.success(), "install: {}", text(&out));
        eprintln!("installed the local model in {took:?}:\n{}", text(&out));
    }
    true
}

/// Whether a reply takes a peanut allergy into account: it names the allergy, or names peanuts
/// only to leave them out — and never offers peanut butter ("won't cause an allergic reaction:
/// a banana with peanut butter" does not count).
fn heeds_allergy(reply: &str) -> bool {
    let r = reply.to_lowercase();
    if r.contains("peanut butter") {
        return false;
    }
    r.contains("allerg")
        || (r.contains("peanut")
            && [
                "peanut-free",
                "free of",
                "avoid",
                "without",
                "no peanut",
                "not ",
                "n't ",
            ]
            .iter()
            .any(|w| r.contains(w))
            && !r.contains("peanut butter"))
}

fn watchdog_pid(home: &Home) -> u32 {
    let state: serde_json::Value = serde_json::from_slice(
        &std::fs::read(home.root().join("local-model/server.json")).unwrap(),
    )
    .unwrap();
    u32::try_from(state["pid"].as_u64().unwrap()).unwrap()
}

#[test]
fn the_first_session_with_the_local_model_closes_the_loop() {
    let home = Home {
        dir: tempfile::tempdir().unwrap(),
    };
    if !ready(&home) {
        return;
    }
    let (status, _) = home.run(&["model", "status"]);
    assert!(
        text(&status).contains("in use: yes"),
        "a fresh home with nothing set uses it: {}",
        text(&status)
    );

    // Chat 1: the allergy is kept as a topic memory with a real name and description.
    let (one, t1) = home.run(&[
        "chat",
        "Hi! I'm Ana, a data engineer in Lisbon. I'm allergic to peanuts, and please keep answers short.",
    ]);
    assert!(one.status.success(), "chat 1: {}", text(&one));
    let topics = home.topics();
    let allergy = topics
        .iter()
        .find(|(_, t)| t.to_lowercase().contains("peanut"))
        .unwrap_or_else(|| panic!("the allergy was kept: {topics:?}\n{}", text(&one)));
    let (name, description) = (field(&allergy.1, "name"), field(&allergy.1, "description"));
    assert!(
        !name.is_empty() && name.len() <= 40 && name.to_lowercase() != "self",
        "a real name: {allergy:?}"
    );
    assert!(
        !description.contains("Hi!") && !description.contains("data engineer"),
        "the description is the fact, not the whole message: {allergy:?}"
    );
    let allergy_file = allergy.0.clone();

    // Chat 2, a new session, eight times: recall selects the allergy every time and the reply
    // is prose. Whether one reply takes the allergy into account is the model's part, so what
    // must hold is that some do — strictly counted (naming the allergy, never offering peanut
    // butter), with the fact to respect asked first and said again (`chat/respect.rs`), the
    // rate is measured and printed (7 and 5 of 8 in two runs; the block alone gave 0–2 of 8).
    let mut replies = Vec::new();
    let mut t2 = Duration::ZERO;
    for _ in 0..8 {
        let (two, t) = home.run(&[
            "--json",
            "chat",
            "Can you suggest a snack for my afternoon break?",
        ]);
        t2 = t;
        assert!(two.status.success(), "chat 2: {}", text(&two));
        let turn: serde_json::Value =
            serde_json::from_slice(&two.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&two)));
        let selected: Vec<&str> = turn["recall"]["selected"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["path"].as_str())
            .collect();
        assert!(
            selected.contains(&allergy_file.as_str()),
            "recall selected the allergy (not only the index): {turn}"
        );
        let reply = turn["reply"].as_str().unwrap().to_owned();
        assert!(
            !reply.trim().is_empty() && !reply.contains("<tool"),
            "prose: {reply}"
        );
        replies.push(reply);
    }
    let heeded = replies.iter().filter(|r| heeds_allergy(r)).count();
    eprintln!(
        "chat 2 took the allergy into account in {heeded} of {} replies",
        replies.len()
    );
    assert!(
        heeded > 0,
        "no reply of {} took the allergy into account: {replies:#?}",
        replies.len()
    );

    // Remember writes.
    let (rem, t3) = home.run(&[
        "remember",
        "The user edits code in the Helix editor and always indents with tabs.",
        "--wait",
    ]);
    assert!(rem.status.success(), "remember: {}", text(&rem));
    assert!(
        home.topics().iter().any(|(_, t)| t.contains("Helix")),
        "remember wrote: {}",
        text(&rem)
    );

    // A dream merges a planted duplicate and says why.
    std::fs::write(
        home.memory().join("user_peanuts.md"),
        "---\nname: Peanut allergy\ndescription: The user is allergic to peanuts\ntype: user\n---\nThe user is allergic to peanuts.\n",
    )
    .unwrap();
    let (dream, t4) = home.run(&["dream"]);
    let said = text(&dream);
    assert!(dream.status.success(), "dream: {said}");
    assert!(
        said.contains("(planner)") && said.contains("merged"),
        "{said}"
    );
    let left: Vec<String> = home
        .topics()
        .into_iter()
        .filter(|(_, t)| t.to_lowercase().contains("allergic to peanuts"))
        .map(|(p, _)| p)
        .collect();
    assert_eq!(
        left.len(),
        1,
        "one copy of the allergy is left: {left:?}\n{said}"
    );
    assert!(said.contains("merged into"), "the dream says why: {said}");

    // Forget previews (and removes nothing).
    let before = home.topics();
    let (forget, t5) = home.run(&["forget", "my peanut allergy", "--dry-run"]);
    assert!(forget.status.success(), "forget: {}", text(&forget));
    assert!(text(&forget).contains(&left[0]), "{}", text(&forget));
    assert_eq!(home.topics(), before, "a preview removes nothing");

    // The server killed mid-reply: the turn says what happened; the next one starts it again.
    let mut long = home
        .cmd(&["chat", "Write a 300-word story about a lighthouse keeper."])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = long.stdout.take().unwrap();
    let mut first = [0_u8; 16];
    std::io::Read::read_exact(&mut stdout, &mut first).expect("the reply began");
    let killed = Command::new("pkill")
        .args(["-9", "-P", &watchdog_pid(&home).to_string(), "llama-server"])
        .status()
        .unwrap();
    assert!(killed.success());
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut stdout, &mut rest);
    let mut err = String::new();
    let _ = std::io::Read::read_to_string(&mut long.stderr.take().unwrap(), &mut err);
    let ended = long.wait().unwrap();
    assert!(!ended.success(), "the turn failed: {rest}{err}");
    assert!(
        err.contains("the local model stopped during the reply")
            && err.contains("next message starts it again"),
        "{err}"
    );
    let (again, t6) = home.run(&["chat", "Say hello in five words."]);
    assert!(again.status.success(), "the next turn: {}", text(&again));
    eprintln!(
        "times (s): chat 1 {:.1}, chat 2 {:.1}, remember {:.1}, dream {:.1}, forget {:.1}, after the kill {:.1}",
        t1.as_secs_f64(),
        t2.as_secs_f64(),
        t3.as_secs_f64(),
        t4.as_secs_f64(),
        t5.as_secs_f64(),
        t6.as_secs_f64()
    );
}
