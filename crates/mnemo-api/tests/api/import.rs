//! Import and export: every documented format previewed and applied through the
//! normal write path, one change group per import (undone as one), de-duplication, secrets
//! refused, bad input refused with nothing half-imported, export → import byte-exact, memories
//! moved between workspaces. Test data: small exports written here in each format.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mnemo_api::Api;
use mnemo_api::reexports::{ImportOptions, ImportPreview, TaskInfo};
use mnemo_core::{ErrorCode, TaskStatus};
use serde_json::{Value, json};

use crate::common::{api, zip_of};

fn root(api: &Api, ws: &str) -> PathBuf {
    api.home_dir().join("workspaces").join(ws).join("memory")
}

/// Every file under a folder (relative path → bytes), hidden ones aside.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                let rel = e
                    .path()
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel, std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

fn write(dir: &Path, name: &str, text: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

fn preview(api: &Api, src: &str) -> ImportPreview {
    api.import_preview(src.to_owned(), None, None).unwrap()
}

fn run(api: &Api, src: &str, opts: Option<ImportOptions>, plan: Option<String>) -> TaskInfo {
    let t = api.import_start(src.to_owned(), None, opts, plan).unwrap();
    api.wait_task(&t.id, Duration::from_secs(60)).unwrap()
}

/// A mem0 export (`{"results": [...]}`, as its `get_all` returns) of `n` memories.
fn mem0(n: usize) -> Value {
    let cats = ["preferences", "professional_details", "misc"];
    let results: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("mem-{i:04}"), "memory": format!("Fact number {i}: the user owns {i} green plants"),
                   "hash": format!("{i:x}"), "metadata": null, "categories": [cats[i % 3]],
                   "created_at": "2025-06-01T09:30:00.123456-07:00", "updated_at": null, "user_id": "alex"})
        })
        .collect();
    json!({"results": results})
}

#[test]
fn a_mem0_export_of_200_memories_previews_applies_and_undoes_as_one_group() {
    let (d, api) = api();
    write(
        &root(&api, "personal"),
        "tea.md",
        b"---\nname: Tea\ndescription: What the user drinks\ntype: user\n---\nDrinks green tea\n",
    );
    api.index(None).unwrap();
    let before = files(&root(&api, "personal"));
    assert!(before.contains_key("MEMORY.md"));
    let src = write(d.path(), "mem0.json", mem0(200).to_string().as_bytes());
    let p = preview(&api, &src);
    assert_eq!(p.format_label, "mem0 export");
    assert_eq!(
        (p.items, p.memories, p.duplicates, p.secrets, p.skipped),
        (200, 200, 0, 0, 0)
    );
    let by: BTreeMap<String, u32> = p
        .by_type
        .iter()
        .map(|t| (t.memory_type.to_string(), t.count))
        .collect();
    assert_eq!(
        by,
        BTreeMap::from([("project".into(), 67), ("user".into(), 133)]),
        "categories map to types; misc takes the default"
    );
    assert!(!p.samples.is_empty() && p.samples[0].text.starts_with("Fact number"));
    assert_eq!(
        files(&root(&api, "personal")),
        before,
        "a preview writes nothing"
    );

    let t = run(&api, &src, None, Some(p.plan.clone()));
    assert_eq!(t.status, TaskStatus::Completed, "{t:?}");
    let r = t.result.unwrap();
    assert_eq!(
        r.summary,
        format!("imported 200 memories into {} files", p.files)
    );
    let group = api.change_group(r.group.unwrap()).unwrap();
    assert_eq!(group.kind, "import");
    let grouped: std::collections::BTreeSet<String> =
        group.changes.iter().map(|c| c.path.clone()).collect();
    assert_eq!(
        grouped.len() as u32,
        p.files,
        "every file of the import is in its one group"
    );
    // Exactly what the preview said: every memory once, as an entry.
    let now = files(&root(&api, "personal"));
    let text: String = now
        .values()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect();
    for i in 0..200 {
        assert_eq!(
            text.matches(&format!("Fact number {i}: ")).count(),
            1,
            "fact {i}"
        );
    }
    assert!(text.contains("Source: mem0 export mem-0007, 2025-06-01"));
    // Found like any memory.
    assert!(
        !api.search(
            Some("personal".into()),
            "green plants".into(),
            Some(5),
            Some(true)
        )
        .unwrap()
        .is_empty()
    );
    // Importing it again adds nothing.
    let again = preview(&api, &src);
    assert_eq!((again.memories, again.duplicates), (0, 200));
    // Undone as one.
    api.undo_group(group.id).unwrap();
    assert_eq!(
        files(&root(&api, "personal")),
        before,
        "undo takes the whole import back, byte for byte"
    );
}

