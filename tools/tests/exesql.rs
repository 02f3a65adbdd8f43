//! ExeSQL against the machine's MariaDB (127.0.0.1:3306: root sets up, a user with a password
//! reads) and PostgreSQL (127.0.0.1:5432, postgres, trust): the test creates its tables, runs an
//! ExeSQL node and compares with what RAGFlow's engine makes of the same rows
//! (`tests/exesql/expected.<db>.json`, written by `tests/exesql/regenerate.sh` from the reference
//! oracle). Both databases must be reachable: the tests fail otherwise.
//!
//! The loopback servers are reached through the SSRF guard's configured allow-list
//! (`[tools.exesql] allowed_hosts`), the same path a deployment uses.

mod support;

use serde_json::{json, Value as Json};
use sqlx::{Connection, Executor};
use support::{node_canvas, registry, run};

const QUERY: &str = "SELECT id, name, score, bonus, active FROM exesql_people ORDER BY name";
const ALLOW: &str = "[tools.exesql]\nallowed_hosts = \"127.0.0.1\"\n";
/// RAGFlow's parameter check refuses an empty password, so the canvas cannot connect as
/// MariaDB's password-less root: the set-up makes this user (PostgreSQL trusts any password).
const MARIADB_USER: &str = "canvasc_exesql";
const PASSWORD: &str = "canvasc-exesql";

fn expected(db: &str) -> Json {
    let path = format!(
        "{}/tests/exesql/expected.{db}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("expected outputs (run regenerate.sh)");
    serde_json::from_str(&text).expect("expected outputs are JSON")
}

/// The tests of one database share its `exesql_people` table, and libtest runs them at once:
/// each holds its database's lock from set-up to the end of its run.
static MARIADB: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
static POSTGRES: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn mariadb() -> tokio::sync::MutexGuard<'static, ()> {
    let table = MARIADB.lock().await;
    let mut conn = sqlx::MySqlConnection::connect("mysql://root@127.0.0.1:3306/")
        .await
        .expect("MariaDB on 127.0.0.1:3306 (root, no password)");
    for stmt in [
        "CREATE DATABASE IF NOT EXISTS canvasc_exesql",
        "DROP TABLE IF EXISTS canvasc_exesql.exesql_people",
        "CREATE TABLE canvasc_exesql.exesql_people (id INT, name VARCHAR(40), score DOUBLE NULL, bonus INT NULL, active BOOLEAN)",
        "INSERT INTO canvasc_exesql.exesql_people VALUES (1, 'alice', 2.5, 7, TRUE), (22, 'bob', NULL, NULL, FALSE), (3, 'héllo wörld', 0.125, 1, TRUE)",
    ] {
        conn.execute(stmt).await.expect(stmt);
    }
    // Over TCP from 127.0.0.1 MariaDB matches the client as `localhost` or `127.0.0.1`.
    for host in ["localhost", "127.0.0.1"] {
        for stmt in [
            format!(
                "CREATE USER IF NOT EXISTS '{MARIADB_USER}'@'{host}' IDENTIFIED BY '{PASSWORD}'"
            ),
            format!("GRANT SELECT ON canvasc_exesql.* TO '{MARIADB_USER}'@'{host}'"),
        ] {
            conn.execute(stmt.as_str()).await.expect(&stmt);
        }
    }
    table
}

async fn postgres() -> tokio::sync::MutexGuard<'static, ()> {
    let table = POSTGRES.lock().await;
    let mut admin = sqlx::PgConnection::connect("postgres://postgres@127.0.0.1:5432/postgres")
        .await
        .expect("PostgreSQL on 127.0.0.1:5432 (postgres, trust)");
    let exists: Option<(i32,)> =
        sqlx::query_as("SELECT 1 FROM pg_database WHERE datname = 'canvasc_exesql'")
            .fetch_optional(&mut admin)
            .await
            .expect("list databases");
    if exists.is_none() {
        // Two tests may race to create it; the loser's error is harmless.
        let _ = admin.execute("CREATE DATABASE canvasc_exesql").await;
    }
    let mut conn = sqlx::PgConnection::connect("postgres://postgres@127.0.0.1:5432/canvasc_exesql")
        .await
        .expect("PostgreSQL database canvasc_exesql");
    for stmt in [
        "DROP TABLE IF EXISTS exesql_people",
        "CREATE TABLE exesql_people (id INTEGER, name VARCHAR(40), score DOUBLE PRECISION, bonus INTEGER, active BOOLEAN)",
        "INSERT INTO exesql_people VALUES (1, 'alice', 2.5, 7, TRUE), (22, 'bob', NULL, NULL, FALSE), (3, 'héllo wörld', 0.125, 1, TRUE)",
    ] {
        conn.execute(stmt).await.expect(stmt);
    }
    table
}

