//! Mnemo's block in another tool's MEMORY.md. Claude Code's, Qwen Code's or a
//! person's folder holds an index its tool (or the person) wrote — "The user prefers tabs" —
//! which Mnemo never rewrites: every byte outside Mnemo's marked block stays as it was, CRLF
//! and a missing last line end included. The block lists only the topic files that text does
//! not mention yet, and goes when there are none:
//!
//! ```text
//! <!-- mnemo:begin — lines below are kept by Mnemo; edit above or below this block -->
//! - [Title](file.md) — description
//! <!-- mnemo:end -->
//! ```
//!
//! Pure: text in, text out; the vault reads and writes the file (`Vault::write_memory_md`).

use std::ops::Range;

use super::{IndexLine, MAX_BYTES, MAX_LINES, entry_lines, fit, warning};

/// First line of Mnemo's block.
pub const BLOCK_BEGIN: &str =
    "<!-- mnemo:begin — lines below are kept by Mnemo; edit above or below this block -->";
/// Last line of Mnemo's block.
pub const BLOCK_END: &str = "<!-- mnemo:end -->";

/// How a marker line starts (its words may change; what it opens or closes may not).
const BEGIN_TAG: &str = "<!-- mnemo:begin";
const END_TAG: &str = "<!-- mnemo:end";

/// Another tool's MEMORY.md after Mnemo has kept its block: `existing` (`None`: no file) with
/// Mnemo's block replaced, added or removed so that it lists exactly the `items` the rest of the
/// text does not [`mentions`] — everything outside the block byte for byte as it was. `None`:
/// there should be no file.
///
/// - The block stays where it was (a person may move it); a new one goes at the end, with the
///   text's own line ends (CRLF when its first line ends so). Text with no line end at its end
///   keeps none: the block then starts with the line end and ends without one, so removing it
///   gives the text back exactly.
/// - Several blocks (a copy, a merge) become one, at the first one's place. A begin marker with
///   no end after it is the text's, not a block: nothing past it is taken for Mnemo's. Markers
///   nested by hand are taken out pair by pair, so that what is kept holds no block.
/// - With no MEMORY.md, one holding just the block is made: Claude Code and Qwen Code read a
///   memory folder through its MEMORY.md, so a memory Mnemo wrote there and listed nowhere
///   would never be read by the tool; the tool may then add its own lines around the block.
///   With nothing to list, no file is made; a file that held only Mnemo's block is removed.
/// - The whole file keeps within [`MAX_LINES`] / [`MAX_BYTES`]: the block gets what the tool's
///   text leaves, ending with the usual warning when not every file fits; when the text leaves
///   no room for the markers and one line, there is no block (that text is never cut).
#[must_use]
pub fn with_block(existing: Option<&str>, items: &[IndexLine<'_>]) -> Option<String> {
    let (own, at) = strip(existing.unwrap_or(""));
    let missing: Vec<IndexLine<'_>> = items
        .iter()
        .filter(|i| !mentions(&own, i.path))
        .cloned()
        .collect();
    let eol = eol_of(&own);
    match block_lines(&own, &missing, eol) {
        Some(lines) => {
            let at = at.unwrap_or(own.len());
            Some(insert(&own, at, &lines, eol))
        }
        // Nothing to list: the tool's text alone — no file when that is nothing at all (none
        // was there, or it held only Mnemo's block); an empty file someone made stays.
        None if own.is_empty() && !existing.is_some_and(str::is_empty) => None,
        None => Some(own),
    }
}

/// The text without Mnemo's block(s): what the tool or person wrote, byte for byte.
#[must_use]
pub fn without_block(text: &str) -> String {
    strip(text).0
}

/// The text without Mnemo's blocks, and where the first one was in it. Taken out until none is
/// left: markers nested by hand (`begin begin … end end`) pair up again once the inner block
/// is out, and what is left must hold no block, or the next write would take more of it.
fn strip(text: &str) -> (String, Option<usize>) {
    let mut own = text.to_owned();
    let mut at: Option<usize> = None;
    loop {
        let found = regions(&own);
        let Some(first) = found.first() else {
            return (own, at);
        };
        at = Some(at.map_or(first.start, |a| moved(a, &found)));
        own = remove(&own, &found);
    }
}

/// Where byte `a` is once `regions` are taken out (the start of the one it was in).
fn moved(a: usize, regions: &[Range<usize>]) -> usize {
    let mut removed = 0;
    for r in regions {
        if r.end <= a {
            removed += r.len();
        } else {
            return r.start.min(a) - removed;
        }
    }
    a - removed
}

/// Whether `text` already names the topic file at `path` (relative to the memory root): as a
/// link target (`[x](path)`, `<path>`, `./path`, spaces as `%20`) or in words (`path`, "see
/// path."), not as part of a longer name (`data.md` does not mention `a.md`, nor `sub/a.md`).
#[must_use]
pub fn mentions(text: &str, path: &str) -> bool {
    if path.is_empty() {
        return false;
    }
    let encoded = path.replace(' ', "%20");
    occurs_alone(text, path) || (encoded != path && occurs_alone(text, &encoded))
}

fn occurs_alone(text: &str, needle: &str) -> bool {
    text.match_indices(needle).any(|(i, _)| {
        let before = &text[..i];
        let before = before.strip_suffix("./").unwrap_or(before);
        let clean_start = before.chars().next_back().is_none_or(|c| !path_char(c));
        let mut after = text[i + needle.len()..].chars();
        let clean_end = match after.next() {
            None => true,
            // A full stop ends a sentence, not a name (`a.md.bak` is another file).
            Some('.') => after.next().is_none_or(|c| !path_char(c)),
            Some(c) => !path_char(c),
        };
        clean_start && clean_end
    })
}

fn path_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '%')
}

