//! The test harness of the case suites (`harness = false`): every golden case is its own named
//! test (libtest-mimic), so `cargo test -p canvasc-tests --test <suite> -- <case>` runs one, a
//! failure names its case, and a case this build cannot run shows as an ignored test with its
//! reason. A suite asserts how many cases it has and how many it skips before any runs, so a
//! case that silently disappears (or starts being skipped) fails the suite.

use libtest_mimic::{Arguments, Failed, Trial};
use std::process::ExitCode;

/// The named cases of one test binary.
pub struct Suite {
    args: Arguments,
    trials: Vec<Trial>,
    skipped: usize,
}

impl Suite {
    /// A suite reading the test binary's command line (filter, `--exact`, `--skip`,
    /// `--ignored`, `--test-threads`, `--list`).
    pub fn from_args() -> Suite {
        Suite {
            args: Arguments::from_args(),
            trials: Vec::new(),
            skipped: 0,
        }
    }

    /// Runs the cases one at a time unless `--test-threads` says otherwise: the cases of
    /// suites with timers (timeouts, cancellation, slow servers) ran one after another in one
    /// looping test, and running them side by side on a loaded machine could move a timer.
    pub fn one_at_a_time(mut self) -> Suite {
        if self.args.test_threads.is_none() {
            self.args.test_threads = Some(1);
        }
        self
    }

    /// Adds a case; `run` returns the failure's text.
    pub fn case(&mut self, name: &str, run: impl FnOnce() -> Result<(), String> + Send + 'static) {
        self.trials
            .push(Trial::test(name, move || run().map_err(Failed::from)));
    }

    /// Adds a case this build does not run, shown as ignored with `reason` (`--include-ignored`
    /// still runs it).
    pub fn skip(
        &mut self,
        name: &str,
        reason: &str,
        run: impl FnOnce() -> Result<(), String> + Send + 'static,
    ) {
        self.skipped += 1;
        self.trials.push(
            Trial::test(name, move || run().map_err(Failed::from))
                .with_kind(reason)
                .with_ignored_flag(true),
        );
    }

    /// The whole suite is not run (no shared corpus: [`crate::shared_dir`] has said so); one
    /// ignored test named after the suite carries the reason.
    pub fn not_run(&mut self, suite: &str, reason: &str) {
        let why = reason.to_string();
        self.skip(suite, reason, move || Err(why));
    }

    /// Whether the command line selects the case called `name` (its filter and `--skip`
    /// patterns), for work a suite does once for all the cases that will run.
    pub fn selects(&self, name: &str) -> bool {
        let matches = |pattern: &str| {
            if self.args.exact {
                name == pattern
            } else {
                name.contains(pattern)
            }
        };
        self.args.filter.as_deref().is_none_or(matches)
            && !self.args.skip.iter().any(|s| matches(s))
    }

    /// Fails (before any case runs) unless the suite has `cases` cases of which it skips
    /// `skipped`.
    pub fn assert_counts(&self, what: &str, cases: usize, skipped: usize) {
        assert_eq!(
            (self.trials.len(), self.skipped),
            (cases, skipped),
            "{what}: cases and skipped cases"
        );
    }

    /// Runs the selected cases and prints libtest's summary.
    pub fn run(self) -> ExitCode {
        libtest_mimic::run(&self.args, self.trials).exit_code()
    }
}
