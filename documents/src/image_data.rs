//! Loading an image a document names: a `data:` URL or a file inside the allowed directory,
//! PNG or JPEG, with its pixel size (which the PDF and DOCX writers lay it out by).

use crate::model::{ImageData, ImageFormat};
use base64::Engine;
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

/// Largest image a document embeds (bytes): a canvas's text must not make the writer hold an
/// unbounded picture.
const MAX_IMAGE_BYTES: usize = 32 * 1024 * 1024;

/// The image at `src`, or `None` when it cannot or may not be loaded.
pub fn load(src: &str, source: &ImageSource) -> Option<ImageData> {
    let bytes = if let Some(rest) = src.strip_prefix("data:") {
        let (meta, payload) = rest.split_once(',')?;
        if !meta.ends_with(";base64") {
            return None;
        }
        let payload: String = payload.chars().filter(|c| !c.is_whitespace()).collect();
        base64::engine::general_purpose::STANDARD
            .decode(payload)
            .ok()?
    } else {
        let ImageSource::Directory(root) = source else {
            return None;
        };
        if src.contains("://") {
            return None;
        }
        let path = contained_path(root, src)?;
        let meta = std::fs::metadata(&path).ok()?;
        if meta.len() as usize > MAX_IMAGE_BYTES {
            return None;
        }
        std::fs::read(path).ok()?
    };
    if bytes.len() > MAX_IMAGE_BYTES {
        return None;
    }
    identify(bytes)
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

/// A PNG decoded to 8-bit RGB over white (what the PDF writer embeds), with its size.
pub fn png_to_rgb(bytes: &[u8]) -> Option<(Vec<u8>, u32, u32)> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().ok()?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).ok()?;
    let (w, h) = (info.width, info.height);
    let data = &buf[..info.buffer_size()];
    let pixels = (w as usize).checked_mul(h as usize)?;
    let mut rgb = Vec::with_capacity(pixels.checked_mul(3)?);
    let over_white = |c: u8, a: u8| ((c as u16 * a as u16 + 255 * (255 - a as u16)) / 255) as u8;
    match info.color_type {
        png::ColorType::Rgb => rgb.extend_from_slice(data),
        png::ColorType::Rgba => {
            for px in data.chunks_exact(4) {
                rgb.extend(px[..3].iter().map(|&c| over_white(c, px[3])));
            }
        }
        png::ColorType::Grayscale => {
            for &g in data {
                rgb.extend([g, g, g]);
            }
        }
        png::ColorType::GrayscaleAlpha => {
            for px in data.chunks_exact(2) {
                let g = over_white(px[0], px[1]);
                rgb.extend([g, g, g]);
            }
        }
        png::ColorType::Indexed => return None,
    }
    (rgb.len() == pixels * 3).then_some((rgb, w, h))
}
