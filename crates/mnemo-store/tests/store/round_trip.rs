use mnemo_core::{ChangeSource, ErrorCode, MemoryType};
use mnemo_store::{NewMemory, Patch, memory_md};

use crate::{Fixture, topic};

fn new(name: &str, ty: MemoryType, body: &str) -> NewMemory {
    NewMemory {
        path: None,
        name: name.into(),
        description: format!("{name} description"),
        memory_type: ty,
        body: body.into(),
    }
}

#[test]
fn create_update_delete_undo_restore_exact_bytes() {
    let f = Fixture::new();
    let v = &f.vault;
    let created = v
        .create(
            "personal",
            &new("Response style", MemoryType::Feedback, "Keep it short."),
            ChangeSource::User,
        )
        .unwrap();
    assert_eq!(created.path, "response-style.md");
    let p = f.personal().join("response-style.md");
    let v1 = std::fs::read(&p).unwrap();

    let patch = Patch {
        body: Some("Keep it shorter.\nWhy: diffs.".into()),
        ..Patch::default()
    };
    let edited = v
        .update("personal", "response-style.md", &patch, ChangeSource::User)
        .unwrap();
    let v2 = std::fs::read(&p).unwrap();
    assert_ne!(v1, v2);

    let deleted = v
        .delete("personal", "response-style.md", ChangeSource::User)
        .unwrap();
    assert!(!p.exists());

    v.undo(deleted.change_id.unwrap(), ChangeSource::User)
        .unwrap();
    assert_eq!(
        std::fs::read(&p).unwrap(),
        v2,
        "undo of delete restores the exact bytes"
    );
    v.undo(edited.change_id.unwrap(), ChangeSource::User)
        .unwrap();
    assert_eq!(
        std::fs::read(&p).unwrap(),
        v1,
        "undo of edit restores the exact bytes"
    );
    v.undo(created.change_id.unwrap(), ChangeSource::User)
        .unwrap();
    assert!(!p.exists(), "undo of create removes the file");

    let h = v
        .history(Some("personal"), Some("response-style.md"), 100)
        .unwrap();
    let ops: Vec<&str> = h.iter().rev().map(|c| c.op.as_str()).collect();
    assert_eq!(
        ops,
        ["create", "modify", "delete", "create", "modify", "delete"]
    );
    assert_eq!(h.iter().filter(|c| c.undoes.is_some()).count(), 3);
}

#[test]
fn undo_refuses_when_the_file_changed_since() {
    let f = Fixture::new();
    let c = f
        .vault
        .create(
            "personal",
            &new("A", MemoryType::User, "x"),
            ChangeSource::User,
        )
        .unwrap();
    f.write("a.md", topic("A", "changed outside", "user", "y"));
    let err = f
        .vault
        .undo(c.change_id.unwrap(), ChangeSource::User)
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert!(f.personal().join("a.md").exists(), "nothing lost");
}

#[test]
fn update_touches_only_the_changed_frontmatter_line() {
    let f = Fixture::new();
    let original =
        "---\nname: A\n# a comment\ndescription: old\ntype: user\nextra: kept\n---\nbody\n";
    f.write("a.md", original);
    let patch = Patch {
        description: Some("new".into()),
        ..Patch::default()
    };
    f.vault
        .update("personal", "a.md", &patch, ChangeSource::User)
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(f.personal().join("a.md")).unwrap(),
        original.replace("description: old", "description: new")
    );
}

