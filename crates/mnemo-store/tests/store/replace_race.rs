//! Mnemo's write of a memory file against an editor appending to it with no lock:
//! `replace_if` in a tight loop, each time over the bytes it just read, while another thread
//! appends 10,000 lines the way `echo >>` does. Every appended line survives: an append that
//! lands before the swap makes the write step back (`false`), one after it goes to the new file.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use mnemo_store::fsutil::replace_if;

#[test]
fn an_editor_appending_while_mnemo_replaces_the_file_loses_no_line() {
    let appends: usize = std::env::var("MNEMO_RACING_APPENDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("log.md");
    std::fs::write(&path, "start\n").unwrap();
    let root = mnemo_store::rootdir::RootDir::open(d.path()).unwrap();
    let done = AtomicBool::new(false);
    let (replaced, stepped_back) = (AtomicUsize::new(0), AtomicUsize::new(0));
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..appends {
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                f.write_all(format!("editor {i}\n").as_bytes()).unwrap();
                drop(f);
                // Bursts of 20 with short pauses: Mnemo's writes land between and during them.
                if i % 20 == 19 {
                    std::thread::sleep(std::time::Duration::from_millis(3));
                }
            }
            done.store(true, Ordering::SeqCst);
        });
        s.spawn(|| {
            let mut n = 0;
            while !done.load(Ordering::SeqCst) {
                n += 1;
                let read = std::fs::read(&path).unwrap();
                let mut new = read.clone();
                new.extend_from_slice(format!("mnemo {n}\n").as_bytes());
                if replace_if(&root, "log.md", Some(&new), Some(&read)).unwrap() {
                    replaced.fetch_add(1, Ordering::SeqCst);
                } else {
                    stepped_back.fetch_add(1, Ordering::SeqCst);
                }
            }
        });
    });
    let text = std::fs::read_to_string(&path).unwrap();
    let have: std::collections::BTreeSet<&str> = text.lines().collect();
    let lost: Vec<usize> = (0..appends)
        .filter(|i| !have.contains(format!("editor {i}").as_str()))
        .collect();
    let (r, b) = (replaced.into_inner(), stepped_back.into_inner());
    assert!(
        lost.is_empty(),
        "{} of {appends} lines lost ({r} replacements, {b} stepped back): first {:?}",
        lost.len(),
        &lost[..lost.len().min(10)]
    );
    assert!(r > 0, "Mnemo replaced the file while the editor appended");
    eprintln!("{appends} appends, {r} replacements, {b} stepped back, 0 lost");
}
