//! Loading an image a document names: a `data:` URL or a file inside the allowed directory,
//! PNG or JPEG, with its pixel size (which the PDF and DOCX writers lay it out by), within the
//! document's [`ImageBudget`].
//!
//! An image is a decompression bomb waiting to happen: a PNG of a few hundred kilobytes can say
//! it is 100,000 × 100,000 pixels, and decoding it would take tens of gigabytes. So every check
//! here is made from the header, before anything is decoded, and a document that asks for more
//! than its budget fails with an error naming DocGenerator rather than taking the server down.

use crate::model::{ImageData, ImageFormat};
use base64::Engine;
use std::fmt;
use std::path::{Component, Path, PathBuf};

/// Where images named by a path may be read from.
#[derive(Debug, Clone, Default)]
pub enum ImageSource {
    /// Only `data:` URLs.
    #[default]
    DataUrlsOnly,
    /// `data:` URLs, and relative paths inside this directory.
    Directory(PathBuf),
}

/// How much picture one document may hold. Pixels bound what any reader of the document (and
/// canvasc's PDF writer) must decode; bytes bound both an image's file and, where canvasc
/// decodes it (a PNG in a PDF), its decoded pixels (8-bit RGB, 3 bytes a pixel).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageBudget {
    /// Pixels of one image (width × height).
    pub image_pixels: u64,
    /// Pixels of all the images of one document.
    pub document_pixels: u64,
    /// Bytes of one image: its file, and its decoded pixels.
    pub image_bytes: u64,
    /// Bytes of all the images of one document: their files, and their decoded pixels.
    pub document_bytes: u64,
}

impl Default for ImageBudget {
    /// 40 megapixels and 32 MiB an image, 100 megapixels and 64 MiB a document: a full-page
    /// photo or a 4K screenshot fits many times over, and a document's peak memory stays in
    /// the low hundreds of megabytes whatever its text says.
    fn default() -> Self {
        ImageBudget {
            image_pixels: 40_000_000,
            document_pixels: 100_000_000,
            image_bytes: 32 * 1024 * 1024,
            document_bytes: 64 * 1024 * 1024,
        }
    }
}

/// An image a document may not hold: which one (its number in the document and where it came
/// from) and which budget it exceeds. Displayed as RAGFlow words a component's own refusals,
/// `[DocGenerator] …`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRefused {
    /// 1 for the document's first image.
    pub number: usize,
    /// The image's source, shortened (a data URL is mostly payload).
    pub source: String,
    pub reason: String,
}

impl fmt::Display for ImageRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[DocGenerator] Image {} ({}) is too large: {}",
            self.number, self.source, self.reason
        )
    }
}

impl std::error::Error for ImageRefused {}

/// `12,345,678`: budgets are read by people.
pub(crate) fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A source as an error shows it: a data URL by its media type, a path as it is (cut short).
fn shown_source(src: &str) -> String {
    if let Some(rest) = src.strip_prefix("data:") {
        let meta = rest.split(',').next().unwrap_or_default();
        let meta: String = meta.chars().take(40).collect();
        return format!("data:{meta},…");
    }
    let mut shown: String = src.chars().take(80).collect();
    if shown.len() < src.len() {
        shown.push('…');
    }
    shown
}

/// Loads a document's images one after the other, keeping count of what they have spent of the
/// budget. One loader per document.
#[derive(Debug)]
pub struct ImageLoader<'a> {
    /// `None`: images are not loaded at all (the text formats only write the source).
    source: Option<&'a ImageSource>,
    budget: ImageBudget,
    /// Whether PNGs will be decoded (the PDF writer): their decoded pixels count as bytes.
    decodes_png: bool,
    number: usize,
    pixels: u64,
    bytes: u64,
}

impl<'a> ImageLoader<'a> {
    pub fn new(source: &'a ImageSource, budget: ImageBudget) -> Self {
        ImageLoader {
            source: Some(source),
            budget,
            decodes_png: false,
            number: 0,
            pixels: 0,
            bytes: 0,
        }
    }

    /// For a writer that decodes PNGs (the PDF writer): their decoded pixels are spent too.
    pub fn decoding_png(mut self) -> Self {
        self.decodes_png = true;
        self
    }

