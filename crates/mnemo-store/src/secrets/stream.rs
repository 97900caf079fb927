//! Redaction of text that arrives in pieces (a streamed model reply), so no secret is shown
//! before the whole of it is known.
//!
//! The rules match within a line, and a secret is one word (a run without whitespace) — the
//! context that marks it ("password:", "the token is") comes before it. So a piece is released
//! only up to the last whitespace seen: the word still being written is held back, and what is
//! released is the current line so far, redacted as a whole, minus what was already released.
//! The released text, joined, is exactly [`super::redact`] of the whole text whenever no rule's
//! replacement starts before the word that completes it (true of every capture rule); where one
//! does, the rest of the redacted line follows its common start with what was shown.

/// A line longer than this is released as if it ended (bounds the work per piece).
const MAX_LINE_BYTES: usize = 16 * 1024;

/// The redactor of one stream.
#[derive(Debug, Default)]
pub struct StreamRedactor {
    /// The raw current line, as received so far.
    line: String,
    /// The redacted text released for the current line.
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
            self.release_line(&mut out);
        }
        self.line.push_str(rest);
        if self.line.len() > MAX_LINE_BYTES {
            self.release_line(&mut out);
            return out;
        }
        // Up to the last whitespace: the word still being written waits.
        if let Some((at, c)) = self
            .line
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
        {
            let upto = at + c.len_utf8();
            let red = super::redact(&self.line[..upto]).0;
            out.push_str(&self.advance(red));
        }
        out
    }

    /// The stream ended: what is left to show.
    pub fn finish(&mut self) -> String {
        let mut out = String::new();
        self.release_line(&mut out);
        out
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
    fn text_is_released_word_by_word_not_held_to_the_end() {
        let mut r = StreamRedactor::new();
        assert_eq!(r.push("Hello wor"), "Hello ");
        assert_eq!(r.push("ld and "), "world and ");
        assert_eq!(r.push("more"), "");
        assert_eq!(r.finish(), "more");
    }
}
