//! Runs' streams in Redis, readable from every replica: one Redis stream per run
//! (`agent:run-events:{run_id}`), each entry under the explicit id `0-{n}` (`n` its position,
//! so `Last-Event-ID` is the stream id) with its data in the field `d`. Beside it,
//! `…:attempt` names the run's attempt: a resumed run writes a new stream under the same run
//! id, and a reader of the earlier one notices the attempt change instead of reading on into
//! the new numbering. The attempt key exists from the writer's start, so it also says that the
//! run's stream is kept before any frame is.
//!
//! A writer hands its frames to a task of its own that appends whatever has queued up in one
//! pipeline (`XADD … MAXLEN ~`, and the key's TTL), so a run never waits on Redis. Readers
//! that follow a run live block in `XREAD` on a connection of their own: a blocking command on
//! the shared connection would hold up every other command behind it.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::FutureExt;
use redis::aio::{ConnectionManager, MultiplexedConnection};
use redis::{AsyncCommands, AsyncConnectionConfig, Client};
use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit, Semaphore};

use super::{Entry, Read, RunStreams, StreamLimits, StreamReader, StreamWriter};
use crate::coord::{CoordError, CoordResult, Keys};

/// A running run's stream lives at least this long past its latest append (a run may wait
/// on a slow model well past the retention window before its next frame).
const RUNNING_TTL: Duration = Duration::from_secs(3600);
/// Frames appended in one pipeline at most.
const BATCH: usize = 512;
/// How long a run's end waits for its frames to be stored.
const END_WAIT: Duration = Duration::from_secs(5);
/// Entries read in one reply at most: a reader replaying a long run holds a slice of it at a
/// time, and sends it on while the next is read.
const READ_COUNT: usize = 2_000;
/// Frames waiting for Redis at most per run; beyond, frames are dropped (and logged): a
/// reattaching client is told what it cannot have, the run goes on.
const QUEUED_FRAMES: usize = 20_000;
/// Readers of this replica that wait in `XREAD BLOCK`, each on a connection of its own; the
/// ones beyond look again every [`POLL`] on the shared connection.
const BLOCKING_READERS: usize = 256;
const POLL: Duration = Duration::from_millis(100);

fn failed(e: redis::RedisError) -> CoordError {
    CoordError(format!(
        "the run's kept events (Redis) could not be read: {e}"
    ))
}

pub(crate) struct RedisStreams {
    client: Client,
    conn: ConnectionManager,
    keys: Keys,
    limits: StreamLimits,
    blocking: Arc<Semaphore>,
}

impl RedisStreams {
    pub fn new(
        client: Client,
        conn: ConnectionManager,
        keys: Keys,
        limits: StreamLimits,
    ) -> RedisStreams {
        RedisStreams {
            client,
            conn,
            keys,
            limits,
            blocking: Arc::new(Semaphore::new(BLOCKING_READERS)),
        }
    }
}

enum Queued {
    Frame(u64, Arc<str>),
    End(oneshot::Sender<()>),
}

impl RunStreams for RedisStreams {
    fn writer(&self, run_id: &str) -> Box<dyn StreamWriter> {
        let (tx, rx) = mpsc::channel(QUEUED_FRAMES);
        let keys = (self.keys.run_events(run_id), self.keys.run_attempt(run_id));
        tokio::spawn(append(self.conn.clone(), keys, self.limits, rx));
        Box::new(RedisWriter {
            tx,
            next: 1,
            dropped: false,
        })
    }

    fn reader(&self, run_id: &str) -> Box<dyn StreamReader> {
        Box::new(RedisReader {
            client: self.client.clone(),
            conn: self.conn.clone(),
            key: self.keys.run_events(run_id),
            attempt_key: self.keys.run_attempt(run_id),
            permits: self.blocking.clone(),
            blocking: None,
            attempt: None,
        })
    }

    fn kept_bytes(&self) -> usize {
        0
    }
}

struct RedisWriter {
    tx: mpsc::Sender<Queued>,
    next: u64,
    dropped: bool,
}

