//! The fake model server as a program, for end-to-end tests in other languages (Playwright).
//!
//! `mnemo-fake-model SCRIPT.json` starts it on a free port of 127.0.0.1, prints
//! `FAKE_MODEL_URL=http://127.0.0.1:<port>/v1` and serves until killed. The script:
//!
//! ```json
//! { "chunk_delay_ms": 80,
//!   "formats": "all",
//!   "replies": { "json": [ {"json": {"paths": ["deploy.md"]}} ],
//!                "stream": [ {"text": "Hello"} ],
//!                "tools": [ {"tool": "write_file", "arguments": {"path": "a.md", "content": "…"}}, {"text": "Saved."} ],
//!                "plain": [] },
//!   "any": [] }
//! ```
//!
//! A reply is `{"text"}`, `{"json"}`, `{"tool", "arguments"}`, `{"error": <status>, "message"}` or
//! `{"hangup": true}` or `{"save_fact": true}` (a `write_file` of the request's fact), each with
//! an optional `"delay_ms"`. Requests are classified as in
//! [`mnemo_testkit::Kind`]; `any` serves requests whose own queue is empty; after that the reply
//! is "ok". `formats` is `all` (default), `llama_cpp` (`json_schema` refused with HTTP 500, as
//! llama-cpp-python does) or `text_only` (`json_object` refused too), as in
//! [`mnemo_testkit::Formats`]. `GET /_requests` returns every recorded request body.

use std::time::Duration;

use mnemo_testkit::{FakeModel, Formats, Kind, Reply};
use serde_json::Value;

fn reply_of(v: &Value) -> Result<Reply, String> {
    let base = if let Some(t) = v.get("text").and_then(Value::as_str) {
        Reply::text(t)
    } else if let Some(j) = v.get("json") {
        Reply::json(j)
    } else if let Some(name) = v.get("tool").and_then(Value::as_str) {
        Reply::tool(name, v.get("arguments").cloned().unwrap_or(Value::Null))
    } else if let Some(code) = v.get("error").and_then(Value::as_u64) {
        let message = v.get("message").and_then(Value::as_str).unwrap_or("error");
        Reply::error(u16::try_from(code).map_err(|e| e.to_string())?, message)
    } else if v.get("hangup").and_then(Value::as_bool) == Some(true) {
        Reply::Hangup
    } else if v.get("save_fact").and_then(Value::as_bool) == Some(true) {
        Reply::SaveFact
    } else {
        return Err(format!("not a reply: {v}"));
    };
    Ok(match v.get("delay_ms").and_then(Value::as_u64) {
        Some(ms) => Reply::Delay(Duration::from_millis(ms), Box::new(base)),
        None => base,
    })
}

fn load(fake: &FakeModel, script: &Value) -> Result<(), String> {
    if let Some(ms) = script.get("chunk_delay_ms").and_then(Value::as_u64) {
        fake.set_chunk_delay(Duration::from_millis(ms));
    }
    if let Some(f) = script.get("formats").and_then(Value::as_str) {
        let formats = Formats::parse(f)
            .ok_or(format!("unknown formats `{f}` (all, llama_cpp, text_only)"))?;
        fake.set_formats(formats);
    }
    if let Some(routed) = script.get("replies").and_then(Value::as_object) {
        for (kind, list) in routed {
            let kind = Kind::parse(kind).ok_or(format!(
                "unknown request kind `{kind}` (stream, json, tools, probe, plain)"
            ))?;
            for r in list.as_array().into_iter().flatten() {
                fake.push_for(kind, reply_of(r)?);
            }
        }
    }
    for r in script
        .get("any")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        fake.push(reply_of(r)?);
    }
    Ok(())
}

#[tokio::main]
async fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: mnemo-fake-model SCRIPT.json");
        std::process::exit(2);
    };
    let script: Value = match std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: cannot read the script {path}: {e}");
            std::process::exit(2);
        }
    };
    let fake = FakeModel::start().await;
    if let Err(e) = load(&fake, &script) {
        eprintln!("error: {path}: {e}");
        std::process::exit(2);
    }
    println!("FAKE_MODEL_URL={}", fake.base_url());
    let _ = tokio::signal::ctrl_c().await;
}
