//! DocGenerator's documents, checked as a reader would: every case of `cases/` in every
//! format.
//!
//! * PDF: rendered to PNG with pdftoppm (a page must show ink), text extracted with pdftotext
//!   and compared with `golden/<case>.pdf.txt`, page count from pdfinfo.
//! * DOCX: parts compared after unzip with `golden/<case>.docx/<part>`, and the file opened by
//!   LibreOffice headless and converted to PDF (a package LibreOffice must repair fails to
//!   convert), whose text must hold the document's words.
//! * HTML, Markdown, TXT: compared with what pandoc itself writes for the same source
//!   (`golden/<case>.pandoc.<ext>`, made by `golden/pandoc.sh`): byte for byte where our writer
//!   claims pandoc's layout (`EXACT`), word for word where pandoc's layout differs (multiline
//!   tables, syntax highlighting, figures).
//!
//! The external tools are required when `CANVASC_REQUIRE_SHARED=1` (CI): a missing tool then
//! fails the case with its name, instead of skipping. `UPDATE_GOLDEN=1` rewrites our own
//! snapshots (PDF text, DOCX parts), never pandoc's.

use canvasc_documents::fonts::{FontConfig, FontSet};
use canvasc_documents::markdown::ImageSource;
use canvasc_documents::{DocOptions, Generator, OutputFormat};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Cases whose text outputs match pandoc byte for byte, per format.
const EXACT: &[(&str, &[&str])] = &[
    ("minimal", &["txt", "md", "html"]),
    ("headings", &["txt", "md", "html"]),
    ("nested_lists", &["txt", "md", "html"]),
    ("full", &["txt"]),
    ("cjk", &["txt", "md", "html"]),
    ("long_text", &["txt", "md", "html"]),
    ("sanitise_filename", &["txt", "md", "html"]),
    ("empty", &["txt", "md", "html"]),
];

fn here() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests")
}

fn load_cases() -> (String, Vec<(String, Value)>) {
    let text = std::fs::read_to_string(here().join("cases/cases.json")).unwrap_or_default();
    let json: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let ts = json["timestamp"].as_str().unwrap_or_default().to_string();
    let cases = json["cases"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    (ts, cases)
}

fn options(config: &Value, timestamp: &str) -> DocOptions {
    let text = |k: &str| config[k].as_str().unwrap_or_default().to_string();
    DocOptions {
        header_text: text("header_text"),
        footer_text: text("footer_text"),
        watermark_text: text("watermark_text"),
        add_page_numbers: config["add_page_numbers"].as_bool().unwrap_or(true),
        add_timestamp: config["add_timestamp"].as_bool().unwrap_or(true),
        font_size: config["font_size"].as_u64().unwrap_or(12) as u32,
        timestamp_text: timestamp.to_string(),
    }
}

fn generator() -> Generator {
    Generator::new(
        FontSet::discover(&FontConfig::default()),
        ImageSource::DataUrlsOnly,
    )
}

fn now() -> chrono::NaiveDateTime {
    chrono::NaiveDate::from_ymd_opt(2026, 1, 2)
        .and_then(|d| d.and_hms_opt(3, 4, 5))
        .unwrap_or_default()
}

fn out_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canvasc-documents-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// An external tool, or why the case cannot check with it (an error under CI, a skip note
/// elsewhere).
fn tool(name: &str) -> Result<Option<&'static str>, String> {
    let found = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {name}"))
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if found {
        return Ok(Some(Box::leak(name.to_string().into_boxed_str())));
    }
    if std::env::var_os("CANVASC_REQUIRE_SHARED").is_some() {
        return Err(format!(
            "{name} is required (CANVASC_REQUIRE_SHARED is set) but not installed: apt-get install poppler-utils libreoffice-writer-nogui"
        ));
    }
    eprintln!("note: {name} is not installed; this check is not run");
    Ok(None)
}

