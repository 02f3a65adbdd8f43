//! PDF with printpdf: the document model set on US Letter pages (what pandoc's LaTeX template
//! uses when no paper size is given), with RAGFlow's overlay on every page: the 45° light-grey
//! watermark (48 pt), the header at the top left, and along the bottom the footer text (left),
//! the `Generated:` timestamp (centred) and `Page <n>` (right), all 9 pt grey at 36 pt from the
//! edges, as RAGFlow's reportlab overlay draws them.
//!
//! The watermark is drawn first on each page in a light grey (instead of on top with 15 %
//! opacity): the same look, and text over it stays selectable and black.

mod layout;

use crate::fonts::{Faces, FontId, FontSet};
use crate::image_data;
use crate::model::{Align, Block, Image, ImageFormat, Table};
use crate::options::DocOptions;
use layout::{wrap, Line, TextStyle};
use printpdf::{
    Color, Greyscale, ImageTransform, ImageXObject, IndirectFontRef, Mm, PdfDocument,
    PdfDocumentReference, PdfLayerReference, Point, Pt, Px, TextMatrix,
};
use std::collections::HashMap;

const PAGE_W: f32 = 612.0;
const PAGE_H: f32 = 792.0;
const MARGIN: f32 = 72.0;
const OVERLAY_MARGIN: f32 = 36.0;
const OVERLAY_SIZE: f32 = 9.0;
const WATERMARK_SIZE: f32 = 48.0;
const LIST_INDENT: f32 = 22.0;
const QUOTE_INDENT: f32 = 18.0;
const CELL_PAD: f32 = 4.0;

/// Writes `blocks` as a PDF. `max_image_bytes` bounds what one PNG may take decoded (the
/// loader has checked it from the header already; the decoder holds to it as well).
pub fn write(
    blocks: &[Block],
    options: &DocOptions,
    fonts: &FontSet,
    max_image_bytes: u64,
) -> Result<Vec<u8>, String> {
    if blocks.is_empty() {
        // xelatex makes no page of an empty body, and pandoc reports it so.
        return Err("Error producing PDF.".to_string());
    }
    let (doc, page, layer) = PdfDocument::new("Document", mm(PAGE_W), mm(PAGE_H), "Layer 1");
    let layer = doc.get_page(page).get_layer(layer);
    let mut writer = Writer {
        doc,
        fonts,
        faces: fonts.faces(),
        refs: HashMap::new(),
        layer,
        page: 1,
        y: PAGE_H - MARGIN,
        options,
        base: options.font_size as f32,
        max_image_bytes,
    };
    writer.decorate_page()?;
    let width = PAGE_W - 2.0 * MARGIN;
    for block in blocks {
        writer.block(block, MARGIN, width, false)?;
    }
    writer
        .doc
        .save_to_bytes()
        .map_err(|e| format!("cannot write PDF: {e}"))
}

fn mm(pt: f32) -> Mm {
    Mm::from(Pt(pt))
}

fn point(x: f32, y: f32) -> (Point, bool) {
    (Point::new(mm(x), mm(y)), false)
}

struct Writer<'a> {
    doc: PdfDocumentReference,
    fonts: &'a FontSet,
    faces: Faces<'a>,
    refs: HashMap<FontId, IndirectFontRef>,
    layer: PdfLayerReference,
    page: u32,
    /// Top of the free space on the page (points from the bottom edge).
    y: f32,
    options: &'a DocOptions,
    base: f32,
    max_image_bytes: u64,
}

