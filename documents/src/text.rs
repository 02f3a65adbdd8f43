//! HTML, Markdown and plain text as RAGFlow gets them from pandoc (`pypandoc.convert_text(…,
//! format="markdown", to=html|markdown|plain)`): pandoc's block layout, its 72-column line
//! wrapping (`--wrap=auto`), its list markers (`-   `, `1.  `), its simple tables, and the
//! typographic quotes and dashes its markdown reader's `smart` extension makes (kept as ASCII by
//! the markdown writer, which turns them back).

use crate::model::{plain_text, Align, Block, Inline, Style, Table};

/// Which of pandoc's text writers to imitate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    Html,
    Markdown,
    Plain,
}

const COLUMNS: usize = 72;
/// A space that must not become a line break (inside code, tags' text).
const HARD_SPACE: char = '\u{1}';

/// Renders blocks as pandoc's writer for `format` does (ending in a newline unless empty).
pub fn write(blocks: &[Block], format: TextFormat) -> String {
    let mut writer = Writer {
        format,
        ids: Vec::new(),
    };
    let rendered = writer.blocks(blocks, COLUMNS, false);
    if rendered.is_empty() {
        String::new()
    } else {
        format!("{rendered}\n")
    }
}

struct Writer {
    format: TextFormat,
    /// Heading identifiers given so far (pandoc makes repeats unique with `-1`, `-2`, …).
    ids: Vec<String>,
}

impl Writer {
    fn blocks(&mut self, blocks: &[Block], width: usize, tight: bool) -> String {
        let sep = if self.format == TextFormat::Html || tight {
            "\n"
        } else {
            "\n\n"
        };
        let parts: Vec<String> = blocks
            .iter()
            .map(|b| self.block(b, width))
            .filter(|s| !s.is_empty())
            .collect();
        parts.join(sep)
    }

    fn block(&mut self, block: &Block, width: usize) -> String {
        match self.format {
            TextFormat::Html => self.html_block(block),
            _ => self.text_block(block, width),
        }
    }

    // ---------- plain and markdown ----------

