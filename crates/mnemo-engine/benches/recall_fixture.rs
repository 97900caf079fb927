//! Qwen Code's public recall fixture, run through Mnemo's recall and search: 22 memories in five
//! languages and 48 queries — exact, Chinese, Japanese, Korean, mixed, full-width (NFKC),
//! body-only, semantic with no shared word, and no-result. Reported for each model beside the
//! model's fixed floors (the reading before the background set): top-1 of the cases with an
//! expected top memory, semantic hit@5, and how many no-result queries recall (and search)
//! nothing.
//!
//! The fixture is QwenLM/qwen-code's
//! `packages/core/src/memory/__fixtures__/auto-memory-recall-eval.json` (Apache-2.0), read at
//! bench time from `$MNEMO_QWEN_RECALL_FIXTURE` (or `--fixture PATH`); it is never copied into
//! this repository. `cargo bench -p mnemo-engine --bench recall_fixture`. Under `cargo test`
//! (no fixture) a three-memory fixture of the same shape checks the scoring.

#![allow(clippy::unwrap_used, clippy::cast_precision_loss)]

use std::path::PathBuf;

use chrono::Utc;
use mnemo_core::MemoryType;
use mnemo_embed::Embedder;
use mnemo_engine::recall::{QueryNull, QueryVector, content_query};
use mnemo_engine::{RecallRequest, recall};
use mnemo_store::format::TopicFile;
use mnemo_store::{Home, Vault};
use serde::Deserialize;

#[path = "shared/embed.rs"]
mod shared;

