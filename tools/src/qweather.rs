//! QWeather (tools.md §18, `agent/tools/qweather.py`): a city lookup on the geo API, then one
//! weather, indices or air-quality request on the v7 API (`devapi` for free keys, `api` for
//! paid ones). RAGFlow builds the URLs by concatenation, without encoding the values; the HTTP
//! client percent-encodes what a URL cannot carry, as `requests` does. A `code` other than
//! `"200"` is an answer (`**Error** …`), not a failure.

use crate::common::{finish, query_arg};
use crate::common::{param_text, send_raw, with_retries, Attempts, DEFAULT_TIMEOUT};
use crate::config::ToolsConfig;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use std::sync::Arc;

const SERVICE: &str = "qweather";
const GEO_URL: &str = "https://geoapi.qweather.com/v2";
const FREE_BASE: &str = "https://devapi.qweather.com/v7";
const PAID_BASE: &str = "https://api.qweather.com/v7";

pub struct QWeather {
    config: Arc<ToolsConfig>,
}

impl QWeather {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        QWeather { config }
    }
}

/// `QWeatherParam.error_code`, by the `code` QWeather answers.
fn error_message(code: &Json) -> String {
    let code = py::str_of(code);
    let known = match code.as_str() {
        "204" => "The request was successful, but the region you are querying does not have the data you need at this time.",
        "400" => "Request error, may contain incorrect request parameters or missing mandatory request parameters.",
        "401" => "Authentication fails, possibly using the wrong KEY, wrong digital signature, wrong type of KEY (e.g. using the SDK's KEY to access the Web API).",
        "402" => "Exceeded the number of accesses or the balance is not enough to support continued access to the service, you can recharge, upgrade the accesses or wait for the accesses to be reset.",
        "403" => "No access, may be the binding PackageName, BundleID, domain IP address is inconsistent, or the data that requires additional payment.",
        "404" => "The queried data or region does not exist.",
        "429" => "Exceeded the limited QPM (number of accesses per minute), please refer to the QPM description",
        "500" => "No response or timeout, interface service abnormality please contact us",
        _ => return format!("**Error** QWeather API returned code {code}."),
    };
    format!("**Error** {known}")
}

/// Python's `d[key]`: a missing key raises `KeyError`, whose text is the key's repr.
fn key<'v>(v: &'v Json, k: &str) -> Result<&'v Json, String> {
    match v {
        Json::Object(m) => m.get(k).ok_or_else(|| py::repr_str(k)),
        Json::Array(_) => Err("list indices must be integers or slices, not str".into()),
        other => Err(format!(
            "'{}' object is not subscriptable",
            py::type_name(other)
        )),
    }
}

/// Python's `list[0]`.
fn first(v: &Json) -> Result<&Json, String> {
    match v {
        Json::Array(items) => items
            .first()
            .ok_or_else(|| "list index out of range".to_string()),
        Json::Object(_) => Err("0".into()),
        other => Err(format!(
            "'{}' object is not subscriptable",
            py::type_name(other)
        )),
    }
}

/// Python's `a + b` of two values RAGFlow expects to be strings.
fn concat(a: &Json, b: &str) -> Result<String, String> {
    match a {
        Json::String(s) => Ok(format!("{s}{b}")),
        other => Err(format!(
            "unsupported operand type(s) for +: '{}' and 'str'",
            py::type_name(other)
        )),
    }
}

fn as_str(v: &Json) -> Result<&str, String> {
    v.as_str().ok_or_else(|| {
        format!(
            "can only concatenate str (not \"{}\") to str",
            py::type_name(v)
        )
    })
}

/// `requests.get(url).json()`, whatever the status.
async fn get(cx: &ToolCx<'_>, url: &str, shown: &str) -> Result<Json, String> {
    let req = cx.http().get(url);
    let (_, body) = send_raw(req, DEFAULT_TIMEOUT, shown).await?;
    serde_json::from_str(&body).map_err(|e| format!("Expecting value: {e}"))
}

/// What one attempt ends with: the text to answer, or `None` when the run was canceled.
type Step = Result<Option<String>, String>;

