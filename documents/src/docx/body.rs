//! `word/document.xml`'s body: blocks as paragraphs, runs, tables and inline pictures, with
//! the hyperlinks, pictures and list instances the other parts must declare.

use super::escape;
use crate::model::{Align, Block, ImageData, Inline, Style, Table};
use crate::options::DocOptions;
use std::fmt::Write;

/// Text width of the page in twips (Letter less two 1-inch margins).
pub const TEXT_WIDTH: u32 = 9360;
const EMU_PER_PX: u64 = 9525;
const MAX_IMAGE_EMU: u64 = 5_943_600; // 6.5 inches

/// A picture stored under `word/media/`.
pub struct Media {
    pub rel_id: String,
    pub file_name: String,
    pub content_type: &'static str,
    pub extension: &'static str,
    pub bytes: Vec<u8>,
}

/// One list instance (`w:num`): bullets or numbers from `start`.
pub struct ListInstance {
    pub num_id: u32,
    pub ordered: bool,
    pub start: u64,
}

/// The rendered body and what it refers to.
pub struct Body {
    pub xml: String,
    /// `(relationship id, target URL)` of each hyperlink.
    pub links: Vec<(String, String)>,
    pub media: Vec<Media>,
    pub lists: Vec<ListInstance>,
    drawing_id: u32,
}

impl Body {
    pub fn render(blocks: &[Block], _options: &DocOptions) -> Body {
        let mut body = Body {
            xml: String::new(),
            links: Vec::new(),
            media: Vec::new(),
            lists: Vec::new(),
            drawing_id: 0,
        };
        for block in blocks {
            body.block(block, 0, None);
        }
        body
    }

    /// `indent`: the list depth the block sits in (0 outside lists); `quote_indent` adds the
    /// block-quote indentation.
    fn block(&mut self, block: &Block, depth: u32, numbering: Option<(u32, u32)>) {
        match block {
            Block::Heading { level, inlines } => {
                let style = format!("Heading{}", level.clamp(&1, &6));
                self.paragraph(&style, None, Align::Default, inlines);
            }
            Block::Paragraph(inlines) => {
                let style = if depth > 0 { "ListParagraph" } else { "BodyText" };
                self.paragraph(style, numbering, Align::Default, inlines);
            }
            Block::List { start, items, .. } => {
                let num_id = self.lists.len() as u32 + 1;
                self.lists.push(ListInstance {
                    num_id,
                    ordered: start.is_some(),
                    start: start.unwrap_or(1),
                });
                let level = depth;
                for item in items {
                    let mut first = true;
                    for block in item {
                        let numbering = if first { Some((num_id, level)) } else { None };
                        match block {
                            Block::Paragraph(_) => {
                                self.block(block, depth + 1, numbering);
                                first = false;
                            }
                            Block::List { .. } => self.block(block, depth + 1, None),
                            _ => {
                                if first {
                                    // The number goes on an empty first paragraph.
                                    self.paragraph("ListParagraph", numbering, Align::Default, &[]);
                                    first = false;
                                }
                                self.block(block, depth + 1, None);
                            }
                        }
                    }
                    if first {
                        self.paragraph("ListParagraph", Some((num_id, level)), Align::Default, &[]);
                    }
                }
            }
            Block::Table(table) => self.table(table),
            Block::Quote(blocks) => {
                for block in blocks {
                    match block {
                        Block::Paragraph(inlines) => {
                            self.paragraph("BlockText", None, Align::Default, inlines)
                        }
                        other => self.block(other, depth, None),
                    }
                }
            }
            Block::Code { text, .. } => {
                self.xml.push_str("<w:p><w:pPr><w:pStyle w:val=\"SourceCode\"/></w:pPr>");
                for (i, line) in text.split('\n').enumerate() {
                    if i > 0 {
                        self.xml.push_str("<w:r><w:rPr><w:rStyle w:val=\"VerbatimChar\"/></w:rPr><w:br/></w:r>");
                    }
                    self.run(line, Style { code: true, ..Style::default() });
                }
                self.xml.push_str("</w:p>");
            }
            Block::Rule => self.xml.push_str(
                "<w:p><w:pPr><w:pStyle w:val=\"BodyText\"/><w:pBdr><w:bottom w:val=\"single\" w:sz=\"6\" w:space=\"1\" w:color=\"auto\"/></w:pBdr></w:pPr></w:p>",
            ),
            Block::PageBreak => self.xml.push_str("<w:p><w:r><w:br w:type=\"page\"/></w:r></w:p>"),
        }
    }

