//! The fault suite's rounds (issue 39): a fault case (a server killed mid-run, Redis or the
//! database gone mid-turn, a client that leaves mid-stream) runs `CANVASC_FAULT_ROUNDS` times
//! (1 unless set, so an ordinary `cargo test` stays fast; CI's fault step and a local soak set
//! more). Each round names every turn it made and says, from what it read back from the
//! server, whether the turn is still held and whether it was reported as what happened to it.
//! The case then prints one line with the counts, `fault suite: <case>: 5 rounds, 5 whole, 0
//! lost, 0 misreported`, and fails unless every round was whole.
//!
//! The test crates include this file by path (`#[path]`): `compiler/tests/serve_replicas.rs`
//! (replicas as processes) and the server's `http_api` suite (a client that disconnects).

use std::fmt::Display;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::FutureExt;

/// How many rounds each fault case runs: `CANVASC_FAULT_ROUNDS`, else 1.
pub fn rounds() -> u32 {
    match std::env::var("CANVASC_FAULT_ROUNDS") {
        Ok(text) => match text.trim().parse::<u32>() {
            Ok(n) if n > 0 => n,
            _ => panic!("CANVASC_FAULT_ROUNDS must be a positive number, not {text:?}"),
        },
        Err(_) => 1,
    }
}

/// What one round found of its turns.
#[derive(Default)]
struct Found {
    turns: usize,
    lost: Vec<String>,
    misreported: Vec<String>,
}

/// Where a round records its turns; cloned into the round's task.
#[derive(Clone, Default)]
pub struct Turns(Arc<Mutex<Found>>);

impl Turns {
    /// Records one turn of the round: `held` is whether the server still holds what it owes
    /// the client (the question, and the answer of a turn it said was answered; nothing of a
    /// turn it refused), `reported_right` whether every report of the turn (the stream's or
    /// answer's end, the session's `errors`, the run's record) says what happened to it.
    /// `seen` is what was read back, for the failure message.
    pub fn turn(&self, name: &str, held: bool, reported_right: bool, seen: impl Display) {
        let mut found = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        found.turns += 1;
        if !held {
            found.lost.push(format!("{name}: {seen}"));
        } else if !reported_right {
            found.misreported.push(format!("{name}: {seen}"));
        }
    }

    fn take(&self) -> Found {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// How one round ended.
enum Outcome {
    Whole,
    Lost(Vec<String>),
    Misreported(Vec<String>),
    /// Another assertion of the round failed (or it recorded no turn at all).
    Failed(String),
}

/// Runs `case` for [`rounds`] rounds, one after another (a round that panics is counted, and
/// its processes and connections are dropped with it),
/// then prints the case's counts and fails unless every round was whole.
pub async fn run_rounds<F, Fut>(case: &str, round: F)
where
    F: Fn(Turns) -> Fut,
    Fut: Future<Output = ()>,
{
    let total = rounds();
    let mut outcomes = Vec::with_capacity(total as usize);
    let mut times = Vec::with_capacity(total as usize);
    for n in 1..=total {
        let turns = Turns::default();
        let started = Instant::now();
        // On this task, as the case's own body would run (a task of its own would be a
        // runtime worker's, which the rounds' blocking reads of a child's output would stall).
        let ended = AssertUnwindSafe(round(turns.clone())).catch_unwind().await;
        let took = started.elapsed();
        let found = turns.take();
        let outcome = if !found.lost.is_empty() {
            Outcome::Lost(found.lost)
        } else if !found.misreported.is_empty() {
            Outcome::Misreported(found.misreported)
        } else {
            match ended {
                Err(panic) => Outcome::Failed(panic_text(panic)),
                Ok(()) if found.turns == 0 => Outcome::Failed("the round recorded no turn".into()),
                Ok(()) => Outcome::Whole,
            }
        };
        let said = match &outcome {
            Outcome::Whole => "whole".to_string(),
            Outcome::Lost(turns) => format!("LOST {}", turns.join("; ")),
            Outcome::Misreported(turns) => format!("MISREPORTED {}", turns.join("; ")),
            Outcome::Failed(why) => format!("FAILED {why}"),
        };
        println!(
            "fault suite: {case}: round {n}/{total}: {said} ({:.1} s)",
            took.as_secs_f64()
        );
        outcomes.push(outcome);
        times.push(took);
    }
    let count = |f: fn(&Outcome) -> bool| outcomes.iter().filter(|o| f(o)).count();
    let whole = count(|o| matches!(o, Outcome::Whole));
    let lost = count(|o| matches!(o, Outcome::Lost(_)));
    let misreported = count(|o| matches!(o, Outcome::Misreported(_)));
    let failed = count(|o| matches!(o, Outcome::Failed(_)));
    let mut line = format!(
        "fault suite: {case}: {total} rounds, {whole} whole, {lost} lost, {misreported} misreported"
    );
    if failed > 0 {
        line.push_str(&format!(", {failed} failed otherwise"));
    }
    line.push_str(&format!(
        " (a round took {} s on average, {} s at most)",
        seconds(times.iter().sum::<Duration>() / total),
        seconds(times.iter().max().copied().unwrap_or_default()),
    ));
    println!("{line}");
    assert_eq!(whole, total as usize, "{line}");
}

fn seconds(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64())
}

fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    let text = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".into());
    // The first line names the assertion; the rest (a whole log) was printed by the panic.
    text.lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(300)
        .collect()
}
