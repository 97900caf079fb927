//! Extraction eval: `benches/extraction/eval.json` holds short conversations in
//! English, Chinese, Japanese and Korean, each with the facts a person would expect saved (as
//! keyword groups) or none. Every conversation runs through `run_extract` on a fresh home, by
//! each path (`planner`, `tools`), against a real `llama-server` per model; then the files on
//! disk are scored:
//! - **kept** — expected facts some saved entry holds (every keyword group matched);
//! - **invented** — saved entries that share no keyword group with any expected fact (all of
//!   them, in a conversation with nothing worth saving), as a share of all saved entries; an
//!   entry holding part of a fact is partial, not invented;
//! - **outdated** — saved entries holding only what a correction in the same conversation
//!   replaced (`old`: said, but no longer true);
//! - **wrong type** — kept facts saved under another type;
//! - **s/job** — seconds per extraction.
//!
//! Models: `MNEMO_EVAL_MODELS="qwen1.5b=/path.gguf,gemma270m=/path.gguf,smollm2=/path.gguf"`
//! (`. <(scripts/eval-models.sh)` assembles the first two, `scripts/llama.sh` the third), served
//! by `MNEMO_LLAMA_SERVER`. Options after `--`: `--paths planner,tools`, `--limit N` (first N
//! conversations), `--every N` (every Nth: a subset across the languages), `--only <id prefix>`,
//! `--lang en|zh|ja|ko`, `--verbose`, `--heldout` (`heldout.json` instead: conversations written
//! after the planner prompt was tuned on `eval.json`, never used to tune it).
//!
//! `cargo bench -p mnemo-engine --bench extraction -- --paths planner`. Under `cargo test`
//! (no models) it checks its own scoring against the fake server with scripted plans.

#![allow(clippy::unwrap_used, clippy::cast_precision_loss)]

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mnemo_core::ChangeSource;
use mnemo_engine::extract::{ExtractRequest, run_extract};
use mnemo_llm::{CancellationToken, Client, Extraction, LlmSettings, Message, Role};
use mnemo_store::{Home, Vault};
use serde::Deserialize;

#[derive(Deserialize)]
struct Eval {
    conversations: Vec<Conversation>,
}

#[derive(Deserialize, Clone)]
struct Conversation {
    id: String,
    lang: String,
    messages: Vec<Said>,
    expect: Vec<Expected>,
    /// True facts a model may save unasked (neither kept nor invented).
    #[serde(default)]
    also: Vec<Also>,
    /// What a correction in the conversation replaced: saved, it is outdated.
    #[serde(default)]
    old: Vec<Also>,
}

#[derive(Deserialize, Clone)]
struct Also {
    all: Vec<Vec<String>>,
}

#[derive(Deserialize, Clone)]
struct Said {
    role: String,
    content: String,
}

#[derive(Deserialize, Clone)]
struct Expected {
    #[serde(rename = "type")]
    memory_type: String,
    all: Vec<Vec<String>>,
}

fn holds(all: &[Vec<String>], text: &str) -> bool {
    let t = text.to_lowercase();
    all.iter()
        .all(|g| g.iter().any(|k| t.contains(&k.to_lowercase())))
}

impl Expected {
    fn held_by(&self, text: &str) -> bool {
        holds(&self.all, text)
    }
}

/// One saved entry: its text (with the file's name) and its file's type.
struct Saved {
    text: String,
    memory_type: String,
}

#[derive(Default)]
struct Score {
    expected: usize,
    kept: usize,
    saved: usize,
    invented: usize,
    outdated: usize,
    wrong_type: usize,
    empty_convs: usize,
    empty_written: usize,
    jobs: usize,
    seconds: f64,
    failed: usize,
}

