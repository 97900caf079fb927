//! Applying an import is all or nothing: a file that appears while it is written, or
//! a cancel, takes back every file the import already wrote; nothing is left half-imported.

use std::cell::Cell;

use mnemo_core::{ChangeSource, ErrorCode, MemoryType};
use mnemo_store::import::plan::PlannedFile;

use super::{Fixture, topic};

fn planned(n: usize) -> Vec<PlannedFile> {
    (0..n)
        .map(|i| PlannedFile {
            workspace: None,
            path: format!("imp-{i}.md"),
            bytes: topic(
                &format!("Imp {i}"),
                "imported",
                "user",
                &format!("Fact {i} of the import"),
            )
            .into_bytes(),
            memories: 1,
            memory_type: Some(MemoryType::User),
        })
        .collect()
}

/// Apply `files` to `personal` as the command line would.
fn apply(
    f: &Fixture,
    files: &[PlannedFile],
    progress: impl FnMut(usize, usize),
    stop: impl Fn() -> bool,
) -> mnemo_core::Result<Vec<mnemo_store::vault::ImportWritten>> {
    let by = mnemo_store::vault::ImportBy {
        source: ChangeSource::Cli,
        label: "test",
        task: None,
    };
    f.vault.apply_import("personal", files, by, progress, stop)
}

fn listing(f: &Fixture) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(f.personal())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && n != "MEMORY.md")
        .collect();
    v.sort();
    v
}

#[test]
fn a_file_appearing_midway_or_a_cancel_takes_the_whole_import_back() {
    let f = Fixture::new();
    f.write("keep.md", topic("Keep", "kept", "user", "Kept as it is"));
    f.vault.sync_all().unwrap();
    let before = listing(&f);
    // Written in steps: two and a half steps.
    let step = mnemo_store::vault::IMPORT_STEP;
    let n = step * 2 + step / 2;
    let files = planned(n);
    // Another program writes a path of the second step with other bytes while the first is
    // being reported.
    let written = Cell::new(0);
    let e = apply(
        &f,
        &files,
        |done, _| {
            if written.get() == 0 {
                f.write(
                    &format!("imp-{}.md", step + 7),
                    topic("Other", "someone else's", "user", "Not ours"),
                );
            }
            written.set(done);
        },
        || false,
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict, "{}", e.message);
    let other = format!("imp-{}.md", step + 7);
    assert!(e.message.contains(&other), "{}", e.message);
    assert_eq!(written.get(), step, "the first step was written");
    let mut expect = before.clone();
    expect.push(other.clone());
    expect.sort();
    assert_eq!(
        listing(&f),
        expect,
        "the first step's files are taken back; the other program's file stays"
    );
    std::fs::remove_file(f.personal().join(&other)).unwrap();
    // Cancelled after two steps: none kept.
    let calls = Cell::new(0);
    let e = apply(
        &f,
        &files,
        |_, _| {},
        || {
            calls.set(calls.get() + 1);
            calls.get() > 2
        },
    )
    .unwrap_err();
    assert_eq!(e.code, mnemo_core::ErrorCode::Cancelled, "{}", e.message);
    assert_eq!(listing(&f), before);
    // Uninterrupted: all five, in one group, and the same import again writes nothing.
    let w = apply(&f, &files, |_, _| {}, || false).unwrap();
    assert_eq!((w.len(), w[0].files.len(), w[0].memories), (1, n, n as u32));
    assert_eq!(f.vault.group(w[0].group).unwrap().changes.len(), n);
    let again = apply(&f, &files, |_, _| {}, || false).unwrap();
    assert!(
        again.is_empty(),
        "the same bytes already there: nothing written, no group left"
    );
}

/// A JSONL line over the element cap stops the import with its line number, read
/// only up to the cap (never held whole); the lines before it were read.
#[test]
fn a_jsonl_line_over_the_cap_stops_the_import_with_its_number() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memories.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(f, r#"{{"text": "Likes mint tea."}}"#).unwrap();
    write!(f, r#"{{"text": ""#).unwrap();
    let chunk = vec![b'x'; 1 << 20];
    let cap = mnemo_store::import::stream::MAX_ELEMENT_BYTES;
    for _ in 0..(cap >> 20) + 2 {
        f.write_all(&chunk).unwrap();
    }
    writeln!(f, r#""}}"#).unwrap();
    drop(f);
    let mut seen = Vec::new();
    let e = mnemo_store::import::memories::for_each(
        &path,
        mnemo_store::import::ImportFormat::Json,
        |c| {
            seen.push(c.text);
            Ok(())
        },
    )
    .unwrap_err();
    assert_eq!(e.code, mnemo_core::ErrorCode::TooLarge);
    assert!(e.message.contains("line 2 "), "{}", e.message);
    assert_eq!(seen, vec!["Likes mint tea.".to_owned()]);
}

/// Undoing an import into an empty workspace leaves it as the import found it — no
/// 0-byte MEMORY.md, no empty folders — while a folder that holds something else stays.
#[test]
fn undoing_an_import_leaves_the_folder_as_it_found_it() {
    let f = Fixture::new();
    std::fs::create_dir_all(f.personal()).unwrap();
    std::fs::create_dir_all(f.personal().join("journal")).unwrap();
    std::fs::write(f.personal().join("journal/keep.txt"), "not a memory\n").unwrap();
    let before = files_under(&f.personal());
    let mut files = planned(300);
    for (i, p) in files.iter_mut().enumerate() {
        p.path = match i % 3 {
            0 => format!("garden/beds/{}", p.path),
            1 => format!("journal/{}", p.path),
            _ => p.path.clone(),
        };
    }
    let w = apply(&f, &files, |_, _| {}, || false).unwrap();
    assert!(f.personal().join("MEMORY.md").exists());
    assert!(f.personal().join("garden/beds").is_dir());
    let undo = f.vault.undo_group(w[0].group, ChangeSource::Cli).unwrap();
    assert_eq!(undo.paths.len(), 300);
    assert_eq!(files_under(&f.personal()), before);
    // The undo is one group too, and undoing it brings all 300 back.
    let redo = f.vault.undo_group(undo.group, ChangeSource::Cli).unwrap();
    assert_eq!(redo.paths.len(), 300);
    assert!(f.personal().join("garden/beds/imp-0.md").exists());
    assert!(f.personal().join("MEMORY.md").exists());
}

/// Every file and folder under `dir`, relative (hidden ones left out).
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    mnemo_testkit::files::tree(dir)
        .into_keys()
        .filter(|p| !p.to_string_lossy().starts_with('.'))
        .collect()
}
