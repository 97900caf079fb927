//! The tools: what each tells a model, its input schema and hints, and the API call it makes.
//! Arguments are checked here (rmcp does not check them against the schema): a missing,
//! wrong-typed or unknown argument is `invalid_arguments`, never a crash.

use std::sync::Arc;
use std::time::Duration;

use mnemo_api::reexports::{ForgetPick, MemoryType};
use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolResult, JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::{MnemoMcp, invalid_arguments, mnemo_error};

/// How long `remember` waits for the memory agent before answering with the task id.
pub const REMEMBER_WAIT: Duration = Duration::from_secs(45);

/// The client id remember tasks are filed under (a task's reader must give it).
pub const CLIENT_ID: &str = "mcp";

struct Spec {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    properties: Value,
    required: &'static [&'static str],
    /// (read only, destructive, idempotent)
    hints: (bool, bool, bool),
}

const WORKSPACE_PROP: &str =
    "Workspace id (see `status`); default: the project's workspace, else `personal`.";

fn specs() -> Vec<Spec> {
    vec![
        Spec {
            name: "recall",
            title: "Recall memories",
            description: "Recall what is remembered that bears on `query` (the user's request, in their words): the most relevant memories by meaning and by words, each with its scores and why it was chosen, and `prompt`, the memory block to keep in mind while answering. Call it before answering anything that may depend on the user's preferences, projects or past decisions. Returns nothing for small talk.",
            properties: json!({
                "query": {"type": "string", "description": "What the user asked or is talking about."}
            }),
            required: &["query"],
            hints: (true, false, true),
        },
        Spec {
            name: "search",
            title: "Search memories",
            description: "Search memories by meaning and by words. Returns as many hits as asked when the memory holds that many: paths, names, descriptions, scores (0-1, best first) and the passage that matched with its line; hits marked `weak` are only near in meaning, ranked after every match. Open one with `read`.",
            properties: json!({
                "query": {"type": "string", "description": "Words or a question."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "This many hits (default 20), fewer only when there are not that many candidates."}
            }),
            required: &["query"],
            hints: (true, false, true),
        },
        Spec {
            name: "list",
            title: "List memories",
            description: "List the memories of a workspace: path, name, type, description and last change, optionally of one type.",
            properties: json!({
                "type": {"type": "string", "enum": ["user", "feedback", "project", "reference"], "description": "Only memories of this type."}
            }),
            required: &[],
            hints: (true, false, true),
        },
        Spec {
            name: "read",
            title: "Read a memory",
            description: "Read one memory file by its path (from `search`, `list` or `recall`): its full text, its entries with their ids, and whether it is pinned.",
            properties: json!({
                "path": {"type": "string", "description": "Path relative to the memory folder, e.g. `user/editor.md`."}
            }),
            required: &["path"],
            hints: (true, false, true),
        },
        Spec {
            name: "remember",
            title: "Remember a fact",
            description: "Ask Mnemo to remember something the user said: a fact about them, a preference, a decision, a correction. Mnemo's memory agent files it into the right memory (a new one or an existing one) and never stores secrets. Waits up to 45 s and returns what was written; if it takes longer, returns the task id (see `status`). Needs a model configured in Mnemo.",
            properties: json!({
                "content": {"type": "string", "description": "What to remember, in plain words, with the why when known."},
                "contextMode": {"type": "string", "enum": ["workspace", "clean"], "description": "`workspace` (default): the agent sees existing memories and merges with them; `clean`: it writes without looking."}
            }),
            required: &["content"],
            hints: (false, false, false),
        },
        Spec {
            name: "forget",
            title: "Forget memories",
            description: "Forget memories in two steps. With `query`: returns the entries that would be removed; nothing is written. Show them to the user; to remove them, call again with `remove`: the `id` and `hash` of each entry from that preview (a file changed since is refused with `conflict`). A removal can be undone from the Mnemo app's history.",
            properties: json!({
                "query": {"type": "string", "description": "What to forget, in plain words (preview)."},
                "remove": {
                    "type": "array",
                    "description": "Entries from a preview to remove now.",
                    "items": {
                        "type": "object",
                        "properties": {"id": {"type": "string"}, "hash": {"type": "string"}},
                        "required": ["id", "hash"]
                    }
                }
            }),
            required: &[],
            hints: (false, true, false),
        },
        Spec {
            name: "dream",
            title: "Consolidate memory",
            description: "Start consolidating a workspace's memory (\"dream\"): merge duplicates, resolve contradictions, prune MEMORY.md. Runs in the background; returns the task. Refused while another dream holds the workspace.",
            properties: json!({}),
            required: &[],
            hints: (false, true, false),
        },
        Spec {
            name: "proposals",
            title: "Check proposals",
            description: "What became of memory writes held for a person's review (when the workspace has review mode on, remember and other automatic writes become proposals instead of landing). With `id`: that proposal — pending, accepted (with a note if only some changes were taken), rejected, or expired — and its files. Without: the newest proposals made over MCP in the workspace.",
            properties: json!({"id": {"type": "integer", "minimum": 1, "description": "A proposal id (from a remember task's result.proposal)"}}),
            required: &[],
            hints: (true, false, true),
        },
        Spec {
            name: "status",
            title: "Memory status",
            description: "Where memory stands: the workspace calls use by default, every workspace with its counts, the last extraction and dream, whether search by meaning is ready, and a summary of the workspace.",
            properties: json!({}),
            required: &[],
            hints: (true, false, true),
        },
    ]
}

