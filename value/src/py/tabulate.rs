//! `tabulate(rows, headers, tablefmt="pipe", floatfmt=…)` of tabulate 0.9.0, the library behind
//! pandas' `to_markdown()` (RAGFlow's YahooFinance, ExeSQL and ExcelProcessor print their tables
//! with it, and the model reads those bytes).
//!
//! No Rust crate reproduces tabulate's column typing (numbers and `True`/`False` recognised inside
//! strings), its `g` float format, its decimal alignment, the stripping of left-aligned cells and
//! its multi-line rows, so the rules are written out here, following tabulate's functions
//! (`_type`, `_format`, `_afterpoint`, `_align_column`, `_format_table`). Checked against tabulate
//! itself by `tabular_tests.rs` (`tests/golden/python/tabular.json`).
//!
//! As in RAGFlow's image, tabulate runs without `wcwidth`: a cell's width is its number of code
//! points. Not reproduced: ANSI colour codes inside cells (tabulate leaves them out of widths;
//! here they count).

use super::format::FloatFormat;
use super::{float_of_str, float_repr, parse_int_big, strip};

/// A Python object in a table, as tabulate tells its type.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// `None`: printed as tabulate's `missingval` (`""`).
    None,
    Bool(bool),
    /// A Python `int`.
    Int(i128),
    /// A Python `float` (or `numpy.float64`, a subclass).
    Float(f64),
    /// A `decimal.Decimal` (its text): a number to tabulate, printed through `float()`.
    Decimal(String),
    /// A numpy scalar of an int, bool or datetime array (`DataFrame.values` of a frame without
    /// object columns): its `float()` (`None` when it has none, as `NaT`) and its `str()`.
    /// tabulate 0.9 knows only Python ints as ints, so it prints these as floats (an all-int
    /// frame's `1234567` becomes `1.23457e+06`).
    Numpy(Option<f64>, String),
    /// A `str`: tabulate parses ints, floats and `True`/`False` out of it.
    Str(String),
    /// Any other object by its `str()` (a list, a dict, a date or timestamp): always text.
    Object(String),
}

/// tabulate's types, in `_more_generic`'s order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    None,
    Bool,
    Int,
    Float,
    Str,
}

/// Python's `int(s)` succeeds (whitespace, sign, `_` between digits, Unicode digits).
fn is_int_text(s: &str) -> bool {
    parse_int_big(s).is_ok()
}

/// tabulate's `_isnumber` for a string: `float(s)` succeeds, and an infinity or NaN only when
/// spelled exactly `inf`, `-inf` or `nan` (any case, no blanks).
fn is_number_text(s: &str) -> bool {
    match float_of_str(s) {
        Ok(f) if f.is_nan() || f.is_infinite() => {
            matches!(s.to_lowercase().as_str(), "inf" | "-inf" | "nan")
        }
        Ok(_) => true,
        Err(_) => false,
    }
}

impl Cell {
    /// `_type(value)` with number parsing on.
    fn kind(&self) -> Kind {
        match self {
            Cell::None => Kind::None,
            Cell::Bool(_) => Kind::Bool,
            Cell::Int(_) => Kind::Int,
            Cell::Float(_) | Cell::Decimal(_) | Cell::Numpy(Some(_), _) => Kind::Float,
            Cell::Str(s) if s == "True" || s == "False" => Kind::Bool,
            Cell::Str(s) if is_int_text(s) => Kind::Int,
            Cell::Str(s) if is_number_text(s) => Kind::Float,
            Cell::Str(_) | Cell::Object(_) | Cell::Numpy(None, _) => Kind::Str,
        }
    }

    /// Python's `str()`.
    fn str(&self) -> String {
        match self {
            Cell::None => "None".into(),
            Cell::Bool(b) => if *b { "True" } else { "False" }.into(),
            Cell::Int(i) => i.to_string(),
            Cell::Float(f) => float_repr(*f),
            Cell::Decimal(s) | Cell::Str(s) | Cell::Object(s) | Cell::Numpy(_, s) => s.clone(),
        }
    }

    /// `float(value)`, for a cell of a float column.
    fn float(&self) -> f64 {
        match self {
            Cell::Bool(b) => f64::from(u8::from(*b)),
            Cell::Int(i) => *i as f64,
            Cell::Float(f) | Cell::Numpy(Some(f), _) => *f,
            Cell::Decimal(s) | Cell::Str(s) => float_of_str(s).unwrap_or(f64::NAN),
            Cell::None | Cell::Object(_) | Cell::Numpy(None, _) => f64::NAN,
        }
    }

