//! The consolidation lock against real processes.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use mnemo_core::ErrorCode;
use mnemo_store::lock;

const CHILD_ENV: &str = "MNEMO_TEST_LOCK_CHILD";

/// Run inside a child process: take the lock, say so, then wait for stdin to close.
#[test]
fn lock_child_helper() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    let _g = lock::acquire(std::path::Path::new(&dir)).unwrap();
    println!("LOCKED {}", std::process::id());
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
    // _g dropped here: normal exit releases the lock.
}

fn spawn_holder(dir: &std::path::Path) -> (std::process::Child, u32) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "lock_processes::lock_child_helper",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "child exited before locking"
        );
        // libtest prints the test name on the same line, so look anywhere in it.
        if let Some(at) = line.find("LOCKED ") {
            let pid = line[at + 7..].trim().parse().unwrap();
            std::mem::forget(out);
            return (child, pid);
        }
    }
}

#[test]
fn a_live_child_holds_the_lock_and_a_killed_one_loses_it() {
    let d = tempfile::tempdir().unwrap();
    let (mut child, pid) = spawn_holder(d.path());
    assert_eq!(lock::holder(d.path()), Some(lock::Holder::Pid(pid)));
    let err = lock::acquire(d.path()).unwrap_err();
    assert_eq!(err.code, ErrorCode::Locked);
    assert!(err.message.contains(&pid.to_string()));
    // SIGKILL: no destructor runs, the file stays behind with a dead PID.
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(d.path().join(lock::LOCK_FILE).exists());
    assert!(!lock::pid_alive(pid));
    let g = lock::acquire(d.path()).unwrap();
    assert_eq!(
        std::fs::read_to_string(g.path()).unwrap(),
        std::process::id().to_string()
    );
}

#[test]
fn a_child_that_exits_normally_releases_the_lock() {
    let d = tempfile::tempdir().unwrap();
    let (mut child, _) = spawn_holder(d.path());
    drop(child.stdin.take()); // let it finish
    assert!(child.wait().unwrap().success());
    assert!(!d.path().join(lock::LOCK_FILE).exists());
    assert!(lock::acquire(d.path()).is_ok());
}

#[test]
fn a_foreign_tools_lock_in_a_qwen_state_dir_is_honoured() {
    // Qwen Code writes its PID into <project>/consolidation.lock; a live one blocks Mnemo.
    let d = tempfile::tempdir().unwrap();
    let mut sleeper = Command::new("sleep").arg("30").spawn().unwrap();
    std::fs::write(d.path().join(lock::LOCK_FILE), sleeper.id().to_string()).unwrap();
    assert_eq!(lock::acquire(d.path()).unwrap_err().code, ErrorCode::Locked);
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
    assert!(
        lock::acquire(d.path()).is_ok(),
        "dead owner's lock reclaimed"
    );
}

#[test]
fn racing_processes_never_both_hold_the_lock() {
    let d = tempfile::tempdir().unwrap();
    let (mut a, pid) = spawn_holder(d.path());
    // Many concurrent attempts while a live process holds it: all refused.
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let dir = d.path().to_path_buf();
            std::thread::spawn(move || lock::acquire(&dir).map(|_| ()))
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap().unwrap_err().code, ErrorCode::Locked);
    }
    assert_eq!(lock::holder(d.path()), Some(lock::Holder::Pid(pid)));
    a.kill().unwrap();
    a.wait().unwrap();
}
