//! The Browser component (components.md §14) against real headless Chromium (Debian's
//! `chromium`; `.ci/run` installs it) and pages served on 127.0.0.1, driven by a scripted model
//! that answers each step with browser-use's action JSON: it fills a form, clicks submit, clicks
//! a download link, and finishes. The tests assert what the page server received (the form
//! post, the download request), the downloaded bytes in the file store, and the outputs; and
//! the errors: no Chromium, and the SSRF guard refusing a private address (before navigating,
//! and for a link the page itself leads to).

mod support;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, Method, Uri};
use axum::response::IntoResponse;
use axum::Router;
use canvasc_engine::external::Externals;
use canvasc_engine::ssrf::AllowList;
use canvasc_frontend::catalog::Kind;
use canvasc_tools::browser::files::{BrowserFiles, FileTarget};
use canvasc_tools::browser::Browser;
use canvasc_tools::config::ToolsConfig;
use futures::future::BoxFuture;
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// One Chromium at a time: the machine has two cores.
static CHROMIUM: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const REPORT: &[u8] = b"order,status\n42,shipped\n";

/// A file store in memory (the test's double for the documents' store).
#[derive(Debug, Default)]
struct MemFiles(Mutex<BTreeMap<(String, String), Vec<u8>>>);

impl BrowserFiles for MemFiles {
    fn put<'a>(
        &'a self,
        bucket: &'a str,
        name: &'a str,
        bytes: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), String>> {
        self.0
            .lock()
            .expect("store")
            .insert((bucket.into(), name.into()), bytes);
        Box::pin(async { Ok(()) })
    }

    fn get<'a>(
        &'a self,
        bucket: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<u8>>, String>> {
        let found = self
            .0
            .lock()
            .expect("store")
            .get(&(bucket.to_string(), name.to_string()))
            .cloned();
        Box::pin(async move { Ok(found) })
    }
}

/// A request the page server received.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    path: String,
    cookie: String,
    body: String,
}

/// The shop's pages on 127.0.0.1 (or another loopback address): an order form, the page its
/// post answers with a download link, the download, and a page linking to `internal`.
#[derive(Clone)]
struct Site {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Site {
    async fn start(ip: &str, internal: &str) -> Site {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let state = (Arc::clone(&seen), internal.to_string());
        let app = Router::new().fallback(page).with_state(state);
        let listener = tokio::net::TcpListener::bind((ip, 0))
            .await
            .expect("bind a loopback address");
        let addr = listener.local_addr().expect("address");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Site {
            base: format!("http://{addr}"),
            seen,
        }
    }

