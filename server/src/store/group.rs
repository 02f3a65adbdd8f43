//! Group commit on SQLite: a run's writes (its record, its checkpoints, its turn) go through one
//! writer that commits whatever is queued in one transaction.
//!
//! Why: SQLite takes one writer at a time. With every request writing through its own pooled
//! connection, thousands of runs in flight each held a connection while waiting for the write
//! lock, the pool ran dry, and saves failed on the pool's acquire timeout: whole turns refused.
//! One writer holds one connection, a transaction costs one lock and one WAL append however
//! many writes it carries, and the queue in front of it is the back-pressure: a save waits for
//! its turn and is never refused for being late. Each write runs under its own savepoint, so
//! one that fails (a fenced turn) rolls back alone.

use futures::future::BoxFuture;
use sqlx::{AnyConnection, AnyPool};
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
    /// Starts the writer on `pool` (it takes a connection per group).
    pub(crate) fn start(pool: AnyPool) -> GroupWriter {
        let (queue, mut queued) = mpsc::channel::<Queued>(QUEUE);
        tokio::spawn(async move {
            while let Some(first) = queued.recv().await {
                let mut group = vec![first];
                while group.len() < GROUP {
                    match queued.try_recv() {
                        Ok(next) => group.push(next),
                        Err(_) => break,
                    }
                }
                commit(&pool, group).await;
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

/// Commits one group: each job under its own savepoint; a job's own failure rolls back only
/// its writes, while a failure of the transaction itself fails every job of the group.
async fn commit(pool: &AnyPool, group: Vec<Queued>) {
    let mut conn = loop {
        match pool.acquire().await {
            Ok(conn) => break conn,
            // Readers hold every connection: wait for one rather than refuse the writes.
            Err(sqlx::Error::PoolTimedOut) => continue,
            Err(e) => return fail(group, &e.into()),
        }
    };
    if let Err(e) = exec(&mut conn, "BEGIN IMMEDIATE").await {
        return fail(group, &e);
    }
    let mut results = Vec::with_capacity(group.len());
    let mut broken = None;
    for Queued { job, done } in group {
        if broken.is_some() {
            results.push((done, Ok(())));
            continue;
        }
        match one(&mut conn, job).await {
            Ok(result) => results.push((done, result)),
            Err(e) => {
                broken = Some(e);
                results.push((done, Ok(())));
            }
        }
    }
    let outcome = match broken {
        Some(e) => {
            let _ = exec(&mut conn, "ROLLBACK").await;
            Err(e)
        }
        None => exec(&mut conn, "COMMIT").await,
    };
    for (done, result) in results {
        let _ = done.send(match &outcome {
            Ok(()) => result,
            Err(e) => Err(e.same()),
        });
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
