use super::*;

const GOOD: &str = "---\nname: Response style\ndescription: Keep answers terse\ntype: feedback\n---\nKeep replies short.\nWhy: the user reads diffs.\nHow to apply: long answers.\n";

#[test]
fn parse_render_is_byte_identical() {
    let cases = [
        GOOD,
        "",
        "\n\n",
        "no frontmatter at all",
        "---\nname: x\n",
        "---\n: : :\n---\nbody",
        "\u{feff}---\r\nname: a\r\ndescription: b\r\ntype: user\r\n---\r\nbody\r\n",
        "---\nname: a\ndescription: b\ntype: user\n---",
        "---\nname: a\n# comment\nextra: [1, 2]\ndescription: b\ntype: user\n...\n\n\nx\n\n",
        "---  \nname: 名前\ndescription: 説明\ntype: project\n---\n日本語の本文\n",
    ];
    for c in cases {
        assert_eq!(TopicFile::parse(c).render(), c, "{c:?}");
    }
    // A generated mix of fragments.
    let parts = [
        "---\n",
        "name: n\n",
        "type: user\n",
        "\r\n",
        "body",
        "\u{feff}",
        "...\n",
        "description: d\n",
        "\n",
    ];
    for a in &parts {
        for b in &parts {
            for c in &parts {
                let s = format!("{a}{b}{c}{a}");
                assert_eq!(TopicFile::parse(&s).render(), s);
            }
        }
    }
}

#[test]
fn valid_file_fields_and_type() {
    let f = TopicFile::parse(GOOD);
    assert!(f.problem.is_none());
    assert_eq!(f.fields.name.as_deref(), Some("Response style"));
    assert_eq!(f.memory_type(), Some(MemoryType::Feedback));
    assert_eq!(
        f.body(),
        "Keep replies short.\nWhy: the user reads diffs.\nHow to apply: long answers.\n"
    );
}

#[test]
fn invalid_files_are_flagged_with_a_reason() {
    let cases = [
        ("", ErrorCode::InvalidFrontmatter),
        ("just text\n", ErrorCode::InvalidFrontmatter),
        ("---\nname: a\n", ErrorCode::InvalidFrontmatter),
        ("---\nname: [unclosed\n---\n", ErrorCode::InvalidFrontmatter),
        ("---\n- a list\n---\n", ErrorCode::InvalidFrontmatter),
        (
            "---\nname: a\ntype: user\n---\n",
            ErrorCode::InvalidFrontmatter,
        ),
        (
            "---\nname: a\ndescription: b\ntype: note\n---\n",
            ErrorCode::InvalidType,
        ),
    ];
    for (text, code) in cases {
        let f = TopicFile::parse(text);
        assert_eq!(f.problem.as_ref().map(|p| p.code), Some(code), "{text:?}");
    }
}

#[test]
fn a_refused_write_names_the_field_at_fault() {
    use mnemo_core::Field;
    let field = |text: &str| TopicFile::parse(text).check().unwrap_err().field;
    assert_eq!(field("---\ntype: user\n---\n"), Some(Field::Name));
    assert_eq!(
        field("---\nname: a\ntype: user\n---\n"),
        Some(Field::Description)
    );
    assert_eq!(
        field("---\nname: a\ndescription: b\n---\n"),
        Some(Field::Type)
    );
    assert_eq!(
        field("---\nname: a\ndescription: b\ntype: note\n---\n"),
        Some(Field::Type)
    );
    // Not about one field: the whole file.
    assert_eq!(field("just text\n"), None);
    assert_eq!(field("---\n- a list\n---\n"), None);
    let mut f = TopicFile::parse(GOOD);
    assert_eq!(
        f.set_field("description", " ").unwrap_err().field,
        Some(Field::Description)
    );
    assert_eq!(
        f.set_field("name", "a\nb").unwrap_err().field,
        Some(Field::Name)
    );
}

#[test]
fn crlf_and_bom_files_parse() {
    let f = TopicFile::parse(
        "\u{feff}---\r\nname: a\r\ndescription: b\r\ntype: user\r\n---\r\nline\r\n",
    );
    assert!(f.problem.is_none(), "{:?}", f.problem);
    assert_eq!(f.fields.description.as_deref(), Some("b"));
}