fn run(cmd: &mut Command) -> Result<std::process::Output, String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(out)
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || "|-+:*_#`>[]()".contains(c))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Compares `actual` with the golden file, or writes it under UPDATE_GOLDEN.
fn snapshot(path: &Path, actual: &[u8]) -> Result<(), String> {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        return std::fs::write(path, actual).map_err(|e| e.to_string());
    }
    let expected = std::fs::read(path)
        .map_err(|e| format!("{}: {e} (UPDATE_GOLDEN=1 writes it)", path.display()))?;
    if expected != actual {
        return Err(format!(
            "{} differs:\n--- expected\n{}\n--- actual\n{}",
            path.display(),
            String::from_utf8_lossy(&expected),
            String::from_utf8_lossy(actual)
        ));
    }
    Ok(())
}

fn check_text(name: &str, format: OutputFormat, bytes: &[u8]) -> Result<(), String> {
    let ext = format.extension();
    let golden = here().join(format!("golden/{name}.pandoc.{ext}"));
    let expected =
        std::fs::read_to_string(&golden).map_err(|e| format!("{}: {e}", golden.display()))?;
    let actual = String::from_utf8_lossy(bytes);
    let exact = EXACT.iter().any(|(n, fs)| *n == name && fs.contains(&ext));
    if exact {
        if expected != actual {
            return Err(format!(
                "{name}.{ext} differs from pandoc's:\n--- pandoc\n{expected}\n--- ours\n{actual}"
            ));
        }
    } else {
        // Tags and markup aside, the words in order.
        let strip = |s: &str| {
            let no_tags = regex_lite_strip_tags(s);
            words(&no_tags)
        };
        // Multiline tables wrap cells, so words are compared as a multiset.
        let (mut e, mut a) = (strip(&expected), strip(&actual));
        e.sort();
        a.sort();
        if e != a {
            return Err(format!(
                "{name}.{ext}: words differ from pandoc's:\n--- pandoc\n{e:?}\n--- ours\n{a:?}"
            ));
        }
    }
    Ok(())
}

fn regex_lite_strip_tags(s: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for ch in s.chars() {
        match ch {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
}

fn check_pdf(name: &str, bytes: &[u8], dir: &Path) -> Result<(), String> {
    let path = dir.join(format!("{name}.pdf"));
    std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
    let Some(pdftotext) = tool("pdftotext")? else {
        return Ok(());
    };
    let out = run(Command::new(pdftotext).arg("-layout").arg(&path).arg("-"))?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let normalised: String = text
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n");
    snapshot(
        &here().join(format!("golden/{name}.pdf.txt")),
        normalised.as_bytes(),
    )?;
    // Arabic must be drawn joined: a base letter (U+0621–U+064A) in the page text was drawn in
    // its isolated form, which a reader cannot read as words.
    if let Some(bare) = text.chars().find(|c| ('\u{0621}'..='\u{064A}').contains(c)) {
        return Err(format!(
            "{name}.pdf draws the Arabic letter {bare:?} unjoined (not in a presentation form)"
        ));
    }
    if let Some(pdftoppm) = tool("pdftoppm")? {
        let prefix = dir.join(format!("{name}-page"));
        run(Command::new(pdftoppm)
            .args(["-png", "-r", "40", "-f", "1", "-l", "1"])
            .arg(&path)
            .arg(&prefix))?;
        let png = std::fs::read_dir(dir)
            .map_err(|e| e.to_string())?
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .is_some_and(|f| f.to_string_lossy().starts_with(&format!("{name}-page")))
            })
            .ok_or("pdftoppm wrote no page")?;
        let size = std::fs::metadata(&png).map_err(|e| e.to_string())?.len();
        // A blank Letter page at 40 dpi compresses to well under 1 KB.
        if size < 1500 {
            return Err(format!(
                "page 1 of {name}.pdf renders blank ({size} bytes of PNG)"
            ));
        }
    }
    if let Some(pdfinfo) = tool("pdfinfo")? {
        let out = run(Command::new(pdfinfo).arg(&path))?;
        let info = String::from_utf8_lossy(&out.stdout);
        let pages: u32 = info
            .lines()
            .find_map(|l| l.strip_prefix("Pages:"))
            .and_then(|p| p.trim().parse().ok())
            .ok_or("pdfinfo gave no page count")?;
        let want = match name {
            "long_text" => 30..=200,
            "page_breaks" => 3..=3,
            _ => 1..=3,
        };
        if !want.contains(&pages) {
            return Err(format!("{name}.pdf has {pages} pages, expected {want:?}"));
        }
    }
    Ok(())
}

