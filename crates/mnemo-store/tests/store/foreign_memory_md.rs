//! Another tool's MEMORY.md is that tool's. A write into a Claude Code, Qwen Code or
//! added folder keeps every line the tool or person wrote there and only adds, updates or
//! removes Mnemo's own marked block; Mnemo's own workspaces keep their whole generated index.

use std::path::Path;

use mnemo_core::{ChangeSource, MemoryType};
use mnemo_store::journal::Origin;
use mnemo_store::memory_md::{BLOCK_BEGIN, BLOCK_END};
use mnemo_store::vault::ManyWrite;
use mnemo_store::{NewMemory, Patch};

use crate::{Fixture, topic};

fn memory(name: &str, body: &str) -> NewMemory {
    NewMemory {
        path: None,
        name: name.into(),
        description: format!("{name} description"),
        memory_type: MemoryType::Feedback,
        body: body.into(),
    }
}

fn index_of(dir: &Path) -> Option<String> {
    std::fs::read_to_string(dir.join("MEMORY.md")).ok()
}

#[test]
fn claude_code_s_own_lines_survive_a_sync_writing_into_its_folder() {
    let f = Fixture::new();
    let claude = f.dir.path().join("claude/projects/-home-me-app/memory");
    std::fs::create_dir_all(&claude).unwrap();
    let own =
        "# Memory index\n\n- [Role](user_role.md) — Senior Go engineer\n\nThe user prefers tabs\n";
    std::fs::write(claude.join("MEMORY.md"), own).unwrap();
    std::fs::write(
        claude.join("user_role.md"),
        topic("Role", "Senior Go engineer", "user", "x"),
    )
    .unwrap();
    let id = "claude:-home-me-app";
    let ws = f.vault.workspace(id).unwrap();
    f.vault.sync(&ws).unwrap();

    // A sync brings a memory from another machine, as `mnemo sync` writes it.
    let hold = f.vault.hold_writes(&ws).unwrap();
    let (written, ok) = f
        .vault
        .write_many_held(
            &hold,
            &ws,
            Origin {
                source: ChangeSource::Sync,
                group: None,
            },
            &[ManyWrite {
                path: "build.md".into(),
                expect: None,
                new: Some(topic("Build", "how to build", "project", "Run make.").into_bytes()),
            }],
        )
        .unwrap();
    drop(hold);
    assert!(ok);
    assert_eq!(written, ["build.md"]);
    let md = index_of(&claude).unwrap();
    assert!(
        md.starts_with(own),
        "the tool's text is kept byte for byte:\n{md}"
    );
    assert_eq!(
        &md[own.len()..],
        format!("{BLOCK_BEGIN}\n- [Build](build.md) — how to build\n{BLOCK_END}\n"),
        "only the file Claude Code's text does not mention is listed"
    );
    // Journaled, so it can be seen and undone.
    let h = f.vault.history(Some(id), Some("MEMORY.md"), 5).unwrap();
    assert_eq!(h.len(), 1);
    assert_eq!(h[0].source, ChangeSource::Sync);

    // Mnemo writes another memory there: one block, both files, the tool's text the same.
    f.vault
        .create(id, &memory("Style", "terse"), ChangeSource::User)
        .unwrap();
    let md = index_of(&claude).unwrap();
    assert!(md.starts_with(own), "{md}");
    assert_eq!(md.matches(BLOCK_BEGIN).count(), 1, "{md}");
    assert!(
        md.contains("(build.md)") && md.contains("(style.md)"),
        "{md}"
    );
    assert_eq!(md.matches("user_role.md").count(), 1, "no duplicate: {md}");

    // An edit that changes no listing leaves MEMORY.md unwritten.
    f.vault
        .update(
            id,
            "style.md",
            &Patch {
                body: Some("very terse".into()),
                ..Patch::default()
            },
            ChangeSource::User,
        )
        .unwrap();
    assert_eq!(index_of(&claude).unwrap(), md);
    assert_eq!(
        f.vault
            .history(Some(id), Some("MEMORY.md"), 10)
            .unwrap()
            .len(),
        2
    );

    // Claude Code lists style.md itself, below the block: the block drops it.
    let by_claude = format!("{md}- [Style](style.md) — keep answers short\n");
    std::fs::write(claude.join("MEMORY.md"), &by_claude).unwrap();
    f.vault.delete(id, "build.md", ChangeSource::User).unwrap();
    let md = index_of(&claude).unwrap();
    assert_eq!(
        md,
        format!("{own}- [Style](style.md) — keep answers short\n"),
        "nothing left to list: the block is gone, every line of the tool's is there"
    );
}

