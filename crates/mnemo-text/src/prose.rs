//! A note's prose as a name and a description are taken from it (markdown folder imports). A
//! note's first line is often not prose: an Obsidian embed (`![[Books.base#Author]]`), a lone
//! `[[link]]`, a `-` left in an empty list, a rule; and its first sentence is often wrapped over
//! several lines by its editor. Taking the first line as it was gave descriptions such as
//! `![[Books.base#Author]]`, `-` or half a sentence.

/// The longest description taken from prose (in characters): one sentence, read at a glance.
pub const DESCRIPTION_CHARS: usize = 160;

/// The text of the note's first `# heading` (level one; none inside a code block), links as
/// their words; `None` when it has none with words.
#[must_use]
pub fn first_heading(body: &str) -> Option<String> {
    let mut fence = None;
    for line in body.lines() {
        let t = line.trim();
        if in_fence(&mut fence, t) {
            continue;
        }
        let Some(h) = t.strip_prefix("# ") else {
            continue;
        };
        let text = clean(h.trim().trim_end_matches('#'), true);
        if has_words(&text) {
            return Some(shorten(&text, 120));
        }
    }
    None
}

/// The note's first sentence of prose: headings, rules, tables, code, embeds, lines of only
/// links and lines without a letter or digit skipped; a paragraph's hard-wrapped lines joined
/// before it is cut at its first sentence's end (at most [`DESCRIPTION_CHARS`]). A list item
/// or a `key: value` line stands alone. Links are kept as their words.
#[must_use]
pub fn first_sentence(body: &str) -> Option<String> {
    let mut fence = None;
    let mut para: Vec<String> = Vec::new();
    for line in body.lines() {
        let t = line.trim();
        if in_fence(&mut fence, t) {
            if !para.is_empty() {
                break;
            }
            continue;
        }
        let structural = t.is_empty()
            || t.starts_with('#') && (t.trim_start_matches('#').is_empty() || heading(t))
            || t.starts_with('|')
            || t.starts_with('<');
        if structural {
            if para.is_empty() {
                continue;
            }
            break;
        }
        let quoted = strip_quote(t);
        let (text, alone) = match list_item(quoted) {
            Some(item) => (item, true),
            None => (quoted, field_line(quoted)),
        };
        let words = clean(text, false);
        let text = clean(text, true);
        if !has_words(&words) || only_tags(&text) {
            if para.is_empty() {
                continue;
            }
            break;
        }
        if alone {
            if para.is_empty() {
                return Some(sentence(&text));
            }
            break;
        }
        para.push(text);
    }
    (!para.is_empty()).then(|| sentence(&para.join(" ")))
}

/// A frontmatter description worth keeping: `None` for an embed, a lone link or punctuation.
#[must_use]
pub fn meaningful(description: &str) -> Option<&str> {
    let d = description.trim();
    (has_words(&clean(d, false)) && !only_tags(d)).then_some(d)
}

/// Whether `t` opens or closes a code block (then `fence` says which), or is inside one.
fn in_fence(fence: &mut Option<&'static str>, t: &str) -> bool {
    let marker = if t.starts_with("```") {
        Some("```")
    } else if t.starts_with("~~~") {
        Some("~~~")
    } else {
        None
    };
    match (*fence, marker) {
        (None, Some(m)) => {
            *fence = Some(m);
            true
        }
        (Some(open), Some(m)) if open == m => {
            *fence = None;
            true
        }
        (Some(_), _) => true,
        (None, None) => false,
    }
}

fn heading(t: &str) -> bool {
    let rest = t.trim_start_matches('#');
    t.len() - rest.len() <= 6 && rest.starts_with(' ')
}

/// A blockquote's text (`> …`, an Obsidian callout's `[!note]` dropped).
fn strip_quote(t: &str) -> &str {
    let mut s = t;
    while let Some(r) = s.strip_prefix('>') {
        s = r.trim_start();
    }
    if s.starts_with("[!")
        && let Some(end) = s.find(']')
    {
        s = s[end + 1..].trim_start_matches(['-', '+']).trim_start();
    }
    s
}

/// A list item's text (`- `, `* `, `+ `, `1. `, a task's `[ ] ` dropped).
fn list_item(t: &str) -> Option<&str> {
    let rest = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .or_else(|| t.strip_prefix("+ "))
        .or_else(|| {
            let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            (digits > 0 && digits < 4)
                .then(|| t[digits..].strip_prefix(". "))
                .flatten()
        })?;
    let rest = rest.trim_start();
    Some(
        ["[ ] ", "[x] ", "[X] "]
            .iter()
            .find_map(|p| rest.strip_prefix(p))
            .unwrap_or(rest),
    )
}

/// `director: Ridley Scott` — a field, as a frontmatter-only note's body lists them.
fn field_line(t: &str) -> bool {
    t.split_once(": ").is_some_and(|(k, v)| {
        !k.is_empty()
            && k.chars().count() <= 40
            && k.split_whitespace().count() <= 3
            && k.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-'))
            && !v.trim().is_empty()
    })
}

fn has_words(s: &str) -> bool {
    s.chars().any(char::is_alphanumeric)
}

/// A line of only `#tags`.
fn only_tags(s: &str) -> bool {
    s.split_whitespace()
        .all(|w| w.starts_with('#') && w.len() > 1)
}

