//! The memory agent end to end: the async driver, the real tools on a real vault, and the fake
//! model server scripting tool calls.

use std::time::Duration;

use mnemo_core::ChangeSource;
use mnemo_engine::{AgentEvent, AgentLimits, AgentMachine, AgentOutcome, MemoryTools, run_agent};
use mnemo_llm::CancellationToken;
use mnemo_testkit::{FakeModel, Reply};
use serde_json::json;

use crate::{client, vault};

const LIMITS: AgentLimits = AgentLimits {
    max_turns: 5,
    wall_time: Duration::from_secs(120),
    step_tokens: 512,
    total_tokens: 100_000,
};
const GOOD: &str = "---\nname: Role\ndescription: Senior Go engineer new to React\ntype: user\n---\nTen years of Go.\n";

#[tokio::test]
async fn the_agent_writes_a_memory_through_the_vault() {
    let (_d, v) = vault();
    let fake = FakeModel::start().await;
    fake.push(Reply::tool(
        "write_file",
        json!({"path": "user/role.md", "content": GOOD}),
    ));
    fake.push(Reply::text("Saved 1 memory."));
    let ws = v.workspace("personal").unwrap();
    let mut tools = MemoryTools::new(&v, ws.clone(), ChangeSource::Remember);
    let mut events = Vec::new();
    let machine = AgentMachine::new(
        LIMITS,
        "You maintain the user's memory.",
        "Remember: I am a Go engineer.",
    );
    let out = run_agent(
        &client(&fake),
        &mut tools,
        machine,
        &CancellationToken::new(),
        |e| events.push(e.clone()),
    )
    .await;
    assert_eq!(
        out,
        AgentOutcome::Completed {
            summary: "Saved 1 memory.".into(),
            turns: 2
        }
    );
    assert_eq!(
        std::fs::read_to_string(ws.memory_root.join("user/role.md")).unwrap(),
        GOOD
    );
    assert!(tools.touched.contains("user/role.md"));
    let h = v
        .history(Some("personal"), Some("user/role.md"), 5)
        .unwrap();
    assert_eq!(
        h[0].source,
        ChangeSource::Remember,
        "journaled with its source"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolCall { name, .. } if name == "write_file"))
    );
    assert!(events.contains(&AgentEvent::ToolResult {
        name: "write_file".into(),
        ok: true
    }));
    // The second request carries the tool's answer and offers exactly the six tools.
    let reqs = fake.requests();
    let tools_offered: Vec<&str> = reqs[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools_offered,
        [
            "read_file",
            "write_file",
            "edit",
            "list_directory",
            "grep_search",
            "glob"
        ]
    );
    assert!(
        reqs[1]["messages"]
            .to_string()
            .contains("wrote user/role.md")
    );
}

#[tokio::test]
async fn secrets_invalid_frontmatter_and_escapes_are_refused_and_reported() {
    let (d, v) = vault();
    let fake = FakeModel::start().await;
    let secret = "---\nname: Key\ndescription: the key\ntype: reference\n---\nOPENAI key sk-proj-abcdefghijklmnopqrstuvwx1234\n";
    fake.push(Reply::ToolCalls(vec![
        (
            "write_file".into(),
            json!({"path": "key.md", "content": secret}),
        ),
        (
            "write_file".into(),
            json!({"path": "bad.md", "content": "no frontmatter"}),
        ),
        (
            "write_file".into(),
            json!({"path": "../outside.md", "content": GOOD}),
        ),
        ("read_file".into(), json!({"path": "/etc/passwd"})),
    ]));
    fake.push(Reply::text("Nothing saved."));
    let ws = v.workspace("personal").unwrap();
    let mut tools = MemoryTools::new(&v, ws.clone(), ChangeSource::Extract);
    let mut results = Vec::new();
    let out = run_agent(
        &client(&fake),
        &mut tools,
        AgentMachine::new(LIMITS, "s", "t"),
        &CancellationToken::new(),
        |e| {
            if let AgentEvent::ToolResult { ok, .. } = e {
                results.push(*ok);
            }
        },
    )
    .await;
    assert!(matches!(out, AgentOutcome::Completed { .. }));
    assert_eq!(results, [false, false, false, false]);
    assert!(tools.escaped, "the escape attempt is recorded");
    assert!(tools.touched.is_empty());
    assert!(!ws.memory_root.join("key.md").exists() && !ws.memory_root.join("bad.md").exists());
    assert!(
        !d.path()
            .join("home/workspaces/personal/outside.md")
            .exists()
    );
    let answers = fake.requests()[1]["messages"].to_string();
    assert!(answers.contains("openai_api_key"), "the rule is named");
    // The refusal names the rule but never echoes the secret back.
    let tool_answers: Vec<String> = fake.requests()[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        tool_answers
            .iter()
            .all(|a| !a.contains("abcdefghijklmnopqrstuvwx1234"))
    );
    assert!(answers.contains("path_escape"));
    assert!(answers.contains("invalid_frontmatter"));
}

