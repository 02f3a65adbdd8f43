//! What records the engine's and the server's `tracing` spans: logs through tracing-subscriber
//! (`CANVASC_LOG_FORMAT=json|pretty`, the level from `RUST_LOG`, `warn` when unset) and, when
//! an OTLP endpoint is configured, OpenTelemetry traces exported over OTLP/HTTP (protobuf).
//!
//! Configuration: `OTEL_EXPORTER_OTLP_ENDPOINT` (the collector's base URL; `/v1/traces` is
//! added) or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is), else `[telemetry]
//! otlp_endpoint` of `canvasc.toml`; `OTEL_SERVICE_NAME` or `[telemetry] service_name`
//! (`canvasc`); `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` turn export off.
//! Without an endpoint nothing is exported and the spans cost their call sites one check.
//!
//! The exporter runs on the SDK's batch processor thread with the *blocking* reqwest client:
//! an async client on that thread, which has no tokio runtime, would fail every export. The
//! processor is flushed and shut down when the [`Telemetry`] guard drops, and by [`flush`]
//! before a process exits on the spot (a second Ctrl-C).
//!
//! W3C trace context: the host installs the engine's header injector (`traceparent` on every
//! model, tool, HTTP and MCP request) and the server's extractor (an incoming `traceparent`
//! becomes the request span's parent), so the engine and the server depend on `tracing` only.

use canvasc_engine::config::{ConfigError, EnvFn};
use canvasc_engine::telemetry as engine;
use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::{TraceContextExt, TracerProvider as _};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use std::path::Path;
use std::sync::Mutex;
use tracing::Level;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::filter::{EnvFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;

/// How logs are written (to stderr).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// One line per event (tracing-subscriber's default format).
    #[default]
    Text,
    /// tracing-subscriber's multi-line format.
    Pretty,
    /// One JSON object per line.
    Json,
}

/// The telemetry configuration of a process.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TelemetryConfig {
    /// Where spans go: `Sdk` leaves the URL to the SDK's reading of the `OTEL_*` variables.
    pub export: Option<Export>,
    pub service_name: String,
    pub log_format: LogFormat,
    /// `RUST_LOG`'s directives (default `warn`).
    pub log_filter: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Export {
    /// `OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT` is set: the SDK reads it (and its headers,
    /// timeout and compression variables).
    FromEnvironment,
    /// The traces URL from `canvasc.toml`.
    Url(String),
}

#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FileSection {
    otlp_endpoint: Option<String>,
    service_name: Option<String>,
    log_format: Option<String>,
}

#[derive(serde::Deserialize, Default)]
struct File {
    #[serde(default)]
    telemetry: Option<FileSection>,
}

