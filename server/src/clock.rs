//! Times and ids as RAGFlow shows them: milliseconds since the epoch, HTTP dates, 32-hex ids.

use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};

/// The last time handed out, so two saves in one millisecond still order (versions are ordered
/// by creation time).
static LAST: AtomicI64 = AtomicI64::new(0);

/// Now in milliseconds since the epoch, strictly increasing within this process.
pub(crate) fn now_ms() -> i64 {
    let wall = Utc::now().timestamp_millis();
    let mut last = LAST.load(Ordering::Relaxed);
    loop {
        let next = wall.max(last + 1);
        match LAST.compare_exchange_weak(last, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next,
            Err(seen) => last = seen,
        }
    }
}

fn utc(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}

/// `Thu, 05 Dec 2024 19:10:36 GMT`, the form of RAGFlow's `create_date`/`update_date`.
pub(crate) fn http_date(ms: i64) -> String {
    utc(ms).format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

/// `2024-12-05 19:10:36`, the stamp in a version's title.
pub(crate) fn stamp(ms: i64) -> String {
    utc(ms).format("%Y-%m-%d %H:%M:%S").to_string()
}

/// Seconds since the epoch as a float (upload descriptors).
pub(crate) fn seconds(ms: i64) -> f64 {
    ms as f64 / 1000.0
}

/// A new id: a UUID v4 as 32 lowercase hex digits, RAGFlow's shape.
pub(crate) fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// A list filter's date bound in milliseconds: `YYYY-MM-DD` (the end of that day when
/// `end_of_day`) or an ISO-8601 date-time (UTC when it names no offset).
pub(crate) fn date_bound(text: &str, end_of_day: bool) -> Option<i64> {
    let text = text.trim();
    if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        let time = if end_of_day {
            NaiveTime::from_hms_milli_opt(23, 59, 59, 999)?
        } else {
            NaiveTime::MIN
        };
        return Some(date.and_time(time).and_utc().timestamp_millis());
    }
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Some(at.timestamp_millis());
    }
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
        .map(|at| at.and_utc().timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_as_ragflow_writes_them() {
        assert_eq!(
            http_date(1_733_425_836_000),
            "Thu, 05 Dec 2024 19:10:36 GMT"
        );
        assert_eq!(stamp(1_733_425_836_000), "2024-12-05 19:10:36");
        assert_eq!(date_bound("2024-12-05", false), Some(1_733_356_800_000));
        assert_eq!(date_bound("2024-12-05", true), Some(1_733_443_199_999));
        assert_eq!(
            date_bound("2024-12-05T19:10:36Z", false),
            Some(1_733_425_836_000)
        );
        assert_eq!(
            date_bound("2024-12-05T19:10:36", true),
            Some(1_733_425_836_000)
        );
        assert_eq!(date_bound("yesterday", false), None);
    }

    #[test]
    fn times_strictly_increase() {
        let a = now_ms();
        assert!(now_ms() > a);
        assert_eq!(new_id().len(), 32);
    }
}
