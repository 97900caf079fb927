//! Vault benchmark: synthetic workspaces of 1,000 / 10,000 / 100,000 topic files (mixed English,
//! Chinese, Japanese, Korean; 300–1,500 bytes each). For each size it measures, in one run:
//! full index rebuild; indexed search latency (p50/p99); the naive approach (read and score every
//! file per query, as a recall without an index does) and the ratio; watcher latency from a file
//! write to its `memory_changed` event (p50/p99); and the CLI's start-up time.
//!
//! `cargo build --release -p mnemo-cli && cargo bench -p mnemo-store --bench vault [-- --sizes 1000,10000] [--hybrid]`
//! (`--hybrid`: also embed every memory with `mnemo embed` and time one-shot hybrid searches;
//! needs the embedding model)
//! (the CLI columns time the `mnemo` binary built next to this bench; without it they are
//! skipped, saying so).

#![allow(clippy::unwrap_used, clippy::cast_precision_loss)]

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mnemo_store::{Home, Vault, tokenize};

/// Where a size's vault lives: a temporary folder, or one kept for profiling.
enum Kept {
    Temp(tempfile::TempDir),
    Dir(std::path::PathBuf),
}

impl Kept {
    fn path(&self) -> &Path {
        match self {
            Self::Temp(t) => t.path(),
            Self::Dir(p) => p,
        }
    }
}

const EN_HEAD: &[&str] = &[
    "deploy",
    "release",
    "grafana",
    "latency",
    "budget",
    "review",
    "kubernetes",
    "postgres",
    "migration",
    "terse",
    "summary",
    "oncall",
    "incident",
    "roadmap",
    "frontend",
    "backend",
    "rust",
    "python",
    "tokio",
    "sqlite",
    "cache",
    "index",
    "search",
    "memory",
    "editor",
    "keyboard",
    "coffee",
    "meeting",
    "deadline",
    "customer",
    "invoice",
    "dashboard",
    "alert",
    "pager",
    "branch",
    "freeze",
    "mobile",
    "android",
    "ios",
    "design",
    "tokens",
    "prompt",
];
const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ren", "sto", "va", "qu", "el", "dan", "tor", "pi", "sen", "ux", "bra", "co",
    "fi", "gal", "hem", "ist", "jo", "ked", "lum", "nor", "ost", "pra", "rit", "sul", "tem", "vin",
    "wex", "yor", "zan",
];
const TYPES: &[&str] = &["user", "feedback", "project", "reference"];
/// Words per script in the synthetic vocabulary (drawn with a Zipf-like, log-uniform rank).
const VOCAB: usize = 6000;

/// A Zipf-like vocabulary: a few very common words, a long tail of rare ones — as real text.
struct Vocab {
    en: Vec<String>,
    zh: Vec<String>,
    ja: Vec<String>,
    ko: Vec<String>,
}

impl Vocab {
    fn new(rng: &mut Rng) -> Self {
        let mut en: Vec<String> = EN_HEAD.iter().map(|s| (*s).to_owned()).collect();
        while en.len() < VOCAB {
            let n = 2 + rng.next() % 3;
            en.push((0..n).map(|_| rng.pick(SYLLABLES)).collect());
        }
        let script = |rng: &mut Rng, base: u32, span: u32| -> Vec<String> {
            (0..VOCAB)
                .map(|_| {
                    let n = 2 + rng.next() % 2;
                    (0..n)
                        .map(|_| {
                            char::from_u32(base + (rng.next() % u64::from(span)) as u32)
                                .unwrap_or('字')
                        })
                        .collect()
                })
                .collect()
        };
        Self {
            zh: script(rng, 0x4E00, 2500),
            ja: script(rng, 0x30A1, 90),
            ko: script(rng, 0xAC00, 2000),
            en,
        }
    }

    fn word<'a>(&'a self, rng: &mut Rng) -> &'a str {
        let list = match rng.next() % 10 {
            0 => &self.zh,
            1 => &self.ja,
            2 => &self.ko,
            _ => &self.en,
        };
        let u = (rng.next() % 1_000_000) as f64 / 1_000_000.0;
        let rank = ((list.len() as f64).powf(u) as usize)
            .saturating_sub(1)
            .min(list.len() - 1);
        &list[rank]
    }

    fn phrase(&self, rng: &mut Rng, words: usize) -> String {
        (0..words)
            .map(|_| self.word(rng))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[(self.next() % v.len() as u64) as usize]
    }
}