impl Writer<'_> {
    /// The embedded font for `id`, added to the document on first use (so a PDF carries only
    /// the fonts it draws with).
    fn font(&mut self, id: FontId) -> Result<IndirectFontRef, String> {
        let id = if self.fonts.file(id).is_some() {
            id
        } else {
            FontId::Regular
        };
        if let Some(font) = self.refs.get(&id) {
            return Ok(font.clone());
        }
        let file = self.fonts.file(id).ok_or("no regular font")?;
        let font = self
            .doc
            .add_external_font(std::io::Cursor::new(file.bytes.as_slice()))
            .map_err(|e| format!("cannot embed font {}: {e}", file.path.display()))?;
        self.refs.insert(id, font.clone());
        Ok(font)
    }

    fn new_page(&mut self) -> Result<(), String> {
        let (page, layer) = self.doc.add_page(mm(PAGE_W), mm(PAGE_H), "Layer 1");
        self.layer = self.doc.get_page(page).get_layer(layer);
        self.page += 1;
        self.y = PAGE_H - MARGIN;
        self.decorate_page()
    }

    /// Room for `height` points, or a new page.
    fn need(&mut self, height: f32) -> Result<(), String> {
        if self.y - height < MARGIN && self.y < PAGE_H - MARGIN {
            self.new_page()?;
        }
        Ok(())
    }

    fn grey(&self, level: f32) {
        self.layer
            .set_fill_color(Color::Greyscale(Greyscale::new(level, None)));
    }

    /// Text in one style at a baseline, split into runs by the font each glyph falls back to.
    fn text(
        &mut self,
        text: &str,
        size: f32,
        x: f32,
        y: f32,
        wanted: FontId,
    ) -> Result<f32, String> {
        let mut runs: Vec<(FontId, String, f32)> = Vec::new();
        for ch in text.chars().filter(|c| !c.is_control()) {
            let font = self.faces.pick(wanted, ch).unwrap_or(FontId::Regular);
            let advance = self.faces.advance(font, ch, size);
            match runs.last_mut() {
                Some((f, run, w)) if *f == font => {
                    run.push(ch);
                    *w += advance;
                }
                _ => runs.push((font, ch.to_string(), advance)),
            }
        }
        let mut at = x;
        for (font, run, width) in runs {
            let font = self.font(font)?;
            self.layer.use_text(run, size, mm(at), mm(y), &font);
            at += width;
        }
        Ok(at - x)
    }

    fn text_width(&self, text: &str, size: f32, wanted: FontId) -> f32 {
        text.chars()
            .filter(|c| !c.is_control())
            .map(|ch| {
                let font = self.faces.pick(wanted, ch).unwrap_or(FontId::Regular);
                self.faces.advance(font, ch, size)
            })
            .sum()
    }

    /// The overlay RAGFlow merges onto every page.
    fn decorate_page(&mut self) -> Result<(), String> {
        let options = self.options;
        if !options.has_overlay() {
            return Ok(());
        }
        if !options.watermark_text.is_empty() {
            self.watermark(&options.watermark_text)?;
        }
        self.grey(0.35);
        let low = OVERLAY_MARGIN - 8.0;
        if !options.header_text.is_empty() {
            let y = PAGE_H - OVERLAY_MARGIN + 8.0;
            self.text(
                &options.header_text,
                OVERLAY_SIZE,
                OVERLAY_MARGIN,
                y,
                FontId::Regular,
            )?;
        }
        if !options.footer_text.is_empty() {
            self.text(
                &options.footer_text,
                OVERLAY_SIZE,
                OVERLAY_MARGIN,
                low,
                FontId::Regular,
            )?;
        }
        if options.add_timestamp {
            let w = self.text_width(&options.timestamp_text, OVERLAY_SIZE, FontId::Regular);
            self.text(
                &options.timestamp_text,
                OVERLAY_SIZE,
                PAGE_W / 2.0 - w / 2.0,
                low,
                FontId::Regular,
            )?;
        }
        if options.add_page_numbers {
            let label = format!("Page {}", self.page);
            let w = self.text_width(&label, OVERLAY_SIZE, FontId::Regular);
            self.text(
                &label,
                OVERLAY_SIZE,
                PAGE_W - OVERLAY_MARGIN - w,
                low,
                FontId::Regular,
            )?;
        }
        self.grey(0.0);
        Ok(())
    }

    /// The watermark centred on the page, its baseline at 45°.
    fn watermark(&mut self, text: &str) -> Result<(), String> {
        let wanted = text
            .chars()
            .find(|c| !c.is_whitespace())
            .and_then(|c| self.faces.pick(FontId::Regular, c))
            .unwrap_or(FontId::Regular);
        let width: f32 = text
            .chars()
            .map(|c| self.faces.advance(wanted, c, WATERMARK_SIZE))
            .sum();
        let (cos, sin) = (
            std::f32::consts::FRAC_1_SQRT_2,
            std::f32::consts::FRAC_1_SQRT_2,
        );
        let x = PAGE_W / 2.0 - width / 2.0 * cos;
        let y = PAGE_H / 2.0 - width / 2.0 * sin;
        let font = self.font(wanted)?;
        self.grey(0.9);
        self.layer.begin_text_section();
        self.layer.set_font(&font, WATERMARK_SIZE);
        self.layer
            .set_text_matrix(TextMatrix::TranslateRotate(Pt(x), Pt(y), 45.0));
        self.layer.write_text(text, &font);
        self.layer.end_text_section();
        self.grey(0.0);
        Ok(())
    }

    fn rule(&self, x1: f32, y1: f32, x2: f32, y2: f32, thickness: f32) {
        self.layer.set_outline_thickness(thickness);
        self.layer.add_line(printpdf::Line {
            points: vec![point(x1, y1), point(x2, y2)],
            is_closed: false,
        });
    }

    fn rect(&self, x: f32, y: f32, w: f32, h: f32) {
        self.layer.set_outline_thickness(0.5);
        self.layer.add_line(printpdf::Line {
            points: vec![
                point(x, y),
                point(x + w, y),
                point(x + w, y + h),
                point(x, y + h),
            ],
            is_closed: true,
        });
    }

    /// Draws laid-out lines from the cursor down, breaking pages as needed.
    fn lines(&mut self, lines: &[Line], left: f32, width: f32, align: Align) -> Result<(), String> {
        for line in lines {
            if let Some(image) = &line.image {
                self.image(image, left, width)?;
                continue;
            }
            let leading = line.size * 1.25;
            self.need(leading)?;
            let baseline = self.y - line.size;
            self.draw_line(line, left, width, align, baseline)?;
            self.y -= leading;
        }
        Ok(())
    }

    fn draw_line(
        &mut self,
        line: &Line,
        left: f32,
        width: f32,
        align: Align,
        baseline: f32,
    ) -> Result<(), String> {
        let mut x = match align {
            Align::Center => left + (width - line.width).max(0.0) / 2.0,
            Align::Right => left + (width - line.width).max(0.0),
            _ => left,
        };
        let mut run = String::new();
        let mut run_start = x;
        let mut current: Option<(FontId, u32, u32)> = None;
        for glyph in &line.glyphs {
            let key = (glyph.font, glyph.size.to_bits(), glyph.grey.to_bits());
            if current != Some(key) {
                if let Some((font, size, grey)) = current.take() {
                    self.flush_run(
                        &run,
                        font,
                        f32::from_bits(size),
                        f32::from_bits(grey),
                        run_start,
                        baseline,
                    )?;
                }
                run.clear();
                run_start = x;
                current = Some(key);
            }
            run.push(glyph.ch);
            if glyph.underline || glyph.strike {
                let y = if glyph.strike {
                    baseline + glyph.size * 0.3
                } else {
                    baseline - 1.5
                };
                self.rule(x, y, x + glyph.width, y, 0.5);
            }
            x += glyph.width;
        }
        if let Some((font, size, grey)) = current {
            self.flush_run(
                &run,
                font,
                f32::from_bits(size),
                f32::from_bits(grey),
                run_start,
                baseline,
            )?;
        }
        Ok(())
    }

    fn flush_run(
        &mut self,
        run: &str,
        font: FontId,
        size: f32,
        grey: f32,
        x: f32,
        y: f32,
    ) -> Result<(), String> {
        let font = self.font(font)?;
        if grey != 0.0 {
            self.grey(grey);
        }
        self.layer.use_text(run, size, mm(x), mm(y), &font);
        if grey != 0.0 {
            self.grey(0.0);
        }
        Ok(())
    }

    fn image(&mut self, image: &Image, left: f32, width: f32) -> Result<(), String> {
        let Some(data) = &image.data else {
            return Ok(());
        };
        // 96 pixels to the inch, as pandoc sizes an image without a density; never wider than
        // the text nor taller than 60 % of it.
        let mut w = (data.width as f32 * 0.75).min(width);
        let mut h = w * data.height as f32 / data.width as f32;
        let max_h = (PAGE_H - 2.0 * MARGIN) * 0.6;
        if h > max_h {
            w *= max_h / h;
            h = max_h;
        }
        self.need(h + 6.0)?;
        let (pixels, filter) = match data.format {
            ImageFormat::Png => {
                let (rgb, _, _) = image_data::png_to_rgb(&data.bytes, self.max_image_bytes)
                    .ok_or("cannot decode PNG image")?;
                (rgb, None)
            }
            ImageFormat::Jpeg => (data.bytes.clone(), Some(printpdf::ImageFilter::DCT)),
        };
        let xobject = ImageXObject {
            width: Px(data.width as usize),
            height: Px(data.height as usize),
            color_space: printpdf::ColorSpace::Rgb,
            bits_per_component: printpdf::ColorBits::Bit8,
            interpolate: true,
            image_data: pixels,
            image_filter: filter,
            smask: None,
            clipping_bbox: None,
        };
        let dpi = data.width as f32 * 72.0 / w;
        printpdf::Image::from(xobject).add_to_layer(
            self.layer.clone(),
            ImageTransform {
                translate_x: Some(mm(left)),
                translate_y: Some(mm(self.y - h)),
                dpi: Some(dpi),
                ..Default::default()
            },
        );
        self.y -= h + 6.0;
        Ok(())
    }

    fn block(&mut self, block: &Block, left: f32, width: f32, tight: bool) -> Result<(), String> {
        let base = self.base;
        let gap = if tight { base * 0.2 } else { base * 0.6 };
        match block {
            Block::Heading { level, inlines } => {
                let size = self.options.heading_size(*level) as f32;
                let style = TextStyle {
                    size,
                    bold: true,
                    mono: false,
                };
                let lines = wrap(inlines, style, width, &self.faces);
                // Keep a heading with the start of what follows it.
                self.need(size * 1.25 * lines.len() as f32 + base * 3.0)?;
                if self.y < PAGE_H - MARGIN {
                    self.y -= size * 0.8;
                }
                self.lines(&lines, left, width, Align::Left)?;
                self.y -= size * 0.4;
            }
            Block::Paragraph(inlines) => {
                let style = TextStyle {
                    size: base,
                    bold: false,
                    mono: false,
                };
                let lines = wrap(inlines, style, width, &self.faces);
                self.lines(&lines, left, width, Align::Left)?;
                self.y -= gap;
            }
            Block::List { start, items, .. } => {
                for (i, item) in items.iter().enumerate() {
                    let marker = match start {
                        Some(n) => format!("{}.", n.saturating_add(i as u64)),
                        None => "•".to_string(),
                    };
                    self.need(base * 1.25)?;
                    self.grey(0.0);
                    self.text(&marker, base, left + 4.0, self.y - base, FontId::Regular)?;
                    let inner = left + LIST_INDENT;
                    for block in item {
                        self.block(block, inner, width - LIST_INDENT, true)?;
                    }
                }
                self.y -= gap;
            }
            Block::Quote(blocks) => {
                let (page, top) = (self.page, self.y);
                for block in blocks {
                    self.block(block, left + QUOTE_INDENT, width - QUOTE_INDENT, tight)?;
                }
                let top = if page == self.page {
                    top
                } else {
                    PAGE_H - MARGIN
                };
                self.layer
                    .set_outline_color(Color::Greyscale(Greyscale::new(0.6, None)));
                self.rule(left + 4.0, top, left + 4.0, self.y + gap, 2.0);
                self.layer
                    .set_outline_color(Color::Greyscale(Greyscale::new(0.0, None)));
            }
            Block::Code { text, .. } => {
                let style = TextStyle {
                    size: base * 0.9,
                    bold: false,
                    mono: true,
                };
                for source_line in text.split('\n') {
                    let span = crate::model::Inline::Span {
                        text: source_line.to_string(),
                        style: crate::model::Style {
                            code: true,
                            ..Default::default()
                        },
                        link: None,
                    };
                    let lines = layout::wrap_chars(&[span], style, width - 10.0, &self.faces);
                    self.lines(&lines, left + 10.0, width - 10.0, Align::Left)?;
                }
                self.y -= gap;
            }
            Block::Rule => {
                self.need(base)?;
                self.y -= base * 0.5;
                self.rule(left, self.y, left + width, self.y, 0.5);
                self.y -= base * 0.5;
            }
            Block::PageBreak => self.new_page()?,
            Block::Table(table) => {
                self.table(table, left, width)?;
                self.y -= gap;
            }
        }
        Ok(())
    }

    fn table(&mut self, table: &Table, left: f32, width: f32) -> Result<(), String> {
        let columns = table.columns();
        if columns == 0 {
            return Ok(());
        }
        let base = self.base;
        let body = TextStyle {
            size: base,
            bold: false,
            mono: false,
        };
        let head = TextStyle { bold: true, ..body };
        // Natural width of each column: its widest cell on one line.
        let mut natural = vec![2.0 * CELL_PAD + base; columns];
        let rows =
            std::iter::once((&table.header, head)).chain(table.rows.iter().map(|r| (r, body)));
        for (row, style) in rows.clone() {
            for (c, cell) in row.iter().enumerate() {
                let one_line = wrap(cell, style, f32::INFINITY, &self.faces);
                let w = one_line.iter().map(|l| l.width).fold(0.0, f32::max) + 2.0 * CELL_PAD;
                natural[c] = natural[c].max(w);
            }
        }
        let total: f32 = natural.iter().sum();
        let widths: Vec<f32> = if total <= width {
            natural
        } else {
            natural.iter().map(|w| w * width / total).collect()
        };
        for (row, style) in rows {
            let cells: Vec<Vec<Line>> = (0..columns)
                .map(|c| match row.get(c) {
                    Some(cell) => wrap(cell, style, widths[c] - 2.0 * CELL_PAD, &self.faces),
                    None => Vec::new(),
                })
                .collect();
            let height = cells
                .iter()
                .map(|lines| lines.iter().map(|l| l.size * 1.25).sum::<f32>())
                .fold(base * 1.25, f32::max)
                + 2.0 * CELL_PAD;
            self.need(height)?;
            let top = self.y;
            let mut x = left;
            for (c, lines) in cells.iter().enumerate() {
                let align = table.aligns.get(c).copied().unwrap_or(Align::Default);
                let mut y = top - CELL_PAD;
                for line in lines {
                    self.draw_line(
                        line,
                        x + CELL_PAD,
                        widths[c] - 2.0 * CELL_PAD,
                        align,
                        y - line.size,
                    )?;
                    y -= line.size * 1.25;
                }
                self.rect(x, top - height, widths[c], height);
                x += widths[c];
            }
            self.y = top - height;
        }
        Ok(())
    }
}
