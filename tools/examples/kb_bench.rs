//! The local knowledge base's benchmark: index build time and query latency (p50, p99) on
//! 10,000 chunks, full-text only and hybrid (vectors from an embedding stub on 127.0.0.1
//! that hashes words into 256 buckets, so the time is canvasc's, not a model's).
//!
//! ```sh
//! CARGO_TARGET_DIR=… cargo run --release -p canvasc-tools --features kb --example kb_bench [CHUNKS] [QUERIES]
//! ```
//!
//! The corpus is synthetic and deterministic: documents of paragraphs of 70 words drawn from
//! a 5,000-word vocabulary with a skewed (Zipf-like) frequency; a paragraph is over the
//! chunker's 128 tokens, so each is one chunk. Queries are 3 to 5 words drawn the same way.

use axum::routing::post;
use axum::{Json as AxJson, Router};
use canvasc_tools::config::ToolsConfig;
use canvasc_tools::kb::embed::Embedder;
use canvasc_tools::kb::{DatasetStore, Search};
use serde_json::{json, Value as Json};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const DIM: usize = 256;
const VOCABULARY: u64 = 5_000;
const PARAGRAPH_WORDS: usize = 70;
const PARAGRAPHS_PER_DOC: usize = 200;

/// xorshift64*: a deterministic generator for the synthetic corpus (no dependency needed for
/// test data).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }

    /// A word id, small ids far more often (the product of two uniforms).
    fn word(&mut self) -> String {
        let a = self.next() % VOCABULARY;
        let b = self.next() % VOCABULARY;
        format!("w{}", a * b / VOCABULARY)
    }
}

fn bucket(word: &str) -> usize {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in word.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100000001b3);
    }
    (h % DIM as u64) as usize
}

async fn embeddings(AxJson(body): AxJson<Json>) -> AxJson<Json> {
    let data: Vec<Json> = body["input"]
        .as_array()
        .map(|inputs| {
            inputs
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let mut v = vec![0f32; DIM];
                    for w in t.as_str().unwrap_or("").split_whitespace() {
                        v[bucket(w)] += 1.0;
                    }
                    json!({"index": i, "embedding": v})
                })
                .collect()
        })
        .unwrap_or_default();
    AxJson(json!({"data": data}))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn write_corpus(dir: &Path, chunks: usize, rng: &mut Rng) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let paragraphs = chunks;
    let docs = paragraphs.div_ceil(PARAGRAPHS_PER_DOC);
    for d in 0..docs {
        let mut text = String::new();
        for _ in 0..PARAGRAPHS_PER_DOC.min(paragraphs - d * PARAGRAPHS_PER_DOC) {
            let words: Vec<String> = (0..PARAGRAPH_WORDS).map(|_| rng.word()).collect();
            text.push_str(&words.join(" "));
            text.push('\n');
        }
        std::fs::write(dir.join(format!("doc{d:04}.txt")), text)?;
    }
    Ok(())
}

async fn bench(
    label: &str,
    root: &Path,
    corpus: &Path,
    embedder: Option<&Embedder>,
    queries: &[String],
) {
    let store = Arc::new(DatasetStore::new(root.join(label)));
    let started = Instant::now();
    let meta = match store
        .add(label, &[corpus.to_path_buf()], embedder, &mut |_: &str| {})
        .await
    {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{label}: {e}");
            return;
        }
    };
    let build = started.elapsed();
    let mut times = Vec::with_capacity(queries.len());
    let mut found = 0usize;
    for (i, q) in queries.iter().enumerate() {
        let search = Search {
            question: q.clone(),
            dataset_ids: vec![meta.id.clone()],
            top_n: 8,
            top_k: 1024,
            similarity_threshold: 0.2,
            vector_similarity_weight: 0.5,
            doc_ids: None,
        };
        let t = Instant::now();
        let result = store.search(search, embedder).await;
        let elapsed = t.elapsed();
        match result {
            Ok(r) => found += r.hits.len(),
            Err(e) => {
                eprintln!("{label}: query {i}: {e}");
                return;
            }
        }
        // The first query opens the dataset; it is reported apart.
        if i > 0 {
            times.push(elapsed);
        }
    }
    times.sort();
    println!(
        "{label}: {} chunks in {} documents, index built in {:.2?} ({:.0} chunks/s); {} queries: p50 {:.2?}, p99 {:.2?}, max {:.2?}; {:.1} chunks returned per query",
        meta.chunk_count,
        meta.documents.len(),
        build,
        meta.chunk_count as f64 / build.as_secs_f64(),
        times.len(),
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        times.last().copied().unwrap_or_default(),
        found as f64 / queries.len() as f64,
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 1)]
async fn main() {
    let mut args = std::env::args().skip(1);
    let chunks: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let queries: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(500);
    let root = std::env::temp_dir().join(format!("canvasc-kb-bench-{}", std::process::id()));
    let corpus = root.join("corpus");
    let mut rng = Rng(0x9E3779B97F4A7C15);
    if let Err(e) = write_corpus(&corpus, chunks, &mut rng) {
        eprintln!("cannot write the corpus: {e}");
        return;
    }
    let queries: Vec<String> = (0..=queries)
        .map(|i| {
            let n = 3 + i % 3;
            (0..n).map(|_| rng.word()).collect::<Vec<_>>().join(" ")
        })
        .collect();

    bench("full-text", &root, &corpus, None, &queries).await;

    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cannot bind the embedding stub: {e}");
            return;
        }
    };
    let addr = listener
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    tokio::spawn(async move {
        let _ = axum::serve(
            listener,
            Router::new().route("/embeddings", post(embeddings)),
        )
        .await;
    });
    let none = |_: &str| None;
    let toml = format!("[embedding]\nbase_url = \"http://{addr}\"\nmodel = \"hash-{DIM}\"\n");
    let config = ToolsConfig::from_toml_str(&toml, &none).ok();
    let embedder = config
        .as_ref()
        .and_then(|c| c.embedding().cloned())
        .map(|c| Embedder::new(c, canvasc_engine::http::shared_client()));
    bench("hybrid", &root, &corpus, embedder.as_ref(), &queries).await;
    let _ = std::fs::remove_dir_all(&root);
}
