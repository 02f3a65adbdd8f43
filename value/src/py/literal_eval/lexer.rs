//! Python's tokenizer, as far as literals go.

use super::super::int::INT_MAX_STR_DIGITS;
use super::{malformed, syntax_err, unsupported, Lit, Tok, Token, MAX_NESTING};

/// The tokens of a literal's source (newlines already normalised to `\n`).
pub(super) fn tokenize(chars: Vec<char>) -> Result<Vec<Token>, String> {
    Lexer {
        s: chars,
        i: 0,
        line: 1,
        brackets: Vec::new(),
        toks: Vec::new(),
    }
    .run()
}

struct Lexer {
    s: Vec<char>,
    i: usize,
    line: usize,
    brackets: Vec<char>,
    toks: Vec<Token>,
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    fn push(&mut self, tok: Tok) {
        self.toks.push(Token {
            tok,
            line: self.line,
        });
    }

    fn err(&self, msg: &str) -> String {
        syntax_err(msg, self.line)
    }

    /// A backslash that must end the physical line, and not the input.
    fn continuation(&mut self) -> Result<(), String> {
        if self.peek(1) != Some('\n') {
            return Err(self.err("unexpected character after line continuation character"));
        }
        self.i += 2;
        self.line += 1;
        if self.peek(0).is_none() {
            return Err(self.err("unexpected EOF while parsing"));
        }
        Ok(())
    }

    fn skip_comment(&mut self) {
        while self.peek(0).is_some_and(|c| c != '\n') {
            self.i += 1;
        }
    }

    fn run(mut self) -> Result<Vec<Token>, String> {
        let mut line_start = true;
        loop {
            if line_start && self.brackets.is_empty() {
                // Indentation of a new logical line: blank and comment-only lines are skipped;
                // any other line must start in column 0. A form feed resets the column; line
                // continuations are part of the indentation, the column at the first one counts.
                let mut col = 0usize;
                let mut cont_col = 0usize;
                loop {
                    match self.peek(0) {
                        Some(' ' | '\t') => col += 1,
                        Some('\u{c}') => col = 0,
                        Some('\\') => {
                            if cont_col == 0 {
                                cont_col = col;
                            }
                            self.continuation()?;
                            continue;
                        }
                        _ => break,
                    }
                    self.i += 1;
                }
                let col = if cont_col != 0 { cont_col } else { col };
                match self.peek(0) {
                    None if col > 0 => return Err(self.err("unexpected indent")),
                    None => break,
                    Some('#') => {
                        self.skip_comment();
                        continue;
                    }
                    Some('\n') => {
                        self.i += 1;
                        self.line += 1;
                        continue;
                    }
                    Some(_) if col > 0 => return Err(self.err("unexpected indent")),
                    Some(_) => line_start = false,
                }
            }
            let Some(c) = self.peek(0) else { break };
            match c {
                ' ' | '\t' | '\u{c}' => self.i += 1,
                '#' => self.skip_comment(),
                '\\' => self.continuation()?,
                '\n' => {
                    if self.brackets.is_empty() {
                        self.push(Tok::Newline);
                        line_start = true;
                    }
                    self.i += 1;
                    self.line += 1;
                }
                '(' | '[' | '{' => {
                    if self.brackets.len() >= MAX_NESTING {
                        return Err(self.err("too many nested parentheses"));
                    }
                    self.brackets.push(c);
                    self.push(Tok::Op(c));
                    self.i += 1;
                }
                ')' | ']' | '}' => {
                    let open = match c {
                        ')' => '(',
                        ']' => '[',
                        _ => '{',
                    };
                    match self.brackets.pop() {
                        Some(o) if o == open => {}
                        Some(o) => {
                            return Err(self.err(&format!(
                                "closing parenthesis '{c}' does not match opening parenthesis '{o}'"
                            )))
                        }
                        None => return Err(self.err(&format!("unmatched '{c}'"))),
                    }
                    self.push(Tok::Op(c));
                    self.i += 1;
                }
                '0'..='9' => self.lex_number()?,
                '.' if self.peek(1).is_some_and(|d| d.is_ascii_digit()) => self.lex_number()?,
                '.' if self.peek(1) == Some('.') && self.peek(2) == Some('.') => {
                    self.push(Tok::Ellipsis);
                    self.i += 3;
                }
                '\'' | '"' => self.lex_string("")?,
                c if c.is_ascii_alphabetic() || c == '_' => {
                    let start = self.i;
                    while self
                        .peek(0)
                        .is_some_and(|d| d.is_ascii_alphanumeric() || d == '_')
                    {
                        self.i += 1;
                    }
                    let name: String = self.s[start..self.i].iter().collect();
                    match self.peek(0) {
                        Some('\'' | '"') if is_string_prefix(&name) => self.lex_string(&name)?,
                        Some(d) if !d.is_ascii() => {
                            return Err(self.err("non-ASCII identifiers are not supported"))
                        }
                        _ => self.push(Tok::Name(name)),
                    }
                }
                c if !c.is_ascii() || c.is_ascii_control() => {
                    return Err(self.err(&format!("invalid character '{c}' (U+{:04X})", c as u32)))
                }
                c => {
                    self.push(Tok::Op(c));
                    self.i += 1;
                }
            }
        }
        if let Some(o) = self.brackets.last() {
            return Err(self.err(&format!("'{o}' was never closed")));
        }
        self.push(Tok::End);
        Ok(self.toks)
    }

