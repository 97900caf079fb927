//! Fault injection: `mnemo inbox accept` killed with SIGKILL at 30 points while it
//! applies a 300-file proposal (a mechanical dream in review mode). After each kill every
//! memory file is byte-equal to its state before or after the proposal — never torn, never a
//! third state; the next `mnemo` process finishes the accept (the proposal was marked
//! `accepting` with its group before any file was written), leaves no pending journal row, and
//! ends exactly where an uninterrupted accept ends.

use std::process::{Command, Stdio};
use std::time::Instant;

use super::dream_faults::{copy_dir, snapshot};
use super::{Env, topic, write};

fn accept(e: &Env, id: i64) -> Command {
    let mut c = e.cmd();
    c.args(["--json", "inbox", "accept", &id.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

#[test]
fn an_accept_killed_at_30_points_is_never_half_applied() {
    // 300 files, each holding a duplicate entry the mechanical dream merges.
    let template = Env::new();
    for i in 0..300 {
        write(
            &template.personal().join(format!("m/{i:03}.md")),
            &topic(
                &format!("Memory {i}"),
                "Facts",
                "user",
                &format!("- Fact {i} matters\n\n- fact {i} MATTERS\n\n- Second fact {i}"),
            ),
        );
    }
    template.json(&["index"]);
    template.json(&["review", "on"]);
    let id = template.json(&["dream", "--mechanical"])["result"]["proposal"]
        .as_i64()
        .expect("a proposal");
    let before = snapshot(&template.personal());

    let reference = Env::new();
    copy_dir(&template.home(), &reference.home());
    let t = Instant::now();
    assert!(accept(&reference, id).status().unwrap().success());
    let full = t.elapsed();
    let after = snapshot(&reference.personal());
    let changed = before
        .iter()
        .filter(|(p, b)| after.get(*p) != Some(b))
        .count();
    assert!(
        changed >= 300,
        "the proposal changes every file ({changed})"
    );

    let mut mid = 0;
    for run in 0..30 {
        let e = Env::new();
        copy_dir(&template.home(), &e.home());
        let delay = full.mul_f64(1.1 * (f64::from(run) + 0.5) / 30.0);
        let mut child = accept(&e, id).spawn().unwrap();
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL
        child.wait().unwrap();
        let now = snapshot(&e.personal());
        let (mut done, mut left) = (0, 0);
        for (p, b) in &before {
            let n = now.get(p);
            assert!(
                n == Some(b) || n == after.get(p),
                "run {run}: {p} is neither before nor after"
            );
            if after.get(p) != Some(b) {
                if n == after.get(p) {
                    done += 1;
                } else {
                    left += 1;
                }
            }
        }
        mid += usize::from(done > 0 && left > 0);
        // The next process finishes it — or, killed before it marked the proposal, nothing
        // was applied and the proposal still waits.
        let mut shown = e.json(&["inbox", "show", &id.to_string()]);
        if shown["status"] == "pending" {
            assert_eq!(
                done, 0,
                "run {run}: files applied but the proposal still pending"
            );
            assert!(accept(&e, id).status().unwrap().success());
            shown = e.json(&["inbox", "show", &id.to_string()]);
        }
        assert_eq!(shown["status"], "accepted", "run {run}: {}", shown["note"]);
        assert!(shown["note"].is_null(), "run {run}: {}", shown["note"]);
        assert_eq!(
            snapshot(&e.personal()),
            after,
            "run {run}: not the uninterrupted result"
        );
        let journal = mnemo_store::journal::Journal::open(&e.home().join("journal.db")).unwrap();
        assert!(
            journal.pending().unwrap().is_empty(),
            "run {run}: pending rows"
        );
        // Undone as one group, back to before.
        let g = shown["group"].as_i64().unwrap();
        e.json(&["undo", "--group", &g.to_string()]);
        assert_eq!(
            snapshot(&e.personal()),
            before,
            "run {run}: undo is byte-exact"
        );
    }
    assert!(
        mid >= 3,
        "some kills landed mid-accept ({mid}); full run {full:?}"
    );
}
