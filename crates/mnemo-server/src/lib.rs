//! `mnemo serve`: the HTTP twin of the desktop app, on 127.0.0.1 only.
//!
//! - `POST /api/<command>` runs an [`mnemo_api`] command with the same JSON arguments as the
//!   Tauri command; errors are `{code, message}` with an HTTP status derived from the code.
//! - `GET /events` streams `memory_changed` and `chat` (reply deltas, recall, extraction) as
//!   Server-Sent Events.
//! - `GET /capabilities` names the version, commands and features.
//! - `POST /workspace/memory/remember` queues a sessionless remember, and
//!   `GET /workspace/memory/remember/{taskId}` reads its task (`remember.rs`).
//! - Everything else serves the built web UI (single-page app).
//!
//! Every request needs the bearer token from `$MNEMO_HOME/server.token` (created 0600) as an
//! `Authorization: Bearer` header, or a browser session from the one-time login URL
//! (`/?login=<nonce>`, printed by `mnemo serve`; see [`auth`]). Requests from other origins, or naming another
//! host (DNS rebinding), are refused; no CORS headers are ever sent. Bodies are capped.

pub mod auth;
mod conn;
mod remember;

pub use conn::{FIRST_REQUEST_TIMEOUT, MAX_PENDING, MAX_PENDING_PER_IP, PENDING_GRACE};

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path as UrlPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use mnemo_api::Api;
use mnemo_core::{Error, ErrorCode, Result};
use tower_http::services::{ServeDir, ServeFile};

/// Largest request body accepted (a memory file is at most 1 MiB; JSON adds escaping).
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;
/// Port `mnemo serve` uses unless told otherwise.
pub const DEFAULT_PORT: u16 = 4517;
#[derive(Clone)]
struct AppState {
    api: Api,
    auth: auth::Auth,
    port: u16,
    /// One permit per live `/events` stream.
    sse: Arc<tokio::sync::Semaphore>,
}

/// A client must send a request's headers within this (slow-header connections are closed).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// A request's body must arrive within this (a trickling body is answered 408).
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Connections served at once; past it the next one waits until one closes.
pub const MAX_CONNECTIONS: usize = 64;
/// Live `/events` streams at once (each holds a few threads); past it: 503.
pub const MAX_SSE_CLIENTS: usize = 16;

/// Read `server.token` from the home, creating it (32 random bytes, hex, mode 0600) if missing.
pub fn load_or_create_token(home: &Path) -> Result<String> {
    let path = home.join("server.token");
    match std::fs::read_to_string(&path) {
        Ok(t) if t.trim().len() >= 32 => {
            restrict(&path)?;
            return Ok(t.trim().to_owned());
        }
        Ok(_) => tracing::warn!("{} is too short; generating a new token", path.display()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(format!("reading {}", path.display()), &e)),
    }
    let token = auth::random_hex(32)?;
    mnemo_store::fsutil::write_private(&path, token.as_bytes())?;
    Ok(token)
}

fn restrict(path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map_err(|e| Error::io(format!("reading {}", path.display()), &e))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
                .map_err(|e| Error::io(format!("restricting {}", path.display()), &e))?;
        }
    }
    let _ = path;
    Ok(())
}

/// Where the built UI is: `MNEMO_UI_DIR`, next to the executable (`../share/mnemo/ui`), or the
/// source tree's `ui/dist`.
#[must_use]
pub fn default_ui_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("MNEMO_UI_DIR").filter(|v| !v.is_empty()) {
        return PathBuf::from(d);
    }
    if let Some(share) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|p| p.join("../share/mnemo/ui")))
        .filter(|p| p.join("index.html").is_file())
    {
        return share;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/dist")
}

fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::NotFound | ErrorCode::UnknownCommand | ErrorCode::RememberTaskNotFound => {
            StatusCode::NOT_FOUND
        }
        ErrorCode::Conflict
        | ErrorCode::Cancelled
        | ErrorCode::BudgetSpent
        | ErrorCode::ModelNotConfigured
        | ErrorCode::ManagedMemoryUnavailable
        | ErrorCode::EmbeddingUnavailable => StatusCode::CONFLICT,
        ErrorCode::RememberQueueFull => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::ModelUnreachable | ErrorCode::RemoteUnreachable | ErrorCode::RemoteRefused => {
            StatusCode::BAD_GATEWAY
        }
        ErrorCode::Locked => StatusCode::LOCKED,
        ErrorCode::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorCode::InvalidFrontmatter
        | ErrorCode::InvalidType
        | ErrorCode::PathEscape
        | ErrorCode::Usage
        | ErrorCode::SeveralWorkspaces
        | ErrorCode::InvalidContent
        | ErrorCode::InvalidArguments
        | ErrorCode::InvalidContextMode
        | ErrorCode::InvalidPath
        | ErrorCode::InvalidClientId => StatusCode::BAD_REQUEST,
        ErrorCode::Io
        | ErrorCode::Corrupt
        | ErrorCode::RememberPathEscape
        | ErrorCode::RememberFailed
        | ErrorCode::RememberNothingWritten => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::DesktopOnly => StatusCode::NOT_IMPLEMENTED,
    }
}

fn error_response(e: &Error) -> Response {
    (status_of(e.code), Json(e)).into_response()
}

/// Build the router for an API with its credentials, for a server bound to `port`.
pub fn router(api: Api, auth: auth::Auth, port: u16, ui_dir: &Path) -> Router {
    let state = AppState {
        api,
        auth,
        port,
        sse: Arc::new(tokio::sync::Semaphore::new(MAX_SSE_CLIENTS)),
    };
    let index = ui_dir.join("index.html");
    let ui = ServeDir::new(ui_dir).fallback(ServeFile::new(index));
    Router::new()
        .route("/api/{command}", post(api_call))
        .route("/workspace/memory/remember", post(remember::post_remember))
        .route(
            "/workspace/memory/remember/{task}",
            get(remember::get_remember),
        )
        .route("/events", get(events))
        .route("/capabilities", get(capabilities))
        .fallback_service(ui)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(
            BODY_READ_TIMEOUT,
        ))
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .layer(middleware::from_fn(security_headers))
        .with_state(state)
}

/// The served UI's Content-Security-Policy: only Mnemo's own scripts, styles, images and
/// connections; never framed by another page (`frame-ancestors 'none'`).
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
     object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Headers on every answer, refusals included: the CSP above, no framing, no MIME sniffing, no
/// referrer (a URL never leaves the page).
async fn security_headers(req: Request, next: Next) -> Response {
    let mut r = next.run(req).await;
    let h = r.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
    ] {
        h.insert(name, HeaderValue::from_static(value));
    }
    r
}

/// Authentication, host and origin checks for every request.
async fn guard(State(st): State<AppState>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    let allowed_hosts = [
        format!("127.0.0.1:{}", st.port),
        format!("localhost:{}", st.port),
    ];
    let host_ok = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|h| allowed_hosts.iter().any(|a| a == h));
    if !host_ok {
        return refused(&Error::new(
            ErrorCode::Unauthorized,
            "requests must address 127.0.0.1 or localhost",
        ))
        .into_response();
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) {
        let same = allowed_hosts
            .iter()
            .any(|a| origin == format!("http://{a}"));
        if !same {
            let mut r = refused(&Error::new(
                ErrorCode::Unauthorized,
                format!("origin {origin} may not call this server"),
            ));
            *r.status_mut() = StatusCode::FORBIDDEN;
            return r;
        }
    }
    let offered = st.auth.offers_credentials(headers, req.uri().query());
    if offered && let Some(wait) = st.auth.locked_for() {
        let mut r = refused(&Error::new(
            ErrorCode::Unauthorized,
            format!(
                "too many attempts with a wrong token or login link: try again in {} s (the \
                 token is in $MNEMO_HOME/server.token; `mnemo serve` prints a new login link)",
                wait.as_secs().max(1)
            ),
        ));
        *r.status_mut() = StatusCode::TOO_MANY_REQUESTS;
        if let Ok(v) = HeaderValue::from_str(&wait.as_secs().max(1).to_string()) {
            r.headers_mut().insert(header::RETRY_AFTER, v);
        }
        return r;
    }
    if st.auth.bearer_ok(headers) || st.auth.session_ok(headers) {
        return next.run(req).await;
    }
    if offered {
        st.auth.failed();
    }
    // The one-time login URL: `/?login=<nonce>` becomes a session cookie, once.
    if req.method() == axum::http::Method::GET
        && let Some(q) = req.uri().query()
        && let Some(n) = q.split('&').find_map(|kv| kv.strip_prefix("login="))
    {
        let Some(id) = st.auth.redeem(n) else {
            return refused(&Error::new(
                ErrorCode::Unauthorized,
                "this login link was already used (or is from an earlier run): each link works once — \
                 stop and start `mnemo serve` for a new one",
            ));
        };
        let mut r = Redirect::to(auth::same_origin_path(req.uri().path())).into_response();
        if let Ok(v) = HeaderValue::from_str(&st.auth.cookie(&id)) {
            r.headers_mut().insert(header::SET_COOKIE, v);
        }
        return r;
    }
    refused(&Error::new(
        ErrorCode::Unauthorized,
        "not logged in: open the login URL `mnemo serve` printed, or send `Authorization: Bearer <$MNEMO_HOME/server.token>`",
    ))
}

