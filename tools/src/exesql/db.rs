//! The two databases ExeSQL reaches through sqlx: MySQL/MariaDB (`pymysql` in RAGFlow) and
//! PostgreSQL (`psycopg2`). Statements go as plain text (MySQL's text protocol, PostgreSQL's
//! simple query), so every value arrives as text with its column type, which is all RAGFlow's
//! conversion needs, whatever the column type.
//!
//! Both Python drivers run statements inside a transaction they never commit; so does this.

use super::frame::{Cell, Frame};
use futures::TryStreamExt;
use sqlx::mysql::{MySqlConnectOptions, MySqlConnection, MySqlDatabaseError};
use sqlx::postgres::{PgConnectOptions, PgConnection, PgDatabaseError};
use sqlx::{Column, Connection, Either, Executor, Row, TypeInfo, ValueRef};
use std::net::IpAddr;
use std::time::Duration;

/// `pymysql`'s and `psycopg2`'s default connect timeout is unbounded; RAGFlow's component
/// timeout (60 s) bounds the whole call. A connection attempt gets 10 s here.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Where to connect: the address the SSRF guard resolved, pinned.
pub struct Target<'a> {
    pub ip: IpAddr,
    pub port: u16,
    pub database: &'a str,
    pub username: &'a str,
    pub password: &'a str,
}

/// What one statement gave.
pub enum Outcome {
    Rows(Frame),
    /// `cursor.rowcount == 0`.
    NoRecord,
}

pub enum Db {
    MySql(MySqlConnection),
    Postgres(PgConnection),
}

impl Db {
    pub async fn connect(postgres: bool, t: &Target<'_>) -> Result<Db, String> {
        let host = t.ip.to_string();
        let connecting = async {
            if postgres {
                let mut opts = PgConnectOptions::new()
                    .host(&host)
                    .port(t.port)
                    .username(t.username)
                    .database(t.database);
                // An empty password is no password, as the Python drivers send it.
                if !t.password.is_empty() {
                    opts = opts.password(t.password);
                }
                let mut conn = PgConnection::connect_with(&opts)
                    .await
                    .map_err(error_text)?;
                conn.execute(sqlx::raw_sql("BEGIN"))
                    .await
                    .map_err(error_text)?;
                Ok::<Db, String>(Db::Postgres(conn))
            } else {
                let mut opts = MySqlConnectOptions::new()
                    .host(&host)
                    .port(t.port)
                    .username(t.username)
                    .database(t.database);
                if !t.password.is_empty() {
                    opts = opts.password(t.password);
                }
                let mut conn = MySqlConnection::connect_with(&opts)
                    .await
                    .map_err(error_text)?;
                conn.execute(sqlx::raw_sql("SET autocommit=0"))
                    .await
                    .map_err(error_text)?;
                Ok::<Db, String>(Db::MySql(conn))
            }
        };
        match tokio::time::timeout(CONNECT_TIMEOUT, connecting).await {
            Ok(r) => r,
            Err(_) => Err(format!("timed out connecting to {host}:{}", t.port)),
        }
    }

    /// `cursor.execute(sql)` then `fetchmany(max_records)`, with the driver's error text.
    pub async fn run(&mut self, sql: &str, max_records: usize) -> Result<Outcome, String> {
        match self {
            Db::MySql(conn) => {
                let (columns, rows, affected) = fetch(&mut *conn, sql, max_records)
                    .await
                    .map_err(error_text)?;
                if rows.is_empty() {
                    if affected == 0 {
                        return Ok(Outcome::NoRecord);
                    }
                    // pymysql: no result set, so `cursor.description` is None.
                    return Err("'NoneType' object is not iterable".into());
                }
                Ok(Outcome::Rows(Frame::new(columns, rows)))
            }
            Db::Postgres(conn) => {
                let (columns, rows, _) = fetch(&mut *conn, sql, max_records)
                    .await
                    .map_err(|e| with_position(e, sql))?;
                if rows.is_empty() {
                    // psycopg2's rowcount is 0 only for a query that returned no rows; a
                    // statement without a result set has rowcount -1 and `fetchmany` raises.
                    let described = conn.describe(sql).await;
                    return match described {
                        Ok(d) if !d.columns().is_empty() => Ok(Outcome::NoRecord),
                        _ => Err("no results to fetch".into()),
                    };
                }
                Ok(Outcome::Rows(Frame::new(columns, rows)))
            }
        }
    }

    /// `db.rollback()` after a failed statement (errors ignored, as RAGFlow suppresses them).
    pub async fn rollback(&mut self) {
        match self {
            Db::MySql(conn) => {
                let _ = conn.execute(sqlx::raw_sql("ROLLBACK")).await;
            }
            Db::Postgres(conn) => {
                let _ = conn.execute(sqlx::raw_sql("ROLLBACK")).await;
                let _ = conn.execute(sqlx::raw_sql("BEGIN")).await;
            }
        }
    }

    /// `db.close()` without a commit.
    pub async fn close(self) {
        match self {
            Db::MySql(mut conn) => {
                let _ = conn.execute(sqlx::raw_sql("ROLLBACK")).await;
                let _ = conn.close().await;
            }
            Db::Postgres(mut conn) => {
                let _ = conn.execute(sqlx::raw_sql("ROLLBACK")).await;
                let _ = conn.close().await;
            }
        }
    }
}

