//! Seconds from a DSL as `time.sleep` and `socket.settimeout` take them: CPython's conversion
//! ([`canvasc_value::py::time`]) with its exceptions as run errors, and a `Duration` that cannot
//! panic.

use crate::error::RunError;
use canvasc_value::py::time::{self as time, Refused};
use canvasc_value::{py, Json};
use std::time::Duration;

/// The seconds `v` stands for, or the exception CPython raises converting it (a `TypeError` for
/// what is no number, worded as `time.sleep` words it).
pub fn seconds(v: &Json) -> Result<f64, RunError> {
    match time::seconds(v) {
        Some(Ok(secs)) => Ok(secs),
        Some(Err(Refused::Overflow(m))) => Err(RunError::raised("OverflowError", m)),
        Some(Err(Refused::NotANumber)) => Err(RunError::value_error(time::NAN)),
        None => Err(RunError::type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            py::type_name(v)
        ))),
    }
}

/// A non-negative number of seconds already accepted by [`seconds`] as a `Duration`; anything
/// else (which `seconds` never returns) saturates instead of panicking.
pub fn duration(secs: f64) -> Duration {
    Duration::try_from_secs_f64(secs.max(0.0)).unwrap_or(Duration::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn errors_are_python_exceptions() {
        let err = seconds(&json!(1e300)).expect_err("overflow");
        assert_eq!(err.class(), "OverflowError");
        assert_eq!(err.to_string(), time::FLOAT_OVERFLOW);
        assert_eq!(seconds(&json!("x")).expect_err("str").class(), "TypeError");
        assert_eq!(duration(9223372036.8).as_secs(), 9223372036);
        assert_eq!(duration(-1.0), Duration::ZERO);
    }
}
