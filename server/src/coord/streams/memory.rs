//! Runs' streams in this process (one replica). Each run's entries sit behind their own lock,
//! so a run appending never waits on another; readers of a run wake on its notice. The map of
//! runs counts the bytes kept: over the budget, finished runs go first (oldest ended first),
//! then the appending run loses its oldest entries.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use futures::FutureExt;
use tokio::sync::Notify;

use super::{Entry, Read, RunStreams, StreamLimits, StreamReader, StreamWriter};
use crate::coord::CoordResult;

/// What an entry costs besides its text: the `Arc`'s counts and the slot in the list.
const ENTRY_OVERHEAD: usize = 32;
/// What a run's stream costs besides its entries (map slot, id, lock, notice).
const RUN_OVERHEAD: usize = 256;
/// Entries one read gives at most, so a reader replaying a long run holds a slice of it at a
/// time, not a copy of all of it.
const READ_MAX: usize = 2_000;

#[derive(Default)]
struct Kept {
    /// Id of `entries[0]`.
    first: u64,
    entries: VecDeque<Arc<str>>,
    bytes: usize,
    ended: Option<Instant>,
}

struct RunStream {
    kept: Mutex<Kept>,
    notify: Notify,
}

impl RunStream {
    fn lock(&self) -> MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[derive(Default)]
struct Runs {
    by_id: HashMap<String, Arc<RunStream>>,
    /// Ended runs, oldest end first (the retention is one length, so this is expiry order).
    ended: VecDeque<(Instant, String)>,
}

pub(crate) struct MemoryStreams {
    limits: StreamLimits,
    runs: Mutex<Runs>,
    /// Bytes kept by every run (entries and overheads).
    bytes: Arc<AtomicUsize>,
}

impl MemoryStreams {
    pub fn new(limits: StreamLimits) -> Arc<MemoryStreams> {
        Arc::new(MemoryStreams {
            limits,
            runs: Mutex::new(Runs::default()),
            bytes: Arc::new(AtomicUsize::new(0)),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Runs> {
        self.runs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Drops runs whose retention is over, and over the budget the oldest ended ones.
    fn sweep(&self, runs: &mut Runs, now: Instant) {
        while let Some((ended, id)) = runs.ended.front() {
            let expired = now.duration_since(*ended) >= self.limits.retention;
            let over = self.bytes.load(Ordering::Relaxed) > self.limits.memory_budget;
            if !expired && !over {
                break;
            }
            let (ended, id) = (*ended, id.clone());
            runs.ended.pop_front();
            // A resumed run may have replaced the stream that ended then: that one stays.
            let same = runs
                .by_id
                .get(&id)
                .is_some_and(|s| s.lock().ended == Some(ended));
            if same {
                if let Some(stream) = runs.by_id.remove(&id) {
                    let freed = stream.lock().bytes + RUN_OVERHEAD;
                    self.bytes.fetch_sub(freed, Ordering::Relaxed);
                }
            }
        }
    }
}

impl RunStreams for Arc<MemoryStreams> {
    fn writer(&self, run_id: &str) -> Box<dyn StreamWriter> {
        let stream = Arc::new(RunStream {
            kept: Mutex::new(Kept {
                first: 1,
                ..Kept::default()
            }),
            notify: Notify::new(),
        });
        let mut runs = self.lock();
        self.sweep(&mut runs, Instant::now());
        self.bytes.fetch_add(RUN_OVERHEAD, Ordering::Relaxed);
        if let Some(old) = runs.by_id.insert(run_id.to_string(), stream.clone()) {
            let freed = old.lock().bytes + RUN_OVERHEAD;
            self.bytes.fetch_sub(freed, Ordering::Relaxed);
            // Its readers read on from the new stream's start.
            old.notify.notify_waiters();
        }
        Box::new(MemoryWriter {
            streams: self.clone(),
            run_id: run_id.to_string(),
            stream,
            ended: false,
        })
    }

    fn reader(&self, run_id: &str) -> Box<dyn StreamReader> {
        Box::new(MemoryReader {
            streams: self.clone(),
            run_id: run_id.to_string(),
            following: None,
        })
    }

    fn kept_bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }
}

struct MemoryWriter {
    streams: Arc<MemoryStreams>,
    run_id: String,
    stream: Arc<RunStream>,
    ended: bool,
}

impl MemoryWriter {
    /// The stream is kept for the retention window from now.
    fn finish(&mut self) {
        if std::mem::replace(&mut self.ended, true) {
            return;
        }
        let now = Instant::now();
        self.stream.lock().ended = Some(now);
        self.stream.notify.notify_waiters();
        let mut runs = self.streams.lock();
        runs.ended.push_back((now, self.run_id.clone()));
        self.streams.sweep(&mut runs, now);
    }
}

/// A run that stops without its end (its request went away before it started, its driver
/// failed) still lets its stream go after the retention window.
impl Drop for MemoryWriter {
    fn drop(&mut self) {
        self.finish();
    }
}

impl StreamWriter for MemoryWriter {
    fn push(&mut self, data: Arc<str>) {
        let limits = self.streams.limits;
        let added = data.len() + ENTRY_OVERHEAD;
        if self.streams.bytes.load(Ordering::Relaxed) + added > limits.memory_budget {
            // Ended runs make room first.
            let mut runs = self.streams.lock();
            self.streams.sweep(&mut runs, Instant::now());
        }
        let mut freed = 0;
        {
            let mut kept = self.stream.lock();
            kept.entries.push_back(data);
            kept.bytes += added;
            let total = self.streams.bytes.load(Ordering::Relaxed) + added;
            while kept.entries.len() > 1
                && (kept.entries.len() > limits.max_events
                    || total.saturating_sub(freed) > limits.memory_budget)
            {
                if let Some(dropped) = kept.entries.pop_front() {
                    let size = dropped.len() + ENTRY_OVERHEAD;
                    kept.bytes -= size;
                    freed += size;
                    kept.first += 1;
                }
            }
        }
        self.streams.bytes.fetch_add(added, Ordering::Relaxed);
        self.streams.bytes.fetch_sub(freed, Ordering::Relaxed);
        self.stream.notify.notify_waiters();
    }

    fn end(mut self: Box<Self>) -> BoxFuture<'static, ()> {
        self.finish();
        async {}.boxed()
    }
}

struct MemoryReader {
    streams: Arc<MemoryStreams>,
    run_id: String,
    /// The stream the first read found: a resumed run's new stream is another attempt, whose
    /// ids start again, so a reader of the earlier one is told instead of read on.
    following: Option<Arc<RunStream>>,
}

impl MemoryReader {
    /// The run's stream: `Err` when it is not the one this reader followed.
    fn stream(&mut self) -> Result<Option<Arc<RunStream>>, Read> {
        let current = self.streams.lock().by_id.get(&self.run_id).cloned();
        match (&self.following, &current) {
            (Some(before), Some(now)) if !Arc::ptr_eq(before, now) => Err(Read::Replaced),
            (None, Some(now)) => {
                self.following = Some(now.clone());
                Ok(current)
            }
            _ => Ok(current),
        }
    }

    /// The entries after `after`, or `None` when the stream is gone.
    fn entries_after(&self, stream: &RunStream, after: u64) -> Option<Vec<Entry>> {
        let kept = stream.lock();
        if kept
            .ended
            .is_some_and(|at| at.elapsed() >= self.streams.limits.retention)
        {
            return None;
        }
        let skip = after.saturating_sub(kept.first.saturating_sub(1)) as usize;
        Some(
            kept.entries
                .iter()
                .enumerate()
                .skip(skip)
                .take(READ_MAX)
                .map(|(i, data)| Entry {
                    id: kept.first + i as u64,
                    data: data.clone(),
                })
                .collect(),
        )
    }
}

impl StreamReader for MemoryReader {
    fn read<'a>(&'a mut self, after: u64, wait: Duration) -> BoxFuture<'a, CoordResult<Read>> {
        async move {
            let stream = match self.stream() {
                Ok(Some(stream)) => stream,
                Ok(None) => return Ok(Read::NotKept),
                Err(replaced) => return Ok(replaced),
            };
            let notified = stream.notify.notified();
            tokio::pin!(notified);
            // Registered before looking, so an append between the look and the wait wakes it.
            notified.as_mut().enable();
            match self.entries_after(&stream, after) {
                None => return Ok(Read::NotKept),
                Some(entries) if !entries.is_empty() => return Ok(Read::Entries(entries)),
                Some(_) => {}
            }
            if stream.lock().ended.is_some() {
                return Ok(Read::Entries(Vec::new()));
            }
            let _ = tokio::time::timeout(wait, notified).await;
            // The stream may have been replaced (a resumed run) while waiting.
            let stream = match self.stream() {
                Ok(Some(stream)) => stream,
                Ok(None) => return Ok(Read::NotKept),
                Err(replaced) => return Ok(replaced),
            };
            Ok(match self.entries_after(&stream, after) {
                None => Read::NotKept,
                Some(entries) => Read::Entries(entries),
            })
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max_events: usize, memory_budget: usize) -> StreamLimits {
        StreamLimits {
            retention: Duration::from_secs(60),
            max_events,
            memory_budget,
        }
    }

    fn ids(read: Read) -> Vec<u64> {
        match read {
            Read::Entries(entries) => entries.iter().map(|e| e.id).collect(),
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_reader_gets_what_came_after_its_id_then_waits_for_more() {
        let streams = MemoryStreams::new(StreamLimits::default());
        let mut writer = streams.writer("r1");
        for i in 0..5 {
            writer.push(Arc::from(format!("{{\"n\":{i}}}")));
        }
        let mut reader = streams.reader("r1");
        assert_eq!(
            ids(reader
                .read(2, Duration::ZERO)
                .await
                .unwrap_or(Read::NotKept)),
            [3, 4, 5]
        );
        let waiting = tokio::spawn(async move { reader.read(5, Duration::from_secs(5)).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        writer.push(Arc::from(super::super::TERMINATOR));
        let read = waiting
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or(Read::NotKept);
        assert_eq!(ids(read), [6]);
        writer.end().await;
        assert!(matches!(
            streams.reader("gone").read(0, Duration::ZERO).await,
            Ok(Read::NotKept)
        ));
    }

    #[tokio::test]
    async fn the_oldest_entries_go_beyond_a_runs_cap_and_the_budget_drops_ended_runs() {
        let streams = MemoryStreams::new(limits(3, 1 << 20));
        let mut writer = streams.writer("r1");
        for _ in 0..5 {
            writer.push(Arc::from("x"));
        }
        let read = streams.reader("r1").read(0, Duration::ZERO).await;
        assert_eq!(ids(read.unwrap_or(Read::NotKept)), [3, 4, 5]);

        let budget = 3 * (RUN_OVERHEAD + 100 + ENTRY_OVERHEAD);
        let streams = MemoryStreams::new(limits(100, budget));
        for run in ["a", "b", "c", "d"] {
            let mut writer = streams.writer(run);
            writer.push(Arc::from("y".repeat(100)));
            writer.end().await;
        }
        assert!(streams.kept_bytes() <= budget, "{}", streams.kept_bytes());
        let first = streams.reader("a").read(0, Duration::ZERO).await;
        assert!(matches!(first, Ok(Read::NotKept)));
        let last = streams.reader("d").read(0, Duration::ZERO).await;
        assert_eq!(ids(last.unwrap_or(Read::NotKept)), [1]);
    }

    #[tokio::test]
    async fn a_reader_of_a_resumed_runs_earlier_attempt_is_told_and_a_dropped_writer_ends() {
        let streams = MemoryStreams::new(limits(100, 1 << 20));
        let mut first = streams.writer("r1");
        first.push(Arc::from("a"));
        let mut reader = streams.reader("r1");
        assert_eq!(
            ids(reader
                .read(0, Duration::ZERO)
                .await
                .unwrap_or(Read::NotKept)),
            [1]
        );
        // Its writer went away without its end: the stream ended all the same.
        drop(first);
        assert!(matches!(
            reader.read(1, Duration::from_secs(5)).await,
            Ok(Read::Entries(e)) if e.is_empty()
        ));
        // The run is resumed: its new attempt numbers from 1 again.
        let mut again = streams.writer("r1");
        again.push(Arc::from("b"));
        assert!(matches!(
            reader.read(1, Duration::ZERO).await,
            Ok(Read::Replaced)
        ));
        let fresh = streams.reader("r1").read(0, Duration::ZERO).await;
        assert_eq!(ids(fresh.unwrap_or(Read::NotKept)), [1]);
    }
}
