//! `canvasc graph FILE --format svg|mermaid|dot [-o OUT]`: a picture of a canvas, with the
//! checker's findings marked on the components they concern.

use crate::graph::svg::{self, Renderer};
use crate::graph::{dot, mermaid, Picture};
use canvasc_frontend::analyze;
use clap::{Args as ClapArgs, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Svg,
    Mermaid,
    Dot,
    /// The SVG rasterised (resvg, with the machine's fonts).
    Png,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Mermaid => "mermaid",
            Format::Dot => "dot",
            Format::Png => "png",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// Graphviz `dot` when installed, else the built-in layout.
    Auto,
    Graphviz,
    Builtin,
}

#[derive(ClapArgs)]
pub struct Args {
    /// The canvas (any form).
    file: PathBuf,
    /// The picture's form; default: the one `-o`'s extension names (`.svg`, `.mmd`, `.dot`),
    /// else SVG.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Write the picture here instead of to stdout.
    #[arg(short = 'o', long = "out")]
    out: Option<PathBuf>,
    /// Who lays out the SVG.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    engine: EngineArg,
}

/// The form `-o`'s extension names, if it names one canvasc draws; `Err` for any other
/// extension (a `.jpg` must not silently hold SVG text).
fn format_of(out: &std::path::Path) -> Result<Option<Format>, String> {
    let extension = out.extension().map(|e| e.to_string_lossy().to_lowercase());
    Ok(match extension.as_deref() {
        None => None,
        Some("svg") => Some(Format::Svg),
        Some("mmd" | "mermaid") => Some(Format::Mermaid),
        Some("dot" | "gv") => Some(Format::Dot),
        Some("png") => Some(Format::Png),
        Some(other) => {
            return Err(format!(
                "{}: canvasc graph draws SVG (.svg), PNG (.png), Mermaid (.mmd) or DOT (.dot), not .{other}",
                out.display()
            ))
        }
    })
}

pub fn run(args: Args) -> ExitCode {
    let named = match args.out.as_deref().map(format_of).transpose() {
        Ok(named) => named.flatten(),
        Err(e) => return usage(e),
    };
    let format = match (args.format, named) {
        (Some(asked), Some(named)) if asked != named => {
            return usage(format!(
                "--format {} does not match the file -o names ({})",
                asked.name(),
                args.out
                    .as_deref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            ))
        }
        (Some(asked), _) => asked,
        (None, Some(named)) => named,
        (None, None) => Format::Svg,
    };
    let name = args.file.display().to_string();
    let text = match super::read_file(&args.file) {
        Ok(t) => t,
        Err(e) => return usage(e),
    };
    let analysis = match analyze(&text) {
        Ok(a) => a,
        Err(e) => return usage(format!("{name}: {e}")),
    };
    let picture = Picture::of(&analysis);
    let title = args
        .file
        .file_name()
        .map_or_else(|| name.clone(), |f| f.to_string_lossy().into_owned());
    let engine = match args.engine {
        EngineArg::Auto => Renderer::Auto,
        EngineArg::Graphviz => Renderer::Graphviz,
        EngineArg::Builtin => Renderer::Builtin,
    };
    let drawn = match format {
        Format::Dot => Ok(dot::write(&picture, &title, dot::Flavour::default()).into_bytes()),
        Format::Mermaid => Ok(mermaid::write(&picture).into_bytes()),
        Format::Svg => svg::render(&picture, &title, engine).map(String::into_bytes),
        Format::Png => svg::render(&picture, &title, engine).and_then(|svg| png_of(&svg)),
    };
    let drawn = match drawn {
        Ok(d) => d,
        Err(e) => {
            errln!("error: {name}: {e}");
            return ExitCode::from(1);
        }
    };
    match &args.out {
        Some(path) => {
            if let Err(e) = std::fs::write(path, drawn) {
                return usage(format!("cannot write {}: {e}", path.display()));
            }
        }
        None => {
            use std::io::Write as _;
            let mut stdout = std::io::stdout().lock();
            match stdout.write_all(&drawn).and_then(|()| stdout.flush()) {
                // A reader that stopped early (`| head`) is not an error.
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    return usage(format!("cannot write the picture: {e}"));
                }
                _ => {}
            }
        }
    }
    ExitCode::SUCCESS
}

/// The most pixels a PNG has (about 200 MB of RGBA while drawn).
const MAX_PIXELS: f64 = 50_000_000.0;

/// The SVG as a PNG at its own size (resvg: no external tool), its text set in the machine's
/// fonts; scaled down to [`MAX_PIXELS`] when larger.
fn png_of(svg: &str) -> Result<Vec<u8>, String> {
    let mut options = resvg::usvg::Options::default();
    let fonts = options.fontdb_mut();
    fonts.load_system_fonts();
    // The pictures ask for `Times, serif`; fontdb maps the generic names to fonts a desktop
    // has (Times New Roman, Arial), so they go to one this machine has.
    let has = |family: &str| {
        fonts
            .faces()
            .any(|face| face.families.iter().any(|(name, _)| name == family))
    };
    let family = ["DejaVu Serif", "DejaVu Sans", "Liberation Serif", "Noto Serif", "Noto Sans"]
        .into_iter()
        .find(|f| has(f))
        .map(str::to_string)
        .or_else(|| {
            fonts
                .faces()
                .find_map(|face| face.families.first().map(|(name, _)| name.clone()))
        })
        .ok_or("no fonts on this machine, so the PNG would have no text: install one (Debian: fonts-dejavu-core), or draw SVG")?;
    fonts.set_serif_family(family.clone());
    fonts.set_sans_serif_family(family);
    let tree = resvg::usvg::Tree::from_str(svg, &options)
        .map_err(|e| format!("the picture's SVG cannot be read for PNG: {e}"))?;
    // A canvas of thousands of components is a very large picture: it is scaled down to
    // `MAX_PIXELS` rather than given gigabytes of pixels.
    let size = tree.size();
    let pixels = f64::from(size.width()) * f64::from(size.height());
    let scale = (MAX_PIXELS / pixels.max(1.0)).sqrt().min(1.0) as f32;
    let (width, height) = (
        (size.width() * scale).ceil().max(1.0) as u32,
        (size.height() * scale).ceil().max(1.0) as u32,
    );
    let mut pixmap = resvg::tiny_skia::Pixmap::new(width, height)
        .ok_or_else(|| format!("a {width}×{height} picture cannot be drawn"))?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| format!("the PNG cannot be written: {e}"))
}

fn usage(message: String) -> ExitCode {
    errln!("error: {message}");
    ExitCode::from(super::EXIT_USAGE)
}