    /// A loader that loads nothing: for writers that never look at an image's bytes.
    pub fn none() -> ImageLoader<'static> {
        ImageLoader {
            source: None,
            budget: ImageBudget::default(),
            decodes_png: false,
            number: 0,
            pixels: 0,
            bytes: 0,
        }
    }

    /// The image at `src`: `Ok(None)` when it cannot or may not be loaded (not PNG or JPEG,
    /// outside the directory, a remote URL; the document keeps its alt text, as before), an
    /// error when it would exceed the budget.
    pub fn load(&mut self, src: &str) -> Result<Option<ImageData>, ImageRefused> {
        let Some(source) = self.source else {
            return Ok(None);
        };
        self.number += 1;
        let budget = self.budget;
        let Some(bytes) = self.read(src, source)? else {
            return Ok(None);
        };
        let Some(image) = identify(bytes) else {
            return Ok(None);
        };
        let pixels = u64::from(image.width) * u64::from(image.height);
        if pixels > budget.image_pixels {
            return Err(self.refused(
                src,
                format!(
                    "{} × {} pixels ({}), more than the {} pixels an image may have",
                    image.width,
                    image.height,
                    grouped(pixels),
                    grouped(budget.image_pixels)
                ),
            ));
        }
        if self.pixels + pixels > budget.document_pixels {
            return Err(self.refused(
                src,
                format!(
                    "with its {} pixels the document's images would have more than the {} pixels a document's images may have",
                    grouped(pixels),
                    grouped(budget.document_pixels)
                ),
            ));
        }
        let mut bytes = image.bytes.len() as u64;
        if self.decodes_png && image.format == ImageFormat::Png {
            let decoded = pixels * 3;
            if decoded > budget.image_bytes {
                return Err(self.refused(
                    src,
                    format!(
                        "{} × {} pixels decode to {} bytes, more than the {} bytes an image may have",
                        image.width,
                        image.height,
                        grouped(decoded),
                        grouped(budget.image_bytes)
                    ),
                ));
            }
            bytes += decoded;
        }
        if self.bytes + bytes > budget.document_bytes {
            return Err(self.refused(
                src,
                format!(
                    "with its {} bytes (file and decoded pixels) the document's images would take more than the {} bytes a document's images may have",
                    grouped(bytes),
                    grouped(budget.document_bytes)
                ),
            ));
        }
        self.pixels += pixels;
        self.bytes += bytes;
        Ok(Some(image))
    }

    fn refused(&self, src: &str, reason: String) -> ImageRefused {
        ImageRefused {
            number: self.number,
            source: shown_source(src),
            reason,
        }
    }

    /// Refuses a file over the per-image or the document's remaining byte budget, from its
    /// declared size (the length of a data URL's payload, a file's metadata) before reading it.
    fn check_file_size(&self, src: &str, size: u64) -> Result<(), ImageRefused> {
        let budget = self.budget;
        if size > budget.image_bytes {
            return Err(self.refused(
                src,
                format!(
                    "its file has {} bytes, more than the {} bytes an image may have",
                    grouped(size),
                    grouped(budget.image_bytes)
                ),
            ));
        }
        if self.bytes + size > budget.document_bytes {
            return Err(self.refused(
                src,
                format!(
                    "with its {} bytes the document's image files would have more than the {} bytes a document's images may have",
                    grouped(size),
                    grouped(budget.document_bytes)
                ),
            ));
        }
        Ok(())
    }

    /// The bytes of the file `src` names, `None` when it may not be read.
    fn read(&self, src: &str, source: &ImageSource) -> Result<Option<Vec<u8>>, ImageRefused> {
        if let Some(rest) = src.strip_prefix("data:") {
            let Some((meta, payload)) = rest.split_once(',') else {
                return Ok(None);
            };
            if !meta.ends_with(";base64") {
                return Ok(None);
            }
            let payload: String = payload.chars().filter(|c| !c.is_whitespace()).collect();
            // Four base64 characters hold three bytes, less one per `=` of padding: the size
            // is known before decoding.
            let padding = payload.bytes().rev().take_while(|&b| b == b'=').count() as u64;
            let size = (payload.len() as u64 / 4 * 3).saturating_sub(padding);
            self.check_file_size(src, size)?;
            return Ok(base64::engine::general_purpose::STANDARD
                .decode(payload)
                .ok());
        }
        let ImageSource::Directory(root) = source else {
            return Ok(None);
        };
        if src.contains("://") {
            return Ok(None);
        }
        let Some(path) = contained_path(root, src) else {
            return Ok(None);
        };
        let Ok(meta) = std::fs::metadata(&path) else {
            return Ok(None);
        };
        self.check_file_size(src, meta.len())?;
        // Read no more than was checked, should the file grow in between.
        let mut bytes = Vec::new();
        let Ok(file) = std::fs::File::open(path) else {
            return Ok(None);
        };
        if std::io::Read::read_to_end(&mut std::io::Read::take(file, meta.len()), &mut bytes)
            .is_err()
        {
            return Ok(None);
        }
        Ok(Some(bytes))
    }
}

