//! MCP servers an Agent's `mcp` parameter names (base-semantics §15.9). RAGFlow keeps the server
//! records (url, transport, headers, variables) in its database; canvasc reads them from the
//! `[mcp_servers.<id>]` sections of `canvasc.toml`:
//!
//! ```toml
//! [mcp_servers.weather]                    # the id canvases use as `mcp_id`
//! url = "https://mcp.example.com/mcp"
//! server_type = "streamable-http"          # or "sse" (default "streamable-http")
//! headers = { Authorization = "Bearer $token" }   # `$var` / `${var}` from variables
//! variables = { region = "eu" }
//! variables_env = { token = "WEATHER_MCP_TOKEN" } # variables read from the environment
//! ```

mod session;
mod sse;
mod template;

pub use session::McpSession;

use crate::config::{ConfigError, EnvFn};
use canvasc_value::py;
use serde::Deserialize;
use std::collections::BTreeMap;

/// One MCP server record (RAGFlow's `MCPServer` row).
#[derive(Clone, Debug, PartialEq)]
pub struct McpServer {
    pub id: String,
    pub url: String,
    /// `sse` or `streamable-http`; anything else fails every call, as in RAGFlow.
    pub server_type: String,
    pub headers: Vec<(String, String)>,
    pub variables: BTreeMap<String, String>,
}

/// The configured MCP servers, by id.
#[derive(Clone, Debug, Default)]
pub struct McpServers {
    servers: BTreeMap<String, McpServer>,
}

#[derive(Deserialize, Default)]
struct RawFile {
    #[serde(default)]
    mcp_servers: BTreeMap<String, RawServer>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    url: String,
    #[serde(default = "default_server_type")]
    server_type: String,
    #[serde(default)]
    headers: indexmap::IndexMap<String, String>,
    #[serde(default)]
    variables: BTreeMap<String, toml::Value>,
    #[serde(default)]
    variables_env: BTreeMap<String, String>,
}

fn default_server_type() -> String {
    "streamable-http".into()
}

impl McpServers {
    /// The `[mcp_servers.*]` sections of a `canvasc.toml` text (other sections are ignored).
    pub fn from_toml_str(text: &str, env: EnvFn<'_>) -> Result<McpServers, ConfigError> {
        let err = |message: String| ConfigError {
            path: None,
            message,
        };
        let raw: RawFile = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        let mut servers = BTreeMap::new();
        for (id, s) in raw.mcp_servers {
            let what = format!("[mcp_servers.\"{id}\"]");
            let url = s.url.trim();
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(err(format!(
                    "{what}: url `{url}` must start with http:// or https://"
                )));
            }
            let mut variables: BTreeMap<String, String> = s
                .variables
                .into_iter()
                .map(|(k, v)| {
                    let text = match v {
                        toml::Value::String(s) => s,
                        other => other.to_string(),
                    };
                    (k, text)
                })
                .collect();
            for (name, var) in s.variables_env {
                let value = env(&var).ok_or_else(|| {
                    err(format!(
                        "{what}: variable `{name}` comes from the environment variable {var}, which is not set"
                    ))
                })?;
                variables.insert(name, value);
            }
            servers.insert(
                id.clone(),
                McpServer {
                    id,
                    url: url.to_string(),
                    server_type: s.server_type,
                    headers: s.headers.into_iter().collect(),
                    variables,
                },
            );
        }
        Ok(McpServers { servers })
    }

    /// A registry of the given records (tests, embedding).
    pub fn new(servers: impl IntoIterator<Item = McpServer>) -> McpServers {
        McpServers {
            servers: servers.into_iter().map(|s| (s.id.clone(), s)).collect(),
        }
    }

    pub fn get(&self, id: &str) -> Option<&McpServer> {
        self.servers.get(id)
    }
}

impl McpServer {
    /// The headers RAGFlow sends: the server's, templated with its variables, dropping a header
    /// whose name is blank or whose value is blank or only `Bearer` characters; then the run's
    /// `custom_header`, templated with itself, on top.
    pub fn request_headers(&self, custom_header: &[(String, String)]) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        let mut put = |name: String, value: String| match out.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => out.push((name, value)),
        };
        for (h, v) in &self.headers {
            let name = template::safe_substitute(h, &self.variables);
            let value = template::safe_substitute(v, &self.variables);
            if !py::strip(&name).is_empty()
                && !py::strip_ends(py::strip(&value), Some("Bearer"), true, true).is_empty()
            {
                put(name, value);
            }
        }
        let own: BTreeMap<String, String> = custom_header.iter().cloned().collect();
        for (h, v) in custom_header {
            put(
                template::safe_substitute(h, &own),
                template::safe_substitute(v, &own),
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn servers_come_from_their_sections() {
        let text = r#"
            [llm]
            default = "m"
            [mcp_servers.weather]
            url = "http://127.0.0.1:9/mcp"
            headers = { Authorization = "Bearer $token" }
            variables = { token = "abc", n = 3 }
        "#;
        let r = McpServers::from_toml_str(text, &no_env).expect("parses");
        let s = r.get("weather").expect("configured");
        assert_eq!(s.server_type, "streamable-http");
        assert_eq!(s.variables["n"], "3");
        assert_eq!(
            s.request_headers(&[]),
            vec![("Authorization".to_string(), "Bearer abc".to_string())]
        );
        let bad = "[mcp_servers.x]\nurl = \"ftp://h\"\n";
        let e = McpServers::from_toml_str(bad, &no_env).expect_err("bad url");
        assert!(e.message.contains("[mcp_servers.\"x\"]"), "{}", e.message);
        let missing = "[mcp_servers.x]\nurl = \"http://h\"\nvariables_env = { t = \"NOPE\" }\n";
        let e = McpServers::from_toml_str(missing, &no_env).expect_err("unset env");
        assert!(e.message.contains("NOPE"), "{}", e.message);
    }

    #[test]
    fn headers_follow_ragflows_filters() {
        let s = McpServer {
            id: "s".into(),
            url: "http://h".into(),
            server_type: "sse".into(),
            headers: vec![
                ("Authorization".into(), "Bearer $missing".into()),
                ("X-Empty".into(), "Bearer ".into()),
                ("X-Area".into(), "area".into()),
                (" ".into(), "v".into()),
                ("X-Kept".into(), "$$5 for ${who}".into()),
            ],
            variables: [("who".to_string(), "you".to_string())].into(),
        };
        let custom = vec![
            ("X-User".to_string(), "$name".to_string()),
            ("name".to_string(), "ann".to_string()),
            ("X-Kept".to_string(), "over".to_string()),
        ];
        assert_eq!(
            s.request_headers(&custom),
            vec![
                ("Authorization".to_string(), "Bearer $missing".to_string()),
                ("X-Kept".to_string(), "over".to_string()),
                ("X-User".to_string(), "ann".to_string()),
                ("name".to_string(), "ann".to_string()),
            ]
        );
    }
}
