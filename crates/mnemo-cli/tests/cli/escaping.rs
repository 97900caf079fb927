//! Names anyone may have written — a Claude Code project folder, a memory's
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

/// What a model says reaches the terminal escaped too — OSC 52 (a clipboard write),
/// OSC 0 (the window title), CSI 2J (a cleared screen), BEL and an RLO, in a streamed chat
/// reply (split over the stream's pieces), a planner's topic printed by `remember --wait`, and a
/// dream agent's last words; and a Claude Code file name holding a newline and an ESC, printed
/// by `mnemo dream`. Nothing raw, everything still readable.
const HOSTILE: &str = "clip \u{1b}]52;c;cHduZWQ=\u{7} title \u{1b}]0;pwned\u{7} wipe \u{1b}[2J bell \u{7} rlo \u{202e}gpj.exe";

/// No ESC, BEL or RLO in either stream; the OSC 52 shown escaped somewhere in them.
fn assert_gated(what: &str, out: &std::process::Output) {
    assert_clean(what, out);
    let all = [&out.stdout[..], &out.stderr[..]].concat();
    let text = String::from_utf8_lossy(&all);
    assert!(
        !text.contains('\u{202e}'),
        "{what} printed a raw RLO: {text}"
    );
    assert!(
        text.contains("\\u{1b}]52;c;cHduZWQ=\\u{7}") && text.contains("\\u{202e}gpj.exe"),
        "{what} shows the text escaped: {text}"
    );
}

fn with_model(e: &Env, fake: &mnemo_testkit::FakeModel, args: &[&str]) -> std::process::Command {
    let mut c = e.cmd();
    c.args(args)
        .env("MNEMO_LLM_BASE_URL", fake.base_url())
        .env("MNEMO_LLM_MODEL", "fake-main");
    c
}

async fn output(mut c: std::process::Command) -> std::process::Output {
    tokio::task::spawn_blocking(move || c.output().unwrap())
        .await
        .unwrap()
}

/// A home and a fake model answering "Noted." to anything not scripted.
async fn model_env() -> (Env, mnemo_testkit::FakeModel) {
    let fake = mnemo_testkit::FakeModel::start().await;
    fake.set_fallback(mnemo_testkit::Reply::text("Noted."));
    (Env::new(), fake)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_streamed_chat_reply_is_printed_escaped_its_lines_and_tabs_kept() {
    use mnemo_testkit::{Kind, Reply};
    let (e, fake) = model_env().await;
    // The reply streams in pieces of four characters: every sequence is split over two.
    fake.push_for(
        Kind::Stream,
        Reply::text(format!("Sure.\n{HOSTILE}\n\tdone")),
    );
    fake.push_for(
        Kind::Json,
        Reply::json(&serde_json::json!({"memories": []})),
    );
    let chat = output(with_model(&e, &fake, &["chat", "hi"])).await;
    assert!(
        chat.status.success(),
        "{}",
        String::from_utf8_lossy(&chat.stderr)
    );
    assert_gated("chat", &chat);
    let shown = String::from_utf8_lossy(&chat.stdout);
    assert!(shown.contains("Sure.\nclip "), "lines stay lines: {shown}");
    assert!(shown.contains("\n\tdone"), "tabs stay tabs: {shown}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_planner_topic_is_printed_escaped_by_remember_wait() {
    use mnemo_testkit::{Kind, Reply};
    let (e, fake) = model_env().await;
    // The agent writes nothing; the planner's topic names the file it writes.
    fake.push_for(Kind::Tools, Reply::text("Nothing to save."));
    fake.push_for(
        Kind::Json,
        Reply::json(&serde_json::json!({"memories": [{
            "source": 1, "type": "user", "topic": format!("Cat {HOSTILE}"),
            "fact": "The user's cat is called Tofu"
        }]})),
    );
    let remember = output(with_model(
        &e,
        &fake,
        &["remember", "The user's cat is called Tofu.", "--wait"],
    ))
    .await;
    assert!(
        remember.status.success(),
        "{}{}",
        String::from_utf8_lossy(&remember.stdout),
        String::from_utf8_lossy(&remember.stderr)
    );
    assert_gated("remember --wait", &remember);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dream_agents_last_words_are_printed_escaped() {
    use mnemo_testkit::{Kind, Reply};
    let (e, fake) = model_env().await;
    fake.push_for(
        Kind::Tools,
        Reply::text(format!("Merged nothing. {HOSTILE}")),
    );
    let dream = output(with_model(&e, &fake, &["dream"])).await;
    assert!(
        dream.status.success(),
        "{}",
        String::from_utf8_lossy(&dream.stderr)
    );
    assert_gated("dream", &dream);
}

#[test]
fn a_claude_file_name_holding_a_newline_and_an_escape_is_printed_escaped_by_dream() {
    let e = Env::new();
    let memory = e.dir.path().join("claude/projects/-home-p-app/memory");
    std::fs::create_dir_all(&memory).unwrap();
    let odd = "dup\n\u{1b}]0;pwned\u{7}.md";
    for name in ["facts.md", odd] {
        std::fs::write(
            memory.join(name),
            "---\nname: Facts\ndescription: facts\ntype: user\n---\nWrites Rust.\n",
        )
        .unwrap();
    }
    let list = e.json(&["workspaces"]);
    let ws = list
        .as_array()
        .unwrap()
        .iter()
        .find_map(|w| w["id"].as_str().filter(|id| id.starts_with("claude:")))
        .unwrap()
        .to_owned();
    for args in [
        &["--workspace", &ws, "dream", "--dry-run"][..],
        &["--workspace", &ws, "dream", "--mechanical"],
    ] {
        let out = e.run(args);
        assert!(out.status.success(), "{args:?}");
        assert_clean(&format!("{args:?}"), &out);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("dup\\u{a}\\u{1b}]0;pwned\\u{7}.md"),
            "{args:?} shows the name escaped: {text}"
        );
        assert!(
            !text.contains("dup\n"),
            "a name makes no line of its own: {text}"
        );
    }
    let history = e.run(&["--workspace", &ws, "history"]);
    assert_clean("history", &history);
}
