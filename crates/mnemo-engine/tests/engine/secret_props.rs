//! The secret rules against a corpus of realistic fake secrets in the formats gitleaks documents
//! (every one must be found, and redacted), ordinary text that must pass, and a property: random
//! text around a secret never hides it.

use mnemo_engine::secrets::{redact, scan};
use proptest::prelude::*;

/// (rule, a fake secret in that provider's documented format).
const FOUND: &[(&str, &str)] = &[
    ("aws_access_key_id", "AKIAIOSFODNN7EXAMPLE"),
    ("aws_access_key_id", "ASIAY34FZKBOKMUTVV7A"),
    ("github_token", "ghp_8kD2mQ9xZr4Lw7Tn1Vb6Yc3Hs5Jf0Ga2We4R"),
    ("github_token", "gho_16C7e42F292c6912E7710c838347Ae178B4a"),
    ("github_token", "ghs_16C7e42F292c6912E7710c838347Ae178B4a"),
    (
        "github_token",
        "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUV",
    ),
    ("openai_api_key", "sk-proj-Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF"),
    ("openai_api_key", "sk-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"),
    (
        "anthropic_api_key",
        "sk-ant-api03-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9Ed8Cb7",
    ),
    ("google_api_key", "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe"),
    (
        "slack_token",
        "xoxb-263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1",
    ),
    ("stripe_key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ),
    ("private_key", "-----BEGIN RSA PRIVATE KEY-----"),
    ("private_key", "-----BEGIN OPENSSH PRIVATE KEY-----"),
    ("private_key", "-----BEGIN  EC   PRIVATE KEY-----"),
    (
        "assigned_secret",
        "client_secret: 9f86d081884c7d659a2feaa0c55ad015",
    ),
    ("assigned_secret", "DB_PASSWORD=correcthorsebatterystaple"),
    // A secret stated in a sentence ("… is <value>") has its own rule.
    (
        "stated_secret",
        "the api key is 3b5d5c3712955042212316173ccf37be",
    ),
];

const PASSES: &[&str] = &[
    "The user prefers terse answers.",
    "Use the sk-learn library for baselines",
    "password rotation happens monthly",
    "the secret is out",
    "AKIA is a prefix AWS uses for access key ids",
    "ghp_short",
    "Grafana: https://grafana.example/d/api-latency",
    "发布冻结在每月最后一周",
    "-----BEGIN PUBLIC KEY-----",
];

#[test]
fn every_corpus_secret_is_found_and_redacted() {
    for (rule, secret) in FOUND {
        let hits = scan(secret);
        assert!(
            hits.iter().any(|h| h.rule == *rule),
            "{rule}: {secret} → {hits:?}"
        );
        let (out, _) = redact(&format!("before {secret} after"));
        assert!(scan(&out).is_empty(), "{rule}: left in {out}");
        if *rule == "private_key" {
            // A key's first line with no last line takes the rest of the text.
            assert_eq!(out, "before [redacted: private_key]");
            continue;
        }
        assert!(
            out.starts_with("before ") && out.ends_with(" after"),
            "{out}"
        );
    }
    for ok in PASSES {
        assert!(scan(ok).is_empty(), "false positive: {ok} → {:?}", scan(ok));
    }
}

/// Text around a secret: anything, then a separator (a secret is never glued to a letter or
/// digit in real text — `aws_` and `"` are separators).
fn around() -> impl Strategy<Value = (String, String)> {
    let sep = prop_oneof![
        Just(" "),
        Just("\t"),
        Just("_"),
        Just(":"),
        Just("="),
        Just("\""),
        Just("'"),
        Just("("),
        Just(","),
        Just("/"),
        Just("\n"),
        Just("，"),
    ];
    (any::<String>(), sep.clone(), sep, any::<String>())
        .prop_map(|(a, s1, s2, b)| (format!("{a}{s1}"), format!("{s2}{b}")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_surrounding_text_never_hides_a_secret(
        i in 0..FOUND.len() - 4,  // the private-key headers and assignments need their own shape
        (before, after) in around(),
    ) {
        let (rule, secret) = FOUND[i];
        let text = format!("{before}{secret}{after}");
        prop_assert!(
            scan(&text).iter().any(|h| h.rule == rule),
            "{} hidden in {:?}", rule, text
        );
        let (out, _) = redact(&text);
        prop_assert!(!out.contains(secret), "left in {:?}", out);
        prop_assert!(scan(&out).iter().all(|h| h.rule != rule));
    }
}