#[test]
fn decode_rejects_binary_and_bad_utf8() {
    assert_eq!(decode(b"a\0b").unwrap_err().code, ErrorCode::InvalidContent);
    assert_eq!(
        decode(&[0x66, 0xff, 0xfe]).unwrap_err().code,
        ErrorCode::InvalidContent
    );
    assert_eq!(decode("ok ✓".as_bytes()).unwrap(), "ok ✓");
}

#[test]
fn set_field_touches_only_its_line() {
    let text = "---\nname: a\n# keep me\nextra: 1\ndescription: b\ntype: user\n---\nbody\n";
    let mut f = TopicFile::parse(text);
    f.set_field("description", "new: value with colon").unwrap();
    assert_eq!(
        f.render(),
        "---\nname: a\n# keep me\nextra: 1\ndescription: 'new: value with colon'\ntype: user\n---\nbody\n"
    );
    assert_eq!(
        f.fields.description.as_deref(),
        Some("new: value with colon")
    );
    f.set_field("type", "project").unwrap();
    assert_eq!(f.memory_type(), Some(MemoryType::Project));
}

#[test]
fn set_field_replaces_a_whole_block_scalar() {
    let mut f =
        TopicFile::parse("---\nname: a\ndescription: |\n  one\n\n  two\ntype: user\n---\nb\n");
    f.set_field("description", "new").unwrap();
    assert_eq!(
        f.render(),
        "---\nname: a\ndescription: new\ntype: user\n---\nb\n"
    );
}

#[test]
fn set_field_adds_missing_keys_and_repairs_missing_frontmatter() {
    let mut f = TopicFile::parse("---\nname: a\ntype: user\n---\nbody\n");
    f.set_field("description", "d").unwrap();
    assert!(f.problem.is_none());
    let mut g = TopicFile::parse("plain body\n");
    g.set_field("name", "n").unwrap();
    g.set_field("description", "d").unwrap();
    g.set_field("type", "user").unwrap();
    assert!(g.problem.is_none(), "{:?}", g.problem);
    assert_eq!(g.body(), "plain body\n");
}

#[test]
fn set_fields_gives_what_setting_each_field_in_turn_gives() {
    let pairs = [
        ("name", "Blade Runner"),
        ("description", "a film: 1982, Ridley Scott"),
        ("type", "reference"),
        ("source_type", "[[Films]]"),
    ];
    for text in [
        "---\ntitle: Blade Runner\ntags: [film]\n---\nA film.\n",
        "---\r\nname: a\r\ndescription: |\r\n  one\r\n\r\n  two\r\ntype: user\r\n---\r\nx\r\n",
        "\u{feff}---\nname: a\n# keep me\n---\nbody\n",
        "no frontmatter at all\n",
        "---\nname: [unclosed\n---\nbody\n",
        "---\n---\nbody\n",
    ] {
        let mut one_by_one = TopicFile::parse(text);
        for (k, v) in pairs {
            one_by_one.set_field(k, v).unwrap();
        }
        let mut at_once = TopicFile::parse(text);
        at_once.set_fields(&pairs).unwrap();
        assert_eq!(at_once, one_by_one, "{text:?}");
        assert!(at_once.problem.is_none(), "{text:?}: {:?}", at_once.problem);
    }
}

#[test]
fn crlf_files_keep_crlf_on_edit() {
    let mut f = TopicFile::parse("---\r\nname: a\r\ndescription: b\r\ntype: user\r\n---\r\nx\r\n");
    f.set_body("one\ntwo");
    f.set_field("name", "b").unwrap();
    assert_eq!(
        f.render(),
        "---\r\nname: b\r\ndescription: b\r\ntype: user\r\n---\r\none\r\ntwo\r\n"
    );
}

#[test]
fn new_file_is_valid_and_quotes_awkward_values() {
    let f = TopicFile::new("yes", "a: b # c", MemoryType::User, "hello").unwrap();
    let again = TopicFile::parse(&f.render());
    assert!(again.problem.is_none());
    assert_eq!(again.fields.name.as_deref(), Some("yes"));
    assert_eq!(again.fields.description.as_deref(), Some("a: b # c"));
    assert!(TopicFile::new("", "d", MemoryType::User, "b").is_err());
    assert!(TopicFile::new("n", "two\nlines", MemoryType::User, "b").is_err());
}

