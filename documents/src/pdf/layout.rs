//! Breaking styled text into lines: glyphs get their font (with fallback) and width, break
//! opportunities are spaces and the gaps around CJK characters (which have no spaces), and a
//! word wider than the line is split between characters. Arabic letters are first joined into
//! their contextual forms (the PDF draws characters, so unjoined letters would print isolated),
//! and lines holding right-to-left text are put into visual order with the Unicode
//! bidirectional algorithm.

use crate::fonts::{Faces, FontId};
use crate::model::{Inline, Style};

/// One glyph placed on a line.
#[derive(Debug, Clone)]
pub struct Glyph {
    pub ch: char,
    pub font: FontId,
    pub size: f32,
    pub width: f32,
    pub grey: f32,
    pub underline: bool,
    pub strike: bool,
}

/// A laid-out line: glyphs in visual order and the width they take.
#[derive(Debug, Clone, Default)]
pub struct Line {
    pub glyphs: Vec<Glyph>,
    pub width: f32,
    /// Tallest glyph size on the line (for the line's height).
    pub size: f32,
    /// An image alone on its line, drawn instead of glyphs.
    pub image: Option<crate::model::Image>,
}

/// How text of one block is set.
#[derive(Debug, Clone, Copy)]
pub struct TextStyle {
    pub size: f32,
    pub bold: bool,
    pub mono: bool,
}

fn font_for(style: Style, base: TextStyle) -> FontId {
    if style.code || base.mono {
        return FontId::Mono;
    }
    match (style.bold || base.bold, style.italic) {
        (true, true) => FontId::BoldItalic,
        (true, false) => FontId::Bold,
        (false, true) => FontId::Italic,
        (false, false) => FontId::Regular,
    }
}

/// Whether a line may break before or after `ch` without a space (CJK ideographs, kana,
/// hangul, fullwidth forms).
fn breaks_around(ch: char) -> bool {
    matches!(ch as u32,
        0x1100..=0x11FF | 0x2E80..=0x303F | 0x3040..=0x30FF | 0x3100..=0x31FF
        | 0x3200..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF
        | 0x20000..=0x3FFFF)
}

enum Piece {
    Word(Vec<Glyph>),
    Space(Glyph),
    Break,
    Image(crate::model::Image),
}

/// Lays `inlines` out in lines at most `width` points wide.
pub fn wrap(inlines: &[Inline], base: TextStyle, width: f32, faces: &Faces<'_>) -> Vec<Line> {
    lay_out(pieces(inlines, base, faces, false), base, width)
}

/// Like [`wrap`], but spaces are kept as they are (code): lines break between any characters.
pub fn wrap_chars(inlines: &[Inline], base: TextStyle, width: f32, faces: &Faces<'_>) -> Vec<Line> {
    lay_out(pieces(inlines, base, faces, true), base, width)
}

fn lay_out(pieces: Vec<Piece>, base: TextStyle, width: f32) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut line = Line::default();
    let mut pending_space: Option<Glyph> = None;
    for piece in pieces {
        match piece {
            Piece::Break => {
                lines.push(finish(std::mem::take(&mut line), base));
                pending_space = None;
            }
            Piece::Image(image) => {
                if !line.glyphs.is_empty() {
                    lines.push(finish(std::mem::take(&mut line), base));
                }
                lines.push(Line {
                    image: Some(image),
                    ..Line::default()
                });
                pending_space = None;
            }
            Piece::Space(glyph) => {
                if !line.glyphs.is_empty() {
                    pending_space = Some(glyph);
                }
            }
            Piece::Word(word) => {
                let word_width: f32 = word.iter().map(|g| g.width).sum();
                let space_width = pending_space.as_ref().map_or(0.0, |g| g.width);
                if !line.glyphs.is_empty() && line.width + space_width + word_width > width {
                    lines.push(finish(std::mem::take(&mut line), base));
                    pending_space = None;
                }
                if let Some(space) = pending_space.take() {
                    line.width += space.width;
                    line.glyphs.push(space);
                }
                for glyph in word {
                    if !line.glyphs.is_empty() && line.width + glyph.width > width {
                        lines.push(finish(std::mem::take(&mut line), base));
                    }
                    line.width += glyph.width;
                    line.glyphs.push(glyph);
                }
            }
        }
    }
    if !line.glyphs.is_empty() || lines.is_empty() {
        lines.push(finish(line, base));
    }
    lines
}

fn finish(mut line: Line, base: TextStyle) -> Line {
    line.size = line.glyphs.iter().map(|g| g.size).fold(base.size, f32::max);
    visual_order(&mut line);
    line
}

