//! Dream through the API: the mechanical path merges duplicates in one change group
//! that undoes byte-exact; the agent path runs against the fake model with every guard holding
//! (MEMORY.md, paths outside the root, invalid frontmatter, deletes that would lose an entry,
//! pinned memories, files changed on disk meanwhile); a failing or slow model falls back to the
//! mechanical path; the lock keeps other processes out and is released on cancel; the gates
//! after chat turns record why an automatic dream did not run, and queue one when they pass.

use std::path::PathBuf;
use std::time::Duration;

use mnemo_api::Api;
use mnemo_api::reexports::{TaskInfo, TaskKind, TaskStatus};
use mnemo_api::wire::DreamReport;
use mnemo_core::ErrorCode;
use mnemo_core::{DreamStatus, DreamStrategy};
use mnemo_testkit::{FakeModel, Kind, Reply};
use serde_json::json;

use crate::common::{api, blocking, send, settings};

fn topic(name: &str, ty: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {name} facts\ntype: {ty}\n---\n{body}")
}

fn root(api: &Api) -> PathBuf {
    api.home_dir().join("workspaces/personal/memory")
}

fn put(api: &Api, rel: &str, text: &str) {
    let p = root(api).join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn read(api: &Api, rel: &str) -> Option<String> {
    std::fs::read_to_string(root(api).join(rel)).ok()
}

/// Two project files sharing an entry, a user file with an internal duplicate.
fn seed(api: &Api) -> Vec<(String, Option<String>)> {
    put(
        api,
        "a.md",
        &topic("Plans", "project", "Ship v2 in May.\n\nUse Postgres.\n"),
    );
    put(
        api,
        "b.md",
        &topic(
            "More plans",
            "project",
            "Ship v2 in May.\nWhy: the board asked.\n",
        ),
    );
    put(
        api,
        "me.md",
        &topic(
            "Me",
            "user",
            "Likes tea.\n\nlikes TEA.\nHow to apply: offer tea.\n",
        ),
    );
    api.index(None).unwrap();
    ["a.md", "b.md", "me.md", "MEMORY.md"]
        .iter()
        .map(|p| ((*p).to_owned(), read(api, p)))
        .collect()
}

async fn configure(api: &Api, fake: &FakeModel) {
    let (a, s) = (api.clone(), settings(fake));
    blocking(move || a.set_model_settings(s)).await.unwrap();
}

/// The agent's two good steps: write b.md's entry (with its Why) into a.md, then delete b.md.
/// Returns the merged a.md.
fn script_merge(fake: &FakeModel) -> String {
    let merged = topic(
        "Plans",
        "project",
        "Ship v2 in May.\nWhy: the board asked.\n\nUse Postgres.\n",
    );
    fake.push_for(
        Kind::Tools,
        Reply::tool("write_file", json!({"path": "a.md", "content": merged})),
    );
    fake.push_for(
        Kind::Tools,
        Reply::tool("delete_file", json!({"path": "b.md"})),
    );
    merged
}

async fn dream(api: &Api, mechanical: bool) -> TaskInfo {
    let a = api.clone();
    blocking(move || {
        let t = a.dream("personal".into(), Some(mechanical)).unwrap();
        a.wait_task(&t.id, Duration::from_secs(60)).unwrap()
    })
    .await
}

fn report(t: &TaskInfo) -> DreamReport {
    t.result
        .as_ref()
        .and_then(|r| r.dream.clone())
        .expect("a dream report")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mechanical_dream_merges_in_one_group_that_undoes_byte_exact() {
    let (_d, api) = api();
    let before = seed(&api);
    let t = dream(&api, true).await;
    assert_eq!(t.status, TaskStatus::Completed, "{t:?}");
    assert_eq!(t.kind, TaskKind::Dream);
    let r = report(&t);
    assert_eq!(
        (r.status, r.strategy),
        (DreamStatus::Updated, DreamStrategy::Mechanical)
    );
    assert_eq!(r.entries_merged, 2);
    assert_eq!(r.files_deleted, vec!["b.md"]);
    assert_eq!(r.files_touched, vec!["a.md", "me.md"]);
    let a = read(&api, "a.md").unwrap();
    assert!(a.contains("Ship v2 in May.\nWhy: the board asked."), "{a}");
    assert_eq!(
        read(&api, "me.md").unwrap(),
        topic("Me", "user", "Likes tea.\nHow to apply: offer tea.\n")
    );
    assert!(!read(&api, "MEMORY.md").unwrap().contains("b.md"));
    // meta.json and telemetry record it.
    let ws = api.workspaces().unwrap();
    assert!(ws.iter().any(|w| w.workspace.id == "personal"));
    let status = api.status().unwrap();
    assert!(status.workspaces[0].last_dream_at.is_some());
    // One group; undoing it restores every file byte-exact.
    let group = t.result.as_ref().unwrap().group.expect("a change group");
    let g = api.change_group(group).unwrap();
    assert_eq!(g.kind, "dream");
    assert_eq!(g.task.as_deref(), Some(t.id.as_str()));
    let undo = api.undo_group(group).unwrap();
    assert!(undo.paths.contains(&"b.md".to_owned()));
    for (p, text) in &before {
        assert_eq!(&read(&api, p), text, "{p} is back byte-exact");
    }
    // Undone is a state every reader sees: the task, Status and `/memory`.
    let read_back = api.task(t.id.clone()).unwrap();
    assert_eq!(read_back.result.unwrap().undone_by, Some(undo.group));
    let stats = api.stats("personal".into()).unwrap();
    assert_eq!(stats.last_dream_undone_by, Some(undo.group));
    let said = api.memory_status("personal".into(), None).unwrap();
    assert!(said.contains("undone since"), "{said}");
    assert!(
        api.undo_group(group)
            .unwrap_err()
            .message
            .contains("already undone"),
        "a second undo is refused in words"
    );
    // Dreaming twice in a row: the second run is a noop.
    dream(&api, true).await;
    let again = dream(&api, true).await;
    assert_eq!(report(&again).status, DreamStatus::Noop);
    assert_eq!(
        again.result.as_ref().unwrap().group,
        None,
        "an empty group is not kept"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dry_run_plan_writes_nothing() {
    let (_d, api) = api();
    let before = seed(&api);
    let plan = api.dream_plan("personal".into()).unwrap();
    assert_eq!(plan.entries_merged, 2);
    let changes: Vec<(&str, bool)> = plan
        .changes
        .iter()
        .map(|c| (c.path.as_str(), c.delete))
        .collect();
    assert_eq!(
        changes,
        vec![("a.md", false), ("me.md", false), ("b.md", true)]
    );
    for (p, text) in &before {
        assert_eq!(&read(&api, p), text);
    }
    assert!(
        api.tasks(None, Some(TaskKind::Dream), None, None)
            .unwrap()
            .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_dream_runs_and_every_guard_holds() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    seed(&api);
    let pinned = topic("Pinned", "project", "Ship v2 in May.\n")
        .replace("type: project", "type: project\npinned: true");
    put(&api, "pin.md", &pinned);
    let merged = topic(
        "Plans",
        "project",
        "Ship v2 in May.\nWhy: the board asked.\n\nUse Postgres.\n",
    );
    fake.push_for(
        Kind::Tools,
        Reply::ToolCalls(vec![
            (
                "write_file".into(),
                json!({"path": "MEMORY.md", "content": "# mine\n"}),
            ),
            (
                "write_file".into(),
                json!({"path": "../escape.md", "content": topic("X", "user", "x\n")}),
            ),
            (
                "write_file".into(),
                json!({"path": "bad.md", "content": "no frontmatter\n"}),
            ),
            ("delete_file".into(), json!({"path": "b.md"})),
            (
                "write_file".into(),
                json!({"path": "pin.md", "content": topic("Pinned", "project", "changed\n")}),
            ),
            ("delete_file".into(), json!({"path": "../../meta.json"})),
        ]),
    );
    fake.push_for(
        Kind::Tools,
        Reply::tool("write_file", json!({"path": "a.md", "content": merged})),
    );
    fake.push_for(
        Kind::Tools,
        Reply::tool("delete_file", json!({"path": "b.md"})),
    );
    fake.push_for(
        Kind::Tools,
        Reply::text("Merged the two v2 plans into a.md."),
    );
    let t = dream(&api, false).await;
    assert_eq!(t.status, TaskStatus::Completed, "{t:?}");
    let r = report(&t);
    assert_eq!(
        (r.status, r.strategy),
        (DreamStatus::Updated, DreamStrategy::Agent),
        "{r:?}"
    );
    assert_eq!(r.files_deleted, vec!["b.md"]);
    assert!(
        r.notes
            .iter()
            .any(|n| n == "agent: Merged the two v2 plans into a.md."),
        "{:?}",
        r.notes
    );
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("outside the memory folder")),
        "{:?}",
        r.notes
    );
    // Every refused call is a failed step; the allowed ones succeeded.
    let steps: Vec<(&str, Option<bool>)> =
        t.tools.iter().map(|s| (s.name.as_str(), s.ok)).collect();
    assert_eq!(
        steps,
        vec![
            ("write_file", Some(false)),
            ("write_file", Some(false)),
            ("write_file", Some(false)),
            ("delete_file", Some(false)),
            ("write_file", Some(false)),
            ("delete_file", Some(false)),
            ("write_file", Some(true)),
            ("delete_file", Some(true)),
        ]
    );
    assert_eq!(read(&api, "a.md").unwrap(), merged);
    assert_eq!(
        read(&api, "pin.md").unwrap(),
        pinned,
        "pinned memories are never changed"
    );
    assert!(read(&api, "bad.md").is_none());
    assert!(
        !api.home_dir()
            .join("workspaces/personal/escape.md")
            .exists()
    );
    assert!(
        api.home_dir()
            .join("workspaces/personal/meta.json")
            .exists()
    );
    let index = read(&api, "MEMORY.md").unwrap();
    assert!(
        index.contains("(a.md)") && !index.contains("# mine") && !index.contains("(b.md)"),
        "{index}"
    );
    // The agent saw the dream tools and the phases.
    let reqs = fake.requests();
    let tools: Vec<&str> = reqs[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"delete_file") && tools.contains(&"grep_transcripts"),
        "{tools:?}"
    );
    let system = reqs[0]["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("Orient")
            && system.contains("Gather")
            && system.contains("Consolidate")
            && system.contains("Prune")
    );
    // Undo the dream as one.
    let group = t.result.as_ref().unwrap().group.unwrap();
    api.undo_group(group).unwrap();
    assert!(read(&api, "b.md").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_copy_of_a_deleted_files_entry_is_never_removed() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    seed(&api);
    let merged = script_merge(&fake);
    // Then it tries to edit the kept copy away: refused, b.md's entry would exist nowhere.
    fake.push_for(
        Kind::Tools,
        Reply::tool(
            "write_file",
            json!({"path": "a.md", "content": topic("Plans", "project", "Use Postgres.\n")}),
        ),
    );
    fake.push_for(Kind::Tools, Reply::text("Pruned."));
    let t = dream(&api, false).await;
    let steps: Vec<Option<bool>> = t.tools.iter().map(|s| s.ok).collect();
    assert_eq!(steps, vec![Some(true), Some(true), Some(false)], "{t:?}");
    assert_eq!(read(&api, "a.md").unwrap(), merged);
    assert_eq!(report(&t).files_deleted, vec!["b.md"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_file_whose_entry_an_outside_edit_removed_is_restored() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    let before = seed(&api);
    script_merge(&fake);
    fake.push_for(
        Kind::Tools,
        Reply::Delay(
            Duration::from_millis(1500),
            Box::new(Reply::text("Merged.")),
        ),
    );
    let a = api.clone();
    let started = blocking(move || a.dream("personal".into(), Some(false)).unwrap()).await;
    for _ in 0..200 {
        if read(&api, "b.md").is_none() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // An editor takes the surviving copy away while the agent is still at work.
    let theirs = topic("Plans", "project", "Use Postgres.\n");
    put(&api, "a.md", &theirs);
    let a = api.clone();
    let t = blocking(move || a.wait_task(&started.id, Duration::from_secs(30)).unwrap()).await;
    let r = report(&t);
    assert!(
        r.notes.iter().any(|n| n.starts_with("restored b.md")),
        "{:?}",
        r.notes
    );
    assert_eq!(read(&api, "b.md"), before[1].1, "restored byte-exact");
    assert_eq!(
        read(&api, "a.md").unwrap(),
        theirs,
        "the editor's text is kept"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outside_edit_during_the_dream_is_never_overwritten() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    seed(&api);
    let theirs = topic("Plans", "project", "Edited in an editor.\n");
    let agent_text = topic("Plans", "project", "Agent text.\n");
    fake.push_for(
        Kind::Tools,
        Reply::Delay(
            Duration::from_millis(1500),
            Box::new(Reply::ToolCalls(vec![
                (
                    "write_file".into(),
                    json!({"path": "a.md", "content": agent_text}),
                ),
                (
                    "write_file".into(),
                    json!({"path": "new.md", "content": topic("New", "user", "Agent text.\n")}),
                ),
            ])),
        ),
    );
    fake.push_for(Kind::Tools, Reply::text("Done."));
    let a = api.clone();
    let started = blocking(move || a.dream("personal".into(), Some(false)).unwrap()).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    put(&api, "a.md", &theirs);
    // A file created meanwhile is not the agent's to overwrite either.
    let created = topic("New", "user", "Written by a person.\n");
    put(&api, "new.md", &created);
    let a = api.clone();
    let t = blocking(move || a.wait_task(&started.id, Duration::from_secs(30)).unwrap()).await;
    assert_eq!(t.tools[0].ok, Some(false), "{t:?}");
    assert_eq!(t.tools[1].ok, Some(false), "{t:?}");
    // The mechanical pass that follows (the agent changed nothing) leaves them too.
    assert_eq!(read(&api, "a.md").unwrap(), theirs);
    assert_eq!(read(&api, "new.md").unwrap(), created);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_or_slow_model_falls_back_to_the_mechanical_path() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    let mut s = settings(&fake);
    s.timeout_secs = 1;
    let a = api.clone();
    blocking(move || a.set_model_settings(s)).await.unwrap();
    seed(&api);
    fake.push_for(
        Kind::Tools,
        Reply::error(400, "the model crashed while loading"),
    );
    let t = dream(&api, false).await;
    let r = report(&t);
    assert_eq!(
        (r.status, r.strategy),
        (DreamStatus::Updated, DreamStrategy::Mechanical),
        "{r:?}"
    );
    assert!(
        r.notes.iter().any(|n| n.starts_with("the agent failed")),
        "{:?}",
        r.notes
    );
    assert!(
        r.notes
            .iter()
            .any(|n| n == "fell back to the mechanical path")
    );
    assert_eq!(r.entries_merged, 2);
    // A model that never answers in time: the same.
    seed(&api);
    for _ in 0..4 {
        fake.push_for(
            Kind::Tools,
            Reply::Delay(Duration::from_secs(3), Box::new(Reply::text("late"))),
        );
    }
    let t = dream(&api, false).await;
    let r = report(&t);
    assert_eq!(r.strategy, DreamStrategy::Mechanical, "{r:?}");
    assert!(
        r.notes.iter().any(|n| n.starts_with("the agent failed")),
        "{:?}",
        r.notes
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_lock_refuses_and_a_stale_one_is_reclaimed() {
    let (_d, api) = api();
    let before = seed(&api);
    let state = api.home_dir().join("workspaces/personal");
    // PID 1 is alive: another process is consolidating.
    std::fs::write(state.join("consolidation.lock"), "1").unwrap();
    let err = api.dream("personal".into(), Some(true)).unwrap_err();
    assert_eq!(err.code, ErrorCode::Locked);
    assert!(err.message.contains("process 1"), "{}", err.message);
    for (p, text) in &before {
        assert_eq!(&read(&api, p), text, "nothing written");
    }
    // A dead holder: reclaimed, the dream runs, the lock is gone after.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    std::fs::write(state.join("consolidation.lock"), dead.to_string()).unwrap();
    let t = dream(&api, true).await;
    assert_eq!(report(&t).status, DreamStatus::Updated);
    assert!(!state.join("consolidation.lock").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_dream_releases_the_lock() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    seed(&api);
    fake.push_for(
        Kind::Tools,
        Reply::Delay(Duration::from_secs(20), Box::new(Reply::text("late"))),
    );
    let a = api.clone();
    let t = blocking(move || a.dream("personal".into(), Some(false)).unwrap()).await;
    let lock = api
        .home_dir()
        .join("workspaces/personal/consolidation.lock");
    for _ in 0..100 {
        if lock.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(lock.exists(), "held while dreaming");
    // Live progress names the phase and the model turn.
    let mut phase = String::new();
    for _ in 0..100 {
        phase = api.task(t.id.clone()).unwrap().phase.unwrap_or_default();
        if phase.contains("model turn") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        phase,
        "gather and consolidate: the memory agent is working (model turn 1 of 8)"
    );
    // Pressing Dream again returns the dream under way.
    let a = api.clone();
    let same = blocking(move || a.dream("personal".into(), None).unwrap()).await;
    assert_eq!(same.id, t.id);
    let (a, id) = (api.clone(), t.id.clone());
    let done = blocking(move || {
        a.task_cancel(id.clone()).unwrap();
        a.wait_task(&id, Duration::from_secs(30)).unwrap()
    })
    .await;
    assert_eq!(
        (done.status, done.reason.map(|r| r.as_str())),
        (TaskStatus::Failed, Some("cancelled")),
        "{done:?}"
    );
    assert!(!lock.exists(), "released on cancel");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_folders_use_their_own_lock_and_are_off_for_auto_dream() {
    let d = tempfile::tempdir().unwrap();
    let memory = d.path().join("c/projects/proj/memory");
    std::fs::create_dir_all(&memory).unwrap();
    std::fs::write(memory.join("x.md"), topic("X", "user", "Tea.\n\ntea.\n")).unwrap();
    let api = Api::open(mnemo_store::Home {
        root: d.path().join("home"),
        claude_dir: d.path().join("c"),
        qwen_dir: d.path().join("q"),
    })
    .unwrap();
    assert!(!api.auto_dream("claude:proj".into()).unwrap());
    assert!(api.auto_dream("personal".into()).unwrap());
    let lock = memory.join(".consolidate-lock");
    // Held by a live process (Claude Code itself): locked, nothing written.
    std::fs::write(&lock, "1").unwrap();
    assert_eq!(
        api.dream("claude:proj".into(), Some(true))
            .unwrap_err()
            .code,
        ErrorCode::Locked
    );
    std::fs::remove_file(&lock).unwrap();
    let a = api.clone();
    let t = blocking(move || {
        let t = a.dream("claude:proj".into(), Some(true)).unwrap();
        a.wait_task(&t.id, Duration::from_secs(30)).unwrap()
    })
    .await;
    assert_eq!(report(&t).status, DreamStatus::Updated);
    // Left in place with an empty body: its mtime is the last consolidation, as Claude Code reads it.
    assert_eq!(std::fs::read(&lock).unwrap(), b"");
    assert!(!memory.parent().unwrap().join("consolidation.lock").exists());
    // Claude Code's own index, then a dream that finds nothing: its MEMORY.md is left alone.
    std::fs::write(memory.join("MEMORY.md"), "# Claude's own index\n").unwrap();
    let a = api.clone();
    let t = blocking(move || {
        let t = a.dream("claude:proj".into(), Some(true)).unwrap();
        a.wait_task(&t.id, Duration::from_secs(30)).unwrap()
    })
    .await;
    assert_eq!(report(&t).status, DreamStatus::Noop);
    assert_eq!(t.result.as_ref().unwrap().group, None);
    assert_eq!(
        std::fs::read_to_string(memory.join("MEMORY.md")).unwrap(),
        "# Claude's own index\n"
    );
    api.set_auto_dream("claude:proj".into(), true).unwrap();
    assert!(api.auto_dream("claude:proj".into()).unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pinned_memories_are_never_merged_and_can_be_pinned_from_the_api() {
    let (_d, api) = api();
    put(&api, "a.md", &topic("A", "user", "Tea.\n\ntea.\n"));
    put(&api, "pinned/q.md", &topic("Q", "user", "Tea.\n\ntea.\n"));
    api.index(None).unwrap();
    let out = api
        .set_pinned("personal".into(), "a.md".into(), true)
        .unwrap();
    assert!(out.change_id.is_some());
    assert!(api.get("personal".into(), "a.md".into()).unwrap().pinned);
    assert!(
        api.get("personal".into(), "pinned/q.md".into())
            .unwrap()
            .pinned
    );
    // The list says so too (the pin shows in the list).
    let pinned_in_list = |api: &Api| -> Vec<String> {
        let mut p: Vec<String> = api
            .list(Some("personal".into()), None)
            .unwrap()
            .into_iter()
            .filter(|d| d.pinned)
            .map(|d| d.path)
            .collect();
        p.sort();
        p
    };
    assert_eq!(pinned_in_list(&api), ["a.md", "pinned/q.md"]);
    assert_eq!(
        api.set_pinned("personal".into(), "pinned/q.md".into(), false)
            .unwrap_err()
            .code,
        ErrorCode::Conflict
    );
    let t = dream(&api, true).await;
    assert_eq!(report(&t).status, DreamStatus::Noop);
    api.set_pinned("personal".into(), "a.md".into(), false)
        .unwrap();
    assert_eq!(pinned_in_list(&api), ["pinned/q.md"]);
    assert_eq!(
        read(&api, "a.md").unwrap(),
        topic("A", "user", "Tea.\n\ntea.\n")
    );
    let t = dream(&api, true).await;
    assert_eq!(report(&t).files_touched, vec!["a.md"]);
}

fn dream_tasks(api: &Api) -> Vec<TaskInfo> {
    api.tasks(None, Some(TaskKind::Dream), None, None).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gates_after_chat_turns_record_why_and_queue_a_dream_when_they_pass() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    let turn = |text: &'static str| {
        fake.push_for(Kind::Json, Reply::json(&json!({"paths": []})));
        fake.push_for(Kind::Stream, Reply::text("ok"));
        fake.push_for(Kind::Tools, Reply::text("nothing to save"));
        text
    };
    let r = send(&api, turn("hello there, a first chat")).await;
    assert!(r.dream_task.is_none());
    let t = &dream_tasks(&api)[0];
    assert_eq!(
        (t.status, t.reason.map(|r| r.as_str())),
        (TaskStatus::Skipped, Some("min_sessions"))
    );
    assert!(
        t.error
            .as_deref()
            .unwrap()
            .contains("1 session since the last dream"),
        "{t:?}"
    );
    send(&api, turn("a second chat")).await;
    assert_eq!(
        dream_tasks(&api)[0].reason.map(|r| r.as_str()),
        Some("scan_throttled")
    );
    // A fresh process (no scan yet) with five sessions touched: the dream is queued.
    let home = mnemo_store::Home {
        root: api.home_dir().to_owned(),
        claude_dir: _d.path().join("c"),
        qwen_dir: _d.path().join("q"),
    };
    let api = Api::open(home).unwrap();
    for _ in 0..3 {
        api.chat_create("personal".into(), None).unwrap();
    }
    seed(&api);
    let session = api.chat_create("personal".into(), None).unwrap().id;
    fake.push_for(Kind::Json, Reply::json(&json!({"paths": []})));
    fake.push_for(Kind::Stream, Reply::text("ok"));
    fake.push_for(Kind::Tools, Reply::text("nothing to save"));
    fake.push_for(Kind::Tools, Reply::text("Nothing needed consolidating."));
    let (a, s) = (api.clone(), session.clone());
    let r = blocking(move || {
        a.chat_send("personal".into(), s, "time to tidy up".into())
            .unwrap()
    })
    .await;
    let id = r.dream_task.expect("the gates passed");
    let a = api.clone();
    let t = blocking(move || a.wait_task(&id, Duration::from_secs(60)).unwrap()).await;
    let rep = report(&t);
    assert_eq!(rep.trigger, mnemo_store::dream_report::DreamTrigger::Auto);
    assert_eq!(
        rep.strategy,
        DreamStrategy::Mechanical,
        "the agent changed nothing: {rep:?}"
    );
    assert_eq!(rep.entries_merged, 2);
    assert_eq!(t.session.as_deref(), Some(session.as_str()));
    // The same session next: same_session; another: min_hours; switched off: disabled.
    fake.push_for(Kind::Json, Reply::json(&json!({"paths": []})));
    fake.push_for(Kind::Stream, Reply::text("ok"));
    fake.push_for(Kind::Tools, Reply::text("nothing"));
    let (a, s) = (api.clone(), session.clone());
    blocking(move || a.chat_send("personal".into(), s, "again".into()).unwrap()).await;
    assert_eq!(
        dream_tasks(&api)[0].reason.map(|r| r.as_str()),
        Some("same_session")
    );
    send(&api, turn("another chat")).await;
    assert_eq!(
        dream_tasks(&api)[0].reason.map(|r| r.as_str()),
        Some("min_hours")
    );
    api.set_auto_dream("personal".into(), false).unwrap();
    send(&api, turn("one more")).await;
    assert_eq!(
        dream_tasks(&api)[0].reason.map(|r| r.as_str()),
        Some("disabled")
    );
    let status = api.memory_status("personal".into(), None).unwrap();
    assert!(status.contains("Auto-dream: off"), "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_dream_in_chat_starts_a_manual_dream() {
    let (_d, api) = api();
    seed(&api);
    let r = send(&api, "/dream").await;
    assert_eq!(r.command, Some(mnemo_api::ChatCommand::Dream));
    let id = r.dream_task.expect("a dream task");
    assert!(r.reply.contains("Dreaming"), "{}", r.reply);
    let a = api.clone();
    let t = blocking(move || a.wait_task(&id, Duration::from_secs(30)).unwrap()).await;
    let rep = report(&t);
    assert_eq!(rep.trigger, mnemo_store::dream_report::DreamTrigger::Manual);
    assert_eq!(
        rep.strategy,
        DreamStrategy::Mechanical,
        "no model: mechanical"
    );
    assert_eq!(rep.status, DreamStatus::Updated);
    let status = api.memory_status("personal".into(), None).unwrap();
    assert!(
        status.contains("Auto-dream: on") && status.contains("(updated)"),
        "{status}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qwen_code_folders_keep_their_layout_and_honour_qwens_lock() {
    let d = tempfile::tempdir().unwrap();
    let project = d.path().join("q/projects/proj");
    let memory = project.join("memory");
    for (rel, text) in [
        ("project/a.md", topic("A", "project", "Ship v2 in May.\n")),
        (
            "project/b.md",
            topic(
                "B",
                "project",
                "ship v2 in may.\nWhy: the board.\n\nHire Bo.\n",
            ),
        ),
        ("pinned/me.md", topic("Me", "user", "Tea.\n\ntea.\n")),
    ] {
        let p = memory.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let api = Api::open(mnemo_store::Home {
        root: d.path().join("home"),
        claude_dir: d.path().join("c"),
        qwen_dir: d.path().join("q"),
    })
    .unwrap();
    assert!(
        !api.auto_dream("qwen:proj".into()).unwrap(),
        "off by default for Qwen Code"
    );
    // Qwen Code itself is consolidating (a live PID in its own lock): locked.
    std::fs::write(project.join("consolidation.lock"), "1").unwrap();
    assert_eq!(
        api.dream("qwen:proj".into(), Some(true)).unwrap_err().code,
        ErrorCode::Locked
    );
    std::fs::remove_file(project.join("consolidation.lock")).unwrap();
    let a = api.clone();
    let t = blocking(move || {
        let t = a.dream("qwen:proj".into(), Some(true)).unwrap();
        a.wait_task(&t.id, Duration::from_secs(30)).unwrap()
    })
    .await;
    let r = report(&t);
    assert_eq!(
        r.files_touched,
        vec!["project/a.md", "project/b.md"],
        "{r:?}"
    );
    // Per-type subfolders stay; pinned/ is untouched; the lock is Qwen's and is released.
    assert!(
        std::fs::read_to_string(memory.join("project/a.md"))
            .unwrap()
            .contains("Why: the board.")
    );
    assert_eq!(
        std::fs::read_to_string(memory.join("pinned/me.md")).unwrap(),
        topic("Me", "user", "Tea.\n\ntea.\n")
    );
    assert!(!project.join("consolidation.lock").exists());
    assert!(
        !d.path()
            .join("home/external/qwen/proj/consolidation.lock")
            .exists()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_auto_dream_waiting_for_extraction_can_be_cancelled() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    for _ in 0..4 {
        api.chat_create("personal".into(), None).unwrap();
    }
    seed(&api);
    let session = api.chat_create("personal".into(), None).unwrap().id;
    fake.push_for(Kind::Json, Reply::json(&json!({"paths": []})));
    fake.push_for(Kind::Stream, Reply::text("ok"));
    // The turn's extraction hangs on the model: the dream waits behind it.
    fake.push_for(
        Kind::Tools,
        Reply::Delay(Duration::from_secs(30), Box::new(Reply::text("late"))),
    );
    let (a, s) = (api.clone(), session.clone());
    let r = blocking(move || a.chat_send("personal".into(), s, "tidy up".into()).unwrap()).await;
    let id = r.dream_task.expect("the gates passed");
    let a = api.clone();
    let done = blocking(move || {
        for _ in 0..200 {
            if a.task(id.clone()).unwrap().phase.as_deref()
                == Some("waiting for this turn's extraction")
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        a.task_cancel(id.clone()).unwrap();
        a.wait_task(&id, Duration::from_secs(10)).unwrap()
    })
    .await;
    assert_eq!(
        (done.status, done.reason.map(|r| r.as_str())),
        (TaskStatus::Skipped, Some("cancelled")),
        "{done:?}"
    );
    // Its slot is free: a manual dream is a new task.
    let a = api.clone();
    let manual = blocking(move || a.dream("personal".into(), Some(true)).unwrap()).await;
    assert_ne!(manual.id, done.id);
}

/// A file the dream wrote that did not exist before is reported as created, not as
/// "updated", in the report and in the task's summary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dream_tells_what_it_created_from_what_it_changed() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    seed(&api);
    fake.push_for(
        Kind::Tools,
        Reply::tool(
            "write_file",
            json!({"path": "database.md", "content": topic("Database", "project", "Use Postgres.\n")}),
        ),
    );
    fake.push_for(
        Kind::Tools,
        Reply::tool(
            "write_file",
            json!({"path": "a.md", "content": topic("Plans", "project", "Ship v2 in May.\n")}),
        ),
    );
    fake.push_for(
        Kind::Tools,
        Reply::text("Moved the database choice to its own file."),
    );
    let t = dream(&api, false).await;
    let r = report(&t);
    assert_eq!(r.status, DreamStatus::Updated, "{r:?}");
    assert_eq!(r.files_created, vec!["database.md"]);
    assert!(r.files_touched.contains(&"database.md".to_owned()));
    assert!(r.files_touched.contains(&"a.md".to_owned()));
    let summary = &t.result.as_ref().unwrap().summary;
    assert!(summary.contains("1 file created"), "{summary}");
    let changed = r.files_touched.len() - 1;
    assert!(
        summary.contains(&format!("{changed} file")),
        "the rest are counted as changed: {summary}"
    );
}
