//! Recall eval, with the real models: homes of 5, 25 and 60 memories
//! (`recall_eval.json`, five languages) and one of 10,000 (the 60 among generated records of
//! other subjects — invoices, stock counts, server logs, room bookings). Each case is a query
//! with the memory it asks about — the same words, CJK, mixed scripts, full-width forms, words of
//! the body only, personal paraphrases that share no word with it, other languages — or none:
//! then recall must inject nothing. Run for multilingual-e5-small and all-MiniLM-L6-v2 (for
//! MiniLM, which reads English only, the cases it can read by meaning: a query it does not read
//! is searched by its words, as the API does).
//!
//! Asserted per home ([`Floors`]): the share of questions about nothing that recall nothing, and
//! paraphrase hit@3, at today's figures; exact words always found. Every figure is printed.

use std::collections::HashMap;
use std::path::Path;

use chrono::Utc;
use mnemo_core::MemoryType;
use mnemo_embed::Embedder;
use mnemo_engine::recall::QueryVector;
use mnemo_engine::{RecallRequest, recall};
use mnemo_store::format::TopicFile;
use mnemo_store::{Home, Vault};
use serde::Deserialize;

#[path = "../../benches/shared/embed.rs"]
mod shared;

#[derive(Deserialize)]
struct Eval {
    memories: Vec<Memory>,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Memory {
    id: String,
    #[serde(rename = "type")]
    memory_type: String,
    name: String,
    description: String,
    body: String,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    category: String,
    query: String,
    relevant: Vec<String>,
}

fn load() -> Eval {
    let path = Path::new(&manifest_dir()).join("tests/engine/recall_eval.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Generated records for the large home: subjects no case asks about.
fn distractor(i: usize) -> (String, String, String) {
    const CLIENTS: &[&str] = &["Acme", "Borealis", "Cobalt", "Dunmore", "Elbrus", "Fjord"];
    const HOSTS: &[&str] = &["api-1", "api-2", "db-main", "cache-3", "worker-7"];
    const CODES: &[&str] = &["E1042", "E2210", "E3307", "E4019", "E5120"];
    const ROOMS: &[&str] = &["Atlas", "Borneo", "Castor", "Delta"];
    let day = 1 + i % 28;
    let month = 1 + (i / 28) % 12;
    let c = CLIENTS[i % CLIENTS.len()];
    match i % 6 {
        0 => (
            format!("Invoice INV-{i:05}"),
            format!("Payment from {c} {}", i % 97),
            format!(
                "Invoice INV-{i:05} for {c} was paid on 2025-{month:02}-{day:02}: {} EUR.",
                100 + i % 9000
            ),
        ),
        1 => (
            format!("Stock count {i}"),
            format!("Warehouse {} shelf {}", i % 7, i % 40),
            format!(
                "{} units of SKU-{:04} counted in warehouse {} on 2025-{month:02}-{day:02}.",
                i % 500,
                i % 9973,
                i % 7
            ),
        ),
        2 => (
            format!("Log {} {}", CODES[i % CODES.len()], i),
            format!("{} on {}", CODES[i % CODES.len()], HOSTS[i % HOSTS.len()]),
            format!(
                "Error {} on {} at {:02}:{:02}: request {i} failed after {} ms.",
                CODES[i % CODES.len()],
                HOSTS[i % HOSTS.len()],
                i % 24,
                i % 60,
                100 + i % 900
            ),
        ),
        3 => (
            format!("Room {} booking {i}", ROOMS[i % ROOMS.len()]),
            format!("Booked for team {}", i % 31),
            format!(
                "Meeting room {} booked by team {} on 2025-{month:02}-{day:02} from {}:00 to {}:00.",
                ROOMS[i % ROOMS.len()],
                i % 31,
                8 + i % 9,
                9 + i % 9
            ),
        ),
        4 => (
            format!("发票 {i}"),
            format!("{c} 付款记录 {}", i % 97),
            format!(
                "发票 INV-{i:05} 已于 2025 年 {month} 月 {day} 日由 {c} 支付，金额 {} 元。",
                100 + i % 9000
            ),
        ),
        _ => (
            format!("在庫 {i}"),
            format!("倉庫 {} の棚 {}", i % 7, i % 40),
            format!(
                "倉庫 {} で SKU-{:04} を {} 個数えた（2025-{month:02}-{day:02}）。",
                i % 7,
                i % 9973,
                i % 500
            ),
        ),
    }
}

/// A home holding the first `n` memories of the eval and `extra` generated records, indexed
/// and embedded by `model`.
fn home(eval: &Eval, n: usize, extra: usize, model: &Embedder) -> (tempfile::TempDir, Vault) {
    let d = tempfile::tempdir().unwrap();
    let home = Home {
        root: d.path().join("home"),
        claude_dir: d.path().join("c"),
        qwen_dir: d.path().join("q"),
    };
    let root = home.root.join("workspaces/personal/memory");
    std::fs::create_dir_all(root.join("x")).unwrap();
    for m in &eval.memories[..n] {
        let ty: MemoryType = m.memory_type.parse().unwrap();
        let file = TopicFile::new(&m.name, &m.description, ty, &m.body).unwrap();
        std::fs::write(root.join(format!("{}.md", m.id)), file.render()).unwrap();
    }
    for i in 0..extra {
        let (name, desc, body) = distractor(i);
        let file = TopicFile::new(&name, &desc, MemoryType::Reference, &body).unwrap();
        std::fs::write(root.join(format!("x/{i:05}.md")), file.render()).unwrap();
    }
    let vault = Vault::open(home).unwrap();
    vault.rebuild().unwrap();
    // The generated records are the same every run: their vectors are kept per model outside
    // the clone (embedding 10,000 texts takes minutes on two cores).
    shared::embed_all_cached(
        &vault,
        model,
        shared::cache_file(model, "recall-eval").as_deref(),
    );
    (d, vault)
}

/// What recall injects for a query, as the API asks it: with the query's vector and null when
/// the model reads the query, by words otherwise.
fn recalled(vault: &Vault, model: &Embedder, query: &str, limit: usize) -> Vec<String> {
    recall_with(vault, model, query, limit, true)
}

fn recall_with(
    vault: &Vault,
    model: &Embedder,
    query: &str,
    limit: usize,
    meaning: bool,
) -> Vec<String> {
    // As the API asks: the model's fixed floors (see `mnemo-api`'s `query_vector`).
    let query_vector = (meaning && model.reads(query)).then(|| QueryVector {
        model: model.model_id().to_owned(),
        vector: model.embed_query(query).unwrap().vector,
        null: None,
        background: None,
    });
    let req = RecallRequest {
        workspace: "personal".into(),
        query: query.to_owned(),
        limit: Some(limit),
        query_vector,
        ..RecallRequest::default()
    };
    recall(vault, &req, Utc::now())
        .unwrap()
        .selected
        .into_iter()
        .map(|s| s.path.trim_end_matches(".md").to_owned())
        .collect()
}

/// Tuning aid (`MNEMO_EVAL_DUMP=/tmp/x`): each case's null and its cosines to the home's best
/// 40 memories, one JSON line per case.
fn dump_cosines(vault: &Vault, model: &Embedder, eval: &Eval, path: &str) {
    use std::io::Write as _;
    let mut out = std::fs::File::create(path).unwrap();
    for c in &eval.cases {
        if !model.reads(&c.query) {
            continue;
        }
        let v = model.embed_query(&c.query).unwrap().vector;
        let null = model.null(&v).unwrap();
        let hits = vault
            .vector_search_indexed(None, model.model_id(), &v, 40, None)
            .unwrap();
        let cos: Vec<(String, f64)> = hits
            .into_iter()
            .map(|h| (h.path.trim_end_matches(".md").to_owned(), h.score))
            .collect();
        let line = serde_json::json!({"id": c.id, "category": c.category, "query": c.query, "relevant": c.relevant, "mean": (null.mean), "sd": (null.sd), "cos": cos});
        writeln!(out, "{line}").unwrap();
    }
}

#[derive(Default)]
struct Tally {
    n: usize,
    top1: usize,
    top3: usize,
}

/// Run every applicable case in each home; returns, per home size, per category, the tally;
/// prints misses and noise.
fn run(model: &Embedder, sizes: &[(usize, usize)]) -> Vec<(usize, HashMap<String, Tally>)> {
    let eval = load();
    let mut out = Vec::new();
    for &(n, extra) in sizes {
        let (_d, vault) = home(&eval, n, extra, model);
        let present: HashMap<&str, usize> = eval.memories[..n]
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id.as_str(), i))
            .collect();
        let mut by: HashMap<String, Tally> = HashMap::new();
        if let Ok(dump) = std::env::var("MNEMO_EVAL_DUMP") {
            dump_cosines(
                &vault,
                model,
                &eval,
                &format!("{dump}-{}-{}.jsonl", n + extra, &model.model_id()[..5]),
            );
        }
        for c in &eval.cases {
            if !c.relevant.iter().all(|r| present.contains_key(r.as_str())) {
                continue;
            }
            let reads_it = model.reads(&c.query)
                && c.relevant.iter().all(|r| {
                    let m = &eval.memories[present[r.as_str()]];
                    model.reads(&format!("{} {} {}", m.name, m.description, m.body))
                });
            // A model that does not read the query or its memory cannot match them by meaning.
            if !reads_it && matches!(c.category.as_str(), "paraphrase" | "cross-language") {
                continue;
            }
            let got = recalled(&vault, model, &c.query, 3);
            // A question about nothing that shares a word with a memory ("the corolla of a
            // flower" beside a Toyota Corolla) is found by its words whatever the meaning says:
            // counted apart.
            let category = if c.relevant.is_empty()
                && !recall_with(&vault, model, &c.query, 3, false).is_empty()
            {
                "no-result, shares a word".to_owned()
            } else {
                c.category.clone()
            };
            let t = by.entry(category).or_default();
            t.n += 1;
            if c.relevant.is_empty() {
                let clean = got.is_empty();
                t.top1 += usize::from(clean);
                t.top3 += usize::from(clean);
                if !clean {
                    println!("  [{}+{extra}] noise  {} {:?} → {got:?}", n, c.id, c.query);
                }
            } else {
                let first = got.first().is_some_and(|g| c.relevant.contains(g));
                let top3 = got.iter().any(|g| c.relevant.contains(g));
                t.top1 += usize::from(first);
                t.top3 += usize::from(top3);
                if !top3 {
                    println!(
                        "  [{}+{extra}] missed {} {:?} (wants {:?}) → {got:?}",
                        n, c.id, c.query, c.relevant
                    );
                }
            }
        }
        out.push((n + extra, by));
    }
    out
}

fn report(model: &str, rows: &[(usize, HashMap<String, Tally>)]) {
    println!("\n{model}: hit@1 / hit@3 per home size (no-result: cases that recalled nothing)");
    let mut cats: Vec<&String> = rows.iter().flat_map(|(_, by)| by.keys()).collect();
    cats.sort();
    cats.dedup();
    for (size, by) in rows {
        let cells: Vec<String> = cats
            .iter()
            .filter_map(|c| {
                by.get(*c)
                    .map(|t| format!("{c} {}/{}·{}/{}", t.top1, t.n, t.top3, t.n))
            })
            .collect();
        println!("  {size:>6} memories: {}", cells.join("  "));
    }
}

/// What each home must keep (shares, 0–1): questions about nothing (that share no word with a
/// memory) recalling nothing, and paraphrases found in the top 3. Today's figures (the model's
/// fixed floors, as the API reads meaning) with a margin, so a change that makes recall noisier
/// or blinder fails; the first targets, 100 % and 85 %, are more than multilingual-e5-small's
/// cosines allow on this eval (see ARCHITECTURE.md, "Reading meaning"). MiniLM's five-memory home
/// has two paraphrases it reads and finds neither: reported, not held.
struct Floors {
    size: usize,
    quiet: f64,
    paraphrase: f64,
}

fn share(n: usize, of: usize) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let s = n as f64 / of.max(1) as f64;
    s
}