    fn paragraph(
        &mut self,
        style: &str,
        numbering: Option<(u32, u32)>,
        align: Align,
        inlines: &[Inline],
    ) {
        let _ = write!(self.xml, "<w:p><w:pPr><w:pStyle w:val=\"{style}\"/>");
        if let Some((num_id, level)) = numbering {
            let _ = write!(
                self.xml,
                "<w:numPr><w:ilvl w:val=\"{}\"/><w:numId w:val=\"{num_id}\"/></w:numPr>",
                level.min(8)
            );
        }
        let jc = match align {
            Align::Center => Some("center"),
            Align::Right => Some("right"),
            Align::Left => Some("left"),
            Align::Default => None,
        };
        if let Some(jc) = jc {
            let _ = write!(self.xml, "<w:jc w:val=\"{jc}\"/>");
        }
        self.xml.push_str("</w:pPr>");
        self.inlines(inlines);
        self.xml.push_str("</w:p>");
    }

    fn inlines(&mut self, inlines: &[Inline]) {
        for inline in inlines {
            match inline {
                Inline::Span {
                    text,
                    style,
                    link: Some(url),
                } => {
                    let rel_id = format!("rIdLink{}", self.links.len() + 1);
                    self.links.push((rel_id.clone(), url.clone()));
                    let _ = write!(self.xml, "<w:hyperlink r:id=\"{rel_id}\">");
                    self.run_styled(text, *style, Some("Hyperlink"));
                    self.xml.push_str("</w:hyperlink>");
                }
                Inline::Span {
                    text,
                    style,
                    link: None,
                } => self.run(text, *style),
                Inline::SoftBreak => self.run(" ", Style::default()),
                Inline::LineBreak => self.xml.push_str("<w:r><w:br/></w:r>"),
                Inline::Image(image) => match &image.data {
                    Some(data) => self.picture(data, &image.alt),
                    None => self.run(&image.alt, Style::default()),
                },
            }
        }
    }

    fn run(&mut self, text: &str, style: Style) {
        self.run_styled(text, style, None);
    }

    fn run_styled(&mut self, text: &str, style: Style, char_style: Option<&str>) {
        self.xml.push_str("<w:r>");
        let char_style = char_style.or(style.code.then_some("VerbatimChar"));
        if char_style.is_some() || style.bold || style.italic || style.strike {
            self.xml.push_str("<w:rPr>");
            if let Some(s) = char_style {
                let _ = write!(self.xml, "<w:rStyle w:val=\"{s}\"/>");
            }
            if style.bold {
                self.xml.push_str("<w:b/><w:bCs/>");
            }
            if style.italic {
                self.xml.push_str("<w:i/><w:iCs/>");
            }
            if style.strike {
                self.xml.push_str("<w:strike/>");
            }
            self.xml.push_str("</w:rPr>");
        }
        let _ = write!(
            self.xml,
            "<w:t xml:space=\"preserve\">{}</w:t></w:r>",
            escape(text)
        );
    }

    fn picture(&mut self, data: &ImageData, alt: &str) {
        self.drawing_id += 1;
        let id = self.drawing_id;
        let n = self.media.len() + 1;
        let rel_id = format!("rIdImage{n}");
        let extension = data.format.extension();
        let file_name = format!("image{n}.{extension}");
        let mut cx = data.width as u64 * EMU_PER_PX;
        let mut cy = data.height as u64 * EMU_PER_PX;
        if cx > MAX_IMAGE_EMU {
            cy = cy * MAX_IMAGE_EMU / cx;
            cx = MAX_IMAGE_EMU;
        }
        let alt = escape(alt);
        let _ = write!(
            self.xml,
            "<w:r><w:drawing><wp:inline distT=\"0\" distB=\"0\" distL=\"0\" distR=\"0\">\
<wp:extent cx=\"{cx}\" cy=\"{cy}\"/><wp:docPr id=\"{id}\" name=\"Picture {id}\" descr=\"{alt}\"/>\
<wp:cNvGraphicFramePr><a:graphicFrameLocks noChangeAspect=\"1\"/></wp:cNvGraphicFramePr>\
<a:graphic><a:graphicData uri=\"http://schemas.openxmlformats.org/drawingml/2006/picture\">\
<pic:pic><pic:nvPicPr><pic:cNvPr id=\"{id}\" name=\"{file_name}\"/><pic:cNvPicPr/></pic:nvPicPr>\
<pic:blipFill><a:blip r:embed=\"{rel_id}\"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>\
<pic:spPr><a:xfrm><a:off x=\"0\" y=\"0\"/><a:ext cx=\"{cx}\" cy=\"{cy}\"/></a:xfrm>\
<a:prstGeom prst=\"rect\"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic>\
</wp:inline></w:drawing></w:r>"
        );
        self.media.push(Media {
            rel_id,
            file_name,
            content_type: data.format.mime(),
            extension,
            bytes: data.bytes.clone(),
        });
    }

