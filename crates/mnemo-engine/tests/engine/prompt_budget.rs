//! The memory block's budget: a foreign MEMORY.md cut at load, memories carried from earlier
//! turns left out first when the budget is tight, and every cut said in the block.

use chrono::Utc;
use mnemo_core::{MemoryType, WorkspaceKind};
use mnemo_engine::{RecallRequest, recall};

use crate::{add, vault};

/// The block's `## Index (MEMORY.md)` section.
fn index_section(prompt: &str) -> &str {
    let start = prompt.find("## Index (MEMORY.md)\n").unwrap() + "## Index (MEMORY.md)\n".len();
    let rest = &prompt[start..];
    rest.find("\n## ").map_or(rest, |end| &rest[..end])
}

#[test]
fn a_41_kb_claude_code_memory_md_reaches_the_prompt_cut_with_the_warning() {
    let (d, _) = vault();
    let mem = d.path().join("c/projects/-home-u-shop/memory");
    std::fs::create_dir_all(&mem).unwrap();
    std::fs::write(
        mem.join("deploy.md"),
        "---\nname: Deploy checklist\ndescription: Steps before a production deploy\ntype: project\n---\nRun the smoke suite, then tag.\n",
    )
    .unwrap();
    let index: String = (0..400)
        .map(|i| {
            format!(
                "- [Topic {i}](topic-{i}.md) — {}\n",
                "what this topic holds ".repeat(4)
            )
        })
        .collect();
    assert!(index.len() > 40_000 && index.lines().count() == 400);
    std::fs::write(mem.join("MEMORY.md"), &index).unwrap();
    // Reopen: the vault discovers the Claude Code project.
    let v = mnemo_store::Vault::open(mnemo_store::Home {
        root: d.path().join("home"),
        claude_dir: d.path().join("c"),
        qwen_dir: d.path().join("q"),
    })
    .unwrap();
    let ws = v
        .workspaces()
        .unwrap()
        .into_iter()
        .find(|w| w.kind == WorkspaceKind::Claude)
        .unwrap();
    v.sync(&ws).unwrap();
    let r = recall(
        &v,
        &RecallRequest {
            workspace: ws.id,
            query: "how do we deploy to production".into(),
            ..RecallRequest::default()
        },
        Utc::now(),
    )
    .unwrap();
    let section = index_section(&r.prompt);
    assert!(
        section.lines().count() <= 200,
        "{} lines",
        section.lines().count()
    );
    assert!(section.len() <= 25_000, "{} bytes", section.len());
    assert!(section.starts_with("- [Topic 0](topic-0.md)"));
    assert!(
        section.contains("> WARNING: MEMORY.md is 400 lines (limit: 200)")
            && section.contains("Only part of it was loaded"),
        "{section}"
    );
    assert!(
        r.cuts.iter().any(|c| c.contains("MEMORY.md is 400 lines")),
        "{:?}",
        r.cuts
    );
    assert!(r.prompt.contains("## Cut to fit the memory budget"));
    // The file itself is never touched: it is another tool's.
    assert_eq!(
        std::fs::read_to_string(mem.join("MEMORY.md")).unwrap(),
        index
    );
}

#[test]
fn a_tight_budget_leaves_out_carried_memories_first_and_says_so() {
    let (_d, v) = vault();
    add(
        &v,
        "deploy.md",
        "Deploy checklist",
        "Steps before a production deploy",
        MemoryType::Project,
        &"Run the smoke suite, then tag. ".repeat(30),
    );
    add(
        &v,
        "editor.md",
        "Editor",
        "The user's editor",
        MemoryType::User,
        &"Uses Neovim with LSP everywhere. ".repeat(30),
    );
    let base = RecallRequest {
        workspace: "personal".into(),
        query: "how do we deploy to production".into(),
        carried: vec!["editor.md".into()],
        ..RecallRequest::default()
    };
    // Room for everything: the carried memory is in the block, after this message's.
    let roomy = recall(&v, &base, Utc::now()).unwrap();
    assert_eq!(roomy.selected[0].path, "deploy.md");
    assert_eq!(roomy.carried.len(), 1);
    let p = &roomy.prompt;
    assert!(
        p.find("### Deploy checklist").unwrap() < p.find("## Memories recalled earlier").unwrap()
    );
    assert!(p.contains("Uses Neovim with LSP everywhere."));
    assert!(roomy.cuts.is_empty());
    // A budget that holds one body: the carried one goes, and the block says so.
    let tight = recall(
        &v,
        &RecallRequest {
            budget_tokens: Some(roomy.tokens_injected as usize - 200),
            ..base.clone()
        },
        Utc::now(),
    )
    .unwrap();
    assert!(tight.carried.is_empty());
    assert_eq!(tight.selected.len(), 1);
    assert!(!tight.prompt.contains("Uses Neovim"));
    assert!(
        tight.cuts[0].contains("editor.md (recalled earlier in this conversation) was left out")
    );
    assert!(
        tight
            .prompt
            .contains("editor.md (recalled earlier in this conversation) was left out")
    );
    assert!(tight.tokens_injected <= tight.budget_tokens.unwrap());
    // Tighter still: bodies are cut short before memories are dropped.
    let tighter = recall(
        &v,
        &RecallRequest {
            budget_tokens: Some(450),
            ..base
        },
        Utc::now(),
    )
    .unwrap();
    assert!(
        tighter
            .cuts
            .iter()
            .any(|c| c.contains("cut to 400 characters")),
        "{:?}",
        tighter.cuts
    );
    assert!(
        tighter.tokens_injected <= 450,
        "{}",
        tighter.tokens_injected
    );
}
