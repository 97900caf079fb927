//! The secret gate against a corpus (issue 33): secrets in the shapes people paste — every
//! provider prefix the gate knows, key-file headers, credentials in URLs and headers, generic
//! assignments and sentences — each several times with different bodies and in different
//! sentences; and ordinary memory sentences that must pass (many name passwords and tokens
//! without holding one). `cargo bench -p mnemo-store --bench secrets` adds LoCoMo's 8,423
//! conversation turns and observations as ordinary text and prints both rates.

use mnemo_store::secrets::{redact, scan};

/// A deterministic body of `n` characters from `alphabet` (seeded).
fn body(seed: u64, n: usize, alphabet: &str) -> String {
    let a: Vec<char> = alphabet.chars().collect();
    let mut x = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            a[((x >> 33) as usize) % a.len()]
        })
        .collect()
}

const AN: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX: &str = "0123456789abcdef";
const UP: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const LOW: &str = "abcdefghijklmnopqrstuvwxyz";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Every shape, made with seed `s`.
pub fn secrets(s: u64) -> Vec<String> {
    let b = |n, a| body(s, n, a);
    vec![
        format!("sk-ant-api03-{}", b(40, AN)),
        format!("sk-proj-{}", b(48, AN)),
        format!("sk-{}", b(48, AN)),
        format!("AKIA{}", b(16, UP)),
        format!("ghp_{}", b(36, AN)),
        format!("gho_{}", b(36, AN)),
        format!("github_pat_{}", b(59, AN)),
        format!("glpat-{}", b(20, AN)),
        format!("AIza{}", b(35, AN)),
        format!("xoxb-{}-{}", b(12, "0123456789"), b(24, AN)),
        format!(
            "https://hooks.slack.com/services/T{}/B{}/{}",
            b(8, UP),
            b(8, UP),
            b(24, AN)
        ),
        format!(
            "https://discord.com/api/webhooks/{}/{}",
            b(18, "0123456789"),
            b(60, AN)
        ),
        format!("sk_live_{}", b(24, AN)),
        format!("rk_test_{}", b(24, AN)),
        format!("hf_{}", b(34, LOW)),
        format!("npm_{}", b(36, AN)),
        format!("pypi-AgEIcHlwaS5vcmc{}", b(60, AN)),
        format!("SG.{}.{}", b(22, AN), b(43, AN)),
        format!("SK{}", b(32, HEX)),
        format!("key-{}", b(32, "0123456789abcdefghijklmnopqrstuvwxyz")),
        format!("dop_v1_{}", b(64, HEX)),
        format!("shpat_{}", b(32, HEX)),
        format!("lin_api_{}", b(40, AN)),
        format!("dapi{}", b(32, HEX)),
        format!("{}:AA{}", b(10, "0123456789"), b(33, AN)),
        format!("NRAK-{}", b(27, UP)),
        format!("glsa_{}_{}", b(32, AN), b(8, HEX)),
        format!("sntrys_{}", b(60, AN)),
        format!("dp.pt.{}", b(43, AN)),
        format!("AGE-SECRET-KEY-1{}", b(58, UP)),
        format!(
            "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={}==;EndpointSuffix=core.windows.net",
            b(86, B64)
        ),
        format!("eyJhbGciOiJIUzI1NiJ9.eyJ{}.{}", b(30, AN), b(43, AN)),
        "-----BEGIN OPENSSH PRIVATE KEY-----".to_owned(),
        "-----BEGIN RSA PRIVATE KEY-----".to_owned(),
        "PuTTY-User-Key-File-3: ssh-ed25519".to_owned(),
        format!("postgres://admin:{}@db.internal:5432/app", b(14, AN)),
        format!("https://deploy:{}@git.example.org/acme/site.git", b(20, AN)),
        format!("Authorization: Bearer {}", b(40, AN)),
        format!("curl -H 'Authorization: Basic {}'", b(28, B64)),
        format!("mysql -u root -p{} shop", b(10, AN)),
        format!("password: P@ss{}!", b(8, AN)),
        format!("DB_PASSWORD={}", b(18, AN)),
        format!("token: {}", b(32, HEX)),
        format!("pwd={}", b(12, AN)),
        format!("api_key = \"{}\"", b(32, AN)),
        format!("client_secret: {}", b(40, AN)),
        format!("the password for the db is {}9!", b(10, AN)),
        format!("My github token is ghp_{}", b(36, AN)),
        format!(
            "the secret is: {}-{}-{}-{}",
            b(7, LOW),
            b(5, LOW),
            b(7, LOW),
            b(6, LOW)
        ),
        format!("{{\"password\": \"{}\"}}", b(20, AN)),
        format!("export OPENAI_API_KEY=sk-{}", b(48, AN)),
    ]
}

