//! canvasc's local knowledge base: datasets of text, Markdown, HTML and PDF files that
//! `canvasc dataset add` chunks (RAGFlow's naive chunker, `chunk.rs`), indexes for full-text
//! search (tantivy, `index.rs`) and, when an embedding endpoint is configured, embeds
//! (`embed.rs`), so the Retrieval tool's search is hybrid as RAGFlow's is: each chunk scores
//! `(1 - w) * term similarity + w * vector similarity` with `w = vector_similarity_weight`.
//!
//! A dataset is a folder `<datasets dir>/<id>/` (`dataset.json`, `index/`, `chunks.jsonl`,
//! `vectors.f32`), built under a temporary name and renamed into place, so a dataset is either
//! whole or absent. Canvases name datasets by name or id, as they name RAGFlow's. The datasets
//! are the operator's (whoever runs `canvasc dataset`): every canvas this process runs may
//! search them.

pub mod chunk;
pub mod cjk;
pub mod embed;
pub mod index;
pub mod read;

use embed::Embedder;
use index::{Chunk, Loaded};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// RAGFlow's `filename_embd_weight` default: a chunk's vector is 0.1 × its document title's
/// plus 0.9 × its content's.
const TITLE_WEIGHT: f32 = 0.1;

/// `dataset.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DatasetMeta {
    pub id: String,
    pub name: String,
    /// The embedding model of its vectors; `""` when it has none (full-text only).
    pub embd_id: String,
    /// The vectors' size (0 without vectors).
    pub dim: usize,
    pub created_at: u64,
    pub chunk_count: usize,
    pub documents: Vec<DocumentMeta>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DocumentMeta {
    pub id: String,
    pub name: String,
    pub path: String,
    pub chunk_count: usize,
}

/// One search over datasets.
#[derive(Clone, Debug)]
pub struct Search {
    pub question: String,
    pub dataset_ids: Vec<String>,
    pub top_n: usize,
    pub top_k: usize,
    pub similarity_threshold: f64,
    pub vector_similarity_weight: f64,
    /// Only chunks of these documents (`None`: all).
    pub doc_ids: Option<Vec<String>>,
}

/// A chunk found, with its scores.
#[derive(Clone, Debug)]
pub struct Hit {
    pub chunk: Chunk,
    pub kb_id: String,
    pub similarity: f64,
    pub term_similarity: f64,
    pub vector_similarity: f64,
}

/// The chunks of the page and, per document, how many chunks passed the threshold (most
/// first), as the retriever's `doc_aggs`.
#[derive(Clone, Debug, Default)]
pub struct Found {
    pub hits: Vec<Hit>,
    pub doc_aggs: Vec<(String, String, usize)>,
    pub total: usize,
}

/// Write a dataset into `building`, then rename it to `target`.
fn build_into(
    building: &Path,
    target: &Path,
    meta: &DatasetMeta,
    chunks: &[Chunk],
    vectors: &[Vec<f32>],
) -> Result<(), String> {
    std::fs::create_dir_all(building)
        .map_err(|e| format!("cannot create {}: {e}", building.display()))?;
    index::write(building, chunks, vectors)?;
    let text = serde_json::to_string_pretty(meta).map_err(|e| e.to_string())?;
    std::fs::write(building.join("dataset.json"), text)
        .map_err(|e| format!("cannot write dataset.json: {e}"))?;
    std::fs::rename(building, target)
        .map_err(|e| format!("cannot move the dataset into place: {e}"))
}

