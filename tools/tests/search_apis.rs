//! Wikipedia, GitHub, Google (SerpApi) and DuckDuckGo against stubs of their services on
//! 127.0.0.1. Each test asserts the exact request and answers in the service's documented shape:
//!
//! * MediaWiki Action API, `list=search` and `prop=info|pageprops|extracts`:
//!   <https://www.mediawiki.org/wiki/API:Search>, <https://www.mediawiki.org/wiki/API:Info>,
//!   <https://www.mediawiki.org/wiki/Extension:TextExtracts#API>;
//! * GitHub REST "Search repositories":
//!   <https://docs.github.com/en/rest/search/search#search-repositories>;
//! * SerpApi Google Search API: <https://serpapi.com/search-api> (`organic_results[]` with
//!   `title`, `link`, `snippet`; `error` on failure);
//! * DuckDuckGo's HTML results page (`https://html.duckduckgo.com/html`): the
//!   `result__a`/`result__snippet` markup the `duckduckgo_search` library reads.

mod support;

use canvasc_engine::RunOutcome;
use serde_json::json;
use support::{agent_canvas, calling_script, node_canvas, registry, run, Answer, Stub};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wikipedia_searches_then_loads_each_page_as_the_library_does() {
    let stub = Stub::start().await;
    stub.on(
        "/w/api.php",
        vec![
            // search(query, results=top_n)
            Answer::json(&json!({"batchcomplete": "", "query": {"searchinfo": {"totalhits": 2}, "search": [{"ns": 0, "title": "Rust (programming language)"}, {"ns": 0, "title": "Rust"}]}})),
            // page 1: auto-suggest search, info, extracts
            Answer::json(&json!({"query": {"searchinfo": {"totalhits": 1}, "search": [{"ns": 0, "title": "Rust (programming language)"}]}})),
            Answer::json(&json!({"query": {"pages": {"29414838": {"pageid": 29414838, "ns": 0, "title": "Rust (programming language)", "fullurl": "https://en.wikipedia.org/wiki/Rust_(programming_language)"}}}})),
            Answer::json(&json!({"query": {"pages": {"29414838": {"pageid": 29414838, "ns": 0, "title": "Rust (programming language)", "extract": "Rust is a general-purpose programming language."}}}})),
            // page 2: a disambiguation page, skipped
            Answer::json(&json!({"query": {"searchinfo": {"totalhits": 1}, "search": [{"ns": 0, "title": "Rust"}]}})),
            Answer::json(&json!({"query": {"pages": {"26477": {"pageid": 26477, "ns": 0, "title": "Rust", "fullurl": "https://en.wikipedia.org/wiki/Rust", "pageprops": {"disambiguation": ""}}}}})),
        ],
    );
    let toml = format!(
        "[tools.wikipedia]\nbase_url = \"{}/w/api.php\"\n",
        stub.base
    );
    let dsl = node_canvas("Wikipedia", json!({"top_n": 2}), "formalized_content");
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&toml),
        "rust language",
    )
    .await;
    let requests = stub.requests();
    assert_eq!(requests.len(), 6, "{requests:#?}");
    assert!(requests
        .iter()
        .all(|r| r.method == "GET" && r.path == "/w/api.php"));
    assert_eq!(
        requests[0].query_pairs(),
        [
            ("list", "search"),
            ("srprop", ""),
            ("srlimit", "2"),
            ("limit", "2"),
            ("srsearch", "rust language"),
            ("format", "json"),
            ("action", "query")
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
    );
    assert_eq!(
        requests[0].headers.get("user-agent").map(String::as_str),
        Some("wikipedia (https://github.com/goldsmith/Wikipedia/)")
    );
    assert!(requests[1]
        .query_pairs()
        .contains(&("srinfo".into(), "suggestion".into())));
    assert!(requests[2]
        .query_pairs()
        .contains(&("prop".into(), "info|pageprops".into())));
    assert!(requests[3]
        .query_pairs()
        .contains(&("prop".into(), "extracts".into())));
    let text = ran.output("Tool:T", "formalized_content");
    let text = text.as_str().unwrap_or_default();
    assert!(text.contains("├── Title: Rust (programming language)\n├── URL: https://en.wikipedia.org/wiki/Rust_(programming_language)\n└── Content:\nRust is a general-purpose programming language."), "{text}");
    assert!(
        !text.contains("wiki/Rust\n"),
        "the disambiguation page is skipped: {text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wikipedia_refuses_a_language_that_is_not_a_wiki_code() {
    let stub = Stub::start().await;
    let dsl = node_canvas(
        "Wikipedia",
        json!({"language": "evil.example/x?"}),
        "formalized_content",
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(""), "q").await;
    assert!(stub.requests().is_empty());
    // RAGFlow's `WikiPediaParam.check` refuses the canvas when it is built: the turn ends with
    // that exception before any component runs.
    let RunOutcome::Aborted(error) = &ran.outcome else {
        panic!("the canvas was built: {:?}", ran.outcome);
    };
    assert!(
        error
            .to_string()
            .contains("Wikipedia languages evil.example/x? is not supported"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_sends_the_query_unencoded_and_reports_messages() {
    let stub = Stub::start().await;
    let items = json!([
        {"id": 1, "name": "ragflow", "full_name": "infiniflow/ragflow", "html_url": "https://github.com/infiniflow/ragflow", "description": "RAG engine", "watchers": 70000, "stargazers_count": 70000},
        {"id": 2, "name": "nodesc", "full_name": "a/nodesc", "html_url": "https://github.com/a/nodesc", "description": null, "watchers": 3, "stargazers_count": 3}
    ]);
    stub.on("/search/repositories", vec![
        Answer::json(&json!({"total_count": 2, "incomplete_results": false, "items": items})),
        Answer::status(422, &json!({"message": "Validation Failed", "documentation_url": "https://docs.github.com/rest"})),
    ]);
    let toml = format!("[tools.github]\nbase_url = \"{}\"\n", stub.base);
    let dsl = node_canvas("GitHub", json!({"top_n": 5}), "formalized_content");
    let ran = run(
        &dsl,
        &json!({"default": "x"}),
        registry(&toml),
        "rag engine",
    )
    .await;
    let r = &stub.requests()[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("GET", "/search/repositories")
    );
    assert_eq!(
        r.query.as_deref(),
        Some("q=rag%20engine&sort=stars&order=desc&per_page=5")
    );
    assert_eq!(
        r.headers.get("content-type").map(String::as_str),
        Some("application/vnd.github+json")
    );
    assert_eq!(
        r.headers.get("x-github-api-version").map(String::as_str),
        Some("2022-11-28")
    );
    assert_eq!(ran.output("Tool:T", "json"), items);
    let text = ran.output("Tool:T", "formalized_content");
    assert!(text.as_str().is_some_and(|t| t.contains("RAG engine\n stars:70000") && t.contains("None\n stars:3")), "{text}");

    let dsl = node_canvas(
        "GitHub",
        json!({"delay_after_error": 0.01}),
        "formalized_content",
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "bad:query").await;
    assert_eq!(ran.output("Tool:T", "_ERROR"), json!("Validation Failed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn google_sends_serpapi_parameters_and_never_shows_the_key() {
    let stub = Stub::start().await;
    let organic = json!([
        {"position": 1, "title": "RAGFlow", "link": "https://ragflow.io/", "snippet": "Open-source RAG engine."},
        {"position": 2, "title": "Docs", "link": "https://ragflow.io/docs", "snippet": "short", "about_this_result": {"source": {"description": "The documentation site."}}}
    ]);
    stub.on("/search", vec![
        Answer::json(&json!({"search_metadata": {"status": "Success"}, "organic_results": organic})),
        Answer::status(401, &json!({"error": "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"})),
    ]);
    let toml = format!("[tools.google]\nbase_url = \"{}\"\n", stub.base);
    let dsl = node_canvas(
        "Google",
        json!({"api_key": "serp-secret", "country": "us", "language": "en"}),
        "formalized_content",
    );
    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "ragflow").await;
    let r = &stub.requests()[0];
    assert_eq!((r.method.as_str(), r.path.as_str()), ("GET", "/search"));
    assert_eq!(
        r.query_pairs(),
        [
            ("api_key", "serp-secret"),
            ("engine", "google"),
            ("q", "ragflow"),
            ("google_domain", "google.com"),
            ("gl", "us"),
            ("hl", "en"),
            ("source", "python"),
            ("output", "json")
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
    );
    let text = ran.output("Tool:T", "formalized_content");
    assert!(
        text.as_str().is_some_and(
            |t| t.contains("Open-source RAG engine.") && t.contains("The documentation site.")
        ),
        "{text}"
    );

    let ran = run(&dsl, &json!({"default": "x"}), registry(&toml), "again").await;
    let error = ran.output("Tool:T", "_ERROR");
    assert_eq!(
        error,
        json!("Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key")
    );
    assert!(
        !ran.events
            .iter()
            .any(|e| e.to_string().contains("serp-secret")),
        "the key never shows in events"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duckduckgo_posts_the_html_form_and_reads_the_results() {
    let stub = Stub::start().await;
    let page = r#"<html><body><div class="serp__results"><div id="links" class="results">
<div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.rust%2Dlang.org%2F&amp;rut=abc">Rust Programming Language</a></h2>
<div class="result__extras"><div class="result__extras__url"><a class="result__url" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.rust%2Dlang.org%2F&amp;rut=abc">www.rust-lang.org</a></div></div>
<a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.rust%2Dlang.org%2F&amp;rut=abc">A language empowering everyone to build <b>reliable</b> &amp; efficient software.</a>
<div class="clear"></div></div></div>
<div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="https://doc.rust-lang.org/book/">The Rust Book</a></h2>
<a class="result__snippet" href="https://doc.rust-lang.org/book/">Learn Rust.</a>
</div></div></div></div></body></html>"#;
    stub.on(
        "/html",
        vec![Answer::text("text/html; charset=utf-8", page)],
    );
    let toml = format!("[tools.duckduckgo]\nbase_url = \"{}\"\n", stub.base);
    let dsl = agent_canvas("DuckDuckGo", json!({"top_n": 5}));
    let script = calling_script(
        "duckduckgo_search_0",
        json!({"query": "rust lang"}),
        "The Rust Book",
        "Done.",
    );
    let ran = run(&dsl, &script, registry(&toml), "tell me about rust").await;
    let r = &stub.requests()[0];
    assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/html"));
    assert_eq!(r.body, "q=rust+lang&b=&kl=wt-wt");
    assert_eq!(
        r.headers.get("content-type").map(String::as_str),
        Some("application/x-www-form-urlencoded")
    );
    let results = ran.tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].contains("├── Title: Rust Programming Language\n├── URL: https://www.rust-lang.org/\n└── Content:\nA language empowering everyone to build reliable & efficient software."), "{results:?}");
    assert!(
        results[0].contains("├── URL: https://doc.rust-lang.org/book/"),
        "{results:?}"
    );
}

#[test]
fn duckduckgo_page_parsing_skips_ads_and_repeats() {
    let page = r#"<h2><a class="result__a" href="x">Ad</a></h2><a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=a">ad</a>
<h2><a class="result__a" href="y">One</a></h2><a class="result__snippet" href="https://one.example/">first</a>
<h2><a class="result__a" href="y">One again</a></h2><a class="result__snippet" href="https://one.example/">again</a>"#;
    let results = canvasc_tools::duckduckgo::parse_results(page, 10);
    assert_eq!(
        results,
        vec![json!({"title": "One", "href": "https://one.example/", "body": "first"})]
    );
}
