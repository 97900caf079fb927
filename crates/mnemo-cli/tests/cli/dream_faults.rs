//! Fault injection: `mnemo dream` killed with SIGKILL at many points (70 mechanical runs and 40
//! agent runs against the fake model) over a fixture of 300+ memories with duplicated entries.
//! After each kill: every memory file (MEMORY.md included) is byte-equal to its state before or
//! after the dream — never torn; every entry present before still lives on (its summary, with
//! its Why / How to apply and other lines, in some valid file); then the
//! next run reclaims the lock (its holder is dead), completes, and leaves no pending journal row.
//! A mechanical rerun also converges to exactly the state of an uninterrupted dream.

pub(super) use mnemo_testkit::files::copy_dir;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mnemo_testkit::{FakeModel, Kind, Reply};
use serde_json::json;

use super::{Env, topic};

const TYPES: [&str; 4] = ["user", "feedback", "project", "reference"];
const PAIRS: usize = 6;

pub(super) type Files = BTreeMap<String, Vec<u8>>;

/// 300 topic files (every 10th repeats an entry of the file before it, with a Why; every 15th
/// repeats one of its own), a pinned one, an invalid one, and agent pairs `pairs/a{k}` /
/// `pairs/b{k}` whose b-entries the scripted agent merges into a and then deletes b.
fn fixture(root: &Path) {
    let w = |rel: String, text: String| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    for i in 0..300 {
        let ty = TYPES[i % 4];
        let mut body = format!("Fact {i} about {ty} matters.\n\nSecond fact {i} for {ty}.");
        if i % 10 == 9 {
            body.push_str(&format!(
                "\n\nfact {} about {ty} MATTERS.\nWhy: repeated in file {i}.",
                i - 4
            ));
        }
        if i % 15 == 14 {
            body.push_str(&format!("\n\nSecond fact {i} for {ty}."));
        }
        w(
            format!("{ty}/{i:03}.md"),
            topic(
                &format!("Memory {i}"),
                &format!("Facts of memory {i}"),
                ty,
                &body,
            ),
        );
    }
    w(
        "pinned/keep.md".into(),
        topic(
            "Keep",
            "Pinned",
            "user",
            "Fact 0 about user matters.\n\nFact 0 about user matters.",
        ),
    );
    w(
        "broken.md".into(),
        "no frontmatter\n\nFact 1 about feedback matters.\n".into(),
    );
    for k in 0..PAIRS {
        w(
            format!("pairs/a{k}.md"),
            topic(
                &format!("Pair {k}"),
                "A pair",
                "project",
                &format!("Pair fact {k} one."),
            ),
        );
        w(
            format!("pairs/b{k}.md"),
            topic(
                &format!("Pair {k} dup"),
                "A pair dup",
                "project",
                &format!("Pair fact {k} two.\nWhy: said twice."),
            ),
        );
    }
}

fn merged(k: usize) -> String {
    topic(
        &format!("Pair {k}"),
        "A pair",
        "project",
        &format!("Pair fact {k} one.\n\nPair fact {k} two.\nWhy: said twice."),
    )
}

/// The agent's script: one turn writes every merged file, the next deletes the duplicates.
fn script(fake: &FakeModel) {
    let writes = (0..PAIRS)
        .map(|k| {
            (
                "write_file".to_owned(),
                json!({"path": format!("pairs/a{k}.md"), "content": merged(k)}),
            )
        })
        .collect();
    let deletes = (0..PAIRS)
        .map(|k| {
            (
                "delete_file".to_owned(),
                json!({"path": format!("pairs/b{k}.md")}),
            )
        })
        .collect();
    let slow = |r: Reply| Reply::Delay(Duration::from_millis(40), Box::new(r));
    fake.push_for(Kind::Tools, slow(Reply::ToolCalls(writes)));
    fake.push_for(Kind::Tools, slow(Reply::ToolCalls(deletes)));
    fake.push_for(Kind::Tools, slow(Reply::text("Merged the pairs.")));
}

