//! The document model every writer renders: what RAGFlow's pandoc reads out of markdown, reduced
//! to what its writers put on a page. One model, so the PDF, DOCX and text writers cannot
//! disagree about what the markdown said.

/// A block of the document, in reading order.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// `#`… `######`: level 1 to 6.
    Heading {
        level: u8,
        inlines: Vec<Inline>,
    },
    Paragraph(Vec<Inline>),
    /// `start` is the first number of an ordered list, `None` for bullets. Each item is a list
    /// of blocks (a nested list is a block of its item). A tight list has no blank lines
    /// between its items (its item text is not in paragraphs, for pandoc's writers).
    List {
        start: Option<u64>,
        tight: bool,
        items: Vec<Vec<Block>>,
    },
    Table(Table),
    Quote(Vec<Block>),
    Code {
        lang: String,
        text: String,
    },
    Rule,
    /// A paragraph that is only `\newpage` or `\pagebreak` (what RAGFlow's LaTeX route obeys).
    PageBreak,
}

/// Column alignment as the table's delimiter row says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Default,
    Left,
    Center,
    Right,
}

/// A pipe table: a header row and body rows of cells (each cell a run of inlines).
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub aligns: Vec<Align>,
    pub header: Vec<Vec<Inline>>,
    pub rows: Vec<Vec<Vec<Inline>>>,
}

impl Table {
    /// Number of columns: the widest of the header and the rows.
    pub fn columns(&self) -> usize {
        self.rows
            .iter()
            .map(Vec::len)
            .chain([self.header.len(), self.aligns.len()])
            .max()
            .unwrap_or(0)
    }
}

/// Character styling of a span.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Style {
    pub bold: bool,
    pub italic: bool,
    pub code: bool,
    pub strike: bool,
}

/// Inline content of a paragraph, heading or cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Inline {
    /// Text with one style; `link` is the target when the text is a link's.
    Span {
        text: String,
        style: Style,
        link: Option<String>,
    },
    /// A hard line break.
    LineBreak,
    /// A soft break (a newline inside a paragraph): a space on paper.
    SoftBreak,
    Image(Image),
}

/// An image reference and, when it could be loaded, its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    pub alt: String,
    pub src: String,
    pub data: Option<ImageData>,
}

/// A decoded image: the writers embed PNG and JPEG as they are.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageData {
    pub format: ImageFormat,
    pub bytes: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    Png,
    Jpeg,
}

impl ImageFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpeg",
        }
    }

    pub fn mime(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
        }
    }
}

/// The text of inlines without styling (alt text, plain widths, heading ids).
pub fn plain_text(inlines: &[Inline]) -> String {
    let mut out = String::new();
    for inline in inlines {
        match inline {
            Inline::Span { text, .. } => out.push_str(text),
            Inline::LineBreak | Inline::SoftBreak => out.push(' '),
            Inline::Image(image) => out.push_str(&image.alt),
        }
    }
    out
}
