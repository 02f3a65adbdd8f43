//! Python's grammar for the expressions `ast.literal_eval` accepts.

use super::{malformed, str_lit, syntax_err, Lit, Tok, Token};

/// The literal the tokens spell.
pub(super) fn parse(toks: Vec<Token>) -> Result<Lit, String> {
    Parser { toks, pos: 0 }.parse_input()
}

/// What `literal_eval` needs to know about a node for `+`/`-`: a unary sign takes only a bare
/// number constant (not a bool, not `-(-1)`); `a + b`/`a - b` only a signed real on the left and
/// a bare imaginary constant on the right (complex literals such as `1-2j`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Number,
    Signed,
    Other,
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> &Tok {
        self.toks.get(self.pos).map_or(&Tok::End, |t| &t.tok)
    }

    fn peek_at(&self, k: usize) -> &Tok {
        self.toks.get(self.pos + k).map_or(&Tok::End, |t| &t.tok)
    }

    fn line(&self) -> usize {
        self.toks
            .get(self.pos)
            .or_else(|| self.toks.last())
            .map_or(1, |t| t.line)
    }

    fn bump(&mut self) {
        self.pos += 1;
    }

    fn is_op(&self, c: char) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == c)
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.is_op(c) {
            self.bump();
            Ok(())
        } else {
            Err(syntax_err("invalid syntax", self.line()))
        }
    }

    fn parse_input(mut self) -> Result<Lit, String> {
        let (lit, _) = self.parse_exprs()?;
        while matches!(self.peek(), Tok::Newline) {
            self.bump();
        }
        match self.peek() {
            Tok::End => Ok(lit),
            _ => Err(syntax_err("invalid syntax", self.line())),
        }
    }

    /// `expr (',' expr)* [',']`: a tuple as soon as one comma appears.
    fn parse_exprs(&mut self) -> Result<(Lit, Kind), String> {
        let first = self.parse_expr()?;
        if !self.is_op(',') {
            return Ok(first);
        }
        let mut items = vec![first.0];
        while self.is_op(',') {
            self.bump();
            if matches!(
                self.peek(),
                Tok::Op(')' | ']' | '}') | Tok::Newline | Tok::End
            ) {
                break;
            }
            items.push(self.parse_expr()?.0);
        }
        Ok((Lit::Tuple(items), Kind::Other))
    }

    fn parse_expr(&mut self) -> Result<(Lit, Kind), String> {
        let line = self.line();
        let (left, kind) = self.parse_unary()?;
        let sign = match self.peek() {
            Tok::Op(c @ ('+' | '-')) => *c,
            _ => return Ok((left, kind)),
        };
        self.bump();
        let (right, right_kind) = self.parse_unary()?;
        let re = match left {
            Lit::Int(i) => i as f64,
            Lit::BigInt(f) | Lit::Float(f) if kind != Kind::Other => f,
            _ => return Err(malformed("BinOp", line)),
        };
        match right {
            Lit::Complex(r, i) if right_kind == Kind::Number && kind != Kind::Other => {
                let value = if sign == '+' {
                    Lit::Complex(re + r, i)
                } else {
                    Lit::Complex(re - r, -i)
                };
                Ok((value, Kind::Other))
            }
            _ => Err(malformed("BinOp", line)),
        }
    }

    fn parse_unary(&mut self) -> Result<(Lit, Kind), String> {
        let line = self.line();
        match *self.peek() {
            Tok::Op(sign @ ('+' | '-')) => {
                self.bump();
                if matches!(self.peek(), Tok::Op('+' | '-' | '~')) {
                    return Err(malformed("UnaryOp", line));
                }
                let (operand, kind) = self.parse_atom()?;
                if kind != Kind::Number {
                    return Err(malformed("UnaryOp", line));
                }
                let value = match (sign, operand) {
                    ('+', v) => v,
                    (_, Lit::Int(i)) => Lit::Int(-i),
                    (_, Lit::BigInt(f)) => Lit::BigInt(-f),
                    (_, Lit::Float(f)) => Lit::Float(-f),
                    (_, Lit::Complex(r, i)) => Lit::Complex(-r, -i),
                    _ => return Err(malformed("UnaryOp", line)),
                };
                Ok((value, Kind::Signed))
            }
            Tok::Op('~') => Err(malformed("UnaryOp", line)),
            _ => self.parse_atom(),
        }
    }

    fn parse_atom(&mut self) -> Result<(Lit, Kind), String> {
        let line = self.line();
        let tok = self.peek().clone();
        match tok {
            Tok::Num(lit) => {
                self.bump();
                Ok((lit, Kind::Number))
            }
            Tok::Str(units, bytes) => {
                self.bump();
                Ok((str_lit(&units, bytes), Kind::Other))
            }
            Tok::Ellipsis => {
                self.bump();
                let lit = Lit::Opaque {
                    what: "Ellipsis",
                    key: "E".to_string(),
                };
                Ok((lit, Kind::Other))
            }
            Tok::Name(name) => {
                self.bump();
                let lit = match name.as_str() {
                    "True" => Lit::Bool(true),
                    "False" => Lit::Bool(false),
                    "None" => Lit::None,
                    "set" if self.is_op('(') && matches!(self.peek_at(1), Tok::Op(')')) => {
                        self.bump();
                        self.bump();
                        Lit::Set(Vec::new())
                    }
                    _ => return Err(malformed("Name", line)),
                };
                Ok((lit, Kind::Other))
            }
            Tok::Op('(') => {
                self.bump();
                if self.is_op(')') {
                    self.bump();
                    return Ok((Lit::Tuple(Vec::new()), Kind::Other));
                }
                // Parentheses alone make no node: `-(1)` is still a unary minus on a constant.
                let inner = self.parse_exprs()?;
                self.expect(')')?;
                Ok(inner)
            }
            Tok::Op('[') => {
                self.bump();
                let items = self.parse_items(']')?;
                Ok((Lit::List(items), Kind::Other))
            }
            Tok::Op('{') => {
                self.bump();
                self.parse_brace().map(|lit| (lit, Kind::Other))
            }
            _ => Err(syntax_err("invalid syntax", line)),
        }
    }

    /// Comma-separated items up to `close` (trailing comma allowed); the opener is consumed.
    fn parse_items(&mut self, close: char) -> Result<Vec<Lit>, String> {
        let mut items = Vec::new();
        loop {
            if self.is_op(close) {
                self.bump();
                return Ok(items);
            }
            items.push(self.parse_expr()?.0);
            if self.is_op(',') {
                self.bump();
            } else {
                self.expect(close)?;
                return Ok(items);
            }
        }
    }

    /// After `{`: a dict (`{}` included) or a set.
    fn parse_brace(&mut self) -> Result<Lit, String> {
        if self.is_op('}') {
            self.bump();
            return Ok(Lit::Dict(Vec::new()));
        }
        let first = self.parse_expr()?.0;
        if !self.is_op(':') {
            let mut items = vec![first];
            if self.is_op(',') {
                self.bump();
                items.extend(self.parse_items('}')?);
            } else {
                self.expect('}')?;
            }
            return Ok(Lit::Set(items));
        }
        self.bump();
        let mut entries = vec![(first, self.parse_expr()?.0)];
        loop {
            if self.is_op('}') {
                self.bump();
                return Ok(Lit::Dict(entries));
            }
            self.expect(',')?;
            if self.is_op('}') {
                self.bump();
                return Ok(Lit::Dict(entries));
            }
            let key = self.parse_expr()?.0;
            if !self.is_op(':') {
                return Err(syntax_err("':' expected after dictionary key", self.line()));
            }
            self.bump();
            entries.push((key, self.parse_expr()?.0));
        }
    }
}
