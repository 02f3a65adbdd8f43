//! RAGFlow's `text2sql_data_expert` template end to end against the machine's MariaDB
//! (127.0.0.1:3306, root without a password), through the real binary: the test creates a
//! database with two tables and a user with a password, indexes the schema, question-to-SQL
//! samples and a database description as three local datasets (`canvasc dataset add`), fills
//! in the template's empty ExeSQL connection (the checker's `Database name does not support
//! empty value.` goes away once a database is set) and the Retrievals' datasets, and runs it
//! with a scripted model that writes SQL only when the retrieved schema reaches it. The
//! ExeSQL node must return the joined rows and the Message must show them.
//!
//! MariaDB must be reachable: the test fails otherwise. The loopback server is reached through
//! ExeSQL's configured allow-list (`RAGFLOW_TOOL_EXESQL_ALLOWED_HOSTS`), as a deployment would.

use serde_json::{json, Value};
use sqlx::{Connection, Executor};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DATABASE: &str = "canvasc_text2sql";
const USER: &str = "canvasc_text2sql";
const PASSWORD: &str = "t2s-secret";
const SQL: &str = "SELECT c.name, o.item, o.quantity FROM t2s_customers c JOIN t2s_orders o ON o.customer_id = c.id WHERE c.city = 'Paris' ORDER BY o.id";

