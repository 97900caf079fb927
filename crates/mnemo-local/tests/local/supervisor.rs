//! The supervisor with the real `llama-server` and SmolLM2-135M (`scripts/llama.sh`): started on
//! a free port with a key, answering only with that key, started again after it crashes (a
//! bounded number of times), and stopped by its watchdog when the last Mnemo process lets go or
//! when it is idle — also when the process that started it is gone. Skipped without the server
//! and model, unless `MNEMO_REQUIRE_LLAMA=1` (set by `scripts/test.sh`, so CI runs it).

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::time::Duration;

use mnemo_local::manifest::QWEN_CODER_1_5B;
use mnemo_local::server::{MAX_STARTS, Timing};
use mnemo_local::{LocalModel, Supervisor};

fn parts() -> Option<(PathBuf, PathBuf)> {
    let server = std::env::var_os("MNEMO_LLAMA_SERVER").map(PathBuf::from);
    let gguf = std::env::var_os("MNEMO_LLAMA_GGUF").map(PathBuf::from);
    match (server, gguf) {
        (Some(s), Some(g)) => Some((s, g)),
        _ => {
            assert!(
                std::env::var("MNEMO_REQUIRE_LLAMA").as_deref() != Ok("1"),
                "MNEMO_REQUIRE_LLAMA=1 but MNEMO_LLAMA_SERVER / MNEMO_LLAMA_GGUF are not set: run scripts/llama.sh"
            );
            None
        }
    }
}

/// The model as the supervisor names it, with SmolLM2's file and a small window.
const SMALL: LocalModel = LocalModel {
    name: "smollm2-135m",
    context: 2_048,
    ..QWEN_CODER_1_5B
};

fn supervisor(home: &std::path::Path, timing: Timing) -> Option<Supervisor> {
    let (server, gguf) = parts()?;
    Some(Supervisor::with(home, SMALL, gguf, server).timing(timing))
}

