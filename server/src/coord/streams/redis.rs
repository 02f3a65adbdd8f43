//! Runs' streams in Redis, readable from every replica: one Redis stream per run
//! (`agent:run-events:{run_id}`), each entry under the explicit id `0-{n}` (`n` its position,
//! so `Last-Event-ID` is the stream id) with its data in the field `d` and its attempt in `e`
//! (a resumed run writes a new stream under the same run id; a reader of the earlier one
//! notices the attempt change instead of reading on into the new numbering).
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
        let key = self.keys.run_events(run_id);
        tokio::spawn(append(self.conn.clone(), key, self.limits, rx));
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
    key: String,
    limits: StreamLimits,
    mut rx: mpsc::Receiver<Queued>,
) {
    // A resumed run's stream starts again from 1: the earlier one's entries go, and this
    // attempt's are marked as its own.
    let mut fresh = true;
    let attempt = crate::clock::new_id();
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
                        .arg("e")
                        .arg(&attempt)
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
    permits: Arc<Semaphore>,
    /// The connection blocking reads wait on (and its place among this replica's), made at
    /// the first one.
    blocking: Option<(MultiplexedConnection, OwnedSemaphorePermit)>,
    /// The attempt of the entries read so far.
    attempt: Option<String>,
}

/// `XRANGE`/`XREAD` entries: `[id, [field, value, …]]`.
type RawEntries = Vec<(String, Vec<String>)>;

/// The entries of a reply, each with its attempt.
fn entries(raw: RawEntries) -> Vec<(Entry, String)> {
    raw.into_iter()
        .filter_map(|(id, fields)| {
            let n = id.strip_prefix("0-")?.parse().ok()?;
            let field = |name: &str| {
                fields
                    .chunks(2)
                    .find(|pair| pair[0] == name)
                    .and_then(|pair| pair.get(1))
            };
            let entry = Entry {
                id: n,
                data: Arc::from(field("d")?.as_str()),
            };
            Some((entry, field("e").cloned().unwrap_or_default()))
        })
        .collect()
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

    /// The entries of a reply, or [`Read::Replaced`] when one is of another attempt than
    /// those read before.
    fn read_of(&mut self, raw: RawEntries) -> Read {
        let mut out = Vec::new();
        for (entry, attempt) in entries(raw) {
            match &self.attempt {
                Some(seen) if *seen != attempt => return Read::Replaced,
                Some(_) => {}
                None => self.attempt = Some(attempt),
            }
            out.push(entry);
        }
        Read::Entries(out)
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
                return Ok(self.read_of(raw));
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
            let Some(conn) = self.blocking(wait).await? else {
                tokio::time::sleep(POLL.min(wait)).await;
                return Ok(Read::Entries(Vec::new()));
            };
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
            Ok(self.read_of(raw))
        }
        .boxed()
    }
}