/// Sentences a person's memory holds that name secrets without holding one.
pub const ORDINARY: &[&str] = &[
    "The user prefers terse answers.",
    "Password rotation happens monthly.",
    "The secret is out: the team moves to Lisbon.",
    "The secret to good bread is patience.",
    "The secret for success is hard-work and luck.",
    "Ana forgot her password again and reset it.",
    "Use a password manager (1Password) for every account.",
    "The API key is stored in Vault, never in the repository.",
    "Tokens expire after 24 hours; refresh them with the CLI.",
    "token: string — the field in the schema.",
    "password: required in the signup form.",
    "Set api_key=$OPENAI_API_KEY in the shell, not in the file.",
    "api_key = YOUR_API_KEY (a placeholder in the README).",
    "password: <your password>",
    "secret: ********",
    "Grafana board: https://grafana.example/d/api-latency",
    "Use the sk-learn library for baselines.",
    "Clone with git@github.com:acme/webapp.git.",
    "The repository is https://github.com/acme/webapp.",
    "Docs at https://docs.example.com/auth#tokens.",
    "Run mysql -u root -p to open a prompt.",
    "The bearer of bad news was the release manager.",
    "Authorization happens in the gateway.",
    "A token of appreciation is a small gift.",
    "The secret ingredient is cinnamon.",
    "Her password hint is her first dog's name.",
    "The pwd command prints the working folder.",
    "Keys live in ~/.ssh; never copy them to a laptop.",
    "发布冻结在每月最后一周",
    "密码每三个月更换一次。",
    "Works night shifts at the hospital.",
    "Drives a Toyota Corolla.",
    "The deploy token was revoked on 2024-05-01.",
    "Meeting notes: discuss the access token rotation policy.",
    "Release 2.3.1 ships on Friday; freeze starts Wednesday.",
    "Build with make -j8 and run the tests with -p 4 workers.",
    "Port 5432 is Postgres, 6379 is Redis.",
    "The user's locker number is 42.",
    "Backup passphrase rules: at least five words.",
    "Call the endpoint with the header X-Request-Id.",
];

#[test]
fn every_secret_shape_is_caught_and_redacted_and_ordinary_memories_pass() {
    let mut total = 0;
    let mut missed = Vec::new();
    for seed in 1..=5u64 {
        for (i, s) in secrets(seed).into_iter().enumerate() {
            for text in [
                s.clone(),
                format!("Note for later: {s}"),
                format!("remember this\n{s}\nthanks"),
            ] {
                total += 1;
                let (out, hits) = redact(&text);
                if hits.is_empty() || !scan(&out).is_empty() {
                    missed.push(format!("#{i} seed {seed}: {text}"));
                }
            }
        }
    }
    assert!(total >= 200, "{total}");
    assert!(
        missed.is_empty(),
        "{} of {total} missed: {missed:#?}",
        missed.len()
    );
    let flagged: Vec<_> = ORDINARY
        .iter()
        .filter(|t| !scan(t).is_empty())
        .map(|t| (t, scan(t)))
        .collect();
    assert!(flagged.is_empty(), "false positives: {flagged:#?}");
}

#[test]
fn a_redacted_secret_leaves_no_part_of_itself() {
    for s in secrets(9) {
        let (out, _) = redact(&format!("x {s} y"));
        // No random run of the secret (12+ characters, letters and digits) is left.
        let long = s
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|p| {
                p.len() >= 12
                    && p.bytes().any(|b| b.is_ascii_digit())
                    && p.bytes().any(|b| b.is_ascii_alphabetic())
            })
            .find(|p| out.contains(*p));
        assert!(long.is_none(), "{long:?} left in {out}");
    }
}
