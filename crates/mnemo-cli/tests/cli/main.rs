//! End-to-end tests of the `mnemo` binary on real homes in temp folders.

// Test support code: panicking on unexpected failure is the point.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod dream;
mod dream_faults;
mod escaping;
mod hybrid;
mod import;
mod mcp;
mod memory_jobs;
mod model_install;
mod qwen_layers;
mod review;
mod review_faults;
mod root_swap;
mod search_hits;
mod sync;
mod sync_edges;
mod sync_faults;
mod sync_report;

const BIN: &str = env!("CARGO_BIN_EXE_mnemo");

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    /// `mnemo workspaces bind` a new repository folder `name` (a `.git` inside); its repository
    /// folder and the bound workspace's id.
    fn bind_repo(&self, name: &str) -> (PathBuf, String) {
        let repo = self.dir.path().join(name);
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let list = self.json(&["workspaces", "bind", repo.to_str().unwrap()]);
        let id = list
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["kind"] == "mnemo" && w["id"] != "personal")
            .and_then(|w| w["id"].as_str())
            .unwrap()
            .to_owned();
        (repo, id)
    }

    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }
    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }
    fn personal(&self) -> PathBuf {
        self.home().join("workspaces/personal/memory")
    }
    /// `mnemo --json --workspace WS add …` (a description is filled in).
    fn add_in(&self, ws: &str, ty: &str, name: &str, body: &str) -> Output {
        self.cmd()
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
    /// The ids `mnemo workspaces` lists.
    fn workspace_ids(&self) -> Vec<String> {
        self.json(&["workspaces"])
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["id"].as_str().unwrap().to_owned())
            .collect()
    }
    fn cmd(&self) -> Command {
        let mut c = Command::new(BIN);
        c.env("MNEMO_HOME", self.home())
            .env("MNEMO_CLAUDE_DIR", self.dir.path().join("claude"))
            .env("MNEMO_QWEN_DIR", self.dir.path().join("qwen"))
            // Words only unless a test asks for the model (`hybrid.rs`): loading it in every
            // one of hundreds of processes would only slow the suite down.
            .env("MNEMO_EMBED_MODEL", "off")
            .env_remove("MNEMO_LOG");
        c
    }
    fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
    }
    /// Run with --json, expect success, parse stdout.
    fn json(&self, args: &[&str]) -> Value {
        self.json_of(self.cmd(), args)
    }
    /// [`Env::json`] with a command prepared by the caller.
    fn json_of(&self, mut c: Command, args: &[&str]) -> Value {
        let out = c.arg("--json").args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }
    /// Run with --json, expect failure with this exit code, return the error code.
    fn json_err(&self, args: &[&str], exit: i32) -> String {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let out = self.run(&all);
        assert_eq!(
            out.status.code(),
            Some(exit),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(
            v["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
        v["error"]["code"].as_str().unwrap().to_owned()
    }
}

fn topic(name: &str, desc: &str, ty: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {desc}\ntype: {ty}\n---\n{body}\n")
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn lists_claude_and_qwen_memories_with_types() {
    let e = Env::new();
    write(
        &e.dir
            .path()
            .join("claude/projects/-home-me-app/memory/user_role.md"),
        &topic("Role", "Senior Go engineer", "user", "x"),
    );
    write(
        &e.dir
            .path()
            .join("claude/projects/-home-me-app/memory/feedback_terse.md"),
        &topic("Terse", "No recaps", "feedback", "x"),
    );
    write(
        &e.dir
            .path()
            .join("claude/projects/-home-me-app/memory/MEMORY.md"),
        "- [Role](user_role.md) — Senior Go engineer\n",
    );
    write(
        &e.dir
            .path()
            .join("qwen/projects/-home-me-svc/memory/project/milestone.md"),
        &topic("Freeze", "Merge freeze", "project", "x"),
    );
    write(
        &e.dir
            .path()
            .join("qwen/projects/-home-me-svc/memory/reference/grafana.md"),
        &topic("Board", "Grafana", "reference", "x"),
    );
    std::fs::create_dir_all(e.dir.path().join("claude/projects/no-memory-here")).unwrap();

    let list = e.json(&["list"]);
    let got: Vec<(String, String, String)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["workspace"].as_str().unwrap().into(),
                d["path"].as_str().unwrap().into(),
                d["type"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want = [
        ("claude:-home-me-app", "feedback_terse.md", "feedback"),
        ("claude:-home-me-app", "user_role.md", "user"),
        ("qwen:-home-me-svc", "project/milestone.md", "project"),
        ("qwen:-home-me-svc", "reference/grafana.md", "reference"),
    ];
    assert_eq!(
        got,
        want.map(|(a, b, c)| (a.to_owned(), b.to_owned(), c.to_owned()))
    );
    for d in list.as_array().unwrap() {
        for field in ["path", "type", "name", "description", "mtime", "valid"] {
            assert!(!d[field].is_null(), "{field} missing in {d}");
        }
    }
    let only_user = e.json(&["list", "--type", "user"]);
    assert_eq!(only_user.as_array().unwrap().len(), 1);
    let one_ws = e.json(&["--workspace", "qwen:-home-me-svc", "list"]);
    assert_eq!(one_ws.as_array().unwrap().len(), 2);

    let ws = e.json(&["workspaces"]);
    let ids: Vec<&str> = ws
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["personal", "claude:-home-me-app", "qwen:-home-me-svc"]
    );
    assert_eq!(ws[1]["kind"], "claude");
    assert_eq!(ws[1]["counts"]["topics"], 2);
    assert_eq!(ws[2]["kind"], "qwen");
    // Foreign MEMORY.md was not rewritten by merely looking.
    assert_eq!(
        std::fs::read_to_string(
            e.dir
                .path()
                .join("claude/projects/-home-me-app/memory/MEMORY.md")
        )
        .unwrap(),
        "- [Role](user_role.md) — Senior Go engineer\n"
    );
    // Human output works too.
    let out = e.run(&["workspaces"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("claude:-home-me-app"));
}

#[test]
fn add_edit_rm_undo_round_trip_byte_exact_with_history() {
    let e = Env::new();
    let created = e.json(&[
        "add",
        "--type",
        "feedback",
        "--name",
        "Response style",
        "--description",
        "Keep answers terse",
        "--body",
        "Keep replies short.\nWhy: the user reads diffs.",
    ]);
    let path = created["path"].as_str().unwrap().to_owned();
    let file = e.personal().join(&path);
    let v1 = std::fs::read(&file).unwrap();
    assert_eq!(
        String::from_utf8(v1.clone()).unwrap(),
        "---\nname: Response style\ndescription: Keep answers terse\ntype: feedback\n---\nKeep replies short.\nWhy: the user reads diffs.\n"
    );

    let body_file = e.dir.path().join("body.md");
    std::fs::write(
        &body_file,
        "Keep replies very short.\nHow to apply: always.\n",
    )
    .unwrap();
    let edited = e.json(&[
        "edit",
        &path,
        "--description",
        "Terse answers, no recap",
        "--body-file",
        body_file.to_str().unwrap(),
    ]);
    let v2 = std::fs::read(&file).unwrap();
    assert!(String::from_utf8_lossy(&v2).contains("description: Terse answers, no recap"));
    let shown = e.json(&["show", &path]);
    assert_eq!(shown["content"].as_str().unwrap().as_bytes(), &v2[..]);
    assert_eq!(shown["type"], "feedback");

    let removed = e.json(&["rm", &path]);
    assert!(!file.exists());
    assert_eq!(e.json_err(&["show", &path], 1), "not_found");

    e.json(&["undo", &removed["change_id"].to_string()]);
    assert_eq!(std::fs::read(&file).unwrap(), v2);
    e.json(&["undo", &edited["change_id"].to_string()]);
    assert_eq!(std::fs::read(&file).unwrap(), v1);

    let history = e.json(&["history", &path]);
    let items = history.as_array().unwrap();
    assert_eq!(items.len(), 5);
    for h in items {
        for field in ["id", "path", "source", "at"] {
            assert!(!h[field].is_null());
        }
        // A person at the command line is told apart from one in the app.
        assert_eq!(h["source"], "cli");
    }
    let all = e.json(&["history"]);
    assert_eq!(all.as_array().unwrap().len(), 5);

    // MEMORY.md reflects the final state and respects its caps.
    let md = std::fs::read_to_string(e.personal().join("MEMORY.md")).unwrap();
    assert_eq!(
        md,
        format!("- [Response style]({path}) — Keep answers terse\n")
    );
    // Undoing an undo target twice is a conflict, and nothing changes.
    assert_eq!(
        e.json_err(&["undo", &removed["change_id"].to_string()], 1),
        "conflict"
    );
    assert_eq!(std::fs::read(&file).unwrap(), v1);
}

#[test]
fn errors_have_stable_codes_and_exit_statuses() {
    let e = Env::new();
    // `add --type TYPE --name NAME --description d EXTRA…` and the code it must fail with.
    let add_err = |ty: &str, name: &str, extra: &[&str]| {
        let mut args = vec!["add", "--type", ty, "--name", name, "--description", "d"];
        args.extend_from_slice(extra);
        e.json_err(&args, 1)
    };
    let bin = e.dir.path().join("bin.dat");
    std::fs::write(&bin, [0xff, 0xfe, 0x00]).unwrap();
    for (ty, name, extra, code) in [
        ("note", "n", &[][..], "invalid_type"),
        ("user", "n", &["--path", "../x.md"][..], "path_escape"),
        ("user", "n", &["--path", "/tmp/x.md"][..], "path_escape"),
        ("user", "", &[][..], "invalid_frontmatter"),
        (
            "user",
            "b",
            &["--body-file", "/nonexistent/x"][..],
            "not_found",
        ),
        (
            "user",
            "b",
            &["--body-file", bin.to_str().unwrap()][..],
            "invalid_content",
        ),
    ] {
        assert_eq!(add_err(ty, name, extra), code, "{ty} {name:?} {extra:?}");
    }
    e.json(&["add", "--type", "user", "--name", "n", "--description", "d"]);
    assert_eq!(add_err("user", "n", &[]), "conflict");
    assert_eq!(e.json_err(&["rm", "missing.md"], 1), "not_found");
    assert_eq!(e.json_err(&["undo", "9999"], 1), "not_found");
    assert_eq!(e.json_err(&["edit", "n.md"], 2), "usage");
    assert_eq!(e.json_err(&["--workspace", "nope", "list"], 1), "not_found");
    assert_eq!(e.json_err(&["list", "--type", "bogus"], 1), "invalid_type");
    assert_eq!(e.json_err(&["frobnicate"], 2), "usage");
    assert_eq!(e.json_err(&["search"], 2), "usage");
    // Without --json: message on stderr, same exit codes.
    let out = e.run(&["rm", "missing.md"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not_found"));
    assert_eq!(e.run(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(e.run(&["--help"]).status.code(), Some(0));
}

#[test]
fn search_finds_chinese_japanese_korean_and_fullwidth() {
    let e = Env::new();
    e.json(&[
        "add",
        "--type",
        "feedback",
        "--name",
        "回复风格",
        "--description",
        "保持回复简洁，不要尾部总结",
        "--path",
        "zh.md",
    ]);
    e.json(&[
        "add",
        "--type",
        "user",
        "--name",
        "東京オフィス",
        "--description",
        "東京のオフィスで働いている",
        "--path",
        "ja.md",
    ]);
    e.json(&[
        "add",
        "--type",
        "user",
        "--name",
        "커피 취향",
        "--description",
        "사용자는 아메리카노를 좋아한다",
        "--path",
        "ko.md",
    ]);
    e.json(&[
        "add",
        "--type",
        "reference",
        "--name",
        "Qwen Code",
        "--description",
        "Uses qwen for coding",
        "--path",
        "en.md",
    ]);
    for (q, want) in [
        ("简洁", "zh.md"),
        ("オフィス", "ja.md"),
        ("아메리카노", "ko.md"),
        ("ＱＷＥＮ", "en.md"),
    ] {
        let hits = e.json(&["search", q]);
        assert_eq!(hits[0]["path"], want, "{q}: {hits}");
        for field in ["path", "score", "name", "type"] {
            assert!(!hits[0][field].is_null());
        }
    }
    let limited = e.json(&["search", "the OR qwen OR 東京 OR 简洁", "--limit", "2"]);
    assert!(limited.as_array().unwrap().len() <= 2);
}

#[test]
fn outside_edit_shows_up_in_watch_and_search() {
    let e = Env::new();
    e.json(&[
        "add",
        "--type",
        "user",
        "--name",
        "Seed",
        "--description",
        "seed memory",
        "--body",
        "nothing yet",
    ]);
    let mut child = e
        .cmd()
        .arg("watch")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the watcher says it is ready.
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.contains("watching"), "{line}");
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines() {
            if tx.send(l.unwrap()).is_err() {
                break;
            }
        }
    });
    // Another program edits a memory file.
    let started = Instant::now();
    write(
        &e.personal().join("seed.md"),
        &topic(
            "Seed",
            "seed memory",
            "user",
            "the quokka lives on Rottnest",
        ),
    );
    let ev: Value =
        serde_json::from_str(&rx.recv_timeout(Duration::from_secs(10)).expect("no event")).unwrap();
    let latency = started.elapsed();
    assert_eq!(ev["workspace"], "personal");
    assert_eq!(ev["paths"][0], "seed.md");
    assert_eq!(ev["source"], "watcher");
    eprintln!("watch latency (informational): {latency:?}");
    let hits = e.json(&["search", "quokka"]);
    assert_eq!(hits[0]["path"], "seed.md");
    // A write by another mnemo process is reported with its real source.
    e.json(&[
        "add",
        "--type",
        "project",
        "--name",
        "Other",
        "--description",
        "from the cli",
        "--body",
        "x",
    ]);
    let ev: Value =
        serde_json::from_str(&rx.recv_timeout(Duration::from_secs(10)).expect("no event")).unwrap();
    assert_eq!(ev["paths"][0], "other.md");
    assert_eq!(ev["source"], "cli");
    child.kill().unwrap();
    child.wait().unwrap();
    // The outside edit is in the journal.
    let h = e.json(&["history", "seed.md"]);
    assert_eq!(h[0]["source"], "watcher");
}

#[test]
fn index_rebuild_and_status() {
    let e = Env::new();
    for i in 0..5 {
        write(
            &e.personal().join(format!("t{i}.md")),
            &topic(&format!("T{i}"), "d", "project", "x"),
        );
    }
    write(&e.personal().join("bad.md"), "no frontmatter");
    let r = e.json(&["index"]);
    assert_eq!(r["updated"], 6);
    let r = e.json(&["index", "--rebuild"]);
    assert_eq!(r["scanned"], 6);
    assert_eq!(r["updated"], 6);
    let s = e.json(&["status"]);
    assert_eq!(s["workspaces"][0]["counts"]["topics"], 6);
    assert_eq!(s["workspaces"][0]["counts"]["invalid"], 1);
    // Corrupt index.db: the next command rebuilds it and says so.
    std::fs::write(e.home().join("index.db"), vec![1u8; 4096]).unwrap();
    for side in ["index.db-wal", "index.db-shm"] {
        let _ = std::fs::remove_file(e.home().join(side));
    }
    let s = e.json(&["status"]);
    assert_eq!(s["workspaces"][0]["counts"]["topics"], 6);
    assert!(s["warnings"][0].as_str().unwrap().contains("index.db"));
}

#[test]
fn workspaces_add_folder_and_bind() {
    let e = Env::new();
    let folder = e.dir.path().join("notes");
    write(&folder.join("n.md"), &topic("N", "d", "project", "x"));
    let list = e.json(&["workspaces", "add-folder", folder.to_str().unwrap()]);
    let folder_ws = list
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "folder")
        .unwrap();
    assert_eq!(folder_ws["counts"]["topics"], 1);
    let id = folder_ws["id"].as_str().unwrap();
    assert_eq!(
        e.json(&["--workspace", id, "list"])
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        e.json_err(&["workspaces", "add-folder", "/nonexistent/folder"], 1),
        "not_found"
    );
}

#[test]
fn two_processes_writing_one_workspace_lose_nothing() {
    let e = Env::new();
    e.json(&[
        "add",
        "--type",
        "project",
        "--name",
        "Shared",
        "--description",
        "d",
        "--body",
        "v0",
    ]);
    // Eight processes at once: four create distinct files, four edit the same one.
    let children: Vec<_> = (0..8)
        .map(|i| {
            let mut c = e.cmd();
            if i % 2 == 0 {
                c.args([
                    "--json",
                    "add",
                    "--type",
                    "user",
                    "--name",
                    &format!("P{i}"),
                    "--description",
                    "d",
                    "--body",
                    "x",
                ]);
            } else {
                c.args(["--json", "edit", "shared.md", "--body", &format!("v{i}")]);
            }
            c.stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let list = e.json(&["--workspace", "personal", "list"]);
    assert_eq!(list.as_array().unwrap().len(), 5);
    assert!(list.as_array().unwrap().iter().all(|d| d["valid"] == true));
    // Every edit is in the journal, each one's "before" is the previous one's "after": no lost update.
    let h = e.json(&["history", "shared.md"]);
    assert_eq!(h.as_array().unwrap().len(), 5);
    let final_body = std::fs::read_to_string(e.personal().join("shared.md")).unwrap();
    assert!(
        final_body.ends_with("v1\n")
            || final_body.ends_with("v3\n")
            || final_body.ends_with("v5\n")
            || final_body.ends_with("v7\n")
    );
    // No temp files left behind.
    let leftovers: Vec<_> = std::fs::read_dir(e.personal())
        .unwrap()
        .map(|x| x.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_read_only_folder_gives_a_clear_error_and_keeps_its_files() {
    let e = Env::new();
    let folder = e.dir.path().join("ro");
    write(&folder.join("kept.md"), &topic("Kept", "d", "user", "x"));
    let list = e.json(&["workspaces", "add-folder", folder.to_str().unwrap()]);
    let id = list
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "folder")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Root ignores permission bits, so when running as root the command runs as `nobody`.
    let as_root = rustix_is_root();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).unwrap();
    let run = |args: &[&str]| -> Output {
        if as_root {
            // `nobody` needs to reach the binary and the home.
            let bin = e.dir.path().join("mnemo");
            if !bin.exists() {
                std::fs::copy(BIN, &bin).unwrap();
            }
            chmod_tree(e.dir.path());
            std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).unwrap();
            let mut c = Command::new("setpriv");
            c.args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                bin.to_str().unwrap(),
            ]);
            c.args(args)
                .env("MNEMO_HOME", e.home())
                .env("MNEMO_CLAUDE_DIR", e.dir.path().join("claude"))
                .env("MNEMO_QWEN_DIR", e.dir.path().join("qwen"));
            c.output().unwrap()
        } else {
            let mut c = e.cmd();
            c.args(args);
            c.output().unwrap()
        }
    };
    let out = run(&[
        "--json",
        "--workspace",
        &id,
        "add",
        "--type",
        "user",
        "--name",
        "New",
        "--description",
        "d",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "io");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not writable"),
        "{v}"
    );
    let out = run(&["--json", "--workspace", &id, "list"]);
    assert!(
        out.status.success(),
        "reading still works: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(
        std::fs::read_to_string(folder.join("kept.md")).unwrap(),
        topic("Kept", "d", "user", "x")
    );
    assert!(!folder.join("new.md").exists());
}

fn rustix_is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// Let `nobody` read and write the test home (but not the read-only folder).
fn chmod_tree(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let _ = std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o777));
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o777));
            }
        }
    }
}

