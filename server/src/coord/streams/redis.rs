//! Runs' streams in Redis, readable from every replica: one Redis stream per run
//! (`agent:run-events:{run_id}`), each entry under the explicit id `0-{n}` (`n` its position,
//! so `Last-Event-ID` is the stream id) with its data in the field `d`.
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
use redis::{AsyncConnectionConfig, Client};
use tokio::sync::{mpsc, oneshot};

use super::{Entry, Read, RunStreams, StreamLimits, StreamReader, StreamWriter};
use crate::coord::{CoordError, CoordResult, Keys};

/// A running run's stream lives at least this long past its latest append (a run may wait
/// on a slow model well past the retention window before its next frame).
const RUNNING_TTL: Duration = Duration::from_secs(3600);
/// Frames appended in one pipeline at most.
const BATCH: usize = 512;
/// How long a run's end waits for its frames to be stored.
const END_WAIT: Duration = Duration::from_secs(5);
/// Entries read in one reply at most: a reattaching client's replay of a long run takes few
/// round trips (10,000 frames of a streamed answer are about 2.5 MB).
const READ_COUNT: usize = 10_000;

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
        }
    }
}

enum Queued {
    Frame(u64, Arc<str>),
    End(oneshot::Sender<()>),
}

impl RunStreams for RedisStreams {
    fn writer(&self, run_id: &str) -> Box<dyn StreamWriter> {
        let (tx, rx) = mpsc::unbounded_channel();
        let key = self.keys.run_events(run_id);
        tokio::spawn(append(self.conn.clone(), key, self.limits, rx));
        Box::new(RedisWriter { tx, next: 1 })
    }

    fn reader(&self, run_id: &str) -> Box<dyn StreamReader> {
        Box::new(RedisReader {
            client: self.client.clone(),
            conn: self.conn.clone(),
            key: self.keys.run_events(run_id),
            blocking: None,
        })
    }

    fn kept_bytes(&self) -> usize {
        0
    }
}

struct RedisWriter {
    tx: mpsc::UnboundedSender<Queued>,
    next: u64,
}

impl StreamWriter for RedisWriter {
    fn push(&mut self, data: Arc<str>) {
        let _ = self.tx.send(Queued::Frame(self.next, data));
        self.next += 1;
    }

    fn end(self: Box<Self>) -> BoxFuture<'static, ()> {
        let (done, stored) = oneshot::channel();
        let _ = self.tx.send(Queued::End(done));
        async move {
            let _ = tokio::time::timeout(END_WAIT, stored).await;
        }
        .boxed()
    }
}

/// Appends a run's frames as they queue up; at the end, sets the retention TTL.
async fn append(
    mut conn: ConnectionManager,
    key: String,
    limits: StreamLimits,
    mut rx: mpsc::UnboundedReceiver<Queued>,
) {
    // A resumed run's stream starts again from 1: the earlier one's entries go.
    let mut fresh = true;
    let mut warned = false;
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(more) => batch.push(more),
                Err(_) => break,
            }
        }
        let mut pipe = redis::pipe();
        if fresh {
            pipe.del(&key).ignore();
            fresh = false;
        }
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
        let ttl = match ended {
            Some(_) => limits.retention,
            None => RUNNING_TTL.max(limits.retention),
        };
        pipe.pexpire(&key, ttl.as_millis() as i64).ignore();
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
    /// The connection blocking reads wait on, made at the first one.
    blocking: Option<MultiplexedConnection>,
}

/// `XRANGE`/`XREAD` entries: `[id, [field, value, …]]`.
type RawEntries = Vec<(String, Vec<String>)>;

fn entries(raw: RawEntries) -> Vec<Entry> {
    raw.into_iter()
        .filter_map(|(id, fields)| {
            let n = id.strip_prefix("0-")?.parse().ok()?;
            let data = fields
                .chunks(2)
                .find(|pair| pair[0] == "d")
                .and_then(|pair| pair.get(1))?;
            Some(Entry {
                id: n,
                data: Arc::from(data.as_str()),
            })
        })
        .collect()
}

impl RedisReader {
    async fn blocking(&mut self, wait: Duration) -> CoordResult<&mut MultiplexedConnection> {
        if self.blocking.is_none() {
            let config = AsyncConnectionConfig::new()
                .set_connection_timeout(Some(Duration::from_secs(2)))
                .set_response_timeout(Some(wait + Duration::from_secs(2)));
            let conn = self
                .client
                .get_multiplexed_async_connection_with_config(&config)
                .await
                .map_err(failed)?;
            self.blocking = Some(conn);
        }
        self.blocking
            .as_mut()
            .ok_or_else(|| CoordError("no Redis connection".into()))
    }
}

impl StreamReader for RedisReader {
    fn read<'a>(&'a mut self, after: u64, wait: Duration) -> BoxFuture<'a, CoordResult<Read>> {
        async move {
            let start = format!("(0-{after}");
            let raw: RawEntries = redis::cmd("XRANGE")
                .arg(&self.key)
                .arg(&start)
                .arg("+")
                .arg("COUNT")
                .arg(READ_COUNT)
                .query_async(&mut self.conn)
                .await
                .map_err(failed)?;
            if !raw.is_empty() {
                return Ok(Read::Entries(entries(raw)));
            }
            let exists: bool = redis::cmd("EXISTS")
                .arg(&self.key)
                .query_async(&mut self.conn)
                .await
                .map_err(failed)?;
            if !exists {
                return Ok(Read::NotKept);
            }
            if wait.is_zero() {
                return Ok(Read::Entries(Vec::new()));
            }
            let key = self.key.clone();
            let conn = self.blocking(wait).await?;
            let read: Result<Option<Vec<(String, RawEntries)>>, _> = redis::cmd("XREAD")
                .arg("COUNT")
                .arg(READ_COUNT)
                .arg("BLOCK")
                .arg(wait.as_millis().max(1) as u64)
                .arg("STREAMS")
                .arg(&key)
                .arg(format!("0-{after}"))
                .query_async(conn)
                .await;
            let read = match read {
                Ok(read) => read,
                Err(e) => {
                    // A connection that failed is made again at the next read.
                    self.blocking = None;
                    return Err(failed(e));
                }
            };
            let raw = read
                .into_iter()
                .flatten()
                .flat_map(|(_, raw)| raw)
                .collect();
            Ok(Read::Entries(entries(raw)))
        }
        .boxed()
    }
}
