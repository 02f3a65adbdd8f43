//! Where each model lives: `canvasc.toml` plus environment variables map a component's `llm_id`
//! (`model` or `model@Factory`, RAGFlow's spelling) to an OpenAI-compatible endpoint. RAGFlow
//! keeps this in its tenant database; canvasc runs without one, so a file says it instead.
//!
//! ```toml
//! [llm]                      # optional; client settings (RAGFlow's env vars are the defaults)
//! default = "gpt-4o@OpenAI"  # the model for an empty llm_id
//! max_retries = 5            # LLM_MAX_RETRIES
//! retry_delay = 2.0          # LLM_BASE_DELAY, seconds; doubled on every retry
//! timeout = 600.0            # LLM_TIMEOUT_SECONDS, one attempt end to end
//! connect_timeout = 10.0     # until a streamed answer's response head arrives
//!
//! [factories.DeepSeek]       # defaults for every `…@DeepSeek` model
//! api_key_env = "DEEPSEEK_API_KEY"      # base_url defaults to RAGFlow's for known factories
//!
//! [[models]]
//! id = "qwen2.5"             # the model part of the llm_id
//! factory = "VLLM"           # optional: only `qwen2.5@VLLM` (no factory: any llm_id `qwen2.5`)
//! base_url = "http://gpu-box:8000/v1"
//! model = "Qwen/Qwen2.5-7B-Instruct"    # the name sent on the wire (default: id)
//! max_tokens = 32768         # context length (default 8192, as RAGFlow's LLMBundle)
//! vision = true              # also image-to-text: a prompt's images are sent with it
//! ```
//!
//! Lookup of `model@Factory`: a `[[models]]` entry with that id and factory (or whose id is the
//! whole llm_id); then an entry with that id and no factory (any entry when the llm_id names
//! no factory); then `[factories.Factory]`; then the environment (`CANVASC_LLM_BASE_URL` /
//! `OPENAI_BASE_URL`, `CANVASC_LLM_API_KEY` / `OPENAI_API_KEY`; base URL
//! `https://api.openai.com/v1` when only a key is set). A field an entry leaves out comes from
//! its factory section, then from the environment; an API key is only taken from the level
//! that supplied the base URL or a more specific one, so a key is never sent to a host it was
//! not configured for.
//!
//! The host (crate `canvasc-host`) finds and reads the file; this module parses its text, and
//! reads the environment only through the lookup it is handed.

use crate::config::{ConfigError, EnvFn};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// RAGFlow's `LLM_MAX_RETRIES` default.
pub const DEFAULT_MAX_RETRIES: u32 = 5;
/// RAGFlow's `LLM_BASE_DELAY` default (seconds).
pub const DEFAULT_RETRY_DELAY: f64 = 2.0;
/// RAGFlow's `LLM_TIMEOUT_SECONDS` default.
pub const DEFAULT_TIMEOUT: f64 = 600.0;
pub const DEFAULT_CONNECT_TIMEOUT: f64 = 10.0;
/// Longest wait between two attempts, however many retries came before.
pub const DEFAULT_MAX_RETRY_DELAY: f64 = 60.0;
/// RAGFlow's `LLMBundle.max_length` when the model declares none.
pub const DEFAULT_MAX_TOKENS: u64 = 8192;
/// The base URL when only an OpenAI key is set in the environment.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// Base URLs RAGFlow uses for OpenAI-compatible factories (`FACTORY_DEFAULT_BASE_URL` in
/// `rag/llm/__init__.py` and `conf/models/*.json`), used when a `[factories.X]` section gives
/// a key but no base URL.
const KNOWN_FACTORIES: &[(&str, &str)] = &[
    ("OpenAI", OPENAI_BASE_URL),
    ("DeepSeek", "https://api.deepseek.com/v1"),
    ("Moonshot", "https://api.moonshot.cn/v1"),
    (
        "Tongyi-Qianwen",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
    ),
    (
        "Dashscope",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
    ),
    ("SILICONFLOW", "https://api.siliconflow.cn/v1"),
    ("OpenRouter", "https://openrouter.ai/api/v1"),
    ("StepFun", "https://api.stepfun.com/v1"),
    ("01.AI", "https://api.lingyiwanwu.com/v1"),
    ("ZHIPU-AI", "https://open.bigmodel.cn/api/paas/v4"),
    ("MiniMax", "https://api.minimaxi.com/v1"),
    (
        "Tencent Hunyuan",
        "https://api.hunyuan.cloud.tencent.com/v1",
    ),
    ("Groq", "https://api.groq.com/openai/v1"),
    ("xAI", "https://api.x.ai/v1"),
];

