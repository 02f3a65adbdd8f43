//! `canvasc build --published` (issue 41, the CI/CD path): the crate it writes compiles every
//! released version a deployment stores, once per canvas, and nothing else (drafts, unreleased
//! edits). The deployment is a real `canvasc serve` on SQLite, filled over its HTTP API; the
//! build reads its data directory. The crate is written (`--emit-only`), not built: building
//! a written crate is what `canvasc build` of files does, which other suites build.

#![cfg(unix)]

mod serve_child;

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};
use serve_child::{serve, Http, Scratch};

const CHAIN: &str = include_str!("../../fixtures/valid/diamond-uneven.json");
const CHAT: &str = include_str!("../../fixtures/valid/llm-think-stream.json");
const FAQ: &str = include_str!("../../fixtures/valid/template-faq-bot.json");

fn fingerprint(source: &str) -> String {
    let loaded = canvasc_frontend::load_str(source).expect("a canvas");
    canvasc_frontend::fingerprint::fingerprint(&loaded.document)
}

fn dsl(source: &str) -> Value {
    let value: Value = serde_json::from_str(source).expect("JSON");
    value.get("dsl").cloned().unwrap_or(value)
}

/// Every text file of the crate under `dir`, concatenated.
fn crate_text(dir: &Path) -> String {
    let mut text = String::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("the crate's directory")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(file) = std::fs::read_to_string(&path) {
                text.push_str(&file);
            }
        }
    }
    text
}

fn build_published(data: &Path, out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .args(["build", "--published", "--emit-only", "--data-dir"])
        .arg(data)
        .arg("--out")
        .arg(out)
        .env_remove("DATABASE_URL")
        .output()
        .expect("canvasc build runs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_released_version_is_compiled_once_and_nothing_else() {
    let scratch = Scratch::new("build-published");
    let data = scratch.0.join("data");
    let out = scratch.0.join("published");
    {
        let server = serve(&scratch.0, &["--registration", "open"], &[]);
        let http = Http::new(&server.base);
        http.send(
            reqwest::Method::POST,
            "/users",
            "",
            json!({"email": "ci@example.com", "nickname": "ci", "password": "Y2k="}),
        )
        .await;
        let auth = http.login("ci@example.com", "Y2k=").await;
        let create = |title: &str, source: &str, release: bool| json!({"title": title, "dsl": dsl(source), "release": release});
        let post = reqwest::Method::POST;
        // Released, then edited without releasing: the released DSL is built, the edit not.
        let chain = http
            .ok(post.clone(), "/agents", &auth, create("chain", CHAIN, true))
            .await;
        let chain_id = chain["id"].as_str().expect("an id").to_string();
        http.ok(
            reqwest::Method::PUT,
            &format!("/agents/{chain_id}"),
            &auth,
            json!({"dsl": dsl(FAQ)}),
        )
        .await;
        // Released twice with the same DSL (two agents): one program.
        http.ok(post.clone(), "/agents", &auth, create("chat", CHAT, true))
            .await;
        http.ok(
            post.clone(),
            "/agents",
            &auth,
            create("chat again", CHAT, true),
        )
        .await;

        // Nothing released yet in another deployment: refused, saying why.
        let empty = scratch.0.join("empty");
        let refused = build_published(&empty, &scratch.0.join("none"));
        assert_eq!(refused.status.code(), Some(2));
        let said = String::from_utf8_lossy(&refused.stderr);
        assert!(said.contains("no database"), "{said}");

        // The deployment is read while it serves.
        let built = build_published(&data, &out);
        let said = String::from_utf8_lossy(&built.stderr);
        assert!(built.status.success(), "{said}");
        assert!(said.contains("(2 canvases)"), "{said}");
        assert!(said.contains("compiled once"), "{said}");
        drop(server);
    }
    let text = crate_text(&out);
    assert!(text.contains(&fingerprint(CHAIN)), "the released chain");
    assert!(text.contains(&fingerprint(CHAT)), "the released chat");
    assert!(
        !text.contains(&fingerprint(FAQ)),
        "an unreleased edit is not built"
    );
}