/// A line's words as a reader sees them: embeds and images dropped, `[[page|alias]]` as its
/// alias (`[[page#part]]` as `page`; dropped too unless `links`), `[text](url)` as its text,
/// comments and a trailing `^block-id` dropped, `*` and backticks dropped.
fn clean(line: &str, links: bool) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("![[") {
            rest = r.find("]]").map_or("", |end| &r[end + 2..]);
        } else if let Some(r) = rest.strip_prefix("[[") {
            let Some(end) = r.find("]]") else {
                out.push_str(r);
                break;
            };
            let inner = &r[..end];
            let shown = match inner.split_once('|') {
                Some((_, alias)) => alias,
                None => inner.split('#').next().unwrap_or(inner),
            };
            if links {
                out.push_str(shown.trim());
            }
            rest = &r[end + 2..];
        } else if let Some((text, after)) = md_link(rest) {
            if !rest.starts_with('!') {
                out.push_str(text);
            }
            rest = after;
        } else if let Some(r) = rest.strip_prefix("%%") {
            rest = r.find("%%").map_or("", |end| &r[end + 2..]);
        } else if let Some(r) = rest.strip_prefix("<!--") {
            rest = r.find("-->").map_or("", |end| &r[end + 3..]);
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            if !matches!(c, '`' | '*') {
                out.push(c);
            }
            rest = &rest[c.len_utf8()..];
        }
    }
    let mut s = out.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some((before, id)) = s.rsplit_once(" ^")
        && !id.is_empty()
        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        s = before.to_owned();
    }
    s
}

/// `[text](url)` or `![alt](url)` at the start of `s`: its text and what follows it.
fn md_link(s: &str) -> Option<(&str, &str)> {
    let r = s.strip_prefix('!').unwrap_or(s).strip_prefix('[')?;
    let close = r.find("](")?;
    let after = &r[close + 2..];
    let end = after.find(')')?;
    Some((&r[..close], &after[end + 1..]))
}

/// Words whose `.` ends no sentence.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "no", "e.g", "i.e", "cf",
    "fig", "approx",
];

/// The text up to its first sentence's end (`.`, `!` or `?` before a capital, or the end;
/// `。！？` anywhere), at most [`DESCRIPTION_CHARS`].
fn sentence(text: &str) -> String {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut end = text.len();
    for (k, &(i, c)) in chars.iter().enumerate() {
        if matches!(c, '。' | '！' | '？') {
            end = i + c.len_utf8();
            break;
        }
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        // An initial or a short title (`K.`, `Dr.`, `e.g.`) ends no sentence.
        let word: String = chars[..k]
            .iter()
            .rev()
            .map(|&(_, w)| w)
            .take_while(|w| !w.is_whitespace())
            .collect::<String>()
            .chars()
            .rev()
            .collect::<String>()
            .to_lowercase();
        let initial = word.chars().count() == 1 && word.chars().all(char::is_alphabetic);
        if c == '.' && (initial || ABBREVIATIONS.contains(&word.as_str())) {
            continue;
        }
        let next = chars.get(k + 1).map(|&(_, n)| n);
        let after = chars.get(k + 2).map(|&(_, n)| n);
        if next.is_some_and(char::is_whitespace)
            && after.is_some_and(|a| a.is_uppercase() || matches!(a, '"' | '“' | '('))
        {
            end = i + 1;
            break;
        }
    }
    shorten(&text[..end], DESCRIPTION_CHARS)
}

/// Whitespace collapsed, cut at a word to at most `max` characters (with `…` when cut).
#[must_use]
pub fn shorten(s: &str, max: usize) -> String {
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    let at_word = match cut.rfind(' ') {
        Some(i) if i > cut.len() / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!(
        "{}…",
        at_word.trim_end_matches(|c: char| !c.is_alphanumeric())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embeds_lone_links_and_punctuation_are_not_prose() {
        let body = "![[Books.base#Author]]\n\n-\n\n[[Reading list]], [[2024]]\n\n---\n\n\
                    Ursula K. Le Guin wrote *The Dispossessed* in\n1974, a novel about an \
                    anarchist\nmoon. It won the Hugo.\n";
        assert_eq!(
            first_sentence(body).as_deref(),
            Some(
                "Ursula K. Le Guin wrote The Dispossessed in 1974, a novel about an anarchist moon."
            )
        );
        assert_eq!(meaningful("![[Books.base#Author]]"), None);
        assert_eq!(meaningful(" - "), None);
        assert_eq!(meaningful("#book #fiction"), None);
        assert_eq!(
            meaningful("Novels I want to read"),
            Some("Novels I want to read")
        );
    }

    #[test]
    fn links_read_as_their_words_and_a_long_sentence_is_cut_at_a_word() {
        assert_eq!(
            first_sentence(
                "> [!note] Read [[Ursula Le Guin|Le Guin]] and [the list](x.md) e.g. first ^a1b2\n"
            )
            .as_deref(),
            Some("Read Le Guin and the list e.g. first")
        );
        let long = "word ".repeat(60);
        let got = first_sentence(&long).unwrap();
        assert!(
            got.ends_with('…') && got.chars().count() <= DESCRIPTION_CHARS,
            "{got}"
        );
        assert_eq!(
            first_sentence("```\ncode\n```\n- [ ] Buy milk\nand bread\n").as_deref(),
            Some("Buy milk")
        );
    }

    #[test]
    fn the_first_level_one_heading_names_a_note() {
        assert_eq!(
            first_heading("## Not this\n```\n# nor this\n```\n# Reading [[2024]] #\n").as_deref(),
            Some("Reading 2024")
        );
        assert_eq!(first_heading("# ![[x.png]]\nText\n"), None);
    }
}