/// Client behaviour: retries and timeouts.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientOptions {
    /// Retries after a failed attempt when the request does not say.
    pub max_retries: u32,
    /// Delay before the first retry when the request does not say; doubled on each retry.
    pub retry_delay: Duration,
    pub max_retry_delay: Duration,
    /// One attempt, from sending the request to the end of the answer.
    pub timeout: Duration,
    /// Until the response head of a streamed answer arrives (servers send it before
    /// generating). A non-streamed answer's head comes with the answer, so only `timeout`
    /// bounds it.
    pub connect_timeout: Duration,
    /// Ask for usage in streamed answers (`stream_options.include_usage`).
    pub stream_usage: bool,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            max_retries: DEFAULT_MAX_RETRIES,
            retry_delay: Duration::from_secs_f64(DEFAULT_RETRY_DELAY),
            max_retry_delay: Duration::from_secs_f64(DEFAULT_MAX_RETRY_DELAY),
            timeout: Duration::from_secs_f64(DEFAULT_TIMEOUT),
            connect_timeout: Duration::from_secs_f64(DEFAULT_CONNECT_TIMEOUT),
            stream_usage: true,
        }
    }
}

/// Where an API key comes from.
#[derive(Clone, PartialEq)]
enum Key {
    None,
    Value(String),
    /// `api_key_env` names a variable that was not set when the configuration was loaded.
    MissingEnv(String),
}

impl Key {
    fn is_none(&self) -> bool {
        matches!(self, Key::None)
    }
}

#[derive(Clone, PartialEq)]
struct Model {
    id: String,
    factory: Option<String>,
    base_url: Option<String>,
    key: Key,
    model: Option<String>,
    max_tokens: Option<u64>,
    vision: bool,
}

#[derive(Clone, PartialEq)]
struct Factory {
    base_url: Option<String>,
    key: Key,
    max_tokens: Option<u64>,
}

/// The parsed configuration.
#[derive(Clone, Default, PartialEq)]
pub struct LlmConfig {
    models: Vec<Model>,
    factories: BTreeMap<String, Factory>,
    /// The llm_id an empty llm_id stands for.
    pub default_model: Option<String>,
    pub client: ClientOptions,
    /// The environment's endpoint for any model: `(base_url, key)`.
    env_fallback: Option<(String, Key)>,
    /// The file it came from, for messages.
    pub source: Option<PathBuf>,
}

impl fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmConfig")
            .field("models", &self.models.len())
            .field("factories", &self.factories.keys().collect::<Vec<_>>())
            .field("default_model", &self.default_model)
            .field("client", &self.client)
            .field("env_fallback", &self.env_fallback.as_ref().map(|f| &f.0))
            .field("source", &self.source)
            .finish()
    }
}

/// Which level of the configuration supplied an endpoint's base URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A `[[models]]` entry.
    Model,
    /// A `[factories.X]` section (or RAGFlow's default URL for that factory).
    Factory,
    /// `CANVASC_LLM_*` / `OPENAI_*` environment variables.
    Env,
}

