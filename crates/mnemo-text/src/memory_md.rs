//! The generated `MEMORY.md` index: one line per valid topic file, sorted by path,
//! each at most 150 characters; at most 200 lines and 25,000 bytes in all, cut at a line boundary
//! with a warning line naming the cap.
//!
//! That whole file is Mnemo's only in its own workspaces. Another tool's MEMORY.md (Claude
//! Code's, Qwen Code's, an added folder's) is that tool's: Mnemo only keeps its own marked block
//! there ([`with_block`]).

/// File name of the index inside a memory root.
pub const FILE_NAME: &str = "MEMORY.md";
/// Longest line, in characters.
pub const MAX_LINE_CHARS: usize = 150;
/// Most lines, warning included.
pub const MAX_LINES: usize = 200;
/// Most bytes, warning included.
pub const MAX_BYTES: usize = 25_000;

mod block;
pub use block::{BLOCK_BEGIN, BLOCK_END, mentions, with_block, without_block};

/// One topic file as the index lists it.
#[derive(Debug, Clone)]
pub struct IndexLine<'a> {
    /// Path relative to the memory root.
    pub path: &'a str,
    /// The memory's name.
    pub name: &'a str,
    /// The memory's one-line description.
    pub description: &'a str,
}

/// Render MEMORY.md. Output depends only on the input set (sorted here), so it is deterministic.
#[must_use]
pub fn render(items: &[IndexLine<'_>]) -> String {
    render_head(items, items.len())
}

/// [`render`] from the first topics by path alone (at least [`MAX_LINES`] of them, or all) and
/// how many there are in all: the same text as `render` of every one of them.
#[must_use]
pub fn render_head(head: &[IndexLine<'_>], total: usize) -> String {
    let mut out = String::new();
    for line in fit_of(
        &entry_lines(head),
        total.max(head.len()),
        MAX_LINES,
        MAX_BYTES,
        1,
    ) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The index lines of `items`, sorted by path, each within [`MAX_LINE_CHARS`].
fn entry_lines(items: &[IndexLine<'_>]) -> Vec<String> {
    let mut sorted: Vec<&IndexLine<'_>> = items.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(b.path));
    sorted
        .iter()
        .map(|i| {
            let name = one_line(i.name);
            let desc = one_line(i.description);
            // A control character or bidi override in a path or name must not inject a line.
            cut(
                &format!(
                    "- [{}]({}) — {}",
                    crate::files::printable(&name),
                    crate::files::printable(i.path),
                    crate::files::printable(&desc)
                ),
                MAX_LINE_CHARS,
            )
        })
        .collect()
}

/// As many of `lines` as fit in `max_lines` lines and `max_bytes` bytes (each line followed by
/// a line end of `eol_bytes` bytes), in order, ending with a warning line naming the cap when
/// some were left out (room for it is kept). The warning names the file's caps: `max_*` are
/// what is left of them.
fn fit(lines: &[String], max_lines: usize, max_bytes: usize, eol_bytes: usize) -> Vec<String> {
    fit_of(lines, lines.len(), max_lines, max_bytes, eol_bytes)
}

/// [`fit`] of a list's first `lines` when it has `total` in all (the rest are only counted).
fn fit_of(
    lines: &[String],
    total: usize,
    max_lines: usize,
    max_bytes: usize,
    eol_bytes: usize,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut used = 0;
    let mut capped: Option<&str> = None;
    for line in lines {
        let kept = out.len();
        let remaining_after = total - kept - 1;
        // Room is reserved for the warning line whenever something would be left out.
        let reserve = usize::from(remaining_after > 0);
        if kept + 1 + reserve > max_lines {
            capped = Some("200 lines");
            break;
        }
        let warn_bytes = if remaining_after > 0 {
            warning(remaining_after, "25,000 bytes").len() + eol_bytes
        } else {
            0
        };
        if used + line.len() + eol_bytes + warn_bytes > max_bytes {
            capped = Some("25,000 bytes");
            break;
        }
        used += line.len() + eol_bytes;
        out.push(line.clone());
    }
    if let Some(cap) = capped {
        out.push(warning(total - out.len(), cap));
    }
    out
}

fn warning(omitted: usize, cap: &str) -> String {
    format!(
        "> WARNING: MEMORY.md is capped at {cap}; {omitted} more topic files are not listed here."
    )
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// A MEMORY.md as a prompt loads it — Mnemo's own, Claude Code's or Qwen Code's, whatever its
/// size: cut at a line boundary so that, with the warning, it stays within [`MAX_LINES`] lines
/// and [`MAX_BYTES`] bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// The text to inject (the warning is its last line when it was cut).
    pub text: String,
    /// The warning, when the file was cut.
    pub warning: Option<String>,
    /// Lines of the file on disk.
    pub lines: usize,
    /// Bytes of the file on disk.
    pub bytes: usize,
}

/// Cut a MEMORY.md for loading (see [`Loaded`]).
#[must_use]
pub fn load_for_prompt(raw: &str) -> Loaded {
    let trimmed = raw.trim_end();
    let lines = if trimmed.is_empty() {
        0
    } else {
        trimmed.lines().count()
    };
    let bytes = raw.len();
    if lines <= MAX_LINES && trimmed.len() <= MAX_BYTES {
        return Loaded {
            text: trimmed.to_owned(),
            warning: None,
            lines,
            bytes,
        };
    }
    let mut reasons = Vec::new();
    if lines > MAX_LINES {
        reasons.push(format!("{lines} lines (limit: {MAX_LINES})"));
    }
    if trimmed.len() > MAX_BYTES {
        reasons.push(format!("{bytes} bytes (limit: {MAX_BYTES})"));
    }
    let warning = format!(
        "> WARNING: {FILE_NAME} is {}. Only part of it was loaded. Keep index entries to one line \
         under ~200 chars; move detail into topic files.",
        reasons.join(" and ")
    );
    // Room for a blank line and the warning.
    let max_lines = MAX_LINES - 2;
    let max_bytes = MAX_BYTES - warning.len() - 2;
    let mut text = String::new();
    for (i, line) in trimmed.lines().enumerate() {
        if i >= max_lines || text.len() + line.len() + 1 > max_bytes {
            break;
        }
        text.push_str(line);
        text.push('\n');
    }
    text.push('\n');
    text.push_str(&warning);
    Loaded {
        text,
        warning: Some(warning),
        lines,
        bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_big_foreign_index_loads_within_both_caps_with_the_warning() {
        // 400 lines, ~41 KB, as a Claude Code project's MEMORY.md can be.
        let raw: String = (0..400)
            .map(|i| {
                format!(
                    "- [Topic {i}](topic-{i}.md) — {}\n",
                    "a long hook ".repeat(7)
                )
            })
            .collect();
        assert!(raw.len() > 40_000);
        let l = load_for_prompt(&raw);
        assert!(l.text.lines().count() <= MAX_LINES);
        assert!(l.text.len() <= MAX_BYTES);
        assert_eq!((l.lines, l.bytes), (400, raw.len()));
        let w = l.warning.unwrap();
        assert!(w.contains("400 lines (limit: 200)"), "{w}");
        assert!(w.contains("Only part of it was loaded"));
        assert!(l.text.ends_with(&w));
        assert!(l.text.starts_with("- [Topic 0](topic-0.md)"));
        // Few but very long lines: the byte cap decides.
        let wide: String = (0..20)
            .map(|i| format!("- {i} {}\n", "x".repeat(2_000)))
            .collect();
        let l = load_for_prompt(&wide);
        assert!(l.text.len() <= MAX_BYTES);
        assert!(l.warning.unwrap().contains("bytes (limit: 25000)"));
        // Within the caps: unchanged.
        let small = "- [A](a.md) — a\n";
        assert_eq!(load_for_prompt(small).text, small.trim_end());
        assert_eq!(load_for_prompt(small).warning, None);
    }

    fn items(n: usize, desc: &str) -> Vec<(String, String)> {
        (0..n)
            .map(|i| (format!("t/{i:05}.md"), format!("Name {i}: {desc}")))
            .collect()
    }

    fn lines_of(v: &[(String, String)]) -> Vec<IndexLine<'_>> {
        v.iter()
            .map(|(p, n)| IndexLine {
                path: p,
                name: n,
                description: "d",
            })
            .collect()
    }

    fn render_owned(v: &[(String, String)]) -> String {
        render(&lines_of(v))
    }

    #[test]
    fn lines_are_sorted_and_formatted() {
        let out = render(&[
            IndexLine {
                path: "b.md",
                name: "B",
                description: "second",
            },
            IndexLine {
                path: "a.md",
                name: "A",
                description: "first\nline",
            },
        ]);
        assert_eq!(out, "- [A](a.md) — first line\n- [B](b.md) — second\n");
    }

    #[test]
    fn long_lines_are_cut_with_ellipsis() {
        let long = "x".repeat(400);
        let out = render(&[IndexLine {
            path: "a.md",
            name: "A",
            description: &long,
        }]);
        let line = out.lines().next().unwrap();
        assert_eq!(line.chars().count(), MAX_LINE_CHARS);
        assert!(line.ends_with('…'));
    }

    #[test]
    fn line_cap_ends_with_warning() {
        let out = render_owned(&items(500, "short"));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), MAX_LINES);
        assert!(lines.last().unwrap().contains("200 lines"));
        assert!(lines.last().unwrap().contains("301 more"));
    }

    #[test]
    fn byte_cap_ends_with_warning() {
        let v: Vec<(String, String)> = (0..190)
            .map(|i| (format!("{i:03}.md"), "名".repeat(140)))
            .collect();
        let out = render_owned(&v);
        assert!(out.len() <= MAX_BYTES, "{}", out.len());
        assert!(out.lines().last().unwrap().contains("25,000 bytes"));
    }

    #[test]
    fn the_head_and_a_count_render_as_the_whole_list_does() {
        // Sizes around both caps, names short and long (the byte cap first).
        for (n, desc) in [
            (0, "x"),
            (1, "x"),
            (199, "x"),
            (200, "x"),
            (201, "x"),
            (5_000, "short"),
            (190, &*"名".repeat(140)),
            (1_000, &*"名".repeat(140)),
        ] {
            let v = items(n, desc);
            let all = lines_of(&v);
            let head = &all[..all.len().min(MAX_LINES)];
            assert_eq!(render_head(head, n), render(&all), "{n} × {desc:.9}");
        }
    }

    #[test]
    fn exactly_at_the_cap_needs_no_warning() {
        let out = render_owned(&items(200, "x"));
        assert_eq!(out.lines().count(), 200);
        assert!(!out.contains("WARNING"));
    }
}
