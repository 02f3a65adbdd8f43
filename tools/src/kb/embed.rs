//! Vectors for the local knowledge base from an OpenAI-compatible embedding endpoint
//! (`POST <base_url>/embeddings`), configured in `canvasc.toml`:
//!
//! ```toml
//! [embedding]
//! base_url = "http://127.0.0.1:8000/v1"
//! model = "bge-m3"
//! api_key = "…"          # optional
//! ```
//!
//! or `CANVASC_EMBEDDING_BASE_URL`, `CANVASC_EMBEDDING_MODEL`, `CANVASC_EMBEDDING_API_KEY`.
//! A dataset records the model it was embedded with; a query is embedded with the same one.

use crate::common::send;
use canvasc_value::Json;
use std::time::Duration;

/// Texts per request.
const BATCH: usize = 32;
const TIMEOUT: Duration = Duration::from_secs(120);

/// The `[embedding]` endpoint (`crate::config`).
pub type EmbeddingConfig = crate::config::EmbeddingSettings;

/// An embedding endpoint with the HTTP client to reach it.
#[derive(Clone)]
pub struct Embedder {
    config: EmbeddingConfig,
    http: reqwest::Client,
}

impl Embedder {
    pub fn new(config: EmbeddingConfig, http: reqwest::Client) -> Self {
        Embedder { config, http }
    }

    /// The model name recorded with a dataset (`embd_id`).
    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// One vector per text, in order.
    pub async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        let url = format!("{}/embeddings", self.config.base_url.trim_end_matches('/'));
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            let body = serde_json::json!({"model": self.config.model, "input": batch});
            let mut req = self
                .http
                .post(&url)
                .header("Content-Type", "application/json")
                .body(serde_json::to_vec(&body).map_err(|e| e.to_string())?);
            if !self.config.api_key.is_empty() {
                req = req.header(
                    "Authorization",
                    format!("Bearer {}", self.config.api_key.expose()),
                );
            }
            let (_, text) = send(req, TIMEOUT, &url)
                .await
                .map_err(|e| format!("embedding endpoint: {e}"))?;
            let parsed: Json = serde_json::from_str(&text)
                .map_err(|e| format!("embedding endpoint {url}: not JSON: {e}"))?;
            let Some(Json::Array(data)) = parsed.get("data") else {
                return Err(format!(
                    "embedding endpoint {url}: no `data` list in the answer"
                ));
            };
            // OpenAI's answer carries each vector's `index`; order by it.
            let mut rows: Vec<(usize, Vec<f32>)> = Vec::with_capacity(data.len());
            for (i, item) in data.iter().enumerate() {
                let index = item
                    .get("index")
                    .and_then(Json::as_u64)
                    .and_then(|n| usize::try_from(n).ok())
                    .unwrap_or(i);
                let Some(Json::Array(values)) = item.get("embedding") else {
                    return Err(format!(
                        "embedding endpoint {url}: an item has no `embedding`"
                    ));
                };
                let vector: Vec<f32> = values
                    .iter()
                    .map(|v| v.as_f64().map(|f| f as f32))
                    .collect::<Option<_>>()
                    .ok_or_else(|| {
                        format!("embedding endpoint {url}: a vector holds a non-number")
                    })?;
                rows.push((index, vector));
            }
            rows.sort_by_key(|(i, _)| *i);
            if rows.len() != batch.len() {
                return Err(format!(
                    "embedding endpoint {url}: {} vectors for {} texts",
                    rows.len(),
                    batch.len()
                ));
            }
            out.extend(rows.into_iter().map(|(_, v)| v));
        }
        if let Some(first) = out.first() {
            let dim = first.len();
            if dim == 0 || out.iter().any(|v| v.len() != dim) {
                return Err(format!(
                    "embedding endpoint {url}: vectors of different sizes"
                ));
            }
        }
        Ok(out)
    }
}

/// Cosine similarity (0 for a zero vector).
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let (mut dot, mut na, mut nb) = (0f64, 0f64, 0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}
