//! Key files are secrets over many lines (a private key was once redacted by its first line
//! and its base64 body stayed). A key block is found as a span of the text and redacted whole:
//!
//! - from a `-----BEGIN … PRIVATE KEY-----` line (PEM, OpenSSH, PGP, SSH2) to the matching
//!   `-----END …-----` line, or to the end of the text when the end is missing (a paste cut
//!   short); a PuTTY key file from its first line to its `Private-MAC:` line, or the end;
//! - a base64 body that follows a redacted first line (`[redacted: private_key]`, what the line
//!   rule used to leave), with its `-----END` line;
//! - a base64 body that ends in an `-----END … PRIVATE KEY-----` line with no first line (a text
//!   cut into entries or chunks before it was redacted).
//!
//! Lines may also be joined by spaces or by `\n` escapes (a key inside a JSON string).

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

/// The first line of a private key file; also the `private_key` line rule.
pub(super) const BEGIN: &str =
    r"-{4,5}[ \t]*BEGIN[ \t]+(?:[A-Z0-9]+[ \t]+){0,3}PRIVATE[ \t]+KEY(?:[ \t]+BLOCK)?[ \t]*-{4,5}";
/// Its last line.
const END: &str =
    r"-{4,5}[ \t]*END[ \t]+(?:[A-Z0-9]+[ \t]+){0,3}PRIVATE[ \t]+KEY(?:[ \t]+BLOCK)?[ \t]*-{4,5}";
/// The first line of a PuTTY key file; also the `putty_private_key` line rule.
pub(super) const PUTTY: &str = r"PuTTY-User-Key-File-[0-9]+:";
/// The last line of a PuTTY key file.
const PUTTY_END: &str = r"Private-(?:MAC|Hash):[ \t]*[0-9A-Fa-f]+";

const PEM_RULE: &str = "private_key";
const PUTTY_RULE: &str = "putty_private_key";

/// A key block: the bytes to replace, the rule it falls under, and where its key material
/// starts (for the line a hit names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Span {
    pub range: Range<usize>,
    pub rule: &'static str,
    pub at: usize,
    /// Runs to the end of the text with no last line seen (more of the key may follow).
    pub open: bool,
}

struct Res {
    begin: Regex,
    end: Regex,
    /// `END` at the start of the haystack only (checked at each token: never a scan ahead).
    end_here: Regex,
    putty: Regex,
    putty_end: Regex,
}

fn res() -> Option<&'static Res> {
    static R: OnceLock<Option<Res>> = OnceLock::new();
    R.get_or_init(|| {
        Some(Res {
            begin: Regex::new(BEGIN).ok()?,
            end: Regex::new(END).ok()?,
            end_here: Regex::new(&format!("^(?:{END})")).ok()?,
            putty: Regex::new(PUTTY).ok()?,
            putty_end: Regex::new(PUTTY_END).ok()?,
        })
    })
    .as_ref()
}

/// The marks a redaction of a key's first line leaves.
const MARKS: [(&str, &str); 2] = [
    ("[redacted: private_key]", PEM_RULE),
    ("[redacted: putty_private_key]", PUTTY_RULE),
];

/// Whether `text` ends in the mark of a key's first line (its body may follow).
pub(super) fn ends_in_mark(text: &str) -> bool {
    let t = text.trim_end();
    MARKS.iter().any(|(m, _)| t.ends_with(m))
}

/// Whether `text` may hold a key block at all (cheap: most texts have none of these words).
fn may_hold(text: &str) -> bool {
    text.contains("PRIVATE")
        || text.contains("PuTTY-User-Key-File")
        || MARKS.iter().any(|(m, _)| text.contains(m))
}

/// Where each kind of start occurs next, found once and searched again only once passed (so a
/// text of many marks is read a bounded number of times).
struct Next<'t> {
    text: &'t str,
    /// `(start, end)` of the next BEGIN line, PuTTY first line, mark, mark, END line.
    at: [Option<(usize, usize)>; 5],
    /// Searched at least once (then `None` means none is left: `pos` only grows).
    searched: [bool; 5],
}

impl<'t> Next<'t> {
    fn find(&mut self, r: &Res, kind: usize, pos: usize) -> Option<(usize, usize)> {
        match self.at[kind] {
            Some((s, _)) if s >= pos => return self.at[kind],
            None if self.searched[kind] => return None,
            _ => {}
        }
        let t = self.text;
        self.at[kind] = match kind {
            0 => r.begin.find_at(t, pos).map(|m| (m.start(), m.end())),
            1 => r.putty.find_at(t, pos).map(|m| (m.start(), m.end())),
            2 | 3 => {
                let m = MARKS[kind - 2].0;
                t[pos..].find(m).map(|at| (pos + at, pos + at + m.len()))
            }
            _ => r.end.find_at(t, pos).map(|m| (m.start(), m.end())),
        };
        self.searched[kind] = true;
        self.at[kind]
    }
}