#[test]
fn a_crlf_index_in_a_qwen_code_folder_keeps_its_bytes_and_gets_them_back() {
    let f = Fixture::new();
    let qwen = f.dir.path().join("qwen/projects/-home-me-svc/memory");
    std::fs::create_dir_all(qwen.join("project")).unwrap();
    // CRLF, and no line end at the end.
    let own =
        "# Qwen memory\r\n- [Freeze](project/milestone.md) — merge freeze\r\nThe user prefers tabs";
    std::fs::write(qwen.join("MEMORY.md"), own).unwrap();
    std::fs::write(
        qwen.join("project/milestone.md"),
        topic("Freeze", "merge freeze", "project", "x"),
    )
    .unwrap();
    let id = "qwen:-home-me-svc";
    let mut new = memory("Deploy", "on Fridays");
    new.path = Some("project/deploy.md".into());
    f.vault.create(id, &new, ChangeSource::User).unwrap();
    let md = index_of(&qwen).unwrap();
    assert_eq!(
        md,
        format!(
            "{own}\r\n{BLOCK_BEGIN}\r\n- [Deploy](project/deploy.md) — Deploy description\r\n{BLOCK_END}"
        )
    );
    // The memory goes: the file is byte for byte what Qwen Code wrote.
    f.vault
        .delete(id, "project/deploy.md", ChangeSource::User)
        .unwrap();
    assert_eq!(
        std::fs::read(qwen.join("MEMORY.md")).unwrap(),
        own.as_bytes()
    );
}

#[test]
fn a_folder_without_an_index_gets_one_holding_only_the_block() {
    let f = Fixture::new();
    let claude = f.dir.path().join("claude/projects/-p/memory");
    std::fs::create_dir_all(&claude).unwrap();
    let id = "claude:-p";
    f.vault
        .create(id, &memory("Style", "terse"), ChangeSource::User)
        .unwrap();
    assert_eq!(
        index_of(&claude).unwrap(),
        format!("{BLOCK_BEGIN}\n- [Style](style.md) — Style description\n{BLOCK_END}\n")
    );
    // Claude Code writes its own line above the block; the memory is deleted later.
    let md = index_of(&claude).unwrap();
    std::fs::write(claude.join("MEMORY.md"), format!("Use tabs.\n{md}")).unwrap();
    f.vault.delete(id, "style.md", ChangeSource::User).unwrap();
    assert_eq!(index_of(&claude).unwrap(), "Use tabs.\n");
    // A file that held only Mnemo's block is removed with it.
    f.vault
        .create(id, &memory("Other", "x"), ChangeSource::User)
        .unwrap();
    std::fs::write(
        claude.join("MEMORY.md"),
        format!("{BLOCK_BEGIN}\n- [Other](other.md) — Other description\n{BLOCK_END}\n"),
    )
    .unwrap();
    f.vault.delete(id, "other.md", ChangeSource::User).unwrap();
    assert_eq!(index_of(&claude), None);
}

#[test]
fn an_added_folder_s_index_is_the_person_s_and_mnemo_s_own_is_whole() {
    let f = Fixture::new();
    let notes = f.dir.path().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(notes.join("MEMORY.md"), "My notes, my words.\n").unwrap();
    let ws = f.vault.home().add_folder(&notes).unwrap();
    f.vault
        .create(&ws.id, &memory("Tea", "mint"), ChangeSource::User)
        .unwrap();
    assert_eq!(
        index_of(&notes).unwrap(),
        format!(
            "My notes, my words.\n{BLOCK_BEGIN}\n- [Tea](tea.md) — Tea description\n{BLOCK_END}\n"
        )
    );
    // Mnemo's own workspace: its MEMORY.md is Mnemo's, regenerated whole, with no block.
    f.write("MEMORY.md", "a stray line\n");
    f.vault
        .create("personal", &memory("Tea", "mint"), ChangeSource::User)
        .unwrap();
    assert_eq!(
        index_of(&f.personal()).unwrap(),
        "- [Tea](tea.md) — Tea description\n"
    );
}
