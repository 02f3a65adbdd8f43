//! Where each tool sends its requests, and the API keys configuration supplies (tools.md §31).
//! RAGFlow hard-codes the production endpoints; canvasc lets configuration and the environment
//! point every one of them elsewhere (a stub on 127.0.0.1 in tests, a proxy in production):
//!
//! ```toml
//! [tools.tavily]
//! base_url = "http://127.0.0.1:8080"
//! api_key = "tvly-…"
//! ```
//!
//! and `RAGFLOW_TOOL_TAVILY_BASE_URL`, `RAGFLOW_TOOL_TAVILY_API_KEY` (the environment wins over
//! the file). A key from configuration is used only when the node's own key parameter is empty.

use canvasc_engine::config::{ConfigError, EnvFn};
use std::collections::BTreeMap;
use std::fmt;

/// A secret text (an API key): never printed, in `Debug` or anywhere else.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(text: impl Into<String>) -> Self {
        Secret(text.into())
    }

    /// The key itself, to put into a request.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_empty() { "\"\"" } else { "\"***\"" })
    }
}

/// One service's overrides.
#[derive(Clone, Debug, Default)]
pub struct ServiceConfig {
    /// Replaces the production base URL (scheme, host, port and path prefix).
    pub base_url: Option<String>,
    /// Used when the node's key parameter is empty.
    pub api_key: Option<Secret>,
    /// A service's second endpoint (`geo_url`): QWeather's GeoAPI, Yahoo's session-cookie host.
    pub geo_url: Option<String>,
    /// Private hosts or addresses the SSRF guard lets this tool reach (`allowed_hosts`, comma
    /// separated): ExeSQL's and Email's servers named by a canvas.
    pub allowed_hosts: Vec<String>,
    /// A PEM file of a private CA the tool's TLS connections trust (Email's SMTP server).
    pub ca_file: Option<String>,
    /// Where the service runs: `executor` (the default) or `local` (`[tools.sandbox]`:
    /// CodeExec in a local subprocess, for development).
    pub backend: Option<String>,
    /// A program the tool runs (`[tools.browser] executable`: the Chromium the Browser
    /// component drives; RAGFlow's `BROWSER_USE_EXECUTABLE_PATH` and its two siblings win).
    pub executable: Option<String>,
}

/// Every service's overrides, by service name (`tavily`, `duckduckgo`, `wikipedia`, …), and
/// the local knowledge base's settings.
#[derive(Clone, Debug, Default)]
pub struct ToolsConfig {
    services: BTreeMap<String, ServiceConfig>,
    /// `[embedding]`: the OpenAI-compatible endpoint local datasets are embedded with.
    embedding: Option<EmbeddingSettings>,
    /// Where the local datasets live (the host sets it: `<data dir>/datasets`).
    datasets_dir: Option<std::path::PathBuf>,
    /// RAGFlow's `RAGFLOW_BROWSER_UPLOAD_URL_MAX_BYTES`, as the environment gave it.
    browser_upload_max_bytes: Option<String>,
}

/// `[embedding]` of `canvasc.toml` (`CANVASC_EMBEDDING_{BASE_URL,MODEL,API_KEY}` win).
#[derive(Clone, Debug)]
pub struct EmbeddingSettings {
    pub base_url: String,
    pub model: String,
    pub api_key: Secret,
}

/// The service names tools use, for the environment variables read.
pub const SERVICES: &[&str] = &[
    "akshare",
    "arxiv",
    "bgpt",
    "deepl",
    "duckduckgo",
    "email",
    "exesql",
    "github",
    "google",
    "googlescholar",
    "keenable",
    "pubmed",
    "querit",
    "qweather",
    "retrieval",
    "sandbox",
    "tavily",
    "wikipedia",
    "yahoo",
];