/// Every key block in `text`, in order, not overlapping.
pub(super) fn spans(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let Some(r) = res() else { return out };
    if !may_hold(text) {
        return out;
    }
    let mut next = Next {
        text,
        at: [None; 5],
        searched: [false; 5],
    };
    let mut pos = 0;
    while pos < text.len() {
        let Some((start, after, kind)) = (0..5)
            .filter_map(|k| next.find(r, k, pos).map(|(s, e)| (s, e, k)))
            .min()
        else {
            break;
        };
        let span = match kind {
            0 | 1 => {
                let (close, rule) = if kind == 0 {
                    (&r.end, PEM_RULE)
                } else {
                    (&r.putty_end, PUTTY_RULE)
                };
                let end = close.find_at(text, after).map(|m| m.end());
                Some(Span {
                    range: start..end.unwrap_or(text.len()),
                    rule,
                    at: start,
                    open: end.is_none(),
                })
            }
            2 | 3 => forward_body(text, after, &r.end_here).map(|(at, end, open)| Span {
                range: start..end,
                rule: MARKS[kind - 2].1,
                at,
                open,
            }),
            _ => backward_body(text, pos, start).map(|at| Span {
                range: at..after,
                rule: PEM_RULE,
                at,
                open: false,
            }),
        };
        pos = match span {
            Some(s) => {
                let end = s.range.end;
                out.push(s);
                end
            }
            None => after,
        };
    }
    out
}

/// `text` with every key block replaced by `[redacted: rule]`; `None` when it holds none.
pub(super) fn redact(text: &str) -> Option<String> {
    let spans = spans(text);
    if spans.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for s in spans {
        out.push_str(&text[last..s.range.start]);
        out.push_str(&format!("[redacted: {}]", s.rule));
        last = s.range.end;
    }
    out.push_str(&text[last..]);
    Some(out)
}

fn is_b64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')
}

/// A line of a key's body: base64, at least 16 long, and random (two of upper, lower, and a
/// digit or symbol) — not a long word.
fn body_token(t: &str) -> bool {
    let b = t.as_bytes();
    if b.len() < 16 || !b.iter().all(|&c| is_b64(c)) {
        return false;
    }
    let upper = b.iter().any(u8::is_ascii_uppercase);
    let lower = b.iter().any(u8::is_ascii_lowercase);
    let other = b.iter().any(|c| !c.is_ascii_alphabetic());
    usize::from(upper) + usize::from(lower) + usize::from(other) >= 2
}

/// The length of a separator at `i`: whitespace, or a `\n` / `\r` / `\t` escape.
fn sep_at(text: &str, i: usize) -> usize {
    let b = text.as_bytes();
    match b.get(i) {
        Some(c) if c.is_ascii_whitespace() => 1,
        Some(b'\\') if matches!(b.get(i + 1), Some(b'n' | b'r' | b't')) => 2,
        _ => 0,
    }
}

/// The body after a redaction mark at `at`: `(where it starts, where it ends, open)` — ends
/// after its `-----END` line when one follows (`end` matches only at the start of what it is
/// given). `None` when no body line follows the mark.
fn forward_body(text: &str, at: usize, end: &Regex) -> Option<(usize, usize, bool)> {
    let b = text.as_bytes();
    let mut i = at;
    let mut body: Option<(usize, usize)> = None;
    loop {
        let mut j = i;
        while j < b.len() && sep_at(text, j) > 0 {
            j += sep_at(text, j);
        }
        if j >= b.len() {
            break;
        }
        if let Some(m) = end.find(&text[j..]) {
            return body.map(|(s, _)| (s, j + m.end(), false));
        }
        let mut k = j;
        while k < b.len() && sep_at(text, k) == 0 && b[k] != b'"' {
            k += 1;
        }
        let tok = &text[j..k];
        // Armor headers (`Proc-Type: 4,ENCRYPTED`, `DEK-Info: …`, `Version: …`) before the body.
        if body.is_none()
            && ["Proc-Type:", "DEK-Info:", "Version:", "Comment:"]
                .iter()
                .any(|h| tok.starts_with(h))
        {
            i = text[j..].find('\n').map_or(b.len(), |n| j + n);
            continue;
        }
        let short_tail = body.is_some()
            && !tok.is_empty()
            && tok.bytes().all(is_b64)
            && (tok.contains('=') || {
                let mut n = k;
                while n < b.len() && sep_at(text, n) > 0 {
                    n += sep_at(text, n);
                }
                end.is_match(&text[n..])
            });
        if body_token(tok) || short_tail {
            body = Some((body.map_or(j, |(s, _)| s), k));
            i = k;
            continue;
        }
        break;
    }
    body.map(|(s, e)| (s, e, text[e..].trim().is_empty()))
}

