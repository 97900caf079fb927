//! Sync at its edges, each with the real `git` and a bare remote: a workspace or a
//! Claude Code `memory/` folder that appears on a home after its first sync receives what the
//! remote holds and deletes nothing; a folder that goes away and comes back deletes nothing.

use std::path::{Path, PathBuf};

use super::gitsync::{Side, encoded, files_under, git, two};
use super::topic;
use mnemo_sync::VaultSync;

/// One repository cloned at a path per home; returns each home's Claude Code memory folder for
/// it (not created).
pub fn project(t: &Path, sides: &[&Side]) -> Vec<PathBuf> {
    let seed = t.join("seed");
    std::fs::create_dir_all(&seed).unwrap();
    git(&seed, &["init", "-q"]);
    std::fs::write(seed.join("README"), "webapp\n").unwrap();
    git(&seed, &["add", "README"]);
    git(&seed, &["commit", "-q", "-m", "first"]);
    let origin = t.join("webapp.git");
    git(
        t,
        &[
            "clone",
            "-q",
            "--bare",
            seed.to_str().unwrap(),
            origin.to_str().unwrap(),
        ],
    );
    sides
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let p = t.join(format!("clone-{i}/code/webapp"));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            git(
                t,
                &["clone", "-q", origin.to_str().unwrap(), p.to_str().unwrap()],
            );
            s.dir
                .join("claude/projects")
                .join(encoded(&p))
                .join("memory")
        })
        .collect()
}

#[test]
fn a_claude_memory_folder_created_after_the_first_sync_receives_and_deletes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    let m = project(t.path(), &[&a, &b]);
    std::fs::create_dir_all(&m[0]).unwrap();
    std::fs::write(
        m[0].join("build.md"),
        topic("Build", "how to build", "project", "Run make first."),
    )
    .unwrap();
    a.write("x.md", &topic("X", "x", "user", "One."));
    a.sync();
    // B has the clone but its assistant never wrote a memory there yet: the status says what
    // waits and why.
    b.sync();
    assert!(!m[1].exists());
    let s = b.vault.sync_status().unwrap();
    let k = s
        .elsewhere
        .iter()
        .find(|k| k.key.ends_with("/claude"))
        .unwrap_or_else(|| panic!("{s:?}"));
    assert_eq!(k.files, 1);
    assert!(k.why.contains("Claude Code memory folder"), "{k:?}");
    b.sync();
    // The person starts using Claude Code in the repository on B.
    std::fs::create_dir_all(&m[1]).unwrap();
    let r = b.sync();
    let w = r
        .workspaces
        .iter()
        .find(|w| w.workspace.starts_with("claude:"))
        .unwrap();
    assert_eq!(w.changed, ["build.md"], "{w:?}");
    assert!(r.elsewhere.is_empty(), "{:?}", r.elsewhere);
    assert_eq!(files_under(&m[1]), files_under(&m[0]));
    a.sync();
    assert!(
        m[0].join("build.md").exists(),
        "nothing deleted on the home that wrote it"
    );
    // And the two go on as one.
    std::fs::write(
        m[1].join("tests.md"),
        topic("Tests", "how to test", "project", "Tests need Postgres."),
    )
    .unwrap();
    b.sync();
    a.sync();
    assert_eq!(files_under(&m[0]).len(), 2);
    assert_eq!(files_under(&m[0]), files_under(&m[1]));
}

#[test]
fn a_memory_folder_that_goes_away_and_comes_back_deletes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    let m = project(t.path(), &[&a, &b]);
    for dir in &m {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(
        m[0].join("build.md"),
        topic("Build", "how to build", "project", "Run make first."),
    )
    .unwrap();
    a.sync();
    b.sync();
    assert!(m[1].join("build.md").exists());
    // The project's memory folder is gone from B for a while (a fresh clone, a cleanup)…
    std::fs::remove_dir_all(&m[1]).unwrap();
    b.sync();
    a.sync();
    assert!(
        m[0].join("build.md").exists(),
        "a missing folder deletes nothing"
    );
    // …and comes back empty: what the remote holds returns, nothing is deleted anywhere.
    std::fs::create_dir_all(&m[1]).unwrap();
    b.sync();
    a.sync();
    assert!(m[0].join("build.md").exists());
    assert_eq!(files_under(&m[1]), files_under(&m[0]));
    // A file deleted by a person there still deletes everywhere.
    std::fs::remove_file(m[1].join("build.md")).unwrap();
    b.sync();
    a.sync();
    assert!(!m[0].join("build.md").exists(), "a real delete holds");
}