#[tokio::test]
async fn edit_grep_glob_and_list_work_inside_the_root() {
    let (_d, v) = vault();
    let ws = v.workspace("personal").unwrap();
    let mut tools = MemoryTools::new(&v, ws.clone(), ChangeSource::Dream);
    assert!(
        tools
            .run(
                "write_file",
                &json!({"path": "user/role.md", "content": GOOD}).to_string()
            )
            .ok
    );
    let e = tools.run(
        "edit",
        &json!({"path": "user/role.md", "old_string": "Ten years", "new_string": "Twelve years"})
            .to_string(),
    );
    assert!(e.ok, "{}", e.text);
    // The corrected fact is kept as superseded, just before its successor.
    let text = std::fs::read_to_string(ws.memory_root.join("user/role.md")).unwrap();
    assert!(
        text.contains("Ten years of Go.\nSuperseded: ")
            && text.contains(" by \"Twelve years of Go.\"; dream\n\nTwelve years of Go."),
        "{text}"
    );
    // A superseded fact is history: an edit of it is refused, and so is one of text not there.
    let history = tools.run(
        "edit",
        &json!({"path": "user/role.md", "old_string": "Ten years", "new_string": "x"}).to_string(),
    );
    assert!(
        !history.ok && history.text.contains("superseded"),
        "{}",
        history.text
    );
    let missing = tools.run(
        "edit",
        &json!({"path": "user/role.md", "old_string": "Nine years", "new_string": "x"}).to_string(),
    );
    assert!(!missing.ok);
    let broken = tools.run(
        "edit",
        &json!({"path": "user/role.md", "old_string": "type: user", "new_string": "type: note"})
            .to_string(),
    );
    assert!(
        !broken.ok && broken.text.contains("invalid_type"),
        "{}",
        broken.text
    );
    let g = tools.run("grep_search", &json!({"pattern": "^twelve"}).to_string());
    assert_eq!(g.text, "user/role.md:9: Twelve years of Go.");
    assert_eq!(
        tools
            .run("glob", &json!({"pattern": "**/*.md"}).to_string())
            .text,
        "MEMORY.md\nuser/role.md"
    );
    assert_eq!(
        tools
            .run("list_directory", &json!({"path": "."}).to_string())
            .text,
        "MEMORY.md\nuser/"
    );
    assert!(
        tools
            .run("read_file", &json!({"path": "MEMORY.md"}).to_string())
            .text
            .contains("user/role.md")
    );
    assert!(!tools.run("shell", "{}").ok);
    assert!(!tools.run("read_file", "not json").ok);
}

#[tokio::test]
async fn max_turns_and_cancellation_end_the_run() {
    let (_d, v) = vault();
    let fake = FakeModel::start().await;
    for _ in 0..3 {
        fake.push(Reply::tool("glob", json!({"pattern": "*.md"})));
    }
    let ws = v.workspace("personal").unwrap();
    let mut tools = MemoryTools::new(&v, ws.clone(), ChangeSource::Extract);
    let limits = AgentLimits {
        max_turns: 2,
        wall_time: Duration::from_secs(60),
        ..LIMITS
    };
    let out = run_agent(
        &client(&fake),
        &mut tools,
        AgentMachine::new(limits, "s", "t"),
        &CancellationToken::new(),
        |_| {},
    )
    .await;
    assert_eq!(out, AgentOutcome::MaxTurns(2));
    assert_eq!(fake.requests().len(), 2);
    let fake = FakeModel::start().await;
    fake.push(Reply::Delay(
        Duration::from_secs(30),
        Box::new(Reply::text("late")),
    ));
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        c2.cancel();
    });
    let out = run_agent(
        &client(&fake),
        &mut tools,
        AgentMachine::new(LIMITS, "s", "t"),
        &cancel,
        |_| {},
    )
    .await;
    assert_eq!(out, AgentOutcome::Cancelled);
    let fake = FakeModel::start().await;
    fake.push(Reply::Delay(
        Duration::from_secs(30),
        Box::new(Reply::text("late")),
    ));
    let short = AgentLimits {
        max_turns: 5,
        wall_time: Duration::from_millis(300),
        ..LIMITS
    };
    let out = run_agent(
        &client(&fake),
        &mut tools,
        AgentMachine::new(short, "s", "t"),
        &CancellationToken::new(),
        |_| {},
    )
    .await;
    assert_eq!(out, AgentOutcome::TimedOut);
}

/// A file another program wrote with a secret in it reaches the model redacted (read,
/// grep), and no memory job may change or delete it (its text would come back without the
/// secret, and Mnemo keeps no copy to undo from).
#[tokio::test]
async fn agents_read_a_secret_redacted_and_never_change_its_file() {
    let (_d, v) = vault();
    let ws = v.workspace("personal").unwrap();
    let token = "ghp_Zq8Xw2Lm4Nv6Bc1Tr9Yh3Kp5Js7Df0Ga2We4";
    let text = format!(
        "---\nname: Deploy\ndescription: How we deploy\ntype: project\n---\nDeploy with {token} from CI.\n"
    );
    std::fs::create_dir_all(&ws.memory_root).unwrap();
    std::fs::write(ws.memory_root.join("deploy.md"), &text).unwrap();
    let mut tools = MemoryTools::new(&v, ws.clone(), ChangeSource::Dream);
    let read = tools.run("read_file", &json!({"path": "deploy.md"}).to_string());
    assert!(read.ok, "{}", read.text);
    assert!(
        read.text
            .contains("Deploy with [redacted: github_token] from CI."),
        "{}",
        read.text
    );
    let grep = tools.run(
        "grep_search",
        &json!({"pattern": "deploy with"}).to_string(),
    );
    assert!(!grep.text.contains(token), "{}", grep.text);
    for (name, args) in [
        (
            "edit",
            json!({"path": "deploy.md", "old_string": "from CI", "new_string": "from the laptop"}),
        ),
        ("write_file", json!({"path": "deploy.md", "content": GOOD})),
    ] {
        let out = tools.run(name, &args.to_string());
        assert!(
            !out.ok
                && out
                    .text
                    .contains("holds what looks like a secret (github_token (line 6))"),
            "{name}: {}",
            out.text
        );
    }
    assert_eq!(
        std::fs::read_to_string(ws.memory_root.join("deploy.md")).unwrap(),
        text,
        "left exactly as it was"
    );
}
