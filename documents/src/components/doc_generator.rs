//! DocGenerator (RAGFlow's `agent/component/docs_generator.py`; components.md §20): the
//! content with its references resolved and reasoning removed, written in the asked format,
//! stored under a new id, and described by the `download` record a downstream Message turns
//! into `message_end.downloads`.

use super::params::{flag, text};
use super::DocumentServices;
use crate::generate::{download_info, download_json, OutputFormat};
use crate::options::{timestamp_text, DocOptions};
use crate::reasoning::strip_thinking;
use canvasc_engine::components::message::stringify;
use canvasc_engine::external::{External, ToolCx};
use canvasc_engine::interpolate::{consume, Template};
use canvasc_engine::RunError;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;

/// The DocGenerator component.
pub struct DocGenerator {
    services: DocumentServices,
}

impl DocGenerator {
    pub fn new(services: DocumentServices) -> Self {
        DocGenerator { services }
    }

    /// `_resolve_content`: every reference (case-sensitive grammar) replaced by its value as
    /// Message's stringifier writes it (`""` for None, a stream's text), a failed resolution
    /// by `[ERROR: <message>]`; then `<think>` reasoning removed.
    async fn content(&self, cx: &ToolCx<'_>, args: &Map<String, Json>) -> String {
        let mut content = text(cx.params(), "content");
        if content.is_empty() {
            content = args.get("content").map(py::str_of).unwrap_or_default();
        }
        let template = Template::exact_case(content);
        let source = template.text();
        let mut out = String::with_capacity(source.len());
        let mut last = 0;
        for (span, i) in template.matches() {
            out.push_str(&source[last..span.start]);
            let value = match cx.value(&template.exprs()[*i]) {
                Ok(v) => consume(v).await,
                Err(e) => Err(e),
            };
            match value {
                Ok(Json::Null) => {}
                Ok(v) => out.push_str(&stringify(&v, None, None)),
                Err(e) => out.push_str(&format!("[ERROR: {e}]")),
            }
            last = span.end;
        }
        out.push_str(&source[last..]);
        strip_thinking(&out)
    }

    fn options(params: &Map<String, Json>, now: chrono::NaiveDateTime) -> DocOptions {
        // The checker has made sure the size is a number of at least 12; `int()` truncates.
        let font_size = params
            .get("font_size")
            .and_then(Json::as_f64)
            .map_or(12, |f| f.clamp(12.0, 400.0) as u32);
        DocOptions {
            header_text: text(params, "header_text"),
            footer_text: text(params, "footer_text"),
            watermark_text: text(params, "watermark_text"),
            add_page_numbers: flag(params, "add_page_numbers", true),
            add_timestamp: flag(params, "add_timestamp", true),
            font_size,
            timestamp_text: timestamp_text(now),
        }
    }
}

impl External for DocGenerator {
    fn invoke<'a>(
        &'a self,
        cx: &'a ToolCx<'a>,
        args: Map<String, Json>,
    ) -> BoxFuture<'a, Result<Json, RunError>> {
        Box::pin(async move {
            let content = self.content(cx, &args).await;
            let params = cx.params();
            let format_name = match text(params, "output_format") {
                f if f.is_empty() => "pdf".to_string(),
                f => f,
            };
            let Some(format) = OutputFormat::parse(&format_name) else {
                return Err(fail(
                    cx,
                    format!("Unsupported output format: {format_name}"),
                ));
            };
            let now = chrono::Local::now().naive_local();
            let options = Self::options(params, now);
            let filename = text(params, "filename");
            let generator = self.services.generator.clone();
            // Held until the outputs are set (a dropped call gives it back).
            let _slot = self.services.work.acquire().await;
            // Layout and compression are CPU work: off the async workers.
            let generated = tokio::task::spawn_blocking(move || {
                generator.generate(&content, format, &filename, &options, now)
            })
            .await
            .map_err(|e| fail(cx, format!("document writer stopped: {e}")))?
            .map_err(|e| fail(cx, e))?;
            let doc_id = uuid::Uuid::new_v4().simple().to_string();
            self.services
                .store
                .put(
                    super::bucket_of(cx, &self.services),
                    &doc_id,
                    generated.bytes.clone(),
                )
                .await
                .map_err(|e| fail(cx, e.to_string()))?;
            // RAGFlow's PDFs carry every CJK character (Noto Sans CJK); a machine without
            // such a font must say so, not hand out a PDF of question marks in silence.
            if let Some(warning) = crate::Generator::missing_glyphs_warning(&generated) {
                tracing::warn!(component = %cx.name(), "{warning}");
                cx.set_output("_WARNING", Json::String(warning));
            }
            let include = flag(params, "include_download_info_in_content", false);
            let info = download_info(&doc_id, &generated, include);
            cx.set_output("doc_id", Json::String(doc_id));
            cx.set_output("filename", Json::String(generated.filename.clone()));
            cx.set_output("mime_type", Json::String(generated.mime_type.to_string()));
            cx.set_output("size", Json::from(generated.bytes.len()));
            cx.set_output("download", Json::String(download_json(&info)));
            Ok(info)
        })
    }

    fn thoughts(&self, params: &Map<String, Json>, _input: &Map<String, Json>) -> Option<String> {
        let format = text(params, "output_format").to_uppercase();
        Some(format!(
            "Generating {format} document with markdown conversion..."
        ))
    }
}

/// RAGFlow sets `_ERROR` to `Document generation failed: <e>` and re-raises `e`, whose text the
/// invoke wrapper then writes over it: the error is the writer's own message.
fn fail(cx: &ToolCx<'_>, message: String) -> RunError {
    cx.set_output(
        "_ERROR",
        Json::String(format!("Document generation failed: {message}")),
    );
    RunError::msg(message)
}