#[test]
fn a_stale_preview_is_refused_and_every_format_imports() {
    let (d, api) = api();
    let src = write(d.path(), "m.json", mem0(3).to_string().as_bytes());
    let p = preview(&api, &src);
    write(d.path(), "m.json", mem0(4).to_string().as_bytes());
    let e = api.import_start(src, None, None, Some(p.plan)).unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict, "{}", e.message);

    // claude-mem: observations with title, narrative, facts.
    let cm = json!({"observations": [
        {"id": 1, "type": "decision", "title": "Use SQLite for the index", "subtitle": "not Postgres",
         "narrative": "We chose SQLite\nbecause it is embedded.", "facts": "[\"bundled\", \"WAL mode\"]",
         "project": "mnemo", "created_at_epoch": 1735689600000u64},
        {"id": 2, "type": "bugfix", "title": "Fixed the watcher race", "narrative": "debounce", "facts": [], "project": "mnemo"}]});
    let src = write(d.path(), "claude-mem.json", cm.to_string().as_bytes());
    let p = preview(&api, &src);
    assert_eq!(
        (p.format_label.as_str(), p.memories),
        ("claude-mem export", 2)
    );
    assert_eq!(run(&api, &src, None, None).status, TaskStatus::Completed);
    // Named from its project, described by what is inside, every field kept.
    let t = std::fs::read_to_string(root(&api, "personal").join("mnemo.md")).unwrap();
    assert!(
        t.contains("name: Mnemo\n")
            && t.contains("description: 2 observations about mnemo, imported from claude-mem on "),
        "{t}"
    );
    assert!(t.contains("type: project") && t.contains("Use SQLite for the index\nnot Postgres\nWe chose SQLite because it is embedded.\nFacts: bundled; WAL mode\nSource: claude-mem export 1, 2025-01-01 · decision · project: mnemo"), "{t}");

    // Plain JSON and JSONL of {text, type?, created?}.
    let src = write(d.path(), "plain.json", br#"[{"text": "Prefers dark roast coffee", "type": "feedback", "created": "2024-02-03"}, {"text": "Works at Acme"}]"#);
    assert_eq!(preview(&api, &src).memories, 2);
    let src = write(d.path(), "plain.jsonl", b"{\"text\": \"Has a cat named Miso\"}\n\n{\"text\": \"Runs on Sundays\", \"type\": \"habit\"}\n");
    let p = preview(&api, &src);
    assert_eq!((p.format_label.as_str(), p.memories), ("JSON memories", 2));
    assert!(
        p.reasons
            .iter()
            .any(|r| r.item == "line 3" && r.reason.contains("\"habit\" is not one of")),
        "{:?}",
        p.reasons
    );

    // A folder of notes: basic-memory / Obsidian frontmatter mapped, hidden folders left out,
    // a type chosen per folder.
    let vault = d.path().join("Obsidian Vault");
    write(
        &vault,
        "daily/2024-01-01.md",
        b"Walked 10 km along the river.\n",
    );
    write(&vault, "work/deploys.md", b"---\ntitle: Deploy policy\ntype: note\npermalink: deploy-policy\ntags: [ops]\n---\n# Deploys\n\nWe deploy on Fridays only after review.\n");
    write(&vault, ".obsidian/app.md", b"settings, not a note\n");
    let opts = ImportOptions {
        folder_types: vec![mnemo_api::reexports::FolderType {
            folder: "work".into(),
            memory_type: mnemo_core::MemoryType::Project,
        }],
        ..ImportOptions::default()
    };
    let src = vault.to_string_lossy().into_owned();
    // A folder named otherwise than on disk is refused, not ignored.
    let mut wrong = opts.clone();
    wrong.folder_types[0].folder = "Work".into();
    let e = api
        .import_preview(src.clone(), None, Some(wrong))
        .unwrap_err();
    assert_eq!(e.code, mnemo_core::ErrorCode::InvalidArguments);
    assert!(
        e.message.contains("`Work`") && e.message.contains("its folders: daily, work"),
        "{e}"
    );
    let p = api
        .import_preview(src.clone(), None, Some(opts.clone()))
        .unwrap();
    assert_eq!(
        (p.format_label.as_str(), p.items, p.memories),
        ("markdown notes", 2, 2)
    );
    assert_eq!(
        run(&api, &src, Some(opts), None).status,
        TaskStatus::Completed
    );
    let n = std::fs::read_to_string(root(&api, "personal").join("obsidian-vault/work/deploys.md"))
        .unwrap();
    assert!(
        n.contains("name: Deploy policy")
            && n.contains("type: project")
            && n.contains("permalink: deploy-policy")
            && n.contains("description: We deploy on Fridays only after review."),
        "{n}"
    );
    assert!(
        root(&api, "personal")
            .join("obsidian-vault/daily/2024-01-01.md")
            .exists()
    );
}

