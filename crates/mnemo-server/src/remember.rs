//! The sessionless remember endpoints: `POST /workspace/memory/remember`
//! → 202 with the queued task; `GET /workspace/memory/remember/{taskId}` → the task, its
//! `result` / `error` null until it ends. `X-Mnemo-Workspace` picks the workspace (default
//! `personal`), `X-Mnemo-Client-Id` scopes who may read a task.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use mnemo_core::{Error, ErrorCode};

use crate::{AppState, error_response};

fn header(headers: &HeaderMap, name: &str) -> std::result::Result<Option<String>, Error> {
    match headers.get(name) {
        None => Ok(None),
        Some(v) => v.to_str().map(|s| Some(s.trim().to_owned())).map_err(|_| {
            Error::new(
                if name == "x-mnemo-client-id" {
                    ErrorCode::InvalidClientId
                } else {
                    ErrorCode::InvalidArguments
                },
                format!("the {name} header is not text"),
            )
        }),
    }
}

pub(crate) async fn post_remember(
    State(st): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let invalid = |m: String| error_response(&Error::new(ErrorCode::InvalidContent, m));
    let Ok(text) = std::str::from_utf8(&body) else {
        return invalid("the request body is not UTF-8 text".into());
    };
    let v: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return invalid(format!("the request body is not JSON: {e}")),
    };
    let Some(content) = v.get("content").and_then(|c| c.as_str()).map(str::to_owned) else {
        return invalid("`content` must be a string: the fact to remember".into());
    };
    let context_mode = match v.get("contextMode") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return error_response(&Error::new(
                ErrorCode::InvalidContextMode,
                format!("contextMode must be \"workspace\" or \"clean\", not {other}"),
            ));
        }
    };
    let (workspace, client) = match (
        header(&headers, "x-mnemo-workspace"),
        header(&headers, "x-mnemo-client-id"),
    ) {
        (Ok(w), Ok(c)) => (w, c),
        (Err(e), _) | (_, Err(e)) => return error_response(&e),
    };
    let api = st.api.clone();
    let done =
        tokio::task::spawn_blocking(move || api.remember(workspace, content, context_mode, client))
            .await;
    match done {
        Ok(Ok(task)) => (StatusCode::ACCEPTED, Json(task)).into_response(),
        Ok(Err(e)) => error_response(&e),
        Err(e) => error_response(&Error::new(
            ErrorCode::RememberFailed,
            format!("remember failed: {e}"),
        )),
    }
}

pub(crate) async fn get_remember(
    State(st): State<AppState>,
    UrlPath(task): UrlPath<String>,
    headers: HeaderMap,
) -> Response {
    let client = match header(&headers, "x-mnemo-client-id") {
        Ok(c) => c,
        Err(e) => return error_response(&e),
    };
    let api = st.api.clone();
    match tokio::task::spawn_blocking(move || api.remember_task(task, client)).await {
        Ok(Ok(t)) => Json(t).into_response(),
        Ok(Err(e)) => error_response(&e),
        Err(e) => error_response(&Error::new(
            ErrorCode::RememberFailed,
            format!("reading the task failed: {e}"),
        )),
    }
}
