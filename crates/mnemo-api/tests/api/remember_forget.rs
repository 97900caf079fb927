//! Remember and forget through the API: the remember lane's codes
//! and limits, a remembered fact in a file and one group, a path outside the root failing the
//! task; forget's preview and exact removal, complete (files, index, MEMORY.md, recall) and not
//! written back by an agent unless a person adds it again; secrets refused on people's writes;
//! the automatic-extraction switch; the status figures.

use std::path::PathBuf;
use std::time::Duration;

use mnemo_api::reexports::{ForgetPick, TaskKind, TaskStatus};
use mnemo_api::{Api, NewMemory, Patch};
use mnemo_core::{ErrorCode, MemoryType};
use mnemo_testkit::{FakeModel, Kind, Reply};
use serde_json::json;

use crate::common::{api, blocking, configure, extraction_calling, send};

fn root(api: &Api) -> PathBuf {
    api.home_dir().join("workspaces/personal/memory")
}

fn read(api: &Api, rel: &str) -> Option<String> {
    std::fs::read_to_string(root(api).join(rel)).ok()
}

fn topic(name: &str, ty: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {name} facts\ntype: {ty}\n---\n{body}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remember_validates_its_input_and_needs_a_model() {
    let (_d, api) = api();
    let code = |r: mnemo_core::Result<mnemo_api::RememberTask>| r.unwrap_err().code;
    assert_eq!(
        code(api.remember(None, "   ".into(), None, None)),
        ErrorCode::InvalidContent
    );
    assert_eq!(
        code(api.remember(None, "x".repeat(64 * 1024 + 1), None, None)),
        ErrorCode::InvalidContent
    );
    assert_eq!(
        code(api.remember(None, "tea".into(), Some("deep".into()), None)),
        ErrorCode::InvalidContextMode
    );
    assert_eq!(
        code(api.remember(None, "tea".into(), None, Some("bad id!".into()))),
        ErrorCode::InvalidClientId
    );
    // No model: refused before anything is queued.
    assert_eq!(
        code(api.remember(None, "tea".into(), None, None)),
        ErrorCode::ManagedMemoryUnavailable
    );
    assert!(
        api.tasks(None, Some(TaskKind::Remember), None, None)
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        api.remember_task("remember-nope".into(), None)
            .unwrap_err()
            .code,
        ErrorCode::RememberTaskNotFound
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remembered_fact_lands_in_a_file_in_one_group() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    fake.push_for(Kind::Tools, Reply::SaveFact);
    fake.push_for(Kind::Tools, Reply::text("Saved the tea preference."));
    let events = api.subscribe_remembered();
    let a = api.clone();
    let t = blocking(move || {
        a.remember(
            None,
            "The user drinks green tea, never coffee.".into(),
            None,
            Some("app-1".into()),
        )
        .unwrap()
    })
    .await;
    assert!(t.task_id.starts_with("remember-"), "{}", t.task_id);
    assert_eq!(
        (t.status, t.context_mode.as_str()),
        (TaskStatus::Queued, "workspace")
    );
    let (a, id) = (api.clone(), t.task_id.clone());
    blocking(move || a.wait_task(&id, Duration::from_secs(30)).unwrap()).await;
    let done = api
        .remember_task(t.task_id.clone(), Some("app-1".into()))
        .unwrap();
    assert_eq!(done.status, TaskStatus::Completed, "{done:?}");
    let r = done.result.unwrap();
    // The summary says what is on disk, not what the model claimed.
    assert!(
        r.summary.starts_with("Saved: created facts/") && !r.summary.contains("tea preference"),
        "{}",
        r.summary
    );
    assert_eq!(r.touched_types, vec![MemoryType::User]);
    let file = &r.files_touched[0];
    assert!(
        read(&api, file)
            .unwrap()
            .contains("green tea, never coffee")
    );
    let g = api.change_group(r.group.unwrap()).unwrap();
    assert_eq!(
        (g.kind.as_str(), g.task.as_deref()),
        ("remember", Some(t.task_id.as_str()))
    );
    // memory_changed with scope managed, the task id and the types.
    let ev = events.recv_timeout(Duration::from_secs(5)).unwrap();
    let v = serde_json::to_value(&ev).unwrap();
    assert_eq!(v["scope"], "managed");
    assert_eq!(v["source"], "workspace_memory_remember");
    assert_eq!(v["taskId"], t.task_id.as_str());
    assert_eq!(v["touchedTypes"], json!(["user"]));
    // Another client (or none asking for a client's task): not found.
    assert_eq!(
        api.remember_task(t.task_id.clone(), Some("other".into()))
            .unwrap_err()
            .code,
        ErrorCode::RememberTaskNotFound
    );
    assert_eq!(
        api.remember_task(t.task_id, None).unwrap_err().code,
        ErrorCode::RememberTaskNotFound
    );
    // The agent saw the existing memories in `workspace` mode, none in `clean`.
    let system = fake.requests()[0]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        system.contains("Existing memories") || system.contains("no memories yet"),
        "{system}"
    );
}

/// Remember `fact` and wait for the task's end.
async fn remember_and_wait(api: &Api, fact: &str) -> mnemo_api::RememberTask {
    let (a, fact) = (api.clone(), fact.to_owned());
    let t = blocking(move || a.remember(None, fact, None, None).unwrap()).await;
    let (a, id) = (api.clone(), t.task_id.clone());
    blocking(move || a.wait_task(&id, Duration::from_secs(30)).unwrap()).await;
    api.remember_task(t.task_id, None).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remember_that_wrote_nothing_fails_and_says_so() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    // The model claims success without a tool call; asked again with the text protocol (its
    // template may lack tools), it claims again.
    fake.push_for(
        Kind::Tools,
        Reply::text("I have remembered that the user is allergic to peanuts."),
    );
    fake.push_for(Kind::Plain, Reply::text(r#"{"done": "Remembered."}"#));
    let done = remember_and_wait(&api, "The user is allergic to peanuts.").await;
    assert_eq!(done.status, TaskStatus::Failed, "{done:?}");
    let e = done.error.unwrap();
    assert_eq!(e.code, ErrorCode::RememberNothingWritten);
    assert!(
        e.message.contains("without writing any memory file"),
        "{}",
        e.message
    );
    assert!(done.result.is_none());
    let reqs = fake.requests();
    assert!(reqs[0]["tools"].is_array());
    assert!(
        reqs[1]["tools"].is_null(),
        "the second try speaks the text protocol"
    );
    assert!(
        reqs[1]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("## How to use tools")
    );
    assert!(api.list(None, None).unwrap().is_empty(), "nothing on disk");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remember_that_wrote_something_else_is_taken_back() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    fake.push_for(
        Kind::Tools,
        Reply::tool(
            "write_file",
            json!({"path": "colour.md", "content": topic("Colour", "user", "Likes the colour blue.\n")}),
        ),
    );
    fake.push_for(Kind::Tools, Reply::text("Saved the allergy."));
    let done = remember_and_wait(&api, "The user is allergic to peanuts.").await;
    assert_eq!(done.status, TaskStatus::Failed, "{done:?}");
    let e = done.error.unwrap();
    assert_eq!(e.code, ErrorCode::RememberNothingWritten);
    assert!(
        e.message.contains("wrote colour.md but not the fact"),
        "{}",
        e.message
    );
    assert!(read(&api, "colour.md").is_none(), "taken back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_outside_the_root_fails_the_task_and_writes_nothing_there() {
    let (d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    fake.push_for(
        Kind::Tools,
        Reply::ToolCalls(vec![
            (
                "write_file".into(),
                json!({"path": "inside.md", "content": topic("In", "user", "something\n")}),
            ),
            (
                "write_file".into(),
                json!({"path": "../../../outside.md", "content": topic("X", "user", "x\n")}),
            ),
        ]),
    );
    fake.push_for(Kind::Tools, Reply::text("Done."));
    let a = api.clone();
    let t = blocking(move || {
        a.remember(None, "something".into(), Some("clean".into()), None)
            .unwrap()
    })
    .await;
    let (a, id) = (api.clone(), t.task_id.clone());
    blocking(move || a.wait_task(&id, Duration::from_secs(30)).unwrap()).await;
    let done = api.remember_task(t.task_id, None).unwrap();
    assert_eq!(done.status, TaskStatus::Failed);
    assert_eq!(done.error.unwrap().code, ErrorCode::RememberPathEscape);
    assert!(!d.path().join("home/outside.md").exists() && !d.path().join("outside.md").exists());
    // What it wrote inside is taken back too: a retry will not write the fact twice.
    assert!(read(&api, "inside.md").is_none());
    let system = fake.requests()[0]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        system.contains("do not look at or change existing ones"),
        "clean mode: {system}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seventeenth_pending_remember_is_refused() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    // The first task's agent waits: everything else stays queued behind it.
    fake.push_for(
        Kind::Tools,
        Reply::Delay(Duration::from_secs(3), Box::new(Reply::text("done"))),
    );
    let a = api.clone();
    let codes = blocking(move || {
        (0..17)
            .map(|i| {
                a.remember(None, format!("fact number {i}"), None, None)
                    .map(|t| t.task_id)
            })
            .collect::<Vec<_>>()
    })
    .await;
    assert!(codes[..16].iter().all(Result::is_ok));
    assert_eq!(
        codes[16].as_ref().unwrap_err().code,
        ErrorCode::RememberQueueFull
    );
    // The lane is serial: one running at a time.
    let running = api
        .tasks(
            None,
            Some(TaskKind::Remember),
            Some(TaskStatus::Running),
            None,
        )
        .unwrap();
    assert!(running.len() <= 1);
    // Once the lane drains, requests are accepted again.
    let (a, last) = (api.clone(), codes[15].as_ref().unwrap().clone());
    blocking(move || a.wait_task(&last, Duration::from_secs(60)).unwrap()).await;
    let a = api.clone();
    let again = blocking(move || a.remember(None, "one more fact".into(), None, None)).await;
    assert!(again.is_ok(), "{again:?}");
}

fn seed(api: &Api) {
    std::fs::write(
        root(api).join("drinks.md"),
        topic(
            "Drinks",
            "user",
            "Likes green tea.\n\nDrinks coffee at 9.\n",
        ),
    )
    .unwrap();
    std::fs::write(
        root(api).join("tea.md"),
        topic("Tea", "user", "Green tea from Kyoto.\n"),
    )
    .unwrap();
    api.index(None).unwrap();
}

fn picks(p: &mnemo_api::wire::ForgetPreview) -> Vec<ForgetPick> {
    p.selected
        .iter()
        .map(|e| ForgetPick {
            id: e.id.clone(),
            hash: e.hash.clone(),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forget_removes_exactly_the_previewed_entries_and_keeps_them_forgotten() {
    let (_d, api) = api();
    seed(&api);
    let p = api
        .forget_preview("personal".into(), "green tea".into())
        .unwrap();
    assert_eq!(p.strategy, "heuristic");
    let ids: Vec<&str> = p.selected.iter().map(|e| e.id.as_str()).collect();
    assert!(
        ids.contains(&"drinks.md:1") && ids.contains(&"tea.md") && ids.len() == 2,
        "{ids:?}"
    );
    let before = read(&api, "drinks.md").unwrap();
    let t = api.forget("personal".into(), picks(&p)).unwrap();
    assert_eq!(t.kind, TaskKind::Forget);
    assert_eq!(t.result.as_ref().unwrap().summary, "forgot 2 entries");
    // Gone from the files (a multi-entry file rewritten, an emptied one deleted), the index,
    // MEMORY.md and recall.
    assert_eq!(
        read(&api, "drinks.md").unwrap(),
        topic("Drinks", "user", "Drinks coffee at 9.\n")
    );
    assert!(read(&api, "tea.md").is_none());
    assert!(
        api.search(Some("personal".into()), "kyoto".into(), None, None)
            .unwrap()
            .iter()
            .all(|h| h.weak)
    );
    assert!(!read(&api, "MEMORY.md").unwrap().contains("tea.md"));
    let r = api
        .recall("personal".into(), "green tea".into(), None, Some(true))
        .unwrap();
    assert!(r.selected.iter().all(|s| s.path != "tea.md"));
    // An agent writing it back is refused; a person adding it by hand lifts that.
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    let ex = extraction_calling(
        &api,
        &fake,
        "I like green tea.",
        Reply::tool(
            "write_file",
            json!({"path": "tea2.md", "content": topic("Tea", "user", "likes green TEA.\n")}),
        ),
    )
    .await;
    assert_eq!(ex.tools[0].ok, Some(false), "{ex:?}");
    assert!(read(&api, "tea2.md").is_none(), "not written back");
    api.create(
        "personal".into(),
        NewMemory {
            path: Some("mine.md".into()),
            name: "Mine".into(),
            description: "by hand".into(),
            memory_type: MemoryType::User,
            body: "Likes green tea.\n".into(),
        },
    )
    .unwrap();
    // Added again by a person: agents may write it too from now on.
    let ex = extraction_calling(
        &api,
        &fake,
        "Green tea, really.",
        Reply::tool(
            "write_file",
            json!({"path": "tea2.md", "content": topic("Tea", "user", "likes green TEA.\n")}),
        ),
    )
    .await;
    assert_eq!(ex.tools[0].ok, Some(true), "{ex:?}");
    assert!(read(&api, "tea2.md").is_some());
    // Undoing the forget brings the entries back byte-exact.
    api.remove("personal".into(), "mine.md".into()).unwrap();
    api.undo_group(t.result.unwrap().group.unwrap()).unwrap();
    assert_eq!(read(&api, "drinks.md").unwrap(), before);
    // ...and lifts their forgotten marks: an agent may write "Green tea from Kyoto." again.
    api.remove("personal".into(), "tea.md".into()).unwrap();
    let ex = extraction_calling(&api, &fake, "Kyoto tea.", Reply::tool("write_file", json!({"path": "kyoto.md", "content": topic("Kyoto", "user", "Green tea from Kyoto.\n")}))).await;
    assert_eq!(ex.tools[0].ok, Some(true), "{ex:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forget_with_no_match_or_a_racing_edit_writes_nothing() {
    let (_d, api) = api();
    seed(&api);
    let p = api
        .forget_preview("personal".into(), "sailing".into())
        .unwrap();
    assert!(p.selected.is_empty());
    let p = api
        .forget_preview("personal".into(), "coffee".into())
        .unwrap();
    // An editor changes the file between preview and confirmation.
    let theirs = topic(
        "Drinks",
        "user",
        "Likes green tea.\n\nDrinks coffee at 9.\n\nEdited.\n",
    );
    std::fs::write(root(&api).join("drinks.md"), &theirs).unwrap();
    let e = api.forget("personal".into(), picks(&p)).unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    assert!(e.message.contains("drinks.md"), "{}", e.message);
    assert_eq!(
        read(&api, "drinks.md").unwrap(),
        theirs,
        "the outside edit is kept"
    );
    let failed = api.tasks(None, Some(TaskKind::Forget), None, None).unwrap();
    assert_eq!(
        (failed[0].status, failed[0].reason.map(|r| r.as_str())),
        (TaskStatus::Failed, Some("conflict"))
    );
    assert_eq!(
        api.forget_preview("personal".into(), " ".into())
            .unwrap_err()
            .code,
        ErrorCode::Usage
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_picks_what_to_forget_and_a_failing_model_falls_back() {
    let (_d, api) = api();
    seed(&api);
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    fake.push_for(Kind::Json, Reply::json(&json!({"ids": ["drinks.md:2"]})));
    let p = api
        .forget_preview("personal".into(), "my morning drink".into())
        .unwrap();
    assert_eq!(p.strategy, "model");
    assert_eq!(
        p.selected.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
        vec!["drinks.md:2"]
    );
    let req = fake.requests().pop().unwrap();
    assert_eq!(req["temperature"], 0.0);
    assert_eq!(req["messages"][1]["role"], "user");
    assert_eq!(req["messages"][1]["content"], "my morning drink");
    fake.push_for(Kind::Json, Reply::error(400, "no"));
    let p = api
        .forget_preview("personal".into(), "coffee".into())
        .unwrap();
    assert_eq!(p.strategy, "heuristic");
    assert!(p.note.is_some());
    assert_eq!(p.selected[0].id, "drinks.md:2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_are_refused_on_peoples_writes_too() {
    let (_d, api) = api();
    let e = api
        .create(
            "personal".into(),
            NewMemory {
                path: Some("k.md".into()),
                name: "Key".into(),
                description: "a key".into(),
                memory_type: MemoryType::Reference,
                body: "line one\nOPENAI key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD\n"
                    .into(),
            },
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidContent);
    assert!(e.message.contains("line 2"), "{}", e.message);
    assert!(
        !e.message.contains("sk-proj-abc"),
        "never echoes the secret: {}",
        e.message
    );
    assert!(read(&api, "k.md").is_none());
    seed(&api);
    let e = api
        .update(
            "personal".into(),
            "tea.md".into(),
            Patch {
                body: Some("token: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n".into()),
                ..Patch::default()
            },
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidContent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn switching_extraction_off_stops_it_after_the_next_turn() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    assert!(api.auto_extract("personal".into()).unwrap());
    api.set_auto_extract("personal".into(), false).unwrap();
    fake.push_for(Kind::Json, Reply::json(&json!({"paths": []})));
    fake.push_for(Kind::Stream, Reply::text("ok"));
    let turn = send(&api, "I moved to Lisbon.").await;
    assert!(turn.extract_task.is_none());
    let t = &api
        .tasks(None, Some(TaskKind::Extract), None, None)
        .unwrap()[0];
    assert_eq!(
        (t.status, t.reason.map(|r| r.as_str())),
        (TaskStatus::Skipped, Some("disabled"))
    );
    assert!(
        fake.requests()
            .iter()
            .all(|r| r["tools"].is_null() || r["stream"] == true),
        "no extraction agent ran"
    );
    let status = api.memory_status("personal".into(), None).unwrap();
    assert!(status.contains("Auto-extraction: off"), "{status}");
    // Switched on again: what was said meanwhile is not extracted after the fact.
    api.set_auto_extract("personal".into(), true).unwrap();
    let session = turn.session.clone();
    fake.push_for(Kind::Json, Reply::json(&json!({"paths": []})));
    fake.push_for(Kind::Stream, Reply::text("ok"));
    fake.push_for(Kind::Tools, Reply::text("nothing"));
    let a = api.clone();
    let r = blocking(move || {
        a.chat_send("personal".into(), session, "I work at a bakery.".into())
            .unwrap()
    })
    .await;
    let id = r.extract_task.unwrap();
    let a = api.clone();
    blocking(move || a.wait_task(&id, Duration::from_secs(30)).unwrap()).await;
    let agent = fake
        .requests()
        .into_iter()
        .rev()
        .find(|r| r["stream"] != true && !r["tools"].is_null())
        .unwrap();
    let task = agent["messages"][1]["content"].as_str().unwrap().to_owned();
    assert!(
        task.contains("bakery") && !task.contains("Lisbon"),
        "{task}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stats_show_switches_budget_health_and_telemetry() {
    let (_d, api) = api();
    seed(&api);
    std::fs::write(root(&api).join("broken.md"), "no frontmatter\n").unwrap();
    std::fs::write(
        root(&api).join("dup.md"),
        topic("Dup", "user", "Likes green tea.\n"),
    )
    .unwrap();
    let old = std::time::SystemTime::now() - Duration::from_secs(200 * 24 * 3600);
    std::fs::File::options()
        .write(true)
        .open(root(&api).join("tea.md"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    api.index(None).unwrap();
    api.recall("personal".into(), "coffee".into(), None, Some(true))
        .unwrap();
    let s = api.stats("personal".into()).unwrap();
    assert!(s.auto_extract && s.auto_dream);
    assert_eq!(s.invalid, vec!["broken.md"]);
    assert_eq!(s.stale, vec!["tea.md"]);
    assert_eq!(s.duplicates, 1);
    assert_eq!(s.duplicate_files, vec!["dup.md"]);
    assert_eq!(
        (s.memory_md_max_lines, s.memory_md_max_bytes),
        (200, 25_000)
    );
    assert!(s.memory_md_lines >= 3 && s.memory_md_bytes > 0);
    let recall = s.telemetry.iter().find(|e| e.kind == "recall").unwrap();
    let data: serde_json::Value = serde_json::from_str(&recall.data).unwrap();
    assert_eq!(data["strategy"], "heuristic");
    assert!(data["paths"].is_array());
    let status = api.memory_status("personal".into(), None).unwrap();
    assert!(
        status.contains("1 invalid, 1 stale") && status.contains("1 likely duplicate"),
        "{status}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_copy_of_a_forgotten_fact_does_not_block_its_file() {
    let (_d, api) = api();
    seed(&api);
    // drinks.md also holds "Green tea from Kyoto."; only tea.md's copy is forgotten.
    api.update(
        "personal".into(),
        "drinks.md".into(),
        Patch {
            body: Some("Likes green tea.\n\nGreen tea from Kyoto.\n".into()),
            ..Patch::default()
        },
    )
    .unwrap();
    let mut p = api
        .forget_preview("personal".into(), "kyoto".into())
        .unwrap();
    p.selected.retain(|e| e.path == "tea.md");
    api.forget("personal".into(), picks(&p)).unwrap();
    // An agent edits drinks.md, which still holds the kept copy: allowed.
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    let ex = extraction_calling(&api, &fake, "I drink it cold in summer.", Reply::tool("edit", json!({"path": "drinks.md", "old_string": "Likes green tea.", "new_string": "Likes green tea.\n\nDrinks it cold in summer."}))).await;
    assert_eq!(ex.tools[0].ok, Some(true), "{ex:?}");
    assert!(read(&api, "drinks.md").unwrap().contains("cold in summer"));
    // A person editing drinks.md elsewhere does not lift the forgotten mark of the kept copy:
    // an agent still may not write it into another file.
    api.update(
        "personal".into(),
        "drinks.md".into(),
        Patch {
            body: Some("Likes green tea!\n\nGreen tea from Kyoto.\n".into()),
            ..Patch::default()
        },
    )
    .unwrap();
    let ex = extraction_calling(
        &api,
        &fake,
        "Kyoto again.",
        Reply::tool(
            "write_file",
            json!({"path": "k.md", "content": topic("K", "user", "Green tea from Kyoto.\n")}),
        ),
    )
    .await;
    assert_eq!(ex.tools[0].ok, Some(false), "{ex:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forget_refuses_ids_that_are_not_entries_of_their_file() {
    let (_d, api) = api();
    seed(&api);
    let p = api
        .forget_preview("personal".into(), "coffee".into())
        .unwrap();
    let hash = p.selected[0].hash.clone();
    for bad in ["drinks.md:abc", "drinks.md:0", "drinks.md:9", "drinks.md"] {
        let e = api
            .forget(
                "personal".into(),
                vec![ForgetPick {
                    id: bad.into(),
                    hash: hash.clone(),
                }],
            )
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::Usage, "{bad}: {}", e.message);
    }
    assert!(
        read(&api, "drinks.md")
            .unwrap()
            .contains("Likes green tea."),
        "nothing written"
    );
}
