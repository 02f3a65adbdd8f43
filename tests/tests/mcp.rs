//! MCP tools beyond the golden (`tests/golden/agent-mcp-tools.jsonl`, which RAGFlow's engine
//! produced against the same fixture server): the run's `custom_header` reaching the server, and
//! an Agent naming a server nobody configured.

use canvasc_engine::interp::Interpreter;
use canvasc_engine::llm::script::{Script, ScriptedProvider};
use canvasc_engine::mcp::{McpServer, McpServers};
use canvasc_engine::random::PyRandom;
use canvasc_engine::{RunInput, RunOutcome, Services, Session};
use canvasc_tests::{mcp_server, workspace_root};
use serde_json::{json, Value as Json};
use std::sync::{Arc, Mutex};

fn read(rel: &str) -> Json {
    let text = std::fs::read_to_string(workspace_root().join(rel)).expect("fixture exists");
    serde_json::from_str(&text).expect("fixture is JSON")
}

fn shop() -> McpServer {
    McpServer {
        id: "shop".into(),
        url: format!("http://127.0.0.1:{}/mcp", mcp_server::PORT),
        server_type: "streamable-http".into(),
        headers: vec![("Authorization".into(), "Bearer $token".into())],
        variables: [("token".to_string(), "t-9".to_string())].into(),
    }
}

/// Runs the MCP fixture with these servers and run headers; the events and the model's calls.
async fn run(
    servers: Vec<McpServer>,
    custom_header: Vec<(String, String)>,
) -> (RunOutcome, Vec<Json>, Arc<ScriptedProvider>) {
    let analysis =
        canvasc_frontend::analyze(&read("fixtures/valid/agent-mcp-tools.json").to_string())
            .expect("fixture loads");
    let script = Script::parse(&read("fixtures/scripts/agent-mcp-tools.json")["llm"])
        .expect("the fixture's script");
    let provider = Arc::new(ScriptedProvider::new(script));
    let services = Services {
        llm: Some(provider.clone()),
        mcp: Arc::new(McpServers::new(servers)),
        custom_header: custom_header.into(),
        ..Services::default()
    };
    let session = Session::new(
        Arc::new(Interpreter::from_analysis(&analysis)),
        analysis.document.dsl.clone(),
        services,
        Arc::new(Mutex::new(PyRandom::seeded(0))),
        true,
    );
    let mut events: Vec<Json> = Vec::new();
    let input = RunInput {
        query: Some(json!("Where is order A-17?")),
        inputs: Some(json!({})),
        ..RunInput::default()
    };
    let outcome = session.run(input, &mut events).await;
    (outcome, events, provider)
}

/// What the tools answered, as the model's second request carries them.
fn tool_results(provider: &ScriptedProvider) -> Vec<String> {
    provider
        .calls()
        .get(1)
        .map(|c| {
            c.request
                .messages
                .iter()
                .filter(|m| m.role == "tool")
                .filter_map(|m| m.content.clone())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_headers_reach_the_server_and_unknown_servers_are_named() {
    let _server = mcp_server::start()
        .await
        .expect("the MCP fixtures' server binds 127.0.0.1:18766");

    // Only `shop` is configured here: `weather` and `offline` are not.
    // RAGFlow cannot even build such a canvas; canvasc stops the run saying what to configure.
    let (outcome, _, _) = run(vec![shop()], Vec::new()).await;
    let RunOutcome::Failed(error) = outcome else {
        panic!("the run fails: {outcome:?}");
    };
    assert!(
        error.contains("Agent:Lead")
            && error.contains("`mcp`")
            && error.contains("`weather`")
            && error.contains("[mcp_servers.\"weather\"]"),
        "{error}"
    );

    let mut servers = vec![shop()];
    for (id, path, ty) in [
        ("weather", "sse", "sse"),
        ("offline", "mcp", "streamable-http"),
    ] {
        let port = if id == "offline" { 9 } else { mcp_server::PORT };
        servers.push(McpServer {
            id: id.into(),
            url: format!("http://127.0.0.1:{port}/{path}"),
            server_type: ty.into(),
            headers: Vec::new(),
            variables: Default::default(),
        });
    }
    let custom = vec![
        ("X-User".to_string(), "$who".to_string()),
        ("who".to_string(), "ann".to_string()),
    ];
    let (outcome, _, provider) = run(servers, custom).await;
    assert!(matches!(outcome, RunOutcome::Finished), "{outcome:?}");
    let results = tool_results(&provider);
    assert_eq!(results.len(), 7, "{results:?}");
    assert_eq!(results[0], "Order A-17 shipped on 2026-05-01 via DHL.");
    assert_eq!(results[5], "authorization=Bearer t-9; x-user=ann");
}
