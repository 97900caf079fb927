//! Generic rules: a secret known by what names it, not by its own shape — assignments and
//! sentences (`password: …`, `PGPASSWORD=…`, `密码：…`, "the token is …"), `.netrc` and
//! `.pgpass` lines, credentials in URLs, `curl -u`, command-line flags and `Authorization`
//! headers. Each checks its value (`checks.rs`): a secret, not a word, a placeholder, a path or
//! code. The value is the capture named `v`, the name it was given `n`.

use super::Rule;
use super::checks::{assigned, credential, has_digit, not_placeholder, stated};

/// Names a secret goes by: a word for it, after any prefix (`client_`, `PG`, `spring.datasource.`
/// — the generic rules take the prefix into the name), or a compound with a space.
macro_rules! names {
    () => {
        concat!(
            r"(?:secret|token|password|passwd|passphrase|pwd|pass|credentials?|apikey",
            r"|(?:api|private|access|secret(?:[_\- ]?access)?|encryption|master|signing|license|app",
            r"|auth|hmac|jwt|session|consumer|client|webhook|account|storage|shared)[_\-. ]?key",
            r"|(?:access|auth|refresh|bearer|api)[_\- ]token|client[_\- ]secret",
            r"|密码|密碼|口令|パスワード|暗証番号|비밀번호|암호)",
        )
    };
}

/// The names, for the test that every generic rule uses them.
#[cfg(test)]
pub(super) const NAMES: &str = names!();

pub(super) const RULES: &[Rule] = &[
    // `scheme://user:password@host`: the password.
    (
        "url_password",
        r"(?i)[a-z][a-z0-9+.\-]*://(?P<n>[^/\s:@]{0,100}):(?P<v>[^/\s@]{3,200})@",
        Some(credential),
    ),
    (
        "authorization_header",
        r#"(?i)(?:authorization|proxy-authorization)["']?\s*[:=]\s*["']?(?:bearer|basic|token|digest|apikey|ssws)\s+([A-Za-z0-9_\-.=+/~]{8,})"#,
        Some(not_placeholder),
    ),
    (
        "bearer_token",
        r"(?i)(?:^|[^a-z0-9])bearer\s+([A-Za-z0-9_\-.=+/~]{20,})",
        Some(has_digit),
    ),
    // `mysql -u root -pS3cr3t` (the password glued to `-p`).
    (
        "password_flag",
        r"(?:^|[\s;|&(])(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\s[^\n]*?\s-p([^\s\-\[][^\s]{3,})",
        None,
    ),
    // `--password S3cr3t`, `--token=…` (`--password-stdin` reads it elsewhere).
    (
        "password_flag",
        r#"(?:^|\s)--(?:password|passwd|pass|token|api-key|apikey|secret|auth-token|access-token|client-secret|http-password)(?:\s+|=)["']?(?P<v>[^\s"']+)"#,
        Some(assigned),
    ),
    // `curl -u user:password`, `curl --user "user:password"`.
    (
        "curl_user",
        r#"(?:^|[\s;|&(`])(?:curl|http|https|wget)(?:\s[^\n]*?)?\s(?:-u\s*|--user[\s=]+)["']?(?P<n>[^\s:"']*):(?P<v>[^\s"']+)"#,
        Some(credential),
    ),
    // `.netrc`: `machine host login me password …`, or a `password …` line of its own — or
    // indented under its `machine` line, with words after it.
    (
        "netrc_password",
        r"(?im)(?:^|\s)(?:machine\s+\S+|default)(?:\s+login\s+(?P<n>\S+))?\s+password\s+(?P<v>\S+)",
        Some(credential),
    ),
    (
        "netrc_password",
        r"(?im)^[ \t]*(?:password|passwd)[ \t]+(?P<v>\S+)[ \t]*$",
        Some(assigned),
    ),
    (
        "netrc_password",
        r"(?im)^[ \t]+(?:password|passwd)[ \t]+(?P<v>\S+)",
        Some(assigned),
    ),
    // `.pgpass`: `host:port:database:user:password` (five fields: an IPv6 address has more).
    (
        "pgpass_password",
        r"(?:^|\s)(?:[A-Za-z0-9_.\-]+|\*):(?:[0-9]{1,5}|\*):(?:[A-Za-z0-9_.\-]+|\*):(?P<n>[A-Za-z0-9_.@\-]+|\*):(?P<v>[^\s:]+)(?:\s|$)",
        Some(credential),
    ),
    (
        "assigned_secret",
        concat!(
            r"(?i)(?:^|[^a-z0-9_\-.$])(?P<n>[a-z0-9_\-.]*?",
            names!(),
            r#"(?:[_\-.]?base)?)["'\]]?\s*(?::=|=>|[:=：＝]|是|为|為|は|는|은)\s*["'`]?(?P<v>[^\s"'`,;]{6,})"#
        ),
        Some(assigned),
    ),
    (
        "stated_secret",
        concat!(
            r"(?i)(?:^|[^a-z0-9])(?P<n>",
            names!(),
            r#")(?:\s+(?:for|of|to)\s+(?:the\s+|my\s+|our\s+|your\s+)?[a-z0-9_\-]{1,20}(?:\s+[a-z0-9_\-]{1,20})?)?\s+(?:is|was)\s*:?\s*["'`]?(?P<v>[^\s"'`,;]{6,})"#
        ),
        Some(stated),
    ),
];
