//! Upload sources (`upload_sources`): RAGFlow's `_extract_ids` flattens the parameter into a
//! de-duplicated list of tokens (references resolved, JSON arrays parsed, http(s) URLs kept
//! whole, other strings split on commas, objects read by `file_id`/`id`/`url`/`value`); each
//! URL is fetched through the outbound layer (the SSRF guard on every hop), each other token is
//! a file id read from the file store. What cannot be had is skipped, as RAGFlow skips it.

use super::files::FileTarget;
use canvasc_engine::external::ToolCx;
use canvasc_engine::interpolate::{consume, Template};
use canvasc_engine::outbound::{self, Request};
use canvasc_value::{py, Json};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `RAGFLOW_BROWSER_UPLOAD_URL_MAX_BYTES`'s default: 100 MiB.
pub const DEFAULT_MAX_BYTES: usize = 100 * 1024 * 1024;

/// A file the agent may upload: where it is on disk and what RAGFlow calls it.
#[derive(Clone, Debug, PartialEq)]
pub struct Prepared {
    /// The RAGFlow file id (`""` for a file fetched from a URL).
    pub file_id: String,
    pub name: String,
    pub local_path: PathBuf,
}

/// The value a whole-string reference (`{Comp@var}`) names, or `None` when `token` is not one.
async fn reference(cx: &ToolCx<'_>, token: &str) -> Option<Json> {
    let token = token.trim();
    if !(token.starts_with('{') && token.ends_with('}')) {
        return None;
    }
    let tpl = Template::new(token);
    let (span, i) = tpl.matches().first()?;
    if tpl.matches().len() != 1 || span.start != 0 || span.end != token.len() {
        return None;
    }
    let value = cx.value(&tpl.exprs()[*i]).ok()?;
    consume(value).await.ok()
}

/// `_is_http_url`: an http(s) URL with a network location.
pub fn is_http_url(token: &str) -> bool {
    match url::Url::parse(token.trim()) {
        Ok(u) => matches!(u.scheme(), "http" | "https") && u.has_host(),
        Err(_) => false,
    }
}

/// `_extract_ids(value)`.
pub async fn extract_ids(cx: &ToolCx<'_>, value: &Json) -> Vec<String> {
    let mut ids = Vec::new();
    let start = match value {
        Json::String(s) => reference(cx, s).await.unwrap_or_else(|| value.clone()),
        other => other.clone(),
    };
    let mut stack = vec![start];
    // Depth-first in document order: the stack holds what is left, last item first.
    while let Some(item) = stack.pop() {
        match item {
            Json::Null => {}
            Json::String(s) => {
                let token = s.trim();
                if token.is_empty() {
                    continue;
                }
                if let Some(v) = reference(cx, token).await {
                    stack.push(v);
                    continue;
                }
                if token.starts_with('[') && token.ends_with(']') {
                    if let Ok(parsed) = serde_json::from_str::<Json>(token) {
                        stack.push(parsed);
                        continue;
                    }
                }
                if is_http_url(token) {
                    ids.push(token.to_string());
                } else if token.contains(',') {
                    stack.extend(token.split(',').rev().map(|p| Json::String(p.to_string())));
                } else {
                    ids.push(token.to_string());
                }
            }
            Json::Object(map) => {
                if let Some(v) = ["file_id", "id", "url", "value"]
                    .iter()
                    .find_map(|k| map.get(*k))
                {
                    stack.push(v.clone());
                } else {
                    stack.extend(map.values().rev().cloned());
                }
            }
            Json::Array(items) => stack.extend(items.into_iter().rev()),
            other => {
                let token = py::str_of(&other).trim().to_string();
                if !token.is_empty() {
                    ids.push(token);
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    ids.retain(|t| seen.insert(t.clone()));
    ids
}

/// `RAGFLOW_BROWSER_UPLOAD_URL_MAX_BYTES` (a positive integer, else the default).
pub fn max_bytes_from(raw: Option<&str>) -> usize {
    raw.and_then(|r| r.trim().parse::<i64>().ok())
        .filter(|n| *n > 0)
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(DEFAULT_MAX_BYTES)
}

/// `path` in `dir`, or `<stem>_<n><ext>` when that name is taken.
fn free_path(dir: &Path, name: &str) -> PathBuf {
    let candidate = dir.join(name);
    if !candidate.exists() {
        return candidate;
    }
    let p = Path::new(name);
    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or(name);
    let ext = p
        .extension()
        .and_then(|s| s.to_str())
        .map(|e| format!(".{e}"))
        .unwrap_or_default();
    (1..)
        .map(|i| dir.join(format!("{stem}_{i}{ext}")))
        .find(|p| !p.exists())
        .unwrap_or(candidate)
}

/// A file name safe to create in a directory: the last path segment, never `.`/`..`.
fn base_name(name: &str) -> Option<String> {
    let last = name.rsplit(['/', '\\']).next()?.trim();
    (!last.is_empty() && last != "." && last != "..").then(|| last.to_string())
}

/// `_extract_url_filename`: Content-Disposition's `filename*`, then `filename`, else the URL's
/// last path segment, else `url_file_<8 hex>.bin`.
pub fn url_filename(url: &str, content_disposition: Option<&str>) -> String {
    static STAR: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?i)filename\*\s*=\s*(?:UTF-8'')?([^;]+)").expect("static regex")
    });
    static QUOTED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"filename\s*=\s*"([^"]+)""#).expect("static regex")
    });
    static PLAIN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"filename\s*=\s*([^;]+)").expect("static regex")
    });
    if let Some(cd) = content_disposition.filter(|c| !c.is_empty()) {
        if let Some(m) = STAR.captures(cd).and_then(|c| c.get(1)) {
            let raw = m.as_str().trim().trim_matches('"');
            let decoded = percent_encoding::percent_decode_str(raw).decode_utf8_lossy();
            if let Some(n) = base_name(&decoded) {
                return n;
            }
        }
        for re in [&*QUOTED, &*PLAIN] {
            if let Some(n) = re
                .captures(cd)
                .and_then(|c| c.get(1))
                .and_then(|m| base_name(m.as_str().trim().trim_matches('"')))
            {
                return n;
            }
        }
    }
    let from_path = url::Url::parse(url).ok().and_then(|u| {
        let last = u.path().rsplit('/').next().unwrap_or("").to_string();
        let decoded = percent_encoding::percent_decode_str(&last)
            .decode_utf8_lossy()
            .trim()
            .to_string();
        base_name(&decoded)
    });
    from_path.unwrap_or_else(|| {
        let id = uuid::Uuid::new_v4().simple().to_string();
        format!("url_file_{}.bin", &id[..8])
    })
}

