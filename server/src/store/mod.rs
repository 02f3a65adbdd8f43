//! Storage behind one interface: the same queries run on SQLite, PostgreSQL and MySQL/MariaDB
//! through sqlx's `Any` driver. Queries are written once with `?` placeholders; PostgreSQL gets
//! them renumbered (`$1`, `$2`, …). Only the schema differs per database (`migrations/<db>/`),
//! because the three disagree on the types of long text and of binary data.

pub use sole::SoleClaim;

mod accounts;
mod agents;
mod builds;
mod canvases;
mod default_models;
mod files;
mod group;
mod invitations;
mod migrations;
mod run_logs;
mod runs;
pub(crate) mod session_state;
mod sessions;
mod sole;
mod turns;
mod versions;

use std::borrow::Cow;
use std::fmt;
use std::path::Path;

use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyPool, Row};

pub use accounts::{Admission, ApiKey, Registered, User};
pub use agents::{Agent, AgentSummary, NewAgent};
pub use builds::{BuildJob, BuildState, BuildStatus};
pub(crate) use canvases::content_id;
pub use canvases::StartingCanvas;
pub use files::{FileContent, NewFile, StoredFile};
pub use invitations::Invitation;
pub use run_logs::RunLog;
pub use runs::RunRow;
pub use sessions::{NewSession, SessionFilter, SessionRecord};
pub use versions::{Version, VersionSummary};

/// The database a URL names; it decides the schema and the placeholder syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
    MySql,
}

impl Backend {
    fn of_url(url: &str) -> Result<Backend, StoreError> {
        let scheme = url
            .split(':')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        match scheme.as_str() {
            "sqlite" => Ok(Backend::Sqlite),
            "postgres" | "postgresql" => Ok(Backend::Postgres),
            "mysql" | "mariadb" => Ok(Backend::MySql),
            _ => Err(StoreError::public(format!(
                "DATABASE_URL: unsupported database `{scheme}` (sqlite, postgres or mysql)"
            ))),
        }
    }
}

/// A storage failure. Its text is for the operator (logs, start-up errors); a client is told
/// [`StoreError::for_client`], which never carries the database's own words (table names,
/// constraint names, SQL, addresses).
#[derive(Debug)]
pub struct StoreError {
    text: String,
    /// The database's own words: hidden from clients.
    internal: bool,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for StoreError {}

impl StoreError {
    /// The same failure again, for each of several callers it failed.
    pub(crate) fn same(&self) -> StoreError {
        StoreError {
            text: self.text.clone(),
            internal: self.internal,
        }
    }

    /// A failure worded by the server, which a client may read.
    pub(crate) fn public(text: String) -> StoreError {
        StoreError {
            text,
            internal: false,
        }
    }

    /// What a client is told: the server's own wording, or for the database's words a
    /// generic message with an error id, the detail going to the log under that id.
    pub(crate) fn for_client(&self) -> String {
        if !self.internal {
            return self.text.clone();
        }
        let id = crate::clock::new_id();
        eprintln!("canvasc serve: error {id}: {}", self.text);
        format!("The server's database failed (error {id}); the server's log has the details.")
    }

    /// A row the server relies on is not there (deleted while a turn ran).
    pub(crate) fn missing(what: &str) -> StoreError {
        StoreError::public(format!("storage: {what} is gone"))
    }

    /// Recording the runs a previous process left running failed.
    pub(crate) fn recovery(why: &str) -> StoreError {
        StoreError::public(format!(
            "recording the interrupted runs of the previous process: {why}"
        ))
    }

    /// Another run claimed the session after this one started (this replica lost its lease).
    pub(crate) fn fenced(session: &str) -> StoreError {
        StoreError::public(format!(
            "session {session} was taken over by another run after this one lost its lease; this run's turn was not saved over it"
        ))
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        crate::telemetry::metrics::store_error();
        StoreError {
            text: format!("storage: {e}"),
            internal: true,
        }
    }
}

impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(e: sqlx::migrate::MigrateError) -> Self {
        StoreError::public(format!("storage migration: {e}"))
    }
}

/// The server's database: a connection pool and the dialect its queries are written for.
#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    /// SQLite's one writer of runs' records, checkpoints and turns (`group.rs`).
    group: Option<group::GroupWriter>,
    /// The canvases sessions started from, parsed (`canvases.rs`).
    canvases: std::sync::Arc<canvases::CanvasCache>,
}

/// How long a request waits for a database connection.
const ACQUIRE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

