//! Google through SerpApi (tools.md §11, `agent/tools/google.py`). RAGFlow calls the
//! `google-search-results` client, whose `GoogleSearch(params).get_dict()` is
//! `GET https://serpapi.com/search` with the parameters plus `source=python&output=json`, read
//! as JSON whatever the status (SerpApi reports errors in `error`).

use crate::common::{
    finish, param_text, retrieve_chunks, send_raw, text, with_query, with_retries, Found,
};
use crate::common::{keyword_thoughts, query_arg};
use crate::config::ToolsConfig;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{Json, Map};
use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

const SERVICE: &str = "google";
const DEFAULT_BASE: &str = "https://serpapi.com";
const TIMEOUT: Duration = Duration::from_secs(60);

pub struct Google {
    config: Arc<ToolsConfig>,
}

impl Google {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        Google { config }
    }
}

/// `about_this_result.source.description`, else `snippet`, else `""`.
fn content_of(r: &Json) -> String {
    match r.pointer("/about_this_result/source/description") {
        Some(d) => text(Some(d)),
        None => text(r.get("snippet")),
    }
}

impl External for Google {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            let q = match query_arg(cx, &args, "q") {
                Ok(q) => q,
                Err(early) => return Ok(early),
            };
            let key = self.config.api_key(SERVICE, &param_text(cx, "api_key"));
            let base = format!("{}/search", self.config.base_url(SERVICE, DEFAULT_BASE));
            let query: Vec<(&str, String)> = vec![
                ("api_key", key.expose().to_string()),
                ("engine", "google".into()),
                ("q", q.clone()),
                ("google_domain", "google.com".into()),
                ("gl", param_text(cx, "country")),
                ("hl", param_text(cx, "language")),
                ("source", "python".into()),
                ("output", "json".into()),
            ];
            let outcome = with_retries(cx, true, || async {
                let req = cx.http().get(with_query(&base, &query)?);
                let (_, body) = send_raw(req, TIMEOUT, &base).await?;
                let res: Json =
                    serde_json::from_str(&body).map_err(|e| format!("Expecting value: {e}"))?;
                let Some(organic) = res.get("organic_results") else {
                    return Err(res
                        .get("error")
                        .map(|m| text(Some(m)))
                        .unwrap_or_else(|| "SerpApi returned no organic_results.".into()));
                };
                let found = organic
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .map(|r| Found {
                        title: r.get("title").cloned().unwrap_or(Json::from("")),
                        url: r.get("link").cloned().unwrap_or(Json::from("")),
                        content: content_of(r),
                        score: Json::from(1),
                    })
                    .collect::<Vec<_>>();
                let content = retrieve_chunks(cx, found);
                cx.set_output("json", organic.clone());
                Ok(Json::String(content))
            })
            .await;
            Ok(finish(cx, "Google", outcome))
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        Some(keyword_thoughts(
            input,
            "Looking for the most relevant articles.",
            8,
        ))
    }
}
