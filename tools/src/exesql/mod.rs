//! ExeSQL (tools.md §9, `agent/tools/exesql.py`): runs the SQL a model or a canvas gives
//! against the database the node names, statement by statement, and returns the rows as
//! markdown tables (`formalized_content`) and as row objects (`json`).
//!
//! MySQL, MariaDB and PostgreSQL are reached through sqlx; `oceanbase` speaks MySQL's protocol.
//! MSSQL, IBM DB2 and Trino have no maintained pure-Rust driver in the workspace: a node naming
//! them fails with a clear error.

mod connection_test;
mod db;
pub mod frame;

pub use connection_test::{test_connection, Connection, TestFailure};

use crate::config::ToolsConfig;
use crate::host_guard::safe_host_with;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::interpolate::{element_str, string_format};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use db::{Db, Outcome, Target};
use futures::future::BoxFuture;
use regex::Regex;
use std::sync::{Arc, LazyLock};

/// The tool's name in the tools configuration (`[tools.exesql]`: its allowed hosts).
pub const SERVICE: &str = "exesql";
const REFUSED: &str =
    "For security reasons, INSERT, UPDATE, and DELETE statements are not supported.";
const NO_RECORD: &str = "No record in the database!";

static ID_MARK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[ID:[0-9]+\]").expect("valid pattern"));
static WRITE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(insert|update|delete)\b").expect("valid pattern"));

pub struct ExeSql {
    config: Arc<ToolsConfig>,
}

impl ExeSql {
    pub fn new(config: Arc<ToolsConfig>) -> Self {
        ExeSql { config }
    }
}

/// A parameter as text (`""` when unset).
fn text(cx: &ToolCx<'_>, key: &str) -> String {
    crate::common::param_text(cx, key)
}

/// The statements RAGFlow runs: the text split on `;`, fences removed, trimmed, empty pieces
/// skipped, `[ID:n]` citation markers removed.
pub fn statements(sql: &str) -> Vec<String> {
    sql.split(';')
        .map(|s| s.replace("```", "").trim().to_string())
        .filter(|s| !s.is_empty())
        .map(|s| ID_MARK.replace_all(&s, "").into_owned())
        .collect()
}

impl External for ExeSql {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            if cx.check_canceled() {
                return Ok(Json::Null);
            }
            let sql = match args.get("sql") {
                Some(v) if py::truthy(v) => match v {
                    Json::String(s) => s.clone(),
                    other => py::str_of(other),
                },
                _ => return Err(RunError::msg("SQL for `ExeSQL` MUST not be empty.")),
            };
            let mut kv = Vec::new();
            for (k, v) in cx.elements_from_text(&sql)? {
                let v = match element_str(&v) {
                    Json::String(s) => s,
                    other => py::json_dumps(&other),
                };
                if !cx.is_agent_tool() {
                    cx.set_input_value(&k, Json::String(v.clone()));
                }
                kv.push((k, Json::String(v)));
            }
            let sql = string_format(&sql, &kv);
            if cx.check_canceled() {
                return Ok(Json::Null);
            }

            let host = text(cx, "host");
            let ip = safe_host_with(
                &host,
                cx.resolver(),
                cx.settings().allow_any_host,
                self.config.allowed_hosts(SERVICE),
            )
            .await
            .map_err(|e| RunError::msg(format!("Database host '{host}' is not allowed: {e}")))?;

            let db_type = text(cx, "db_type");
            let postgres = match db_type.as_str() {
                "mysql" | "mariadb" | "oceanbase" => false,
                "postgres" => true,
                other => {
                    return Err(RunError::msg(format!(
                        "ExeSQL: db_type `{other}` is not supported by canvasc (mysql, mariadb, oceanbase and postgres are)"
                    )))
                }
            };
            let port = crate::common::param_int(cx, "port", 3306);
            let port = u16::try_from(port)
                .map_err(|_| RunError::msg(format!("ExeSQL: port `{port}` is not a TCP port")))?;
            let max_records =
                usize::try_from(crate::common::param_int(cx, "max_records", 1024)).unwrap_or(0);
            let (database, username, password) = (
                text(cx, "database"),
                text(cx, "username"),
                text(cx, "password"),
            );
            let target = Target {
                ip,
                port,
                database: &database,
                username: &username,
                password: &password,
            };
            let mut conn = Db::connect(postgres, &target)
                .await
                .map_err(|e| RunError::msg(format!("Database Connection Failed! \n{e}")))?;

            let mut json = Vec::new();
            let mut markdown = Vec::new();
            for stmt in statements(&sql) {
                if cx.check_canceled() {
                    conn.close().await;
                    return Ok(Json::Null);
                }
                if WRITE.is_match(&stmt) {
                    json.push(serde_json::json!({ "content": REFUSED }));
                    markdown.push(REFUSED.to_string());
                    continue;
                }
                match conn.run(&stmt, max_records).await {
                    Ok(Outcome::NoRecord) => {
                        json.push(serde_json::json!({ "content": NO_RECORD }));
                        break;
                    }
                    Ok(Outcome::Rows(frame)) => {
                        json.push(Json::Array(frame.records()));
                        markdown.push(frame.markdown());
                    }
                    Err(e) => {
                        conn.rollback().await;
                        let msg = format!("SQL Execution Failed: {stmt}\n{e}");
                        json.push(serde_json::json!({ "content": msg }));
                        markdown.push(msg);
                    }
                }
            }
            conn.close().await;
            let content = Json::String(markdown.join("\n\n"));
            cx.set_output("json", Json::Array(json));
            cx.set_output("formalized_content", content.clone());
            Ok(content)
        })
    }

    fn thoughts(&self, _params: &Map<String, Json>, _input: &Map<String, Json>) -> Option<String> {
        Some("Query sent—waiting for the data.".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_ragflow() {
        assert_eq!(
            statements("```sql\nSELECT 1 [ID:3];\n\n ; select 2 ```"),
            vec!["sql\nSELECT 1 ".to_string(), "select 2".to_string()]
        );
        assert!(WRITE.is_match("Delete from t"));
        assert!(!WRITE.is_match("deleted_rows"));
    }
}
