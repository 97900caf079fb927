//! The calibrated gate (`gate_model.rs`) fit on the **train** queries of h5, h25
//! and h60 (`-- --10k`: and h10k) and judged on the **held-out** ones, beside each signal alone.
//!
//! A sample is one (query, id) of a home: the id's document (a memory, or the chunk of a record
//! that stands highest above the query's background) and its features; it answers when the id
//! is expected. The threshold is the lowest probability at or below which ≥ 97 % of the train
//! no-result queries' best documents lie. Each signal alone is judged the same way: its
//! background z of the best document, thresholded on train. With `--fit` the gate is written to
//! `gate.json` beside it.

#![allow(clippy::cast_precision_loss)]

use std::collections::HashMap;
use std::fmt::Write as _;

use super::gate_model::{
    self as gate, Gate, N_FEATURES, Null, SIGNAL_NAMES, SIGNALS, SignalScores,
};
use mnemo_embed::e5::Role;

use super::signals::{Models, Vectors, auc, documents, pct, quiet_threshold, raw};
use super::{Kind, Query, Split, home, queries};

/// The L2 penalty on the standardised weights.
const L2: f64 = 1.0;

/// Ids of a train query the gate learns from: those standing highest above the background (the
/// decisions a threshold makes are among them; the far ones teach nothing).
const HARD: usize = 8;

/// How high a document stands above the background over the signals there.
fn lift(x: &[f64; N_FEATURES]) -> f64 {
    (0..SIGNALS).map(|s| x[s * 3]).sum()
}

/// One (query, id): its features and whether the id answers the query.
struct Sample {
    x: [f64; N_FEATURES],
    answers: bool,
}

/// One query's samples, best first by nothing in particular (order of ids).
struct Asked {
    query: Query,
    ids: Vec<(String, Sample)>,
}

/// The columns scored per query: the gate's probability, then each signal's background z.
const COLUMNS: usize = SIGNALS + 1;

fn column_name(c: usize) -> &'static str {
    if c == SIGNALS {
        "gate"
    } else {
        SIGNAL_NAMES[c]
    }
}

fn score(c: usize, g: Option<&Gate>, x: &[f64; N_FEATURES]) -> f64 {
    if c == SIGNALS {
        g.map_or(0.0, |g| g.probability(x))
    } else {
        x[c * 3]
    }
}

/// Every query of `home_id` with its samples.
fn ask(
    models: &Models,
    home_id: &str,
    background: &[Vectors],
    passages: &mut HashMap<String, Vectors>,
    asked: &mut HashMap<String, Vectors>,
) -> Vec<Asked> {
    let h = home(home_id);
    let docs = documents(&h);
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    models.fill(passages, &texts, Role::Passage, home_id);
    let qs = queries(home_id, None);
    let qtexts: Vec<&str> = qs.iter().map(|q| q.query.as_str()).collect();
    models.fill(asked, &qtexts, Role::Query, home_id);
    let present = models.present();
    let tokens: Vec<String> = docs
        .iter()
        .map(|d| mnemo_store::tokenize::index_tokens(&d.text))
        .collect();
    qs.into_iter()
        .map(|q| {
            let qv = &asked[&q.query];
            let cols: Vec<[Vec<f64>; 2]> = (0..SIGNALS)
                .map(|s| {
                    let of = |ds: &mut dyn Iterator<Item = &Vectors>| -> Vec<f64> {
                        ds.map(|d| f64::from(raw(qv, d)[s].unwrap_or(0.0)))
                            .collect()
                    };
                    [
                        of(&mut docs.iter().map(|d| &passages[&d.text])),
                        of(&mut background.iter()),
                    ]
                })
                .collect();
            let signals: [Option<SignalScores<'_>>; SIGNALS] = std::array::from_fn(|s| {
                present[s].then(|| SignalScores {
                    docs: &cols[s][0],
                    null: Null::of(&cols[s][1]).unwrap_or(Null { mean: 0.0, sd: 1.0 }),
                })
            });
            let terms = gate::content_terms(&q.query);
            let lexical: Vec<f64> = tokens.iter().map(|t| gate::coverage(&terms, t)).collect();
            let xs = gate::features(&signals, &lexical);
            // Per id, its document standing highest above the background.
            let mut best: HashMap<&str, [f64; N_FEATURES]> = HashMap::new();
            for (d, x) in docs.iter().zip(xs) {
                let e = best.entry(d.id.as_str()).or_insert(x);
                if lift(&x) > lift(e) {
                    *e = x;
                }
            }
            let mut ids: Vec<(String, Sample)> = best
                .into_iter()
                .map(|(id, x)| {
                    let answers = q.expected.iter().any(|e| e == id);
                    (id.to_owned(), Sample { x, answers })
                })
                .collect();
            ids.sort_by(|a, b| a.0.cmp(&b.0));
            Asked { query: q, ids }
        })
        .collect()
}