#[test]
fn update_validates_and_refuses_bad_changes() {
    let f = Fixture::new();
    f.vault
        .create(
            "personal",
            &new("A", MemoryType::User, "x"),
            ChangeSource::User,
        )
        .unwrap();
    let before = std::fs::read(f.personal().join("a.md")).unwrap();
    // A type outside the closed set cannot be a `Patch` at all: it is refused where it is read.
    assert_eq!(
        "note".parse::<MemoryType>().unwrap_err().code,
        ErrorCode::InvalidType
    );
    let empty_name = Patch {
        name: Some("  ".into()),
        ..Patch::default()
    };
    assert_eq!(
        f.vault
            .update("personal", "a.md", &empty_name, ChangeSource::User)
            .unwrap_err()
            .code,
        ErrorCode::InvalidFrontmatter
    );
    let stale = Patch {
        body: Some("z".into()),
        expected_hash: Some("0".repeat(64)),
        ..Patch::default()
    };
    assert_eq!(
        f.vault
            .update("personal", "a.md", &stale, ChangeSource::User)
            .unwrap_err()
            .code,
        ErrorCode::Conflict
    );
    assert_eq!(std::fs::read(f.personal().join("a.md")).unwrap(), before);
    let missing = Patch {
        body: Some("z".into()),
        ..Patch::default()
    };
    assert_eq!(
        f.vault
            .update("personal", "nope.md", &missing, ChangeSource::User)
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );
    assert_eq!(
        f.vault
            .create(
                "personal",
                &new("A", MemoryType::User, "again"),
                ChangeSource::User
            )
            .unwrap_err()
            .code,
        ErrorCode::Conflict
    );
}

#[test]
fn memory_md_tracks_every_change_and_stays_within_caps() {
    let f = Fixture::new();
    for i in 0..260 {
        let mut m = new(&format!("Topic {i:03}"), MemoryType::Project, "body");
        m.description = "d".repeat(200);
        f.vault.create("personal", &m, ChangeSource::User).unwrap();
    }
    let text = std::fs::read_to_string(f.personal().join(memory_md::FILE_NAME)).unwrap();
    assert!(text.lines().count() <= memory_md::MAX_LINES);
    assert!(text.len() <= memory_md::MAX_BYTES);
    assert!(
        text.lines()
            .all(|l| l.chars().count() <= memory_md::MAX_LINE_CHARS)
    );
    assert!(text.lines().last().unwrap().contains("WARNING"));
    f.vault
        .delete("personal", "topic-000.md", ChangeSource::User)
        .unwrap();
    let after = std::fs::read_to_string(f.personal().join(memory_md::FILE_NAME)).unwrap();
    assert!(!after.contains("topic-000.md"));
    assert!(after.starts_with("- [Topic 001](topic-001.md)"));
    // MEMORY.md is not a memory.
    assert!(
        f.vault
            .list(Some("personal"), None)
            .unwrap()
            .iter()
            .all(|d| d.path != "MEMORY.md")
    );
}

