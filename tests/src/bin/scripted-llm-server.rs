//! `scripted-llm-server SCRIPT`: serves the scripted OpenAI-compatible chat model
//! ([`canvasc_tests::scripted_server`], `shared/spec/scripted-llm.md`) on a free 127.0.0.1 port
//! until killed, and prints its base URL as the first line of stdout. The Python client tests
//! (`tests/python/`) point `canvasc serve` at it through `CANVASC_LLM_BASE_URL`, so the server's
//! runs take the real HTTP model path that a deployment takes.
//!
//! SCRIPT is a script of its own or a reference-oracle `--script` file
//! (`fixtures/scripts/*.json`), which holds the script under `llm` beside tool data the model
//! does not use.

use canvasc_engine::llm::script::Script;
use canvasc_tests::scripted_server::ScriptedServer;
use serde_json::Value as Json;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(path), None) = (args.next(), args.next()) else {
        eprintln!("usage: scripted-llm-server SCRIPT.json");
        return ExitCode::from(2);
    };
    let script = match load(&path) {
        Ok(script) => script,
        Err(e) => {
            eprintln!("scripted-llm-server: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let server = match ScriptedServer::try_start(script) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("scripted-llm-server: cannot listen on 127.0.0.1: {e}");
            return ExitCode::FAILURE;
        }
    };
    // A long-lived server keeps no transcript: nobody reads it, and it would only grow.
    server.set_recording(false);
    let mut out = std::io::stdout();
    if writeln!(out, "{}", server.base_url())
        .and_then(|()| out.flush())
        .is_err()
    {
        return ExitCode::FAILURE;
    }
    loop {
        std::thread::park();
    }
}

fn load(path: &str) -> Result<Script, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let json: Json = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let script = match json.get("llm") {
        Some(llm) => llm,
        None => &json,
    };
    Script::parse(script).map_err(|e| e.to_string())
}
