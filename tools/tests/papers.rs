//! ArXiv and PubMed against stubs of their APIs on 127.0.0.1, answering in the documented shapes:
//!
//! * arXiv API, Atom 1.0 feed of `entry` elements with `title`, `summary` and
//!   `link title="pdf"`: <https://info.arxiv.org/help/api/user-manual.html#_details_of_atom_results_returned>;
//! * NCBI E-utilities `ESearch` (`eSearchResult/IdList/Id`) and `EFetch` with `retmode=xml`
//!   (`PubmedArticleSet/PubmedArticle/MedlineCitation/…`):
//!   <https://www.ncbi.nlm.nih.gov/books/NBK25499/>.

mod support;

use serde_json::json;
use support::{node_canvas, registry, run, Answer, Stub};

const FEED: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <title type="html">ArXiv Query: search_query=all:rag</title>
  <entry>
    <id>http://arxiv.org/abs/2005.11401v4</id>
    <title>Retrieval-Augmented Generation for
      Knowledge-Intensive NLP Tasks</title>
    <summary>  Large pre-trained language models store knowledge.
</summary>
    <link href="http://arxiv.org/abs/2005.11401v4" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/2005.11401v4" rel="related" type="application/pdf"/>
  </entry>
  <entry>
    <id>http://arxiv.org/abs/2312.10997v5</id>
    <title>RAG Survey</title>
    <summary>A survey.</summary>
    <link title="pdf" href="http://arxiv.org/pdf/2312.10997v5" rel="related" type="application/pdf"/>
  </entry>
</feed>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arxiv_sends_the_librarys_query_and_reads_the_feed() {
    let stub = Stub::start().await;
    stub.on(
        "/api/query",
        vec![Answer::text("application/atom+xml", FEED)],
    );
    let toml = format!("[tools.arxiv]\nbase_url = \"{}\"\n", stub.base);
    let dsl = node_canvas(
        "ArXiv",
        json!({"top_n": 1, "sort_by": "relevance"}),
        "formalized_content",
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "all:rag").await;
    let r = &stub.requests()[0];
    assert_eq!((r.method.as_str(), r.path.as_str()), ("GET", "/api/query"));
    assert_eq!(
        r.query_pairs(),
        [
            ("search_query", "all:rag"),
            ("id_list", ""),
            ("sortBy", "relevance"),
            ("sortOrder", "descending"),
            ("start", "0"),
            ("max_results", "100")
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
    );
    let text = ran.output("Tool:T", "formalized_content");
    let text = text.as_str().unwrap_or_default();
    assert!(text.contains("├── Title: Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks\n├── URL: http://arxiv.org/pdf/2005.11401v4\n└── Content:\n  Large pre-trained language models store knowledge.\n"), "{text}");
    assert!(!text.contains("RAG Survey"), "top_n = 1: {text}");
}

const ESEARCH: &str = r#"<?xml version="1.0" encoding="UTF-8" ?>
<!DOCTYPE eSearchResult PUBLIC "-//NLM//DTD esearch 20060628//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20060628/esearch.dtd">
<eSearchResult><Count>2</Count><RetMax>2</RetMax><RetStart>0</RetStart><IdList>
<Id>38000001</Id>
<Id>38000002</Id>
</IdList></eSearchResult>"#;

const EFETCH: &str = r#"<?xml version="1.0" ?>
<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2024//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_240101.dtd">
<PubmedArticleSet>
<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">38000001</PMID>
<Article PubModel="Print"><Journal><JournalIssue CitedMedium="Internet"><Volume>12</Volume><Issue>3</Issue></JournalIssue><Title>Journal of Tests</Title></Journal>
<ArticleTitle>Retrieval in <i>medicine</i></ArticleTitle><Pagination><MedlinePgn>1-9</MedlinePgn></Pagination>
<Abstract><AbstractText>  An abstract with <b>bold</b> words.  </AbstractText></Abstract>
<AuthorList CompleteYN="Y"><Author ValidYN="Y"><LastName>Doe</LastName><ForeName>Jane</ForeName></Author><Author ValidYN="Y"><LastName>Roe</LastName><ForeName>Rick</ForeName></Author></AuthorList>
</Article></MedlineCitation>
<PubmedData><ArticleIdList><ArticleId IdType="pubmed">38000001</ArticleId><ArticleId IdType="doi">10.1000/test.1</ArticleId></ArticleIdList></PubmedData></PubmedArticle>
<PubmedArticle><MedlineCitation><PMID Version="1">38000002</PMID><Article><ArticleTitle>Bare</ArticleTitle></Article></MedlineCitation></PubmedArticle>
</PubmedArticleSet>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pubmed_searches_fetches_and_formats_as_ragflow() {
    let stub = Stub::start().await;
    stub.on("/esearch.fcgi", vec![Answer::text("text/xml", ESEARCH)]);
    stub.on("/efetch.fcgi", vec![Answer::text("text/xml", EFETCH)]);
    let toml = format!("[tools.pubmed]\nbase_url = \"{}\"\n", stub.base);
    let dsl = node_canvas(
        "PubMed",
        json!({"top_n": 2, "email": "me@example.org"}),
        "formalized_content",
    );
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&toml),
        "retrieval medicine",
    )
    .await;
    let requests = stub.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].query_pairs(),
        [
            ("db", "pubmed"),
            ("term", "retrieval medicine"),
            ("retmax", "2"),
            ("tool", "biopython"),
            ("email", "me@example.org")
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
    );
    assert_eq!(
        requests[1].query_pairs(),
        [
            ("db", "pubmed"),
            ("id", "38000001,38000002"),
            ("retmode", "xml"),
            ("tool", "biopython"),
            ("email", "me@example.org")
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
    );
    let text = ran.output("Tool:T", "formalized_content");
    let text = text.as_str().unwrap_or_default();
    assert!(text.contains("├── URL: https://pubmed.ncbi.nlm.nih.gov/38000001\n└── Content:\nTitle: Retrieval in medicine\nAuthors: Jane Doe, Rick Roe\nJournal: Journal of Tests\nVolume: 12\nIssue: 3\nPages: 1-9\nDOI: 10.1000/test.1\nAbstract: An abstract with bold words."), "{text}");
    assert!(text.contains("Title: Bare\nAuthors: Unknown Authors\nJournal: Unknown Journal\nVolume: -\nIssue: -\nPages: -\nDOI: -\nAbstract: No abstract available"), "{text}");
}
