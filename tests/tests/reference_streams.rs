//! Golden event streams from RAGFlow's own engine (`../shared/reference-streams`): our
//! interpreter must reproduce them line for line after the oracle's normalisation, with the
//! scripted model in-process and served over HTTP to the real client.

use canvasc_runtime::exec::interp::Interpreter;
use canvasc_tests::reference::{first_difference, run_case, run_case_on, run_case_over_http};
use canvasc_tests::{reference_cases, shared_dir};
use std::sync::Arc;

/// Cases whose components this build implements; the rest are listed by the report test.
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
    for (name, case, stream) in reference_cases(&shared) {
        if !SUPPORTED.contains(&name.as_str()) {
            continue;
        }
        ran += 1;
        let expected: Vec<String> = std::fs::read_to_string(&stream)
            .unwrap_or_default()
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
    assert!(
        failures.is_empty(),
        "{} of {ran} streams differ:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
