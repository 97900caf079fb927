//! `mnemo import` / `mnemo export` from the command line: a ChatGPT export of 20
//! conversations learnt from with live progress, killed with SIGKILL midway and run again —
//! finished conversations are never sent to the model again and every memory lands in one
//! change group; a 500 MB export read as a stream under a data-size limit far below its size;
//! every format told apart in a dry run.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mnemo_testkit::files::tree;
use mnemo_testkit::{FakeModel, Reply};
use serde_json::{Value, json};

use super::{Env, topic, write};

/// A ChatGPT conversation whose user says one fact: `The user's favourite number is {k}`.
fn chatgpt_conversation(k: usize, filler: &str) -> Value {
    json!({
        "title": format!("Chat {k}"), "conversation_id": format!("conv-{k:02}"), "create_time": 1_700_000_000 + k,
        "current_node": "b",
        "mapping": {
            "r": {"id": "r", "message": null, "parent": null, "children": ["a"]},
            "a": {"id": "a", "parent": "r", "children": ["b"], "message": {"author": {"role": "user"},
                  "content": {"content_type": "text", "parts": [format!("The user's favourite number is {k}{filler}")]}}},
            "b": {"id": "b", "parent": "a", "children": [], "message": {"author": {"role": "assistant"},
                  "content": {"content_type": "text", "parts": ["Noted, I will remember that."]}}}
        }
    })
}

fn conversation_of(request: &Value) -> Option<usize> {
    let task = request["messages"]
        .as_array()?
        .iter()
        .find(|m| m["role"] == "user")?["content"]
        .as_str()?
        .to_owned();
    let at = task.find("favourite number is ")? + "favourite number is ".len();
    task[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

fn cursor_done(home: &Path) -> Vec<String> {
    let dir = home.join("workspaces/personal/imports");
    let Some(file) = std::fs::read_dir(&dir).ok().and_then(|rd| {
        rd.flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "json"))
    }) else {
        return Vec::new();
    };
    let v: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap_or(Value::Null);
    v["done"]
        .as_array()
        .map(|a| a.iter().map(|x| x.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chatgpt_export_killed_midway_resumes_without_repeating_finished_conversations() {
    let e = Env::new();
    let fake = FakeModel::start().await;
    // Every extraction: save the conversation's first user line, then say so; slowly enough to
    // be killed in the middle.
    fake.set_fallback(Reply::Delay(
        Duration::from_millis(120),
        Box::new(Reply::SaveFirstUserLine),
    ));
    let convs: Vec<Value> = (1..=20).map(|k| chatgpt_conversation(k, "")).collect();
    let src = e.dir.path().join("conversations.json");
    std::fs::write(&src, serde_json::to_vec(&convs).unwrap()).unwrap();
    let src = src.to_string_lossy().into_owned();
    let model = |c: &mut std::process::Command| {
        c.env("MNEMO_LLM_BASE_URL", fake.base_url())
            .env("MNEMO_LLM_MODEL", "fake-main");
    };

    // The estimate first.
    let mut c = e.cmd();
    model(&mut c);
    let p = e.json_of(c, &["import", &src, "--dry-run"]);
    assert_eq!(p["format"], "chatgpt");
    assert_eq!(p["conversations"]["conversations"], 20);
    assert_eq!(p["conversations"]["model_calls"], 40);
    assert!(
        p["conversations"]["budget_tokens"].as_u64().unwrap()
            > p["conversations"]["tokens"].as_u64().unwrap()
    );

    // Run, with live progress on stderr; killed once conversation 7 has started.
    let mut c = e.cmd();
    model(&mut c);
    let mut child = c
        .args(["import", &src])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let (l2, stderr) = (Arc::clone(&lines), child.stderr.take().unwrap());
    let t0 = Instant::now();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("{:>6} ms {line}", t0.elapsed().as_millis());
            l2.lock().unwrap().push(line);
        }
    });
    let started = Instant::now();
    while !lines
        .lock()
        .unwrap()
        .iter()
        .any(|l| l == "Conversation 7 / 20")
    {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no progress: {:?}",
            lines.lock().unwrap()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    reader.join().unwrap();
    let first: Vec<String> = lines.lock().unwrap().clone();
    for k in 1..=7 {
        assert!(
            first.contains(&format!("Conversation {k} / 20")),
            "{first:?}"
        );
    }
    let done_before = cursor_done(&e.home());
    assert!(
        done_before.len() >= 6 && done_before.len() < 20,
        "{done_before:?}"
    );
    let sent_before = fake.requests().len();

    // Again: it goes on after the last finished conversation.
    let mut c = e.cmd();
    model(&mut c);
    let out = c.args(["--json", "import", &src]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["status"], "completed", "{t}");
    let summary = t["result"]["summary"].as_str().unwrap();
    assert!(
        summary.starts_with(&format!(
            "learnt from {} of 20 conversations",
            20 - done_before.len()
        )),
        "{summary}"
    );
    let resent: Vec<usize> = fake.requests()[sent_before..]
        .iter()
        .filter_map(conversation_of)
        .collect();
    for id in &done_before {
        let k: usize = id.trim_start_matches("conv-").parse().unwrap();
        assert!(
            !resent.contains(&k),
            "finished conversation {k} was sent again: {resent:?}"
        );
    }
    assert_eq!(cursor_done(&e.home()).len(), 20);
    // Every conversation's fact is remembered, each once, all in the import's one group.
    let facts = e.home().join("workspaces/personal/memory/facts");
    let texts: Vec<String> = std::fs::read_dir(&facts)
        .unwrap()
        .flatten()
        .map(|f| std::fs::read_to_string(f.path()).unwrap())
        .collect();
    for k in 1..=20 {
        let line = format!("The user's favourite number is {k}\n");
        assert_eq!(
            texts.iter().filter(|t| t.ends_with(&line)).count(),
            1,
            "conversation {k}"
        );
    }
    let group = t["result"]["group"].as_i64().unwrap();
    let history = e.json(&["history", "--limit", "200"]);
    let groups: std::collections::BTreeSet<i64> = history
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["path"].as_str().unwrap().starts_with("facts/"))
        .map(|c| c["group"].as_i64().unwrap())
        .collect();
    assert_eq!(groups, [group].into(), "one group across both runs");
    let g = e.json(&["undo", "--group", &group.to_string()]);
    assert_eq!(g["undone"], group, "{g}");
    let left = std::fs::read_dir(&facts).map_or(0, Iterator::count);
    assert_eq!(
        left, 0,
        "undoing the one group takes back the memories of both runs"
    );
    // Undone, the import starts over: a third run would learn from all 20 again.
    let mut c = e.cmd();
    model(&mut c);
    let p = e.json_of(c, &["import", &src, "--dry-run"]);
    assert_eq!(p["conversations"]["done_before"], 0);
}

