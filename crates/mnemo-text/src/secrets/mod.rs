//! Secret scanning, the one secret gate. Content is scanned before any write Mnemo
//! makes; a hit refuses it, and the error names the rule that matched and where, never the secret
//! itself. Text Mnemo keeps that is not a memory write (compaction summaries, chat titles, task
//! summaries) is [`redact`]ed instead: each secret replaced by `[redacted: rule]`. Files other
//! programs write are kept as they are on disk, but what Mnemo stores or hands out about them
//! (index text, journal rows, reads, prompts) is redacted or withheld ([`held`]).

mod pem;
mod stream;

pub use stream::StreamRedactor;

use std::collections::HashSet;
use std::sync::OnceLock;

use regex::{Regex, RegexSet, RegexSetBuilder};

/// One match: which rule, at which line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretHit {
    /// Rule name, e.g. `openai_api_key`.
    pub rule: &'static str,
    /// 1-based line of the match.
    pub line: usize,
}

mod rules;

use rules::Check;

type Compiled = (&'static str, Option<Regex>, Option<Check>);

/// The rules, compiled, in [`rules::all`]' order (the set's indices).
fn compiled() -> &'static [Compiled] {
    static C: OnceLock<Vec<Compiled>> = OnceLock::new();
    C.get_or_init(|| {
        rules::all()
            .iter()
            .map(|(name, re, check)| (*name, Regex::new(re).ok(), *check))
            .collect()
    })
}

/// The secret a match names (its capture `v`, else its first capture, else all of it), if it
/// passes its rule's check (given the capture `n`, the name the secret was given).
fn secret_of<'t>(c: &regex::Captures<'t>, check: Option<Check>) -> Option<regex::Match<'t>> {
    let name = c.name("n").map_or("", |m| m.as_str());
    c.name("v")
        .or_else(|| c.get(1))
        .or_else(|| c.get(0))
        .filter(|m| check.is_none_or(|f| f(m.as_str(), name)))
}

/// All rules at once, over a whole text: one pass that rules out almost every text. It matches
/// wherever a line would (a line's start and end are non-alphanumeric in the whole text), so it
/// only ever lets through more. Its lazy DFA gets room for a hundred rules' states: at the
/// default 2 MiB it kept clearing its cache and fell back to a slower engine (20× slower
/// over the Python standard library's 10 MB); the cache grows only as states are needed.
fn any_rule() -> &'static RegexSet {
    static S: OnceLock<RegexSet> = OnceLock::new();
    S.get_or_init(|| {
        RegexSetBuilder::new(rules::all().iter().map(|(_, re, _)| *re))
            .dfa_size_limit(16 << 20)
            .build()
            .unwrap_or_else(|_| RegexSet::empty())
    })
}

/// Every rule that matches, with its line (one hit per rule and line).
#[must_use]
pub fn scan(text: &str) -> Vec<SecretHit> {
    scan_marked(text).into_iter().map(|(h, _)| h).collect()
}

/// [`scan`], each hit with a mark of *which* secret it is: a hash of the text the rule matched on
/// that line (of the whole block for a key). Two hits of one rule with one mark are the same
/// secret; the write gate uses it to tell a secret kept from one swapped for another.
pub fn scan_marked(text: &str) -> Vec<(SecretHit, u64)> {
    let mut hits = Vec::new();
    let mut seen = HashSet::new();
    // A key block is a secret over many lines: each is a hit at the line its key starts.
    let blocks = pem::spans(text);
    // Every file of every sync passes here: most hold nothing.
    if blocks.is_empty() && !any_rule().is_match(text) {
        return hits;
    }
    // Blocks first, so a key's first line is marked by its whole block (a rule for that line
    // alone would call two keys with one first line the same). Blocks come in order: count
    // lines from one to the next.
    let (mut pos, mut line) = (0, 1);
    for b in &blocks {
        line += text.as_bytes()[pos..b.at]
            .iter()
            .filter(|&&c| c == b'\n')
            .count();
        pos = b.at;
        if seen.insert((line, b.rule)) {
            hits.push((
                SecretHit { rule: b.rule, line },
                mark(&[&text[b.range.clone()]]),
            ));
        }
    }
    for (i, line) in text.lines().enumerate() {
        // The set says which rules match the line at all; only those run, and only a rule with
        // a check looks at its captures.
        for at in any_rule().matches(line).iter() {
            let (rule, Some(re), check) = &compiled()[at] else {
                continue;
            };
            let found: Vec<&str> = re
                .captures_iter(line)
                .filter_map(|c| secret_of(&c, *check).map(|m| m.as_str()))
                .collect();
            if !found.is_empty() && seen.insert((i + 1, *rule)) {
                hits.push((SecretHit { rule, line: i + 1 }, mark(&found)));
            }
        }
    }
    hits.sort_by_key(|(h, _)| h.line);
    hits
}

