//! `run_dream` against a real vault: a cancelled mechanical dream is a failure (never recorded
//! as a dream that happened) and writes nothing; an `EntryPool` keeps an entry only with all its
//! lines.

use mnemo_core::ChangeSource;
use mnemo_engine::dream::{DreamRequest, EntryPool, Progress, run_dream};
use mnemo_llm::CancellationToken;
use mnemo_store::dream_report::{DreamStatus, DreamTrigger};
use mnemo_store::format::entries;

use super::vault;

#[tokio::test]
async fn a_cancelled_mechanical_dream_fails_and_writes_nothing() {
    let (_d, v) = vault();
    let ws = v.workspace("personal").unwrap();
    let text = "---\nname: a\ndescription: a\ntype: user\n---\nTea.\n\ntea.\n";
    std::fs::write(ws.memory_root.join("a.md"), text).unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let req = DreamRequest {
        workspace: "personal",
        trigger: DreamTrigger::Manual,
        mechanical: true,
        session: None,
        origin: ChangeSource::Dream.into(),
    };
    let r = run_dream(&v, None, &req, &cancel, &mut |_: Progress<'_>| {}).await;
    assert_eq!(r.status, DreamStatus::Failed);
    assert!(
        r.notes.iter().any(|n| n.starts_with("cancelled")),
        "{:?}",
        r.notes
    );
    assert_eq!(
        std::fs::read_to_string(ws.memory_root.join("a.md")).unwrap(),
        text
    );
    let meta = v.meta(&ws).unwrap().value;
    assert_eq!(
        meta.last_dream_at, None,
        "a cancelled dream is not a dream that happened"
    );
    assert_eq!(meta.last_dream_status.as_deref(), Some("failed"));
}

#[test]
fn an_entry_lives_on_only_with_all_its_lines() {
    let mut pool = EntryPool::default();
    pool.add("---\nname: a\ndescription: a\ntype: user\n---\nShip in May.\nWhy: board; budget\nOwner: Bo\n");
    pool.add("not a topic file\n\nOrphan fact.\n");
    let e = |t: &str| entries(t).remove(0);
    assert!(pool.holds(&e("ship in may.\nWhy: board\n")));
    assert!(pool.holds(&e("Ship in May.\nOwner: Bo\n")));
    assert!(!pool.holds(&e("Ship in May.\nWhy: the CEO\n")));
    assert!(!pool.holds(&e("Ship in May.\nSee the wiki.\n")));
    assert!(
        !pool.holds(&e("Orphan fact.\n")),
        "invalid files hold nothing"
    );
}

#[tokio::test]
async fn a_dream_records_meta_and_a_telemetry_event() {
    let (_d, v) = vault();
    let ws = v.workspace("personal").unwrap();
    std::fs::write(
        ws.memory_root.join("a.md"),
        "---\nname: a\ndescription: a\ntype: user\n---\nTea.\n\ntea.\n",
    )
    .unwrap();
    let req = DreamRequest {
        workspace: "personal",
        trigger: DreamTrigger::Auto,
        mechanical: true,
        session: Some("s-1"),
        origin: ChangeSource::Dream.into(),
    };
    let r = run_dream(
        &v,
        None,
        &req,
        &CancellationToken::new(),
        &mut |_: Progress<'_>| {},
    )
    .await;
    assert_eq!(r.status, DreamStatus::Updated);
    let meta = v.meta(&ws).unwrap().value;
    assert!(meta.last_dream_at.is_some());
    assert_eq!(meta.last_dream_session_id.as_deref(), Some("s-1"));
    assert_eq!(meta.last_dream_status.as_deref(), Some("updated"));
    let events = v.events(Some("dream"), 5).unwrap();
    let (_, kind, workspace, data) = &events[0];
    assert_eq!((kind.as_str(), workspace.as_str()), ("dream", "personal"));
    assert_eq!(data["trigger"], "auto");
    assert_eq!(data["status"], "updated");
    assert_eq!(data["entries_merged"], 1);
    assert_eq!(data["touched_types"], serde_json::json!(["user"]));
    assert!(data["duration_ms"].is_u64());
}
