//! Sync through the API: a fact forgotten on one home is gone on the other after a
//! sync, and an extraction there that tries to write it back is refused.

use mnemo_api::reexports::{ForgetPick, SyncSettings};
use mnemo_api::{Api, NewMemory};
use mnemo_core::MemoryType;
use mnemo_store::Home;
use mnemo_testkit::{FakeModel, Reply};
use serde_json::json;

use crate::common::{configure, extraction_calling};

/// The API over `name`'s home in `dir` (a second call: another process on the same home).
fn open(dir: &std::path::Path, name: &str) -> Api {
    Api::open(Home {
        root: dir.join(name).join("home"),
        claude_dir: dir.join(name).join("claude"),
        qwen_dir: dir.join(name).join("qwen"),
    })
    .unwrap()
}

fn home(dir: &std::path::Path, name: &str, remote: &std::path::Path) -> Api {
    let api = open(dir, name);
    api.set_sync_settings(SyncSettings {
        remote: Some(remote.display().to_string()),
        author: Some(format!("{name} <{name}@example.com>")),
        auto: false,
        claude: true,
        qwen: true,
        sessions: false,
        shared: std::collections::BTreeMap::new(),
    })
    .unwrap();
    api
}

/// An empty bare repository: the remote both homes sync with.
fn bare_remote(dir: &std::path::Path) -> std::path::PathBuf {
    let remote = dir.join("remote.git");
    std::fs::create_dir_all(&remote).unwrap();
    let st = std::process::Command::new("git")
        .args(["init", "-q", "--bare", "--initial-branch", "main"])
        .arg(&remote)
        .status()
        .unwrap();
    assert!(st.success());
    remote
}

fn read(api: &Api, rel: &str) -> Option<String> {
    std::fs::read_to_string(api.home_dir().join("workspaces/personal/memory").join(rel)).ok()
}