#[test]
fn a_workspace_that_appears_after_the_first_sync_receives_and_deletes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    b.write("b.md", &topic("B", "b", "user", "From B."));
    b.sync();
    // A creates workspace `work`; B syncs only `personal` for a while.
    let work = |s: &Side| s.dir.join("home/workspaces/work/memory");
    std::fs::create_dir_all(work(&a)).unwrap();
    std::fs::write(
        work(&a).join("office.md"),
        topic("Office", "where", "project", "The office is in Lisbon."),
    )
    .unwrap();
    a.sync();
    b.vault.sync_remote(Some("personal"), None).unwrap();
    b.sync();
    assert!(work(&b).join("office.md").exists(), "it arrived");
    a.sync();
    assert!(work(&a).join("office.md").exists());
    // The same when B made the workspace itself meanwhile, with a file of its own.
    std::fs::create_dir_all(work(&b)).unwrap();
    let late = |s: &Side| s.dir.join("home/workspaces/late/memory");
    std::fs::create_dir_all(late(&a)).unwrap();
    std::fs::write(
        late(&a).join("one.md"),
        topic("One", "one", "project", "From A."),
    )
    .unwrap();
    a.sync();
    b.vault.sync_remote(Some("personal"), None).unwrap();
    std::fs::create_dir_all(late(&b)).unwrap();
    std::fs::write(
        late(&b).join("two.md"),
        topic("Two", "two", "project", "From B."),
    )
    .unwrap();
    b.sync();
    a.sync();
    for s in [&a, &b] {
        let f = files_under(&late(s));
        assert_eq!(
            f.keys().collect::<Vec<_>>(),
            ["one.md", "two.md"],
            "{}",
            s.dir.display()
        );
    }
}

/// Make `side`'s next sync stop after its commit and before its push lands, as a sync killed
/// there would: its repository pushes to a place that is no repository (fetching still works).
/// Returns what undoes it.
pub fn stop_before_push(side: &Side, remote: &Path) -> impl FnOnce() + use<> {
    let repo = side.dir.join("home/sync/repo.git");
    if !repo.join("HEAD").exists() {
        std::fs::create_dir_all(&repo).unwrap();
        super::gitsync::git(&repo, &["init", "-q", "--bare", "--initial-branch", "main"]);
        super::gitsync::git(
            &repo,
            &["remote", "add", "origin", remote.to_str().unwrap()],
        );
    }
    let nowhere = side.dir.join("nowhere.git");
    super::gitsync::git(
        &repo,
        &["config", "remote.origin.pushurl", nowhere.to_str().unwrap()],
    );
    move || {
        super::gitsync::git(&repo, &["config", "--unset", "remote.origin.pushurl"]);
    }
}

#[test]
fn a_first_sync_stopped_before_its_push_adopts_the_remote_that_moved_on() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, r) = two(t.path());
    a.write("a.md", &topic("A", "a", "user", "From A."));
    b.write("b.md", &topic("B", "b", "user", "From B."));
    // A's first sync makes its root commit and never pushes it.
    let resume = stop_before_push(&a, &r);
    assert!(a.vault.sync_remote(None, None).is_err());
    resume();
    assert!(
        super::gitsync::git(&a.dir.join("home/sync/repo.git"), &["rev-parse", "main"]).len() > 20,
        "its root commit is there"
    );
    // B's first sync lands first: the two histories have nothing in common.
    b.sync();
    a.sync();
    b.sync();
    assert_eq!(a.files(), b.files());
    assert_eq!(a.files().len(), 2, "both homes' files, on both");
    // And they go on as one.
    a.write("c.md", &topic("C", "c", "user", "Later."));
    a.sync();
    b.sync();
    assert_eq!(a.files(), b.files());
}

