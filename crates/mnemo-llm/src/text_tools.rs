//! Tool use for servers and models without native tool calls (llama.cpp without `--jinja`,
//! models without a tool template): a text protocol Mnemo parses. The tools are described in the
//! system prompt; the model answers with exactly one JSON object per reply — `{"tool": NAME,
//! "arguments": {...}}` or `{"done": "one sentence"}` — which is validated, and a problem is fed
//! back. The conversation stays in native form (assistant tool calls, tool results); it is
//! rendered as text only for the request. Which protocol a server + model needs is kept in its
//! profile ([`crate::ModelProfile::tool_mode`]). Pure.

use std::collections::HashMap;

use serde_json::Value;

use crate::{FunctionCall, Message, Role, Tool, ToolCall};

/// The protocol's instructions, with each tool and its parameters.
#[must_use]
pub fn instructions(tools: &[Tool]) -> String {
    let mut s = String::from(
        "\n\n## How to use tools\nYou cannot call functions directly. To use a tool, reply with exactly one JSON object \
         and nothing else:\n{\"tool\": \"<name>\", \"arguments\": {<the tool's arguments>}}\n\
         You will get the tool's result in the next message. When you are finished, reply with:\n\
         {\"done\": \"<one short sentence saying what you did>\"}\nTools:\n",
    );
    for t in tools {
        s.push_str(&format!(
            "- {}: {} Arguments (JSON Schema): {}\n",
            t.name, t.description, t.parameters
        ));
    }
    s
}

/// The conversation as the text protocol sends it: the instructions added to the system
/// prompt, each tool call as the JSON object the model would have written, each result as a
/// user message naming the tool.
#[must_use]
pub fn render(messages: &[Message], tools: &[Tool]) -> Vec<Message> {
    let mut names: HashMap<&str, &str> = HashMap::new();
    let mut out = Vec::with_capacity(messages.len());
    let mut told = false;
    for m in messages {
        match m.role {
            Role::System if !told => {
                told = true;
                let text = m.content.as_deref().unwrap_or_default();
                out.push(Message::system(format!("{text}{}", instructions(tools))));
            }
            Role::Assistant if !m.tool_calls.is_empty() => {
                let actions: Vec<String> = m
                    .tool_calls
                    .iter()
                    .map(|c| {
                        names.insert(&c.id, &c.function.name);
                        let args: Value = serde_json::from_str(&c.function.arguments)
                            .unwrap_or_else(|_| Value::String(c.function.arguments.clone()));
                        serde_json::json!({"tool": c.function.name, "arguments": args}).to_string()
                    })
                    .collect();
                out.push(Message::new(Role::Assistant, actions.join("\n")));
            }
            Role::Tool => {
                let name = m
                    .tool_call_id
                    .as_deref()
                    .and_then(|id| names.get(id).copied())
                    .unwrap_or("the tool");
                out.push(Message::user(format!(
                    "Result of {name}:\n{}",
                    m.content.as_deref().unwrap_or_default()
                )));
            }
            _ => out.push(m.clone()),
        }
    }
    if !told {
        out.insert(0, Message::system(instructions(tools).trim_start()));
    }
    out
}

/// What a reply in the text protocol asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Call a tool (arguments as JSON text).
    Call {
        /// Tool name.
        name: String,
        /// Arguments, JSON text.
        arguments: String,
    },
    /// Finished, with this summary.
    Done(String),
}

/// A tool call found in a JSON object: `{"tool"|"name"|"function": NAME, "arguments"|
/// "parameters"|"args": {...}}`. `None` when it is not shaped as one.
fn call_in(v: &Value, tools: &[Tool]) -> Option<Result<Action, String>> {
    let name = ["tool", "name", "function"]
        .iter()
        .find_map(|k| v[*k].as_str())?;
    if !tools.iter().any(|t| t.name == name) {
        let known: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        return Some(Err(format!(
            "there is no tool `{name}` (tools: {})",
            known.join(", ")
        )));
    }
    let args = ["arguments", "parameters", "args"]
        .iter()
        .map(|k| &v[*k])
        .find(|a| !a.is_null())
        .cloned()
        .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
    let args = match args {
        // Some models send the arguments as a JSON string.
        Value::String(s) => match serde_json::from_str::<Value>(&s) {
            Ok(v @ Value::Object(_)) => v,
            _ => return Some(Err("`arguments` must be a JSON object".to_owned())),
        },
        v @ Value::Object(_) => v,
        _ => return Some(Err("`arguments` must be a JSON object".to_owned())),
    };
    Some(Ok(Action::Call {
        name: name.to_owned(),
        arguments: args.to_string(),
    }))
}

