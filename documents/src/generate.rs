//! DocGenerator's making of one file: markdown in, bytes, file name and MIME type out, with
//! RAGFlow's per-format error texts; and the `download` record RAGFlow reports.

use crate::filename;
use crate::fonts::{FontConfig, FontError, FontSet};
use crate::markdown::{self, ImageBudget, ImageLoader, ImageSource};
use crate::options::DocOptions;
use crate::text::{self, TextFormat};
use canvasc_value::py::json_dumps_ascii;
use serde_json::{json, Value};
use std::sync::OnceLock;

/// DocGenerator's `output_format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Pdf,
    Docx,
    Txt,
    Markdown,
    Html,
}

impl OutputFormat {
    pub const ALL: [OutputFormat; 5] = [
        OutputFormat::Pdf,
        OutputFormat::Docx,
        OutputFormat::Txt,
        OutputFormat::Markdown,
        OutputFormat::Html,
    ];

    /// The parameter's value (`pdf`, `docx`, `txt`, `markdown`, `html`).
    pub fn parse(name: &str) -> Option<OutputFormat> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::Pdf => "pdf",
            OutputFormat::Docx => "docx",
            OutputFormat::Txt => "txt",
            OutputFormat::Markdown => "markdown",
            OutputFormat::Html => "html",
        }
    }

    /// The file extension (`md` for markdown).
    pub fn extension(self) -> &'static str {
        match self {
            OutputFormat::Markdown => "md",
            other => other.name(),
        }
    }

    pub fn mime_type(self) -> &'static str {
        match self {
            OutputFormat::Pdf => "application/pdf",
            OutputFormat::Docx => {
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
            }
            OutputFormat::Txt => "text/plain",
            OutputFormat::Markdown => "text/markdown",
            OutputFormat::Html => "text/html",
        }
    }

    /// The prefix RAGFlow puts before a writer's error (`PDF generation failed: …`).
    fn failure(self) -> &'static str {
        match self {
            OutputFormat::Pdf => "PDF generation failed",
            OutputFormat::Docx => "DOCX generation failed",
            OutputFormat::Txt => "TXT generation failed",
            OutputFormat::Markdown => "Markdown generation failed",
            OutputFormat::Html => "HTML generation failed",
        }
    }
}

/// A generated document.
#[derive(Debug, Clone)]
pub struct Generated {
    pub bytes: Vec<u8>,
    pub filename: String,
    pub mime_type: &'static str,
    pub format: OutputFormat,
    /// Characters of a PDF's text that no font of the set has (drawn as `?`), up to
    /// [`MISSING_LISTED`] of them, and how many such characters there were in all.
    pub missing_glyphs: (String, usize),
}

/// Distinct missing characters a warning lists.
pub const MISSING_LISTED: usize = 12;

/// What document generation needs from the machine: fonts for PDF (found once, shared) and
/// where images may be read from.
#[derive(Debug, Clone)]
pub struct Generator {
    fonts: OnceLock<Result<FontSet, FontError>>,
    font_config: FontConfig,
    images: ImageSource,
    image_budget: ImageBudget,
}

impl Generator {
    pub fn new(fonts: Result<FontSet, FontError>, images: ImageSource) -> Generator {
        let cell = OnceLock::new();
        let _ = cell.set(fonts);
        Generator {
            fonts: cell,
            font_config: FontConfig::default(),
            images,
            image_budget: ImageBudget::default(),
        }
    }

    /// A generator that looks for its fonts when the first PDF is asked for (a process that
    /// makes no PDF reads no font file).
    pub fn with_font_config(font_config: FontConfig, images: ImageSource) -> Generator {
        Generator {
            fonts: OnceLock::new(),
            font_config,
            images,
            image_budget: ImageBudget::default(),
        }
    }

    /// The same generator with another image budget (the default suits a server).
    pub fn with_image_budget(mut self, budget: ImageBudget) -> Generator {
        self.image_budget = budget;
        self
    }

    /// The fonts, or why there are none (reported when a PDF is asked for).
    pub fn fonts(&self) -> Result<&FontSet, &FontError> {
        self.fonts
            .get_or_init(|| FontSet::discover(&self.font_config))
            .as_ref()
    }