fn canvasc(args: &[&str], data_dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_canvasc"))
        .args(args)
        .env("CANVASC_DATA_DIR", data_dir)
        .env("RAGFLOW_TOOL_EXESQL_ALLOWED_HOSTS", "127.0.0.1")
        .env_remove("CANVASC_CONFIG")
        .env_remove("CANVASC_EMBEDDING_BASE_URL")
        .env_remove("RAGFLOW_TOOL_RETRIEVAL_BASE_URL")
        .env_remove("ALLOW_ANY_HOST")
        .output()
        .expect("canvasc runs")
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

fn utf8(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canvasc-text2sql-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The shared corpus's template (`CANVASC_SHARED`, else `../shared` beside the workspace).
fn corpus_template(name: &str) -> Option<Value> {
    let shared = std::env::var_os("CANVASC_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    let path = shared.join("corpus/ragflow/templates").join(name);
    match std::fs::read_to_string(&path) {
        Ok(t) => Some(serde_json::from_str(&t).expect("template JSON")),
        Err(_) => {
            assert!(
                std::env::var_os("CANVASC_REQUIRE_SHARED").is_none(),
                "the shared corpus is required but {} is missing",
                path.display()
            );
            eprintln!("NOT RUN: no shared corpus at {}", path.display());
            None
        }
    }
}

/// The test's database, tables and rows, and a user with a password (RAGFlow's ExeSQL checker
/// refuses an empty one) who may only read them.
async fn create_database() {
    let mut root = sqlx::MySqlConnection::connect("mysql://root@127.0.0.1:3306/")
        .await
        .expect("MariaDB on 127.0.0.1:3306 (root, no password)");
    let mut statements = vec![
        format!("DROP DATABASE IF EXISTS {DATABASE}"),
        format!("CREATE DATABASE {DATABASE}"),
        format!("CREATE TABLE {DATABASE}.t2s_customers (id INT PRIMARY KEY, name VARCHAR(40), city VARCHAR(40))"),
        format!("CREATE TABLE {DATABASE}.t2s_orders (id INT PRIMARY KEY, customer_id INT, item VARCHAR(40), quantity INT)"),
        format!("INSERT INTO {DATABASE}.t2s_customers VALUES (1, 'Amélie', 'Paris'), (2, 'Bruno', 'Lyon'), (3, 'Chloé', 'Paris')"),
        format!("INSERT INTO {DATABASE}.t2s_orders VALUES (10, 1, 'router', 2), (11, 2, 'cable', 5), (12, 3, 'switch', 1), (13, 1, 'antenna', 4)"),
    ];
    // Over TCP from 127.0.0.1 MariaDB matches the client as `localhost` or `127.0.0.1`.
    for host in ["localhost", "127.0.0.1"] {
        statements.push(format!(
            "CREATE OR REPLACE USER '{USER}'@'{host}' IDENTIFIED BY '{PASSWORD}'"
        ));
        statements.push(format!("GRANT SELECT ON {DATABASE}.* TO '{USER}'@'{host}'"));
    }
    for stmt in &statements {
        root.execute(stmt.as_str()).await.expect(stmt);
    }
}

async fn drop_database() {
    if let Ok(mut root) = sqlx::MySqlConnection::connect("mysql://root@127.0.0.1:3306/").await {
        let _ = root
            .execute(format!("DROP DATABASE IF EXISTS {DATABASE}").as_str())
            .await;
        for host in ["localhost", "127.0.0.1"] {
            let _ = root
                .execute(format!("DROP USER IF EXISTS '{USER}'@'{host}'").as_str())
                .await;
        }
    }
}

/// One local dataset made of `files` (name, text); its id.
fn add_dataset(dir: &Path, data: &Path, name: &str, files: &[(&str, &str)]) -> String {
    let docs = dir.join(name);
    std::fs::create_dir_all(&docs).expect("docs folder");
    for (file, body) in files {
        std::fs::write(docs.join(file), body).expect("document");
    }
    let o = canvasc(&["dataset", "add", name, utf8(&docs)], data);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    out.split_once(" (")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(id, _)| id.to_string())
        .unwrap_or_else(|| panic!("an id in the report: {out}"))
}

fn events(o: &Output) -> Vec<Value> {
    text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn finished<'a>(events: &'a [Value], node: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["event"] == "node_finished" && e["data"]["component_id"] == node)
        .unwrap_or_else(|| panic!("{node} finished: {events:?}"))
}

#[test]
fn text2sql_data_expert_queries_mariadb() {
    let Some(template) = corpus_template("text2sql_data_expert.json") else {
        return;
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(create_database());

    let dir = temp_dir();
    let data = dir.join("data");
    let schema = add_dataset(
        &dir,
        &data,
        "t2s_schema",
        &[(
            "schema.txt",
            "CREATE TABLE t2s_customers (id INT PRIMARY KEY, name VARCHAR(40), city VARCHAR(40)); -- customers and the city they live in\n\
             CREATE TABLE t2s_orders (id INT PRIMARY KEY, customer_id INT, item VARCHAR(40), quantity INT); -- orders placed by customers\n",
        )],
    );
    let samples = add_dataset(
        &dir,
        &data,
        "t2s_samples",
        &[(
            "samples.md",
            "Question: which customers live in Lyon?\nSQL: SELECT name FROM t2s_customers WHERE city = 'Lyon'\n\n\
             Question: how many orders did customers place?\nSQL: SELECT COUNT(*) FROM t2s_orders\n",
        )],
    );
    let description = add_dataset(
        &dir,
        &data,
        "t2s_description",
        &[(
            "description.txt",
            "The shop database records customers, the city each customer lives in, and the orders customers placed: which item and what quantity.\n",
        )],
    );

    // As shipped, the template's ExeSQL names no database: the checker refuses it.
    let shipped = dir.join("shipped.json");
    std::fs::write(&shipped, template.to_string()).expect("template");
    let check = canvasc(&["check", utf8(&shipped)], &data);
    assert_eq!(check.status.code(), Some(1));
    assert!(
        text(&check.stderr).contains("Database name does not")
            && text(&check.stderr).contains("support empty value."),
        "{}",
        text(&check.stderr)
    );

    let mut dsl = template.get("dsl").cloned().unwrap_or(template);
    let components = dsl["components"].as_object_mut().expect("components");
    for (node, id) in [
        ("Retrieval:HappyTiesFilm", &schema),
        ("Retrieval:SmartNewsHammer", &samples),
        ("Retrieval:SweetDancersAppear", &description),
    ] {
        components[node]["obj"]["params"]["kb_ids"] = json!([id]);
    }
    let exesql = &mut components["ExeSQL:TiredShirtsPull"]["obj"]["params"];
    assert_eq!(
        exesql["database"],
        json!(""),
        "the template's database is unset"
    );
    exesql["database"] = json!(DATABASE);
    exesql["username"] = json!(USER);
    exesql["password"] = json!(PASSWORD);
    exesql["host"] = json!("127.0.0.1");
    exesql["db_type"] = json!("mariadb");

    let canvas = dir.join("canvas.json");
    std::fs::write(&canvas, dsl.to_string()).expect("canvas");
    // The checker accepts the canvas once the connection is set.
    let check = canvasc(&["check", utf8(&canvas)], &data);
    assert!(
        check.status.success(),
        "{}\n{}",
        text(&check.stdout),
        text(&check.stderr)
    );

    // The model writes SQL only when the schema and the samples were retrieved into its prompt.
    let script = json!({
        "default": "SELECT 'the schema was not retrieved'",
        "responses": [
            {"match": ["CREATE TABLE t2s_customers", "SELECT name FROM t2s_customers WHERE city = 'Lyon'"],
             "content": SQL, "times": -1}
        ]
    });
    let script_file = dir.join("script.json");
    std::fs::write(&script_file, script.to_string()).expect("script");
    let o = canvasc(
        &[
            "run",
            utf8(&canvas),
            "--query",
            "Which customers in Paris placed orders, and which items?",
            "--llm-script",
            utf8(&script_file),
        ],
        &data,
    );
    rt.block_on(drop_database());
    assert!(
        o.status.success(),
        "{}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    let events = events(&o);

    let agent = finished(&events, "Agent:WickedGoatsDivide");
    assert_eq!(agent["data"]["outputs"]["content"], json!(SQL), "{agent}");
    let exe = finished(&events, "ExeSQL:TiredShirtsPull");
    assert_eq!(exe["data"]["error"], Value::Null, "{exe}");
    assert_eq!(exe["data"]["inputs"], json!({"sql": SQL}), "{exe}");
    assert_eq!(
        exe["data"]["outputs"]["json"],
        json!([[
            {"name": "Amélie", "item": "router", "quantity": 2},
            {"name": "Chloé", "item": "switch", "quantity": 1},
            {"name": "Amélie", "item": "antenna", "quantity": 4}
        ]]),
        "{exe}"
    );
    let table = exe["data"]["outputs"]["formalized_content"]
        .as_str()
        .expect("a markdown table");
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 5, "{table}");
    assert!(
        lines[0].contains("name") && lines[0].contains("quantity"),
        "{table}"
    );
    for (line, want) in lines[2..].iter().zip(["Amélie", "Chloé", "Amélie"].iter()) {
        assert!(line.contains(want), "{table}");
    }

    let shown: String = events
        .iter()
        .filter(|e| e["event"] == "message")
        .filter_map(|e| e["data"]["content"].as_str())
        .collect();
    assert_eq!(shown, table, "the Message shows the ExeSQL table");
    let done = events
        .iter()
        .find(|e| e["event"] == "workflow_finished")
        .expect("workflow_finished");
    assert_eq!(done["data"]["outputs"]["content"], json!(table), "{done}");
    let _ = std::fs::remove_dir_all(&dir);
}
