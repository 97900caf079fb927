//! The checks a rule's capture must pass, so a rule flags a secret and not a word, a
//! placeholder or a piece of code that names one (`api_key = os.environ[…]`,
//! `password = bcrypt.hashpw(…)`, `PWD=/srv/app`, `secret: keep-it-simple`,
//! `sk-SK-translations-2024-final.json` and `postgres://USER:PASSWORD@HOST` were flagged).
//! Each takes the value and the name it was given (`""` where the rule has none).

/// Letters and something else: a token, not a word.
pub(super) fn has_digit(v: &str, _: &str) -> bool {
    v.bytes().any(|b| b.is_ascii_digit())
}

/// A placeholder where a secret would go: `$VAR`, `${…}`, `$(…)`, `<password>`, `{{ … }}`,
/// `%(name)s`, `%VAR%`, a YAML tag or anchor (`!vault`, `&db`), `YOUR_TOKEN`, `PASSWORD`,
/// `********`, `replace-me`, `xxxx`.
fn placeholder(v: &str) -> bool {
    let first = v.chars().next().unwrap_or(' ');
    let rest = v.get(1..).unwrap_or("");
    let ident = |r: &str| r.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    let marked = match first {
        '<' | '{' | '[' | '(' => true,
        '$' => rest.starts_with(|c: char| c.is_ascii_alphabetic() || "_{(".contains(c)),
        '%' => rest.starts_with('(') || (rest.ends_with('%') && ident(&rest[..rest.len() - 1])),
        '!' | '&' | '#' => !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphabetic()),
        _ => false,
    };
    if marked
        || v.chars().all(|c| c == first)
        || v.chars()
            .all(|c| c.is_ascii_uppercase() || c == '_' || c == '-')
    {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    [
        "your",
        "xxxx",
        "redacted",
        "example.com",
        "changeme",
        "change_me",
        "change-me",
        "replace",
        "placeholder",
        "dummy",
        "${",
        "{{",
        "...",
        "***",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

/// Not a placeholder (an `Authorization` header's value).
pub(super) fn not_placeholder(v: &str, _: &str) -> bool {
    !placeholder(v)
}

/// A part of an identifier that reads as words: lower or upper case (`token_urlsafe`,
/// `SLACK_BOT_TOKEN`) or camel case with humps of three letters or more (`getPassword`), digits
/// only at the end (`sha256`). A random string has digits inside and a case change every
/// letter or two.
fn wordy(part: &str) -> bool {
    let core = part.trim_end_matches(|c: char| c.is_ascii_digit());
    if !core.bytes().all(|b| b.is_ascii_alphabetic()) {
        return false;
    }
    let humps = core
        .as_bytes()
        .windows(2)
        .filter(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
        .count();
    let all_upper = core.bytes().all(|b| b.is_ascii_uppercase());
    all_upper || core.len() >= 3 * (humps + 1) || core.len() <= 2
}

/// Code that names a value rather than holding one: a chain of identifiers (`os.environ`,
/// `settings.SECRET_KEY`, `std::env::var`, `self.token`) followed by a call or an index, or on
/// its own when it has a `.`, `::` or `_` in it (`process.env.TOKEN`, `auth_token`), or a type
/// (`Option<SecretString>`).
fn code(v: &str) -> bool {
    let b = v.as_bytes();
    let mut i = 0;
    let mut parts = Vec::new();
    let mut joined = false;
    loop {
        let start = i;
        if i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b'_' || b[i] == b'$') {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
        }
        if i == start {
            return false;
        }
        parts.push(&v[start..i]);
        let rest = &v[i..];
        let sep = [".", "::", "->", "?."]
            .iter()
            .find(|s| rest.starts_with(**s));
        match sep {
            Some(s) if rest.len() > s.len() => {
                i += s.len();
                joined = true;
            }
            _ => break,
        }
    }
    let rest = &v[i..];
    // A call, an index, or a generic type (`Vec<u8>`, `Option<SecretString>`).
    let call = rest.starts_with(['(', '[', '<']);
    if !(rest.is_empty() || call) {
        return false;
    }
    let words = parts.iter().all(|p| {
        p.trim_matches(['_', '$'])
            .split('_')
            .all(|w| w.is_empty() || wordy(w))
    });
    words && (call || joined || parts[0].trim_matches('_').contains('_'))
}

/// A file path, not a password: `/srv/app`, `~/.ssh/id`, `./config`, `C:\app`.
fn path(v: &str) -> bool {
    let rest = v
        .strip_prefix('/')
        .or_else(|| v.strip_prefix("~/"))
        .or_else(|| v.strip_prefix("./"))
        .or_else(|| v.strip_prefix("../"))
        .or_else(|| v.get(1..).and_then(|r| r.strip_prefix(":\\")));
    rest.is_some_and(|r| {
        r.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-/\\~".contains(&b))
    })
}

/// Words joined by `-`, `.` or `_` with no digit (`keep-it-simple`, `web-tls`): a word unless
/// long enough to be a passphrase (16 or more).
fn words(v: &str) -> bool {
    v.bytes()
        .all(|b| b.is_ascii_alphabetic() || matches!(b, b'-' | b'.' | b'_'))
        && v.bytes().any(|b| matches!(b, b'-' | b'.' | b'_'))
        && v.len() < 16
}

/// A name that holds something else than a secret: a page or sync cursor, a count, a public key.
fn other_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let parts: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
        .collect();
    let Some((last, before)) = parts.split_last() else {
        return false;
    };
    // `bypass`, `compass`: `pass` must be a word of its own.
    if last.ends_with("pass") && *last != "pass" && !last.ends_with("dbpass") {
        return true;
    }
    const OTHER: &[&str] = &[
        "page",
        "next",
        "prev",
        "cursor",
        "continuation",
        "sync",
        "resume",
        "max",
        "min",
        "num",
        "public",
        "publishable",
        "pub",
        "cancel",
        "cancellation",
        "csrf",
        "xsrf",
    ];
    before.iter().any(|p| OTHER.contains(p))
        || ["nextpage", "pagetoken", "synctoken", "csrftoken"]
            .iter()
            .any(|w| last.contains(w))
}

/// A value given to a secret's name that looks like a secret: at least 6 characters, ASCII,
/// not a placeholder, code, a path or words, and holding a digit or a symbol — or long (a
/// passphrase of 16 or more).
pub(super) fn assigned(v: &str, name: &str) -> bool {
    let v = v.trim_end_matches(['.', ',', ')', ']', '}', '"', '\'', ';']);
    let n = v.chars().count();
    if n < 6 || !v.is_ascii() || other_name(name) {
        return false;
    }
    if placeholder(v) || code(v) || path(v) || words(v) {
        return false;
    }
    let symbol = v.chars().any(|c| !c.is_alphanumeric());
    has_digit(v, name) || symbol || n >= 16
}

/// A value stated in a sentence ("the secret is …"): as [`assigned`], but a hyphenated word
/// (`hard-work`) is a word unless long enough to be a passphrase.
pub(super) fn stated(v: &str, name: &str) -> bool {
    let v = v.trim_end_matches(['.', ',', ')', ']', '}', '"', '\'', '!', '?']);
    if !assigned(v, name) {
        return false;
    }
    let other_symbol = v.chars().any(|c| !c.is_alphanumeric() && c != '-');
    has_digit(v, name) || other_symbol || v.chars().count() >= 16
}

/// A password in a URL or after `curl -u user:`: as [`assigned`], and not the user's name again
/// (`admin:admin`, `guest:guest`, `postgres:postgres`: documented defaults).
pub(super) fn credential(v: &str, user: &str) -> bool {
    let v = v.trim_end_matches(['"', '\'']);
    !v.eq_ignore_ascii_case(user) && assigned(v, "")
}

/// A token after a known prefix that is random, not words: `sk-proj-…` is a key,
/// `sk-SK-translations-2024-final` and `sk-payments-worker-7d9f8b6c4-x2x9z` are names. Words
/// are parts of one case, digits, or short lowercase hashes (a pod's `7d9f8b6c4`).
pub(super) fn keyish(v: &str, _: &str) -> bool {
    let parts: Vec<&str> = v.split(['-', '_', '.']).filter(|p| !p.is_empty()).collect();
    let plain = |p: &&str| {
        let b = p.as_bytes();
        b.iter().all(u8::is_ascii_lowercase)
            || b.iter().all(u8::is_ascii_uppercase)
            || b.iter().all(u8::is_ascii_digit)
            || (b[0].is_ascii_uppercase() && b[1..].iter().all(u8::is_ascii_lowercase))
            || (b.len() <= 10
                && b.iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()))
    };
    parts.iter().any(|p| p.len() >= 16) || !parts.iter().all(plain)
}