fn generate(root: &Path, n: usize, vocab: &Vocab) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ n as u64);
    for i in 0..n {
        let ty = TYPES[i % 4];
        let dir = root.join(ty).join(format!("{:03}", i / 1000));
        if i % 1000 < TYPES.len() {
            std::fs::create_dir_all(&dir).unwrap();
        }
        let mut body = String::new();
        let entries = 1 + rng.next() % 4;
        let target = 300 + (rng.next() % 1200) as usize;
        while body.len() < target {
            for _ in 0..entries {
                let words = 8 + (rng.next() % 12) as usize;
                body.push_str(&vocab.phrase(&mut rng, words));
                body.push_str(".\nWhy: ");
                body.push_str(&vocab.phrase(&mut rng, 6));
                body.push_str(".\nHow to apply: ");
                body.push_str(&vocab.phrase(&mut rng, 5));
                body.push_str(".\n\n");
            }
        }
        let text = format!(
            "---\nname: {} {i}\ndescription: {}\ntype: {ty}\n---\n{body}",
            vocab.phrase(&mut rng, 3),
            vocab.phrase(&mut rng, 8)
        );
        std::fs::write(dir.join(format!("m{i:06}.md")), text).unwrap();
    }
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn stats(mut v: Vec<Duration>) -> (Duration, Duration) {
    v.sort();
    (pct(&v, 0.5), pct(&v, 0.99))
}

