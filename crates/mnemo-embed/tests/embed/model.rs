//! The MiniLM backend with the real all-MiniLM-L6-v2, as the set-up installs it (it still serves
//! when `MNEMO_EMBED_MODEL` names its folder). Required when `MNEMO_REQUIRE_MODEL=1` (the test
//! script sets it after installing the model) or under CI; skipped with a note otherwise.

use std::path::Path;

use mnemo_embed::{EmbedError, Embedder, dot};

fn copy_model(from: &Path, to: &Path) {
    for f in mnemo_embed::REQUIRED_FILES {
        std::fs::copy(from.join(f), to.join(f)).expect("copy");
    }
}

#[test]
fn the_model_understands_meaning_and_reports_truncation() {
    let Some(dir) = mnemo_embed::minilm_for_tests() else {
        return;
    };
    let m = Embedder::load(&dir).expect("load");
    assert_eq!(m.dim(), 384);
    let e = m
        .embed(&[
            "which pet does the user own",
            "Dog named Biscuit: walks the beagle twice a day",
            "Deploys go through the staging cluster first",
            "word ".repeat(600).as_str(),
        ])
        .expect("embed");
    let norm: f32 = e[0].vector.iter().map(|x| x * x).sum();
    assert!((norm - 1.0).abs() < 1e-3, "unit length, got {norm}");
    let pet = dot(&e[0].vector, &e[1].vector);
    let deploy = dot(&e[0].vector, &e[2].vector);
    assert!(pet > deploy + 0.1, "pet {pet} vs deploy {deploy}");
    assert!(!e[1].truncated);
    assert!(e[3].truncated, "600 words exceed the 128-piece window");
    // Batched and alone give the same vector.
    let alone = m.embed(&["which pet does the user own"]).expect("embed");
    assert!(dot(&alone[0].vector, &e[0].vector) > 0.999);
    assert!(m.model_id().contains('@'));
}

#[test]
fn the_8_bit_query_encoder_agrees_with_the_model() {
    let Some(dir) = mnemo_embed::minilm_for_tests() else {
        return;
    };
    let m = Embedder::load(&dir).expect("load");
    let long = "word ".repeat(600);
    let texts = [
        "which pet does the user own",
        "When did Caroline go to the LGBTQ support group?",
        "我们的部署流程是什么",
        "猫の名前は？",
        "ok",
        long.as_str(),
    ];
    for t in texts {
        let full = m.embed(&[t]).expect("embed").remove(0);
        let quick = m.embed_query(t).expect("embed_query");
        let norm: f32 = quick.vector.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-3, "unit length, got {norm}");
        let cos = dot(&full.vector, &quick.vector);
        assert!(cos > 0.99, "{t:?}: cosine {cos}");
        assert_eq!(full.truncated, quick.truncated, "{t:?}");
    }
    // It ranks like the model: the pet memory over the deploy one.
    let q = m.embed_query("which pet does the user own").expect("q");
    let docs = m
        .embed(&[
            "Dog named Biscuit: walks the beagle twice a day",
            "Deploys go through the staging cluster first",
        ])
        .expect("docs");
    assert!(dot(&q.vector, &docs[0].vector) > dot(&q.vector, &docs[1].vector) + 0.1);
}

#[test]
fn truncated_or_wrong_files_are_clear_errors() {
    let Some(dir) = mnemo_embed::minilm_for_tests() else {
        return;
    };
    let t = tempfile::tempdir().expect("tmp");
    copy_model(&dir, t.path());
    // Truncated weights.
    let w = std::fs::read(dir.join("model.safetensors")).expect("read");
    std::fs::write(t.path().join("model.safetensors"), &w[..w.len() / 3]).expect("write");
    let err = Embedder::load(t.path()).expect_err("truncated");
    assert!(matches!(err, EmbedError::BadModel { .. }), "{err}");
    assert!(err.to_string().contains("model.safetensors"), "{err}");
    // Not a safetensors file at all.
    std::fs::write(
        t.path().join("model.safetensors"),
        b"<html>not found</html>",
    )
    .expect("write");
    let err = Embedder::load(t.path()).expect_err("wrong");
    assert!(err.to_string().contains("reinstall"), "{err}");
    // A tokenizer that is not one.
    copy_model(&dir, t.path());
    std::fs::write(t.path().join("tokenizer.json"), b"{}").expect("write");
    let err = Embedder::load(t.path()).expect_err("tokenizer");
    assert!(err.to_string().contains("tokenizer.json"), "{err}");
    // A config for another architecture.
    copy_model(&dir, t.path());
    std::fs::write(t.path().join("config.json"), br#"{"hidden_size": 1024}"#).expect("write");
    let err = Embedder::load(t.path()).expect_err("config");
    assert!(matches!(err, EmbedError::BadModel { .. }), "{err}");
}
