//! `canvasc run --webhook-payload FILE`: a webhook request described in a file, turned into
//! the payload a Webhook-mode Begin gets with the server's own schema code
//! (`canvasc_server::webhook::payload`: the same picks, casts, checks and errors). The file
//! holds the request already read (a JSON body, not its bytes), so the server's reading of
//! bodies by content type and its security checks do not apply: locally, the file is the
//! request.

use canvasc_server::webhook::{self, parts};
use canvasc_value::{Json, Map};
use std::path::Path;

/// The largest request file read (RAGFlow's cap on a webhook's body).
const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// The payload for the canvas in `canvas_file` (any form) from the request in `path`:
/// `{"query"?: {…} or "a=1&b=2", "headers"?: {…}, "body"?: any}`.
pub fn from_file(path: &Path, canvas_file: &Path) -> Result<Map<String, Json>, String> {
    let name = path.display();
    let size = std::fs::metadata(path)
        .map_err(|e| format!("cannot read {name}: {e}"))?
        .len();
    if size > MAX_FILE_BYTES {
        return Err(format!(
            "--webhook-payload {name} is {size} bytes; a webhook request is at most {MAX_FILE_BYTES}"
        ));
    }
    let text = super::read_file(path)?;
    let request: Json = serde_json::from_str(&text)
        .map_err(|e| format!("--webhook-payload {name} is not JSON: {e}"))?;
    let Json::Object(request) = request else {
        return Err(format!(
            "--webhook-payload {name} must be a JSON object: {{\"query\", \"headers\", \"body\"}}"
        ));
    };
    let canvas = super::read_file(canvas_file)?;
    let loaded = canvasc_frontend::load_str(&canvas)
        .map_err(|e| format!("{}: {e}", canvas_file.display()))?;
    // The last Webhook-mode Begin, as the server finds it.
    let config = loaded
        .document
        .components
        .iter()
        .rev()
        .find(|c| {
            c.component_name.eq_ignore_ascii_case("begin")
                && c.params.get("mode").and_then(Json::as_str) == Some("Webhook")
        })
        .map(|c| &c.params)
        .ok_or("--webhook-payload needs a canvas whose Begin is in Webhook mode")?;
    let query = match request.get("query") {
        None | Some(Json::Null) => Map::new(),
        Some(Json::String(q)) => parts::query(Some(q)),
        Some(Json::Object(q)) => q.clone(),
        Some(_) => {
            return Err(format!(
                "--webhook-payload {name}: `query` must be an object or a query string"
            ))
        }
    };
    let headers = match request.get("headers") {
        None | Some(Json::Null) => Map::new(),
        Some(Json::Object(h)) => h
            .iter()
            .map(|(k, v)| (parts::title(k), v.clone()))
            .collect(),
        Some(_) => {
            return Err(format!(
                "--webhook-payload {name}: `headers` must be an object"
            ))
        }
    };
    let content_type = headers
        .get("Content-Type")
        .and_then(Json::as_str)
        .map(|c| parts::content_type(Some(c)))
        .unwrap_or_default();
    let request_parts = parts::Parts {
        query,
        headers,
        body: request
            .get("body")
            .cloned()
            .unwrap_or_else(|| Json::Object(Map::new())),
        content_type,
    };
    webhook::payload(&request_parts, config.get("schema"))
        .map_err(|e| format!("--webhook-payload {name}: the webhook refuses it: {e}"))
}