#[test]
fn entries_and_ids() {
    let e = entries("First fact.\nWhy: because.\nHow to apply: always.\n\n\nSecond fact.\n");
    assert_eq!(e.len(), 2);
    assert_eq!(e[0].summary, "First fact.");
    assert_eq!(e[0].why.as_deref(), Some("because."));
    assert_eq!(e[0].how.as_deref(), Some("always."));
    assert_eq!(e[1].index, 2);
    assert_eq!(entry_id("a.md", 1, 1), "a.md");
    assert_eq!(entry_id("f/s.md", 2, 3), "f/s.md:2");
}

#[test]
fn pin_and_unpin_touch_only_that_line() {
    let text = "---\nname: a\n# keep me\ndescription: b\ntype: user\n---\nbody\n";
    let mut f = TopicFile::parse(text);
    assert!(!f.fields.pinned);
    f.set_pinned(true).unwrap();
    assert!(f.fields.pinned);
    assert_eq!(
        f.render(),
        "---\nname: a\n# keep me\ndescription: b\ntype: user\npinned: true\n---\nbody\n"
    );
    f.set_pinned(false).unwrap();
    assert_eq!(f.render(), text);
    assert!(
        TopicFile::parse("---\nname: a\npinned: \"true\"\n---\n")
            .fields
            .pinned
    );
    assert!(
        !TopicFile::parse("---\nname: a\npinned: no\n---\n")
            .fields
            .pinned
    );
    let mut broken = TopicFile::parse("no frontmatter\n");
    assert_eq!(
        broken.set_pinned(true).unwrap_err().code,
        ErrorCode::InvalidFrontmatter
    );
}

#[test]
fn a_basic_memory_note_reads_as_its_tool_wrote_it() {
    let text = "---\ntitle: Coffee Brewing Methods\ntype: note\npermalink: coffee-brewing-methods\ntags:\n- coffee\n---\n\n# Coffee Brewing Methods\n\nPour-over gives the cleanest cup;\na French press the heaviest. Grind coarse.\n\n## Observations\n- [method] Pour over\n";
    let f = TopicFile::parse(text);
    assert!(f.problem.is_none(), "{:?}", f.problem);
    assert!(f.fields.foreign);
    assert_eq!(f.fields.name.as_deref(), Some("Coffee Brewing Methods"));
    assert_eq!(
        f.fields.description.as_deref(),
        Some("Pour-over gives the cleanest cup; a French press the heaviest.")
    );
    assert_eq!(f.memory_type(), Some(MemoryType::Reference));
    assert_eq!(f.render(), text, "nothing in the file changes");
}

#[test]
fn a_foreign_note_keeps_its_own_description_and_a_type_mnemo_knows() {
    let f = TopicFile::parse(
        "---\ntitle: Deploys\ndescription: How we ship\ntype: project\n---\nFridays.\n",
    );
    assert!(f.problem.is_none(), "{:?}", f.problem);
    assert_eq!(f.fields.description.as_deref(), Some("How we ship"));
    assert_eq!(f.memory_type(), Some(MemoryType::Project));
    // Nothing to read a description from: the title stands for it.
    let f = TopicFile::parse("---\ntitle: Empty card\n---\n");
    assert!(f.problem.is_none(), "{:?}", f.problem);
    assert_eq!(f.fields.description.as_deref(), Some("Empty card"));
}

#[test]
fn a_name_wins_over_a_title_and_a_memory_without_either_is_still_flagged() {
    let f = TopicFile::parse("---\nname: Mine\ntitle: Theirs\ntype: user\n---\nx\n");
    assert!(!f.fields.foreign);
    assert_eq!(
        f.problem.map(|p| p.message).as_deref(),
        Some("frontmatter lacks description")
    );
    let f = TopicFile::parse("---\ndescription: d\ntype: user\n---\nx\n");
    assert_eq!(
        f.problem.map(|p| p.code),
        Some(ErrorCode::InvalidFrontmatter)
    );
    let f = TopicFile::parse("---\ntitle: \"  \"\ntype: user\n---\nx\n");
    assert!(!f.fields.foreign, "a blank title names nothing");
    assert!(f.problem.is_some());
}

#[test]
fn naming_a_foreign_note_makes_it_mnemos_own() {
    let mut f = TopicFile::parse("---\ntitle: Deploys\ntype: note\n---\nWe deploy on Fridays.\n");
    f.set_fields(&[
        ("name", "Deploys"),
        ("description", "When we ship"),
        ("type", "project"),
    ])
    .unwrap();
    assert!(!f.fields.foreign);
    assert!(f.problem.is_none(), "{:?}", f.problem);
    assert_eq!(f.memory_type(), Some(MemoryType::Project));
}
