//! One write gate for review mode. Every change source is classified here by an
//! exhaustive match — a new writer does not compile until it is — and, with review mode on,
//! every automatic writer is proven to land as a proposal: directly at the vault (a write
//! outside a staged group is refused, nothing changed), and through each job that writes —
//! extraction, remember (the app's and an MCP client's), the chat model's own tools, a dream,
//! learning from imported conversations.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use mnemo_api::Api;
use mnemo_api::reexports::TaskStatus;
use mnemo_core::{ChangeSource, ErrorCode};
use mnemo_testkit::{FakeModel, Kind, Reply};
use serde_json::json;

use crate::common::{api, blocking, configure};

/// Every source of a change, each said to be automatic (a model or a job acting on its own) or
/// not. The match has no wildcard: a new source must be placed here.
fn automatic(s: ChangeSource) -> bool {
    match s {
        ChangeSource::Extract
        | ChangeSource::Dream
        | ChangeSource::Remember
        | ChangeSource::Chat
        | ChangeSource::Mcp => true,
        ChangeSource::User
        | ChangeSource::Cli
        | ChangeSource::Watcher
        | ChangeSource::Forget
        | ChangeSource::Sync => false,
    }
}

const ALL: [ChangeSource; 10] = [
    ChangeSource::User,
    ChangeSource::Cli,
    ChangeSource::Watcher,
    ChangeSource::Extract,
    ChangeSource::Dream,
    ChangeSource::Forget,
    ChangeSource::Remember,
    ChangeSource::Chat,
    ChangeSource::Mcp,
    ChangeSource::Sync,
];

fn root(api: &Api) -> PathBuf {
    api.home_dir().join("workspaces/personal/memory")
}

