//! The web APIs the reference oracle stubs inside RAGFlow's tool libraries (`fixtures.py`:
//! `tavily`, …), served over HTTP on 127.0.0.1 in the shapes the real services answer, so
//! canvasc's tools send real requests and RAGFlow's canned data comes back. The tools are
//! pointed here through their configuration (`[tools.<service>] base_url`), the way a
//! deployment points them at a proxy.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::post;
use axum::{Json as AxJson, Router};
use canvasc_runtime::exec::ssrf::Resolver;
use futures::future::BoxFuture;
use serde_json::{json, Value as Json};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// A resolver that knows only `localhost`: canvases under test name real hosts (Crawler,
/// SearXNG, Invoke URLs), and no test may look them up or reach them.
#[derive(Debug, Default)]
pub struct OfflineResolver;

impl Resolver for OfflineResolver {
    fn lookup<'a>(&'a self, host: &'a str) -> BoxFuture<'a, Result<Vec<IpAddr>, String>> {
        Box::pin(async move {
            if host.eq_ignore_ascii_case("localhost") {
                Ok(vec![IpAddr::from([127, 0, 0, 1])])
            } else {
                Err("[Errno -2] Name or service not known".to_string())
            }
        })
    }
}

/// `DEFAULTS["tavily"]` of the oracle's `ragflow_ref/fixtures.py`: the data its fake
/// `TavilyClient` returns when a case's script gives none.
pub fn default_tavily() -> Json {
    json!({
        "search": {
            "query": "",
            "results": [
                {"title": "Fake search result 1", "url": "https://example.com/1", "content": "Fixed content of result one.", "score": 0.9, "raw_content": null},
                {"title": "Fake search result 2", "url": "https://example.com/2", "content": "Fixed content of result two.", "score": 0.8, "raw_content": null}
            ]
        },
        "extract": {"results": [{"url": "https://example.com/1", "raw_content": "Fixed extracted page content."}], "failed_results": []}
    })
}

/// A running stub; dropping it stops the server.
pub struct ToolStub {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for ToolStub {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

async fn tavily_search(State(data): State<Arc<Json>>) -> impl IntoResponse {
    (StatusCode::OK, AxJson(data["search"].clone()))
}

async fn tavily_extract(State(data): State<Arc<Json>>) -> impl IntoResponse {
    (StatusCode::OK, AxJson(data["extract"].clone()))
}

impl ToolStub {
    /// Serve `script`'s fixtures (the oracle's defaults where it has none) on a free port.
    pub fn start(script: Option<&Json>) -> std::io::Result<ToolStub> {
        let tavily = script
            .and_then(|s| s.get("tavily"))
            .cloned()
            .unwrap_or_else(default_tavily);
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let app = Router::new()
            .route("/tavily/search", post(tavily_search))
            .route("/tavily/extract", post(tavily_extract))
            .with_state(Arc::new(tavily));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        std::thread::Builder::new()
            .name(format!("tool-stub-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                        return;
                    };
                    tokio::select! {
                        _ = axum::serve(listener, app) => {}
                        _ = stopped => {}
                    }
                });
            })?;
        Ok(ToolStub {
            addr,
            stop: Some(stop),
        })
    }

    /// The tools' configuration pointing every stubbed service here.
    pub fn config_toml(&self) -> String {
        format!(
            "[tools.tavily]\nbase_url = \"http://{}/tavily\"\n",
            self.addr
        )
    }
}