#[test]
fn two_first_syncs_at_once_converge() {
    for round in 0..4 {
        let t = tempfile::tempdir().unwrap();
        let (a, b, _) = two(t.path());
        a.write(
            "a.md",
            &topic("A", "a", "user", &format!("From A {round}.")),
        );
        b.write(
            "b.md",
            &topic("B", "b", "user", &format!("From B {round}.")),
        );
        std::thread::scope(|s| {
            s.spawn(|| a.vault.sync_remote(None, None).unwrap());
            s.spawn(|| b.vault.sync_remote(None, None).unwrap());
        });
        a.sync();
        b.sync();
        assert_eq!(a.files(), b.files(), "round {round}");
        assert_eq!(a.files().len(), 2, "round {round}");
    }
}

#[test]
fn a_replaced_remote_is_a_clear_error_and_reset_local_mends_it_keeping_every_file() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, r) = two(t.path());
    a.write("a.md", &topic("A", "a", "user", "From A."));
    a.sync();
    // The remote is replaced by a fresh one, which another home fills first.
    std::fs::remove_dir_all(&r).unwrap();
    super::gitsync::bare(t.path());
    b.write("b.md", &topic("B", "b", "user", "From B."));
    b.sync();
    a.write("a2.md", &topic("A2", "a2", "user", "Also from A."));
    let e = a.vault.sync_remote(None, None).unwrap_err();
    assert_eq!(e.code, mnemo_core::ErrorCode::RemoteRefused);
    assert!(e.message.contains("mnemo sync reset-local"), "{e}");
    let before = a.files();
    a.vault.sync_reset_local().unwrap();
    assert_eq!(a.files(), before, "every file kept");
    a.sync();
    b.sync();
    assert_eq!(a.files(), b.files());
    assert_eq!(a.files().len(), 3);
}

fn conflicts(s: &Side) -> Vec<mnemo_sync::SyncConflict> {
    s.vault
        .sync_status()
        .unwrap()
        .workspaces
        .into_iter()
        .find(|w| w.workspace == "personal")
        .unwrap()
        .conflicts
}

fn choice(c: &mnemo_sync::SyncConflict, word: &str) -> usize {
    c.choices
        .iter()
        .position(|ch| ch.texts.iter().any(|t| t.contains(word)))
        .unwrap()
}

#[test]
fn one_conflict_settled_differently_on_two_homes_keeps_both_and_asks_again() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    let body = |x: &str| topic("Home", "where", "user", &format!("Has a cat.\n\n{x}"));
    a.write("home.md", &body("Lives in Faro."));
    a.sync();
    b.sync();
    a.write("home.md", &body("Lives in Lisbon since 2021."));
    b.write("home.md", &body("Lives in Porto since 2024."));
    a.sync();
    b.sync();
    a.sync();
    let c = &conflicts(&a)[0];
    assert_eq!(conflicts(&b)[0].id, c.id);
    // Ana keeps Lisbon, Ben keeps Porto, both sync.
    a.vault
        .sync_resolve(
            &c.id,
            Some(choice(c, "Lisbon")),
            mnemo_core::ChangeSource::Cli,
        )
        .unwrap();
    b.vault
        .sync_resolve(
            &c.id,
            Some(choice(c, "Porto")),
            mnemo_core::ChangeSource::Cli,
        )
        .unwrap();
    a.sync();
    b.sync();
    a.sync();
    assert_eq!(a.files(), b.files());
    let text = a.read("home.md").unwrap();
    assert!(
        text.contains("Lisbon") && text.contains("Porto") && text.contains("cat"),
        "both versions kept: {text}"
    );
    let again = conflicts(&a);
    assert_eq!(again.len(), 1, "{again:?}");
    assert_ne!(again[0].id, c.id, "a new conflict");
    assert_eq!(conflicts(&b)[0].id, again[0].id, "the same on both homes");
    assert!(
        again[0]
            .choices
            .iter()
            .any(|ch| ch.label.contains("choice"))
    );
    // Settled once, on one home, it is over everywhere.
    a.vault
        .sync_resolve(
            &again[0].id,
            Some(choice(&again[0], "Porto")),
            mnemo_core::ChangeSource::Cli,
        )
        .unwrap();
    a.sync();
    b.sync();
    assert_eq!(a.files(), b.files());
    let text = b.read("home.md").unwrap();
    assert!(text.contains("Porto") && !text.contains("Lisbon"), "{text}");
    assert!(conflicts(&a).is_empty() && conflicts(&b).is_empty());
}