fn params(db_type: &str) -> Json {
    let (port, user) = if db_type == "postgres" {
        (5432, "postgres")
    } else {
        (3306, MARIADB_USER)
    };
    json!({"sql": "{sys.query}", "db_type": db_type, "database": "canvasc_exesql", "username": user,
           "host": "127.0.0.1", "port": port, "password": PASSWORD, "max_records": 1024})
}

async fn run_sql(db_type: &str, config: &str, query: &str) -> support::Ran {
    let dsl = node_canvas("ExeSQL", params(db_type), "formalized_content");
    run(&dsl, &json!({"default": "x"}), registry(config), query).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_rows_match_ragflow() {
    let _table = mariadb().await;
    let ran = run_sql("mariadb", ALLOW, QUERY).await;
    let want = expected("mysql");
    assert_eq!(ran.output("Tool:T", "_ERROR"), Json::Null);
    assert_eq!(
        ran.output("Tool:T", "formalized_content"),
        want["formalized_content"]
    );
    assert_eq!(ran.output("Tool:T", "json"), want["json"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_rows_match_ragflow() {
    let _table = postgres().await;
    let ran = run_sql("postgres", ALLOW, QUERY).await;
    let want = expected("postgres");
    assert_eq!(ran.output("Tool:T", "_ERROR"), Json::Null);
    assert_eq!(
        ran.output("Tool:T", "formalized_content"),
        want["formalized_content"]
    );
    assert_eq!(ran.output("Tool:T", "json"), want["json"]);
}

/// Statement by statement: a write is refused, a failing statement is reported with the
/// driver's text and the next one still runs, and an empty result stops the rest. (RAGFlow's
/// oracle fakes its database, so these texts are the reference's literals, tools.md §9.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statements_run_one_by_one_on_mariadb() {
    let _table = mariadb().await;
    let sql = "```\nDELETE FROM exesql_people; SELECT name FROM exesql_people WHERE id = 1 [ID:7];\
               SELECT * FROM exesql_missing; SELECT name FROM exesql_people WHERE id = 99; SELECT 1";
    let ran = run_sql("mysql", ALLOW, sql).await;
    let refused = "For security reasons, INSERT, UPDATE, and DELETE statements are not supported.";
    let failed = "SQL Execution Failed: SELECT * FROM exesql_missing\n(1146, \"Table 'canvasc_exesql.exesql_missing' doesn't exist\")";
    assert_eq!(
        ran.output("Tool:T", "json"),
        json!([
            {"content": "For security reasons, INSERT, UPDATE, and DELETE statements are not supported."},
            [{"name": "alice"}],
            {"content": failed},
            {"content": "No record in the database!"}
        ])
    );
    assert_eq!(
        ran.output("Tool:T", "formalized_content"),
        json!(format!(
            "{refused}\n\n| name   |\n|:-------|\n| alice  |\n\n{failed}"
        ))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_error_text_and_rollback() {
    let _table = postgres().await;
    let sql = "SELECT nope FROM exesql_people; SELECT count(*) AS n FROM exesql_people";
    let ran = run_sql("postgres", ALLOW, sql).await;
    assert_eq!(
        ran.output("Tool:T", "json"),
        json!([
            {"content": "SQL Execution Failed: SELECT nope FROM exesql_people\ncolumn \"nope\" does not exist\nLINE 1: SELECT nope FROM exesql_people\n               ^\n"},
            [{"n": 3}]
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_is_refused_without_the_allow_list() {
    let ran = run_sql("mysql", "", "SELECT 1").await;
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!("Database host '127.0.0.1' is not allowed: Host resolves to a non-public address (127.0.0.1), which is not allowed.")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_sql_is_an_error() {
    let ran = run_sql("mysql", ALLOW, "").await;
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!("SQL for `ExeSQL` MUST not be empty.")
    );
}