fn memory(name: &str, body: &str) -> NewMemory {
    NewMemory {
        name: name.into(),
        description: format!("{name} facts"),
        memory_type: MemoryType::User,
        body: body.into(),
        path: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fact_forgotten_on_one_home_stays_forgotten_on_the_other() {
    let t = tempfile::tempdir().unwrap();
    let remote = bare_remote(t.path());
    let a = home(t.path(), "ana", &remote);
    let b = home(t.path(), "ben", &remote);
    a.create("personal".into(), memory("Tea", "Green tea from Kyoto."))
        .unwrap();
    a.create("personal".into(), memory("Coffee", "Drinks coffee at 9."))
        .unwrap();
    a.sync_now(None).unwrap();
    b.sync_now(None).unwrap();
    assert!(read(&b, "tea.md").is_some());
    // Home A adds a memory; home B edits another and forgets a third.
    a.create("personal".into(), memory("Editor", "Uses Helix."))
        .unwrap();
    let coffee = b.get("personal".into(), "coffee.md".into()).unwrap();
    b.update(
        "personal".into(),
        "coffee.md".into(),
        mnemo_api::Patch {
            body: Some("Drinks coffee at 10.".into()),
            expected_hash: Some(coffee.hash),
            ..mnemo_api::Patch::default()
        },
    )
    .unwrap();
    let p = b
        .forget_preview("personal".into(), "green tea".into())
        .unwrap();
    let picks: Vec<ForgetPick> = p
        .selected
        .iter()
        .map(|e| ForgetPick {
            id: e.id.clone(),
            hash: e.hash.clone(),
        })
        .collect();
    assert_eq!(picks.len(), 1);
    b.forget("personal".into(), picks).unwrap();
    b.sync_now(None).unwrap();
    let r = a.sync_now(None).unwrap();
    b.sync_now(None).unwrap();
    for api in [&a, &b] {
        assert!(read(api, "editor.md").is_some());
        assert!(read(api, "coffee.md").unwrap().contains("at 10."));
        assert!(read(api, "tea.md").is_none());
    }
    let g = r
        .workspaces
        .iter()
        .find(|w| w.workspace == "personal")
        .and_then(|w| w.group)
        .unwrap();
    let group = a.change_group(g).unwrap();
    assert_eq!(group.kind, "sync");
    assert!(
        group
            .changes
            .iter()
            .all(|c| c.source == mnemo_core::ChangeSource::Sync)
    );
    // An extraction on A that tries to write it back is refused.
    let fake = FakeModel::start().await;
    configure(&a, &fake).await;
    let ex = extraction_calling(
        &a,
        &fake,
        "I like green tea.",
        Reply::tool(
            "write_file",
            json!({"path": "tea2.md", "content": "---\nname: Tea\ndescription: tea\ntype: user\n---\nGreen tea from Kyoto.\n"}),
        ),
    )
    .await;
    assert_eq!(ex.tools[0].ok, Some(false), "{ex:?}");
    assert!(read(&a, "tea2.md").is_none(), "not written back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_sessions_sync_only_when_asked() {
    let t = tempfile::tempdir().unwrap();
    let remote = bare_remote(t.path());
    let a = home(t.path(), "ana", &remote);
    let b = home(t.path(), "ben", &remote);
    let s = a
        .chat_create("personal".into(), Some("Trip planning".into()))
        .unwrap();
    a.sync_now(None).unwrap();
    b.sync_now(None).unwrap();
    assert!(
        b.chat_sessions("personal".into()).unwrap().is_empty(),
        "off unless asked"
    );
    for api in [&a, &b] {
        let mut st = api.sync_settings().unwrap();
        st.sessions = true;
        api.set_sync_settings(st).unwrap();
    }
    a.sync_now(None).unwrap();
    b.sync_now(None).unwrap();
    let on_b = b.chat_sessions("personal".into()).unwrap();
    assert_eq!(on_b.len(), 1);
    assert_eq!(
        (on_b[0].id.as_str(), on_b[0].title.as_str()),
        (s.id.as_str(), "Trip planning")
    );
    // Renamed on B, the change comes back to A.
    b.chat_update("personal".into(), s.id, Some("Trip to Kyoto".into()), None)
        .unwrap();
    b.sync_now(None).unwrap();
    a.sync_now(None).unwrap();
    let on_a = a.chat_sessions("personal".into()).unwrap();
    assert_eq!(on_a[0].title, "Trip to Kyoto");
}

/// Edit a memory's body through the API (the hash the person saw).
fn set_body(api: &Api, rel: &str, body: &str) {
    let m = api.get("personal".into(), rel.into()).unwrap();
    api.update(
        "personal".into(),
        rel.into(),
        mnemo_api::Patch {
            body: Some(body.into()),
            expected_hash: Some(m.hash),
            ..mnemo_api::Patch::default()
        },
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recall_says_when_a_memory_holds_an_open_sync_conflict() {
    // Two homes change one fact differently; the merge keeps both versions and the
    // conflict waits for a person. Until then recall must not pass either off as the truth.
    let t = tempfile::tempdir().unwrap();
    let remote = bare_remote(t.path());
    let a = home(t.path(), "ana", &remote);
    let b = home(t.path(), "ben", &remote);
    a.create("personal".into(), memory("Home city", "Lives in Braga."))
        .unwrap();
    a.create("personal".into(), memory("Editor", "Edits in Helix."))
        .unwrap();
    a.sync_now(None).unwrap();
    b.sync_now(None).unwrap();
    set_body(&a, "home-city.md", "Lives in Lisbon since 2021.");
    set_body(&b, "home-city.md", "Lives in Porto since 2024.");
    a.sync_now(None).unwrap();
    let r = b.sync_now(None).unwrap();
    let conflicts: Vec<_> = r.workspaces.iter().flat_map(|w| &w.conflicts).collect();
    assert_eq!(conflicts.len(), 1, "{r:?}");
    assert_eq!(conflicts[0].path, "home-city.md");

    let got = b
        .recall(
            "personal".into(),
            "where does the user live, Lisbon or Porto".into(),
            None,
            Some(true),
        )
        .unwrap();
    let city = got
        .selected
        .iter()
        .find(|m| m.path == "home-city.md")
        .unwrap_or_else(|| panic!("{got:?}"));
    assert!(city.conflict);
    assert!(
        got.prompt.contains(mnemo_engine::recall::CONFLICT_NOTE),
        "{}",
        got.prompt
    );
    let other = b
        .recall(
            "personal".into(),
            "which editor, Helix".into(),
            None,
            Some(true),
        )
        .unwrap();
    assert!(other.selected.iter().all(|m| !m.conflict), "{other:?}");
    assert!(!other.prompt.contains("disagree"));

    // Settled: recall reads it as one fact again.
    b.sync_resolve(conflicts[0].id.clone(), Some(1)).unwrap();
    let got = b
        .recall(
            "personal".into(),
            "Lisbon or Porto".into(),
            None,
            Some(true),
        )
        .unwrap();
    assert!(got.selected.iter().all(|m| !m.conflict), "{got:?}");
}

/// Waits (up to a generous limit, for a loaded machine) for one `sync_changed`.
fn heard(rx: &std::sync::mpsc::Receiver<mnemo_api::SyncChanged>, what: &str) {
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("no sync_changed after {what}: {e}"));
    // The rest of the burst.
    while rx
        .recv_timeout(std::time::Duration::from_millis(300))
        .is_ok()
    {}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conflict_left_by_another_process_is_announced_to_a_watching_one() {
    // The app watches ben's home; `mnemo sync` (another process: another API on the same home)
    // leaves a conflict, which may change no memory file here — only the sync state says so.
    let t = tempfile::tempdir().unwrap();
    let remote = bare_remote(t.path());
    let a = home(t.path(), "ana", &remote);
    let b = home(t.path(), "ben", &remote);
    b.start_watching().unwrap();
    let events = b.subscribe_sync();
    let cli = open(t.path(), "ben");
    a.create("personal".into(), memory("Home city", "Lives in Braga."))
        .unwrap();
    a.sync_now(None).unwrap();
    cli.sync_now(None).unwrap();
    heard(&events, "the first sync elsewhere");
    set_body(&a, "home-city.md", "Lives in Lisbon since 2021.");
    set_body(&b, "home-city.md", "Lives in Porto since 2024.");
    a.sync_now(None).unwrap();
    while events.try_recv().is_ok() {}
    let r = cli.sync_now(None).unwrap();
    let left: Vec<_> = r.workspaces.iter().flat_map(|w| &w.conflicts).collect();
    assert_eq!(left.len(), 1, "{r:?}");
    heard(&events, "a sync elsewhere left a conflict");
    let status = b.sync_status().unwrap();
    assert_eq!(
        status
            .workspaces
            .iter()
            .flat_map(|w| &w.conflicts)
            .map(|c| c.id.clone())
            .collect::<Vec<_>>(),
        vec![left[0].id.clone()],
        "what the watching process reads on the event"
    );
    // Closed elsewhere: said too.
    cli.sync_resolve(left[0].id.clone(), None).unwrap();
    heard(&events, "a conflict closed elsewhere");
    assert!(
        b.sync_status()
            .unwrap()
            .workspaces
            .iter()
            .all(|w| w.conflicts.is_empty())
    );
}
