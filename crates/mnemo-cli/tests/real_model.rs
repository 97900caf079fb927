//! The memory loop against a real model server: llama.cpp's `llama-server` serving SmolLM2-135M
//! (both built and unpacked by `scripts/llama.sh`, named by `MNEMO_LLAMA_SERVER` and
//! `MNEMO_LLAMA_GGUF`), driven through the `mnemo` binary as a person would, with `--jinja`
//! (native tool calls) and without (the text protocol). These assert robustness, not the tiny
//! model's wisdom: every task ends within its bound, its status is true to what is on disk,
//! nothing is lost, and no failure is a context overflow. Skipped with a note when the server is
//! not installed, unless `MNEMO_REQUIRE_LLAMA=1` (set by `scripts/test.sh`, so CI runs them).

#![allow(clippy::unwrap_used)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_mnemo");
/// What an overflow looks like in any message (it must never be why something failed).
const OVERFLOW: &str = "longer than the model's context window";

/// One real server at a time: the machine has two cores.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

struct Llama {
    child: Child,
    base_url: String,
    _turn: MutexGuard<'static, ()>,
}

impl Drop for Llama {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start `llama-server` with a context window of `ctx` tokens, with or without `--jinja`;
/// `None` (after a note) when it is not installed and not required.
fn llama(ctx: u32, jinja: bool) -> Option<Llama> {
    llama_with(std::env::var_os("MNEMO_LLAMA_GGUF"), ctx, jinja)
}

/// [`llama`] serving another GGUF.
fn llama_with(gguf: Option<std::ffi::OsString>, ctx: u32, jinja: bool) -> Option<Llama> {
    let (Some(server), Some(gguf)) = (std::env::var_os("MNEMO_LLAMA_SERVER"), gguf) else {
        assert!(
            std::env::var("MNEMO_REQUIRE_LLAMA").as_deref() != Ok("1"),
            "MNEMO_REQUIRE_LLAMA=1 but MNEMO_LLAMA_SERVER / MNEMO_LLAMA_GGUF are not set: run scripts/llama.sh"
        );
        eprintln!("note: skipped — no llama-server (run `. scripts/llama.sh` to build it)");
        return None;
    };
    let turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut cmd = Command::new(server);
    cmd.arg("-m")
        .arg(gguf)
        .args(["-c", &ctx.to_string(), "--host", "127.0.0.1", "--port"])
        .arg(port.to_string())
        .args(["-np", "1", "-t", "2", "--no-webui", "--seed", "7"])
        .arg(if jinja { "--jinja" } else { "--no-jinja" })
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let child = cmd.spawn().unwrap();
    let l = Llama {
        child,
        base_url: format!("http://127.0.0.1:{port}/v1"),
        _turn: turn,
    };
    // Ready when /health answers 200 (the model is loaded).
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let ok = Command::new("curl")
            .args(["-sf", "-o", "/dev/null"])
            .arg(format!("http://127.0.0.1:{port}/health"))
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            break;
        }
        assert!(Instant::now() < deadline, "llama-server did not start");
        std::thread::sleep(Duration::from_millis(250));
    }
    Some(l)
}

struct Env {
    dir: tempfile::TempDir,
    base_url: String,
}

impl Env {
    fn new(l: &Llama) -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
            base_url: l.base_url.clone(),
        }
    }
    fn personal(&self) -> PathBuf {
        self.dir.path().join("home/workspaces/personal/memory")
    }
    fn run(&self, args: &[&str]) -> Output {
        Command::new(BIN)
            .env("MNEMO_HOME", self.dir.path().join("home"))
            .env("MNEMO_CLAUDE_DIR", self.dir.path().join("claude"))
            .env("MNEMO_QWEN_DIR", self.dir.path().join("qwen"))
            .env("MNEMO_EMBED_MODEL", "off")
            .env("MNEMO_LLM_BASE_URL", &self.base_url)
            .env("MNEMO_LLM_MODEL", "smollm2")
            .env_remove("MNEMO_LLM_FAST_MODEL")
            .env_remove("MNEMO_LLM_API_KEY")
            .env_remove("MNEMO_LOG")
            .arg("--json")
            .args(args)
            .output()
            .unwrap()
    }
    fn json(&self, args: &[&str]) -> Value {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }
    fn add(&self, name: &str, desc: &str, ty: &str, body: &str) {
        self.json(&[
            "add",
            "--type",
            ty,
            "--name",
            name,
            "--description",
            desc,
            "--body",
            body,
        ]);
    }
    /// Every memory file on disk (path, text), MEMORY.md and logs left out.
    fn files(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        walk(&self.personal(), &self.personal(), &mut out);
        out.sort();
        out
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "logs" {
            continue;
        }
        if p.is_dir() {
            walk(root, &p, out);
        } else if name.ends_with(".md") && p.parent() != Some(root)
            || name != "MEMORY.md" && name.ends_with(".md")
        {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            out.push((rel, std::fs::read_to_string(&p).unwrap_or_default()));
        }
    }
}

