//! What a session costs the database, per corpus template: a session of three turns through
//! `canvasc serve` (this binary re-run as its child, SQLite, every model a scripted
//! OpenAI-compatible server answering 20 words), then the bytes its row stores beside the
//! canvas it runs, read from the server's database file.
//!
//! `cargo run --release -p canvasc-bench --bin session_bytes [-- TEMPLATE...]` (default: every
//! releasable template of `../shared/corpus/ragflow/templates/`).
//!
//! Reported per template: the canvas's DSL as the agent stores it, the session row's `state`
//! after each turn, and the last over the canvas (issue 41's target: ≤ 0.2). A template whose
//! turn fails is reported with why and the others go on.

use canvasc_bench::serve_child::{account, create_agent, json_answer, serve_if_child, start_child};
use canvasc_engine::llm::script::Script;
use canvasc_tests::scripted_server::ScriptedServer;
use serde_json::{json, Value};
use sqlx::Row;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const TURNS: usize = 3;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if serve_if_child(&args) {
        return Ok(());
    }
    canvasc_engine::http::install_tls_provider();
    let templates = canvasc_bench::templates::releasable(&args)?;
    let words: Vec<String> = (0..20).map(|i| format!("w{i} ")).collect();
    let script = Script::parse(&json!({"responses": [{"chunks": words, "times": -1}]}))?;
    let llm = ScriptedServer::try_start(script).map_err(|e| e.to_string())?;
    let dir = std::env::temp_dir().join(format!("canvasc-session-bytes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let server = start_child(&llm.base_url(), &dir)?;
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let result = runtime.block_on(measure(&server.base, &dir, &templates));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

async fn measure(
    base: &str,
    dir: &std::path::Path,
    templates: &[std::path::PathBuf],
) -> Result<(), String> {
    let client = reqwest::Client::new();
    let key = account(&client, base).await?;
    sqlx::any::install_default_drivers();
    let db = format!("sqlite://{}?mode=ro", dir.join("canvasc.db").display());
    let pool = sqlx::AnyPool::connect(&db)
        .await
        .map_err(|e| e.to_string())?;
    println!("session_bytes: {TURNS} turns per session, the scripted model answering 20 words");
    println!();
    println!("| template | canvas DSL | session row after turn 1 · 2 · 3 | row / canvas | the last row's parts (bytes) |");
    println!("|---|---|---|---|---|");
    let mut ratios = Vec::new();
    for path in templates {
        let (name, dsl) = canvasc_bench::templates::read(path)?;
        let canvas_bytes = dsl.to_string().len();
        let agent = create_agent(&client, base, &key, &name, &dsl.to_string()).await?;
        let mut session: Option<String> = None;
        let mut sizes = Vec::new();
        let mut parts = String::new();
        let mut failed = None;
        for turn in 0..TURNS {
            let mut body =
                json!({"agent_id": agent, "query": format!("question {turn}"), "stream": false});
            if let Some(id) = &session {
                body["session_id"] = json!(id);
            }
            let answer = json_answer(
                client
                    .post(format!("{base}/api/v1/agents/chat/completions"))
                    .header("Authorization", &key)
                    .json(&body),
            )
            .await?;
            if answer["code"] != 0 {
                failed = Some(answer["message"].to_string());
                break;
            }
            let id = session_of(&answer);
            let (bytes, of) = row_bytes(&pool, &id).await?;
            sizes.push(bytes);
            parts = of;
            session = Some(id);
        }
        match (failed, sizes.last()) {
            (Some(why), _) => println!("| {name} | {canvas_bytes} B | failed: {why} | | |"),
            (None, Some(&last)) => {
                let ratio = last as f64 / canvas_bytes as f64;
                ratios.push(ratio);
                let sizes: Vec<String> = sizes.iter().map(|s| format!("{s} B")).collect();
                let sizes = sizes.join(" · ");
                println!("| {name} | {canvas_bytes} B | {sizes} | {ratio:.3} | {parts} |");
            }
            (None, None) => {}
        }
    }
    if let Some(worst) = ratios.iter().cloned().reduce(f64::max) {
        println!();
        println!(
            "largest row / canvas after {TURNS} turns: {worst:.3} ({} templates)",
            ratios.len()
        );
    }
    Ok(())
}

/// A session's stored state: its bytes, and the bytes of each of its keys.
async fn row_bytes(pool: &sqlx::AnyPool, session: &str) -> Result<(usize, String), String> {
    let row = sqlx::query("SELECT state FROM agent_sessions WHERE id = ?")
        .bind(session)
        .fetch_one(pool)
        .await
        .map_err(|e| format!("session {session}: {e}"))?;
    let state: String = row.try_get("state").map_err(|e| e.to_string())?;
    let parts: Value = serde_json::from_str(&state).map_err(|e| e.to_string())?;
    let mut parts: Vec<(usize, String)> = parts
        .as_object()
        .into_iter()
        .flatten()
        .map(|(key, value)| (value.to_string().len(), key.clone()))
        .filter(|(bytes, _)| *bytes > 100)
        .collect();
    parts.sort_by(|a, b| b.cmp(a));
    let parts: Vec<String> = parts
        .iter()
        .map(|(bytes, key)| format!("{key} {bytes}"))
        .collect();
    Ok((state.len(), parts.join(", ")))
}

/// The session a non-streaming answer names (beside its data, or in it).
fn session_of(answer: &Value) -> String {
    answer
        .get("session_id")
        .or_else(|| answer["data"].get("session_id"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}
