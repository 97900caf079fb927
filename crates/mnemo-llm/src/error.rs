//! Typed model-call errors, and which of them are worth a retry.

/// Why a model call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// No model is configured.
    #[error(
        "no model is configured: set a base URL and model in Settings (or MNEMO_LLM_BASE_URL and MNEMO_LLM_MODEL)"
    )]
    NotConfigured,
    /// The server could not be reached (after retries).
    #[error("the model server at {0} is unreachable: is it running? ({1})")]
    Unreachable(String, String),
    /// The key was refused.
    #[error("the model server refused the API key (HTTP {0}): check the key in Settings")]
    Unauthorized(u16),
    /// The model does not exist on the server.
    #[error("model `{0}` was not found on the server: check the model name in Settings")]
    ModelNotFound(String),
    /// The conversation is longer than the model accepts.
    #[error("the conversation is longer than the model's context window: {0}")]
    ContextTooLong(String),
    /// Too many requests, still after retries.
    #[error("the model server is rate-limiting requests; try again shortly")]
    RateLimited,
    /// Any other HTTP error.
    #[error("the model server answered HTTP {0}: {1}")]
    Http(u16, String),
    /// The answer could not be understood.
    #[error("the model's answer could not be used: {0}")]
    BadResponse(String),
    /// No answer within the time limit.
    #[error("the model did not answer within {0} seconds")]
    Timeout(u64),
    /// Cancelled by the caller.
    #[error("cancelled")]
    Cancelled,
}

/// Whether an error is the server refusing the request's `tools` (llama.cpp without `--jinja`:
/// "tools param requires --jinja flag"; servers or models without a tool template): HTTP 400,
/// 422, 500 or 501 whose message names `tools`, `tool_choice`, `tool call`, `function call`
/// or `jinja`. Only asked of requests that offered tools; callers then switch to a text protocol.
#[must_use]
pub fn refuses_tools(e: &LlmError) -> bool {
    const SIGNS: [&str; 6] = [
        "tools",
        "tool_choice",
        "tool call",
        "function call",
        "jinja",
        "tool use",
    ];
    match e {
        LlmError::Http(400 | 422 | 500 | 501, message) => {
            let lower = message.to_lowercase();
            SIGNS.iter().any(|s| lower.contains(s))
        }
        _ => false,
    }
}

impl LlmError {
    /// Whether retrying may help.
    #[must_use]
    pub fn retryable(&self) -> bool {
        matches!(self, Self::Unreachable(..) | Self::RateLimited)
            || matches!(self, Self::Http(s, _) if *s >= 500)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_of_tools_are_told_from_failures() {
        assert!(refuses_tools(&LlmError::Http(
            500,
            "tools param requires --jinja flag".into()
        )));
        assert!(refuses_tools(&LlmError::Http(
            400,
            "This model does not support tools".into()
        )));
        assert!(!refuses_tools(&LlmError::Http(500, "out of memory".into())));
        assert!(!refuses_tools(&LlmError::Timeout(3)));
    }

    #[test]
    fn only_transient_errors_are_retried() {
        assert!(LlmError::RateLimited.retryable());
        assert!(LlmError::Http(503, String::new()).retryable());
        assert!(LlmError::Unreachable(String::new(), String::new()).retryable());
        assert!(!LlmError::Unauthorized(401).retryable());
        assert!(!LlmError::Http(400, String::new()).retryable());
        assert!(!LlmError::ModelNotFound(String::new()).retryable());
    }
}
