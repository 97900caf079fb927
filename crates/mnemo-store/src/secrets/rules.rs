//! The secret gate's rules (issue 33: 17 of 22 ordinary secret shapes passed the old ten). Each
//! rule is a pattern whose first capture group (else the whole match) is the secret, and a check
//! on that capture: provider tokens by their documented prefixes and shapes, key-file headers,
//! credentials in URLs and `Authorization` headers, and generic assignments
//! (`password: …`, `token=…`, "the password for the db is …") whose value looks like a secret
//! rather than a word. Written for this project from the providers' published token formats.

/// A rule: name, pattern, and the check its capture must pass (`None`: any match is one).
pub(super) type Rule = (&'static str, &'static str, Option<fn(&str) -> bool>);

/// Letters and something else: a token, not a word.
fn has_digit(v: &str) -> bool {
    v.bytes().any(|b| b.is_ascii_digit())
}

/// A value given to a secret's name that looks like a secret: at least 6 characters, not a
/// placeholder (`$VAR`, `<password>`, `${…}`, `YOUR_TOKEN`, `********`), and holding a digit or
/// a symbol — or long (a passphrase of 16 or more).
fn assigned(v: &str) -> bool {
    let v = v.trim_end_matches(['.', ',', ')', ']', '}', '"', '\'']);
    let n = v.chars().count();
    if n < 6 || v.starts_with(['$', '<', '{', '%', '[', '(']) {
        return false;
    }
    let first = v.chars().next().unwrap_or(' ');
    if v.chars().all(|c| c == first) {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    if ["your", "xxxx", "redacted", "example.com", "changeme"]
        .iter()
        .any(|w| lower.contains(w))
        || v.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    {
        return false;
    }
    let symbol = v.chars().any(|c| !c.is_alphanumeric());
    has_digit(v) || symbol || n >= 16
}

/// A value stated in a sentence ("the secret is …"): as [`assigned`], but a hyphenated word
/// (`hard-work`) is a word unless long enough to be a passphrase.
fn stated(v: &str) -> bool {
    let v = v.trim_end_matches(['.', ',', ')', ']', '}', '"', '\'', '!', '?']);
    if !assigned(v) {
        return false;
    }
    let other_symbol = v.chars().any(|c| !c.is_alphanumeric() && c != '-');
    has_digit(v) || other_symbol || v.chars().count() >= 16
}

/// Names a secret goes by in an assignment.
#[cfg(test)]
const NAMES: &str = r"(?:api[_\-. ]?key|apikey|secret(?:[_\- ]?access)?[_\- ]?key|client[_\- ]?secret|secret|access[_\- ]?token|auth[_\- ]?token|refresh[_\- ]?token|bearer[_\- ]?token|token|password|passwd|passphrase|pwd|private[_\- ]?key|access[_\- ]?key)";

pub(super) const RULES: &[Rule] = &[
    (
        "private_key",
        r"-----BEGIN[ \t]+(?:(?:RSA|EC|DSA|OPENSSH|PGP|ENCRYPTED|SSH2)[ \t]+)?PRIVATE[ \t]+KEY(?:[ \t]+BLOCK)?-----",
        None,
    ),
    ("putty_private_key", r"PuTTY-User-Key-File-[0-9]+:", None),
    ("age_secret_key", r"(AGE-SECRET-KEY-1[0-9A-Z]{58})", None),
    (
        "anthropic_api_key",
        r"(?:^|[^A-Za-z0-9])(sk-ant-[A-Za-z0-9_\-]{20,})",
        None,
    ),
    (
        "openai_api_key",
        r"(?:^|[^A-Za-z0-9])(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,})",
        None,
    ),
    // Not `\b`: `aws_AKIA…` has a word character before the key.
    (
        "aws_access_key_id",
        r"(?:^|[^A-Za-z0-9])((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})(?:[^A-Za-z0-9]|$)",
        None,
    ),
    (
        "github_token",
        r"(?:^|[^A-Za-z0-9])((?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}))",
        None,
    ),
    (
        "gitlab_token",
        r"(?:^|[^A-Za-z0-9])(gl(?:pat|ptt|dt|rt|soat|ffct|cbt|imt|agent|oas|wt)-[A-Za-z0-9_\-]{20,})",
        None,
    ),
    (
        "google_api_key",
        r"(?:^|[^A-Za-z0-9])(AIza[0-9A-Za-z_\-]{35})",
        None,
    ),
    (
        "slack_token",
        r"(?:^|[^A-Za-z0-9])(xox[abeprs]-[A-Za-z0-9\-]{10,})",
        None,
    ),
    (
        "slack_webhook",
        r"(https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{20,})",
        None,
    ),
    (
        "discord_webhook",
        r"(https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{5,}/[A-Za-z0-9_\-]{20,})",
        None,
    ),
    (
        "stripe_key",
        r"(?:^|[^A-Za-z0-9])((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,})",
        None,
    ),
    (
        "huggingface_token",
        r"(?:^|[^A-Za-z0-9])((?:hf_|api_org_)[A-Za-z]{30,})",
        None,
    ),
    (
        "npm_token",
        r"(?:^|[^A-Za-z0-9])(npm_[A-Za-z0-9]{36})",
        None,
    ),
    (
        "pypi_token",
        r"(?:^|[^A-Za-z0-9])(pypi-AgE[A-Za-z0-9_\-]{50,})",
        None,
    ),
    (
        "sendgrid_key",
        r"(?:^|[^A-Za-z0-9])(SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,50})",
        None,
    ),
    (
        "twilio_key",
        r"(?:^|[^A-Za-z0-9])((?:SK|AC)[0-9a-f]{32})(?:[^A-Za-z0-9]|$)",
        None,
    ),
    (
        "mailgun_key",
        r"(?:^|[^A-Za-z0-9])(key-[0-9a-z]{32})(?:[^A-Za-z0-9]|$)",
        None,
    ),
    (
        "digitalocean_token",
        r"(?:^|[^A-Za-z0-9])(do[opr]_v1_[a-f0-9]{64})",
        None,
    ),
    (
        "shopify_token",
        r"(?:^|[^A-Za-z0-9])(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})",
        None,
    ),
    (
        "linear_api_key",
        r"(?:^|[^A-Za-z0-9])(lin_(?:api|oauth)_[A-Za-z0-9]{40})",
        None,
    ),
    (
        "databricks_token",
        r"(?:^|[^A-Za-z0-9])(dapi[a-f0-9]{32}(?:-[0-9])?)",
        None,
    ),
    (
        "telegram_bot_token",
        r"(?:^|[^A-Za-z0-9])([0-9]{8,10}:AA[0-9A-Za-z_\-]{33})",
        None,
    ),
    (
        "newrelic_key",
        r"(?:^|[^A-Za-z0-9])(NR(?:AK|II|JS)-[A-Za-z0-9]{27})",
        None,
    ),
    (
        "grafana_token",
        r"(?:^|[^A-Za-z0-9])(gl(?:c|sa)_[A-Za-z0-9+/_]{32,}={0,2})",
        None,
    ),
    (
        "sentry_token",
        r"(?:^|[^A-Za-z0-9])(sntry[su]_[A-Za-z0-9+/=_]{40,})",
        None,
    ),
    (
        "doppler_token",
        r"(?:^|[^A-Za-z0-9])(dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,})",
        None,
    ),
    (
        "azure_storage_key",
        r"(?i)(?:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/]{40,}={0,2})",
        None,
    ),
    (
        "jwt",
        r"(?:^|[^A-Za-z0-9])(eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,})",
        None,
    ),
    // `scheme://user:password@host`: the password.
    (
        "url_password",
        r"(?i)[a-z][a-z0-9+.\-]{1,20}://[^/\s:@]{1,100}:([^/\s@]{3,200})@",
        None,
    ),
    (
        "authorization_header",
        r#"(?i)(?:authorization|proxy-authorization)["']?\s*[:=]\s*["']?(?:bearer|basic|token|digest|apikey)\s+([A-Za-z0-9_\-.=+/~]{8,})"#,
        None,
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
    (
        "assigned_secret",
        concat!(
            r#"(?i)(?:^|[^a-z0-9])"#,
            r"(?:api[_\-. ]?key|apikey|secret(?:[_\- ]?access)?[_\- ]?key|client[_\- ]?secret|secret|access[_\- ]?token|auth[_\- ]?token|refresh[_\- ]?token|bearer[_\- ]?token|token|password|passwd|passphrase|pwd|private[_\- ]?key|access[_\- ]?key)",
            r#"["']?\s*(?::=|=>|[:=])\s*["'`]?([^\s"'`,;]{6,})"#
        ),
        Some(assigned),
    ),
    (
        "stated_secret",
        concat!(
            r"(?i)(?:^|[^a-z0-9])",
            r"(?:api[_\-. ]?key|apikey|secret(?:[_\- ]?access)?[_\- ]?key|client[_\- ]?secret|secret|access[_\- ]?token|auth[_\- ]?token|refresh[_\- ]?token|bearer[_\- ]?token|token|password|passwd|passphrase|pwd|private[_\- ]?key|access[_\- ]?key)",
            r#"(?:\s+(?:for|of|to)\s+(?:the\s+|my\s+|our\s+|your\s+)?[a-z0-9_\-]{1,20}(?:\s+[a-z0-9_\-]{1,20})?)?\s+(?:is|was)\s*:?\s*["'`]?([^\s"'`,;]{6,})"#
        ),
        Some(stated),
    ),
];

#[cfg(test)]
mod tests {
    #[test]
    fn the_names_list_is_the_one_the_generic_rules_use() {
        let r = super::RULES
            .iter()
            .filter(|(n, _, _)| n.ends_with("_secret"))
            .count();
        assert_eq!(r, 2);
        for (_, re, _) in super::RULES
            .iter()
            .filter(|(n, _, _)| n.ends_with("_secret"))
        {
            assert!(re.contains(super::NAMES), "{re}");
        }
    }
}