async fn chat(base: &str, key: Option<&str>) -> u16 {
    let mut rb = reqwest::Client::new()
        .post(format!("{base}/chat/completions"))
        .json(&serde_json::json!({"messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 4}));
    if let Some(k) = key {
        rb = rb.bearer_auth(k);
    }
    rb.send().await.map_or(0, |r| r.status().as_u16())
}

/// The `llama-server` under the watchdog `pid` (its child), killed as a crash would end it.
fn crash(pid: u32) {
    let status = std::process::Command::new("pkill")
        .args(["-9", "-P", &pid.to_string(), "llama-server"])
        .status()
        .unwrap();
    assert!(status.success(), "a llama-server ran under the watchdog");
}

async fn until(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..600 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{what}: not within a minute");
}

fn long() -> Timing {
    Timing {
        grace: Duration::from_secs(3600),
        idle: Duration::from_secs(3600),
        every: Duration::from_secs(1),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_is_started_on_demand_guarded_by_a_key_and_started_again_after_a_crash() {
    let home = tempfile::tempdir().unwrap();
    let Some(sup) = supervisor(home.path(), long()) else {
        return;
    };
    let _lease = sup.lease().unwrap();
    let first = sup.ensure().await.expect("started");
    assert!(first.started);
    assert!(first.base_url.starts_with("http://127.0.0.1:"));
    assert_eq!(first.key.len(), 48);
    assert_eq!(chat(&first.base_url, Some(&first.key)).await, 200);
    assert_eq!(chat(&first.base_url, None).await, 401, "no key, no answer");
    assert_eq!(chat(&first.base_url, Some("another-key")).await, 401);
    // A second call finds it running: nothing new is started.
    let again = sup.ensure().await.unwrap();
    assert_eq!((again.pid, again.started), (first.pid, false));
    assert!(home.path().join("local-model/server.log").exists());
    // A crash: the next use starts it again, on a fresh port and key.
    crash(first.pid);
    until("the crashed server is seen as gone", || {
        sup.running().is_none()
    })
    .await;
    let restarted = sup.ensure().await.expect("started again");
    assert!(restarted.started);
    assert_ne!(restarted.pid, first.pid);
    assert_ne!(restarted.key, first.key);
    assert_eq!(chat(&restarted.base_url, Some(&restarted.key)).await, 200);
    assert_eq!(
        chat(&first.base_url, Some(&first.key)).await,
        0,
        "the old one is gone"
    );
    assert_eq!(sup.state().unwrap().starts.len(), 2);
    assert!(sup.stop());
    assert!(sup.running().is_none());
    assert_eq!(chat(&restarted.base_url, Some(&restarted.key)).await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crashes_are_bounded() {
    let home = tempfile::tempdir().unwrap();
    let Some(sup) = supervisor(home.path(), long()) else {
        return;
    };
    let _lease = sup.lease().unwrap();
    let mut last = 0;
    for _ in 0..MAX_STARTS {
        let r = sup.ensure().await.expect("started");
        assert!(r.started);
        assert_ne!(r.pid, last);
        last = r.pid;
        crash(r.pid);
        until("the crashed server is seen as gone", || {
            sup.running().is_none()
        })
        .await;
    }
    let err = sup.ensure().await.unwrap_err().to_string();
    assert!(err.contains("not started again for now"), "{err}");
    assert!(err.contains("server.log"), "{err}");
    // Stopping on purpose clears the count.
    sup.stop();
    assert!(sup.ensure().await.expect("started after a stop").started);
    sup.stop();
}

/// The watchdog stops the server when the last process holding a lease is gone — also one that
/// was killed and never let go — and when nothing used it for the idle time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watchdog_stops_it_when_the_last_user_is_gone_or_it_is_idle() {
    let home = tempfile::tempdir().unwrap();
    let timing = Timing {
        grace: Duration::from_secs(2),
        idle: Duration::from_secs(3600),
        every: Duration::from_secs(1),
    };
    let Some(sup) = supervisor(home.path(), timing) else {
        return;
    };
    // A lease held by a process that is then killed (it never lets go).
    let mut other = std::process::Command::new("sleep")
        .arg("600")
        .spawn()
        .unwrap();
    let leases = home.path().join("local-model/leases");
    std::fs::create_dir_all(&leases).unwrap();
    std::fs::write(leases.join(other.id().to_string()), b"").unwrap();
    let r = sup.ensure().await.expect("started");
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(
        sup.running().map(|s| s.pid),
        Some(r.pid),
        "kept while its user lives"
    );
    other.kill().unwrap();
    other.wait().unwrap();
    until("stopped once its last user is gone", || {
        sup.running().is_none()
    })
    .await;
    assert!(
        !leases.join(other.id().to_string()).exists(),
        "the dead process's lease was cleared"
    );
    // Idle: stopped even while a user lives — but never while it loads, however long that
    // takes (a loaded machine): this server waits 6 s before it starts loading, twice the idle
    // time.
    let home = tempfile::tempdir().unwrap();
    let (server, gguf) = parts().unwrap();
    let slow = home.path().join("slow-llama-server");
    let lib = server.parent().unwrap().display().to_string();
    std::fs::write(
        &slow,
        format!(
            "#!/bin/sh\nsleep 6\nLD_LIBRARY_PATH='{lib}':$LD_LIBRARY_PATH exec '{}' \"$@\"\n",
            server.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&slow, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let sup = Supervisor::with(home.path(), SMALL, gguf, slow).timing(Timing {
        grace: Duration::from_secs(3600),
        idle: Duration::from_secs(3),
        every: Duration::from_secs(1),
    });
    let _lease = sup.lease().unwrap();
    sup.ensure()
        .await
        .expect("started, though loading took longer than the idle time");
    until("stopped when idle", || sup.running().is_none()).await;
    assert!(
        sup.state().is_none(),
        "a stop on purpose clears the crash record"
    );
    let log = std::fs::read_to_string(sup.log_path()).unwrap();
    assert!(
        log.contains("mnemo: stopping the local model server (unused for"),
        "{log}"
    );
}

/// Whether process `pid` still runs (a zombie waiting for its parent does not).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(") ").map(|(_, rest)| !rest.starts_with('Z')))
        .unwrap_or(false)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watchdog_stops_it_when_its_home_is_removed() {
    // A test's temporary home, a deleted profile: nobody can use the server any more, and its
    // `last-used` cannot say how long it was idle — it must not run on for ever.
    let home = tempfile::tempdir().unwrap();
    let Some(sup) = supervisor(home.path(), long()) else {
        return;
    };
    let _lease = sup.lease().unwrap();
    let r = sup.ensure().await.expect("started");
    assert!(alive(r.pid));
    drop(home);
    until("stopped once its home was removed", || !alive(r.pid)).await;
}
