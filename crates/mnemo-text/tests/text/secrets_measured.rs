//! The secret gate, measured: a generated corpus — no real secret in it — of secrets
//! in every shape we know (`providers.rs`: tokens by their published formats; `shapes.rs`: key files,
//! `NAME=value`, `.netrc`, `.pgpass`, docker config, URLs and commands with credentials, CJK
//! words for password with full-width colons) and of ordinary technical text (`ordinary.rs`:
//! code reading secrets from the environment, placeholders, hashes, UUIDs, pod and file names,
//! public keys, LoCoMo-like sentences). A secret is caught when `scan` flags its text and
//! `redact` leaves no run of it; an ordinary text is a false positive when `scan` flags it.
//!
//! `cargo test -p mnemo-store --test store secrets_measured -- --nocapture` prints the figures.

mod ordinary;
mod providers;
mod rng;
mod shapes;

use std::collections::{BTreeMap, HashSet};

use mnemo_text::secrets::{redact, scan};

use rng::Gen;

/// Every secret kind: providers', then the others.
fn kinds() -> impl Iterator<Item = &'static (&'static str, shapes::Make)> {
    providers::KINDS.iter().chain(shapes::KINDS)
}

/// Bodies made of each kind.
const PER_KIND: u64 = 5;
/// Distinct ordinary texts.
const ORDINARY: usize = 3_600;

/// The sentences a secret is pasted in.
fn context(i: u64, s: &str) -> String {
    match i % 5 {
        0 => s.to_owned(),
        1 => format!("Here it is: {s}"),
        2 => format!("remember this\n{s}\nthanks"),
        3 => format!("Note for later — {s} (staging)"),
        _ => format!("> {s}\n\nok, saved"),
    }
}

/// Whether `out` still holds part of `secret`: the secret itself, or any run of 12 or more
/// letters and digits from it.
fn leaks(out: &str, secret: &str) -> bool {
    out.contains(secret)
        || secret
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|p| p.len() >= 12)
            .any(|p| (0..=p.len() - 12).any(|at| out.contains(&p[at..at + 12])))
}

pub struct Figures {
    pub secrets: usize,
    pub kinds: usize,
    pub caught: usize,
    /// Kind → (missed, made, the first text missed: generated, never a real secret).
    pub missed: BTreeMap<&'static str, (usize, usize, String)>,
    pub ordinary: usize,
    pub flagged: Vec<(String, String)>,
}

pub fn measure() -> Figures {
    let mut f = Figures {
        secrets: 0,
        kinds: kinds().count(),
        caught: 0,
        missed: BTreeMap::new(),
        ordinary: 0,
        flagged: Vec::new(),
    };
    for (k, (kind, make)) in kinds().enumerate() {
        for i in 0..PER_KIND {
            let mut g = Gen::new(1_000 * k as u64 + i);
            let (text, secret) = make(&mut g);
            let text = context(i, &text);
            f.secrets += 1;
            let (out, hits) = redact(&text);
            if !scan(&text).is_empty() && !hits.is_empty() && !leaks(&out, &secret) {
                f.caught += 1;
            } else {
                f.missed
                    .entry(kind)
                    .or_insert((0, PER_KIND as usize, text.clone()))
                    .0 += 1;
            }
        }
    }
    let texts = ordinary::ordinary(ORDINARY);
    f.ordinary = texts.len();
    for t in texts {
        let hits = scan(&t);
        if !hits.is_empty() {
            let rules: Vec<_> = hits.iter().map(|h| h.rule).collect();
            f.flagged.push((t, rules.join(",")));
        }
    }
    f
}

#[test]
fn the_secret_gate_catches_97_percent_and_flags_at_most_half_a_percent() {
    let f = measure();
    let caught = 100.0 * f.caught as f64 / f.secrets as f64;
    let fp = 100.0 * f.flagged.len() as f64 / f.ordinary as f64;
    println!(
        "secret gate, measured: {} secrets over {} kinds, {} ordinary texts",
        f.secrets, f.kinds, f.ordinary
    );
    println!("  caught: {caught:.1}% ({} of {})", f.caught, f.secrets);
    println!(
        "  false positives: {fp:.2}% ({} of {})",
        f.flagged.len(),
        f.ordinary
    );
    println!("  kinds missed ({}):", f.missed.len());
    for (kind, (missed, made, text)) in &f.missed {
        println!(
            "    {kind}: {missed} of {made}, e.g. {}",
            text.replace('\n', "⏎")
        );
    }
    for (t, rules) in f.flagged.iter().take(40) {
        println!("  flagged [{rules}]: {}", t.replace('\n', "⏎"));
    }
    assert!(
        f.secrets >= 300 && f.kinds >= 60,
        "{} / {}",
        f.secrets,
        f.kinds
    );
    assert!(f.ordinary >= 3_000, "{}", f.ordinary);
    assert!(
        caught >= 97.0,
        "caught {caught:.1}%: {:?}",
        f.missed.keys().collect::<Vec<_>>()
    );
    assert!(fp <= 0.5, "false positives {fp:.2}%");
}

#[test]
fn the_ordinary_texts_are_distinct_and_the_corpus_is_the_same_every_run() {
    let a = ordinary::ordinary(ORDINARY);
    assert_eq!(a.iter().collect::<HashSet<_>>().len(), a.len());
    assert_eq!(a, ordinary::ordinary(ORDINARY));
    let mut g = Gen::new(7);
    let mut h = Gen::new(7);
    for (_, make) in kinds() {
        assert_eq!(make(&mut g), make(&mut h));
    }
}