impl StreamWriter for RedisWriter {
    fn push(&mut self, data: Arc<str>) {
        if self.tx.try_send(Queued::Frame(self.next, data)).is_err() && !self.dropped {
            eprintln!(
                "canvasc serve: Redis keeps up with no more of a run's events ({QUEUED_FRAMES} waiting); frames from {} on are not kept for reattaching",
                self.next
            );
            self.dropped = true;
        }
        self.next += 1;
    }

    fn end(self: Box<Self>) -> BoxFuture<'static, ()> {
        let (done, stored) = oneshot::channel();
        let tx = self.tx.clone();
        async move {
            // Waits for room behind the frames, and for them to be stored, boundedly.
            let _ = tokio::time::timeout(END_WAIT, async move {
                if tx.send(Queued::End(done)).await.is_ok() {
                    let _ = stored.await;
                }
            })
            .await;
        }
        .boxed()
    }
}

/// Appends a run's frames as they queue up; at the end, sets the retention TTL.
async fn append(
    mut conn: ConnectionManager,
    (key, attempt_key): (String, String),
    limits: StreamLimits,
    mut rx: mpsc::Receiver<Queued>,
) {
    let running_ms = RUNNING_TTL.max(limits.retention).as_millis() as u64;
    // A resumed run's stream starts again from 1: the earlier one's entries go, and the
    // attempt key names this attempt from now on.
    let mut warned = false;
    let attempt = crate::clock::new_id();
    let started = redis::pipe()
        .del(&key)
        .ignore()
        .cmd("SET")
        .arg(&attempt_key)
        .arg(&attempt)
        .arg("PX")
        .arg(running_ms)
        .ignore()
        .query_async::<()>(&mut conn)
        .await;
    if let Err(e) = started {
        eprintln!(
            "canvasc serve: {key}: the run's events could not be kept in Redis ({e}); a client reattaching misses them"
        );
        warned = true;
    }
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(more) => batch.push(more),
                Err(_) => break,
            }
        }
        let mut pipe = redis::pipe();
        let mut ended = None;
        for queued in batch {
            match queued {
                Queued::Frame(id, data) => {
                    pipe.cmd("XADD")
                        .arg(&key)
                        .arg("MAXLEN")
                        .arg("~")
                        .arg(limits.max_events)
                        .arg(format!("0-{id}"))
                        .arg("d")
                        .arg(&*data)
                        .ignore();
                }
                Queued::End(done) => ended = Some(done),
            }
        }
        let ttl_ms = match ended {
            Some(_) => limits.retention.as_millis() as u64,
            None => running_ms,
        };
        pipe.cmd("PEXPIRE").arg(&key).arg(ttl_ms).ignore();
        pipe.cmd("PEXPIRE").arg(&attempt_key).arg(ttl_ms).ignore();
        if let Err(e) = pipe.query_async::<()>(&mut conn).await {
            if !warned {
                eprintln!(
                    "canvasc serve: {key}: the run's events could not be kept in Redis ({e}); a client reattaching misses them"
                );
                warned = true;
            }
        }
        if let Some(done) = ended {
            let _ = done.send(());
            return;
        }
    }
}

struct RedisReader {
    client: Client,
    conn: ConnectionManager,
    key: String,
    attempt_key: String,
    permits: Arc<Semaphore>,
    /// The connection blocking reads wait on (and its place among this replica's), made at
    /// the first one.
    blocking: Option<(MultiplexedConnection, OwnedSemaphorePermit)>,
    /// The attempt of the entries read so far.
    attempt: Option<String>,
}

/// The entries of an `XRANGE` reply (`[[id, [field, value, …]], …]`), read off the reply's
/// buffers: a replay of a long run is thousands of them.
fn entries(reply: redis::Value) -> Vec<Entry> {
    let redis::Value::Array(items) = reply else {
        return Vec::new();
    };
    items
        .into_iter()
        .filter_map(|item| {
            let redis::Value::Array(mut parts) = item else {
                return None;
            };
            let fields = parts.pop()?;
            let id = match parts.pop()? {
                redis::Value::BulkString(id) => std::str::from_utf8(&id)
                    .ok()?
                    .strip_prefix("0-")?
                    .parse()
                    .ok()?,
                _ => return None,
            };
            let redis::Value::Array(fields) = fields else {
                return None;
            };
            let mut fields = fields.into_iter();
            while let (Some(name), Some(value)) = (fields.next(), fields.next()) {
                let (redis::Value::BulkString(name), redis::Value::BulkString(value)) =
                    (name, value)
                else {
                    continue;
                };
                if name == b"d" {
                    let data = String::from_utf8(value).ok()?;
                    return Some(Entry {
                        id,
                        data: Arc::from(data),
                    });
                }
            }
            None
        })
        .collect()
}

