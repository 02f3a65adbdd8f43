//! DocGenerator and ExcelProcessor as canvas components, through the engine's seam for
//! components implemented outside it (`canvasc_runtime::exec::external`). The host registers
//! them (feature `components` of this crate, `documents` of the host).

mod doc_generator;
mod excel_processor;
mod params;

pub use doc_generator::DocGenerator;
pub use excel_processor::ExcelProcessor;

use crate::store::FileStore;
use crate::Generator;
use canvasc_runtime::exec::external::Registry;
use canvasc_runtime::frontend::catalog::Kind;
use std::sync::Arc;

/// What both components share: the document generator (fonts, image directory), the file
/// store, and the bucket files go to (RAGFlow's tenant id; one bucket per process here).
#[derive(Clone)]
pub struct DocumentServices {
    pub generator: Arc<Generator>,
    pub store: Arc<dyn FileStore>,
    pub bucket: String,
}

/// Registers DocGenerator and ExcelProcessor.
pub fn register(registry: &mut Registry, services: &DocumentServices) {
    registry.register(
        Kind::DocGenerator,
        Arc::new(DocGenerator::new(services.clone())),
    );
    registry.register(
        Kind::ExcelProcessor,
        Arc::new(ExcelProcessor::new(services.clone())),
    );
}