#[derive(Deserialize)]
struct Fixture {
    docs: Vec<Doc>,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Doc {
    id: String,
    #[serde(rename = "type")]
    memory_type: String,
    title: String,
    description: String,
    body: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Case {
    id: String,
    query: String,
    relevant_ids: Vec<String>,
    expected_top_id: Option<String>,
}

/// How the query's meaning is read.
#[derive(Clone, Copy, PartialEq)]
enum Reading {
    /// Against its null over the background set.
    Null,
    /// Against the model's fixed floors.
    Fixed,
}

fn vault_of(f: &Fixture, model: Option<&Embedder>) -> (tempfile::TempDir, Vault) {
    let d = tempfile::tempdir().unwrap();
    let home = Home {
        root: d.path().join("home"),
        claude_dir: d.path().join("c"),
        qwen_dir: d.path().join("q"),
    };
    let root = home.root.join("workspaces/personal/memory");
    std::fs::create_dir_all(&root).unwrap();
    for doc in &f.docs {
        let ty: MemoryType = doc.memory_type.parse().unwrap();
        let file = TopicFile::new(&doc.title, &doc.description, ty, &doc.body).unwrap();
        std::fs::write(root.join(format!("{}.md", doc.id)), file.render()).unwrap();
    }
    let vault = Vault::open(home).unwrap();
    vault.rebuild().unwrap();
    if let Some(model) = model {
        shared::embed_all(&vault, model);
    }
    (d, vault)
}

fn query_vector(model: Option<&Embedder>, q: &str, reading: Reading) -> Option<QueryVector> {
    let m = model.filter(|m| m.reads(q))?;
    let vector = m.embed_query(q).unwrap().vector;
    let null = (reading == Reading::Null)
        .then(|| m.null(&vector))
        .flatten()
        .map(|n| QueryNull {
            mean: n.mean,
            sd: n.sd,
        });
    Some(QueryVector {
        model: m.model_id().to_owned(),
        background: (reading == Reading::Null)
            .then(|| m.background_queries())
            .flatten(),
        vector,
        null,
    })
}

#[derive(Default, Debug, PartialEq)]
struct Score {
    top1: usize,
    top1_of: usize,
    semantic: usize,
    semantic_of: usize,
    quiet: usize,
    quiet_search: usize,
    quiet_of: usize,
}

fn score(
    f: &Fixture,
    vault: &Vault,
    model: Option<&Embedder>,
    reading: Reading,
    verbose: bool,
) -> Score {
    let mut s = Score::default();
    for c in &f.cases {
        let qv = query_vector(model, &c.query, reading);
        let req = RecallRequest {
            workspace: "personal".into(),
            query: c.query.clone(),
            limit: Some(5),
            query_vector: qv.clone(),
            ..RecallRequest::default()
        };
        let got: Vec<String> = recall(vault, &req, Utc::now())
            .unwrap()
            .selected
            .into_iter()
            .map(|m| m.path.trim_end_matches(".md").to_owned())
            .collect();
        if c.relevant_ids.is_empty() {
            s.quiet_of += 1;
            s.quiet += usize::from(got.is_empty());
            let words = content_query(&c.query);
            let searched = match &qv {
                Some(qv) => mnemo_engine::recall::search_hybrid(vault, None, &words, qv, 10)
                    .unwrap()
                    .map(|hits| hits.into_iter().filter(|h| !h.weak).collect())
                    .unwrap_or_default(),
                None => vault.search_indexed(None, &words, 10).unwrap(),
            };
            s.quiet_search += usize::from(searched.is_empty());
            if verbose && (!got.is_empty() || !searched.is_empty()) {
                let names: Vec<&str> = searched.iter().map(|h| h.path.as_str()).collect();
                println!("    noise {}: recall {got:?}, search {names:?}", c.id);
            }
        } else if let Some(top) = &c.expected_top_id {
            s.top1_of += 1;
            s.top1 += usize::from(got.first() == Some(top));
            if verbose && got.first() != Some(top) {
                println!("    top-1 {}: wants {top}, got {got:?}", c.id);
            }
        } else {
            s.semantic_of += 1;
            let hit = got.iter().any(|g| c.relevant_ids.contains(g));
            s.semantic += usize::from(hit);
            if verbose && !hit {
                println!(
                    "    semantic {}: wants {:?}, got {got:?}",
                    c.id, c.relevant_ids
                );
            }
        }
    }
    s
}

fn row(label: &str, s: &Score) -> String {
    format!(
        "| {label} | {}/{} | {}/{} | {}/{} | {}/{} |",
        s.top1,
        s.top1_of,
        s.semantic,
        s.semantic_of,
        s.quiet,
        s.quiet_of,
        s.quiet_search,
        s.quiet_of
    )
}

/// Under `cargo test`: the scoring on a fixture of the same shape, by words alone.
fn self_check() {
    let f: Fixture = serde_json::from_value(serde_json::json!({
        "docs": [
            {"id": "en-release", "type": "project", "title": "Release process", "description": "Production deployment checklist", "body": "Verify monitoring before shipping."},
            {"id": "zh-perf", "type": "project", "title": "性能优化目标", "description": "季度性能指标", "body": "降低冷启动时间。"},
            {"id": "en-style", "type": "user", "title": "Response preferences", "description": "Concise answer style", "body": "Skip trailing summaries."}
        ],
        "cases": [
            {"id": "a", "category": "english", "query": "release process", "relevantIds": ["en-release"], "expectedTopId": "en-release"},
            {"id": "b", "category": "chinese", "query": "性能优化目标", "relevantIds": ["zh-perf"], "expectedTopId": "zh-perf"},
            {"id": "c", "category": "semantic-no-lexical", "query": "stop padding your replies with recaps", "relevantIds": ["en-style"]},
            {"id": "d", "category": "no-result", "query": "quantum entanglement", "relevantIds": []},
            {"id": "e", "category": "no-result", "query": "部", "relevantIds": []}
        ]
    }))
    .unwrap();
    let (_d, vault) = vault_of(&f, None);
    let s = score(&f, &vault, None, Reading::Null, true);
    println!("{}", row("words only (self-check)", &s));
    let want = Score {
        top1: 2,
        top1_of: 2,
        semantic: 0,
        semantic_of: 1,
        quiet: 2,
        quiet_search: 2,
        quiet_of: 2,
    };
    assert_eq!(
        s, want,
        "words find the exact cases, not the semantic one, and nothing for no-result"
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .iter()
        .position(|a| a == "--fixture")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("MNEMO_QWEN_RECALL_FIXTURE").map(PathBuf::from));
    let Some(path) = path.filter(|_| args.iter().any(|a| a == "--bench")) else {
        self_check();
        println!(
            "note: set MNEMO_QWEN_RECALL_FIXTURE to Qwen Code's auto-memory-recall-eval.json and run `cargo bench` for the real fixture"
        );
        return;
    };
    let verbose = args.iter().any(|a| a == "--verbose");
    let f: Fixture = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    println!(
        "Qwen Code recall fixture: {} memories, {} cases\n",
        f.docs.len(),
        f.cases.len()
    );
    println!(
        "| model, reading | top-1 | semantic hit@5 | no-result: recall quiet | no-result: search quiet |"
    );
    println!("|---|---|---|---|---|");
    let (_d, vault) = vault_of(&f, None);
    println!(
        "{}",
        row(
            "words only",
            &score(&f, &vault, None, Reading::Null, verbose)
        )
    );
    let models = [
        ("multilingual-e5-small", mnemo_embed::locate_e5()),
        ("all-MiniLM-L6-v2", mnemo_embed::minilm_for_tests()),
    ];
    for (name, found) in models {
        let Some(p) = found else {
            println!("| {name} | not installed | | | |");
            continue;
        };
        let model = Embedder::load(&p).unwrap();
        let (_d, vault) = vault_of(&f, Some(&model));
        for (label, reading) in [
            ("fixed floors (before)", Reading::Fixed),
            ("null over the background", Reading::Null),
        ] {
            if verbose {
                println!("  {name}, {label}:");
            }
            let s = score(&f, &vault, Some(&model), reading, verbose);
            println!("{}", row(&format!("{name}, {label}"), &s));
        }
    }
}
