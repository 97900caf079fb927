//! The HTTP server for real: bound on 127.0.0.1, called with reqwest.

#![allow(clippy::unwrap_used)]

mod remember;

use std::time::Duration;

use mnemo_api::Api;
use mnemo_store::Home;
use serde_json::{Value, json};

struct Running {
    _dir: tempfile::TempDir,
    base: String,
    token: String,
    login: String,
    home: std::path::PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

async fn start() -> Running {
    let dir = tempfile::tempdir().unwrap();
    let home = Home {
        root: dir.path().join("home"),
        claude_dir: dir.path().join("c"),
        qwen_dir: dir.path().join("q"),
    };
    let ui = dir.path().join("ui");
    std::fs::create_dir_all(&ui).unwrap();
    std::fs::write(ui.join("index.html"), "<!doctype html><title>Mnemo</title>").unwrap();
    let root = home.root.clone();
    let api = Api::open(home).unwrap();
    api.start_watching().unwrap();
    let (listener, serving) = mnemo_server::bind(&root, 0).await.unwrap();
    let (stop, rx) = tokio::sync::oneshot::channel::<()>();
    let base = format!("http://{}", serving.addr);
    let token = serving.token.clone();
    let login = serving.login_url();
    tokio::spawn(async move {
        mnemo_server::run(listener, &serving, api, &ui, async {
            let _ = rx.await;
        })
        .await
        .unwrap();
    });
    Running {
        _dir: dir,
        base,
        token,
        login,
        home: root,
        stop: Some(stop),
    }
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

impl Running {
    async fn call(&self, command: &str, args: Value) -> (u16, Value) {
        let r = client()
            .post(format!("{}/api/{command}", self.base))
            .bearer_auth(&self.token)
            .json(&args)
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json().await.unwrap())
    }
}

#[tokio::test]
async fn token_file_is_private_and_required() {
    let s = start().await;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(s.home.join("server.token"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    for (method, path) in [
        ("POST", "/api/list"),
        ("GET", "/events"),
        ("GET", "/capabilities"),
        ("GET", "/"),
    ] {
        let r = client()
            .request(method.parse().unwrap(), format!("{}{path}", s.base))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401, "{method} {path}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["code"], "unauthorized");
    }
    let r = client()
        .post(format!("{}/api/list", s.base))
        .bearer_auth("wrong")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // The token survives restarts: the same file is reused.
    assert_eq!(
        mnemo_server::load_or_create_token(&s.home).unwrap(),
        s.token
    );
}

#[tokio::test]
async fn login_url_sets_a_cookie_that_authorises_the_page() {
    let s = start().await;
    assert!(
        !s.login.contains(&s.token),
        "the login URL does not carry the token"
    );
    let r = client().get(&s.login).send().await.unwrap();
    assert_eq!(r.status(), 303);
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
    assert!(cookie.contains("Max-Age="), "the session expires: {cookie}");
    assert!(
        !cookie.contains(&s.token),
        "the cookie never carries the token: {cookie}"
    );
    let pair = cookie.split(';').next().unwrap().to_owned();
    let port = s.base.rsplit(':').next().unwrap();
    assert!(
        pair.starts_with(&format!("mnemo_session_{port}=")),
        "the cookie is named after this server's port: {pair}"
    );
    // The login URL works once: a second use is refused.
    let again = client().get(&s.login).send().await.unwrap();
    assert_eq!(again.status(), 401);
    assert!(again.text().await.unwrap().contains("already used"));
    // The token is accepted only in the Authorization header: not as a cookie, not in the URL.
    let as_cookie = client()
        .get(format!("{}/", s.base))
        .header("cookie", format!("mnemo_token={}", s.token))
        .send()
        .await
        .unwrap();
    assert_eq!(as_cookie.status(), 401);
    let in_url = client()
        .get(format!("{}/?token={}", s.base, s.token))
        .send()
        .await
        .unwrap();
    assert_eq!(in_url.status(), 401);
    let page = client()
        .get(format!("{}/", s.base))
        .header("cookie", &pair)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let page_headers = page.headers().clone();
    assert!(page.text().await.unwrap().contains("Mnemo"));
    // SPA fallback: unknown paths serve index.html.
    let deep = client()
        .get(format!("{}/memories/x", s.base))
        .header("cookie", &pair)
        .send()
        .await
        .unwrap();
    assert_eq!(deep.status(), 200);
    let bad = client()
        .get(format!("{}/?login=nope", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 401);
    // Every answer, a refusal too, carries the security headers: never framed, no sniffing,
    // no referrer, only Mnemo's own scripts.
    for h in [&page_headers, bad.headers()] {
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(
            csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'"),
            "{csp}"
        );
        assert_eq!(h["x-frame-options"], "DENY");
        assert_eq!(h["x-content-type-options"], "nosniff");
        assert_eq!(h["referrer-policy"], "no-referrer");
    }
}

#[tokio::test]
async fn commands_round_trip_with_the_same_arguments_as_tauri() {
    let s = start().await;
    let (st, created) = s
        .call("create", json!({"workspace": "personal", "memory": {"path": null, "name": "Style", "description": "terse 简洁", "type": "feedback", "body": "short"}}))
        .await;
    assert_eq!(st, 200, "{created}");
    let (_, hits) = s
        .call(
            "search",
            json!({"workspace": null, "query": "简洁", "limit": 5}),
        )
        .await;
    assert_eq!(hits[0]["path"], "style.md");
    let (st, err) = s.call("create", json!({"workspace": "personal", "memory": {"path": null, "name": "Style", "description": "d", "type": "feedback", "body": ""}})).await;
    assert_eq!((st, err["code"].as_str().unwrap()), (409, "conflict"));
    let (st, err) = s
        .call(
            "get",
            json!({"workspace": "personal", "path": "../../etc/passwd"}),
        )
        .await;
    assert_eq!((st, err["code"].as_str().unwrap()), (400, "path_escape"));
    let (st, err) = s
        .call(
            "update",
            json!({"workspace": "personal", "path": "style.md", "patch": {"type": "note"}}),
        )
        .await;
    // As for `create`: a type outside the closed set does not fit the arguments, and the
    // message names the set.
    assert_eq!(
        (st, err["code"].as_str().unwrap()),
        (400, "invalid_arguments")
    );
    assert!(
        err["message"].as_str().unwrap().contains("feedback"),
        "{err}"
    );
}

#[tokio::test]
async fn unknown_command_bad_json_and_oversized_bodies() {
    let s = start().await;
    let (st, err) = s.call("frobnicate", json!({})).await;
    assert_eq!(st, 404);
    assert_eq!(err["code"], "unknown_command");
    assert!(err["message"].as_str().unwrap().contains("frobnicate"));
    let r = client()
        .post(format!("{}/api/list", s.base))
        .bearer_auth(&s.token)
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(
        r.json::<Value>().await.unwrap()["code"],
        "invalid_arguments"
    );
    let big = "x".repeat(mnemo_server::MAX_BODY_BYTES + 10);
    let r = client()
        .post(format!("{}/api/create", s.base))
        .bearer_auth(&s.token)
        .body(format!("{{\"pad\":\"{big}\"}}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "too_large");
}

#[tokio::test]
async fn other_origins_and_hosts_are_refused() {
    let s = start().await;
    let r = client()
        .post(format!("{}/api/list", s.base))
        .bearer_auth(&s.token)
        .header("origin", "https://evil.example")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.headers().get("access-control-allow-origin").is_none());
    let r = client()
        .post(format!("{}/api/list", s.base))
        .bearer_auth(&s.token)
        .header("host", "evil.example")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let same = client()
        .post(format!("{}/api/list", s.base))
        .bearer_auth(&s.token)
        .header("origin", s.base.clone())
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(same.status(), 200);
}

#[tokio::test]
async fn capabilities_name_every_command() {
    let s = start().await;
    let caps: Value = client()
        .get(format!("{}/capabilities", s.base))
        .bearer_auth(&s.token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(caps["name"], "mnemo");
    let commands: Vec<&str> = caps["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let served: Vec<&str> = mnemo_api::COMMANDS
        .iter()
        .filter(|c| !c.desktop_only)
        .map(|c| c.name)
        .collect();
    assert_eq!(commands, served);
    assert_eq!(caps["desktopOnly"], serde_json::json!(["open_folder"]));
    // A desktop-only command over HTTP says so (the browser UI hides it instead).
    let r = client()
        .post(format!("{}/api/open_folder", s.base))
        .bearer_auth(&s.token)
        .json(&serde_json::json!({"workspace": "personal"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 501);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "desktop_only");
}

#[tokio::test]
async fn sse_delivers_memory_changed_after_a_write() {
    let s = start().await;
    let mut stream = client()
        .get(format!("{}/events", s.base))
        .bearer_auth(&s.token)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    assert!(
        stream.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    // A write through the API…
    s.call("create", json!({"workspace": "personal", "memory": {"path": "a.md", "name": "A", "description": "d", "type": "user", "body": "x"}})).await;
    // …and one by another program, seen by the watcher.
    let outside = s.home.join("workspaces/personal/memory/b.md");
    std::fs::write(
        &outside,
        "---\nname: B\ndescription: d\ntype: user\n---\nby an editor\n",
    )
    .unwrap();
    let mut buf = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while !(buf.contains("\"a.md\"") && buf.contains("\"b.md\"")) {
        let chunk = tokio::time::timeout_at(deadline, stream.chunk())
            .await
            .expect("events in time")
            .unwrap()
            .unwrap();
        buf.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(buf.contains("event: memory_changed"));
    let line = buf
        .lines()
        .find(|l| l.starts_with("data:") && l.contains("a.md"))
        .unwrap();
    let ev: Value = serde_json::from_str(line.trim_start_matches("data:").trim()).unwrap();
    assert_eq!(ev["source"], "user");
    assert_eq!(ev["workspace"], "personal");
    let line = buf
        .lines()
        .find(|l| l.starts_with("data:") && l.contains("b.md"))
        .unwrap();
    assert!(line.contains("\"watcher\""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_turn_over_http_streams_chat_events() {
    use mnemo_testkit::{FakeModel, Kind, Reply};
    let s = start().await;
    let fake = FakeModel::start().await;
    // Without a model: 409 and what to configure.
    let (code, session) = s
        .call(
            "chat_create",
            json!({"workspace": "personal", "title": null}),
        )
        .await;
    assert_eq!(code, 200);
    let id = session["id"].as_str().unwrap().to_owned();
    let (code, e) = s
        .call(
            "chat_send",
            json!({"workspace": "personal", "session": id, "message": "hi"}),
        )
        .await;
    assert_eq!(
        (code, e["code"].as_str()),
        (409, Some("model_not_configured"))
    );
    let (code, shown) = s
        .call(
            "set_model_settings",
            json!({"settings": {"base_url": fake.base_url(), "model": "fake-main", "fast_model": "",
                "context_window": 32768, "timeout_secs": 30, "api_key": null}}),
        )
        .await;
    assert_eq!(code, 200, "{shown}");
    assert_eq!(shown["configured"], true);
    fake.push_for(Kind::Json, Reply::json(&json!({"paths": []})));
    fake.push_for(Kind::Stream, Reply::text("Hello there, friend."));
    fake.push_for(Kind::Tools, Reply::text("Nothing to save."));
    let mut stream = client()
        .get(format!("{}/events", s.base))
        .bearer_auth(&s.token)
        .send()
        .await
        .unwrap();
    let (code, turn) = s
        .call(
            "chat_send",
            json!({"workspace": "personal", "session": id, "message": "hi"}),
        )
        .await;
    assert_eq!(code, 200, "{turn}");
    assert_eq!(turn["reply"], "Hello there, friend.");
    let mut buf = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !buf.contains("\"kind\":\"extracted\"") {
        let chunk = tokio::time::timeout_at(deadline, stream.chunk())
            .await
            .expect("chat events in time")
            .unwrap()
            .unwrap();
        buf.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(buf.contains("event: chat"));
    let text: String = buf
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .filter(|v| v["kind"] == "delta")
        .map(|v| v["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(text, "Hello there, friend.");
    assert!(buf.contains("\"kind\":\"recalled\""));
    // The extraction after the turn is a memory task, announced as `task_updated`.
    let task_id = turn["extract_task"].as_str().unwrap().to_owned();
    let updates_in = |buf: &str| -> Vec<Value> {
        buf.split("event: task_updated")
            .skip(1)
            .filter_map(|e| e.lines().find_map(|l| l.strip_prefix("data:")))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .collect()
    };
    let done = |buf: &str| {
        buf.contains("event: dream_progress")
            && updates_in(buf).iter().any(|t| {
                t["kind"] == "extract" && (t["status"] == "completed" || t["status"] == "skipped")
            })
    };
    while !done(&buf) {
        let chunk = tokio::time::timeout_at(deadline, stream.chunk())
            .await
            .expect("task events in time")
            .unwrap()
            .unwrap();
        buf.push_str(&String::from_utf8_lossy(&chunk));
    }
    let updates = updates_in(&buf);
    let extract: Vec<&Value> = updates.iter().filter(|t| t["kind"] == "extract").collect();
    assert!(extract.iter().all(|t| t["id"] == task_id.as_str()));
    assert_eq!(extract[0]["status"], "queued");
    // The turn's auto-dream check is announced too (skipped: one session so far), and a dream's
    // updates also arrive as `dream_progress`.
    assert!(
        updates
            .iter()
            .any(|t| t["kind"] == "dream" && t["reason"] == "min_sessions"),
        "{buf}"
    );
    let (code, tasks) = s
        .call("tasks", json!({"workspace": "personal", "kind": "extract"}))
        .await;
    assert_eq!(code, 200);
    assert_eq!(tasks[0]["id"], task_id.as_str());
    let (code, e) = s.call("task", json!({"id": "t-unknown"})).await;
    assert_eq!((code, e["code"].as_str()), (404, Some("not_found")));
}

#[tokio::test]
async fn a_login_never_redirects_off_site() {
    let s = start().await;
    let nonce = s.login.split_once("?login=").unwrap().1.to_owned();
    let r = client()
        .get(format!("{}//evil.example/?login={nonce}", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/");
}

/// A raw TCP connection to the server.
async fn raw(s: &Running) -> tokio::net::TcpStream {
    tokio::net::TcpStream::connect(s.base.trim_start_matches("http://"))
        .await
        .unwrap()
}

#[tokio::test]
async fn a_client_that_never_finishes_its_headers_is_cut_off() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = start().await;
    let mut c = raw(&s).await;
    c.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .await
        .unwrap();
    // The server closes it after HEADER_READ_TIMEOUT (bounded here by three times that).
    let mut buf = Vec::new();
    let read = tokio::time::timeout(
        mnemo_server::HEADER_READ_TIMEOUT * 3,
        c.read_to_end(&mut buf),
    )
    .await;
    assert!(read.is_ok(), "the half-sent request was never cut off");
}

#[tokio::test]
async fn slow_header_clients_give_way_to_real_requests_and_live_views_are_capped() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = start().await;
    // More connections than there are slots, each sending half a request head and stalling —
    // from 127.0.0.1 like every real client, and from another loopback address.
    let mut slow = Vec::new();
    for i in 0..mnemo_server::MAX_CONNECTIONS + 6 {
        let sock = tokio::net::TcpSocket::new_v4().unwrap();
        if i % 2 == 1 {
            sock.bind("127.0.0.2:0".parse().unwrap()).unwrap();
        }
        let addr = s.base.trim_start_matches("http://").parse().unwrap();
        let mut c = sock.connect(addr).await.unwrap();
        c.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            .await
            .unwrap();
        slow.push(c);
    }
    let capabilities = || {
        client()
            .get(format!("{}/capabilities", s.base))
            .bearer_auth(&s.token)
    };
    // Served well before the header timeout could have freed a single slot: the stalled
    // connections gave way (the oldest pending ones close as newer ones arrive, and none may
    // stay pending past FIRST_REQUEST_TIMEOUT).
    let r = capabilities()
        .timeout(mnemo_server::HEADER_READ_TIMEOUT / 2)
        .send()
        .await
        .expect("a real request waited behind connections that never sent a request");
    assert_eq!(r.status(), 200);
    let mut closed = 0;
    for c in &mut slow {
        let mut buf = Vec::new();
        if tokio::time::timeout(
            mnemo_server::HEADER_READ_TIMEOUT / 2,
            c.read_to_end(&mut buf),
        )
        .await
        .is_ok()
        {
            closed += 1;
        }
    }
    assert_eq!(closed, slow.len(), "every stalled connection was closed");
    drop(slow);

    // A refusal before login closes its connection: a client that is not logged in holds no
    // slot between requests.
    let mut c = raw(&s).await;
    let host = s.base.trim_start_matches("http://");
    c.write_all(format!("GET /capabilities HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(
        mnemo_server::HEADER_READ_TIMEOUT / 2,
        c.read_to_end(&mut answer),
    )
    .await
    .expect("the refused connection was kept open")
    .unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    assert!(answer.contains("not logged in"), "{answer}");

    // Live views (SSE): at most MAX_SSE_CLIENTS; the next is told why.
    let view = || {
        client()
            .get(format!("{}/events", s.base))
            .bearer_auth(&s.token)
            .send()
    };
    let mut views = Vec::new();
    for _ in 0..mnemo_server::MAX_SSE_CLIENTS {
        let r = view().await.unwrap();
        assert_eq!(r.status(), 200);
        views.push(r);
    }
    let r = view().await.unwrap();
    assert_eq!(r.status(), 503);
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("live views are already open")
    );
    drop(views);
    // A closed view gives its place back.
    let mut ok = false;
    for _ in 0..50 {
        if view().await.unwrap().status() == 200 {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ok, "a closed view's place was never given back");
}

#[tokio::test]
async fn the_inbox_over_http() {
    let s = start().await;
    let (st, _) = s
        .call("create", json!({"workspace": "personal", "memory": {"path": "tea.md", "name": "Tea", "description": "drinks", "type": "user", "body": "- Likes green tea\n\n- likes GREEN tea"}}))
        .await;
    assert_eq!(st, 200);
    let (st, mode) = s
        .call(
            "set_review_mode",
            json!({"workspace": "personal", "on": true}),
        )
        .await;
    assert_eq!((st, mode["on"].as_bool()), (200, Some(true)));
    let (_, task) = s
        .call(
            "dream",
            json!({"workspace": "personal", "mechanical": true}),
        )
        .await;
    let id = task["id"].as_str().unwrap().to_owned();
    let mut proposal = Value::Null;
    for _ in 0..100 {
        let (_, t) = s.call("task", json!({"id": id})).await;
        if t["status"] == "completed" {
            proposal = t["result"]["proposal"].clone();
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let pid = proposal.as_i64().expect("the dream became a proposal");
    let (st, page) = s
        .call(
            "inbox",
            json!({"workspace": "personal", "status": "pending", "offset": null, "limit": null}),
        )
        .await;
    assert_eq!((st, page["pending"].as_u64()), (200, Some(1)));
    let (_, p) = s.call("proposal", json!({"id": pid})).await;
    assert_eq!(p["files"][0]["path"], "tea.md");
    let (st, done) = s
        .call(
            "inbox_accept",
            json!({"id": pid, "choice": {"entries": null, "edits": []}}),
        )
        .await;
    assert_eq!(st, 200, "{done}");
    assert!(done["group"].as_i64().is_some());
    let (st, err) = s
        .call("inbox_accept", json!({"id": pid, "choice": null}))
        .await;
    assert_eq!((st, err["code"].as_str().unwrap()), (409, "conflict"));
    let (st, err) = s.call("proposal", json!({"id": 999})).await;
    assert_eq!((st, err["code"].as_str().unwrap()), (404, "not_found"));
    let (st, usage) = s
        .call(
            "memory_usage",
            json!({"workspace": "personal", "path": null}),
        )
        .await;
    assert_eq!((st, usage[0]["path"].as_str()), (200, Some("tea.md")));
}

/// Wrong tokens or login links are not tried without end — after
/// `auth::MAX_FAILURES` within a minute every credentialed request is refused with 429 and
/// `Retry-After` (the right token too, until the window passes); requests without credentials
/// are not counted and keep their plain 401.
#[tokio::test]
async fn guessing_the_token_is_stopped_after_a_few_attempts() {
    let s = start().await;
    let mut statuses = Vec::new();
    for i in 0..mnemo_server::auth::MAX_FAILURES + 3 {
        let r = client()
            .post(format!("{}/api/list", s.base))
            .bearer_auth(format!("guess-{i}"))
            .send()
            .await
            .unwrap();
        statuses.push(r.status().as_u16());
    }
    assert!(
        statuses[..mnemo_server::auth::MAX_FAILURES]
            .iter()
            .all(|s| *s == 401),
        "{statuses:?}"
    );
    assert!(
        statuses[mnemo_server::auth::MAX_FAILURES..]
            .iter()
            .all(|s| *s == 429),
        "{statuses:?}"
    );
    let r = client()
        .post(format!("{}/api/list", s.base))
        .bearer_auth(&s.token)
        .json(&serde_json::json!({"workspace": null, "type": null}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        429,
        "locked for everyone who offers a credential"
    );
    assert!(r.headers().contains_key("retry-after"));
    let body: Value = r.json().await.unwrap();
    assert!(
        body["message"].as_str().unwrap().contains("try again in"),
        "{body}"
    );
    // No credential at all: a plain refusal, not counted.
    let r = client()
        .post(format!("{}/api/list", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
}