impl Store {
    /// Connects to `url` and applies the migrations this build carries.
    pub async fn open(url: &str) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let backend = Backend::of_url(url)?;
        let sqlite = backend == Backend::Sqlite;
        let pool = AnyPoolOptions::new()
            .max_connections(8)
            // A database that went away fails a request within this (RAGFlow's error
            // envelope) instead of holding it for sqlx's default 30 s.
            .acquire_timeout(ACQUIRE_TIMEOUT)
            // A SQLite connection is a file in this process: it cannot have gone away, and
            // testing it costs a round trip to its thread on every statement a request runs.
            .test_before_acquire(!sqlite)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if sqlite {
                        // Per connection. In WAL mode NORMAL still commits atomically (a crash
                        // never leaves half a turn); it syncs at checkpoints instead of at every
                        // commit, so concurrent turns do not queue behind one fsync each. Pages
                        // are read through a memory map (no system call per page read) and kept
                        // in a cache of 16 MiB per connection.
                        for pragma in [
                            "PRAGMA synchronous = NORMAL",
                            "PRAGMA mmap_size = 268435456",
                            "PRAGMA cache_size = -16384",
                        ] {
                            sqlx::query(pragma).execute(&mut *conn).await?;
                        }
                    }
                    Ok(())
                })
            })
            .connect(url)
            .await
            .map_err(|e| {
                StoreError::public(format!("cannot open the database {}: {e}", redact(url)))
            })?;
        let group = sqlite.then(|| group::GroupWriter::start(pool.clone()));
        let store = Store {
            pool,
            backend,
            group,
            canvases: Default::default(),
        };
        if backend == Backend::Sqlite {
            // Readers keep reading while a turn's state is written.
            sqlx::query("PRAGMA journal_mode = WAL")
                .execute(&store.pool)
                .await?;
        }
        migrations::apply(&store).await?;
        Ok(store)
    }

    /// The SQLite file under `data_dir` that a server without `DATABASE_URL` keeps its data in.
    pub fn sqlite_url(data_dir: &Path) -> String {
        format!(
            "sqlite://{}?mode=rwc",
            data_dir.join("canvasc.db").display()
        )
    }

    /// Whether the database answers (`SELECT 1`).
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// A transaction that reads and then writes. SQLite must take its write lock up front
    /// (`BEGIN IMMEDIATE`): a deferred transaction that upgrades from reading to writing fails
    /// with "database is locked" instead of waiting when another writer is active.
    async fn begin(&self) -> Result<sqlx::Transaction<'static, sqlx::Any>, StoreError> {
        Ok(match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await?,
            Backend::Postgres | Backend::MySql => self.pool.begin().await?,
        })
    }

    /// Runs `job` in a transaction of its own (PostgreSQL, MySQL: the pool's connections
    /// write concurrently), or on SQLite in the one writer's next group commit.
    pub(crate) async fn write(&self, job: group::Job) -> Result<(), StoreError> {
        if let Some(group) = &self.group {
            return group.write(job).await;
        }
        let mut tx = self.begin().await?;
        job(&mut tx).await?;
        tx.commit().await?;
        Ok(())
    }

    /// `sql` in this database's placeholder syntax.
    fn sql<'q>(&self, sql: &'q str) -> Cow<'q, str> {
        match self.backend {
            Backend::Postgres => Cow::Owned(numbered_placeholders(sql)),
            Backend::Sqlite | Backend::MySql => Cow::Borrowed(sql),
        }
    }
}

/// `?` placeholders renumbered as PostgreSQL's `$1`, `$2`, …; the queries of this module never
/// hold a `?` inside a literal.
fn numbered_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut n = 0;
    for ch in sql.chars() {
        if ch == '?' {
            n += 1;
            out.push('$');
            out.push_str(&n.to_string());
        } else {
            out.push(ch);
        }
    }
    out
}

/// The password part of a database URL replaced, so errors can name the URL.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let userinfo = &url[scheme_end + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme_end + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

/// A text column. MySQL reports `LONGTEXT` as a blob type, which the `Any` driver hands over
/// as bytes, so both forms are read.
fn text(row: &AnyRow, column: &str) -> Result<String, StoreError> {
    match row.try_get::<Option<String>, _>(column) {
        Ok(value) => Ok(value.unwrap_or_default()),
        Err(_) => Ok(row
            .try_get::<Option<Vec<u8>>, _>(column)?
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default()),
    }
}

/// A nullable text column (see [`text`]).
fn opt_text(row: &AnyRow, column: &str) -> Result<Option<String>, StoreError> {
    match row.try_get::<Option<String>, _>(column) {
        Ok(value) => Ok(value),
        Err(_) => Ok(row
            .try_get::<Option<Vec<u8>>, _>(column)?
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())),
    }
}

fn int(row: &AnyRow, column: &str) -> Result<i64, StoreError> {
    Ok(row.try_get::<i64, _>(column)?)
}

/// A JSON document stored as text; a row that holds no JSON reads as null rather than failing
/// the whole listing.
fn json(row: &AnyRow, column: &str) -> Result<serde_json::Value, StoreError> {
    Ok(parsed(&text(row, column)?))
}

/// A stored JSON text as a value (`null` when it is not JSON, as a column read with [`json`]).
pub(crate) fn parsed(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or(serde_json::Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_placeholders_are_numbered() {
        assert_eq!(
            numbered_placeholders("SELECT a FROM t WHERE b = ? AND c IN (?, ?)"),
            "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)"
        );
    }

    #[test]
    fn urls_name_their_backend_and_hide_passwords() {
        assert_eq!(
            Backend::of_url("postgres://u@h/db").ok(),
            Some(Backend::Postgres)
        );
        assert_eq!(
            Backend::of_url("mysql://root@h/db").ok(),
            Some(Backend::MySql)
        );
        assert_eq!(redact("postgres://u:secret@h/db"), "postgres://u:***@h/db");
        assert_eq!(redact("sqlite://x.db"), "sqlite://x.db");
        assert!(Backend::of_url("oracle://x").is_err());
    }
}