/// A Mailchimp key: 32 hex digits, then `-us` and the data centre.
pub(super) fn mailchimp(v: &str, _: &str) -> bool {
    v.split_once("-us").is_some_and(|(hex, _)| hex.len() == 32)
}

/// A Discord bot token: the bot's id in base64 (24 to 28 characters), a timestamp, an HMAC.
pub(super) fn discord_bot(v: &str, _: &str) -> bool {
    v.split_once('.')
        .is_some_and(|(id, _)| (24..=28).contains(&id.len()))
}

/// Base64 of `user:password` (a docker config's `auth`).
pub(super) fn basic_credentials(v: &str, _: &str) -> bool {
    let v = v.trim_end_matches('=');
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in v.bytes() {
        let d = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return false,
        };
        bits = (bits << 6) | u32::from(d);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    // A user (printable, no `:`), a `:`, and a password other than the user's name.
    let Some(colon) = out.iter().position(|&b| b == b':') else {
        return false;
    };
    let (user, pass) = (&out[..colon], &out[colon + 1..]);
    !user.is_empty()
        && user.iter().all(|b| b.is_ascii_graphic())
        && !pass.is_empty()
        && !pass.eq_ignore_ascii_case(user)
        && !placeholder(&String::from_utf8_lossy(pass))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_is_told_from_values() {
        for c in [
            "os.environ[",
            "os.getenv(",
            "settings.SLACK_BOT_TOKEN",
            "z.string().min(1)",
            "process.env.DB_PASSWORD",
            "std::env::var(",
            "Environment.GetEnvironmentVariable(",
            "auth_token",
            "getpass.getpass(",
            "config[",
            "hashlib.sha256(client_secret.encode()).hexdigest()",
            "Vec<u8>",
            "Option<SecretString>",
        ] {
            assert!(code(c), "{c}");
        }
        for v in [
            "Xk9fQ2mZpL7",
            "hunter2hunter2",
            "Summer.2024",
            "qwErTyUiOpAsDf.gh",
            "abc",
        ] {
            assert!(!code(v), "{v}");
        }
    }

    #[test]
    fn values_that_look_like_secrets() {
        for (v, name) in [
            ("Zq8!mN3#pL0vX2", "password"),
            ("correcthorsebatterystaple", "DB_PASSWORD"),
            ("correct-horse-battery-staple", "password"),
            ("9f86d081884c7d659a2feaa0c55ad015", "token"),
            ("base64:Xk9fQ2mZpL7aa", "APP_KEY"),
        ] {
            assert!(assigned(v, name), "{v}");
        }
        for (v, name) in [
            ("/srv/app", "PWD"),
            ("keep-it-simple", "secret"),
            ("!vault", "password"),
            ("replace-me", "GITHUB_TOKEN"),
            ("cGFnZT04MjY", "next_page_token"),
            ("true12", "bypass"),
            ("请向管理员索取", "password"),
            ("PASSWORD", "password"),
        ] {
            assert!(!assigned(v, name), "{v}");
        }
        assert!(!credential("admin", "admin") && !credential("guest", "guest"));
        assert!(credential("S3cr3t!x", "app"));
    }

    #[test]
    fn keys_are_told_from_names_with_the_same_prefix() {
        assert!(keyish("proj-Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF", ""));
        assert!(keyish("Ab3dE6gH9j-K2mN5pQ8sT", ""));
        for name in [
            "SK-translations-2024-final",
            "payments-worker-7d9f8b6c4-x2x9z",
        ] {
            assert!(!keyish(name, ""), "{name}");
        }
    }

    #[test]
    fn basic_credentials_decode_to_a_user_and_a_password() {
        assert!(basic_credentials("YW5hOlMzY3IzdCE=", "")); // ana:S3cr3t!
        assert!(!basic_credentials("cmVxdWlyZWQ=", "")); // required
        assert!(!basic_credentials("YWRtaW46YWRtaW4=", "")); // admin:admin
    }
}