/// Read one reply of the text protocol. Plain prose without any JSON object is taken as the
/// final answer (a model saying it is done in words); a JSON object must be an action.
pub fn parse(text: &str, tools: &[Tool]) -> Result<Action, String> {
    let trimmed = text.trim();
    if !trimmed.contains('{') {
        if trimmed.is_empty() {
            return Err("the answer was empty".to_owned());
        }
        return Ok(Action::Done(trimmed.to_owned()));
    }
    let v: Value = crate::parse_json(trimmed)?;
    if let Some(done) = v.get("done") {
        return Ok(Action::Done(
            done.as_str()
                .map_or_else(|| done.to_string(), str::to_owned),
        ));
    }
    call_in(&v, tools).unwrap_or_else(|| {
        Err(
            "the JSON object is neither {\"tool\": …, \"arguments\": …} nor {\"done\": …}"
                .to_owned(),
        )
    })
}

/// A tool call written as text in a native reply that carried no `tool_calls` (a model without
/// a tool template writing the call out): taken as the call, when it names a known tool.
#[must_use]
pub fn call_in_text(text: &str, tools: &[Tool]) -> Option<(String, String)> {
    if !text.contains('{') {
        return None;
    }
    let v: Value = crate::parse_json(text).ok()?;
    match call_in(&v, tools)? {
        Ok(Action::Call { name, arguments }) => Some((name, arguments)),
        _ => None,
    }
}

/// A native assistant message calling one tool (what a parsed action becomes).
#[must_use]
pub fn as_call(id: String, name: String, arguments: String) -> Message {
    Message {
        role: Role::Assistant,
        content: None,
        tool_calls: vec![ToolCall {
            id,
            kind: "function".to_owned(),
            function: FunctionCall { name, arguments },
        }],
        tool_call_id: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three tools shaped like the memory agent's.
    fn tools() -> Vec<Tool> {
        let tool = |name: &str, props: Value| Tool {
            name: name.to_owned(),
            description: format!("The {name} tool."),
            parameters: serde_json::json!({"type": "object", "properties": props}),
        };
        vec![
            tool("read_file", serde_json::json!({"path": {"type": "string"}})),
            tool("glob", serde_json::json!({"pattern": {"type": "string"}})),
            tool(
                "write_file",
                serde_json::json!({"path": {"type": "string"}, "content": {"type": "string"}}),
            ),
        ]
    }

    #[test]
    fn actions_are_parsed_and_checked() {
        let t = tools();
        assert_eq!(
            parse(
                r#"{"tool": "read_file", "arguments": {"path": "a.md"}}"#,
                &t
            ),
            Ok(Action::Call {
                name: "read_file".into(),
                arguments: r#"{"path":"a.md"}"#.into()
            })
        );
        assert_eq!(
            parse(
                "<tool_call>\n{\"name\": \"glob\", \"arguments\": \"{\\\"pattern\\\": \\\"*.md\\\"}\"}\n</tool_call>",
                &t
            ),
            Ok(Action::Call {
                name: "glob".into(),
                arguments: r#"{"pattern":"*.md"}"#.into()
            })
        );
        assert_eq!(
            parse(
                r#"```json
{"done": "Saved 1 memory."}
```"#,
                &t
            ),
            Ok(Action::Done("Saved 1 memory.".into()))
        );
        assert_eq!(
            parse("Nothing worth saving.", &t),
            Ok(Action::Done("Nothing worth saving.".into()))
        );
        assert!(
            parse(r#"{"tool": "rm_rf", "arguments": {}}"#, &t)
                .unwrap_err()
                .contains("no tool `rm_rf`")
        );
        assert!(parse(r#"{"tool": "glob", "arguments": 3}"#, &t).is_err());
        assert!(parse(r#"{"whatever": 1}"#, &t).is_err());
        assert!(parse("{not json", &t).is_err());
        assert!(parse("  ", &t).is_err());
    }

    #[test]
    fn the_conversation_is_rendered_as_text() {
        let t = tools();
        let msgs = vec![
            Message::system("You keep memory."),
            Message::user("Remember tea."),
            as_call(
                "x1".into(),
                "write_file".into(),
                r#"{"path":"tea.md","content":"c"}"#.into(),
            ),
            Message::tool_result("x1", "wrote tea.md"),
        ];
        let out = render(&msgs, &t);
        assert_eq!(out.len(), 4);
        let sys = out[0].content.as_deref().unwrap();
        assert!(sys.starts_with("You keep memory."));
        assert!(sys.contains("- write_file:"));
        assert!(
            out.iter()
                .all(|m| m.tool_calls.is_empty() && m.tool_call_id.is_none())
        );
        assert!(
            out[2]
                .content
                .as_deref()
                .unwrap()
                .contains(r#""tool":"write_file""#)
        );
        assert_eq!(out[3].role, Role::User);
        assert!(
            out[3]
                .content
                .as_deref()
                .unwrap()
                .starts_with("Result of write_file:")
        );
    }

    #[test]
    fn calls_written_as_text_are_found_and_modes_remembered() {
        let t = tools();
        assert_eq!(
            call_in_text(
                r#"I'll save it: {"name": "write_file", "arguments": {"path": "a.md", "content": "x"}}"#,
                &t
            ),
            Some((
                "write_file".into(),
                r#"{"content":"x","path":"a.md"}"#.into()
            ))
        );
        assert_eq!(call_in_text("Done, nothing to save.", &t), None);
        assert_eq!(call_in_text(r#"{"name": "Tea"}"#, &t), None);
    }
}
