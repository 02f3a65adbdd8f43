//! Where the configuration comes from: `canvasc.toml` (found as `--config`, `$CANVASC_CONFIG` or
//! `./canvasc.toml`) and the process environment. The engine parses the text
//! ([`LlmConfig::from_toml_str`], [`McpServers::from_toml_str`]) and never reads either itself.

use canvasc_engine::config::{ConfigError, EnvFn};
use canvasc_engine::llm::config::LlmConfig;
use canvasc_engine::llm::prompts::Prompts;
use canvasc_engine::mcp::McpServers;
use canvasc_engine::ssrf::AllowList;
use canvasc_engine::Settings;
use std::path::{Path, PathBuf};

/// The configuration file's path and text: `explicit`, else `$CANVASC_CONFIG`, else
/// `./canvasc.toml` when present; `None` when there is no file (environment variables alone).
pub fn read_config_file(
    explicit: Option<&Path>,
    env: EnvFn<'_>,
    cwd: &Path,
) -> Result<Option<(PathBuf, String)>, ConfigError> {
    let path = match explicit {
        Some(p) => Some(p.to_path_buf()),
        None => match env("CANVASC_CONFIG") {
            Some(p) => Some(PathBuf::from(p)),
            None => Some(cwd.join("canvasc.toml")).filter(|p| p.is_file()),
        },
    };
    let Some(path) = path else {
        return Ok(None);
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some((path, text))),
        Err(e) => Err(ConfigError {
            path: Some(path),
            message: format!("cannot read the configuration: {e}"),
        }),
    }
}

/// The process environment, with empty values treated as unset.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The models: from `explicit`, else `$CANVASC_CONFIG`, else `./canvasc.toml` when present,
/// else environment variables alone.
pub fn llm_config(explicit: Option<&Path>) -> Result<LlmConfig, ConfigError> {
    let cwd = std::env::current_dir().unwrap_or_default();
    llm_config_with(explicit, &process_env, &cwd)
}

/// [`llm_config`] with an explicit environment and working directory.
pub fn llm_config_with(
    explicit: Option<&Path>,
    env: EnvFn<'_>,
    cwd: &Path,
) -> Result<LlmConfig, ConfigError> {
    match read_config_file(explicit, env, cwd)? {
        None => LlmConfig::from_toml_str("", env),
        Some((path, text)) => {
            let mut config = LlmConfig::from_toml_str(&text, env).map_err(|e| e.at(&path))?;
            config.source = Some(path);
            Ok(config)
        }
    }
}

/// The MCP servers of the configuration file [`llm_config`] reads (none without a file).
pub fn mcp_registry(explicit: Option<&Path>) -> Result<McpServers, ConfigError> {
    let cwd = std::env::current_dir().unwrap_or_default();
    match read_config_file(explicit, &process_env, &cwd)? {
        None => Ok(McpServers::default()),
        Some((path, text)) => {
            McpServers::from_toml_str(&text, &process_env).map_err(|e| e.at(&path))
        }
    }
}

/// What `parse` makes of the configuration file [`llm_config`] reads (`""` without a file),
/// with the file's path on its error: the `[tools.*]` endpoints and keys.
pub fn external_config<T>(
    explicit: Option<&Path>,
    parse: impl Fn(&str) -> Result<T, ConfigError>,
) -> Result<T, ConfigError> {
    let cwd = std::env::current_dir().unwrap_or_default();
    match read_config_file(explicit, &process_env, &cwd)? {
        None => parse(""),
        Some((path, text)) => parse(&text).map_err(|e| e.at(&path)),
    }
}

/// The SSRF guard's allow-list: `allow = [...]` of the file's `[outbound]` table (`text`),
/// then the comma-separated `CANVASC_OUTBOUND_ALLOW` of `env`. Entries are host names,
/// addresses or networks that canvases may reach although they are not public.
pub fn outbound_allow(text: &str, env: EnvFn<'_>) -> Result<AllowList, ConfigError> {
    let err = |message: String| ConfigError {
        path: None,
        message,
    };
    let table: toml::Table = toml::from_str(text).map_err(|e| err(e.to_string()))?;
    let mut entries: Vec<String> = Vec::new();
    if let Some(outbound) = table.get("outbound") {
        let allow = outbound
            .get("allow")
            .map(|a| a.as_array().cloned().unwrap_or_default())
            .unwrap_or_default();
        for entry in allow {
            match entry.as_str() {
                Some(e) => entries.push(e.to_string()),
                None => return Err(err("[outbound] allow must be a list of strings".into())),
            }
        }
    }
    if let Some(extra) = env("CANVASC_OUTBOUND_ALLOW") {
        entries.extend(
            extra
                .split(',')
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .map(str::to_string),
        );
    }
    AllowList::parse(&entries).map_err(|e| err(format!("[outbound] allow: {e}")))
}