/// Every file under `root` except hidden ones (locks, temp files).
pub(super) fn snapshot(root: &Path) -> Files {
    let mut out = Files::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Every entry of every valid topic file: its case-folded summary and its other lines.
fn entries_of(files: &Files) -> Vec<(String, BTreeSet<String>)> {
    let mut out = Vec::new();
    for (p, b) in files {
        if !p.ends_with(".md") || p == "MEMORY.md" {
            continue;
        }
        let f = mnemo_store::format::TopicFile::parse(&String::from_utf8_lossy(b));
        if f.problem.is_some() {
            continue;
        }
        for e in f.entries() {
            let lines = e
                .text
                .lines()
                .skip(1)
                .map(|l| l.trim().to_lowercase())
                .collect();
            out.push((e.summary.trim().to_lowercase(), lines));
        }
    }
    out
}

/// The facts of `before` missing from `now`: an entry lives on when some entry with its summary
/// holds each of its other lines (a merged `Why: a; b` holds `Why: a`).
fn lost(before: &[(String, BTreeSet<String>)], now: &Files) -> Vec<String> {
    let have = entries_of(now);
    before
        .iter()
        .filter(|(k, lines)| {
            !have.iter().any(|(hk, hl)| {
                hk == k
                    && lines
                        .iter()
                        .all(|l| hl.iter().any(|h| h == l || h.contains(l.as_str())))
            })
        })
        .map(|(k, _)| k.clone())
        .collect()
}

struct Case {
    template: Env,
    before: Files,
    facts: Vec<(String, BTreeSet<String>)>,
}

impl Case {
    fn new() -> Self {
        let template = Env::new();
        fixture(&template.personal());
        // The home as a first run leaves it: index built, MEMORY.md generated.
        template.json(&["index"]);
        let before = snapshot(&template.personal());
        let facts = entries_of(&before);
        Self {
            template,
            before,
            facts,
        }
    }

    /// A fresh copy of the template home.
    fn env(&self) -> Env {
        let e = Env::new();
        copy_dir(&self.template.home(), &e.home());
        e
    }
}

fn dream_cmd(e: &Env, model: Option<&FakeModel>) -> Command {
    let mut c = e.cmd();
    c.args(["--json", "dream"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    match model {
        Some(f) => {
            c.env("MNEMO_LLM_BASE_URL", f.base_url())
                .env("MNEMO_LLM_MODEL", "fake-main");
        }
        None => {
            c.arg("--mechanical");
        }
    }
    c
}

/// Checks after one kill; returns whether the kill landed mid-dream (some files changed, not all).
fn check_after_kill(case: &Case, e: &Env, after: &Files, run: usize) -> bool {
    let now = snapshot(&e.personal());
    let paths: BTreeSet<&String> = case
        .before
        .keys()
        .chain(after.keys())
        .chain(now.keys())
        .collect();
    let (mut changed, mut same) = (0, 0);
    for p in paths {
        let (b, a, n) = (case.before.get(p), after.get(p), now.get(p));
        assert!(
            n == b || n == a,
            "run {run}: {p} is neither its before nor its after state"
        );
        if b != a {
            if n == a {
                changed += 1;
            } else {
                same += 1;
            }
        }
    }
    let gone = lost(&case.facts, &now);
    assert!(gone.is_empty(), "run {run}: facts lost: {gone:?}");
    changed > 0 && same > 0
}

/// The next run reclaims the lock and finishes; the journal has no pending row after it.
fn check_recovery(case: &Case, e: &Env, run: usize) -> Files {
    let out = dream_cmd(e, None).stdout(Stdio::piped()).output().unwrap();
    assert!(
        out.status.success(),
        "run {run}: the next dream failed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let journal = mnemo_store::journal::Journal::open(&e.home().join("journal.db")).unwrap();
    assert!(
        journal.pending().unwrap().is_empty(),
        "run {run}: pending journal rows"
    );
    assert!(
        !e.home()
            .join("workspaces/personal/consolidation.lock")
            .exists()
    );
    let now = snapshot(&e.personal());
    let gone = lost(&case.facts, &now);
    assert!(
        gone.is_empty(),
        "run {run}: facts lost after recovery: {gone:?}"
    );
    now
}

fn kill_after(mut cmd: Command, delay: Duration) {
    let mut child = cmd.spawn().unwrap();
    std::thread::sleep(delay);
    let _ = child.kill(); // SIGKILL
    child.wait().unwrap();
}

fn timed(mut cmd: Command) -> Duration {
    let t = Instant::now();
    assert!(cmd.status().unwrap().success());
    t.elapsed()
}

fn delays(total: Duration, runs: usize) -> impl Iterator<Item = (usize, Duration)> {
    // Spread over the whole run (start-up included) and a little past its end.
    (0..runs).map(move |i| (i, total.mul_f64(1.1 * (i as f64 + 0.5) / runs as f64)))
}

#[test]
fn mechanical_dream_killed_at_70_points_loses_nothing_and_never_tears_a_file() {
    let case = Case::new();
    let reference = case.env();
    let full = timed(dream_cmd(&reference, None));
    let after = snapshot(&reference.personal());
    assert_ne!(after, case.before, "the fixture has duplicates to merge");
    let mut mid = 0;
    for (run, delay) in delays(full, 70) {
        let e = case.env();
        kill_after(dream_cmd(&e, None), delay);
        mid += usize::from(check_after_kill(&case, &e, &after, run));
        let end = check_recovery(&case, &e, run);
        assert_eq!(
            end, after,
            "run {run}: the rerun converges to the uninterrupted result"
        );
    }
    eprintln!("mechanical: {mid} of 70 kills landed mid-dream (full run {full:?})");
    // The kills must have hit the dream itself, not only before or after it.
    assert!(mid >= 3, "only {mid} kills landed mid-dream");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_dream_killed_at_40_points_loses_nothing_and_never_tears_a_file() {
    let case = Case::new();
    let reference = case.env();
    let fake = FakeModel::start().await;
    script(&fake);
    let cmd = dream_cmd(&reference, Some(&fake));
    let full = tokio::task::spawn_blocking(move || timed(cmd))
        .await
        .unwrap();
    let after = snapshot(&reference.personal());
    for k in 0..PAIRS {
        assert_eq!(after[&format!("pairs/a{k}.md")], merged(k).into_bytes());
        assert!(!after.contains_key(&format!("pairs/b{k}.md")));
    }
    let mut mid = 0;
    for (run, delay) in delays(full, 40) {
        let e = case.env();
        let fake = FakeModel::start().await;
        script(&fake);
        let cmd = dream_cmd(&e, Some(&fake));
        tokio::task::spawn_blocking(move || kill_after(cmd, delay))
            .await
            .unwrap();
        mid += usize::from(check_after_kill(&case, &e, &after, run));
        check_recovery(&case, &e, run);
    }
    eprintln!("agent: {mid} of 40 kills landed mid-dream (full run {full:?})");
    assert!(mid >= 3, "only {mid} kills landed mid-dream");
}
