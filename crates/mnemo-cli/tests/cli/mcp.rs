//! `mnemo mcp` driven by a real MCP client this project did not write — the official Python SDK
//! (PyPI `mcp`, installed by `scripts/test.sh` in a venv and named by `MNEMO_MCP_PYTHON`) — with
//! `mnemo serve` running on the same home to show the writes are announced. Also: the server's
//! stdout carries only the protocol, and it exits cleanly when the client closes stdin.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{BIN, Env};

/// The Python with `mcp` installed, or `None` (with a note) where the set-up did not run. Where it
/// must have run (`CI=true`, or `scripts/test.sh`, which sets `MNEMO_MCP_PYTHON`) its absence
/// fails the test.
fn mcp_python() -> Option<PathBuf> {
    let named = std::env::var_os("MNEMO_MCP_PYTHON").map(PathBuf::from);
    let found = named.clone().filter(|p| {
        Command::new(p)
            .args(["-c", "import mcp"])
            .status()
            .is_ok_and(|s| s.success())
    });
    let required = named.is_some() || std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(
        found.is_some() || !required,
        "the MCP Python client is required here but {named:?} cannot import mcp: run scripts/test.sh's set-up"
    );
    if found.is_none() {
        eprintln!("skipped: no MCP Python client (set MNEMO_MCP_PYTHON)");
    }
    found
}

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_python_mcp_client_remembers_recalls_and_forgets_and_serve_announces_it() {
    use mnemo_testkit::{FakeModel, Kind, Reply};
    let Some(python) = mcp_python() else {
        return;
    };
    let e = Env::new();
    e.json(&["index"]);
    let fake = FakeModel::start().await;
    fake.push_for(Kind::Tools, Reply::SaveFact);
    fake.push_for(Kind::Tools, Reply::text("Saved it."));
    // The second remember, in review mode: a proposal.
    fake.push_for(Kind::Tools, Reply::SaveFact);
    fake.push_for(Kind::Tools, Reply::text("Saved it."));

    // `mnemo serve` on the same home: its watcher announces what the MCP server writes.
    let mut serve = e.cmd();
    serve
        .args(["serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut serve = Killed(serve.spawn().unwrap());
    // Kept open to the end: `serve` prints more, and a closed pipe would stop it.
    let mut serve_out = BufReader::new(serve.0.stdout.take().unwrap());
    let mut first = String::new();
    serve_out.read_line(&mut first).unwrap();
    let url = first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {first:?}"));
    let (base, _) = url.split_once("/?login=").unwrap();
    let token = std::fs::read_to_string(e.home().join("server.token")).unwrap();
    let token = token.trim();

    let script = PathBuf::from(manifest_dir()).join("tests/cli/mcp_client.py");
    let work = e.dir.path().join("not-a-repo");
    std::fs::create_dir_all(&work).unwrap();
    let mut cmd = Command::new(python);
    cmd.arg(script)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", std::env::var_os("HOME").unwrap_or_default())
        .env("MNEMO_HOME", e.home())
        .env("MNEMO_CLAUDE_DIR", e.dir.path().join("claude"))
        .env("MNEMO_QWEN_DIR", e.dir.path().join("qwen"))
        .env("MNEMO_EMBED_MODEL", "off")
        .env("MNEMO_LLM_BASE_URL", fake.base_url())
        .env("MNEMO_LLM_MODEL", "fake-main")
        .env("MNEMO_BIN", BIN)
        .env("SERVE_URL", base)
        .env("SERVE_TOKEN", token)
        .env("WORK_DIR", &work);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("MCP OK"),
        "the Python MCP client failed:\n{stdout}\n{stderr}"
    );
    drop(serve_out);
    // The fake model saw the fact as the remember agent's task.
    assert!(
        fake.requests()
            .iter()
            .any(|r| r.to_string().contains("called Tofu")),
        "the remember agent got the fact"
    );
}

/// Spawn `mnemo mcp` with piped stdio.
fn mcp(e: &Env) -> Child {
    e.cmd()
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_exit(child: &mut Child, within: Duration) -> Option<std::process::ExitStatus> {
    let start = Instant::now();
    while start.elapsed() < within {
        if let Some(s) = child.try_wait().unwrap() {
            return Some(s);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

/// `mnemo mcp` spoken to raw (no SDK), its handshake sent (`initialize` as id 1, whose answer
/// is the first line out, then `initialized`): the child and its stdin.
pub(super) fn raw_mcp(mut cmd: Command) -> (Child, std::process::ChildStdin) {
    let mut c = cmd
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = c.stdin.take().unwrap();
    for msg in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ] {
        writeln!(stdin, "{msg}").unwrap();
    }
    (c, stdin)
}

#[test]
fn the_server_exits_cleanly_when_the_client_closes_stdin_and_prints_only_protocol() {
    let e = Env::new();
    // Before the handshake.
    let mut c = Killed(mcp(&e));
    drop(c.0.stdin.take());
    let status = wait_exit(&mut c.0, Duration::from_secs(10)).expect("exits");
    assert!(status.success(), "{status:?}");

    // After a handshake and a call: every stdout line is a JSON-RPC message.
    let mut c = Killed(mcp(&e));
    let mut stdin = c.0.stdin.take().unwrap();
    for msg in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read","arguments":{"path":"/etc/passwd"}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"remember","arguments":{"content":"tea"}}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"resources/list","params":{"cursor":"zz"}}"#,
    ] {
        writeln!(stdin, "{msg}").unwrap();
    }
    // Wait for every answer before closing.
    let mut stdout = BufReader::new(c.0.stdout.take().unwrap());
    let mut lines = Vec::new();
    while lines.len() < 5 {
        let mut l = String::new();
        if stdout.read_line(&mut l).unwrap() == 0 {
            break;
        }
        lines.push(l);
    }
    drop(stdin);
    let status = wait_exit(&mut c.0, Duration::from_secs(10)).expect("exits after stdin closes");
    assert!(status.success(), "{status:?}");
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    lines.extend(rest.lines().map(str::to_owned));
    let msgs: Vec<serde_json::Value> = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not JSON-RPC: {l:?}")))
        .collect();
    let by_id = |id: i64| {
        msgs.iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("no answer {id}: {msgs:?}"))
    };
    assert_eq!(by_id(1)["result"]["serverInfo"]["name"], "mnemo");
    assert_eq!(
        by_id(2)["result"]["structuredContent"]["workspace"],
        "personal"
    );
    assert_eq!(by_id(3)["error"]["data"]["code"], "path_escape", "{msgs:?}");
    // No model configured: remember says what to set up.
    assert_eq!(
        by_id(4)["error"]["data"]["code"],
        "managed_memory_unavailable",
        "{msgs:?}"
    );
    assert_eq!(
        by_id(5)["error"]["data"]["code"],
        "invalid_arguments",
        "{msgs:?}"
    );
}

#[test]
fn an_unknown_workspace_is_refused_at_start() {
    let e = Env::new();
    let out = e.run(&["--json", "--workspace", "nope", "mcp"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "not_found");
}

#[test]
fn calls_default_to_the_workspace_bound_to_the_clients_repository() {
    let e = Env::new();
    let (repo, id) = e.bind_repo("app");
    let mut c = e.cmd();
    c.arg("mcp")
        .current_dir(repo.join(".git"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut c = Killed(c.spawn().unwrap());
    let mut stdin = c.0.stdin.take().unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"raw","version":"0"}}}}}}"#).unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"status","arguments":{{}}}}}}"#).unwrap();
    let mut stdout = BufReader::new(c.0.stdout.take().unwrap());
    let mut answer = None;
    for _ in 0..5 {
        let mut l = String::new();
        if stdout.read_line(&mut l).unwrap() == 0 {
            break;
        }
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        if v["id"] == 2 {
            answer = Some(v);
            break;
        }
    }
    drop(stdin);
    let answer = answer.expect("an answer to status");
    assert_eq!(answer["result"]["structuredContent"]["workspace"], id);
}

