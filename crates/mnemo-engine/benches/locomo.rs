//! LoCoMo retrieval benchmark for the lexical and hybrid recall paths, with the
//! paper's protocol:
//! for each question, recall@k = the fraction of its evidence dialog ids found among the top-k
//! retrieved items (a question without evidence counts as 1), retrieving only within the
//! question's own conversation. Two databases: (a) the 2,541 observations, (b) the 5,882 dialog
//! turns — each item one memory file (name = speaker, description and body = the text). Also
//! recall latency at 1,000 and 10,000 memories, lexical and hybrid (with the query's embedding),
//! embedding throughput and the index's size. Hybrid rows need the local model (the README's
//! set-up installs it); without it they are skipped, saying so. Each fusion is measured side by
//! side: the original 0.7 · vector + 0.3 · BM25, other weights, reciprocal-rank fusion, vectors
//! alone.
//!
//! Data is read from `../shared/bench-data/locomo10.json` (or `$LOCOMO_PATH`); it is CC BY-NC
//! and never copied into this repository.
//!
//! `cargo bench -p mnemo-engine --bench locomo` (under `cargo test` a smoke pass: one conversation's
//! first two sessions and their questions).

#![allow(
    clippy::unwrap_used,
    clippy::cast_precision_loss,
    clippy::too_many_lines
)]

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use chrono::Utc;
use mnemo_core::MemoryType;
use mnemo_embed::Embedder;
use mnemo_engine::recall::{Fusion, QueryNull, QueryVector};
use mnemo_engine::{RecallRequest, recall};
use mnemo_store::format::TopicFile;
use mnemo_store::{Home, Vault};
use serde_json::Value;

#[path = "locomo/data.rs"]
mod data;
#[path = "shared/embed.rs"]
mod shared;
use data::{Item, data_path, evidence, first_sessions, observations, turns, write_items};

const KS: [usize; 4] = [5, 10, 25, 50];

#[derive(Default)]
struct Tally {
    n: usize,
    sums: [f64; 4],
}

