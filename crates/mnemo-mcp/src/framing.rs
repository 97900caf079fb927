//! The stdin side of the stdio transport: messages (one per line) pass through as they come,
//! and one over [`MAX_MESSAGE_BYTES`] gets an answer instead of silence.
//!
//! rmcp drops an oversized line with a log line and no reply, so a client waits forever for
//! it. Here each line is streamed to rmcp (never held whole); when a line passes the cap, its
//! rest is skipped and, if its first bytes name a request id, a small stand-in request
//! ([`TOO_LARGE_METHOD`]) with that id follows it, which the server answers with an error that
//! says what happened. Memory stays bounded by the buffer size whatever the client sends.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};

/// The largest message taken: rmcp's own cap on a stdio line.
pub const MAX_MESSAGE_BYTES: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
/// The stand-in request sent for a message over the cap (params: `{"bytes": <at least>}`).
pub const TOO_LARGE_METHOD: &str = "mnemo/message_too_large";
/// How much of a line's start is kept to find its request id.
const HEAD_BYTES: usize = 4096;

/// Copy `input` to `output` line by line, replacing each line over [`MAX_MESSAGE_BYTES`] as
/// described above. Ends at the input's end (closing `output`) or when `output` is closed.
///
/// # Errors
/// A read or write failure.
pub async fn pump(
    mut input: impl AsyncBufRead + Unpin,
    mut output: impl AsyncWrite + Unpin,
) -> std::io::Result<()> {
    let mut line_len = 0usize;
    let mut head: Vec<u8> = Vec::with_capacity(HEAD_BYTES);
    let mut skipping = false;
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            break;
        }
        let newline = buf.iter().position(|b| *b == b'\n');
        let take = newline.map_or(buf.len(), |i| i + 1);
        let chunk = &buf[..take];
        if head.len() < HEAD_BYTES {
            let room = HEAD_BYTES - head.len();
            head.extend_from_slice(&chunk[..chunk.len().min(room)]);
        }
        if !skipping {
            let body = newline.map_or(chunk.len(), |i| i);
            if line_len + body > MAX_MESSAGE_BYTES {
                // Pass just enough for rmcp to see the line is over its cap and drop it too.
                let pass = MAX_MESSAGE_BYTES + 1 - line_len;
                output.write_all(&chunk[..pass.min(body)]).await?;
                skipping = true;
            } else {
                output.write_all(chunk).await?;
            }
        }
        line_len += take;
        input.consume(take);
        if newline.is_some() {
            if skipping {
                // End rmcp's discarding, then the stand-in with the message's id.
                output.write_all(b"\n").await?;
                let bytes = line_len - 1;
                match request_id(&head) {
                    Some(id) => {
                        tracing::warn!(bytes, "an MCP message over the size cap was refused");
                        let stand_in = serde_json::json!({
                            "jsonrpc": "2.0",
                            "id": id,
                            "method": TOO_LARGE_METHOD,
                            "params": {"bytes": bytes},
                        });
                        output.write_all(format!("{stand_in}\n").as_bytes()).await?;
                    }
                    None => tracing::warn!(
                        bytes,
                        "an MCP message over the size cap was dropped (no request id in its first bytes)"
                    ),
                }
            }
            output.flush().await?;
            line_len = 0;
            head.clear();
            skipping = false;
        }
    }
    output.shutdown().await
}

/// The `"id"` of a JSON-RPC request from the first bytes of its line (a number or a string of
/// at most 200 characters, at the top level before `params`), if it can be read there.
fn request_id(head: &[u8]) -> Option<serde_json::Value> {
    let text = String::from_utf8_lossy(head);
    // Only the object's own keys: stop where nested values begin.
    let top = text.find("\"params\"").map_or(&text[..], |i| &text[..i]);
    let at = top.find("\"id\"")?;
    let rest = top[at + 4..].trim_start().strip_prefix(':')?.trim_start();
    let mut de = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
    match de.next()?.ok()? {
        v @ serde_json::Value::Number(_) => Some(v),
        serde_json::Value::String(s) if s.chars().count() <= 200 => {
            Some(serde_json::Value::String(s))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_read_from_the_start_of_a_request() {
        let id = |s: &str| request_id(s.as_bytes());
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"#),
            Some(serde_json::json!(7))
        );
        assert_eq!(
            id(r#"{"method":"x","jsonrpc":"2.0","id":"a-1","params":"#),
            Some(serde_json::json!("a-1"))
        );
        // An "id" inside params is not the request's.
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","method":"x","params":{"id":3"#),
            None
        );
        assert_eq!(id(r#"{"jsonrpc":"2.0","method":"notifications/x""#), None);
    }

    #[tokio::test]
    async fn an_oversized_line_is_cut_and_followed_by_a_stand_in() {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{{\"x\":\"{}\"}}}}\n",
            "a".repeat(MAX_MESSAGE_BYTES)
        );
        let small = "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}\n";
        let input = format!("{small}{big}{small}");
        let mut out = Vec::new();
        pump(
            tokio::io::BufReader::with_capacity(8192, input.as_bytes()),
            &mut out,
        )
        .await
        .unwrap();
        let lines: Vec<&[u8]> = out.split(|b| *b == b'\n').collect();
        assert_eq!(lines[0], small.trim_end().as_bytes());
        // rmcp is handed one byte more than its cap (so it drops the line), then the line's end.
        assert_eq!(lines[1].len(), MAX_MESSAGE_BYTES + 1);
        let stand_in: serde_json::Value = serde_json::from_slice(lines[2]).unwrap();
        assert_eq!(stand_in["id"], 9);
        assert_eq!(stand_in["method"], TOO_LARGE_METHOD);
        assert_eq!(stand_in["params"]["bytes"], big.len() - 1);
        assert_eq!(lines[3], small.trim_end().as_bytes());
    }
}