#[test]
fn trace_logs_of_mcp_and_serve_never_carry_memory_text_or_arguments() {
    const PLANTED: &str = "PLANTED-c0ffee-7e57";
    let e = Env::new();
    super::write(
        &e.personal().join("planted.md"),
        &super::topic(
            "Planted",
            "A marker",
            "user",
            &format!("The marker is {PLANTED}."),
        ),
    );
    // MCP, at trace level: a search for the marker and a read of the file holding it.
    let mut cmd = e.cmd();
    cmd.env("MNEMO_LOG", "trace");
    let (mut c, mut stdin) = raw_mcp(cmd);
    for msg in [
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"search","arguments":{{"query":"{PLANTED}"}}}}}}"#),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read","arguments":{"path":"planted.md"}}}"#.to_owned(),
    ] {
        writeln!(stdin, "{msg}").unwrap();
    }
    let mut out = BufReader::new(c.stdout.take().unwrap());
    let mut answers = String::new();
    for _ in 0..3 {
        let mut l = String::new();
        if out.read_line(&mut l).unwrap() == 0 {
            break;
        }
        answers.push_str(&l);
    }
    drop(stdin);
    let mut err = String::new();
    c.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let _ = c.wait();
    assert!(answers.contains(PLANTED), "the client got it: {answers}");
    assert!(!err.is_empty(), "trace logging is on");
    assert!(
        !err.contains(PLANTED),
        "MCP trace logs carry memory text: {err}"
    );

    // The CLI, at trace level: a search for the marker and the file holding it, shown.
    for args in [
        vec!["--json", "search", PLANTED],
        vec!["show", "planted.md"],
    ] {
        let out = e
            .cmd()
            .env("MNEMO_LOG", "trace")
            .args(&args)
            .output()
            .unwrap();
        assert!(out.status.success());
        // The search finds the file; `show` prints its text.
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("planted.md") || stdout.contains(PLANTED),
            "{stdout}"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains(PLANTED),
            "CLI trace logs carry memory text: {err}"
        );
    }

    // The HTTP transport, at trace level: a search through the API.
    let mut serve = e
        .cmd()
        .env("MNEMO_LOG", "trace")
        .args(["serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    // Kept open to the end: `serve` prints a second line, and a closed pipe would stop it.
    let mut serve_out = BufReader::new(serve.stdout.take().unwrap());
    serve_out.read_line(&mut first).unwrap();
    let url = first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap();
    let base = url.split_once("/?").unwrap().0;
    let token = std::fs::read_to_string(e.home().join("server.token")).unwrap();
    let got = Command::new("curl")
        .args(["-s", "-H"])
        .arg(format!("Authorization: Bearer {}", token.trim()))
        .args(["-H", "content-type: application/json", "-d"])
        .arg(format!(
            r#"{{"query":"{PLANTED}","workspace":null,"limit":5}}"#
        ))
        .arg(format!("{base}/api/search"))
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&got.stdout).contains("planted.md"),
        "{}",
        String::from_utf8_lossy(&got.stdout)
    );
    let _ = serve.kill();
    let _ = serve.wait();
    let mut err = String::new();
    serve
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(
        !err.contains(PLANTED),
        "HTTP trace logs carry memory text: {err}"
    );
    assert!(
        !err.contains(token.trim()),
        "HTTP trace logs carry the token"
    );
}

