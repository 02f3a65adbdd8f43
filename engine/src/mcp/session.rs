//! One MCP server session of one Agent (RAGFlow's `MCPToolCallSession`): connected on the first
//! call, shared by the Agent's concurrent calls, closed when the Agent is done. Every failure is
//! the tool's result text, worded as RAGFlow words it, so the model sees what went wrong and
//! the run goes on.

use super::{sse, McpServer};
use crate::{http, telemetry};
use canvasc_value::{py, Json, Map};
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RunningService, ServiceError};
use rmcp::{RoleClient, ServiceExt};
use std::time::Duration;
use tracing::Instrument;

type Client = RunningService<RoleClient, ()>;

/// `client_session.initialize()` must finish within this.
const INIT_TIMEOUT: Duration = Duration::from_secs(5);
/// `tool_call`'s default timeout, seconds (RAGFlow prints it as an integer).
const CALL_TIMEOUT_SECS: u64 = 10;

const CONNECTION_FAILED: &str =
    "Connection failed (possibly due to auth error). Please check authentication settings first";

pub struct McpSession {
    server: McpServer,
    headers: Vec<(String, String)>,
    conn: tokio::sync::OnceCell<Result<Client, String>>,
}

impl McpSession {
    pub fn new(server: McpServer, custom_header: &[(String, String)]) -> McpSession {
        McpSession {
            headers: server.request_headers(custom_header),
            server,
            conn: tokio::sync::OnceCell::new(),
        }
    }

    /// `tool_call(name, arguments)`: the tool's text, or RAGFlow's text for what failed.
    pub async fn call(&self, name: &str, arguments: Map<String, Json>) -> String {
        let attempt = async {
            let client = self
                .conn
                .get_or_init(|| self.connect())
                .await
                .as_ref()
                .map_err(Clone::clone)?;
            let params = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
            client.call_tool(params).await.map_err(service_error)
        };
        let span = tracing::info_span!(
            target: "canvasc",
            "canvasc.mcp",
            otel.kind = "client",
            canvasc.mcp.server = %self.server.id,
            canvasc.mcp.tool = name,
            url.full = %telemetry::redacted_url(self.server.url.trim()),
            canvasc.mcp.status = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
        );
        let timed = tokio::time::timeout(Duration::from_secs(CALL_TIMEOUT_SECS), attempt);
        let (status, text) = match timed.instrument(span.clone()).await {
            Err(_) => (
                "timeout",
                format!("Timeout calling tool '{name}' (timeout={CALL_TIMEOUT_SECS})."),
            ),
            Ok(Err(e)) => ("error", format!("Error calling tool '{name}': {e}.")),
            Ok(Ok(result)) => match serde_json::to_value(&result) {
                Ok(wire) => ("ok", result_text(&wire)),
                Err(e) => ("error", format!("Error calling tool '{name}': {e}.")),
            },
        };
        span.record("canvasc.mcp.status", status);
        if status != "ok" {
            span.record("otel.status_code", "ERROR");
        }
        text
    }

    async fn connect(&self) -> Result<Client, String> {
        let mut headers = reqwest::header::HeaderMap::new();
        for (name, value) in &self.headers {
            let (Ok(n), Ok(v)) = (
                reqwest::header::HeaderName::from_bytes(name.as_bytes()),
                reqwest::header::HeaderValue::from_str(value),
            ) else {
                return Err(CONNECTION_FAILED.into());
            };
            headers.insert(n, v);
        }
        // The session keeps the trace context of the call that opened it (rmcp sends one
        // header set for the session's requests).
        telemetry::inject_trace_context(&mut headers);
        let client = http::mcp_client(headers).map_err(|_| CONNECTION_FAILED.to_string())?;
        let url = self.server.url.trim();
        let initialized = match self.server.server_type.as_str() {
            "streamable-http" => {
                let transport = http::mcp_streamable_transport(client, url);
                tokio::time::timeout(INIT_TIMEOUT, ().serve(transport))
                    .await
                    .map(|r| r.map_err(|_| ()))
            }
            "sse" => {
                tokio::time::timeout(INIT_TIMEOUT, async {
                    let transport = sse::connect(client, url).await.map_err(|_| ())?;
                    ().serve(transport).await.map_err(|_| ())
                })
                .await
            }
            other => {
                return Err(format!(
                    "Unsupported MCP server type: {other}, id: {}",
                    self.server.id
                ))
            }
        };
        match initialized {
            Err(_) => Err(format!(
                "Timeout initializing client_session for server {}",
                self.server.id
            )),
            Ok(Err(())) => Err(CONNECTION_FAILED.into()),
            Ok(Ok(client)) => Ok(client),
        }
    }
}

