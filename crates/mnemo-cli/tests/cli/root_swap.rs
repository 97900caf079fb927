//! A root swapped during a dream (issue 33, the attacker's reproduction): `mnemo dream
//! --mechanical` on a repository's Qwen Code team layer while `<repo>/.qwen` is exchanged
//! (`renameat2(RENAME_EXCHANGE)`), over and over, with a link to a copy of it outside the
//! repository. Every read and write of the dream stays beneath the folder it opened: the outside
//! copy stays byte-identical, whatever the dream managed to do. The same for a real `mnemo
//! sync` writing what it received while its memory folder is exchanged the same way.

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
    let flip = || {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        renameat_with(CWD, &qwen, CWD, &link, RenameFlags::EXCHANGE).unwrap();
    };
    // The swaps begin once the dream is under way (it found the workspace), at a few moments:
    // a dream that could follow the link writes outside in most of these runs.
    let mut swapped = 0;
    let mut outs = Vec::new();
    for delay_ms in [100, 250, 500] {
        let mut child = e
            .cmd()
            .args(["--json", "--workspace", &id, "dream", "--mechanical"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let mut n = 0;
        while child.try_wait().unwrap().is_none() {
            flip();
            n += 1;
            std::thread::sleep(std::time::Duration::from_millis(3));
        }
        if n % 2 == 1 {
            flip();
        }
        swapped += n;
        assert!(
            std::fs::symlink_metadata(&qwen).unwrap().is_dir(),
            "the repository's folder is back in place"
        );
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            tree(&outside),
            before,
            "nothing outside the repository changed (swaps from {delay_ms} ms): {}",
            String::from_utf8_lossy(&out.stdout)
        );
        outs.push(out);
    }
    assert!(
        swapped > 2,
        "the folder was swapped during the dreams ({swapped})"
    );
    let out = outs.pop().unwrap();
    // The dream said what happened: done, or refused with the reason (never silently partial).
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() || said.contains("symbolic link") || said.contains("outside"),
        "{said}"
    );
    eprintln!("{swapped} swaps during three dreams; outside unchanged");
}

/// Exchange `a` and `b` (`renameat2(RENAME_EXCHANGE)`).
fn exchange(a: &std::path::Path, b: &std::path::Path) {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).unwrap();
}

/// Issue 33, "the root swap during a sync's write": a real `mnemo sync` receiving 400 memories
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
    let mut said = Vec::new();
    for delay_ms in [0, 40, 120] {
        let mut child = e
            .cmd()
            .args(["--json", "sync"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let mut n = 0;
        while child.try_wait().unwrap().is_none() {
            exchange(&real, &link);
            n += 1;
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        if n % 2 == 1 {
            exchange(&real, &link);
        }
        swapped += n;
        assert!(
            std::fs::symlink_metadata(&real).unwrap().is_dir(),
            "the memory folder is back in place"
        );
        let out = child.wait_with_output().unwrap();
        let after = tree(&outside);
        let changed: Vec<_> = before
            .keys()
            .chain(after.keys())
            .filter(|k| before.get(*k) != after.get(*k))
            .take(5)
            .collect();
        assert!(
            changed.is_empty(),
            "nothing outside the home changed (swaps from {delay_ms} ms), but: {changed:?}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        said.push(out);
    }
    assert!(
        swapped > 2,
        "the folder was swapped during the syncs ({swapped})"
    );
    // Each sync said what happened: done, or refused with the reason.
    for out in &said {
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success() || text.contains("symbolic link") || text.contains("outside"),
            "{text}"
        );
    }
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
