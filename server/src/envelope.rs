//! RAGFlow's response envelope (`{"code","message","data"}`) and its error codes. Business
//! errors answer HTTP 200 with the code in the body; only credentials (401) and unknown routes
//! (404) change the HTTP status.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use crate::store::StoreError;

pub(crate) const EXCEPTION_ERROR: i64 = 100;
pub(crate) const ARGUMENT_ERROR: i64 = 101;
pub(crate) const DATA_ERROR: i64 = 102;
pub(crate) const OPERATING_ERROR: i64 = 103;
pub(crate) const CONNECTION_ERROR: i64 = 105;
pub(crate) const PERMISSION_ERROR: i64 = 108;
pub(crate) const AUTHENTICATION_ERROR: i64 = 109;
pub(crate) const SERVER_ERROR: i64 = 500;

/// The message for an agent the caller may not use: the same whether it is another tenant's
/// or does not exist, so ids cannot be probed.
pub(crate) const NO_ACCESS: &str = "Make sure you have permission to access the agent.";
pub(crate) const OWNER_ONLY: &str = "Only the owner of the agent is authorized for this operation.";

/// A successful answer (HTTP 200, JSON).
pub(crate) struct Reply(Value);

impl Reply {
    /// The full shape: `{"code":0,"message":"success","data":…}`.
    pub(crate) fn success(data: Value) -> Reply {
        Reply(json!({"code": 0, "message": "success", "data": data}))
    }

    /// An envelope whose keys RAGFlow varies (no `message`, a sibling `total`, …).
    pub(crate) fn raw(body: Value) -> Reply {
        Reply(body)
    }
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        json_response(StatusCode::OK, &self.0)
    }
}

pub(crate) fn json_response(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// An error answer: its HTTP status and its envelope.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    body: Value,
    /// Seconds for a `Retry-After` header (429 and 503 answers).
    retry_after: Option<u64>,
}

impl ApiError {
    fn coded(code: i64, message: impl Into<String>, data: Option<Value>) -> ApiError {
        let mut body = json!({"code": code, "message": message.into()});
        if let Some(data) = data {
            body["data"] = data;
        }
        ApiError {
            status: StatusCode::OK,
            body,
            retry_after: None,
        }
    }

    /// The envelope's message.
    pub(crate) fn message(&self) -> &str {
        self.body["message"].as_str().unwrap_or_default()
    }

    /// `{"code", "message"}` without `data`, as RAGFlow's `get_result` and
    /// `get_error_data_result` answer an error.
    pub(crate) fn bare(code: i64, message: impl Into<String>) -> ApiError {
        ApiError::coded(code, message, None)
    }

    /// 100: a failure RAGFlow reports with its exception text.
    pub(crate) fn exception(message: impl Into<String>) -> ApiError {
        ApiError::coded(EXCEPTION_ERROR, message, Some(Value::Null))
    }

    /// 101: a missing or malformed argument.
    pub(crate) fn argument(message: impl Into<String>) -> ApiError {
        ApiError::coded(ARGUMENT_ERROR, message, Some(Value::Bool(false)))
    }

    /// 101 as RAGFlow's `@validate_request` answers it (`data` null), naming every missing
    /// argument.
    pub(crate) fn missing_arguments(names: &[&str]) -> ApiError {
        ApiError::coded(
            ARGUMENT_ERROR,
            format!("required argument are missing: {}; ", names.join(",")),
            Some(Value::Null),
        )
    }

    /// 102: not found, duplicate, or other data error (RAGFlow sends no `data` here).
    pub(crate) fn data(message: impl Into<String>) -> ApiError {
        ApiError::coded(DATA_ERROR, message, None)
    }

    /// 103: the caller may not do this.
    pub(crate) fn operating(message: impl Into<String>) -> ApiError {
        ApiError::coded(OPERATING_ERROR, message, Some(Value::Bool(false)))
    }

    /// 105: a service the server needs (Redis) did not answer.
    pub(crate) fn connection(message: impl Into<String>) -> ApiError {
        ApiError::coded(CONNECTION_ERROR, message, Some(Value::Bool(false)))
    }

    /// 109: a failed login.
    pub(crate) fn authentication(message: impl Into<String>) -> ApiError {
        ApiError::coded(AUTHENTICATION_ERROR, message, Some(Value::Bool(false)))
    }

    pub(crate) fn no_access() -> ApiError {
        ApiError::operating(NO_ACCESS)
    }

    /// HTTP 401 with the message RAGFlow's Python server sends.
    pub(crate) fn unauthorized() -> ApiError {
        ApiError {
            status: StatusCode::UNAUTHORIZED,
            body: json!({"code": 401, "message": "<Unauthorized '401: Unauthorized'>", "data": null}),
            retry_after: None,
        }
    }

    /// HTTP 404 for a path no route serves.
    pub(crate) fn not_found(path: &str) -> ApiError {
        ApiError {
            status: StatusCode::NOT_FOUND,
            body: json!({"code": 404, "message": format!("Not Found: {path}"), "data": null,
                         "error": "Not Found"}),
            retry_after: None,
        }
    }

    /// 108: only an administrator may do this.
    pub(crate) fn permission(message: impl Into<String>) -> ApiError {
        ApiError::coded(PERMISSION_ERROR, message, Some(Value::Bool(false)))
    }

    /// HTTP 429 with `Retry-After`: too many failed logins for an account or an address.
    /// The body is RAGFlow's envelope with its login-failure code (109), so RAGFlow's clients
    /// show the message as they show a wrong password.
    pub(crate) fn too_many_logins(wait_secs: u64) -> ApiError {
        ApiError {
            status: StatusCode::TOO_MANY_REQUESTS,
            body: json!({"code": AUTHENTICATION_ERROR,
                "message": format!("Too many failed logins; try again in {wait_secs} seconds."),
                "data": false}),
            retry_after: Some(wait_secs),
        }
    }

    /// HTTP 429 with `Retry-After`: a tenant's quota refuses the run. The body is the
    /// envelope RAGFlow answers its per-tenant limit with (102, no `data`).
    pub(crate) fn quota(message: impl Into<String>, retry_after_secs: u64) -> ApiError {
        ApiError {
            status: StatusCode::TOO_MANY_REQUESTS,
            body: json!({"code": DATA_ERROR, "message": message.into()}),
            retry_after: Some(retry_after_secs),
        }
    }

    /// Seconds of the answer's `Retry-After` header, if it has one.
    #[cfg(test)]
    pub(crate) fn retry_after(&self) -> Option<u64> {
        self.retry_after
    }

    /// HTTP 503 with `Retry-After: 1`: the bounded work this request needs is saturated.
    pub(crate) fn busy(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            body: json!({"code": SERVER_ERROR, "message": message.into(), "data": null}),
            retry_after: Some(1),
        }
    }

    /// A known path called with a method it does not serve (RAGFlow: HTTP 200, code 100).
    pub(crate) fn method_not_allowed() -> ApiError {
        ApiError::exception("<MethodNotAllowed '405: Method Not Allowed'>")
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        ApiError::coded(SERVER_ERROR, e.for_client(), Some(Value::Null))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = json_response(self.status, &self.body);
        if let Some(secs) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from(secs));
        }
        response
    }
}

/// What a handler answers.
pub(crate) type Answer = Result<Reply, ApiError>;