/// A refusal before authentication: the connection closes after it, so a client that is not
/// logged in cannot keep a connection (and its slot) open between requests.
fn refused(e: &Error) -> Response {
    let mut r = error_response(e);
    r.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

async fn api_call(
    State(st): State<AppState>,
    UrlPath(command): UrlPath<String>,
    body: std::result::Result<Bytes, BytesRejection>,
) -> Response {
    let body = match body {
        Ok(b) => b,
        Err(rej) => {
            let code = if rej.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ErrorCode::TooLarge
            } else {
                ErrorCode::InvalidArguments
            };
            let mut r = error_response(&Error::new(
                code,
                format!("request body: {rej} (at most {MAX_BODY_BYTES} bytes)"),
            ));
            *r.status_mut() = rej.status();
            return r;
        }
    };
    let args: serde_json::Value = if body.is_empty() {
        serde_json::Value::Null
    } else {
        match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(e) => {
                return error_response(&Error::new(
                    ErrorCode::InvalidArguments,
                    format!("body is not JSON: {e}"),
                ));
            }
        }
    };
    let api = st.api.clone();
    // How long a command waited for a thread and how long it ran, at debug: a slow answer under
    // load is then found in the log, never guessed. Only the command's name: never its arguments.
    let queued = std::time::Instant::now();
    let result = tokio::task::spawn_blocking(move || {
        let started = std::time::Instant::now();
        let waited = started.duration_since(queued);
        let out = api.call(&command, args);
        tracing::debug!(
            command = %command,
            waited_ms = waited.as_millis(),
            ran_ms = started.elapsed().as_millis(),
            "command answered"
        );
        out
    })
    .await;
    match result {
        Ok(Ok(v)) => Json(v).into_response(),
        Ok(Err(e)) => error_response(&e),
        Err(e) => error_response(&Error::new(ErrorCode::Io, format!("command failed: {e}"))),
    }
}

async fn capabilities() -> Json<serde_json::Value> {
    Json(serde_json::json!({
        "name": "mnemo",
        "version": env!("CARGO_PKG_VERSION"),
        "commands": mnemo_api::COMMANDS.iter().filter(|c| !c.desktop_only).map(|c| c.name).collect::<Vec<_>>(),
        // Declared, but only the desktop app serves them: the browser UI hides what needs them.
        "desktopOnly": mnemo_api::COMMANDS.iter().filter(|c| c.desktop_only).map(|c| c.name).collect::<Vec<_>>(),
        "events": ["memory_changed", "chat", "task_updated", "dream_progress", "sync_changed"],
        "features": ["memory_browser", "search", "history", "undo", "change_groups", "events", "recall", "chat", "tasks", "dream", "pinned", "workspace_memory_remember", "forget", "stats", "hybrid_search", "embed"],
        "workspace_memory_remember": {"modes": ["workspace", "clean"], "maxPending": mnemo_api::MAX_REMEMBER_PENDING, "maxContentBytes": 65_536},
    }))
}