/// Seconds between a task's start and end, from its record.
fn task_seconds(e: &Env, id: &str) -> f64 {
    let t = e.json(&["task", id]);
    let at = |k: &str| {
        chrono::DateTime::parse_from_rfc3339(t[k].as_str().unwrap_or_else(|| panic!("{k}: {t}")))
            .unwrap()
    };
    (at("finished_at") - at("started_at")).num_milliseconds() as f64 / 1000.0
}

fn seed(e: &Env) {
    e.add(
        "Editor",
        "The user's editor and setup",
        "user",
        "Uses Neovim with LSP for all editing.",
    );
    e.add(
        "Deploy checklist",
        "Steps before a production deploy",
        "project",
        "Run the smoke suite, then tag the release.",
    );
}

/// A chat turn and its extraction, then a second turn in the same session.
fn chat_and_extract(jinja: bool) {
    let Some(l) = llama(8192, jinja) else { return };
    let e = Env::new(&l);
    seed(&e);
    let before = e.files();
    let started = Instant::now();
    let out = e.run(&[
        "chat",
        "I moved to Lisbon last month and I work remotely as a data engineer.",
    ]);
    let took = started.elapsed();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    if !out.status.success() {
        assert_stopped_at_its_limit(&out);
        let after = e.files();
        assert_eq!(
            before, after,
            "a turn stopped at its limit left changes behind"
        );
        eprintln!(
            "real model (jinja={jinja}): the turn ran past its time limit after {:.1} s (machine loaded); nothing saved",
            took.as_secs_f64()
        );
        return;
    }
    assert!(!v["reply"].as_str().unwrap_or_default().is_empty());
    let x = &v["extract"];
    let status = x["status"].as_str().unwrap();
    let task = x["task"].as_str().unwrap();
    let secs = task_seconds(&e, task);
    eprintln!(
        "real model (jinja={jinja}): chat + extraction {:.1} s, extraction {secs:.1} s, status {status}, wrote {}, error {}",
        took.as_secs_f64(),
        x["files_written"],
        x["error"]
    );
    // Ended, within the extraction's own bound, and never as an overflow.
    assert!(matches!(status, "completed" | "failed" | "skipped"), "{x}");
    assert!(
        secs <= 121.0,
        "extraction ran {secs} s, past its 120 s limit"
    );
    let error = x["error"].as_str().unwrap_or_default();
    assert!(!error.contains(OVERFLOW), "{error}");
    if status == "failed" {
        assert!(!error.trim().is_empty(), "a failure says why");
    }
    // True to the disk: what it says it wrote exists and is a valid memory; nothing else changed.
    let after = e.files();
    let written: Vec<String> = x["files_written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_owned())
        .collect();
    for f in &written {
        let list = e.json(&["list"]);
        let doc = list
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["path"] == f.as_str())
            .unwrap_or_else(|| panic!("{f} is not listed: {list}"));
        assert_eq!(doc["valid"], true, "{doc}");
    }
    for (path, text) in &before {
        if !written.contains(path) {
            assert!(
                after.iter().any(|(p, t)| p == path && t == text),
                "{path} changed or vanished without being reported"
            );
        }
    }
    // A second turn in the same session works too.
    let session = v["session"].as_str().unwrap();
    let out = e.run(&["chat", "--session", session, "What editor do I use?"]);
    if !out.status.success() {
        assert_stopped_at_its_limit(&out);
    }
}