#[test]
fn chat_without_a_model_says_what_to_configure_and_recall_still_works() {
    let e = Env::new();
    e.json(&[
        "add",
        "--type",
        "project",
        "--name",
        "Deploy checklist",
        "--description",
        "Steps before a production deploy",
        "--body",
        "Run the smoke suite.",
    ]);
    let out = e
        .cmd()
        .args(["--json", "chat", "hello"])
        .env_remove("MNEMO_LLM_BASE_URL")
        .env_remove("MNEMO_LLM_MODEL")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "model_not_configured");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("MNEMO_LLM_BASE_URL")
    );
    // `/memory` needs no model either.
    let out = e
        .cmd()
        .args(["--json", "chat", "/memory"])
        .env_remove("MNEMO_LLM_BASE_URL")
        .env_remove("MNEMO_LLM_MODEL")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["command"], serde_json::json!({"name": "memory"}));
    assert!(v["reply"].as_str().unwrap().contains("1 memories"), "{v}");
    // Lexical recall needs no model.
    let r = e.json(&["recall", "how do I deploy to production?"]);
    assert_eq!(r["strategy"], "heuristic");
    assert_eq!(r["selected"][0]["path"], "deploy-checklist.md");
    assert!(
        r["prompt"]
            .as_str()
            .unwrap()
            .contains("Run the smoke suite.")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_with_a_model_recalls_replies_and_extracts() {
    use mnemo_testkit::{FakeModel, Reply};
    let e = Env::new();
    e.json(&[
        "add",
        "--type",
        "project",
        "--name",
        "Deploy checklist",
        "--description",
        "Steps before a production deploy",
        "--body",
        "Run the smoke suite.",
    ]);
    let fake = FakeModel::start().await;
    fake.push(Reply::json(
        &serde_json::json!({"paths": ["deploy-checklist.md"]}),
    ));
    fake.push(Reply::text("Run the smoke suite, then tag."));
    fake.push(Reply::tool(
        "write_file",
        serde_json::json!({"path": "project/tuesdays.md", "content": "---\nname: Deploy day\ndescription: Deploys go out on Tuesdays\ntype: project\n---\nDeploys go out on Tuesdays.\n"}),
    ));
    fake.push(Reply::text("Saved."));
    let mut cmd = e.cmd();
    cmd.args(["--json", "chat", "How do I deploy? We ship on Tuesdays."])
        .env("MNEMO_LLM_BASE_URL", fake.base_url())
        .env("MNEMO_LLM_MODEL", "fake-main");
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["reply"], "Run the smoke suite, then tag.");
    assert_eq!(v["recall"]["selected"][0]["path"], "deploy-checklist.md");
    assert_eq!(v["extract"]["files_written"][0], "project/tuesdays.md");
    assert_eq!(v["extract"]["status"], "completed");
    assert!(e.personal().join("project/tuesdays.md").exists());

    // The CLI chat's extraction is a task every client sees, its writes one group.
    let tasks = e.json(&["tasks", "--kind", "extract"]);
    assert_eq!(tasks[0]["kind"], "extract");
    assert_eq!(tasks[0]["status"], "completed");
    assert_eq!(tasks[0]["result"]["files"][0], "project/tuesdays.md");
    let group = tasks[0]["result"]["group"].as_i64().unwrap();
    assert_eq!(v["extract"]["group"], group);
    let one = e.json(&["task", tasks[0]["id"].as_str().unwrap()]);
    assert_eq!(one["tools"][0]["name"], "write_file");
    let history = e.json(&["history"]);
    let rows = history.as_array().unwrap();
    assert!(
        rows.iter()
            .any(|r| r["group"] == group && r["path"] == "project/tuesdays.md")
    );
    assert!(
        rows.iter().any(|r| r["group"].is_null()),
        "single changes: group null"
    );
    let undone = e.json(&["undo", "--group", &group.to_string()]);
    assert_eq!(undone["paths"][0], "project/tuesdays.md");
    assert!(!e.personal().join("project/tuesdays.md").exists());
    assert_eq!(e.json_err(&["undo", "--group", "999999"], 1), "not_found");
    assert_eq!(e.json_err(&["tasks", "--status", "done"], 2), "usage");
    assert_eq!(e.json_err(&["task", "t-nope"], 1), "not_found");
    assert!(
        fake.requests()[1]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("Run the smoke suite.")
    );
}

