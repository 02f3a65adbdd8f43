//! A server's process and the processes it started, as `/proc` shows them: CPU time spent and
//! resident memory. Python servers run parts of themselves in child processes (and `langgraph
//! dev` is a CLI that may start the API server beside itself), so a server is measured as its
//! whole tree, never as one pid.

use std::collections::HashMap;

/// `pid` and every live descendant of it.
pub fn tree(pid: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(p) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if let Some(parent) = stat_fields(p).and_then(|f| f.get(1)?.parse().ok()) {
                children.entry(parent).or_default().push(p);
            }
        }
    }
    let mut all = vec![pid];
    let mut i = 0;
    while i < all.len() {
        if let Some(kids) = children.get(&all[i]) {
            all.extend(kids);
        }
        i += 1;
    }
    all
}

/// The fields of `/proc/<pid>/stat` after the command name (which may hold spaces): index 0 is
/// the state, 1 the parent pid, 11–14 utime, stime, cutime, cstime (in clock ticks).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    Some(after_name.split_whitespace().map(str::to_string).collect())
}

/// Clock ticks per second (`getconf CLK_TCK`; 100, Linux's value, when it cannot be asked).
fn ticks_per_second() -> f64 {
    static TICKS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(100.0)
    })
}

/// CPU seconds (user + system) spent so far by the tree under `pid`, its reaped children's
/// included (`cutime`, `cstime`).
pub fn cpu_seconds(pid: u32) -> f64 {
    let ticks: u64 = tree(pid)
        .into_iter()
        .filter_map(stat_fields)
        .map(|f| {
            (11..=14)
                .filter_map(|i| f.get(i).and_then(|v| v.parse::<u64>().ok()))
                .sum::<u64>()
        })
        .sum();
    ticks as f64 / ticks_per_second()
}

/// A `/proc/<pid>/status` line's number (`VmRSS:`, `VmHWM:`), in KiB; 0 when unreadable.
pub fn status_kib(pid: u32, key: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

/// The resident set of the whole tree under `pid`, in KiB.
pub fn tree_rss_kib(pid: u32) -> u64 {
    tree(pid).into_iter().map(|p| status_kib(p, "VmRSS:")).sum()
}
