//! Publishing compiles, timed as a user meets it: `canvasc serve` (the release binary beside
//! this one) with the scripted model; each corpus template is created released, run at once
//! (interpreted), and run again once its program is built (compiled, in its bundle's worker).
//!
//! `cargo build --release -p canvasc && cargo run --release -p canvasc-bench --bin publish
//! [-- TEMPLATE...]` (default: every template of `../shared/corpus/ragflow/templates/` that
//! may be released, i.e. has no checker error). Builds go to
//! `PUBLISH_BUILD_TARGET` (default: a fresh directory, so the first build is cold and the
//! others warm; an existing one makes every build warm).
//!
//! Reported per template: its components; publish (the `POST /agents` with `release`); the
//! first run's wall time and program; publish → compiled (the version's build says
//! `compiled`) and → the first compiled run; the generated Rust's lines, and build seconds
//! per component. Then, for the templates whose first run took under 200 ms (the others wait
//! on the network), `PUBLISH_TURNS` (100) turns one after another of the released version
//! (compiled, in its bundle's worker) and of a draft of the same DSL (interpreted): the CPU of
//! the server's whole process tree (workers included) per turn, and the wall time per turn.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use canvasc_bench::proc_tree::cpu_seconds;
use canvasc_bench::serve_child::{account, json_answer};
use serde_json::{json, Value};

struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(data: &Path, script: &Path, target: &Path) -> Result<Server, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let canvasc = exe.with_file_name("canvasc");
    let mut child = Command::new(&canvasc)
        .args(["serve", "--addr", "127.0.0.1:0", "--registration", "open"])
        .arg("--data-dir")
        .arg(data)
        .arg("--llm-script")
        .arg(script)
        .arg("--build-target-dir")
        .arg(target)
        .env_remove("DATABASE_URL")
        .env_remove("REDIS_URL")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| {
            format!(
                "cannot start {}: {e} (build it: cargo build --release -p canvasc)",
                canvasc.display()
            )
        })?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    for line in lines.by_ref() {
        let line = line.map_err(|e| e.to_string())?;
        if let Some(base) = line.strip_prefix("canvasc serve: listening on ") {
            let base = base.trim().to_string();
            std::thread::spawn(move || for _ in lines {});
            return Ok(Server { child, base });
        }
    }
    Err("canvasc serve ended before listening".into())
}

/// One non-streaming run of the released version: wall time and program.
async fn run(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    agent: &str,
) -> Result<(Duration, String), String> {
    run_as(client, base, key, agent, true).await
}

/// One non-streaming run: of the released version with `release`, else of the draft.
async fn run_as(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    agent: &str,
    release: bool,
) -> Result<(Duration, String), String> {
    let started = Instant::now();
    let response = client
        .post(format!("{base}/api/v1/agents/chat/completions"))
        .header("Authorization", key)
        .json(&json!({"agent_id": agent, "query": "hello", "release": release}))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let program = response
        .headers()
        .get("x-canvasc-program")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("?")
        .to_string();
    let body: Value = response.json().await.map_err(|e| e.to_string())?;
    if body["code"] != 0 {
        return Err(format!("the run failed: {body}"));
    }
    Ok((started.elapsed(), program))
}

async fn build_state(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    agent: &str,
) -> Result<Value, String> {
    let versions = json_answer(
        client
            .get(format!("{base}/api/v1/agents/{agent}/versions"))
            .header("Authorization", key),
    )
    .await?;
    Ok(versions["data"][0]["build"].clone())
}