impl TelemetryConfig {
    /// From `canvasc.toml`'s text (`[telemetry]`) and the environment; the environment wins.
    pub fn from_toml_str(text: &str, env: EnvFn<'_>) -> Result<Self, ConfigError> {
        let file: File = toml::from_str(text).map_err(|e| ConfigError {
            path: None,
            message: format!("[telemetry]: {e}"),
        })?;
        let section = file.telemetry.unwrap_or_default();
        let off = env("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
            || env("OTEL_TRACES_EXPORTER").is_some_and(|v| v.trim() == "none");
        let export = if off {
            None
        } else if env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").is_some()
            || env("OTEL_EXPORTER_OTLP_ENDPOINT").is_some()
        {
            Some(Export::FromEnvironment)
        } else {
            section
                .otlp_endpoint
                .filter(|u| !u.trim().is_empty())
                .map(|u| Export::Url(format!("{}/v1/traces", u.trim().trim_end_matches('/'))))
        };
        let format = env("CANVASC_LOG_FORMAT").or(section.log_format);
        let log_format = match format.as_deref().map(str::trim) {
            None | Some("") | Some("text") => LogFormat::Text,
            Some("pretty") => LogFormat::Pretty,
            Some("json") => LogFormat::Json,
            Some(other) => {
                return Err(ConfigError {
                    path: None,
                    message: format!(
                        "CANVASC_LOG_FORMAT / [telemetry] log_format: {other:?} is not json, pretty or text"
                    ),
                })
            }
        };
        Ok(TelemetryConfig {
            export,
            service_name: env("OTEL_SERVICE_NAME")
                .or(section.service_name)
                .unwrap_or_else(|| "canvasc".into()),
            log_format,
            log_filter: env("RUST_LOG").unwrap_or_else(|| "warn".into()),
        })
    }

    /// The configuration file's (`explicit`, `$CANVASC_CONFIG`, `./canvasc.toml`) and the
    /// process environment's.
    pub fn read(explicit: Option<&Path>) -> Result<Self, ConfigError> {
        let cwd = std::env::current_dir().unwrap_or_default();
        let file = crate::config::read_config_file(explicit, &crate::config::process_env, &cwd)?;
        let (path, text) = match file {
            Some((path, text)) => (Some(path), text),
            None => (None, String::new()),
        };
        Self::from_toml_str(&text, &crate::config::process_env).map_err(|mut e| {
            e.path = path;
            e
        })
    }
}

/// The tracer provider of the process, for [`flush`] from any exit path.
static PROVIDER: Mutex<Option<SdkTracerProvider>> = Mutex::new(None);

/// Flushes and shuts down the exporter when dropped.
#[must_use = "dropping the guard shuts the exporter down"]
pub struct Telemetry {
    exporting: bool,
}

impl Telemetry {
    /// Whether spans are exported.
    pub fn exporting(&self) -> bool {
        self.exporting
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        flush();
    }
}

/// Export what is buffered and shut the exporter down (a no-op without one, or the second
/// time).
pub fn flush() {
    let provider = PROVIDER.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some(provider) = provider {
        let _ = provider.force_flush();
        let _ = provider.shutdown();
    }
}

/// Installs the process's subscriber: the log layer and, when configured, the OTLP exporter.
/// A second call (or a subscriber installed by someone else) leaves the first in place.
pub fn init(config: &TelemetryConfig) -> Result<Telemetry, String> {
    let provider = match &config.export {
        None => None,
        Some(export) => Some(otlp_provider(export, &config.service_name)?),
    };
    let otel = provider.as_ref().map(otel_layer);
    let logs = log_layer(config);
    if tracing_subscriber::registry()
        .with(logs)
        .with(otel)
        .try_init()
        .is_err()
    {
        if let Some(p) = provider {
            let _ = p.shutdown();
        }
        return Ok(Telemetry { exporting: false });
    }
    let exporting = provider.is_some();
    if let Some(p) = provider {
        install_propagation();
        *PROVIDER.lock().unwrap_or_else(|p| p.into_inner()) = Some(p);
    }
    Ok(Telemetry { exporting })
}

/// [`init`] with the configuration [`TelemetryConfig::read`] finds; a configuration error is
/// reported on stderr and leaves telemetry off (a run is not refused for it).
pub fn init_from(explicit: Option<&Path>) -> Telemetry {
    let started = TelemetryConfig::read(explicit)
        .map_err(|e| e.to_string())
        .and_then(|config| init(&config));
    match started {
        Ok(t) => t,
        Err(e) => {
            eprintln!("warning: telemetry is off: {e}");
            Telemetry { exporting: false }
        }
    }
}

/// The log layer: stderr, `RUST_LOG`'s filter, the configured format.
pub fn log_layer<S>(config: &TelemetryConfig) -> Box<dyn Layer<S> + Send + Sync>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a> + Send + Sync,
{
    let filter = EnvFilter::try_new(&config.log_filter).unwrap_or_else(|_| EnvFilter::new("warn"));
    let layer = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    match config.log_format {
        LogFormat::Text => layer.with_filter(filter).boxed(),
        LogFormat::Pretty => layer.pretty().with_filter(filter).boxed(),
        LogFormat::Json => layer.json().with_filter(filter).boxed(),
    }
}

/// The OpenTelemetry layer over `provider`, for canvasc's own spans (target `canvasc`) only,
/// so other crates' spans cost nothing.
pub fn otel_layer<S>(provider: &SdkTracerProvider) -> Box<dyn Layer<S> + Send + Sync>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a> + Send + Sync,
{
    let tracer = provider.tracer("canvasc");
    tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_tracked_inactivity(false)
        .with_filter(Targets::new().with_target(engine::TARGET, Level::INFO))
        .boxed()
}

/// A tracer provider exporting over OTLP/HTTP (protobuf) through the batch processor.
pub fn otlp_provider(export: &Export, service_name: &str) -> Result<SdkTracerProvider, String> {
    use opentelemetry_otlp::{Protocol, WithExportConfig};
    // The exporter builds its own (blocking) reqwest client, which needs the process's TLS
    // provider installed first.
    canvasc_engine::http::install_tls_provider();
    let mut builder = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary);
    if let Export::Url(url) = export {
        builder = builder.with_endpoint(url.clone());
    }
    let exporter = builder
        .build()
        .map_err(|e| format!("the OTLP exporter: {e}"))?;
    Ok(SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource(service_name))
        .build())
}