/// A machine loaded by other work can make a chat turn run past its time limit: a legal
/// outcome, and then it says so in words, exit 1 (the caller checks nothing was saved). Any
/// other failure is a bug.
fn assert_stopped_at_its_limit(out: &std::process::Output) {
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("the reply took too long and was stopped; nothing was saved"),
        "the turn failed for another reason than its time limit: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{v}");
}

#[test]
fn a_chat_turn_and_its_extraction_end_within_their_bounds_with_jinja() {
    chat_and_extract(true);
}

#[test]
fn a_chat_turn_and_its_extraction_end_within_their_bounds_without_jinja() {
    chat_and_extract(false);
}

/// `remember` exits 0 only with the fact in a memory file; otherwise 1, with a code, and nothing
/// half-written.
fn remember(jinja: bool) {
    let Some(l) = llama(8192, jinja) else { return };
    let e = Env::new(&l);
    seed(&e);
    let before = e.files();
    let started = Instant::now();
    let out = e.run(&["remember", "The user is allergic to peanuts.", "--wait"]);
    let took = started.elapsed().as_secs_f64();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let after = e.files();
    eprintln!(
        "real model (jinja={jinja}): remember {took:.1} s, exit {:?}: {v}",
        out.status.code()
    );
    if out.status.success() {
        let files = v["result"]["filesTouched"].as_array().unwrap();
        assert!(!files.is_empty(), "{v}");
        assert!(
            after
                .iter()
                .any(|(p, t)| files.iter().any(|f| f == p.as_str())
                    && t.to_lowercase().contains("peanut")),
            "exit 0 but the fact is in no memory file: {after:?}"
        );
        let summary = v["result"]["summary"].as_str().unwrap();
        assert!(
            summary.starts_with("Saved: "),
            "built from the disk: {summary}"
        );
        let hits = e.json(&["search", "peanuts", "--lexical"]);
        assert!(!hits.as_array().unwrap().is_empty(), "search finds it");
    } else {
        assert_eq!(out.status.code(), Some(1));
        let code = v["error"]["code"].as_str().unwrap();
        assert!(
            matches!(code, "remember_nothing_written" | "remember_failed"),
            "{v}"
        );
        let message = v["error"]["message"].as_str().unwrap();
        assert!(!message.contains(OVERFLOW), "{message}");
        // Nothing half-written: the memory folder is as it was.
        assert_eq!(before, after, "a failed remember left changes behind");
    }
}

#[test]
fn remember_never_exits_0_without_the_fact_on_disk_with_jinja() {
    remember(true);
}

#[test]
fn remember_never_exits_0_without_the_fact_on_disk_without_jinja() {
    remember(false);
}

