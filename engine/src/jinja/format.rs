//! Python's printf-style `str % args` (also the `format` filter) and a basic `str.format`.

use super::error::{Error, Result};
use super::value::Value;
use canvasc_value::py;

/// One `%` conversion's flags, width and precision.
#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alt: bool,
    width: usize,
    precision: Option<usize>,
}

/// Python `fmt % args`.
pub fn percent_format(fmt: &str, args: &Value) -> Result<String> {
    let positional: Vec<Value> = match args {
        Value::Tuple(t) => t.to_vec(),
        v => vec![v.clone()],
    };
    let mapping = match args {
        Value::Dict(_) => Some(args),
        _ => None,
    };
    let mut next = 0usize;
    let mut used_mapping = false;
    let mut out = String::new();
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut key: Option<String> = None;
        if chars.get(i) == Some(&'(') {
            let mut depth = 1;
            let mut j = i + 1;
            while j < chars.len() && depth > 0 {
                match chars[j] {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                j += 1;
            }
            if depth > 0 {
                return Err(Error::value_error("incomplete format key"));
            }
            key = Some(chars[i + 1..j - 1].iter().collect());
            i = j;
        }
        let mut spec = Spec::default();
        while let Some(&f) = chars.get(i) {
            match f {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '0' => spec.zero = true,
                '#' => spec.alt = true,
                _ => break,
            }
            i += 1;
        }
        while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
            spec.width = spec.width * 10 + d as usize;
            i += 1;
        }
        if chars.get(i) == Some(&'.') {
            i += 1;
            let mut p = 0usize;
            while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
                p = p * 10 + d as usize;
                i += 1;
            }
            spec.precision = Some(p);
        }
        while matches!(chars.get(i), Some('h' | 'l' | 'L')) {
            i += 1;
        }
        let Some(&conv) = chars.get(i) else {
            return Err(Error::value_error("incomplete format"));
        };
        i += 1;
        if conv == '%' {
            out.push('%');
            continue;
        }
        let arg = match &key {
            Some(k) => {
                used_mapping = true;
                let Some(Value::Dict(d)) = mapping else {
                    return Err(Error::type_error("format requires a mapping"));
                };
                let found = d
                    .borrow()
                    .iter()
                    .find(|(kk, _)| kk.as_str() == Some(k.as_str()))
                    .map(|(_, v)| v.clone());
                found.ok_or_else(|| Error::new("KeyError", py::repr_str(k)))?
            }
            None => {
                let v = positional
                    .get(next)
                    .cloned()
                    .ok_or_else(|| Error::type_error("not enough arguments for format string"))?;
                next += 1;
                v
            }
        };
        let piece = convert(conv, &arg, &spec, start, fmt)?;
        out.push_str(&pad(
            piece,
            &spec,
            matches!(
                conv,
                'd' | 'i' | 'u' | 'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'x' | 'X' | 'o'
            ),
        ));
    }
    if !used_mapping && mapping.is_none() && next < positional.len() {
        return Err(Error::type_error(
            "not all arguments converted during string formatting",
        ));
    }
    Ok(out)
}

fn convert(conv: char, arg: &Value, spec: &Spec, at: usize, fmt: &str) -> Result<String> {
    let number = |name: char| -> Result<f64> {
        arg.as_f64().ok_or_else(|| {
            Error::type_error(format!(
                "%{name} format: a real number is required, not {}",
                arg.type_name()
            ))
        })
    };
    let sign = |neg: bool, body: String| -> String {
        if neg {
            format!("-{body}")
        } else if spec.plus {
            format!("+{body}")
        } else if spec.space {
            format!(" {body}")
        } else {
            body
        }
    };
    Ok(match conv {
        's' => truncate(arg.to_str(), spec.precision),
        'r' | 'a' => truncate(arg.repr(), spec.precision),
        'd' | 'i' | 'u' => {
            let i = match arg {
                Value::Float(f) if f.is_finite() => f.trunc() as i64,
                Value::Float(_) => {
                    return Err(Error::new(
                        "OverflowError",
                        "cannot convert float infinity to integer",
                    ))
                }
                v => v.as_int().ok_or_else(|| {
                    Error::type_error(format!(
                        "%{conv} format: a real number is required, not {}",
                        v.type_name()
                    ))
                })?,
            };
            sign(i < 0, i.unsigned_abs().to_string())
        }
        'x' | 'X' | 'o' => {
            let i = arg.as_int().ok_or_else(|| {
                Error::type_error(format!(
                    "%{conv} format: an integer is required, not {}",
                    arg.type_name()
                ))
            })?;
            let body = match conv {
                'x' => format!("{:x}", i.unsigned_abs()),
                'X' => format!("{:X}", i.unsigned_abs()),
                _ => format!("{:o}", i.unsigned_abs()),
            };
            let prefix = match (spec.alt, conv) {
                (true, 'x') => "0x",
                (true, 'X') => "0X",
                (true, _) => "0o",
                _ => "",
            };
            sign(i < 0, format!("{prefix}{body}"))
        }
        'f' | 'F' | 'e' | 'E' | 'g' | 'G' => {
            let f = number(conv)?;
            let body = float_fixed(f.abs(), conv, spec.precision.unwrap_or(6), spec.alt);
            sign(f.is_sign_negative() && !f.is_nan(), body)
        }
        'c' => match arg {
            Value::Int(i) => char::from_u32(u32::try_from(*i).unwrap_or(u32::MAX))
                .map(String::from)
                .ok_or_else(|| Error::new("OverflowError", "%c arg not in range(0x110000)"))?,
            v if v.as_str().is_some_and(|s| s.chars().count() == 1) => v.to_str(),
            _ => return Err(Error::type_error("%c requires int or char")),
        },
        other => {
            let index = fmt[..].char_indices().nth(at).map_or(at, |(b, _)| b);
            let _ = index;
            let pos = fmt.chars().take(at).count()
                + fmt.chars().skip(at).position(|c| c == other).unwrap_or(0);
            return Err(Error::value_error(format!(
                "unsupported format character '{other}' (0x{:x}) at index {pos}",
                other as u32
            )));
        }
    })
}

