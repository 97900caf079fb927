//! Recall eval: homes of 5, 25, 60 and 10,000 memories in five languages, with
//! conversation records, and queries of ten kinds split into a training half and a held-out half
//! (`benches/recall_eval/`, described in its README.md). It checks the data against the rules it
//! was written to (`recall_eval::check`) and prints its counts, under `cargo test` (`cargo test
//! -p mnemo-engine --bench recall_eval`) and under `cargo bench -p mnemo-engine --bench
//! recall_eval` alike. Under `cargo bench` it then measures the three meaning signals and their
//! z-scored sum on the train queries of h5, h25 and h60 (`recall_eval::signals`; `-- --10k` adds
//! h10k); under `cargo test` it checks that scoring on made-up numbers, without a model.

use std::fmt::Write as _;

use recall_eval::{HOMES, Home, Kind, LANGS, Query, Split, home, queries};

#[path = "recall_eval/mod.rs"]
mod recall_eval;

fn main() {
    let big = recall_eval::check::run();
    println!("recall eval data: every rule holds\n\n{}", counts(&big));
    println!("Every thousandth memory of h10k:");
    for m in big.memories.iter().step_by(1000) {
        println!(
            "  {} [{}, {}] {}: {}",
            m.id, m.lang, m.memory_type, m.name, m.body
        );
    }
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--bench") {
        let with_10k = args.iter().any(|a| a == "--10k");
        let fit = args.iter().any(|a| a == "--fit");
        if !fit && !args.iter().any(|a| a == "--gate") {
            recall_eval::signals::run(with_10k);
        }
        recall_eval::gate::run(with_10k, fit);
    } else {
        recall_eval::signals::self_check();
        println!(
            "note: the meaning signals are measured under `cargo bench -p mnemo-engine --bench \
             recall_eval` (`-- --10k` for h10k too), with the models installed"
        );
    }
}

/// Memories, records and queries of each home; queries by kind and by language, train / held out.
fn counts(big: &Home) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| home | memories (en/pt/zh/ja/de) | records | queries | train | held out |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for id in HOMES {
        let h = if id == "h10k" { big.clone() } else { home(id) };
        let by_lang: Vec<String> = LANGS
            .iter()
            .map(|l| {
                h.memories
                    .iter()
                    .filter(|m| m.lang == *l)
                    .count()
                    .to_string()
            })
            .collect();
        let qs = queries(id, None);
        let train = qs.iter().filter(|q| q.split == Split::Train).count();
        let _ = writeln!(
            s,
            "| {id} | {} ({}) | {} | {} | {train} | {} |",
            h.memories.len(),
            by_lang.join("/"),
            h.records.len(),
            qs.len(),
            qs.len() - train
        );
    }
    let _ = writeln!(
        s,
        "\n| kind | h5 train/held | h25 train/held | h60 train/held |"
    );
    let _ = writeln!(s, "|---|---|---|---|");
    let cell = |qs: &[Query]| {
        let t = qs.iter().filter(|q| q.split == Split::Train).count();
        format!("{t}/{}", qs.len() - t)
    };
    for k in Kind::ALL {
        let row: Vec<String> = ["h5", "h25", "h60"]
            .iter()
            .map(|h| {
                cell(
                    &queries(h, None)
                        .into_iter()
                        .filter(|q| q.kind == k)
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        let _ = writeln!(s, "| {} | {} |", k.name(), row.join(" | "));
    }
    for l in LANGS {
        let row: Vec<String> = ["h5", "h25", "h60"]
            .iter()
            .map(|h| {
                cell(
                    &queries(h, None)
                        .into_iter()
                        .filter(|q| q.lang == l)
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        let _ = writeln!(s, "| language {l} | {} |", row.join(" | "));
    }
    s
}