impl ToolsConfig {
    /// The `[tools.<service>]` tables of a `canvasc.toml` text (other sections are ignored), then
    /// `RAGFLOW_TOOL_<SERVICE>_{BASE_URL,API_KEY,GEO_URL}` from `env`.
    pub fn from_toml_str(text: &str, env: EnvFn<'_>) -> Result<ToolsConfig, ConfigError> {
        let err = |message: String| ConfigError {
            path: None,
            message,
        };
        let table: toml::Table = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        let mut services = BTreeMap::new();
        if let Some(tools) = table.get("tools") {
            let Some(tools) = tools.as_table() else {
                return Err(err(
                    "[tools] must be a table of [tools.<service>] tables".into()
                ));
            };
            for (name, entry) in tools {
                let Some(entry) = entry.as_table() else {
                    return Err(err(format!("[tools.{name}] must be a table")));
                };
                let mut service = ServiceConfig::default();
                for (key, value) in entry {
                    let Some(text) = value.as_str() else {
                        return Err(err(format!("[tools.{name}] {key} must be a string")));
                    };
                    match key.as_str() {
                        "base_url" => service.base_url = Some(checked_url(name, key, text)?),
                        "geo_url" => service.geo_url = Some(checked_url(name, key, text)?),
                        "api_key" => service.api_key = Some(Secret::new(text)),
                        "allowed_hosts" => service.allowed_hosts = host_list(text),
                        "ca_file" => service.ca_file = Some(text.to_string()),
                        "backend" => service.backend = Some(checked_backend(name, text)?),
                        "executable" => service.executable = Some(text.to_string()),
                        other => return Err(err(format!(
                            "[tools.{name}] has no setting `{other}` (base_url, api_key, geo_url, allowed_hosts, ca_file, backend, executable)"
                        ))),
                    }
                }
                services.insert(name.to_ascii_lowercase(), service);
            }
        }
        for name in SERVICES {
            let var = |what: &str| env(&format!("RAGFLOW_TOOL_{}_{what}", name.to_uppercase()));
            let service: &mut ServiceConfig = services.entry(name.to_string()).or_default();
            if let Some(url) = var("BASE_URL") {
                service.base_url = Some(checked_url(name, "RAGFLOW_TOOL_…_BASE_URL", &url)?);
            }
            if let Some(url) = var("GEO_URL") {
                service.geo_url = Some(checked_url(name, "RAGFLOW_TOOL_…_GEO_URL", &url)?);
            }
            if let Some(key) = var("API_KEY") {
                service.api_key = Some(Secret::new(key));
            }
            if let Some(hosts) = var("ALLOWED_HOSTS") {
                service.allowed_hosts = host_list(&hosts);
            }
            if let Some(backend) = var("BACKEND") {
                service.backend = Some(checked_backend(name, &backend)?);
            }
        }
        // RAGFlow's own variables, where it has them (tools.md §31).
        if let Some(url) = env("KEENABLE_API_URL") {
            let keenable = services.entry("keenable".to_string()).or_default();
            if keenable.base_url.is_none() {
                keenable.base_url = Some(url.trim().to_string());
            }
        }
        if let Some(key) = env("QUERIT_API_KEY") {
            let querit = services.entry("querit".to_string()).or_default();
            if querit.api_key.is_none() {
                querit.api_key = Some(Secret::new(key));
            }
        }
        // RAGFlow's Browser variables: the first executable path set wins over the file.
        if let Some(path) = [
            "BROWSER_USE_EXECUTABLE_PATH",
            "BROWSER_USE_BROWSER_BINARY_PATH",
            "BROWSER_USE_CHROME_BINARY_PATH",
        ]
        .iter()
        .filter_map(|v| env(v))
        .find(|p| !p.trim().is_empty())
        {
            services
                .entry("browser".to_string())
                .or_default()
                .executable = Some(path);
        }
        let embedding = embedding_settings(&table, env)?;
        Ok(ToolsConfig {
            services,
            embedding,
            datasets_dir: None,
            browser_upload_max_bytes: env("RAGFLOW_BROWSER_UPLOAD_URL_MAX_BYTES"),
        })
    }

    /// The program `[tools.<service>] executable` names (the Browser's Chromium), if any.
    pub fn executable(&self, service: &str) -> Option<&str> {
        self.services.get(service)?.executable.as_deref()
    }

    /// `RAGFLOW_BROWSER_UPLOAD_URL_MAX_BYTES` as the environment gave it.
    pub fn browser_upload_max_bytes(&self) -> Option<&str> {
        self.browser_upload_max_bytes.as_deref()
    }

    /// The same configuration with the local datasets under `dir`.
    pub fn with_datasets_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.datasets_dir = Some(dir.into());
        self
    }

    /// Where the local datasets live, when the host said.
    pub fn datasets_dir(&self) -> Option<&std::path::Path> {
        self.datasets_dir.as_deref()
    }

    /// The `[embedding]` endpoint, when one is configured.
    pub fn embedding(&self) -> Option<&EmbeddingSettings> {
        self.embedding.as_ref()
    }

    /// The base URL configured for `service`, if any (no production default).
    pub fn configured_base_url(&self, service: &str) -> Option<String> {
        self.services
            .get(service)
            .and_then(|s| s.base_url.as_deref())
            .map(|u| u.trim_end_matches('/').to_string())
    }

    /// The base URL of `service`: the configured one, else `default`, without a trailing `/`.
    pub fn base_url(&self, service: &str, default: &str) -> String {
        self.services
            .get(service)
            .and_then(|s| s.base_url.as_deref())
            .unwrap_or(default)
            .trim_end_matches('/')
            .to_string()
    }

    /// The private hosts `service` may reach despite the SSRF guard.
    pub fn allowed_hosts(&self, service: &str) -> &[String] {
        self.services
            .get(service)
            .map(|s| s.allowed_hosts.as_slice())
            .unwrap_or_default()
    }

    /// Whether `service` runs locally (`backend = "local"`).
    pub fn local_backend(&self, service: &str) -> bool {
        self.services
            .get(service)
            .and_then(|s| s.backend.as_deref())
            == Some("local")
    }

    /// The private CA `service` trusts, when configured.
    pub fn ca_file(&self, service: &str) -> Option<&str> {
        self.services
            .get(service)
            .and_then(|s| s.ca_file.as_deref())
    }

    /// QWeather's geo endpoint base.
    pub fn geo_url(&self, service: &str, default: &str) -> String {
        self.services
            .get(service)
            .and_then(|s| s.geo_url.as_deref())
            .unwrap_or(default)
            .trim_end_matches('/')
            .to_string()
    }

    /// The key to use: the node's parameter when it is set, else the configured one.
    pub fn api_key(&self, service: &str, param: &str) -> Secret {
        if !param.trim().is_empty() {
            return Secret::new(param);
        }
        self.services
            .get(service)
            .and_then(|s| s.api_key.clone())
            .unwrap_or_default()
    }
}

