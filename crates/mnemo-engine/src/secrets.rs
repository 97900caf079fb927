//! Secret scanning (SPEC §4.6): content is scanned before any agent write. A hit refuses the
//! write; the error names the rule that matched and where, never the secret itself.

use std::sync::OnceLock;

use regex::Regex;

/// One match: which rule, at which line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretHit {
    /// Rule name, e.g. `openai_api_key`.
    pub rule: &'static str,
    /// 1-based line of the match.
    pub line: usize,
}

const RULES: &[(&str, &str)] = &[
    (
        "private_key",
        r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----",
    ),
    ("anthropic_api_key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    (
        "openai_api_key",
        r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_\-]{20,}",
    ),
    ("aws_access_key_id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    (
        "github_token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})",
    ),
    ("google_api_key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    ("slack_token", r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"),
    ("stripe_key", r"\b[rs]k_live_[A-Za-z0-9]{20,}"),
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
    ),
    (
        "assigned_secret",
        r#"(?i)(?:^|[^a-z0-9])(?:api[_-]?key|secret(?:[_-]?access)?[_-]?key|secret|access[_-]?token|auth[_-]?token|password|passwd)["']?\s*[:=]\s*["']?[A-Za-z0-9_\-+/=]{16,}"#,
    ),
];

fn compiled() -> &'static [(&'static str, Regex)] {
    static C: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    C.get_or_init(|| {
        RULES
            .iter()
            .filter_map(|(name, re)| Regex::new(re).ok().map(|r| (*name, r)))
            .collect()
    })
}

/// Every rule that matches, with its line (one hit per rule and line).
#[must_use]
pub fn scan(text: &str) -> Vec<SecretHit> {
    let mut hits = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for (rule, re) in compiled() {
            if re.is_match(line)
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
    fn the_description_never_echoes_the_secret() {
        let secret = "sk-proj-abcdefghijklmnopqrstuvwx1234";
        let msg = describe(&scan(secret));
        assert!(msg.contains("openai_api_key"));
        assert!(!msg.contains("abcdefghij"));
    }
}