#[test]
fn bad_input_is_a_clear_error_or_a_skip_with_its_reason_and_nothing_is_half_imported() {
    let (d, api) = api();
    let before = files(&root(&api, "personal"));
    let cases: Vec<(&str, Vec<u8>, ErrorCode, &str)> = vec![
        (
            "truncated.json",
            br#"{"results": [{"id": "a", "memory": "Likes tea"}, {"id": "b", "mem"#.to_vec(),
            ErrorCode::InvalidContent,
            "truncated",
        ),
        (
            "latin1.json",
            b"[{\"text\": \"caf\xe9 au lait\"}]".to_vec(),
            ErrorCode::InvalidContent,
            "UTF-8",
        ),
        (
            "latin1.jsonl",
            b"{\"text\": \"ok\"}\n{\"text\": \"caf\xe9\"}\n".to_vec(),
            ErrorCode::InvalidContent,
            "line 2",
        ),
        (
            "torn.jsonl",
            b"{\"text\": \"ok line\"}\n{\"text\": \"cut".to_vec(),
            ErrorCode::InvalidContent,
            "line 2",
        ),
        (
            "unknown.json",
            br#"[{"foo": 1}]"#.to_vec(),
            ErrorCode::InvalidContent,
            "not a format Mnemo imports",
        ),
        ("empty.json", Vec::new(), ErrorCode::InvalidContent, "empty"),
        (
            "binary.zip",
            b"PK\x03\x04 not really a zip".to_vec(),
            ErrorCode::InvalidContent,
            "not a Mnemo export",
        ),
    ];
    for (name, bytes, code, words) in cases {
        let src = write(d.path(), name, &bytes);
        let e = api.import_preview(src.clone(), None, None).unwrap_err();
        assert_eq!(e.code, code, "{name}: {}", e.message);
        assert!(e.message.contains(words), "{name}: {}", e.message);
        let e = api.import_start(src, None, None, None).unwrap_err();
        assert_eq!(e.code, code, "{name}");
    }
    let e = api
        .import_preview("relative/path.json".into(), None, None)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Usage);
    let e = api
        .import_preview(
            d.path().join("missing.json").to_string_lossy().into_owned(),
            None,
            None,
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(
        api.tasks(None, Some(mnemo_core::TaskKind::Import), None, None)
            .unwrap()
            .is_empty(),
        "nothing was queued"
    );
    assert_eq!(files(&root(&api, "personal")), before, "nothing written");

    // Secrets, duplicate ids, dates in the future: skipped (or the date dropped), each with
    // its reason; the rest imports.
    let src = write(
        d.path(),
        "mixed.json",
        json!([
            {"id": "1", "memory": "Lives in Lisbon", "created_at": "2031-01-01T00:00:00Z"},
            {"id": "2", "memory": "token is ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
            {"id": "1", "memory": "Lives in Porto"},
            {"id": "3", "memory": ""}
        ])
        .to_string()
        .as_bytes(),
    );
    let p = preview(&api, &src);
    assert_eq!(
        (p.memories, p.secrets, p.duplicates, p.skipped),
        (1, 1, 1, 1)
    );
    let reasons: Vec<String> = p
        .reasons
        .iter()
        .map(|r| format!("{}: {}", r.item, r.reason))
        .collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with("item 1: its date 2031-01-01 is in the future")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with("item 2: it holds a secret (github_token")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with("item 3: its id 1 appears twice")),
        "{reasons:?}"
    );
    assert!(
        !reasons.iter().any(|r| r.contains("ghp_")),
        "a reason never quotes the secret"
    );
    assert_eq!(run(&api, &src, None, None).status, TaskStatus::Completed);
    let all: String = files(&root(&api, "personal"))
        .values()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect();
    assert!(
        all.contains("Lives in Lisbon\nSource: mem0 export 1\n")
            && !all.contains("ghp_")
            && !all.contains("Porto")
    );

    // Conversations need a model: a clear message, nothing queued.
    let src = write(d.path(), "conversations.json", br#"[{"uuid": "c1", "name": "Hi", "chat_messages": [{"sender": "human", "text": "I live in Lisbon"}]}]"#);
    let p = preview(&api, &src);
    let est = p.conversations.unwrap();
    assert!(!est.model_ready && est.conversations == 1 && est.model_calls == 2 && est.tokens > 0);
    let e = api.import_start(src, None, None, None).unwrap_err();
    assert_eq!(e.code, ErrorCode::ModelNotConfigured);
    assert!(e.message.contains("nothing was queued"), "{}", e.message);
    assert!(
        api.tasks(
            None,
            Some(mnemo_core::TaskKind::Import),
            Some(TaskStatus::Queued),
            None
        )
        .unwrap()
        .is_empty()
    );
}