/// What `str(e)` shows for a failed request: an MCP error is its message.
fn service_error(e: ServiceError) -> String {
    match e {
        ServiceError::McpError(data) => data.message.into_owned(),
        other => other.to_string(),
    }
}

/// `_call_mcp_tool`'s reading of a `CallToolResult`, from its wire form.
fn result_text(result: &Json) -> String {
    let content = result
        .get("content")
        .and_then(Json::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    if result.get("isError").and_then(Json::as_bool) == Some(true) {
        let items: Vec<String> = content.iter().map(content_repr).collect();
        return format!("MCP server error: [{}]", items.join(", "));
    }
    match content.first() {
        None => "MCP server returned empty content.".into(),
        Some(first) if first.get("type").and_then(Json::as_str) == Some("text") => first
            .get("text")
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_string(),
        // RAGFlow prints the type of the content list, not of the item.
        Some(_) => "Unsupported content type <class 'list'>".into(),
    }
}

/// The `repr()` of one of the MCP SDK's content models (pydantic: the fields in declaration
/// order, `_meta` shown as `meta`).
fn content_repr(item: &Json) -> String {
    let ty = item.get("type").and_then(Json::as_str).unwrap_or("");
    let (class, fields): (&str, &[&str]) = match ty {
        "text" => ("TextContent", &["type", "text"]),
        "image" => ("ImageContent", &["type", "data", "mimeType"]),
        "audio" => ("AudioContent", &["type", "data", "mimeType"]),
        "resource" => ("EmbeddedResource", &["type", "resource"]),
        _ => ("ResourceLink", &["type"]),
    };
    let field = |key: &str| item.get(key).map_or("None".to_string(), py::repr_of);
    let mut parts: Vec<String> = fields.iter().map(|k| format!("{k}={}", field(k))).collect();
    parts.push(format!("annotations={}", field("annotations")));
    parts.push(format!("meta={}", field("_meta")));
    format!("{class}({})", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_read_as_ragflow_reads_them() {
        assert_eq!(
            result_text(
                &json!({"content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "more"}]})
            ),
            "hi"
        );
        assert_eq!(
            result_text(&json!({"content": []})),
            "MCP server returned empty content."
        );
        assert_eq!(
            result_text(
                &json!({"content": [{"type": "image", "data": "AA", "mimeType": "image/png"}]})
            ),
            "Unsupported content type <class 'list'>"
        );
        // Python: f"MCP server error: {CallToolResult(content=[TextContent(type='text',
        // text='it\'s "bad"')], isError=True).content}" with mcp 1.28.1.
        assert_eq!(
            result_text(
                &json!({"isError": true, "content": [{"type": "text", "text": "it's \"bad\""}]})
            ),
            r#"MCP server error: [TextContent(type='text', text='it\'s "bad"', annotations=None, meta=None)]"#
        );
        assert_eq!(
            content_repr(&json!({"type": "image", "data": "AAA", "mimeType": "image/png"})),
            "ImageContent(type='image', data='AAA', mimeType='image/png', annotations=None, meta=None)"
        );
    }
}
