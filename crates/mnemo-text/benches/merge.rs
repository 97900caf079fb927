//! Merge benchmark: one topic file of 2,000 entries, 1,000 of them edited on one side
//! and 1,000 others on the other side (plus 50 added on each side, at the same places), merged three ways by
//! Mnemo's entry-level merge and, as the baseline, by `git merge-file` (line level, the real git
//! binary — what a plain git sync would do). Reports time and whether the baseline needed a person
//! (conflict hunks), side by side, in one run.
//!
//! `cargo bench -p mnemo-text --bench merge`

#![allow(clippy::unwrap_used, clippy::cast_precision_loss)]

use std::process::Command;
use std::time::Instant;

use mnemo_text::merge::merge_topic;

fn file(entries: &[String]) -> String {
    format!(
        "---\nname: Big topic\ndescription: many facts\ntype: project\n---\n{}\n",
        entries.join("\n\n")
    )
}

fn main() {
    let n = 2_000;
    let base: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "Fact {i}: the service uses port {}.\nWhy: measured on day {i}.",
                8000 + i
            )
        })
        .collect();
    let side = |parity: usize, tag: &str| -> Vec<String> {
        let mut out: Vec<String> = base
            .iter()
            .enumerate()
            .map(|(i, e)| {
                if i % 2 == parity {
                    e.replace("uses port", &format!("uses port (edited by {tag})"))
                } else {
                    e.clone()
                }
            })
            .collect();
        for k in 0..50 {
            // Both sides add at the same places: a line merge cannot tell the order.
            out.insert(k * 37, format!("New fact {k} from {tag}."));
        }
        out
    };
    let (b, o, t) = (file(&base), file(&side(0, "A")), file(&side(1, "B")));
    let rounds = 20;
    let start = Instant::now();
    let mut conflicts = 0;
    for _ in 0..rounds {
        let m = merge_topic(&b, &o, &t);
        conflicts = m.conflicts.len();
        std::hint::black_box(m);
    }
    let ours = start.elapsed().as_secs_f64() * 1000.0 / f64::from(rounds);
    let body =
        |f: &str| mnemo_text::merge::entry_texts(mnemo_text::format::TopicFile::parse(f).body());
    let (eb, eo, et) = (body(&b), body(&o), body(&t));
    let start = Instant::now();
    for _ in 0..rounds {
        std::hint::black_box(mnemo_text::merge::merge_entries(&eb, &eo, &et));
    }
    let entries_only = start.elapsed().as_secs_f64() * 1000.0 / f64::from(rounds);
    println!(
        "| merge of {n} entries, 1,000 edited on each side + 50 added each | time | needs a person |"
    );
    println!("|---|---:|---|");
    println!("| Mnemo, entries only (no parsing or rendering) | {entries_only:.2} ms | |");
    println!(
        "| Mnemo (entry level) | {ours:.2} ms | {} |",
        if conflicts == 0 {
            "no".to_owned()
        } else {
            format!("{conflicts} conflicts")
        }
    );
    let dir = tempfile::tempdir().unwrap();
    let (pb, po, pt) = (
        dir.path().join("base"),
        dir.path().join("ours"),
        dir.path().join("theirs"),
    );
    std::fs::write(&pb, &b).unwrap();
    std::fs::write(&pt, &t).unwrap();
    let mut hunks = 0;
    let start = Instant::now();
    let mut ran = 0;
    for _ in 0..rounds {
        std::fs::write(&po, &o).unwrap();
        let Ok(out) = Command::new("git")
            .arg("merge-file")
            .arg("-p")
            .arg(&po)
            .arg(&pb)
            .arg(&pt)
            .output()
        else {
            break;
        };
        ran += 1;
        hunks = String::from_utf8_lossy(&out.stdout)
            .matches("<<<<<<<")
            .count();
    }
    if ran == 0 {
        println!("| git merge-file (line level) | not run: git not found | |");
        return;
    }
    let git = start.elapsed().as_secs_f64() * 1000.0 / f64::from(ran);
    println!(
        "| git merge-file (line level, a process per merge) | {git:.2} ms | {} |",
        if hunks == 0 {
            "no".to_owned()
        } else {
            format!("{hunks} conflict hunks")
        }
    );
}
