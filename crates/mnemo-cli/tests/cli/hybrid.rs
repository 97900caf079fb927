//! `mnemo search` by meaning with the model the README's set-up installs (required under CI
//! and with MNEMO_REQUIRE_MODEL=1, skipped with a note otherwise), and what happens without
//! one: lexical search, and `status` saying why and how to install it.

use std::process::Command;

use super::{Env, topic};

impl Env {
    /// A command that finds the model as a user's would (no override).
    fn cmd_model(&self) -> Command {
        let mut c = self.cmd();
        c.env_remove("MNEMO_EMBED_MODEL");
        c
    }
    fn json_model(&self, args: &[&str]) -> serde_json::Value {
        self.json_of(self.cmd_model(), args)
    }
    fn pets(&self) {
        let p = self.personal();
        std::fs::create_dir_all(&p).unwrap();
        let files = [
            (
                "dog.md",
                topic(
                    "Dog named Biscuit",
                    "walks the beagle twice a day",
                    "user",
                    "Biscuit gets a walk at 7 and at 18.",
                ),
            ),
            (
                "deploy.md",
                topic(
                    "Deploy process",
                    "staging cluster first, then production",
                    "project",
                    "Use the blue/green switch.",
                ),
            ),
            (
                "style.md",
                topic(
                    "Terse answers",
                    "prefers short replies without preamble",
                    "feedback",
                    "No summaries at the end.",
                ),
            ),
        ];
        for (f, body) in files {
            std::fs::write(p.join(f), body).unwrap();
        }
    }
}

/// The paths of the matches (the hits not flagged weak), in order.
fn paths(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .filter(|h| h["weak"] != true)
        .map(|h| h["path"].as_str().unwrap().to_owned())
        .collect()
}

/// No match: every hit (the nearest by meaning, given to fill the limit) is weak.
fn no_match(v: &serde_json::Value) -> bool {
    v.as_array().unwrap().iter().all(|h| h["weak"] == true)
}

#[test]
fn search_finds_by_meaning_what_shares_no_word_and_lexical_does_not() {
    if mnemo_embed::model_for_tests().is_none() {
        return;
    }
    let e = Env::new();
    e.pets();
    let hits = e.json_model(&["search", "which pet does the user own"]);
    assert_eq!(
        paths(&hits).first().map(String::as_str),
        Some("dog.md"),
        "{hits}"
    );
    assert!(hits[0]["vector"].as_f64().is_some());
    let s = hits[0]["score"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&s), "{s}");
    let lexical = e.json_model(&["search", "which pet does the user own", "--lexical"]);
    assert!(!paths(&lexical).contains(&"dog.md".to_owned()), "{lexical}");

    // About nothing in memory: nothing, hybrid or lexical.
    let none = e.json_model(&["search", "quarterly tax filing deadline"]);
    assert!(no_match(&none), "{none}");
    let none = e.json_model(&["search", "quarterly tax filing deadline", "--lexical"]);
    assert_eq!(
        none,
        serde_json::json!([]),
        "words alone have no candidate to give"
    );

    // Files stay the truth: another program's new file is found at the next search.
    std::fs::write(
        e.personal().join("cat.md"),
        topic(
            "Cat called Miso",
            "sleeps on the keyboard",
            "user",
            "Miso is a tabby.",
        ),
    )
    .unwrap();
    let hits = e.json_model(&["search", "the user's kitten"]);
    assert_eq!(
        paths(&hits).first().map(String::as_str),
        Some("cat.md"),
        "{hits}"
    );

    let status = e.json_model(&["status"]);
    assert_eq!(status["semantic"]["state"], "ready", "{status}");
    assert_eq!(status["semantic"]["embedded"], status["semantic"]["total"]);
}

#[test]
fn a_long_memory_is_embedded_from_its_first_part_and_said_so() {
    if mnemo_embed::model_for_tests().is_none() {
        return;
    }
    let e = Env::new();
    e.pets();
    let long = "The migration plan has many steps. ".repeat(400);
    std::fs::write(
        e.personal().join("plan.md"),
        topic(
            "Migration plan",
            "moving the billing database",
            "project",
            &long,
        ),
    )
    .unwrap();
    let t = e.json_model(&["embed"]);
    assert_eq!(t["status"], "completed", "{t}");
    let summary = t["result"]["summary"].as_str().unwrap();
    assert!(summary.contains("embedded 4 memories"), "{summary}");
    assert!(summary.contains("first part"), "{summary}");
    // Still found by what its start is about.
    let hits = e.json_model(&["search", "database move for billing"]);
    assert_eq!(
        paths(&hits).first().map(String::as_str),
        Some("plan.md"),
        "{hits}"
    );
    // Nothing left to do the second time.
    let t = e.json_model(&["embed"]);
    assert!(
        t["result"]["summary"]
            .as_str()
            .unwrap()
            .contains("embedded 0"),
        "{t}"
    );
}

