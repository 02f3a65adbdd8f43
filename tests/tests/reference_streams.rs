//! Golden event streams from RAGFlow's own engine (`../shared/reference-streams`): our
//! interpreter must reproduce them line for line after the oracle's normalisation, with the
//! scripted model in-process and served over HTTP to the real client. Each stream is its own
//! test (`cargo test -p canvasc-tests --test reference_streams -- <case>`).

use canvasc_engine::interp::Interpreter;
use canvasc_tests::harness::Suite;
use canvasc_tests::reference::{first_difference, run_case, run_case_on, run_case_over_http, Case};
use canvasc_tests::{reference_cases, shared_dir};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use tokio::runtime::Runtime;

/// Every command of `INDEX.md`; each is in exactly one of the lists below.
const STREAMS: usize = 41;

/// Cases this build does not replay, each with its reason (an ignored test).
const NOT_RUN: &[(&str, &str)] = &[(
    "tpl_stock_market_research_assistant",
    "the oracle's fake `Ticker.balance_sheet` is a frame of columns `item`, `v` on a RangeIndex, \
     which no answer of Yahoo's fundamentals API gives (yfinance indexes a statement by line \
     item, its columns are dates), so the YahooFinance report cannot match",
)];

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
    "ex_tavily_and_generate",
    "ex_retrieval_and_generate",
    "ex_retrieval_categorize_and_generate",
    "td_all_retrieval",
    "tpl_smart_customer_service_comparison",
    "tpl_smart_customer_service_usage",
    "tpl_text2sql_data_expert",
    "td_all_code",
    "tpl_data_analysis_beginner_assistant",
    "ex_iteration",
    "tpl_smart_customer_service_booking",
    "ex_exesql",
    "ex_headhunter_zh",
    "tpl_web_search_assistant",
];

/// The table each case's scripted SQL reads (the oracle's canned rows are loaded into it in the
/// machine's MariaDB: `sql_stub.rs`).
const SQL_TABLES: &[(&str, &str)] = &[("tpl_text2sql_data_expert", "users")];

/// Replays one case interpreted, with every reference bound as a compiled program binds it,
/// and with the same script served over HTTP (the real client path gives the same stream).
fn replay(rt: &Runtime, name: &str, case: &Case, stream: &Path) -> Result<(), String> {
    let expected: Vec<String> = std::fs::read_to_string(stream)
        .map_err(|e| format!("cannot read {}: {e}", stream.display()))?
        .lines()
        .map(str::to_string)
        .collect();
    let mut failures = Vec::new();
    let actual = rt.block_on(run_case(case));
    if let Some(diff) = first_difference(&expected, &actual) {
        failures.push(format!("{name}: {diff}"));
    }
    let bound = rt
        .block_on(run_case_on(case, |a| {
            Arc::new(Interpreter::from_analysis(a).bound(&a.ir))
        }))
        .lines;
    if let Some(diff) = first_difference(&expected, &bound) {
        failures.push(format!("{name} (bound): {diff}"));
    }
    let http = rt.block_on(run_case_over_http(case)).lines;
    if let Some(diff) = first_difference(&expected, &http) {
        failures.push(format!("{name} (over HTTP): {diff}"));
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n\n"))
    }
}

fn main() -> ExitCode {
    const SUITE: &str = "supported_reference_streams_match";
    let mut suite = Suite::from_args().one_at_a_time();
    let Some(shared) = shared_dir(SUITE) else {
        suite.not_run(
            SUITE,
            "no shared corpus (set CANVASC_SHARED to its location)",
        );
        return suite.run();
    };
    let rt = Arc::new(
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime"),
    );
    let cases = reference_cases(&shared);
    assert_eq!(cases.len(), STREAMS, "the commands of INDEX.md");
    let mut supported = 0;
    for (name, mut case, stream) in cases {
        if let Some((_, table)) = SQL_TABLES.iter().find(|(n, _)| *n == name) {
            case.sql_table = Some(table.to_string());
        }
        let rt = Arc::clone(&rt);
        let run = {
            let name = name.clone();
            move || replay(&rt, &name, &case, &stream)
        };
        if let Some((_, reason)) = NOT_RUN.iter().find(|(n, _)| *n == name) {
            suite.skip(&name, reason, run);
            continue;
        }
        assert!(
            SUPPORTED.contains(&name.as_str()),
            "{name}: a new stream: list it in SUPPORTED or NOT_RUN"
        );
        supported += 1;
        suite.case(&name, run);
    }
    assert_eq!(
        supported,
        SUPPORTED.len(),
        "every supported case is in INDEX.md"
    );
    suite.assert_counts("the commands of INDEX.md", STREAMS, NOT_RUN.len());
    suite.run()
}
