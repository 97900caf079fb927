//! LoCoMo retrieval benchmark for the lexical recall path (SPEC §3.3), with the paper's protocol:
//! for each question, recall@k = the fraction of its evidence dialog ids found among the top-k
//! retrieved items (a question without evidence counts as 1), retrieving only within the
//! question's own conversation. Two databases: (a) the 2,541 observations, (b) the 5,882 dialog
//! turns — each item one memory file (name = speaker, description and body = the text). Also
//! recall latency at 1,000 and 10,000 memories.
//!
//! Data is read from `../shared/bench-data/locomo10.json` (or `$LOCOMO_PATH`); it is CC BY-NC
//! and never copied into this repository.
//!
//! `cargo bench -p mnemo-engine --bench locomo` (a one-conversation smoke pass under `cargo test`).

#![allow(
    clippy::unwrap_used,
    clippy::cast_precision_loss,
    clippy::too_many_lines
)]

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::Utc;
use mnemo_core::MemoryType;
use mnemo_engine::{RecallRequest, recall};
use mnemo_store::format::TopicFile;
use mnemo_store::{Home, Vault};
use serde_json::Value;

const KS: [usize; 4] = [5, 10, 25, 50];

struct Item {
    speaker: String,
    text: String,
    dia_id: String,
}

fn data_path() -> PathBuf {
    std::env::var_os("LOCOMO_PATH").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench-data/locomo10.json"),
        PathBuf::from,
    )
}

fn turns(conv: &Value) -> Vec<Item> {
    let c = &conv["conversation"];
    let mut sessions: Vec<(u32, &Vec<Value>)> = c
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(k, v)| {
            let n = k.strip_prefix("session_")?.parse().ok()?;
            Some((n, v.as_array()?))
        })
        .collect();
    sessions.sort_by_key(|(n, _)| *n);
    let mut out = Vec::new();
    for (_, turns) in sessions {
        for t in turns {
            let mut text = t["text"].as_str().unwrap_or_default().to_owned();
            if let Some(c) = t["blip_caption"].as_str() {
                text.push_str(&format!(" [shares a photo: {c}]"));
            }
            out.push(Item {
                speaker: t["speaker"].as_str().unwrap_or("someone").to_owned(),
                text,
                dia_id: t["dia_id"].as_str().unwrap_or_default().to_owned(),
            });
        }
    }
    out
}

fn observations(conv: &Value) -> Vec<Item> {
    let mut keys: Vec<(u32, &Value)> = conv["observation"]
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(k, v)| {
            Some((
                k.strip_prefix("session_")?
                    .strip_suffix("_observation")?
                    .parse()
                    .ok()?,
                v,
            ))
        })
        .collect();
    keys.sort_by_key(|(n, _)| *n);
    let mut out = Vec::new();
    for (_, per_speaker) in keys {
        for (speaker, facts) in per_speaker.as_object().unwrap() {
            for f in facts.as_array().unwrap() {
                out.push(Item {
                    speaker: speaker.clone(),
                    text: f[0].as_str().unwrap_or_default().to_owned(),
                    dia_id: f[1].as_str().unwrap_or_default().to_owned(),
                });
            }
        }
    }
    out
}

/// Evidence ids of a question, normalised (`"D8:6; D9:17"` → two ids; malformed entries dropped).
fn evidence(q: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for e in q["evidence"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        for part in e.split([';', ' ', ',']) {
            let p = part.trim();
            let ok = p
                .strip_prefix('D')
                .and_then(|r| r.split_once(':'))
                .is_some_and(|(a, b)| {
                    !a.is_empty()
                        && a.chars().all(|c| c.is_ascii_digit())
                        && !b.is_empty()
                        && b.chars().all(|c| c.is_ascii_digit())
                });
            if ok {
                out.push(p.to_owned());
            }
        }
    }
    out
}

fn write_items(root: &Path, items: &[Item]) -> HashMap<String, String> {
    let mut path_to_dia = HashMap::new();
    std::fs::create_dir_all(root.join("d")).unwrap();
    for (i, it) in items.iter().enumerate() {
        let rel = format!("d/{i:05}.md");
        let one_line: String = it.text.split_whitespace().collect::<Vec<_>>().join(" ");
        let desc: String = one_line.chars().take(300).collect();
        let file = TopicFile::new(
            &it.speaker,
            if desc.is_empty() { "(empty)" } else { &desc },
            MemoryType::User,
            &it.text,
        )
        .unwrap();
        std::fs::write(root.join(&rel), file.render()).unwrap();
        path_to_dia.insert(rel, it.dia_id.clone());
    }
    path_to_dia
}

