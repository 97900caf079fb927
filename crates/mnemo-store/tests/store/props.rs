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
