//! The secret gate on the one write path: no write Mnemo makes — a person's
//! edit, an agent's tool, an import, a proposal staged or accepted — adds a secret to a memory
//! file. It sits in [`super::Vault::mutate_held`] and the review path, so a new writer cannot
//! forget it. A secret already in the file (another program wrote it) does not block other
//! changes: only what a write adds is refused.

use std::collections::HashMap;

use mnemo_core::{Error, ErrorCode, Result};

use crate::secrets::{self, SecretHit};

fn hits_of(rel: &str, bytes: Option<&[u8]>, with_name: bool) -> Vec<(SecretHit, u64)> {
    let mut hits = if with_name {
        secrets::scan_marked(rel)
    } else {
        Vec::new()
    };
    if let Some(b) = bytes {
        hits.extend(secrets::scan_marked(&String::from_utf8_lossy(b)));
    }
    hits
}

/// Refuse `after` when it holds a secret `before` did not: each hit is a rule and which secret
/// it matched, counted, so a second copy and a secret swapped for another of the same kind are
/// both new (the file's name counts for a new file). The error names the rules and lines, never
/// the secret.
pub(crate) fn refuse_added_secrets(
    rel: &str,
    before: Option<&[u8]>,
    after: Option<&[u8]>,
) -> Result<()> {
    if after.is_none() {
        return Ok(());
    }
    let new_name = before.is_none();
    let now = hits_of(rel, after, new_name);
    if now.is_empty() {
        return Ok(());
    }
    let mut had: HashMap<(&'static str, u64), usize> = HashMap::new();
    for (h, mark) in hits_of(rel, before, false) {
        *had.entry((h.rule, mark)).or_default() += 1;
    }
    // Each hit before pays for one after with its rule and mark; the rest are added.
    let added: Vec<SecretHit> = now
        .into_iter()
        .filter_map(|(h, mark)| match had.get_mut(&(h.rule, mark)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                None
            }
            _ => Some(h),
        })
        .collect();
    if added.is_empty() {
        return Ok(());
    }
    // A memory's lines are counted in its body, as a person edits it (the frontmatter's own
    // lines say so).
    let head = after
        .filter(|_| crate::doc::doc_kind(rel) == Some(crate::doc::DocKind::Topic))
        .map_or(0, |b| frontmatter_lines(&String::from_utf8_lossy(b)));
    let parts: Vec<String> = added
        .iter()
        .map(|h| match h.line.checked_sub(head) {
            Some(n) if n > 0 && head > 0 => format!("{} (line {n} of the body)", h.rule),
            _ if head > 0 => format!("{} (line {} of the frontmatter)", h.rule, h.line),
            _ => format!("{} (line {})", h.rule, h.line),
        })
        .collect();
    Err(Error::new(
        ErrorCode::InvalidContent,
        format!(
            "refused: `{rel}` would hold what looks like a secret — {}. Memories must not store credentials; remove it and write again.",
            parts.join(", ")
        ),
    ))
}

/// How many lines a topic file's frontmatter takes (both `---` included); 0 without one.
fn frontmatter_lines(text: &str) -> usize {
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return 0;
    }
    lines
        .position(|l| l.trim_end() == "---")
        .map_or(0, |i| i + 2)
}

/// Refuse a file name that holds a secret (such a file is no memory Mnemo lists, so the name is
/// checked before anything else says "not a memory file").
pub(crate) fn refuse_secret_name(rel: &str) -> Result<()> {
    let hits = secrets::scan(rel);
    if hits.is_empty() {
        return Ok(());
    }
    let rules: Vec<&str> = hits.iter().map(|h| h.rule).collect();
    Err(Error::new(
        ErrorCode::InvalidContent,
        format!(
            "refused: the file name looks like it holds a secret ({}). Memories must not store credentials; pick another name.",
            rules.join(", ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "token ghp_0123456789abcdefghijABCDEFGHIJ012345";

    #[test]
    fn a_write_that_adds_a_secret_is_refused_naming_the_rule_not_the_secret() {
        let e = refuse_added_secrets("a.md", None, Some(KEY.as_bytes())).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidContent);
        assert!(!e.message.contains("ghp_0123"), "{}", e.message);
        assert!(e.message.contains("line 1"), "{}", e.message);
        let e = refuse_added_secrets("a.md", Some(b"x\n"), Some(format!("x\n{KEY}\n").as_bytes()))
            .unwrap_err();
        assert!(e.message.contains("line 2"), "{}", e.message);
        // A memory's lines are its body's, as a person edits it.
        let topic = format!("---\nname: K\ndescription: d\ntype: user\n---\nfirst\n{KEY}\n");
        let e = refuse_added_secrets("k.md", None, Some(topic.as_bytes())).unwrap_err();
        assert!(e.message.contains("(line 2 of the body)"), "{}", e.message);
        let e = refuse_added_secrets("logs/2026/11/2026-11-28.md", None, Some(topic.as_bytes()))
            .unwrap_err();
        assert!(e.message.contains("(line 7)"), "{}", e.message);
    }

    #[test]
    fn a_secret_already_on_disk_does_not_block_other_changes_nor_deletion() {
        let before = format!("{KEY}\n");
        let after = format!("{KEY}\nmore\n");
        refuse_added_secrets("a.md", Some(before.as_bytes()), Some(after.as_bytes())).unwrap();
        refuse_added_secrets("a.md", Some(before.as_bytes()), None).unwrap();
        // A second copy is a new one.
        let twice = format!("{KEY}\n{KEY}\n");
        assert!(
            refuse_added_secrets("a.md", Some(before.as_bytes()), Some(twice.as_bytes())).is_err()
        );
    }

    #[test]
    fn a_secret_swapped_for_another_of_its_kind_is_refused_an_edit_beside_it_is_not() {
        const OTHER: &str = "token ghp_ZZZZ456789abcdefghijABCDEFGHIJ012345";
        let before = format!("note: {KEY}\n");
        let swapped = format!("note: {OTHER}\n");
        let e = refuse_added_secrets("a.md", Some(before.as_bytes()), Some(swapped.as_bytes()))
            .unwrap_err();
        assert!(e.message.contains("github"), "{}", e.message);
        // The same secret, its line edited around it: kept, not added.
        let edited = format!("old note, edited: {KEY} (rotate soon)\n");
        refuse_added_secrets("a.md", Some(before.as_bytes()), Some(edited.as_bytes())).unwrap();
        // Moved to another line: the same secret.
        let moved = format!("first\nnote: {KEY}\n");
        refuse_added_secrets("a.md", Some(before.as_bytes()), Some(moved.as_bytes())).unwrap();
        // A private key's body changed under the same first and last lines: another key.
        let key = |body: &str| {
            format!(
                "-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----\n"
            )
        };
        let a = key("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW");
        let b = key("QyNTUxOQAAACDkV1o5bWJ2eXZ0ZmJ1c2V0aGlzaXNub3RhcmVhbGtleWZvcnRlc3RzAAAA");
        assert!(refuse_added_secrets("a.md", Some(a.as_bytes()), Some(b.as_bytes())).is_err());
        refuse_added_secrets(
            "a.md",
            Some(a.as_bytes()),
            Some(format!("x\n{a}").as_bytes()),
        )
        .unwrap();
    }

    #[test]
    fn a_new_file_named_after_a_secret_is_refused() {
        let name = "ghp_0123456789abcdefghijABCDEFGHIJ012345.md";
        assert!(refuse_added_secrets(name, None, Some(b"plain\n")).is_err());
        refuse_added_secrets("plain.md", None, Some(b"plain\n")).unwrap();
    }
}
