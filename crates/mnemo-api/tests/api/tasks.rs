//! Memory tasks and change groups through the API, against the fake model: a chat turn's
//! extraction is a task (listed, announced as `task_updated`, its tool calls as progress), its
//! writes are one change group that undoes as one — or not at all when a file changed since —
//! and cancelling a running extraction leaves no half-written file and the session unmarked.

use std::time::Duration;

use mnemo_api::reexports::{TaskInfo, TaskKind, TaskStatus};
use mnemo_api::{Api, NewMemory, Patch};
use mnemo_core::{ErrorCode, MemoryType};
use mnemo_store::Home;
use mnemo_testkit::{FakeModel, Kind, Reply};
use serde_json::json;

use crate::common::{api, blocking, send, settings};

async fn configure(api: &Api, fake: &FakeModel) {
    let (a, s) = (api.clone(), settings(fake));
    blocking(move || a.set_model_settings(s)).await.unwrap();
}

const DEPLOY: &str = "---\nname: Deploy checklist\ndescription: Steps before a production deploy\ntype: project\n---\nRun the smoke suite, then tag the release.\n";
const DEPLOY_NEW: &str = "---\nname: Deploy checklist\ndescription: Steps before a production deploy\ntype: project\n---\nRun the smoke suite, then tag the release.\n\nProduction deploys need a second reviewer's approval.\nWhy: stated by the user.\n";
const DAY: &str = "---\nname: Deploy day\ndescription: The team ships to production on Tuesdays\ntype: project\n---\nThe team ships to production every Tuesday.\nWhy: stated by the user.\n";

fn seed(api: &Api) {
    api.create(
        "personal".into(),
        NewMemory {
            path: Some("deploy.md".into()),
            name: "Deploy checklist".into(),
            description: "Steps before a production deploy".into(),
            memory_type: MemoryType::Project,
            body: "Run the smoke suite, then tag the release.\n".into(),
        },
    )
    .unwrap();
}

fn read(api: &Api, rel: &str) -> Option<Vec<u8>> {
    std::fs::read(api.home_dir().join("workspaces/personal/memory").join(rel)).ok()
}

