//! What of a source file a rendered diagnostic shows: every line cut to a window, so no input
//! can break the renderer.
//!
//! miette pads its underline with `{:width$}`, and Rust's formatter refuses widths past 65,535
//! (it panics): one-line DSLs of a few hundred kilobytes, as RAGFlow's API and database hand
//! them out, put a span far beyond that column. It would also print the whole line. So the
//! renderer gets an excerpt: long lines are cut around the span (or to their start, for the
//! context lines), the span is cut to what fits, and the report still names the span's real
//! line and column.

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

/// The longest line, in bytes, shown whole; a longer one is cut to about this many.
pub const MAX_LINE: usize = 160;

/// Marks where a cut line lost text.
const ELLIPSIS: &str = "…";

/// A source text as the renderer sees it, and where the diagnostic's span lies in it.
pub struct Excerpt {
    name: String,
    text: String,
    /// The span's column in the original line (bytes from its start, as miette counts).
    column: usize,
    /// The span within `text`.
    pub span: (usize, usize),
}

impl Excerpt {
    /// Cut `source` for a diagnostic on `start..end` (byte offsets; clamped to the text and
    /// to character boundaries).
    pub fn new(name: &str, source: &str, start: usize, end: usize) -> Excerpt {
        let start = floor_char_boundary(source, start.min(source.len()));
        let end = floor_char_boundary(source, end.clamp(start, source.len()));
        let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
        let column = start - line_start;
        if source.split('\n').all(|l| l.len() <= MAX_LINE) {
            return Excerpt {
                name: name.to_string(),
                text: source.to_string(),
                column,
                span: (start, end),
            };
        }
        let mut text = String::with_capacity(source.len().min(1 << 16));
        let mut span = (0, 0);
        let mut offset = 0;
        for line in source.split_inclusive('\n') {
            let range = offset..offset + line.len();
            offset = range.end;
            let body = line.trim_end_matches(['\n', '\r']);
            let ending = &line[body.len()..];
            if range.contains(&start) || (start == source.len() && range.end == start) {
                let (cut, s, e) = cut_around(body, start - range.start, end - range.start);
                span = (text.len() + s, text.len() + e);
                text.push_str(&cut);
            } else if body.len() > MAX_LINE {
                text.push_str(&body[..floor_char_boundary(body, MAX_LINE)]);
                text.push_str(ELLIPSIS);
            } else {
                text.push_str(body);
            }
            text.push_str(ending);
        }
        Excerpt {
            name: name.to_string(),
            text,
            column,
            span,
        }
    }

    /// The cut text.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// `line` cut to a window around `start..end` (offsets in `line`), and the span in the cut
/// text. A span longer than the window keeps its beginning.
fn cut_around(line: &str, start: usize, end: usize) -> (String, usize, usize) {
    let start = start.min(line.len());
    let end = end.clamp(start, line.len());
    if line.len() <= MAX_LINE {
        return (line.to_string(), start, end);
    }
    let end = floor_char_boundary(line, end.min(start + MAX_LINE / 2));
    let from = floor_char_boundary(line, start.saturating_sub(MAX_LINE / 4));
    let to = floor_char_boundary(line, (end + MAX_LINE / 4).min(line.len()));
    let mut cut = String::with_capacity(to - from + 2 * ELLIPSIS.len());
    if from > 0 {
        cut.push_str(ELLIPSIS);
    }
    let shift = cut.len();
    cut.push_str(&line[from..to]);
    if to < line.len() {
        cut.push_str(ELLIPSIS);
    }
    (cut, shift + start - from, shift + end - from)
}

/// The largest character boundary of `s` at or before `i` (`str::floor_char_boundary` is not
/// stable yet).
fn floor_char_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl SourceCode for Excerpt {
    /// The cut text's contents, named after the file. A read without context lines is the
    /// one miette takes the report's `line:column` from: it carries the original column.
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let c = self
            .text
            .as_str()
            .read_span(span, context_lines_before, context_lines_after)?;
        let column = if context_lines_before == 0 && context_lines_after == 0 {
            self.column
        } else {
            c.column()
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            c.data(),
            *c.span(),
            c.line(),
            column,
            c.line_count(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_stay_whole() {
        let src = "{\n  \"a\": \"{x}\"\n}";
        let e = Excerpt::new("f", src, 10, 13);
        assert_eq!(e.text(), src);
        assert_eq!(&e.text()[e.span.0..e.span.1], "{x}");
    }

    #[test]
    fn long_lines_are_cut_around_the_span() {
        let pad = "é".repeat(50_000);
        let src = format!("{{\"a\": \"{pad}{{bad}}{pad}\"}}\n{pad}");
        let start = src.find("{bad}").expect("present");
        let e = Excerpt::new("f", &src, start, start + 5);
        assert_eq!(&e.text()[e.span.0..e.span.1], "{bad}");
        assert!(
            e.text().lines().all(|l| l.len() <= MAX_LINE + 8),
            "{}",
            e.text()
        );
        assert_eq!(e.column, start);
    }
}
