//! Issue 33: names anyone may have written — a Claude Code project folder, a memory's
//! frontmatter, its body — never reach the terminal raw. An OSC sequence in them would set the
//! terminal's title (or worse); every human-readable output shows it escaped.

use super::Env;

const OSC: &str = "\u{1b}]0;pwned\u{7}";

fn assert_clean(what: &str, out: &std::process::Output) {
    for stream in [&out.stdout, &out.stderr] {
        assert!(
            !stream.iter().any(|b| *b == 0x1b || *b == 0x07),
            "{what} printed a raw control character: {}",
            String::from_utf8_lossy(stream)
        );
    }
}

#[test]
fn control_characters_in_names_and_bodies_are_printed_escaped() {
    let e = Env::new();
    // A Claude Code project folder whose name holds an OSC.
    let claude = e
        .dir
        .path()
        .join(format!("claude/projects/-home-p{OSC}/memory"));
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(claude.join("MEMORY.md"), "- [Deploy](deploy.md) — how\n").unwrap();
    std::fs::write(
        claude.join("deploy.md"),
        "---\nname: \"Deploy \\e]0;pwned\\a\"\ndescription: \"deploy steps \\e[2J\"\ntype: project\n---\nRun the deploy \u{1b}]0;pwned\u{7} script.\n",
    )
    .unwrap();
    // A memory of this home whose frontmatter and body hold the same.
    std::fs::create_dir_all(e.personal()).unwrap();
    std::fs::write(
        e.personal().join("deploy-notes.md"),
        "---\nname: \"Deploy notes \\e]0;pwned\\a\"\ndescription: \"how we deploy\"\ntype: project\n---\nDeploy on Fridays \u{1b}]0;pwned\u{7} only.\nSecond line.\n",
    )
    .unwrap();

    let workspaces = e.run(&["workspaces"]);
    assert!(workspaces.status.success());
    assert_clean("workspaces", &workspaces);
    let listed = String::from_utf8_lossy(&workspaces.stdout);
    assert!(
        listed.contains("\\u{1b}") || !listed.contains("pwned"),
        "the folder is shown escaped (or not at all): {listed}"
    );
    for args in [
        &["list"][..],
        &["search", "deploy"],
        &["recall", "how do we deploy", "--lexical"],
        &["show", "deploy-notes.md"],
        &["status"],
    ] {
        let out = e.run(args);
        assert_clean(&format!("{args:?}"), &out);
    }
    // A memory's lines stay lines when shown.
    let show = e.run(&["show", "deploy-notes.md"]);
    let text = String::from_utf8_lossy(&show.stdout);
    assert!(text.contains("only.\nSecond line."), "{text}");
    assert!(text.contains("\\u{1b}]0;pwned\\u{7}"), "{text}");
}
