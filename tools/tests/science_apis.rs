//! BGPT and GoogleScholar against stubs on 127.0.0.1, answering in the services' shapes:
//!
//! * BGPT's paper search (`POST /api/mcp-search`, an object whose `results` lists papers with
//!   `title`, `authors`, `journal`, `year`, `doi`, `url`, `abstract` and the extracted evidence
//!   fields): the BGPT MCP API's description of its 25+ fields per paper
//!   (<https://mcpservers.org/servers/connerlambden/bgpt-mcp>) and the fields RAGFlow's
//!   `agent/tools/bgpt.py` reads;
//! * Google Scholar's result page (`/scholar?hl=en&q=…`: one `div.gs_or` per result with
//!   `data-cid`/`data-rp`, `h3.gs_rt` with the title link, `div.gs_a` authors line with
//!   `/citations?user=` links, `div.gs_rs` snippet, `div.gs_fl` with "Cited by N" and
//!   "Related articles", `div.gs_ggs` with the PDF link, and the `gs_ico_nav_next` pager), the
//!   markup `scholarly`'s `PublicationParser` reads (scholarly 1.7, `publication_parser.py`).

mod support;

use serde_json::json;
use support::{node_canvas, registry, run, Answer, Stub};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bgpt_posts_the_search_and_formats_the_evidence() {
    let stub = Stub::start().await;
    let results = json!([
        {"title": "Off-target effects of CRISPR-Cas9", "authors": ["A. Smith", "B. Jones"], "journal": "Nature Methods",
         "year": 2023, "doi": "10.1038/nm.1", "url": "https://doi.org/10.1038/nm.1", "abstract": "  We measured off-target edits.  ",
         "methods_and_experimental_techniques": "GUIDE-seq", "sample_size_and_population": "12 cell lines",
         "results_and_conclusions": "", "results": "Few off-target edits.", "paper_limitations_and_biases": null,
         "conflict_of_interest_statements": {"declared": false}, "data_availability_statements": "GEO GSE1",
         "study_blindspots": "in vivo", "how_to_falsify": "   ", "quality_score": 8},
        {"doi": "10.1/untitled", "title": ""}
    ]);
    stub.on(
        "/api/mcp-search",
        vec![Answer::json(&json!({"results": results, "total": 2}))],
    );
    let toml = format!("[tools.bgpt]\nbase_url = \"{}\"\n", stub.base);
    let dsl = node_canvas(
        "BGPT",
        json!({"top_n": "2", "api_key": "bgpt-k", "days_back": "30"}),
        "formalized_content",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&toml),
        "  crispr off-target ",
    )
    .await;
    let r = &stub.requests()[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/api/mcp-search")
    );
    assert_eq!(
        r.headers.get("content-type").map(String::as_str),
        Some("application/json")
    );
    // `requests`' `json=`: `json.dumps` with its default separators.
    assert_eq!(
        r.body,
        r#"{"query": "crispr off-target", "num_results": 2, "api_key": "bgpt-k", "days_back": 30}"#
    );
    let text = ran.output("Tool:T", "formalized_content");
    let text = text.as_str().unwrap_or_default();
    assert!(text.contains("├── Title: Off-target effects of CRISPR-Cas9\n├── URL: https://doi.org/10.1038/nm.1\n└── Content:\nTitle: Off-target effects of CRISPR-Cas9\nAuthors: ['A. Smith', 'B. Jones']\nJournal: Nature Methods\nYear: 2023\nDOI: 10.1038/nm.1\nAbstract: We measured off-target edits.\nMethods: GUIDE-seq\nSample size / population: 12 cell lines\nResults: Few off-target edits.\nLimitations: -\nConflicts of interest: {'declared': False}\nData availability: GEO GSE1\nBlind spots: in vivo\nHow to falsify: -"), "{text}");
    assert!(
        text.contains("├── Title: Untitled\n├── URL: 10.1/untitled\n└── Content:\nTitle: -\n"),
        "{text}"
    );
    assert_eq!(ran.output("Tool:T", "json"), results);
    let refs = ran.references();
    assert_eq!(
        refs["chunks"].as_object().map(|c| c.len()),
        Some(2),
        "{refs}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bgpt_gives_up_at_once_on_a_client_error_and_retries_a_server_error() {
    let stub = Stub::start().await;
    stub.on(
        "/api/mcp-search",
        vec![Answer::status(401, &json!({"error": "invalid api key"}))],
    );
    let toml = format!("[tools.bgpt]\nbase_url = \"{}\"\n", stub.base);
    let dsl = node_canvas(
        "BGPT",
        json!({"max_retries": 2, "delay_after_error": 0}),
        "formalized_content",
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "q").await;
    assert_eq!(stub.requests().len(), 1, "a 401 is not retried");
    let url = format!("{}/api/mcp-search", stub.base);
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!(format!(
            "HTTP error: 401 Client Error: Unauthorized for url: {url}"
        ))
    );

    let stub = Stub::start().await;
    stub.on(
        "/api/mcp-search",
        vec![
            Answer::status(503, &json!({})),
            Answer::json(&json!({"results": "none"})),
        ],
    );
    let toml = format!("[tools.bgpt]\nbase_url = \"{}\"\n", stub.base);
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "q").await;
    assert_eq!(stub.requests().len(), 3, "retried twice");
    assert_eq!(
        ran.output("Tool:T", "_ERROR"),
        json!("Invalid results format from BGPT")
    );
}

