//! Secret scanning (SPEC §4.6), the one secret gate. Content is scanned before any write Mnemo
//! makes; a hit refuses it, and the error names the rule that matched and where, never the secret
//! itself. Text Mnemo keeps that is not a memory write (compaction summaries, chat titles, task
//! summaries) is [`redact`]ed instead: each secret replaced by `[redacted: rule]`. Files other
//! programs write are kept as they are on disk, but what Mnemo stores or hands out about them
//! (index text, journal rows, reads, prompts) is redacted or withheld ([`held`]).

mod stream;

pub use stream::StreamRedactor;

use std::sync::OnceLock;

use regex::{Regex, RegexSet};

/// One match: which rule, at which line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretHit {
    /// Rule name, e.g. `openai_api_key`.
    pub rule: &'static str,
    /// 1-based line of the match.
    pub line: usize,
}

mod rules;

use rules::RULES;

type Compiled = (&'static str, Option<Regex>, Option<fn(&str) -> bool>);

/// The rules, compiled, in [`RULES`]' order (the set's indices).
fn compiled() -> &'static [Compiled] {
    static C: OnceLock<Vec<Compiled>> = OnceLock::new();
    C.get_or_init(|| {
        RULES
            .iter()
            .map(|(name, re, check)| (*name, Regex::new(re).ok(), *check))
            .collect()
    })
}

/// The secret a match names (its first capture, else all of it), if it passes its rule's check.
fn secret_of<'t>(
    c: &regex::Captures<'t>,
    check: Option<fn(&str) -> bool>,
) -> Option<regex::Match<'t>> {
    c.get(1)
        .or_else(|| c.get(0))
        .filter(|m| check.is_none_or(|f| f(m.as_str())))
}

/// All rules at once, over a whole text: one pass that rules out almost every text. It matches
/// wherever a line would (a line's start and end are non-alphanumeric in the whole text), so it
/// only ever lets through more.
fn any_rule() -> &'static RegexSet {
    static S: OnceLock<RegexSet> = OnceLock::new();
    S.get_or_init(|| {
        RegexSet::new(RULES.iter().map(|(_, re, _)| *re)).unwrap_or_else(|_| RegexSet::empty())
    })
}

/// Every rule that matches, with its line (one hit per rule and line).
#[must_use]
pub fn scan(text: &str) -> Vec<SecretHit> {
    let mut hits = Vec::new();
    // Every file of every sync passes here: most hold nothing.
    if !any_rule().is_match(text) {
        return hits;
    }
    for (i, line) in text.lines().enumerate() {
        // The set says which rules match the line at all; only those run, and only a rule with
        // a check looks at its captures.
        for at in any_rule().matches(line).iter() {
            let (rule, Some(re), check) = &compiled()[at] else {
                continue;
            };
            let hit = match check {
                None => true,
                Some(check) => re
                    .captures_iter(line)
                    .any(|c| secret_of(&c, Some(*check)).is_some()),
            };
            if hit
                && !hits
                    .iter()
                    .any(|h: &SecretHit| h.line == i + 1 && h.rule == *rule)
            {
                hits.push(SecretHit { rule, line: i + 1 });
            }
        }
    }
    hits
}

/// `text` with every secret replaced by `[redacted: rule]`, and what was found. Where a rule
/// marks the secret itself (a capture group), only that part is replaced.
#[must_use]
pub fn redact(text: &str) -> (String, Vec<SecretHit>) {
    let hits = scan(text);
    if hits.is_empty() {
        return (text.to_owned(), hits);
    }
    let mut out = text.to_owned();
    // Matches may share a separator character, so one pass can miss a neighbour: repeat until
    // nothing is left (each pass removes at least one secret).
    for _ in 0..64 {
        for (rule, re, check) in compiled() {
            let Some(re) = re else { continue };
            let mut next = String::with_capacity(out.len());
            let mut last = 0;
            for c in re.captures_iter(&out) {
                let Some(m) = secret_of(&c, *check) else {
                    continue;
                };
                next.push_str(&out[last..m.start()]);
                next.push_str(&format!("[redacted: {rule}]"));
                last = m.end();
            }
            next.push_str(&out[last..]);
            out = next;
        }
        if scan(&out).is_empty() {
            break;
        }
    }
    (out, hits)
}

/// What a text holds, for a listing: `github_token (line 3), jwt (line 9)`; `None` when clean.
#[must_use]
pub fn held(text: &str) -> Option<String> {
    let hits = scan(text);
    (!hits.is_empty()).then(|| {
        hits.iter()
            .map(|h| format!("{} (line {})", h.rule, h.line))
            .collect::<Vec<_>>()
            .join(", ")
    })
}

