//! Group commit on SQLite: a run's writes (its record, its checkpoints, its turn) go through one
//! writer that commits whatever is queued in one transaction.
//!
//! Why: SQLite takes one writer at a time. With every request writing through its own pooled
//! connection, thousands of runs in flight each held a connection while waiting for the write
//! lock, the pool ran dry, and saves failed on the pool's acquire timeout: whole turns refused.
//! One writer holds one connection, a transaction costs one lock and one WAL append however
//! many writes it carries, and the queue in front of it is the back-pressure: a save waits for
//! its turn and is never refused for being late. Each write runs under its own savepoint, so
//! one that fails (a fenced turn) rolls back alone. The writer keeps its connection: each
//! statement is a round trip to the connection's thread, and so is taking a connection from
//! the pool and giving it back.

use futures::future::BoxFuture;
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyConnection, AnyPool};
use tokio::sync::{mpsc, oneshot};

use super::StoreError;

/// One write: its statements, run in the transaction it is given.
pub(crate) type Job =
    Box<dyn for<'c> FnOnce(&'c mut AnyConnection) -> BoxFuture<'c, Result<(), StoreError>> + Send>;

/// Makes a [`Job`] of a closure (the higher-ranked signature, spelled once).
pub(crate) fn job<F>(f: F) -> Job
where
    F: for<'c> FnOnce(&'c mut AnyConnection) -> BoxFuture<'c, Result<(), StoreError>>
        + Send
        + 'static,
{
    Box::new(f)
}

/// Writes waiting for the writer; a full queue makes writers wait (back-pressure).
const QUEUE: usize = 4096;
/// Writes in one transaction at most, so that one commit never holds the lock for long.
const GROUP: usize = 512;

struct Queued {
    job: Job,
    done: oneshot::Sender<Result<(), StoreError>>,
}

/// The queue in front of the one writer.
#[derive(Clone)]
pub(crate) struct GroupWriter {
    queue: mpsc::Sender<Queued>,
}

impl GroupWriter {
    /// Starts the writer on `pool` (it keeps one connection of it).
    pub(crate) fn start(pool: AnyPool) -> GroupWriter {
        let (queue, mut queued) = mpsc::channel::<Queued>(QUEUE);
        tokio::spawn(async move {
            // The writer's connection, kept between groups (taking one from the pool and giving
            // it back costs a round trip to its thread each way); taken again once one fails.
            let mut held: Option<PoolConnection<Any>> = None;
            while let Some(first) = queued.recv().await {
                let mut group = vec![first];
                while group.len() < GROUP {
                    match queued.try_recv() {
                        Ok(next) => group.push(next),
                        Err(_) => break,
                    }
                }
                let mut conn = match held.take() {
                    Some(conn) => conn,
                    None => match connection(&pool).await {
                        Ok(conn) => conn,
                        Err(e) => {
                            fail(group, &e);
                            continue;
                        }
                    },
                };
                if commit(&mut conn, group).await {
                    held = Some(conn);
                }
            }
        });
        GroupWriter { queue }
    }

    /// Runs `job` in the next group's transaction; its result once that is committed.
    pub(crate) async fn write(&self, job: Job) -> Result<(), StoreError> {
        let (done, answer) = oneshot::channel();
        let stopped = || StoreError::public("storage: the database writer stopped".into());
        self.queue
            .send(Queued { job, done })
            .await
            .map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }
}

/// Commits one group: each job under its own savepoint (a group of one needs none: its
/// transaction is its savepoint); a job's own failure rolls back only its writes, while a
/// failure of the transaction itself fails every job of the group. Whether the connection
/// ended the group cleanly (it may serve the next one).
async fn commit(conn: &mut AnyConnection, group: Vec<Queued>) -> bool {
    if let [_] = group.as_slice() {
        return commit_one(conn, group).await;
    }
    if let Err(e) = exec(conn, "BEGIN IMMEDIATE").await {
        fail(group, &e);
        return false;
    }
    let mut results = Vec::with_capacity(group.len());
    let mut broken = None;
    for Queued { job, done } in group {
        if broken.is_some() {
            results.push((done, Ok(())));
            continue;
        }
        match one(conn, job).await {
            Ok(result) => results.push((done, result)),
            Err(e) => {
                broken = Some(e);
                results.push((done, Ok(())));
            }
        }
    }
    let (outcome, clean) = match broken {
        Some(e) => (Err(e), false),
        None => {
            let committed = exec(conn, "COMMIT").await;
            let clean = committed.is_ok();
            (committed, clean)
        }
    };
    if !clean {
        let _ = exec(conn, "ROLLBACK").await;
    }
    for (done, result) in results {
        let _ = done.send(match &outcome {
            Ok(()) => result,
            Err(e) => Err(e.same()),
        });
    }
    clean
}