#[test]
fn search_finds_cjk_and_fullwidth_text() {
    let f = Fixture::new();
    f.write(
        "zh.md",
        topic(
            "回复风格",
            "保持回复简洁，不要尾部总结",
            "feedback",
            "用户阅读代码差异。",
        ),
    );
    f.write(
        "ja.md",
        topic(
            "東京オフィス",
            "東京のオフィスで働いている",
            "user",
            "毎朝コーヒーを飲みます。",
        ),
    );
    f.write(
        "ko.md",
        topic(
            "커피 취향",
            "사용자는 아메리카노를 좋아한다",
            "user",
            "커피를 매일 마신다.",
        ),
    );
    f.write(
        "en.md",
        topic(
            "Qwen Code",
            "Uses qwen for coding",
            "reference",
            "See the qwen docs.",
        ),
    );
    let top = |q: &str| {
        f.vault
            .search(Some("personal"), q, 5)
            .unwrap()
            .first()
            .map(|h| h.path.clone())
    };
    assert_eq!(top("简洁").as_deref(), Some("zh.md"));
    assert_eq!(top("尾部总结").as_deref(), Some("zh.md"));
    assert_eq!(top("オフィス").as_deref(), Some("ja.md"));
    assert_eq!(top("コーヒー").as_deref(), Some("ja.md"));
    assert_eq!(top("아메리카노").as_deref(), Some("ko.md"));
    assert_eq!(top("ＱＷＥＮ").as_deref(), Some("en.md"));
    assert_eq!(top("QWEN").as_deref(), Some("en.md"));
    assert!(
        f.vault
            .search(Some("personal"), "nothing-like-this", 5)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn search_ranks_name_and_description_above_body() {
    let f = Fixture::new();
    f.write(
        "body.md",
        topic(
            "Other",
            "unrelated",
            "user",
            "deploy deploy mention in the body",
        ),
    );
    f.write(
        "name.md",
        topic(
            "Deploy checklist",
            "steps before a release",
            "project",
            "text",
        ),
    );
    let hits = f.vault.search(Some("personal"), "deploy", 5).unwrap();
    assert_eq!(hits[0].path, "name.md");
    assert!(hits[0].score > hits[1].score);
}

#[test]
fn daily_logs_are_searchable_but_not_listed_or_indexed_in_memory_md() {
    let f = Fixture::new();
    f.write(
        "logs/2026/11/2026-11-20.md",
        "Discussed the zanzibar rollout.\n",
    );
    f.write("a.md", topic("A", "a", "user", "x"));
    f.vault.sync_all().unwrap();
    let hits = f.vault.search(Some("personal"), "zanzibar", 5).unwrap();
    assert_eq!(hits[0].path, "logs/2026/11/2026-11-20.md");
    assert!(
        f.vault
            .list(None, None)
            .unwrap()
            .iter()
            .all(|d| !d.path.starts_with("logs/"))
    );
    f.vault
        .write_memory_md(&f.vault.workspace("personal").unwrap(), ChangeSource::User)
        .unwrap();
    let md = std::fs::read_to_string(f.personal().join("MEMORY.md")).unwrap();
    assert!(!md.contains("logs/"));
}

#[test]
fn discovered_workspaces_list_their_memories_with_types() {
    let f = Fixture::new();
    let claude = f.dir.path().join("claude/projects/-home-me-app/memory");
    let qwen = f.dir.path().join("qwen/projects/-home-me-svc/memory");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::create_dir_all(&qwen).unwrap();
    std::fs::write(
        claude.join("role.md"),
        topic("Role", "Go engineer", "user", "x"),
    )
    .unwrap();
    std::fs::write(
        qwen.join("board.md"),
        topic("Board", "Grafana", "reference", "y"),
    )
    .unwrap();
    let ids: Vec<String> = f
        .vault
        .workspaces()
        .unwrap()
        .into_iter()
        .map(|w| w.id)
        .collect();
    assert_eq!(
        ids,
        ["personal", "claude:-home-me-app", "qwen:-home-me-svc"]
    );
    let list = f.vault.list(None, None).unwrap();
    let got: Vec<(String, Option<MemoryType>)> = list
        .iter()
        .map(|d| (d.workspace.clone(), d.memory_type))
        .collect();
    assert_eq!(
        got,
        [
            ("claude:-home-me-app".to_owned(), Some(MemoryType::User)),
            ("qwen:-home-me-svc".to_owned(), Some(MemoryType::Reference))
        ]
    );
    // Qwen Code's lock lives in its own state dir; Mnemo's bookkeeping does not touch it.
    let q = f.vault.workspace("qwen:-home-me-svc").unwrap();
    assert_eq!(q.lock_dir, qwen.parent().unwrap());
    assert!(q.state_dir.starts_with(f.dir.path().join("home")));
}

#[test]
fn user_folders_and_project_bound_workspaces() {
    let f = Fixture::new();
    let folder = f.dir.path().join("notes");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("n.md"), topic("N", "note", "project", "x")).unwrap();
    let ws = f.vault.home().add_folder(&folder).unwrap();
    assert!(ws.id.starts_with("folder:"));
    assert_eq!(f.vault.list(Some(&ws.id), None).unwrap().len(), 1);

    // A git repository and a linked worktree share one workspace.
    let repo = f.dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let git = |args: &[&str], dir: &std::path::Path| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            ok.status.success(),
            "{}",
            String::from_utf8_lossy(&ok.stderr)
        );
    };
    git(&["init", "-q"], &repo);
    git(
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "i",
        ],
        &repo,
    );
    let wt = f.dir.path().join("wt");
    git(&["worktree", "add", "-q", wt.to_str().unwrap()], &repo);
    std::fs::create_dir_all(repo.join("src/deep")).unwrap();
    let a = f.vault.home().bind_project(&repo.join("src/deep")).unwrap();
    let b = f.vault.home().bind_project(&wt).unwrap();
    assert_eq!(a.id, b.id);
    assert_eq!(
        a.id,
        mnemo_store::workspace::project_key(&std::fs::canonicalize(&repo).unwrap())
    );
    assert!(f.vault.workspaces().unwrap().iter().any(|w| w.id == a.id));
    assert_eq!(
        f.vault.home().bind_project(f.dir.path()).unwrap_err().code,
        ErrorCode::NotFound
    );
}

