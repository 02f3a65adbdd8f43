//! DeepL (tools.md §6, `agent/tools/deepl.py`). RAGFlow calls the `deepl` client's
//! `Translator(auth_key).translate_text(text, source_lang, target_lang)`: `POST /v2/translate`
//! on `api-free.deepl.com` for a key ending in `:fx`, else `api.deepl.com`, with
//! `Authorization: DeepL-Auth-Key <key>`. One attempt; any failure is `DeepL error: <e>`.
//! Errors are worded as the client words them for 403 and 456; other statuses as its generic
//! `Unexpected status code`.

use crate::common::query_arg;
use crate::common::{param_text, send_raw, text};
use crate::config::ToolsConfig;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

const SERVICE: &str = "deepl";
const TIMEOUT: Duration = Duration::from_secs(30);

pub struct DeepL {
    config: Arc<ToolsConfig>,
}

impl DeepL {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        DeepL { config }
    }

    async fn translate(&self, cx: &ToolCx<'_>, query: &str) -> Result<String, String> {
        let key = self.config.api_key(SERVICE, &param_text(cx, "auth_key"));
        let default = if key.expose().ends_with(":fx") {
            "https://api-free.deepl.com"
        } else {
            "https://api.deepl.com"
        };
        let url = format!("{}/v2/translate", self.config.base_url(SERVICE, default));
        let body = serde_json::json!({
            "text": [query],
            "source_lang": param_text(cx, "source_lang"),
            "target_lang": param_text(cx, "target_lang"),
        });
        let req = cx
            .http()
            .post(&url)
            .header("Authorization", format!("DeepL-Auth-Key {}", key.expose()))
            .header("Content-Type", "application/json")
            .body(body.to_string());
        let (status, body) = send_raw(req, TIMEOUT, &url).await?;
        let parsed: Option<Json> = serde_json::from_str(&body).ok();
        let message = parsed
            .as_ref()
            .and_then(|p| p.get("message"))
            .map(|m| text(Some(m)))
            .unwrap_or_default();
        match status.as_u16() {
            200 => parsed
                .as_ref()
                .and_then(|p| p.pointer("/translations/0/text"))
                .map(|t| text(Some(t)))
                .ok_or_else(|| "Unexpected response from DeepL".to_string()),
            403 => Err(format!(
                "Authorization failure, check auth_key, message: {message}"
            )),
            456 => Err(format!(
                "Quota for this billing period has been exceeded, message: {message}"
            )),
            s => Err(format!("Unexpected status code: {s}, content: {body}.")),
        }
    }
}

impl External for DeepL {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            let query = match query_arg(cx, &args, "query") {
                Ok(query) => query,
                Err(early) => return Ok(early),
            };
            match self.translate(cx, &query).await {
                Ok(res) => {
                    if cx.check_canceled() {
                        return Ok(Json::Null);
                    }
                    cx.set_output("formalized_content", Json::String(res.clone()));
                    Ok(Json::String(res))
                }
                Err(e) => {
                    if cx.check_canceled() {
                        return Ok(Json::Null);
                    }
                    let msg = format!("DeepL error: {e}");
                    cx.set_output("_ERROR", Json::String(msg.clone()));
                    Ok(Json::String(msg))
                }
            }
        })
    }

    fn thoughts(&self, params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        let q = input
            .get("query")
            .map(py::str_of)
            .unwrap_or_else(|| "-_-!".into());
        Some(format!(
            "Translating into {}: {q}",
            text(params.get("target_lang"))
        ))
    }
}
