//! ExcelProcessor (RAGFlow's `agent/component/excel_processor.py`; components.md §21): the
//! input files and the data reference resolved here, the operations in `crate::excel`.

use super::params::text;
use super::DocumentServices;
use crate::excel::{self, InputFile, Outputs};
use base64::Engine;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::interpolate::consume;
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;

/// The ExcelProcessor component.
pub struct ExcelProcessor {
    services: DocumentServices,
}

impl ExcelProcessor {
    pub fn new(services: DocumentServices) -> Self {
        ExcelProcessor { services }
    }

    /// `get_variable_value(ref)` (a stream is read to its text), recorded as the input value
    /// `str(value)[:limit]` (`""` for a falsy value).
    async fn value(
        &self,
        cx: &ToolCx<'_>,
        reference: &str,
        limit: usize,
    ) -> Result<Json, RunError> {
        let value = consume(cx.value(reference)?).await?;
        let shown = if py::truthy(&value) {
            py::str_of(&value).chars().take(limit).collect()
        } else {
            String::new()
        };
        cx.set_input_value(reference, Json::String(shown));
        Ok(value)
    }

    /// `_get_file_content`: a file record (`id`/`file_id`, `name`/`filename`) from the file
    /// store, the first of a list, or a `data:` URL; anything else is no file. A run with a
    /// tenant reads only its tenant's files, whatever bucket a record names.
    async fn file(
        &self,
        value: &Json,
        tenant: Option<&str>,
    ) -> Result<Option<InputFile>, RunError> {
        match value {
            Json::Object(record) => {
                let id = record
                    .get("id")
                    .or_else(|| record.get("file_id"))
                    .filter(|v| py::truthy(v));
                let Some(id) = id.map(py::str_of) else {
                    return Ok(None);
                };
                let bucket = match tenant {
                    Some(tenant) => tenant.to_string(),
                    None => record
                        .get("created_by")
                        .filter(|v| py::truthy(v))
                        .map(py::str_of)
                        .unwrap_or_else(|| self.services.bucket.clone()),
                };
                let name = record
                    .get("name")
                    .filter(|v| py::truthy(v))
                    .or_else(|| record.get("filename"))
                    .map(py::str_of)
                    .unwrap_or_else(|| "unknown.xlsx".to_string());
                let bytes = self
                    .services
                    .store
                    .get(&bucket, &id)
                    .await
                    .map_err(|e| RunError::msg(format!("ExcelProcessor: file {id}: {e}")))?;
                Ok(bytes.map(|bytes| InputFile { name, bytes }))
            }
            Json::Array(items) => match items.first() {
                Some(first @ Json::Object(_)) => Box::pin(self.file(first, tenant)).await,
                _ => Ok(None),
            },
            Json::String(s) if s.starts_with("data:") => {
                let encoded = s.split_once(',').map_or("", |(_, e)| e);
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(encoded.trim())
                    .map_err(|e| RunError::msg(format!("ExcelProcessor: invalid data URL: {e}")))?;
                Ok(Some(InputFile {
                    name: "uploaded.xlsx".to_string(),
                    bytes,
                }))
            }
            _ => Ok(None),
        }
    }

    async fn files(&self, cx: &ToolCx<'_>) -> Result<Option<Vec<InputFile>>, RunError> {
        let refs: Vec<String> = match cx.param("input_files") {
            Some(Json::Array(items)) => items.iter().map(py::str_of).collect(),
            _ => Vec::new(),
        };
        let mut files = Vec::new();
        for reference in refs {
            if cx.check_canceled() {
                return Ok(None);
            }
            let value = self.value(cx, &reference, 200).await?;
            if value.is_null() {
                continue;
            }
            if let Some(file) = self.file(&value, cx.tenant_id()).await? {
                files.push(file);
            }
        }
        Ok(Some(files))
    }

    /// The `transform_data` reference's value: `None` without a reference.
    async fn data(&self, cx: &ToolCx<'_>) -> Result<Option<Json>, RunError> {
        let reference = text(cx.params(), "transform_data");
        if reference.is_empty() {
            return Ok(None);
        }
        Ok(Some(self.value(cx, &reference, 300).await?))
    }