/// Lines of the generated crate of the newest build under `data`.
fn generated_lines(data: &Path) -> usize {
    let crates = data.join("builds/crates");
    let newest = std::fs::read_dir(&crates)
        .into_iter()
        .flatten()
        .flatten()
        .max_by_key(|e| e.metadata().and_then(|m| m.modified()).ok());
    let Some(dir) = newest else { return 0 };
    std::fs::read_dir(dir.path().join("src"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|f| std::fs::read_to_string(f.path()).ok())
        .map(|text| text.lines().count())
        .sum()
}

#[tokio::main]
async fn main() -> Result<(), String> {
    canvasc_engine::http::install_tls_provider();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let templates = canvasc_bench::templates::releasable(&args)?;
    let scratch = std::env::temp_dir().join(format!("canvasc-publish-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    let target = std::env::var("PUBLISH_BUILD_TARGET")
        .map(PathBuf::from)
        .unwrap_or_else(|_| scratch.join("build-target"));
    let script = scratch.join("script.json");
    std::fs::write(&script, json!({"default": "echo"}).to_string()).map_err(|e| e.to_string())?;
    let data = scratch.join("data");
    let server = start(&data, &script, &target)?;
    let client = reqwest::Client::new();
    let key = account(&client, &server.base).await?;
    println!(
        "publish: canvasc serve at {}, builds in {}",
        server.base,
        target.display()
    );
    println!();
    println!("| template | components | publish | first run (program) | → compiled | → first compiled run | generated lines | build s / component |");
    println!("|---|---|---|---|---|---|---|---|");
    // (template, released agent, draft agent) of the templates quick enough to repeat.
    let mut repeatable = Vec::new();
    for (i, path) in templates.iter().enumerate() {
        let (name, dsl) = canvasc_bench::templates::read(path)?;
        let components = dsl["components"].as_object().map_or(0, |c| c.len());
        let published = Instant::now();
        let created = json_answer(
            client
                .post(format!("{}/api/v1/agents", server.base))
                .header("Authorization", &key)
                .json(&json!({"title": format!("{name} {i}"), "dsl": dsl, "release": true})),
        )
        .await?;
        let publish = published.elapsed();
        let agent = created["data"]["id"]
            .as_str()
            .ok_or(format!("no agent: {created}"))?
            .to_string();
        let (first, program) = run(&client, &server.base, &key, &agent).await?;
        let compiled_at = loop {
            let build = build_state(&client, &server.base, &key, &agent).await?;
            match build["state"].as_str() {
                Some("compiled") => break published.elapsed(),
                Some("failed") => return Err(format!("{name}: the build failed: {build}")),
                _ => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        };
        let serving = loop {
            let (_, program) = run(&client, &server.base, &key, &agent).await?;
            if program == "compiled" {
                break published.elapsed();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let lines = generated_lines(&data);
        if first < Duration::from_millis(200) {
            let draft = json_answer(
                client
                    .post(format!("{}/api/v1/agents", server.base))
                    .header("Authorization", &key)
                    .json(&json!({"title": format!("{name} {i} draft"), "dsl": dsl})),
            )
            .await?;
            let draft = draft["data"]["id"]
                .as_str()
                .ok_or(format!("no draft: {draft}"))?;
            repeatable.push((name.to_string(), agent.clone(), draft.to_string()));
        }
        let build_secs = compiled_at.saturating_sub(first).as_secs_f64();
        println!(
            "| {name} | {components} | {:.1} ms | {:.1} ms ({program}) | {:.1} s | {:.1} s | {lines} | {:.2} |",
            publish.as_secs_f64() * 1e3,
            first.as_secs_f64() * 1e3,
            compiled_at.as_secs_f64(),
            serving.as_secs_f64(),
            build_secs / components.max(1) as f64,
        );
    }
    let turns: usize = std::env::var("PUBLISH_TURNS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(100);
    println!();
    println!("{turns} turns one after another, server process tree (workers included):");
    println!();
    println!("| template | compiled: CPU ms / turn | interpreted: CPU ms / turn | compiled / interpreted | wall ms / turn, compiled · interpreted |");
    println!("|---|---|---|---|---|");
    let pid = server.child.id();
    for (name, released, draft) in &repeatable {
        let mut measured = Vec::new();
        for (agent, release) in [(released, true), (draft, false)] {
            let wanted = if release { "compiled" } else { "interpreted" };
            // Warm: the worker started, the interpreter's program built.
            run_as(&client, &server.base, &key, agent, release).await?;
            let (cpu, wall) = (cpu_seconds(pid), Instant::now());
            for _ in 0..turns {
                let (_, program) = run_as(&client, &server.base, &key, agent, release).await?;
                if program != wanted {
                    return Err(format!("{name}: a turn ran {program}, not {wanted}"));
                }
            }
            let n = turns.max(1) as f64;
            measured.push((
                (cpu_seconds(pid) - cpu) * 1e3 / n,
                wall.elapsed().as_secs_f64() * 1e3 / n,
            ));
        }
        let ((compiled, compiled_wall), (interpreted, interpreted_wall)) =
            (measured[0], measured[1]);
        println!(
            "| {name} | {compiled:.2} | {interpreted:.2} | {:.2}× | {compiled_wall:.2} · {interpreted_wall:.2} |",
            compiled / interpreted.max(1e-9)
        );
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}
