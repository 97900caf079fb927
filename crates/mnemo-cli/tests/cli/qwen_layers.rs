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

    let out = e.add_in(&team, "project", "Reviews", "Every PR needs two approvals.");
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
    let out = e.add_in(
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

/// Every file under `dir` with its bytes (to prove nothing there changed).
fn snapshot(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_team_layer_committed_as_a_symlink_out_of_its_repository_is_refused_and_said() {
    use std::io::{BufRead, BufReader, Write};
    let e = Env::new();
    let repo = e.dir.path().join("evil");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join(".qwen")).unwrap();
    // The outside folder the hostile repository points its team layer at.
    let outside = e.dir.path().join("elsewhere");
    write(
        &outside.join("victim.md"),
        &topic(
            "Victim",
            "Not Mnemo's",
            "project",
            "Precious notes.\n\nPrecious notes.",
        ),
    );
    write(
        &outside.join("victim-copy.md"),
        &topic("Victim", "Not Mnemo's", "project", "Precious notes."),
    );
    write(
        &outside.join("README.md"),
        "TOP-SECRET-README outside the repository\n",
    );
    std::os::unix::fs::symlink("../../elsewhere", repo.join(".qwen/team-memory")).unwrap();
    let before = snapshot(&outside);

    let list = e.json(&["workspaces", "bind", repo.to_str().unwrap()]);
    assert!(
        !ids(&list).iter().any(|i| i.starts_with("qwen:@team:")),
        "the symlinked layer is not a workspace: {list}"
    );
    // The person is told why.
    let status = e.json(&["status"]);
    let warnings = status["warnings"].to_string();
    assert!(
        warnings.contains("team memory of") && warnings.contains("symbolic link"),
        "{status}"
    );
    // Nothing reaches it: search, a dream of every workspace, edits, MCP reads and forgets.
    assert!(
        e.json(&["search", "Precious"])
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(
        e.json(&["search", "TOP-SECRET-README"])
            .as_array()
            .unwrap()
            .is_empty()
    );
    for ws in ids(&e.json(&["workspaces"])) {
        let _ = e.run(&["--workspace", &ws, "dream", "--mechanical"]);
    }
    let team_id = format!("qwen:@team:{}", repo.display());
    let code = e.json_err(&["--workspace", &team_id, "dream", "--mechanical"], 1);
    assert_eq!(code, "not_found");
    let code = e.json_err(
        &[
            "--workspace",
            &team_id,
            "edit",
            "victim.md",
            "--body",
            "overwritten",
        ],
        1,
    );
    assert_eq!(code, "not_found");
    let mut mcp = e
        .cmd()
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = mcp.stdin.take().unwrap();
    for msg in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/list","params":{}}"#.to_owned(),
        serde_json::json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"forget","arguments":{"workspace": team_id, "remove":[{"id":"victim.md:1","hash":"x"}]}}}).to_string(),
        serde_json::json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read","arguments":{"workspace": team_id, "path":"README.md"}}}).to_string(),
        serde_json::json!({"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri": format!("mnemo://{}/README.md", team_id.replace(':', "%3A").replace('/', "%2F").replace('@', "%40"))}}).to_string(),
    ] {
        writeln!(stdin, "{msg}").unwrap();
    }
    let mut out = BufReader::new(mcp.stdout.take().unwrap());
    let mut answers = Vec::new();
    while answers.len() < 5 {
        let mut l = String::new();
        if out.read_line(&mut l).unwrap() == 0 {
            break;
        }
        answers.push(l);
    }
    drop(stdin);
    let _ = mcp.wait();
    let all = answers.join("\n");
    assert!(
        !all.contains("TOP-SECRET-README") && !all.contains("Precious"),
        "{all}"
    );
    assert!(
        !all.contains("elsewhere"),
        "no resource points outside: {all}"
    );
    assert!(all.contains("not_found"), "{all}");
    // Byte for byte, the outside folder is as it was.
    assert_eq!(snapshot(&outside), before);
}

#[test]
fn a_new_bind_never_makes_an_id_that_begins_with_a_dash() {
    // A bound repository's id used to be its path with `-` for `/` ("-tmp-…-app").
    let e = Env::new();
    let (repo, id) = e.bind_repo("app");
    assert!(id.starts_with("repo-") && id.ends_with("-app"), "{id}");
    let out = e.add_in(&id, "project", "Build", "cargo build --workspace");
    assert!(out.status.success(), "{out:?}");
    // Bound again (from inside the repository): the same workspace, not a second one.
    std::fs::create_dir_all(repo.join("src")).unwrap();
    let again = e.json(&["workspaces", "bind", repo.join("src").to_str().unwrap()]);
    let mine: Vec<&str> = again
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "mnemo" && w["id"] != "personal")
        .filter_map(|w| w["id"].as_str())
        .collect();
    assert_eq!(mine, vec![id.as_str()]);
}

#[test]
fn a_bound_workspace_whose_id_begins_with_a_dash_is_named_with_dash_w() {
    // A home bound before keeps its id "-tmp-…-app", and clap once took `-w -tmp-…` for
    // flags ("unexpected argument '-t'"). Binding the same repository again keeps that id.
    let e = Env::new();
    let repo = e.dir.path().join("app");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let legacy: String = std::fs::canonicalize(&repo)
        .unwrap()
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    std::fs::create_dir_all(e.home().join("workspaces").join(&legacy).join("memory")).unwrap();
    let (_repo, id) = e.bind_repo("app");
    assert_eq!(id, legacy);
    assert!(id.starts_with('-'), "{id}");
    let out = e.add_in(&id, "project", "Build", "cargo build --workspace");
    assert!(out.status.success(), "{out:?}");
    let out = e
        .cmd()
        .args(["-w", &id, "show", "build.md"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("cargo build --workspace"),
        "{out:?}"
    );
    let listed = e.json(&["list", "-w", &id]);
    assert!(listed.to_string().contains("Build"), "{listed}");
}