/// A query's ids ranked by column `c`: (score, answers), best first.
fn ranked(a: &Asked, c: usize, g: Option<&Gate>) -> Vec<(f64, bool)> {
    let mut r: Vec<(f64, bool)> = a
        .ids
        .iter()
        .map(|(_, s)| (score(c, g, &s.x), s.answers))
        .collect();
    r.sort_by(|x, y| y.0.total_cmp(&x.0));
    r
}

/// The threshold of column `c` from the train queries' no-result best scores.
fn threshold(train: &[&Asked], c: usize, g: Option<&Gate>) -> f64 {
    let neg: Vec<f64> = train
        .iter()
        .filter(|a| a.query.kind == Kind::NoResult)
        .filter_map(|a| ranked(a, c, g).first().map(|x| x.0))
        .collect();
    quiet_threshold(&neg).unwrap_or(f64::INFINITY)
}

/// What column `c` gives on some queries at threshold `t`.
struct Judged {
    auc: Option<f64>,
    quiet: (usize, usize),
    /// Paraphrase + indirect: an answer in the top 3 and above `t`.
    pi: (usize, usize),
    /// Every answerable query: an answer in the top 3 and above `t`.
    all: (usize, usize),
}

fn judge(qs: &[&Asked], c: usize, g: Option<&Gate>, t: f64) -> Judged {
    let mut pos = Vec::new();
    let mut neg = Vec::new();
    let (mut quiet, mut nr, mut pi, mut npi, mut all, mut nall) = (0, 0, 0, 0, 0, 0);
    for a in qs {
        let r = ranked(a, c, g);
        let top = r.first().map_or(f64::NEG_INFINITY, |x| x.0);
        if a.query.kind == Kind::NoResult {
            neg.push(top);
            nr += 1;
            quiet += usize::from(top <= t);
            continue;
        }
        pos.push(top);
        let hit = r.iter().take(3).any(|(s, ans)| *ans && *s > t);
        nall += 1;
        all += usize::from(hit);
        if matches!(a.query.kind, Kind::Paraphrase | Kind::Indirect) {
            npi += 1;
            pi += usize::from(hit);
        }
    }
    Judged {
        auc: auc(&pos, &neg),
        quiet: (quiet, nr),
        pi: (pi, npi),
        all: (all, nall),
    }
}

