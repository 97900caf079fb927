//! Corrections and pruning: replacing a fact — by extraction or by a person — keeps
//! the old entry as superseded and recall injects only the new one; archiving takes a memory
//! out of recall and MEMORY.md but keeps it searchable and restorable; usage drives health.

use crate::common;

use mnemo_api::Api;
use mnemo_core::ErrorCode;
use mnemo_testkit::{FakeModel, Reply};
use serde_json::json;

use crate::common::{api, configure, extraction_calling};

const HOME: &str = "---\nname: Where the user lives\ndescription: The user's home city and flat\ntype: user\n---\n- The user lives in Berlin\n\n- The flat has a balcony garden\n";

fn root(api: &Api) -> std::path::PathBuf {
    api.home_dir().join("workspaces/personal/memory")
}

fn seed(api: &Api) {
    std::fs::write(root(api).join("home.md"), HOME).unwrap();
    api.index(None).unwrap();
}

fn recall_prompt(api: &Api, q: &str) -> String {
    api.recall("personal".into(), q.into(), None, Some(true))
        .unwrap()
        .prompt
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extraction_replacing_a_fact_supersedes_it_and_recall_injects_only_the_new_one() {
    let (_d, api) = api();
    seed(&api);
    assert!(recall_prompt(&api, "which city does the user live in").contains("Berlin"));
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    let task = extraction_calling(
        &api,
        &fake,
        "I moved to Lisbon last month.",
        Reply::tool(
            "edit",
            json!({"path": "home.md", "old_string": "The user lives in Berlin", "new_string": "The user moved to Lisbon in 2026"}),
        ),
    )
    .await;
    assert_eq!(task.result.unwrap().files, ["home.md"]);
    let text = std::fs::read_to_string(root(&api).join("home.md")).unwrap();
    assert!(
        text.contains("- The user lives in Berlin\n  Superseded: ")
            && text.contains("by \"The user moved to Lisbon in 2026\"; extraction\n\n- The user moved to Lisbon in 2026"),
        "{text}"
    );
    // The detail pane's chain.
    let d = api.get("personal".into(), "home.md".into()).unwrap();
    let old = d.entries[0]
        .superseded
        .as_ref()
        .expect("the old fact is kept, superseded");
    assert_eq!(old.by, "The user moved to Lisbon in 2026");
    assert_eq!(old.why.as_deref(), Some("extraction"));
    assert!(d.entries[1].superseded.is_none());
    // Recall of the subject injects only the new fact.
    let prompt = recall_prompt(&api, "which city does the user live in");
    assert!(prompt.contains("Lisbon"), "{prompt}");
    assert!(!prompt.contains("Berlin"), "{prompt}");
    // Search still finds the old fact (it is history, not gone).
    let hits = api
        .search(Some("personal".into()), "Berlin".into(), None, Some(true))
        .unwrap();
    assert_eq!(hits.first().map(|h| h.path.as_str()), Some("home.md"));
}

#[test]
fn a_person_replacing_a_fact_supersedes_it() {
    let (_d, api) = api();
    seed(&api);
    let out = api
        .replace_entry(
            "personal".into(),
            "home.md".into(),
            "home.md:1".into(),
            "- The user lives in Porto".into(),
            Some("moved in May".into()),
        )
        .unwrap();
    assert!(out.change_id.is_some());
    let d = api.get("personal".into(), "home.md".into()).unwrap();
    let s = d.entries[0].superseded.as_ref().unwrap();
    assert_eq!(
        (s.by.as_str(), s.why.as_deref()),
        ("The user lives in Porto", Some("moved in May"))
    );
    let prompt = recall_prompt(&api, "which city does the user live in");
    assert!(
        prompt.contains("Porto") && !prompt.contains("Berlin"),
        "{prompt}"
    );
    // A superseded entry cannot be replaced again; bad ids and empty facts are refused.
    let again = api.replace_entry(
        "personal".into(),
        "home.md".into(),
        "home.md:1".into(),
        "- x y z".into(),
        None,
    );
    assert_eq!(again.unwrap_err().code, ErrorCode::Conflict);
    let bad = api.replace_entry(
        "personal".into(),
        "home.md".into(),
        "other.md:1".into(),
        "- x y z".into(),
        None,
    );
    assert_eq!(bad.unwrap_err().code, ErrorCode::InvalidArguments);
    let empty = api.replace_entry(
        "personal".into(),
        "home.md".into(),
        "home.md:2".into(),
        "  ".into(),
        None,
    );
    assert_eq!(empty.unwrap_err().code, ErrorCode::Usage);
    let secret = api.replace_entry(
        "personal".into(),
        "home.md".into(),
        "home.md:2".into(),
        "- token ghp_abcdefghijklmnopqrstuvwxyz0123456789".into(),
        None,
    );
    assert_eq!(secret.unwrap_err().code, ErrorCode::InvalidContent);
    // Undone like any edit.
    api.undo(out.change_id.unwrap()).unwrap();
    assert_eq!(
        std::fs::read_to_string(root(&api).join("home.md")).unwrap(),
        HOME
    );
}

#[test]
fn an_archived_memory_leaves_recall_and_memory_md_but_stays_searchable() {
    let (_d, api) = api();
    seed(&api);
    // An index of nothing is no file: read as empty when it is not there.
    let memory_md = || std::fs::read_to_string(root(&api).join("MEMORY.md")).unwrap_or_default();
    assert!(memory_md().contains("home.md"));
    api.set_archived("personal".into(), "home.md".into(), true)
        .unwrap();
    assert!(
        std::fs::read_to_string(root(&api).join("home.md"))
            .unwrap()
            .contains("archived: true")
    );
    assert!(!memory_md().contains("home.md"), "out of MEMORY.md");
    let r = api
        .recall(
            "personal".into(),
            "which city does the user live in".into(),
            None,
            Some(true),
        )
        .unwrap();
    assert!(r.selected.is_empty(), "out of recall");
    let hits = api
        .search(Some("personal".into()), "Berlin".into(), None, Some(true))
        .unwrap();
    assert_eq!(hits.len(), 1, "still searchable");
    let listed = api.list(Some("personal".into()), None).unwrap();
    assert!(listed[0].archived);
    let stats = api.stats("personal".into()).unwrap();
    assert_eq!(stats.archived, ["home.md"]);
    // Restored: back in recall and MEMORY.md.
    api.set_archived("personal".into(), "home.md".into(), false)
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(root(&api).join("home.md")).unwrap(),
        HOME
    );
    assert!(memory_md().contains("home.md"));
    let r = api
        .recall(
            "personal".into(),
            "which city does the user live in".into(),
            None,
            Some(true),
        )
        .unwrap();
    assert_eq!(r.selected.len(), 1);
    // Health: what recall used costs tokens; the most expensive is named.
    let stats = api.stats("personal".into()).unwrap();
    assert_eq!(stats.expensive, ["home.md"]);
    let usage = api
        .memory_usage("personal".into(), Some("home.md".into()))
        .unwrap();
    assert_eq!(usage[0].recalls, 1);
    assert_eq!(usage[0].tokens, u64::from(r.selected[0].tokens_injected));
}