/// A turn whose extraction writes `deploy.md` (changed) and `project/deploy-day.md` (new).
async fn turn_with_two_file_extraction(api: &Api, fake: &FakeModel) -> TaskInfo {
    fake.push_for(Kind::Json, Reply::json(&json!({"paths": []})));
    fake.push_for(Kind::Stream, Reply::text("Noted: Tuesdays, two reviewers."));
    fake.push_for(
        Kind::Tools,
        Reply::ToolCalls(vec![
            (
                "write_file".into(),
                json!({"path": "project/deploy-day.md", "content": DAY}),
            ),
            (
                "write_file".into(),
                json!({"path": "deploy.md", "content": DEPLOY_NEW}),
            ),
        ]),
    );
    fake.push_for(Kind::Tools, Reply::text("Saved 2 memories."));
    let turn = send(
        api,
        "We ship on Tuesdays and deploys need a second reviewer.",
    )
    .await;
    let id = turn
        .extract_task
        .expect("extraction is scheduled as a task");
    let a = api.clone();
    blocking(move || a.wait_task(&id, Duration::from_secs(30)))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extraction_is_a_task_and_its_writes_one_group_undone_as_one() {
    let (_d, api) = api();
    seed(&api);
    assert_eq!(read(&api, "deploy.md").unwrap(), DEPLOY.as_bytes());
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    let updates = api.subscribe_tasks();

    let task = turn_with_two_file_extraction(&api, &fake).await;
    assert_eq!(task.kind, TaskKind::Extract);
    assert_eq!(task.status, TaskStatus::Completed, "{task:?}");
    let result = task.result.clone().unwrap();
    assert_eq!(result.files, ["deploy.md", "project/deploy-day.md"]);
    let group = result.group.expect("its writes form a group");
    assert_eq!(
        task.tools
            .iter()
            .map(|t| (t.name.as_str(), t.ok))
            .collect::<Vec<_>>(),
        [("write_file", Some(true)), ("write_file", Some(true))],
        "each tool call is progress"
    );
    assert!(task.started_at.is_some() && task.finished_at.is_some());

    // task_updated: queued, running (with progress), completed — in that order.
    let mut seen = Vec::new();
    while let Ok(t) = updates.recv_timeout(Duration::from_millis(200)) {
        if t.id == task.id {
            seen.push(t.status);
        }
    }
    assert_eq!(seen.first(), Some(&TaskStatus::Queued));
    assert!(seen.contains(&TaskStatus::Running));
    assert_eq!(seen.last(), Some(&TaskStatus::Completed));

    // Listed, filterable.
    let listed = api
        .tasks(
            Some("personal".into()),
            Some(TaskKind::Extract),
            Some(TaskStatus::Completed),
            None,
        )
        .unwrap();
    assert_eq!(listed[0].id, task.id);
    assert!(
        api.tasks(None, Some(TaskKind::Forget), None, None)
            .unwrap()
            .is_empty()
    );
    // The turn's auto-dream check is recorded too (one session so far: skipped).
    let dreams = api.tasks(None, Some(TaskKind::Dream), None, None).unwrap();
    assert_eq!(dreams[0].reason.map(|r| r.as_str()), Some("min_sessions"));

    // History: both changes carry the group; the group names its task.
    let history = api.history(Some("personal".into()), None, None).unwrap();
    let in_group: Vec<&str> = history
        .iter()
        .filter(|c| c.group == Some(group))
        .map(|c| c.path.as_str())
        .collect();
    assert_eq!(in_group.len(), 2, "{history:?}");
    let info = api.change_group(group).unwrap();
    assert_eq!(info.task.as_deref(), Some(task.id.as_str()));
    assert_eq!(info.kind, "extract");
    assert!(
        history.iter().any(|c| c.group.is_none()),
        "the seed is a single change"
    );

    // Undo the group: both files back, byte-exact; the undo is one new group.
    let undone = api.undo_group(group).unwrap();
    assert_eq!(undone.paths, ["deploy.md", "project/deploy-day.md"]);
    assert_eq!(read(&api, "deploy.md").unwrap(), DEPLOY.as_bytes());
    assert_eq!(read(&api, "project/deploy-day.md"), None);
    let undo_info = api.change_group(undone.group).unwrap();
    assert_eq!(undo_info.undoes, Some(group));
    assert_eq!(undo_info.changes.len(), 2);
    // …and undoing the undo brings the extraction's files back.
    api.undo_group(undone.group).unwrap();
    assert_eq!(read(&api, "deploy.md").unwrap(), DEPLOY_NEW.as_bytes());
    assert_eq!(read(&api, "project/deploy-day.md").unwrap(), DAY.as_bytes());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_whose_file_changed_since_is_not_undone_at_all() {
    let (_d, api) = api();
    seed(&api);
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    let task = turn_with_two_file_extraction(&api, &fake).await;
    let group = task.result.unwrap().group.unwrap();
    api.update(
        "personal".into(),
        "project/deploy-day.md".into(),
        Patch {
            description: Some("Ships on Tuesdays and Thursdays".into()),
            ..Patch::default()
        },
    )
    .unwrap();
    let edited = read(&api, "project/deploy-day.md").unwrap();
    let e = api.undo_group(group).unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    assert!(e.message.contains("project/deploy-day.md"), "{}", e.message);
    assert!(
        !e.message.contains("deploy.md,"),
        "only the changed file is named"
    );
    // Nothing written: the unchanged file keeps the extraction's version too.
    assert_eq!(read(&api, "deploy.md").unwrap(), DEPLOY_NEW.as_bytes());
    assert_eq!(read(&api, "project/deploy-day.md").unwrap(), edited);
    assert_eq!(api.undo_group(9_999).unwrap_err().code, ErrorCode::NotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_running_extraction_keeps_no_half_file_and_the_session_unmarked() {
    let (_d, api) = api();
    seed(&api);
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    fake.push_for(Kind::Json, Reply::json(&json!({"paths": []})));
    fake.push_for(Kind::Stream, Reply::text("Noted."));
    // The extraction's model call hangs long enough to be cancelled while it runs.
    fake.push_for(
        Kind::Tools,
        Reply::Delay(
            Duration::from_secs(20),
            Box::new(Reply::tool(
                "write_file",
                json!({"path": "late.md", "content": DAY}),
            )),
        ),
    );
    let turn = send(&api, "Remember that we ship on Tuesdays.").await;
    let id = turn.extract_task.unwrap();
    // Wait until it runs, then cancel.
    for _ in 0..200 {
        if api.task(id.clone()).unwrap().status == TaskStatus::Running {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let cancelled = api.task_cancel(id.clone()).unwrap();
    assert!(!cancelled.status.is_finished() || cancelled.status == TaskStatus::Failed);
    let a = api.clone();
    let done = blocking(move || a.wait_task(&id, Duration::from_secs(15)))
        .await
        .unwrap();
    assert_eq!(done.status, TaskStatus::Failed, "{done:?}");
    assert_eq!(done.reason.map(|r| r.as_str()), Some("cancelled"));
    assert_eq!(read(&api, "late.md"), None, "nothing written");
    let memory = api.home_dir().join("workspaces/personal/memory");
    let leftovers: Vec<String> = std::fs::read_dir(&memory)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "no temp files: {leftovers:?}");
    // The session is not marked extracted: the next run reads this turn again.
    let session = std::fs::read_to_string(api.home_dir().join(format!(
        "workspaces/personal/sessions/{}.jsonl",
        turn.session
    )))
    .unwrap();
    assert!(
        !session.contains(r#""kind":"extracted""#),
        "the session is not marked: {session}"
    );
    // The run wrote nothing, so its change group is gone.
    assert_eq!(api.change_group(1).unwrap_err().code, ErrorCode::NotFound);
    // A finished task stays as it is when cancelled again.
    assert_eq!(api.task_cancel(done.id.clone()).unwrap(), done);
}

#[test]
fn unknown_tasks_are_not_found() {
    let (_d, api) = api();
    assert_eq!(
        api.task("t-nope".into()).unwrap_err().code,
        ErrorCode::NotFound
    );
    assert_eq!(
        api.task_cancel("t-nope".into()).unwrap_err().code,
        ErrorCode::NotFound
    );
    let e = api.call("tasks", json!({"kind": "nap"})).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArguments);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_folder_list_and_the_model_settings_keep_each_other() {
    let (d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    let folder = d.path().join("notes");
    std::fs::create_dir_all(&folder).unwrap();
    let mut s = api.get_settings().unwrap();
    s.folders.push(mnemo_api::wire::FolderEntry {
        path: folder.clone(),
    });
    api.set_settings(s).unwrap();
    assert!(
        api.get_model_settings().unwrap().configured,
        "saving folders keeps [llm]"
    );
    let toml = std::fs::read_to_string(api.home_dir().join("settings.toml")).unwrap();
    assert!(
        toml.contains("fake-main") && toml.contains("notes"),
        "{toml}"
    );
    configure(&api, &fake).await;
    assert_eq!(
        api.get_settings().unwrap().folders.len(),
        1,
        "saving [llm] keeps folders"
    );
    // A fresh API on the same home reads both.
    let again = Api::open(Home {
        root: api.home_dir().to_path_buf(),
        claude_dir: d.path().join("c"),
        qwen_dir: d.path().join("q"),
    })
    .unwrap();
    assert!(again.get_model_settings().unwrap().configured);
    assert_eq!(again.get_settings().unwrap().folders.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_extractions_are_replaced_or_cancelled_at_once() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    // Session A's extraction holds the workspace: its model call hangs.
    fake.push_for(
        Kind::Tools,
        Reply::Delay(Duration::from_secs(20), Box::new(Reply::text("done"))),
    );
    for _ in 0..3 {
        fake.push_for(Kind::Json, Reply::json(&json!({"paths": []})));
        fake.push_for(Kind::Stream, Reply::text("Noted."));
    }
    let running = send(&api, "We ship on Tuesdays.")
        .await
        .extract_task
        .unwrap();
    // The task is marked running before it opens its change group: wait for both (the group's
    // id is 1, the first of this home), however loaded the machine.
    for _ in 0..1500 {
        if api.task(running.clone()).unwrap().status == TaskStatus::Running
            && api.change_group(1).is_ok()
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Its group holds nothing yet, and cannot be undone while the task runs.
    let e = api.undo_group(1).unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    assert!(e.message.contains(&running), "{}", e.message);

    // Session B: two turns while A runs — the newer extraction request replaces the waiting one.
    let b = api.chat_create("personal".into(), None).unwrap();
    let say = |text: &'static str| {
        let (a, id) = (api.clone(), b.id.clone());
        blocking(move || a.chat_send("personal".into(), id, text.into()))
    };
    let first = say("Deploys need two reviewers.")
        .await
        .unwrap()
        .extract_task
        .unwrap();
    let second = say("And a green smoke suite.")
        .await
        .unwrap()
        .extract_task
        .unwrap();
    let first = api.task(first).unwrap();
    assert_eq!(first.status, TaskStatus::Skipped);
    assert_eq!(first.reason.map(|r| r.as_str()), Some("replaced"));
    assert!(first.error.unwrap().contains(&second));
    assert_eq!(api.task(second.clone()).unwrap().status, TaskStatus::Queued);

    // Cancelling the waiting one skips it at once, without waiting for A.
    let cancelled = api.task_cancel(second).unwrap();
    assert_eq!(cancelled.status, TaskStatus::Skipped, "{cancelled:?}");
    assert_eq!(cancelled.reason.map(|r| r.as_str()), Some("cancelled"));
    assert_eq!(
        api.task(running.clone()).unwrap().status,
        TaskStatus::Running
    );
    api.task_cancel(running.clone()).unwrap();
    let a = api.clone();
    let done = blocking(move || a.wait_task(&running, Duration::from_secs(15)))
        .await
        .unwrap();
    assert_eq!(done.status, TaskStatus::Failed);
}
