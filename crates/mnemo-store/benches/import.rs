//! Import benchmark, figures side by side in one run: 10,000 memories in each
//! memory-tool format (mem0 JSON, JSONL of {text}, claude-mem, a folder of markdown notes)
//! read, planned (de-duplicated against the workspace, secret-scanned) and written through
//! `Vault::mutate` in one change group — memories per second — against the baseline of the
//! same 10,000 memories created one by one (`Vault::create`, what a script pushing facts into
//! memory through the API does: one file, one journal entry, one MEMORY.md rebuild each).
//!
//! `cargo bench -p mnemo-store --bench import`

#![allow(clippy::unwrap_used, clippy::cast_precision_loss)]

use std::path::Path;
use std::time::Instant;

use mnemo_core::{ChangeSource, MemoryType};
use mnemo_store::import::notes::plan_notes;
use mnemo_store::import::plan::FactPlanner;
use mnemo_store::import::{ImportFormat, ImportOptions, memories};
use mnemo_store::{Home, NewMemory, Vault};

fn vault(dir: &Path) -> Vault {
    Vault::open(Home {
        root: dir.join("home"),
        claude_dir: dir.join("claude"),
        qwen_dir: dir.join("qwen"),
    })
    .unwrap()
}

fn fact(i: usize) -> String {
    format!("Fact {i}: the user keeps {i} books about topic {}", i % 97)
}

fn write_source(dir: &Path, format: ImportFormat, n: usize) -> std::path::PathBuf {
    let p = dir.join(format!("src-{}", format.slug()));
    match format {
        ImportFormat::Mem0 => {
            let items: Vec<serde_json::Value> = (0..n)
                .map(|i| {
                    let category = ["preferences", "work", "misc"][i % 3];
                    serde_json::json!({"id": format!("m{i}"), "memory": fact(i), "categories": [category], "created_at": "2025-01-02T03:04:05Z"})
                })
                .collect();
            std::fs::write(
                &p,
                serde_json::to_vec(&serde_json::json!({"results": items})).unwrap(),
            )
            .unwrap();
        }
        ImportFormat::Json => {
            let text: String = (0..n)
                .map(|i| {
                    format!(
                        "{}\n",
                        serde_json::json!({"text": fact(i), "type": "project"})
                    )
                })
                .collect();
            std::fs::write(p.with_extension("jsonl"), text).unwrap();
            return p.with_extension("jsonl");
        }
        ImportFormat::ClaudeMem => {
            let items: Vec<serde_json::Value> = (0..n)
                .map(|i| serde_json::json!({"id": i, "title": fact(i), "narrative": "Found while reading the code.", "facts": ["one", "two"], "project": format!("p{}", i % 5)}))
                .collect();
            std::fs::write(
                &p,
                serde_json::to_vec(&serde_json::json!({"observations": items})).unwrap(),
            )
            .unwrap();
        }
        _ => {
            for i in 0..n {
                let f = p.join(format!("folder{}/note-{i}.md", i % 50));
                std::fs::create_dir_all(f.parent().unwrap()).unwrap();
                std::fs::write(
                    f,
                    format!("---\ntitle: Note {i}\ntags: [bench]\n---\n{}\n", fact(i)),
                )
                .unwrap();
            }
        }
    }
    p
}

/// Read, plan and write one import; memories written, seconds taken in all and in reading and
/// planning, and its change groups.
fn import(v: &Vault, src: &Path, format: ImportFormat) -> (u32, f64, f64, Vec<i64>) {
    let t = Instant::now();
    let opts = ImportOptions::default();
    let existing = v.import_existing("personal").unwrap();
    let plan = if format == ImportFormat::Markdown {
        plan_notes(memories::notes(src).unwrap(), "notes", &opts, &existing)
    } else {
        let mut p = FactPlanner::new(format, &opts, &existing, chrono::Utc::now());
        memories::for_each(src, format, |c| p.add(&c)).unwrap();
        p.finish()
    };
    let planned = t.elapsed().as_secs_f64();
    let written = v
        .apply_import(
            "personal",
            &plan.files,
            mnemo_store::vault::ImportBy {
                source: ChangeSource::Cli,
                label: "bench",
                task: None,
            },
            |_, _| {},
            || false,
        )
        .unwrap();
    let n: u32 = written.iter().map(|w| w.memories).sum();
    (
        n,
        t.elapsed().as_secs_f64(),
        planned,
        written.iter().map(|w| w.group).collect(),
    )
}