#[test]
fn a_foreign_memory_md_is_journaled_before_it_is_regenerated() {
    let f = Fixture::new();
    let claude = f.dir.path().join("claude/projects/-p/memory");
    std::fs::create_dir_all(&claude).unwrap();
    let notes = "# My own notes\n- [Role](role.md) — hand-written hook\n";
    std::fs::write(claude.join("MEMORY.md"), notes).unwrap();
    std::fs::write(
        claude.join("role.md"),
        topic("Role", "Go engineer", "user", "x"),
    )
    .unwrap();
    f.vault
        .create(
            "claude:-p",
            &new("Style", MemoryType::Feedback, "terse"),
            ChangeSource::User,
        )
        .unwrap();
    let regenerated = std::fs::read_to_string(claude.join("MEMORY.md")).unwrap();
    // The tool's own lines stay; only Mnemo's block is added.
    assert!(regenerated.starts_with(notes), "{regenerated}");
    assert!(regenerated.contains("style.md"));
    let h = f
        .vault
        .history(Some("claude:-p"), Some("MEMORY.md"), 5)
        .unwrap();
    assert_eq!(h.len(), 1);
    f.vault.undo(h[0].id, ChangeSource::User).unwrap();
    assert_eq!(
        std::fs::read_to_string(claude.join("MEMORY.md")).unwrap(),
        notes
    );
}

#[test]
fn on_a_large_index_terms_in_most_documents_do_not_widen_a_query() {
    let f = Fixture::new();
    for i in 0..2_100 {
        let body = if i % 700 == 0 {
            "common words and a rare zeppelin"
        } else {
            "common words only"
        };
        f.write(
            &format!("bulk/{i:05}.md"),
            topic(&format!("Note {i}"), "common", "project", body),
        );
    }
    f.vault.sync_all().unwrap();
    let hits = f
        .vault
        .search(Some("personal"), "common zeppelin", 50)
        .unwrap();
    assert_eq!(hits.len(), 3, "only the documents with the selective term");
    // Alone, a common term still finds everything it matches.
    assert_eq!(
        f.vault
            .search(Some("personal"), "common", 50)
            .unwrap()
            .len(),
        50
    );
}

