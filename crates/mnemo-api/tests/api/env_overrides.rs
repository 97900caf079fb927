//! `MNEMO_LLM_*` overrides are used but never saved. Environment variables are process-wide,
//! so the checks run in a child process (this test binary, re-executed with the variables set).

use mnemo_api::{Api, ModelSettings};
use mnemo_store::Home;

const CHILD: &str = "MNEMO_TEST_ENV_CHILD";

#[test]
fn environment_overrides_are_shown_and_never_written() {
    let Some(dir) = std::env::var_os(CHILD) else {
        let d = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "env_overrides::environment_overrides_are_shown_and_never_written",
                "--nocapture",
            ])
            .env(CHILD, d.path())
            .env("MNEMO_LLM_BASE_URL", "http://env.example:1/v1")
            .env("MNEMO_LLM_MODEL", "env-model")
            .env("MNEMO_LLM_API_KEY", "sk-from-env")
            .env_remove("MNEMO_LLM_FAST_MODEL")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "child failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let home = Home {
        root: dir.join("home"),
        claude_dir: dir.join("c"),
        qwen_dir: dir.join("q"),
    };
    let api = Api::open(home).unwrap();
    let shown = api.get_model_settings().unwrap();
    assert_eq!(shown.base_url, "http://env.example:1/v1");
    assert_eq!(shown.model, "env-model");
    assert!(shown.has_key && shown.configured);
    assert_eq!(
        shown.env_overrides,
        ["MNEMO_LLM_BASE_URL", "MNEMO_LLM_API_KEY", "MNEMO_LLM_MODEL"]
    );
    // A client sends back what it was shown, with one change.
    let saved = api
        .set_model_settings(ModelSettings {
            timeout_secs: 45,
            fast_model: "stored-fast".into(),
            api_key: Some("sk-typed".into()),
            ..shown
        })
        .unwrap();
    assert_eq!(saved.model, "env-model", "the override still applies");
    let root = api.home_dir().to_path_buf();
    let toml = std::fs::read_to_string(root.join("settings.toml")).unwrap();
    assert!(!toml.contains("env.example"), "{toml}");
    assert!(!toml.contains("env-model"), "{toml}");
    assert!(
        toml.contains("stored-fast") && toml.contains("45"),
        "{toml}"
    );
    assert!(
        !root.join("llm.key").exists(),
        "the key comes from the environment: the typed one is not stored over it"
    );
}
