//! DOCX: WordprocessingML parts written as text and zipped (the zip crate).
//!
//! Hand-written XML rather than a DOCX crate: the parts are few and fixed, and RAGFlow's
//! decorations (a VML text watermark in the header, a footer with centre and right tab stops
//! and a real `PAGE` field) are raw XML in RAGFlow too; the maintained writers (docx-rs) cannot
//! express the watermark. The layout follows python-docx's default template, which RAGFlow
//! measures its tab stops against: US Letter, 1-inch margins (9,360 twips of text width).

mod body;
mod parts;

use crate::model::Block;
use crate::options::DocOptions;
use std::io::Write;

/// One file of the package.
pub struct Part {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The parts of the package for `blocks`, in the order they are zipped.
pub fn parts(blocks: &[Block], options: &DocOptions) -> Vec<Part> {
    let body = body::Body::render(blocks, options);
    let mut parts = vec![
        text_part("[Content_Types].xml", parts::content_types(&body.media)),
        text_part("_rels/.rels", parts::package_rels()),
        text_part("docProps/core.xml", parts::core()),
        text_part("docProps/app.xml", parts::app()),
        text_part("word/document.xml", parts::document(&body.xml)),
        text_part(
            "word/_rels/document.xml.rels",
            parts::document_rels(&body.links, &body.media),
        ),
        text_part("word/styles.xml", parts::styles(options)),
        text_part("word/numbering.xml", parts::numbering(&body.lists)),
        text_part("word/settings.xml", parts::settings()),
        text_part("word/header1.xml", parts::header(options)),
        text_part("word/footer1.xml", parts::footer(options)),
    ];
    for media in body.media {
        parts.push(Part {
            name: format!("word/media/{}", media.file_name),
            bytes: media.bytes,
        });
    }
    parts
}

fn text_part(name: &str, xml: String) -> Part {
    Part {
        name: name.to_string(),
        bytes: xml.into_bytes(),
    }
}

/// Writes `blocks` as a DOCX file.
pub fn write(blocks: &[Block], options: &DocOptions) -> Result<Vec<u8>, String> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for part in parts(blocks, options) {
        zip.start_file(part.name.as_str(), deflated)
            .map_err(|e| format!("cannot write {}: {e}", part.name))?;
        zip.write_all(&part.bytes)
            .map_err(|e| format!("cannot write {}: {e}", part.name))?;
    }
    let cursor = zip
        .finish()
        .map_err(|e| format!("cannot finish DOCX: {e}"))?;
    Ok(cursor.into_inner())
}

/// Text for an XML text node or attribute: escaped, and without the characters XML 1.0
/// forbids (C0 controls other than tab and newline), which would make the part unreadable.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' | '\n' | '\r' => out.push(ch),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}
