//! Redaction of text that arrives in pieces (a streamed model reply), so no secret is shown
//! before the whole of it is known.
//!
//! The rules match within a line, and a secret is one word (a run without whitespace) — the
//! context that marks it ("password:", "the token is") comes before it. So a piece is released
//! only up to the last whitespace seen: the word still being written is held back, and what is
//! released is the current line so far, redacted as a whole, minus what was already released.
//! A key block spans lines (`pem.rs`): while one is open (its first line seen, its last not
//! yet), the lines are kept together and its redaction shows nothing more; and words that may
//! be a key's body (base64 lines that an `-----END` line may yet claim) are held until a word
//! that is not one follows. The released text, joined, is exactly [`super::redact`] of the
//! whole text whenever no rule's replacement starts before the word that completes it (true of
//! every capture rule); where one does, the rest of the redacted line follows its common start
//! with what was shown.

/// A line longer than this is released as if it ended (bounds the work per piece); an open key
/// block that long keeps only its first line.
const MAX_LINE_BYTES: usize = 16 * 1024;

/// The redactor of one stream.
#[derive(Debug, Default)]
pub struct StreamRedactor {
    /// The raw current line (or open key block), as received so far.
    line: String,
    /// The redacted text released for it.
    shown: String,
}

impl StreamRedactor {
    /// A redactor for a new stream.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Take a piece; returns what may be shown now (possibly empty).
    pub fn push(&mut self, piece: &str) -> String {
        let mut out = String::new();
        let mut rest = piece;
        while let Some(i) = rest.find('\n') {
            self.line.push_str(&rest[..=i]);
            rest = &rest[i + 1..];
            if !self.held() {
                self.release_line(&mut out);
            }
        }
        self.line.push_str(rest);
        if self.line.len() > MAX_LINE_BYTES {
            if let Some(first) = self.open_block_start() {
                // Keep the block's first line: what it redacts to does not change.
                let head_end = self.line[first..]
                    .find('\n')
                    .map_or(self.line.len(), |n| first + n + 1);
                self.line.truncate(head_end);
            } else {
                self.release_line(&mut out);
                return out;
            }
        }
        // Up to the last whitespace (the word still being written waits), and before any
        // trailing words that may be a key's body.
        let upto = self
            .line
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map(|(at, c)| at + c.len_utf8());
        if let Some(upto) = upto {
            let upto = body_start(&self.line[..upto]);
            if upto > 0 {
                let red = super::redact(&self.line[..upto]).0;
                out.push_str(&self.advance(red));
            }
        }
        out
    }

    /// The stream ended: what is left to show.
    pub fn finish(&mut self) -> String {
        let mut out = String::new();
        self.release_line(&mut out);
        out
    }

    /// Whether the text so far must be kept with what follows: a key block is open, its last
    /// words may be a key's body, or it ends in the mark of a key's first line.
    fn held(&self) -> bool {
        self.open_block_start().is_some()
            || body_start(&self.line) < self.line.len()
            || super::pem::ends_in_mark(&self.line)
    }

    /// Where an open key block starts (one that runs to the end of the text so far).
    fn open_block_start(&self) -> Option<usize> {
        super::pem::spans(&self.line)
            .last()
            .filter(|s| s.open)
            .map(|s| s.range.start)
    }

    fn release_line(&mut self, out: &mut String) {
        let red = super::redact(&self.line).0;
        out.push_str(&self.advance(red));
        self.line.clear();
        self.shown.clear();
    }

    /// The part of `red` (the current line redacted so far) not shown yet: what follows its
    /// common start with what was shown.
    fn advance(&mut self, red: String) -> String {
        let common = self
            .shown
            .char_indices()
            .zip(red.chars())
            .find(|((_, a), b)| a != b)
            .map_or(self.shown.len().min(red.len()), |((i, _), _)| i);
        let new = red[common..].to_owned();
        self.shown = red;
        new
    }
}

/// Where the text that must wait starts in `text` (its length when nothing must): a last,
/// unfinished line from a `----` on (a key's first or last line being written), and before it
/// the trailing run of words that may be a key's body (base64 words of 16 or more).
fn body_start(text: &str) -> usize {
    let last_line = text.rfind('\n').map_or(0, |i| i + 1);
    let mut start = text[last_line..]
        .find("----")
        .map_or(text.len(), |at| last_line + at);
    let mut end = text[..start].trim_end().len();
    while end > 0 {
        let word_start = text[..end].rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let word = &text[word_start..end];
        if word.len() < 16
            || !word
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
        {
            break;
        }
        start = word_start;
        end = text[..word_start].trim_end().len();
    }
    start
}