/// `mnemo mcp` once echoed tool arguments (paths, workspace ids holding secrets, a 5 MB
/// path) to stderr at the default level through rmcp's `response error` warnings. At every
/// level, nothing a client sent reaches the log unless redacted and cut.
#[test]
fn mcp_logs_no_argument_a_client_sent_at_any_level() {
    let e = Env::new();
    let secrets = [
        "sk-ant-api03-Zx8Kq2Lm7Np4Vt9Wy3Bc6Df1Gh5Jk0Ls8Mn2Pq4Rt6Vw9",
        "AKIAQ7X2M4N6P8R0T2V4",
        "ghp_R8x2Kq7Lm3Np9Vt4Wz6Yb1Cd5Fg0Hj2Ks4Mx",
    ];
    let huge = "d/".repeat(2_500_000);
    for level in [
        None,
        Some("warn"),
        Some("info"),
        Some("debug"),
        Some("trace"),
    ] {
        let mut cmd = e.cmd();
        if let Some(l) = level {
            cmd.env("MNEMO_LOG", l);
        }
        let (mut c, mut stdin) = raw_mcp(cmd);
        let mut msgs = Vec::new();
        let calls = [
            serde_json::json!({"name": "read", "arguments": {"path": format!("password: {}", secrets[0])}}),
            serde_json::json!({"name": "search", "arguments": {"query": "x", "workspace": secrets[1]}}),
            serde_json::json!({"name": format!("tool-{}", secrets[2]), "arguments": {}}),
            serde_json::json!({"name": "read", "arguments": {"path": huge}}),
        ];
        for (i, call) in calls.iter().enumerate() {
            msgs.push(
                serde_json::json!({"jsonrpc": "2.0", "id": i + 2, "method": "tools/call", "params": call})
                    .to_string(),
            );
        }
        for m in &msgs {
            writeln!(stdin, "{m}").unwrap();
        }
        let mut out = BufReader::new(c.stdout.take().unwrap());
        let mut answered = 0;
        while answered < 5 {
            let mut l = String::new();
            if out.read_line(&mut l).unwrap() == 0 {
                break;
            }
            answered += 1;
        }
        assert_eq!(answered, 5, "every call answered at {level:?}");
        drop(stdin);
        let mut err = String::new();
        c.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        let _ = c.wait();
        for s in secrets {
            assert!(!err.contains(s), "{s} in the log at {level:?}: {err}");
        }
        assert!(
            err.len() < 100_000,
            "{} bytes of log at {level:?}",
            err.len()
        );
        if level == Some("debug") {
            assert!(
                err.contains("MCP tool call failed"),
                "the failures are logged: {err}"
            );
        }
    }
}