/// The body before an `-----END` line at `end_at` with no first line: where it starts. At least
/// one line must be a body line (the one next to the end line may be short). Never reaches
/// before `floor`.
fn backward_body(text: &str, floor: usize, end_at: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = end_at;
    let mut start = None;
    let mut long = false;
    loop {
        // Step back over separators (whitespace, `\n` escapes).
        let mut j = i;
        loop {
            if j > floor && b[j - 1].is_ascii_whitespace() {
                j -= 1;
            } else if j >= floor + 2 && b[j - 2] == b'\\' && matches!(b[j - 1], b'n' | b'r' | b't')
            {
                j -= 2;
            } else {
                break;
            }
        }
        let mut k = j;
        while k > floor && is_b64(b[k - 1]) {
            k -= 1;
        }
        // `\nMIIE…`: the `n` belongs to the escape.
        if k > floor && b[k - 1] == b'\\' && k < j && matches!(b[k], b'n' | b'r' | b't') {
            k += 1;
        }
        let tok = &text[k..j];
        if tok.is_empty() {
            break;
        }
        if body_token(tok) {
            long = true;
        } else if start.is_some() {
            break;
        }
        start = Some(k);
        i = k;
    }
    start.filter(|_| long)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\nLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo\n9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvre";

    fn one(text: &str) -> Span {
        let s = spans(text);
        assert_eq!(s.len(), 1, "{s:?} in {text}");
        s.into_iter().next().unwrap()
    }

    #[test]
    fn a_block_is_one_span_from_its_first_line_to_its_last() {
        let text = format!(
            "key:\n-----BEGIN RSA PRIVATE KEY-----\n{BODY}\n-----END RSA PRIVATE KEY-----\nafter"
        );
        let s = one(&text);
        assert_eq!(&text[..s.range.start], "key:\n");
        assert_eq!(&text[s.range.end..], "\nafter");
        assert!(!s.open);
        assert_eq!(
            redact(&text).unwrap(),
            "key:\n[redacted: private_key]\nafter"
        );
    }

    #[test]
    fn a_block_without_its_last_line_runs_to_the_end() {
        let text = format!("-----BEGIN OPENSSH PRIVATE KEY-----\n{BODY}\nmore words");
        let s = one(&text);
        assert_eq!(s.range, 0..text.len());
        assert!(s.open);
    }

    #[test]
    fn a_body_after_an_old_redaction_mark_goes_with_its_last_line() {
        let text =
            format!("said: [redacted: private_key]\n{BODY}\n-----END RSA PRIVATE KEY-----\nthanks");
        assert_eq!(
            redact(&text).unwrap(),
            "said: [redacted: private_key]\nthanks"
        );
        let flat = format!(
            "[redacted: private_key] {} trailing words",
            BODY.replace('\n', " ")
        );
        assert_eq!(
            redact(&flat).unwrap(),
            "[redacted: private_key] trailing words"
        );
        // A mark alone, or followed by words, is not a key.
        for t in [
            "[redacted: private_key]",
            "[redacted: private_key] and the rest of the note",
            "[redacted: private_key]\n-----END RSA PRIVATE KEY-----",
            "[redacted: private_key] internationalization",
        ] {
            assert!(spans(t).is_empty(), "{t}");
        }
    }

    #[test]
    fn a_body_ending_in_a_last_line_is_a_key_without_its_first() {
        let text = format!("Proc-Type: 4,ENCRYPTED\n\n{BODY}\nAb==\n-----END RSA PRIVATE KEY-----");
        let s = one(&text);
        assert_eq!(&text[..s.range.start], "Proc-Type: 4,ENCRYPTED\n\n");
        assert_eq!(s.range.end, text.len());
        assert!(spans("just words\n-----END RSA PRIVATE KEY-----").is_empty());
    }

    #[test]
    fn a_key_in_a_json_string_is_one_span() {
        let body = BODY.replace('\n', "\\n");
        let text = format!(
            "{{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{body}\\n-----END PRIVATE KEY-----\\n\", \"x\": 1}}"
        );
        assert_eq!(
            redact(&text).unwrap(),
            "{\"private_key\": \"[redacted: private_key]\\n\", \"x\": 1}"
        );
        let old = format!(
            "{{\"k\": \"[redacted: private_key]\\n{body}\\n-----END PRIVATE KEY-----\\n\"}}"
        );
        assert_eq!(
            redact(&old).unwrap(),
            "{\"k\": \"[redacted: private_key]\\n\"}"
        );
        let orphan = format!("{{\"k\": \"{body}\\n-----END PRIVATE KEY-----\\n\"}}");
        assert_eq!(
            redact(&orphan).unwrap(),
            "{\"k\": \"[redacted: private_key]\\n\"}"
        );
    }

    #[test]
    fn a_putty_key_runs_to_its_mac() {
        let text = "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\nAAAAIGZvb2Jhcg9X2k7Lm3Np\nPrivate-MAC: 0a1b2c3d\nafter";
        assert_eq!(
            redact(text).unwrap(),
            "[redacted: putty_private_key]\nafter"
        );
    }

    #[test]
    fn public_keys_and_certificates_are_no_span() {
        for t in [
            format!("-----BEGIN PUBLIC KEY-----\n{BODY}\n-----END PUBLIC KEY-----"),
            format!("-----BEGIN CERTIFICATE-----\n{BODY}\n-----END CERTIFICATE-----"),
            "PRIVATE KEY is a phrase".to_owned(),
        ] {
            assert!(spans(&t).is_empty(), "{t}");
        }
    }
}
