//! One server per database while runs are coordinated in-process. The in-process coordinator
//! holds leases and cancel notices in this process's memory, so a second process on the same
//! database would run the same session at once (the last save wins, a whole turn is lost) and
//! never hear the other's cancels. A server without Redis therefore claims its database for
//! as long as it lives, with a lock the operating system or the database server drops when the
//! process ends (a `kill -9` included), so a restart never waits for a stale claim to expire:
//!
//! * SQLite: an exclusive lock on `<database file>.serve-lock` (std's `File::try_lock`);
//! * PostgreSQL: a session advisory lock (`pg_try_advisory_lock`), held by a connection kept
//!   out of the pool;
//! * MySQL/MariaDB: a named lock (`GET_LOCK`) on such a connection, named after the database,
//!   since MySQL's lock names are server-wide.
//!
//! With Redis (`REDIS_URL`) several replicas share the database by design and nothing is
//! claimed.

use super::{redact, Backend, Store, StoreError};
use sqlx::AnyConnection;
use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

/// The advisory lock key canvasc servers take in a PostgreSQL database (an arbitrary constant:
/// the bytes of "canvasc1").
const PG_KEY: i64 = 0x6361_6e76_6173_6331;

/// Held while the server runs; dropping it releases the database.
#[derive(Default)]
pub struct SoleClaim {
    /// The locked file (SQLite); `None` for an in-memory database, which no other process
    /// can open.
    _file: Option<File>,
    /// The session that holds the lock (PostgreSQL, MySQL/MariaDB).
    _session: Option<AnyConnection>,
}

impl Store {
    /// Claims the database at `url` (this store's) for this process alone, or says which
    /// database another server holds.
    pub async fn claim_sole(&self, url: &str) -> Result<SoleClaim, StoreError> {
        let taken = || {
            StoreError::public(format!(
                "another canvasc serve process already uses the database {} with runs coordinated in its own process; stop it first, or set REDIS_URL on every server to run several against one database",
                redact(url)
            ))
        };
        let claim = match self.backend {
            Backend::Sqlite => match sqlite_file(url) {
                None => SoleClaim::default(),
                Some(db) => {
                    let path = lock_path(&db);
                    let file = File::options()
                        .create(true)
                        .truncate(false)
                        .write(true)
                        .open(&path)
                        .map_err(|e| {
                            StoreError::public(format!("cannot open {}: {e}", path.display()))
                        })?;
                    match file.try_lock() {
                        Ok(()) => SoleClaim {
                            _file: Some(file),
                            _session: None,
                        },
                        Err(TryLockError::WouldBlock) => return Err(taken()),
                        Err(TryLockError::Error(e)) => {
                            return Err(StoreError::public(format!(
                                "cannot lock {}: {e}",
                                path.display()
                            )))
                        }
                    }
                }
            },
            Backend::Postgres => {
                let mut conn = self.pool.acquire().await?.detach();
                let got: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1)")
                    .bind(PG_KEY)
                    .fetch_one(&mut conn)
                    .await?;
                if !got {
                    return Err(taken());
                }
                SoleClaim {
                    _file: None,
                    _session: Some(conn),
                }
            }
            Backend::MySql => {
                let mut conn = self.pool.acquire().await?.detach();
                // 1: taken now; 0: another session holds it; NULL: an error.
                let got: Option<i64> = sqlx::query_scalar(
                    "SELECT CAST(GET_LOCK(CONCAT('canvasc-serve:', SHA1(DATABASE())), 0) AS SIGNED)",
                )
                .fetch_one(&mut conn)
                .await?;
                match got {
                    Some(1) => SoleClaim {
                        _file: None,
                        _session: Some(conn),
                    },
                    Some(_) => return Err(taken()),
                    None => {
                        return Err(StoreError::public(format!(
                            "the database {} refused a named lock (GET_LOCK)",
                            redact(url)
                        )))
                    }
                }
            }
        };
        Ok(claim)
    }
}

/// The database file a `sqlite:` URL names, `None` for an in-memory database.
fn sqlite_file(url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("sqlite:")?;
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    let path = rest.split('?').next().unwrap_or_default();
    let memory = path.is_empty() || path == ":memory:" || url.contains("mode=memory");
    (!memory).then(|| PathBuf::from(path))
}

fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".serve-lock");
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sqlite_file_of_every_url_form() {
        assert_eq!(
            sqlite_file("sqlite:///tmp/d/canvasc.db?mode=rwc"),
            Some(PathBuf::from("/tmp/d/canvasc.db"))
        );
        assert_eq!(
            sqlite_file("sqlite://data/canvasc.db"),
            Some(PathBuf::from("data/canvasc.db"))
        );
        assert_eq!(sqlite_file("sqlite:x.db"), Some(PathBuf::from("x.db")));
        assert_eq!(sqlite_file("sqlite::memory:"), None);
        assert_eq!(sqlite_file("sqlite://x.db?mode=memory"), None);
        assert_eq!(sqlite_file("postgres://h/db"), None);
    }
}
