//! CodeExec's local backend (`[tools.sandbox] backend = "local"`): the executor's runner in a
//! subprocess with a time limit, a memory limit, an output limit, no network and a scratch
//! directory; answers as RAGFlow's sandbox executor gives them.

mod support;

use canvasc_tools::code_exec::local::{run as run_local, Limits};
use serde_json::{json, Map, Value as Json};
use std::time::{Duration, Instant};
use support::{node_canvas, registry, run_with};

fn limits(secs: u64) -> Limits {
    Limits {
        time: Duration::from_secs(secs),
        ..Limits::default()
    }
}

fn no_args() -> Map<String, Json> {
    Map::new()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_result_stdout_and_stderr_are_captured() {
    let code = "import sys\n\ndef main(name: str) -> dict:\n    print('hello ' + name)\n    print('a warning', file=sys.stderr)\n    return {'greeting': 'hi ' + name, 'n': [1, 2]}\n";
    let mut args = Map::new();
    args.insert("name".into(), json!("Ada"));
    let ex = run_local("python", code, &args, limits(10))
        .await
        .expect("runs");
    assert_eq!(ex.stdout, "hello Ada\n");
    assert_eq!(ex.stderr, "a warning\n");
    assert_eq!(ex.result, Some(json!({"greeting": "hi Ada", "n": [1, 2]})));

    // A failure: no stdout, the traceback as stderr.
    let ex = run_local(
        "python",
        "def main():\n    print('partial')\n    raise ValueError('boom')\n",
        &no_args(),
        limits(10),
    )
    .await
    .expect("runs");
    assert_eq!(ex.stdout, "");
    assert!(ex.stderr.contains("ValueError: boom"), "{}", ex.stderr);
    assert_eq!(ex.result, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn javascript_runs_with_its_main() {
    let code = "module.exports = { main: async (args) => { console.log('js out'); return { sum: args.a + args.b }; } };";
    let mut args = Map::new();
    args.insert("a".into(), json!(2));
    args.insert("b".into(), json!(3));
    let ex = run_local("nodejs", code, &args, limits(10))
        .await
        .expect("runs");
    assert_eq!(ex.stdout, "js out\n", "{}", ex.stderr);
    assert_eq!(ex.result, Some(json!({"sum": 5})));
    let ex = run_local(
        "nodejs",
        "module.exports = { main: () => undefined };",
        &no_args(),
        limits(10),
    )
    .await
    .expect("runs");
    assert!(
        ex.stderr.contains("main() must return a value"),
        "{}",
        ex.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_time_limit_stops_the_script() {
    let started = Instant::now();
    let ex = run_local(
        "python",
        "import time\n\ndef main():\n    time.sleep(60)\n    return 1\n",
        &no_args(),
        limits(2),
    )
    .await
    .expect("runs");
    assert_eq!(
        (ex.stdout.as_str(), ex.stderr.as_str()),
        ("", "Execution timeout")
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_memory_limit_stops_the_script() {
    let limits = Limits {
        memory: 128 * 1024 * 1024,
        ..limits(10)
    };
    let ex = run_local(
        "python",
        "def main():\n    block = bytearray(1024 * 1024 * 1024)\n    return len(block)\n",
        &no_args(),
        limits,
    )
    .await
    .expect("runs");
    assert_eq!(ex.result, None);
    assert!(ex.stderr.contains("MemoryError"), "{}", ex.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_network_is_unreachable() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    let code = format!(
        "import socket\n\ndef main():\n    socket.create_connection(('127.0.0.1', {port}), timeout=3)\n    return 'connected'\n"
    );
    let ex = run_local("python", &code, &no_args(), limits(10))
        .await
        .expect("runs");
    assert_eq!(ex.result, None, "{}", ex.stdout);
    assert!(
        ex.stderr.contains("Network is unreachable") || ex.stderr.contains("Connection refused"),
        "{}",
        ex.stderr
    );
    assert!(
        listener.accept().is_err(),
        "the script reached the host's loopback"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_past_the_limit_stops_the_script() {
    let limits = Limits {
        output: 64 * 1024,
        ..limits(10)
    };
    let ex = run_local(
        "python",
        "def main():\n    print('x' * 1000000)\n    return 1\n",
        &no_args(),
        limits,
    )
    .await
    .expect("runs");
    assert_eq!(ex.stderr, "Output limit exceeded (65536 bytes)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn artifacts_come_from_the_scratch_directory() {
    let code = "def main():\n    with open('artifacts/table.csv', 'w') as f:\n        f.write('a,b\\n1,2\\n')\n    with open('artifacts/notes.exe', 'w') as f:\n        f.write('no')\n    return 'ok'\n";
    let ex = run_local("python", code, &no_args(), limits(10))
        .await
        .expect("runs");
    assert_eq!(
        ex.artifacts,
        vec![
            json!({"name": "table.csv", "mime_type": "text/csv", "size": 8, "content_b64": "YSxiCjEsMgo="})
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_canvas_node_runs_locally_and_gets_ragflows_outputs() {
    let toml = "[tools.sandbox]\nbackend = \"local\"\n";
    let params = json!({
        "lang": "python",
        "script": "def main(q: str) -> dict:\n    return {'length': len(q)}\n",
        "arguments": {"q": "sys.query"},
        "outputs": {"result": {"type": "Object", "value": ""}}
    });
    let ran = run_with(
        &node_canvas("CodeExec", params, "content"),
        &json!({"default": "x"}),
        registry(toml),
        "four",
        |_| {},
    )
    .await;
    assert_eq!(ran.output("Tool:T", "result"), json!({"length": 4}));
    assert_eq!(ran.output("Tool:T", "_ERROR"), json!(""));
    assert_eq!(
        ran.output("Tool:T", "content"),
        json!("{\n  \"length\": 4\n}")
    );

    let params = json!({
        "lang": "python",
        "script": "import time\n\ndef main() -> dict:\n    time.sleep(60)\n    return {}\n",
        "outputs": {"result": {"type": "Object", "value": ""}}
    });
    let ran = run_with(
        &node_canvas("CodeExec", params, "content"),
        &json!({"default": "x"}),
        registry(toml),
        "q",
        |s| {
            s.settings.component_exec_timeout = Some(2);
        },
    )
    .await;
    assert_eq!(ran.output("Tool:T", "_ERROR"), json!("Execution timeout"));
}
