//! The secret gate against a corpus: secrets in the shapes people paste — every
//! provider prefix the gate knows, key-file headers, credentials in URLs and headers, generic
//! assignments and sentences — each several times with different bodies and in different
//! sentences; and ordinary memory sentences that must pass (many name passwords and tokens
//! without holding one). `cargo bench -p mnemo-store --bench secrets` adds LoCoMo's 8,423
//! conversation turns and observations as ordinary text and prints both rates.

use mnemo_text::secrets::{redact, scan};

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
        // Key blocks whole, with their bodies.
        format!(
            "-----BEGIN RSA PRIVATE KEY-----\n{}\n{}\n{}\n-----END RSA PRIVATE KEY-----",
            b(64, B64),
            b(64, B64),
            b(20, B64)
        ),
        format!(
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{}\n{}",
            b(46, B64),
            b(70, B64)
        ),
        format!(
            "[redacted: private_key]\n{}\n{}\n-----END EC PRIVATE KEY-----",
            b(64, B64),
            b(30, B64)
        ),
        format!(
            "{{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{}\\n{}\\n-----END PRIVATE KEY-----\\n\"}}",
            b(64, B64),
            b(40, B64)
        ),
        format!(
            "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\n{}\nPrivate-MAC: {}",
            b(64, B64),
            b(64, HEX)
        ),
        // Provider shapes an attacker's corpus found missing.
        format!("GOCSPX-{}", b(28, AN)),
        format!("ya29.a0Af{}", b(120, AN)),
        format!("{}8Q~{}", b(3, AN), b(34, AN)),
        format!(
            "https://acme.blob.core.windows.net/c?sv=2022-11-02&sp=rl&sig={}%3D",
            b(43, AN)
        ),
        format!(
            "xapp-1-A{}-{}-{}",
            b(10, UP),
            b(13, "0123456789"),
            b(64, HEX)
        ),
        format!("whsec_{}", b(32, AN)),
        format!("dckr_pat_{}", b(27, AN)),
        // base64 of `ci-bot:` + a password.
        format!(
            "{{\"auths\": {{\"registry.acme.io\": {{\"auth\": \"Y2ktYm90Ok{}\"}}}}}}",
            b(20, AN)
        ),
        format!("MTA4{}.G{}.{}", b(22, AN), b(5, AN), b(38, AN)),
        format!("HRKU-AA{}", b(58, AN)),
        format!("hvs.{}", b(92, AN)),
        format!("{}.atlasv1.{}", b(14, AN), b(67, AN)),
        format!("ATATT3xFfGF0{}", b(180, AN)),
        format!("sq0atp-{}", b(22, AN)),
        format!("EAACEdEose0cBA{}", b(150, AN)),
        format!("AAAA{}:APA91b{}", b(7, AN), b(134, AN)),
        format!("{}-us14", b(32, HEX)),
        format!("Authorization: SSWS 00{}", b(40, AN)),
        format!("LTAI{}", b(20, AN)),
        format!("v1.0-{}-{}", b(24, HEX), b(146, HEX)),
        format!("fo1_{}", b(43, AN)),
        format!("sha256~{}", b(43, AN)),
        format!("ATBB{}", b(32, AN)),
        format!("rubygems_{}", b(48, HEX)),
        format!("CLOJARS_{}", b(60, LOW)),
        format!("oy2{}", b(43, LOW)),
        format!("AKCp{}", b(69, AN)),
        format!("CCIPAT_{}_{}", b(22, AN), b(40, HEX)),
        format!("bkua_{}", b(40, HEX)),
        format!("squ_{}", b(40, HEX)),
        format!("pul-{}", b(40, HEX)),
        format!("API-{}", b(26, UP)),
        format!("pat.{}.{}.{}", b(22, AN), b(24, HEX), b(20, AN)),
        format!("nfp_{}", b(36, AN)),
        format!("rnd_{}", b(32, AN)),
        format!("pnu_{}", b(36, AN)),
        format!("ico-{}", b(32, AN)),
        format!("xkeysib-{}-{}", b(64, HEX), b(16, AN)),
        format!("FLWSECK_TEST-{}-X", b(32, HEX)),
        format!("EZAK{}", b(54, AN)),
        format!("duffel_live_{}", b(43, AN)),
        format!("shippo_live_{}", b(40, HEX)),
        format!("AAAAAAAAAAAAAAAAAAAAAA{}%3D{}", b(30, AN), b(50, AN)),
        format!("dt0c01.{}.{}", b(24, UP), b(64, UP)),
        format!("sl.{}", b(135, AN)),
        format!("sk.eyJ1IjoiYWNtZSIsImEiOiJ{}.{}", b(20, AN), b(22, AN)),
        format!("PMAK-{}-{}", b(24, HEX), b(34, HEX)),
        format!("pscale_tkn_{}", b(43, AN)),
        format!("sbp_{}", b(40, HEX)),
        format!("tskey-auth-k{}CNTRL-{}", b(10, AN), b(33, AN)),
        format!("pat{}.{}", b(14, AN), b(64, HEX)),
        format!("ntn_{}", b(46, AN)),
        format!("figd_{}", b(40, AN)),
        format!("tfp_{}", b(59, AN)),
        format!("rdme_{}", b(70, LOW)),
        format!("ops_eyJ{}", b(200, AN)),
        format!("p8e-{}", b(32, AN)),
        format!("gsk_{}", b(52, AN)),
        format!("r8_{}", b(37, AN)),
        format!("pplx-{}", b(48, AN)),
        format!("xai-{}", b(80, AN)),
        format!("lsv2_pt_{}_{}", b(32, HEX), b(10, HEX)),
        format!("pcsk_{}_{}", b(5, AN), b(60, AN)),
        // Generic shapes.
        format!("PGPASSWORD={}9!", b(12, AN)),
        format!("REDIS_PASS={}7", b(14, AN)),
        format!("SMTP_PASS='{}#1'", b(10, AN)),
        format!("SECRET_KEY_BASE={}", b(128, HEX)),
        format!("machine api.acme.io login ana password {}4%", b(12, AN)),
        format!(
            "machine github.com\n  login ana\n  password {}2!",
            b(12, AN)
        ),
        format!("db.internal:5432:shop:app:{}5*", b(12, AN)),
        format!("REDIS_URL=redis://:{}3@cache:6379/0", b(14, AN)),
        format!("curl -u admin:{}8^ https://ci.acme.io/api", b(12, AN)),
        format!("docker login -u ci --password {}6!", b(12, AN)),
        format!("数据库密码：{}1!", b(10, AN)),
        format!("管理画面のパスワード：{}2#", b(10, AN)),
        format!("password：{}3$", b(10, AN)),
        format!("서버 비밀번호: {}4%", b(10, AN)),
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
    // What the generic rules must tell from a secret.
    "api_key = os.environ[\"API_KEY\"]",
    "token = os.getenv(\"TOKEN\")",
    "password = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
    "PWD=/srv/app",
    "secret: keep-it-simple",
    "sk-SK-translations-2024-final.json",
    "sk-payments-worker-7d9f8b6c4-x2x9z   1/1   Running   0   3d4h",
    "postgres://USER:PASSWORD@HOST:5432/DB",
    "DATABASE_URL=postgres://postgres:postgres@localhost:5432/app_test",
    "curl -u \"$USER:$TOKEN\" https://ci.acme.io/api",
    "machine example.com login USERNAME password PASSWORD",
    "hostname:port:database:username:password",
    "Authorization: Bearer YOUR_TOKEN_HERE",
    "GITHUB_TOKEN=replace-me",
    "    pub api_key: Option<SecretString>,",
    "{\"object\": \"list\", \"next_page_token\": \"cGFnZT04MjY\"}",
    "password: !vault |",
    "bypass: cache-v2",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "cache-key-d41d8cd98f00b204e9800998ecf8427e",
    "-----BEGIN PUBLIC KEY-----",
    "密码：至少八位",
    "パスワード：（空欄のまま）",
    "password：请向管理员索取",
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
