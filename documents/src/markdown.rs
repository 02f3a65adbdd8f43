//! Markdown → [`Block`]s with pulldown-cmark (CommonMark plus pipe tables and strikethrough, the
//! parts of pandoc's markdown canvases use).
//!
//! Images are loaded here, once, for every writer: `data:` URLs are decoded, and a file path is
//! read only inside the directory the caller allows (`ImageSource::Directory`); a canvas's text must
//! not read arbitrary files of the server, and remote URLs are never fetched (that would be an
//! outbound request the SSRF guard has not vetted). An image that is not loaded keeps its alt text;
//! an image over the document's budget ([`ImageBudget`]) fails the parse.

pub use crate::image_data::{ImageBudget, ImageLoader, ImageRefused, ImageSource};
use crate::model::{Align, Block, Image, Inline, Style, Table};
use pulldown_cmark::{Alignment, CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// Parses markdown into the document model, loading its images with `images` (one loader
/// per document: it keeps the document's image budget).
pub fn parse(markdown: &str, images: &mut ImageLoader<'_>) -> Result<Vec<Block>, ImageRefused> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut builder = Builder::new(images);
    for event in Parser::new_ext(markdown, options) {
        builder.event(event);
        if let Some(refused) = builder.refused.take() {
            return Err(refused);
        }
    }
    Ok(builder.finish())
}

enum Frame {
    Root(Vec<Block>),
    Item(Vec<Block>),
    Quote(Vec<Block>),
    List {
        start: Option<u64>,
        tight: bool,
        items: Vec<Vec<Block>>,
    },
    Table {
        table: Table,
        in_head: bool,
        row: Vec<Vec<Inline>>,
    },
}

enum InlineTarget {
    Paragraph,
    Heading(u8),
    Cell,
    Code {
        lang: String,
    },
    /// Inside an image: its text is the alt text.
    Alt {
        src: String,
        outer: Box<(InlineTarget, Vec<Inline>)>,
    },
}

struct Builder<'a, 'b> {
    images: &'a mut ImageLoader<'b>,
    /// The first image over the budget: the parse stops there.
    refused: Option<ImageRefused>,
    frames: Vec<Frame>,
    inline: Option<(InlineTarget, Vec<Inline>)>,
    style: Style,
    links: Vec<String>,
    code_text: String,
}

impl<'a, 'b> Builder<'a, 'b> {
    fn new(images: &'a mut ImageLoader<'b>) -> Self {
        Builder {
            images,
            refused: None,
            frames: vec![Frame::Root(Vec::new())],
            inline: None,
            style: Style::default(),
            links: Vec::new(),
            code_text: String::new(),
        }
    }

    fn finish(mut self) -> Vec<Block> {
        self.close_implicit_paragraph();
        while self.frames.len() > 1 {
            self.close_frame();
        }
        match self.frames.pop() {
            Some(Frame::Root(blocks)) => blocks,
            _ => Vec::new(),
        }
    }

    fn push_block(&mut self, block: Block) {
        match self.frames.last_mut() {
            Some(Frame::Root(blocks) | Frame::Item(blocks) | Frame::Quote(blocks)) => {
                blocks.push(block)
            }
            // A block directly inside a list or table cannot happen in CommonMark; keep it in
            // the nearest block container rather than losing it.
            _ => {
                for frame in self.frames.iter_mut().rev() {
                    if let Frame::Root(blocks) | Frame::Item(blocks) | Frame::Quote(blocks) = frame
                    {
                        blocks.push(block);
                        return;
                    }
                }
            }
        }
    }

    fn close_frame(&mut self) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        match frame {
            Frame::Root(blocks) => self.frames.push(Frame::Root(blocks)),
            Frame::Item(blocks) => {
                if let Some(Frame::List { items, .. }) = self.frames.last_mut() {
                    items.push(blocks);
                }
            }
            Frame::Quote(blocks) => self.push_block(Block::Quote(blocks)),
            Frame::List {
                start,
                tight,
                items,
            } => self.push_block(Block::List {
                start,
                tight,
                items,
            }),
            Frame::Table { table, .. } => self.push_block(Block::Table(table)),
        }
    }

    /// Tight list items carry their text without a paragraph: gather it into one.
    fn ensure_inline(&mut self) {
        if self.inline.is_none() {
            self.inline = Some((InlineTarget::Paragraph, Vec::new()));
        }
    }

    fn close_implicit_paragraph(&mut self) {
        if matches!(self.inline, Some((InlineTarget::Paragraph, _))) {
            self.end_inline();
        }
    }

    fn push_inline(&mut self, inline: Inline) {
        self.ensure_inline();
        if let Some((_, inlines)) = &mut self.inline {
            // Adjacent text of one style and link is one span.
            if let (
                Inline::Span { text, style, link },
                Some(Inline::Span {
                    text: last,
                    style: last_style,
                    link: last_link,
                }),
            ) = (&inline, inlines.last_mut())
            {
                if style == last_style && link == last_link {
                    last.push_str(text);
                    return;
                }
            }
            inlines.push(inline);
        }
    }

    fn text(&mut self, text: &str, style: Style) {
        if let Some((InlineTarget::Code { .. }, _)) = &self.inline {
            self.code_text.push_str(text);
            return;
        }
        let link = self.links.last().cloned();
        self.push_inline(Inline::Span {
            text: text.to_string(),
            style,
            link,
        });
    }

    fn end_inline(&mut self) {
        let Some((target, inlines)) = self.inline.take() else {
            return;
        };
        match target {
            InlineTarget::Paragraph => {
                if is_page_break(&inlines) {
                    self.push_block(Block::PageBreak);
                } else if !inlines.is_empty() {
                    self.push_block(Block::Paragraph(inlines));
                }
            }
            InlineTarget::Heading(level) => self.push_block(Block::Heading { level, inlines }),
            InlineTarget::Cell => {
                if let Some(Frame::Table { row, .. }) = self.frames.last_mut() {
                    row.push(inlines);
                }
            }
            InlineTarget::Code { lang } => {
                let mut text = std::mem::take(&mut self.code_text);
                if text.ends_with('\n') {
                    text.pop();
                }
                self.push_block(Block::Code { lang, text });
            }
            InlineTarget::Alt { src, outer } => {
                let alt = crate::model::plain_text(&inlines);
                let data = match self.images.load(&src) {
                    Ok(data) => data,
                    Err(refused) => {
                        self.refused = Some(refused);
                        None
                    }
                };
                // The image sat inside whatever was open before it.
                self.inline = Some(*outer);
                self.push_inline(Inline::Image(Image { alt, src, data }));
            }
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text, self.style),
            Event::Code(text) => self.text(
                &text,
                Style {
                    code: true,
                    ..self.style
                },
            ),
            Event::InlineMath(text) | Event::DisplayMath(text) => self.text(&text, self.style),
            Event::Html(text) | Event::InlineHtml(text) => {
                // Raw HTML is dropped by pandoc's PDF and DOCX writers; a `<br>` is a break.
                let lower = text.trim().to_ascii_lowercase();
                if lower == "<br>" || lower == "<br/>" || lower == "<br />" {
                    self.push_inline(Inline::LineBreak);
                }
            }
            Event::SoftBreak => {
                if let Some((InlineTarget::Code { .. }, _)) = &self.inline {
                    self.code_text.push('\n');
                } else {
                    self.push_inline(Inline::SoftBreak)
                }
            }
            Event::HardBreak => self.push_inline(Inline::LineBreak),
            Event::Rule => {
                self.close_implicit_paragraph();
                self.push_block(Block::Rule);
            }
            Event::TaskListMarker(done) => {
                self.text(if done { "☒ " } else { "☐ " }, self.style);
            }
            Event::FootnoteReference(name) => self.text(&format!("[{name}]"), self.style),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => {
                self.close_implicit_paragraph();
                // A paragraph of its own inside an item makes the list loose.
                if let [.., Frame::List { tight, .. }, Frame::Item(_)] = self.frames.as_mut_slice()
                {
                    *tight = false;
                }
                self.inline = Some((InlineTarget::Paragraph, Vec::new()));
            }
            Tag::Heading { level, .. } => {
                self.close_implicit_paragraph();
                self.inline = Some((InlineTarget::Heading(level as u8), Vec::new()));
            }
            Tag::BlockQuote(_) => {
                self.close_implicit_paragraph();
                self.frames.push(Frame::Quote(Vec::new()));
            }
            Tag::CodeBlock(kind) => {
                self.close_implicit_paragraph();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().unwrap_or("").to_string()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.code_text.clear();
                self.inline = Some((InlineTarget::Code { lang }, Vec::new()));
            }
            Tag::List(start) => {
                self.close_implicit_paragraph();
                self.frames.push(Frame::List {
                    start,
                    tight: true,
                    items: Vec::new(),
                });
            }
            Tag::Item => self.frames.push(Frame::Item(Vec::new())),
            Tag::Table(aligns) => {
                self.close_implicit_paragraph();
                let aligns = aligns.into_iter().map(align).collect();
                self.frames.push(Frame::Table {
                    table: Table {
                        aligns,
                        header: Vec::new(),
                        rows: Vec::new(),
                    },
                    in_head: false,
                    row: Vec::new(),
                });
            }
            Tag::TableHead => {
                if let Some(Frame::Table { in_head, row, .. }) = self.frames.last_mut() {
                    *in_head = true;
                    row.clear();
                }
            }
            Tag::TableRow => {
                if let Some(Frame::Table { row, .. }) = self.frames.last_mut() {
                    row.clear();
                }
            }
            Tag::TableCell => self.inline = Some((InlineTarget::Cell, Vec::new())),
            Tag::Emphasis => self.style.italic = true,
            Tag::Strong => self.style.bold = true,
            Tag::Strikethrough => self.style.strike = true,
            Tag::Link { dest_url, .. } => self.links.push(dest_url.to_string()),
            Tag::Image { dest_url, .. } => {
                self.ensure_inline();
                let outer = self
                    .inline
                    .take()
                    .unwrap_or((InlineTarget::Paragraph, Vec::new()));
                self.inline = Some((
                    InlineTarget::Alt {
                        src: dest_url.to_string(),
                        outer: Box::new(outer),
                    },
                    Vec::new(),
                ));
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::CodeBlock | TagEnd::TableCell => {
                self.end_inline()
            }
            TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::Item => {
                self.close_implicit_paragraph();
                self.close_frame();
            }
            TagEnd::TableHead => {
                if let Some(Frame::Table {
                    table,
                    in_head,
                    row,
                }) = self.frames.last_mut()
                {
                    table.header = std::mem::take(row);
                    *in_head = false;
                }
            }
            TagEnd::TableRow => {
                if let Some(Frame::Table { table, row, .. }) = self.frames.last_mut() {
                    table.rows.push(std::mem::take(row));
                }
            }
            TagEnd::Table => self.close_frame(),
            TagEnd::Emphasis => self.style.italic = false,
            TagEnd::Strong => self.style.bold = false,
            TagEnd::Strikethrough => self.style.strike = false,
            TagEnd::Link => {
                self.links.pop();
            }
            TagEnd::Image => self.end_inline(),
            _ => {}
        }
    }
}

fn align(alignment: Alignment) -> Align {
    match alignment {
        Alignment::None => Align::Default,
        Alignment::Left => Align::Left,
        Alignment::Center => Align::Center,
        Alignment::Right => Align::Right,
    }
}

fn is_page_break(inlines: &[Inline]) -> bool {
    let text = crate::model::plain_text(inlines);
    matches!(text.trim(), "\\newpage" | "\\pagebreak" | "\\clearpage")
}