/// Everything needed to call one model.
#[derive(Clone, PartialEq)]
pub struct Endpoint {
    /// The llm_id as the component gave it.
    pub llm_id: String,
    /// The model name sent on the wire.
    pub model: String,
    pub factory: Option<String>,
    /// Ends in a version segment (`…/v1`), as RAGFlow's `ensure_v1` makes it.
    pub base_url: String,
    pub api_key: Option<String>,
    /// The model's context length (RAGFlow's `max_tokens` / `LLMBundle.max_length`).
    pub max_tokens: u64,
    /// Also an image-to-text model (RAGFlow's `image2text` type): images go with the prompt.
    pub vision: bool,
    pub source: Source,
}

impl Endpoint {
    /// `POST` target for chat completions.
    pub fn chat_url(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

/// Never prints the key.
impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("llm_id", &self.llm_id)
            .field("model", &self.model)
            .field("factory", &self.factory)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("max_tokens", &self.max_tokens)
            .field("vision", &self.vision)
            .field("source", &self.source)
            .finish()
    }
}

/// An llm_id the configuration cannot serve. The caller adds which component asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LookupError {
    /// Nothing configures this llm_id.
    Unconfigured {
        llm_id: String,
        model: String,
        factory: Option<String>,
        config: Option<PathBuf>,
    },
    /// The component gave no llm_id and `[llm] default` is not set.
    NoDefault,
    /// The endpoint's key comes from an environment variable that is not set.
    MissingKeyEnv { llm_id: String, var: String },
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LookupError::Unconfigured {
                llm_id,
                model,
                factory,
                config,
            } => {
                let file = config
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| "canvasc.toml".into());
                write!(
                    f,
                    "no endpoint is configured for llm_id `{llm_id}`: add to {file} a \
                     [[models]] entry with id = \"{model}\""
                )?;
                if let Some(factory) = factory {
                    write!(
                        f,
                        " and factory = \"{factory}\" (or a [factories.\"{factory}\"] section)"
                    )?;
                }
                write!(
                    f,
                    " giving base_url and api_key or api_key_env, or set CANVASC_LLM_BASE_URL \
                     and CANVASC_LLM_API_KEY (or OPENAI_API_KEY) for every model; the file is \
                     ./canvasc.toml, or the path in CANVASC_CONFIG"
                )
            }
            LookupError::NoDefault => write!(
                f,
                "no llm_id was given (RAGFlow's templates leave it empty for the tenant's \
                 default model) and no default model is configured: run \
                 `printf '[llm]\\ndefault = \"gpt-4o@OpenAI\"\\n' >> canvasc.toml` with any \
                 llm_id your configuration serves (or set `default` in the [llm] section the \
                 file already has)"
            ),
            LookupError::MissingKeyEnv { llm_id, var } => write!(
                f,
                "the API key of llm_id `{llm_id}` comes from the environment variable `{var}` \
                 (api_key_env), which is not set"
            ),
        }
    }
}

impl std::error::Error for LookupError {}

// ---- the file format -------------------------------------------------------------------

