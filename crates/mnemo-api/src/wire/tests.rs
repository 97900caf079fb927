//! The wire says what the store's types say: each wire type serialises exactly as the store
//! value it was made from (the task store and the journal keep that JSON, clients read this), and
//! an input read from the wire becomes the store value the same JSON would.

use std::path::PathBuf;

use mnemo_core::{ChangeOp, ChangeSource, DocKind, EntryOp, MemoryType, ProposalStatus};
use mnemo_core::{TaskKind, TaskReason, TaskStatus, WorkspaceKind};
use mnemo_store as store;
use serde::Serialize;
use serde_json::{Value, json};

use super::*;

/// The JSON of a store value and of the wire value made from it.
fn both<S: Serialize + Clone, W: From<S> + Serialize>(v: &S) -> (Value, Value) {
    let wire: W = v.clone().into();
    (
        serde_json::to_value(v).unwrap(),
        serde_json::to_value(&wire).unwrap(),
    )
}

macro_rules! same {
    ($value:expr => $wire:ty) => {{
        let (s, w) = both::<_, $wire>(&$value);
        assert_eq!(
            s,
            w,
            "{} is not what the store serialises",
            stringify!($wire)
        );
        w
    }};
}

fn doc() -> store::index::DocSummary {
    store::index::DocSummary {
        workspace: "personal".into(),
        path: "tea.md".into(),
        kind: DocKind::Topic,
        memory_type: Some(MemoryType::User),
        name: "Tea".into(),
        description: "drinks green tea".into(),
        mtime: "2026-11-30T10:00:00Z".into(),
        valid: false,
        problem: Some(store::index::ProblemOut {
            code: "no_frontmatter".into(),
            message: "it has no frontmatter".into(),
        }),
        secret: Some("github_token (line 3)".into()),
        pinned: true,
        archived: false,
    }
}

fn proposal_summary() -> store::journal::ProposalSummary {
    store::journal::ProposalSummary {
        id: 7,
        workspace: "personal".into(),
        source: ChangeSource::Extract,
        kind: "extract".into(),
        label: "2 memories".into(),
        origin: store::journal::ProposalOrigin {
            session: Some("s1".into()),
            message: Some("I drink tea".into()),
            client: None,
            task: Some("t1".into()),
        },
        at: "2026-11-30T10:00:00Z".into(),
        status: ProposalStatus::Pending,
        resolved_at: None,
        note: None,
        group: Some(3),
        paths: vec!["tea.md".into()],
        changes: 2,
    }
}

#[test]
fn what_the_vault_returns_crosses_as_the_store_wrote_it() {
    let w = same!(doc() => DocSummary);
    assert_eq!(w["type"], "user", "renamed fields keep their wire names");
    let mut hit = store::index::Hit {
        workspace: "personal".into(),
        path: "tea.md".into(),
        score: 0.5,
        memory_type: None,
        doc_null: Some((0.1, 0.2)),
        passage: Some(store::index::Passage {
            text: "green tea".into(),
            line: 4,
        }),
        weak: true,
        ..Default::default()
    };
    let w = same!(hit => Hit);
    assert!(w.get("doc_null").is_none(), "ranking internals never cross");
    hit.vector = Some(0.7);
    hit.matched = vec!["tea".into()];
    same!(hit => Hit);
    let detail = store::vault::MemoryDetail {
        summary: doc(),
        hash: "abc".into(),
        content: None,
        body: "- tea\n".into(),
        entries: vec![
            store::vault::EntryOut {
                id: "tea.md:1".into(),
                summary: "tea".into(),
                why: Some("asked".into()),
                how: None,
                superseded: Some(store::supersede::Supersession {
                    at: "2026-11-29".into(),
                    by: "coffee".into(),
                    why: None,
                }),
            },
            store::vault::EntryOut {
                id: "tea.md:2".into(),
                summary: "milk".into(),
                why: None,
                how: None,
                superseded: None,
            },
        ],
        pinned: true,
    };
    same!(detail => MemoryDetail);
    for shared in [
        None,
        Some(store::workspace::Sharing::QwenTeam {
            folder: PathBuf::from("/p/.qwen/memory"),
            repo: PathBuf::from("/p"),
        }),
        Some(store::workspace::Sharing::Team {
            remote: "git@example:team".into(),
        }),
    ] {
        let info = store::vault::WorkspaceInfo {
            workspace: store::Workspace {
                id: "qwen:p".into(),
                kind: WorkspaceKind::Qwen,
                label: "p".into(),
                origin: "/p".into(),
                memory_root: PathBuf::from("/p/.qwen/memory"),
                state_dir: PathBuf::from("/h/state"),
                lock_dir: PathBuf::from("/h/lock"),
                shared,
            },
            counts: store::index::Counts {
                topics: 3,
                invalid: 1,
                logs: 2,
            },
        };
        same!(info => WorkspaceInfo);
    }
    same!(store::vault::WriteOutcome {
        workspace: "personal".into(),
        path: "tea.md".into(),
        change_id: None,
        hash: Some("h".into()),
        shared: Some("it reaches your team".into()),
    } => WriteOutcome);
    same!(store::vault::SyncReport { scanned: 3, updated: 2, removed: 1 } => SyncReport);
    same!(store::vault::Copied {
        from_workspace: "a".into(),
        from_path: "x.md".into(),
        workspace: "b".into(),
        path: "x-2.md".into(),
        group: Some(1),
        removed_group: None,
    } => Copied);
    same!(store::export::ExportResult {
        path: "/tmp/a.zip".into(),
        workspaces: vec!["personal".into()],
        files: 2,
        bytes: 10,
        left_out: vec!["personal/link.md: a hard link".into()],
    } => ExportResult);
}