/// `service.name` and the canvasc version.
pub fn resource(service_name: &str) -> Resource {
    Resource::builder()
        .with_service_name(service_name.to_string())
        .with_attribute(opentelemetry::KeyValue::new(
            "service.version",
            env!("CARGO_PKG_VERSION"),
        ))
        .build()
}

/// Installs the W3C trace-context hooks of the engine (outbound) and the server (inbound).
pub fn install_propagation() {
    engine::set_header_injector(inject);
    canvasc_server::telemetry::set_context_extractor(extract);
}

/// The engine's injector: the current span's context as `traceparent` (and `tracestate`).
fn inject(headers: &mut reqwest::header::HeaderMap) {
    let cx = tracing::Span::current().context();
    if !cx.span().span_context().is_valid() {
        return;
    }
    TraceContextPropagator::new().inject_context(&cx, &mut HeaderWriter(headers));
}

/// The server's extractor: an incoming `traceparent` becomes `span`'s parent.
fn extract(headers: &reqwest::header::HeaderMap, span: &tracing::Span) {
    let parent = TraceContextPropagator::new().extract(&HeaderReader(headers));
    if parent.span().span_context().is_valid() {
        let _ = span.set_parent(parent);
    }
}

struct HeaderWriter<'a>(&'a mut reqwest::header::HeaderMap);

impl Injector for HeaderWriter<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(name), Ok(value)) = (
            reqwest::header::HeaderName::from_bytes(key.as_bytes()),
            reqwest::header::HeaderValue::from_str(&value),
        ) {
            self.0.insert(name, value);
        }
    }
}

struct HeaderReader<'a>(&'a reqwest::header::HeaderMap);

impl Extractor for HeaderReader<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|k| k.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{Export, LogFormat, TelemetryConfig};

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn export_is_off_unless_configured() {
        let c = TelemetryConfig::from_toml_str("", &env(&[])).expect("parses");
        assert_eq!(c.export, None);
        assert_eq!(c.log_filter, "warn");
        assert_eq!(c.service_name, "canvasc");
    }

    #[test]
    fn file_endpoint_gets_the_traces_path_and_environment_wins() {
        let text =
            "[telemetry]\notlp_endpoint = \"http://127.0.0.1:4318/\"\nlog_format = \"json\"\n";
        let c = TelemetryConfig::from_toml_str(text, &env(&[])).expect("parses");
        assert_eq!(
            c.export,
            Some(Export::Url("http://127.0.0.1:4318/v1/traces".into()))
        );
        assert_eq!(c.log_format, LogFormat::Json);
        let c = TelemetryConfig::from_toml_str(
            text,
            &env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")]),
        )
        .expect("parses");
        assert_eq!(c.export, Some(Export::FromEnvironment));
        let c = TelemetryConfig::from_toml_str(text, &env(&[("OTEL_SDK_DISABLED", "true")]))
            .expect("parses");
        assert_eq!(c.export, None);
    }

    #[test]
    fn unknown_keys_and_formats_are_refused() {
        let e = TelemetryConfig::from_toml_str("[telemetry]\nendpoint = \"x\"\n", &env(&[]))
            .expect_err("unknown key");
        assert!(e.message.contains("endpoint"), "{}", e.message);
        let e = TelemetryConfig::from_toml_str("", &env(&[("CANVASC_LOG_FORMAT", "xml")]))
            .expect_err("unknown format");
        assert!(e.message.contains("xml"), "{}", e.message);
    }
}
