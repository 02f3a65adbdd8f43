//! RAGFlow's vocabulary for failed model calls (`LLMErrorCode` and `Base._classify_error` in
//! `rag/llm/chat_model.py`), so that every provider's errors read exactly as RAGFlow's do —
//! `**ERROR**: <code> - <message>` — and components can keep RAGFlow's `find("**ERROR**")` test.
//!
//! The constants are named after RAGFlow's enum members and hold the values RAGFlow prints.

use std::fmt;

/// What RAGFlow puts before every error text.
pub const ERROR_PREFIX: &str = "**ERROR**";

pub const ERROR_RATE_LIMIT: &str = "RATE_LIMIT_EXCEEDED";
pub const ERROR_AUTHENTICATION: &str = "AUTH_ERROR";
pub const ERROR_INVALID_REQUEST: &str = "INVALID_REQUEST";
pub const ERROR_SERVER: &str = "SERVER_ERROR";
pub const ERROR_TIMEOUT: &str = "TIMEOUT";
pub const ERROR_CONNECTION: &str = "CONNECTION_ERROR";
pub const ERROR_MODEL: &str = "MODEL_ERROR";
pub const ERROR_MAX_ROUNDS: &str = "ERROR_MAX_ROUNDS";
pub const ERROR_CONTENT_FILTER: &str = "CONTENT_FILTERED";
pub const ERROR_QUOTA: &str = "QUOTA_EXCEEDED";
pub const ERROR_MAX_RETRIES: &str = "MAX_RETRIES_EXCEEDED";
pub const ERROR_GENERIC: &str = "GENERIC_ERROR";

/// The message of a streamed answer whose connection closed before it was complete (RAGFlow
/// classifies it as a connection error). The scripted provider and the HTTP client both use it.
pub const BROKEN_STREAM: &str = "the connection closed before the streamed answer was complete";

/// Keyword groups tried in order on the lower-cased error text (RAGFlow's `_classify_error`).
const KEYWORDS: &[(&[&str], &str)] = &[
    (
        &["quota", "capacity", "credit", "billing", "balance", "欠费"],
        ERROR_QUOTA,
    ),
    (
        &[
            "rate limit",
            "429",
            "tpm limit",
            "too many requests",
            "requests per minute",
        ],
        ERROR_RATE_LIMIT,
    ),
    (
        &["auth", "key", "apikey", "401", "forbidden", "permission"],
        ERROR_AUTHENTICATION,
    ),
    (
        &[
            "invalid",
            "bad request",
            "400",
            "format",
            "malformed",
            "parameter",
        ],
        ERROR_INVALID_REQUEST,
    ),
    (
        &["server", "503", "502", "504", "500", "unavailable"],
        ERROR_SERVER,
    ),
    (&["timeout", "timed out"], ERROR_TIMEOUT),
    (
        &["connect", "network", "unreachable", "dns"],
        ERROR_CONNECTION,
    ),
    (
        &[
            "filter",
            "content",
            "policy",
            "blocked",
            "safety",
            "inappropriate",
        ],
        ERROR_CONTENT_FILTER,
    ),
    (
        &["model", "not found", "does not exist", "not available"],
        ERROR_MODEL,
    ),
    (&["max rounds"], ERROR_MODEL),
];

/// The code RAGFlow gives an error from its text alone.
pub fn classify(message: &str) -> &'static str {
    let lower = message.to_lowercase();
    KEYWORDS
        .iter()
        .find(|(words, _)| words.iter().any(|w| lower.contains(w)))
        .map(|(_, code)| *code)
        .unwrap_or(ERROR_GENERIC)
}

/// The code RAGFlow reports when it gives up on `attempt` (0-based) of `max_retries + 1`: the
/// last attempt always reports [`ERROR_MAX_RETRIES`], whatever went wrong (so with
/// `max_retries` 0 every failure does), earlier ones their classified code.
pub fn final_code(message: &str, attempt: u32, max_retries: u32) -> &'static str {
    if attempt >= max_retries {
        ERROR_MAX_RETRIES
    } else {
        classify(message)
    }
}

/// Why a call failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlmError {
    /// RAGFlow's error code as RAGFlow prints it (the values of this module's constants:
    /// `RATE_LIMIT_EXCEEDED` for `ERROR_RATE_LIMIT`, `SERVER_ERROR`, `GENERIC_ERROR`, …).
    pub code: String,
    pub message: String,
}

/// RAGFlow's error text: `**ERROR**: <code> - <message>`.
impl fmt::Display for LlmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} - {}", ERROR_PREFIX, self.code, self.message)
    }
}

impl std::error::Error for LlmError {}

impl LlmError {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        LlmError {
            code: code.to_string(),
            message: message.into(),
        }
    }

    /// An error whose code is RAGFlow's classification of its text.
    pub fn classified(message: impl Into<String>) -> Self {
        let message = message.into();
        LlmError {
            code: classify(&message).to_string(),
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_like_ragflow_in_keyword_order() {
        assert_eq!(classify("Error code: 429 - rate limited"), ERROR_RATE_LIMIT);
        assert_eq!(
            classify("Error code: 429 - {'error': {'message': 'You exceeded your current quota'}}"),
            ERROR_QUOTA
        );
        assert_eq!(classify("Error code: 503 - overloaded"), ERROR_SERVER);
        assert_eq!(classify("Error code: 401 - no"), ERROR_AUTHENTICATION);
        assert_eq!(classify("Request timed out."), ERROR_TIMEOUT);
        assert_eq!(classify("Connection error."), ERROR_CONNECTION);
        assert_eq!(classify("boom"), ERROR_GENERIC);
    }

    #[test]
    fn last_attempt_reports_max_retries() {
        assert_eq!(final_code("boom", 0, 0), ERROR_MAX_RETRIES);
        assert_eq!(final_code("boom", 0, 5), ERROR_GENERIC);
        assert_eq!(final_code("Error code: 500 - x", 5, 5), ERROR_MAX_RETRIES);
    }

    #[test]
    fn displays_as_ragflow_does() {
        let e = LlmError::classified("boom");
        assert_eq!(e.to_string(), "**ERROR**: GENERIC_ERROR - boom");
    }
}
