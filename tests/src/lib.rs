//! Shared helpers for the integration tests: where the shared RAGFlow corpus and reference
//! streams are, and how a test says it was not run when they are absent.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The shared folder beside the checkout (`../shared`), or `$CANVASC_SHARED`.
///
/// CI sets `CANVASC_REQUIRE_SHARED=1`: then a missing folder fails the test instead of
/// skipping it. A user's fresh clone has no `../shared`; those tests then say they were not
/// run.
pub fn shared_dir(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("CANVASC_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared"));
    if dir.join("corpus/ragflow").is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CANVASC_REQUIRE_SHARED").is_none(),
        "{test}: the shared corpus is required (CANVASC_REQUIRE_SHARED is set) but {} has no corpus/ragflow",
        dir.display()
    );
    // Straight to the process's stderr: libtest captures `eprintln!`, and this must be seen.
    let _ = writeln!(
        std::io::stderr(),
        "{test}: NOT RUN: no shared corpus at {} (set CANVASC_SHARED to its location)",
        dir.display()
    );
    None
}

/// Every DSL file of the shared RAGFlow corpus, sorted.
pub fn corpus_files(shared: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in ["dsl_examples", "go_testdata", "templates"] {
        if let Ok(entries) = std::fs::read_dir(shared.join("corpus/ragflow").join(sub)) {
            for e in entries.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "json") {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

/// The fixture files of this repository under `fixtures/<sub>`, sorted.
pub fn fixture_files(sub: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(workspace_root().join("fixtures").join(sub))
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| p.extension().is_some_and(|x| x == "json"));
    out.sort();
    out
}

/// A path relative to the workspace root, with `/` separators, for stable snapshot names.
pub fn display_path(p: &Path) -> String {
    let root = workspace_root();
    let rel = p.strip_prefix(&root).unwrap_or(p);
    rel.to_string_lossy().replace('\\', "/")
}

pub mod fault_rounds;
pub mod fuzz_cases;
pub mod fuzzgen;
pub mod harness;
pub mod mcp_server;
use canvasc_engine::mcp::McpServer;
pub mod reference;
pub mod scripted_server;
pub mod slow_server;
pub mod sql_stub;
pub mod synthetic;
pub mod tool_stub;

/// The reference cases of `../shared/reference-streams/INDEX.md`: name → (case, stream path).
pub fn reference_cases(shared: &Path) -> Vec<(String, reference::Case, PathBuf)> {
    let path = shared.join("reference-streams/INDEX.md");
    let index = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out = Vec::new();
    for line in index
        .lines()
        .filter(|l| l.contains("ragflow_ref.run_canvas"))
    {
        let parsed = reference::Case::from_command(line, shared);
        assert!(
            parsed.is_some(),
            "{}: cannot read the command {line}",
            path.display()
        );
        if let Some((case, stream)) = parsed {
            let name = Path::new(&stream)
                .file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_default();
            out.push((name, case, shared.join(stream)));
        }
    }
    out
}

/// Goldens whose needs this build meets but whose streams it does not reproduce yet, with why.
const NOT_YET: &[(&str, &str)] = &[];

/// One golden of `tests/golden/cases.json`.
pub struct Golden {
    pub name: String,
    /// What the run exercises besides pure components (`network`, `llm`, …).
    pub needs: Vec<String>,
    pub case: reference::Case,
    /// The stream RAGFlow produced.
    pub stream: PathBuf,
    /// The fixture (before any conversion the oracle needed).
    pub fixture: PathBuf,
}

impl Golden {
    /// Whether this build runs it: pure components, Invoke, the local status service.
    pub fn runnable(&self) -> bool {
        self.skip_reason().is_none()
    }

    /// Why this build cannot replay the golden: the needs (`tests/golden/README.md`) it has no
    /// local stand-in for.
    pub fn skip_reason(&self) -> Option<String> {
        if let Some((_, why)) = NOT_YET.iter().find(|(n, _)| *n == self.name) {
            return Some(why.to_string());
        }
        let unserved = self.unserved_tools();
        let unmet: Vec<String> = self
            .needs
            .iter()
            .map(String::as_str)
            .filter(|n| {
                !matches!(
                    *n,
                    "network" | "slow-server" | "llm" | "mcp-server" | "retrieval" | "sandbox"
                )
            })
            .filter(|n| *n != "tool-fixtures" || !unserved.is_empty())
            .map(|n| match n {
                "tool-fixtures" => format!(
                    "tool-fixtures (the oracle's canned data for {}, which the tool stub does not serve)",
                    unserved.join(", ")
                ),
                "missing-sdk" => "missing-sdk (the stream shows the oracle lacking an SDK)".into(),
                other => other.to_string(),
            })
            .collect();
        if unmet.is_empty() {
            return None;
        }
        Some(format!("needs {}", unmet.join(", ")))
    }

    /// The canvas's components and tools whose canned data (the oracle's `fixtures.py`) the
    /// tool stub (`tool_stub.rs`) does not serve: it serves Tavily, Wikipedia, DuckDuckGo,
    /// Google and the retriever; YahooFinance's fake `Ticker` data has no Yahoo answer it could
    /// come from, and ExeSQL's canned rows need a case's SQL table.
    pub fn unserved_tools(&self) -> Vec<String> {
        fn walk(v: &serde_json::Value, sql: bool, out: &mut Vec<String>) {
            match v {
                serde_json::Value::Object(m) => {
                    if let Some(name) = m.get("component_name").and_then(|n| n.as_str()) {
                        let unserved = name == "YahooFinance" || (name == "ExeSQL" && !sql);
                        if unserved && !out.iter().any(|o| o == name) {
                            out.push(name.to_string());
                        }
                    }
                    m.values().for_each(|x| walk(x, sql, out));
                }
                serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, sql, out)),
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(
            &self.case.load_dsl(),
            self.case.sql_table.is_some(),
            &mut out,
        );
        out
    }

    /// The stream RAGFlow produced; a golden that cannot be read fails the suite.
    pub fn expected(&self) -> Vec<String> {
        std::fs::read_to_string(&self.stream)
            .unwrap_or_else(|e| panic!("cannot read golden {}: {e}", self.stream.display()))
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// A JSON object's entries as text (strings as they are, other values as JSON).
fn string_pairs(v: Option<&serde_json::Value>) -> Vec<(String, String)> {
    v.and_then(serde_json::Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let text = v.as_str().map(str::to_string);
                    (k.clone(), text.unwrap_or_else(|| v.to_string()))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A case's `mcp_servers`: id → `{url, server_type, headers, variables}`.
fn mcp_servers(records: Option<&serde_json::Value>) -> Vec<McpServer> {
    use serde_json::Value;
    let Some(records) = records.and_then(Value::as_object) else {
        return Vec::new();
    };
    records
        .iter()
        .map(|(id, r)| McpServer {
            id: id.clone(),
            url: r
                .get("url")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            server_type: r
                .get("server_type")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            headers: string_pairs(r.get("headers")),
            variables: string_pairs(r.get("variables")).into_iter().collect(),
        })
        .collect()
}

/// The golden cases of `tests/golden/cases.json`.
pub fn golden_cases() -> Vec<Golden> {
    let root = workspace_root();
    let dir = root.join("tests/golden");
    let path = dir.join("cases.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let list: Vec<serde_json::Value> = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not a JSON list: {e}", path.display()));
    list.iter()
        .map(|c| {
            golden_case(&root, &dir, c).unwrap_or_else(|| {
                panic!("a case of {} lacks its name or canvas: {c}", path.display())
            })
        })
        .collect()
}

fn golden_case(root: &Path, dir: &Path, c: &serde_json::Value) -> Option<Golden> {
    use serde_json::Value;
    let name = c.get("name")?.as_str()?.to_string();
    let canvas = if c.get("converted").and_then(Value::as_bool) == Some(true) {
        c.get("converted_canvas")?.as_str()?.to_string()
    } else {
        c.get("canvas")?.as_str()?.to_string()
    };
    let turns = match c.get("turns").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .map(|t| reference::Turn {
                query: t
                    .get("query")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                inputs: t
                    .get("inputs")
                    .cloned()
                    .unwrap_or_else(|| serde_json::json!({})),
                files: Vec::new(),
            })
            .collect(),
        None => vec![reference::Turn {
            query: c
                .get("query")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            inputs: c
                .get("inputs")
                .cloned()
                .unwrap_or_else(|| serde_json::json!({})),
            files: Vec::new(),
        }],
    };
    let script = c.get("script").and_then(Value::as_str).map(|s| {
        let path = root.join(s);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{name}: cannot read its script {}: {e}", path.display()));
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{name}: its script {} is not JSON: {e}", path.display()))
    });
    let case = reference::Case {
        dsl: root.join(canvas).to_string_lossy().to_string(),
        turns,
        script,
        default_llm_id: c
            .get("default_llm_id")
            .and_then(Value::as_str)
            .map(str::to_string),
        fill_empty: Vec::new(),
        set: c
            .get("set")
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default(),
        env: string_pairs(c.get("env")),
        cancel_after: c
            .get("cancel_after")
            .and_then(Value::as_f64)
            .map(std::time::Duration::from_secs_f64),
        mcp_servers: mcp_servers(c.get("mcp_servers")),
        sql_table: c
            .get("sql_table")
            .and_then(Value::as_str)
            .map(str::to_string),
    };
    let needs = c
        .get("needs")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    Some(Golden {
        stream: dir.join(format!("{name}.jsonl")),
        fixture: root.join(c.get("canvas")?.as_str()?),
        name,
        needs,
        case,
    })
}