#[test]
fn a_message_over_16_mib_is_answered_and_the_session_goes_on() {
    let e = Env::new();
    let (mut c, mut stdin) = raw_mcp(e.cmd());
    let big = serde_json::json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "remember", "arguments": {"content": "x".repeat(17 * 1024 * 1024)}}
    });
    let after = serde_json::json!({
        "jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "status", "arguments": {}}
    });
    let writer = std::thread::spawn(move || {
        writeln!(stdin, "{big}").unwrap();
        writeln!(stdin, "{after}").unwrap();
        stdin
    });
    let mut out = BufReader::new(c.stdout.take().unwrap());
    let mut answers = std::collections::HashMap::new();
    while answers.len() < 3 {
        let mut l = String::new();
        if out.read_line(&mut l).unwrap() == 0 {
            break;
        }
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        answers.insert(v["id"].as_u64().unwrap(), v);
    }
    drop(writer.join().unwrap());
    let _ = c.wait();
    let refused = &answers[&2]["error"];
    assert_eq!(refused["code"], -32600, "{refused}");
    let message = refused["message"].as_str().unwrap();
    assert!(
        message.contains("at most 16 MiB") && message.contains("bytes"),
        "{message}"
    );
    assert_eq!(refused["data"]["code"], "too_large");
    assert!(
        answers[&3]["result"].is_object(),
        "the next call is served: {}",
        answers[&3]
    );
}

/// This crate's folder, read when the test runs (cargo sets it): a test binary built from
/// another checkout sharing the target dir must not reach into that checkout's files.
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned())
}
