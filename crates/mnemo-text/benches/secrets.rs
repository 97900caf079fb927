//! The secret gate against a corpus, beside the older ten rules in one run: the
//! share of secrets caught (every shape `tests/store/secrets_corpus.rs` makes, five bodies each,
//! three sentences each) and the share of ordinary text flagged (its hand-written sentences,
//! plus LoCoMo's conversation turns and observations from `../shared/bench-data/locomo10.json`
//! or `$LOCOMO_PATH` when present — read, never copied), and the scan's speed.
//!
//! `cargo bench -p mnemo-text --bench secrets`

#![allow(clippy::unwrap_used, clippy::cast_precision_loss)]

use std::time::Instant;

use regex::Regex;

#[path = "../tests/text/secrets_corpus.rs"]
#[allow(dead_code, unused_imports)]
mod corpus;

/// The ten rules the gate had before, as they were, for the baseline column.
#[rustfmt::skip]
const BEFORE: &[(&str, &str)] = &[
    (
        "private_key",
        r"-----BEGIN[ \t]+(?:(?:RSA|EC|DSA|OPENSSH|PGP|ENCRYPTED)[ \t]+)?PRIVATE[ \t]+KEY(?:[ \t]+BLOCK)?-----",
    ),
    (
        "anthropic_api_key",
        r"(?:^|[^A-Za-z0-9])(sk-ant-[A-Za-z0-9_\-]{20,})",
    ),
    (
        "openai_api_key",
        r"(?:^|[^A-Za-z0-9])(sk-(?:proj-|svcacct-)?[A-Za-z0-9_\-]{20,})",
    ),
    // Not `\b`: `aws_AKIA…` has a word character before the key.
    (
        "aws_access_key_id",
        r"(?:^|[^A-Za-z0-9])((?:AKIA|ASIA)[0-9A-Z]{16})(?:[^A-Za-z0-9]|$)",
    ),
    (
        "github_token",
        r"(?:^|[^A-Za-z0-9])((?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}))",
    ),
    (
        "google_api_key",
        r"(?:^|[^A-Za-z0-9])(AIza[0-9A-Za-z_\-]{35})",
    ),
    (
        "slack_token",
        r"(?:^|[^A-Za-z0-9])(xox[abprs]-[A-Za-z0-9\-]{10,})",
    ),
    (
        "stripe_key",
        r"(?:^|[^A-Za-z0-9])([rs]k_live_[A-Za-z0-9]{20,})",
    ),
    (
        "jwt",
        r"(?:^|[^A-Za-z0-9])(eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,})",
    ),
    (
        "assigned_secret",
        r#"(?i)(?:^|[^a-z0-9])(?:api[_\- ]?key|secret(?:[_\- ]?access)?[_\- ]?key|secret|access[_\- ]?token|auth[_\- ]?token|password|passwd)["']?(?:\s*[:=]|\s+is)\s*["']?([A-Za-z0-9_\-+/=]{16,})"#,
    ),
];

fn before(text: &str) -> bool {
    use std::sync::OnceLock;
    static R: OnceLock<Vec<Regex>> = OnceLock::new();
    R.get_or_init(|| BEFORE.iter().map(|(_, r)| Regex::new(r).unwrap()).collect())
        .iter()
        .any(|r| text.lines().any(|l| r.is_match(l)))
}

fn now(text: &str) -> bool {
    !mnemo_text::secrets::scan(text).is_empty()
}

fn locomo() -> Vec<String> {
    let path = std::env::var_os("LOCOMO_PATH").map_or_else(
        || {
            std::path::PathBuf::from(format!(
                "{}/../../../shared/bench-data/locomo10.json",
                manifest_dir()
            ))
        },
        std::path::PathBuf::from,
    );
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!(
            "(LoCoMo not found at {}: hand-written sentences only)",
            path.display()
        );
        return Vec::new();
    };
    let data: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let mut out = Vec::new();
    for conv in data.as_array().unwrap() {
        for (k, v) in conv["conversation"].as_object().unwrap() {
            if k.starts_with("session_")
                && let Some(turns) = v.as_array()
            {
                out.extend(
                    turns
                        .iter()
                        .filter_map(|t| t["text"].as_str().map(str::to_owned)),
                );
            }
        }
        for sess in conv["observation"].as_object().unwrap().values() {
            for facts in sess.as_object().unwrap().values() {
                for f in facts.as_array().unwrap() {
                    if let Some(t) = f[0].as_str() {
                        out.push(t.to_owned());
                    }
                }
            }
        }
    }
    out
}

fn main() {
    let mut secrets = Vec::new();
    for seed in 1..=5u64 {
        for s in corpus::secrets(seed) {
            secrets.push(s.clone());
            secrets.push(format!("Note for later: {s}"));
            secrets.push(format!("remember this\n{s}\nthanks"));
        }
    }
    let mut ordinary: Vec<String> = corpus::ORDINARY.iter().map(|s| (*s).to_owned()).collect();
    ordinary.extend(locomo());
    let rate = |f: fn(&str) -> bool, set: &[String]| set.iter().filter(|t| f(t)).count();
    println!(
        "secret gate: {} secrets ({} shapes × 5 bodies × 3 sentences), {} ordinary texts",
        secrets.len(),
        secrets.len() / 15,
        ordinary.len()
    );
    println!("{:<34} {:>14} {:>14}", "", "before (10)", "now");
    let (cb, cn) = (rate(before, &secrets), rate(now, &secrets));
    println!(
        "{:<34} {:>13.1}% {:>13.1}%",
        "secrets caught",
        100.0 * cb as f64 / secrets.len() as f64,
        100.0 * cn as f64 / secrets.len() as f64
    );
    let (fb, fn_) = (rate(before, &ordinary), rate(now, &ordinary));
    println!(
        "{:<34} {:>13.2}% {:>13.2}%   ({fb} / {fn_} of {})",
        "ordinary texts flagged",
        100.0 * fb as f64 / ordinary.len() as f64,
        100.0 * fn_ as f64 / ordinary.len() as f64,
        ordinary.len()
    );
    for t in ordinary.iter().filter(|t| now(t)).take(10) {
        println!("  flagged now: {t}");
    }
    let text = ordinary.join("\n");
    let (t0, _) = (Instant::now(), before(&text));
    let b = t0.elapsed();
    let t1 = Instant::now();
    let _ = mnemo_text::secrets::scan(&text);
    let n = t1.elapsed();
    let mb = text.len() as f64 / 1e6;
    println!(
        "{:<34} {:>12.1}ms {:>12.1}ms   ({mb:.1} MB)",
        "scan of all ordinary text",
        b.as_secs_f64() * 1e3,
        n.as_secs_f64() * 1e3
    );
}

/// This crate's folder, read when the bench runs (cargo sets it): a binary built from another
/// checkout sharing the target dir must not reach into that checkout's files.
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned())
}
