//! RAGFlow's parameter defaults per kind: the attributes each Python param object holds
//! right after `__init__`, in attribute (dict insertion) order, as JSON text.
//!
//! Tool params assign `meta` before calling `ToolParamBase.__init__`, so `meta` comes first
//! for them, then the shared `ComponentParamBase` attributes, then one attribute per meta
//! parameter the class does not already have, then the class's own attributes. A Python
//! re-assignment keeps the first position (e.g. DuckDuckGo's `channel`, Categorize's
//! `message_history_window_size`).

use super::Kind;
use serde_json::{Map, Value};
use std::sync::LazyLock;

/// RAGFlow's parameter-class attributes for `kind`, in `__init__` order, as JSON text.
pub fn param_defaults(kind: Kind) -> &'static [(&'static str, &'static str)] {
    match kind {
        Kind::Begin => BEGIN,
        Kind::UserFillUp => USER_FILL_UP,
        Kind::Message => MESSAGE,
        Kind::Llm => LLM,
        Kind::Categorize => CATEGORIZE,
        Kind::Switch => SWITCH,
        Kind::Agent => AGENT,
        Kind::Iteration => ITERATION,
        Kind::IterationItem => ITERATION_ITEM,
        Kind::Loop => LOOP,
        Kind::LoopItem => LOOP_ITEM,
        Kind::ExitLoop => EXIT_LOOP,
        Kind::Invoke => INVOKE,
        Kind::Browser => BROWSER,
        Kind::DataOperations => DATA_OPERATIONS,
        Kind::ListOperations => LIST_OPERATIONS,
        Kind::StringTransform => STRING_TRANSFORM,
        Kind::VariableAggregator => VARIABLE_AGGREGATOR,
        Kind::VariableAssigner => VARIABLE_ASSIGNER,
        Kind::DocGenerator => DOC_GENERATOR,
        Kind::ExcelProcessor => EXCEL_PROCESSOR,
        Kind::Answer => ANSWER,
        Kind::AkShare => AK_SHARE,
        Kind::ArXiv => AR_XIV,
        Kind::Bgpt => BGPT,
        Kind::CodeExec => CODE_EXEC,
        Kind::Crawler => CRAWLER,
        Kind::DeepL => DEEP_L,
        Kind::DuckDuckGo => DUCK_DUCK_GO,
        Kind::Email => EMAIL,
        Kind::ExeSql => EXE_SQL,
        Kind::GitHub => GIT_HUB,
        Kind::Google => GOOGLE,
        Kind::GoogleScholar => GOOGLE_SCHOLAR,
        Kind::Jin10 => JIN10,
        Kind::KeenableSearch => KEENABLE_SEARCH,
        Kind::PubMed => PUB_MED,
        Kind::QueritSearch => QUERIT_SEARCH,
        Kind::QueritContents => QUERIT_CONTENTS,
        Kind::QWeather => QWEATHER,
        Kind::Retrieval => RETRIEVAL,
        Kind::SearXng => SEAR_XNG,
        Kind::TavilySearch => TAVILY_SEARCH,
        Kind::TavilyExtract => TAVILY_EXTRACT,
        Kind::TuShare => TU_SHARE,
        Kind::WenCai => WEN_CAI,
        Kind::Wikipedia => WIKIPEDIA,
        Kind::YahooFinance => YAHOO_FINANCE,
    }
}

/// Every kind's defaults as JSON, parsed once (in [`Kind::ALL`] order) rather than once per
/// component of a canvas.
static PARSED_DEFAULTS: LazyLock<Vec<Map<String, Value>>> = LazyLock::new(|| {
    Kind::ALL
        .iter()
        .map(|&kind| {
            param_defaults(kind)
                .iter()
                .map(|(k, v)| {
                    (
                        (*k).to_string(),
                        serde_json::from_str(v).unwrap_or(Value::Null),
                    )
                })
                .collect()
        })
        .collect()
});

/// Defaults merged with the DSL's params the way Python's `ComponentParamBase.update` does.
pub fn merged_params(kind: Kind, dsl_params: &Map<String, Value>) -> Map<String, Value> {
    let mut out = PARSED_DEFAULTS
        .get(kind as usize)
        .cloned()
        .unwrap_or_default();
    for (k, v) in dsl_params {
        out.insert(k.clone(), v.clone());
    }
    out
}

