//! Memory under document bombs at the budget's edge (issue 39, item 15): what `canvasc serve`
//! holds while COUNT DocGenerator runs, each with images as large as a document may hold, and
//! COUNT ExcelProcessor runs, each with a spreadsheet as large as a call may read, arrive over
//! CONCURRENCY connections at once.
//!
//! `cargo run --release -p canvasc-bench --bin abuse_memory [-- COUNT [CONCURRENCY]]`
//! (default 100 of each over 8 connections)
//!
//! * The server is this binary re-run as a child (`serve_child.rs`: SQLite in a temporary
//!   directory, mimalloc as canvasc's binaries), so its memory is its own.
//! * Images: a DocGenerator (PDF) whose content is the query, a Message showing its
//!   `download`; each query holds two 4096 × 2720 PNG data URLs, whose files and decoded
//!   pixels (2 × 33,423,360 bytes and a few KiB) all but fill the default document budget
//!   (64 MiB of files and pixels, 32 MiB an image).
//! * Spreadsheets: an ExcelProcessor reading the query (an XLSX data URL, written by
//!   rust_xlsxwriter), a Message showing its summary; each file is a header and rows of 10
//!   numbers, as many as the server's sheet budget allows (its default, or what
//!   `CANVASC_SHEET_MAX_*` set for both this bench and the server child): the budget's cells
//!   or rows, whichever comes first.
//! * Reported: the server's resident memory idle (after set-up), its peak above idle during
//!   each phase (sampled every 5 ms, and the kernel's high-water mark `VmHWM` over all), and
//!   what it still holds above idle 3 s after each phase. Every run must succeed: a refusal
//!   or an error ends the bench, since memory saved by failing runs is no measurement.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use canvasc_bench::proc_tree::status_kib;
use canvasc_bench::serve_child::{self, account, create_agent, json_answer, start_child};
use serde_json::{json, Value};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const WIDTH: u32 = 4096;
const HEIGHT: u32 = 2720;
const COLUMNS: u16 = 10;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if serve_child::serve_if_child(&args) {
        return;
    }
    let count: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(100);
    let concurrency: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(8);
    if let Err(e) = measure(count.max(1), concurrency.max(1)) {
        eprintln!("abuse_memory: {e}");
        std::process::exit(1);
    }
}

/// A 4096 × 2720 RGB PNG of broad gradients: its pixels are the budget's, its file small.
fn png() -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, WIDTH, HEIGHT);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    encoder.set_compression(png::Compression::Best);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    let mut pixels = Vec::with_capacity((WIDTH * HEIGHT * 3) as usize);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            pixels.extend([(x / 64) as u8, (y / 64) as u8, 128]);
        }
    }
    writer
        .write_image_data(&pixels)
        .map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// Data rows of `COLUMNS` numbers below a header that fill the server's sheet budget: its
/// cells (the header's counted) or its rows (the header's not), whichever is less.
fn data_rows() -> u32 {
    let budget = canvasc_host::documents::sheet_budget(&|name| std::env::var(name).ok());
    let by_cells = budget.cells / u64::from(COLUMNS) - 1;
    u32::try_from(by_cells.min(budget.rows)).unwrap_or(u32::MAX)
}

/// A header row and `rows` rows of `COLUMNS` numbers.
fn xlsx(rows: u32) -> Result<Vec<u8>, String> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    for c in 0..COLUMNS {
        sheet
            .write_string(0, c, format!("col{c}"))
            .map_err(|e| e.to_string())?;
    }
    for r in 1..=rows {
        for c in 0..COLUMNS {
            sheet
                .write_number(r, c, f64::from(r) * 10.0 + f64::from(c))
                .map_err(|e| e.to_string())?;
        }
    }
    book.save_to_buffer().map_err(|e| e.to_string())
}

