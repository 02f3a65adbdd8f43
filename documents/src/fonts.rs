//! The fonts documents are set in, found at run time by path.
//!
//! RAGFlow sets PDFs in `Noto Sans CJK SC` through xelatex. canvasc embeds TrueType fonts from
//! the machine's font directories instead: DejaVu (Latin, Greek, Cyrillic, Hebrew, Arabic; Debian's
//! `fonts-dejavu-core`) for text and code, and a CJK-capable fallback (Debian's
//! `fonts-droid-fallback`, or any `.ttf` named in [`FontConfig::cjk`]) for Chinese, Japanese and
//! Korean. A character missing from the styled font falls back to the regular font, then to the
//! CJK font. Font collections (`.ttc`) are not used: PDF embeds one face per font program.

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Which of the set's fonts a glyph is drawn with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FontId {
    Regular,
    Bold,
    Italic,
    BoldItalic,
    Mono,
    Cjk,
}

impl FontId {
    pub const ALL: [FontId; 6] = [
        FontId::Regular,
        FontId::Bold,
        FontId::Italic,
        FontId::BoldItalic,
        FontId::Mono,
        FontId::Cjk,
    ];

    fn index(self) -> usize {
        self as usize
    }
}

/// Explicit font files (each optional) and extra directories to search.
#[derive(Debug, Clone, Default)]
pub struct FontConfig {
    pub dirs: Vec<PathBuf>,
    pub regular: Option<PathBuf>,
    pub bold: Option<PathBuf>,
    pub italic: Option<PathBuf>,
    pub bold_italic: Option<PathBuf>,
    pub mono: Option<PathBuf>,
    pub cjk: Option<PathBuf>,
}

/// Standard places Debian puts the fonts we look for.
const SYSTEM_DIRS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu",
    "/usr/share/fonts/truetype/droid",
    "/usr/share/fonts/truetype",
    "/usr/local/share/fonts",
];

const CANDIDATES: [(FontId, &[&str]); 6] = [
    (FontId::Regular, &["DejaVuSans.ttf"]),
    (FontId::Bold, &["DejaVuSans-Bold.ttf"]),
    (FontId::Italic, &["DejaVuSans-Oblique.ttf"]),
    (FontId::BoldItalic, &["DejaVuSans-BoldOblique.ttf"]),
    (FontId::Mono, &["DejaVuSansMono.ttf"]),
    (
        FontId::Cjk,
        &[
            "DroidSansFallbackFull.ttf",
            "DroidSansFallback.ttf",
            "NotoSansCJKsc-Regular.ttf",
        ],
    ),
];

/// The loaded font files of a set (shared: documents are made concurrently).
#[derive(Debug, Clone)]
pub struct FontSet {
    fonts: [Option<Arc<FontFile>>; 6],
}

/// One font file's bytes and where it came from.
#[derive(Debug)]
pub struct FontFile {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// Why no usable font set was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FontError(pub String);

impl std::fmt::Display for FontError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FontError {}

impl FontSet {
    /// Finds and reads the fonts: explicit paths first, then the configured and system
    /// directories. The regular font is required; every other falls back to it.
    pub fn discover(config: &FontConfig) -> Result<FontSet, FontError> {
        let mut fonts: [Option<Arc<FontFile>>; 6] = Default::default();
        let explicit = [
            &config.regular,
            &config.bold,
            &config.italic,
            &config.bold_italic,
            &config.mono,
            &config.cjk,
        ];
        let dirs: Vec<PathBuf> = config
            .dirs
            .iter()
            .cloned()
            .chain(SYSTEM_DIRS.iter().map(PathBuf::from))
            .collect();
        for (id, names) in CANDIDATES {
            let path = match explicit[id.index()] {
                Some(path) => Some(path.clone()),
                None => find(&dirs, names),
            };
            if let Some(path) = path {
                let bytes = std::fs::read(&path)
                    .map_err(|e| FontError(format!("cannot read font {}: {e}", path.display())))?;
                if ttf_parser::Face::parse(&bytes, 0).is_err() {
                    return Err(FontError(format!(
                        "{} is not a TrueType font",
                        path.display()
                    )));
                }
                fonts[id.index()] = Some(Arc::new(FontFile { path, bytes }));
            }
        }
        if fonts[FontId::Regular.index()].is_none() {
            return Err(FontError(
                "No font found for PDF output: install fonts-dejavu-core or configure a font directory"
                    .to_string(),
            ));
        }
        Ok(FontSet { fonts })
    }

    /// The file of `id`, if the set has one of its own.
    pub fn file(&self, id: FontId) -> Option<&Arc<FontFile>> {
        self.fonts[id.index()].as_ref()
    }

    /// Whether the set can draw CJK text.
    pub fn has_cjk(&self) -> bool {
        self.fonts[FontId::Cjk.index()].is_some()
    }

    /// Parsed faces for measuring and choosing glyphs (borrowing the set).
    pub fn faces(&self) -> Faces<'_> {
        let mut faces: [Option<ttf_parser::Face<'_>>; 6] = Default::default();
        for id in FontId::ALL {
            if let Some(file) = &self.fonts[id.index()] {
                faces[id.index()] = ttf_parser::Face::parse(&file.bytes, 0).ok();
            }
        }
        Faces { faces }
    }
}

fn find(dirs: &[PathBuf], names: &[&str]) -> Option<PathBuf> {
    for name in names {
        for dir in dirs {
            let path = Path::new(dir).join(name);
            if path.is_file() {
                return Some(path);
            }
        }
    }
    None
}

/// The set's parsed faces.
pub struct Faces<'a> {
    faces: [Option<ttf_parser::Face<'a>>; 6],
}

impl Faces<'_> {
    /// The font that draws `ch` in the wanted style: the styled font, else the regular one, else
    /// the CJK one; `None` when no font of the set has the glyph.
    pub fn pick(&self, wanted: FontId, ch: char) -> Option<FontId> {
        [wanted, FontId::Regular, FontId::Cjk]
            .into_iter()
            .find(|&id| self.has_glyph(id, ch))
    }

    fn has_glyph(&self, id: FontId, ch: char) -> bool {
        self.faces[id.index()]
            .as_ref()
            .and_then(|face| face.glyph_index(ch))
            .is_some_and(|g| g.0 != 0)
    }

    /// Advance width of `ch` in `id` at `size` points.
    pub fn advance(&self, id: FontId, ch: char, size: f32) -> f32 {
        let Some(face) = self.faces[id.index()].as_ref() else {
            return size * 0.5;
        };
        let units = face.units_per_em() as f32;
        let advance = face
            .glyph_index(ch)
            .and_then(|g| face.glyph_hor_advance(g))
            .unwrap_or(units as u16 / 2) as f32;
        advance * size / units
    }
}
