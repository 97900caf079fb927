//! The measured corpus's other secret kinds: key files (whole blocks, one cut short), `NAME=value`
//! lines whose name says password / secret / token / key, `.netrc`, `.pgpass` and docker config
//! lines, URLs and commands carrying credentials, and passwords written after CJK words with
//! full-width colons. Each kind makes `(text, secret)` as the providers' do.

use super::rng::{AN, B64, Gen, HEX, LOW, UP, UPHEX, URL, b64, wrap};

pub type Make = fn(&mut Gen) -> (String, String);

pub fn same(s: String) -> (String, String) {
    (s.clone(), s)
}

pub fn keyed(text: impl Fn(&str) -> String, secret: String) -> (String, String) {
    (text(&secret), secret)
}

/// A PEM block: header, body lines of `width`, footer (`end: false` leaves the footer out, as a
/// paste cut short does). The secret is the body.
fn pem(g: &mut Gen, label: &str, bytes: usize, width: usize, end: bool) -> (String, String) {
    let body = wrap(&b64(&g.bytes(bytes)), width, "\n");
    let mut text = format!("-----BEGIN {label}-----\n{body}");
    if end {
        text.push_str(&format!("\n-----END {label}-----"));
    }
    (text, body)
}

/// A name a `.env` line gives a secret, and a value for it.
fn env(g: &mut Gen, names: &[&str]) -> (String, String) {
    let name = g.pick(names);
    let value = g.password();
    let text = match g.below(4) {
        0 => format!("{name}={value}"),
        1 => format!("export {name}=\"{value}\""),
        2 => format!("{name}='{value}'"),
        _ => format!("docker run -e {name}={value} app:latest"),
    };
    (text, value)
}