/// A group that changed one file twice and deleted another undoes to the bytes from before its
/// first change of each; a group that changed nothing has nothing to undo.
#[test]
fn a_group_undoes_to_the_state_before_its_first_change() {
    use mnemo_store::journal::Origin;
    let f = Fixture::new();
    let a = f.write("a.md", topic("A", "first", "user", "one"));
    let b = f.write("b.md", topic("B", "kept", "user", "two"));
    f.vault
        .sync(&f.vault.workspace("personal").unwrap())
        .unwrap();
    let (a0, b0) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let ws = f.vault.workspace("personal").unwrap();
    let group = f
        .vault
        .begin_group("personal", "dream", None, "test")
        .unwrap();
    let origin = Origin {
        source: ChangeSource::Dream,
        group: Some(group),
    };
    for body in ["second", "third"] {
        let text = topic("A", body, "user", body);
        f.vault
            .mutate(&ws, "a.md", origin, None, |_, _| {
                Ok(Some(text.into_bytes()))
            })
            .unwrap();
    }
    f.vault
        .mutate(&ws, "b.md", origin, None, |_, _| Ok(None))
        .unwrap();
    let info = f.vault.group(group).unwrap();
    assert_eq!(info.changes.len(), 3);
    let undone = f.vault.undo_group(group, ChangeSource::User).unwrap();
    assert_eq!(undone.paths, ["a.md", "b.md"]);
    assert_eq!(std::fs::read(&a).unwrap(), a0);
    assert_eq!(std::fs::read(&b).unwrap(), b0);
    let empty = f
        .vault
        .begin_group("personal", "dream", None, "nothing")
        .unwrap();
    assert_eq!(
        f.vault
            .undo_group(empty, ChangeSource::User)
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );
}

#[test]
fn daily_logs_are_appended_listed_and_edited_as_plain_text() {
    let f = Fixture::new();
    let ws = f.vault.workspace("personal").unwrap();
    let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
    f.vault
        .append_log(&ws, day, "## 09:00 — first\n\nTea.", ChangeSource::Chat)
        .unwrap();
    f.vault
        .append_log(&ws, day, "## 10:00 — second\n\nCoffee.", ChangeSource::Chat)
        .unwrap();
    let path = "logs/2026/11/2026-11-23.md";
    let text = std::fs::read_to_string(f.personal().join(path)).unwrap();
    assert_eq!(
        text,
        "# 2026-11-23\n\n## 09:00 — first\n\nTea.\n\n## 10:00 — second\n\nCoffee.\n"
    );
    let logs = f.vault.logs("personal").unwrap();
    assert_eq!(logs.len(), 1);
    assert_eq!(logs[0].path, path);
    assert!(
        f.vault.list(Some("personal"), None).unwrap().is_empty(),
        "not a topic"
    );
    let history = f.vault.history(Some("personal"), Some(path), 10).unwrap();
    assert_eq!(history.len(), 2, "each append journaled");
    // Edited like any memory, as plain text; a log has no frontmatter to patch.
    let patch = Patch {
        body: Some("# 2026-11-23\n\nRewritten.\n".into()),
        ..Patch::default()
    };
    f.vault
        .update("personal", path, &patch, ChangeSource::User)
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(f.personal().join(path)).unwrap(),
        "# 2026-11-23\n\nRewritten.\n"
    );
    let named = Patch {
        name: Some("x".into()),
        ..Patch::default()
    };
    let e = f
        .vault
        .update("personal", path, &named, ChangeSource::User)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Usage);
    let untouched = Patch::default();
    f.vault
        .update("personal", path, &untouched, ChangeSource::User)
        .unwrap();
    assert!(
        f.personal().join(path).exists(),
        "an empty patch keeps the log"
    );
}

