//! Ordinary technical text the gate must let through: code that reads secrets from the
//! environment or hashes them, config that names them with placeholders, hashes, UUIDs, ids,
//! pod and file names that start like a token, placeholder URLs, public keys and certificates,
//! base64 of ordinary words, log lines, prose about passwords, and LoCoMo-like conversation.
//!
//! A bare hex string — a git SHA, a sha1 / sha256 / blake3 digest, an md5 — is ordinary: it is
//! how files, commits and images are named. Only a hex value given to a secret's name
//! (`token: 9f86…`, `SECRET_KEY_BASE=…`) or in a provider's shape (`dapi…`, `SK…`) is a secret.

mod code;

use super::rng::{AN, B64, DIG, Gen, HEX, URL, b64, b64url, wrap};
use code::{code, config, declarations};

/// Hashes, digests and ids: a bare hex string is ordinary.
fn hashes(g: &mut Gen) -> String {
    let word = g.pick(&[
        "README.md",
        "main.rs",
        "release notes",
        "mnemo-0.9.1.tar.gz",
        "logo.png",
    ]);
    let sha1 = sha1_smol::Sha1::from(
        word.as_bytes()
            .iter()
            .chain(&g.bytes(4))
            .copied()
            .collect::<Vec<_>>(),
    )
    .digest()
    .to_string();
    let sha256 = blake3::hash(&g.bytes(16)).to_hex().to_string();
    let md5 = &sha256[..32];
    match g.below(30) {
        0 => format!("commit {sha1}"),
        1 => format!("git checkout {}", &sha1[..7]),
        2 => format!("Fixed in {}.", &sha1[..7]),
        3 => format!("git revert {sha1}"),
        4 => format!("{sha1}\trefs/heads/main"),
        5 => format!("Merge: {} {}", &sha1[..7], &sha256[..7]),
        6 => format!("index {}..{} 100644", &sha1[..7], &sha256[..7]),
        7 => format!("{sha256}  mnemo-0.9.{}-x86_64.tar.gz", g.below(9)),
        8 => format!("checksum = \"{sha256}\""),
        9 => format!("    --hash=sha256:{sha256}"),
        10 => format!("image: ghcr.io/acme/api@sha256:{sha256}"),
        11 => format!("\"integrity\": \"sha512-{}\"", b64(&g.bytes(64))),
        12 => format!(
            "<script src=\"/app.js\" integrity=\"sha384-{}\"></script>",
            b64(&g.bytes(48))
        ),
        13 => format!("ETag: \"{md5}\""),
        14 => format!("md5: {md5}"),
        15 => format!("trace_id={md5} span_id={}", &sha1[..16]),
        16 => format!("traceparent: 00-{md5}-{}-01", &sha1[..16]),
        17 => sha1,
        18 => sha256,
        19 => format!("The file's blake3 is {sha256}."),
        20 => format!("cache key {sha1}"),
        21 => format!("cache-key-{md5}"),
        22 => format!("Digest: sha256:{sha256}"),
        23 => format!(
            "SHA256 fingerprint: SHA256:{}",
            b64(&g.bytes(32)).trim_end_matches('=')
        ),
        24 => format!(
            "golang.org/x/net v0.{}.0 h1:{}",
            g.below(30),
            b64(&g.bytes(32))
        ),
        25 => format!(
            "go: downloading example.com/lib v0.0.0-2024{:02}01120000-{}",
            1 + g.below(12),
            &sha1[..12]
        ),
        26 => format!(
            "/nix/store/{}-openssl-3.0.13",
            g.s(32, "0123456789abcdfghijklmnpqrsvwxyz")
        ),
        27 => format!(
            "Stripe-Signature: t={},v1={sha256}",
            1_700_000_000 + g.below(1_000_000)
        ),
        28 => format!("The hash of the backup is {sha256}"),
        _ => format!(
            "  resolved \"https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#{sha1}\""
        ),
    }
}