#[test]
fn the_status_is_the_vaults_with_what_the_api_found_of_semantic_search() {
    let vault = store::vault::Status {
        home: "/h".into(),
        workspaces: vec![store::vault::WorkspaceStatus {
            id: "personal".into(),
            kind: WorkspaceKind::Mnemo,
            counts: store::index::Counts::default(),
            last_extract_at: Some("2026-11-30T10:00:00Z".into()),
            last_dream_at: None,
            consolidation_locked_by: Some(42),
        }],
        index_bytes: 4096,
        warnings: vec!["moved aside a corrupt file".into()],
    };
    let semantic = Semantic {
        state: SemanticState::Ready,
        model: Some("e5".into()),
        embedded: 1,
        total: 2,
        message: "hybrid search on".into(),
    };
    let mut expected = serde_json::to_value(&vault).unwrap();
    expected["semantic"] = serde_json::to_value(&semantic).unwrap();
    let status = Status::new(vault, semantic);
    assert_eq!(serde_json::to_value(&status).unwrap(), expected);
}

#[test]
fn the_journal_and_the_inbox_cross_as_the_journal_keeps_them() {
    let change = store::journal::ChangeSummary {
        id: 5,
        workspace: "personal".into(),
        path: "tea.md".into(),
        source: ChangeSource::User,
        at: "2026-11-30T10:00:00Z".into(),
        op: ChangeOp::Modify,
        undoes: Some(4),
        group: None,
        undone_by: None,
    };
    same!(change => ChangeSummary);
    same!(store::journal::GroupInfo {
        id: 2,
        workspace: "personal".into(),
        kind: "dream".into(),
        task: Some("t".into()),
        label: "dream".into(),
        at: "2026-11-30T10:00:00Z".into(),
        undoes: None,
        undone_by: Some(9),
        changes: vec![change],
    } => GroupInfo);
    same!(store::vault::GroupUndo {
        undone: 2,
        group: 3,
        workspace: "personal".into(),
        paths: vec!["tea.md".into()],
        note: None,
    } => GroupUndo);
    let proposal = store::journal::Proposal {
        summary: proposal_summary(),
        files: vec![store::review::ProposalFile {
            path: "tea.md".into(),
            op: ChangeOp::Create,
            base_hash: None,
            before: None,
            after: Some("- tea\n".into()),
            entries: vec![store::review::EntryChange {
                id: "tea.md#1".into(),
                op: EntryOp::Add,
                before: None,
                after: Some("tea".into()),
            }],
        }],
    };
    same!(proposal => Proposal);
    same!(store::journal::ProposalPage {
        items: vec![proposal_summary()],
        total: 1,
        pending: 1,
    } => ProposalPage);
    same!(store::vault::Accepted {
        proposal: proposal_summary(),
        group: 4,
        paths: vec!["tea.md".into()],
    } => Accepted);
    same!(store::journal::MemoryUsage {
        path: "tea.md".into(),
        recalls: 3,
        last_recalled: Some("2026-11-30T10:00:00Z".into()),
        tokens: 40,
        carried: 1,
        last_tokens: 12,
        sessions: 2,
        recent_sessions: vec!["s1".into(), "s2".into()],
    } => MemoryUsage);
}