impl QWeather {
    async fn attempt(&self, cx: &ToolCx<'_>, location: &str) -> Step {
        let apikey = self.config.api_key(SERVICE, &param_text(cx, "web_apikey"));
        let apikey = apikey.expose();
        let geo = self.config.geo_url(SERVICE, GEO_URL);
        let lookup_url = format!("{geo}/city/lookup?location={location}&key={apikey}");
        let lookup = get(cx, &lookup_url, &format!("{geo}/city/lookup")).await?;
        if cx.check_canceled() {
            return Ok(None);
        }
        let code = key(&lookup, "code")?;
        if code.as_str() != Some("200") {
            return Ok(Some(error_message(code)));
        }
        let id = as_str(key(first(key(&lookup, "location")?)?, "id")?)?.to_string();
        let default_base = if param_text(cx, "user_type") == "paid" {
            PAID_BASE
        } else {
            FREE_BASE
        };
        let base = self.config.base_url(SERVICE, default_base);
        let lang = param_text(cx, "lang");
        let kind = param_text(cx, "type");
        let (path, query) = match kind.as_str() {
            "weather" => (
                format!("weather/{}", param_text(cx, "time_period")),
                format!("location={id}&key={apikey}&lang={lang}"),
            ),
            "indices" => (
                "indices/1d".to_string(),
                format!("type=0&location={id}&key={apikey}&lang={lang}"),
            ),
            _ => (
                "air/now".to_string(),
                format!("location={id}&key={apikey}&lang={lang}"),
            ),
        };
        let shown = format!("{base}/{path}");
        let response = get(cx, &format!("{shown}?{query}"), &shown).await?;
        if cx.check_canceled() {
            return Ok(None);
        }
        let code = key(&response, "code")?;
        if code.as_str() != Some("200") {
            return Ok(Some(error_message(code)));
        }
        let text = match kind.as_str() {
            "weather" if param_text(cx, "time_period") == "now" => {
                py::str_of(key(&response, "now")?)
            }
            "weather" => py_iter(key(&response, "daily")?)?
                .iter()
                .map(py::str_of)
                .collect::<Vec<_>>()
                .join("\n"),
            "indices" => {
                let daily = key(&response, "daily")?;
                let date = key(first(daily)?, "date")?;
                let mut lines = Vec::new();
                let items = py_iter(daily)?;
                for i in &items {
                    let line = concat(key(i, "name")?, ": ")?;
                    let line = line + as_str(key(i, "category")?)? + ", ";
                    lines.push(line + as_str(key(i, "text")?)?);
                }
                concat(date, "\n")? + &lines.join("\n")
            }
            _ => py::str_of(key(&response, "now")?),
        };
        Ok(Some(text))
    }
}

/// Iterating a value as Python's `for i in v` does over a list (other JSON values: a
/// `TypeError`, except a dict, whose keys are iterated and then fail as strings).
fn py_iter(v: &Json) -> Result<Vec<Json>, String> {
    match v {
        Json::Array(items) => Ok(items.clone()),
        Json::Object(m) => Ok(m.keys().map(|k| Json::from(k.as_str())).collect()),
        Json::String(s) => Ok(s.chars().map(|c| Json::from(c.to_string())).collect()),
        other => Err(format!("'{}' object is not iterable", py::type_name(other))),
    }
}

impl External for QWeather {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            let location = match query_arg(cx, &args, "query") {
                Ok(q) => q,
                Err(early) => return Ok(early),
            };
            let outcome = with_retries(cx, true, || self.attempt(cx, &location)).await;
            let outcome = match outcome {
                Attempts::Done(Some(text)) => {
                    cx.set_output("formalized_content", Json::String(text.clone()));
                    Attempts::Done(Json::String(text))
                }
                Attempts::Done(None) | Attempts::Canceled => Attempts::Canceled,
                Attempts::Failed(e) => Attempts::Failed(e),
            };
            Ok(finish(cx, "QWeather", outcome))
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, input: &Map<String, Json>) -> Option<String> {
        let q = input
            .get("query")
            .map(py::str_of)
            .unwrap_or_else(|| "-_-!".into());
        Some(format!("Looking up the weather for: {q}"))
    }
}
