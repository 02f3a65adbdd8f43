//! `str.encode` and `bytes.decode` for the codecs a template reaches without Python's codec
//! registry: UTF-8, ASCII and Latin-1, under the `strict`, `ignore` and `replace` error
//! handlers, with CPython's exception texts.

use super::args::{str_arg, Args};
use super::error::{Error, Result};
use super::value::Value;

#[derive(Clone, Copy)]
enum Codec {
    Utf8,
    Ascii,
    Latin1,
}

impl Codec {
    /// `codecs.lookup` after its normalisation (case, `_`, spaces). Another codec Python knows
    /// (`utf-16`, `cp1252`, …) is reported as unknown here.
    fn lookup(name: &str) -> Result<Self> {
        let n = name.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        match n.as_str() {
            "utf-8" | "utf8" | "u8" | "utf" | "cp65001" => Ok(Codec::Utf8),
            "ascii" | "us-ascii" | "646" => Ok(Codec::Ascii),
            "latin-1" | "latin1" | "latin" | "l1" | "iso-8859-1" | "iso8859-1" | "8859"
            | "cp819" => Ok(Codec::Latin1),
            _ => Err(Error::new(
                "LookupError",
                format!("unknown encoding: {name}"),
            )),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Codec::Utf8 => "utf-8",
            Codec::Ascii => "ascii",
            Codec::Latin1 => "latin-1",
        }
    }

    /// The largest code point the codec encodes (`ordinal not in range(N)`).
    fn limit(self) -> u32 {
        match self {
            Codec::Utf8 => u32::MAX,
            Codec::Ascii => 128,
            Codec::Latin1 => 256,
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Handler {
    Strict,
    Ignore,
    Replace,
}

fn handler(name: &str) -> Result<Handler> {
    match name {
        "strict" => Ok(Handler::Strict),
        "ignore" => Ok(Handler::Ignore),
        "replace" => Ok(Handler::Replace),
        _ => Err(Error::new(
            "LookupError",
            format!("unknown error handler name '{name}'"),
        )),
    }
}

/// The `(encoding, errors)` arguments of `encode`/`decode`.
fn codec_args(args: &Args, func: &str) -> Result<(Codec, String)> {
    let b = args.bind(func, &["encoding", "errors"], 0)?;
    let encoding = match &b[0] {
        Some(v) => str_arg(v, &format!("{func}() argument 'encoding'"))?.to_string(),
        None => "utf-8".to_string(),
    };
    let errors = match &b[1] {
        Some(v) => str_arg(v, &format!("{func}() argument 'errors'"))?.to_string(),
        None => "strict".to_string(),
    };
    Ok((Codec::lookup(&encoding)?, errors))
}

/// Python's `repr` of one character as codec errors print it (`'\xe9'`, `'\u4e2d'`).
fn char_repr(c: char) -> String {
    match u32::from(c) {
        n if n < 0x100 => format!("'\\x{n:02x}'"),
        n if n < 0x10000 => format!("'\\u{n:04x}'"),
        n => format!("'\\U{n:08x}'"),
    }
}

/// `s.encode(encoding, errors)`.
pub fn encode(s: &str, args: &Args) -> Result<Value> {
    let (codec, errors) = codec_args(args, "encode")?;
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if u32::from(c) < codec.limit() {
            match codec {
                Codec::Utf8 => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                // Below the limit, the code point is the byte.
                Codec::Ascii | Codec::Latin1 => out.push(u32::from(c) as u8),
            }
            i += 1;
            continue;
        }
        let end = (i..chars.len())
            .find(|&j| u32::from(chars[j]) < codec.limit())
            .unwrap_or(chars.len());
        match handler(&errors)? {
            Handler::Strict => {
                let what = if end - i == 1 {
                    format!("character {} in position {i}", char_repr(c))
                } else {
                    format!("characters in position {i}-{}", end - 1)
                };
                return Err(Error::new(
                    "UnicodeEncodeError",
                    format!(
                        "'{}' codec can't encode {what}: ordinal not in range({})",
                        codec.name(),
                        codec.limit()
                    ),
                ));
            }
            Handler::Ignore => {}
            Handler::Replace => out.extend(std::iter::repeat_n(b'?', end - i)),
        }
        i = end;
    }
    Ok(Value::Bytes(out.into()))
}

/// `b.decode(encoding, errors)`.
pub fn decode(b: &[u8], args: &Args) -> Result<Value> {
    let (codec, errors) = codec_args(args, "decode")?;
    let text = match codec {
        Codec::Latin1 => b.iter().map(|&x| char::from(x)).collect(),
        Codec::Utf8 => match std::str::from_utf8(b) {
            Ok(s) => s.to_string(),
            Err(e) => {
                let at = e.valid_up_to();
                match handler(&errors)? {
                    Handler::Strict => {
                        let reason = match e.error_len() {
                            None => "unexpected end of data",
                            Some(_) if (0x80..0xc2).contains(&b[at]) || b[at] > 0xf4 => {
                                "invalid start byte"
                            }
                            Some(_) => "invalid continuation byte",
                        };
                        return Err(Error::new(
                            "UnicodeDecodeError",
                            format!(
                                "'utf-8' codec can't decode byte 0x{:02x} in position {at}: {reason}",
                                b[at]
                            ),
                        ));
                    }
                    Handler::Ignore => String::from_utf8_lossy(b).replace('\u{fffd}', ""),
                    Handler::Replace => String::from_utf8_lossy(b).into_owned(),
                }
            }
        },
        Codec::Ascii => {
            let mut out = String::with_capacity(b.len());
            for (i, &x) in b.iter().enumerate() {
                if x < 0x80 {
                    out.push(char::from(x));
                    continue;
                }
                match handler(&errors)? {
                    Handler::Strict => {
                        return Err(Error::new(
                            "UnicodeDecodeError",
                            format!(
                                "'ascii' codec can't decode byte 0x{x:02x} in position {i}: ordinal not in range(128)"
                            ),
                        ))
                    }
                    Handler::Ignore => {}
                    Handler::Replace => out.push('\u{fffd}'),
                }
            }
            out
        }
    };
    Ok(Value::str(text))
}