/// A relative path that stays inside `root` (no `..`, no absolute path).
fn contained_path(root: &Path, relative: &str) -> Option<PathBuf> {
    let relative = Path::new(relative);
    if relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return None;
    }
    Some(root.join(relative))
}
/// Recognises PNG and JPEG and reads their pixel size from the header.
pub fn identify(bytes: Vec<u8>) -> Option<ImageData> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() >= 24 && &bytes[12..16] == b"IHDR" {
        let width = u32::from_be_bytes(bytes[16..20].try_into().ok()?);
        let height = u32::from_be_bytes(bytes[20..24].try_into().ok()?);
        return sized(ImageFormat::Png, bytes, width, height);
    }
    if bytes.starts_with(&[0xFF, 0xD8]) {
        let (width, height) = jpeg_size(&bytes)?;
        return sized(ImageFormat::Jpeg, bytes, width, height);
    }
    None
}

fn sized(format: ImageFormat, bytes: Vec<u8>, width: u32, height: u32) -> Option<ImageData> {
    (width > 0 && height > 0).then_some(ImageData {
        format,
        bytes,
        width,
        height,
    })
}

/// Walks JPEG segments to the first start-of-frame marker. A handful of lines instead of a
/// decoder crate: the writers embed JPEG bytes as they are (DCTDecode, word/media), so only the
/// size is needed.
fn jpeg_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let mut at = 2;
    while at + 4 <= bytes.len() {
        if bytes[at] != 0xFF {
            return None;
        }
        let marker = bytes[at + 1];
        if marker == 0xFF {
            at += 1;
            continue;
        }
        let len = u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]) as usize;
        let is_sof = matches!(marker, 0xC0..=0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF);
        if is_sof {
            let seg = bytes.get(at + 4..at + 9)?;
            let height = u16::from_be_bytes([seg[1], seg[2]]) as u32;
            let width = u16::from_be_bytes([seg[3], seg[4]]) as u32;
            return Some((width, height));
        }
        at += 2 + len;
    }
    None
}

/// A PNG decoded to 8-bit RGB over white (what the PDF writer embeds), with its size; `None`
/// when it cannot be decoded or its pixels would take more than `max_bytes` as RGB. The size
/// is checked from the header before the frame is allocated, the decoder's own allocations
/// are limited too, and the colours are converted in the decoded frame's buffer, so the peak
/// is at most 4 bytes a pixel (RGBA) rather than a frame plus a copy.
pub fn png_to_rgb(bytes: &[u8], max_bytes: u64) -> Option<(Vec<u8>, u32, u32)> {
    let limits = png::Limits {
        bytes: usize::try_from(max_bytes.saturating_mul(2)).unwrap_or(usize::MAX),
    };
    let mut decoder = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), limits);
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().ok()?;
    let (w, h) = {
        let info = reader.info();
        (info.width, info.height)
    };
    let pixels = (w as usize).checked_mul(h as usize)?;
    let rgb_len = pixels.checked_mul(3)?;
    if rgb_len as u64 > max_bytes {
        return None;
    }
    let (color, _) = reader.output_color_type();
    let mut buf = vec![0; reader.output_buffer_size().max(rgb_len)];
    let info = reader.next_frame(&mut buf).ok()?;
    if (info.width, info.height) != (w, h) {
        return None;
    }
    let over_white = |c: u8, a: u8| ((c as u16 * a as u16 + 255 * (255 - a as u16)) / 255) as u8;
    match color {
        png::ColorType::Rgb => {}
        // Shrinking: each pixel's RGB lands at or before where it was read.
        png::ColorType::Rgba => {
            for i in 0..pixels {
                let a = buf[4 * i + 3];
                for c in 0..3 {
                    buf[3 * i + c] = over_white(buf[4 * i + c], a);
                }
            }
        }
        // Growing: from the last pixel back, each RGB lands at or after where it was read.
        png::ColorType::Grayscale => {
            for i in (0..pixels).rev() {
                let g = buf[i];
                buf[3 * i..3 * i + 3].fill(g);
            }
        }
        png::ColorType::GrayscaleAlpha => {
            for i in (0..pixels).rev() {
                let g = over_white(buf[2 * i], buf[2 * i + 1]);
                buf[3 * i..3 * i + 3].fill(g);
            }
        }
        png::ColorType::Indexed => return None,
    }
    buf.truncate(rgb_len);
    buf.shrink_to_fit();
    Some((buf, w, h))
}