fn check(model: &str, rows: &[(usize, HashMap<String, Tally>)], floors: &[Floors]) {
    report(model, rows);
    for (size, by) in rows {
        let f = floors.iter().find(|f| f.size == *size).unwrap();
        let none = &by["no-result"];
        assert!(
            share(none.top1, none.n) >= f.quiet,
            "{model}, {size} memories: {} of {} questions about nothing recalled nothing (floor {:.0} %)",
            none.top1,
            none.n,
            f.quiet * 100.0
        );
        let p = &by["paraphrase"];
        assert!(
            p.n >= 2 && share(p.top3, p.n) >= f.paraphrase,
            "{model}, {size} memories: paraphrase hit@3 {}/{} (floor {:.0} %)",
            p.top3,
            p.n,
            f.paraphrase * 100.0
        );
        // Words still find what shares them, in every home.
        let exact = &by["exact"];
        assert_eq!(exact.top3, exact.n, "{model}, {size} memories: exact words");
    }
}

/// Homes: (memories of the eval, generated records beside them).
const SIZES: &[(usize, usize)] = &[(5, 0), (25, 0), (60, 0), (60, 9_940)];

#[test]
fn e5_recall_stays_quiet_for_nothing_and_finds_paraphrases_in_homes_of_5_to_10000() {
    let Some(path) = mnemo_embed::e5_for_tests() else {
        return;
    };
    let model = Embedder::load(&path).unwrap();
    let rows = run(&model, SIZES);
    let floors = [
        Floors {
            size: 5,
            quiet: 0.9,
            paraphrase: 0.4,
        },
        Floors {
            size: 25,
            quiet: 0.8,
            paraphrase: 0.2,
        },
        Floors {
            size: 60,
            quiet: 0.6,
            paraphrase: 0.2,
        },
        Floors {
            size: 10_000,
            quiet: 0.45,
            paraphrase: 0.15,
        },
    ];
    check("multilingual-e5-small", &rows, &floors);
}

#[test]
fn minilm_recall_stays_quiet_for_nothing_and_finds_paraphrases_in_small_homes() {
    let Some(path) = mnemo_embed::minilm_for_tests() else {
        return;
    };
    let model = Embedder::load(&path).unwrap();
    // The large home is e5's (the default model); MiniLM is checked on the small ones.
    let rows = run(&model, &SIZES[..3]);
    let floors = [
        Floors {
            size: 5,
            quiet: 0.9,
            paraphrase: 0.0,
        },
        Floors {
            size: 25,
            quiet: 0.9,
            paraphrase: 0.4,
        },
        Floors {
            size: 60,
            quiet: 0.8,
            paraphrase: 0.5,
        },
    ];
    check("all-MiniLM-L6-v2", &rows, &floors);
}

/// This crate's folder, read when the test runs (cargo sets it): a test binary built from
/// another checkout sharing the target dir must not reach into that checkout's files.
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned())
}
