//! The server's Prometheus metrics (`GET /metrics`, text exposition). Counted from what the
//! server already sees of a turn — its program, its events (`node_finished` carries each
//! component's elapsed time, `workflow_finished` the run's token usage) and its end — so the
//! engine's scheduler pays nothing for them.
//!
//! Names (prometheus-client adds `_total` to counters and the unit to histograms):
//! `canvasc_runs_total{outcome,mode}`, `canvasc_run_duration_seconds{mode}`,
//! `canvasc_component_duration_seconds{kind}`, `canvasc_model_tokens_total{type}`,
//! `canvasc_runs_in_flight`, `canvasc_cancel_latency_seconds`, `canvasc_store_errors_total`,
//! `canvasc_program_builds_total{outcome}`, `canvasc_program_build_duration_seconds`,
//! `canvasc_kept_stream_bytes`.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::{Registry, Unit};
use serde_json::Value;
use std::sync::{Arc, LazyLock, OnceLock};
use std::time::Instant;

use crate::turn::{CancelHandle, ProgramKind, TurnEnd};

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RunLabel {
    outcome: &'static str,
    mode: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BuildLabel {
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ModeLabel {
    mode: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabel {
    /// `component_type` of `node_finished` (the DSL's kind name).
    kind: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TokenLabel {
    r#type: &'static str,
}

type Timing = Family<ModeLabel, Histogram, fn() -> Histogram>;
type KindTiming = Family<KindLabel, Histogram, fn() -> Histogram>;

/// Seconds, from a millisecond to about nine minutes (doubling).
fn seconds() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 20))
}

/// Storage failures of the whole process: counted where every database error becomes a
/// `StoreError`, which knows no server; each server's registry shows this one counter.
static STORE_ERRORS: LazyLock<Counter> = LazyLock::new(Counter::default);

/// One database operation failed.
pub(crate) fn store_error() {
    STORE_ERRORS.inc();
}

/// The metrics of one server.
pub(crate) struct Metrics {
    registry: Registry,
    runs: Family<RunLabel, Counter>,
    run_seconds: Timing,
    component_seconds: KindTiming,
    tokens: Family<TokenLabel, Counter>,
    in_flight: Gauge,
    cancel_seconds: Histogram,
    builds: Family<BuildLabel, Counter>,
    build_seconds: Histogram,
    kept_stream_bytes: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::default();
        let runs = Family::<RunLabel, Counter>::default();
        let run_seconds = Timing::new_with_constructor(seconds as fn() -> Histogram);
        let component_seconds = KindTiming::new_with_constructor(seconds as fn() -> Histogram);
        let tokens = Family::<TokenLabel, Counter>::default();
        let in_flight = Gauge::default();
        let cancel_seconds = seconds();
        let builds = Family::<BuildLabel, Counter>::default();
        let build_seconds = seconds();
        let kept_stream_bytes = Gauge::default();
        registry.register(
            "canvasc_runs",
            "Turns run, by how they ended and by program (compiled or interpreted)",
            runs.clone(),
        );
        registry.register_with_unit(
            "canvasc_run_duration",
            "Wall time of a turn, from its start to its end",
            Unit::Seconds,
            run_seconds.clone(),
        );
        registry.register_with_unit(
            "canvasc_component_duration",
            "Elapsed time of a component invocation (node_finished), by component kind",
            Unit::Seconds,
            component_seconds.clone(),
        );
        registry.register(
            "canvasc_model_tokens",
            "Model tokens of finished turns (input: prompt, output: completion)",
            tokens.clone(),
        );
        registry.register(
            "canvasc_runs_in_flight",
            "Turns running now",
            in_flight.clone(),
        );
        registry.register_with_unit(
            "canvasc_cancel_latency",
            "Time from a cancel (request or departed client) to the end of the turn",
            Unit::Seconds,
            cancel_seconds.clone(),
        );
        registry.register(
            "canvasc_store_errors",
            "Database operations that failed",
            STORE_ERRORS.clone(),
        );
        registry.register(
            "canvasc_program_builds",
            "Program builds of released versions this replica ran, by outcome (compiled or failed)",
            builds.clone(),
        );
        registry.register_with_unit(
            "canvasc_program_build_duration",
            "Wall time of a program build",
            Unit::Seconds,
            build_seconds.clone(),
        );
        registry.register_with_unit(
            "canvasc_kept_stream",
            "Memory that runs' kept event streams take in this process (without Redis), for clients that reattach",
            Unit::Bytes,
            kept_stream_bytes.clone(),
        );
        Metrics {
            registry,
            runs,
            run_seconds,
            component_seconds,
            tokens,
            in_flight,
            cancel_seconds,
            builds,
            build_seconds,
            kept_stream_bytes,
        }
    }
}

