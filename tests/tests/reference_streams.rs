//! Golden event streams from RAGFlow's own engine (`../shared/reference-streams`): our
//! interpreter must reproduce them line for line after the oracle's normalisation, with the
//! scripted model in-process and served over HTTP to the real client.

use canvasc_runtime::exec::interp::Interpreter;
use canvasc_tests::reference::{first_difference, run_case, run_case_on, run_case_over_http};
use canvasc_tests::{reference_cases, report_skip, shared_dir};
use std::sync::Arc;

/// Every command of `INDEX.md`; each is in exactly one of the lists below.
const STREAMS: usize = 41;

/// Cases this build does not replay, each with its reason (printed when the suite runs).
const NOT_RUN: &[(&str, &str)] = &[
    (
        "ex_exesql",
        "RAGFlow refuses to build it (no `Answer` component)",
    ),
    (
        "ex_headhunter_zh",
        "RAGFlow refuses to build it (no `Answer` component)",
    ),
    (
        "tpl_web_search_assistant",
        "RAGFlow refuses to build it (no `Bing` tool)",
    ),
    (
        "ex_retrieval_and_generate",
        "uses Retrieval (no knowledge base in this build)",
    ),
    (
        "ex_retrieval_categorize_and_generate",
        "uses Retrieval (no knowledge base in this build)",
    ),
    (
        "td_all_retrieval",
        "uses Retrieval (no knowledge base in this build)",
    ),
    (
        "tpl_smart_customer_service_comparison",
        "uses Retrieval (no knowledge base in this build)",
    ),
    (
        "tpl_smart_customer_service_usage",
        "uses Retrieval (no knowledge base in this build)",
    ),
    (
        "tpl_text2sql_data_expert",
        "uses Retrieval and ExeSQL (no knowledge base or database)",
    ),
    (
        "ex_tavily_and_generate",
        "uses TavilySearch (the oracle's canned tool data)",
    ),
    ("td_all_code", "uses CodeExec (RAGFlow's local sandbox)"),
    (
        "tpl_data_analysis_beginner_assistant",
        "uses CodeExec as an Agent tool (RAGFlow's local sandbox)",
    ),
    (
        "tpl_stock_market_research_assistant",
        "uses CodeExec and YahooFinance (sandbox, canned tool data)",
    ),
    (
        "ex_iteration",
        "not yet reproduced by this build (stale DSL that RAGFlow stops on mid-run)",
    ),
    (
        "tpl_smart_customer_service_booking",
        "not yet reproduced by this build",
    ),
];

/// Cases whose components this build implements.
const SUPPORTED: &[&str] = &[
    "td_all_loop",
    "td_all_iteration",
    "td_all_condition",
    "td_all_data_ops",
    "td_all_text",
    "td_all_var_assigner",
    "td_all_var_aggregator",
    "td_all_message",
    "td_all_wait_input",
    "td_all_help",
    "td_agent_msg",
    "td_all_categorize",
    "ex_categorize_and_agent_with_tavily_product",
    "ex_categorize_and_agent_with_tavily_others",
    "tpl_customer_feedback_dispatcher_negative",
    "tpl_customer_feedback_dispatcher_exact_negative",
    "tpl_customer_feedback_dispatcher_positive",
    "tpl_photo_text_translator",
    "tpl_deep_research",
    "tpl_cajal_scientific_paper_agent",
    "tpl_reflective_academic_paper_generator",
    "tpl_your_starter_dataset_chatbot",
    "tpl_seo_article_writer",
    "tpl_market_seo_article_writer",
    "tpl_trip_planner",
    "tpl_user_interaction",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn supported_reference_streams_match() {
    let Some(shared) = shared_dir("supported_reference_streams_match") else {
        return;
    };
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut skipped = 0;
    let cases = reference_cases(&shared);
    assert_eq!(cases.len(), STREAMS, "the commands of INDEX.md");
    for (name, case, stream) in cases {
        if let Some((_, reason)) = NOT_RUN.iter().find(|(n, _)| *n == name) {
            report_skip("supported_reference_streams_match", &name, reason);
            skipped += 1;
            continue;
        }
        assert!(
            SUPPORTED.contains(&name.as_str()),
            "{name}: a new stream: list it in SUPPORTED or NOT_RUN"
        );
        ran += 1;
        let expected: Vec<String> = std::fs::read_to_string(&stream)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", stream.display()))
            .lines()
            .map(str::to_string)
            .collect();
        let actual = run_case(&case).await;
        if let Some(diff) = first_difference(&expected, &actual) {
            failures.push(format!("{name}: {diff}"));
        }
        // The same case with every reference bound as a compiled program binds it.
        let bound = run_case_on(&case, |a| {
            Arc::new(Interpreter::from_analysis(a).bound(&a.ir))
        })
        .await
        .lines;
        if let Some(diff) = first_difference(&expected, &bound) {
            failures.push(format!("{name} (bound): {diff}"));
        }
        // The same script served over HTTP: the real client path gives the same stream.
        let http = run_case_over_http(&case).await.lines;
        if let Some(diff) = first_difference(&expected, &http) {
            failures.push(format!("{name} (over HTTP): {diff}"));
        }
    }
    assert_eq!(ran, SUPPORTED.len(), "every supported case is in INDEX.md");
    assert_eq!(skipped, NOT_RUN.len(), "every case not run is in INDEX.md");
    assert_eq!(ran + skipped, STREAMS);
    assert!(
        failures.is_empty(),
        "{} of {ran} streams differ:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
