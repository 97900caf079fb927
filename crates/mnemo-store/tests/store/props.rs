//! Property tests (proptest; a bounded number of cases — `PROPTEST_CASES` raises it): the
//! parsers, confinement, the MEMORY.md renderer and the tokenizer never panic, and their
//! documented invariants hold for any input.

use proptest::prelude::*;

use mnemo_store::format::TopicFile;
use mnemo_store::{fsutil, memory_md, tokenize};

/// Text shaped like memory files: frontmatter fences, keys, blank lines, CRLF, BOM, CJK, controls.
fn memoryish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("---\n".to_owned()),
        Just("---\r\n".to_owned()),
        Just("\u{feff}".to_owned()),
        Just("name: ".to_owned()),
        Just("description: ".to_owned()),
        Just("type: user\n".to_owned()),
        Just("type: nonsense\n".to_owned()),
        Just("pinned: true\n".to_owned()),
        Just("\n\n".to_owned()),
        Just("Why: ".to_owned()),
        Just("# heading\n".to_owned()),
        Just("发布冻结".to_owned()),
        "[ -~]{0,20}".prop_map(|s| s),
        any::<String>().prop_map(|s| s.chars().take(12).collect()),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

/// Text shaped like another tool's MEMORY.md: links, Mnemo's markers (whole, partial, stray),
/// CRLF, lone CRs, no last line end, long runs near the caps.
fn foreign_index() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just(format!("{}\n", memory_md::BLOCK_BEGIN)),
        Just(format!("{}\r\n", memory_md::BLOCK_BEGIN)),
        Just(format!("{}\n", memory_md::BLOCK_END)),
        Just(memory_md::BLOCK_END.to_owned()),
        Just("<!-- mnemo:begin -->\n".to_owned()),
        Just("- [A](a.md) — a\n".to_owned()),
        Just("see c/d.md.\r\n".to_owned()),
        Just("[x](e%20f.md)".to_owned()),
        Just("The user prefers tabs".to_owned()),
        Just("\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("\r".to_owned()),
        Just("- note\n".repeat(60)),
        Just("x".repeat(6_000)),
        any::<String>().prop_map(|s| s.chars().take(12).collect()),
    ];
    prop::collection::vec(piece, 0..16).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_topic_file_renders_back_byte_for_byte(text in memoryish()) {
        let f = TopicFile::parse(&text);
        prop_assert_eq!(f.render(), text);
        // Entries and the frontmatter check never panic either.
        let _ = f.entries();
        let _ = f.check();
    }

    #[test]
    fn confinement_never_leaves_the_root(rel in prop_oneof![
        any::<String>(),
        "[a-z./\\\\]{0,30}",
        "(\\.\\./|/|[a-z]{1,3}/){0,6}[a-z]{0,5}(\\.md)?",
    ]) {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("root");
        std::fs::create_dir_all(&root).unwrap();
        if let Ok((abs, norm)) = fsutil::confine(&root, &rel) {
            prop_assert!(abs.starts_with(&root), "{} outside {}", abs.display(), root.display());
            prop_assert!(!norm.split('/').any(|p| p == ".." || p.is_empty()));
            prop_assert!(!norm.chars().any(fsutil::unsafe_char));
        }
    }

    #[test]
    fn memory_md_stays_within_its_caps_one_line_per_memory(
        items in prop::collection::vec((any::<String>(), any::<String>(), any::<String>()), 0..300)
    ) {
        let lines: Vec<memory_md::IndexLine<'_>> = items
            .iter()
            .map(|(p, n, d)| memory_md::IndexLine { path: p, name: n, description: d })
            .collect();
        let md = memory_md::render(&lines);
        prop_assert!(md.lines().count() <= memory_md::MAX_LINES);
        prop_assert!(md.len() <= memory_md::MAX_BYTES);
        prop_assert!(md.lines().count() <= items.len() + 1);
        prop_assert!(!md.chars().any(|c| c != '\n' && fsutil::unsafe_char(c)));
        let loaded = memory_md::load_for_prompt(&md);
        prop_assert!(loaded.text.len() <= memory_md::MAX_BYTES);
    }

    #[test]
    fn another_tool_s_memory_md_keeps_its_text_and_one_block(
        text in foreign_index(),
        chosen in prop::collection::vec(any::<bool>(), 4),
    ) {
        let paths = ["a.md", "b.md", "c/d.md", "e f.md"];
        let items: Vec<memory_md::IndexLine<'_>> = paths
            .iter()
            .zip(&chosen)
            .filter(|(_, c)| **c)
            .map(|(p, _)| memory_md::IndexLine { path: p, name: "N", description: "d" })
            .collect();
        let own = memory_md::without_block(&text);
        let out = memory_md::with_block(Some(&text), &items);
        let after = out.as_deref().unwrap_or("");
        // The tool's text, byte for byte; one block at most, again the same.
        prop_assert_eq!(memory_md::without_block(after), own.as_str());
        prop_assert!(after.matches(memory_md::BLOCK_BEGIN).count() <= 1 + own.matches(memory_md::BLOCK_BEGIN).count());
        prop_assert_eq!(memory_md::with_block(out.as_deref(), &items), out.clone());
        // Only files the text does not mention are listed; none at all → no block.
        let block = after.len() > own.len();
        let capped = after.contains("more topic files are not listed");
        for i in &items {
            let link = format!("]({})", i.path);
            let listed = after.matches(&link).count() > own.matches(&link).count();
            let mentioned = memory_md::mentions(&own, i.path);
            prop_assert!(!(mentioned && listed), "{} listed though mentioned", i.path);
            prop_assert!(mentioned || listed || !block || capped, "{} not listed", i.path);
        }
        if items.iter().all(|i| memory_md::mentions(&own, i.path)) {
            prop_assert_eq!(after, own.as_str());
        }
        // Within the caps whenever the tool's text is.
        if own.lines().count() <= memory_md::MAX_LINES && own.len() <= memory_md::MAX_BYTES {
            prop_assert!(after.lines().count() <= memory_md::MAX_LINES);
            prop_assert!(after.len() <= memory_md::MAX_BYTES);
        }
    }

    #[test]
    fn any_memory_md_loads_within_the_caps(text in any::<String>(), lines in 0usize..500) {
        let raw = format!("{text}\n").repeat(lines.min(400));
        let l = memory_md::load_for_prompt(&raw);
        prop_assert!(l.text.lines().count() <= memory_md::MAX_LINES);
        prop_assert!(l.text.len() <= memory_md::MAX_BYTES);
    }

    #[test]
    fn the_tokenizer_never_panics_and_folding_is_stable(text in any::<String>()) {
        let once = tokenize::fold(&text);
        prop_assert_eq!(tokenize::fold(&once), once);
        let _ = tokenize::index_tokens(&text);
        let _ = tokenize::query_terms(&text);
        let _ = tokenize::fts_query(&text);
    }
}