fn check_docx(name: &str, bytes: &[u8], dir: &Path) -> Result<(), String> {
    // Parts after unzip.
    let mut archive =
        zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).map_err(|e| e.to_string())?;
        let part = file.name().map_err(|e| e.to_string())?.to_string();
        if part.starts_with("word/media/") {
            continue;
        }
        let mut content = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut content).map_err(|e| e.to_string())?;
        // One line per element, so a difference shows where it is.
        let pretty = String::from_utf8_lossy(&content).replace("><", ">\n<");
        snapshot(
            &here().join(format!("golden/{name}.docx/{part}")),
            pretty.as_bytes(),
        )?;
    }
    let path = dir.join(format!("{name}.docx"));
    std::fs::write(&path, bytes).map_err(|e| e.to_string())
}

/// LibreOffice opens every DOCX (one process for all formats) and converts it to PDF (what a
/// reader sees) and to text (the words it read, whatever the column widths did to the layout).
fn libreoffice_converts(names: &[String], dir: &Path) -> Result<(), String> {
    let Some(soffice) = tool("soffice")? else {
        return Ok(());
    };
    let profile = dir.join("lo-profile");
    for (target, out) in [("pdf", "lo-pdf"), ("txt:Text (encoded):UTF8", "lo-txt")] {
        let mut cmd = Command::new(soffice);
        cmd.arg(format!(
            "-env:UserInstallation=file://{}",
            profile.display()
        ))
        .args([
            "--headless",
            "--norestore",
            "--convert-to",
            target,
            "--outdir",
        ])
        .arg(dir.join(out));
        for name in names {
            cmd.arg(dir.join(format!("{name}.docx")));
        }
        run(&mut cmd)?;
    }
    for name in names {
        let pdf = dir.join(format!("lo-pdf/{name}.pdf"));
        let size = std::fs::metadata(&pdf).map(|m| m.len()).unwrap_or(0);
        if size == 0 {
            return Err(format!("LibreOffice did not convert {name}.docx to PDF"));
        }
        let text = std::fs::read_to_string(dir.join(format!("lo-txt/{name}.txt")))
            .map_err(|e| format!("LibreOffice did not convert {name}.docx to text: {e}"))?;
        let source = without_link_targets(
            &std::fs::read_to_string(here().join(format!("cases/{name}.md"))).unwrap_or_default(),
        );
        // Every plain word of the source (link targets aside) must be in what LibreOffice read.
        let wanted = words(&source)
            .into_iter()
            .filter(|w| w.chars().all(|c| c.is_alphabetic()) && w.chars().count() > 1);
        for w in wanted {
            if !text.contains(&w) {
                return Err(format!(
                    "LibreOffice's reading of {name}.docx lacks {w:?}:\n{text}"
                ));
            }
        }
    }
    Ok(())
}

/// Markdown without what a reader does not see: the `(target)` of links and images, code
/// fences' info strings, raw TeX lines.
fn without_link_targets(source: &str) -> String {
    let source: String = source
        .lines()
        .filter(|l| !l.starts_with("```") && !l.starts_with('\\'))
        .collect::<Vec<_>>()
        .join("\n");
    // Images whole (their alt text is a description, not text on the page).
    let mut source = source;
    while let Some(at) = source.find("![") {
        let end = source[at..].find(')').map_or(source.len(), |e| at + e + 1);
        source.replace_range(at..end, "");
    }
    let mut out = String::new();
    let mut rest = source.as_str();
    while let Some(at) = rest.find("](") {
        out.push_str(&rest[..at]);
        rest = rest[at..].find(')').map_or("", |end| &rest[at + end + 1..]);
    }
    out.push_str(rest);
    out
}

