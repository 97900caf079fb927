//! `search` gives what a client needs — as many hits as asked (matches first, then
//! the nearest by meaning, flagged weak), each with the passage that matched and its line — and
//! notes another tool wrote (basic-memory's `title:`) read as memories where they are.

use super::{Env, topic, write};

/// Notes as basic-memory writes them: `title`, its own `type: note`, a permalink, tags, a
/// heading repeating the title, observations and relations.
const COFFEE: &str = "---\ntitle: Coffee Brewing Methods\ntype: note\npermalink: coffee-brewing-methods\ntags:\n- coffee\n- brewing\n---\n\n# Coffee Brewing Methods\n\nPour-over gives the cleanest cup; a French press the heaviest.\n\n## Observations\n- [method] Pour over at 94 degrees #brewing\n- [preference] No sugar, ever\n\n## Relations\n- relates_to [[Morning Routine]]\n";
const ROUTINE: &str = "---\ntitle: Morning Routine\ntype: note\npermalink: morning-routine\n---\n\n# Morning Routine\n\n- [habit] A run before breakfast\n- relates_to [[Coffee Brewing Methods]]\n";

#[test]
fn a_folder_of_basic_memory_notes_reads_as_memories_named_by_their_titles() {
    let e = Env::new();
    let folder = e.dir.path().join("basic-memory");
    write(&folder.join("coffee-brewing-methods.md"), COFFEE);
    write(&folder.join("morning/morning-routine.md"), ROUTINE);
    let list = e.json(&["workspaces", "add-folder", folder.to_str().unwrap()]);
    let ws = list
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "folder")
        .unwrap();
    let id = ws["id"].as_str().unwrap();
    assert_eq!(ws["counts"]["topics"], 2, "{ws}");
    let docs = e.json(&["--workspace", id, "list"]);
    let docs = docs.as_array().unwrap();
    assert_eq!(docs.len(), 2, "{docs:?}");
    for d in docs {
        assert_eq!(d["valid"], true, "not flagged: {d}");
        assert_eq!(d["type"], "reference", "{d}");
    }
    let coffee = docs
        .iter()
        .find(|d| d["path"] == "coffee-brewing-methods.md")
        .unwrap();
    assert_eq!(coffee["name"], "Coffee Brewing Methods");
    assert_eq!(
        coffee["description"],
        "Pour-over gives the cleanest cup; a French press the heaviest."
    );
    // Read, never rewritten.
    assert_eq!(
        std::fs::read_to_string(folder.join("coffee-brewing-methods.md")).unwrap(),
        COFFEE
    );
    // Found by its title's words, with the passage and its line.
    let hits = e.json(&["--workspace", id, "search", "brewing", "--lexical"]);
    assert_eq!(hits[0]["path"], "coffee-brewing-methods.md", "{hits}");
}

#[test]
fn search_gives_as_many_hits_as_asked_matches_first_each_with_its_passage_and_line() {
    if mnemo_embed::model_for_tests().is_none() {
        return;
    }
    let e = Env::new();
    let p = e.personal();
    std::fs::create_dir_all(&p).unwrap();
    for (f, name, desc, body) in [
        (
            "dog.md",
            "Dog named Biscuit",
            "walks the beagle twice a day",
            "Biscuit came from a shelter.\n\nBiscuit gets a walk at 7 and at 18; the beagle pulls.",
        ),
        (
            "deploy.md",
            "Deploy process",
            "staging first",
            "Blue/green switch.",
        ),
        (
            "style.md",
            "Terse answers",
            "short replies",
            "No summaries.",
        ),
        ("tea.md", "Green tea", "every afternoon", "Sencha at four."),
    ] {
        std::fs::write(p.join(f), topic(name, desc, "user", body)).unwrap();
    }
    // The command line gives the model as a user's would.
    let mut c = e.cmd();
    c.env_remove("MNEMO_EMBED_MODEL");
    let hits = e.json_of(c, &["search", "beagle walks", "--limit", "4"]);
    let hits = hits.as_array().unwrap();
    assert_eq!(hits.len(), 4, "as many as asked: {hits:?}");
    assert_eq!(hits[0]["path"], "dog.md", "{hits:?}");
    assert_eq!(hits[0]["weak"], false);
    // Matches first, then the weak ones; a weak hit never outranks a match.
    let weak: Vec<bool> = hits.iter().map(|h| h["weak"] == true).collect();
    assert!(weak.windows(2).all(|w| w[0] <= w[1]), "{weak:?}");
    // The paragraph that matched, at its line of the file (the frontmatter is lines 1–5, the
    // body's first paragraph line 6, its second line 8).
    assert_eq!(
        hits[0]["passage"]["text"],
        "Biscuit gets a walk at 7 and at 18; the beagle pulls."
    );
    assert_eq!(hits[0]["passage"]["line"], 8);
    for h in hits {
        assert!(h["passage"]["line"].as_u64().unwrap() >= 6, "{h}");
    }
    // What a person reads: the match, then the less likely ones under their own heading.
    let mut c = e.cmd();
    c.env_remove("MNEMO_EMBED_MODEL");
    let out = c
        .args(["search", "beagle walks", "--limit", "4"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("line 8: Biscuit gets a walk"), "{text}");
    let n_weak = weak.iter().filter(|w| **w).count();
    if n_weak > 0 {
        assert!(text.contains(&format!("{n_weak} less likely")), "{text}");
    }
}

/// A home opened by an MCP client is embedded in the background — what is there when
/// the server starts — without `mnemo embed` and before any search
/// (the stranger's import of 272 sessions read "0 of 272 embedded" until someone ran it).
#[test]
fn an_mcp_server_embeds_its_home_in_the_background() {
    if mnemo_embed::model_for_tests().is_none() {
        return;
    }
    let e = Env::new();
    let p = e.personal();
    std::fs::create_dir_all(&p).unwrap();
    for i in 0..25 {
        std::fs::write(
            p.join(format!("m{i}.md")),
            topic(
                &format!("Fact {i}"),
                "one fact",
                "user",
                &format!("Fact number {i}."),
            ),
        )
        .unwrap();
    }
    let status = |e: &Env| {
        let mut c = e.cmd();
        c.env_remove("MNEMO_EMBED_MODEL");
        let s = e.json_of(c, &["status"]);
        (
            s["semantic"]["embedded"].as_u64().unwrap_or(0),
            s["semantic"]["total"].as_u64().unwrap_or(0),
        )
    };
    let mut cmd = e.cmd();
    cmd.env_remove("MNEMO_EMBED_MODEL");
    let (mut child, stdin) = super::mcp::raw_mcp(cmd);
    // A liveness bound, not a speed figure: 25 short memories take well under a second.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(240);
    let mut last = (0, 0);
    while std::time::Instant::now() < deadline {
        last = status(&e);
        if last.1 == 25 && last.0 == 25 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    drop(stdin);
    let _ = child.wait();
    assert_eq!(
        last,
        (25, 25),
        "every memory embedded by the server, none by a search"
    );
}