/// The tools, as `tools/list` gives them.
#[must_use]
pub fn list() -> Vec<Tool> {
    specs()
        .into_iter()
        .map(|s| {
            let mut props = s.properties;
            if let Some(p) = props.as_object_mut() {
                p.insert(
                    "workspace".into(),
                    json!({"type": "string", "description": WORKSPACE_PROP}),
                );
            }
            let schema = json!({
                "type": "object",
                "properties": props,
                "required": s.required,
                "additionalProperties": false
            });
            let Value::Object(schema) = schema else {
                unreachable!("a JSON object literal")
            };
            let (read_only, destructive, idempotent) = s.hints;
            Tool::new(s.name, s.description, Arc::new(schema))
                .with_title(s.title)
                .with_annotations(
                    ToolAnnotations::with_title(s.title)
                        .read_only(read_only)
                        .destructive(destructive)
                        .idempotent(idempotent)
                        .open_world(false),
                )
        })
        .collect()
}

/// Run a tool.
///
/// # Errors
/// Unknown tool (`unknown_command`), bad arguments (`invalid_arguments`), or the API's error.
pub fn call(server: &MnemoMcp, name: &str, args: &JsonObject) -> Result<CallToolResult, McpError> {
    let Some(spec) = specs().into_iter().find(|s| s.name == name) else {
        let names: Vec<&str> = specs().iter().map(|s| s.name).collect();
        return Err(McpError::invalid_params(
            format!(
                "unknown_command: there is no tool `{name}`; the tools are {}",
                names.join(", ")
            ),
            Some(json!({ "code": "unknown_command", "tool": name })),
        ));
    };
    let a = Args::check(args, &spec)?;
    let api = &server.api;
    let ws = a
        .opt_str("workspace")?
        .unwrap_or(server.default_workspace());
    let value = match name {
        "recall" => {
            let r = api
                .recall(ws.to_owned(), a.str("query")?.to_owned(), None, None)
                .map_err(|e| mnemo_error(&e))?;
            recall_json(ws, &r)
        }
        "search" => {
            let limit = a.opt_u32("limit")?;
            let hits = api
                .search(
                    Some(ws.to_owned()),
                    a.str("query")?.to_owned(),
                    limit.or(Some(20)),
                    None,
                )
                .map_err(|e| mnemo_error(&e))?;
            json!({ "workspace": ws, "hits": hits })
        }
        "list" => {
            let ty = a
                .opt_str("type")?
                .map(|t| {
                    t.parse::<MemoryType>().map_err(|_| {
                        invalid_arguments(format!(
                            "`type` must be user, feedback, project or reference, not `{t}`"
                        ))
                    })
                })
                .transpose()?;
            let docs = api
                .list(Some(ws.to_owned()), ty)
                .map_err(|e| mnemo_error(&e))?;
            json!({ "workspace": ws, "memories": docs })
        }
        "read" => {
            let d = api
                .get(ws.to_owned(), a.str("path")?.to_owned())
                .map_err(|e| mnemo_error(&e))?;
            json!({ "workspace": ws, "memory": d })
        }
        "remember" => remember(server, ws, &a)?,
        "forget" => forget(server, ws, &a)?,
        "dream" => {
            let t = api
                .dream(ws.to_owned(), None)
                .map_err(|e| mnemo_error(&e))?;
            json!({ "workspace": ws, "task": t })
        }
        "proposals" => match a.opt_u32("id")? {
            Some(id) => {
                let p = api.proposal(i64::from(id)).map_err(|e| mnemo_error(&e))?;
                json!({ "workspace": p.summary.workspace, "proposal": p })
            }
            None => {
                let page = api
                    .inbox(ws.to_owned(), None, None, Some(200))
                    .map_err(|e| mnemo_error(&e))?;
                let mine: Vec<_> = page
                    .items
                    .into_iter()
                    .filter(|p| p.source == mnemo_core::ChangeSource::Mcp)
                    .take(20)
                    .collect();
                json!({ "workspace": ws, "pending": page.pending, "proposals": mine })
            }
        },
        "status" => {
            let status = api.status().map_err(|e| mnemo_error(&e))?;
            let summary = api
                .memory_status(ws.to_owned(), None)
                .map_err(|e| mnemo_error(&e))?;
            json!({ "workspace": ws, "summary": summary, "status": status })
        }
        _ => unreachable!("every spec has a handler"),
    };
    Ok(CallToolResult::structured(value))
}

