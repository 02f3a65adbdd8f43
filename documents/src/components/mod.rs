//! DocGenerator and ExcelProcessor as canvas components, through the engine's seam for
//! components implemented outside it (`canvasc_engine::external`). The host registers
//! them (feature `components` of this crate, `documents` of the host).

mod doc_generator;
mod excel_processor;
mod params;

pub use doc_generator::DocGenerator;
pub use excel_processor::ExcelProcessor;

use crate::store::FileStore;
use crate::Generator;
use canvasc_engine::external::Externals;
use canvasc_frontend::catalog::Kind;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// What both components share: the document generator (fonts, image directory), the file
/// store, the bucket files go to outside a server (inside one, the run's tenant), what one
/// ExcelProcessor call may read, and the slots for their heavy work.
#[derive(Clone)]
pub struct DocumentServices {
    pub generator: Arc<Generator>,
    pub store: Arc<dyn FileStore>,
    pub bucket: String,
    pub sheet_budget: crate::excel::SheetBudget,
    /// Calls that lay out a document or read a spreadsheet at once, process-wide
    /// ([`work_slots`]).
    pub work: Arc<Semaphore>,
}

/// Slots for half the cores (at least one). A call at the edge of its budget holds a hundred
/// megabytes or more while it decodes and until its outputs are set; the budgets bound one
/// call, and the slots bound how many of them a burst of runs holds at once. The work is CPU
/// bound, so runs wait for a slot instead of for the same cores.
pub fn work_slots() -> Arc<Semaphore> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    Arc::new(Semaphore::new(cores.div_ceil(2)))
}

/// The bucket of the run's files: its tenant's (RAGFlow's `canvas.get_tenant_id()`), so one
/// tenant's files are never another's; the configured one when the run has no tenant.
fn bucket_of<'a>(
    cx: &'a canvasc_engine::external::ToolCx<'a>,
    services: &'a DocumentServices,
) -> &'a str {
    cx.tenant_id().unwrap_or(services.bucket.as_str())
}

/// Registers DocGenerator and ExcelProcessor.
pub fn register(registry: &mut Externals, services: &DocumentServices) {
    registry.register(
        Kind::DocGenerator,
        Arc::new(DocGenerator::new(services.clone())),
    );
    registry.register(
        Kind::ExcelProcessor,
        Arc::new(ExcelProcessor::new(services.clone())),
    );
}