impl Metrics {
    /// The text exposition format (`text/plain; version=0.0.4` compatible, OpenMetrics text);
    /// `kept_stream_bytes`: what runs' kept streams take now.
    pub(crate) fn render(&self, kept_stream_bytes: usize) -> String {
        self.kept_stream_bytes
            .set(i64::try_from(kept_stream_bytes).unwrap_or(i64::MAX));
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }

    /// A program build this replica ran ended.
    pub(crate) fn build_ended(&self, compiled: bool, took: std::time::Duration) {
        let outcome = if compiled { "compiled" } else { "failed" };
        self.builds.get_or_create(&BuildLabel { outcome }).inc();
        self.build_seconds.observe(took.as_secs_f64());
    }

    /// A turn starts: counted in flight until [`TurnWatch`] is dropped; `canceled` is stamped
    /// by the turn's cancel handle ([`stamped`]).
    pub(crate) fn turn_started(
        self: &Arc<Self>,
        program: ProgramKind,
        canceled: CancelStamp,
    ) -> TurnWatch {
        self.in_flight.inc();
        TurnWatch {
            metrics: Arc::clone(self),
            mode: program.as_str(),
            started: Instant::now(),
            canceled,
        }
    }
}

/// When a turn's cancel was asked for (shared with the cancel handle that stamps it).
pub(crate) type CancelStamp = Arc<OnceLock<Instant>>;

/// `cancel`, noting when it is first called in `stamp`.
pub(crate) fn stamped(cancel: CancelHandle, stamp: &CancelStamp) -> CancelHandle {
    let stamp = Arc::clone(stamp);
    Arc::new(move || {
        stamp.get_or_init(Instant::now);
        cancel();
    })
}

/// One running turn's measurements.
pub(crate) struct TurnWatch {
    metrics: Arc<Metrics>,
    mode: &'static str,
    started: Instant,
    canceled: CancelStamp,
}

impl TurnWatch {
    /// One of the turn's events.
    pub(crate) fn event(&self, event: &str, data: &Value) {
        match event {
            "node_finished" => {
                let kind = data.get("component_type").and_then(Value::as_str);
                let secs = data.get("elapsed_time").and_then(Value::as_f64);
                if let (Some(kind), Some(secs)) = (kind, secs) {
                    self.metrics
                        .component_seconds
                        .get_or_create(&KindLabel {
                            kind: kind.to_string(),
                        })
                        .observe(secs.max(0.0));
                }
            }
            "workflow_finished" => {
                let usage = |k: &str| data.pointer(k).and_then(Value::as_u64).unwrap_or(0);
                for (kind, key) in [
                    ("input", "/usage/prompt_tokens"),
                    ("output", "/usage/completion_tokens"),
                ] {
                    self.metrics
                        .tokens
                        .get_or_create(&TokenLabel { r#type: kind })
                        .inc_by(usage(key));
                }
            }
            _ => {}
        }
    }

    /// The turn ended; `cancelled`: a cancel ended it, whatever the engine's outcome (a cut
    /// answer ends with an ordinary `workflow_finished`).
    pub(crate) fn ended(&self, end: &TurnEnd, cancelled: bool) {
        let outcome = match end {
            _ if cancelled => "canceled",
            TurnEnd::Finished => "finished",
            TurnEnd::Paused => "paused",
            TurnEnd::Canceled => "canceled",
            TurnEnd::Failed(_) => "failed",
            TurnEnd::Aborted(_) => "aborted",
        };
        self.metrics
            .runs
            .get_or_create(&RunLabel {
                outcome,
                mode: self.mode,
            })
            .inc();
        self.metrics
            .run_seconds
            .get_or_create(&ModeLabel { mode: self.mode })
            .observe(self.started.elapsed().as_secs_f64());
        if let Some(at) = self.canceled.get() {
            self.metrics
                .cancel_seconds
                .observe(at.elapsed().as_secs_f64());
        }
    }
}

impl Drop for TurnWatch {
    fn drop(&mut self) {
        self.metrics.in_flight.dec();
    }
}