    /// Digits with single underscores between them (`tok_decimal_tail`); at least one digit.
    fn decimal_tail(&mut self, text: &mut String) -> Result<(), String> {
        loop {
            if !self.peek(0).is_some_and(|d| d.is_ascii_digit()) {
                return Err(self.err("invalid decimal literal"));
            }
            while let Some(d) = self.peek(0).filter(char::is_ascii_digit) {
                text.push(d);
                self.i += 1;
            }
            if self.peek(0) != Some('_') {
                return Ok(());
            }
            self.i += 1;
        }
    }

    fn lex_number(&mut self) -> Result<(), String> {
        let radix = match (self.peek(0), self.peek(1)) {
            (Some('0'), Some('x' | 'X')) => Some((16, "hexadecimal")),
            (Some('0'), Some('o' | 'O')) => Some((8, "octal")),
            (Some('0'), Some('b' | 'B')) => Some((2, "binary")),
            _ => None,
        };
        let lit = if let Some((radix, name)) = radix {
            self.i += 2;
            let mut digits = String::new();
            loop {
                if self.peek(0) == Some('_') {
                    self.i += 1;
                }
                if !self.peek(0).is_some_and(|d| d.is_digit(radix)) {
                    return Err(self.err(&format!("invalid {name} literal")));
                }
                while let Some(d) = self.peek(0).filter(|d| d.is_digit(radix)) {
                    digits.push(d);
                    self.i += 1;
                }
                if self.peek(0) != Some('_') {
                    break;
                }
            }
            if let Some(d) = self.peek(0).filter(char::is_ascii_digit) {
                return Err(self.err(&format!("invalid digit '{d}' in {name} literal")));
            }
            radix_int(&digits, radix)
        } else {
            let mut text = String::new();
            let mut is_float = false;
            if self.peek(0) == Some('.') {
                self.i += 1;
                text.push('.');
                self.decimal_tail(&mut text)?;
                is_float = true;
            } else {
                self.decimal_tail(&mut text)?;
                if self.peek(0) == Some('.') {
                    self.i += 1;
                    text.push('.');
                    is_float = true;
                    if self.peek(0).is_some_and(|d| d.is_ascii_digit()) {
                        self.decimal_tail(&mut text)?;
                    }
                }
            }
            if matches!(self.peek(0), Some('e' | 'E')) {
                self.i += 1;
                text.push('e');
                if let Some(sign @ ('+' | '-')) = self.peek(0) {
                    text.push(sign);
                    self.i += 1;
                }
                self.decimal_tail(&mut text)?;
                is_float = true;
            }
            if matches!(self.peek(0), Some('j' | 'J')) {
                self.i += 1;
                let im = text
                    .parse()
                    .map_err(|_| self.err("invalid imaginary literal"))?;
                Lit::Complex(0.0, im)
            } else if is_float {
                Lit::Float(
                    text.parse()
                        .map_err(|_| self.err("invalid decimal literal"))?,
                )
            } else if text.bytes().all(|b| b == b'0') {
                Lit::Int(0)
            } else if text.starts_with('0') {
                return Err(self.err(
                    "leading zeros in decimal integer literals are not permitted; \
                     use an 0o prefix for octal integers",
                ));
            } else if text.len() > INT_MAX_STR_DIGITS {
                return Err(self.err(&format!(
                    "Exceeds the limit ({INT_MAX_STR_DIGITS} digits) for integer string \
                     conversion: value has {} digits",
                    text.len()
                )));
            } else if let Ok(i) = text.parse::<i128>() {
                Lit::Int(i)
            } else {
                Lit::BigInt(text.parse().unwrap_or(f64::INFINITY))
            }
        };
        // A number may not run into a name (`1abc`, `1_`, `0x1g`, `1.real`).
        if self
            .peek(0)
            .is_some_and(|d| d.is_ascii_alphanumeric() || d == '_' || !d.is_ascii())
        {
            return Err(self.err("invalid decimal literal"));
        }
        self.push(Tok::Num(lit));
        Ok(())
    }

