//! The web APIs the reference oracle stubs inside RAGFlow's tool libraries (`fixtures.py`:
//! `tavily`, `wikipedia`, `duckduckgo`, `google`), served over HTTP on 127.0.0.1 in the shapes
//! the real services answer, so canvasc's tools send real requests and RAGFlow's canned data
//! comes back:
//!
//! * Tavily's `/search` and `/extract` answer the fixture's `search` and `extract` objects;
//! * the MediaWiki Action API (`list=search`, `prop=info|pageprops`, `prop=extracts`) answers
//!   as the oracle's fake `wikipedia` module does: a search finds its query as the one title,
//!   whose page is at `https://en.wikipedia.org/wiki/<title>` with the fixture's `summary`;
//! * DuckDuckGo's HTML results page lists the fixture's `{title, href, body}` records in its
//!   `result__a`/`result__snippet` markup, each link behind DuckDuckGo's `/l/?uddg=` redirect;
//! * SerpApi's `/search` answers the fixture (it is already `GoogleSearch.get_dict()`'s dict).
//!
//! The tools are pointed here through their configuration (`[tools.<service>] base_url`), the
//! way a deployment points them at a proxy. The oracle's canned retriever (`retrieval`) is served as
//! a RAGFlow server's retrieval API, the Retrieval tool's production store.

use axum::extract::Query;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json as AxJson, Router};
use canvasc_engine::ssrf::Resolver;
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

/// `DEFAULTS["retrieval"]` of the oracle's `fixtures.py`: the chunks its canned retriever
/// returns when a case's script gives none.
pub fn default_retrieval() -> Json {
    json!({
        "chunks": [
            {"chunk_id": "chunk-0001", "content_with_weight": "RAGFlow is an open-source RAG engine based on deep document understanding.",
             "doc_id": "doc-0001", "docnm_kwd": "ragflow_intro.md", "kb_id": "kb-0001", "important_kwd": [], "image_id": "",
             "similarity": 0.91, "vector_similarity": 0.88, "term_similarity": 0.95, "positions": []},
            {"chunk_id": "chunk-0002", "content_with_weight": "The Agent Canvas executes a DSL graph of components such as Begin, LLM and Message.",
             "doc_id": "doc-0002", "docnm_kwd": "agent_canvas.md", "kb_id": "kb-0001", "important_kwd": [], "image_id": "",
             "similarity": 0.85, "vector_similarity": 0.8, "term_similarity": 0.9, "positions": []}
        ],
        "doc_aggs": [
            {"doc_name": "ragflow_intro.md", "doc_id": "doc-0001", "count": 1},
            {"doc_name": "agent_canvas.md", "doc_id": "doc-0002", "count": 1}
        ]
    })
}

/// `DEFAULTS["wikipedia"]`, `DEFAULTS["duckduckgo"]` and `DEFAULTS["google"]` of the oracle's
/// `fixtures.py`.
pub fn default_wikipedia() -> Json {
    json!({"summary": "Fixed Wikipedia summary."})
}

pub fn default_duckduckgo() -> Json {
    json!([{"title": "Fake DDG result", "href": "https://example.com/ddg", "body": "Fixed DDG body."}])
}

pub fn default_google() -> Json {
    json!({"organic_results": [{"title": "Fake Google result", "link": "https://example.com/g", "snippet": "Fixed Google snippet."}]})
}

/// The retriever's chunk keys RAGFlow's HTTP API renames (`retrieval_test`'s `key_mapping`).
const KEY_MAPPING: &[(&str, &str)] = &[
    ("chunk_id", "id"),
    ("content_with_weight", "content"),
    ("doc_id", "document_id"),
    ("important_kwd", "important_keywords"),
    ("question_kwd", "questions"),
    ("docnm_kwd", "document_keyword"),
    ("kb_id", "dataset_id"),
];