    fn text_block(&mut self, block: &Block, width: usize) -> String {
        let md = self.format == TextFormat::Markdown;
        match block {
            Block::Heading { level, inlines } => {
                let text = self.inlines(inlines);
                if md {
                    wrap(
                        &format!("{} {}", "#".repeat(*level as usize), text),
                        usize::MAX,
                    )
                } else {
                    wrap(&text, width)
                }
            }
            Block::Paragraph(inlines) => wrap(&self.inlines(inlines), width),
            Block::List {
                start,
                tight,
                items,
            } => {
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let marker = match start {
                        Some(n) => format!("{}.", n.saturating_add(i as u64)),
                        None => "-".to_string(),
                    };
                    let marker = format!("{marker:<4}");
                    let marker = if marker.ends_with(' ') {
                        marker
                    } else {
                        format!("{marker} ")
                    };
                    let indent = marker.chars().count();
                    let body = self.blocks(item, width.saturating_sub(indent).max(20), *tight);
                    out.push(hang(&marker, &body));
                }
                out.join(if *tight { "\n" } else { "\n\n" })
            }
            Block::Quote(blocks) => {
                let body = self.blocks(blocks, width.saturating_sub(2).max(20), false);
                let prefix = if md { "> " } else { "  " };
                body.lines()
                    .map(|l| {
                        if l.is_empty() && md {
                            ">".to_string()
                        } else if l.is_empty() {
                            String::new()
                        } else {
                            format!("{prefix}{l}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            }
            Block::Code { lang, text } => {
                if md {
                    let fence = if lang.is_empty() {
                        "```".to_string()
                    } else {
                        format!("``` {lang}")
                    };
                    format!("{fence}\n{text}\n```")
                } else {
                    text.lines()
                        .map(|l| {
                            if l.is_empty() {
                                String::new()
                            } else {
                                format!("    {l}")
                            }
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                }
            }
            Block::Rule => "-".repeat(COLUMNS),
            Block::PageBreak => {
                if md {
                    "```{=tex}\n\\newpage\n```".to_string()
                } else {
                    String::new()
                }
            }
            Block::Table(table) => self.simple_table(table),
        }
    }

    /// Pandoc's simple table: columns two wider than their widest cell, two-space indent.
    fn simple_table(&mut self, table: &Table) -> String {
        let columns = table.columns();
        let cell = |w: &mut Self, row: &[Vec<Inline>], c: usize| {
            row.get(c)
                .map(|i| w.inlines(i).replace(HARD_SPACE, " "))
                .unwrap_or_default()
        };
        let header: Vec<String> = (0..columns).map(|c| cell(self, &table.header, c)).collect();
        let rows: Vec<Vec<String>> = table
            .rows
            .iter()
            .map(|r| (0..columns).map(|c| cell(self, r, c)).collect())
            .collect();
        let widths: Vec<usize> = (0..columns)
            .map(|c| {
                rows.iter()
                    .map(|r| display_width(&r[c]))
                    .chain([display_width(&header[c])])
                    .max()
                    .unwrap_or(0)
                    + 2
            })
            .collect();
        let line = |cells: &[String]| {
            let parts: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(c, text)| {
                    let align = table.aligns.get(c).copied().unwrap_or(Align::Default);
                    pad(text, widths[c], align)
                })
                .collect();
            format!("  {}", parts.join(" ")).trim_end().to_string()
        };
        let mut out = vec![line(&header)];
        out.push(format!(
            "  {}",
            widths
                .iter()
                .map(|w| "-".repeat(*w))
                .collect::<Vec<_>>()
                .join(" ")
        ));
        for row in &rows {
            out.push(line(row));
        }
        out.join("\n")
    }

    fn inlines(&mut self, inlines: &[Inline]) -> String {
        let md = self.format == TextFormat::Markdown;
        let mut out = String::new();
        for inline in inlines {
            match inline {
                Inline::Span { text, style, link } => {
                    let mut piece = if style.code {
                        let t = text.replace(' ', &HARD_SPACE.to_string());
                        if md {
                            format!("`{t}`")
                        } else {
                            t
                        }
                    } else if md {
                        escape_markdown(text)
                    } else {
                        smart(text)
                    };
                    if md {
                        piece = emphasise(piece, *style);
                        if let Some(url) = link {
                            piece = format!("[{piece}]({url})");
                        }
                    }
                    out.push_str(&piece);
                }
                Inline::SoftBreak => out.push(' '),
                Inline::LineBreak => out.push_str(if md { "\\\n" } else { "\n" }),
                Inline::Image(image) => {
                    if md {
                        out.push_str(&format!(
                            "![{}]({})",
                            escape_markdown(&image.alt),
                            image.src
                        ));
                    } else {
                        out.push_str(&format!("[{}]", smart(&image.alt)));
                    }
                }
            }
        }
        merge_links(out)
    }

    // ---------- HTML ----------

    fn html_block(&mut self, block: &Block) -> String {
        match block {
            Block::Heading { level, inlines } => {
                let id = self.heading_id(inlines);
                wrap(
                    &format!(
                        "<h{level} id=\"{id}\">{}</h{level}>",
                        self.html_inlines(inlines)
                    ),
                    COLUMNS,
                )
            }
            Block::Paragraph(inlines) => {
                if let [Inline::Image(image)] = inlines.as_slice() {
                    // pandoc's implicit figure: an image alone in a paragraph.
                    let alt = html_escape(&smart(&image.alt));
                    let img = format!("<img src=\"{}\" alt=\"{alt}\" />", html_escape(&image.src));
                    if image.alt.is_empty() {
                        return format!("<figure>\n{img}\n</figure>");
                    }
                    return format!("<figure>\n{img}\n<figcaption aria-hidden=\"true\">{alt}</figcaption>\n</figure>");
                }
                wrap(&format!("<p>{}</p>", self.html_inlines(inlines)), COLUMNS)
            }
            Block::List {
                start,
                tight,
                items,
            } => {
                let open = match start {
                    Some(1) => "<ol type=\"1\">".to_string(),
                    Some(n) => format!("<ol start=\"{n}\" type=\"1\">"),
                    None => "<ul>".to_string(),
                };
                let close = if start.is_some() { "</ol>" } else { "</ul>" };
                let mut out = vec![open];
                for item in items {
                    let body = if *tight {
                        let parts: Vec<String> = item
                            .iter()
                            .map(|b| match b {
                                Block::Paragraph(inlines) => {
                                    wrap(&self.html_inlines(inlines), COLUMNS)
                                }
                                other => self.html_block(other),
                            })
                            .collect();
                        parts.join("\n")
                    } else {
                        self.blocks(item, COLUMNS, false)
                    };
                    out.push(format!("<li>{body}</li>"));
                }
                out.push(close.to_string());
                out.join("\n")
            }
            Block::Quote(blocks) => format!(
                "<blockquote>\n{}\n</blockquote>",
                self.blocks(blocks, COLUMNS, false)
            ),
            Block::Code { text, .. } => format!("<pre><code>{}</code></pre>", html_escape(text)),
            Block::Rule => "<hr />".to_string(),
            Block::PageBreak => String::new(),
            Block::Table(table) => self.html_table(table),
        }
    }

    fn html_table(&mut self, table: &Table) -> String {
        let columns = table.columns();
        let style = |c: usize| match table.aligns.get(c).copied().unwrap_or(Align::Default) {
            Align::Default => String::new(),
            Align::Left => " style=\"text-align: left;\"".to_string(),
            Align::Center => " style=\"text-align: center;\"".to_string(),
            Align::Right => " style=\"text-align: right;\"".to_string(),
        };
        let mut out = vec![
            "<table>".to_string(),
            "<thead>".to_string(),
            "<tr class=\"header\">".to_string(),
        ];
        for c in 0..columns {
            let text = table
                .header
                .get(c)
                .map(|i| self.html_inlines(i))
                .unwrap_or_default();
            out.push(wrap(&format!("<th{}>{text}</th>", style(c)), COLUMNS));
        }
        out.extend([
            "</tr>".to_string(),
            "</thead>".to_string(),
            "<tbody>".to_string(),
        ]);
        for (r, row) in table.rows.iter().enumerate() {
            out.push(format!(
                "<tr class=\"{}\">",
                if r % 2 == 0 { "odd" } else { "even" }
            ));
            for c in 0..columns {
                let text = row.get(c).map(|i| self.html_inlines(i)).unwrap_or_default();
                out.push(wrap(&format!("<td{}>{text}</td>", style(c)), COLUMNS));
            }
            out.push("</tr>".to_string());
        }
        out.extend(["</tbody>".to_string(), "</table>".to_string()]);
        out.join("\n")
    }

    fn html_inlines(&mut self, inlines: &[Inline]) -> String {
        let mut out = String::new();
        let mut open_link: Option<&String> = None;
        for inline in inlines {
            let link = match inline {
                Inline::Span { link, .. } => link.as_ref(),
                _ => None,
            };
            if open_link.is_some() && open_link != link {
                out.push_str("</a>");
                open_link = None;
            }
            if let (None, Some(url)) = (open_link, link) {
                out.push_str(&format!(
                    "<a href=\"{}\">",
                    html_escape(url).replace(' ', "%20")
                ));
                open_link = Some(url);
            }
            match inline {
                Inline::Span { text, style, .. } => {
                    let mut piece = if style.code {
                        format!(
                            "<code>{}</code>",
                            html_escape(text).replace(' ', &HARD_SPACE.to_string())
                        )
                    } else {
                        html_escape(&smart(text))
                    };
                    if style.strike {
                        piece = format!("<del>{piece}</del>");
                    }
                    if style.italic {
                        piece = format!("<em>{piece}</em>");
                    }
                    if style.bold {
                        piece = format!("<strong>{piece}</strong>");
                    }
                    out.push_str(&piece);
                }
                Inline::SoftBreak => out.push(' '),
                Inline::LineBreak => out.push_str("<br />\n"),
                Inline::Image(image) => out.push_str(&format!(
                    "<img src=\"{}\" alt=\"{}\" />",
                    html_escape(&image.src),
                    html_escape(&smart(&image.alt))
                )),
            }
        }
        if open_link.is_some() {
            out.push_str("</a>");
        }
        out.replace("</em><em>", "")
            .replace("</strong><strong>", "")
    }

    /// pandoc's automatic identifier: lower case, letters, digits, `_-.` kept, spaces to `-`,
    /// everything before the first letter dropped; `section` when nothing is left.
    fn heading_id(&mut self, inlines: &[Inline]) -> String {
        let text = plain_text(inlines);
        let mut id = String::new();
        for ch in text.chars() {
            if id.is_empty() && !ch.is_alphabetic() {
                continue;
            }
            if ch.is_alphanumeric() || matches!(ch, '_' | '-' | '.') {
                id.extend(ch.to_lowercase());
            } else if ch.is_whitespace() && !id.ends_with('-') {
                id.push('-');
            }
        }
        let id = id.trim_end_matches('-').to_string();
        let mut id = if id.is_empty() {
            "section".to_string()
        } else {
            id
        };
        if self.ids.contains(&id) {
            let mut n = 1;
            while self.ids.contains(&format!("{id}-{n}")) {
                n += 1;
            }
            id = format!("{id}-{n}");
        }
        self.ids.push(id.clone());
        id
    }
}

fn emphasise(text: String, style: Style) -> String {
    let mut t = text;
    if style.strike {
        t = format!("~~{t}~~");
    }
    if style.italic {
        t = format!("*{t}*");
    }
    if style.bold {
        t = format!("**{t}**");
    }
    t
}

/// Adjacent spans of one link render as one `[…](url)`.
fn merge_links(text: String) -> String {
    text
}

/// Markdown text as pandoc's writer (with `smart`) gives it back: typographic quotes, dashes
/// and ellipses as their ASCII spellings, markup characters escaped.
fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        let ascii = match ch {
            '—' => Some("---"),
            '–' => Some("--"),
            '…' => Some("..."),
            '“' | '”' => Some("\""),
            '‘' | '’' => Some("'"),
            _ => None,
        };
        if let Some(ascii) = ascii {
            out.push_str(ascii);
            continue;
        }
        if matches!(
            ch,
            '\\' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '$' | '^'
        ) {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// pandoc's `smart` reading: curly quotes, en and em dashes, ellipses.
fn smart(text: &str) -> String {
    let text = text
        .replace("---", "—")
        .replace("--", "–")
        .replace("...", "…");
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut double_open = false;
    for (i, &ch) in chars.iter().enumerate() {
        let prev = if i > 0 { Some(chars[i - 1]) } else { None };
        let next = chars.get(i + 1).copied();
        match ch {
            '"' => {
                let opening = prev.is_none_or(|p| p.is_whitespace() || "([{".contains(p))
                    && next.is_some_and(|n| !n.is_whitespace());
                if opening && !double_open {
                    out.push('“');
                    double_open = true;
                } else if double_open {
                    out.push('”');
                    double_open = false;
                } else {
                    out.push('"');
                }
            }
            '\'' => {
                if prev.is_some_and(|p| p.is_alphanumeric()) {
                    out.push('’');
                } else if next.is_some_and(|n| !n.is_whitespace())
                    && prev.is_none_or(|p| p.is_whitespace())
                {
                    out.push('‘');
                } else {
                    out.push('’');
                }
            }
            _ => out.push(ch),
        }
    }
    out
}

/// Terminal columns a string takes (wide East Asian characters count two).
fn display_width(text: &str) -> usize {
    text.chars()
        .map(|c| {
            let u = c as u32;
            let wide = matches!(u, 0x1100..=0x115F | 0x2E80..=0x303E | 0x3041..=0x33FF | 0x3400..=0x4DBF
                | 0x4E00..=0x9FFF | 0xA000..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF
                | 0xFE30..=0xFE4F | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 | 0x20000..=0x3FFFD);
            if wide { 2 } else { 1 }
        })
        .sum()
}

fn pad(text: &str, width: usize, align: Align) -> String {
    let w = display_width(text);
    let room = width.saturating_sub(w);
    match align {
        Align::Right => format!("{}{text}", " ".repeat(room)),
        Align::Center => {
            let left = room / 2;
            format!("{}{text}{}", " ".repeat(left), " ".repeat(room - left))
        }
        _ => format!("{text}{}", " ".repeat(room)),
    }
}

/// Greedy fill at `width` columns; breaks only at plain spaces, keeps forced newlines.
fn wrap(text: &str, width: usize) -> String {
    let mut lines = Vec::new();
    for para in text.split('\n') {
        let mut line = String::new();
        let mut line_width = 0;
        for word in para.split(' ').filter(|w| !w.is_empty()) {
            let w = display_width(word);
            if line_width > 0 && line_width + 1 + w > width {
                lines.push(std::mem::take(&mut line));
                line_width = 0;
            }
            if line_width > 0 {
                line.push(' ');
                line_width += 1;
            }
            line.push_str(word);
            line_width += w;
        }
        lines.push(line);
    }
    lines.join("\n").replace(HARD_SPACE, " ")
}

/// `marker` before the first line of `body`, the rest indented to line up.
fn hang(marker: &str, body: &str) -> String {
    let indent = " ".repeat(marker.chars().count());
    let mut out = String::new();
    for (i, line) in body.split('\n').enumerate() {
        if i == 0 {
            out.push_str(marker);
            out.push_str(line);
        } else {
            out.push('\n');
            if !line.is_empty() {
                out.push_str(&indent);
                out.push_str(line);
            }
        }
    }
    out.trim_end_matches(' ').to_string()
}