/// A task whose process is killed mid-run reads `failed` (`interrupted`) afterwards — seen from
/// another process, never `running` forever; nothing half-written is left.
#[tokio::test(flavor = "multi_thread")]
async fn a_killed_chat_leaves_its_extraction_task_interrupted() {
    use mnemo_testkit::{FakeModel, Kind, Reply};
    let e = Env::new();
    let fake = FakeModel::start().await;
    fake.push_for(Kind::Json, Reply::json(&serde_json::json!({"paths": []})));
    fake.push_for(Kind::Stream, Reply::text("Noted."));
    // The extraction's model call hangs: the process is killed while the task runs.
    fake.push_for(
        Kind::Tools,
        Reply::Delay(Duration::from_secs(60), Box::new(Reply::text("too late"))),
    );
    let mut child = e
        .cmd()
        .args(["--json", "chat", "We ship on Tuesdays."])
        .env("MNEMO_LLM_BASE_URL", fake.base_url())
        .env("MNEMO_LLM_MODEL", "fake-main")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Another process sees the task running.
    let started = Instant::now();
    let running = loop {
        let e2 = e
            .cmd()
            .args(["--json", "tasks", "--status", "running"])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&e2.stdout).unwrap_or(Value::Null);
        if let Some(t) = v.as_array().and_then(|a| a.first()) {
            break t.clone();
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the task never ran"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(running["kind"], "extract");
    child.kill().unwrap();
    child.wait().unwrap();
    let t = e.json(&["task", running["id"].as_str().unwrap()]);
    assert_eq!(t["status"], "failed", "{t}");
    assert_eq!(t["reason"], "interrupted");
    assert!(t["finished_at"].is_string());
    let leftovers: Vec<String> = std::fs::read_dir(e.personal())
        .unwrap()
        .flatten()
        .map(|d| d.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".mnemo-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_body_written_as_bullets_is_taken() {
    let e = Env::new();
    let v = e.json(&[
        "add",
        "--type",
        "user",
        "--name",
        "Facts",
        "--description",
        "a few facts",
        "--body",
        "- Likes tea.\n- Lives in Porto.",
    ]);
    let path = v["path"].as_str().unwrap();
    let text = std::fs::read_to_string(e.personal().join(path)).unwrap();
    assert!(text.contains("- Likes tea.\n- Lives in Porto."), "{text}");
    e.json(&["edit", path, "--body", "- Lives in Lisbon."]);
    let text = std::fs::read_to_string(e.personal().join(path)).unwrap();
    assert!(
        text.contains("- Lives in Lisbon.") && !text.contains("Porto"),
        "{text}"
    );
}

/// With a model that saves nothing (it never calls a tool and plans no memory), what
/// the person said in one chat is found by `mnemo recall` and injected into a new chat's first
/// turn — from the conversation record, shown as "From your chat on …".
#[tokio::test(flavor = "multi_thread")]
async fn with_a_model_that_saves_nothing_a_fact_said_in_chat_is_recalled_in_a_new_session() {
    use mnemo_testkit::{FakeModel, Kind, Reply};
    let e = Env::new();
    let fake = FakeModel::start().await;
    fake.set_fallback(Reply::text("Noted."));
    fake.push_for(
        Kind::Json,
        Reply::json(&serde_json::json!({"memories": []})),
    );
    let run = |args: &[&str]| {
        let out = e
            .cmd()
            .arg("--json")
            .args(args)
            .env("MNEMO_LLM_BASE_URL", fake.base_url())
            .env("MNEMO_LLM_MODEL", "fake-main")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let first = run(&["chat", "I'm allergic to peanuts, by the way."]);
    assert!(
        first["extract"]["files_written"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "the model saved nothing: {first}"
    );
    let recalled = run(&["recall", "what am I allergic to?"]);
    let selected = recalled["selected"].as_array().unwrap();
    assert_eq!(selected.len(), 1, "{recalled}");
    assert!(
        selected[0]["path"].as_str().unwrap().starts_with("chats/"),
        "{recalled}"
    );
    assert!(
        selected[0]["name"]
            .as_str()
            .unwrap()
            .starts_with("From your chat on ")
    );
    assert!(
        recalled["prompt"]
            .as_str()
            .unwrap()
            .contains("allergic to peanuts"),
        "{recalled}"
    );
    let before = fake.requests().len();
    let second = run(&["chat", "What am I allergic to? Suggest a snack."]);
    assert_ne!(second["session"], first["session"], "a new session");
    let streamed = fake.requests()[before..]
        .iter()
        .find(|q| Kind::of(q) == Kind::Stream)
        .cloned()
        .unwrap();
    assert!(
        streamed["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("allergic to peanuts"),
        "{streamed}"
    );
    // Forgettable like any memory.
    let preview = run(&["forget", "peanuts", "--dry-run"]);
    let picked = preview["selected"].as_array().unwrap();
    assert_eq!(picked.len(), 1, "{preview}");
    assert!(
        picked[0]["text"]
            .as_str()
            .unwrap()
            .ends_with("I'm allergic to peanuts, by the way.")
    );
}