#[test]
fn without_a_usable_model_search_is_lexical_and_status_says_how_to_install() {
    let e = Env::new();
    e.pets();
    let broken = e.dir.path().join("broken-model");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("model.safetensors"), b"truncated").unwrap();
    std::fs::write(broken.join("config.json"), b"{}").unwrap();
    std::fs::write(broken.join("tokenizer.json"), b"{}").unwrap();
    for (model, state) in [(broken.to_str().unwrap(), "broken"), ("off", "off")] {
        let run = |args: &[&str]| {
            e.cmd()
                .env("MNEMO_EMBED_MODEL", model)
                .arg("--json")
                .args(args)
                .output()
                .unwrap()
        };
        let out = run(&["status"]);
        assert!(out.status.success());
        let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(status["semantic"]["state"], state, "{status}");
        let msg = status["semantic"]["message"].as_str().unwrap();
        assert!(msg.starts_with("search is lexical only"), "{msg}");
        if state == "broken" {
            assert!(msg.contains("README's set-up"), "{msg}");
        }
        // Search still works, by words.
        let out = run(&["search", "beagle walks"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(paths(&hits), ["dog.md"]);
        assert!(hits[0]["vector"].is_null());
        // `mnemo embed` says why it cannot.
        let out = run(&["embed"]);
        assert_eq!(out.status.code(), Some(1));
        let err: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(err["error"]["code"], "embedding_unavailable");
    }
}

/// Nothing unrelated is offered as a match "by meaning". An English model
/// (all-MiniLM-L6-v2, still served through MNEMO_EMBED_MODEL) places every two Chinese texts
/// close together, so a Chinese query is searched by its words; and a result far below the best
/// one is cut off.
#[test]
fn search_offers_nothing_unrelated_by_meaning() {
    let Some(minilm) = mnemo_embed::minilm_for_tests() else {
        return;
    };
    let e = Env::new();
    let json_model = |args: &[&str]| {
        let mut c = e.cmd();
        c.env("MNEMO_EMBED_MODEL", &minilm);
        e.json_of(c, args)
    };
    e.pets();
    let p = e.personal();
    for (f, name, body) in [
        ("tea.md", "喜欢喝绿茶", "用户每天下午喝绿茶。"),
        ("friday.md", "周五不部署", "周五下午禁止部署。"),
        ("breakfast.md", "早餐吃包子", "用户早餐常吃包子。"),
        ("coffee.md", "早上喝咖啡", "用户每天早上喝一杯咖啡。"),
    ] {
        std::fs::write(p.join(f), topic(name, name, "user", body)).unwrap();
    }
    // Only the memory that says 咖啡; before, all six Chinese memories came back "by meaning".
    let hits = json_model(&["search", "咖啡"]);
    assert_eq!(paths(&hits), ["coffee.md"], "{hits}");
    assert!(hits[0]["vector"].is_null(), "found by its words: {hits}");
    // A Chinese query sharing no word with any memory finds nothing at all.
    let none = json_model(&["search", "首屏加载太久了"]);
    assert_eq!(paths(&none), Vec::<String>::new(), "{none}");
    // An English query by meaning: the pet, not every memory that shares a common word.
    let pet = json_model(&["search", "which pet does the user own"]);
    assert_eq!(paths(&pet), ["dog.md"], "{pet}");
}

/// With the model the set-up installs (multilingual-e5-small, in the
/// models folder every home shares), a brand-new home finds its model, a Chinese paraphrase finds
/// the Chinese memory it shares no word with, an English question finds the pet — and searching
/// by words alone finds neither.
#[test]
fn a_new_home_finds_the_shared_model_and_searches_every_language_by_meaning() {
    if mnemo_embed::model_for_tests().is_none() {
        return;
    }
    let e = Env::new();
    let status = e.json_model(&["status"]);
    assert_eq!(status["semantic"]["state"], "ready", "{status}");
    let model = status["semantic"]["model"].as_str().unwrap_or_default();
    assert!(model.starts_with("multilingual-e5-small"), "{status}");

    e.pets();
    let p = e.personal();
    for (f, name, desc, body) in [
        (
            "coldstart.md",
            "降低冷启动时间",
            "第三方脚本延后执行",
            "只保留必要的代码。",
        ),
        ("tea.md", "下午喝绿茶", "咖啡因太多影响睡眠", "每天两杯。"),
        (
            "meeting.md",
            "会議の議事録",
            "毎週月曜日に共有する",
            "担当は田中さん。",
        ),
        (
            "spicy.md",
            "매운 음식",
            "매운 음식을 좋아하지 않는다",
            "김치는 괜찮다.",
        ),
    ] {
        std::fs::write(p.join(f), topic(name, desc, "project", body)).unwrap();
    }
    let hits = e.json_model(&["search", "首屏加载太久了"]);
    assert_eq!(
        paths(&hits).first().map(String::as_str),
        Some("coldstart.md"),
        "{hits}"
    );
    let hits = e.json_model(&["search", "which pet does the user own"]);
    assert_eq!(
        paths(&hits).first().map(String::as_str),
        Some("dog.md"),
        "{hits}"
    );
    let lexical = e.json_model(&["search", "首屏加载太久了", "--lexical"]);
    assert!(
        !paths(&lexical).contains(&"coldstart.md".to_owned()),
        "{lexical}"
    );
    let lexical = e.json_model(&["search", "which pet does the user own", "--lexical"]);
    assert!(!paths(&lexical).contains(&"dog.md".to_owned()), "{lexical}");
    // The multilingual model reads a Chinese word by meaning: the coffee memory comes first.
    std::fs::write(
        p.join("coffee.md"),
        topic(
            "早上喝咖啡",
            "早上喝咖啡",
            "user",
            "用户每天早上喝一杯咖啡。",
        ),
    )
    .unwrap();
    let hits = e.json_model(&["search", "咖啡"]);
    assert_eq!(
        paths(&hits).first().map(String::as_str),
        Some("coffee.md"),
        "{hits}"
    );
    // Nothing to find by meaning: one letter, an unrelated subject (their best cosines, 0.81 and
    // 0.77, sit under e5's query floor). A stop word is not refused here — search as you type
    // matches words — but recall refuses it (engine tests).
    for q in ["x", "quantum chromodynamics lecture notes"] {
        let none = e.json_model(&["search", q]);
        assert!(no_match(&none), "{q}: {none}");
    }
}