fn pct(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

/// The recall variants compared: lexical, and hybrid with each fusion.
/// The modes compared: name, fusion (`None`: lexical), and whether the question is embedded as
/// a passage (in batches, as memories are) instead of as a query, as search embeds it.
/// How a question is embedded for a mode.
#[derive(Clone, Copy, PartialEq)]
enum Embed {
    /// As a query, its meaning read against its null over the background set.
    Query,
    /// As a query, read against the model's fixed floors (the reading before the background set).
    FixedFloors,
    /// As a passage, in batches.
    Passage,
}

fn modes(with_model: bool) -> Vec<(&'static str, Option<Fusion>, Embed)> {
    let mut m: Vec<(&'static str, Option<Fusion>)> = vec![("lexical (Mnemo's BM25)", None)];
    if with_model {
        m.extend([
            (
                "hybrid standardised 0.5 / 0.5 (recall's default)",
                Some(Fusion::default()),
            ),
            (
                "hybrid 0.5·vector + 0.5·BM25 (search's)",
                Some(mnemo_engine::recall::SEARCH_FUSION),
            ),
            (
                "hybrid 0.7·vector + 0.3·BM25 (seed)",
                Some(Fusion::Weighted { vector: 0.7 }),
            ),
            (
                "hybrid 0.3·vector + 0.7·BM25",
                Some(Fusion::Weighted { vector: 0.3 }),
            ),
            (
                "hybrid 0.5·vector/best + 0.5·BM25/best",
                Some(Fusion::Relative { vector: 0.5 }),
            ),
            (
                "hybrid 0.7·vector/best + 0.3·BM25/best",
                Some(Fusion::Relative { vector: 0.7 }),
            ),
            ("hybrid reciprocal-rank fusion", Some(Fusion::Rrf)),
            ("vectors only", Some(Fusion::Weighted { vector: 1.0 })),
        ]);
    }
    let mut out: Vec<(&'static str, Option<Fusion>, Embed)> =
        m.into_iter().map(|(n, f)| (n, f, Embed::Query)).collect();
    if with_model {
        out.insert(
            2,
            (
                "hybrid standardised, the model's fixed floors (uncalibrated)",
                Some(Fusion::default()),
                Embed::FixedFloors,
            ),
        );
        out.insert(
            4,
            (
                "hybrid 0.5 / 0.5, question embedded as a passage",
                Some(Fusion::default()),
                Embed::Passage,
            ),
        );
    }
    out
}

/// Embed every memory of the vault with the model; returns (contents, seconds).
fn embed_all(vault: &Vault, model: &Embedder) -> (u64, f64) {
    let t = Instant::now();
    let n = shared::embed_all(vault, model);
    (n, t.elapsed().as_secs_f64())
}

/// The questions' vectors: as queries (as search embeds them), or as passages in batches.
fn query_vectors(model: &Embedder, questions: &[&str], how: Embed) -> Vec<QueryVector> {
    let vectors: Vec<Vec<f32>> = if how == Embed::Passage {
        questions
            .chunks(64)
            .flat_map(|c| model.embed(c).unwrap())
            .map(|e| e.vector)
            .collect()
    } else {
        questions
            .iter()
            .map(|q| model.embed_query(q).unwrap().vector)
            .collect()
    };
    vectors
        .into_iter()
        .map(|vector| query_vector(model, vector, how))
        .collect()
}

/// A question's vector as recall gets it: with its null unless the mode reads fixed floors.
fn query_vector(model: &Embedder, vector: Vec<f32>, how: Embed) -> QueryVector {
    let null = (how != Embed::FixedFloors)
        .then(|| model.null(&vector))
        .flatten()
        .map(|n| QueryNull {
            mean: n.mean,
            sd: n.sd,
        });
    QueryVector {
        model: model.model_id().to_owned(),
        background: (how != Embed::FixedFloors)
            .then(|| model.background_queries())
            .flatten(),
        vector,
        null,
    }
}

fn run(name: &str, convs: &[Value], items_of: fn(&Value) -> Vec<Item>, model: Option<&Embedder>) {
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
    if let Some(m) = model {
        let (n, secs) = embed_all(&vault, m);
        eprintln!(
            "[{name}] embedded {n} memories in {secs:.1} s ({:.0}/s)",
            n as f64 / secs
        );
    }
    let modes = modes(model.is_some());
    let mut by_cat: Vec<BTreeMap<i64, Tally>> = modes.iter().map(|_| BTreeMap::new()).collect();
    let mut overall: Vec<Tally> = modes.iter().map(|_| Tally::default()).collect();
    let mut lat = Vec::new();
    for (i, conv) in convs.iter().enumerate() {
        let qs = conv["qa"].as_array().unwrap();
        let texts: Vec<&str> = qs
            .iter()
            .map(|q| q["question"].as_str().unwrap_or_default())
            .collect();
        let qvs = model.map(|m| query_vectors(m, &texts, Embed::Query));
        let qvs_fixed = model.map(|m| query_vectors(m, &texts, Embed::FixedFloors));
        let qvs_passage = model.map(|m| query_vectors(m, &texts, Embed::Passage));
        for (qi, q) in qs.iter().enumerate() {
            let ev: HashSet<String> = evidence(q).into_iter().collect();
            let cat = q["category"].as_i64().unwrap_or(0);
            for (mi, (_, fusion, how)) in modes.iter().enumerate() {
                let qv = match how {
                    Embed::Query => &qvs,
                    Embed::FixedFloors => &qvs_fixed,
                    Embed::Passage => &qvs_passage,
                };
                let req = RecallRequest {
                    workspace: format!("conv{i}"),
                    query: texts[qi].to_owned(),
                    limit: Some(50),
                    query_vector: fusion.and(qv.as_ref().map(|v| v[qi].clone())),
                    fusion: fusion.unwrap_or_default(),
                    ..RecallRequest::default()
                };
                let t = Instant::now();
                let r = recall(&vault, &req, Utc::now()).unwrap();
                if mi == 0 {
                    lat.push(t.elapsed());
                }
                let ranked: Vec<&String> = r
                    .selected
                    .iter()
                    .filter_map(|s| maps[i].get(&s.path))
                    .collect();
                let tally = by_cat[mi].entry(cat).or_default();
                for (j, k) in KS.iter().enumerate() {
                    let score = if ev.is_empty() {
                        1.0
                    } else {
                        let top: HashSet<&String> = ranked.iter().take(*k).copied().collect();
                        ev.iter().filter(|e| top.contains(e)).count() as f64 / ev.len() as f64
                    };
                    tally.sums[j] += score;
                    overall[mi].sums[j] += score;
                }
                tally.n += 1;
                overall[mi].n += 1;
            }
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
        overall[0].n
    );
    println!("| recall | R@5 | R@10 | R@25 | R@50 |\n|---|---:|---:|---:|---:|");
    for (mi, (label, _, _)) in modes.iter().enumerate() {
        println!("| {label} | {} |", row(&overall[mi]));
    }
    if model.is_none() {
        println!(
            "\n(hybrid rows skipped: no local embedding model installed — run the README's set-up)"
        );
    }
    let label = |c: i64| match c {
        1 => "1 multi-hop",
        2 => "2 temporal",
        3 => "3 open-domain",
        4 => "4 single-hop",
        5 => "5 adversarial",
        _ => "other",
    };
    println!(
        "\nper category (R@5 | R@10 | R@25 | R@50){}\n",
        if model.is_some() {
            ", lexical then hybrid (default)"
        } else {
            ""
        }
    );
    println!(
        "| category | n | recall | R@5 | R@10 | R@25 | R@50 |\n|---|---:|---|---:|---:|---:|---:|"
    );
    for (c, t) in &by_cat[0] {
        println!("| {} | {} | lexical | {} |", label(*c), t.n, row(t));
        if model.is_some() {
            println!(
                "| {} | {} | hybrid | {} |",
                label(*c),
                t.n,
                row(&by_cat[1][c])
            );
        }
    }
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

fn latency_at(sizes: &[usize], convs: &[Value], model: Option<&Embedder>) {
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
        "\n### Recall latency (top 5, bodies read from disk, telemetry written; hybrid includes embedding the query)\n"
    );
    println!(
        "| memories | lexical p50 | lexical p99 | hybrid p50 | hybrid p99 | embedding throughput | time to embed all | index.db size |\n|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for &n in sizes {
        let (dir, vault) = synthetic_vault(n, &pool);
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
        let (l50, l99) = (pct(&mut lat, 0.5), pct(&mut lat, 0.99));
        let mut cells = vec!["—".to_owned(); 4];
        if let Some(m) = model {
            let (embedded, secs) = embed_all(&vault, m);
            let mut hl = Vec::new();
            for q in &questions {
                let t = Instant::now();
                let v = m.embed_query(q).unwrap();
                let req = RecallRequest {
                    workspace: "personal".into(),
                    query: q.clone(),
                    query_vector: Some(query_vector(m, v.vector, Embed::Query)),
                    ..RecallRequest::default()
                };
                let r = recall(&vault, &req, Utc::now()).unwrap();
                hl.push(t.elapsed());
                std::hint::black_box(r);
            }
            cells = vec![
                format!("{:.2?}", pct(&mut hl, 0.5)),
                format!("{:.2?}", pct(&mut hl, 0.99)),
                format!("{:.0} docs/s", embedded as f64 / secs),
                format!("{secs:.1} s"),
            ];
        }
        let db = dir.path().join("home/index.db");
        let size: u64 = ["", "-wal"]
            .iter()
            .filter_map(|suf| {
                let mut p = db.as_os_str().to_owned();
                p.push(suf);
                std::fs::metadata(p).ok().map(|m| m.len())
            })
            .sum();
        println!(
            "| {n} | {l50:.2?} | {l99:.2?} | {} | {} | {} | {} | {:.1} MB |",
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            size as f64 / 1e6
        );
    }
}

/// Our own Chinese / Japanese / Korean cases (the model is English-first): memories and
/// questions that say the same thing in other words, found at rank 1 and in the top 5.
fn cjk_cases(model: Option<&Embedder>) {
    let memories: &[(&str, &str, &str)] = &[
        ("zh-dog", "我家的狗叫饼干", "每天早晚各遛一次比格犬"),
        (
            "zh-deploy",
            "部署流程",
            "先发到预发环境，确认无误后再上生产",
        ),
        ("zh-style", "回答风格", "用户喜欢简短的回答，不要结尾总结"),
        ("zh-allergy", "花生过敏", "推荐菜谱时不要包含花生"),
        ("ja-cat", "猫の名前はタマ", "キーボードの上で寝るのが好き"),
        (
            "ja-meeting",
            "定例会議",
            "毎週月曜日の朝十時にチームの定例会議がある",
        ),
        (
            "ja-editor",
            "エディタの設定",
            "Vimのキーバインドを使っている",
        ),
        ("ko-coffee", "커피 취향", "아침마다 아메리카노를 마신다"),
        ("ko-release", "릴리스 일정", "매달 마지막 금요일에 배포한다"),
        (
            "ko-lang",
            "선호 언어",
            "백엔드는 러스트로 작성하는 것을 좋아한다",
        ),
    ];
    let questions: &[(&str, &str)] = &[
        ("用户养了什么宠物？", "zh-dog"),
        ("我们怎么上线新版本？", "zh-deploy"),
        ("回复应该写多长？", "zh-style"),
        ("用户有什么食物不能吃？", "zh-allergy"),
        ("ペットの猫について教えて", "ja-cat"),
        ("チームのミーティングはいつ？", "ja-meeting"),
        ("どのエディタを使っていますか", "ja-editor"),
        ("사용자는 어떤 커피를 좋아해?", "ko-coffee"),
        ("언제 배포해?", "ko-release"),
        ("백엔드 프로그래밍 언어는?", "ko-lang"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let home = Home {
        root: dir.path().join("home"),
        claude_dir: dir.path().join("c"),
        qwen_dir: dir.path().join("q"),
    };
    let root = home.root.join("workspaces/personal/memory");
    std::fs::create_dir_all(&root).unwrap();
    for (id, name, desc) in memories {
        let f = TopicFile::new(name, desc, MemoryType::User, desc).unwrap();
        std::fs::write(root.join(format!("{id}.md")), f.render()).unwrap();
    }
    let vault = Vault::open(home).unwrap();
    vault.rebuild().unwrap();
    if let Some(m) = model {
        embed_all(&vault, m);
    }
    println!(
        "\n### Own CJK cases: {} questions in other words\n",
        questions.len()
    );
    println!("| recall | found at rank 1 | found in top 5 |\n|---|---:|---:|");
    for (label, fusion, how) in modes(model.is_some()) {
        let (mut first, mut top5) = (0, 0);
        for (q, want) in questions {
            let req = RecallRequest {
                workspace: "personal".into(),
                query: (*q).to_owned(),
                limit: Some(5),
                query_vector: fusion.and_then(|_| {
                    model.map(|m| {
                        let vector = if how == Embed::Passage {
                            m.embed(&[q]).unwrap().remove(0).vector
                        } else {
                            m.embed_query(q).unwrap().vector
                        };
                        query_vector(m, vector, how)
                    })
                }),
                fusion: fusion.unwrap_or_default(),
                ..RecallRequest::default()
            };
            let r = recall(&vault, &req, Utc::now()).unwrap();
            let paths: Vec<String> = r.selected.iter().map(|s| s.path.clone()).collect();
            let want = format!("{want}.md");
            first += usize::from(paths.first() == Some(&want));
            top5 += usize::from(paths.contains(&want));
        }
        println!(
            "| {label} | {first}/{} | {top5}/{} |",
            questions.len(),
            questions.len()
        );
    }
}

/// Added latency of the model path (the fast model picks memories) against the local fake model
/// server, which answers at once: what remains is manifest building, HTTP, JSON, validation and
/// file reads.
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
    // Under `cargo test`: the first conversation's first two sessions and their questions.
    let smoke_data = [first_sessions(&data[0], 2)];
    let convs = if smoke { &smoke_data[..] } else { &data[..] };
    let model = match Embedder::discover(None) {
        Ok(m) => {
            println!("embedding model: {} ({})", m.model_id(), m.dir().display());
            Some(m)
        }
        Err(e) => {
            println!("no embedding model: {e}");
            None
        }
    };
    let speed_only = std::env::var_os("LOCOMO_SPEED_ONLY").is_some();
    if !speed_only {
        quality(convs, model.as_ref());
    }
    if std::env::var_os("LOCOMO_QUALITY_ONLY").is_some() {
        return;
    }
    // LOCOMO_SIZES=1000,10000 picks the vault sizes of the latency table.
    let sizes: Vec<usize> = std::env::var("LOCOMO_SIZES").map_or_else(
        |_| {
            if smoke {
                vec![200]
            } else {
                vec![1_000, 10_000]
            }
        },
        |v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect(),
    );
    latency_at(&sizes, convs, model.as_ref());
    model_path_latency(if smoke { 200 } else { 1_000 }, convs);
}

/// LoCoMo recall quality, both corpora, then our own CJK cases.
fn quality(convs: &[Value], model: Option<&Embedder>) {
    run("(a) observations as memories", convs, observations, model);
    run("(b) dialog turns as memories", convs, turns, model);
    cjk_cases(model);
}