/// `BeginParam` extends `UserFillUpParam`.
const BEGIN: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("enable_tips", r#"true"#),
    ("tips", r#""Please fill up the form""#),
    ("layout_recognize", r#""""#),
    ("mode", r#""conversational""#),
    (
        "prologue",
        r#""Hi! I'm your smart assistant. What can I do for you?""#,
    ),
];

const USER_FILL_UP: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("enable_tips", r#"true"#),
    ("tips", r#""Please fill up the form""#),
    ("layout_recognize", r#""""#),
];

const MESSAGE: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    (
        "outputs",
        r#"{"content": {"type": "str"}, "downloads": {"type": "list"}}"#,
    ),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("content", r#"[]"#),
    ("stream", r#"true"#),
    ("output_format", r#"null"#),
    ("auto_play", r#"false"#),
];

const LLM: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("llm_id", r#""""#),
    ("sys_prompt", r#""""#),
    ("prompts", r#"[{"role": "user", "content": "{sys.query}"}]"#),
    ("max_tokens", r#"0"#),
    ("temperature", r#"0"#),
    ("top_p", r#"0"#),
    ("presence_penalty", r#"0"#),
    ("frequency_penalty", r#"0"#),
    ("output_structure", r#"null"#),
    ("cite", r#"true"#),
    ("visual_files_var", r#"null"#),
];

/// `sys_prompt` is what `update_prompt()` renders for an empty `category_description`.
const CATEGORIZE: &[(&str, &str)] = &[
    ("message_history_window_size", r#"1"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("llm_id", r#""""#),
    (
        "sys_prompt",
        r#""\nYou are an advanced classification system that categorizes user questions into specific types. Analyze the input question and classify it into ONE of the following categories:\n\n\nHere's description of each category:\n - \n\n---- Instructions ----\n - Consider both explicit mentions and implied context\n - Prioritize the most specific applicable category\n - Return only the category name without explanations\n - Use \"Other\" only when no other category fits\n\n ""#,
    ),
    ("prompts", r#"[{"role": "user", "content": "{sys.query}"}]"#),
    ("max_tokens", r#"0"#),
    ("temperature", r#"0"#),
    ("top_p", r#"0"#),
    ("presence_penalty", r#"0"#),
    ("frequency_penalty", r#"0"#),
    ("output_structure", r#"null"#),
    ("cite", r#"true"#),
    ("visual_files_var", r#"null"#),
    ("category_description", r#"{}"#),
    ("query", r#""sys.query""#),
];

const SWITCH: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("conditions", r#"[]"#),
    ("end_cpn_ids", r#"[]"#),
    (
        "operators",
        r#"["contains", "not contains", "start with", "end with", "empty", "not empty", "=", "≠", ">", "<", "≥", "≤"]"#,
    ),
];

/// `AgentParam(LLMParam, ToolParamBase)`: meta, the shared base, the meta parameters, LLM's
/// attributes, then Agent's own.
const AGENT: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "agent", "description": "This is an agent for a specific task.", "parameters": {"user_prompt": {"type": "string", "description": "This is the order you need to send to the agent.", "default": "", "required": true}, "reasoning": {"type": "string", "description": "Supervisor's reasoning for choosing the this agent. Explain why this agent is being invoked and what is expected of it.", "required": true}, "context": {"type": "string", "description": "All relevant background information, prior facts, decisions, and state needed by the agent to solve the current query. Should be as detailed and self-contained as possible.", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"user_prompt": {"type": "string", "description": "This is the order you need to send to the agent.", "default": "", "required": true}, "reasoning": {"type": "string", "description": "Supervisor's reasoning for choosing the this agent. Explain why this agent is being invoked and what is expected of it.", "required": true}, "context": {"type": "string", "description": "All relevant background information, prior facts, decisions, and state needed by the agent to solve the current query. Should be as detailed and self-contained as possible.", "required": true}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("user_prompt", r#""""#),
    ("reasoning", r#"null"#),
    ("context", r#"null"#),
    ("llm_id", r#""""#),
    ("sys_prompt", r#""""#),
    ("prompts", r#"[{"role": "user", "content": "{sys.query}"}]"#),
    ("max_tokens", r#"0"#),
    ("temperature", r#"0"#),
    ("top_p", r#"0"#),
    ("presence_penalty", r#"0"#),
    ("frequency_penalty", r#"0"#),
    ("output_structure", r#"null"#),
    ("cite", r#"true"#),
    ("visual_files_var", r#"null"#),
    ("function_name", r#""agent""#),
    ("tools", r#"[]"#),
    ("mcp", r#"[]"#),
    ("max_rounds", r#"5"#),
    ("custom_header", r#"{}"#),
];

const ITERATION: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("items_ref", r#""""#),
    ("variable", r#"{}"#),
];

const ITERATION_ITEM: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
];

const LOOP: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("loop_variables", r#"[]"#),
    ("loop_termination_condition", r#"[]"#),
    ("maximum_loop_count", r#"0"#),
];

const LOOP_ITEM: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
];

const EXIT_LOOP: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
];

const INVOKE: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("proxy", r#"null"#),
    ("headers", r#""""#),
    ("method", r#""get""#),
    ("variables", r#"[]"#),
    ("url", r#""""#),
    ("timeout", r#"60"#),
    ("clean_html", r#"false"#),
    ("datatype", r#""json""#),
];

const BROWSER: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    (
        "outputs",
        r#"{"content": {"type": "string", "value": ""}, "downloaded_files": {"type": "Array<Object>", "value": []}}"#,
    ),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("llm_id", r#""""#),
    ("sys_prompt", r#""""#),
    ("prompts", r#""{sys.query}""#),
    ("max_tokens", r#"0"#),
    ("temperature", r#"0"#),
    ("top_p", r#"0"#),
    ("presence_penalty", r#"0"#),
    ("frequency_penalty", r#"0"#),
    ("output_structure", r#"null"#),
    ("cite", r#"true"#),
    ("visual_files_var", r#"null"#),
    ("max_steps", r#"30"#),
    ("headless", r#"true"#),
    ("enable_default_extensions", r#"false"#),
    ("chromium_sandbox", r#"false"#),
    ("persist_session", r#"true"#),
    ("upload_sources", r#"[]"#),
];

const DATA_OPERATIONS: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    (
        "outputs",
        r#"{"result": {"value": [], "type": "Array of Object"}}"#,
    ),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#"[]"#),
    ("operations", r#""literal_eval""#),
    ("select_keys", r#"[]"#),
    ("filter_values", r#"[]"#),
    ("updates", r#"[]"#),
    ("remove_keys", r#"[]"#),
    ("rename_keys", r#"[]"#),
];

const LIST_OPERATIONS: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    (
        "outputs",
        r#"{"result": {"value": [], "type": "Array of ?"}, "first": {"value": "", "type": "?"}, "last": {"value": "", "type": "?"}}"#,
    ),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""""#),
    ("operations", r#""nth""#),
    ("n", r#"0"#),
    ("strict", r#"false"#),
    ("sort_method", r#""asc""#),
    ("sort_by", r#""""#),
    ("filter", r#"{"operator": "=", "value": ""}"#),
];

const STRING_TRANSFORM: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{"result": {"value": "", "type": "string"}}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("method", r#""split""#),
    ("script", r#""""#),
    ("split_ref", r#""""#),
    ("delimiters", r#"[","]"#),
];

const VARIABLE_AGGREGATOR: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("groups", r#"[]"#),
];

const VARIABLE_ASSIGNER: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("variables", r#"[]"#),
];

const DOC_GENERATOR: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    (
        "outputs",
        r#"{"doc_id": {"value": "", "type": "string"}, "filename": {"value": "", "type": "string"}, "mime_type": {"value": "", "type": "string"}, "size": {"value": 0, "type": "number"}, "download": {"value": "", "type": "string"}}"#,
    ),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("output_format", r#""pdf""#),
    ("content", r#""""#),
    ("filename", r#""""#),
    ("header_text", r#""""#),
    ("footer_text", r#""""#),
    ("watermark_text", r#""""#),
    ("add_page_numbers", r#"true"#),
    ("add_timestamp", r#"true"#),
    ("include_download_info_in_content", r#"false"#),
    ("font_size", r#"12"#),
];

const EXCEL_PROCESSOR: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    (
        "outputs",
        r#"{"data": {"type": "object", "value": {}}, "summary": {"type": "str", "value": ""}, "markdown": {"type": "str", "value": ""}}"#,
    ),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("input_files", r#"[]"#),
    ("operation", r#""read""#),
    ("sheet_selection", r#""all""#),
    ("merge_strategy", r#""concat""#),
    ("join_on", r#""""#),
    ("transform_instructions", r#""""#),
    ("transform_data", r#""""#),
    ("output_format", r#""xlsx""#),
    ("output_filename", r#""output""#),
];

/// Legacy v1 node with no Python class: the shared base plus its v1 `post_answers`.
const ANSWER: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("post_answers", r#"[]"#),
];

const AK_SHARE: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "akshare_stock_news", "description": "AkShare retrieves the latest news articles for a given Chinese A-share stock from East Money (东方财富).", "parameters": {"query": {"type": "string", "description": "The stock symbol/code to fetch news for, e.g. '600519'.", "default": "{sys.query}", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The stock symbol/code to fetch news for, e.g. '600519'.", "default": "{sys.query}", "required": true}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("top_n", r#"10"#),
];

const AR_XIV: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "arxiv_search", "description": "arXiv is a free distribution service and an open-access archive for nearly 2.4 million scholarly articles in the fields of physics, mathematics, computer science, quantitative biology, quantitative finance, statistics, electrical engineering and systems science, and economics. Materials on this site are not peer-reviewed by arXiv.", "parameters": {"query": {"type": "string", "description": "The search keywords to execute with arXiv. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The search keywords to execute with arXiv. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("top_n", r#"12"#),
    ("sort_by", r#""submittedDate""#),
];

const BGPT: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "bgpt_search", "description": "BGPT searches scientific papers and returns structured evidence extracted from full-text studies: methods, sample sizes, results, limitations, conflicts of interest, data/code availability, study blind spots, quality scores, and falsification prompts. Useful when the agent must judge a scientific claim, not just find abstracts.", "parameters": {"query": {"type": "string", "description": "Natural-language scientific search query. Use the most important terms from the user's request.", "default": "{sys.query}", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "Natural-language scientific search query. Use the most important terms from the user's request.", "default": "{sys.query}", "required": true}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("top_n", r#"10"#),
    ("api_key", r#""""#),
    ("days_back", r#"null"#),
];

const CODE_EXEC: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "execute_code", "description": "\nThis tool has a sandbox that can execute code written in 'Python'/'Javascript'. It receives a piece of code and return a Json string.\n\nHere's a code example for Python(`main` function MUST be included):\ndef main() -> dict:\n    \"\"\"\n    Generate Fibonacci numbers within 100.\n    \"\"\"\n    def fibonacci_recursive(n):\n        if n <= 1:\n            return n\n        else:\n            return fibonacci_recursive(n-1) + fibonacci_recursive(n-2)\n    return {\n        \"result\": fibonacci_recursive(100),\n    }\n\nTo generate charts or files (images, PDFs, CSVs, etc.), save them to the `artifacts/` directory (relative to the working directory). The sandbox will automatically collect these files and return them. Example:\ndef main() -> dict:\n    import matplotlib\n    matplotlib.use(\"Agg\")\n    import matplotlib.pyplot as plt\n    import pandas as pd\n\n    df = pd.DataFrame({\"x\": [1, 2, 3, 4], \"y\": [10, 20, 25, 30]})\n    fig, ax = plt.subplots()\n    ax.plot(df[\"x\"], df[\"y\"])\n    ax.set_title(\"Sample Chart\")\n    fig.savefig(\"artifacts/chart.png\", dpi=150, bbox_inches=\"tight\")\n    plt.close(fig)\n    return {\"summary\": \"Chart saved to artifacts/chart.png\"}\n\nAvailable Python packages: pandas, numpy, matplotlib, requests.\nSupported artifact file types: .png, .jpg, .jpeg, .svg, .pdf, .csv, .json, .html\n\nCollected artifacts are also parsed automatically and appended to the stable text output `content`. The content includes sections like `attachment1 (image): ...`, `attachment2 (pdf): ...`, so downstream nodes can consume a single text output without depending on unstable attachment-specific variables.\n\nHere's a code example for Javascript(`main` function MUST be included and exported):\nconst axios = require('axios');\nasync function main(args) {\n  try {\n    const response = await axios.get('https://github.com/infiniflow/ragflow');\n    console.log('Body:', response.data);\n  } catch (error) {\n    console.error('Error:', error.message);\n  }\n}\nmodule.exports = { main };\n            ", "parameters": {"lang": {"type": "string", "description": "The programming language of this piece of code.", "enum": ["python", "javascript"], "required": true}, "script": {"type": "string", "description": "A piece of code in right format. There MUST be main function.", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"lang": {"type": "string", "description": "The programming language of this piece of code.", "enum": ["python", "javascript"], "required": true}, "script": {"type": "string", "description": "A piece of code in right format. There MUST be main function.", "required": true}}"#,
    ),
    (
        "outputs",
        r#"{"result": {"value": "", "type": "object"}, "attachments": {"value": [], "type": "Array<String>"}}"#,
    ),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("lang", r#""python""#),
    (
        "script",
        r#""def main(arg1: str, arg2: str) -> dict: return {\"result\": arg1 + arg2}""#,
    ),
    ("arguments", r#"{}"#),
];

const CRAWLER: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "web_crawler", "description": "This tool can be used to crawl a web page and return its content as HTML, Markdown, or the extracted main text.", "parameters": {"query": {"type": "string", "description": "The absolute URL (including the http:// or https:// scheme) of the web page to crawl.", "default": "{sys.query}", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The absolute URL (including the http:// or https:// scheme) of the web page to crawl.", "default": "{sys.query}", "required": true}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("proxy", r#"null"#),
    ("extract_type", r#""markdown""#),
];

const DEEP_L: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "deepl_translate", "description": "DeepL translates text into a target language using the DeepL translation service.", "parameters": {"query": {"type": "string", "description": "The text to translate.", "default": "{sys.query}", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The text to translate.", "default": "{sys.query}", "required": true}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("auth_key", r#""xxx""#),
    ("source_lang", r#""ZH""#),
    ("target_lang", r#""EN-GB""#),
];

const DUCK_DUCK_GO: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "duckduckgo_search", "description": "DuckDuckGo is a search engine focused on privacy. It offers search capabilities for web pages, images, and provides translation services. DuckDuckGo also features a private AI chat interface, providing users with an AI assistant that prioritizes data protection.", "parameters": {"query": {"type": "string", "description": "The search keywords to execute with DuckDuckGo. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}, "channel": {"type": "string", "description": "default:general. The category of the search. `news` is useful for retrieving real-time updates, particularly about politics, sports, and major current events covered by mainstream media sources. `general` is for broader, more general-purpose searches that may include a wide range of sources.", "enum": ["general", "news"], "default": "general", "required": false}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The search keywords to execute with DuckDuckGo. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}, "channel": {"type": "string", "description": "default:general. The category of the search. `news` is useful for retrieving real-time updates, particularly about politics, sports, and major current events covered by mainstream media sources. `general` is for broader, more general-purpose searches that may include a wide range of sources.", "enum": ["general", "news"], "default": "general", "required": false}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("channel", r#""text""#),
    ("top_n", r#"10"#),
];

const EMAIL: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "email", "description": "The email is a method of electronic communication for sending and receiving information through the Internet. This tool helps users to send emails to one person or to multiple recipients with support for CC, BCC, file attachments, and markdown-to-HTML conversion.", "parameters": {"to_email": {"type": "string", "description": "The target email address.", "default": "{sys.query}", "required": true}, "cc_email": {"type": "string", "description": "The other email addresses needs to be send to. Comma splited.", "default": "", "required": false}, "content": {"type": "string", "description": "The content of the email.", "default": "", "required": false}, "subject": {"type": "string", "description": "The subject/title of the email.", "default": "", "required": false}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"to_email": {"type": "string", "description": "The target email address.", "default": "{sys.query}", "required": true}, "cc_email": {"type": "string", "description": "The other email addresses needs to be send to. Comma splited.", "default": "", "required": false}, "content": {"type": "string", "description": "The content of the email.", "default": "", "required": false}, "subject": {"type": "string", "description": "The subject/title of the email.", "default": "", "required": false}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("to_email", r#""{sys.query}""#),
    ("cc_email", r#""""#),
    ("content", r#""""#),
    ("subject", r#""""#),
    ("smtp_server", r#""""#),
    ("smtp_port", r#"465"#),
    ("email", r#""""#),
    ("smtp_username", r#""""#),
    ("password", r#""""#),
    ("sender_name", r#""""#),
];

const EXE_SQL: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "execute_sql", "description": "This is a tool that can execute SQL.", "parameters": {"sql": {"type": "string", "description": "The SQL needs to be executed.", "default": "{sys.query}", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"sql": {"type": "string", "description": "The SQL needs to be executed.", "default": "{sys.query}", "required": true}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("sql", r#""{sys.query}""#),
    ("db_type", r#""mysql""#),
    ("database", r#""""#),
    ("username", r#""""#),
    ("host", r#""""#),
    ("port", r#"3306"#),
    ("password", r#""""#),
    ("max_records", r#"1024"#),
];

const GIT_HUB: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "github_search", "description": "GitHub repository search is a feature that enables users to find specific repositories on the GitHub platform. This search functionality allows users to locate projects, codebases, and other content hosted on GitHub based on various criteria.", "parameters": {"query": {"type": "string", "description": "The search keywords to execute with GitHub. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The search keywords to execute with GitHub. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("top_n", r#"10"#),
];

const GOOGLE: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "google_search", "description": "Search the world's information, including webpages, images, videos and more. Google has many special features to help you find exactly what you're looking ...", "parameters": {"q": {"type": "string", "description": "The search keywords to execute with Google. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}, "start": {"type": "integer", "description": "Parameter defines the result offset. It skips the given number of results. It's used for pagination. (e.g., 0 (default) is the first page of results, 10 is the 2nd page of results, 20 is the 3rd page of results, etc.). Google Local Results only accepts multiples of 20(e.g. 20 for the second page results, 40 for the third page results, etc.) as the `start` value.", "default": "0", "required": false}, "num": {"type": "integer", "description": "Parameter defines the maximum number of results to return. (e.g., 10 (default) returns 10 results, 40 returns 40 results, and 100 returns 100 results). The use of num may introduce latency, and/or prevent the inclusion of specialized result types. It is better to omit this parameter unless it is strictly necessary to increase the number of results per page. Results are not guaranteed to have the number of results specified in num.", "default": "6", "required": false}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"q": {"type": "string", "description": "The search keywords to execute with Google. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}, "start": {"type": "integer", "description": "Parameter defines the result offset. It skips the given number of results. It's used for pagination. (e.g., 0 (default) is the first page of results, 10 is the 2nd page of results, 20 is the 3rd page of results, etc.). Google Local Results only accepts multiples of 20(e.g. 20 for the second page results, 40 for the third page results, etc.) as the `start` value.", "default": "0", "required": false}, "num": {"type": "integer", "description": "Parameter defines the maximum number of results to return. (e.g., 10 (default) returns 10 results, 40 returns 40 results, and 100 returns 100 results). The use of num may introduce latency, and/or prevent the inclusion of specialized result types. It is better to omit this parameter unless it is strictly necessary to increase the number of results per page. Results are not guaranteed to have the number of results specified in num.", "default": "6", "required": false}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("q", r#""{sys.query}""#),
    ("start", r#"0"#),
    ("num", r#"6"#),
    ("api_key", r#""""#),
    ("country", r#""cn""#),
    ("language", r#""en""#),
];

const GOOGLE_SCHOLAR: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "google_scholar_search", "description": "Google Scholar provides a simple way to broadly search for scholarly literature. From one place, you can search across many disciplines and sources: articles, theses, books, abstracts and court opinions, from academic publishers, professional societies, online repositories, universities and other web sites. Google Scholar helps you find relevant work across the world of scholarly research.", "parameters": {"query": {"type": "string", "description": "The search keyword to execute with Google Scholar. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The search keyword to execute with Google Scholar. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("top_n", r#"12"#),
    ("sort_by", r#""relevance""#),
    ("year_low", r#"null"#),
    ("year_high", r#"null"#),
    ("patents", r#"true"#),
];

const JIN10: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("type", r#""flash""#),
    ("secret_key", r#""xxx""#),
    ("flash_type", r#""1""#),
    ("calendar_type", r#""cj""#),
    ("calendar_datatype", r#""data""#),
    ("symbols_type", r#""GOODS""#),
    ("symbols_datatype", r#""symbols""#),
    ("contain", r#""""#),
    ("filter", r#""""#),
];

const KEENABLE_SEARCH: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "keenable_search", "description": "\nKeenable is a web search API built for AI agents. It returns fresh, relevant web\nresults for a query and works without an API key by default (keyless free tier).\nWhen searching:\n   - Use a focused query of the most important terms (and synonyms).\n   - Optionally restrict to a single site/domain.\n             ", "parameters": {"query": {"type": "string", "description": "The search keywords to execute with Keenable. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}, "site": {"type": "string", "description": "default:''. Restrict results to a single domain, e.g. 'techcrunch.com'.", "default": "", "required": false}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The search keywords to execute with Keenable. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}, "site": {"type": "string", "description": "default:''. Restrict results to a single domain, e.g. 'techcrunch.com'.", "default": "", "required": false}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("site", r#""""#),
    ("api_key", r#""""#),
    ("mode", r#""pro""#),
    ("top_n", r#"10"#),
];

const PUB_MED: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "pubmed_search", "description": "\nPubMed is an openly accessible, free database which includes primarily the MEDLINE database of references and abstracts on life sciences and biomedical topics.\nIn addition to MEDLINE, PubMed provides access to:\n - older references from the print version of Index Medicus, back to 1951 and earlier\n - references to some journals before they were indexed in Index Medicus and MEDLINE, for instance Science, BMJ, and Annals of Surgery\n - very recent entries to records for an article before it is indexed with Medical Subject Headings (MeSH) and added to MEDLINE\n - a collection of books available full-text and other subsets of NLM records[4]\n - PMC citations\n - NCBI Bookshelf\n            ", "parameters": {"query": {"type": "string", "description": "The search keywords to execute with PubMed. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The search keywords to execute with PubMed. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("top_n", r#"12"#),
    ("email", r#""A.N.Other@example.com""#),
];

const QUERIT_SEARCH: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "querit_search", "description": "Search the live web with Querit and return the complete Querit API response.", "parameters": {"query": {"type": "string", "description": "The search query to execute with Querit.", "default": "{sys.query}", "required": true}, "count": {"type": "integer", "description": "The maximum number of results to return. Defaults to 10.", "default": 10, "required": false}, "chunks_per_doc": {"type": "integer", "description": "The number of summary chunks per document. Supports values from 1 to 3.", "default": 3, "required": false}, "site_include": {"type": "array", "description": "Sites that search results must include.", "default": [], "items": {"type": "string"}, "required": false}, "site_exclude": {"type": "array", "description": "Sites that search results must exclude.", "default": [], "items": {"type": "string"}, "required": false}, "time_range": {"type": "string", "description": "A Querit time range such as d7, w1, m3, y1, or YYYY-MM-DDtoYYYY-MM-DD.", "default": "", "required": false}, "country_include": {"type": "array", "description": "Return results associated with the specified countries.", "default": [], "items": {"type": "string"}, "required": false}, "language_include": {"type": "array", "description": "Languages that search results must include.", "default": [], "items": {"type": "string"}, "required": false}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The search query to execute with Querit.", "default": "{sys.query}", "required": true}, "count": {"type": "integer", "description": "The maximum number of results to return. Defaults to 10.", "default": 10, "required": false}, "chunks_per_doc": {"type": "integer", "description": "The number of summary chunks per document. Supports values from 1 to 3.", "default": 3, "required": false}, "site_include": {"type": "array", "description": "Sites that search results must include.", "default": [], "items": {"type": "string"}, "required": false}, "site_exclude": {"type": "array", "description": "Sites that search results must exclude.", "default": [], "items": {"type": "string"}, "required": false}, "time_range": {"type": "string", "description": "A Querit time range such as d7, w1, m3, y1, or YYYY-MM-DDtoYYYY-MM-DD.", "default": "", "required": false}, "country_include": {"type": "array", "description": "Return results associated with the specified countries.", "default": [], "items": {"type": "string"}, "required": false}, "language_include": {"type": "array", "description": "Languages that search results must include.", "default": [], "items": {"type": "string"}, "required": false}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("count", r#"10"#),
    ("chunks_per_doc", r#"3"#),
    ("site_include", r#"[]"#),
    ("site_exclude", r#"[]"#),
    ("time_range", r#""""#),
    ("country_include", r#"[]"#),
    ("language_include", r#"[]"#),
    ("api_key", r#""""#),
];

const QUERIT_CONTENTS: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "querit_contents", "description": "Crawl one or more web pages with Querit and return their contents.", "parameters": {"urls": {"type": "array", "description": "The absolute HTTP or HTTPS URLs to crawl. Supports 1 to 10 URLs.", "default": [], "items": {"type": "string"}, "required": true}, "format": {"type": "string", "description": "Content format: text, markdown, or html. Defaults to markdown.", "enum": ["text", "markdown", "html"], "default": "markdown", "required": false}, "crawl_timeout": {"type": "integer", "description": "Per-page crawl timeout in seconds. Must be between 1 and 60.", "default": 10, "required": false}, "extras_meta": {"type": "boolean", "description": "Whether to include page metadata in each result.", "default": false, "required": false}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"urls": {"type": "array", "description": "The absolute HTTP or HTTPS URLs to crawl. Supports 1 to 10 URLs.", "default": [], "items": {"type": "string"}, "required": true}, "format": {"type": "string", "description": "Content format: text, markdown, or html. Defaults to markdown.", "enum": ["text", "markdown", "html"], "default": "markdown", "required": false}, "crawl_timeout": {"type": "integer", "description": "Per-page crawl timeout in seconds. Must be between 1 and 60.", "default": 10, "required": false}, "extras_meta": {"type": "boolean", "description": "Whether to include page metadata in each result.", "default": false, "required": false}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("urls", r#"[]"#),
    ("format", r#""markdown""#),
    ("crawl_timeout", r#"10"#),
    ("extras_meta", r#"false"#),
    ("api_key", r#""""#),
];

const QWEATHER: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "qweather", "description": "QWeather (和风天气) looks up the current weather, a multi-day forecast, life indices, or air quality for a location using the QWeather API.", "parameters": {"query": {"type": "string", "description": "The location to look up weather for, e.g. a city name like 'Beijing' or '北京'.", "default": "{sys.query}", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The location to look up weather for, e.g. a city name like 'Beijing' or '北京'.", "default": "{sys.query}", "required": true}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("web_apikey", r#""xxx""#),
    ("lang", r#""zh""#),
    ("type", r#""weather""#),
    ("user_type", r#""free""#),
    (
        "error_code",
        r#"{"204": "The request was successful, but the region you are querying does not have the data you need at this time.", "400": "Request error, may contain incorrect request parameters or missing mandatory request parameters.", "401": "Authentication fails, possibly using the wrong KEY, wrong digital signature, wrong type of KEY (e.g. using the SDK's KEY to access the Web API).", "402": "Exceeded the number of accesses or the balance is not enough to support continued access to the service, you can recharge, upgrade the accesses or wait for the accesses to be reset.", "403": "No access, may be the binding PackageName, BundleID, domain IP address is inconsistent, or the data that requires additional payment.", "404": "The queried data or region does not exist.", "429": "Exceeded the limited QPM (number of accesses per minute), please refer to the QPM description", "500": "No response or timeout, interface service abnormality please contact us"}"#,
    ),
    ("time_period", r#""now""#),
];

const RETRIEVAL: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "search_my_dateset", "description": "This tool can be utilized for relevant content searching in the datasets.", "parameters": {"query": {"type": "string", "description": "The keywords to search the dataset. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The keywords to search the dataset. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "", "required": true}}"#,
    ),
    ("outputs", r#"{}"#),
    (
        "description",
        r#""This tool can be utilized for relevant content searching in the datasets.""#,
    ),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""""#),
    ("function_name", r#""search_my_dateset""#),
    ("similarity_threshold", r#"0.2"#),
    ("keywords_similarity_weight", r#"0.5"#),
    ("top_n", r#"8"#),
    ("top_k", r#"1024"#),
    ("dataset_ids", r#"[]"#),
    ("kb_ids", r#"[]"#),
    ("memory_ids", r#"[]"#),
    ("kb_vars", r#"[]"#),
    ("rerank_id", r#""""#),
    ("empty_response", r#""""#),
    ("use_kg", r#"false"#),
    ("cross_languages", r#"[]"#),
    ("toc_enhance", r#"false"#),
    ("meta_data_filter", r#"{}"#),
];

const SEAR_XNG: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "searxng_search", "description": "SearXNG is a privacy-focused metasearch engine that aggregates results from multiple search engines without tracking users. It provides comprehensive web search capabilities.", "parameters": {"query": {"type": "string", "description": "The search keywords to execute with SearXNG. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}, "searxng_url": {"type": "string", "description": "The base URL of your SearXNG instance (e.g., http://localhost:4000). This is required to connect to your SearXNG server.", "required": false, "default": ""}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The search keywords to execute with SearXNG. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}, "searxng_url": {"type": "string", "description": "The base URL of your SearXNG instance (e.g., http://localhost:4000). This is required to connect to your SearXNG server.", "required": false, "default": ""}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("searxng_url", r#""""#),
    ("top_n", r#"10"#),
];

const TAVILY_SEARCH: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "tavily_search", "description": "\nTavily is a search engine optimized for LLMs, aimed at efficient, quick and persistent search results.\nWhen searching:\n   - Start with specific query which should focus on just a single aspect.\n   - Number of keywords in query should be less than 5.\n   - Broaden search terms if needed\n   - Cross-reference information from multiple sources\n             ", "parameters": {"query": {"type": "string", "description": "The search keywords to execute with Tavily. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}, "topic": {"type": "string", "description": "default:general. The category of the search.news is useful for retrieving real-time updates, particularly about politics, sports, and major current events covered by mainstream media sources. general is for broader, more general-purpose searches that may include a wide range of sources.", "enum": ["general", "news"], "default": "general", "required": false}, "include_domains": {"type": "array", "description": "default:[]. A list of domains only from which the search results can be included.", "default": [], "items": {"type": "string", "description": "Domain name that must be included, e.g. www.yahoo.com"}, "required": false}, "exclude_domains": {"type": "array", "description": "default:[]. A list of domains from which the search results can not be included", "default": [], "items": {"type": "string", "description": "Domain name that must be excluded, e.g. www.yahoo.com"}, "required": false}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The search keywords to execute with Tavily. The keywords should be the most important words/terms(includes synonyms) from the original request.", "default": "{sys.query}", "required": true}, "topic": {"type": "string", "description": "default:general. The category of the search.news is useful for retrieving real-time updates, particularly about politics, sports, and major current events covered by mainstream media sources. general is for broader, more general-purpose searches that may include a wide range of sources.", "enum": ["general", "news"], "default": "general", "required": false}, "include_domains": {"type": "array", "description": "default:[]. A list of domains only from which the search results can be included.", "default": [], "items": {"type": "string", "description": "Domain name that must be included, e.g. www.yahoo.com"}, "required": false}, "exclude_domains": {"type": "array", "description": "default:[]. A list of domains from which the search results can not be included", "default": [], "items": {"type": "string", "description": "Domain name that must be excluded, e.g. www.yahoo.com"}, "required": false}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("topic", r#""general""#),
    ("include_domains", r#"[]"#),
    ("exclude_domains", r#"[]"#),
    ("api_key", r#""""#),
    ("search_depth", r#""basic""#),
    ("max_results", r#"6"#),
    ("days", r#"14"#),
    ("include_answer", r#"false"#),
    ("include_raw_content", r#"false"#),
    ("include_images", r#"false"#),
    ("include_image_descriptions", r#"false"#),
];

const TAVILY_EXTRACT: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "tavily_extract", "description": "Extract web page content from one or more specified URLs using Tavily Extract.", "parameters": {"urls": {"type": "array", "description": "The URLs to extract content from.", "default": "", "items": {"type": "string", "description": "The URL to extract content from, e.g. www.yahoo.com"}, "required": true}, "extract_depth": {"type": "string", "description": "The depth of the extraction process. advanced extraction retrieves more data, including tables and embedded content, with higher success but may increase latency.basic extraction costs 1 credit per 5 successful URL extractions, while advanced extraction costs 2 credits per 5 successful URL extractions.", "enum": ["basic", "advanced"], "default": "basic", "required": false}, "format": {"type": "string", "description": "The format of the extracted web page content. markdown returns content in markdown format. text returns plain text and may increase latency.", "enum": ["markdown", "text"], "default": "markdown", "required": false}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"urls": {"type": "array", "description": "The URLs to extract content from.", "default": "", "items": {"type": "string", "description": "The URL to extract content from, e.g. www.yahoo.com"}, "required": true}, "extract_depth": {"type": "string", "description": "The depth of the extraction process. advanced extraction retrieves more data, including tables and embedded content, with higher success but may increase latency.basic extraction costs 1 credit per 5 successful URL extractions, while advanced extraction costs 2 credits per 5 successful URL extractions.", "enum": ["basic", "advanced"], "default": "basic", "required": false}, "format": {"type": "string", "description": "The format of the extracted web page content. markdown returns content in markdown format. text returns plain text and may increase latency.", "enum": ["markdown", "text"], "default": "markdown", "required": false}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("urls", r#"[]"#),
    ("extract_depth", r#""basic""#),
    ("format", r#""markdown""#),
    ("api_key", r#""""#),
    ("include_images", r#"false"#),
];

/// `end_date` is `time.strftime("%Y-%m-%d %H:%M:%S")` at construction in Python; no
/// static value can match it, so it is left empty here.
const TU_SHARE: &[(&str, &str)] = &[
    ("message_history_window_size", r#"13"#),
    ("inputs", r#"{}"#),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("token", r#""xxx""#),
    ("src", r#""eastmoney""#),
    ("start_date", r#""2024-01-01 09:00:00""#),
    ("end_date", r#""""#),
    ("keyword", r#""""#),
];

const WEN_CAI: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "iwencai", "description": "\niwencai search: search platform is committed to providing hundreds of millions of investors with the most timely, accurate and comprehensive information, covering news, announcements, research reports, blogs, forums, Weibo, characters, etc.\nrobo-advisor intelligent stock selection platform: through AI technology, is committed to providing investors with intelligent stock selection, quantitative investment, main force tracking, value investment, technical analysis and other types of stock selection technologies.\nfund selection platform: through AI technology, is committed to providing excellent fund, value investment, quantitative analysis and other fund selection technologies for foundation citizens.\n", "parameters": {"query": {"type": "string", "description": "The question/conditions to select stocks.", "default": "{sys.query}", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The question/conditions to select stocks.", "default": "{sys.query}", "required": true}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("top_n", r#"10"#),
    ("query_type", r#""stock""#),
];

const WIKIPEDIA: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "wikipedia_search", "description": "A wide range of how-to and information pages are made available in wikipedia. Since 2001, it has grown rapidly to become the world's largest reference website. From Wikipedia, the free encyclopedia.", "parameters": {"query": {"type": "string", "description": "The search keyword to execute with wikipedia. The keyword MUST be a specific subject that can match the title.", "default": "{sys.query}", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"query": {"type": "string", "description": "The search keyword to execute with wikipedia. The keyword MUST be a specific subject that can match the title.", "default": "{sys.query}", "required": true}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("query", r#""{sys.query}""#),
    ("top_n", r#"10"#),
    ("language", r#""en""#),
];

const YAHOO_FINANCE: &[(&str, &str)] = &[
    (
        "meta",
        r#"{"name": "yahoo_finance", "description": "The Yahoo Finance is a service that provides access to real-time and historical stock market data. It enables users to fetch various types of stock information, such as price quotes, historical prices, company profiles, and financial news. The API offers structured data, allowing developers to integrate market data into their applications and analysis tools.", "parameters": {"stock_code": {"type": "string", "description": "The stock code or company name.", "default": "{sys.query}", "required": true}}}"#,
    ),
    ("message_history_window_size", r#"13"#),
    (
        "inputs",
        r#"{"stock_code": {"type": "string", "description": "The stock code or company name.", "default": "{sys.query}", "required": true}}"#,
    ),
    ("outputs", r#"{}"#),
    ("description", r#""""#),
    ("max_retries", r#"0"#),
    ("delay_after_error", r#"2.0"#),
    ("exception_method", r#"null"#),
    ("exception_default_value", r#"null"#),
    ("exception_goto", r#"null"#),
    ("debug_inputs", r#"{}"#),
    ("stock_code", r#""{sys.query}""#),
    ("info", r#"true"#),
    ("history", r#"false"#),
    ("count", r#"false"#),
    ("financials", r#"false"#),
    ("income_stmt", r#"false"#),
    ("balance_sheet", r#"false"#),
    ("cash_flow_statement", r#"false"#),
    ("news", r#"true"#),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_is_json_and_every_kind_has_max_retries() {
        for kind in Kind::ALL.iter().copied() {
            let defaults = param_defaults(kind);
            for (name, text) in defaults {
                assert!(
                    serde_json::from_str::<Value>(text).is_ok(),
                    "{kind}.{name} is not JSON: {text}"
                );
            }
            assert!(
                defaults
                    .iter()
                    .any(|(n, v)| *n == "max_retries" && *v == "0"),
                "{kind} lacks max_retries"
            );
            let mut names: Vec<&str> = defaults.iter().map(|(n, _)| *n).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), defaults.len(), "{kind} repeats an attribute");
        }
    }

    #[test]
    fn shared_base_order_and_tool_meta_first() {
        let base = [
            "message_history_window_size",
            "inputs",
            "outputs",
            "description",
            "max_retries",
            "delay_after_error",
            "exception_method",
            "exception_default_value",
            "exception_goto",
            "debug_inputs",
        ];
        for kind in Kind::ALL.iter().copied() {
            let names: Vec<&str> = param_defaults(kind).iter().map(|(n, _)| *n).collect();
            let skip = usize::from(names.first() == Some(&"meta"));
            assert_eq!(&names[skip..skip + base.len()], &base, "{kind}");
        }
        let names: Vec<&str> = param_defaults(Kind::Agent)
            .iter()
            .map(|(n, _)| *n)
            .collect();
        assert_eq!(&names[..1], &["meta"]);
        assert_eq!(
            &names[11..15],
            &["user_prompt", "reasoning", "context", "llm_id"]
        );
    }

    #[test]
    fn tool_inputs_copy_meta_parameters() {
        for kind in Kind::ALL.iter().copied() {
            let merged = merged_params(kind, &Map::new());
            let Some(meta) = merged.get("meta") else {
                continue;
            };
            assert_eq!(merged.get("inputs"), meta.get("parameters"), "{kind}");
        }
    }

    #[test]
    fn python_quirks_are_kept() {
        let merged = merged_params(Kind::DuckDuckGo, &Map::new());
        assert_eq!(merged["channel"], "text");
        let merged = merged_params(Kind::Categorize, &Map::new());
        assert_eq!(merged["message_history_window_size"], 1);
        assert_eq!(merged["delay_after_error"].as_f64(), Some(2.0));
        assert!(merged["delay_after_error"].is_f64());
        let merged = merged_params(Kind::Browser, &Map::new());
        assert_eq!(merged["prompts"], "{sys.query}");
        let merged = merged_params(Kind::CodeExec, &Map::new());
        assert_eq!(merged["lang"], "python");
    }

    #[test]
    fn dsl_params_replace_defaults_wholesale() {
        let mut dsl = Map::new();
        dsl.insert(
            "outputs".into(),
            serde_json::json!({"x": {"type": "string"}}),
        );
        dsl.insert("logical_operator".into(), serde_json::json!("and"));
        let merged = merged_params(Kind::DataOperations, &dsl);
        assert_eq!(
            merged["outputs"],
            serde_json::json!({"x": {"type": "string"}})
        );
        assert_eq!(merged["logical_operator"], "and");
    }
}