/// `mnemo <args>` on this home within 512 MiB of address space for the whole process
/// (`ulimit -v`): a 500 MB file held whole cannot fit. glibc's arena per thread would
/// reserve address space the test is not about, so two arenas, as in `sync_edges.rs`.
fn under_512_mb(e: &Env, args: &[&str]) -> std::process::Output {
    let mut c = std::process::Command::new("sh");
    c.arg("-c")
        .arg("ulimit -S -v 524288 && exec \"$@\"")
        .arg("sh")
        .arg(super::BIN)
        .args(args);
    for (k, v) in e.cmd().get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    c.env("MALLOC_ARENA_MAX", "2");
    c.output().unwrap()
}

/// `mnemo --json import <src> --dry-run` under [`under_512_mb`]: it succeeds; its preview.
fn preview_under_512_mb(e: &Env, src: &Path) -> Value {
    let out = under_512_mb(e, &["--json", "import", src.to_str().unwrap(), "--dry-run"]);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_500_mb_export_is_read_as_a_stream() {
    let e = Env::new();
    let src = e.dir.path().join("big.json");
    let filler = format!(" and {}", "x".repeat(25_000));
    let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&src).unwrap());
    w.write_all(b"[").unwrap();
    let mut n = 0usize;
    let mut size = 0usize;
    while size < 500 << 20 {
        let one = serde_json::to_vec(&chatgpt_conversation(n, &filler)).unwrap();
        if n > 0 {
            w.write_all(b",").unwrap();
        }
        w.write_all(&one).unwrap();
        size += one.len() + 1;
        n += 1;
    }
    w.write_all(b"]").unwrap();
    w.flush().unwrap();
    drop(w);
    // At most 512 MiB of address space for the whole process: a file of 500 MB held whole
    // (and the binary beside it) cannot fit.
    let p = preview_under_512_mb(&e, &src);
    assert_eq!(p["conversations"]["conversations"].as_u64(), Some(n as u64));
    std::fs::remove_file(&src).unwrap();
}

