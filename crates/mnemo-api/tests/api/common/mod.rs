//! What the API's integration tests share: a fresh home, the fake model's settings, and
//! blocking API calls run off the async runtime.

use mnemo_api::reexports::TurnResult;
use mnemo_api::{Api, ModelSettings};
use mnemo_store::Home;
use mnemo_testkit::FakeModel;

/// An API over a fresh home in a temp dir.
pub fn api() -> (tempfile::TempDir, Api) {
    let d = tempfile::tempdir().unwrap();
    let home = Home {
        root: d.path().join("home"),
        claude_dir: d.path().join("c"),
        qwen_dir: d.path().join("q"),
    };
    (d, Api::open(home).unwrap())
}

/// Model settings pointing at the fake model.
pub fn settings(fake: &FakeModel) -> ModelSettings {
    ModelSettings {
        base_url: fake.base_url().to_owned(),
        model: "fake-main".into(),
        fast_model: "fake-fast".into(),
        context_window: 32_768,
        timeout_secs: 30,
        api_key: Some("sk-test-123".into()),
        ..ModelSettings::default()
    }
}

/// Run a blocking API call off the runtime's worker threads.
pub async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.unwrap()
}

/// A new chat in `personal` and one turn in it.
pub async fn send(api: &Api, message: &str) -> TurnResult {
    let session = api.chat_create("personal".into(), None).unwrap();
    let (a, m) = (api.clone(), message.to_owned());
    blocking(move || a.chat_send("personal".into(), session.id, m))
        .await
        .unwrap()
}

/// Point the API at the fake model.
pub async fn configure(api: &Api, fake: &FakeModel) {
    let (a, s) = (api.clone(), settings(fake));
    blocking(move || a.set_model_settings(s)).await.unwrap();
}

/// A chat turn whose extraction agent makes one tool call (`call`), then says it saved; returns
/// the finished extraction task.
pub async fn extraction_calling(
    api: &Api,
    fake: &FakeModel,
    message: &str,
    call: mnemo_testkit::Reply,
) -> mnemo_api::reexports::TaskInfo {
    use mnemo_testkit::{Kind, Reply};
    fake.push_for(Kind::Json, Reply::json(&serde_json::json!({"paths": []})));
    fake.push_for(Kind::Stream, Reply::text("Noted."));
    fake.push_for(Kind::Tools, call);
    fake.push_for(Kind::Tools, Reply::text("Saved."));
    let id = send(api, message).await.extract_task.unwrap();
    let a = api.clone();
    blocking(move || {
        a.wait_task(&id, std::time::Duration::from_secs(30))
            .unwrap()
    })
    .await
}

/// A zip with these entries.
pub fn zip_of(path: &std::path::Path, entries: &[(&str, &[u8])]) -> String {
    use std::io::Write;
    let mut z = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, bytes) in entries {
        z.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        z.write_all(bytes).unwrap();
    }
    z.finish().unwrap();
    path.to_string_lossy().into_owned()
}