/// Undone is a state the journal records. A change undone says by which change; undoing
/// it again is refused in words; undoing the undo (a redo) puts it back in effect. The same for a
/// group.
#[test]
fn undone_is_recorded_and_a_redo_puts_a_change_back() {
    let f = Fixture::new();
    let v = &f.vault;
    let created = v
        .create(
            "personal",
            &new("Pet", MemoryType::User, "A cat named Miso."),
            ChangeSource::User,
        )
        .unwrap();
    let id = created.change_id.unwrap();
    let p = f.personal().join("pet.md");
    let undo = v.undo(id, ChangeSource::User).unwrap().change_id.unwrap();
    assert!(!p.exists());
    assert_eq!(v.change(id).unwrap().summary.undone_by, Some(undo));
    let h = v.history(Some("personal"), Some("pet.md"), 10).unwrap();
    assert_eq!(h[1].undone_by, Some(undo), "history says so too");
    assert_eq!(h[0].undone_by, None);
    let e = v.undo(id, ChangeSource::User).unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    assert!(
        e.message
            .contains(&format!("already undone (by change {undo})")),
        "{}",
        e.message
    );
    // Redo: undo the undo.
    let redo = v.undo(undo, ChangeSource::User).unwrap().change_id.unwrap();
    assert!(p.exists());
    assert_eq!(
        v.change(id).unwrap().summary.undone_by,
        None,
        "in effect again"
    );
    assert_eq!(v.change(undo).unwrap().summary.undone_by, Some(redo));

    // A group.
    use mnemo_store::journal::Origin;
    let ws = v.workspace("personal").unwrap();
    let group = v.begin_group("personal", "dream", None, "test").unwrap();
    let origin = Origin {
        source: ChangeSource::Dream,
        group: Some(group),
    };
    v.mutate(&ws, "pet.md", origin, None, |_, _| Ok(None))
        .unwrap();
    assert_eq!(v.group_undone_by(group).unwrap(), None);
    v.undo_group(group, ChangeSource::User).unwrap();
    let by = v.group(group).unwrap().undone_by.unwrap();
    assert_eq!(v.group_undone_by(group).unwrap(), Some(by));
    assert!(p.exists());
    let e = v.undo_group(group, ChangeSource::User).unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    v.undo_group(by, ChangeSource::User).unwrap();
    assert!(!p.exists(), "the group's change is back in effect");
    assert_eq!(v.group_undone_by(group).unwrap(), None);
}

/// The list knows which memories are pinned. An index written before it knew (schema
/// 8) learns it from the files at the next sync, without a rebuild.
#[test]
fn the_list_says_what_is_pinned_even_for_an_index_from_before() {
    let f = Fixture::new();
    std::fs::write(
        f.personal().join("a.md"),
        topic("A", "a", "user", "Tea.").replace("type: user", "type: user\npinned: true"),
    )
    .unwrap();
    std::fs::create_dir_all(f.personal().join("pinned")).unwrap();
    std::fs::write(
        f.personal().join("pinned/b.md"),
        topic("B", "b", "user", "Milk."),
    )
    .unwrap();
    std::fs::write(f.personal().join("c.md"), topic("C", "c", "user", "Sugar.")).unwrap();
    let pinned = |v: &mnemo_store::Vault| -> Vec<String> {
        let ws = v.workspace("personal").unwrap();
        v.sync(&ws).unwrap();
        let mut p: Vec<String> = v
            .list_indexed(Some("personal"), None)
            .unwrap()
            .into_iter()
            .filter(|d| d.pinned)
            .map(|d| d.path)
            .collect();
        p.sort();
        p
    };
    assert_eq!(pinned(&f.vault), ["a.md", "pinned/b.md"]);
    // Back to schema 8: no pinned column.
    let db = f.dir.path().join("home/index.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "DROP INDEX IF EXISTS docs_listed; ALTER TABLE docs DROP COLUMN body_line; ALTER TABLE docs DROP COLUMN pinned;
         DROP INDEX docs_archived; ALTER TABLE docs DROP COLUMN archived; PRAGMA user_version = 8;",
    )
    .unwrap();
    drop(conn);
    let v = f.reopen();
    assert_eq!(pinned(&v), ["a.md", "pinned/b.md"]);
}