/// The entries of an `XREAD` reply of one stream (`[[key, entries]]`, or a map in RESP3).
fn xread_entries(reply: redis::Value) -> Vec<Entry> {
    match reply {
        redis::Value::Array(streams) => streams
            .into_iter()
            .filter_map(|stream| match stream {
                redis::Value::Array(mut pair) => pair.pop(),
                _ => None,
            })
            .flat_map(entries)
            .collect(),
        redis::Value::Map(streams) => streams.into_iter().flat_map(|(_, e)| entries(e)).collect(),
        _ => Vec::new(),
    }
}

impl RedisReader {
    /// The connection this reader blocks on; `None` when this replica's blocking readers
    /// are all taken (the reader polls instead).
    async fn blocking(
        &mut self,
        wait: Duration,
    ) -> CoordResult<Option<&mut MultiplexedConnection>> {
        if self.blocking.is_none() {
            let Ok(permit) = self.permits.clone().try_acquire_owned() else {
                return Ok(None);
            };
            let config = AsyncConnectionConfig::new()
                .set_connection_timeout(Some(Duration::from_secs(2)))
                .set_response_timeout(Some(wait + Duration::from_secs(2)));
            let conn = self
                .client
                .get_multiplexed_async_connection_with_config(&config)
                .await
                .map_err(failed)?;
            self.blocking = Some((conn, permit));
        }
        Ok(self.blocking.as_mut().map(|(conn, _)| conn))
    }

    /// Whether `attempt` (the attempt key read with the entries) is the one read so far.
    fn same_attempt(&mut self, attempt: Option<String>) -> Option<Read> {
        let Some(attempt) = attempt else {
            return Some(Read::NotKept);
        };
        match &self.attempt {
            Some(seen) if *seen != attempt => Some(Read::Replaced),
            Some(_) => None,
            None => {
                self.attempt = Some(attempt);
                None
            }
        }
    }
}

impl StreamReader for RedisReader {
    fn read<'a>(&'a mut self, after: u64, wait: Duration) -> BoxFuture<'a, CoordResult<Read>> {
        async move {
            let (attempt, reply): (Option<String>, redis::Value) = redis::pipe()
                .get(&self.attempt_key)
                .cmd("XRANGE")
                .arg(&self.key)
                .arg(format!("(0-{after}"))
                .arg("+")
                .arg("COUNT")
                .arg(READ_COUNT)
                .query_async(&mut self.conn)
                .await
                .map_err(failed)?;
            if let Some(other) = self.same_attempt(attempt) {
                return Ok(other);
            }
            let found = entries(reply);
            if !found.is_empty() || wait.is_zero() {
                return Ok(Read::Entries(found));
            }
            let key = self.key.clone();
            let Some(conn) = self.blocking(wait).await? else {
                tokio::time::sleep(POLL.min(wait)).await;
                return Ok(Read::Entries(Vec::new()));
            };
            let reply: Result<redis::Value, _> = redis::cmd("XREAD")
                .arg("COUNT")
                .arg(READ_COUNT)
                .arg("BLOCK")
                .arg(wait.as_millis().max(1) as u64)
                .arg("STREAMS")
                .arg(&key)
                .arg(format!("0-{after}"))
                .query_async(conn)
                .await;
            let found = match reply {
                Ok(reply) => xread_entries(reply),
                Err(e) => {
                    // A connection that failed is made again at the next read.
                    self.blocking = None;
                    return Err(failed(e));
                }
            };
            if found.is_empty() {
                return Ok(Read::Entries(found));
            }
            // New entries may be a new attempt's (the run was resumed meanwhile).
            let attempt: Option<String> = self.conn.get(&self.attempt_key).await.map_err(failed)?;
            Ok(self.same_attempt(attempt).unwrap_or(Read::Entries(found)))
        }
        .boxed()
    }
}
