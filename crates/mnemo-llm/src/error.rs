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
    fn only_transient_errors_are_retried() {
        assert!(LlmError::RateLimited.retryable());
        assert!(LlmError::Http(503, String::new()).retryable());
        assert!(LlmError::Unreachable(String::new(), String::new()).retryable());
        assert!(!LlmError::Unauthorized(401).retryable());
        assert!(!LlmError::Http(400, String::new()).retryable());
        assert!(!LlmError::ModelNotFound(String::new()).retryable());
    }
}