/// Ids of every kind, and names that begin the way a token does.
fn ids(g: &mut Gen) -> String {
    let uuid = g.uuid();
    let pod = |g: &mut Gen| {
        let n = 9 + g.below(2);
        format!(
            "{}-{}-{}",
            g.pick(&[
                "sk-payments-worker",
                "api-gateway",
                "ghp-exporter",
                "xoxb-relay",
                "sk-search",
                "glpat-sync"
            ]),
            g.s(n, "bcdfghjklmnpqrstvwxz2456789"),
            g.s(5, "bcdfghjklmnpqrstvwxz2456789")
        )
    };
    match g.below(40) {
        0 => format!("user_id={uuid}"),
        1 => format!("\"id\": \"{uuid}\""),
        2 => format!("Created workspace {uuid}"),
        3 => format!("tenant: {uuid}"),
        4 => format!("idempotency_key: {uuid}"),
        5 => format!("session {uuid} expired"),
        6 => format!("GET /api/v1/orders/{uuid} 404"),
        7 => format!("subscription_id = \"{uuid}\""),
        8 => format!("client_id = \"{uuid}\""),
        9 => format!("{}   1/1   Running   0   3d4h", pod(g)),
        10 => format!("kubectl logs {} --tail=50", pod(g)),
        11 => format!("pod/{} restarted after OOMKilled", pod(g)),
        12 => format!(
            "sk-{}-translations-{}-final.json",
            g.pick(&["SK", "FI", "DE", "PT"]),
            2020 + g.below(6)
        ),
        13 => format!(
            "sk-{}-glossary-v{}.csv",
            g.pick(&["sk", "cs", "en"]),
            g.below(9)
        ),
        14 => format!("token-bucket-{}.rs", g.below(5)),
        15 => format!("password-policy-{}.md", 2020 + g.below(6)),
        16 => format!("secret-santa-{}.xlsx", 2020 + g.below(6)),
        17 => "api-keys-rotation-runbook.md".to_owned(),
        18 => format!(
            "arn:aws:iam::{}:role/{}",
            g.s(12, DIG),
            g.pick(&["deploy", "ci-runner", "lambda-exec"])
        ),
        19 => format!("i-{}", g.s(17, HEX)),
        20 => format!("sg-{} allows 443 from 0.0.0.0/0", g.s(17, HEX)),
        21 => format!("ami-{}", g.s(17, HEX)),
        22 => format!(
            "s3://acme-{}-{}/exports/2024/05/report.csv",
            g.pick(&["logs", "backups", "data"]),
            g.below(100)
        ),
        23 => format!(
            "projects/acme-{}/secrets/db-password/versions/latest",
            g.s(6, DIG)
        ),
        24 => format!(
            "/subscriptions/{uuid}/resourceGroups/rg-web/providers/Microsoft.Web/sites/acme-web"
        ),
        25 => format!("cus_{}", g.s(14, AN)),
        26 => format!(
            "Refunded {}_{} for €{}.00",
            g.pick(&["ch", "pi", "py"]),
            g.s(24, AN),
            5 + g.below(200)
        ),
        27 => format!("evt_{} delivered to the webhook", g.s(24, AN)),
        28 => format!(
            "Slack channel C{} and user U{}",
            g.s(8, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
            g.s(8, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        ),
        29 => format!("https://www.youtube.com/watch?v={}", g.s(11, URL)),
        30 => format!("https://docs.google.com/document/d/{}/edit", g.s(44, URL)),
        31 => format!("Discord message id {}", g.s(19, DIG)),
        32 => format!(
            "SENTRY_DSN=https://{}@o{}.ingest.sentry.io/{}",
            g.s(32, HEX),
            g.s(6, DIG),
            g.s(7, DIG)
        ),
        33 => format!(
            "v{}.{}.{}-rc.{}",
            g.below(5),
            g.below(30),
            g.below(10),
            g.below(4)
        ),
        34 => format!(
            "{}.{}.{}.{}:{}",
            10,
            g.below(255),
            g.below(255),
            g.below(255),
            1024 + g.below(60000)
        ),
        35 => format!("color: #{};", g.s(6, HEX)),
        36 => format!("\"kid\": \"{}\"", g.s(43, URL)),
        37 => format!("code_challenge={}&code_challenge_method=S256", g.s(43, URL)),
        38 => format!("request-id: req_{}", g.s(24, AN)),
        _ => format!(
            "{{\"object\": \"list\", \"next_page_token\": \"{}\"}}",
            b64url(format!("page={}", g.below(900)).as_bytes())
        ),
    }
}

/// URLs, commands and headers with a placeholder where a credential would go.
fn placeholders(g: &mut Gen) -> String {
    match g.below(28) {
        0 => "postgres://USER:PASSWORD@HOST:5432/DB".to_owned(),
        1 => "postgresql://<user>:<password>@localhost:5432/<db>".to_owned(),
        2 => "mysql://user:password@localhost/app".to_owned(),
        3 => "mongodb+srv://<username>:<password>@cluster0.mongodb.net/".to_owned(),
        4 => "redis://:${REDIS_PASSWORD}@redis:6379/0".to_owned(),
        5 => "DATABASE_URL=postgres://postgres:postgres@localhost:5432/app_test".to_owned(),
        6 => "amqp://guest:guest@localhost:5672/".to_owned(),
        7 => "https://$GH_USER:$GH_TOKEN@github.com/acme/site.git".to_owned(),
        8 => "https://x-access-token:${GITHUB_TOKEN}@github.com/acme/site.git".to_owned(),
        9 => "http://admin:admin@localhost:8080/manage".to_owned(),
        10 => "https://user:pass@example.com/private".to_owned(),
        11 => "redis://localhost:6379/0".to_owned(),
        12 => format!(
            "curl -u \"$USER:${}\" https://ci.acme.io/api",
            g.pick(&["TOKEN", "API_TOKEN", "PASS"])
        ),
        13 => {
            "curl -u admin https://jenkins.acme.io/api/json (it asks for the password)".to_owned()
        }
        14 => "curl -H \"Authorization: Bearer <token>\" https://api.acme.io/v1/me".to_owned(),
        15 => "Authorization: Bearer YOUR_TOKEN_HERE".to_owned(),
        16 => "Authorization: Basic <base64 of user:password>".to_owned(),
        17 => "mysql -u root -p shop".to_owned(),
        18 => "psql \"host=localhost user=app password=$PGPASSWORD dbname=shop\"".to_owned(),
        19 => "docker login -u ci --password-stdin < token.txt".to_owned(),
        20 => "wget --ask-password https://files.acme.io/dump.sql.gz".to_owned(),
        21 => "Set OPENAI_API_KEY=sk-... in your shell (the key starts with sk-).".to_owned(),
        22 => "GitHub tokens look like ghp_... and Slack bot tokens like xoxb-...".to_owned(),
        23 => "machine example.com login USERNAME password PASSWORD".to_owned(),
        24 => "hostname:port:database:username:password".to_owned(),
        25 => "*:*:*:postgres:*".to_owned(),
        26 => "{\"auths\": {\"ghcr.io\": {\"credsStore\": \"desktop\"}}}".to_owned(),
        _ => "password：请向管理员索取".to_owned(),
    }
}

/// Public keys, certificates and base64 of ordinary words.
fn public_and_base64(g: &mut Gen) -> String {
    let words = g.pick(&[
        "hello world",
        "The quick brown fox jumps over the lazy dog",
        "release notes for version two",
        "{\"theme\": \"dark\", \"lang\": \"en\"}",
        "Meeting moved to Thursday at three",
    ]);
    match g.below(10) {
        0 => format!(
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{} ana@laptop",
            g.s(43, B64)
        ),
        1 => format!(
            "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{} deploy@ci",
            g.s(300, B64)
        ),
        2 => format!(
            "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----",
            wrap(&b64(&g.bytes(600)), 64, "\n")
        ),
        3 => format!(
            "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----",
            wrap(&b64(&g.bytes(294)), 64, "\n")
        ),
        4 => format!("echo {} | base64 -d", b64(words.as_bytes())),
        5 => format!("\"content\": \"{}\"", b64(words.as_bytes())),
        6 => format!("data:image/png;base64,iVBORw0KGgo{}", g.s(120, B64)),
        7 => format!(
            "{{\"kty\": \"RSA\", \"e\": \"AQAB\", \"n\": \"{}\"}}",
            g.s(342, URL)
        ),
        8 => format!("Content-MD5: {}", b64(&g.bytes(16))),
        _ => format!("Decoded {} into {words}", b64(words.as_bytes())),
    }
}

/// Logs, commits and prose about secrets in several languages.
fn prose(g: &mut Gen) -> String {
    const LINES: &[&str] = &[
        "FATAL: password authentication failed for user \"postgres\"",
        "WARN token refresh failed: invalid_grant",
        "401 Unauthorized: the token has expired",
        "Permission denied (publickey).",
        "fix(auth): refresh the token before it expires (#1234)",
        "chore: bump jsonwebtoken from 9.0.0 to 9.0.2",
        "Rotate the API token every 90 days.",
        "The password field must be at least 12 characters long.",
        "Never commit .env files; keep secrets in the vault.",
        "Tokens are stored hashed, with only the first six characters kept for display.",
        "We moved every service account key to Workload Identity.",
        "The secret to fast builds is a warm cache.",
        "Her password hint is the name of her first cat.",
        "The API key for the maps widget is restricted by referrer.",
        "Use `gh auth token` to print the current token instead of pasting it.",
        "SELECT id, password_hash FROM users WHERE email = $1;",
        "UPDATE users SET password = $1 WHERE id = $2;",
        "INSERT INTO api_keys (key_hash, prefix) VALUES ($1, $2);",
        "The bearer of the token can act as the user until it expires.",
        "Access tokens last an hour; refresh tokens last thirty days.",
        "密码至少需要十二位，并且包含数字。",
        "パスワードを忘れた場合は管理者に連絡してください。",
        "비밀번호는 90일마다 변경해야 합니다.",
        "密码：至少八位",
        "パスワード：（空欄のまま）",
        "Le mot de passe doit contenir au moins douze caractères.",
        "Das Passwort wird im Tresor gespeichert, nie im Repository.",
        "password reset links expire after 30 minutes",
        "The secret is out: the team moves to Lisbon.",
        "2024-05-01T12:00:00Z INFO request completed status=200 duration_ms=12",
    ];
    let base = g.pick(LINES);
    match g.below(3) {
        0 => base.to_owned(),
        1 => format!("- {base}"),
        _ => format!(
            "{} {base}",
            g.pick(&["Note:", "Remember:", "From the runbook:", "TIL"])
        ),
    }
}

/// Sentences like LoCoMo's conversation turns and observations.
fn conversation(g: &mut Gen) -> String {
    const NAMES: &[&str] = &[
        "Caroline", "Melanie", "Jon", "Gina", "John", "Maria", "Joanna", "Nate", "Tim", "Audrey",
        "Andrew", "James", "Deborah", "Jolene", "Evan", "Sam", "Calvin", "Dave",
    ];
    const PLACES: &[&str] = &[
        "the LGBTQ support group",
        "a pottery class",
        "the beach",
        "a charity race",
        "Paris",
        "the animal shelter",
        "a camping trip",
        "the farmers market",
        "a concert",
        "her cousin's wedding",
    ];
    const THINGS: &[&str] = &[
        "painting sunsets",
        "learning the guitar",
        "running a 10k",
        "baking sourdough",
        "volunteering at the shelter",
        "writing a novel",
        "adopting a puppy",
        "studying for the bar exam",
    ];
    let (a, b) = (g.pick(NAMES), g.pick(NAMES));
    let (p, t) = (g.pick(PLACES), g.pick(THINGS));
    let day = format!(
        "{} {} 202{}",
        1 + g.below(28),
        g.pick(&["May", "June", "July", "August"]),
        g.below(5)
    );
    match g.below(14) {
        0 => format!("{a} went to {p} on {day} and said it was amazing."),
        1 => format!("Hey {b}! I just got back from {p}, it was so much fun."),
        2 => format!("{a} is planning to start {t} next month."),
        3 => format!("{b} told {a} that the secret to {t} is patience."),
        4 => format!("{a} said a password manager saved the day when the phone got lost."),
        5 => format!("{a} has been {t} since {}.", 2010 + g.below(14)),
        6 => format!("{a}: Thanks, {b}! That means a lot to me."),
        7 => format!("{a} mentioned that {b} gave a token of appreciation after {p}."),
        8 => format!("{b}: Wow, that sounds great. How long have you been {t}?"),
        9 => format!("{a} felt nervous before {p} but {b} encouraged them."),
        10 => format!(
            "{a} shared a photo from {p} with {} friends.",
            2 + g.below(9)
        ),
        11 => format!("{a} and {b} talked about {t} for an hour on {day}."),
        12 => format!("{a} keeps the wifi password on the fridge for guests."),
        _ => format!(
            "{b} is saving {} dollars a month for {t}.",
            50 * (1 + g.below(20))
        ),
    }
}

/// `n` distinct ordinary texts (deterministic), drawn from every kind above in turn (a kind
/// with few shapes gives what it has).
pub fn ordinary(n: usize) -> Vec<String> {
    let mut g = Gen::new(4_700_047);
    let kinds: &[fn(&mut Gen) -> String] = &[
        code,
        code,
        config,
        config,
        hashes,
        hashes,
        ids,
        ids,
        placeholders,
        declarations,
        public_and_base64,
        prose,
        conversation,
        conversation,
        conversation,
    ];
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(n);
    for i in 0..n * 20 {
        if out.len() == n {
            break;
        }
        let t = kinds[i % kinds.len()](&mut g);
        if seen.insert(t.clone()) {
            out.push(t);
        }
    }
    out
}