    /// `_format(value, coltype, floatfmt, intfmt="", missingval="")`.
    fn format(&self, kind: Kind, floatfmt: FloatFormat) -> String {
        match (self, kind) {
            (Cell::None, _) => String::new(),
            (_, Kind::Float) => floatfmt.apply(self.float()),
            _ => self.str(),
        }
    }
}

/// tabulate's `_afterpoint`: the number of characters after the decimal point (or after the
/// exponent's `e` when there is no point) of a number's text; `-1` for an int or a non-number.
/// `1.5e+06` has 5, as tabulate counts from the point.
pub fn after_point(s: &str) -> isize {
    if !(is_number_text(s) || is_number_text(&s.replace(',', ""))) || is_int_text(s) {
        return -1;
    }
    let chars: Vec<char> = s.chars().collect();
    let pos = chars
        .iter()
        .rposition(|c| *c == '.')
        .or_else(|| chars.iter().rposition(|c| matches!(c, 'e' | 'E')));
    match pos {
        Some(p) => (chars.len() - p - 1) as isize,
        None => -1,
    }
}

/// A cell's width: its code points (tabulate without `wcwidth`).
fn width(s: &str) -> usize {
    s.chars().count()
}

/// The widest line of a multi-line cell (`re.split("[\r\n]", s)`).
fn multiline_width(s: &str) -> usize {
    s.split(['\r', '\n']).map(width).max().unwrap_or(0)
}

/// Python's `str.splitlines()`.
fn split_lines(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(std::mem::take(&mut cur));
            }
            '\n' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn pad_left(w: usize, s: &str) -> String {
    format!("{}{s}", " ".repeat(w.saturating_sub(width(s))))
}

fn pad_right(w: usize, s: &str) -> String {
    format!("{s}{}", " ".repeat(w.saturating_sub(width(s))))
}

/// A column's alignment: `numalign="decimal"` for int and float columns, `stralign="left"`
/// for the others.
#[derive(Clone, Copy, PartialEq)]
enum Align {
    Decimal,
    Left,
}

impl Align {
    fn pad(self, w: usize, s: &str) -> String {
        match self {
            Align::Decimal => pad_left(w, s),
            Align::Left => pad_right(w, s),
        }
    }
}

/// The measures one table is laid out with.
struct Layout {
    multiline: bool,
}

impl Layout {
    fn width(&self, s: &str) -> usize {
        if self.multiline {
            multiline_width(s)
        } else {
            width(s)
        }
    }

    /// `_align_column`: decimal points lined up (numbers) or blanks stripped (text), then
    /// padded to the widest cell or `minwidth`.
    fn align_column(&self, strings: Vec<String>, align: Align, minwidth: usize) -> Vec<String> {
        let strings: Vec<String> = match align {
            Align::Decimal => {
                let decimals: Vec<isize> = strings.iter().map(|s| after_point(s)).collect();
                let most = decimals.iter().copied().max().unwrap_or(-1);
                strings
                    .iter()
                    .zip(&decimals)
                    .map(|(s, d)| format!("{s}{}", " ".repeat((most - d).max(0) as usize)))
                    .collect()
            }
            Align::Left => strings.iter().map(|s| strip(s).to_string()).collect(),
        };
        let widest = strings
            .iter()
            .map(|s| self.width(s))
            .max()
            .unwrap_or(0)
            .max(minwidth);
        strings
            .iter()
            .map(|s| {
                if self.multiline {
                    split_lines(s)
                        .iter()
                        .map(|l| align.pad(widest, l))
                        .collect::<Vec<_>>()
                        .join("\n")
                } else {
                    align.pad(widest, s)
                }
            })
            .collect()
    }

    /// `_align_header`.
    fn align_header(&self, header: &str, align: Align, w: usize) -> String {
        if self.multiline {
            header
                .split(['\r', '\n'])
                .map(|h| align.pad(w, h))
                .collect::<Vec<_>>()
                .join("\n")
        } else {
            align.pad(w, header)
        }
    }

    /// One row (`_append_basic_row`, or `_append_multiline_row`: a multi-line row becomes
    /// several lines, shorter cells filled with blanks).
    fn push_row(&self, lines: &mut Vec<String>, cells: &[String], widths: &[usize]) {
        if !self.multiline {
            let padded: Vec<String> = cells.iter().map(|c| format!(" {c} ")).collect();
            lines.push(format!("|{}|", padded.join("|")));
            return;
        }
        let split: Vec<Vec<String>> = cells.iter().map(|c| split_lines(c)).collect();
        let n = split.iter().map(Vec::len).max().unwrap_or(0);
        for i in 0..n {
            let line: Vec<String> = split
                .iter()
                .zip(widths)
                .map(|(c, w)| {
                    let cell = c.get(i).cloned().unwrap_or_else(|| " ".repeat(*w));
                    format!(" {cell} ")
                })
                .collect();
            lines.push(format!("|{}|", line.join("|")));
        }
    }
}

