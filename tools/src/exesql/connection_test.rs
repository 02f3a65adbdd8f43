//! The agent editor's "test connection" (RAGFlow's `POST /agents/test_db_connection`): the same
//! SSRF check and the same drivers as ExeSQL, then `SELECT 1`, so a connection that tests
//! fine is one ExeSQL can use.

use super::db::{Db, Outcome, Target};
use crate::host_guard::safe_host;

/// What to connect to, as the editor sends it.
pub struct Connection<'a> {
    pub db_type: &'a str,
    pub host: &'a str,
    pub port: u16,
    pub database: &'a str,
    pub username: &'a str,
    pub password: &'a str,
}

/// Why a connection test failed; the server maps each to RAGFlow's envelope.
#[derive(Debug, PartialEq, Eq)]
pub enum TestFailure {
    /// The SSRF guard refused the host or could not resolve it (RAGFlow: code 102).
    Host(String),
    /// A `db_type` RAGFlow does not know at all (RAGFlow's `Unsupported database type.`).
    UnknownType,
    /// A `db_type` RAGFlow reaches through a driver canvasc has no pure-Rust counterpart for.
    Unavailable(String),
    /// The connection or the `SELECT 1` failed: the driver's text.
    Driver(String),
}

/// RAGFlow's order: the host check first, then the type, then connect and `SELECT 1`.
/// `allow_any_host` and `allowed` are ExeSQL's own guard settings.
pub async fn test_connection(
    c: &Connection<'_>,
    allow_any_host: bool,
    allowed: &[String],
) -> Result<(), TestFailure> {
    let ip = safe_host(c.host, allow_any_host, allowed)
        .await
        .map_err(TestFailure::Host)?;
    let postgres = match c.db_type {
        "mysql" | "mariadb" | "oceanbase" => false,
        "postgres" => true,
        "mssql" | "IBM DB2" | "trino" => {
            return Err(TestFailure::Unavailable(format!(
            "db_type `{}` is not supported by canvasc (mysql, mariadb, oceanbase and postgres are)",
            c.db_type
        )))
        }
        _ => return Err(TestFailure::UnknownType),
    };
    let target = Target {
        ip,
        port: c.port,
        database: c.database,
        username: c.username,
        password: c.password,
    };
    let mut db = Db::connect(postgres, &target)
        .await
        .map_err(TestFailure::Driver)?;
    let ran = db.run("SELECT 1", 1).await;
    db.close().await;
    match ran {
        Ok(Outcome::Rows(_)) | Ok(Outcome::NoRecord) => Ok(()),
        Err(e) => Err(TestFailure::Driver(e)),
    }
}