fn main() {
    let args = Arguments::from_args();
    let (timestamp, cases) = load_cases();
    assert!(
        cases.len() >= 12,
        "issue 29 asks for at least 12 document cases"
    );
    let dir = out_dir();
    let mut trials = Vec::new();
    let mut docx_names = Vec::new();
    for (name, config) in cases {
        let content =
            std::fs::read_to_string(here().join(format!("cases/{name}.md"))).unwrap_or_default();
        for format in OutputFormat::ALL {
            let (name, config, content, dir, timestamp) = (
                name.clone(),
                config.clone(),
                content.clone(),
                dir.clone(),
                timestamp.clone(),
            );
            if format == OutputFormat::Docx && !content.is_empty() {
                docx_names.push(name.clone());
            }
            trials.push(Trial::test(
                format!("{name}::{}", format.name()),
                move || {
                    let options = options(&config, &timestamp);
                    let filename = config["filename"].as_str().unwrap_or_default();
                    let result = generator().generate(&content, format, filename, &options, now());
                    if content.is_empty() {
                        // RAGFlow: pandoc writes nothing for the text formats (and xelatex no
                        // page), so the component fails; pandoc's DOCX of nothing is a file.
                        return match (format, result) {
                            (OutputFormat::Docx, Ok(_)) => Ok(()),
                            (OutputFormat::Pdf, Err(e))
                                if e == "PDF generation failed: Error producing PDF." =>
                            {
                                Ok(())
                            }
                            (_, Err(e)) if e == "Document file is empty" => Ok(()),
                            (_, other) => {
                                Err(Failed::from(format!("empty content gave {other:?}")))
                            }
                        };
                    }
                    let generated = result.map_err(Failed::from)?;
                    let expected_name = match name.as_str() {
                        "full" => format!("Quarterly report.{}", format.extension()),
                        "sanitise_filename" => {
                            format!("reports Q3 final v2.{}", format.extension())
                        }
                        _ => String::new(),
                    };
                    if !expected_name.is_empty() && generated.filename != expected_name {
                        return Err(format!(
                            "file name {:?}, expected {expected_name:?}",
                            generated.filename
                        )
                        .into());
                    }
                    match format {
                        OutputFormat::Pdf => check_pdf(&name, &generated.bytes, &dir),
                        OutputFormat::Docx => check_docx(&name, &generated.bytes, &dir),
                        _ => check_text(&name, format, &generated.bytes),
                    }
                    .map_err(Failed::from)
                },
            ));
        }
    }
    let lo_dir = dir.clone();
    trials.push(Trial::test("libreoffice_opens_every_docx", move || {
        // The DOCX cases write their files first; this runs after them in the same process.
        for name in &docx_names {
            let path = lo_dir.join(format!("{name}.docx"));
            if !path.exists() {
                let (ts, cases) = load_cases();
                let config = cases
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, c)| c.clone())
                    .unwrap_or_default();
                let content = std::fs::read_to_string(here().join(format!("cases/{name}.md")))
                    .unwrap_or_default();
                let generated = generator()
                    .generate(
                        &content,
                        OutputFormat::Docx,
                        "",
                        &options(&config, &ts),
                        now(),
                    )
                    .map_err(Failed::from)?;
                std::fs::write(&path, &generated.bytes).map_err(|e| Failed::from(e.to_string()))?;
            }
        }
        libreoffice_converts(&docx_names, &lo_dir).map_err(Failed::from)
    }));
    libtest_mimic::run(&args, trials).exit();
}