#[test]
fn an_export_imported_into_a_fresh_home_is_byte_exact() {
    let (d, api) = api();
    let r = root(&api, "personal");
    write(&r, "style.md", "---\nname: Style\ndescription: How to answer\ntype: feedback\npinned: true\n---\n- Answer tersely\nWhy: the user said so\n\n- 用中文回答技术问题\n".as_bytes());
    write(&r, "old.md", b"---\nname: Old\ndescription: An archived memory\ntype: project\narchived: true\n---\nShipped v1 in 2023\n");
    write(&r, "people/team.md", b"\xEF\xBB\xBF---\r\nname: Team\r\ndescription: Who is on the team\r\ntype: user\r\n---\r\nAna leads design\r\n");
    api.index(None).unwrap();
    write(
        &r,
        "logs/2025/01/2025-01-02.md",
        b"# 2025-01-02\n\nTalked about the roadmap.\n",
    );
    let src = write(d.path(), "m.json", mem0(5).to_string().as_bytes());
    run(&api, &src, None, None);
    let before = files(&r);
    assert!(before.contains_key("MEMORY.md") && before.keys().any(|k| k.starts_with("logs/")));

    let zip = d.path().join("out/export.zip");
    std::fs::create_dir_all(zip.parent().unwrap()).unwrap();
    let out = api
        .export_memories(Some("personal".into()), zip.to_string_lossy().into_owned())
        .unwrap();
    assert_eq!(out.files as usize, before.len());
    // Never overwrites; a relative or non-zip destination is refused.
    assert_eq!(
        api.export_memories(None, zip.to_string_lossy().into_owned())
            .unwrap_err()
            .code,
        ErrorCode::Conflict
    );
    assert_eq!(
        api.export_memories(None, "x.zip".into()).unwrap_err().code,
        ErrorCode::Usage
    );
    assert_eq!(
        api.export_memories(None, d.path().join("x.tar").to_string_lossy().into_owned())
            .unwrap_err()
            .code,
        ErrorCode::Usage
    );
    // The manifest: one line per file, with its fields.
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&zip).unwrap()).unwrap();
    let mut manifest = String::new();
    std::io::Read::read_to_string(
        &mut archive.by_name("manifest.jsonl").unwrap(),
        &mut manifest,
    )
    .unwrap();
    let lines: Vec<Value> = manifest
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), before.len());
    let style = lines.iter().find(|l| l["path"] == "style.md").unwrap();
    assert_eq!(
        (
            style["type"].as_str(),
            style["name"].as_str(),
            style["pinned"].as_bool()
        ),
        (Some("feedback"), Some("Style"), Some(true))
    );
    assert!(style["modified"].is_string() && style["description"] == "How to answer");
    assert_eq!(
        lines.iter().find(|l| l["path"] == "old.md").unwrap()["archived"],
        true
    );

    let (_d2, fresh) = common::api();
    let p = fresh
        .import_preview(zip.to_string_lossy().into_owned(), None, None)
        .unwrap();
    assert_eq!(p.format_label, "Mnemo export");
    let t = fresh
        .import_start(zip.to_string_lossy().into_owned(), None, None, Some(p.plan))
        .unwrap();
    let t = fresh.wait_task(&t.id, Duration::from_secs(60)).unwrap();
    assert_eq!(t.status, TaskStatus::Completed, "{t:?}");
    assert_eq!(
        files(&root(&fresh, "personal")),
        before,
        "every file, MEMORY.md and logs included, byte for byte"
    );
    // Again: all already there.
    let again = fresh
        .import_preview(zip.to_string_lossy().into_owned(), None, None)
        .unwrap();
    assert_eq!(
        (again.files, again.duplicates as usize),
        (0, before.len() - 1)
    );
    // The whole home, restored into a fresh home with `--all-workspaces`: every one of
    // Mnemo's own workspaces back into its own, a missing one created.
    let team = api.home_dir().join("workspaces/team-x/memory");
    std::fs::create_dir_all(&team).unwrap();
    let team_text =
        b"---\nname: Standup\ndescription: when\ntype: project\n---\nStandup at 9:30.\n";
    write(&team, "standup.md", team_text);
    api.index(None).unwrap();
    let home_zip = d.path().join("home.zip");
    let all = api
        .export_memories(None, home_zip.to_string_lossy().into_owned())
        .unwrap();
    assert_eq!(
        all.workspaces,
        vec!["personal".to_owned(), "team-x".to_owned()]
    );
    let (_d3, restored) = common::api();
    let src = home_zip.to_string_lossy().into_owned();
    let opts = mnemo_api::reexports::ImportOptions {
        all_workspaces: true,
        ..Default::default()
    };
    let p = restored
        .import_preview(src.clone(), None, Some(opts.clone()))
        .unwrap();
    assert_eq!(p.workspace, "personal, team-x", "the header names both");
    let team_choice = p.restore.iter().find(|c| c.workspace == "team-x").unwrap();
    assert!(team_choice.chosen && !team_choice.exists && !team_choice.other_tool);
    let t = restored
        .import_start(src, None, Some(opts), Some(p.plan))
        .unwrap();
    let t = restored.wait_task(&t.id, Duration::from_secs(60)).unwrap();
    assert_eq!(t.status, TaskStatus::Completed, "{t:?}");
    assert_eq!(files(&root(&restored, "personal")), before);
    assert_eq!(
        std::fs::read(root(&restored, "team-x").join("standup.md")).unwrap(),
        team_text
    );
}

