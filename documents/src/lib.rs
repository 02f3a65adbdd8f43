//! canvasc-documents: the documents canvases make and read.
//!
//! * DocGenerator (RAGFlow's `agent/component/docs_generator.py`): markdown → [`model`] →
//!   PDF ([`pdf`], printpdf with embedded fonts), DOCX ([`docx`], OOXML over zip), and HTML,
//!   Markdown and plain text as RAGFlow's pandoc writes them ([`text`]); RAGFlow needs pandoc and
//!   xelatex for this, canvasc nothing outside its binary but the fonts ([`fonts`]).
//! * ExcelProcessor (`agent/component/excel_processor.py`): spreadsheets read with calamine, CSV
//!   with csv, written with rust_xlsxwriter, tables as pandas builds them ([`excel`]).
//! * The file store generated files go to ([`store`]): a local directory, or an S3-compatible
//!   bucket.
//!
//! This crate is an edge crate: the engine (`canvasc-runtime`) does not depend on it; the host
//! plugs its components in.

#[cfg(feature = "components")]
pub mod components;
pub mod docx;
pub mod excel;
pub mod filename;
pub mod fonts;
pub mod generate;
pub mod image_data;
pub mod markdown;
pub mod model;
pub mod options;
pub mod pdf;
pub mod reasoning;
pub mod store;
pub mod text;

pub use generate::{download_info, download_json, Generated, Generator, OutputFormat};
pub use options::DocOptions;
