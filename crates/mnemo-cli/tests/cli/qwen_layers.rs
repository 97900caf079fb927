//! Qwen Code's three memory layers: per project (already read), the cross-project user layer
//! (`<base>/memories/`, base from `QWEN_CODE_MEMORY_BASE_DIR` as Qwen Code reads it) and each
//! bound repository's team layer (`<repo>/.qwen/team-memory/`), whose writes say they are shared
//! through git and are secret-scanned like every write.

use super::{Env, topic, write};

fn ids(list: &serde_json::Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|w| w["id"].as_str().unwrap().to_owned())
        .collect()
}

/// `mnemo --json --workspace WS add …` (a description is filled in).
fn add(e: &Env, ws: &str, ty: &str, name: &str, body: &str) -> std::process::Output {
    e.cmd()
        .args([
            "--json",
            "--workspace",
            ws,
            "add",
            "--type",
            ty,
            "--name",
            name,
            "--description",
            "d",
            "--body",
            body,
        ])
        .output()
        .unwrap()
}

#[test]
fn the_user_layer_is_its_own_workspace_and_follows_qwen_code_s_base_dir() {
    let e = Env::new();
    write(
        &e.dir.path().join("qwen/memories/user/editor.md"),
        &topic("Editor", "Uses Helix", "user", "The user edits in Helix."),
    );
    let list = e.json(&["workspaces"]);
    let user = list
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["id"] == "qwen:@user")
        .unwrap_or_else(|| panic!("{list}"));
    assert_eq!(user["kind"], "qwen");
    assert_eq!(user["counts"]["topics"], 1);
    let mems = e.json(&["--workspace", "qwen:@user", "list"]);
    assert_eq!(mems[0]["path"], "user/editor.md");
    let hits = e.json(&["search", "Helix"]);
    assert_eq!(hits[0]["workspace"], "qwen:@user");

    // Without MNEMO_QWEN_DIR, Qwen Code's own QWEN_CODE_MEMORY_BASE_DIR names the base.
    let base = e.dir.path().join("elsewhere");
    write(
        &base.join("memories/tea.md"),
        &topic("Tea", "Drinks tea", "user", "Green tea."),
    );
    let out = e
        .cmd()
        .env_remove("MNEMO_QWEN_DIR")
        .env("QWEN_CODE_MEMORY_BASE_DIR", &base)
        .args(["--json", "--workspace", "qwen:@user", "list"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["path"], "tea.md", "{v}");
}

#[test]
fn a_bound_repository_s_team_layer_is_shown_and_writes_say_they_are_shared() {
    let e = Env::new();
    let repo = e.dir.path().join("shop");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    write(
        &repo.join(".qwen/team-memory/project/conventions.md"),
        &topic(
            "Conventions",
            "Team conventions",
            "project",
            "Squash merges only.",
        ),
    );
    // Not bound yet: not shown.
    assert!(
        !ids(&e.json(&["workspaces"]))
            .iter()
            .any(|i| i.starts_with("qwen:@team:"))
    );
    let list = e.json(&["workspaces", "bind", repo.to_str().unwrap()]);
    let team = ids(&list)
        .into_iter()
        .find(|i| i.starts_with("qwen:@team:"))
        .unwrap_or_else(|| panic!("{list}"));
    let mems = e.json(&["--workspace", &team, "list"]);
    assert_eq!(mems[0]["path"], "project/conventions.md");

    let out = add(
        &e,
        &team,
        "project",
        "Reviews",
        "Every PR needs two approvals.",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let shared = v["shared"].as_str().unwrap();
    assert!(
        shared.contains("tracked by git") && shared.contains("collaborator"),
        "{shared}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("tracked by git"));
    assert!(repo.join(".qwen/team-memory/reviews.md").exists());

    // Secret-scanned like every write: refused, nothing written.
    let out = add(
        &e,
        &team,
        "reference",
        "Deploy key",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    );
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "invalid_content", "{v}");
    assert!(!repo.join(".qwen/team-memory/deploy-key.md").exists());

    // A personal write says nothing of the kind.
    let v = e.json(&[
        "add",
        "--type",
        "user",
        "--name",
        "N",
        "--description",
        "d",
        "--body",
        "x",
    ]);
    assert!(v["shared"].is_null());
}