#[test]
fn memories_move_between_workspaces_with_their_bytes_and_undo_on_each_side() {
    let (d, api) = api();
    let team = d.path().join("team-notes");
    std::fs::create_dir_all(&team).unwrap();
    let ws = api
        .add_folder(team.to_string_lossy().into_owned())
        .unwrap()
        .workspace
        .id;
    let r = root(&api, "personal");
    let text = b"---\nname: Coffee\ndescription: What the user drinks\ntype: user\n---\nDrinks flat whites\n";
    write(&r, "coffee.md", text);
    api.index(None).unwrap();
    let c = api
        .copy_memory("personal".into(), "coffee.md".into(), ws.clone(), None)
        .unwrap();
    assert_eq!(std::fs::read(team.join("coffee.md")).unwrap(), text);
    assert!(r.join("coffee.md").exists(), "a copy keeps the original");
    let g = api.change_group(c.group.unwrap()).unwrap();
    assert_eq!(
        (g.kind.as_str(), g.label.as_str()),
        ("copy", "copied from personal/coffee.md")
    );
    // Moving it again: the same bytes are there already, so only the original goes.
    let m = api
        .copy_memory(
            "personal".into(),
            "coffee.md".into(),
            ws.clone(),
            Some(true),
        )
        .unwrap();
    assert!(m.group.is_none() && m.removed_group.is_some());
    assert!(!r.join("coffee.md").exists());
    api.undo_group(m.removed_group.unwrap()).unwrap();
    assert_eq!(
        std::fs::read(r.join("coffee.md")).unwrap(),
        text,
        "the move undoes: history kept"
    );
    // A different file at the same path: the memory takes the next free name.
    write(&r, "coffee.md", b"---\nname: Coffee\ndescription: What the user drinks\ntype: user\n---\nDrinks espresso now\n");
    api.index(None).unwrap();
    let m = api
        .copy_memory(
            "personal".into(),
            "coffee.md".into(),
            ws.clone(),
            Some(true),
        )
        .unwrap();
    assert_eq!(m.path, "coffee-2.md");
    // Refusals.
    assert_eq!(
        api.copy_memory("personal".into(), "nope.md".into(), ws.clone(), None)
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );
    assert_eq!(
        api.copy_memory(ws.clone(), "coffee.md".into(), ws.clone(), None)
            .unwrap_err()
            .code,
        ErrorCode::Usage
    );
    assert_eq!(
        api.copy_memory("personal".into(), "../x.md".into(), ws, None)
            .unwrap_err()
            .code,
        ErrorCode::PathEscape
    );
}