#[cfg(test)]
mod tests {
    use super::StreamRedactor;

    fn streamed(text: &str, piece: usize) -> String {
        let mut r = StreamRedactor::new();
        let mut out = String::new();
        let chars: Vec<char> = text.chars().collect();
        for p in chars.chunks(piece) {
            let got = r.push(&p.iter().collect::<String>());
            out.push_str(&got);
        }
        out.push_str(&r.finish());
        out
    }

    #[test]
    fn a_secret_split_across_pieces_is_never_shown_and_the_text_is_whole() {
        let token = "ghp_R8x2Kq7Lm3Np9Vt4Wz6Yb1Cd5Fg0Hj2Ks4Mx";
        let texts = [
            format!("Sure. Your token {token} is set.\nNext line."),
            "the password for the db is Zq8!mN3#pL0vX2\nok".to_owned(),
            "Nothing secret here,\njust two lines.".to_owned(),
            token.to_owned(),
            "多语言 文本 没有 秘密。\n第二行".to_owned(),
        ];
        for text in &texts {
            let whole = crate::secrets::redact(text).0;
            for piece in [1, 2, 3, 7, 50, 1000] {
                let mut r = StreamRedactor::new();
                let mut shown = String::new();
                let chars: Vec<char> = text.chars().collect();
                for p in chars.chunks(piece) {
                    shown.push_str(&r.push(&p.iter().collect::<String>()));
                    assert!(!shown.contains("ghp_R8x2"), "{shown}");
                    assert!(!shown.contains("Zq8!"), "{shown}");
                }
                shown.push_str(&r.finish());
                assert_eq!(shown, whole, "pieces of {piece}");
                assert_eq!(streamed(text, piece), whole);
            }
        }
    }

    #[test]
    fn a_private_key_streamed_line_by_line_is_never_shown() {
        let body = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK";
        let texts = [
            format!(
                "Here is the key:\n-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\nKeep it safe."
            ),
            format!("Cut short: -----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n"),
            format!("Only the end:\n{body}\n-----END RSA PRIVATE KEY-----\ndone"),
            format!("[redacted: private_key]\n{body}\n-----END RSA PRIVATE KEY-----\nok"),
        ];
        for text in &texts {
            let whole = crate::secrets::redact(text).0;
            for piece in [1, 3, 7, 64, 1000] {
                let mut r = StreamRedactor::new();
                let mut shown = String::new();
                let chars: Vec<char> = text.chars().collect();
                for p in chars.chunks(piece) {
                    shown.push_str(&r.push(&p.iter().collect::<String>()));
                    for line in body.lines() {
                        for at in (0..line.len() - 12).step_by(4) {
                            assert!(!shown.contains(&line[at..at + 12]), "{shown}");
                        }
                    }
                }
                shown.push_str(&r.finish());
                assert_eq!(shown, whole, "pieces of {piece}");
            }
        }
        // Text after a closed block flows again word by word.
        let mut r = StreamRedactor::new();
        let head = r.push(&format!(
            "-----BEGIN EC PRIVATE KEY-----\n{body}\n-----END EC PRIVATE KEY-----\n"
        ));
        assert_eq!(head, "[redacted: private_key]\n");
        assert_eq!(r.push("more words "), "more words ");
    }

    #[test]
    fn a_key_longer_than_a_line_may_be_stays_hidden_and_bounded() {
        let line = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n";
        let text = format!(
            "key: -----BEGIN RSA PRIVATE KEY-----\n{}-----END RSA PRIVATE KEY-----\nafter it",
            line.repeat(1_000)
        );
        let mut r = StreamRedactor::new();
        let mut shown = String::new();
        for p in text.as_bytes().chunks(100) {
            shown.push_str(&r.push(std::str::from_utf8(p).unwrap()));
            assert!(!shown.contains("MIIEowIBAAK"), "{shown}");
            assert!(r.line.len() <= super::MAX_LINE_BYTES + 200);
        }
        shown.push_str(&r.finish());
        assert_eq!(shown, "key: [redacted: private_key]\nafter it");
        assert_eq!(shown, crate::secrets::redact(&text).0);
    }

    #[test]
    fn text_is_released_word_by_word_not_held_to_the_end() {
        let mut r = StreamRedactor::new();
        assert_eq!(r.push("Hello wor"), "Hello ");
        assert_eq!(r.push("ld and "), "world and ");
        assert_eq!(r.push("more"), "");
        assert_eq!(r.finish(), "more");
    }
}