/// One 400 MB JSON element, or one 400 MB JSONL line, used to cost 1.7 GB and abort under
/// a memory limit. One of 500 MB under 512 MiB of address space is now refused with its
/// number, cleanly (exit 1, a sentence).
#[test]
fn one_huge_element_or_line_is_refused_within_a_small_memory_limit() {
    let e = Env::new();
    let chunk = vec![b'x'; 1 << 20];
    for (name, head, tail, which) in [
        (
            "element.json",
            &br#"[{"text": "Likes tea."}, {"text": ""#[..],
            &br#""}]"#[..],
            "item 2 ",
        ),
        (
            "line.jsonl",
            &b"{\"text\": \"Likes tea.\"}\n{\"text\": \""[..],
            &b"\"}\n"[..],
            "line 2 ",
        ),
    ] {
        let src = e.dir.path().join(name);
        let mut w = std::io::BufWriter::new(std::fs::File::create(&src).unwrap());
        w.write_all(head).unwrap();
        for _ in 0..500 {
            w.write_all(&chunk).unwrap();
        }
        w.write_all(tail).unwrap();
        w.flush().unwrap();
        drop(w);
        let out = under_512_mb(&e, &["import", src.to_str().unwrap(), "--dry-run"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.contains("too_large") && err.contains(which) && err.contains("MiB"),
            "{name}: {err}"
        );
        std::fs::remove_file(&src).unwrap();
    }
}

/// A 500 MB array of small, different facts used to be planned whole (every fact held).
/// The plan holds at most 64 MiB: under 512 MiB of address space the import is refused at the
/// item where that ran out, cleanly, long before the end of the file.
#[test]
fn a_500_mb_array_of_facts_is_refused_within_a_small_memory_limit() {
    let e = Env::new();
    let src = e.dir.path().join("facts.json");
    let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&src).unwrap());
    w.write_all(b"[").unwrap();
    let (mut n, mut size) = (0usize, 0usize);
    while size < 500 << 20 {
        let one = format!(
            "{}{{\"text\": \"Fact {n}: the north fence has {n} tulip bulbs planted along it, red and yellow.\"}}",
            if n > 0 { "," } else { "" }
        );
        w.write_all(one.as_bytes()).unwrap();
        size += one.len();
        n += 1;
    }
    w.write_all(b"]").unwrap();
    w.flush().unwrap();
    drop(w);
    let out = under_512_mb(&e, &["import", src.to_str().unwrap(), "--dry-run"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("too_large") && err.contains("item ") && err.contains("64 MiB"),
        "{err}"
    );
    std::fs::remove_file(&src).unwrap();
}

/// A 20 KB export whose manifest names one 1 MiB entry 3,000 times (its hash right) once
/// cost 3 GB at preview; under 512 MiB of address space it previews, reading the entry once.
#[test]
fn a_manifest_bomb_previews_within_a_small_memory_limit() {
    let e = Env::new();
    let src = e.dir.path().join("bomb.zip");
    let mut body = b"---\nname: Big\ndescription: big\ntype: user\n---\n".to_vec();
    body.resize(1 << 20, b'a');
    let hash = mnemo_store::fsutil::hash(&body);
    let manifest: Vec<String> = (0..3000)
        .map(|i| {
            json!({"workspace": "personal", "path": format!("m{i}.md"), "zip_path": "big.md", "kind": "topic", "hash": hash, "bytes": body.len()})
                .to_string()
        })
        .collect();
    let mut z = zip::ZipWriter::new(std::fs::File::create(&src).unwrap());
    let deflate = zip::write::SimpleFileOptions::default();
    z.start_file("big.md", deflate).unwrap();
    z.write_all(&body).unwrap();
    z.start_file("manifest.jsonl", deflate).unwrap();
    z.write_all(manifest.join("\n").as_bytes()).unwrap();
    z.finish().unwrap();
    assert!(std::fs::metadata(&src).unwrap().len() < 100_000);
    let p = preview_under_512_mb(&e, &src);
    assert_eq!(
        (p["items"].as_u64(), p["files"].as_u64()),
        (Some(3000), Some(1)),
        "{p}"
    );
}