/// `_pipe_line_with_colons`: the rule under the header, its colons showing each column's
/// alignment (none when there are no columns' types, as for a table without rows).
fn pipe_rule(padded_widths: &[usize], aligns: &[Align]) -> String {
    let segments: Vec<String> = if aligns.is_empty() {
        padded_widths.iter().map(|w| "-".repeat(*w)).collect()
    } else {
        aligns
            .iter()
            .zip(padded_widths)
            .map(|(a, w)| match a {
                Align::Decimal => format!("{}:", "-".repeat(w.saturating_sub(1))),
                Align::Left => format!(":{}", "-".repeat(w.saturating_sub(1))),
            })
            .collect()
    };
    format!("|{}|", segments.join("|"))
}

/// `tabulate(rows, headers, tablefmt="pipe", floatfmt=floatfmt)` with a list of headers (fewer
/// headers than columns are filled with empty ones on the left, as for pandas' index column).
pub fn pipe_table(headers: &[String], rows: &[Vec<Cell>], floatfmt: FloatFormat) -> String {
    let mut headers: Vec<String> = headers.to_vec();
    if let Some(first) = rows.first() {
        if !headers.is_empty() && headers.len() < first.len() {
            let mut padded = vec![String::new(); first.len() - headers.len()];
            padded.append(&mut headers);
            headers = padded;
        }
    }
    // `izip_longest(*rows)`: short rows are filled with None.
    let ncols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let cols: Vec<Vec<&Cell>> = (0..ncols)
        .map(|j| {
            rows.iter()
                .map(|r| r.get(j).unwrap_or(&Cell::None))
                .collect()
        })
        .collect();
    let layout = Layout {
        multiline: headers
            .iter()
            .cloned()
            .chain(rows.iter().flatten().map(Cell::str))
            .any(|s| s.contains(['\r', '\n'])),
    };
    let kinds: Vec<Kind> = cols
        .iter()
        .map(|c| c.iter().map(|v| v.kind()).fold(Kind::Bool, Kind::max))
        .collect();
    let aligns: Vec<Align> = kinds
        .iter()
        .map(|k| match k {
            Kind::Int | Kind::Float => Align::Decimal,
            _ => Align::Left,
        })
        .collect();
    let minwidths: Vec<usize> = if headers.is_empty() {
        vec![0; ncols]
    } else {
        headers.iter().map(|h| layout.width(h) + 2).collect()
    };
    let cols: Vec<Vec<String>> = cols
        .iter()
        .zip(&kinds)
        .zip(&aligns)
        .zip(&minwidths)
        .map(|(((c, k), a), minw)| {
            let strings = c.iter().map(|v| v.format(*k, floatfmt)).collect();
            layout.align_column(strings, *a, *minw)
        })
        .collect();
    let widest = |c: &[String]| c.iter().map(|s| layout.width(s)).max().unwrap_or(0);
    let (header_cells, widths): (Vec<String>, Vec<usize>) = if headers.is_empty() {
        (Vec::new(), cols.iter().map(|c| widest(c)).collect())
    } else {
        let blank = vec![vec![String::new()]; headers.len()];
        let t_cols = if cols.is_empty() { &blank } else { &cols };
        let t_aligns = if aligns.is_empty() {
            vec![Align::Left; headers.len()]
        } else {
            aligns.clone()
        };
        let widths: Vec<usize> = minwidths
            .iter()
            .zip(t_cols)
            .map(|(minw, c)| (*minw).max(widest(c)))
            .collect();
        let cells = headers
            .iter()
            .zip(&t_aligns)
            .zip(&widths)
            .map(|((h, a), w)| layout.align_header(h, *a, *w))
            .collect();
        (cells, widths)
    };
    let nrows = if cols.is_empty() { 0 } else { rows.len() };
    let padded_widths: Vec<usize> = widths.iter().map(|w| w + 2).collect();
    let mut lines = Vec::new();
    if header_cells.is_empty() {
        // `lineabove`, hidden when there is a header.
        lines.push(pipe_rule(&padded_widths, &aligns));
    } else {
        layout.push_row(&mut lines, &header_cells, &widths);
        lines.push(pipe_rule(&padded_widths, &aligns));
    }
    for i in 0..nrows {
        let row: Vec<String> = cols.iter().map(|c| c[i].clone()).collect();
        layout.push_row(&mut lines, &row, &widths);
    }
    if headers.is_empty() && nrows == 0 {
        return String::new();
    }
    lines.join("\n")
}