    async fn run(&self, cx: &ToolCx<'_>) -> Result<(), RunError> {
        if cx.check_canceled() {
            return Ok(());
        }
        let params = cx.params();
        let selection = match text(params, "sheet_selection") {
            s if s.is_empty() => "all".to_string(),
            s => s,
        };
        let operation = text(params, "operation").to_lowercase();
        let budget = self.services.sheet_budget;
        let outputs = match operation.as_str() {
            "read" => {
                let Some(files) = self.files(cx).await? else {
                    return Ok(());
                };
                off_the_workers(move || {
                    excel::read(&files, &selection, budget).map_err(|e| e.to_string())
                })
                .await?
            }
            "merge" => {
                let Some(files) = self.files(cx).await? else {
                    return Ok(());
                };
                let (strategy, join_on) = (text(params, "merge_strategy"), text(params, "join_on"));
                off_the_workers(move || {
                    excel::merge(&files, &selection, &strategy, &join_on, budget)
                })
                .await?
            }
            "transform" => excel::transform(self.data(cx).await?.as_ref()),
            "output" => {
                let data = self.data(cx).await?;
                let format = text(params, "output_format");
                excel::output(data.as_ref(), &format, &text(params, "output_filename"))
            }
            other => Outputs {
                summary: Some(format!("Unknown operation: {other}")),
                ..Outputs::default()
            },
        };
        self.publish(cx, outputs).await
    }

    async fn publish(&self, cx: &ToolCx<'_>, outputs: Outputs) -> Result<(), RunError> {
        let Outputs {
            data,
            summary,
            markdown,
            file,
        } = outputs;
        let mut summary = summary;
        if let Some((file_name, bytes)) = file {
            let doc_id = uuid::Uuid::new_v4().simple().to_string();
            match self
                .services
                .store
                .put(super::bucket_of(cx, &self.services), &doc_id, bytes)
                .await
            {
                Ok(()) => {
                    let format = text(cx.params(), "output_format");
                    let mut attachment = Map::new();
                    attachment.insert("doc_id".into(), Json::String(doc_id));
                    attachment.insert("format".into(), Json::String(format));
                    attachment.insert("file_name".into(), Json::String(file_name));
                    cx.set_output("attachment", Json::Object(attachment));
                }
                // RAGFlow reports a failed write in the summary, without an error.
                Err(e) => {
                    cx.set_output(
                        "summary",
                        Json::String(format!("Error generating output: {e}")),
                    );
                    return Ok(());
                }
            }
        }
        if let Some(s) = summary.take() {
            cx.set_output("summary", Json::String(s));
        }
        if let Some(d) = data {
            cx.set_output("data", d);
        }
        if let Some(m) = markdown {
            cx.set_output("markdown", Json::String(m));
        }
        Ok(())
    }
}

/// Runs a spreadsheet operation on the blocking pool: reading a full budget of cells is a
/// second of CPU, which on an async worker would stall every other run scheduled there.
async fn off_the_workers(
    work: impl FnOnce() -> Result<Outputs, String> + Send + 'static,
) -> Result<Outputs, RunError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| {
            RunError::msg(format!(
                "ExcelProcessor: the spreadsheet reader stopped: {e}"
            ))
        })?
        .map_err(RunError::msg)
}

impl External for ExcelProcessor {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        _args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            // Held until the outputs are set (a dropped call gives it back).
            let _slot = self.services.work.acquire().await;
            self.run(cx).await?;
            Ok(Json::Null)
        })
    }

    fn thoughts(&self, params: &Map<String, Json>, _input: &Map<String, Json>) -> Option<String> {
        Some(
            match text(params, "operation").as_str() {
                "read" => "Reading Excel files...",
                "merge" => "Merging Excel data...",
                "transform" => "Transforming data...",
                "output" => "Generating Excel output...",
                _ => "Processing Excel...",
            }
            .to_string(),
        )
    }
}