fn pieces(inlines: &[Inline], base: TextStyle, faces: &Faces<'_>, keep_spaces: bool) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut word: Vec<Glyph> = Vec::new();
    let flush = |word: &mut Vec<Glyph>, pieces: &mut Vec<Piece>| {
        if !word.is_empty() {
            pieces.push(Piece::Word(std::mem::take(word)));
        }
    };
    for inline in inlines {
        match inline {
            Inline::Span { text, style, link } => {
                let wanted = font_for(*style, base);
                let size = if style.code && !base.mono {
                    base.size * 0.9
                } else {
                    base.size
                };
                for ch in joined_arabic(text).chars() {
                    let ch = if ch == '\t' { ' ' } else { ch };
                    if ch.is_control() {
                        continue;
                    }
                    let (ch, font) = match faces.pick(wanted, ch) {
                        Some(font) => (ch, font),
                        None => ('?', FontId::Regular),
                    };
                    let glyph = Glyph {
                        ch,
                        font,
                        size,
                        width: faces.advance(font, ch, size),
                        grey: if link.is_some() { 0.1 } else { 0.0 },
                        underline: link.is_some(),
                        strike: style.strike,
                    };
                    if ch == ' ' && !keep_spaces {
                        flush(&mut word, &mut pieces);
                        pieces.push(Piece::Space(glyph));
                    } else if breaks_around(ch) {
                        flush(&mut word, &mut pieces);
                        pieces.push(Piece::Word(vec![glyph]));
                    } else {
                        word.push(glyph);
                    }
                }
            }
            Inline::SoftBreak => {
                flush(&mut word, &mut pieces);
                let font = font_for(Style::default(), base);
                pieces.push(Piece::Space(Glyph {
                    ch: ' ',
                    font,
                    size: base.size,
                    width: faces.advance(font, ' ', base.size),
                    grey: 0.0,
                    underline: false,
                    strike: false,
                }));
            }
            Inline::LineBreak => {
                flush(&mut word, &mut pieces);
                pieces.push(Piece::Break);
            }
            Inline::Image(image) => {
                flush(&mut word, &mut pieces);
                if image.data.is_some() {
                    pieces.push(Piece::Image(image.clone()));
                } else {
                    // Not loaded: its alt text stands in, as pandoc prints it.
                    let alt = Inline::Span {
                        text: format!("[{}]", image.alt),
                        style: Style {
                            italic: true,
                            ..Style::default()
                        },
                        link: None,
                    };
                    pieces.extend(self::pieces(&[alt], base, faces, keep_spaces));
                }
            }
        }
    }
    flush(&mut word, &mut pieces);
    pieces
}

/// `text` with its Arabic letters in their joined presentation forms (and lam-alef ligatures),
/// in logical order still: the bidi reordering of [`visual_order`] comes after line breaking.
fn joined_arabic(text: &str) -> std::borrow::Cow<'_, str> {
    let arabic =
        |ch: char| matches!(ch as u32, 0x0600..=0x06FF | 0x0750..=0x077F | 0x08A0..=0x08FF);
    if text.chars().any(arabic) {
        std::borrow::Cow::Owned(ar_reshaper::reshape_line(text))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// Reorders a line holding right-to-left characters into visual order.
fn visual_order(line: &mut Line) {
    use unicode_bidi::{BidiClass, BidiInfo};
    let rtl = line
        .glyphs
        .iter()
        .any(|g| matches!(unicode_bidi::bidi_class(g.ch), BidiClass::R | BidiClass::AL));
    if !rtl {
        return;
    }
    let text: String = line.glyphs.iter().map(|g| g.ch).collect();
    // Byte offset of each glyph in `text`.
    let mut starts = Vec::with_capacity(line.glyphs.len());
    let mut at = 0;
    for g in &line.glyphs {
        starts.push(at);
        at += g.ch.len_utf8();
    }
    let bidi = BidiInfo::new(&text, None);
    let Some(para) = bidi.paragraphs.first() else {
        return;
    };
    let (levels, runs) = bidi.visual_runs(para, para.range.clone());
    let mut ordered = Vec::with_capacity(line.glyphs.len());
    for run in runs {
        let mut indices: Vec<usize> = (0..line.glyphs.len())
            .filter(|&i| run.contains(&starts[i]))
            .collect();
        if levels.get(run.start).is_some_and(|l| l.is_rtl()) {
            indices.reverse();
        }
        ordered.extend(indices.into_iter().map(|i| line.glyphs[i].clone()));
    }
    if ordered.len() == line.glyphs.len() {
        line.glyphs = ordered;
    }
}
