//! Files runs made (`http-api.md` §10): `GET /agents/attachments/{id}/download` and
//! `/preview`, RAGFlow's `_stream_agent_attachment`. The bytes come from the host's file store
//! under the caller's tenant, so an id of another tenant's file answers as an unknown one.
//! `ext`, `mime_type` and `filename` in the query pick the content type and the file name.

use axum::extract::{Path, State};
use axum::http::{header, HeaderName, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::auth::{BetaTenant, Tenant};
use crate::envelope::ApiError;
use crate::request::Params;
use crate::shared::AppRef;

/// The routes of this module.
pub(crate) fn routes() -> Router<AppRef> {
    Router::new()
        .route("/api/v1/agents/attachments/{id}/download", get(download))
        .route("/api/v1/agents/attachments/{id}/preview", get(preview))
}

/// RAGFlow's `CONTENT_TYPE_MAP` (`api/utils/file_response.py`), in its order.
const CONTENT_TYPES: &[(&str, &str)] = &[
    (
        "docx",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    ("doc", "application/msword"),
    ("pdf", "application/pdf"),
    ("csv", "text/csv"),
    ("xls", "application/vnd.ms-excel"),
    (
        "xlsx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ),
    ("txt", "text/plain"),
    ("py", "text/plain"),
    ("js", "text/plain"),
    ("java", "text/plain"),
    ("c", "text/plain"),
    ("cpp", "text/plain"),
    ("h", "text/plain"),
    ("php", "text/plain"),
    ("go", "text/plain"),
    ("ts", "text/plain"),
    ("sh", "text/plain"),
    ("cs", "text/plain"),
    ("kt", "text/plain"),
    ("sql", "text/plain"),
    ("md", "text/markdown"),
    ("markdown", "text/markdown"),
    ("mdx", "text/markdown"),
    ("htm", "text/html"),
    ("html", "text/html"),
    ("json", "application/json"),
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("bmp", "image/bmp"),
    ("tiff", "image/tiff"),
    ("tif", "image/tiff"),
    ("webp", "image/webp"),
    ("svg", "image/svg+xml"),
    ("ico", "image/x-icon"),
    ("avif", "image/avif"),
    ("heic", "image/heic"),
    ("ppt", "application/vnd.ms-powerpoint"),
    (
        "pptx",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ),
];

/// Types a browser would render as active content: always sent as an attachment.
const FORCED_EXTENSIONS: &[&str] = &[
    "htm", "html", "shtml", "xht", "xhtml", "xml", "mhtml", "svg",
];
const FORCED_TYPES: &[&str] = &[
    "text/html",
    "image/svg+xml",
    "application/xhtml+xml",
    "text/xml",
    "application/xml",
    "multipart/related",
];

/// `resolve_attachment_content_type(ext, mime_type)` then `_attachment_request_metadata`'s
/// defaults: the content type and the extension.
fn content_type(ext: Option<&str>, mime_type: Option<&str>) -> (String, String) {
    let ext_norm = ext
        .filter(|e| !e.is_empty())
        .map(|e| e.to_lowercase().trim_matches('.').to_string());
    let resolved = match mime_type.filter(|m| !m.is_empty()) {
        Some(mime) => {
            let normalised = mime
                .to_lowercase()
                .split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            let known = CONTENT_TYPES
                .iter()
                .find(|(_, ty)| *ty == normalised)
                .map(|(e, _)| e.to_string());
            let ext = known.or_else(|| ext_norm.clone().filter(|e| !e.is_empty()));
            (Some(normalised), ext)
        }
        None => match &ext_norm {
            Some(e) => {
                let ty = CONTENT_TYPES
                    .iter()
                    .find(|(known, _)| known == e)
                    .map_or_else(|| format!("application/{e}"), |(_, ty)| ty.to_string());
                (Some(ty), Some(e.clone()))
            }
            None => (None, None),
        },
    };
    let ty = resolved
        .0
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "application/octet-stream".into());
    let ext = resolved
        .1
        .or(ext_norm)
        .filter(|e| !e.is_empty())
        .unwrap_or_else(|| "bin".into());
    (ty, ext)
}

/// `sanitize_content_disposition_filename`: the last path segment, every character but ASCII
/// word characters, `.` and `-` replaced by `_`.
fn safe_file_name(name: &str) -> Option<String> {
    let base = name.rsplit('/').next().unwrap_or_default();
    let base = base.rsplit('\\').next().unwrap_or_default();
    let safe: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    (!safe.is_empty()).then_some(safe)
}

/// The response headers of `apply_{download,preview}_file_response_headers`.
fn headers(
    ty: &str,
    ext: &str,
    file_name: Option<&str>,
    inline: bool,
) -> Vec<(HeaderName, HeaderValue)> {
    let mut out = Vec::new();
    if let Ok(v) = HeaderValue::from_str(ty) {
        out.push((header::CONTENT_TYPE, v));
    }
    let forced = FORCED_EXTENSIONS.contains(&ext)
        || FORCED_TYPES.contains(&ty.split(';').next().unwrap_or_default().trim());
    if forced {
        out.push((
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ));
        out.push((
            header::CONTENT_DISPOSITION,
            HeaderValue::from_static("attachment"),
        ));
        return out;
    }
    let kind = if inline { "inline" } else { "attachment" };
    let disposition = match file_name.and_then(safe_file_name) {
        Some(name) => format!("{kind}; filename=\"{name}\""),
        None => kind.to_string(),
    };
    if let Ok(v) = HeaderValue::from_str(&disposition) {
        out.push((header::CONTENT_DISPOSITION, v));
    }
    out
}

async fn stream(
    app: &AppRef,
    tenant: &str,
    id: &str,
    params: &Params,
    inline: bool,
) -> Result<Response, ApiError> {
    let (ty, ext) = content_type(params.get("ext"), params.get("mime_type"));
    let bytes = app
        .runner
        .generated_file(tenant, id)
        .await
        .map_err(ApiError::exception)?
        .filter(|b| !b.is_empty())
        .ok_or_else(|| ApiError::data("document not found"))?;
    let mut response = bytes.into_response();
    for (name, value) in headers(&ty, &ext, params.get("filename"), inline) {
        response.headers_mut().insert(name, value);
    }
    Ok(response)
}

/// `GET /agents/attachments/{id}/download` (beta tokens too); `?disposition=inline` shows it.
async fn download(
    State(app): State<AppRef>,
    BetaTenant(tenant): BetaTenant,
    Path(id): Path<String>,
    params: Params,
) -> Result<Response, ApiError> {
    let inline = params
        .get("disposition")
        .is_some_and(|d| d.eq_ignore_ascii_case("inline"));
    stream(&app, &tenant, &id, &params, inline).await
}

/// `GET /agents/attachments/{id}/preview`: inline.
async fn preview(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(id): Path<String>,
    params: Params,
) -> Result<Response, ApiError> {
    stream(&app, &tenant, &id, &params, true).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_resolve_as_ragflow_s() {
        assert_eq!(
            content_type(Some("PDF"), None),
            ("application/pdf".into(), "pdf".into())
        );
        assert_eq!(
            content_type(Some("pdf"), Some("text/markdown; charset=utf-8")),
            ("text/markdown".into(), "md".into())
        );
        assert_eq!(
            content_type(Some("weird"), None),
            ("application/weird".into(), "weird".into())
        );
        assert_eq!(
            content_type(None, None),
            ("application/octet-stream".into(), "bin".into())
        );
        assert_eq!(safe_file_name("a/b\\r é.pdf").as_deref(), Some("r__.pdf"));
        assert_eq!(safe_file_name(""), None);
    }
}