#[test]
fn dream_forget_and_compaction_end_within_their_bounds() {
    let Some(l) = llama(2048, true) else { return };
    let e = Env::new(&l);
    seed(&e);
    e.add(
        "Editor again",
        "The user's editor",
        "user",
        "Uses Neovim with LSP for all editing.\n\nPrefers dark themes in every editor.",
    );
    // Dream, agent path: it ends, and its report says which path did the work.
    let started = Instant::now();
    let out = e.run(&["dream"]);
    let took = started.elapsed().as_secs_f64();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    eprintln!(
        "real model: dream {took:.1} s, exit {:?}: {}",
        out.status.code(),
        v["result"]["summary"]
    );
    assert!(out.status.success(), "{v}");
    let report = &v["result"]["dream"];
    assert!(
        matches!(
            report["status"].as_str(),
            Some("updated" | "noop" | "failed")
        ),
        "{v}"
    );
    assert!(!v.to_string().contains(OVERFLOW), "{v}");
    for (p, t) in e.files() {
        assert!(t.starts_with("---\n"), "{p} lost its frontmatter: {t}");
    }
    // Forget: the model's pick (or the fallback) previews within its bound; nothing written.
    let before = e.files();
    let out = e.run(&["forget", "neovim", "--dry-run"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(before, e.files(), "a dry run writes nothing");
    // Compaction in a 2,048-token window: long turns are compacted, never an overflow.
    // (Extraction after each turn is switched off here: it has its own test above.)
    std::fs::write(
        e.dir.path().join("home/settings.toml"),
        "[auto_extract]\npersonal = false\n",
    )
    .unwrap();
    let mut session: Option<String> = None;
    let mut compacted = 0;
    let mut stopped = false;
    for i in 0..5 {
        let msg = format!(
            "Turn {i}: here are my notes on the trip — {}",
            // ~2,000 bytes a turn: five of them pass the window even without tool definitions
            // (a model that has not proven tool use is offered none).
            "we compared flights, hotels and trains for the trip in detail. ".repeat(32)
        );
        let mut args = vec!["chat"];
        if let Some(s) = &session {
            args.extend(["--session", s.as_str()]);
        }
        args.push(&msg);
        let out = e.run(&args);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        assert!(!v.to_string().contains(OVERFLOW), "turn {i}: {v}");
        if !out.status.success() {
            // Past its time limit on a loaded machine: said so, and the turns that ended are
            // all this run can judge (a turn stopped at its limit says nothing of compaction).
            assert_stopped_at_its_limit(&out);
            eprintln!("real model: turn {i} ran past its time limit (machine loaded)");
            stopped = true;
            break;
        }
        if !v["compacted"].is_null() {
            compacted += 1;
            let by = v["compacted"]["by"].as_str().unwrap();
            assert!(matches!(by, "model" | "extractive"), "{v}");
        }
        session = v["session"].as_str().map(str::to_owned);
    }
    eprintln!("real model: {compacted} compaction(s) in 5 long turns at 2,048 tokens");
    assert!(
        compacted >= 1 || stopped,
        "5 long turns in a 2,048-token window were never compacted"
    );
}

/// Past conversations learnt from through the real server — one long enough to be
/// cut into pieces of a third of a 4,096-token window. The import ends; what it says it wrote
/// is on disk and in its one group; a finished import has every conversation in its cursor.
#[test]
fn a_conversation_import_ends_and_tells_the_truth_about_what_it_wrote() {
    let Some(l) = llama(4096, true) else { return };
    let e = Env::new(&l);
    let long = "We talked about the garden: tomatoes, basil and three kinds of beans. ".repeat(90);
    let convs = serde_json::json!([
        {"uuid": "c1", "name": "Allergies", "chat_messages": [
            {"sender": "human", "text": "Please remember that I am allergic to peanuts."},
            {"sender": "assistant", "text": "Noted: you are allergic to peanuts."}]},
        {"uuid": "c2", "name": "Garden", "chat_messages": [
            {"sender": "human", "text": format!("My garden is in Porto. {long}")},
            {"sender": "assistant", "text": "Sounds lovely."}]},
    ]);
    let src = e.dir.path().join("conversations.json");
    std::fs::write(&src, convs.to_string()).unwrap();
    let src = src.to_string_lossy().into_owned();
    let p = e.json(&["import", &src, "--dry-run"]);
    assert_eq!(p["conversations"]["conversations"], 2, "{p}");
    assert!(
        p["conversations"]["model_calls"].as_u64().unwrap() >= 6,
        "the long one is cut: {p}"
    );
    let started = Instant::now();
    let out = e.run(&["import", &src]);
    let took = started.elapsed().as_secs_f64();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    eprintln!(
        "real model: conversation import of 2 in {took:.1} s, exit {:?}: {v}",
        out.status.code()
    );
    if v["error"].is_object() {
        // Stopped (a model error): said, never an overflow, and a rerun would go on.
        let message = v["error"]["message"].as_str().unwrap();
        assert!(
            !message.contains(OVERFLOW) && message.contains("run the import again"),
            "{v}"
        );
        return;
    }
    let t = v;
    let summary = t["result"]["summary"].as_str().unwrap();
    assert!(!summary.contains(OVERFLOW), "{summary}");
    let files: Vec<String> = t["result"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_owned())
        .collect();
    let on_disk: Vec<String> = e.files().into_iter().map(|(p, _)| p).collect();
    for f in &files {
        assert!(
            on_disk.contains(f),
            "said it wrote {f}, which is not on disk: {on_disk:?}"
        );
    }
    match t["result"]["group"].as_i64() {
        Some(g) => {
            let group = e.json(&["history", "--limit", "100"]);
            assert!(
                group.as_array().unwrap().iter().any(|c| c["group"] == g),
                "its group holds its changes"
            );
        }
        None => assert!(
            files.is_empty() && summary.contains("nothing written"),
            "{summary}"
        ),
    }
    if t["status"] == "completed" {
        assert!(
            summary.starts_with("learnt from 2 of 2 conversations"),
            "{summary}"
        );
    }
}

/// A new user's walk, with the model a person runs on a laptop: Qwen2.5-Coder-1.5B-Instruct (Q4),
/// opt-in — `. <(scripts/eval-models.sh)` sets `MNEMO_EVAL_QWEN_GGUF` (1.1 GB, not in CI's default
/// set-up). Chat, a new chat, remember, dream, as a new user would; the embedding model is used
/// when installed. The second chat's prompt carries the peanut allergy (from a topic memory or
/// the conversation record), and remember writes the fact.
#[test]
fn a_first_session_with_a_small_local_model_remembers() {
    let Some(gguf) = std::env::var_os("MNEMO_EVAL_QWEN_GGUF") else {
        eprintln!(
            "note: skipped — set MNEMO_EVAL_QWEN_GGUF (`. <(scripts/eval-models.sh)`) to walk with the 1.5B model"
        );
        return;
    };
    let Some(l) = llama_with(Some(gguf), 8192, true) else {
        return;
    };
    let e = Env::new(&l);
    let run = |args: &[&str]| {
        let out = Command::new(BIN)
            .env("MNEMO_HOME", e.dir.path().join("home"))
            .env("MNEMO_CLAUDE_DIR", e.dir.path().join("claude"))
            .env("MNEMO_QWEN_DIR", e.dir.path().join("qwen"))
            .env("MNEMO_LLM_BASE_URL", &e.base_url)
            .env("MNEMO_LLM_MODEL", "qwen2.5-coder-1.5b")
            .env_remove("MNEMO_EMBED_MODEL")
            .env_remove("MNEMO_LLM_FAST_MODEL")
            .env_remove("MNEMO_LLM_API_KEY")
            .arg("--json")
            .args(args)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out.status.code(), v)
    };
    let t = Instant::now();
    let (code, first) = run(&[
        "chat",
        "Hi! I'm Ana, a data engineer in Lisbon. I'm allergic to peanuts, and please keep answers short.",
    ]);
    assert_eq!(code, Some(0), "{first}");
    eprintln!(
        "walk (1.5B): first chat {:.1} s; extraction {}: wrote {}; {}; {}",
        t.elapsed().as_secs_f64(),
        first["extract"]["status"],
        first["extract"]["files_written"],
        first["extract"]["summary"],
        first["extract"]["error"]
    );
    let t = Instant::now();
    let (code, second) = run(&["chat", "Can you suggest a snack for my afternoon break?"]);
    assert_eq!(code, Some(0), "{second}");
    let prompt = second["recall"]["prompt"]
        .as_str()
        .unwrap_or_default()
        .to_lowercase();
    eprintln!(
        "walk (1.5B): second chat {:.1} s; recalled {}; reply: {}",
        t.elapsed().as_secs_f64(),
        second["recall"]["selected"],
        second["reply"]
    );
    assert!(
        prompt.contains("peanut"),
        "the new chat's prompt does not carry the allergy: {prompt}"
    );
    let t = Instant::now();
    let (code, remembered) = run(&[
        "remember",
        "The user edits code in the Helix editor and always indents with tabs.",
        "--wait",
    ]);
    eprintln!(
        "walk (1.5B): remember {:.1} s: {remembered}",
        t.elapsed().as_secs_f64()
    );
    assert_eq!(code, Some(0), "{remembered}");
    assert!(
        e.files().iter().any(|(_, text)| text.contains("Helix")),
        "remember exited 0 with the fact in no file"
    );
    let t = Instant::now();
    let (code, dreamt) = run(&["dream"]);
    eprintln!(
        "walk (1.5B): dream {:.1} s, exit {code:?}: {}",
        t.elapsed().as_secs_f64(),
        dreamt["result"]["summary"]
    );
    assert!(matches!(code, Some(0 | 1)), "{dreamt}");
}