/// `POST /api/v1/retrieval` as a RAGFlow server answers it when its retriever returns the
/// oracle's canned chunks (`_Retriever.retrieval`: the first `page_size` of them).
async fn ragflow_retrieval(
    State(data): State<Arc<Json>>,
    AxJson(body): AxJson<Json>,
) -> impl IntoResponse {
    let size = body
        .get("page_size")
        .and_then(Json::as_f64)
        .map_or(1024, |n| n.max(0.0) as usize);
    let chunks: Vec<Json> = data["chunks"]
        .as_array()
        .map(|c| c.iter().take(size).cloned().collect())
        .unwrap_or_default();
    let chunks: Vec<Json> = chunks
        .into_iter()
        .map(|c| match c {
            Json::Object(m) => Json::Object(
                m.into_iter()
                    .map(|(k, v)| {
                        let key = KEY_MAPPING
                            .iter()
                            .find(|(from, _)| *from == k)
                            .map_or(k, |(_, to)| to.to_string());
                        (key, v)
                    })
                    .collect(),
            ),
            other => other,
        })
        .collect();
    let total = chunks.len();
    let doc_aggs = data.get("doc_aggs").cloned().unwrap_or_else(|| json!([]));
    AxJson(
        json!({"code": 0, "message": "", "data": {"total": total, "chunks": chunks, "doc_aggs": doc_aggs}}),
    )
}

/// `GET /api/v1/datasets?name=…` (or `?id=…`): the oracle's `KnowledgebaseService` finds every
/// name, as a dataset whose id is that name.
async fn ragflow_datasets(
    Query(q): Query<std::collections::BTreeMap<String, String>>,
) -> impl IntoResponse {
    let id = q
        .get("name")
        .or_else(|| q.get("id"))
        .cloned()
        .unwrap_or_default();
    AxJson(json!({"code": 0, "data": [{"id": id, "name": id}], "total_datasets": 1}))
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

/// The MediaWiki Action API as the oracle's fake `wikipedia` answers: `search(q, results)` is
/// `[q][:results]`, `page(title)` has the URL `https://en.wikipedia.org/wiki/<title>` and the
/// fixture's summary.
async fn wikipedia_api(
    State(data): State<Arc<Json>>,
    Query(q): Query<std::collections::BTreeMap<String, String>>,
) -> impl IntoResponse {
    let param = |k: &str| q.get(k).cloned().unwrap_or_default();
    const PAGE_ID: &str = "1";
    let title = param("titles");
    let body = if param("list") == "search" {
        let limit: i64 = param("srlimit").parse().unwrap_or(10);
        let found: Vec<Json> = if limit > 0 {
            vec![json!({"ns": 0, "title": param("srsearch"), "pageid": 1})]
        } else {
            Vec::new()
        };
        json!({"batchcomplete": "", "query": {"searchinfo": {"totalhits": found.len()}, "search": found}})
    } else if param("prop") == "extracts" {
        json!({"batchcomplete": "", "query": {"pages": {PAGE_ID: {
            "pageid": 1, "ns": 0, "title": title, "extract": data["summary"].clone()}}}})
    } else {
        json!({"batchcomplete": "", "query": {"pages": {PAGE_ID: {
            "pageid": 1, "ns": 0, "title": title, "contentmodel": "wikitext", "pagelanguage": "en",
            "fullurl": format!("https://en.wikipedia.org/wiki/{title}"),
            "canonicalurl": format!("https://en.wikipedia.org/wiki/{title}")}}}})
    };
    AxJson(body)
}

/// HTML text escaping (`html.escape`).
fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#x27;")
}