    fn table(&mut self, table: &Table) {
        let columns = table.columns().max(1) as u32;
        // Columns share the text width in proportion to their longest cell (at least four
        // characters' worth), so a wide table's short columns do not split their words.
        let longest: Vec<u32> = (0..columns as usize)
            .map(|c| {
                std::iter::once(&table.header)
                    .chain(&table.rows)
                    .filter_map(|row| row.get(c))
                    .map(|cell| crate::model::plain_text(cell).chars().count() as u32)
                    .max()
                    .unwrap_or(0)
                    .max(4)
            })
            .collect();
        let total: u32 = longest.iter().sum::<u32>().max(1);
        let widths: Vec<u32> = longest.iter().map(|l| TEXT_WIDTH * l / total).collect();
        self.xml.push_str(
            "<w:tbl><w:tblPr><w:tblStyle w:val=\"Table\"/><w:tblW w:w=\"5000\" w:type=\"pct\"/>\
<w:tblBorders><w:top w:val=\"single\" w:sz=\"4\" w:space=\"0\" w:color=\"auto\"/>\
<w:left w:val=\"single\" w:sz=\"4\" w:space=\"0\" w:color=\"auto\"/>\
<w:bottom w:val=\"single\" w:sz=\"4\" w:space=\"0\" w:color=\"auto\"/>\
<w:right w:val=\"single\" w:sz=\"4\" w:space=\"0\" w:color=\"auto\"/>\
<w:insideH w:val=\"single\" w:sz=\"4\" w:space=\"0\" w:color=\"auto\"/>\
<w:insideV w:val=\"single\" w:sz=\"4\" w:space=\"0\" w:color=\"auto\"/></w:tblBorders>\
<w:tblLayout w:type=\"fixed\"/><w:tblLook w:val=\"0020\" w:firstRow=\"1\" w:lastRow=\"0\" w:firstColumn=\"0\" w:lastColumn=\"0\" w:noHBand=\"0\" w:noVBand=\"0\"/></w:tblPr><w:tblGrid>",
        );
        for width in &widths {
            let _ = write!(self.xml, "<w:gridCol w:w=\"{width}\"/>");
        }
        self.xml.push_str("</w:tblGrid>");
        self.row(&table.header, table, &widths, true);
        for row in &table.rows {
            self.row(row, table, &widths, false);
        }
        self.xml.push_str("</w:tbl>");
        // Word needs a paragraph between a table and whatever follows.
        self.xml
            .push_str("<w:p><w:pPr><w:pStyle w:val=\"BodyText\"/></w:pPr></w:p>");
    }

    fn row(&mut self, row: &[Vec<Inline>], table: &Table, widths: &[u32], header: bool) {
        self.xml.push_str("<w:tr>");
        if header {
            self.xml.push_str("<w:trPr><w:tblHeader/></w:trPr>");
        }
        for (c, width) in widths.iter().enumerate() {
            let _ = write!(
                self.xml,
                "<w:tc><w:tcPr><w:tcW w:w=\"{width}\" w:type=\"dxa\"/></w:tcPr>"
            );
            let align = table.aligns.get(c).copied().unwrap_or(Align::Default);
            let empty = Vec::new();
            let cell = row.get(c).unwrap_or(&empty);
            if header {
                let bold: Vec<Inline> = cell
                    .iter()
                    .map(|inline| match inline {
                        Inline::Span { text, style, link } => Inline::Span {
                            text: text.clone(),
                            style: Style {
                                bold: true,
                                ..*style
                            },
                            link: link.clone(),
                        },
                        other => other.clone(),
                    })
                    .collect();
                self.paragraph("Compact", None, align, &bold);
            } else {
                self.paragraph("Compact", None, align, cell);
            }
            self.xml.push_str("</w:tc>");
        }
        self.xml.push_str("</w:tr>");
    }
}
