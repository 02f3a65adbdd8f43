//! The clocks RAGFlow reads: `time.perf_counter()` for timings, `time.time()` for timestamps.

/// Python's `time.perf_counter()`: seconds on a monotonic clock with an arbitrary origin. On
/// Unix it is the clock Python reads (`CLOCK_MONOTONIC`), read directly: the scheduler reads
/// it several times per component.
#[cfg(unix)]
pub fn perf_counter() -> f64 {
    let ts = clock(libc::CLOCK_MONOTONIC);
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Read a clock the platform always has (the callers name `CLOCK_MONOTONIC` and, on Linux,
/// `CLOCK_REALTIME_COARSE`).
#[cfg(unix)]
fn clock(id: libc::clockid_t) -> libc::timespec {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec and `id` a clock the platform provides.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts
}

#[cfg(not(unix))]
pub fn perf_counter() -> f64 {
    static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    ORIGIN
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
}

/// `int(time.time())`: whole seconds since the Unix epoch. On Linux the coarse clock (the
/// last tick, a few milliseconds old) serves: only whole seconds are reported, and reading it
/// costs no clock-source access.
#[cfg(target_os = "linux")]
#[allow(clippy::unnecessary_cast)] // `time_t` is 32 bits wide on some targets
pub fn unix_seconds() -> i64 {
    clock(libc::CLOCK_REALTIME_COARSE).tv_sec as i64
}

/// `int(time.time())`: whole seconds since the Unix epoch.
#[cfg(not(target_os = "linux"))]
pub fn unix_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}