impl Score {
    fn add(&mut self, c: &Conversation, saved: &[Saved], secs: f64, failed: bool, verbose: bool) {
        self.jobs += 1;
        self.seconds += secs;
        self.failed += usize::from(failed);
        self.expected += c.expect.len();
        self.saved += saved.len();
        if c.expect.is_empty() {
            self.empty_convs += 1;
            self.empty_written += usize::from(!saved.is_empty());
        }
        for e in &c.expect {
            if let Some(s) = saved.iter().find(|s| e.held_by(&s.text)) {
                self.kept += 1;
                self.wrong_type += usize::from(s.memory_type != e.memory_type);
                if verbose && s.memory_type != e.memory_type {
                    println!(
                        "    wrong type {}: {} saved as {}: {}",
                        c.id,
                        e.memory_type,
                        s.memory_type,
                        s.text.replace('\n', " | ")
                    );
                }
            } else if verbose {
                println!("    missed  {}: {:?}", c.id, e.all);
            }
        }
        for s in saved {
            // Invented: it shares no keyword group with any expected fact (one that holds part
            // of a fact — "has two cats" where the names were expected — is partial, not made up).
            let related = c.expect.iter().any(|e| {
                e.all
                    .iter()
                    .any(|g| holds(std::slice::from_ref(g), &s.text))
            });
            if related || c.also.iter().any(|a| holds(&a.all, &s.text)) {
                continue;
            }
            if c.old.iter().any(|a| holds(&a.all, &s.text)) {
                self.outdated += 1;
                if verbose {
                    println!("    outdated {}: {}", c.id, s.text.replace('\n', " | "));
                }
            } else {
                self.invented += 1;
                if verbose {
                    println!("    invented {}: {}", c.id, s.text.replace('\n', " | "));
                }
            }
        }
    }

    fn pct(a: usize, b: usize) -> String {
        if b == 0 {
            "–".to_owned()
        } else {
            format!("{:.0} %", 100.0 * a as f64 / b as f64)
        }
    }

    fn row(&self, model: &str, path: &str) -> String {
        format!(
            "| {model} | {path} | {} ({}/{}) | {} ({}/{}) | {} | {} | {}/{} | {:.1} | {} |",
            Self::pct(self.kept, self.expected),
            self.kept,
            self.expected,
            Self::pct(self.invented, self.saved),
            self.invented,
            self.saved,
            Self::pct(self.outdated, self.saved),
            Self::pct(self.wrong_type, self.kept),
            self.empty_written,
            self.empty_convs,
            self.seconds / self.jobs.max(1) as f64,
            self.failed,
        )
    }
}

fn open(dir: &Path) -> Vault {
    Vault::open(Home {
        root: dir.join("home"),
        claude_dir: dir.join("c"),
        qwen_dir: dir.join("q"),
    })
    .unwrap()
}

fn messages(c: &Conversation) -> Vec<Message> {
    c.messages
        .iter()
        .map(|m| {
            if m.role == "user" {
                Message::user(&m.content)
            } else {
                Message::new(Role::Assistant, &m.content)
            }
        })
        .collect()
}

/// Every entry of every topic file in the home's personal workspace.
fn saved(v: &Vault) -> Vec<Saved> {
    let mut out = Vec::new();
    for d in v.list_indexed(Some("personal"), None).unwrap() {
        if d.kind != mnemo_store::doc::DocKind::Topic {
            continue;
        }
        let detail = v.get("personal", &d.path).unwrap();
        let ty = d.memory_type.map_or("none", |t| t.as_str()).to_owned();
        for e in mnemo_store::format::entries(&detail.body) {
            out.push(Saved {
                text: format!("{}: {}", d.name, e.text),
                memory_type: ty.clone(),
            });
        }
    }
    out
}