/// Whether a file name (a relative path) holds a secret. Every rule needs at least 8
/// characters, so shorter names are let through without running the rules (a sync checks every
/// file's name).
#[must_use]
pub fn name_holds_secret(rel: &str) -> bool {
    rel.len() >= 8 && !scan(rel).is_empty()
}

/// A refusal message naming the rules and lines, never the secret.
#[must_use]
pub fn describe(hits: &[SecretHit]) -> String {
    let parts: Vec<String> = hits
        .iter()
        .map(|h| format!("{} (line {})", h.rule, h.line))
        .collect();
    format!(
        "refused: the content looks like it holds a secret — {}. Memories must not store credentials; remove it and write again.",
        parts.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_major_providers_and_private_keys() {
        let cases = [
            (
                "key: sk-proj-abcdefghijklmnopqrstuvwx1234",
                "openai_api_key",
            ),
            (
                "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
                "anthropic_api_key",
            ),
            ("AKIAIOSFODNN7EXAMPLE", "aws_access_key_id"),
            ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github_token"),
            ("AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", "google_api_key"),
            ("xoxb-1234567890-abcdefghij", "slack_token"),
            ("-----BEGIN OPENSSH PRIVATE KEY-----", "private_key"),
            ("password = hunter2hunter2hunter2", "assigned_secret"),
            (
                "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "assigned_secret",
            ),
            ("DB_PASSWORD=correcthorsebatterystaple", "assigned_secret"),
            (
                r#"{"password": "correcthorsebatterystaple"}"#,
                "assigned_secret",
            ),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "jwt",
            ),
        ];
        for (text, rule) in cases {
            let hits = scan(&format!("first line\n{text}\n"));
            assert!(
                hits.iter().any(|h| h.rule == rule && h.line == 2),
                "{rule}: {hits:?}"
            );
        }
    }

    #[test]
    fn ordinary_memories_pass() {
        for ok in [
            "The user prefers terse answers.\nWhy: reads diffs.",
            "Grafana board: https://grafana.example/d/api-latency",
            "Use the sk-learn library for baselines",
            "password rotation happens monthly",
            "发布冻结在每月最后一周",
        ] {
            assert!(scan(ok).is_empty(), "{ok}");
        }
    }

    #[test]
    fn the_gaps_an_attacker_found_are_closed() {
        for (text, rule) in [
            ("aws_AKIAIOSFODNN7EXAMPLE", "aws_access_key_id"),
            ("key=AKIAIOSFODNN7EXAMPLE;", "aws_access_key_id"),
            (
                "the aws secret is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "stated_secret",
            ),
            ("-----BEGIN PRIVATE  KEY-----", "private_key"),
            ("-----BEGIN RSA\tPRIVATE KEY-----", "private_key"),
        ] {
            assert!(
                scan(text).iter().any(|h| h.rule == rule),
                "{rule} not found in {text}"
            );
        }
        assert!(
            scan("AKIAIOSFODNN7EXAMPLEX").is_empty(),
            "longer than a key id"
        );
        assert!(scan("the secret is out").is_empty());
    }

    #[test]
    fn redaction_removes_every_secret_and_keeps_the_rest() {
        let text = "Deploy with ghp_abcdefghijklmnopqrstuvwxyz0123456789 today;\npassword = hunter2hunter2hunter2 and aws_AKIAIOSFODNN7EXAMPLE end";
        let (out, hits) = redact(text);
        assert_eq!(hits.len(), 3, "{hits:?}");
        assert!(
            !out.contains("ghp_abc") && !out.contains("hunter2") && !out.contains("AKIAIOSFODNN7")
        );
        assert!(
            out.contains("Deploy with [redacted: github_token] today;"),
            "{out}"
        );
        assert!(
            out.contains("password = [redacted: assigned_secret]"),
            "{out}"
        );
        assert!(
            out.contains("aws_[redacted: aws_access_key_id] end"),
            "{out}"
        );
        assert!(scan(&out).is_empty());
        assert_eq!(redact("nothing here").0, "nothing here");
    }

    #[test]
    fn the_description_never_echoes_the_secret() {
        let secret = "sk-proj-abcdefghijklmnopqrstuvwx1234";
        let msg = describe(&scan(secret));
        assert!(msg.contains("openai_api_key"));
        assert!(!msg.contains("abcdefghij"));
    }
}
