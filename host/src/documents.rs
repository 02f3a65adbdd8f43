//! The machine-side settings of DocGenerator and ExcelProcessor, from the environment:
//!
//! * `CANVASC_FONTS_DIR`: a directory searched first for the fonts PDFs embed (DejaVu, a CJK
//!   fallback such as `DroidSansFallbackFull.ttf`); the system font directories follow.
//! * `CANVASC_DOC_IMAGES_DIR`: the one directory images named by path may be read from (unset:
//!   only `data:` URLs are embedded).
//! * `CANVASC_FILES_DIR`: where generated files are stored (default `canvasc-files` in the
//!   system's temporary directory), unless `CANVASC_S3_ENDPOINT` and `CANVASC_S3_BUCKET` name an
//!   S3-compatible bucket (`CANVASC_S3_REGION`, default `us-east-1`; `CANVASC_S3_PREFIX`;
//!   keys from `CANVASC_S3_ACCESS_KEY`/`CANVASC_S3_SECRET_KEY` or `AWS_ACCESS_KEY_ID`/
//!   `AWS_SECRET_ACCESS_KEY`).
//! * `CANVASC_FILES_BUCKET`: the bucket (RAGFlow's tenant id) files go under (default `canvasc`).
//! * `CANVASC_SHEET_MAX_CELLS`, `CANVASC_SHEET_MAX_ROWS`, `CANVASC_SHEET_MAX_BYTES`: what one
//!   ExcelProcessor call may read ([`SheetBudget`]'s defaults when unset).

use canvasc_documents::components::DocumentServices;
use canvasc_documents::excel::SheetBudget;
use canvasc_documents::fonts::FontConfig;
use canvasc_documents::markdown::ImageSource;
use canvasc_documents::store::{FileStore, LocalStore, S3Config, S3Store};
use canvasc_documents::Generator;
use canvasc_engine::config::EnvFn;
use std::path::PathBuf;
use std::sync::Arc;

/// The documents' services as the environment `var` configures them.
pub fn services(var: EnvFn<'_>) -> DocumentServices {
    let set = |name: &str| var(name).filter(|v| !v.is_empty());
    let fonts = FontConfig {
        dirs: set("CANVASC_FONTS_DIR")
            .map(PathBuf::from)
            .into_iter()
            .collect(),
        ..FontConfig::default()
    };
    let images = match set("CANVASC_DOC_IMAGES_DIR") {
        Some(dir) => ImageSource::Directory(PathBuf::from(dir)),
        None => ImageSource::DataUrlsOnly,
    };
    DocumentServices {
        generator: Arc::new(Generator::with_font_config(fonts, images)),
        store: file_store(var),
        bucket: set("CANVASC_FILES_BUCKET").unwrap_or_else(|| "canvasc".to_string()),
        sheet_budget: sheet_budget(var),
        work: canvasc_documents::components::work_slots(),
    }
}

/// What one ExcelProcessor call may read, as the environment `var` sets it. A setting that is
/// not a whole number is reported on stderr and the default kept: the services are assembled
/// where no error can be returned, and a typo must not lift the limit.
pub fn sheet_budget(var: EnvFn<'_>) -> SheetBudget {
    let default = SheetBudget::default();
    let limit = |name: &str, default: u64| match var(name).filter(|v| !v.trim().is_empty()) {
        None => default,
        Some(v) => v.trim().parse().unwrap_or_else(|_| {
            eprintln!("canvasc: {name}={v:?} is not a whole number; the default {default} applies");
            default
        }),
    };
    SheetBudget {
        cells: limit("CANVASC_SHEET_MAX_CELLS", default.cells),
        rows: limit("CANVASC_SHEET_MAX_ROWS", default.rows),
        bytes: limit("CANVASC_SHEET_MAX_BYTES", default.bytes),
    }
}

/// The file store the environment `var` names: an S3-compatible bucket, or a local directory.
pub fn file_store(var: EnvFn<'_>) -> Arc<dyn FileStore> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty());
    match (set("CANVASC_S3_ENDPOINT"), set("CANVASC_S3_BUCKET")) {
        (Some(endpoint), Some(bucket)) => Arc::new(S3Store::new(
            S3Config {
                endpoint,
                bucket,
                region: set("CANVASC_S3_REGION").unwrap_or_else(|| "us-east-1".to_string()),
                prefix: set("CANVASC_S3_PREFIX").unwrap_or_default(),
                access_key: set("CANVASC_S3_ACCESS_KEY")
                    .or_else(|| set("AWS_ACCESS_KEY_ID"))
                    .unwrap_or_default(),
                secret_key: set("CANVASC_S3_SECRET_KEY")
                    .or_else(|| set("AWS_SECRET_ACCESS_KEY"))
                    .unwrap_or_default(),
            },
            canvasc_engine::http::shared_client(),
        )),
        _ => Arc::new(LocalStore::new(
            set("CANVASC_FILES_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| std::env::temp_dir().join("canvasc-files")),
        )),
    }
}

/// The documents' file store as the Browser's ([`canvasc_tools::browser::files`]): its
/// downloads are stored, and its upload file ids read, where DocGenerator's files are.
#[cfg(feature = "browser")]
#[derive(Debug)]
pub struct BrowserStore(pub Arc<dyn FileStore>);

#[cfg(feature = "browser")]
impl canvasc_tools::browser::files::BrowserFiles for BrowserStore {
    fn put<'a>(
        &'a self,
        bucket: &'a str,
        name: &'a str,
        bytes: Vec<u8>,
    ) -> futures::future::BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            self.0
                .put(bucket, name, bytes)
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn get<'a>(
        &'a self,
        bucket: &'a str,
        name: &'a str,
    ) -> futures::future::BoxFuture<'a, Result<Option<Vec<u8>>, String>> {
        Box::pin(async move { self.0.get(bucket, name).await.map_err(|e| e.to_string()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sheet_budget_comes_from_the_environment_and_a_typo_keeps_the_default() {
        let env = |name: &str| match name {
            "CANVASC_SHEET_MAX_CELLS" => Some(" 2000000 ".to_string()),
            "CANVASC_SHEET_MAX_ROWS" => Some("lots".to_string()),
            _ => None,
        };
        let default = SheetBudget::default();
        assert_eq!(
            sheet_budget(&env),
            SheetBudget {
                cells: 2_000_000,
                rows: default.rows,
                bytes: default.bytes,
            }
        );
        assert_eq!(sheet_budget(&|_| None), default);
    }
}
