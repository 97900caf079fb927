//! A root swapped during a dream, reproduced as an attacker would do it: `mnemo dream
//! --mechanical` on a repository's Qwen Code team layer while `<repo>/.qwen` is exchanged
//! (`renameat2(RENAME_EXCHANGE)`), over and over, with a link to a copy of it outside the
//! repository. Every read and write of the dream stays beneath the folder it opened: the outside
//! copy stays byte-identical, whatever the dream managed to do. The same for a real `mnemo
//! sync` writing what it received while its memory folder is exchanged the same way.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mnemo_testkit::files::{copy_dir, tree};

use super::sync_edges::{crafted_remote, setup};
use super::{Env, topic, write};

#[test]
fn a_team_layer_swapped_for_a_link_during_a_dream_changes_nothing_outside() {
    const FILES: usize = 300;
    let e = Env::new();
    let repo = e.dir.path().join("shop");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let team = repo.join(".qwen/team-memory");
    // Work for the dream in every file: an entry said twice.
    for i in 0..FILES {
        write(
            &team.join(format!("topic-{i}.md")),
            &topic(
                &format!("Topic {i}"),
                "d",
                "project",
                &format!("Rule {i} holds.\n\nrule {i} holds."),
            ),
        );
    }
    let list = e.json(&["workspaces", "bind", repo.to_str().unwrap()]);
    let id = list
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["id"].as_str())
        .find(|i| i.starts_with("qwen:@team:"))
        .unwrap_or_else(|| panic!("{list}"))
        .to_owned();
    // The copy outside the repository, and a link to it inside (as a repository can carry).
    let outside = e.dir.path().join("outside");
    copy_dir(&repo.join(".qwen"), &outside.join("qwen-copy"));
    let link = repo.join("swap");
    std::os::unix::fs::symlink(outside.join("qwen-copy"), &link).unwrap();
    let before = tree(&outside);

    let qwen = repo.join(".qwen");
    // The swaps begin once the dream is under way (it found the workspace), at a few moments:
    // a dream that could follow the link writes outside in most of these runs.
    let mut swapped = 0;
    for delay_ms in [100, 250, 500] {
        let mut cmd = e.cmd();
        cmd.args(["--json", "--workspace", &id, "dream", "--mechanical"]);
        let (out, n) = run_swapping(cmd, delay_ms, &qwen, &link, 3);
        swapped += n;
        unchanged(&outside, &before, delay_ms, &out);
        said_what_happened(&out);
    }
    assert!(
        swapped > 2,
        "the folder was swapped during the dreams ({swapped})"
    );
    eprintln!("{swapped} swaps during three dreams; outside unchanged");
}

/// Exchange `a` and `b` (`renameat2(RENAME_EXCHANGE)`).
fn exchange(a: &Path, b: &Path) {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).unwrap();
}

/// Run `cmd`; from `delay_ms` after its start until it ends, exchange `a` and `b` every
/// `every_ms`, then put them back. Its output and the number of exchanges.
fn run_swapping(
    mut cmd: Command,
    delay_ms: u64,
    a: &Path,
    b: &Path,
    every_ms: u64,
) -> (Output, usize) {
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(delay_ms));
    let mut n = 0;
    while child.try_wait().unwrap().is_none() {
        exchange(a, b);
        n += 1;
        std::thread::sleep(std::time::Duration::from_millis(every_ms));
    }
    if n % 2 == 1 {
        exchange(a, b);
    }
    assert!(
        std::fs::symlink_metadata(a).unwrap().is_dir(),
        "the real folder is back in place"
    );
    (child.wait_with_output().unwrap(), n)
}

/// Nothing under `outside` differs from `before` (the first few paths that do are named).
fn unchanged(outside: &Path, before: &BTreeMap<PathBuf, Vec<u8>>, delay_ms: u64, out: &Output) {
    let after = tree(outside);
    let changed: Vec<_> = before
        .keys()
        .chain(after.keys())
        .filter(|k| before.get(*k) != after.get(*k))
        .take(5)
        .collect();
    assert!(
        changed.is_empty(),
        "nothing outside changed (swaps from {delay_ms} ms), but: {changed:?}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The command said what happened, whatever the timing: done, or ended with exit status 1 and a
/// JSON error whose message says why (a link refused, the folder not found because the swap
/// came first, …) — never a crash, a signal or a silent partial result. No timing's exact
/// message is required: the swap may land before, during or after any step.
fn said_what_happened(out: &Output) {
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        return;
    }
    assert_eq!(
        out.status.code(),
        Some(1),
        "ended by an error, not a crash: {said}"
    );
    let err: serde_json::Value = String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("an error object on stdout: {said}"));
    let message = err["error"]["message"].as_str().unwrap_or("");
    let code = err["error"]["code"].as_str().unwrap_or("");
    assert!(
        !code.is_empty() && message.split_whitespace().count() >= 3,
        "an error with a code and a sentence: {said}"
    );
    assert!(!said.contains("panicked"), "{said}");
}

/// The root swap during a sync's write: a real `mnemo sync` receiving 400 memories
/// while its memory folder is exchanged, every 2 ms, with a link to a copy outside. Whatever the
/// sync managed, nothing outside changes; once the swaps stop, the next sync brings every memory
/// into the real folder (nothing lost).
#[test]
fn a_memory_folder_swapped_for_a_link_during_a_sync_s_write_changes_nothing_outside() {
    const FILES: usize = 400;
    let e = Env::new();
    let remote = crafted_remote(
        e.dir.path(),
        &mut (0..FILES).map(|i| {
            (
                format!("mnemo/personal/memory/fact-{i}.md"),
                topic(
                    &format!("Fact {i}"),
                    "d",
                    "user",
                    &format!("Fact {i} holds."),
                )
                .into_bytes(),
            )
        }),
    );
    setup(&e, &remote);
    write(
        &e.personal().join("mine.md"),
        &topic("Mine", "mine", "user", "Stays."),
    );
    let outside = e.dir.path().join("outside");
    copy_dir(&e.personal(), &outside.join("memory-copy"));
    let link = e.personal().with_file_name("swap");
    std::os::unix::fs::symlink(outside.join("memory-copy"), &link).unwrap();
    let before = tree(&outside);
    let real = e.personal();

    let mut swapped = 0;
    for delay_ms in [0, 40, 120] {
        let mut cmd = e.cmd();
        cmd.args(["--json", "sync"]);
        let (out, n) = run_swapping(cmd, delay_ms, &real, &link, 2);
        swapped += n;
        unchanged(&outside, &before, delay_ms, &out);
        said_what_happened(&out);
    }
    assert!(
        swapped > 2,
        "the folder was swapped during the syncs ({swapped})"
    );
    // The swaps over, a sync brings everything the remote holds into the real folder.
    let out = e.run(&["sync"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for i in 0..FILES {
        let got = std::fs::read_to_string(real.join(format!("fact-{i}.md")))
            .unwrap_or_else(|err| panic!("fact-{i}.md: {err}"));
        assert!(got.contains(&format!("Fact {i} holds.")), "{got}");
    }
    assert!(
        std::fs::read_to_string(real.join("mine.md"))
            .unwrap()
            .contains("Stays.")
    );
    assert_eq!(tree(&outside), before);
    eprintln!("{swapped} swaps during three syncs; outside unchanged, nothing lost");
}
