//! Review mode and the inbox, against the fake model: an extraction in review mode
//! proposes and writes nothing; accepting some of a proposal's entries writes exactly those as
//! one group; "reject and don't learn this" stops the same proposal coming back; a dream's
//! whole diff is one proposal whose acceptance equals what the dream would have written; stale
//! proposals are rebased at entry level or refused as conflicts, never applied blind.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use mnemo_api::Api;
use mnemo_api::reexports::{AcceptChoice, ProposalStatus, TaskInfo};
use mnemo_core::ErrorCode;
use mnemo_store::review::EntryOp;
use mnemo_testkit::{FakeModel, Reply};
use serde_json::json;

use crate::common::{api, blocking, configure, extraction_calling};

const THREE: &str = "---\nname: Travel\ndescription: How the user travels\ntype: user\n---\n- Prefers night trains over flights\n\n- Always books a window seat\n\n- Carries a paper map of every city\n";

const OTHER: &str = "---\nname: Food\ndescription: What the user eats\ntype: user\n---\n- Eats no meat on weekdays\n\n- Drinks oat milk in coffee\n\n- Bakes sourdough on Sundays\n";

fn root(api: &Api) -> PathBuf {
    api.home_dir().join("workspaces/personal/memory")
}

/// Every memory file of a folder (MEMORY.md included) with its text.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((
                    p.strip_prefix(dir).unwrap().to_string_lossy().into_owned(),
                    std::fs::read_to_string(&p).unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}