/// The naive approach: read every file and score it by term occurrences.
fn naive_search(root: &Path, query: &str, limit: usize) -> Vec<(f64, String)> {
    let terms = tokenize::query_terms(query);
    let mut scored = Vec::new();
    for e in walkdir(root) {
        let Ok(text) = std::fs::read_to_string(&e) else {
            continue;
        };
        let folded = tokenize::fold(&text);
        let score: usize = terms
            .iter()
            .map(|t| folded.matches(t.as_str()).count())
            .sum();
        if score > 0 {
            scored.push((score as f64, e.display().to_string()));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.truncate(limit);
    scored
}

fn walkdir(root: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // Under `cargo test` (no `--bench` flag) run a small smoke pass so the suite stays fast
    // while still exercising every measurement.
    let smoke = !args.iter().any(|a| a == "--bench");
    let sizes: Vec<usize> = if smoke {
        vec![300]
    } else {
        args.iter()
            .position(|a| a == "--sizes")
            .and_then(|i| args.get(i + 1))
            .map_or_else(
                || vec![1_000, 10_000, 100_000],
                |s| s.split(',').map(|x| x.parse().unwrap()).collect(),
            )
    };
    // The `mnemo` binary of the same profile: target/<profile>/mnemo, next to deps/ holding us.
    let bin = std::env::current_exe()
        .ok()
        .and_then(|p| Some(p.parent()?.parent()?.join("mnemo")))
        .filter(|p| p.is_file());
    if bin.is_none() {
        println!(
            "(CLI columns skipped: build the `mnemo` binary first — cargo build --release -p mnemo-cli)"
        );
    }
    println!(
        "| files | rebuild | search p50 | search p99 | naive p50 | naive/index | watch p50 | watch p95 | watch p99 | CLI `search` p50 |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let hybrid = args.iter().any(|a| a == "--hybrid");
    let mut hybrid_rows: Vec<String> = Vec::new();
    let mut rng = Rng(42);
    let vocab = Vocab::new(&mut rng);
    // Queries mix scripts and frequencies: a word or two drawn like the text itself.
    let queries: Vec<String> = (0..60)
        .map(|i| match i % 3 {
            0 => vocab.word(&mut rng).to_owned(),
            _ => format!("{} {}", vocab.word(&mut rng), vocab.word(&mut rng)),
        })
        .collect();
    for &n in &sizes {
        let dir = tempfile::tempdir().unwrap();
        // VAULT_BENCH_KEEP=DIR: build the vault in DIR/<n> and leave it there (for profiling).
        let dir = match std::env::var_os("VAULT_BENCH_KEEP") {
            Some(keep) => {
                let p = Path::new(&keep).join(n.to_string());
                let _ = std::fs::remove_dir_all(&p);
                std::fs::create_dir_all(&p).unwrap();
                Kept::Dir(p)
            }
            None => Kept::Temp(dir),
        };
        let home = Home {
            root: dir.path().join("home"),
            claude_dir: dir.path().join("c"),
            qwen_dir: dir.path().join("q"),
        };
        let memory = home.root.join("workspaces/personal/memory");
        let t = Instant::now();
        generate(&memory, n, &vocab);
        eprintln!("[{n}] generated in {:.1?}", t.elapsed());

        let vault = Arc::new(Vault::open(home.clone()).unwrap());
        let t = Instant::now();
        let report = vault.rebuild().unwrap();
        let rebuild = t.elapsed();
        assert_eq!(report.updated, n);
        eprintln!("[{n}] rebuild {rebuild:.2?}");

        let mut lat = Vec::new();
        for _ in 0..5 {
            for q in &queries {
                let t = Instant::now();
                let hits = vault.search_indexed(Some("personal"), q, 10).unwrap();
                lat.push(t.elapsed());
                if n >= 10_000 {
                    assert!(!hits.is_empty(), "{q}");
                }
            }
        }
        let (s50, s99) = stats(lat);

        let naive_runs = if n >= 100_000 { 3 } else { 10 };
        let mut nlat = Vec::new();
        for q in queries.iter().take(naive_runs) {
            let t = Instant::now();
            let hits = naive_search(&memory, q, 10);
            nlat.push(t.elapsed());
            std::hint::black_box(hits);
        }
        let (n50, _) = stats(nlat);

        // Watcher: modify a file, wait for its event.
        let ws = vault.workspace("personal").unwrap();
        let rx = vault.subscribe();
        let handle = mnemo_store::watch::watch(Arc::clone(&vault), vec![ws]).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let mut wlat = Vec::new();
        for i in 0..60 {
            let rel = format!("user/000/m{:06}.md", (i * 4) % n);
            let path = memory.join(&rel);
            let mut text = std::fs::read_to_string(&path).unwrap();
            text.push_str(&format!("\nEdited {i} by an outside editor.\n"));
            let t = Instant::now();
            std::fs::write(&path, text).unwrap();
            loop {
                let ev = rx
                    .recv_timeout(Duration::from_secs(30))
                    .expect("watch event");
                if ev.paths.contains(&rel) {
                    break;
                }
            }
            wlat.push(t.elapsed());
        }
        drop(handle);
        wlat.sort();
        let w95 = pct(&wlat, 0.95);
        let (w50, w99) = stats(wlat);

        // CLI: a full process start, vault open, stat-sync of the workspace, indexed search.
        let mut clat = Vec::new();
        for q in queries.iter().take(if bin.is_some() { 10 } else { 0 }) {
            let Some(bin) = &bin else { break };
            let t = Instant::now();
            let out = Command::new(bin)
                .args(["--json", "--workspace", "personal", "search", q])
                .env("MNEMO_HOME", &home.root)
                .env("MNEMO_CLAUDE_DIR", &home.claude_dir)
                .env("MNEMO_QWEN_DIR", &home.qwen_dir)
                .output()
                .unwrap();
            clat.push(t.elapsed());
            assert!(out.status.success());
        }
        let c50 = if clat.is_empty() {
            "—".to_owned()
        } else {
            format!("{:.1?}", stats(clat).0)
        };
        // With `--hybrid` (and the embedding model installed): embed every memory through the
        // CLI, then time one-shot hybrid searches (the model is loaded by each process).
        if hybrid && let Some(bin) = &bin {
            let cli = |args: &[&str]| {
                Command::new(bin)
                    .args(args)
                    .env("MNEMO_HOME", &home.root)
                    .env("MNEMO_CLAUDE_DIR", &home.claude_dir)
                    .env("MNEMO_QWEN_DIR", &home.qwen_dir)
                    .output()
                    .unwrap()
            };
            let t = Instant::now();
            let out = cli(&["--json", "embed"]);
            let secs = t.elapsed().as_secs_f64();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stdout)
            );
            let mut hlat = Vec::new();
            for q in queries.iter().take(10) {
                let t = Instant::now();
                let out = cli(&["--json", "--workspace", "personal", "search", q]);
                hlat.push(t.elapsed());
                assert!(out.status.success());
            }
            let db = home.root.join("index.db");
            let size: u64 = ["", "-wal"]
                .iter()
                .filter_map(|suf| {
                    let mut p = db.as_os_str().to_owned();
                    p.push(suf);
                    std::fs::metadata(p).ok().map(|m| m.len())
                })
                .sum();
            hybrid_rows.push(format!(
                "| {n} | {secs:.1} s ({:.0} docs/s) | {:.1?} | {c50} | {:.1} MB |",
                n as f64 / secs,
                stats(hlat).0,
                size as f64 / 1e6
            ));
        }
        println!(
            "| {n} | {rebuild:.2?} | {s50:.2?} | {s99:.2?} | {n50:.2?} | {:.0}× | {w50:.1?} | {w95:.1?} | {w99:.1?} | {c50} |",
            n50.as_secs_f64() / s50.as_secs_f64()
        );
    }
    if !hybrid_rows.is_empty() {
        println!(
            "\n| files | `mnemo embed` (all) | CLI hybrid `search` p50 | CLI lexical `search` p50 | index.db with vectors |\n|---:|---:|---:|---:|---:|"
        );
        for r in &hybrid_rows {
            println!("{r}");
        }
    }
    let Some(bin) = bin else { return };
    let mut v = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let out = Command::new(&bin).arg("--version").output().unwrap();
        v.push(t.elapsed());
        assert!(out.status.success());
    }
    let (v50, v99) = stats(v);
    println!("\nCLI start-up (`mnemo --version`): p50 {v50:.2?}, p99 {v99:.2?}");
}