/// RAGFlow's process-wide settings, read as RAGFlow reads them: `ENABLE_TIMEOUT_ASSERTION` set
/// to anything, `COMPONENT_EXEC_TIMEOUT` a whole number of seconds, `ALLOW_ANY_HOST` truthy.
/// `var` is the raw environment (an empty value counts as set where RAGFlow counts it).
pub fn settings(var: EnvFn<'_>) -> Settings {
    let truthy = |v: &str| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on");
    Settings {
        enforce_timeouts: var("ENABLE_TIMEOUT_ASSERTION").is_some_and(|v| !v.is_empty()),
        component_exec_timeout: var("COMPONENT_EXEC_TIMEOUT").and_then(|v| v.trim().parse().ok()),
        allow_any_host: var("ALLOW_ANY_HOST").is_some_and(|v| truthy(&v)),
        step_limit: None,
    }
}

/// The raw process environment (see [`settings`]).
pub fn raw_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The prompt texts: RAGFlow's own (`{name}.md`) from the directory `CANVASC_RAGFLOW_PROMPTS`
/// names, canvasc's for any text it does not hold.
pub fn prompts(var: EnvFn<'_>) -> Prompts {
    let dir = var("CANVASC_RAGFLOW_PROMPTS").map(PathBuf::from);
    Prompts::with(|name| {
        let dir = dir.as_ref()?;
        std::fs::read_to_string(dir.join(format!("{name}.md"))).ok()
    })
}

/// The data directory when no command line names one: `$CANVASC_DATA_DIR`, else
/// `canvasc-data` (the default of `canvasc serve --data-dir`).
pub fn data_dir() -> std::path::PathBuf {
    process_env("CANVASC_DATA_DIR")
        .filter(|d| !d.trim().is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("canvasc-data"))
}

/// Where the local knowledge base's datasets live inside a data directory.
pub fn datasets_dir(data_dir: &Path) -> std::path::PathBuf {
    data_dir.join("datasets")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn load_finds_the_file_and_names_it_in_errors() {
        let dir = std::env::temp_dir().join(format!("canvasc-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let env = env_of(&[]);
        // no file anywhere: environment only
        let c = llm_config_with(None, &env, &dir).expect("no file is fine");
        assert_eq!(c.source, None);
        std::fs::write(dir.join("canvasc.toml"), "[llm]\nmax_retries = 1\n").expect("write");
        let c = llm_config_with(None, &env, &dir).expect("found in cwd");
        assert_eq!(
            (c.client.max_retries, c.source.clone()),
            (1, Some(dir.join("canvasc.toml")))
        );
        let bad = dir.join("bad.toml");
        std::fs::write(&bad, "[llm\n").expect("write");
        let e = llm_config_with(Some(&bad), &env, &dir).expect_err("bad");
        assert!(e.to_string().starts_with(&bad.display().to_string()), "{e}");
        let missing = dir.join("missing.toml");
        assert!(llm_config_with(Some(&missing), &env, &dir).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn settings_read_the_environment_as_ragflow_does() {
        let s = settings(&env_of(&[
            ("ENABLE_TIMEOUT_ASSERTION", " "),
            ("COMPONENT_EXEC_TIMEOUT", " 7 "),
            ("ALLOW_ANY_HOST", "Yes"),
        ]));
        assert_eq!(
            (
                s.enforce_timeouts,
                s.component_exec_timeout,
                s.allow_any_host
            ),
            (true, Some(7), true)
        );
        let s = settings(&env_of(&[
            ("ENABLE_TIMEOUT_ASSERTION", ""),
            ("COMPONENT_EXEC_TIMEOUT", "soon"),
            ("ALLOW_ANY_HOST", "0"),
        ]));
        assert_eq!(
            (
                s.enforce_timeouts,
                s.component_exec_timeout,
                s.allow_any_host
            ),
            (false, None, false)
        );
    }

    #[test]
    fn prompts_come_from_the_named_directory_text_by_text() {
        let dir = std::env::temp_dir().join(format!("canvasc-prompts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(
            dir.join("structured_output_prompt.md"),
            "Schema: {{ schema }}\n",
        )
        .expect("write");
        let path = dir.display().to_string();
        let p = prompts(&move |k| (k == "CANVASC_RAGFLOW_PROMPTS").then(|| path.clone()));
        assert_eq!(p.structured_output_prompt("{}"), "Schema: {}");
        assert_eq!(
            p.citation_prompt(None),
            Prompts::default().citation_prompt(None)
        );
        assert_eq!(prompts(&env_of(&[])), Prompts::default());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
