//! One dataset's full-text index on tantivy, and its chunks and vectors beside it:
//!
//! * `index/`: tantivy, one document per chunk: its content (tokenised: words, lower case,
//!   English stop words removed, English stems; Chinese, Japanese and Korean as character
//!   bigrams, `cjk.rs`) and its number (`ord`, a fast field);
//! * `chunks.jsonl`: the chunks in order (id, document, content), what a search returns;
//! * `vectors.f32`: when the dataset was embedded, `dim` little-endian `f32`s per chunk, in
//!   the same order.
//!
//! A search (`Loaded::candidates`) takes the `top_k` best chunks by BM25 and, with vectors,
//! the `top_k` nearest by cosine, and gives each candidate RAGFlow's two similarities: term
//! similarity (the share of the query's term weight, IDF here, that the chunk contains) and
//! vector similarity (cosine). The hybrid score is computed by the caller.

use super::cjk::CjkTokenizer;
use super::embed::cosine;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::Path;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, STORED,
};
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, Stemmer, StopWordFilter, TextAnalyzer,
};
use tantivy::{doc, Index, IndexReader, Term};

const TOKENIZER: &str = "canvasc_kb";
const CONTENT: &str = "content";
const ORD: &str = "ord";

/// One chunk as stored in `chunks.jsonl`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Chunk {
    pub id: String,
    pub doc_id: String,
    pub docnm: String,
    pub content: String,
}

fn analyzer() -> TextAnalyzer {
    let builder = TextAnalyzer::builder(CjkTokenizer)
        .filter(RemoveLongFilter::limit(64))
        .filter(LowerCaser);
    match StopWordFilter::new(Language::English) {
        Some(stop) => builder
            .filter(stop)
            .filter(Stemmer::new(Language::English))
            .build(),
        None => builder.filter(Stemmer::new(Language::English)).build(),
    }
}

fn schema() -> (Schema, Field, Field) {
    let mut builder = Schema::builder();
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(TOKENIZER)
        .set_index_option(IndexRecordOption::WithFreqs);
    let content = builder.add_text_field(
        CONTENT,
        TextOptions::default().set_indexing_options(indexing),
    );
    let ord = builder.add_u64_field(ORD, FAST | STORED);
    (builder.build(), content, ord)
}

fn err(what: &str, e: impl std::fmt::Display) -> String {
    format!("{what}: {e}")
}

/// Write the index, chunks and vectors of a new dataset into `dir`.
pub fn write(dir: &Path, chunks: &[Chunk], vectors: &[Vec<f32>]) -> Result<(), String> {
    let index_dir = dir.join("index");
    std::fs::create_dir_all(&index_dir).map_err(|e| err("cannot create the index folder", e))?;
    let (schema, content, ord) = schema();
    let index = Index::create_in_dir(&index_dir, schema).map_err(|e| err("tantivy", e))?;
    index.tokenizers().register(TOKENIZER, analyzer());
    let mut writer = index
        .writer_with_num_threads(1, 64_000_000)
        .map_err(|e| err("tantivy", e))?;
    let mut lines = String::new();
    for (i, chunk) in chunks.iter().enumerate() {
        writer
            .add_document(doc!(content => chunk.content.as_str(), ord => i as u64))
            .map_err(|e| err("tantivy", e))?;
        lines.push_str(&serde_json::to_string(chunk).map_err(|e| err("chunk", e))?);
        lines.push('\n');
    }
    writer.commit().map_err(|e| err("tantivy", e))?;
    writer
        .wait_merging_threads()
        .map_err(|e| err("tantivy", e))?;
    std::fs::write(dir.join("chunks.jsonl"), lines).map_err(|e| err("cannot write chunks", e))?;
    if !vectors.is_empty() {
        let mut bytes = Vec::with_capacity(vectors.len() * vectors[0].len() * 4);
        for v in vectors {
            for x in v {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
        }
        std::fs::write(dir.join("vectors.f32"), bytes)
            .map_err(|e| err("cannot write vectors", e))?;
    }
    Ok(())
}

/// A dataset opened for searching.
pub struct Loaded {
    reader: IndexReader,
    content: Field,
    pub chunks: Vec<Chunk>,
    /// `chunks.len() * dim` values, or empty.
    vectors: Vec<f32>,
    dim: usize,
}

/// One candidate of a search.
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    /// The chunk's number.
    pub ord: usize,
    pub term_similarity: f64,
    pub vector_similarity: f64,
}

impl Loaded {
    pub fn open(dir: &Path, dim: usize) -> Result<Loaded, String> {
        let index = Index::open_in_dir(dir.join("index")).map_err(|e| err("tantivy", e))?;
        index.tokenizers().register(TOKENIZER, analyzer());
        let content = index
            .schema()
            .get_field(CONTENT)
            .map_err(|e| err("tantivy", e))?;
        let reader = index.reader().map_err(|e| err("tantivy", e))?;
        let text = std::fs::read_to_string(dir.join("chunks.jsonl"))
            .map_err(|e| err("cannot read chunks.jsonl", e))?;
        let chunks = text
            .lines()
            .map(|l| serde_json::from_str(l).map_err(|e| err("chunks.jsonl", e)))
            .collect::<Result<Vec<Chunk>, String>>()?;
        let vectors = if dim > 0 {
            let bytes = std::fs::read(dir.join("vectors.f32"))
                .map_err(|e| err("cannot read vectors.f32", e))?;
            if bytes.len() != chunks.len() * dim * 4 {
                return Err("vectors.f32 does not hold one vector per chunk".into());
            }
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()
        } else {
            Vec::new()
        };
        Ok(Loaded {
            reader,
            content,
            chunks,
            vectors,
            dim,
        })
    }