/// Which secret(s) a hit is: a hash of the matched texts, in the order found.
fn mark(found: &[&str]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    found.hash(&mut h);
    h.finish()
}

/// `text` with every secret replaced by `[redacted: rule]`, and what was found. Where a rule
/// marks the secret itself (a capture group), only that part is replaced; a key block is
/// replaced whole, from its first line to its last (or to the end of the text when its last
/// line is missing), and so is a key's body left after a mark of its first line.
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
        if let Some(whole) = pem::redact(&out) {
            out = whole;
        }
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

    const KEY_BODY: &str = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\nLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo";

    /// No run of 8 characters of the key's body is left in `out`.
    fn no_body_in(out: &str) {
        for line in KEY_BODY.lines() {
            for at in 0..line.len() - 8 {
                assert!(
                    !out.contains(&line[at..at + 8]),
                    "{} left in {out}",
                    &line[at..at + 8]
                );
            }
        }
    }

    #[test]
    fn a_private_key_is_redacted_whole_not_by_its_first_line() {
        let text = format!(
            "my key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n{KEY_BODY}\n-----END OPENSSH PRIVATE KEY-----\nthanks"
        );
        let (out, hits) = redact(&text);
        assert_eq!(out, "my key:\n[redacted: private_key]\nthanks");
        assert_eq!(
            hits,
            vec![SecretHit {
                rule: "private_key",
                line: 2
            }]
        );
        // Cut short: to the end of the text.
        let cut = format!("-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}\nand a note after it");
        assert_eq!(redact(&cut).0, "[redacted: private_key]");
        // Lines joined by spaces, or by `\n` in a JSON string.
        let flat = format!(
            "key -----BEGIN EC PRIVATE KEY----- {} -----END EC PRIVATE KEY----- ok",
            KEY_BODY.replace('\n', " ")
        );
        assert_eq!(redact(&flat).0, "key [redacted: private_key] ok");
        let json = format!(
            "{{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{}\\n-----END PRIVATE KEY-----\\n\"}}",
            KEY_BODY.replace('\n', "\\n")
        );
        assert_eq!(
            redact(&json).0,
            "{\"private_key\": \"[redacted: private_key]\\n\"}"
        );
        for t in [&text, &cut, &flat, &json] {
            let out = redact(t).0;
            no_body_in(&out);
            assert!(scan(&out).is_empty(), "{out}");
            assert_eq!(redact(&out).0, out, "redaction is stable");
        }
    }

    #[test]
    fn a_body_a_first_line_redaction_left_behind_is_flagged_and_removed() {
        // What a conversation record held before key blocks were redacted whole.
        let old = format!(
            "10:02 — here: [redacted: private_key]\n{KEY_BODY}\n-----END OPENSSH PRIVATE KEY-----\n10:03 — thanks"
        );
        let hits = scan(&old);
        assert!(
            hits.iter().any(|h| h.rule == "private_key" && h.line == 2),
            "{hits:?}"
        );
        assert_eq!(held(&old).as_deref(), Some("private_key (line 2)"));
        let msg = describe(&hits);
        assert!(msg.contains("private_key (line 2)"));
        no_body_in(&msg);
        let out = redact(&old).0;
        assert_eq!(out, "10:02 — here: [redacted: private_key]\n10:03 — thanks");
        // A body whose first line went elsewhere (a text cut into entries): up to its last line.
        let orphan = format!("{KEY_BODY}\n-----END RSA PRIVATE KEY-----\nnext entry");
        assert!(!scan(&orphan).is_empty());
        assert_eq!(redact(&orphan).0, "[redacted: private_key]\nnext entry");
        // The mark alone is clean; a public key or certificate is no secret.
        assert!(scan("[redacted: private_key] and the rest").is_empty());
        let cert = format!("-----BEGIN CERTIFICATE-----\n{KEY_BODY}\n-----END CERTIFICATE-----");
        assert!(scan(&cert).is_empty());
    }

    #[test]
    fn the_description_never_echoes_the_secret() {
        let secret = "sk-proj-abcdefghijklmnopqrstuvwx1234";
        let msg = describe(&scan(secret));
        assert!(msg.contains("openai_api_key"));
        assert!(!msg.contains("abcdefghij"));
    }
}