#[test]
fn an_index_from_before_stems_learns_them_at_the_next_sync() {
    let f = Fixture::new();
    std::fs::write(
        f.personal().join("a.md"),
        topic("Mood", "a mood", "user", "The user is happy at work."),
    )
    .unwrap();
    // "happiness" is searched by its stem "happi", which only the stems make findable ("happi*"
    // does not match "happy").
    let find = |v: &mnemo_store::Vault| v.search(Some("personal"), "happiness", 10).unwrap().len();
    let found = |v: &mnemo_store::Vault| -> usize {
        let ws = v.workspace("personal").unwrap();
        v.sync(&ws).unwrap();
        find(v)
    };
    assert_eq!(found(&f.vault), 1);
    // Back to schema 9: the full-text rows hold the words alone, as before stems.
    let db = f.dir.path().join("home/index.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "DROP INDEX IF EXISTS docs_listed; DELETE FROM docs_fts;
         INSERT INTO docs_fts (rowid, name, description, body)
           SELECT id, 'mood a', 'a mood', 'the user is happy at work' FROM docs;
         DROP INDEX docs_archived; ALTER TABLE docs DROP COLUMN archived;
         ALTER TABLE docs DROP COLUMN body_line; PRAGMA user_version = 9;",
    )
    .unwrap();
    drop(conn);
    let v = f.reopen();
    // (Opening syncs: without the migration this stays 0 — schema 10 here finds nothing.)
    assert_eq!(
        found(&v),
        1,
        "every file is read again and indexed with its stems"
    );
}

#[test]
fn an_index_from_before_archiving_learns_it_at_the_next_sync() {
    let f = Fixture::new();
    std::fs::write(
        f.personal().join("old.md"),
        topic("Old", "o", "user", "Harpsichords.")
            .replace("type: user", "type: user\narchived: true"),
    )
    .unwrap();
    std::fs::write(
        f.personal().join("new.md"),
        topic("New", "n", "user", "Pianos."),
    )
    .unwrap();
    let archived = |v: &mnemo_store::Vault| -> Vec<String> {
        let ws = v.workspace("personal").unwrap();
        v.sync(&ws).unwrap();
        v.archived_paths("personal").unwrap()
    };
    assert_eq!(archived(&f.vault), ["old.md"]);
    // Back to schema 10: no archived column.
    let db = f.dir.path().join("home/index.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "DROP INDEX IF EXISTS docs_listed; DROP INDEX docs_archived; ALTER TABLE docs DROP COLUMN archived;
         ALTER TABLE docs DROP COLUMN body_line; PRAGMA user_version = 10;",
    )
    .unwrap();
    drop(conn);
    let v = f.reopen();
    assert_eq!(archived(&v), ["old.md"]);
    let md = std::fs::read_to_string(f.personal().join("MEMORY.md")).unwrap();
    assert!(md.contains("new.md") && !md.contains("old.md"), "{md}");
}

#[test]
fn an_index_from_before_body_lines_learns_them_and_reads_notes_other_tools_wrote() {
    let f = Fixture::new();
    std::fs::write(
        f.personal().join("a.md"),
        topic("Mood", "a mood", "user", "The user is happy at work."),
    )
    .unwrap();
    // A note as basic-memory writes it: read as a memory (its title the name) since schema 12.
    std::fs::write(
        f.personal().join("note.md"),
        "---\ntitle: Kettle\ntype: note\npermalink: kettle\n---\n\n# Kettle\n\nThe kettle is broken.\n",
    )
    .unwrap();
    let read = |v: &mnemo_store::Vault| {
        let ws = v.workspace("personal").unwrap();
        v.sync(&ws).unwrap();
        let note = v
            .list(Some("personal"), None)
            .unwrap()
            .into_iter()
            .find(|d| d.path == "note.md")
            .unwrap();
        (
            note.name,
            note.valid,
            v.body_indexed("personal", "a.md").unwrap().map(|b| b.1),
        )
    };
    let want = ("Kettle".to_owned(), true, Some(6));
    assert_eq!(read(&f.vault), want);
    // Back to schema 11: no body lines, and the note was flagged then.
    let db = f.dir.path().join("home/index.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "DROP INDEX IF EXISTS docs_listed; ALTER TABLE docs DROP COLUMN body_line;
         UPDATE docs SET valid = 0, name = 'note' WHERE path = 'note.md';
         PRAGMA user_version = 11;",
    )
    .unwrap();
    drop(conn);
    let v = f.reopen();
    assert_eq!(read(&v), want, "every file is read again");
}
