//! `mnemo mcp`: a Model Context Protocol server on stdio, built on the official Rust
//! SDK (`rmcp`). It is a thin layer over [`mnemo_api::Api`], like the HTTP server and the CLI:
//! every tool calls one API command, and every write goes the API's one road (validated, atomic,
//! journaled — as source `mcp` — and announced, so the app and `mnemo serve`'s SSE show it).
//!
//! - Tools ([`tools`]): `recall`, `search`, `list`, `read`, `remember`, `forget`, `dream`,
//!   `proposals`, `status`; each takes an optional `workspace`.
//! - Resources ([`resources`]): each memory as `mnemo://{workspace}/{path}` and each
//!   workspace's `mnemo://{workspace}/MEMORY.md`.
//! - The workspace a call means: its `workspace` argument, else the server's default — the
//!   Mnemo workspace bound to the git repository of the directory the client started it in,
//!   else `personal` ([`mnemo_api::Api::default_workspace_for`]).
//! - Errors are MCP errors carrying Mnemo's code: `data: {code, message}` and the code at the
//!   start of the message. Bad arguments and unknown tools are JSON-RPC `-32602`; errors from
//!   Mnemo (unknown workspace, a path escaping the root…) are `-32000`. The server never dies
//!   on a bad call; it exits cleanly when the client closes stdin.
//!
//! - A message over 16 MiB is answered with an `invalid_request` error naming its size
//!   ([`framing`]), not dropped in silence.
//!
//! **Invariant:** stdout carries only the protocol; logs go to stderr.

pub mod framing;
pub mod resources;
pub mod tools;

use std::time::Duration;

use mnemo_api::Api;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorCode, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, ServerInitializeError};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

/// JSON-RPC code of an error Mnemo reported (its own code is in `data.code`).
pub const MNEMO_ERROR: ErrorCode = ErrorCode(-32000);

/// The server: the API and the workspace calls mean when they name none.
#[derive(Clone)]
pub struct MnemoMcp {
    api: Api,
    default_workspace: String,
}

impl MnemoMcp {
    /// A server over `api` (give it `api.acting_for(ChangeSource::Mcp)` so its writes are
    /// journaled as `mcp`), defaulting to `default_workspace`.
    #[must_use]
    pub fn new(api: Api, default_workspace: String) -> Self {
        Self {
            api,
            default_workspace,
        }
    }

    /// The workspace calls use when they name none.
    #[must_use]
    pub fn default_workspace(&self) -> &str {
        &self.default_workspace
    }

    /// Run blocking API work off the protocol's threads.
    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Self) -> Result<T, McpError> + Send + 'static,
    ) -> Result<T, McpError> {
        let me = self.clone();
        tokio::task::spawn_blocking(move || f(&me))
            .await
            .map_err(|e| McpError::internal_error(format!("io: the call stopped: {e}"), None))?
    }
}

/// Words a client sent (a tool name, an error quoting its arguments), fit for a log line:
/// secrets redacted, control characters escaped, at most 200 characters.
#[must_use]
pub fn loggable(s: &str) -> String {
    let shown = mnemo_api::reexports::printable(&mnemo_api::reexports::redact(s).0);
    match shown.char_indices().nth(200) {
        Some((at, _)) => format!("{}… ({} characters)", &shown[..at], shown.chars().count()),
        None => shown,
    }
}

/// An error from Mnemo as an MCP error, with Mnemo's code in the message and in `data`.
#[must_use]
pub fn mnemo_error(e: &mnemo_core::Error) -> McpError {
    let code = e.code.as_str();
    McpError::new(
        MNEMO_ERROR,
        format!("{code}: {}", e.message),
        Some(json!({ "code": code, "message": e.message })),
    )
}

/// Bad arguments (`invalid_arguments`) as an MCP invalid-params error.
#[must_use]
pub fn invalid_arguments(message: impl Into<String>) -> McpError {
    let message = message.into();
    McpError::invalid_params(
        format!("invalid_arguments: {message}"),
        Some(json!({ "code": "invalid_arguments", "message": message })),
    )
}

impl ServerHandler for MnemoMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("mnemo", env!("CARGO_PKG_VERSION")))
        .with_instructions(format!(
            "Mnemo is the user's persistent memory (markdown files they can read and correct). \
             Call `recall` with the user's request before answering anything that may depend on \
             their preferences, projects or past decisions; call `remember` when they state \
             something worth keeping; `forget` previews before it removes. Calls without a \
             `workspace` use `{}`.",
            self.default_workspace
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let args = request.arguments.unwrap_or_default();
        let tool = loggable(&name);
        tracing::debug!(%tool, "MCP tool call");
        let answer = self.blocking(move |me| tools::call(me, &name, &args)).await;
        if let Err(e) = &answer {
            tracing::debug!(%tool, error = %loggable(&e.message), "MCP tool call failed");
        }
        answer.map(Into::into)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let cursor = request.and_then(|r| r.cursor);
        self.blocking(move |me| resources::list(me, cursor.as_deref()))
            .await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, McpError> {
        if request.method == framing::TOO_LARGE_METHOD {
            let bytes = request
                .params
                .as_ref()
                .and_then(|p| p["bytes"].as_u64())
                .unwrap_or_default();
            let message = format!(
                "this message is {bytes} bytes; Mnemo takes messages of at most {} MiB — send \
                 less at once (a memory is at most 1 MiB)",
                framing::MAX_MESSAGE_BYTES / (1024 * 1024)
            );
            return Err(McpError::invalid_request(
                format!("too_large: {message}"),
                Some(json!({"code": "too_large", "message": message, "bytes": bytes})),
            ));
        }
        Err(McpError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("there is no method `{}`", loggable(&request.method)),
            None,
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri;
        self.blocking(move |me| resources::read(me, &uri))
            .await
            .map(Into::into)
    }
}

/// Serve MCP on stdin/stdout until the client closes stdin.
///
/// # Errors
/// When the runtime cannot start or the protocol breaks (not for a client that leaves).
pub fn run(server: MnemoMcp) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async move {
        tracing::info!(workspace = %server.default_workspace, "MCP server on stdio");
        // Stdin reaches rmcp through the framing pump (oversized messages answered).
        let (to_rmcp, from_pump) = tokio::io::duplex(64 * 1024);
        tokio::spawn(async move {
            let stdin = tokio::io::BufReader::with_capacity(64 * 1024, tokio::io::stdin());
            if let Err(e) = framing::pump(stdin, to_rmcp).await {
                tracing::debug!("reading the MCP client's messages stopped: {e}");
            }
        });
        let running = match server.serve((from_pump, tokio::io::stdout())).await {
            Ok(r) => r,
            // The client left before saying hello: nothing to do.
            Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => return Err(std::io::Error::other(format!("MCP handshake failed: {e}"))),
        };
        let reason = running
            .waiting()
            .await
            .map_err(|e| std::io::Error::other(format!("MCP server stopped: {e}")))?;
        tracing::info!(?reason, "MCP client closed the connection");
        Ok(())
    })?;
    // Tasks still running in the API (a remember the client did not wait for) end with the
    // process; they are recorded as interrupted by the next reader.
    rt.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}
