//! A memory root swapped while Mnemo writes in it: the project folder holding a
//! Claude Code memory folder is exchanged (`renameat2(RENAME_EXCHANGE)`), over and over, with a
//! link to a copy outside. A sync's writes under one hold keep going to the folder they opened;
//! single writes after a swap are refused; the outside tree stays byte-identical.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use mnemo_core::{ChangeSource, ErrorCode};
use mnemo_store::fsutil::blob_id;
use mnemo_store::vault::{ManyWrite, WriteHold};
use mnemo_testkit::files::{copy_dir, tree};

use super::{Fixture, topic};

/// Exchange `a` and `b` until `stop`; returns how many exchanges were made (even: as before).
fn swapper(a: &Path, b: &Path, stop: &AtomicBool, swaps: &AtomicUsize) {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    while !stop.load(Ordering::SeqCst) {
        renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).unwrap();
        swaps.fetch_add(1, Ordering::SeqCst);
        std::thread::yield_now();
    }
    if swaps.load(Ordering::SeqCst) % 2 == 1 {
        renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).unwrap();
        swaps.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn a_root_swapped_for_a_link_during_writes_changes_nothing_outside() {
    const FILES: usize = 40;
    let f = Fixture::new();
    let project = f.dir.path().join("claude/projects/-work-shop");
    let memory = project.join("memory");
    std::fs::create_dir_all(&memory).unwrap();
    let mut now: Vec<String> = (0..FILES)
        .map(|i| topic(&format!("Note {i}"), "d", "project", &format!("Fact {i}.")))
        .collect();
    for (i, t) in now.iter().enumerate() {
        std::fs::write(memory.join(format!("note-{i}.md")), t).unwrap();
    }
    // The attacker's copy outside the project, and a link to it beside the projects folder.
    let outside = f.dir.path().join("outside");
    copy_dir(&project, &outside.join("copy"));
    let link = f.dir.path().join("claude/evil");
    std::os::unix::fs::symlink(outside.join("copy"), &link).unwrap();
    let before = tree(&outside);

    let ws = f.vault.workspace("claude:-work-shop").unwrap();
    f.vault.sync(&ws).unwrap();
    let hold = f.vault.hold_writes(&ws).unwrap();
    let origin = ChangeSource::Sync.into();
    // The hold's first write opens the root; every later one resolves beneath it.
    let round = |hold: &WriteHold, now: &mut Vec<String>, r: usize| {
        let writes: Vec<ManyWrite> = now
            .iter()
            .enumerate()
            .map(|(i, t)| ManyWrite {
                path: format!("note-{i}.md"),
                expect: Some(blob_id(t.as_bytes())),
                new: Some(
                    topic(
                        &format!("Note {i}"),
                        "d",
                        "project",
                        &format!("Fact {i}, round {r}."),
                    )
                    .into_bytes(),
                ),
            })
            .collect();
        let (changed, all) = f.vault.write_many_held(hold, &ws, origin, &writes).unwrap();
        assert!(all, "round {r}: every file held what was expected");
        assert_eq!(changed.len(), FILES);
        for (t, w) in now.iter_mut().zip(&writes) {
            *t = String::from_utf8(w.new.clone().unwrap()).unwrap();
        }
    };
    round(&hold, &mut now, 0);

    let stop = AtomicBool::new(false);
    let swaps = AtomicUsize::new(0);
    let mut refused = 0;
    /// Stops the swapper however the test ends (a failed assertion included).
    struct Stop<'a>(&'a AtomicBool);
    impl Drop for Stop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    std::thread::scope(|s| {
        s.spawn(|| swapper(&project, &link, &stop, &swaps));
        let _stop = Stop(&stop);
        while swaps.load(Ordering::SeqCst) < 2 {
            std::thread::yield_now();
        }
        // A sync's writes: all under one hold, while the folder flips in and out of place.
        for r in 1..=30 {
            round(&hold, &mut now, r);
        }
        drop(hold);
        // Single writes open the root each time: refused while a link is in its path, else
        // written in the real folder.
        for i in 0..200 {
            let rel = format!("single-{i}.md");
            let body = topic(&format!("Single {i}"), "d", "project", "One more.");
            match f.vault.mutate(&ws, &rel, ChangeSource::Cli, None, |_, _| {
                Ok(Some(body.clone().into_bytes()))
            }) {
                Ok(_) => {}
                Err(e) if e.code == ErrorCode::PathEscape => refused += 1,
                Err(e) => panic!("single write {i}: {e}"),
            }
        }
        stop.store(true, Ordering::SeqCst);
    });
    let swaps = swaps.into_inner();
    assert!(
        swaps > 2,
        "the folder was swapped while Mnemo wrote ({swaps})"
    );
    assert_eq!(tree(&outside), before, "nothing outside changed");
    for (i, t) in now.iter().enumerate() {
        assert_eq!(
            std::fs::read_to_string(memory.join(format!("note-{i}.md"))).unwrap(),
            *t,
            "note-{i}.md holds the last round"
        );
    }
    let singles = (0..200)
        .filter(|i| memory.join(format!("single-{i}.md")).exists())
        .count();
    assert_eq!(
        singles + refused,
        200,
        "each single write landed inside or was refused"
    );
    eprintln!(
        "{swaps} swaps; 31 rounds of {FILES} files all inside; singles: {singles} written, {refused} refused"
    );
}