#[test]
fn delete_it_as_the_other_home_did_deletes_the_file_everywhere() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    a.write("gym.md", &topic("Gym", "gym", "user", "Goes to the gym."));
    a.sync();
    b.sync();
    // Ana deletes it; Ben edits it meanwhile.
    std::fs::remove_file(a.root().join("gym.md")).unwrap();
    b.write(
        "gym.md",
        &topic("Gym", "gym", "user", "Goes to the gym.\n\nOn Mondays."),
    );
    a.sync();
    b.sync();
    a.sync();
    assert!(
        a.read("gym.md").is_some(),
        "the edit survives until a person chooses"
    );
    let c = &conflicts(&b)[0];
    assert_eq!(c.kind, "deleted_and_edited");
    let delete = c.choices.iter().position(|ch| ch.texts.is_empty()).unwrap();
    assert!(
        c.choices[delete].label.contains("delete it, as ana did"),
        "{c:?}"
    );
    b.vault
        .sync_resolve(&c.id, Some(delete), mnemo_core::ChangeSource::Cli)
        .unwrap();
    assert!(b.read("gym.md").is_none(), "deleted here");
    b.sync();
    a.sync();
    assert!(a.read("gym.md").is_none(), "and on the other home");
    assert!(conflicts(&a).is_empty() && conflicts(&b).is_empty());
}

/// An editor appending to a memory file (`echo >>`, no lock) while syncs keep merging other
/// homes' changes into that very file: every append survives.
#[test]
fn an_editor_appending_during_syncs_loses_nothing() {
    use std::io::Write as _;
    use std::sync::atomic::{AtomicBool, Ordering};
    let appends: usize = std::env::var("MNEMO_RACING_APPENDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    a.write("log.md", &topic("Log", "facts", "user", "Start."));
    a.sync();
    b.sync();
    let done = AtomicBool::new(false);
    let syncs = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            let path = a.root().join("log.md");
            for i in 0..appends {
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                f.write_all(format!("\nEditor fact {i}.\n").as_bytes())
                    .unwrap();
                drop(f);
                std::thread::sleep(std::time::Duration::from_micros(100));
                // Bursts of 250, each followed by a pause until a sync of A has written the file
                // (at most 2 s): so syncs keep writing it all through the run, racing the
                // bursts, on a loaded machine too.
                if i % 250 == 249 {
                    let target = syncs.load(Ordering::SeqCst) + 1;
                    let until = std::time::Instant::now() + std::time::Duration::from_secs(2);
                    while syncs.load(Ordering::SeqCst) < target && std::time::Instant::now() < until
                    {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                }
            }
            done.store(true, Ordering::SeqCst);
        });
        s.spawn(|| {
            // Another home keeps adding to the same file, so A's syncs keep writing it.
            let mut n = 0;
            while !done.load(Ordering::SeqCst) {
                n += 1;
                let mut text = b.read("log.md").unwrap();
                text.push_str(&format!("\nFrom B {n}.\n"));
                b.write("log.md", &text);
                b.vault.sync_remote(None, None).unwrap();
                // Another machine syncs now and then: here, once A has synced since (at most
                // 5 s). One pushing to the same file in a tight loop would keep A's pushes out
                // for as long as it ran — a fight over the remote this test is not about.
                let target = syncs.load(Ordering::SeqCst) + 1;
                let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
                while syncs.load(Ordering::SeqCst) < target
                    && !done.load(Ordering::SeqCst)
                    && std::time::Instant::now() < until
                {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
            }
        });
        s.spawn(|| {
            while !done.load(Ordering::SeqCst) {
                let r = a.vault.sync_remote(None, None).unwrap();
                if r.workspaces
                    .iter()
                    .any(|w| w.changed.iter().any(|c| c == "log.md"))
                {
                    syncs.fetch_add(1, Ordering::SeqCst);
                }
            }
        });
    });
    for s in [&a, &b, &a] {
        s.sync();
    }
    assert_eq!(a.files(), b.files());
    let text = a.read("log.md").unwrap();
    let have: std::collections::BTreeSet<&str> = text.lines().collect();
    let lost: Vec<usize> = (0..appends)
        .filter(|i| !have.contains(format!("Editor fact {i}.").as_str()))
        .collect();
    assert!(
        lost.is_empty(),
        "{} of {appends} appends lost (A's syncs wrote the file {} times meanwhile): first {:?}",
        lost.len(),
        syncs.load(Ordering::SeqCst),
        &lost[..lost.len().min(10)]
    );
    assert!(
        syncs.load(Ordering::SeqCst) > 0,
        "the syncs wrote the file while the editor appended"
    );
}