/// The datasets under one folder.
pub struct DatasetStore {
    dir: PathBuf,
    /// Opened datasets by id (a dataset never changes after it is made).
    open: Mutex<HashMap<String, Arc<Loaded>>>,
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// A new 32-hex id, as RAGFlow's `get_uuid()`.
fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// A chunk's id: RAGFlow hashes content and document id (xxh64); any stable digest serves.
fn chunk_id(content: &str, doc_id: &str) -> String {
    use sha1::Digest;
    let digest = sha1::Sha1::digest(format!("{content}{doc_id}").as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

impl DatasetStore {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        DatasetStore {
            dir: dir.into(),
            open: Mutex::new(HashMap::new()),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every dataset, by name.
    pub fn list(&self) -> Result<Vec<DatasetMeta>, String> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(format!("cannot read {}: {e}", self.dir.display())),
        };
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let file = entry.path().join("dataset.json");
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let meta: DatasetMeta =
                serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
            out.push(meta);
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// `get_by_name`.
    pub fn by_name(&self, name: &str) -> Result<Option<DatasetMeta>, String> {
        Ok(self.list()?.into_iter().find(|d| d.name == name))
    }

    /// `get_by_id`.
    pub fn by_id(&self, id: &str) -> Result<Option<DatasetMeta>, String> {
        Ok(self.list()?.into_iter().find(|d| d.id == id))
    }

    /// Remove the dataset named `name_or_id` (a name first, as canvases resolve them).
    pub fn remove(&self, name_or_id: &str) -> Result<DatasetMeta, String> {
        let meta = match self.by_name(name_or_id)? {
            Some(m) => m,
            None => self.by_id(name_or_id)?.ok_or_else(|| {
                format!("no dataset named {name_or_id:?} in {}", self.dir.display())
            })?,
        };
        // Renamed away first, so no reader sees a half-removed dataset.
        let from = self.dir.join(&meta.id);
        let gone = self.dir.join(format!(".removing-{}", meta.id));
        std::fs::rename(&from, &gone)
            .map_err(|e| format!("cannot remove {}: {e}", from.display()))?;
        std::fs::remove_dir_all(&gone)
            .map_err(|e| format!("cannot remove {}: {e}", gone.display()))?;
        if let Ok(mut open) = self.open.lock() {
            open.remove(&meta.id);
        }
        Ok(meta)
    }

    /// Make dataset `name` from the files under `paths`: read, chunk, embed (with
    /// `embedder`), index. `progress` hears what is being done.
    pub async fn add(
        &self,
        name: &str,
        paths: &[PathBuf],
        embedder: Option<&Embedder>,
        progress: &mut (dyn FnMut(&str) + Send),
    ) -> Result<DatasetMeta, String> {
        let name = name.trim();
        if name.is_empty() {
            return Err("a dataset needs a name".into());
        }
        if self.by_name(name)?.is_some() {
            return Err(format!(
                "a dataset named {name:?} exists already (`canvasc dataset rm {name}` first)"
            ));
        }
        let mut skipped = Vec::new();
        let files = read::collect(paths, &mut skipped)?;
        for s in &skipped {
            progress(&format!(
                "skipped {} (not text, Markdown, HTML or PDF)",
                s.display()
            ));
        }
        if files.is_empty() {
            return Err("no text, Markdown, HTML or PDF file to index".into());
        }
        let mut documents = Vec::new();
        let mut chunks: Vec<Chunk> = Vec::new();
        let mut titles: Vec<usize> = Vec::new();
        for path in &files {
            let doc = read::read(path)?;
            let doc_id = new_id();
            let pieces: Vec<String> =
                chunk::naive_merge(&doc.text, chunk::CHUNK_TOKENS, chunk::DELIMITERS)
                    .into_iter()
                    .filter(|c| !c.trim().is_empty())
                    .collect();
            progress(&format!("{}: {} chunks", doc.path.display(), pieces.len()));
            for content in &pieces {
                titles.push(documents.len());
                chunks.push(Chunk {
                    id: chunk_id(content, &doc_id),
                    doc_id: doc_id.clone(),
                    docnm: doc.name.clone(),
                    content: content.clone(),
                });
            }
            documents.push(DocumentMeta {
                id: doc_id,
                name: doc.name,
                path: doc.path.display().to_string(),
                chunk_count: pieces.len(),
            });
        }
        let mut vectors: Vec<Vec<f32>> = Vec::new();
        if let Some(embedder) = embedder {
            if !chunks.is_empty() {
                progress(&format!(
                    "embedding {} chunks with {}",
                    chunks.len(),
                    embedder.model()
                ));
                let names: Vec<String> = documents.iter().map(|d| d.name.clone()).collect();
                let title_vectors = embedder.embed(&names).await?;
                let contents: Vec<String> = chunks.iter().map(|c| c.content.clone()).collect();
                let content_vectors = embedder.embed(&contents).await?;
                for (i, content) in content_vectors.into_iter().enumerate() {
                    let title = &title_vectors[titles[i]];
                    if title.len() != content.len() {
                        return Err("the embedding endpoint gave vectors of different sizes".into());
                    }
                    vectors.push(
                        title
                            .iter()
                            .zip(&content)
                            .map(|(t, c)| TITLE_WEIGHT * t + (1.0 - TITLE_WEIGHT) * c)
                            .collect(),
                    );
                }
            }
        }
        let id = new_id();
        let meta = DatasetMeta {
            id: id.clone(),
            name: name.to_string(),
            embd_id: embedder.map(|e| e.model().to_string()).unwrap_or_default(),
            dim: vectors.first().map_or(0, Vec::len),
            created_at: now(),
            chunk_count: chunks.len(),
            documents,
        };
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        let building = self.dir.join(format!(".building-{id}"));
        if let Err(e) = build_into(&building, &self.dir.join(&id), &meta, &chunks, &vectors) {
            let _ = std::fs::remove_dir_all(&building);
            return Err(e);
        }
        Ok(meta)
    }

    /// The dataset `id`, opened once per process.
    fn loaded(&self, meta: &DatasetMeta) -> Result<Arc<Loaded>, String> {
        let mut open = self
            .open
            .lock()
            .map_err(|_| "the dataset cache is poisoned".to_string())?;
        if let Some(l) = open.get(&meta.id) {
            return Ok(Arc::clone(l));
        }
        let loaded = Arc::new(
            Loaded::open(&self.dir.join(&meta.id), meta.dim)
                .map_err(|e| format!("dataset {}: {e}", meta.name))?,
        );
        open.insert(meta.id.clone(), Arc::clone(&loaded));
        Ok(loaded)
    }

    /// The retriever's search over `search.dataset_ids` (page 1): candidates, hybrid scores,
    /// the threshold (none when the vector weight is 0, or the datasets have no vectors:
    /// then the search is full-text only), a stable sort by score, `top_n` chunks and the
    /// per-document counts over every chunk that passed.
    pub async fn search(
        self: &Arc<Self>,
        search: Search,
        embedder: Option<&Embedder>,
    ) -> Result<Found, String> {
        if search.question.is_empty() {
            return Ok(Found::default());
        }
        let mut metas = Vec::new();
        for id in &search.dataset_ids {
            if let Some(m) = self.by_id(id)? {
                metas.push(m);
            }
        }
        let embd_id = metas.iter().find(|m| m.dim > 0).map(|m| m.embd_id.clone());
        let query_vector = match (&embd_id, embedder) {
            (None, _) => None,
            (Some(model), Some(e)) if e.model() == model => {
                let mut v = e.embed(std::slice::from_ref(&search.question)).await?;
                v.pop()
            }
            (Some(model), _) => {
                return Err(format!(
                    "the dataset was embedded with `{model}`, and no [embedding] endpoint serving `{model}` is configured"
                ))
            }
        };
        let store = Arc::clone(self);
        tokio::task::spawn_blocking(move || store.search_blocking(&search, &metas, query_vector))
            .await
            .map_err(|e| format!("the search failed: {e}"))?
    }

    fn search_blocking(
        &self,
        search: &Search,
        metas: &[DatasetMeta],
        query_vector: Option<Vec<f32>>,
    ) -> Result<Found, String> {
        let vector_weight = if query_vector.is_some() {
            search.vector_similarity_weight
        } else {
            0.0
        };
        let term_weight = 1.0 - vector_weight;
        let min_match = vector_weight < 0.8;
        let mut scored: Vec<Hit> = Vec::new();
        for meta in metas {
            let loaded = self.loaded(meta)?;
            if let Some(q) = &query_vector {
                if meta.dim > 0 && q.len() != meta.dim {
                    return Err(format!(
                        "dataset {}: the query vector has {} values, the dataset's {}",
                        meta.name,
                        q.len(),
                        meta.dim
                    ));
                }
            }
            let candidates = loaded.candidates(
                &search.question,
                query_vector.as_deref(),
                search.top_k,
                min_match,
            )?;
            for c in candidates {
                let Some(chunk) = loaded.chunks.get(c.ord) else {
                    continue;
                };
                if let Some(docs) = &search.doc_ids {
                    if !docs.contains(&chunk.doc_id) {
                        continue;
                    }
                }
                scored.push(Hit {
                    chunk: chunk.clone(),
                    kb_id: meta.id.clone(),
                    similarity: term_weight * c.term_similarity
                        + vector_weight * c.vector_similarity,
                    term_similarity: c.term_similarity,
                    vector_similarity: c.vector_similarity,
                });
            }
        }
        // `np.argsort(-sim, kind="stable")`.
        scored.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
        let threshold = if vector_weight <= 0.0 {
            0.0
        } else {
            search.similarity_threshold
        };
        scored.retain(|h| h.similarity >= threshold);
        let total = scored.len();
        let mut aggs: Vec<(String, String, usize)> = Vec::new();
        for h in &scored {
            match aggs.iter_mut().find(|(name, _, _)| *name == h.chunk.docnm) {
                Some(a) => a.2 += 1,
                None => aggs.push((h.chunk.docnm.clone(), h.chunk.doc_id.clone(), 1)),
            }
        }
        aggs.sort_by_key(|a| std::cmp::Reverse(a.2));
        scored.truncate(search.top_n);
        Ok(Found {
            hits: scored,
            doc_aggs: aggs,
            total,
        })
    }
}