/// Every file and folder under `dir` (an undone import must leave none).
fn entries(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |rd| {
        rd.flatten()
            .map(|e| {
                1 + if e.path().is_dir() {
                    entries(&e.path())
                } else {
                    0
                }
            })
            .sum()
    })
}

/// Baseline for the notes row: the file system alone — `n` files written with plain
/// `fs::write` into fresh folders (no journal, no index), then flushed once, as an import is.
/// Creating inodes is most of a notes import's time (perf: `ext4_create`); on an ext4 without a
/// journal (this machine's) the allocator also skips every inode freed in the last 30 s
/// (`recently_deleted`), so both rows slow down alike after a mass delete: run beside each
/// other, they are compared under the same conditions.
fn plain_files(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let t = Instant::now();
    for i in 0..n {
        let f = dir.path().join(format!("folder{}/note-{i}.md", i % 50));
        if i < 50 {
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        }
        std::fs::write(f, fact(i)).unwrap();
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{:<22} {:>10} {:>10.2} {:>14.0}   (baseline: the file system alone, fs::write)",
        "plain files",
        n,
        secs,
        n as f64 / secs
    );
    let root = std::fs::File::open(dir.path()).unwrap();
    rustix::fs::syncfs(&root).unwrap();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{:<22} {:>10} {:>10.2} {:>14.0}   (baseline: the same, then flushed to disk once)",
        "  plain files, flushed",
        n,
        secs,
        n as f64 / secs
    );
    // Kept until the import beside it is done: deleting them now would slow it down.
    dir
}

fn main() {
    // `cargo test --all-targets` runs this as a smoke test: small sizes.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let n = if smoke { 300 } else { 10_000 };
    println!("importing {n} memories per format (read + plan + write, one change group)");
    println!(
        "{:<22} {:>10} {:>10} {:>14}",
        "format", "memories", "seconds", "memories/s"
    );
    for format in [
        ImportFormat::Mem0,
        ImportFormat::Json,
        ImportFormat::ClaudeMem,
        ImportFormat::Markdown,
    ] {
        let dir = tempfile::tempdir().unwrap();
        let src = write_source(dir.path(), format, n);
        let _plain = (format == ImportFormat::Markdown).then(|| plain_files(n));
        let v = vault(dir.path());
        let (written, secs, planned, groups) = import(&v, &src, format);
        assert_eq!(written as usize, n, "{format:?}");
        println!(
            "{:<22} {:>10} {:>10.2} {:>14.0}   (reading and planning {planned:.2} s)",
            format.label(),
            written,
            secs,
            f64::from(written) / secs
        );
        // Again: every memory is a duplicate, nothing written.
        let t = Instant::now();
        let (again, _, _, _) = import(&v, &src, format);
        assert_eq!(again, 0);
        println!(
            "{:<22} {:>10} {:>10.2} {:>14}",
            "  same import again",
            0,
            t.elapsed().as_secs_f64(),
            "(all duplicates)"
        );
        // Undone: every file taken back, and the folder left as the import found it (empty).
        let t = Instant::now();
        for g in groups {
            v.undo_group(g, ChangeSource::Cli).unwrap();
        }
        let secs = t.elapsed().as_secs_f64();
        let root = dir.path().join("home/workspaces/personal/memory");
        println!(
            "{:<22} {:>10} {:>10.2} {:>14.0}   ({} files or folders left)",
            "  undone",
            written,
            secs,
            f64::from(written) / secs,
            entries(&root)
        );
    }
    // Baseline: one create per memory.
    let base_n = if smoke { 100 } else { 1_000 };
    let dir = tempfile::tempdir().unwrap();
    let v = vault(dir.path());
    let t = Instant::now();
    for i in 0..base_n {
        v.create(
            "personal",
            &NewMemory {
                path: Some(format!("f/{i}.md")),
                name: format!("Fact {i}"),
                description: "a fact".into(),
                memory_type: MemoryType::User,
                body: fact(i),
            },
            ChangeSource::Cli,
        )
        .unwrap();
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{:<22} {:>10} {:>10.2} {:>14.0}   (baseline: one create per memory, first {base_n})",
        "create one by one",
        base_n,
        secs,
        base_n as f64 / secs
    );
}
