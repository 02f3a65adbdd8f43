//! Files for run inputs (`http-api.md` §10): multipart upload, download of the raw bytes.

use axum::extract::{Multipart, Path, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::agent_of;
use crate::auth::{BetaTenant, Tenant};
use crate::clock::{new_id, now_ms, seconds};
use crate::envelope::{Answer, ApiError, Reply};
use crate::request::Params;
use crate::shared::AppRef;
use crate::store::NewFile;

fn descriptor(file: &NewFile) -> Value {
    json!({
        "id": file.id, "name": file.name, "size": file.content.len(),
        "extension": file.extension, "mime_type": file.mime_type,
        "created_by": file.tenant_id, "created_at": seconds(file.create_time),
        "preview_url": null,
    })
}

/// The extension of a file name, lower-cased, without the dot (`""` when it has none).
fn extension(name: &str) -> String {
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => ext.to_lowercase(),
        _ => String::new(),
    }
}

/// `POST /api/v1/agents/{agent_id}/upload`: every part named `file` is stored; one file
/// answers one descriptor, several a list.
pub(crate) async fn upload(
    State(app): State<AppRef>,
    BetaTenant(tenant): BetaTenant,
    Path(agent_id): Path<String>,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Answer {
    agent_of(&app, &tenant, &agent_id, ApiError::no_access).await?;
    let mut multipart = multipart
        .map_err(|e| ApiError::argument(format!("The upload must be multipart/form-data: {e}")))?;
    let mut stored = Vec::new();
    loop {
        let field = multipart
            .next_field()
            .await
            .map_err(|e| ApiError::argument(format!("The upload could not be read: {e}")))?;
        let Some(field) = field else { break };
        if field.name() != Some("file") {
            continue;
        }
        let name = field.file_name().unwrap_or("file").to_string();
        let mime_type = field
            .content_type()
            .unwrap_or("application/octet-stream")
            .to_string();
        let content = field.bytes().await.map_err(|e| {
            ApiError::argument(format!("The upload of `{name}` could not be read: {e}"))
        })?;
        let file = NewFile {
            id: new_id(),
            tenant_id: tenant.clone(),
            agent_id: agent_id.clone(),
            extension: extension(&name),
            name,
            mime_type,
            content: content.to_vec(),
            create_time: now_ms(),
        };
        app.store.insert_file(&file).await?;
        stored.push(descriptor(&file));
    }
    match stored.len() {
        0 => Err(ApiError::argument("required argument are missing: file; ")),
        1 => Ok(Reply::success(stored.remove(0))),
        _ => Ok(Reply::success(Value::from(stored))),
    }
}

/// A file name safe inside a quoted `Content-Disposition` parameter.
fn header_file_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            let plain = c == ' ' || (c.is_ascii_graphic() && c != '"' && c != '\\');
            if plain {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `GET /api/v1/agents/download?id=<file id>`: the bytes of one of the caller's uploads.
pub(crate) async fn download(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    params: Params,
) -> Result<Response, ApiError> {
    let Some(id) = params.get("id").filter(|id| !id.is_empty()) else {
        return Err(ApiError::argument("required argument are missing: id; "));
    };
    let file = app
        .store
        .file(&tenant, id)
        .await?
        .ok_or_else(|| ApiError::data("document not found"))?;
    let disposition = format!(
        "attachment; filename=\"{}\"",
        header_file_name(&file.file.name)
    );
    let content_type = HeaderValue::from_str(&file.file.mime_type)
        .unwrap_or(HeaderValue::from_static("application/octet-stream"));
    let disposition =
        HeaderValue::from_str(&disposition).unwrap_or(HeaderValue::from_static("attachment"));
    Ok((
        [
            (header::CONTENT_TYPE, content_type),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        file.content,
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_safe() {
        assert_eq!(extension("Report.PDF"), "pdf");
        assert_eq!(extension(".bashrc"), "");
        assert_eq!(header_file_name("a \"b\"\n.txt"), "a _b__.txt");
    }
}