#[test]
fn every_format_is_told_apart_and_mistakes_are_said_plainly() {
    let e = Env::new();
    let d = e.dir.path();
    let w = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    };
    let cases = [
        (
            w(
                "chatgpt.json",
                &serde_json::to_string(&[chatgpt_conversation(1, "")]).unwrap(),
            ),
            "chatgpt",
        ),
        (
            w(
                "claude.json",
                r#"[{"uuid": "u1", "name": "Plans", "created_at": "2024-05-01T10:00:00Z", "chat_messages": [{"sender": "human", "text": "I am moving to Porto in May"}, {"sender": "assistant", "text": "Exciting!"}]}]"#,
            ),
            "claude_ai",
        ),
        (
            w(
                "cc/projects/-home-a-app/0b1c.jsonl",
                "{\"type\":\"user\",\"sessionId\":\"0b1c\",\"message\":{\"role\":\"user\",\"content\":\"Use pnpm, never npm\"}}\n",
            ),
            "transcripts",
        ),
        (
            w(
                "mem0.jsonl",
                "{\"id\": \"1\", \"memory\": \"Likes hiking\"}\n",
            ),
            "mem0",
        ),
        (
            w(
                "cm.json",
                r#"{"observations": [{"id": 1, "title": "Chose axum", "narrative": "for the HTTP twin"}]}"#,
            ),
            "claude_mem",
        ),
        (
            w(
                "plain.json",
                r#"[{"text": "Allergic to peanuts", "type": "user"}]"#,
            ),
            "json",
        ),
        (w("notes/a.md", "# A note\n\nSome text.\n"), "markdown"),
    ];
    for (path, format) in &cases {
        let src = if *format == "transcripts" {
            d.join("cc").to_string_lossy().into_owned()
        } else if *format == "markdown" {
            d.join("notes").to_string_lossy().into_owned()
        } else {
            path.clone()
        };
        let p = e.json(&["import", &src, "--dry-run"]);
        assert_eq!(p["format"], *format, "{src}: {p}");
        assert_eq!(p["items"], 1, "{src}: {p}");
    }
    // Relative paths are taken from where the command runs.
    let mut c = e.cmd();
    c.current_dir(d);
    let p = e.json_of(c, &["import", "plain.json", "--dry-run"]);
    assert_eq!(p["memories"], 1);
    // Human text: the preview, then what was written and how to undo it.
    let out = e.run(&["import", &cases[5].0]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("1 item: 1 memory in 1 new file")
            && text.contains("undo it all with `mnemo undo --group"),
        "{text}"
    );
    // Mistakes.
    assert_eq!(
        e.json_err(&["import", &w("bad.json", "[{\"text\": 1"), "--dry-run"], 1),
        "invalid_content"
    );
    assert_eq!(
        e.json_err(
            &[
                "import",
                &d.join("none.json").to_string_lossy(),
                "--dry-run"
            ],
            1
        ),
        "not_found"
    );
    assert_eq!(
        e.json_err(&["import", &cases[0].0], 1),
        "model_not_configured"
    );
    assert_eq!(
        e.json_err(&["import", &cases[5].0, "--type", "mood"], 1),
        "invalid_type"
    );
    // Export, then copy into another workspace.
    let out = d.join("e.zip");
    let r = e.json(&[
        "export",
        "--workspace",
        "personal",
        "-o",
        &out.to_string_lossy(),
    ]);
    assert!(r["files"].as_u64().unwrap() >= 2 && out.exists());
    assert_eq!(
        e.json_err(&["export", "-o", &out.to_string_lossy()], 1),
        "conflict"
    );
}