/// `urllib.parse.quote(s, safe="")`.
fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// DuckDuckGo's HTML results page listing the fixture's records (the text fields as text).
async fn duckduckgo_html(State(data): State<Arc<Json>>) -> impl IntoResponse {
    let field = |r: &Json, k: &str| match r.get(k) {
        Some(Json::String(s)) => s.clone(),
        Some(Json::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    let mut page = String::from(
        "<!DOCTYPE html><html><body><div class=\"serp__results\"><div id=\"links\" class=\"results\">\n",
    );
    for r in data.as_array().map(Vec::as_slice).unwrap_or_default() {
        let href = field(r, "href");
        let href = if href.is_empty() {
            field(r, "url")
        } else {
            href
        };
        let link = format!(
            "//duckduckgo.com/l/?uddg={}&amp;rut=0",
            percent_encode(&href)
        );
        page.push_str(&format!(
            "<div class=\"result results_links results_links_deep web-result \"><div class=\"links_main links_deep result__body\">\n\
             <h2 class=\"result__title\"><a rel=\"nofollow\" class=\"result__a\" href=\"{link}\">{}</a></h2>\n\
             <a class=\"result__snippet\" href=\"{link}\">{}</a>\n</div></div>\n",
            escape_html(&field(r, "title")),
            escape_html(&field(r, "body")),
        ));
    }
    page.push_str("</div></div></body></html>");
    (
        StatusCode::OK,
        [("content-type", "text/html; charset=UTF-8")],
        page,
    )
}

/// SerpApi's `/search`: the fixture is the whole answer.
async fn serpapi_search(State(data): State<Arc<Json>>) -> impl IntoResponse {
    AxJson(data.as_ref().clone())
}

impl ToolStub {
    /// Serve `script`'s fixtures (the oracle's defaults where it has none) on a free port.
    pub fn start(script: Option<&Json>) -> std::io::Result<ToolStub> {
        let tavily = script
            .and_then(|s| s.get("tavily"))
            .cloned()
            .unwrap_or_else(default_tavily);
        let retrieval = script
            .and_then(|s| s.get("retrieval"))
            .cloned()
            .unwrap_or_else(default_retrieval);
        let fixture = |key: &str, default: fn() -> Json| {
            Arc::new(
                script
                    .and_then(|s| s.get(key))
                    .cloned()
                    .unwrap_or_else(default),
            )
        };
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let app = Router::new()
            .route("/tavily/search", post(tavily_search))
            .route("/tavily/extract", post(tavily_extract))
            .with_state(Arc::new(tavily))
            .merge(
                Router::new()
                    .route("/ragflow/api/v1/retrieval", post(ragflow_retrieval))
                    .route("/ragflow/api/v1/datasets", get(ragflow_datasets))
                    .with_state(Arc::new(retrieval)),
            )
            .merge(
                Router::new()
                    .route("/wikipedia/w/api.php", get(wikipedia_api))
                    .with_state(fixture("wikipedia", default_wikipedia)),
            )
            .merge(
                Router::new()
                    .route("/duckduckgo/html", post(duckduckgo_html))
                    .with_state(fixture("duckduckgo", default_duckduckgo)),
            )
            .merge(
                Router::new()
                    .route("/google/search", get(serpapi_search))
                    .with_state(fixture("google", default_google)),
            );
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

    /// The tools' configuration pointing every stubbed service here. Besides: CodeExec runs in
    /// the local subprocess backend, as the oracle runs RAGFlow's local sandbox provider, and
    /// ExeSQL may reach the machine's database on 127.0.0.1 (`sql_stub.rs`).
    pub fn config_toml(&self) -> String {
        format!(
            "[tools.tavily]\nbase_url = \"http://{0}/tavily\"\n[tools.retrieval]\nbase_url = \"http://{0}/ragflow\"\n\
             [tools.wikipedia]\nbase_url = \"http://{0}/wikipedia/w/api.php\"\n\
             [tools.duckduckgo]\nbase_url = \"http://{0}/duckduckgo\"\n\
             [tools.google]\nbase_url = \"http://{0}/google\"\n\
             [tools.sandbox]\nbackend = \"local\"\n[tools.exesql]\nallowed_hosts = \"127.0.0.1\"\n",
            self.addr
        )
    }
}