fn truncate(s: String, precision: Option<usize>) -> String {
    match precision {
        Some(p) => s.chars().take(p).collect(),
        None => s,
    }
}

fn pad(piece: String, spec: &Spec, numeric: bool) -> String {
    let len = piece.chars().count();
    if len >= spec.width {
        return piece;
    }
    let fill = spec.width - len;
    if spec.left {
        format!("{piece}{}", " ".repeat(fill))
    } else if spec.zero && numeric {
        let (sign, digits) = match piece.chars().next() {
            Some(c @ ('-' | '+' | ' ')) => (c.to_string(), piece[1..].to_string()),
            _ => (String::new(), piece),
        };
        format!("{sign}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{piece}", " ".repeat(fill))
    }
}

/// A non-negative float in `%f`, `%e` or `%g` style with Python's exponent form (`e+05`).
pub fn float_fixed(f: f64, conv: char, precision: usize, alt: bool) -> String {
    let upper = conv.is_ascii_uppercase();
    if f.is_infinite() {
        return if upper { "INF" } else { "inf" }.to_string();
    }
    if f.is_nan() {
        return if upper { "NAN" } else { "nan" }.to_string();
    }
    let s = match conv.to_ascii_lowercase() {
        'f' => format!("{f:.precision$}"),
        'e' => exp_form(f, precision),
        _ => {
            let p = precision.max(1);
            let exp = if f == 0.0 {
                0
            } else {
                let e = exp_form(f, p - 1);
                e.rsplit('e')
                    .next()
                    .and_then(|x| x.parse::<i32>().ok())
                    .unwrap_or(0)
            };
            let mut s = if (-4..p as i32).contains(&exp) {
                let decimals = (p as i32 - 1 - exp).max(0) as usize;
                format!("{f:.decimals$}")
            } else {
                exp_form(f, p - 1)
            };
            if !alt {
                s = strip_zeros(&s);
            }
            s
        }
    };
    if upper {
        s.to_uppercase()
    } else {
        s
    }
}

fn exp_form(f: f64, precision: usize) -> String {
    let s = format!("{f:.precision$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

fn strip_zeros(s: &str) -> String {
    let (mantissa, exp) = match s.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (s, None),
    };
    let mantissa = if mantissa.contains('.') {
        mantissa.trim_end_matches('0').trim_end_matches('.')
    } else {
        mantissa
    };
    match exp {
        Some(e) => format!("{mantissa}e{e}"),
        None => mantissa.to_string(),
    }
}

/// `str.format` with `{}`, `{0}`, `{name}` fields (no format specs or conversions beyond
/// `str()`; a spec raises, so the template falls back rather than printing something else).
pub fn str_format(fmt: &str, args: &[Value], kwargs: &[(String, Value)]) -> Result<String> {
    let mut out = String::new();
    let mut auto = 0usize;
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let mut field = String::new();
                for d in chars.by_ref() {
                    if d == '}' {
                        break;
                    }
                    field.push(d);
                }
                if field.contains([':', '!', '[', '.']) {
                    return Err(Error::value_error(format!(
                        "format field '{field}' is not supported"
                    )));
                }
                let v = if field.is_empty() {
                    auto += 1;
                    args.get(auto - 1)
                } else if let Ok(i) = field.parse::<usize>() {
                    args.get(i)
                } else {
                    kwargs.iter().find(|(k, _)| *k == field).map(|(_, v)| v)
                };
                let v = v.ok_or_else(|| {
                    if field.is_empty() || field.parse::<usize>().is_ok() {
                        // The sandbox formats through its own `Formatter`, whose lookup
                        // raises the plain tuple `IndexError`.
                        Error::new("IndexError", "tuple index out of range")
                    } else {
                        Error::new("KeyError", py::repr_str(&field))
                    }
                })?;
                out.push_str(&v.to_str());
            }
            '}' => {
                return Err(Error::value_error(
                    "Single '}' encountered in format string",
                ))
            }
            c => out.push(c),
        }
    }
    Ok(out)
}
