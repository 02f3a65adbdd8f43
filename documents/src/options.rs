//! The page decorations and sizes every writer shares (DocGenerator's parameters).

/// What RAGFlow's DocGenerator parameters ask of a document, resolved once per document so
/// every page shows the same timestamp.
#[derive(Debug, Clone)]
pub struct DocOptions {
    pub header_text: String,
    pub footer_text: String,
    pub watermark_text: String,
    pub add_page_numbers: bool,
    pub add_timestamp: bool,
    /// Base font size in points (`int(font_size)` as RAGFlow takes it); at least 12.
    pub font_size: u32,
    /// `Generated: YYYY-MM-DD HH:MM:SS`, the time the document was made.
    pub timestamp_text: String,
}

impl Default for DocOptions {
    fn default() -> Self {
        DocOptions {
            header_text: String::new(),
            footer_text: String::new(),
            watermark_text: String::new(),
            add_page_numbers: true,
            add_timestamp: true,
            font_size: 12,
            timestamp_text: timestamp_text(chrono::Local::now().naive_local()),
        }
    }
}

impl DocOptions {
    /// RAGFlow's heading sizes: base + 6, + 4, + 2 for levels 1 to 3; deeper levels take the
    /// base size (LaTeX's `\paragraph` and below).
    pub fn heading_size(&self, level: u8) -> u32 {
        match level {
            1 => self.font_size + 6,
            2 => self.font_size + 4,
            3 => self.font_size + 2,
            _ => self.font_size,
        }
    }

    /// Whether the PDF overlay (header, footer, watermark, page number, timestamp) is drawn.
    pub fn has_overlay(&self) -> bool {
        !self.header_text.is_empty()
            || !self.footer_text.is_empty()
            || !self.watermark_text.is_empty()
            || self.add_page_numbers
            || self.add_timestamp
    }
}

/// `Generated: <time>` as RAGFlow writes it (`%Y-%m-%d %H:%M:%S`, local time).
pub fn timestamp_text(now: chrono::NaiveDateTime) -> String {
    format!("Generated: {}", now.format("%Y-%m-%d %H:%M:%S"))
}