#[test]
fn a_remote_made_with_plain_git_init_bare_clones_with_the_memory_checked_out() {
    let t = tempfile::tempdir().unwrap();
    let r = t.path().join("plain.git");
    std::fs::create_dir_all(&r).unwrap();
    // No --initial-branch: HEAD names `master` (or whatever the default is), not Mnemo's `main`.
    git(
        &r,
        &["-c", "init.defaultBranch=master", "init", "-q", "--bare"],
    );
    let a = Side::new(t.path(), "ana", &r);
    a.write("x.md", &topic("X", "x", "user", "One."));
    a.sync();
    let c = t.path().join("checkout");
    git(
        t.path(),
        &["clone", "-q", r.to_str().unwrap(), c.to_str().unwrap()],
    );
    assert!(
        c.join("mnemo/personal/memory/x.md").is_file(),
        "a clone checks the memory out"
    );
    let log = git(&c, &["log", "-1", "--format=%s"]);
    assert!(
        log.contains("personal: +1 from ana"),
        "the commit says what it carries: {log}"
    );
}

/// An idle sync names a file at rest by its stamp instead of reading it (2,000 memories: 68 ms
/// instead of 150). An edit to such a file — one that keeps its size, too — changes its stamp
/// and is sent; a change from the other home is written over it as over any file.
#[test]
fn files_at_rest_named_by_their_stamp_still_send_and_receive_every_edit() {
    let t = tempfile::tempdir().unwrap();
    let (a, b, _) = two(t.path());
    let first = topic("Car", "car", "user", "Drives a Toyota Corolla.");
    a.write("car.md", &first);
    a.write(
        "job.md",
        &topic("Job", "job", "user", "Works night shifts."),
    );
    a.sync();
    b.sync();
    assert_eq!(b.read("car.md").as_deref(), Some(first.as_str()));
    // At rest: a stamp is only trusted for files older than 2 s (git's rule for racy entries).
    std::thread::sleep(std::time::Duration::from_millis(2500));
    for s in [&a, &b] {
        s.sync(); // remembers each file's id by its stamp
        s.sync(); // and names them by it
    }
    let same_size = topic("Car", "car", "user", "Drives a Toyota Corolle.");
    assert_eq!(same_size.len(), first.len());
    a.write("car.md", &same_size);
    a.sync();
    b.sync();
    assert_eq!(b.read("car.md").as_deref(), Some(same_size.as_str()));
    assert_eq!(a.files(), b.files());
    // The other way: B's job.md is at rest, A's edit arrives over it.
    let job = topic("Job", "job", "user", "Works day shifts now.");
    a.write("job.md", &job);
    a.sync();
    b.sync();
    assert_eq!(b.read("job.md").as_deref(), Some(job.as_str()));
    assert_eq!(a.files(), b.files());
}