/// Every file under `dir` with its bytes (MEMORY.md and records included).
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if !e.file_name().to_string_lossy().starts_with('.') {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The topic files only (what review guards; records and logs are not memories).
fn topics(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    snapshot(dir)
        .into_iter()
        .filter(|(p, _)| {
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            mnemo_store::doc::doc_kind(&rel) == Some(mnemo_store::doc::DocKind::Topic)
        })
        .collect()
}

const TOPIC: &str =
    "---\nname: Tea\ndescription: What the user drinks\ntype: user\n---\n- Drinks green tea\n";

#[test]
fn at_the_vault_an_automatic_write_outside_a_staged_group_is_refused_and_a_persons_lands() {
    let (_d, api) = api();
    api.set_review_mode("personal".into(), true).unwrap();
    let vault = mnemo_store::Vault::open(mnemo_store::Home {
        root: api.home_dir().to_path_buf(),
        claude_dir: api.home_dir().join("../c"),
        qwen_dir: api.home_dir().join("../q"),
    })
    .unwrap();
    let ws = vault.workspace("personal").unwrap();
    let mut refused = Vec::new();
    for (i, source) in ALL.into_iter().enumerate() {
        assert_eq!(source.is_automatic(), automatic(source), "{source:?}");
        let path = format!("w{i}.md");
        let before = topics(&root(&api));
        let r = vault.mutate(&ws, &path, source, None, |_, _| {
            Ok(Some(TOPIC.as_bytes().to_vec()))
        });
        if automatic(source) {
            let e = r.expect_err(source.as_str());
            assert_eq!(e.code, ErrorCode::Conflict, "{source:?}: {e}");
            assert!(e.message.contains("review mode is on"), "{}", e.message);
            assert_eq!(topics(&root(&api)), before, "{source:?} changed nothing");
            refused.push(source.as_str());
        } else {
            r.unwrap_or_else(|e| panic!("{source:?}: {e}"));
            assert!(root(&api).join(&path).exists(), "{source:?} wrote");
        }
    }
    assert_eq!(refused, ["extract", "dream", "remember", "chat", "mcp"]);
    // Inside a staged group (what the API's gate opens for a job) the same write is staged.
    vault.stage_group(-99, "personal");
    let before = topics(&root(&api));
    let origin = mnemo_store::journal::Origin {
        source: ChangeSource::Remember,
        group: Some(-99),
    };
    vault
        .mutate(&ws, "staged.md", origin, None, |_, _| {
            Ok(Some(TOPIC.as_bytes().to_vec()))
        })
        .unwrap();
    assert_eq!(topics(&root(&api)), before, "staged, not written");
    vault.drop_stage(-99);
}

async fn wait(api: &Api, id: &str) {
    let (a, id) = (api.clone(), id.to_owned());
    blocking(move || a.wait_task(&id, Duration::from_secs(60)).unwrap()).await;
}

fn inbox_total(api: &Api) -> u64 {
    u64::from(
        api.inbox("personal".into(), None, None, None)
            .unwrap()
            .total,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_automatic_writer_lands_as_a_proposal_in_review_mode() {
    let (d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    api.set_review_mode("personal".into(), true).unwrap();
    api.set_auto_extract("personal".into(), false).unwrap();
    api.set_chat_records("personal".into(), false).unwrap();
    // Two files that say one thing: a dream has something to merge.
    let dir = root(&api);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("tea.md"), TOPIC).unwrap();
    std::fs::write(
        dir.join("tea-again.md"),
        "---\nname: Tea again\ndescription: What the user drinks\ntype: user\n---\n- Drinks green tea\n",
    )
    .unwrap();
    api.list(None, None).unwrap();
    let mut proposed: Vec<&str> = Vec::new();
    let mut expect = 0;
    let mut check = |what: &'static str, before: &[(PathBuf, Vec<u8>)], api: &Api| {
        expect += 1;
        assert_eq!(topics(&root(api)), before, "{what}: no memory changed");
        assert_eq!(inbox_total(api), expect, "{what}: one more proposal");
        proposed.push(what);
    };

    // Remember, as the app asks it.
    let before = topics(&dir);
    fake.push_for(Kind::Tools, Reply::SaveFact);
    fake.push_for(Kind::Tools, Reply::text("Saved."));
    let a = api.clone();
    let t = blocking(move || a.remember(None, "The user drinks oolong.".into(), None, None))
        .await
        .unwrap();
    wait(&api, &t.task_id).await;
    let done = api.remember_task(t.task_id, None).unwrap();
    assert_eq!(done.status, TaskStatus::Completed, "{done:?}");
    assert!(done.result.unwrap().proposal.is_some());
    check("remember", &before, &api);

    // Remember, as an assistant over MCP asks it (the same lane, acting for MCP).
    let before = topics(&dir);
    fake.push_for(Kind::Tools, Reply::SaveFact);
    fake.push_for(Kind::Tools, Reply::text("Saved."));
    let mcp = api.clone().acting_for(ChangeSource::Mcp);
    let t = blocking(move || mcp.remember(None, "The user drinks rooibos.".into(), None, None))
        .await
        .unwrap();
    wait(&api, &t.task_id).await;
    check("mcp", &before, &api);

    // Extraction after a chat turn.
    api.set_auto_extract("personal".into(), true).unwrap();
    let before = topics(&dir);
    let task = common::extraction_calling(
        &api,
        &fake,
        "I live in Lisbon.",
        Reply::tool(
            "write_file",
            json!({"path": "home.md", "content": "---\nname: Home\ndescription: Where the user lives\ntype: user\n---\n- Lives in Lisbon\n"}),
        ),
    )
    .await;
    assert!(task.result.unwrap().proposal.is_some());
    check("extract", &before, &api);
    api.set_auto_extract("personal".into(), false).unwrap();

    // The chat model's own memory tool during a turn.
    let before = topics(&dir);
    fake.push_for(Kind::Json, Reply::json(&json!({"paths": []})));
    fake.push_for(
        Kind::Stream,
        Reply::tool(
            "write_file",
            json!({"path": "pet.md", "content": "---\nname: Pet\ndescription: The user's pet\ntype: user\n---\n- Has a cat named Miso\n"}),
        ),
    );
    fake.push_for(Kind::Stream, Reply::text("Noted."));
    let turn = common::send(&api, "My cat is called Miso.").await;
    assert!(turn.proposal.is_some() && turn.wrote.is_empty(), "{turn:?}");
    check("chat", &before, &api);

    // A dream (mechanical: no model needed to merge the two tea files).
    let before = topics(&dir);
    let a = api.clone();
    let t = blocking(move || a.dream("personal".into(), Some(true)))
        .await
        .unwrap();
    wait(&api, &t.id).await;
    check("dream", &before, &api);

    // Learning from imported conversations.
    let before = topics(&dir);
    fake.set_fallback(Reply::SaveFirstUserLine);
    let src = d.path().join("conversations.json");
    std::fs::write(
        &src,
        json!([{"uuid": "c1", "name": "Chat 1", "chat_messages": [
            {"sender": "human", "text": "The user's locker number is 7"},
            {"sender": "assistant", "text": "Noted."}]}])
        .to_string(),
    )
    .unwrap();
    let (a, s) = (api.clone(), src.to_string_lossy().into_owned());
    let t = blocking(move || {
        let t = a.import_start(s, None, None, None).unwrap();
        a.wait_task(&t.id, Duration::from_secs(60)).unwrap()
    })
    .await;
    let r = t.result.unwrap();
    assert!(r.proposal.is_some() && r.files.is_empty(), "{r:?}");
    assert!(r.summary.contains("proposed"), "{}", r.summary);
    check("import learning", &before, &api);

    assert_eq!(
        proposed,
        [
            "remember",
            "mcp",
            "extract",
            "chat",
            "dream",
            "import learning"
        ]
    );
    // And a person's own write still lands at once.
    api.create(
        "personal".into(),
        mnemo_api::NewMemory {
            path: Some("mine.md".into()),
            name: "Mine".into(),
            description: "written by the person".into(),
            memory_type: mnemo_api::reexports::MemoryType::User,
            body: "- Written by hand\n".into(),
        },
    )
    .unwrap();
    assert!(dir.join("mine.md").exists());
}