/// The columns, up to `max` rows as cells, and the affected-row count of the last result.
async fn fetch<'c, E, DB>(
    conn: E,
    sql: &str,
    max: usize,
) -> Result<(Vec<String>, Vec<Vec<Cell>>, u64), sqlx::Error>
where
    E: Executor<'c, Database = DB>,
    DB: sqlx::Database,
    for<'r> String: sqlx::Decode<'r, DB>,
    for<'r> Vec<u8>: sqlx::Decode<'r, DB>,
    usize: sqlx::ColumnIndex<DB::Row>,
    DB::QueryResult: RowsAffected,
{
    let mut stream = conn.fetch_many(sqlx::raw_sql(sql));
    let mut columns = Vec::new();
    let mut rows = Vec::new();
    let mut affected = 0;
    while let Some(item) = stream.try_next().await? {
        match item {
            Either::Left(done) => affected = done.affected(),
            Either::Right(row) => {
                if columns.is_empty() {
                    columns = row.columns().iter().map(|c| c.name().to_string()).collect();
                }
                if rows.len() < max {
                    rows.push(cells::<DB>(&row));
                }
            }
        }
    }
    Ok((columns, rows, affected))
}

/// `QueryResult::rows_affected` of either driver.
pub trait RowsAffected {
    fn affected(&self) -> u64;
}

impl RowsAffected for sqlx::mysql::MySqlQueryResult {
    fn affected(&self) -> u64 {
        self.rows_affected()
    }
}

impl RowsAffected for sqlx::postgres::PgQueryResult {
    fn affected(&self) -> u64 {
        self.rows_affected()
    }
}

/// One row's values as the Python driver would have typed them.
fn cells<DB>(row: &DB::Row) -> Vec<Cell>
where
    DB: sqlx::Database,
    for<'r> String: sqlx::Decode<'r, DB>,
    for<'r> Vec<u8>: sqlx::Decode<'r, DB>,
    usize: sqlx::ColumnIndex<DB::Row>,
{
    (0..row.len())
        .map(|j| {
            let type_name = row.column(j).type_info().name().to_ascii_uppercase();
            match row.try_get_raw(j) {
                Ok(v) if v.is_null() => return Cell::None,
                Err(_) => return Cell::None,
                Ok(_) => {}
            }
            let text = match row.try_get_unchecked::<String, _>(j) {
                Ok(t) => t,
                Err(_) => {
                    let bytes = row.try_get_unchecked::<Vec<u8>, _>(j).unwrap_or_default();
                    return Cell::Str(bytes_repr(&bytes));
                }
            };
            typed(&type_name, text)
        })
        .collect()
}

/// The Python value a driver makes of a column's text, by the column's type name.
fn typed(type_name: &str, text: String) -> Cell {
    let base = type_name.trim_end_matches(" UNSIGNED");
    let int = |text: String| {
        text.trim()
            .parse::<i128>()
            .map_or(Cell::Str(text), Cell::Int)
    };
    match base {
        "TINYINT" | "SMALLINT" | "MEDIUMINT" | "INT" | "INTEGER" | "BIGINT" | "YEAR" | "INT2"
        | "INT4" | "INT8" | "OID" => int(text),
        "FLOAT" | "DOUBLE" | "REAL" | "FLOAT4" | "FLOAT8" => {
            canvasc_value::py::parse_float(&text).map_or(Cell::Str(text), Cell::Float)
        }
        // `decimal.Decimal(text)`.
        "DECIMAL" | "NUMERIC" => match canvasc_value::py::parse_float(&text) {
            Some(_) => Cell::Decimal(text),
            None => Cell::Str(text),
        },
        // PostgreSQL's boolean is `True`/`False` in psycopg2; MySQL's BOOLEAN is TINYINT(1),
        // an int in pymysql.
        "BOOL" | "BOOLEAN" => match text.as_str() {
            "t" | "true" => Cell::Bool(true),
            "f" | "false" => Cell::Bool(false),
            _ => int(text),
        },
        // `datetime.datetime`: a datetime64 column, which ExeSQL prints as `%Y-%m-%d`;
        // `datetime.date` is an object column printed by `str()`, the same ten characters.
        "DATETIME" | "TIMESTAMP" | "TIMESTAMPTZ" => Cell::DateTime(text),
        "DATE" => Cell::Str(text.chars().take(10).collect()),
        _ => Cell::Str(text),
    }
}

/// `str(b"...")` for a binary value.
fn bytes_repr(bytes: &[u8]) -> String {
    let mut out = String::from("b'");
    for b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(char::from(*b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('\'');
    out
}

/// psycopg2's `str(e)` for a statement: the message, then, when the server gave a position in
/// a one-line statement, libpq's `LINE 1: …` and a caret under the position.
fn with_position(e: sqlx::Error, sql: &str) -> String {
    if let sqlx::Error::Database(db) = &e {
        if let Some(pg) = db.try_downcast_ref::<PgDatabaseError>() {
            if let Some(sqlx::postgres::PgErrorPosition::Original(pos)) = pg.position() {
                if !sql.contains('\n') && sql.chars().count() <= 60 {
                    let pad = " ".repeat("LINE 1: ".len() + pos.saturating_sub(1));
                    return format!("{}\nLINE 1: {sql}\n{pad}^\n", pg.message());
                }
            }
            return format!("{}\n", pg.message());
        }
    }
    error_text(e)
}

/// The driver's `str(e)`: pymysql's `(code, 'message')`, psycopg2's message with the
/// server's `LINE`/caret lines when the server gave a position.
pub fn error_text(e: sqlx::Error) -> String {
    if let sqlx::Error::Database(db) = &e {
        if let Some(my) = db.try_downcast_ref::<MySqlDatabaseError>() {
            return format!(
                "({}, {})",
                my.number(),
                canvasc_value::py::repr_str(my.message())
            );
        }
        if let Some(pg) = db.try_downcast_ref::<PgDatabaseError>() {
            return pg.message().to_string();
        }
    }
    e.to_string()
}