    /// A string literal starting at the opening quote; `prefix` is the letters before it.
    fn lex_string(&mut self, prefix: &str) -> Result<(), String> {
        let p = prefix.to_ascii_lowercase();
        if p.contains('f') {
            // An f-string is a `JoinedStr` node, which `literal_eval` always rejects.
            return Err(malformed("JoinedStr", self.line));
        }
        let raw = p.contains('r');
        let bytes = p.contains('b');
        let Some(quote) = self.peek(0) else {
            return Err(self.err("invalid syntax"));
        };
        let triple = self.peek(1) == Some(quote) && self.peek(2) == Some(quote);
        self.i += if triple { 3 } else { 1 };
        let unterminated = if triple {
            "unterminated triple-quoted string literal"
        } else {
            "unterminated string literal"
        };
        let mut body: Vec<char> = Vec::new();
        loop {
            let Some(c) = self.peek(0) else {
                return Err(self.err(unterminated));
            };
            if c == '\\' {
                // A backslash always takes the next character along, even in raw strings.
                let Some(next) = self.peek(1) else {
                    return Err(self.err(unterminated));
                };
                body.push(c);
                body.push(next);
                if next == '\n' {
                    self.line += 1;
                }
                self.i += 2;
                continue;
            }
            if c == quote {
                if !triple {
                    self.i += 1;
                    break;
                }
                if self.peek(1) == Some(quote) && self.peek(2) == Some(quote) {
                    self.i += 3;
                    break;
                }
            }
            if c == '\n' {
                if !triple {
                    return Err(self.err(unterminated));
                }
                self.line += 1;
            }
            body.push(c);
            self.i += 1;
        }
        if bytes && body.iter().any(|c| !c.is_ascii()) {
            return Err(self.err("bytes can only contain ASCII literal characters"));
        }
        let units: Vec<u32> = if raw {
            body.iter().map(|&c| c as u32).collect()
        } else {
            decode_escapes(&body, bytes).map_err(|e| self.err(&e))?
        };
        // Adjacent literals concatenate ('a' 'b' == 'ab'); a newline token would separate them.
        if let Some(Token {
            tok: Tok::Str(prev, prev_bytes),
            ..
        }) = self.toks.last_mut()
        {
            if *prev_bytes != bytes {
                return Err(syntax_err(
                    "cannot mix bytes and nonbytes literals",
                    self.line,
                ));
            }
            prev.extend(units);
        } else {
            self.push(Tok::Str(units, bytes));
        }
        Ok(())
    }
}

fn is_string_prefix(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "r" | "u" | "b" | "br" | "rb" | "f" | "fr" | "rf"
    )
}

/// An int literal in base 2/8/16; beyond `i128` it is accumulated as a float (approximate).
fn radix_int(digits: &str, radix: u32) -> Lit {
    let mut exact: Option<i128> = Some(0);
    let mut approx = 0f64;
    for d in digits.chars().filter_map(|c| c.to_digit(radix)) {
        exact = exact
            .and_then(|v| v.checked_mul(i128::from(radix)))
            .and_then(|v| v.checked_add(i128::from(d)));
        approx = approx * f64::from(radix) + f64::from(d);
    }
    match exact {
        Some(v) => Lit::Int(v),
        None => Lit::BigInt(approx),
    }
}

/// Escape sequences of a non-raw literal, as code points (a `str` may hold lone surrogates; a
/// bytes literal holds values below 256 and knows no `\u`/`\U`/`\N` escapes).
fn decode_escapes(body: &[char], bytes: bool) -> Result<Vec<u32>, String> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        i += 1;
        if c != '\\' {
            out.push(c as u32);
            continue;
        }
        let Some(&e) = body.get(i) else {
            out.push(u32::from('\\'));
            break;
        };
        i += 1;
        match e {
            '\n' => {}
            '\\' | '\'' | '"' => out.push(e as u32),
            'a' => out.push(0x7),
            'b' => out.push(0x8),
            'f' => out.push(0xc),
            'n' => out.push(0xa),
            'r' => out.push(0xd),
            't' => out.push(0x9),
            'v' => out.push(0xb),
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match body.get(i).and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            i += 1;
                        }
                        None => break,
                    }
                }
                out.push(if bytes { v & 0xff } else { v });
            }
            'x' | 'u' | 'U' if !bytes || e == 'x' => {
                let (len, what) = match e {
                    'x' => (2, "truncated \\xXX escape"),
                    'u' => (4, "truncated \\uXXXX escape"),
                    _ => (8, "truncated \\UXXXXXXXX escape"),
                };
                let hex: String = body.iter().skip(i).take(len).collect();
                if hex.chars().count() != len || !hex.chars().all(|d| d.is_ascii_hexdigit()) {
                    return Err(format!("(unicode error) {what}"));
                }
                i += len;
                let v = u32::from_str_radix(&hex, 16).map_err(|_| what.to_string())?;
                if v > 0x10ffff {
                    return Err("(unicode error) illegal Unicode character".to_string());
                }
                out.push(v);
            }
            'N' if !bytes => return Err(unsupported("a \\N{...} escape (no Unicode name table)")),
            other => {
                out.push(u32::from('\\'));
                out.push(other as u32);
            }
        }
    }
    Ok(out)
}