fn data_url(mime: &str, bytes: &[u8]) -> String {
    format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// Begin → `component` → a Message showing its output `shown`.
fn canvas(component: &str, params: Value, shown: &str) -> String {
    json!({
        "components": {
            "begin": {"obj": {"component_name": "Begin", "params": {}},
                      "downstream": ["X:0"], "upstream": []},
            "X:0": {"obj": {"component_name": component, "params": params},
                    "downstream": ["Message:Show"], "upstream": ["begin"]},
            "Message:Show": {"obj": {"component_name": "Message",
                    "params": {"content": [format!("{{X:0@{shown}}}")]}},
                "downstream": [], "upstream": ["X:0"]},
        },
        "history": [], "retrieval": [], "path": [],
        "globals": {"sys.query": "", "sys.user_id": "", "sys.conversation_turns": 0, "sys.files": []},
    })
    .to_string()
}

/// The server's resident set, sampled until `stop`: the highest seen, in KiB.
fn sample_peak(pid: u32, stop: Arc<AtomicBool>, peak: Arc<AtomicU64>) {
    while !stop.load(Ordering::Relaxed) {
        peak.fetch_max(status_kib(pid, "VmRSS:"), Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(5));
    }
}

struct Phase {
    name: &'static str,
    seconds: f64,
    peak_kib: u64,
    after_kib: u64,
}

fn measure(count: usize, concurrency: usize) -> Result<(), String> {
    let image = data_url("image/png", &png()?);
    let image_query = format!("# Report\n\n![one]({image})\n\n![two]({image})\n");
    let rows = data_rows();
    let sheet_query = data_url(
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        &xlsx(rows)?,
    );
    let sheet_answer = format!("{rows} rows, {COLUMNS} columns");
    println!(
        "queries: images {} KiB (two PNG data URLs), spreadsheet {} KiB ({rows} rows of {COLUMNS} and a header)",
        image_query.len() / 1024,
        sheet_query.len() / 1024
    );

    let dir = std::env::temp_dir().join(format!("canvasc-abuse-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let server = start_child("http://127.0.0.1:9/v1", &dir)?;
    let pid = server.child.id();
    canvasc_engine::http::install_tls_provider();
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let result = runtime.block_on(async {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(900))
            .build()
            .map_err(|e| e.to_string())?;
        let key = account(&client, &server.base).await?;
        let docs = canvas(
            "DocGenerator",
            json!({"output_format": "pdf", "content": "{sys.query}", "add_timestamp": false}),
            "download",
        );
        let docs = create_agent(&client, &server.base, &key, "images", &docs).await?;
        let sheets = canvas(
            "ExcelProcessor",
            json!({"operation": "read", "input_files": ["sys.query"]}),
            "summary",
        );
        let sheets = create_agent(&client, &server.base, &key, "sheets", &sheets).await?;
        tokio::time::sleep(Duration::from_secs(1)).await;
        let idle = status_kib(pid, "VmRSS:");
        let mut phases = Vec::new();
        for (name, agent, query, expect) in [
            ("images", &docs, &image_query, "application/pdf"),
            ("spreadsheets", &sheets, &sheet_query, sheet_answer.as_str()),
        ] {
            let stop = Arc::new(AtomicBool::new(false));
            let peak = Arc::new(AtomicU64::new(0));
            let sampler = {
                let (stop, peak) = (stop.clone(), peak.clone());
                std::thread::spawn(move || sample_peak(pid, stop, peak))
            };
            let started = Instant::now();
            let next = Arc::new(AtomicU64::new(0));
            let mut clients = Vec::new();
            for _ in 0..concurrency {
                let (client, base, key) = (client.clone(), server.base.clone(), key.clone());
                let (agent, query, next) = (agent.clone(), query.clone(), next.clone());
                let expect = expect.to_string();
                clients.push(tokio::spawn(async move {
                    while next.fetch_add(1, Ordering::Relaxed) < count as u64 {
                        let answer = json_answer(
                            client
                                .post(format!("{base}/api/v1/agents/chat/completions"))
                                .header("Authorization", &key)
                                .json(&json!({"agent_id": agent, "query": query, "stream": false})),
                        )
                        .await?;
                        if !answer.to_string().contains(&expect) {
                            return Err(format!(
                                "a {name} run did not succeed: {}",
                                answer.to_string().chars().take(400).collect::<String>()
                            ));
                        }
                    }
                    Ok::<_, String>(())
                }));
            }
            for client in clients {
                client.await.map_err(|e| e.to_string())??;
            }
            let seconds = started.elapsed().as_secs_f64();
            tokio::time::sleep(Duration::from_secs(3)).await;
            stop.store(true, Ordering::Relaxed);
            sampler.join().map_err(|_| "the sampler stopped")?;
            phases.push(Phase {
                name,
                seconds,
                peak_kib: peak.load(Ordering::Relaxed),
                after_kib: status_kib(pid, "VmRSS:"),
            });
        }
        Ok::<_, String>((idle, phases, status_kib(pid, "VmHWM:")))
    });
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    let (idle, phases, high_water) = result?;

    let mib = |kib: u64| kib as f64 / 1024.0;
    println!("{count} runs of each, {concurrency} at once");
    println!("idle: {:.1} MiB", mib(idle));
    for phase in &phases {
        println!(
            "{:<13} {:>6.1} s  peak +{:.1} MiB above idle, +{:.1} MiB 3 s after",
            phase.name,
            phase.seconds,
            mib(phase.peak_kib.saturating_sub(idle)),
            mib(phase.after_kib.saturating_sub(idle)),
        );
    }
    println!(
        "VmHWM over all: +{:.1} MiB above idle",
        mib(high_water.saturating_sub(idle))
    );
    Ok(())
}