#[test]
fn a_whole_home_export_restores_into_a_fresh_home_only_when_confirmed() {
    let a = Env::new();
    write(
        &a.personal().join("tea.md"),
        &topic("Tea", "tea", "user", "Mint tea."),
    );
    write(
        &a.home().join("workspaces/team-x/memory/standup.md"),
        &topic("Standup", "when", "project", "Standup at 9:30."),
    );
    let zip = a.dir.path().join("home.zip");
    a.json(&["export", "-o", &zip.to_string_lossy()]);
    let b = Env::new();
    let src = zip.to_string_lossy().into_owned();
    // Not confirmed: the preview lists both, one by one, and nothing is written.
    let out = b.run(&["import", &src]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("[ ] personal") && said.contains("[ ] team-x"),
        "{said}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("--all-workspaces"));
    assert!(!b.personal().join("tea.md").exists());
    // Confirmed: each back into its own, the missing one created.
    let preview = b.json(&["import", &src, "--dry-run", "--all-workspaces"]);
    assert_eq!(preview["workspace"], "personal, team-x", "{preview}");
    let done = b.json(&["import", &src, "--all-workspaces"]);
    assert_eq!(done["status"], "completed", "{done}");
    assert!(b.personal().join("tea.md").exists());
    assert!(
        b.home()
            .join("workspaces/team-x/memory/standup.md")
            .exists()
    );
    let ids = b.workspace_ids();
    assert!(ids.contains(&"team-x".to_owned()), "{ids:?}");
}

fn add_to(e: &Env, ws: &str, ty: &str, name: &str, body: &str) {
    let out = e.add_in(ws, ty, name, body);
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn a_whole_home_of_three_workspaces_comes_back_byte_for_byte_after_each_target_is_confirmed() {
    // Home A: its own memory, a Claude Code project's memory and an added folder.
    let a = Env::new();
    let claude_a = a.dir.path().join("claude/projects/-home-ana-app/memory");
    std::fs::create_dir_all(&claude_a).unwrap();
    let notes = a.dir.path().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    let listed = a.json(&["workspaces", "add-folder", notes.to_str().unwrap()]);
    let folder = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "folder")
        .and_then(|w| w["id"].as_str())
        .unwrap()
        .to_owned();
    add_to(&a, "personal", "user", "Tea", "Mint tea, no sugar.");
    add_to(
        &a,
        "personal",
        "feedback",
        "Answers",
        "Short answers; 中文 is fine.",
    );
    add_to(
        &a,
        "claude:-home-ana-app",
        "project",
        "Build",
        "cargo build --workspace",
    );
    add_to(
        &a,
        &folder,
        "reference",
        "Dashboards",
        "Grafana at grafana.example/d/api.",
    );
    // Claude Code wrote one itself, CRLF and all.
    write(
        &claude_a.join("deploy_notes.md"),
        "---\r\nname: Deploy\r\ndescription: how we ship\r\ntype: project\r\n---\r\nShip on Tuesdays.\r\n",
    );
    a.json(&["index"]);
    let personal_a = tree(&a.personal());
    let app_a = tree(&claude_a);
    let notes_a = tree(&notes);
    assert!(app_a.contains_key(Path::new("MEMORY.md")), "{app_a:?}");
    let zip = a.dir.path().join("home.zip");
    a.json(&["export", "-o", &zip.to_string_lossy()]);
    let src = zip.to_string_lossy().into_owned();
    // The added folder is not on the new machine.
    std::fs::rename(&notes, a.dir.path().join("notes-from-a")).unwrap();

    // Home B, fresh, with its own (empty) Claude Code folder.
    let b = Env::new();
    let claude_b = b.dir.path().join("claude/projects/-home-ana-app/memory");
    // The preview lists each workspace with where it would go; only Mnemo's own is chosen by
    // --all-workspaces, the other two wait for the person to confirm them.
    let preview = b.json(&["import", &src, "--dry-run", "--all-workspaces"]);
    let restore = preview["restore"].as_array().unwrap();
    assert_eq!(restore.len(), 3, "{preview}");
    let choice = |id: &str| {
        restore
            .iter()
            .find(|c| c["workspace"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(choice("personal")["chosen"], true);
    let app = choice("claude:-home-ana-app");
    assert_eq!(app["chosen"], false, "{app}");
    assert_eq!(app["exists"], false);
    assert_eq!(app["target"], claude_b.display().to_string(), "{app}");
    assert!(
        app["why_not"]
            .as_str()
            .unwrap()
            .contains("--restore claude:-home-ana-app"),
        "{app}"
    );
    let f = choice(&folder);
    assert_eq!(f["chosen"], false, "{f}");
    assert_eq!(f["target"], notes.display().to_string(), "{f}");
    let said = String::from_utf8_lossy(
        &b.run(&["import", &src, "--dry-run", "--all-workspaces"])
            .stdout,
    )
    .into_owned();
    assert!(
        said.contains(&format!("→ {}", claude_b.display())),
        "{said}"
    );
    assert!(said.contains(&format!("→ {}", notes.display())), "{said}");
    assert!(
        !claude_b.exists() && !notes.exists(),
        "a preview makes nothing"
    );

    // Confirmed, each by name: all three come back, byte for byte.
    let done = b.json(&[
        "import",
        &src,
        "--all-workspaces",
        "--restore",
        "claude:-home-ana-app",
        "--restore",
        &folder,
    ]);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(tree(&b.personal()), personal_a);
    assert_eq!(tree(&claude_b), app_a);
    assert_eq!(tree(&notes), notes_a);
    let ids = b.workspace_ids();
    for id in ["personal", "claude:-home-ana-app", folder.as_str()] {
        assert!(ids.iter().any(|i| i == id), "{id} in {ids:?}");
    }
    // One change group per workspace, undone whole: the made folders hold no memory after.
    let show = b.json(&["list", "-w", "claude:-home-ana-app"]);
    assert!(show.to_string().contains("Deploy"), "{show}");
}

fn count_md(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |rd| {
        rd.flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".md"))
            .count()
    })
}

#[test]
fn a_memory_import_killed_midway_is_taken_back_by_the_next_process() {
    let e = Env::new();
    let notes = e.dir.path().join("garden");
    std::fs::create_dir_all(&notes).unwrap();
    // Sixteen steps of 1,024 files: the import is paused (SIGSTOP) until its marker is older
    // than 2 s, looked at by another process while it runs, then frozen again and killed.
    let n = 16_000;
    for i in 0..n {
        std::fs::write(
            notes.join(format!("note-{i:04}.md")),
            format!("Planted {i} tulip bulbs along the north fence.\n"),
        )
        .unwrap();
    }
    let before = e.json(&["list"]);
    let mut child = e
        .cmd()
        .args(["import", notes.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let target = e.personal().join("garden");
    let started = Instant::now();
    while count_md(&target) < 100 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the import never wrote"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = child.id().to_string();
    let signal = |sig: &str| {
        let ok = std::process::Command::new("kill")
            .args([sig, &pid])
            .status()
            .unwrap();
        assert!(ok.success(), "kill {sig}");
    };
    // Another process opening the home meanwhile leaves the live import alone (its marker is
    // older than 2 s, but its lock is held by a process that is there).
    signal("-STOP");
    std::thread::sleep(Duration::from_millis(2100));
    let before_status = count_md(&target);
    signal("-CONT");
    e.json(&["status"]);
    signal("-STOP");
    let mid = count_md(&target);
    assert!(
        mid >= before_status,
        "nothing of the live import taken back"
    );
    assert!(
        child.try_wait().unwrap().is_none(),
        "still importing after the other process looked"
    );
    signal("-CONT");
    let went_on = Instant::now();
    while count_md(&target) <= mid {
        assert!(
            went_on.elapsed() < Duration::from_secs(120),
            "the import did not go on"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    signal("-STOP");
    assert!(
        child.try_wait().unwrap().is_none(),
        "still importing when killed"
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let left = count_md(&target);
    assert!(left > 100 && left < n, "{left}");
    // The next process takes the half-written import back, whole.
    std::thread::sleep(Duration::from_millis(2100));
    let status = e.json(&["status"]);
    assert!(
        status.to_string().contains("an import was interrupted"),
        "{status}"
    );
    assert_eq!(count_md(&target), 0);
    assert_eq!(e.json(&["list"]), before);
    // Run again: all of it.
    let t = e.json(&["import", notes.to_str().unwrap()]);
    assert_eq!(t["status"], "completed", "{t}");
    assert_eq!(count_md(&target), n);
}

/// An import stopped at its budget says so in its code (`budget_spent`, not `io`) and
/// its message says the model failed when that is what spent it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budget_stop_is_named_for_what_it_is() {
    let e = Env::new();
    let fake = FakeModel::start().await;
    // The first conversation is learnt from; then the model refuses every request.
    fake.push(Reply::SaveFirstUserLine);
    fake.push(Reply::SaveFirstUserLine);
    fake.set_fallback(Reply::Status(
        400,
        json!({"error": {"message": "context length exceeded"}}),
    ));
    let convs: Vec<Value> = (1..=6).map(|k| chatgpt_conversation(k, "")).collect();
    let src = e.dir.path().join("conversations.json");
    std::fs::write(&src, serde_json::to_vec(&convs).unwrap()).unwrap();
    let src = src.to_string_lossy().into_owned();
    // A budget for about two and a half conversations.
    let mut c = e.cmd();
    c.env("MNEMO_LLM_BASE_URL", fake.base_url())
        .env("MNEMO_LLM_MODEL", "fake-main");
    let p = e.json_of(c, &["import", &src, "--dry-run"]);
    let per = p["conversations"]["tokens"].as_u64().unwrap() / 6;
    let budget = per * 2 + per / 2;
    let out = e
        .cmd()
        .env("MNEMO_LLM_BASE_URL", fake.base_url())
        .env("MNEMO_LLM_MODEL", "fake-main")
        .args(["--json", "import", &src, "--budget", &budget.to_string()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "budget_spent", "{v}");
    let said = v["error"]["message"].as_str().unwrap();
    assert!(said.contains("the model failed on"), "{said}");
    assert!(said.contains("context length exceeded"), "{said}");
}