/// The status counts the daily logs and conversation records there are (it once said
/// "none kept yet" while records existed: the index's list holds topic files only).
#[test]
fn the_status_counts_daily_logs_and_conversation_records() {
    let (d, api) = common::api();
    let root = d.path().join("home/workspaces/personal/memory");
    for (p, text) in [
        (
            "chats/2026/11/2026-11-20-abc.md",
            "# 2026-11-20\n\nI moved to Porto.\n",
        ),
        (
            "chats/2026/11/2026-11-21-def.md",
            "# 2026-11-21\n\nI walk the dog.\n",
        ),
        ("logs/2026/11/2026-11-21.md", "# 2026-11-21\n\nA log.\n"),
    ] {
        let f = root.join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, text).unwrap();
    }
    let s = api.stats("personal".into()).unwrap();
    assert_eq!((s.chats, s.logs), (2, 1), "{s:?}");
}

#[test]
fn a_refused_write_names_the_field_at_fault_on_every_wire() {
    let (_d, api) = api();
    let new = |name: &str, description: &str| mnemo_core::NewMemory {
        path: None,
        name: name.into(),
        description: description.into(),
        memory_type: mnemo_core::MemoryType::User,
        body: "- a fact\n".into(),
    };
    let e = api.create("personal".into(), new("Tea", "  ")).unwrap_err();
    assert_eq!(e.field, Some(mnemo_core::Field::Description), "{e:?}");
    let e = api
        .create("personal".into(), new("Tea\u{202e}", "drinks"))
        .unwrap_err();
    assert_eq!(e.field, Some(mnemo_core::Field::Name), "{e:?}");
    seed(&api);
    let e = api
        .update(
            "personal".into(),
            "home.md".into(),
            mnemo_core::Patch {
                name: Some("two\nlines".into()),
                ..Default::default()
            },
        )
        .unwrap_err();
    assert_eq!(e.field, Some(mnemo_core::Field::Name), "{e:?}");
    // Over HTTP's dispatcher the error carries the field as data; one about no field has none.
    let e = api
        .call(
            "create",
            json!({"workspace": "personal", "memory": {"name": "Tea", "description": "", "type": "user", "body": "x"}}),
        )
        .unwrap_err();
    assert_eq!(serde_json::to_value(&e).unwrap()["field"], "description");
    // A new memory whose file is already there: the path clashes.
    let e = api
        .create(
            "personal".into(),
            mnemo_core::NewMemory {
                path: Some("home.md".into()),
                ..new("Home", "where")
            },
        )
        .unwrap_err();
    assert_eq!(
        (e.code, e.field),
        (ErrorCode::Conflict, Some(mnemo_core::Field::Path))
    );
    let e = api.get("personal".into(), "nope.md".into()).unwrap_err();
    assert!(serde_json::to_value(&e).unwrap().get("field").is_none());
}
