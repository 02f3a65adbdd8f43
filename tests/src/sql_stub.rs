//! The reference oracle fakes ExeSQL's database: its `pymysql` stand-in answers every
//! statement with the case's `sql` fixture (`{"columns", "rows"}`, `ragflow_ref/fixtures.py`).
//! canvasc's ExeSQL speaks to a real server, so a replay loads that fixture into a table of the
//! machine's MariaDB (127.0.0.1:3306, root without a password) and points the canvas's ExeSQL
//! nodes there; the SQL the scripted model writes then reads the same rows back.
//!
//! The connection the canvas names is not part of any event, so the stream is unchanged. The
//! user has a password because RAGFlow's checker refuses an empty one.

use canvasc_value::Json;
use sqlx::{Connection, Executor, MySqlConnection};

pub const DATABASE: &str = "canvasc_reference";
pub const USER: &str = "canvasc_reference";
pub const PASSWORD: &str = "canvasc-reference";

/// `DEFAULTS["sql"]` of the oracle's `fixtures.py`.
pub fn default_sql() -> Json {
    serde_json::json!({"columns": ["id", "name"], "rows": [[1, "alice"], [2, "bob"]]})
}

/// A column's MariaDB type, from the fixture's values (the first non-null one decides).
fn column_type(rows: &[Json], i: usize) -> &'static str {
    let first = rows.iter().filter_map(|r| r.get(i)).find(|v| !v.is_null());
    match first {
        Some(Json::Bool(_)) => "BOOLEAN",
        Some(Json::Number(n)) if n.is_i64() || n.is_u64() => "BIGINT",
        Some(Json::Number(_)) => "DOUBLE",
        _ => "TEXT",
    }
}

fn literal(v: &Json) -> String {
    match v {
        Json::Null => "NULL".into(),
        Json::Bool(b) => if *b { "TRUE" } else { "FALSE" }.into(),
        Json::Number(n) => n.to_string(),
        Json::String(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''")),
        other => format!("'{}'", other.to_string().replace('\'', "''")),
    }
}

/// Make `table` in [`DATABASE`] hold exactly the `sql` fixture's columns and rows, readable by
/// [`USER`].
pub async fn load(table: &str, fixture: &Json) -> Result<(), String> {
    let columns: Vec<&str> = fixture["columns"]
        .as_array()
        .map(|c| c.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default();
    let rows: Vec<Json> = fixture["rows"].as_array().cloned().unwrap_or_default();
    let mut conn = MySqlConnection::connect("mysql://root@127.0.0.1:3306/")
        .await
        .map_err(|e| format!("MariaDB on 127.0.0.1:3306 (root, no password): {e}"))?;
    let defs: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| format!("`{c}` {}", column_type(&rows, i)))
        .collect();
    let mut statements = vec![
        format!("CREATE DATABASE IF NOT EXISTS {DATABASE}"),
        format!(
            "CREATE OR REPLACE TABLE {DATABASE}.`{table}` ({})",
            defs.join(", ")
        ),
    ];
    if !rows.is_empty() {
        let values: Vec<String> = rows
            .iter()
            .map(|r| {
                let cells: Vec<String> = r
                    .as_array()
                    .map(|c| c.iter().map(literal).collect())
                    .unwrap_or_default();
                format!("({})", cells.join(", "))
            })
            .collect();
        statements.push(format!(
            "INSERT INTO {DATABASE}.`{table}` VALUES {}",
            values.join(", ")
        ));
    }
    // Over TCP from 127.0.0.1 MariaDB matches the client as `localhost` or `127.0.0.1`.
    for host in ["localhost", "127.0.0.1"] {
        statements.push(format!(
            "CREATE USER IF NOT EXISTS '{USER}'@'{host}' IDENTIFIED BY '{PASSWORD}'"
        ));
        statements.push(format!("GRANT SELECT ON {DATABASE}.* TO '{USER}'@'{host}'"));
    }
    for stmt in &statements {
        conn.execute(stmt.as_str())
            .await
            .map_err(|e| format!("{stmt}: {e}"))?;
    }
    Ok(())
}

/// Point every ExeSQL node of `dsl` at [`DATABASE`] on the machine's MariaDB.
pub fn point_at_fixture(dsl: &mut Json) {
    let Some(components) = dsl.get_mut("components").and_then(Json::as_object_mut) else {
        return;
    };
    for node in components.values_mut() {
        if node["obj"]["component_name"] != "ExeSQL" {
            continue;
        }
        let Some(params) = node["obj"]["params"].as_object_mut() else {
            continue;
        };
        for (k, v) in [
            ("db_type", Json::from("mysql")),
            ("host", Json::from("127.0.0.1")),
            ("port", Json::from(3306)),
            ("database", Json::from(DATABASE)),
            ("username", Json::from(USER)),
            ("password", Json::from(PASSWORD)),
        ] {
            params.insert(k.to_string(), v);
        }
    }
}