    /// The requests received, without the favicon Chromium asks for on its own.
    fn seen(&self) -> Vec<Seen> {
        let seen = self.seen.lock().expect("site").clone();
        seen.into_iter()
            .filter(|s| s.path != "/favicon.ico")
            .collect()
    }
}

type SiteState = (Arc<Mutex<Vec<Seen>>>, String);

async fn page(
    State((seen, internal)): State<SiteState>,
    method: Method,
    uri: Uri,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> axum::response::Response {
    let cookie = headers
        .get(header::COOKIE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    seen.lock().expect("site").push(Seen {
        method: method.to_string(),
        path: uri.path().to_string(),
        cookie: cookie.clone(),
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let html = |title: &str, body: &str| {
        (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            format!("<!doctype html><html><head><title>{title}</title></head><body>{body}</body></html>"),
        )
            .into_response()
    };
    match (method.as_str(), uri.path()) {
        ("GET", "/form") => html(
            "Order form",
            "<h1>Order</h1><form method=\"post\" action=\"/submit\">\
             <input name=\"name\" placeholder=\"Your name\">\
             <input name=\"email\" placeholder=\"Email\">\
             <button type=\"submit\">Send order</button></form>",
        ),
        ("POST", "/submit") => html(
            "Thanks",
            "<p>Order received.</p><a href=\"/report.csv\">Download report</a>",
        ),
        ("GET", "/report.csv") => (
            [
                (header::CONTENT_TYPE, "text/csv"),
                (header::CONTENT_DISPOSITION, "attachment; filename=\"report.csv\""),
            ],
            REPORT,
        )
            .into_response(),
        ("GET", "/upload") => html(
            "Upload form",
            "<form method=\"post\" action=\"/uploaded\" enctype=\"multipart/form-data\">\
             <input type=\"file\" name=\"doc\">\
             <button type=\"submit\">Upload</button></form>",
        ),
        ("POST", "/uploaded") => html("Uploaded", "<p>File received.</p>"),
        ("GET", "/notes.txt") => (
            [(header::CONTENT_TYPE, "text/plain")],
            "notes from a URL\n",
        )
            .into_response(),
        ("GET", "/session") if cookie.contains("visited=1") => html("Welcome back", "<p>Hello again.</p>"),
        ("GET", "/session") => (
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::SET_COOKIE, "visited=1; Max-Age=3600; Path=/"),
            ],
            "<!doctype html><html><head><title>First visit</title></head><body><p>Hello.</p></body></html>",
        )
            .into_response(),
        ("GET", "/links") => html(
            "Links",
            &format!("<a href=\"{internal}/secret\">Internal dashboard</a>"),
        ),
        _ => (axum::http::StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// Begin → Browser:B (`params` over the defaults the test needs) → Message.
fn canvas(params: Json) -> Json {
    let mut p = json!({
        "llm_id": "scripted-chat@Scripted",
        "prompts": "Order at {sys.query} and download the report.",
        "max_steps": 6,
        "persist_session": false,
        "upload_sources": [],
        "outputs": {"content": {"type": "string", "value": ""},
                    "downloaded_files": {"type": "Array<Object>", "value": []}}
    });
    if let (Some(p), Some(extra)) = (p.as_object_mut(), params.as_object()) {
        p.extend(extra.clone());
    }
    support::node_canvas("Browser", p, "content")
}

/// The answer to a page the script has no step for (yet): wait a second, so a slow page or
/// download under load is met by waiting rather than by acting twice.
static WAIT: std::sync::LazyLock<Json> = std::sync::LazyLock::new(
    || json!({"match": "<browser_state>", "content": step("wait", json!([{"wait": {"seconds": 1}}]))}),
);

/// A model answer: browser-use's step JSON with `actions`.
fn step(goal: &str, actions: Json) -> String {
    json!({"thinking": "", "evaluation_previous_goal": "", "memory": "", "next_goal": goal, "action": actions}).to_string()
}

fn registry(toml: &str, files: Arc<MemFiles>) -> Externals {
    let none = |_: &str| None;
    let config = ToolsConfig::from_toml_str(toml, &none).expect("tool configuration");
    let mut registry = Externals::default();
    registry.register(
        Kind::Browser,
        Arc::new(Browser::new(
            Arc::new(config),
            Some(FileTarget {
                files,
                bucket: "tenant-root".into(),
            }),
        )),
    );
    registry
}

fn loopback_allowed(s: &mut canvasc_engine::Services) {
    s.outbound_allow = AllowList::parse(&["127.0.0.1"]).expect("allow-list");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fills_a_form_clicks_and_downloads_a_file() {
    let _one = CHROMIUM.lock().await;
    let site = Site::start("127.0.0.1", "").await;
    let form = format!("{}/form", site.base);
    let script = json!({
        "default": "no match",
        "responses": [
            {"match": "Downloaded files:\nreport.csv (24 bytes)",
             "content": step("finish", json!([{"done": {"text": "Order sent; report.csv downloaded.", "success": true}}]))},
            {"match": "Page title: Thanks", "times": 1,
             "content": step("download", json!([{"click": {"index": 1}}]))},
            {"match": ["Page title: Order form", "[1]<input name=name placeholder=\"Your name\">"], "times": 1,
             "content": step("fill the form", json!([
                 {"input": {"index": 1, "text": "Ada Lovelace"}},
                 {"input": {"index": 2, "text": "ada@example.org"}},
                 {"click": {"index": 3}}
             ]))},
            {"match": "Current URL: about:blank", "times": 1,
             "content": step("open the form", json!([{"navigate": {"url": form}}]))},
            WAIT.clone()
        ]
    });
    let files = Arc::new(MemFiles::default());
    let ran = support::run_with(
        &canvas(json!({})),
        &script,
        registry("", Arc::clone(&files)),
        &form,
        loopback_allowed,
    )
    .await;
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        Json::Null,
        "{:?}",
        ran.saved["components"]["Tool:T"]
    );

    // The real page got the form post, then the download request.
    let seen = site.seen();
    let paths: Vec<(&str, &str)> = seen
        .iter()
        .map(|s| (s.method.as_str(), s.path.as_str()))
        .collect();
    assert!(paths.contains(&("GET", "/form")), "{paths:?}");
    let post = seen
        .iter()
        .find(|s| s.path == "/submit")
        .expect("the form was posted");
    assert_eq!(post.method, "POST");
    assert_eq!(post.body, "name=Ada+Lovelace&email=ada%40example.org");
    assert!(paths.contains(&("GET", "/report.csv")), "{paths:?}");

    // Outputs as RAGFlow's: the final result, and the stored download.
    assert_eq!(
        ran.output("Tool:T", "content"),
        json!("Order sent; report.csv downloaded.")
    );
    let downloaded = ran.output("Tool:T", "downloaded_files");
    let list = downloaded.as_array().expect("downloaded_files is a list");
    assert_eq!(list.len(), 1, "{downloaded}");
    let file = &list[0];
    assert_eq!(file["name"], json!("report.csv"));
    assert_eq!(file["size"], json!(REPORT.len()));
    assert_eq!(file["parent_id"], json!("tenant-root"));
    let id = file["file_id"].as_str().expect("file id");
    assert_eq!(id.len(), 32);
    let stored = files
        .get("tenant-root", id)
        .await
        .expect("store")
        .expect("the download is stored under its file id");
    assert_eq!(stored, REPORT);

    // The model saw the task with the query in it; four steps (more if it had to wait).
    let calls = ran.provider.calls();
    assert!(calls.len() >= 4, "{}", calls.len());
    let first = calls[0].request.messages[1]
        .content
        .clone()
        .unwrap_or_default();
    assert!(
        first.contains(&format!("Order at {form} and download the report.")),
        "{first}"
    );
    // The Message shows the content.
    let shown = ran
        .events
        .iter()
        .filter(|e| e["event"] == "message")
        .map(|e| e["data"]["content"].as_str().unwrap_or("").to_string())
        .collect::<String>();
    assert_eq!(shown, "Order sent; report.csv downloaded.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_chromium_is_an_error_naming_the_component_and_the_setting() {
    let files = Arc::new(MemFiles::default());
    let ran = support::run_with(
        &canvas(json!({})),
        &json!({"default": "no model call expected"}),
        registry(
            "[tools.browser]\nexecutable = \"/nonexistent/chromium\"\n",
            files,
        ),
        "http://127.0.0.1/",
        loopback_allowed,
    )
    .await;
    let error = ran.output("Tool:T", "_ERROR");
    let error = error.as_str().expect("_ERROR is set");
    assert!(error.starts_with("Browser `Tool:T`: "), "{error}");
    assert!(error.contains("\"/nonexistent/chromium\""), "{error}");
    assert!(error.contains("`executable` ([tools.browser]"), "{error}");
    assert!(ran.provider.calls().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guard_blocks_a_private_address_without_the_allow_list() {
    let _one = CHROMIUM.lock().await;
    let site = Site::start("127.0.0.1", "").await;
    let form = format!("{}/form", site.base);
    let script = json!({
        "default": "no match",
        "responses": [
            {"match": "blocked by the SSRF guard",
             "content": step("give up", json!([{"done": {"text": "The page is not reachable.", "success": false}}]))},
            {"match": "Current URL: about:blank", "times": 1,
             "content": step("open the form", json!([{"navigate": {"url": form}}]))},
            WAIT.clone()
        ]
    });
    let files = Arc::new(MemFiles::default());
    let ran = support::run_with(
        &canvas(json!({})),
        &script,
        registry("", files),
        &form,
        |_| {},
    )
    .await;
    assert!(
        site.seen().is_empty(),
        "the page server was reached: {:?}",
        site.seen()
    );
    let calls = ran.provider.calls();
    assert_eq!(
        calls.len(),
        2,
        "{:?}",
        ran.saved["components"]["Tool:T"]["obj"]["params"]["outputs"]
    );
    let second = calls[1].request.messages[1]
        .content
        .clone()
        .unwrap_or_default();
    assert!(
        second.contains(&format!("Navigation to {form} was blocked by the SSRF guard: URL resolves to a non-public address (127.0.0.1), which is not allowed.")),
        "{second}"
    );
    assert_eq!(
        ran.output("Tool:T", "content"),
        json!("The page is not reachable.")
    );
    assert_eq!(ran.output("Tool:T", "downloaded_files"), json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_to_a_private_address_is_refused_by_the_guard_proxy() {
    let _one = CHROMIUM.lock().await;
    // 127.0.0.2 is loopback too, but not on the allow-list: nothing may reach it.
    let internal = Site::start("127.0.0.2", "").await;
    let site = Site::start("127.0.0.1", &internal.base).await;
    let links = format!("{}/links", site.base);
    let script = json!({
        "default": "no match",
        "responses": [
            {"match": "blocked by the SSRF guard",
             "content": step("give up", json!([{"done": {"text": "blocked", "success": false}}]))},
            {"match": "Page title: Links", "times": 1,
             "content": step("open the dashboard", json!([{"click": {"index": 1}}]))},
            {"match": "Current URL: about:blank", "times": 1,
             "content": step("open the links", json!([{"navigate": {"url": links}}]))},
            WAIT.clone()
        ]
    });
    let files = Arc::new(MemFiles::default());
    let ran = support::run_with(
        &canvas(json!({})),
        &script,
        registry("", files),
        &links,
        loopback_allowed,
    )
    .await;
    assert!(
        internal.seen().is_empty(),
        "the internal server was reached: {:?}",
        internal.seen()
    );
    assert_eq!(site.seen().len(), 1, "{:?}", site.seen());
    let calls = ran.provider.calls();
    let last = calls.last().expect("calls").request.messages[1]
        .content
        .clone()
        .unwrap_or_default();
    let host = internal
        .base
        .trim_start_matches("http://")
        .split(':')
        .next()
        .unwrap_or("");
    assert!(
        last.contains(&format!("The page did not load: blocked by the SSRF guard: {host}: Host resolves to a non-public address (127.0.0.2), which is not allowed.")),
        "{last}"
    );
    assert_eq!(ran.output("Tool:T", "content"), json!("blocked"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_a_source_fetched_from_a_url_and_lists_file_id_sources() {
    let _one = CHROMIUM.lock().await;
    let site = Site::start("127.0.0.1", "").await;
    let upload = format!("{}/upload", site.base);
    let notes = format!("{}/notes.txt", site.base);
    let files = Arc::new(MemFiles::default());
    files
        .put("tenant-root", "file-abc", b"stored file".to_vec())
        .await
        .expect("store");
    let script = json!({
        "default": "no match",
        "responses": [
            {"match": "Page title: Uploaded",
             "content": step("finish", json!([{"done": {"text": "uploaded", "success": true}}]))},
            {"match": "Page title: Upload form", "times": 1,
             "content": step("upload", json!([
                 {"upload_file": {"index": 1, "path": "notes.txt"}},
                 {"click": {"index": 2}}
             ]))},
            {"match": "Current URL: about:blank", "times": 1,
             "content": step("open the form", json!([{"navigate": {"url": upload}}]))},
            WAIT.clone()
        ]
    });
    // A file id and a URL, as a comma list and a JSON array inside a list.
    let sources = json!(["file-abc, missing-id", format!("[\"{notes}\"]")]);
    let ran = support::run_with(
        &canvas(json!({"upload_sources": sources, "prompts": "Upload the notes."})),
        &script,
        registry("", Arc::clone(&files)),
        "",
        loopback_allowed,
    )
    .await;
    assert_eq!(ran.output("Tool:T", "_ERROR"), Json::Null);
    assert_eq!(ran.output("Tool:T", "content"), json!("uploaded"));
    let calls = ran.provider.calls();
    let first = calls[0].request.messages[1]
        .content
        .clone()
        .unwrap_or_default();
    assert!(first.contains("Upload the notes.\n\nYou can upload files from these local paths when operating web pages:\n- file_id=file-abc, name=file-abc, local_path="), "{first}");
    assert!(
        first.contains("- file_id=, name=notes.txt, local_path="),
        "{first}"
    );
    let seen = site.seen();
    let fetched = seen.iter().filter(|s| s.path == "/notes.txt").count();
    assert_eq!(fetched, 1, "{seen:?}");
    let post = seen
        .iter()
        .find(|s| s.path == "/uploaded")
        .expect("the upload was posted");
    assert!(
        post.body.contains("filename=\"notes.txt\""),
        "{}",
        post.body
    );
    assert!(post.body.contains("notes from a URL"), "{}", post.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persistent_profile_keeps_the_session_across_runs() {
    let _one = CHROMIUM.lock().await;
    let site = Site::start("127.0.0.1", "").await;
    let session = format!("{}/session", site.base);
    let script = json!({
        "default": "no match",
        "responses": [
            {"match": "Page title: Welcome back",
             "content": step("finish", json!([{"done": {"text": "returning visitor", "success": true}}]))},
            {"match": "Page title: First visit",
             "content": step("finish", json!([{"done": {"text": "first visit", "success": true}}]))},
            {"match": "Current URL: about:blank", "times": 1,
             "content": step("open", json!([{"navigate": {"url": session}}]))},
            WAIT.clone()
        ]
    });
    // A canvas id of this test run only, so no earlier run's profile is reused.
    let canvas_id = format!("browser-test-{}", std::process::id());
    let labels = |s: &mut canvasc_engine::Services| {
        loopback_allowed(s);
        s.run_labels.canvas_id = Some(Arc::from(canvas_id.as_str()));
    };
    let mut contents = Vec::new();
    for persist in [true, true, false] {
        let ran = support::run_with(
            &canvas(json!({"persist_session": persist})),
            &script,
            registry("", Arc::new(MemFiles::default())),
            "",
            labels,
        )
        .await;
        assert_eq!(ran.output("Tool:T", "_ERROR"), Json::Null);
        contents.push(ran.output("Tool:T", "content"));
    }
    let profile = std::env::temp_dir()
        .join("ragflow_browser_use_profiles")
        .join("unknown")
        .join(&canvas_id)
        .join("Tool_T");
    assert!(profile.is_dir(), "{}", profile.display());
    let _ = std::fs::remove_dir_all(profile.parent().expect("canvas dir"));
    // The second run sent the cookie the first run was given; a throw-away profile did not.
    let cookies: Vec<String> = site
        .seen()
        .into_iter()
        .filter(|s| s.path == "/session")
        .map(|s| s.cookie)
        .collect();
    assert_eq!(cookies, vec!["".to_string(), "visited=1".into(), "".into()]);
    assert_eq!(
        contents,
        vec![
            json!("first visit"),
            json!("returning visitor"),
            json!("first visit")
        ]
    );
}