/// `_prepare_upload_url_file`: the URL's body saved in `dir` (User-Agent
/// `RAGFlow-Browser-Node/1.0`, 30 s, at most `max_bytes`); `None` when it fails or is empty.
async fn fetch_url(cx: &ToolCx<'_>, url: &str, dir: &Path, max_bytes: usize) -> Option<Prepared> {
    let mut req = Request::get(url, Duration::from_secs(30));
    req.headers
        .push(("User-Agent".into(), "RAGFlow-Browser-Node/1.0".into()));
    req.max_bytes = max_bytes;
    let response = match outbound::fetch(&cx.guard(), req).await {
        Ok(r) if (200..300).contains(&r.status) => r,
        Ok(r) => {
            tracing::warn!(status = r.status, "Browser failed to fetch an upload url");
            return None;
        }
        Err(e) => {
            tracing::warn!(error = %e, "Browser failed to fetch an upload url");
            return None;
        }
    };
    if response.body.is_empty() {
        tracing::warn!("Browser upload url returned empty content");
        return None;
    }
    let cd = response
        .headers
        .get("content-disposition")
        .and_then(|v| v.to_str().ok());
    let name = url_filename(url, cd);
    let path = free_path(dir, &name);
    tokio::fs::write(&path, &response.body).await.ok()?;
    Some(Prepared {
        file_id: String::new(),
        name,
        local_path: path,
    })
}

/// `_prepare_upload_files`: every source made a local file in `dir`.
pub async fn prepare(
    cx: &ToolCx<'_>,
    value: &Json,
    dir: &Path,
    files: Option<&FileTarget>,
    max_bytes: usize,
) -> Vec<Prepared> {
    let mut prepared = Vec::new();
    for token in extract_ids(cx, value).await {
        if is_http_url(&token) {
            prepared.extend(fetch_url(cx, &token, dir, max_bytes).await);
            continue;
        }
        let Some(target) = files else {
            tracing::warn!("Browser upload file id given, but no file store is configured");
            continue;
        };
        let bucket = target.bucket(cx.tenant_id());
        let blob = match target.files.get(bucket, &token).await {
            Ok(Some(b)) if !b.is_empty() => b,
            Ok(_) => {
                tracing::warn!("Browser upload file id not found");
                continue;
            }
            Err(e) => {
                tracing::warn!(error = %e, "Browser failed to fetch an upload blob");
                continue;
            }
        };
        let Some(name) = base_name(&token) else {
            continue;
        };
        let path = free_path(dir, &name);
        if tokio::fs::write(&path, &blob).await.is_err() {
            continue;
        }
        prepared.push(Prepared {
            file_id: token,
            name,
            local_path: path,
        });
    }
    prepared
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_as_ragflow_reads_them() {
        assert_eq!(
            url_filename(
                "http://h/a/b.pdf",
                Some("attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf")
            ),
            "résumé.pdf"
        );
        assert_eq!(
            url_filename(
                "http://h/a/b.pdf",
                Some("attachment; filename=\"../x.txt\"")
            ),
            "x.txt"
        );
        assert_eq!(url_filename("http://h/a/b%20c.pdf", None), "b c.pdf");
        assert!(url_filename("http://h/", None).starts_with("url_file_"));
        assert_eq!(max_bytes_from(Some("12")), 12);
        assert_eq!(max_bytes_from(Some("-1")), DEFAULT_MAX_BYTES);
        assert_eq!(max_bytes_from(None), DEFAULT_MAX_BYTES);
        assert!(is_http_url("https://x.y/z"));
        assert!(!is_http_url("file:///etc/passwd"));
        assert!(!is_http_url("abc,def"));
    }
}
