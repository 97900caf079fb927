//! The secret gate's rules (17 of 22 ordinary secret shapes passed the ten rules before them;
//! measured on a generated corpus, `tests/store/secrets_measured.rs`). Each rule is a
//! pattern whose capture named `v`, else its first capture, else the whole match, is the secret,
//! and a check on that value and the name it was given (the capture named `n`):
//!
//! - `providers.rs` — provider tokens by their documented prefixes and shapes, key files' first
//!   lines (a key block is redacted whole, `secrets/pem.rs`);
//! - `generic.rs` — assignments and sentences, `.netrc` and `.pgpass` lines, credentials in URLs,
//!   commands and headers;
//! - `checks.rs` — what a value must look like to be a secret rather than a word, a
//!   placeholder, a path or code.

use std::sync::OnceLock;

mod checks;
mod generic;
mod providers;

/// A rule's check: the value, and the name it was given (`""` where the rule has none).
pub(super) type Check = fn(&str, &str) -> bool;

/// A rule: name, pattern, and the check its value must pass (`None`: any match is one).
pub(super) type Rule = (&'static str, &'static str, Option<Check>);

/// Every rule, providers first (a token in an assignment is named by its provider).
pub(super) fn all() -> &'static [Rule] {
    static R: OnceLock<Vec<Rule>> = OnceLock::new();
    R.get_or_init(|| {
        providers::RULES
            .iter()
            .chain(generic::RULES)
            .copied()
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::all;

    #[test]
    fn every_rule_compiles_alone_and_in_the_set() {
        for (name, re, _) in all() {
            assert!(regex::Regex::new(re).is_ok(), "{name}: {re}");
        }
        assert!(regex::RegexSet::new(all().iter().map(|(_, re, _)| *re)).is_ok());
    }

    #[test]
    fn the_names_list_is_the_one_the_generic_rules_use() {
        let generic: Vec<_> = all()
            .iter()
            .filter(|(n, _, _)| ["assigned_secret", "stated_secret"].contains(n))
            .collect();
        assert_eq!(generic.len(), 2, "{generic:?}");
        for (_, re, _) in generic {
            assert!(re.contains(super::generic::NAMES), "{re}");
        }
    }
}