fn recall_json(ws: &str, r: &mnemo_api::reexports::RecallResult) -> Value {
    let items: Vec<Value> = r
        .selected
        .iter()
        .map(|s| {
            let why = match (s.vector, s.lexical) {
                (Some(v), Some(l)) => format!("meaning {v:.2}, words {l:.2}"),
                (Some(v), None) => format!("meaning {v:.2}"),
                (None, Some(l)) => format!("words {l:.2}"),
                (None, None) => "chosen by the model".to_owned(),
            };
            json!({
                "path": s.path, "name": s.name, "type": s.memory_type, "score": s.score,
                "vector": s.vector, "lexical": s.lexical, "age": s.age, "why": why,
            })
        })
        .collect();
    json!({
        "workspace": ws,
        "strategy": r.strategy,
        "items": items,
        "prompt": r.prompt,
    })
}

fn remember(server: &MnemoMcp, ws: &str, a: &Args<'_>) -> Result<Value, McpError> {
    let api = &server.api;
    let queued = api
        .remember(
            Some(ws.to_owned()),
            a.str("content")?.to_owned(),
            a.opt_str("contextMode")?.map(str::to_owned),
            Some(CLIENT_ID.to_owned()),
        )
        .map_err(|e| mnemo_error(&e))?;
    api.wait_task(&queued.task_id, REMEMBER_WAIT)
        .map_err(|e| mnemo_error(&e))?;
    let task = api
        .remember_task(queued.task_id, Some(CLIENT_ID.to_owned()))
        .map_err(|e| mnemo_error(&e))?;
    if let Some(e) = &task.error {
        return Err(mnemo_error(e));
    }
    Ok(json!({ "workspace": ws, "task": task }))
}

fn forget(server: &MnemoMcp, ws: &str, a: &Args<'_>) -> Result<Value, McpError> {
    let api = &server.api;
    match (a.opt_str("query")?, a.0.get("remove")) {
        (Some(q), None) => {
            let p = api
                .forget_preview(ws.to_owned(), q.to_owned())
                .map_err(|e| mnemo_error(&e))?;
            Ok(json!({
                "workspace": ws,
                "preview": p,
                "next": "to remove these, call forget again with `remove`: [{id, hash}, …] of the entries to go",
            }))
        }
        (None, Some(remove)) => {
            let picks: Vec<ForgetPick> = serde_json::from_value(remove.clone()).map_err(|e| {
                invalid_arguments(format!(
                    "`remove` must be a list of {{\"id\", \"hash\"}} from a preview: {e}"
                ))
            })?;
            if picks.is_empty() {
                return Err(invalid_arguments(
                    "`remove` is empty: name the entries to forget",
                ));
            }
            let t = api
                .forget(ws.to_owned(), picks)
                .map_err(|e| mnemo_error(&e))?;
            Ok(json!({ "workspace": ws, "task": t }))
        }
        (Some(_), Some(_)) => Err(invalid_arguments(
            "give either `query` (to preview) or `remove` (to forget), not both",
        )),
        (None, None) => Err(invalid_arguments(
            "give `query` to preview what would be forgotten, or `remove` to forget previewed entries",
        )),
    }
}

/// Checked arguments of one call.
struct Args<'a>(&'a JsonObject);

impl<'a> Args<'a> {
    fn check(args: &'a JsonObject, spec: &Spec) -> Result<Self, McpError> {
        let known = |k: &str| k == "workspace" || spec.properties.get(k).is_some();
        if let Some(k) = args.keys().find(|k| !known(k)) {
            return Err(invalid_arguments(format!(
                "`{}` takes no argument `{k}`",
                spec.name
            )));
        }
        for r in spec.required {
            if !args.contains_key(*r) {
                return Err(invalid_arguments(format!("`{}` needs `{r}`", spec.name)));
            }
        }
        Ok(Self(args))
    }

    fn opt_str(&self, k: &str) -> Result<Option<&'a str>, McpError> {
        match self.0.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(invalid_arguments(format!(
                "`{k}` must be a string, not {}",
                kind(other)
            ))),
        }
    }

    fn str(&self, k: &str) -> Result<&'a str, McpError> {
        self.opt_str(k)?
            .ok_or_else(|| invalid_arguments(format!("`{k}` is required")))
    }

    fn opt_u32(&self, k: &str) -> Result<Option<u32>, McpError> {
        match self.0.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|n| *n >= 1)
                .map(Some)
                .ok_or_else(|| {
                    invalid_arguments(format!("`{k}` must be a whole number ≥ 1, not {v}"))
                }),
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