const SCHOLAR_PAGE_1: &str = r#"<!doctype html><html><head><title>Google Scholar</title></head><body>
<div id="gs_res_ccl_mid">
<div class="gs_r gs_or gs_scl" data-cid="AbC123xyz" data-did="AbC123xyz" data-lid="" data-aid="AbC123xyz" data-rp="0">
 <div class="gs_ggs gs_fl"><div class="gs_ggsd"><div class="gs_or_ggsm"><a href="https://arxiv.org/pdf/2005.11401"><span class="gs_ctg2">[PDF]</span> arxiv.org</a></div></div></div>
 <div class="gs_ri">
  <h3 class="gs_rt" ontouchstart="gs_evt_dsp(event)"><a id="AbC123xyz" href="https://proceedings.neurips.cc/paper/2020/hash/6b49.html" data-clk="hl=en">Retrieval-augmented generation for knowledge-intensive nlp tasks</a></h3>
  <div class="gs_a"><a href="/citations?user=Xy-1AAAAJ&amp;hl=en&amp;oi=sra">P Lewis</a>,&nbsp;<a href="/citations?user=Zz_2BBBAJ&amp;hl=en&amp;oi=sra">E Perez</a>, A Piktus… - Advances in Neural …, 2020 - proceedings.neurips.cc</div>
  <div class="gs_rs">Abstract Large pre-trained language models have been shown to store factual knowledge in their parameters <b>…</b></div>
  <div class="gs_fl gs_flb"><a href="javascript:void(0)" class="gs_or_sav gs_or_btn">Save</a> <a href="/scholar?cites=123&amp;as_sdt=2005&amp;sciodt=0,5&amp;hl=en">Cited by 9876</a> <a href="/scholar?q=related:AbC123xyz:scholar.google.com/&amp;scioq=rag&amp;hl=en&amp;as_sdt=0,5">Related articles</a></div>
 </div>
</div>
<div class="gs_r gs_or gs_scl" data-cid="Cit0" data-rp="1">
 <div class="gs_ri">
  <h3 class="gs_rt"><span class="gs_ctu"><span class="gs_ct1">[CITATION]</span><span class="gs_ct2">[C]</span></span> A survey of RAG</h3>
  <div class="gs_a">J Doe - 2021</div>
  <div class="gs_fl"></div>
 </div>
</div>
</div>
<div id="gs_n"><table><tr><td><a href="/scholar?start=10&amp;q=rag&amp;hl=en&amp;as_sdt=0,33"><span class="gs_ico gs_ico_nav_next"></span><b>Next</b></a></td></tr></table></div>
</body></html>"#;

const SCHOLAR_PAGE_2: &str = r#"<!doctype html><html><body><div id="gs_res_ccl_mid">
<div class="gs_r gs_or gs_scl" data-cid="Q2" data-rp="10">
 <div class="gs_ri">
  <h3 class="gs_rt"><span class="gs_ctc"><span class="gs_ct1">[PDF]</span></span> <a href="https://example.org/dense.pdf">Dense passage retrieval</a></h3>
  <div class="gs_a">V Karpukhin, B Oğuz - Proceedings of EMNLP, 2020 - aclanthology.org</div>
  <div class="gs_rs">We show that retrieval can be practically implemented using dense representations alone.</div>
  <div class="gs_fl"><a href="/scholar?cites=9&amp;hl=en">Cited by 4000</a></div>
 </div>
