//! How CPython turns a number of seconds into its internal time (`_PyTime_FromSecondsObject`),
//! which `time.sleep` and `socket.settimeout` (the timeouts `requests` passes down) go through.
//! Seconds are held as a signed 64-bit count of nanoseconds, so a DSL's `1e300` or
//! `18446744073709551615` is an `OverflowError` in RAGFlow. The runtime fails the component with
//! that text (never a panic in `Duration::from_secs_f64`) and the checker warns about it.

use serde_json::Value as Json;

const NS_PER_SEC: i64 = 1_000_000_000;

/// CPython's text for an int whose nanoseconds do not fit (`pytime_overflow`).
pub const INT_OVERFLOW: &str = "timestamp too large to convert to C _PyTime_t";
/// CPython's text for a float out of that range (`pytime_time_t_overflow`).
pub const FLOAT_OVERFLOW: &str = "timestamp out of range for platform time_t";
/// CPython's `ValueError` text for NaN.
pub const NAN: &str = "Invalid value NaN (not a number)";

/// Why CPython cannot convert this number of seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// `OverflowError` with this text.
    Overflow(&'static str),
    /// `ValueError` (NaN).
    NotANumber,
}

/// The seconds a number or boolean stands for, or why CPython refuses it; `None` for other
/// types, which each caller words as its own Python call would.
pub fn seconds(v: &Json) -> Option<Result<f64, Refused>> {
    Some(match v {
        Json::Bool(b) => Ok(f64::from(u8::from(*b))),
        Json::Number(n) if !n.is_f64() => {
            // An int: `PyLong_AsLongLong`, then a checked multiplication into nanoseconds.
            match n.as_i64() {
                Some(secs) if secs.checked_mul(NS_PER_SEC).is_some() => Ok(secs as f64),
                _ => Err(Refused::Overflow(INT_OVERFLOW)),
            }
        }
        Json::Number(n) => {
            let secs = n.as_f64().unwrap_or(f64::NAN);
            if secs.is_nan() {
                return Some(Err(Refused::NotANumber));
            }
            // `pytime_from_double`: the rounded nanoseconds must lie in [-2^63, 2^63).
            let ns = (secs * NS_PER_SEC as f64).ceil();
            let limit = -(i64::MIN as f64);
            if -limit <= ns && ns < limit {
                Ok(secs)
            } else {
                Err(Refused::Overflow(FLOAT_OVERFLOW))
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Expected texts from CPython 3.11 (`socket.socket().settimeout(v)` in the oracle's venv;
    /// `compiler/tests/crash/README.md`).
    #[test]
    fn overflow_like_cpython() {
        let got = |v: Json| seconds(&v).expect("a number");
        let int = Err(Refused::Overflow(INT_OVERFLOW));
        let float = Err(Refused::Overflow(FLOAT_OVERFLOW));
        assert_eq!(got(json!(1e300)), float);
        assert_eq!(got(json!(-1e300)), float);
        assert_eq!(got(json!(1e10)), float);
        assert_eq!(got(json!(9223372036.86)), float);
        assert_eq!(got(json!(9223372036.8)), Ok(9223372036.8));
        assert_eq!(got(json!(9223372037u64)), int);
        assert_eq!(got(json!(-9223372037i64)), int);
        assert_eq!(got(json!(18446744073709551615u64)), int);
        assert_eq!(got(json!(9223372036u64)), Ok(9223372036.0));
        assert_eq!(got(json!(true)), Ok(1.0));
        assert_eq!(seconds(&json!("1")), None);
    }
}