/// Fit the gate on the train queries, judge it and each signal on both halves, print the tables;
/// with `write`, save the gate to `gate.json`.
pub fn run(with_10k: bool, write: bool) {
    println!("\n## The calibrated gate: fit on train, judged on held-out\n");
    let models = Models::load();
    for n in &models.notes {
        println!("note: {n}");
    }
    let present = models.present();
    if !present.iter().any(|p| *p) {
        println!("no model is installed: the gate is not fit");
        return;
    }
    let mut bg_cache = HashMap::new();
    let bg_texts = mnemo_embed::background::passages(|_| true);
    models.fill(&mut bg_cache, &bg_texts, Role::Passage, "background");
    let background: Vec<Vectors> = bg_texts.iter().map(|t| bg_cache[*t].clone()).collect();
    let mut homes = vec!["h5", "h25", "h60"];
    if with_10k {
        homes.push("h10k");
    }
    let mut passages = HashMap::new();
    let mut asked_cache = HashMap::new();
    let asked: Vec<(&str, Vec<Asked>)> = homes
        .iter()
        .map(|h| {
            (
                *h,
                ask(&models, h, &background, &mut passages, &mut asked_cache),
            )
        })
        .collect();
    let train: Vec<&Asked> = asked
        .iter()
        .flat_map(|(_, qs)| qs.iter().filter(|a| a.query.split == Split::Train))
        .collect();
    let (xs, ys): (Vec<[f64; N_FEATURES]>, Vec<bool>) = train
        .iter()
        .flat_map(|a| {
            let mut near: Vec<&Sample> = a.ids.iter().map(|(_, s)| s).collect();
            near.sort_by(|x, y| lift(&y.x).total_cmp(&lift(&x.x)));
            near.truncate(HARD);
            near.into_iter().map(|s| (s.x, s.answers))
        })
        .unzip();
    let mut g = gate::fit(&xs, &ys, L2);
    g.signals = present;
    g.threshold = threshold(&train, SIGNALS, Some(&g));
    g.fit_on = format!(
        "recall eval train queries of {} ({} queries, {} samples, {} answering), L2 {L2}; \
         threshold: ≥ 97 % of the train no-result queries quiet",
        homes.join(", "),
        train.len(),
        xs.len(),
        ys.iter().filter(|y| **y).count()
    );
    println!("fit on {}", g.fit_on);
    println!("\n| feature | weight (standardised) |\n|---|---|");
    for (f, w) in g.features.iter().zip(&g.weights) {
        println!("| {f} | {w:+.3} |");
    }
    println!("| bias | {:+.3} |\nthreshold: {:.4}", g.bias, g.threshold);
    let thresholds: [f64; COLUMNS] = std::array::from_fn(|c| threshold(&train, c, Some(&g)));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n| home | half | measure | {} |",
        (0..COLUMNS)
            .map(column_name)
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(out, "|---|---|---|{}", "---|".repeat(COLUMNS));
    for (h, qs) in &asked {
        for split in [Split::Train, Split::Heldout] {
            let half: Vec<&Asked> = qs.iter().filter(|a| a.query.split == split).collect();
            let judged: Vec<Option<Judged>> = (0..COLUMNS)
                .map(|c| {
                    (c == SIGNALS || present[c]).then(|| judge(&half, c, Some(&g), thresholds[c]))
                })
                .collect();
            let name = if split == Split::Train {
                "train"
            } else {
                "held-out"
            };
            let mut row = |what: &str, f: &dyn Fn(&Judged) -> String| {
                let cells: Vec<String> = judged
                    .iter()
                    .map(|j| j.as_ref().map_or_else(|| "skipped".to_owned(), f))
                    .collect();
                let _ = writeln!(out, "| {h} | {name} | {what} | {} |", cells.join(" | "));
            };
            row("AUC best, answerable vs no-result", &|j| {
                j.auc.map_or_else(|| "–".to_owned(), |a| format!("{a:.3}"))
            });
            row("no-result quiet", &|j| {
                format!(
                    "{} ({}/{})",
                    pct(j.quiet.0, j.quiet.1),
                    j.quiet.0,
                    j.quiet.1
                )
            });
            row("paraphrase+indirect hit@3 above it", &|j| {
                format!("**{}** ({}/{})", pct(j.pi.0, j.pi.1), j.pi.0, j.pi.1)
            });
            row("every answerable kind hit@3 above it", &|j| {
                format!("{} ({}/{})", pct(j.all.0, j.all.1), j.all.0, j.all.1)
            });
        }
    }
    print!("{out}");
    let held: Vec<&Asked> = asked
        .iter()
        .flat_map(|(_, qs)| qs.iter().filter(|a| a.query.split == Split::Heldout))
        .collect();
    print!("{}", curve(&held, &g));
    if write {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/recall_eval/gate.json");
        let json = serde_json::to_string_pretty(&g).expect("a gate serialises");
        std::fs::write(path, json + "\n").expect("gate.json is writable");
        println!("\nwrote {path}");
    }
}

/// The held-out trade-off of the gate: for each threshold at a no-result query's best
/// probability, how many no-result queries stay quiet and how many paraphrase + indirect ones
/// find an answer in the top 3 above it.
fn curve(held: &[&Asked], g: &Gate) -> String {
    let mut ts: Vec<f64> = held
        .iter()
        .filter(|a| a.query.kind == Kind::NoResult)
        .filter_map(|a| ranked(a, SIGNALS, Some(g)).first().map(|x| x.0))
        .collect();
    ts.sort_by(f64::total_cmp);
    ts.dedup();
    // The top of the curve, then no threshold at all: what the ranking alone reaches.
    let mut ts: Vec<f64> = ts.into_iter().rev().take(11).rev().collect();
    ts.insert(0, f64::NEG_INFINITY);
    let mut s = String::from(
        "\n### The gate's held-out curve (every home)\n\n| threshold | no-result quiet | paraphrase+indirect hit@3 above it |\n|---|---|---|\n",
    );
    for t in &ts {
        let j = judge(held, SIGNALS, Some(g), *t);
        let _ = writeln!(
            s,
            "| {} | {} ({}/{}) | {} ({}/{}) |",
            if t.is_finite() {
                format!("{t:.4}")
            } else {
                "none (the ranking alone)".to_owned()
            },
            pct(j.quiet.0, j.quiet.1),
            j.quiet.0,
            j.quiet.1,
            pct(j.pi.0, j.pi.1),
            j.pi.0,
            j.pi.1
        );
    }
    s
}
