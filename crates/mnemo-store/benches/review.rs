//! Review benchmark, figures side by side in one run:
//! - the inbox at 10,000 pending proposals: one page of 50 (what the app and `mnemo inbox` read)
//!   against reading every pending summary (an inbox without paging: every page of 500);
//! - accepting a 300-file proposal (checks, rebase of every file under the write lock, one
//!   group) against the same 300 writes landing directly (`mutate` in one batch, no review);
//! - what a recall now also pays to record usage for its 5 memories, against the telemetry
//!   event it already recorded.
//!
//! `cargo bench -p mnemo-store --bench review`

#![allow(clippy::unwrap_used, clippy::cast_precision_loss)]

use std::time::Instant;

use mnemo_core::ChangeSource;
use mnemo_store::journal::{AcceptChoice, Origin, ProposalOrigin, ProposalStatus};
use mnemo_store::{Home, Vault};

fn home(dir: &std::path::Path) -> Home {
    Home {
        root: dir.join("home"),
        claude_dir: dir.join("claude"),
        qwen_dir: dir.join("qwen"),
    }
}

fn topic(i: usize, extra: &str) -> String {
    format!(
        "---\nname: Memory {i}\ndescription: Facts of memory {i}\ntype: user\n---\n- Fact {i} matters\n\n- Second fact {i}{extra}\n"
    )
}

/// Stage one job writing `files` and save it as a proposal.
fn propose(v: &Vault, files: &[(String, String)]) -> i64 {
    let ws = v.workspace("personal").unwrap();
    let g = v.begin_group("personal", "dream", None, "bench").unwrap();
    v.stage_group(g, "personal");
    let origin = Origin {
        source: ChangeSource::Dream,
        group: Some(g),
    };
    for (p, t) in files {
        let b = t.clone().into_bytes();
        v.mutate(&ws, p, origin, None, |_, _| Ok(Some(b))).unwrap();
    }
    v.finish_stage(
        g,
        ChangeSource::Dream,
        "dream",
        "bench",
        &ProposalOrigin::default(),
    )
    .unwrap()
    .unwrap()
}

fn percentile(mut xs: Vec<f64>, p: f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[((xs.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    // `cargo test --all-targets` runs this as a smoke test: small sizes.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let (pending, nfiles) = if smoke { (200, 30) } else { (10_000, 300) };
    // 1. The inbox at 10,000 pending proposals.
    let dir = tempfile::tempdir().unwrap();
    let v = Vault::open(home(dir.path())).unwrap();
    let t = Instant::now();
    for i in 0..pending {
        propose(&v, &[(format!("p/{i}.md"), topic(i, ""))]);
    }
    println!(
        "made {pending} proposals in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    // `limit` per read, `reads` reads in a row (the whole inbox: every page of 500).
    let time = |limit: u32, reads: u32, rounds: usize| -> Vec<f64> {
        (0..rounds)
            .map(|_| {
                let t = Instant::now();
                for r in 0..reads {
                    let page = v
                        .proposals("personal", Some(ProposalStatus::Pending), r * limit, limit)
                        .unwrap();
                    std::hint::black_box(page);
                }
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect()
    };
    let paged = time(50, 1, 50);
    let whole = time(500, u32::try_from(pending.div_ceil(500)).unwrap(), 10);
    println!("\ninbox at {pending} pending        p50 ms   p99 ms");
    println!(
        "  one page of 50 (Mnemo)     {:>8.2} {:>8.2}",
        percentile(paged.clone(), 0.5),
        percentile(paged, 0.99)
    );
    println!(
        "  every summary (unpaged)    {:>8.2} {:>8.2}",
        percentile(whole.clone(), 0.5),
        percentile(whole, 0.99)
    );

    // 2. Accepting a 300-file proposal vs the same writes landing directly.
    let files: Vec<(String, String)> = (0..nfiles)
        .map(|i| {
            (
                format!("m/{i:03}.md"),
                topic(i, &format!("\n\n- Third fact {i}")),
            )
        })
        .collect();
    let seed = |v: &Vault| {
        let ws = v.workspace("personal").unwrap();
        for (i, (p, _)) in files.iter().enumerate() {
            let b = topic(i, "").into_bytes();
            v.mutate(&ws, p, ChangeSource::User, None, |_, _| Ok(Some(b)))
                .unwrap();
        }
    };
    let d1 = tempfile::tempdir().unwrap();
    let reviewed = Vault::open(home(d1.path())).unwrap();
    seed(&reviewed);
    let id = propose(&reviewed, &files);
    let t = Instant::now();
    reviewed
        .accept_proposal(id, &AcceptChoice::default())
        .unwrap();
    let accept = t.elapsed().as_secs_f64() * 1000.0;
    let d2 = tempfile::tempdir().unwrap();
    let plain = Vault::open(home(d2.path())).unwrap();
    seed(&plain);
    let ws = plain.workspace("personal").unwrap();
    let t = Instant::now();
    {
        let _batch = plain.begin_batch(&ws, ChangeSource::Dream);
        for (p, text) in &files {
            let b = text.clone().into_bytes();
            plain
                .mutate(&ws, p, ChangeSource::Dream, None, |_, _| Ok(Some(b)))
                .unwrap();
        }
    }
    let direct = t.elapsed().as_secs_f64() * 1000.0;
    println!("\n{nfiles} files                       ms");
    println!("  accept the proposal (Mnemo) {accept:>8.1}");
    println!("  the writes landing directly {direct:>8.1}");

    // 3. A recall's usage record vs its telemetry event.
    let items: Vec<(String, u32, bool)> = (0..5)
        .map(|i| (format!("m/{i:03}.md"), 120, false))
        .collect();
    let rounds = 200;
    let t = Instant::now();
    for i in 0..rounds {
        plain
            .record_recall("personal", Some("s"), &format!("r{i}"), &items)
            .unwrap();
    }
    let usage = t.elapsed().as_secs_f64() * 1000.0 / f64::from(rounds);
    let data = serde_json::json!({"strategy": "heuristic", "paths": ["a.md", "b.md"], "tokens_injected": 600});
    let t = Instant::now();
    for _ in 0..rounds {
        plain.record_event("recall", "personal", &data).unwrap();
    }
    let event = t.elapsed().as_secs_f64() * 1000.0 / f64::from(rounds);
    println!("\nper recall (5 memories)         ms");
    println!("  usage record (new)          {usage:>8.3}");
    println!("  telemetry event (before)    {event:>8.3}");
}
