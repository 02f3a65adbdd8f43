//! The MCP server the MCP fixtures call (`fixtures/valid/agent-mcp-tools.json`): a test double
//! on 127.0.0.1:[`PORT`] serving the same tools over streamable HTTP (`/mcp`) and the legacy
//! HTTP+SSE transport (`/sse`, posting to `/messages`). `tests/golden/regen.py` runs this very
//! server (the `mcp-fixture-server` binary) while RAGFlow's engine produces the goldens.

use axum::extract::{Query, State};
use axum::http::{request::Parts, StatusCode};
use axum::response::sse::{Event, Sse};
use axum::routing::{get, post};
use axum::{Json as Body, Router};
use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

/// The port the fixtures' MCP server records name.
pub const PORT: u16 = 18766;

/// The fixture tools (stateless: every session sees the same).
#[derive(Clone, Default)]
pub struct FixtureTools;

fn tool(name: &'static str, description: &'static str, params: &[&str]) -> Tool {
    let properties: serde_json::Map<String, Value> = params
        .iter()
        .map(|p| ((*p).to_string(), json!({"type": "string"})))
        .collect();
    let schema = json!({"type": "object", "properties": properties, "required": params});
    let Value::Object(schema) = schema else {
        unreachable!("a JSON object literal")
    };
    Tool::new(name, description, schema)
}

impl ServerHandler for FixtureTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _cx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![
            tool("lookup_order", "Look up an order.", &["order_id"]),
            tool("get_forecast", "Weather forecast for a city.", &["city"]),
            tool("flaky", "Always fails.", &[]),
            tool("nothing", "Returns no content.", &[]),
            tool("picture", "Returns an image.", &[]),
            tool("whoami", "Echoes the request headers.", &[]),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arg = |k: &str| {
            request
                .arguments
                .as_ref()
                .and_then(|a| a.get(k))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let text = |t: String| Ok(CallToolResult::success(vec![ContentBlock::text(t)]).into());
        match request.name.as_ref() {
            "lookup_order" => text(format!(
                "Order {} shipped on 2026-05-01 via DHL.",
                arg("order_id")
            )),
            "get_forecast" => text(format!("Forecast for {}: sunny, 24 C.", arg("city"))),
            "flaky" => Ok(CallToolResult::error(vec![ContentBlock::text(
                "upstream quota exhausted",
            )])
            .into()),
            "nothing" => Ok(CallToolResult::success(Vec::new()).into()),
            "picture" => {
                Ok(CallToolResult::success(vec![ContentBlock::image("AAAA", "image/png")]).into())
            }
            "whoami" => {
                let header = |name: &str| {
                    cx.extensions
                        .get::<Parts>()
                        .and_then(|p| p.headers.get(name))
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("-")
                        .to_string()
                };
                text(format!(
                    "authorization={}; x-user={}",
                    header("authorization"),
                    header("x-user")
                ))
            }
            other => Err(ErrorData::invalid_params(
                format!("Unknown tool: {other}"),
                None,
            )),
        }
    }
}

type Sessions = Arc<Mutex<HashMap<String, mpsc::UnboundedSender<RxJsonRpcMessage<RoleServer>>>>>;

/// Legacy SSE: open a session, announce where to post, relay the server's messages.
async fn sse_open(
    State(sessions): State<Sessions>,
) -> Sse<impl futures::Stream<Item = Result<Event, Infallible>>> {
    let (to_server, from_client) = mpsc::unbounded::<RxJsonRpcMessage<RoleServer>>();
    let (to_client, from_server) = mpsc::unbounded::<TxJsonRpcMessage<RoleServer>>();
    let id = format!("{}", sessions.lock().map_or(0, |s| s.len()) + 1);
    if let Ok(mut s) = sessions.lock() {
        s.insert(id.clone(), to_server);
    }
    tokio::spawn(async move {
        let sink = to_client.sink_map_err(|e| std::io::Error::other(e.to_string()));
        if let Ok(running) = FixtureTools.serve((sink, from_client)).await {
            let _ = running.waiting().await;
        }
    });
    let endpoint = futures::stream::once(async move {
        Ok(Event::default()
            .event("endpoint")
            .data(format!("/messages?session_id={id}")))
    });
    let messages = from_server.map(|m| {
        Ok(Event::default()
            .event("message")
            .data(serde_json::to_string(&m).unwrap_or_default()))
    });
    Sse::new(endpoint.chain(messages))
}

async fn sse_post(
    State(sessions): State<Sessions>,
    Query(q): Query<HashMap<String, String>>,
    Body(message): Body<RxJsonRpcMessage<RoleServer>>,
) -> StatusCode {
    let sender = q
        .get("session_id")
        .and_then(|id| sessions.lock().ok()?.get(id).cloned());
    match sender {
        Some(s) if s.unbounded_send(message).is_ok() => StatusCode::ACCEPTED,
        _ => StatusCode::NOT_FOUND,
    }
}

/// A running server; dropping it stops it.
pub struct McpServer(tokio::task::JoinHandle<()>);

impl Drop for McpServer {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Starts the server on 127.0.0.1:[`PORT`] in the current tokio runtime.
pub async fn start() -> std::io::Result<McpServer> {
    let streamable = StreamableHttpService::new(
        || Ok(FixtureTools),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let app = Router::new()
        .nest_service("/mcp", streamable)
        .route("/sse", get(sse_open))
        .route("/messages", post(sse_post))
        .with_state(Sessions::default());
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", PORT)).await?;
    Ok(McpServer(tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    })))
}
