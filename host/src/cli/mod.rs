//! The command line every canvasc binary shares: the `run` command (`canvasc run` and built
//! binaries), the `main` of a built binary ([`compiled`]), and output that survives a closed
//! stdout.

/// `print!` to stdout, ending the process quietly when the reader has gone away.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::write_out(format_args!($($arg)*), "") };
}

/// `println!` to stdout, ending the process quietly when the reader has gone away.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => { $crate::cli::write_out(format_args!($($arg)*), "\n") };
}

/// `eprint!` that never panics: a closed stderr loses the message, nothing else.
#[macro_export]
macro_rules! err {
    ($($arg:tt)*) => { $crate::cli::write_err(format_args!($($arg)*), "") };
}

/// `eprintln!` that never panics.
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => { $crate::cli::write_err(format_args!($($arg)*), "\n") };
}

pub mod compiled;
mod demo;
mod llm_script;
pub mod run;
pub mod run_log;
pub mod serve;
mod state_file;
pub mod timeline;
mod webhook_payload;
pub mod worker;

/// Exit code for usage, I/O and not-a-canvas errors.
pub const EXIT_USAGE: u8 = 2;

/// Exit code of a run that went to its end while a component failed or a model or tool call
/// ended in RAGFlow's `**ERROR**` answer text (the summary on stderr says which).
pub const EXIT_FAILED_CALLS: u8 = 3;

/// Exit code of a cancelled run (Ctrl-C), whichever back-end and whichever component was
/// running: 128 + SIGINT, as shells report an interrupted command.
pub const EXIT_CANCELED: u8 = 130;

/// The exit status of a process SIGPIPE ended (128 + 13), which shells show for `yes | head`.
pub const EXIT_BROKEN_PIPE: i32 = 141;

/// Writes to stdout. `print!` panics when the reader has closed the pipe (`canvasc convert x |
/// head`); that is no error of ours, so the process ends at once, quietly, with the status a
/// SIGPIPE would give. Other write errors (a full disk) are reported and end it too.
#[doc(hidden)]
pub fn write_out(args: std::fmt::Arguments<'_>, end: &str) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_fmt(args)
        .and_then(|()| stdout.write_all(end.as_bytes()));
    if let Err(e) = written {
        stdout_failed(&e);
    }
}

/// Ends the process after a failed write to stdout (see [`write_out`]).
pub fn stdout_failed(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(EXIT_BROKEN_PIPE);
    }
    write_err(format_args!("error: cannot write to stdout: {e}"), "\n");
    std::process::exit(i32::from(EXIT_USAGE));
}

/// Writes to stderr, ignoring failure: a diagnostic nobody can read is no reason to panic.
#[doc(hidden)]
pub fn write_err(args: std::fmt::Arguments<'_>, end: &str) {
    use std::io::Write as _;
    let mut stderr = std::io::stderr().lock();
    let _ = stderr
        .write_fmt(args)
        .and_then(|()| stderr.write_all(end.as_bytes()));
}

/// Read a file, or explain in one line why it cannot be read.
pub fn read_file(path: &std::path::Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}