/// `[embedding]` (`base_url`, `model`, `api_key`), then the environment's
/// `CANVASC_EMBEDDING_*`; `None` when neither names an endpoint.
fn embedding_settings(
    table: &toml::Table,
    env: EnvFn<'_>,
) -> Result<Option<EmbeddingSettings>, ConfigError> {
    let err = |message: String| ConfigError {
        path: None,
        message,
    };
    let (mut base_url, mut model, mut api_key) = (None, None, None);
    if let Some(section) = table.get("embedding") {
        let Some(section) = section.as_table() else {
            return Err(err("[embedding] must be a table".into()));
        };
        for (key, value) in section {
            let Some(text) = value.as_str() else {
                return Err(err(format!("[embedding] {key} must be a string")));
            };
            match key.as_str() {
                "base_url" => base_url = Some(checked_url("embedding", key, text)?),
                "model" => model = Some(text.trim().to_string()),
                "api_key" => api_key = Some(Secret::new(text)),
                other => {
                    return Err(err(format!(
                        "[embedding] has no setting `{other}` (base_url, model, api_key)"
                    )))
                }
            }
        }
    }
    if let Some(url) = env("CANVASC_EMBEDDING_BASE_URL") {
        base_url = Some(checked_url(
            "embedding",
            "CANVASC_EMBEDDING_BASE_URL",
            &url,
        )?);
    }
    if let Some(m) = env("CANVASC_EMBEDDING_MODEL") {
        model = Some(m.trim().to_string());
    }
    if let Some(k) = env("CANVASC_EMBEDDING_API_KEY") {
        api_key = Some(Secret::new(k));
    }
    match (base_url, model) {
        (None, None) => Ok(None),
        (Some(base_url), Some(model)) if !model.is_empty() => Ok(Some(EmbeddingSettings {
            base_url,
            model,
            api_key: api_key.unwrap_or_default(),
        })),
        _ => Err(err(
            "[embedding] needs both base_url and model (or CANVASC_EMBEDDING_BASE_URL and CANVASC_EMBEDDING_MODEL)".into(),
        )),
    }
}

fn checked_backend(service: &str, text: &str) -> Result<String, ConfigError> {
    match text.trim() {
        b @ ("executor" | "local") => Ok(b.to_string()),
        other => Err(ConfigError {
            path: None,
            message: format!(
                "[tools.{service}] backend `{other}` is neither `executor` nor `local`"
            ),
        }),
    }
}

/// `"a, b"` → `["a", "b"]`.
fn host_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(str::to_string)
        .collect()
}

fn checked_url(service: &str, key: &str, text: &str) -> Result<String, ConfigError> {
    match url::Url::parse(text.trim()) {
        Ok(u) if u.scheme() == "http" || u.scheme() == "https" => Ok(text.trim().to_string()),
        _ => Err(ConfigError {
            path: None,
            message: format!("[tools.{service}] {key} `{text}` is not an http:// or https:// URL"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_then_environment() {
        let text =
            "[llm]\nx = 1\n[tools.tavily]\nbase_url = \"http://127.0.0.1:1/\"\napi_key = \"k1\"\n";
        let env = |k: &str| {
            (k == "RAGFLOW_TOOL_WIKIPEDIA_BASE_URL")
                .then(|| "http://127.0.0.1:2/{lang}".to_string())
        };
        let c = ToolsConfig::from_toml_str(text, &env).unwrap_or_default();
        assert_eq!(
            c.base_url("tavily", "https://api.tavily.com"),
            "http://127.0.0.1:1"
        );
        assert_eq!(c.base_url("wikipedia", "x"), "http://127.0.0.1:2/{lang}");
        assert_eq!(
            c.base_url("github", "https://api.github.com"),
            "https://api.github.com"
        );
        assert_eq!(c.api_key("tavily", "").expose(), "k1");
        assert_eq!(c.api_key("tavily", "node").expose(), "node");
        assert_eq!(format!("{:?}", c.api_key("tavily", "")), "\"***\"");
    }

    #[test]
    fn rejects_bad_settings() {
        let none = |_: &str| None;
        for text in [
            "[tools.tavily]\nbase_url = \"ftp://x\"\n",
            "[tools.tavily]\nkey = \"x\"\n",
            "tools = 1\n",
        ] {
            assert!(ToolsConfig::from_toml_str(text, &none).is_err(), "{text}");
        }
    }
}