async fn events(State(st): State<AppState>) -> Response {
    let Ok(permit) = Arc::clone(&st.sse).try_acquire_owned() else {
        let mut r = error_response(&Error::new(
            ErrorCode::Io,
            format!(
                "{MAX_SSE_CLIENTS} live views are already open on this server: close some browser tabs and reload"
            ),
        ));
        *r.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
        return r;
    };
    let (tx, rx) = tokio::sync::mpsc::channel::<Event>(1024);
    // Bridge the API's std channels to this connection; each bridge ends soon after the client
    // goes away (checked between events), not only at the next event.
    bridge(st.api.subscribe(), "memory_changed", tx.clone(), |_| true);
    // A remember task's writes, once more as one `memory_changed` with scope `managed`, its task
    // id and touched types (the file-level events above carry each path).
    bridge(
        st.api.subscribe_remembered(),
        "memory_changed",
        tx.clone(),
        |_| true,
    );
    bridge(st.api.subscribe_chat(), "chat", tx.clone(), |_| true);
    // The sync state changed (here or in another process): `sync_status` may say otherwise now.
    bridge(st.api.subscribe_sync(), "sync_changed", tx.clone(), |_| {
        true
    });
    bridge(st.api.subscribe_tasks(), "task_updated", tx.clone(), |_| {
        true
    });
    // A dream's updates also as `dream_progress`: phase, tool calls, files, report.
    bridge(st.api.subscribe_tasks(), "dream_progress", tx, |t| {
        t.kind == mnemo_core::TaskKind::Dream
    });
    // The permit lives as long as the stream: it is given back when the client goes away.
    let stream =
        tokio_stream::StreamExt::map(tokio_stream::wrappers::ReceiverStream::new(rx), move |e| {
            let _held = &permit;
            Ok::<Event, Infallible>(e)
        });
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

fn bridge<T: serde::Serialize + Send + 'static>(
    events: std::sync::mpsc::Receiver<T>,
    name: &'static str,
    tx: tokio::sync::mpsc::Sender<Event>,
    only: impl Fn(&T) -> bool + Send + 'static,
) {
    use std::sync::mpsc::RecvTimeoutError;
    std::thread::spawn(move || {
        loop {
            match events.recv_timeout(Duration::from_secs(2)) {
                Ok(ev) if !only(&ev) => {}
                Ok(ev) => {
                    if tx.blocking_send(sse_event(name, &ev)).is_err() {
                        break;
                    }
                }
                Err(RecvTimeoutError::Timeout) if !tx.is_closed() => {}
                Err(_) => break,
            }
        }
    });
}

fn sse_event(name: &str, payload: &impl serde::Serialize) -> Event {
    Event::default()
        .event(name)
        .data(serde_json::to_string(payload).unwrap_or_default())
}

/// A running server.
pub struct Serving {
    /// The bound address.
    pub addr: SocketAddr,
    /// The bearer token.
    pub token: String,
    /// The one-time login nonce (new at every start).
    pub nonce: String,
}

impl Serving {
    /// The one-time login URL to print: it works for its first use only.
    #[must_use]
    pub fn login_url(&self) -> String {
        format!("http://{}/?login={}", self.addr, self.nonce)
    }
}

/// Bind 127.0.0.1:`port` (0: any free port). Returns the listener and what to print.
pub async fn bind(home: &Path, port: u16) -> Result<(tokio::net::TcpListener, Serving)> {
    let token = load_or_create_token(home)?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::AddrInUse {
                Error::usage(format!("port {port} is in use: pick another with --port"))
            } else {
                Error::io(format!("listening on 127.0.0.1:{port}"), &e)
            }
        })?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::io("reading the bound address", &e))?;
    let nonce = auth::random_hex(24)?;
    Ok((listener, Serving { addr, token, nonce }))
}

/// Serve until the future `shutdown` completes.
pub async fn run(
    listener: tokio::net::TcpListener,
    serving: &Serving,
    api: Api,
    ui_dir: &Path,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<()> {
    if !ui_dir.join("index.html").is_file() {
        tracing::warn!(
            "no built UI in {}: run `npm --prefix ui run build` (the API still works)",
            ui_dir.display()
        );
    }
    let auth = auth::Auth::new(
        serving.token.clone(),
        serving.nonce.clone(),
        serving.addr.port(),
    );
    let app = router(api, auth, serving.addr.port(), ui_dir);
    conn::serve_bounded(listener, app, shutdown).await;
    Ok(())
}