#[derive(Deserialize, Default)]
struct RawFile {
    #[serde(default)]
    llm: RawClient,
    #[serde(default)]
    factories: BTreeMap<String, RawFactory>,
    #[serde(default)]
    models: Vec<RawModel>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawClient {
    default: Option<String>,
    max_retries: Option<u32>,
    retry_delay: Option<f64>,
    max_retry_delay: Option<f64>,
    timeout: Option<f64>,
    connect_timeout: Option<f64>,
    stream_usage: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFactory {
    base_url: Option<String>,
    api_key: Option<String>,
    api_key_env: Option<String>,
    max_tokens: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModel {
    id: String,
    factory: Option<String>,
    base_url: Option<String>,
    api_key: Option<String>,
    api_key_env: Option<String>,
    model: Option<String>,
    max_tokens: Option<u64>,
    #[serde(default)]
    vision: bool,
}

impl LlmConfig {
    /// Parse a `canvasc.toml` text. Sections other than `[llm]`, `[factories.*]` and
    /// `[[models]]` are left to other parts of canvasc; inside these, unknown keys are errors.
    pub fn from_toml_str(text: &str, env: EnvFn<'_>) -> Result<LlmConfig, ConfigError> {
        let err = |message: String| ConfigError {
            path: None,
            message,
        };
        let raw: RawFile = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        let key = |what: &str, value: Option<String>, var: Option<String>| match (value, var) {
            (Some(_), Some(_)) => Err(err(format!(
                "{what}: give either api_key or api_key_env, not both"
            ))),
            (Some(v), None) => Ok(Key::Value(v)),
            (None, Some(var)) => Ok(match env(&var) {
                Some(v) => Key::Value(v),
                None => Key::MissingEnv(var),
            }),
            (None, None) => Ok(Key::None),
        };
        let url = |what: &str, u: Option<String>| -> Result<Option<String>, ConfigError> {
            match u {
                None => Ok(None),
                Some(u) if u.starts_with("http://") || u.starts_with("https://") => {
                    Ok(Some(ensure_v1(&u)))
                }
                Some(u) => Err(err(format!(
                    "{what}: base_url `{u}` must start with http:// or https://"
                ))),
            }
        };
        let mut factories = BTreeMap::new();
        for (name, f) in raw.factories {
            let what = format!("[factories.\"{name}\"]");
            factories.insert(
                name.clone(),
                Factory {
                    base_url: url(&what, f.base_url)?,
                    key: key(&what, f.api_key, f.api_key_env)?,
                    max_tokens: f.max_tokens,
                },
            );
        }
        let mut models: Vec<Model> = Vec::new();
        for (i, m) in raw.models.into_iter().enumerate() {
            let what = format!("[[models]] #{} (id = \"{}\")", i + 1, m.id);
            if m.id.trim().is_empty() {
                return Err(err(format!("{what}: `id` must not be empty")));
            }
            if models
                .iter()
                .any(|o| o.id == m.id && o.factory == m.factory)
            {
                return Err(err(format!(
                    "{what}: another entry has the same id and factory"
                )));
            }
            models.push(Model {
                base_url: url(&what, m.base_url)?,
                key: key(&what, m.api_key, m.api_key_env)?,
                id: m.id,
                factory: m.factory,
                model: m.model,
                max_tokens: m.max_tokens,
                vision: m.vision,
            });
        }
        let secs = |what: &str, v: Option<f64>, default: f64| -> Result<Duration, ConfigError> {
            let v = v.unwrap_or(default);
            Duration::try_from_secs_f64(v).map_err(|_| {
                err(format!(
                    "[llm] {what} must be a non-negative number of seconds"
                ))
            })
        };
        let env_secs = |var: &str| env(var).and_then(|v| v.trim().parse::<f64>().ok());
        let client = ClientOptions {
            max_retries: raw
                .llm
                .max_retries
                .or_else(|| env("LLM_MAX_RETRIES").and_then(|v| v.trim().parse().ok()))
                .unwrap_or(DEFAULT_MAX_RETRIES),
            retry_delay: secs(
                "retry_delay",
                raw.llm.retry_delay.or_else(|| env_secs("LLM_BASE_DELAY")),
                DEFAULT_RETRY_DELAY,
            )?,
            max_retry_delay: secs(
                "max_retry_delay",
                raw.llm.max_retry_delay,
                DEFAULT_MAX_RETRY_DELAY,
            )?,
            timeout: secs(
                "timeout",
                raw.llm.timeout.or_else(|| env_secs("LLM_TIMEOUT_SECONDS")),
                DEFAULT_TIMEOUT,
            )?,
            connect_timeout: secs(
                "connect_timeout",
                raw.llm.connect_timeout,
                DEFAULT_CONNECT_TIMEOUT,
            )?,
            stream_usage: raw.llm.stream_usage.unwrap_or(true),
        };
        let env_url = env("CANVASC_LLM_BASE_URL").or_else(|| env("OPENAI_BASE_URL"));
        let env_key = env("CANVASC_LLM_API_KEY").or_else(|| env("OPENAI_API_KEY"));
        let env_fallback = match (env_url, env_key) {
            (None, None) => None,
            (url, key) => Some((
                ensure_v1(url.as_deref().unwrap_or(OPENAI_BASE_URL)),
                key.map(Key::Value).unwrap_or(Key::None),
            )),
        };
        Ok(LlmConfig {
            models,
            factories,
            default_model: raw.llm.default.filter(|d| !d.trim().is_empty()),
            client,
            env_fallback,
            source: None,
        })
    }

    /// What the configuration serves, for a model list (`GET /api/v1/models`): every
    /// `[[models]]` entry, then every `[factories.X]` section (any model of X), then the
    /// environment's endpoint (any model). Never a key or a URL.
    pub fn catalog(&self) -> Vec<CatalogEntry> {
        let mut entries: Vec<CatalogEntry> = self
            .models
            .iter()
            .map(|m| CatalogEntry {
                model: Some(m.id.clone()),
                factory: m.factory.clone(),
                vision: m.vision,
            })
            .collect();
        entries.extend(self.factories.keys().map(|f| CatalogEntry {
            model: None,
            factory: Some(f.clone()),
            vision: false,
        }));
        if self.env_fallback.is_some() {
            entries.push(CatalogEntry {
                model: None,
                factory: None,
                vision: false,
            });
        }
        entries
    }

    /// A configuration that sends every llm_id to one endpoint (tests, benchmarks, a single
    /// local server).
    pub fn single(base_url: &str, api_key: Option<&str>) -> LlmConfig {
        LlmConfig {
            env_fallback: Some((
                ensure_v1(base_url),
                api_key
                    .map(|k| Key::Value(k.to_string()))
                    .unwrap_or(Key::None),
            )),
            ..LlmConfig::default()
        }
    }

    /// The endpoint for a component's llm_id.
    pub fn resolve(&self, llm_id: &str) -> Result<Endpoint, LookupError> {
        let id = match llm_id.trim() {
            "" => self
                .default_model
                .as_deref()
                .ok_or(LookupError::NoDefault)?,
            id => id,
        };
        let (model_name, factory) = split_llm_id(id);
        let unconfigured = || LookupError::Unconfigured {
            llm_id: id.to_string(),
            model: model_name.to_string(),
            factory: factory.map(str::to_string),
            config: self.source.clone(),
        };
        let entry = self
            .models
            .iter()
            .find(|m| {
                (factory.is_some() && m.id == model_name && m.factory.as_deref() == factory)
                    || (m.id == id && m.factory.is_none())
            })
            .or_else(|| {
                self.models
                    .iter()
                    .find(|m| m.id == model_name && (factory.is_none() || m.factory.is_none()))
            });
        // The factory whose defaults apply: the entry's, else the llm_id's.
        let factory_name = entry.and_then(|m| m.factory.as_deref()).or(factory);
        let factory_section = factory_name.and_then(|f| self.factories.get(f));
        let factory_url = factory_section.and_then(|f| {
            f.base_url.clone().or_else(|| {
                KNOWN_FACTORIES
                    .iter()
                    .find(|(n, _)| Some(*n) == factory_name)
                    .map(|(_, u)| u.to_string())
            })
        });
        // Levels from the most specific: (base URL, key) of the entry, the factory, the env.
        let levels: [(Source, Option<String>, Key); 3] = [
            (
                Source::Model,
                entry.and_then(|m| m.base_url.clone()),
                entry.map(|m| m.key.clone()).unwrap_or(Key::None),
            ),
            (
                Source::Factory,
                factory_url,
                factory_section.map(|f| f.key.clone()).unwrap_or(Key::None),
            ),
            (
                Source::Env,
                self.env_fallback.as_ref().map(|f| f.0.clone()),
                self.env_fallback
                    .as_ref()
                    .map(|f| f.1.clone())
                    .unwrap_or(Key::None),
            ),
        ];
        let Some(at) = levels.iter().position(|l| l.1.is_some()) else {
            return Err(unconfigured());
        };
        let (source, base_url) = (levels[at].0, levels[at].1.clone().unwrap_or_default());
        let key = levels[..=at]
            .iter()
            .map(|l| &l.2)
            .find(|k| !k.is_none())
            .cloned()
            .unwrap_or(Key::None);
        let api_key = match key {
            Key::None => None,
            Key::Value(v) => Some(v),
            Key::MissingEnv(var) => {
                return Err(LookupError::MissingKeyEnv {
                    llm_id: id.to_string(),
                    var,
                })
            }
        };
        Ok(Endpoint {
            llm_id: llm_id.to_string(),
            model: entry
                .and_then(|m| m.model.clone())
                .unwrap_or_else(|| model_name.to_string()),
            factory: factory_name.map(str::to_string),
            base_url,
            api_key,
            max_tokens: entry
                .and_then(|m| m.max_tokens)
                .or_else(|| factory_section.and_then(|f| f.max_tokens))
                .unwrap_or(DEFAULT_MAX_TOKENS),
            vision: entry.is_some_and(|m| m.vision),
            source,
        })
    }
}

/// One line of [`LlmConfig::catalog`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogEntry {
    /// The model's id (`None`: any model of the factory, or of any factory).
    pub model: Option<String>,
    /// Its factory (`None`: an entry that serves its id under any factory).
    pub factory: Option<String>,
    /// Also image-to-text.
    pub vision: bool,
}

/// `model@Factory` → (`model`, `Factory`), split at the last `@` as RAGFlow's
/// `split_model_name_and_factory` does.
pub fn split_llm_id(llm_id: &str) -> (&str, Option<&str>) {
    match llm_id.rsplit_once('@') {
        Some((model, factory)) if !model.is_empty() && !factory.is_empty() => {
            (model, Some(factory))
        }
        _ => (llm_id, None),
    }
}

/// RAGFlow's `ensure_v1`: a base URL without a `/v<digits>` path segment gets `/v1` appended.
pub fn ensure_v1(url: &str) -> String {
    let trimmed = url.trim().trim_end_matches('/');
    let path_start = trimmed
        .find("://")
        .map(|i| i + 3)
        .and_then(|i| trimmed[i..].find('/').map(|j| i + j));
    let path = path_start.map(|i| &trimmed[i..]).unwrap_or("");
    let versioned = path.split('/').any(|seg| {
        seg.len() > 1 && seg.starts_with('v') && seg[1..].bytes().all(|b| b.is_ascii_digit())
    });
    if versioned {
        trimmed.to_string()
    } else {
        format!("{trimmed}/v1")
    }
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
    fn the_catalog_lists_entries_then_factories_then_the_environment() {
        let text = r#"
            [factories.DeepSeek]
            api_key = "k"
            [[models]]
            id = "qwen"
            factory = "VLLM"
            base_url = "http://gpu:8000/v1"
            vision = true
            [[models]]
            id = "llama"
            base_url = "http://gpu:8001/v1"
        "#;
        let config =
            LlmConfig::from_toml_str(text, &env_of(&[("OPENAI_API_KEY", "sk")])).expect("parses");
        let entry = |model: Option<&str>, factory: Option<&str>, vision| CatalogEntry {
            model: model.map(String::from),
            factory: factory.map(String::from),
            vision,
        };
        assert_eq!(
            config.catalog(),
            vec![
                entry(Some("qwen"), Some("VLLM"), true),
                entry(Some("llama"), None, false),
                entry(None, Some("DeepSeek"), false),
                entry(None, None, false),
            ]
        );
        let bare = LlmConfig::from_toml_str("", &env_of(&[])).expect("parses");
        assert!(bare.catalog().is_empty());
    }

    const FILE: &str = r#"
        [llm]
        default = "gpt-4o@OpenAI"
        max_retries = 2
        retry_delay = 0.5

        [factories.OpenAI]
        api_key_env = "MY_OPENAI_KEY"

        [factories.Local]
        base_url = "http://localhost:8000"
        max_tokens = 4096

        [[models]]
        id = "qwen"
        factory = "VLLM"
        base_url = "http://gpu:8000/v1"
        model = "Qwen/Qwen2.5-7B-Instruct"
        max_tokens = 32768

        [[models]]
        id = "qwen"
        base_url = "http://other:9000/v1"
        api_key = "k-other"

        [[models]]
        id = "llama"
        factory = "Local"

        [tools.tavily]
        api_key = "ignored here"
    "#;

    #[test]
    fn parses_models_factories_and_client_options() {
        let c =
            LlmConfig::from_toml_str(FILE, &env_of(&[("MY_OPENAI_KEY", "sk-1")])).expect("valid");
        assert_eq!(c.default_model.as_deref(), Some("gpt-4o@OpenAI"));
        assert_eq!(c.client.max_retries, 2);
        assert_eq!(c.client.retry_delay, Duration::from_millis(500));
        assert_eq!(c.client.timeout, Duration::from_secs(600));
        assert_eq!(c.models.len(), 3);
        let e = c.resolve("qwen@VLLM").expect("configured");
        assert_eq!(e.model, "Qwen/Qwen2.5-7B-Instruct");
        assert_eq!(e.base_url, "http://gpu:8000/v1");
        assert_eq!(e.chat_url(), "http://gpu:8000/v1/chat/completions");
        assert_eq!((e.max_tokens, e.api_key.as_deref()), (32768, None));
        assert_eq!(e.source, Source::Model);
    }

    #[test]
    fn lookup_precedence() {
        let c = LlmConfig::from_toml_str(
            FILE,
            &env_of(&[
                ("MY_OPENAI_KEY", "sk-1"),
                ("OPENAI_API_KEY", "sk-env"),
                ("CANVASC_LLM_BASE_URL", "http://fallback:1234"),
            ]),
        )
        .expect("valid");
        // exact model@Factory beats the factory-less entry of the same id
        assert_eq!(
            c.resolve("qwen@VLLM").expect("ok").base_url,
            "http://gpu:8000/v1"
        );
        // model name: the factory-less entry, for a bare id and for an unknown factory
        let e = c.resolve("qwen").expect("ok");
        assert_eq!(
            (e.base_url.as_str(), e.api_key.as_deref()),
            ("http://other:9000/v1", Some("k-other"))
        );
        assert_eq!(
            c.resolve("qwen@Elsewhere").expect("ok").base_url,
            "http://other:9000/v1"
        );
        // an entry without a base URL takes its factory's; RAGFlow's max_tokens default
        let e = c.resolve("llama@Local").expect("ok");
        assert_eq!(
            (e.base_url.as_str(), e.max_tokens, e.source),
            ("http://localhost:8000/v1", 4096, Source::Factory)
        );
        // factory default: RAGFlow's known URL, the factory's key from its env variable
        let e = c.resolve("gpt-4o-mini@OpenAI").expect("ok");
        assert_eq!(e.base_url, OPENAI_BASE_URL);
        assert_eq!(
            (e.model.as_str(), e.api_key.as_deref()),
            ("gpt-4o-mini", Some("sk-1"))
        );
        // the default model for an empty llm_id
        assert_eq!(c.resolve("").expect("ok").model, "gpt-4o");
        // env fallback for anything else, with the env key
        let e = c.resolve("mistral@Ollama").expect("ok");
        assert_eq!(
            (e.base_url.as_str(), e.api_key.as_deref(), e.source),
            ("http://fallback:1234/v1", Some("sk-env"), Source::Env)
        );
        assert_eq!(e.model, "mistral");
    }

    #[test]
    fn keys_are_not_sent_to_hosts_they_were_not_configured_for() {
        let c = LlmConfig::from_toml_str(
            "[[models]]\nid = \"m\"\nbase_url = \"http://local:1/v1\"\n",
            &env_of(&[("OPENAI_API_KEY", "sk-env")]),
        )
        .expect("valid");
        assert_eq!(c.resolve("m").expect("ok").api_key, None);
    }

    #[test]
    fn unconfigured_and_missing_key_errors_say_what_to_do() {
        let c = LlmConfig::from_toml_str(FILE, &env_of(&[])).expect("valid");
        let e = c
            .resolve("deepseek-chat@DeepSeek")
            .expect_err("unconfigured");
        let text = e.to_string();
        assert!(text.contains("`deepseek-chat@DeepSeek`"), "{text}");
        assert!(text.contains("id = \"deepseek-chat\""), "{text}");
        assert!(text.contains("[factories.\"DeepSeek\"]"), "{text}");
        assert!(text.contains("CANVASC_LLM_BASE_URL"), "{text}");
        let e = c.resolve("gpt-4o@OpenAI").expect_err("key env unset");
        assert_eq!(
            e,
            LookupError::MissingKeyEnv {
                llm_id: "gpt-4o@OpenAI".into(),
                var: "MY_OPENAI_KEY".into()
            }
        );
        let empty = LlmConfig::from_toml_str("", &env_of(&[])).expect("valid");
        assert_eq!(empty.resolve(""), Err(LookupError::NoDefault));
        assert!(empty.resolve("gpt-4o").is_err());
        // only a key in the environment: OpenAI's URL
        let env_only =
            LlmConfig::from_toml_str("", &env_of(&[("OPENAI_API_KEY", "sk")])).expect("valid");
        assert_eq!(
            env_only.resolve("gpt-4o").expect("ok").base_url,
            OPENAI_BASE_URL
        );
    }

    #[test]
    fn bad_toml_is_an_error_with_its_location() {
        let env = env_of(&[]);
        let e = LlmConfig::from_toml_str("[[models]]\nid = \"x\"\nbase_url = 3\n", &env)
            .expect_err("type");
        assert!(e.message.contains("base_url"), "{e}");
        let e = LlmConfig::from_toml_str("[[models]\nid = 1", &env).expect_err("syntax");
        assert!(e.message.contains("line 1"), "{e}");
        let e = LlmConfig::from_toml_str("[[models]]\nid = \"x\"\nbase_ur = \"http://a\"\n", &env)
            .expect_err("unknown key");
        assert!(e.message.contains("base_ur"), "{e}");
        let e = LlmConfig::from_toml_str("[[models]]\nid = \"x\"\nbase_url = \"gpu:8000\"\n", &env)
            .expect_err("scheme");
        assert!(e.message.contains("http://"), "{e}");
        let e = LlmConfig::from_toml_str(
            "[[models]]\nid = \"x\"\napi_key = \"a\"\napi_key_env = \"B\"\n",
            &env,
        )
        .expect_err("both keys");
        assert!(e.message.contains("not both"), "{e}");
        let e =
            LlmConfig::from_toml_str("[llm]\nretry_delay = -1.0\n", &env).expect_err("negative");
        assert!(e.message.contains("retry_delay"), "{e}");
        let e = LlmConfig::from_toml_str("[[models]]\nid = \"x\"\n[[models]]\nid = \"x\"\n", &env)
            .expect_err("duplicate");
        assert!(e.message.contains("same id"), "{e}");
    }

    #[test]
    fn ensure_v1_and_split() {
        assert_eq!(
            ensure_v1("https://api.example.com"),
            "https://api.example.com/v1"
        );
        assert_eq!(
            ensure_v1("https://api.example.com/v1/"),
            "https://api.example.com/v1"
        );
        assert_eq!(ensure_v1("https://x.io/api/v3"), "https://x.io/api/v3");
        assert_eq!(
            ensure_v1("http://127.0.0.1:8080"),
            "http://127.0.0.1:8080/v1"
        );
        assert_eq!(split_llm_id("gpt-4o@OpenAI"), ("gpt-4o", Some("OpenAI")));
        assert_eq!(split_llm_id("a@b@Factory"), ("a@b", Some("Factory")));
        assert_eq!(split_llm_id("gpt-4o"), ("gpt-4o", None));
    }
}