/// A group of one job: its transaction, rolled back when the job fails. Whether the
/// connection ended it cleanly.
async fn commit_one(conn: &mut AnyConnection, group: Vec<Queued>) -> bool {
    let Some(Queued { job, done }) = group.into_iter().next() else {
        return true;
    };
    if let Err(e) = exec(conn, "BEGIN IMMEDIATE").await {
        let _ = done.send(Err(e));
        return false;
    }
    let (result, clean) = match job(conn).await {
        Ok(()) => match exec(conn, "COMMIT").await {
            Ok(()) => (Ok(()), true),
            Err(e) => (Err(e), exec(conn, "ROLLBACK").await.is_ok()),
        },
        Err(e) => (Err(e), exec(conn, "ROLLBACK").await.is_ok()),
    };
    let _ = done.send(result);
    clean
}

/// A connection for the writer: readers may hold every one, so it waits rather than refuse
/// the writes.
async fn connection(pool: &AnyPool) -> Result<PoolConnection<Any>, StoreError> {
    loop {
        match pool.acquire().await {
            Ok(conn) => return Ok(conn),
            Err(sqlx::Error::PoolTimedOut) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// A job under a savepoint: `Ok(its result)`, or `Err` when the transaction itself failed.
async fn one(conn: &mut AnyConnection, job: Job) -> Result<Result<(), StoreError>, StoreError> {
    exec(conn, "SAVEPOINT job").await?;
    let result = job(conn).await;
    if result.is_err() {
        exec(conn, "ROLLBACK TO job").await?;
    }
    exec(conn, "RELEASE job").await?;
    Ok(result)
}

async fn exec(conn: &mut AnyConnection, sql: &str) -> Result<(), StoreError> {
    sqlx::query(sql).execute(conn).await?;
    Ok(())
}

fn fail(group: Vec<Queued>, e: &StoreError) {
    for Queued { done, .. } in group {
        let _ = done.send(Err(e.same()));
    }
}

#[cfg(test)]
mod tests {
    use super::{job, GroupWriter};
    use crate::store::StoreError;
    use sqlx::Row;

    /// Three writes queued at once share one transaction; the one that fails after writing
    /// leaves nothing, and the others are stored.
    #[tokio::test]
    async fn a_failing_write_rolls_back_alone_in_its_group() {
        sqlx::any::install_default_drivers();
        let dir = std::env::temp_dir().join(format!("canvasc-group-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let url = format!("sqlite://{}?mode=rwc", dir.join("group.db").display());
        let pool = sqlx::AnyPool::connect(&url).await.expect("SQLite");
        sqlx::query("CREATE TABLE IF NOT EXISTS t (v TEXT)")
            .execute(&pool)
            .await
            .expect("a table");
        let writer = GroupWriter::start(pool.clone());
        let insert = |v: &'static str, fail: bool| {
            job(move |conn| {
                Box::pin(async move {
                    sqlx::query("INSERT INTO t (v) VALUES (?)")
                        .bind(v)
                        .execute(&mut *conn)
                        .await?;
                    match fail {
                        true => Err(StoreError::public(format!("{v} refused"))),
                        false => Ok(()),
                    }
                })
            })
        };
        let (a, b, c) = tokio::join!(
            writer.write(insert("a", false)),
            writer.write(insert("b", true)),
            writer.write(insert("c", false)),
        );
        assert!(a.is_ok() && c.is_ok(), "{a:?} {c:?}");
        assert_eq!(b.map_err(|e| e.to_string()), Err("b refused".to_string()));
        let rows = sqlx::query("SELECT v FROM t ORDER BY v")
            .fetch_all(&pool)
            .await
            .expect("rows");
        let stored: Vec<String> = rows.iter().map(|r| r.get::<String, _>("v")).collect();
        assert_eq!(stored, ["a", "c"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
