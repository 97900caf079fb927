//! The Tauri commands, generated from `mnemo_api::for_each_command!` — the API's one command
//! list — so this file holds no per-command code: each command is a call into
//! [`mnemo_api::Api`] on a blocking thread (the UI thread never does IO), with the same name
//! and arguments as `POST /api/<command>`.

use mnemo_api::Api;
use mnemo_core::{Error, ErrorCode, Result};

/// Run an API call off the UI thread.
async fn run<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tauri::async_runtime::spawn_blocking(f)
        .await
        .map_err(|e| Error::new(ErrorCode::Io, format!("command failed: {e}")))?
}

macro_rules! tauri_commands {
    ($($(#[$flag:ident])? $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        $(
            #[tauri::command]
            #[specta::specta]
            async fn $name(api: tauri::State<'_, Api>, $($arg: $ty),*) -> Result<$ret> {
                let api = api.inner().clone();
                run(move || api.$name($($arg),*)).await
            }
        )*

        /// Every API command as a Tauri command (with its TypeScript binding).
        pub fn all() -> tauri_specta::Commands<tauri::Wry> {
            tauri_specta::collect_commands![$($name),*]
        }
    };
}

mnemo_api::for_each_command!(tauri_commands);