async fn extract_writing(api: &Api, fake: &FakeModel, path: &str, content: &str) -> TaskInfo {
    extraction_calling(
        api,
        fake,
        "Some facts about me for you to keep.",
        Reply::tool("write_file", json!({"path": path, "content": content})),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extraction_in_review_mode_proposes_and_accepting_some_entries_writes_exactly_those() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    assert!(
        !api.review_mode("personal".into()).unwrap().on,
        "off by default"
    );
    let mode = api.set_review_mode("personal".into(), true).unwrap();
    assert!(mode.on && mode.decided);
    // Conversation records land whatever the review mode (they are the person's own words);
    // this test is about what extraction proposes.
    api.set_chat_records("personal".into(), false).unwrap();
    let before = files(&root(&api));

    let task = extract_writing(&api, &fake, "travel.md", THREE).await;
    let result = task.result.clone().unwrap();
    let id = result.proposal.expect("the extraction became a proposal");
    assert!(result.group.is_none(), "no change group: nothing landed");
    assert!(result.summary.contains("proposal"), "{}", result.summary);
    assert_eq!(files(&root(&api)), before, "no file changed");
    assert!(
        api.history(Some("personal".into()), None, None)
            .unwrap()
            .is_empty()
    );

    // The inbox lists it with where it came from; its diff is entry by entry.
    let page = api.inbox("personal".into(), None, None, None).unwrap();
    assert_eq!((page.pending, page.total), (1, 1));
    let p = api.proposal(id).unwrap();
    assert_eq!(p.summary.kind, "extract");
    assert_eq!(p.summary.status, ProposalStatus::Pending);
    assert_eq!(
        p.summary.origin.message.as_deref(),
        Some("Some facts about me for you to keep.")
    );
    assert!(p.summary.origin.session.is_some());
    assert_eq!(p.files.len(), 1);
    let ids: Vec<String> = p.files[0].entries.iter().map(|e| e.id.clone()).collect();
    assert_eq!(ids, ["travel.md#1", "travel.md#2", "travel.md#3"]);
    assert!(p.files[0].entries.iter().all(|e| e.op == EntryOp::Add));

    // Accept two of the three: exactly those, as one group.
    let done = api
        .inbox_accept(
            id,
            Some(AcceptChoice {
                entries: Some(vec!["travel.md#1".into(), "travel.md#3".into()]),
                edits: Vec::new(),
            }),
        )
        .unwrap();
    assert_eq!(done.paths, ["travel.md"]);
    let text = std::fs::read_to_string(root(&api).join("travel.md")).unwrap();
    assert_eq!(
        text,
        "---\nname: Travel\ndescription: How the user travels\ntype: user\n---\n- Prefers night trains over flights\n\n- Carries a paper map of every city\n"
    );
    let group = api.change_group(done.group).unwrap();
    assert_eq!(group.kind, "review");
    assert_eq!(
        group
            .changes
            .iter()
            .map(|c| c.path.as_str())
            .collect::<Vec<_>>(),
        ["travel.md"]
    );
    assert_eq!(done.proposal.status, ProposalStatus::Accepted);
    assert_eq!(
        done.proposal.note.as_deref(),
        Some("accepted 2 of 3 changes")
    );
    // Deciding twice is refused; the accept is undone as one group.
    let again = api.inbox_accept(id, None).unwrap_err();
    assert_eq!(again.code, ErrorCode::Conflict);
    api.undo_group(done.group).unwrap();
    assert!(!root(&api).join("travel.md").exists());

    // Reject "don't learn this": the same extraction then proposes nothing.
    let second = extract_writing(&api, &fake, "food.md", OTHER).await;
    let id2 = second.result.unwrap().proposal.unwrap();
    let rejected = api.inbox_reject(id2, Some(true)).unwrap();
    assert_eq!(rejected.status, ProposalStatus::Rejected);
    assert!(
        rejected
            .note
            .unwrap()
            .contains("its 3 new entries will not be learnt again")
    );
    let third = extract_writing(&api, &fake, "food.md", OTHER).await;
    let r3 = third.result.unwrap();
    assert_eq!(r3.proposal, None, "{}", r3.summary);
    assert!(!root(&api).join("food.md").exists());
    let page = api
        .inbox("personal".into(), Some(ProposalStatus::Pending), None, None)
        .unwrap();
    assert_eq!(page.pending, 0);
}

fn topic(name: &str, ty: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {name} facts\ntype: {ty}\n---\n{body}")
}

fn seed_duplicates(api: &Api) {
    let put = |rel: &str, text: &str| std::fs::write(root(api).join(rel), text).unwrap();
    put(
        "a.md",
        &topic("Plans", "project", "Ship v2 in May.\n\nUse Postgres.\n"),
    );
    put(
        "b.md",
        &topic(
            "More plans",
            "project",
            "Ship v2 in May.\nWhy: the board asked.\n",
        ),
    );
    put(
        "me.md",
        &topic(
            "Me",
            "user",
            "Likes tea.\n\nlikes TEA.\nHow to apply: offer tea.\n",
        ),
    );
    api.index(None).unwrap();
}

async fn mechanical_dream(api: &Api) -> TaskInfo {
    let a = api.clone();
    blocking(move || {
        let t = a.dream("personal".into(), Some(true)).unwrap();
        a.wait_task(&t.id, Duration::from_secs(60)).unwrap()
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dream_in_review_mode_is_one_proposal_equal_to_what_it_would_write() {
    // The same memories in two homes: one dreams for real, one in review mode.
    let (_d1, plain) = api();
    let (_d2, reviewed) = api();
    seed_duplicates(&plain);
    seed_duplicates(&reviewed);
    reviewed.set_review_mode("personal".into(), true).unwrap();
    let before = files(&root(&reviewed));

    let real = mechanical_dream(&plain).await;
    assert!(
        real.result.unwrap().group.is_some(),
        "the plain dream wrote"
    );
    let proposed = mechanical_dream(&reviewed).await;
    let result = proposed.result.unwrap();
    let id = result.proposal.expect("one proposal");
    assert_eq!(files(&root(&reviewed)), before, "nothing written");
    let page = reviewed.inbox("personal".into(), None, None, None).unwrap();
    assert_eq!(page.total, 1, "the whole dream is one proposal");
    let p = reviewed.proposal(id).unwrap();
    assert_eq!(p.summary.kind, "dream");
    assert!(
        p.files.iter().any(|f| f.after.is_none()),
        "b.md's deletion is in it"
    );

    reviewed.inbox_accept(id, None).unwrap();
    assert_eq!(
        files(&root(&reviewed)),
        files(&root(&plain)),
        "accepting equals what the dream would have written, MEMORY.md included"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stale_proposals_are_rebased_or_refused_never_applied_blind() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    let base = "---\nname: Home\ndescription: Where the user lives\ntype: user\n---\n- Lives in Berlin\n\n- Has a balcony garden\n";
    std::fs::write(root(&api).join("home.md"), base).unwrap();
    api.index(None).unwrap();
    api.set_review_mode("personal".into(), true).unwrap();
    let moved = base.replace("Lives in Berlin", "Moved to Lisbon in 2026");
    let added = format!("{base}\n- Grows tomatoes\n");

    // Two proposals over the same file: one rewrites an entry, one adds another.
    let p1 = extract_writing(&api, &fake, "home.md", &moved)
        .await
        .result
        .unwrap()
        .proposal
        .unwrap();
    let p2 = extract_writing(&api, &fake, "home.md", &added)
        .await
        .result
        .unwrap()
        .proposal
        .unwrap();
    // Someone edits another entry meanwhile: the first is rebased at entry level.
    let person = base.replace("Has a balcony garden", "Has a big balcony garden");
    std::fs::write(root(&api).join("home.md"), &person).unwrap();
    api.inbox_accept(p1, None).unwrap();
    let now = std::fs::read_to_string(root(&api).join("home.md")).unwrap();
    assert!(
        now.contains("Moved to Lisbon") && now.contains("big balcony"),
        "{now}"
    );
    // The second touched other entries: it merges too.
    api.inbox_accept(p2, None).unwrap();
    let now = std::fs::read_to_string(root(&api).join("home.md")).unwrap();
    assert!(
        now.contains("Grows tomatoes") && now.contains("Moved to Lisbon"),
        "{now}"
    );

    // A proposal rewriting an entry a person rewrote since: a conflict, nothing written.
    let p3 = extract_writing(
        &api,
        &fake,
        "home.md",
        &now.replace("Grows tomatoes", "Grows chillies"),
    )
    .await
    .result
    .unwrap()
    .proposal
    .unwrap();
    let person = now.replace("Grows tomatoes", "Grows basil");
    std::fs::write(root(&api).join("home.md"), &person).unwrap();
    let e = api.inbox_accept(p3, None).unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    assert!(e.message.contains("home.md"), "{}", e.message);
    assert_eq!(
        std::fs::read_to_string(root(&api).join("home.md")).unwrap(),
        person
    );
    assert_eq!(
        api.proposal(p3).unwrap().summary.status,
        ProposalStatus::Pending
    );

    // Its file deleted since: a conflict.
    std::fs::remove_file(root(&api).join("home.md")).unwrap();
    assert_eq!(
        api.inbox_accept(p3, None).unwrap_err().code,
        ErrorCode::Conflict
    );
    assert!(!root(&api).join("home.md").exists());

    // Edit then accept: the person's text wins; one with a secret is refused.
    let p4 = extract_writing(&api, &fake, "new.md", THREE)
        .await
        .result
        .unwrap()
        .proposal
        .unwrap();
    let secret = THREE.replace(
        "window seat",
        "window seat; api_key = sk-live-abcdefghijklmnopqrstuvwx12345",
    );
    let e = api
        .inbox_accept(
            p4,
            Some(AcceptChoice {
                entries: None,
                edits: vec![mnemo_api::wire::FileEdit {
                    path: "new.md".into(),
                    content: secret,
                }],
            }),
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidContent, "{}", e.message);
    let edited = THREE.replace("window seat", "aisle seat");
    api.inbox_accept(
        p4,
        Some(AcceptChoice {
            entries: None,
            edits: vec![mnemo_api::wire::FileEdit {
                path: "new.md".into(),
                content: edited.clone(),
            }],
        }),
    )
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(root(&api).join("new.md")).unwrap(),
        edited
    );
    // An unknown proposal, an edit of a file it does not change, and choosing nothing.
    assert_eq!(
        api.inbox_accept(999, None).unwrap_err().code,
        ErrorCode::NotFound
    );
    let p5 = extract_writing(&api, &fake, "other.md", OTHER)
        .await
        .result
        .unwrap()
        .proposal
        .unwrap();
    let e = api
        .inbox_accept(
            p5,
            Some(AcceptChoice {
                entries: None,
                edits: vec![mnemo_api::wire::FileEdit {
                    path: "elsewhere.md".into(),
                    content: OTHER.into(),
                }],
            }),
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArguments, "{}", e.message);
    let e = api
        .inbox_accept(
            p5,
            Some(AcceptChoice {
                entries: Some(Vec::new()),
                edits: Vec::new(),
            }),
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Usage, "{}", e.message);
    assert!(!root(&api).join("other.md").exists(), "nothing written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_never_reaches_a_proposal() {
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    api.set_review_mode("personal".into(), true).unwrap();
    let secret = THREE.replace(
        "window seat",
        "window seat, password: hunter2hunter2hunter2",
    );
    let task = extract_writing(&api, &fake, "travel.md", &secret).await;
    assert_eq!(task.result.unwrap().proposal, None);
    assert_eq!(
        api.inbox("personal".into(), None, None, None)
            .unwrap()
            .total,
        0
    );
}

/// The chat model's own tools are an automatic writer like any other — in review
/// mode what it writes in a turn is one proposal, nothing lands, and the turn says so (no
/// "wrote" claim).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chat_model_s_own_write_in_review_mode_is_a_proposal() {
    use mnemo_testkit::Kind;
    let (_d, api) = api();
    let fake = FakeModel::start().await;
    configure(&api, &fake).await;
    api.set_review_mode("personal".into(), true).unwrap();
    api.set_chat_records("personal".into(), false).unwrap();
    api.set_auto_extract("personal".into(), false).unwrap();
    let before = files(&root(&api));
    fake.push_for(Kind::Json, Reply::json(&json!({"paths": []})));
    fake.push_for(
        Kind::Stream,
        Reply::tool("write_file", json!({"path": "pet.md", "content": OTHER})),
    );
    fake.push_for(Kind::Stream, Reply::text("Noted."));
    let turn = common::send(&api, "Remember what I eat.").await;
    assert!(
        turn.wrote.is_empty(),
        "nothing claimed as written: {turn:?}"
    );
    let id = turn
        .proposal
        .expect("the chat model's write became a proposal");
    assert_eq!(files(&root(&api)), before, "no file changed");
    let p = api.proposal(id).unwrap();
    assert_eq!(p.summary.kind, "chat");
    assert_eq!(p.files.len(), 1);
    assert_eq!(p.files[0].path, "pet.md");
    // The transcript keeps no "wrote" badge either.
    let session = api.chat_sessions("personal".into()).unwrap()[0].id.clone();
    let t = api.chat_transcript("personal".into(), session).unwrap();
    assert!(t.messages.iter().all(|m| m.wrote.is_empty()), "{t:?}");
    // …and the reply keeps its proposal, so a reloaded chat still says it was proposed.
    let reply = t
        .messages
        .iter()
        .rfind(|m| m.role == mnemo_api::ChatRole::Assistant)
        .unwrap();
    assert_eq!(reply.proposal, Some(id), "{t:?}");
    // Accepted, it lands as the person's choice.
    api.inbox_accept(id, None).unwrap();
    assert!(root(&api).join("pet.md").exists());
}
