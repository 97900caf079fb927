//! multilingual-e5-small as the set-up installs it (required under CI and with
//! MNEMO_REQUIRE_MODEL=1): meaning across languages, and bad input — a truncated, corrupted or
//! foreign file, text of only unknown characters, a 250,000-character memory, mixed scripts —
//! a clear message or a vector, never a crash.

use mnemo_embed::{EmbedError, Embedder, dot, e5};

#[test]
fn paraphrases_in_other_languages_rank_first() {
    let Some(file) = mnemo_embed::e5_for_tests() else {
        return;
    };
    let m = Embedder::load(&file).expect("load");
    assert!(m.model_id().starts_with("multilingual-e5-small"));
    assert_eq!(m.dim(), 384);
    let docs = [
        "降低冷启动时间：首页依赖改成按需加载",
        "Dog named Biscuit: the user walks the beagle twice a day",
        "会議によく遅れる",
        "매운 음식을 좋아하지 않는다",
        "Deploys go through the staging cluster first",
    ];
    let d = m.embed(&docs).expect("docs");
    for (q, want) in [
        ("首屏加载太久了", 0),
        ("which pet does the user own", 1),
        ("always late for the meeting", 2),
        ("the user dislikes spicy food", 3),
    ] {
        let qv = m.embed_query(q).expect("query").vector;
        let best = (0..docs.len())
            .max_by(|a, b| dot(&qv, &d[*a].vector).total_cmp(&dot(&qv, &d[*b].vector)))
            .expect("some");
        assert_eq!(best, want, "{q}");
    }
    // Batched and alone agree.
    let alone = m.embed(&[docs[2]]).expect("alone");
    assert!(dot(&alone[0].vector, &d[2].vector) > 0.9999);
}

#[test]
fn odd_text_gives_a_vector_and_says_when_it_was_cut() {
    let Some(file) = mnemo_embed::e5_for_tests() else {
        return;
    };
    let m = e5::E5::load(&file).expect("load");
    let huge = "记忆".repeat(125_000); // 250,000 characters
    let unknown = "𓀀𓀁𒀀ꙮ"; // Egyptian, cuneiform, Cyrillic: no piece covers them
    let mixed = "Deploy 部署 デプロイ 배포 Развертывание 🚀 ＦＵＬＬ";
    let out = m.embed(&[huge.as_str(), unknown, mixed, ""], e5::Role::Passage);
    for (v, _) in &out {
        let norm: f32 = v.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-3 && v.iter().all(|x| x.is_finite()));
    }
    assert!(
        out[0].1,
        "a 250,000-character memory is embedded from its first part"
    );
    assert!(!out[1].1 && !out[2].1 && !out[3].1);
    // Unknown characters read as <unk> (id 3), not as nothing.
    let ids = m.tokens(unknown, e5::Role::Passage);
    assert!(ids.iter().filter(|i| **i == 3).count() >= 4, "{ids:?}");
}

#[test]
fn truncated_corrupted_or_foreign_files_are_clear_errors() {
    let Some(file) = mnemo_embed::e5_for_tests() else {
        return;
    };
    let bytes = std::fs::read(&file).expect("read");
    let t = tempfile::tempdir().expect("tmp");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "truncated",
            bytes[..bytes.len() / 2].to_vec(),
            "past the end of the file",
        ),
        ("head only", bytes[..4096].to_vec(), "truncated"),
        (
            "wrong magic",
            {
                let mut b = bytes[..1 << 20].to_vec();
                b[..4].copy_from_slice(b"GGUF");
                b
            },
            "does not start with E5S1",
        ),
        (
            "html",
            b"<html>404 not found</html>".to_vec(),
            "does not start with E5S1",
        ),
        ("empty", Vec::new(), "too short"),
        (
            "corrupted shape",
            {
                let mut b = bytes.clone();
                b[8..12].copy_from_slice(&385u32.to_le_bytes()); // hidden size 385
                b
            },
            "shape",
        ),
        (
            "corrupted directory",
            {
                let mut b = bytes.clone();
                // The first tensor's byte length, in its directory entry ("emb.word", dtype 1).
                let at = b
                    .windows(8)
                    .position(|w| w == b"emb.word")
                    .expect("directory")
                    + 8
                    + 1
                    + 4
                    + 8;
                b[at..at + 8].copy_from_slice(&7u64.to_le_bytes());
                b
            },
            "emb.word",
        ),
    ];
    for (what, content, says) in cases {
        let f = t.path().join(format!("{what}.bin"));
        std::fs::write(&f, &content).expect("write");
        let err = Embedder::load(&f).expect_err(what);
        assert!(matches!(err, EmbedError::BadModel { .. }), "{what}: {err}");
        let msg = err.to_string();
        assert!(msg.contains(says), "{what}: {msg}");
        assert!(
            msg.contains("set-up"),
            "{what} says how to reinstall: {msg}"
        );
    }
}