/// Byte ranges of Mnemo's blocks in `text`, in order: each from a begin marker line to the
/// first end marker line after it (a later begin marker restarts it), that line's line end
/// included. A block ending the text with no line end also takes the line end before it (the
/// one [`insert`] put there).
fn regions(text: &str) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut begin: Option<(usize, bool)> = None;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let bare = line.trim();
        if bare.starts_with(BEGIN_TAG) {
            begin = Some((start, line.ends_with("\r\n")));
        } else if bare.starts_with(END_TAG)
            && let Some((mut from, crlf)) = begin.take()
        {
            if !line.ends_with('\n') {
                let before = &text[..from];
                let sep = if crlf && before.ends_with("\r\n") {
                    2
                } else {
                    usize::from(before.ends_with('\n'))
                };
                if from - sep >= out.last().map_or(0, |r| r.end) {
                    from -= sep;
                }
            }
            out.push(from..pos);
        }
    }
    out
}

fn remove(text: &str, regions: &[Range<usize>]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in regions {
        out.push_str(&text[at..r.start]);
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The text's line end: CRLF when its first line ends so, else LF.
fn eol_of(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if text[..i].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

/// The block's lines (markers included) for `missing` beside the tool's text `own`, within
/// what `own` leaves of the caps; `None` when there is nothing to list or no room.
fn block_lines(own: &str, missing: &[IndexLine<'_>], eol: &str) -> Option<Vec<String>> {
    if missing.is_empty() {
        return None;
    }
    let eol_bytes = eol.len();
    // Each block line ends with a line end, or (text with no last line end) the block starts
    // with one instead: the same bytes either way.
    let frame = BLOCK_BEGIN.len() + BLOCK_END.len() + 2 * eol_bytes;
    let max_lines = MAX_LINES.checked_sub(own.lines().count() + 2)?;
    let max_bytes = MAX_BYTES.checked_sub(own.len() + frame)?;
    // The longest warning the entries could end with must fit on its own.
    if max_lines == 0 || warning(missing.len(), "25,000 bytes").len() + eol_bytes > max_bytes {
        return None;
    }
    let mut lines = vec![BLOCK_BEGIN.to_owned()];
    lines.extend(fit(&entry_lines(missing), max_lines, max_bytes, eol_bytes));
    lines.push(BLOCK_END.to_owned());
    Some(lines)
}

/// `own` with the block's `lines` at byte `at` (a line start, or its end).
fn insert(own: &str, at: usize, lines: &[String], eol: &str) -> String {
    let block = lines.join(eol);
    if at < own.len() {
        return format!("{}{block}{eol}{}", &own[..at], &own[at..]);
    }
    if own.is_empty() || own.ends_with('\n') {
        format!("{own}{block}{eol}")
    } else {
        format!("{own}{eol}{block}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item<'a>(path: &'a str, name: &'a str) -> IndexLine<'a> {
        IndexLine {
            path,
            name,
            description: "d",
        }
    }

    fn ab() -> Vec<IndexLine<'static>> {
        vec![item("a.md", "A"), item("b.md", "B")]
    }

    fn blocks_in(text: &str) -> usize {
        text.matches(BLOCK_BEGIN).count()
    }

    #[test]
    fn the_tool_s_text_stays_byte_for_byte_with_the_block_after_it() {
        let own = "# Memory\n- [A](a.md) — Claude's own hook\nThe user prefers tabs\n";
        let out = with_block(Some(own), &ab()).unwrap();
        assert_eq!(
            out,
            format!("{own}{BLOCK_BEGIN}\n- [B](b.md) — d\n{BLOCK_END}\n"),
            "a.md is mentioned already: only b.md is listed"
        );
        assert_eq!(without_block(&out), own);
    }

    #[test]
    fn crlf_and_a_missing_last_line_end_survive() {
        let own = "# Memory\r\n- [A](a.md) — a\r\nThe user prefers tabs";
        let out = with_block(Some(own), &ab()).unwrap();
        assert!(out.starts_with(own), "{out:?}");
        assert_eq!(
            &out[own.len()..],
            format!("\r\n{BLOCK_BEGIN}\r\n- [B](b.md) — d\r\n{BLOCK_END}"),
        );
        assert!(!out.replace("\r\n", "").contains('\n'), "no bare LF added");
        assert_eq!(without_block(&out), own);
        // LF text without a last line end, and a lone CR at its end.
        for own in ["x\n- y", "x\r"] {
            let out = with_block(Some(own), &ab()).unwrap();
            assert!(out.starts_with(own));
            assert_eq!(without_block(&out), own, "{out:?}");
            assert_eq!(with_block(Some(&out), &[]).as_deref(), Some(own));
        }
    }

    #[test]
    fn the_block_is_replaced_in_place_never_duplicated() {
        let own = "# Memory\n- [A](a.md) — a\n";
        let once = with_block(Some(own), &ab()).unwrap();
        // The person writes below the block; then a memory c.md is added.
        let edited = format!("{once}Later notes.\n");
        let items = [item("a.md", "A"), item("b.md", "B"), item("c.md", "C")];
        let twice = with_block(Some(&edited), &items).unwrap();
        assert_eq!(blocks_in(&twice), 1);
        assert_eq!(
            twice,
            format!(
                "{own}{BLOCK_BEGIN}\n- [B](b.md) — d\n- [C](c.md) — d\n{BLOCK_END}\nLater notes.\n"
            )
        );
        // Two blocks (a copy, a merge of two machines' files) become one, at the first.
        let doubled = format!("{once}{once}");
        let one = with_block(Some(&doubled), &items).unwrap();
        assert_eq!(blocks_in(&one), 1);
        assert_eq!(without_block(&one), format!("{own}{own}"));
        assert!(one.starts_with(&format!("{own}{BLOCK_BEGIN}")));
    }

    #[test]
    fn the_block_goes_when_the_tool_s_text_mentions_every_file() {
        let own = "# Memory\n- [A](a.md) — a\n";
        let with = with_block(Some(own), &ab()).unwrap();
        // Claude Code lists b.md itself, above the block.
        let edited = with.replacen(BLOCK_BEGIN, &format!("- [B](b.md) — b\n{BLOCK_BEGIN}"), 1);
        assert_eq!(
            with_block(Some(&edited), &ab()).unwrap(),
            "# Memory\n- [A](a.md) — a\n- [B](b.md) — b\n"
        );
        // The memory is deleted: the block goes, the text stays.
        assert_eq!(with_block(Some(&with), &ab()[..1]).unwrap(), own);
        assert_eq!(with_block(Some(&with), &[]).unwrap(), own);
    }

    #[test]
    fn no_file_is_made_for_nothing_and_one_of_only_the_block_is_removed() {
        assert_eq!(with_block(None, &[]), None);
        let made = with_block(None, &ab()).unwrap();
        assert_eq!(
            made,
            format!("{BLOCK_BEGIN}\n- [A](a.md) — d\n- [B](b.md) — d\n{BLOCK_END}\n")
        );
        assert_eq!(with_block(Some(&made), &[]), None);
        // An empty file someone made stays as it is when there is nothing to list.
        assert_eq!(with_block(Some(""), &[]).as_deref(), Some(""));
    }

    #[test]
    fn keeping_the_block_again_changes_nothing() {
        let items = ab();
        let texts = [
            "",
            "# Memory\n",
            "# Memory\r\n- [A](a.md) — a\r\n",
            "no line end",
            "crlf\r\nno line end",
            "\n\n",
            "top\n<!-- mnemo:begin -->\n- old\n<!-- mnemo:end -->\nbottom\n",
            "orphan\n<!-- mnemo:begin — left alone\nafter\n",
        ];
        for t in texts {
            let once = with_block(Some(t), &items);
            let twice = with_block(once.as_deref(), &items);
            assert_eq!(once, twice, "{t:?}");
            assert_eq!(blocks_in(once.as_deref().unwrap_or("")), 1, "{t:?}");
        }
        // And removing it brings each text back.
        for t in texts {
            let once = with_block(Some(t), &items).unwrap();
            let back = with_block(Some(&once), &[]).unwrap_or_default();
            assert_eq!(without_block(t), back, "{t:?}");
        }
    }

    #[test]
    fn a_block_a_person_moved_stays_where_it_is() {
        let text = format!("top\n{BLOCK_BEGIN}\n- stale\n{BLOCK_END}\nbottom\r\n");
        let out = with_block(Some(&text), &ab()).unwrap();
        assert_eq!(
            out,
            format!(
                "top\n{BLOCK_BEGIN}\n- [A](a.md) — d\n- [B](b.md) — d\n{BLOCK_END}\nbottom\r\n"
            )
        );
    }

    #[test]
    fn a_begin_marker_without_an_end_is_the_text_s_own() {
        let own = "notes\n<!-- mnemo:begin — half a block\nThe user prefers tabs\n";
        let out = with_block(Some(own), &ab()).unwrap();
        assert!(out.starts_with(own));
        // Read again, nothing before the real block is taken for it.
        let again = with_block(Some(&out), &ab()[..1]).unwrap();
        assert!(again.starts_with(own), "{again:?}");
        assert!(!again.contains("b.md") && again.contains("(a.md)"));
        assert_eq!(with_block(Some(&out), &[]).unwrap(), own);
        // An end marker with no begin before it is the text's too.
        let stray = format!("{BLOCK_END}\nx\n");
        let out = with_block(Some(&stray), &ab()).unwrap();
        assert!(out.starts_with(&stray));
        assert_eq!(without_block(&out), stray);
    }

    #[test]
    fn markers_nested_by_hand_are_taken_out_pair_by_pair() {
        let text = format!(
            "top\n<!-- mnemo:begin -->\n{BLOCK_BEGIN}\n- [A](a.md) — d\n{BLOCK_END}\n- x\n{BLOCK_END}\nbottom\n"
        );
        assert_eq!(without_block(&text), "top\nbottom\n");
        let out = with_block(Some(&text), &ab()).unwrap();
        assert_eq!(
            out,
            format!("top\n{BLOCK_BEGIN}\n- [A](a.md) — d\n- [B](b.md) — d\n{BLOCK_END}\nbottom\n")
        );
        assert_eq!(with_block(Some(&out), &ab()), Some(out));
    }

    #[test]
    fn the_whole_file_keeps_within_the_caps() {
        let many: Vec<(String, String)> = (0..300)
            .map(|i| (format!("t/{i:03}.md"), format!("Name {i}")))
            .collect();
        let items: Vec<IndexLine<'_>> = many.iter().map(|(p, n)| item(p, n)).collect();
        // 150 lines of the tool's own: the block gets the 50 left, warning and markers in.
        let own: String = (0..150).map(|i| format!("- note {i}\n")).collect();
        let out = with_block(Some(&own), &items).unwrap();
        assert!(out.starts_with(&own));
        assert_eq!(out.lines().count(), MAX_LINES);
        let lines: Vec<&str> = out.lines().collect();
        assert!(
            lines[MAX_LINES - 2].contains("253 more topic files"),
            "{out}"
        );
        assert_eq!(lines[MAX_LINES - 1], BLOCK_END);
        // Bytes decide for long lines (CRLF counted).
        let wide: String = (0..20)
            .map(|i| format!("- {i} {}\r\n", "x".repeat(1_200)))
            .collect();
        let out = with_block(Some(&wide), &items).unwrap();
        assert!(out.len() <= MAX_BYTES, "{}", out.len());
        assert!(out.contains("25,000 bytes"));
        assert_eq!(without_block(&out), wide);
        // Text already at the caps gets no block, and is never cut.
        let full: String = (0..199).map(|i| format!("- note {i}\n")).collect();
        assert_eq!(with_block(Some(&full), &items).unwrap(), full);
        let huge = "x".repeat(MAX_BYTES);
        assert_eq!(with_block(Some(&huge), &items).unwrap(), huge);
    }

    #[test]
    fn what_counts_as_a_mention() {
        for text in [
            "- [Role](user_role.md) — hook",
            "see user_role.md.",
            "`user_role.md`",
            "[r](./user_role.md#why)",
            "<user_role.md>",
            "user_role.md",
        ] {
            assert!(mentions(text, "user_role.md"), "{text}");
        }
        for text in [
            "- [Role](my_user_role.md)",
            "user_role.md.bak",
            "sub/user_role.md",
            "../user_role.md",
            "user_role.mdx",
            "User_Role.md",
        ] {
            assert!(!mentions(text, "user_role.md"), "{text}");
        }
        assert!(mentions("[x](project/a.md)", "project/a.md"));
        assert!(mentions("[x](my%20notes.md)", "my notes.md"));
        assert!(!mentions("anything", ""));
    }
}