</div></div></body></html>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn google_scholar_reads_result_pages_as_scholarly_does() {
    let stub = Stub::start().await;
    // The citation row given a link, so that every result has a `pub_url`.
    let page_1 = SCHOLAR_PAGE_1.replace(
        "</span> A survey of RAG</h3>",
        "</span> <a href=\"https://example.org/survey\">A survey of RAG</a></h3>",
    );
    stub.on(
        "/scholar",
        vec![
            Answer::text("text/html; charset=UTF-8", &page_1),
            Answer::text("text/html; charset=UTF-8", SCHOLAR_PAGE_2),
        ],
    );
    let toml = format!("[tools.googlescholar]\nbase_url = \"{}\"\n", stub.base);
    let dsl = node_canvas(
        "GoogleScholar",
        json!({"top_n": 3, "sort_by": "date", "year_low": 2019, "patents": false}),
        "formalized_content",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&toml),
        "retrieval augmented/generation",
    )
    .await;
    let requests = stub.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].query.as_deref(),
        Some("hl=en&q=retrieval%20augmented/generation&as_ylo=2019&as_vis=0&as_sdt=1,33&scisbd=1")
    );
    assert_eq!(
        requests[1].query.as_deref(),
        Some("start=10&q=rag&hl=en&as_sdt=0,33")
    );
    let results = ran.output("Tool:T", "json");
    let results = results.as_array().cloned().unwrap_or_default();
    assert_eq!(results.len(), 3);
    assert_eq!(
        results[0]["bib"],
        json!({"title": "Retrieval-augmented generation for knowledge-intensive nlp tasks",
               "author": ["P Lewis", "E Perez", "A Piktus"], "venue": "Advances in Neural …",
               "pub_year": "2020",
               "abstract": "Large pre-trained language models have been shown to store factual knowledge in their parameters"})
    );
    assert_eq!(results[0]["num_citations"], json!(9876));
    assert_eq!(results[0]["author_id"], json!(["Xy-1AAAAJ", "Zz_2BBBAJ"]));
    assert_eq!(
        results[0]["eprint_url"],
        json!("https://arxiv.org/pdf/2005.11401")
    );
    assert_eq!(results[0]["gsrank"], json!(1));
    assert_eq!(results[1]["bib"]["title"], json!("A survey of RAG"));
    assert_eq!(results[1]["bib"]["venue"], json!("NA"));
    assert_eq!(results[2]["bib"]["title"], json!("Dense passage retrieval"));
    assert_eq!(
        results[2]["bib"]["author"],
        json!(["V Karpukhin", "B Oğuz"])
    );
    assert_eq!(results[2]["bib"]["venue"], json!("Proceedings of EMNLP"));
    let text = ran.output("Tool:T", "formalized_content");
    assert!(
        text.as_str()
            .unwrap_or_default()
            .contains("├── URL: https://example.org/survey"),
        "{text}"
    );

    // A citation without a link: `r["pub_url"]` raises, so the attempt fails as in RAGFlow.
    let stub = Stub::start().await;
    stub.on(
        "/scholar",
        vec![Answer::text("text/html; charset=UTF-8", SCHOLAR_PAGE_1)],
    );
    let toml = format!("[tools.googlescholar]\nbase_url = \"{}\"\n", stub.base);
    let dsl = node_canvas("GoogleScholar", json!({"top_n": 2}), "formalized_content");
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "rag").await;
    assert_eq!(ran.output("Tool:T", "_ERROR"), json!("'pub_url'"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn google_scholar_formats_linked_results() {
    let stub = Stub::start().await;
    stub.on(
        "/scholar",
        vec![Answer::text("text/html; charset=UTF-8", SCHOLAR_PAGE_2)],
    );
    let toml = format!("[tools.googlescholar]\nbase_url = \"{}\"\n", stub.base);
    let dsl = node_canvas("GoogleScholar", json!({"top_n": 5}), "formalized_content");
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "dpr").await;
    assert_eq!(
        stub.requests()[0].query.as_deref(),
        Some("hl=en&q=dpr&as_vis=0&as_sdt=0,33")
    );
    let text = ran.output("Tool:T", "formalized_content");
    let text = text.as_str().unwrap_or_default();
    assert!(text.contains("├── Title: Dense passage retrieval\n├── URL: https://example.org/dense.pdf\n└── Content:\n\n author: V Karpukhin,B Oğuz\n Abstract: We show that retrieval can be practically implemented using dense representations alone."), "{text}");
}
