//! Every HTTP client is built in `engine/src/http.rs` (one TLS provider, one redirect
//! policy per use, the SSRF pin for Invoke): no other source file in the workspace may build a
//! `reqwest` client or an rmcp client transport.

use std::path::{Path, PathBuf};

/// The one file allowed to build clients, relative to the workspace root.
const FACTORY: &str = "engine/src/http.rs";

/// Programs outside `server/tests/` that talk to `canvasc serve` over HTTP as a user would.
const SERVER_CLIENTS: &[&str] = &[
    "bench/src/bin/serve_load.rs",
    "bench/src/bin/cancel_latency.rs",
    "compiler/tests/serve_replicas.rs",
    "compiler/tests/serve_sole.rs",
    "compiler/tests/serve_access.rs",
    "compiler/tests/serve_child/mod.rs",
    "compiler/tests/serve_publish.rs",
    "compiler/tests/serve_drain.rs",
    "bench/src/bin/login_flood.rs",
    "bench/src/bin/serve_peers.rs",
    "bench/src/bin/long_chain.rs",
    "bench/src/bin/abuse_memory.rs",
    "bench/src/bin/publish.rs",
    "bench/src/bin/session_bytes.rs",
    "bench/src/bin/webhook_latency.rs",
    "bench/src/bin/stream_replay.rs",
];

/// What building a client or an rmcp client transport looks like in source.
const BUILDERS: &[&str] = &[
    "Client::builder",
    "ClientBuilder",
    "Client::new(",
    "Client::default(",
    "reqwest::get(",
    "reqwest::blocking",
    "ClientTransport",
];

/// The builders a source text uses, each with its line number.
fn builders_in(text: &str) -> Vec<(usize, &'static str)> {
    text.lines()
        .enumerate()
        .flat_map(|(i, line)| {
            BUILDERS
                .iter()
                .filter(move |b| line.contains(**b))
                .map(move |b| (i + 1, *b))
        })
        .collect()
}

/// Every `.rs` file under `dir`, build output and hidden directories left out.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !(name.starts_with('.') || name == "target") {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

#[test]
fn http_clients_are_built_in_exec_http_only() {
    let root = canvasc_tests::workspace_root();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut offenders = Vec::new();
    let mut factory_builds = 0;
    for path in &files {
        let rel = path.strip_prefix(&root).unwrap_or(path);
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel == file!() {
            continue; // this file names the builders it looks for
        }
        if SERVER_CLIENTS.contains(&rel.as_str()) || rel.starts_with("server/tests/") {
            // The server's integration tests and its benches are its clients, as a user's
            // program would be: they build what a user builds, not what canvasc builds.
            continue;
        }
        let found = builders_in(&std::fs::read_to_string(path).unwrap_or_default());
        if rel == FACTORY {
            factory_builds = found.len();
            continue;
        }
        offenders.extend(
            found
                .into_iter()
                .map(|(line, b)| format!("{rel}:{line}: {b}")),
        );
    }
    assert!(
        files.len() > 100,
        "the scan found only {} source files under {}",
        files.len(),
        root.display()
    );
    assert!(
        factory_builds > 0,
        "{FACTORY} builds no client: the scan is looking at the wrong files"
    );
    assert!(
        offenders.is_empty(),
        "HTTP clients built outside {FACTORY} (build them there):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_scan_sees_each_way_of_building_a_client() {
    let text = "let a = reqwest::Client::builder().build();\nlet b = reqwest::Client::new();\n\
                let t = StreamableHttpClientTransport::with_client(c, cfg);\nlet ok = 1;\n";
    assert_eq!(
        builders_in(text),
        vec![
            (1, "Client::builder"),
            (2, "Client::new("),
            (3, "ClientTransport")
        ]
    );
}