    /// The query's distinct terms as the index tokenises text.
    fn terms(&self, text: &str) -> Vec<String> {
        let mut analyzer = analyzer();
        let mut stream = analyzer.token_stream(text);
        let mut out: Vec<String> = Vec::new();
        while stream.advance() {
            let t = &stream.token().text;
            if !out.iter().any(|o| o == t) {
                out.push(t.clone());
            }
        }
        out
    }

    /// Candidates for `question` (and its vector, when the dataset has vectors), BM25 hits
    /// first in rank order, then the nearest chunks BM25 did not find. With
    /// `min_match`, a BM25 hit must hold at least 30% of the query's terms (Elasticsearch's
    /// `minimum_should_match: 30%`, which RAGFlow sets while the vector weight is under 0.8).
    pub fn candidates(
        &self,
        question: &str,
        query_vector: Option<&[f32]>,
        top_k: usize,
        min_match: bool,
    ) -> Result<Vec<Candidate>, String> {
        let searcher = self.reader.searcher();
        let terms = self.terms(question);
        let total = searcher.num_docs() as f64;
        let mut weights = Vec::with_capacity(terms.len());
        for t in &terms {
            let term = Term::from_field_text(self.content, t);
            let df = searcher.doc_freq(&term).map_err(|e| err("tantivy", e))? as f64;
            // BM25's IDF, the weight a term carries in the term similarity.
            weights.push((1.0 + (total - df + 0.5) / (df + 0.5)).ln());
        }
        let weight_sum: f64 = 1e-9 + weights.iter().sum::<f64>();
        let required = if min_match {
            ((terms.len() as f64) * 0.3).floor().max(1.0) as usize
        } else {
            1
        };
        let term_similarity = |ord: usize| -> (f64, usize) {
            let Some(chunk) = self.chunks.get(ord) else {
                return (0.0, 0);
            };
            let present: HashSet<String> = self.terms(&chunk.content).into_iter().collect();
            let mut s = 1e-9;
            let mut n = 0;
            for (t, w) in terms.iter().zip(&weights) {
                if present.contains(t) {
                    s += w;
                    n += 1;
                }
            }
            (s / weight_sum, n)
        };
        let vector_similarity = |ord: usize| -> f64 {
            match query_vector {
                Some(q) if self.dim > 0 && q.len() == self.dim => {
                    cosine(q, &self.vectors[ord * self.dim..(ord + 1) * self.dim])
                }
                _ => 0.0,
            }
        };
        let mut seen: HashSet<usize> = HashSet::new();
        let mut out = Vec::new();
        if !terms.is_empty() && top_k > 0 {
            let clauses: Vec<(Occur, Box<dyn Query>)> = terms
                .iter()
                .map(|t| {
                    let q: Box<dyn Query> = Box::new(TermQuery::new(
                        Term::from_field_text(self.content, t),
                        IndexRecordOption::WithFreqs,
                    ));
                    (Occur::Should, q)
                })
                .collect();
            let query = BooleanQuery::new(clauses);
            let hits = searcher
                .search(&query, &TopDocs::with_limit(top_k))
                .map_err(|e| err("tantivy", e))?;
            for (_, address) in hits {
                let column = searcher
                    .segment_reader(address.segment_ord)
                    .fast_fields()
                    .u64(ORD)
                    .map_err(|e| err("tantivy", e))?;
                let Some(ord) = column.first(address.doc_id) else {
                    continue;
                };
                let ord = ord as usize;
                let (tsim, matched) = term_similarity(ord);
                if matched < required || !seen.insert(ord) {
                    continue;
                }
                out.push(Candidate {
                    ord,
                    term_similarity: tsim,
                    vector_similarity: vector_similarity(ord),
                });
            }
        }
        if let Some(q) = query_vector {
            if self.dim > 0 && q.len() == self.dim && top_k > 0 {
                let mut nearest: Vec<(usize, f64)> = (0..self.chunks.len())
                    .map(|ord| (ord, vector_similarity(ord)))
                    .collect();
                let k = top_k.min(nearest.len());
                if k > 0 && k < nearest.len() {
                    nearest.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1));
                    nearest.truncate(k);
                }
                nearest.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                for (ord, vsim) in nearest {
                    if !seen.insert(ord) {
                        continue;
                    }
                    out.push(Candidate {
                        ord,
                        term_similarity: term_similarity(ord).0,
                        vector_similarity: vsim,
                    });
                }
            }
        }
        Ok(out)
    }
}