#[derive(Default)]
struct Tally {
    n: usize,
    sums: [f64; 4],
}

fn pct(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn run(name: &str, convs: &[Value], items_of: fn(&Value) -> Vec<Item>) {
    let dir = tempfile::tempdir().unwrap();
    let home = Home {
        root: dir.path().join("home"),
        claude_dir: dir.path().join("c"),
        qwen_dir: dir.path().join("q"),
    };
    let mut maps = Vec::new();
    let mut total_items = 0;
    for (i, conv) in convs.iter().enumerate() {
        let items = items_of(conv);
        total_items += items.len();
        maps.push(write_items(
            &home.root.join(format!("workspaces/conv{i}/memory")),
            &items,
        ));
    }
    let vault = Vault::open(home).unwrap();
    vault.rebuild().unwrap();
    let mut by_cat: BTreeMap<i64, Tally> = BTreeMap::new();
    let mut overall = Tally::default();
    let mut lat = Vec::new();
    for (i, conv) in convs.iter().enumerate() {
        for q in conv["qa"].as_array().unwrap() {
            let ev: HashSet<String> = evidence(q).into_iter().collect();
            let req = RecallRequest {
                workspace: format!("conv{i}"),
                query: q["question"].as_str().unwrap_or_default().to_owned(),
                limit: Some(50),
                ..RecallRequest::default()
            };
            let t = Instant::now();
            let r = recall(&vault, &req, Utc::now()).unwrap();
            lat.push(t.elapsed());
            let ranked: Vec<&String> = r
                .selected
                .iter()
                .filter_map(|s| maps[i].get(&s.path))
                .collect();
            let cat = q["category"].as_i64().unwrap_or(0);
            let tally = by_cat.entry(cat).or_default();
            for (j, k) in KS.iter().enumerate() {
                let score = if ev.is_empty() {
                    1.0
                } else {
                    let top: HashSet<&String> = ranked.iter().take(*k).copied().collect();
                    ev.iter().filter(|e| top.contains(e)).count() as f64 / ev.len() as f64
                };
                tally.sums[j] += score;
                overall.sums[j] += score;
            }
            tally.n += 1;
            overall.n += 1;
        }
    }
    let row = |t: &Tally| {
        KS.iter()
            .enumerate()
            .map(|(j, _)| format!("{:.1}", 100.0 * t.sums[j] / t.n.max(1) as f64))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    println!(
        "\n### {name}: {total_items} items, {} questions\n",
        overall.n
    );
    println!("| category | n | R@5 | R@10 | R@25 | R@50 |\n|---|---:|---:|---:|---:|---:|");
    let label = |c: i64| match c {
        1 => "1 multi-hop",
        2 => "2 temporal",
        3 => "3 open-domain",
        4 => "4 single-hop",
        5 => "5 adversarial",
        _ => "other",
    };
    for (c, t) in &by_cat {
        println!("| {} | {} | {} |", label(*c), t.n, row(t));
    }
    println!("| **overall** | {} | {} |", overall.n, row(&overall));
    println!(
        "\nrecall (k=50, lexical) latency: p50 {:.2?}, p99 {:.2?}",
        pct(&mut lat, 0.5),
        pct(&mut lat, 0.99)
    );
}

/// A `personal` workspace of `n` memories cycled from `pool` (each made unique), indexed.
fn synthetic_vault(n: usize, pool: &[Item]) -> (tempfile::TempDir, Vault) {
    let dir = tempfile::tempdir().unwrap();
    let home = Home {
        root: dir.path().join("home"),
        claude_dir: dir.path().join("c"),
        qwen_dir: dir.path().join("q"),
    };
    let items: Vec<Item> = (0..n)
        .map(|i| {
            let it = &pool[i % pool.len()];
            Item {
                speaker: it.speaker.clone(),
                text: format!("{} (#{i})", it.text),
                dia_id: it.dia_id.clone(),
            }
        })
        .collect();
    write_items(&home.root.join("workspaces/personal/memory"), &items);
    let vault = Vault::open(home).unwrap();
    vault.rebuild().unwrap();
    (dir, vault)
}

fn latency_at(sizes: &[usize], convs: &[Value]) {
    let pool: Vec<Item> = convs.iter().flat_map(turns).collect();
    let questions: Vec<String> = convs
        .iter()
        .flat_map(|c| {
            c["qa"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|q| q["question"].as_str().map(str::to_owned))
        })
        .take(300)
        .collect();
    println!(
        "\n### Recall latency (lexical path, top 5, bodies read from disk, telemetry written)\n"
    );
    println!("| memories | p50 | p99 |\n|---:|---:|---:|");
    for &n in sizes {
        let (_dir, vault) = synthetic_vault(n, &pool);
        let mut lat = Vec::new();
        for q in &questions {
            let req = RecallRequest {
                workspace: "personal".into(),
                query: q.clone(),
                ..RecallRequest::default()
            };
            let t = Instant::now();
            recall(&vault, &req, Utc::now()).unwrap();
            lat.push(t.elapsed());
        }
        println!(
            "| {n} | {:.2?} | {:.2?} |",
            pct(&mut lat, 0.5),
            pct(&mut lat, 0.99)
        );
    }
}

/// Added latency of the model path (SPEC §3.2) against the local fake model server, which
/// answers at once: what remains is manifest building, HTTP, JSON, validation and file reads.
fn model_path_latency(n: usize, convs: &[Value]) {
    let pool: Vec<Item> = convs.iter().flat_map(turns).collect();
    let (_dir, vault) = synthetic_vault(n, &pool);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let fake = mnemo_testkit::FakeModel::start().await;
        let settings = mnemo_llm::LlmSettings {
            base_url: fake.base_url().to_owned(),
            model: "fake".into(),
            ..mnemo_llm::LlmSettings::default()
        };
        let client = mnemo_llm::Client::new(settings).unwrap();
        let (mut lex, mut model) = (Vec::new(), Vec::new());
        for i in 0..60 {
            let req = RecallRequest {
                workspace: "personal".into(),
                query: format!("what did they say about item {i}"),
                ..RecallRequest::default()
            };
            fake.push(mnemo_testkit::Reply::json(
                &serde_json::json!({"paths": ["d/00001.md", "d/00002.md"]}),
            ));
            let t = Instant::now();
            let r = mnemo_engine::recall_with_model(
                &vault,
                &client,
                &req,
                Utc::now(),
                Duration::from_secs(10),
                &mnemo_llm::CancellationToken::new(),
            )
            .await
            .unwrap();
            model.push(t.elapsed());
            assert_eq!(r.strategy, mnemo_engine::Strategy::Model);
            let t = Instant::now();
            recall(&vault, &req, Utc::now()).unwrap();
            lex.push(t.elapsed());
        }
        println!("\n### Model path vs lexical at {n} memories (fake model answering at once)\n");
        println!("| path | p50 | p99 |\n|---|---:|---:|");
        println!(
            "| lexical | {:.2?} | {:.2?} |",
            pct(&mut lex, 0.5),
            pct(&mut lex, 0.99)
        );
        println!(
            "| model (manifest of 200 + HTTP + JSON) | {:.2?} | {:.2?} |",
            pct(&mut model, 0.5),
            pct(&mut model, 0.99)
        );
    });
}

fn main() {
    let smoke = !std::env::args().any(|a| a == "--bench");
    let path = data_path();
    let Ok(text) = std::fs::read_to_string(&path) else {
        assert!(
            smoke,
            "LoCoMo data not found at {}: set LOCOMO_PATH",
            path.display()
        );
        println!(
            "LoCoMo data not found at {}; smoke pass skipped",
            path.display()
        );
        return;
    };
    let data: Vec<Value> = serde_json::from_str(&text).unwrap();
    let convs = if smoke { &data[..1] } else { &data[..] };
    run("(a) observations as memories", convs, observations);
    run("(b) dialog turns as memories", convs, turns);
    latency_at(if smoke { &[200] } else { &[1_000, 10_000] }, convs);
    model_path_latency(if smoke { 200 } else { 1_000 }, convs);
}
