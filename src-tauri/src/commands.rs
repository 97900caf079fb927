//! The Tauri commands: one per API command (same names and arguments as `POST /api/<command>`),
//! each a one-line call into [`mnemo_api::Api`] on a blocking thread, plus `open_folder`.

use mnemo_api::reexports::{
    ChangeSummary, DocSummary, Hit, MemoryDetail, MemoryType, SessionInfo, Settings, Status,
    TurnResult, WorkspaceInfo, WriteOutcome,
};
use mnemo_api::{Api, ChangeDiff, ChatTranscript, ModelSettings, ModelTest, NewMemory, Patch};
use mnemo_core::{Error, ErrorCode, Result};
use tauri::State;

/// Run an API call off the UI thread.
async fn run<T: Send + 'static>(
    api: &Api,
    f: impl FnOnce(&Api) -> Result<T> + Send + 'static,
) -> Result<T> {
    let api = api.clone();
    tauri::async_runtime::spawn_blocking(move || f(&api))
        .await
        .map_err(|e| Error::new(ErrorCode::Io, format!("command failed: {e}")))?
}

#[tauri::command]
#[specta::specta]
pub async fn workspaces(api: State<'_, Api>) -> Result<Vec<WorkspaceInfo>> {
    run(&api, Api::workspaces).await
}

#[tauri::command]
#[specta::specta]
pub async fn add_folder(api: State<'_, Api>, path: String) -> Result<WorkspaceInfo> {
    run(&api, move |a| a.add_folder(path)).await
}

#[tauri::command]
#[specta::specta]
pub async fn list(
    api: State<'_, Api>,
    workspace: Option<String>,
    memory_type: Option<MemoryType>,
) -> Result<Vec<DocSummary>> {
    run(&api, move |a| a.list(workspace, memory_type)).await
}

#[tauri::command]
#[specta::specta]
pub async fn get(api: State<'_, Api>, workspace: String, path: String) -> Result<MemoryDetail> {
    run(&api, move |a| a.get(workspace, path)).await
}

#[tauri::command]
#[specta::specta]
pub async fn create(
    api: State<'_, Api>,
    workspace: String,
    memory: NewMemory,
) -> Result<WriteOutcome> {
    run(&api, move |a| a.create(workspace, memory)).await
}

#[tauri::command]
#[specta::specta]
pub async fn update(
    api: State<'_, Api>,
    workspace: String,
    path: String,
    patch: Patch,
) -> Result<WriteOutcome> {
    run(&api, move |a| a.update(workspace, path, patch)).await
}

#[tauri::command]
#[specta::specta]
pub async fn remove(api: State<'_, Api>, workspace: String, path: String) -> Result<WriteOutcome> {
    run(&api, move |a| a.remove(workspace, path)).await
}

#[tauri::command]
#[specta::specta]
pub async fn search(
    api: State<'_, Api>,
    workspace: Option<String>,
    query: String,
    limit: Option<u32>,
) -> Result<Vec<Hit>> {
    run(&api, move |a| a.search(workspace, query, limit)).await
}

#[tauri::command]
#[specta::specta]
pub async fn history(
    api: State<'_, Api>,
    workspace: Option<String>,
    path: Option<String>,
    limit: Option<u32>,
) -> Result<Vec<ChangeSummary>> {
    run(&api, move |a| a.history(workspace, path, limit)).await
}

#[tauri::command]
#[specta::specta]
pub async fn diff(api: State<'_, Api>, id: i64) -> Result<ChangeDiff> {
    run(&api, move |a| a.diff(id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn undo(api: State<'_, Api>, id: i64) -> Result<WriteOutcome> {
    run(&api, move |a| a.undo(id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn status(api: State<'_, Api>) -> Result<Status> {
    run(&api, Api::status).await
}

#[tauri::command]
#[specta::specta]
pub async fn get_settings(api: State<'_, Api>) -> Result<Settings> {
    run(&api, Api::get_settings).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_settings(api: State<'_, Api>, settings: Settings) -> Result<()> {
    run(&api, move |a| a.set_settings(settings)).await
}

#[tauri::command]
#[specta::specta]
pub async fn recall(
    api: State<'_, Api>,
    workspace: String,
    query: String,
    already_surfaced: Option<Vec<String>>,
    lexical: Option<bool>,
) -> Result<mnemo_engine::RecallResult> {
    run(&api, move |a| {
        a.recall(workspace, query, already_surfaced, lexical)
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn get_model_settings(api: State<'_, Api>) -> Result<ModelSettings> {
    run(&api, Api::get_model_settings).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_model_settings(
    api: State<'_, Api>,
    settings: ModelSettings,
) -> Result<ModelSettings> {
    run(&api, move |a| a.set_model_settings(settings)).await
}

#[tauri::command]
#[specta::specta]
pub async fn test_model(api: State<'_, Api>) -> Result<ModelTest> {
    run(&api, Api::test_model).await
}

#[tauri::command]
#[specta::specta]
pub async fn chat_sessions(api: State<'_, Api>, workspace: String) -> Result<Vec<SessionInfo>> {
    run(&api, move |a| a.chat_sessions(workspace)).await
}

#[tauri::command]
#[specta::specta]
pub async fn chat_create(
    api: State<'_, Api>,
    workspace: String,
    title: Option<String>,
) -> Result<SessionInfo> {
    run(&api, move |a| a.chat_create(workspace, title)).await
}

#[tauri::command]
#[specta::specta]
pub async fn chat_transcript(
    api: State<'_, Api>,
    workspace: String,
    session: String,
) -> Result<ChatTranscript> {
    run(&api, move |a| a.chat_transcript(workspace, session)).await
}

#[tauri::command]
#[specta::specta]
pub async fn chat_update(
    api: State<'_, Api>,
    workspace: String,
    session: String,
    title: Option<String>,
    ignore_memory: Option<bool>,
) -> Result<SessionInfo> {
    run(&api, move |a| {
        a.chat_update(workspace, session, title, ignore_memory)
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn chat_delete(api: State<'_, Api>, workspace: String, session: String) -> Result<()> {
    run(&api, move |a| a.chat_delete(workspace, session)).await
}

#[tauri::command]
#[specta::specta]
pub async fn chat_send(
    api: State<'_, Api>,
    workspace: String,
    session: String,
    message: String,
) -> Result<TurnResult> {
    run(&api, move |a| a.chat_send(workspace, session, message)).await
}

#[tauri::command]
#[specta::specta]
pub async fn chat_cancel(api: State<'_, Api>, session: String) -> Result<bool> {
    run(&api, move |a| a.chat_cancel(session)).await
}

/// Open a workspace's memory folder in the system file manager (app only).
#[tauri::command]
#[specta::specta]
pub async fn open_folder(
    app: tauri::AppHandle,
    api: State<'_, Api>,
    workspace: String,
) -> Result<()> {
    use tauri_plugin_shell::ShellExt;
    let root = api.memory_root(&workspace)?;
    #[allow(deprecated)]
    // the shell plugin's `open` is what the brief asks for; opener is its successor
    app.shell()
        .open(root.to_string_lossy().into_owned(), None)
        .map_err(|e| Error::new(ErrorCode::Io, format!("opening {}: {e}", root.display())))
}