    /// Makes the document. `filename` is the parameter (empty: a generated name). The error is
    /// RAGFlow's text after `Document generation failed: `.
    pub fn generate(
        &self,
        content: &str,
        format: OutputFormat,
        filename: &str,
        options: &DocOptions,
        now: chrono::NaiveDateTime,
    ) -> Result<Generated, String> {
        let bytes = self
            .bytes(content, format, options)
            .map_err(|e| format!("{}: {e}", format.failure()))?;
        if bytes.is_empty() {
            return Err("Document file is empty".to_string());
        }
        let filename = if filename.is_empty() {
            filename::default_name(now, format.extension())
        } else {
            filename::sanitize(filename, format.extension())
        };
        let missing_glyphs = match (format, self.fonts()) {
            (OutputFormat::Pdf, Ok(fonts)) => missing_glyphs(fonts, content),
            _ => (String::new(), 0),
        };
        Ok(Generated {
            bytes,
            filename,
            mime_type: format.mime_type(),
            format,
            missing_glyphs,
        })
    }

    /// The DocGenerator's warning for a PDF whose text has characters no font has (a machine
    /// without a CJK font drops Chinese, Japanese and Korean to `?`), naming the remedy.
    pub fn missing_glyphs_warning(generated: &Generated) -> Option<String> {
        let (listed, count) = &generated.missing_glyphs;
        (*count > 0).then(|| {
            format!(
                "{count} character(s) of the PDF have no font on this machine and are drawn as '?' ({listed}); install a font with them (Debian: fonts-droid-fallback for Chinese, Japanese and Korean) or point CANVASC_FONTS_DIR at one"
            )
        })
    }

    fn bytes(
        &self,
        content: &str,
        format: OutputFormat,
        options: &DocOptions,
    ) -> Result<Vec<u8>, String> {
        let text_format = match format {
            OutputFormat::Pdf => {
                let fonts = self.fonts().map_err(|e| e.to_string())?;
                let mut images = ImageLoader::new(&self.images, self.image_budget).decoding_png();
                let blocks = markdown::parse(content, &mut images).map_err(|e| e.to_string())?;
                return crate::pdf::write(&blocks, options, fonts, self.image_budget.image_bytes);
            }
            OutputFormat::Docx => {
                let mut images = ImageLoader::new(&self.images, self.image_budget);
                let blocks = markdown::parse(content, &mut images).map_err(|e| e.to_string())?;
                return crate::docx::write(&blocks, options);
            }
            OutputFormat::Txt => TextFormat::Plain,
            OutputFormat::Markdown => TextFormat::Markdown,
            OutputFormat::Html => TextFormat::Html,
        };
        // RAGFlow prepends the timestamp to the markdown source of the text formats.
        let source = if options.add_timestamp {
            format!("{}\n\n{content}", options.timestamp_text)
        } else {
            content.to_string()
        };
        // The text formats write an image's source, never its bytes: nothing is loaded.
        let blocks =
            markdown::parse(&source, &mut ImageLoader::none()).map_err(|e| e.to_string())?;
        Ok(text::write(&blocks, text_format).into_bytes())
    }
}

/// RAGFlow's `agent_attachment_preview_path(doc_id, ext=…, mime_type=…)`.
pub fn preview_url(doc_id: &str, ext: &str, mime_type: &str) -> String {
    format!(
        "/api/v1/agents/attachments/{doc_id}/preview?ext={}&mime_type={}",
        quote_plus(ext),
        quote_plus(mime_type)
    )
}

/// Python's `urllib.parse.quote_plus` (what `urlencode` applies to each value).
fn quote_plus(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The `download` record: the value DocGenerator's invoke returns, whose `json.dumps` (ASCII
/// escaped) is the `download` output.
pub fn download_info(doc_id: &str, generated: &Generated, include_in_content: bool) -> Value {
    use base64::Engine;
    json!({
        "doc_id": doc_id,
        "filename": generated.filename,
        "mime_type": generated.mime_type,
        "size": generated.bytes.len(),
        "base64": base64::engine::general_purpose::STANDARD.encode(&generated.bytes),
        "preview_url": preview_url(doc_id, generated.format.name(), generated.mime_type),
        "include_download_info_in_content": include_in_content,
    })
}

/// `json.dumps(download_info)` as RAGFlow writes the `download` output.
pub fn download_json(info: &Value) -> String {
    json_dumps_ascii(info)
}

/// The characters of `text` (its markdown source) that no font of `fonts` has.
fn missing_glyphs(fonts: &FontSet, text: &str) -> (String, usize) {
    let faces = fonts.faces();
    let mut listed = String::new();
    let mut count = 0;
    for ch in text.chars() {
        if ch.is_control() || ch.is_whitespace() {
            continue;
        }
        if faces.pick(crate::fonts::FontId::Regular, ch).is_none() {
            count += 1;
            if !listed.contains(ch) && listed.chars().count() < MISSING_LISTED {
                listed.push(ch);
            }
        }
    }
    (listed, count)
}
