//! Tool markup a model writes as text is not a reply. Small models echo their chat template's
//! tool tags (`<tools></tools>`, `<tool_call>{…}</tool_call>`, `<function=…>…</function>`)
//! instead of calling a tool or answering; shown as prose they read as gibberish. The
//! [`MarkupFilter`] takes a streamed reply piece by piece and leaves out every such element,
//! opening tag to closing tag (to the end when it never closes), holding back only a `<` that
//! may still start one. [`strip_tool_markup`] is the same over a whole text.

/// The tags dropped with everything between them (compared without regard to case).
const TAGS: &[&str] = &[
    "tools",
    "tool_call",
    "tool_calls",
    "tool_response",
    "tool_use",
    "function",
    "functions",
    "function_call",
    "functioncall",
];
/// An opening tag longer than this without its `>` is taken as open at that point.
const MAX_TAG_BYTES: usize = 256;

/// What a held `<…` is.
enum Lead {
    /// Not tool markup: release the `<`.
    Text,
    /// May still become tool markup: wait for more.
    Undecided,
    /// An opening tag of `name`, `len` bytes long (its `>` included).
    Open(&'static str, usize),
    /// A lone closing or self-closing tag, `len` bytes long: dropped.
    Lone(usize),
}

fn tag_named(name: &str) -> Option<&'static str> {
    TAGS.iter().copied().find(|t| t.eq_ignore_ascii_case(name))
}

fn may_become_tag(prefix: &str) -> bool {
    TAGS.iter().any(|t| {
        t.len() >= prefix.len()
            && t.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
    })
}

/// Classify `s`, which starts with `<`.
fn lead(s: &str) -> Lead {
    let rest = &s[1..];
    let (closing, rest) = match rest.strip_prefix('/') {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let name_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let name = &rest[..name_len];
    if name_len == rest.len() {
        // The name may still be being written.
        return if may_become_tag(name) {
            Lead::Undecided
        } else {
            Lead::Text
        };
    }
    let Some(tag) = tag_named(name) else {
        return Lead::Text;
    };
    let after = &rest[name_len..];
    if !after.starts_with(['>', ' ', '=', '\n', '/', '\t']) {
        return Lead::Text;
    }
    let head = s.len() - after.len();
    match after.find('>') {
        Some(gt) => {
            let len = head + gt + 1;
            if closing || s[..len].ends_with("/>") {
                Lead::Lone(len)
            } else {
                Lead::Open(tag, len)
            }
        }
        None if s.len() > MAX_TAG_BYTES => Lead::Open(tag, s.len()),
        None => Lead::Undecided,
    }
}

/// Byte index of the first case-insensitive match of `needle` (ASCII) in `hay`.
fn find_ascii_ci(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    (0..=h.len().checked_sub(n.len())?).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

/// The filter of one streamed reply.
#[derive(Debug, Default)]
pub struct MarkupFilter {
    /// Text received and not yet released or dropped.
    held: String,
    /// Inside an element of this tag: everything is dropped until its closing tag.
    inside: Option<&'static str>,
    /// Whether anything was left out.
    dropped: bool,
}

impl MarkupFilter {
    /// A filter for a new reply.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether markup was left out so far.
    #[must_use]
    pub fn dropped(&self) -> bool {
        self.dropped
    }

    /// Take a piece; returns what may be shown now (possibly empty).
    pub fn push(&mut self, piece: &str) -> String {
        self.held.push_str(piece);
        let mut out = String::new();
        loop {
            if let Some(tag) = self.inside {
                let close = format!("</{tag}>");
                if let Some(i) = find_ascii_ci(&self.held, &close) {
                    self.held.drain(..i + close.len());
                    self.inside = None;
                    continue;
                }
                // Keep only what may be the start of the closing tag.
                let mut keep = self.held.len().saturating_sub(close.len() - 1);
                while !self.held.is_char_boundary(keep) {
                    keep += 1;
                }
                self.held.drain(..keep);
                return out;
            }
            let Some(i) = self.held.find('<') else {
                out.push_str(&self.held);
                self.held.clear();
                return out;
            };
            out.push_str(&self.held[..i]);
            self.held.drain(..i);
            match lead(&self.held) {
                Lead::Text => {
                    out.push('<');
                    self.held.drain(..1);
                }
                Lead::Undecided => return out,
                Lead::Open(tag, len) => {
                    self.held.drain(..len);
                    self.inside = Some(tag);
                    self.dropped = true;
                }
                Lead::Lone(len) => {
                    self.held.drain(..len);
                    self.dropped = true;
                }
            }
        }
    }

    /// The reply ended: what is left to show (an element never closed is dropped whole).
    pub fn finish(&mut self) -> String {
        if self.inside.take().is_some() {
            self.held.clear();
            return String::new();
        }
        std::mem::take(&mut self.held)
    }
}

/// `text` without tool markup.
#[must_use]
pub fn strip_tool_markup(text: &str) -> String {
    let mut f = MarkupFilter::new();
    let mut out = f.push(text);
    out.push_str(&f.finish());
    out
}

/// Whether `text` holds tool markup.
#[must_use]
pub fn holds_tool_markup(text: &str) -> bool {
    let mut f = MarkupFilter::new();
    f.push(text);
    f.finish();
    f.dropped()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every split of `text` into two pieces, and one piece per character, give the same
    /// result as the whole.
    fn streamed_agrees(text: &str) -> String {
        let whole = strip_tool_markup(text);
        let cuts: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for &cut in &cuts {
            let mut f = MarkupFilter::new();
            let mut out = f.push(&text[..cut]);
            out.push_str(&f.push(&text[cut..]));
            out.push_str(&f.finish());
            assert_eq!(out, whole, "cut at {cut} of {text:?}");
        }
        let mut f = MarkupFilter::new();
        let mut out = String::new();
        for c in text.chars() {
            out.push_str(&f.push(&c.to_string()));
        }
        out.push_str(&f.finish());
        assert_eq!(out, whole, "char by char: {text:?}");
        whole
    }

    #[test]
    fn tool_markup_is_left_out_and_prose_kept() {
        assert_eq!(streamed_agrees("<tools></tools>"), "");
        assert_eq!(
            streamed_agrees(
                "Sure.\n<tool_call>\n{\"name\": \"save\", \"arguments\": {}}\n</tool_call>\nDone."
            ),
            "Sure.\n\nDone."
        );
        assert_eq!(
            streamed_agrees("<function=search>{\"q\":\"x\"}</function> ok"),
            " ok"
        );
        assert_eq!(streamed_agrees("a <TOOL_CALL>{}</Tool_Call>b"), "a b");
        assert_eq!(
            streamed_agrees("before <tool_call>{\"never\": closed"),
            "before "
        );
        assert_eq!(
            streamed_agrees("stray </tools> and <tools/> tags"),
            "stray  and  tags"
        );
    }

    #[test]
    fn angle_brackets_in_prose_and_code_are_kept() {
        for text in [
            "if a < b and b > c then",
            "use Vec<String> and <div class=\"x\">hi</div>",
            "<toolbox> is not a tool tag; nor is <functional>",
            "the <tool> word alone stays",
            "ends with <",
            "ends with <too",
            "中文 <b>粗体</b> 完",
        ] {
            assert_eq!(streamed_agrees(text), text, "{text}");
            assert!(!holds_tool_markup(text));
        }
        assert!(holds_tool_markup("<tools></tools>"));
    }
}