#[test]
fn tampered_exports_other_zips_and_secrets_in_ids_are_refused_with_reasons() {
    let (d, api) = api();
    // A Mnemo export whose manifest names paths no memory can have, or one path twice.
    let good = b"---\nname: Ok\ndescription: fine\ntype: user\n---\nA fine memory\n".as_slice();
    let h = mnemo_store::fsutil::hash;
    let line = |path: &str, zp: &str, b: &[u8]| {
        json!({"workspace": "personal", "path": path, "zip_path": zp, "kind": "topic", "hash": h(b), "bytes": b.len()}).to_string()
    };
    let manifest = [
        line("ok.md", "p/ok.md", good),
        line("../escape.md", "p/ok.md", good),
        line("notes.txt", "p/ok.md", good),
        line("ok.md", "p/ok.md", good),
    ]
    .join("\n");
    let src = zip_of(
        &d.path().join("tampered.zip"),
        &[("p/ok.md", good), ("manifest.jsonl", manifest.as_bytes())],
    );
    let p = preview(&api, &src);
    assert_eq!(
        (p.files, p.skipped, p.duplicates),
        (1, 2, 1),
        "{:?}",
        p.reasons
    );
    assert_eq!(
        run(&api, &src, None, Some(p.plan)).status,
        TaskStatus::Completed
    );
    assert!(root(&api, "personal").join("ok.md").exists());
    assert!(
        !root(&api, "personal")
            .parent()
            .unwrap()
            .join("escape.md")
            .exists()
    );
    // A ChatGPT data export still zipped: said what to do.
    let src = zip_of(
        &d.path().join("chatgpt.zip"),
        &[("conversations.json", b"[]")],
    );
    let e = api.import_preview(src, None, None).unwrap_err();
    assert!(
        e.message
            .contains("unzip it and import its conversations.json"),
        "{}",
        e.message
    );
    // A secret in an id would reach the `Source:` line: refused, never quoted.
    let src = write(
        d.path(),
        "ids.json",
        json!([{"id": "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "memory": "Likes mint tea"}])
            .to_string()
            .as_bytes(),
    );
    let p = preview(&api, &src);
    assert_eq!((p.memories, p.secrets), (0, 1));
    assert!(!serde_json::to_string(&p).unwrap().contains("ghp_"));
    // A Claude Code session file opening with a summary line is still a transcript.
    let src = write(
        d.path(),
        "session.jsonl",
        b"{\"type\":\"summary\",\"summary\":\"Setup\",\"leafUuid\":\"x\"}\n{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"We use pnpm\"}}\n",
    );
    assert_eq!(
        preview(&api, &src).format,
        Some(mnemo_api::reexports::ImportFormat::Transcripts)
    );
    // Two workspaces that are one folder on disk: a move between them is refused (it would
    // delete the only copy).
    write(
        &root(&api, "personal"),
        "tea.md",
        b"---\nname: Tea\ndescription: d\ntype: user\n---\nTea\n",
    );
    api.index(None).unwrap();
    if let Ok(w) = api.add_folder(root(&api, "personal").to_string_lossy().into_owned()) {
        let e = api
            .copy_memory(
                "personal".into(),
                "tea.md".into(),
                w.workspace.id,
                Some(true),
            )
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::Usage, "{}", e.message);
        assert!(root(&api, "personal").join("tea.md").exists());
    }
}

/// One hard link anywhere used to make the whole-home export fail. It is left out and named;
/// everything else is exported.
#[test]
fn a_hard_link_is_left_out_of_an_export_and_named_the_rest_exported() {
    let (d, api) = api();
    let r = root(&api, "personal");
    write(
        &r,
        "a.md",
        b"---\nname: A\ndescription: a\ntype: user\n---\nOne.\n",
    );
    write(
        &r,
        "b.md",
        b"---\nname: B\ndescription: b\ntype: user\n---\nTwo.\n",
    );
    let outside = d.path().join("outside.md");
    std::fs::write(
        &outside,
        b"---\nname: X\ndescription: x\ntype: user\n---\nNot the home's.\n",
    )
    .unwrap();
    std::fs::hard_link(&outside, r.join("linked.md")).unwrap();
    let zip = d.path().join("all.zip");
    let out = api
        .export_memories(None, zip.to_string_lossy().into_owned())
        .unwrap();
    assert_eq!(out.left_out.len(), 1, "{out:?}");
    assert!(
        out.left_out[0].starts_with("personal/linked.md: a hard link"),
        "{out:?}"
    );
    let archive = zip::ZipArchive::new(std::fs::File::open(&zip).unwrap()).unwrap();
    let names: Vec<String> = archive
        .file_names()
        .map(|n| n.unwrap().into_owned())
        .collect();
    assert!(names.iter().any(|n| n.ends_with("/a.md")), "{names:?}");
    assert!(names.iter().any(|n| n.ends_with("/b.md")), "{names:?}");
    assert!(!names.iter().any(|n| n.ends_with("linked.md")), "{names:?}");
}