async fn one(client: &Client, c: &Conversation) -> (Vec<Saved>, f64, bool) {
    let dir = tempfile::tempdir().unwrap();
    let v = open(dir.path());
    let msgs = messages(c);
    let req = ExtractRequest {
        workspace: "personal",
        session_id: "eval",
        messages: &msgs,
        from: 0,
        chat_wrote_memory: false,
        origin: ChangeSource::Extract.into(),
        imported: false,
    };
    let t = Instant::now();
    let r = run_extract(&v, client, &req, &CancellationToken::new(), |_| {}).await;
    let secs = t.elapsed().as_secs_f64();
    let failed =
        !matches!(&r, Ok(x) if x.status == mnemo_engine::extract::ExtractStatus::Completed);
    let args: Vec<String> = std::env::args().collect();
    let show = args.iter().any(|a| a == "--verbose") || !args.iter().any(|a| a == "--bench");
    if show && let Ok(x) = &r {
        for d in &x.dropped {
            println!("    dropped {}: {} — {}", c.id, d.fact, d.reason);
        }
    }
    (saved(&v), secs, failed)
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(gguf: &str) -> (Server, String) {
    let bin =
        std::env::var("MNEMO_LLAMA_SERVER").expect("MNEMO_LLAMA_SERVER: run scripts/llama.sh");
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(bin)
        .args(["-m", gguf, "-c", "8192", "--host", "127.0.0.1", "--port"])
        .arg(port.to_string())
        .args([
            "-np",
            "1",
            "-t",
            "2",
            "--no-webui",
            "--seed",
            "7",
            "--jinja",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = Server(child);
    let deadline = Instant::now() + Duration::from_secs(180);
    while Command::new("curl")
        .args([
            "-sf",
            "-o",
            "/dev/null",
            &format!("http://127.0.0.1:{port}/health"),
        ])
        .status()
        .map_or(true, |s| !s.success())
    {
        assert!(Instant::now() < deadline, "llama-server did not start");
        std::thread::sleep(Duration::from_millis(250));
    }
    (server, format!("http://127.0.0.1:{port}/v1"))
}

fn client(base_url: &str, model: &str, path: &str) -> Client {
    Client::new(LlmSettings {
        base_url: base_url.to_owned(),
        model: model.to_owned(),
        context_window: 8192,
        timeout_secs: 180,
        extraction: Extraction::parse(path).unwrap(),
        ..LlmSettings::default()
    })
    .unwrap()
}

fn load(file: &str) -> Vec<Conversation> {
    let path = Path::new(&manifest_dir())
        .join("benches/extraction")
        .join(file);
    let eval: Eval = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    eval.conversations
}

/// The clause of the user's messages that holds every keyword group of `e`, word for word (as
/// the planner's prompt asks a model to copy), or the whole sentence when no clause holds them.
fn quoted(c: &Conversation, e: &Expected) -> String {
    let holds = |t: &str| e.held_by(t);
    let sentences: Vec<&str> = c
        .messages
        .iter()
        .filter(|m| m.role == "user")
        .flat_map(|m| m.content.split_inclusive(['.', '!', '?']))
        .map(str::trim)
        .collect();
    let clause = sentences
        .iter()
        .flat_map(|s| s.split([',', ':']))
        .map(str::trim)
        .find(|t| holds(t));
    clause
        .or_else(|| sentences.iter().copied().find(|t| holds(t)))
        .unwrap_or_else(|| panic!("{}: no sentence of the user holds {:?}", c.id, e.all))
        .to_owned()
}

/// Conversations whose facts the user states (not only asks about), for the self-check.
const SELF_CHECK: &[&str] = &[
    "en-allergy-lisbon",
    "en-vegetarian-dinner",
    "en-postgres-billing",
    "en-linear-mob",
    "en-python-style",
];

/// Under `cargo test`: the scoring itself, against the fake server answering each job with a
/// plan that quotes the user's own clauses for the expected facts (and one invented fact).
fn self_check(convs: &[Conversation], rt: &tokio::runtime::Runtime) {
    rt.block_on(async {
        let fake = mnemo_testkit::FakeModel::start().await;
        let client = client(fake.base_url(), "fake", "planner");
        let mut score = Score::default();
        for id in SELF_CHECK {
            let c = convs.iter().find(|c| c.id == *id).unwrap();
            let user = c.messages.iter().position(|m| m.role == "user").unwrap() + 1;
            let mut facts: Vec<(String, &str)> = Vec::new();
            for e in &c.expect {
                let fact = quoted(c, e);
                if !facts.iter().any(|(f, _)| *f == fact) {
                    facts.push((fact, e.memory_type.as_str()));
                }
            }
            let mut memories: Vec<serde_json::Value> = facts
                .iter()
                .map(|(fact, ty)| serde_json::json!({"source": user, "type": ty, "topic": "Eval", "fact": fact}))
                .collect();
            memories.push(serde_json::json!({"source": user, "type": "user", "topic": "Other", "fact": "Owns a yellow submarine in Liverpool"}));
            fake.push_for(mnemo_testkit::Kind::Json, mnemo_testkit::Reply::json(&serde_json::json!({"memories": memories})));
            let (s, secs, failed) = one(&client, c).await;
            score.add(c, &s, secs, failed, true);
        }
        println!("{}", score.row("fake", "planner"));
        assert!(score.expected >= 10, "the self-check covers {} facts", score.expected);
        assert_eq!(score.kept, score.expected, "a plan quoting the user's words keeps every expected fact");
        assert_eq!(score.invented, 0, "an invented fact the user never said is dropped");
        assert_eq!(score.wrong_type, 0);
        assert_eq!(score.failed, 0);
    });
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let convs = load("eval.json");
    assert!(
        convs.len() >= 55,
        "the eval holds {} conversations",
        convs.len()
    );
    let convs = if args.iter().any(|a| a == "--heldout") {
        load("heldout.json")
    } else {
        convs
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let models = std::env::var("MNEMO_EVAL_MODELS").unwrap_or_default();
    if !args.iter().any(|a| a == "--bench") || models.is_empty() {
        self_check(&convs, &rt);
        if models.is_empty() {
            println!(
                "note: set MNEMO_EVAL_MODELS (see the file's header) to run the eval against real models"
            );
        }
        return;
    }
    let paths = opt("--paths").unwrap_or_else(|| "planner,tools".to_owned());
    let limit: usize = opt("--limit")
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX);
    let only = opt("--only").unwrap_or_default();
    let lang = opt("--lang");
    let verbose = args.iter().any(|a| a == "--verbose");
    let every: usize = opt("--every")
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
        .max(1);
    let picked: Vec<Conversation> = convs
        .into_iter()
        .filter(|c| c.id.starts_with(&only))
        .filter(|c| lang.as_ref().is_none_or(|l| *l == c.lang))
        .step_by(every)
        .take(limit)
        .collect();
    println!(
        "extraction eval: {} conversations ({} with facts, {} expected facts, {} with nothing to save)\n",
        picked.len(),
        picked.iter().filter(|c| !c.expect.is_empty()).count(),
        picked.iter().map(|c| c.expect.len()).sum::<usize>(),
        picked.iter().filter(|c| c.expect.is_empty()).count()
    );
    println!(
        "| model | path | facts kept | invented (of saved) | outdated | wrong type | wrote on nothing-to-save | s/job | failed |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for spec in models.split(',').filter(|s| !s.trim().is_empty()) {
        let (name, gguf) = spec
            .split_once('=')
            .expect("MNEMO_EVAL_MODELS entries are name=path.gguf");
        let (_server, base) = serve(gguf.trim());
        for path in paths.split(',') {
            let client = client(&base, name, path);
            let mut score = Score::default();
            for c in &picked {
                let (s, secs, failed) = rt.block_on(one(&client, c));
                score.add(c, &s, secs, failed, verbose);
            }
            println!("{}", score.row(name, path));
        }
    }
}

/// This crate's folder, read when the test runs (cargo sets it): a test binary built from
/// another checkout sharing the target dir must not reach into that checkout's files.
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned())
}
