//! Dream benchmark. For workspaces of 1,000 and 10,000 topic files in which 10 % of
//! the files repeat an entry of another file of their type (with a `Why:`), it measures in one
//! run, side by side:
//! - the mechanical dream as Mnemo runs it (plan, then every write journaled, MEMORY.md rebuilt
//!   once at the end), with files touched / deleted and entries merged;
//! - the baseline: the same plan applied with MEMORY.md regenerated after every write (what a
//!   plain sequence of edits does);
//! - planning alone (pure, no IO);
//! - the agent path's own overhead against the fake model (which answers at once): snapshot,
//!   manifest, tool calls, safety pass — the dream's time minus nothing, since the model costs ~0.
//!
//! `cargo bench -p mnemo-engine --bench dream` (a 200-memory smoke pass under `cargo test`).

#![allow(clippy::unwrap_used, clippy::cast_precision_loss)]

use std::path::Path;
use std::time::{Duration, Instant};

use mnemo_core::ChangeSource;
use mnemo_engine::dream::{self, DreamRequest, Progress};
use mnemo_llm::{CancellationToken, Client, LlmSettings};
use mnemo_store::dream_report::DreamTrigger;
use mnemo_store::{Home, Vault};
use mnemo_testkit::{FakeModel, Kind, Reply};
use serde_json::json;

const TYPES: [&str; 4] = ["user", "feedback", "project", "reference"];

fn topic(i: usize, ty: &str, body: &str) -> String {
    format!(
        "---\nname: Memory {i}\ndescription: Facts of memory {i} about {ty}\ntype: {ty}\n---\n{body}\n"
    )
}

/// `n` topic files; every 10th repeats the first entry of the file four before it (same type).
fn fixture(root: &Path, n: usize) {
    for i in 0..n {
        let ty = TYPES[i % 4];
        // Entries already in order: only the files with a duplicate need rewriting.
        let mut body = format!(
            "A second fact {i}, with detail about {ty}.\n\nFact {i} about {ty} matters to the user."
        );
        if i % 10 == 9 {
            body.push_str(&format!(
                "\n\nfact {} about {ty} matters to the user.\nWhy: repeated in {i}.",
                i - 4
            ));
        }
        let p = root.join(ty).join(format!("m{i:05}.md"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, topic(i, ty, &body)).unwrap();
    }
}

fn open(dir: &Path, n: usize) -> Vault {
    let home = Home {
        root: dir.join("home"),
        claude_dir: dir.join("c"),
        qwen_dir: dir.join("q"),
    };
    let v = Vault::open(home).unwrap();
    let ws = v.workspace("personal").unwrap();
    fixture(&ws.memory_root, n);
    v.sync(&ws).unwrap();
    v
}

fn req(mechanical: bool) -> DreamRequest<'static> {
    DreamRequest {
        workspace: "personal",
        trigger: DreamTrigger::Manual,
        mechanical,
        session: None,
        origin: ChangeSource::Dream.into(),
    }
}

async fn mechanical(n: usize) {
    let d = tempfile::tempdir().unwrap();
    let v = open(d.path(), n);
    let ws = v.workspace("personal").unwrap();
    let t = Instant::now();
    let plan = dream::plan_mechanical(&ws);
    let plan_time = t.elapsed();
    let t = Instant::now();
    let r = dream::run_dream(
        &v,
        None,
        &req(true),
        &CancellationToken::new(),
        &mut |_: Progress<'_>| {},
    )
    .await;
    let ours = t.elapsed();
    assert_eq!(r.entries_merged, plan.entries_merged);
    // Baseline on a fresh copy: the same plan, each write followed by a MEMORY.md rebuild.
    let d2 = tempfile::tempdir().unwrap();
    let v2 = open(d2.path(), n);
    let ws2 = v2.workspace("personal").unwrap();
    let plan2 = dream::plan_mechanical(&ws2);
    let t = Instant::now();
    for c in &plan2.changes {
        let new = c.new.clone().map(String::into_bytes);
        v2.mutate(&ws2, &c.path, ChangeSource::Dream, None, |_, _| Ok(new))
            .unwrap();
    }
    let baseline = t.elapsed();
    println!(
        "{n:>6} memories | mechanical dream {:>9.1} ms | baseline (index rebuilt per write) {:>9.1} ms | {:>5.1}x | plan only {:>7.1} ms | {} files touched, {} deleted, {} entries merged",
        ms(ours),
        ms(baseline),
        ms(baseline) / ms(ours).max(0.001),
        ms(plan_time),
        r.files_touched.len(),
        r.files_deleted.len(),
        r.entries_merged
    );
}

async fn agent_overhead(n: usize) {
    let d = tempfile::tempdir().unwrap();
    let v = open(d.path(), n);
    let fake = FakeModel::start().await;
    let client = Client::new(LlmSettings {
        base_url: fake.base_url().to_owned(),
        model: "fake".into(),
        timeout_secs: 30,
        ..LlmSettings::default()
    })
    .unwrap();
    let merged = topic(
        3,
        "reference",
        "A second fact 3, with detail about reference.\n\nFact 3 about reference matters to the user.\n\nFact 7 new.",
    );
    fake.push_for(
        Kind::Tools,
        Reply::tool("read_file", json!({"path": "reference/m00003.md"})),
    );
    fake.push_for(
        Kind::Tools,
        Reply::tool("grep_search", json!({"pattern": "fact 3 about"})),
    );
    fake.push_for(
        Kind::Tools,
        Reply::tool(
            "write_file",
            json!({"path": "reference/m00003.md", "content": merged}),
        ),
    );
    fake.push_for(Kind::Tools, Reply::text("Merged."));
    let t = Instant::now();
    let r = dream::run_dream(
        &v,
        Some(&client),
        &req(false),
        &CancellationToken::new(),
        &mut |_: Progress<'_>| {},
    )
    .await;
    let total = t.elapsed();
    let calls = fake.requests().len();
    println!(
        "{n:>6} memories | agent path against the fake model: {:>8.1} ms for {calls} model calls and 3 tool calls ({:>6.1} ms per turn) | status {:?}",
        ms(total),
        ms(total) / calls.max(1) as f64,
        r.status
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() {
    let smoke = !std::env::args().any(|a| a == "--bench");
    let sizes: &[usize] = if smoke { &[200] } else { &[1_000, 10_000] };
    for &n in sizes {
        mechanical(n).await;
    }
    for &n in sizes {
        agent_overhead(n).await;
    }
}
