//! The engine the test server runs turns with: the host's `Programs`, every LLM call answered
//! by the scripted model (in process), and one compiled program, the `llm-think-stream`
//! fixture compiled into this test by `canvas!`, so released versions of it run compiled.

use std::sync::{Arc, OnceLock};

use canvasc_engine::llm::script::Script;
use canvasc_engine::ProgramVisitor;
use canvasc_frontend::fingerprint::fingerprint;
use canvasc_frontend::load_str;
use canvasc_host::program_choice::Compiled;
use canvasc_host::serve::{Programs, TurnStart};
use canvasc_server::turn::RunningTurn;
use serde_json::{json, Value};

/// The canvas compiled into the test (Begin → LLM → Message).
pub const CHAT_SOURCE: &str = include_str!("../../../fixtures/valid/llm-think-stream.json");

/// The compiled canvas's DSL.
pub fn chat_dsl() -> Value {
    serde_json::from_str(CHAT_SOURCE).expect("the fixture is JSON")
}

/// How many chunks a `slow` answer streams, and the pause before each.
pub const SLOW_CHUNKS: usize = 40;
pub const SLOW_DELAY_MS: u64 = 100;

fn chat_fingerprint() -> &'static str {
    static FP: OnceLock<String> = OnceLock::new();
    FP.get_or_init(|| fingerprint(&load_str(CHAT_SOURCE).expect("a canvas").document))
}

fn compiled() -> &'static [Compiled] {
    static LIST: OnceLock<Vec<Compiled>> = OnceLock::new();
    LIST.get_or_init(|| {
        vec![(
            "fixtures/valid/llm-think-stream.json",
            chat_fingerprint(),
            0,
        )]
    })
}

/// The registry a built binary generates, for the one canvas.
fn find(fp: &str, start: TurnStart) -> Option<RunningTurn> {
    (fp == chat_fingerprint()).then(|| {
        let program = canvasc_macros::canvas!("../fixtures/valid/llm-think-stream.json");
        start.visit(Arc::new(program))
    })
}

/// How long a `ponder` answer takes (one pause, then the whole answer).
pub const PONDER_MS: u64 = 3000;

/// The model's script: `slow` streams for seconds, `ponder` thinks for seconds before its
/// answer, `explode` fails, `midway` breaks after its first delta (the script of
/// `oracle/midstream.script.json`), anything else is echoed in words. With `usage`, every
/// answer reports its tokens (the words of the question and of the answer).
fn script(usage: bool) -> Script {
    let chunks: Vec<String> = (0..SLOW_CHUNKS).map(|i| format!("w{i} ")).collect();
    Script::parse(&json!({
        "chunking": "words",
        "usage": usage,
        "responses": [
            {"match": "slow", "chunks": chunks, "delay_ms": SLOW_DELAY_MS, "times": -1},
            {"match": "ponder", "content": "Pondered.", "delay_ms": PONDER_MS, "times": -1},
            {"match": "explode", "error": "the scripted model is down", "times": -1},
            {"match": "midway", "content": "The capital is Paris, of course.",
             "error": "broken-stream", "times": -1},
        ],
    }))
    .expect("the script parses")
}

pub fn engine() -> Arc<Programs> {
    engine_with(script(false))
}

/// The engine whose model reports token usage (quotas count it).
pub fn engine_reporting_usage() -> Arc<Programs> {
    engine_with(script(true))
}

/// The engine whose outbound guard lets requests reach 127.0.0.1 (an operator's
/// `CANVASC_OUTBOUND_ALLOW`): for a webhook receiver the test listens with.
pub fn engine_reaching_loopback() -> Arc<Programs> {
    let mut services = canvasc_host::services::assemble(Some(script(false)), None)
        .expect("the scripted services assemble");
    services.outbound_allow =
        canvasc_engine::ssrf::AllowList::parse(&["127.0.0.1/32"]).expect("an allow-list");
    Arc::new(Programs::new(services, compiled(), Some(find)))
}

fn engine_with(script: Script) -> Arc<Programs> {
    let services = canvasc_host::services::assemble(Some(script), None)
        .expect("the scripted services assemble");
    // The editor's database test reaches the machine's MariaDB and PostgreSQL on loopback.
    Arc::new(
        Programs::new(services, compiled(), Some(find))
            .with_db_allowed_hosts(vec!["127.0.0.1".into()]),
    )
}