pub const KINDS: &[(&str, Make)] = &[
    // Key files.
    ("pem_rsa_private_key", |g| {
        pem(g, "RSA PRIVATE KEY", 900, 64, true)
    }),
    ("pem_openssh_private_key", |g| {
        let (text, body) = pem(g, "OPENSSH PRIVATE KEY", 380, 70, true);
        let text = text.replacen('\n', "\nb3BlbnNzaC1rZXktdjEAAAAA", 1);
        (text, body)
    }),
    ("pem_ec_private_key", |g| {
        pem(g, "EC PRIVATE KEY", 120, 64, true)
    }),
    ("pem_pkcs8_private_key", |g| {
        pem(g, "PRIVATE KEY", 1200, 64, true)
    }),
    ("pem_encrypted_private_key", |g| {
        let (text, body) = pem(g, "RSA PRIVATE KEY", 900, 64, true);
        let head = format!(
            "\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{}\n\n",
            g.s(32, UPHEX)
        );
        (text.replacen('\n', &head, 1), body)
    }),
    ("pem_pgp_private_key", |g| {
        let body = wrap(&b64(&g.bytes(700)), 64, "\n");
        let crc = g.s(4, B64);
        (
            format!(
                "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF{body}\n={crc}\n-----END PGP PRIVATE KEY BLOCK-----"
            ),
            body,
        )
    }),
    ("pem_private_key_cut_short", |g| {
        pem(g, "OPENSSH PRIVATE KEY", 300, 70, false)
    }),
    ("putty_private_key", |g| {
        let public = wrap(&b64(&g.bytes(51)), 64, "\n");
        let private = wrap(&b64(&g.bytes(48)), 64, "\n");
        (
            format!(
                "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ed25519-key-20240501\nPublic-Lines: 2\n{public}\nPrivate-Lines: 1\n{private}\nPrivate-MAC: {}",
                g.s(64, HEX)
            ),
            private,
        )
    }),
    // `NAME=value` lines whose name says what the value is.
    ("env_pgpassword", |g| {
        env(
            g,
            &["PGPASSWORD", "MYSQL_ROOT_PASSWORD", "POSTGRES_PASSWORD"],
        )
    }),
    ("env_pass", |g| {
        env(
            g,
            &[
                "REDIS_PASS",
                "SMTP_PASS",
                "MAIL_PASS",
                "FTP_PASS",
                "DB_PASS",
            ],
        )
    }),
    ("env_secret", |g| {
        let name = g.pick(&[
            "SECRET_KEY_BASE",
            "DJANGO_SECRET_KEY",
            "JWT_SECRET",
            "SESSION_SECRET",
            "NEXTAUTH_SECRET",
        ]);
        let v = if g.below(2) == 0 {
            g.s(128, HEX)
        } else {
            g.s(50, "abcdefghijklmnopqrstuvwxyz0123456789!@#%^&*(-_=+)")
        };
        keyed(|s| format!("{name}={s}"), v)
    }),
    ("env_token", |g| {
        let name = g.pick(&[
            "CLOUDFLARE_API_TOKEN",
            "VERCEL_TOKEN",
            "CODECOV_TOKEN",
            "SNYK_TOKEN",
            "AUTH_TOKEN",
        ]);
        keyed(|s| format!("{name}={s}"), g.s(40, URL))
    }),
    ("env_api_key", |g| {
        let name = g.pick(&[
            "DD_API_KEY",
            "DATADOG_API_KEY",
            "ALGOLIA_API_KEY",
            "MISTRAL_API_KEY",
            "COHERE_API_KEY",
            "HEROKU_API_KEY",
        ]);
        let v = if g.below(2) == 0 {
            g.s(32, HEX)
        } else {
            g.uuid()
        };
        keyed(|s| format!("export {name}={s}"), v)
    }),
    ("env_powershell", |g| {
        keyed(|s| format!("$env:API_TOKEN = \"{s}\""), g.s(32, AN))
    }),
    ("dockerfile_env", |g| {
        keyed(|s| format!("ENV DB_PASSWORD={s}"), g.password())
    }),
    ("yaml_password", |g| {
        keyed(
            |s| format!("database:\n  user: app\n  password: {s}"),
            g.password(),
        )
    }),
    ("json_client_secret", |g| {
        keyed(
            |s| format!("{{\"client_id\": \"acme-web\", \"client_secret\": \"{s}\"}}"),
            g.s(40, URL),
        )
    }),
    ("properties_password", |g| {
        keyed(|s| format!("spring.datasource.password={s}"), g.password())
    }),
    ("odbc_connection_string", |g| {
        keyed(
            |s| format!("Server=db01;Database=shop;Uid=sa;Pwd={s};"),
            g.password(),
        )
    }),
    ("libpq_keywords", |g| {
        keyed(
            |s| format!("psql \"host=db.internal user=app password={s} dbname=shop\""),
            g.password(),
        )
    }),
    ("k8s_secret_data", |g| {
        keyed(
            |s| format!("kind: Secret\ndata:\n  password: {s}"),
            b64(g.password().as_bytes()),
        )
    }),
    ("netrc_line", |g| {
        keyed(
            |s| format!("machine api.heroku.com login ana@acme.io password {s}"),
            g.password(),
        )
    }),
    ("netrc_block", |g| {
        keyed(
            |s| format!("machine github.com\n  login ana\n  password {s}"),
            g.password(),
        )
    }),
    ("pgpass_line", |g| {
        keyed(|s| format!("db.internal:5432:shop:app:{s}"), g.password())
    }),
    // URLs and commands with credentials.
    ("url_postgres", |g| {
        keyed(
            |s| format!("postgres://app:{s}@db.internal:5432/shop"),
            g.password(),
        )
    }),
    ("url_redis_no_user", |g| {
        keyed(
            |s| format!("REDIS_URL=redis://:{s}@cache.internal:6379/0"),
            g.password(),
        )
    }),
    ("url_mongodb_srv", |g| {
        keyed(
            |s| format!("mongodb+srv://ana:{s}@cluster0.ab1cd.mongodb.net/app"),
            g.password(),
        )
    }),
    ("url_amqp", |g| {
        keyed(
            |s| format!("amqp://worker:{s}@mq.internal:5672/"),
            g.password(),
        )
    }),
    ("url_git_https", |g| {
        keyed(
            |s| format!("git clone https://ana:{s}@git.acme.io/web/site.git"),
            g.s(32, AN),
        )
    }),
    ("curl_user", |g| {
        keyed(
            |s| format!("curl -u admin:{s} https://jenkins.acme.io/api/json"),
            g.password(),
        )
    }),
    ("curl_user_long", |g| {
        keyed(
            |s| format!("curl --user \"deploy:{s}\" -X POST https://nexus.acme.io/upload"),
            g.password(),
        )
    }),
    ("wget_password", |g| {
        keyed(
            |s| format!("wget --user=ana --password={s} https://files.acme.io/dump.sql.gz"),
            g.password(),
        )
    }),
    ("mysql_flag", |g| {
        keyed(
            |s| format!("mysql -u root -p{s} shop < dump.sql"),
            g.s(12, AN),
        )
    }),
    ("cli_password_flag", |g| {
        keyed(
            |s| format!("docker login registry.acme.io -u ci --password {s}"),
            g.password(),
        )
    }),
    ("authorization_basic", |g| {
        keyed(
            |s| format!("Authorization: Basic {s}"),
            b64(format!("ana:{}", g.password()).as_bytes()),
        )
    }),
    ("authorization_bearer", |g| {
        keyed(
            |s| format!("curl -H 'Authorization: Bearer {s}' https://api.acme.io"),
            g.s(40, AN),
        )
    }),
    // Words for "password" in other languages, with full-width colons.
    ("cjk_mima", |g| {
        let sep = g.pick(&["：", ":", "是", "： "]);
        keyed(|s| format!("数据库密码{sep}{s}"), g.password())
    }),
    ("cjk_pasuwado", |g| {
        let sep = g.pick(&["：", ": ", "は"]);
        keyed(|s| format!("管理画面のパスワード{sep}{s}"), g.password())
    }),
    ("fullwidth_password", |g| {
        let name = g.pick(&["password", "Password", "PASSWORD", "token", "api key"]);
        keyed(|s| format!("{name}：{s}"), g.password())
    }),
    ("korean_bimilbeonho", |g| {
        let sep = g.pick(&[": ", "：", "는 "]);
        keyed(|s| format!("서버 비밀번호{sep}{s}"), g.password())
    }),
    ("stated_in_a_sentence", |g| {
        let what = g.pick(&[
            "the password for the db is",
            "my wifi password is",
            "the staging api key is",
            "our vpn passphrase is",
        ]);
        keyed(|s| format!("fyi {what} {s}"), g.password())
    }),
    ("lowercase_hex_token", |g| {
        keyed(|s| format!("token: {s}"), g.s(40, HEX))
    }),
    ("upper_random", |g| {
        keyed(|s| format!("api_key: {s}"), g.s(24, UP))
    }),
    ("letters_only_random", |g| {
        keyed(|s| format!("secret = \"{s}\""), g.s(24, LOW))
    }),
];