#[test]
fn a_task_crosses_as_the_task_store_keeps_it() {
    let mut task = store::tasks::TaskInfo::new(TaskKind::Dream, "personal", Some("s1"));
    same!(task => TaskInfo);
    task.status = TaskStatus::Completed;
    task.reason = Some(TaskReason::Cancelled);
    task.set_progress("Writing 3 / 7 files", 3, 7);
    task.tools = vec![store::tasks::ToolStep {
        name: "read_file".into(),
        detail: "tea.md".into(),
        ok: None,
    }];
    task.result = Some(store::tasks::TaskResult {
        summary: "merged 1 entry".into(),
        files: vec!["tea.md".into()],
        group: Some(3),
        touched_types: vec![MemoryType::User],
        dream: Some(store::dream_report::DreamReport {
            status: mnemo_core::DreamStatus::Updated,
            strategy: mnemo_core::DreamStrategy::Mechanical,
            trigger: mnemo_core::DreamTrigger::Manual,
            files_touched: vec!["tea.md".into()],
            files_created: vec![],
            files_deleted: vec!["tea-2.md".into()],
            entries_merged: 1,
            merges: vec![store::dream_report::DreamMerge {
                summary: "tea".into(),
                into: "tea.md".into(),
                from: vec!["tea-2.md".into()],
            }],
            touched_types: vec![MemoryType::User],
            duration_ms: 12,
            notes: vec!["restored x.md".into()],
        }),
        undone_by: None,
        proposal: Some(8),
    });
    task.error = Some("the model stopped".into());
    let w = same!(task => TaskInfo);
    assert_eq!(w["result"]["dream"]["merges"][0]["into"], "tea.md");
}

#[test]
fn an_input_from_the_wire_is_the_store_value_the_same_json_is() {
    for v in [
        json!({}),
        json!({ "entries": null }),
        json!({ "entries": ["tea.md#1"], "edits": [{ "path": "tea.md", "content": "- tea\n" }] }),
    ] {
        let wire: AcceptChoice = serde_json::from_value(v.clone()).unwrap();
        let direct: store::journal::AcceptChoice = serde_json::from_value(v).unwrap();
        assert_eq!(store::journal::AcceptChoice::from(wire), direct);
    }
    for v in [json!({}), json!({ "folders": [{ "path": "/notes" }] })] {
        let wire: Settings = serde_json::from_value(v.clone()).unwrap();
        let direct: store::workspace::Settings = serde_json::from_value(v).unwrap();
        assert_eq!(store::workspace::Settings::from(wire), direct);
    }
}

#[test]
fn what_a_person_chose_reaches_the_engine_sync_and_import_whole() {
    for v in [
        json!({}),
        json!({ "type": "project", "folder_types": [{ "folder": "work", "type": "user" }],
                "budget_tokens": 9000, "workspaces": ["personal"], "all_workspaces": true }),
    ] {
        let wire: ImportOptions = serde_json::from_value(v.clone()).unwrap();
        let direct: store::import::ImportOptions = serde_json::from_value(v).unwrap();
        assert_eq!(store::import::ImportOptions::from(wire), direct);
    }
    for v in [
        json!({ "remote": null, "author": null }),
        json!({ "remote": "git@example:me", "author": "Ann", "auto": true, "claude": false,
                "qwen": false, "sessions": true, "shared": { "qwen:p": "git@example:team" } }),
    ] {
        let wire: SyncSettings = serde_json::from_value(v.clone()).unwrap();
        let direct: mnemo_sync::SyncSettings = serde_json::from_value(v).unwrap();
        assert_eq!(mnemo_sync::SyncSettings::from(wire.clone()), direct);
        assert_eq!(
            serde_json::to_value(&wire).unwrap(),
            serde_json::to_value(&direct).unwrap()
        );
    }
    let v = json!({ "id": "tea.md:1", "hash": "abc" });
    let wire: ForgetPick = serde_json::from_value(v.clone()).unwrap();
    let direct: mnemo_engine::forget::ForgetPick = serde_json::from_value(v).unwrap();
    assert_eq!(mnemo_engine::forget::ForgetPick::from(wire), direct);
}

#[test]
fn a_chat_command_crosses_as_the_engine_parsed_it() {
    for text in [
        "/memory",
        "/remember I drink tea",
        "/forget tea",
        "/dream",
        "hello",
    ] {
        let parsed = mnemo_engine::chat::ChatCommand::parse(text);
        let wire = ChatCommand::parse(text);
        assert_eq!(
            serde_json::to_value(&parsed).unwrap(),
            serde_json::to_value(&wire).unwrap(),
            "{text}"
        );
    }
    assert_eq!(
        serde_json::to_value(ChatCommand::parse("/remember tea")).unwrap(),
        json!({ "name": "remember", "fact": "tea" })
    );
}
