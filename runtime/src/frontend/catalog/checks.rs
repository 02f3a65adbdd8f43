//! RAGFlow's parameter checks: every `<Kind>Param.check()` on the merged params.
//!
//! Checks run in Python's order and fail with Python's exception text (`str(e)`), including the
//! errors Python itself raises when a check coerces (`float()`, `int()`), iterates or indexes a
//! value of an unexpected type. JSON values are typed the way `json.loads` types them: integers
//! are `int`, numbers written with a fraction or exponent are `float`, `true` is `bool` (which
//! `isinstance(x, int)` accepts but `type(x).__name__ == "int"` does not).

use super::defaults::param_defaults;
use super::Kind;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

/// A failed `check()`: Python's exception text, and the parameter it is about when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckFailure {
    pub message: String,
    pub param: Option<String>,
}

type Check = Result<(), CheckFailure>;

/// Python `<Kind>Param.check()` on the merged params (defaults + DSL).
///
/// A parameter missing from `params` is read from the kind's defaults, as Python would find the
/// attribute `__init__` set.
pub fn check_params(kind: Kind, params: &Map<String, Value>) -> Result<(), CheckFailure> {
    let p = Params { kind, map: params };
    use Kind::*;
    match kind {
        // `check()` returns True unconditionally (or the class has no Python counterpart).
        UserFillUp | Iteration | IterationItem | Loop | LoopItem | ExitLoop | VariableAssigner
        | Answer => Ok(()),
        Begin => p.valid(
            "mode",
            "The 'mode' should be either `conversational` or `task`",
            &["conversational", "task", "Webhook"],
        ),
        Message => {
            p.empty("content", "[Message] Content")?;
            p.boolean("stream", "[Message] stream")
        }
        Llm | Agent => check_llm(&p),
        Categorize => check_categorize(&p),
        Switch => check_switch(&p),
        Invoke => check_invoke(&p),
        Browser => {
            p.empty("llm_id", "[Browser] LLM")?;
            p.positive_integer("max_steps", "[Browser] Max steps")?;
            p.boolean("headless", "[Browser] Headless")?;
            p.boolean(
                "enable_default_extensions",
                "[Browser] Enable default extensions",
            )?;
            p.boolean("chromium_sandbox", "[Browser] Chromium sandbox")?;
            p.boolean("persist_session", "[Browser] Persist session")?;
            p.empty("prompts", "[Browser] Prompts")
        }
        DataOperations => p.valid(
            "operations",
            "Support operations",
            &[
                "select_keys",
                "literal_eval",
                "combine",
                "filter_values",
                "append_or_update",
                "remove_keys",
                "rename_keys",
            ],
        ),
        ListOperations => check_list_operations(&p),
        StringTransform => {
            p.valid("method", "Support method", &["split", "merge"])?;
            p.empty("delimiters", "delimiters")
        }
        VariableAggregator => check_variable_aggregator(&p),
        DocGenerator => check_doc_generator(&p),
        ExcelProcessor => {
            p.valid(
                "operation",
                "[ExcelProcessor] Operation",
                &["read", "merge", "transform", "output"],
            )?;
            p.valid(
                "output_format",
                "[ExcelProcessor] Output format",
                &["xlsx", "csv"],
            )
        }
        AkShare | GitHub | PubMed => p.positive_integer("top_n", "Top N"),
        ArXiv => {
            p.positive_integer("top_n", "Top N")?;
            p.valid(
                "sort_by",
                "ArXiv Search Sort_by",
                &["submittedDate", "lastUpdatedDate", "relevance"],
            )
        }
        Bgpt => check_bgpt(&p),
        CodeExec => {
            p.valid(
                "lang",
                "Support languages",
                &["python", "python3", "nodejs", "javascript"],
            )?;
            p.empty("script", "Script")
        }
        Crawler => p.valid(
            "extract_type",
            "Type of content from the crawler",
            &["html", "markdown", "content"],
        ),
        DeepL => {
            p.valid("source_lang", "Source language", DEEPL_SOURCE_LANG)?;
            p.valid("target_lang", "Target language", DEEPL_TARGET_LANG)
        }
        DuckDuckGo => {
            p.positive_integer("top_n", "Top N")?;
            p.valid("channel", "Web Search or News", &["text", "news"])
        }
        Email => {
            p.empty("smtp_server", "SMTP Server")?;
            p.empty("email", "Email")?;
            p.empty("password", "Password")?;
            p.empty("sender_name", "Sender Name")
        }
        ExeSql => check_exesql(&p),
        Google => {
            p.empty("api_key", "SerpApi API key")?;
            p.valid("country", "Google Country", GOOGLE_COUNTRY)?;
            p.valid("language", "Google languages", GOOGLE_LANGUAGE)
        }
        GoogleScholar => {
            p.positive_integer("top_n", "Top N")?;
            p.valid("sort_by", "GoogleScholar Sort_by", &["date", "relevance"])?;
            p.boolean(
                "patents",
                "Whether or not to include patents, defaults to True",
            )
        }
        Jin10 => {
            p.valid("type", "Type", &["flash", "calendar", "symbols", "news"])?;
            p.valid("flash_type", "Flash Type", &["1", "2", "3", "4", "5"])?;
            p.valid("calendar_type", "Calendar Type", &["cj", "qh", "hk", "us"])?;
            p.valid(
                "calendar_datatype",
                "Calendar DataType",
                &["data", "event", "holiday"],
            )?;
            p.valid(
                "symbols_type",
                "Symbols Type",
                &["GOODS", "FOREX", "FUTURE", "CRYPTO"],
            )?;
            p.valid(
                "symbols_datatype",
                "Symbols DataType",
                &["symbols", "quotes"],
            )
        }
        KeenableSearch => check_keenable(&p),
        QueritSearch => check_querit_search(&p),
        QueritContents => check_querit_contents(&p),
        QWeather => {
            p.empty("web_apikey", "QWeather API key")?;
            p.valid("type", "Type", &["weather", "indices", "airquality"])?;
            p.valid(
                "user_type",
                "Free subscription or paid subscription",
                &["free", "paid"],
            )?;
            p.valid("lang", "Use language", QWEATHER_LANG)?;
            p.valid(
                "time_period",
                "Time period",
                &["now", "3d", "7d", "10d", "15d", "30d"],
            )
        }
        Retrieval => {
            p.decimal_float("similarity_threshold", "[Retrieval] Similarity threshold")?;
            p.decimal_float(
                "keywords_similarity_weight",
                "[Retrieval] Keyword similarity weight",
            )?;
            p.positive_number("top_n", "[Retrieval] Top N")
        }
        SearXng => check_lenient_top_n(&p),
        TavilySearch => {
            p.valid(
                "topic",
                "Tavily topic: should be in 'general/news'",
                &["general", "news"],
            )?;
            p.valid(
                "search_depth",
                "Tavily search depth should be in 'basic/advanced'",
                &["basic", "advanced"],
            )?;
            p.positive_integer(
                "max_results",
                "Tavily max result number should be within [1， 20]",
            )?;
            p.positive_integer("days", "Tavily days should be greater than 1")
        }
        TavilyExtract => {
            p.valid(
                "extract_depth",
                "Tavily extract depth should be in 'basic/advanced'",
                &["basic", "advanced"],
            )?;
            p.valid(
                "format",
                "Tavily extract format should be in 'markdown/text'",
                &["markdown", "text"],
            )
        }
        TuShare => p.valid(
            "src",
            "Quick News Source",
            &[
                "sina",
                "wallstreetcn",
                "10jqka",
                "eastmoney",
                "yuncaijing",
                "fenghuang",
                "jinrongjie",
            ],
        ),
        WenCai => {
            p.positive_integer("top_n", "Top N")?;
            p.valid("query_type", "Query type", WENCAI_QUERY_TYPE)
        }
        Wikipedia => {
            p.positive_integer("top_n", "Top N")?;
            p.valid("language", "Wikipedia languages", WIKIPEDIA_LANGUAGE)
        }
        YahooFinance => {
            p.boolean("info", "get all stock info")?;
            p.boolean("history", "get historical market data")?;
            p.boolean("count", "show share count")?;
            p.boolean("financials", "show financials")?;
            p.boolean("income_stmt", "income statement")?;
            p.boolean("balance_sheet", "balance sheet")?;
            p.boolean("cash_flow_statement", "cash flow statement")?;
            p.boolean("news", "show news")
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Per-kind checks with more than a list of helper calls.

/// `LLMParam.check`, shared by Agent (Categorize and Browser override it).
fn check_llm(p: &Params) -> Check {
    for (name, desc) in [
        ("temperature", "[Agent] Temperature"),
        ("presence_penalty", "[Agent] Presence penalty"),
        ("frequency_penalty", "[Agent] Frequency penalty"),
    ] {
        let f = py_float(&py(&p.get(name))).map_err(|m| fail(m, name))?;
        check_decimal_float(&Py::Float(f), desc, name)?;
    }
    let max_tokens = py_int(&py(&p.get("max_tokens"))).map_err(|m| fail(m, "max_tokens"))?;
    check_nonnegative_number(&Py::Int(max_tokens), "[Agent] Max tokens", "max_tokens")?;
    let top_p = py_float(&py(&p.get("top_p"))).map_err(|m| fail(m, "top_p"))?;
    check_decimal_float(&Py::Float(top_p), "[Agent] Top P", "top_p")?;
    p.empty("llm_id", "[Agent] LLM")?;
    p.empty("prompts", "[Agent] User prompt")?;
    p.nonnegative_integer("max_retries", "[Agent] Max retries")?;
    // `hasattr(self, "max_rounds")`: always for Agent, for LLM only when the DSL sets it.
    if p.has("max_rounds") {
        let v = p.get("max_rounds");
        let v = py(&v);
        check_defined_type(&v, "[Agent] Max rounds", &["int"], "max_rounds")?;
        check_nonnegative_number(&v, "[Agent] Max rounds", "max_rounds")?;
    }
    Ok(())
}

fn check_categorize(p: &Params) -> Check {
    let window = p.get("message_history_window_size");
    // `isinstance(x, int)`: a bool passes.
    let negative = match py(&window) {
        Py::Bool(_) => false,
        Py::Int(i) => i.cmp_i64(0) == Ordering::Less,
        _ => true,
    };
    if negative {
        return Err(fail(
            "[Categorize] Message window size cannot be negative",
            "message_history_window_size",
        ));
    }
    const NAME: &str = "category_description";
    let categories = p.get(NAME);
    let categories = py(&categories);
    check_empty(&categories, "[Categorize] Category examples", NAME)?;
    let Py::Dict(map) = categories else {
        return Err(fail(attribute_error(&categories, "items"), NAME));
    };
    for (name, category) in map {
        if name.is_empty() {
            return Err(fail("[Categorize] Category name can not be empty!", NAME));
        }
        let to = dict_get(&py(category), "to").map_err(|m| fail(m, NAME))?;
        if !truthy(&to) {
            return Err(fail(
                format!("[Categorize] 'To' of category {name} can not be empty!"),
                NAME,
            ));
        }
    }
    Ok(())
}

fn check_switch(p: &Params) -> Check {
    const NAME: &str = "conditions";
    let conditions = p.get(NAME);
    let conditions = py(&conditions);
    check_empty(&conditions, "[Switch] conditions", NAME)?;
    for condition in py_iter(&conditions).map_err(|m| fail(m, NAME))? {
        let to = getitem(&condition, "to").map_err(|m| fail(m, NAME))?;
        if !truthy(&to) {
            return Err(fail("[Switch] 'To' can not be empty!", NAME));
        }
    }
    p.empty(
        "end_cpn_ids",
        "[Switch] the ELSE/Other destination can not be empty.",
    )
}

fn check_invoke(p: &Params) -> Check {
    let method = p.get("method");
    let method = py_lower(&py(&method)).map_err(|m| fail(m, "method"))?;
    check_valid_value(
        &Py::Str(Cow::Owned(method)),
        "Type of content from the crawler",
        &["get", "post", "put"],
        "method",
    )?;
    p.empty("url", "End point URL")?;
    p.positive_integer("timeout", "Timeout time in second")?;
    p.boolean("clean_html", "Clean HTML")?;
    let datatype = p.get("datatype");
    let datatype = py_lower(&py(&datatype)).map_err(|m| fail(m, "datatype"))?;
    check_valid_value(
        &Py::Str(Cow::Owned(datatype)),
        "Data post type",
        &["json", "formdata"],
        "datatype",
    )
}

fn check_list_operations(p: &Params) -> Check {
    p.empty("query", "query")?;
    // `_normalize_operation_name`: `str(op).strip()`, `topn` → `head`, empty → `nth`.
    let operations = p.get("operations");
    let op = match py(&operations) {
        Py::None => String::new(),
        other => py_strip(&py_str(&other)).to_string(),
    };
    let op = if op.to_lowercase() == "topn" {
        "head".to_string()
    } else if op.is_empty() {
        "nth".to_string()
    } else {
        op
    };
    check_valid_value(
        &Py::Str(Cow::Owned(op)),
        "Support operations",
        &["nth", "head", "tail", "filter", "sort", "drop_duplicates"],
        "operations",
    )
}

fn check_variable_aggregator(p: &Params) -> Check {
    const NAME: &str = "groups";
    let groups = p.get(NAME);
    let groups = py(&groups);
    check_empty(&groups, "[VariableAggregator] groups", NAME)?;
    for group in py_iter(&groups).map_err(|m| fail(m, NAME))? {
        let name = dict_get(&group, "group_name").map_err(|m| fail(m, NAME))?;
        if !truthy(&name) {
            return Err(fail(
                "[VariableAggregator] group_name can not be empty!",
                NAME,
            ));
        }
        let variables = dict_get(&group, "variables").map_err(|m| fail(m, NAME))?;
        if !truthy(&variables) {
            return Err(fail(
                format!(
                    "[VariableAggregator] variables of group `{}` can not be empty",
                    py_str(&name)
                ),
                NAME,
            ));
        }
        if !matches!(variables, Py::List(_)) {
            return Err(fail(
                format!(
                    "[VariableAggregator] variables of group `{}` should be a list of strings",
                    py_str(&name)
                ),
                NAME,
            ));
        }
    }
    Ok(())
}

fn check_doc_generator(p: &Params) -> Check {
    p.empty("content", "[DocGenerator] Content")?;
    p.valid(
        "output_format",
        "[DocGenerator] Output format",
        &["pdf", "docx", "txt", "markdown", "html"],
    )?;
    p.positive_number("font_size", "[DocGenerator] Font size")?;
    if num_cmp(&py(&p.get("font_size")), 12) == Some(Ordering::Less) {
        return Err(fail(
            "[DocGenerator] Font size must be greater than or equal to 12",
            "font_size",
        ));
    }
    Ok(())
}

fn check_bgpt(p: &Params) -> Check {
    check_lenient_top_n(p)?;
    let days_back = p.get("days_back");
    let days_back = py(&days_back);
    if matches!(&days_back, Py::None) || matches!(&days_back, Py::Str(s) if s.is_empty()) {
        return Ok(());
    }
    let days = py_int(&days_back).map_err(|_| fail("days_back must be an integer", "days_back"))?;
    check_positive_integer(&Py::Int(days), "Days back", "days_back")
}

fn check_exesql(p: &Params) -> Check {
    p.valid(
        "db_type",
        "Choose DB type",
        &[
            "mysql",
            "postgres",
            "mariadb",
            "mssql",
            "IBM DB2",
            "trino",
            "oceanbase",
        ],
    )?;
    p.empty("database", "Database name")?;
    p.empty("username", "database username")?;
    p.empty("host", "IP Address")?;
    p.positive_integer("port", "IP Port")?;
    if !p.is_str("db_type", "trino") {
        p.empty("password", "Database password")?;
    }
    p.positive_integer("max_records", "Maximum number of records")?;
    if p.is_str("database", "rag_flow") {
        const WHY: &str = "For the security reason, it does not support database named rag_flow.";
        if p.is_str("host", "ragflow-mysql") {
            return Err(fail(WHY, "host"));
        }
        if p.is_str("password", "infini_rag_flow") {
            return Err(fail(WHY, "password"));
        }
    }
    Ok(())
}

fn check_keenable(p: &Params) -> Check {
    p.valid(
        "mode",
        "Keenable search mode should be in 'pro/realtime'",
        &["pro", "realtime"],
    )?;
    p.positive_integer("top_n", "Top N")?;
    if p.is_str("mode", "realtime") {
        // `(self.api_key or "").strip()`
        let key = p.get("api_key");
        let key = py(&key);
        let has_key = match &key {
            k if !truthy(k) => false,
            Py::Str(s) => !py_strip(s).is_empty(),
            other => return Err(fail(attribute_error(other, "strip"), "api_key")),
        };
        if !has_key {
            return Err(fail(
                "Keenable 'realtime' mode requires an API key",
                "api_key",
            ));
        }
    }
    Ok(())
}

fn check_querit_search(p: &Params) -> Check {
    let count = p.get("count");
    if !matches!(py(&count), Py::Int(i) if i.cmp_i64(1) != Ordering::Less) {
        return Err(fail(
            "Querit count must be an integer greater than or equal to 1.",
            "count",
        ));
    }
    let chunks = p.get("chunks_per_doc");
    match py(&chunks) {
        Py::None => {}
        Py::Int(i) if i.cmp_i64(1) != Ordering::Less && i.cmp_i64(3) != Ordering::Greater => {}
        _ => {
            return Err(fail(
                "Querit chunks_per_doc must be an integer from 1 to 3.",
                "chunks_per_doc",
            ))
        }
    }
    let time_range = p.get("time_range");
    let Value::String(time_range) = &*time_range else {
        return Err(fail("Querit time_range must be a string.", "time_range"));
    };
    if !time_range.is_empty() && !querit_time_range_matches(time_range) {
        return Err(fail(
            "Querit time_range must use dN, wN, mN, yN, or YYYY-MM-DDtoYYYY-MM-DD.",
            "time_range",
        ));
    }
    for name in [
        "site_include",
        "site_exclude",
        "country_include",
        "language_include",
    ] {
        let value = p.get(name);
        let ok = matches!(&*value, Value::Array(items) if items.iter().all(Value::is_string));
        if !ok {
            return Err(fail(
                format!("Querit {name} must be an array of strings."),
                name,
            ));
        }
    }
    Ok(())
}

/// `^([dwmy][1-9][0-9]*|\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2})$` with `fullmatch`; Python's `\d`
/// is any Unicode decimal digit, `[0-9]` only ASCII.
fn querit_time_range_matches(s: &str) -> bool {
    let chars: Vec<char> = s.chars().collect();
    let relative = chars.len() >= 2
        && matches!(chars[0], 'd' | 'w' | 'm' | 'y')
        && ('1'..='9').contains(&chars[1])
        && chars[2..].iter().all(char::is_ascii_digit);
    if relative {
        return true;
    }
    const SHAPE: &str = "DDDD-DD-DDtoDDDD-DD-DD";
    chars.len() == SHAPE.len()
        && SHAPE.chars().zip(&chars).all(|(want, got)| match want {
            'D' => decimal_value(*got).is_some(),
            _ => want == *got,
        })
}

fn check_querit_contents(p: &Params) -> Check {
    const URLS_MSG: &str = "Querit urls must contain between 1 and 10 non-empty strings.";
    let urls = p.get("urls");
    // `_normalize_contents_urls`: a string is split on commas.
    let urls: Vec<Cow<str>> = match &*urls {
        Value::String(s) => s
            .split(',')
            .map(py_strip)
            .filter(|u| !u.is_empty())
            .map(|u| Cow::Owned(u.to_string()))
            .collect(),
        Value::Array(items) => {
            let mut out = Vec::new();
            for item in items {
                match item {
                    Value::String(s) if !py_strip(s).is_empty() => out.push(Cow::Owned(s.clone())),
                    _ => return Err(fail(URLS_MSG, "urls")),
                }
            }
            out
        }
        _ => return Err(fail(URLS_MSG, "urls")),
    };
    if !(1..=10).contains(&urls.len()) {
        return Err(fail(URLS_MSG, "urls"));
    }
    for url in &urls {
        let (scheme, netloc) = url_scheme_and_netloc(url).map_err(|m| fail(m, "urls"))?;
        if !(scheme == "http" || scheme == "https") || netloc.is_empty() {
            return Err(fail(
                "Querit urls must be absolute HTTP or HTTPS URLs.",
                "urls",
            ));
        }
    }
    let format = p.get("format");
    match &*format {
        // `format in {...}` hashes its operand first.
        Value::Array(_) | Value::Object(_) => {
            let ty = type_name(&py(&format));
            return Err(fail(format!("unhashable type: '{ty}'"), "format"));
        }
        Value::String(s) if matches!(s.as_str(), "text" | "markdown" | "html") => {}
        _ => {
            return Err(fail(
                "Querit format must be text, markdown, or html.",
                "format",
            ))
        }
    }
    let timeout = p.get("crawl_timeout");
    let timeout_ok = matches!(py(&timeout), Py::Int(i)
        if i.cmp_i64(1) != Ordering::Less && i.cmp_i64(60) != Ordering::Greater);
    if !timeout_ok {
        return Err(fail(
            "Querit crawl_timeout must be an integer from 1 to 60.",
            "crawl_timeout",
        ));
    }
    if !p.get("extras_meta").is_boolean() {
        return Err(fail("Querit extras_meta must be a boolean.", "extras_meta"));
    }
    Ok(())
}

/// BGPT and SearXNG turn a string `top_n` into an int when `int(top_n.strip())` succeeds and
/// silently keep the string otherwise.
fn check_lenient_top_n(p: &Params) -> Check {
    let top_n = p.get("top_n");
    let mut top_n = py(&top_n);
    if let Py::Str(s) = &top_n {
        let stripped = Py::Str(Cow::Owned(py_strip(s).to_string()));
        if let Ok(i) = py_int(&stripped) {
            top_n = Py::Int(i);
        }
    }
    check_positive_integer(&top_n, "Top N", "top_n")
}

// ---------------------------------------------------------------------------------------------
// `urllib.parse.urlparse`, as far as `scheme` and `netloc` (and the errors it raises) go.

fn url_scheme_and_netloc(url: &str) -> Result<(String, String), String> {
    let url: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\r' | '\n'))
        .collect();
    let mut scheme = String::new();
    let mut rest = url.as_str();
    if let Some(i) = url.find(':') {
        let first = url.chars().next().unwrap_or(' ');
        let candidate = &url[..i];
        if i > 0
            && first.is_ascii_alphabetic()
            && candidate
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        {
            scheme = candidate.to_ascii_lowercase();
            rest = &url[i + 1..];
        }
    }
    let mut netloc = String::new();
    if let Some(after) = rest.strip_prefix("//") {
        let end = after.find(['/', '?', '#']).unwrap_or(after.len());
        netloc = after[..end].to_string();
        let (open, close) = (netloc.contains('['), netloc.contains(']'));
        if open != close {
            return Err("Invalid IPv6 URL".into());
        }
        if open {
            check_bracketed_netloc(&netloc)?;
        }
    }
    if netloc.chars().any(|c| NFKC_URL_DELIMITERS.contains(&c)) {
        return Err(format!(
            "netloc '{netloc}' contains invalid characters under NFKC normalization"
        ));
    }
    Ok((scheme, netloc))
}

/// Characters whose NFKC form contains one of `/?#@:` (Unicode 15, as Python 3.12 ships).
const NFKC_URL_DELIMITERS: &[char] = &[
    '\u{2047}', '\u{2048}', '\u{2049}', '\u{2100}', '\u{2101}', '\u{2105}', '\u{2106}', '\u{2a74}',
    '\u{fe13}', '\u{fe16}', '\u{fe55}', '\u{fe56}', '\u{fe5f}', '\u{fe6b}', '\u{ff03}', '\u{ff0f}',
    '\u{ff1a}', '\u{ff1f}', '\u{ff20}',
];

/// The CVE-2025-0938 check current CPython releases apply (3.12.9+, 3.13.2+): nothing may
/// precede the bracket, only a `:port` may follow it, and the host after any `user@` is checked
/// even when the brackets sit in the userinfo.
fn check_bracketed_netloc(netloc: &str) -> Result<(), String> {
    let host_port = netloc.rsplit_once('@').map_or(netloc, |(_, hp)| hp);
    let host = match host_port.split_once('[') {
        Some((before, bracketed)) => {
            if !before.is_empty() {
                return Err("Invalid IPv6 URL".into());
            }
            let (host, port) = bracketed.split_once(']').unwrap_or((bracketed, ""));
            if !port.is_empty() && !port.starts_with(':') {
                return Err("Invalid IPv6 URL".into());
            }
            host
        }
        None => host_port.split_once(':').map_or(host_port, |(h, _)| h),
    };
    check_bracketed_host(host)
}

fn check_bracketed_host(host: &str) -> Result<(), String> {
    if let Some(rest) = host.strip_prefix('v') {
        // `\Av[a-fA-F0-9]+\..+\Z`
        let hex = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_ascii_hexdigit())
                .len();
        let ok = hex > 0 && rest[hex..].strip_prefix('.').is_some_and(|t| !t.is_empty());
        return if ok {
            Ok(())
        } else {
            Err("IPvFuture address is invalid".into())
        };
    }
    if is_ipv4(host).is_some() {
        return Err("An IPv4 address cannot be in brackets".into());
    }
    if is_ipv6(host) {
        return Ok(());
    }
    Err(format!(
        "{} does not appear to be an IPv4 or IPv6 address",
        repr_str(host)
    ))
}

/// `ipaddress.IPv4Address`: four decimal octets, no leading zeros, each at most 255.
fn is_ipv4(s: &str) -> Option<u32> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 {
        return None;
    }
    let mut value = 0u32;
    for part in parts {
        if part.is_empty()
            || part.len() > 3
            || !part.bytes().all(|b| b.is_ascii_digit())
            || (part.len() > 1 && part.starts_with('0'))
        {
            return None;
        }
        let octet: u32 = part.parse().ok()?;
        if octet > 255 {
            return None;
        }
        value = value << 8 | octet;
    }
    Some(value)
}

/// `ipaddress.IPv6Address`, including a `%scope` suffix and an embedded dotted IPv4 tail.
fn is_ipv6(s: &str) -> bool {
    let addr = match s.split_once('%') {
        Some((addr, scope)) if !scope.is_empty() && !scope.contains('%') => addr,
        Some(_) => return false,
        None => s,
    };
    if addr.is_empty() {
        return false;
    }
    let mut parts: Vec<String> = addr.split(':').map(str::to_string).collect();
    if parts.len() < 3 {
        return false;
    }
    if parts.last().is_some_and(|p| p.contains('.')) {
        let Some(v4) = parts.pop().as_deref().and_then(is_ipv4) else {
            return false;
        };
        parts.push(format!("{:x}", v4 >> 16));
        parts.push(format!("{:x}", v4 & 0xffff));
    }
    if parts.len() > 9 {
        return false;
    }
    let n = parts.len();
    let mut skip = None;
    for (i, part) in parts.iter().enumerate().take(n - 1).skip(1) {
        if part.is_empty() {
            if skip.is_some() {
                return false;
            }
            skip = Some(i);
        }
    }
    let hextet =
        |p: &String| (1..=4).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_hexdigit());
    match skip {
        Some(skip) => {
            let mut hi = skip;
            let mut lo = n - skip - 1;
            if parts[0].is_empty() {
                hi -= 1;
                if hi > 0 {
                    return false;
                }
            }
            if parts[n - 1].is_empty() {
                lo -= 1;
                if lo > 0 {
                    return false;
                }
            }
            hi + lo < 8 && parts[..hi].iter().all(hextet) && parts[n - lo..].iter().all(hextet)
        }
        None => n == 8 && parts.iter().all(hextet),
    }
}

// ---------------------------------------------------------------------------------------------
// Parameter access and the `ComponentParamBase.check_*` helpers.

struct Params<'a> {
    kind: Kind,
    map: &'a Map<String, Value>,
}

impl<'a> Params<'a> {
    /// The attribute as Python's param object holds it.
    fn get(&self, name: &str) -> Cow<'a, Value> {
        if let Some(v) = self.map.get(name) {
            return Cow::Borrowed(v);
        }
        let default = param_defaults(self.kind)
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, text)| serde_json::from_str(text).ok());
        Cow::Owned(default.unwrap_or(Value::Null))
    }

    fn has(&self, name: &str) -> bool {
        self.map.contains_key(name) || param_defaults(self.kind).iter().any(|(n, _)| *n == name)
    }

    /// Python `self.<name> == "<s>"`.
    fn is_str(&self, name: &str, s: &str) -> bool {
        self.get(name).as_str() == Some(s)
    }

    fn empty(&self, name: &str, desc: &str) -> Check {
        check_empty(&py(&self.get(name)), desc, name)
    }

    fn boolean(&self, name: &str, desc: &str) -> Check {
        check_boolean(&py(&self.get(name)), desc, name)
    }

    fn positive_integer(&self, name: &str, desc: &str) -> Check {
        check_positive_integer(&py(&self.get(name)), desc, name)
    }

    fn nonnegative_integer(&self, name: &str, desc: &str) -> Check {
        check_nonnegative_integer(&py(&self.get(name)), desc, name)
    }

    fn positive_number(&self, name: &str, desc: &str) -> Check {
        check_positive_number(&py(&self.get(name)), desc, name)
    }

    fn decimal_float(&self, name: &str, desc: &str) -> Check {
        check_decimal_float(&py(&self.get(name)), desc, name)
    }

    fn valid(&self, name: &str, desc: &str, valid: &[&str]) -> Check {
        check_valid_value(&py(&self.get(name)), desc, valid, name)
    }
}

fn fail(message: impl Into<String>, param: &str) -> CheckFailure {
    CheckFailure {
        message: message.into(),
        param: Some(param.to_string()),
    }
}

fn check_empty(v: &Py, desc: &str, param: &str) -> Check {
    if truthy(v) {
        return Ok(());
    }
    Err(fail(format!("{desc} does not support empty value."), param))
}

/// `type(x).__name__ in ["int", "long"]`: bools are rejected.
fn check_positive_integer(v: &Py, desc: &str, param: &str) -> Check {
    match v {
        Py::Int(i) if i.cmp_i64(0) == Ordering::Greater => Ok(()),
        _ => Err(fail(
            format!(
                "{desc} {} not supported, should be positive integer",
                py_str(v)
            ),
            param,
        )),
    }
}

fn check_nonnegative_integer(v: &Py, desc: &str, param: &str) -> Check {
    match v {
        Py::Int(i) if i.cmp_i64(0) != Ordering::Less => Ok(()),
        _ => Err(fail(
            format!(
                "{desc} {} not supported, should be 0 or positive integer",
                py_str(v)
            ),
            param,
        )),
    }
}

/// Comparisons with NaN are false, so a NaN passes every numeric range check.
fn check_positive_number(v: &Py, desc: &str, param: &str) -> Check {
    if is_number(v) && !matches!(num_cmp(v, 0), Some(Ordering::Less | Ordering::Equal)) {
        return Ok(());
    }
    Err(fail(
        format!(
            "{desc} {} not supported, should be positive numeric",
            py_str(v)
        ),
        param,
    ))
}

fn check_nonnegative_number(v: &Py, desc: &str, param: &str) -> Check {
    if is_number(v) && num_cmp(v, 0) != Some(Ordering::Less) {
        return Ok(());
    }
    Err(fail(
        format!(
            "{desc} {} not supported, should be non-negative numeric",
            py_str(v)
        ),
        param,
    ))
}

fn check_decimal_float(v: &Py, desc: &str, param: &str) -> Check {
    if is_number(v)
        && num_cmp(v, 0) != Some(Ordering::Less)
        && num_cmp(v, 1) != Some(Ordering::Greater)
    {
        return Ok(());
    }
    Err(fail(
        format!(
            "{desc} {} not supported, should be a float number in range [0, 1]",
            py_str(v)
        ),
        param,
    ))
}

fn check_boolean(v: &Py, desc: &str, param: &str) -> Check {
    if matches!(v, Py::Bool(_)) {
        return Ok(());
    }
    Err(fail(
        format!("{desc} {} not supported, should be bool type", py_str(v)),
        param,
    ))
}

/// `param in valid_values`: the lists are all strings, and `==` never equates a str with
/// anything but a str.
fn check_valid_value(v: &Py, desc: &str, valid: &[&str], param: &str) -> Check {
    if matches!(v, Py::Str(s) if valid.contains(&s.as_ref())) {
        return Ok(());
    }
    Err(fail(
        format!(
            "{desc} {} is not supported, it should be in {}",
            py_str(v),
            repr_str_list(valid)
        ),
        param,
    ))
}

fn check_defined_type(v: &Py, desc: &str, types: &[&str], param: &str) -> Check {
    if types.contains(&type_name(v)) {
        return Ok(());
    }
    Err(fail(
        format!(
            "{desc} {} not supported, should be one of {}",
            py_str(v),
            repr_str_list(types)
        ),
        param,
    ))
}

// ---------------------------------------------------------------------------------------------
// Python values.

/// A value as Python holds it: a `json.loads` result or what `int()`/`float()` made of one.
#[derive(Clone, Debug)]
enum Py<'a> {
    None,
    Bool(bool),
    Int(PyInt),
    Float(f64),
    Str(Cow<'a, str>),
    List(&'a [Value]),
    Dict(&'a Map<String, Value>),
}

fn py(v: &Value) -> Py<'_> {
    match v {
        Value::Null => Py::None,
        Value::Bool(b) => Py::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Py::Int(PyInt::Small(i.into())),
            (None, Some(u)) => Py::Int(PyInt::Small(u.into())),
            (None, None) => Py::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Py::Str(Cow::Borrowed(s)),
        Value::Array(a) => Py::List(a),
        Value::Object(m) => Py::Dict(m),
    }
}

/// A Python int; `Big` only arises from `int()` of a long digit string or a huge float.
#[derive(Clone, Debug, PartialEq, Eq)]
enum PyInt {
    Small(i128),
    Big { negative: bool, digits: String },
}

impl PyInt {
    fn from_digits(negative: bool, digits: &str) -> PyInt {
        let digits = digits.trim_start_matches('0');
        if digits.is_empty() {
            return PyInt::Small(0);
        }
        if digits.len() <= 38 {
            if let Ok(v) = digits.parse::<i128>() {
                return PyInt::Small(if negative { -v } else { v });
            }
        }
        PyInt::Big {
            negative,
            digits: digits.to_string(),
        }
    }

    fn cmp_i64(&self, x: i64) -> Ordering {
        match self {
            PyInt::Small(v) => v.cmp(&i128::from(x)),
            PyInt::Big { negative: true, .. } => Ordering::Less,
            PyInt::Big {
                negative: false, ..
            } => Ordering::Greater,
        }
    }
}

impl fmt::Display for PyInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PyInt::Small(v) => write!(f, "{v}"),
            PyInt::Big { negative, digits } => {
                write!(f, "{}{digits}", if *negative { "-" } else { "" })
            }
        }
    }
}

fn type_name(v: &Py) -> &'static str {
    match v {
        Py::None => "NoneType",
        Py::Bool(_) => "bool",
        Py::Int(_) => "int",
        Py::Float(_) => "float",
        Py::Str(_) => "str",
        Py::List(_) => "list",
        Py::Dict(_) => "dict",
    }
}

fn truthy(v: &Py) -> bool {
    match v {
        Py::None => false,
        Py::Bool(b) => *b,
        Py::Int(i) => i.cmp_i64(0) != Ordering::Equal,
        Py::Float(f) => *f != 0.0,
        Py::Str(s) => !s.is_empty(),
        Py::List(l) => !l.is_empty(),
        Py::Dict(d) => !d.is_empty(),
    }
}

/// `type(x).__name__ in ["float", "int", "long"]`.
fn is_number(v: &Py) -> bool {
    matches!(v, Py::Int(_) | Py::Float(_))
}

/// `x` compared with an int; `None` when Python's comparisons are all false (NaN) or the value
/// is not a number.
fn num_cmp(v: &Py, x: i64) -> Option<Ordering> {
    match v {
        Py::Int(i) => Some(i.cmp_i64(x)),
        Py::Float(f) => f.partial_cmp(&(x as f64)),
        _ => None,
    }
}

fn attribute_error(v: &Py, attr: &str) -> String {
    format!("'{}' object has no attribute '{attr}'", type_name(v))
}

/// `for item in x`: a dict yields its keys, a str its characters.
fn py_iter<'a>(v: &Py<'a>) -> Result<Vec<Py<'a>>, String> {
    match v {
        Py::List(items) => Ok(items.iter().map(py).collect()),
        Py::Dict(map) => Ok(map.keys().map(|k| Py::Str(Cow::Borrowed(k))).collect()),
        Py::Str(s) => Ok(s
            .chars()
            .map(|c| Py::Str(Cow::Owned(c.to_string())))
            .collect()),
        other => Err(format!("'{}' object is not iterable", type_name(other))),
    }
}

/// `x[key]` with a str key.
fn getitem<'a>(v: &Py<'a>, key: &str) -> Result<Py<'a>, String> {
    match v {
        Py::Dict(map) => map.get(key).map(py).ok_or_else(|| repr_str(key)),
        Py::List(_) => Err("list indices must be integers or slices, not str".into()),
        Py::Str(_) => Err("string indices must be integers, not 'str'".into()),
        other => Err(format!(
            "'{}' object is not subscriptable",
            type_name(other)
        )),
    }
}

/// `x.get(key)`.
fn dict_get<'a>(v: &Py<'a>, key: &str) -> Result<Py<'a>, String> {
    match v {
        Py::Dict(map) => Ok(map.get(key).map(py).unwrap_or(Py::None)),
        other => Err(attribute_error(other, "get")),
    }
}

/// `x.lower()`.
fn py_lower(v: &Py) -> Result<String, String> {
    match v {
        Py::Str(s) => Ok(s.to_lowercase()),
        other => Err(attribute_error(other, "lower")),
    }
}

/// `str.isspace()`: Unicode White_Space plus the separators U+001C..U+001F.
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `str.strip()` without arguments.
fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// The zero of every run of Unicode decimal digits (category Nd, Unicode 15).
const DECIMAL_ZEROS: &[u32] = &[
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x11F50, 0x16A60, 0x16AC0,
    0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E4F0, 0x1E950,
    0x1FBF0,
];

fn decimal_value(c: char) -> Option<u32> {
    let c = u32::from(c);
    DECIMAL_ZEROS
        .iter()
        .find(|&&zero| (zero..zero + 10).contains(&c))
        .map(|zero| c - zero)
}

/// CPython's `_PyUnicode_TransformDecimalAndSpaceToASCII`, run before `int()`/`float()` parse a
/// str: non-ASCII spaces become `' '`, decimal digits their ASCII digit, anything else ends the
/// text with `'?'` (which then fails to parse).
fn decimal_and_space_to_ascii(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if u32::from(c) < 127 {
            out.push(c);
        } else if is_py_space(c) {
            out.push(' ');
        } else if let Some(d) = decimal_value(c) {
            out.push(char::from(b'0' + d as u8));
        } else {
            out.push('?');
            break;
        }
    }
    out
}

/// `Py_ISSPACE`, the ASCII whitespace `int()` and `float()` skip after the transform.
fn is_ascii_py_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c')
}

/// Python `float(x)`.
fn py_float(v: &Py) -> Result<f64, String> {
    match v {
        Py::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
        Py::Int(PyInt::Small(i)) => Ok(*i as f64),
        Py::Int(big) => big
            .to_string()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .ok_or_else(|| "int too large to convert to float".to_string()),
        Py::Float(f) => Ok(*f),
        Py::Str(s) => float_from_str(s)
            .ok_or_else(|| format!("could not convert string to float: {}", repr_str(s))),
        other => Err(format!(
            "float() argument must be a string or a real number, not '{}'",
            type_name(other)
        )),
    }
}

fn float_from_str(original: &str) -> Option<f64> {
    let s = decimal_and_space_to_ascii(original);
    // Underscores only between digits.
    let s = if s.contains('_') {
        let mut out = String::with_capacity(s.len());
        let mut prev = '\0';
        for c in s.chars() {
            if c == '_' {
                if !prev.is_ascii_digit() {
                    return None;
                }
            } else {
                if prev == '_' && !c.is_ascii_digit() {
                    return None;
                }
                out.push(c);
            }
            prev = c;
        }
        if prev == '_' {
            return None;
        }
        out
    } else {
        s
    };
    let t = s.trim_matches(|c: char| c.is_ascii() && is_ascii_py_space(c as u8));
    if t.is_empty() || t.contains('\0') {
        return None;
    }
    // Rust's grammar matches `PyOS_string_to_double`: sign, digits with an optional point and
    // exponent, or inf/infinity/nan in any case.
    t.parse::<f64>().ok()
}

/// Python `int(x)`.
fn py_int(v: &Py) -> Result<PyInt, String> {
    match v {
        Py::Bool(b) => Ok(PyInt::Small(i128::from(*b))),
        Py::Int(i) => Ok(i.clone()),
        Py::Float(f) => int_from_float(*f),
        Py::Str(s) => int_from_str(s),
        other => Err(format!(
            "int() argument must be a string, a bytes-like object or a real number, not '{}'",
            type_name(other)
        )),
    }
}

fn int_from_float(f: f64) -> Result<PyInt, String> {
    if f.is_nan() {
        return Err("cannot convert float NaN to integer".into());
    }
    if f.is_infinite() {
        return Err("cannot convert float infinity to integer".into());
    }
    let t = f.trunc();
    if t.abs() < 1e38 {
        return Ok(PyInt::Small(t as i128));
    }
    // Exact decimal expansion of mantissa * 2^exponent.
    let bits = t.abs().to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32 - 1075;
    let mantissa = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    let mut digits: Vec<u8> = mantissa
        .to_string()
        .bytes()
        .rev()
        .map(|b| b - b'0')
        .collect();
    for _ in 0..exponent.max(0) {
        let mut carry = 0;
        for d in digits.iter_mut() {
            let v = *d * 2 + carry;
            *d = v % 10;
            carry = v / 10;
        }
        if carry > 0 {
            digits.push(carry);
        }
    }
    let text: String = digits.iter().rev().map(|d| char::from(b'0' + d)).collect();
    Ok(PyInt::from_digits(t < 0.0, &text))
}

/// `int(str)` in base 10, with Python's limit of 4300 digits.
fn int_from_str(original: &str) -> Result<PyInt, String> {
    let invalid = || {
        let repr: String = repr_str(original).chars().take(200).collect();
        format!("invalid literal for int() with base 10: {repr}")
    };
    let s = decimal_and_space_to_ascii(original);
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_ascii_py_space(b[i]) {
        i += 1;
    }
    let mut negative = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        negative = b[i] == b'-';
        i += 1;
    }
    if i < b.len() && b[i] == b'_' {
        return Err(invalid());
    }
    let mut digits = String::new();
    let mut prev = 0u8;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        if b[i] == b'_' {
            if prev == b'_' {
                return Err(invalid());
            }
        } else {
            digits.push(char::from(b[i]));
        }
        prev = b[i];
        i += 1;
    }
    if prev == b'_' || digits.is_empty() {
        return Err(invalid());
    }
    while i < b.len() && is_ascii_py_space(b[i]) {
        i += 1;
    }
    if i != b.len() {
        return Err(invalid());
    }
    // Python 3.12 checks the digit limit only once the whole literal is known to be valid.
    if digits.len() > 4300 {
        return Err(format!(
            "Exceeds the limit (4300 digits) for integer string conversion: value has {} digits; \
             use sys.set_int_max_str_digits() to increase the limit",
            digits.len()
        ));
    }
    Ok(PyInt::from_digits(negative, &digits))
}

// ---------------------------------------------------------------------------------------------
// `str()` and `repr()`.

/// Python `str(x)` (what `"{}".format(x)` renders).
fn py_str(v: &Py) -> String {
    match v {
        Py::Str(s) => s.to_string(),
        other => py_repr(other),
    }
}

fn py_repr(v: &Py) -> String {
    match v {
        Py::None => "None".into(),
        Py::Bool(true) => "True".into(),
        Py::Bool(false) => "False".into(),
        Py::Int(i) => i.to_string(),
        Py::Float(f) => float_repr(*f),
        Py::Str(s) => repr_str(s),
        Py::List(items) => {
            let mut out = String::new();
            repr_list(items, &mut out);
            out
        }
        Py::Dict(map) => {
            let mut out = String::new();
            repr_dict(map, &mut out);
            out
        }
    }
}

fn repr_value(v: &Value, out: &mut String) {
    match v {
        Value::Array(items) => repr_list(items, out),
        Value::Object(map) => repr_dict(map, out),
        other => out.push_str(&py_repr(&py(other))),
    }
}

fn repr_list(items: &[Value], out: &mut String) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        repr_value(item, out);
    }
    out.push(']');
}

fn repr_dict(map: &Map<String, Value>, out: &mut String) {
    out.push('{');
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&repr_str(k));
        out.push_str(": ");
        repr_value(v, out);
    }
    out.push('}');
}

fn repr_str_list(items: &[&str]) -> String {
    let inner: Vec<String> = items.iter().map(|s| repr_str(s)).collect();
    format!("[{}]", inner.join(", "))
}

/// Python `repr(str)`: single quotes unless the text has `'` and no `"`.
fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c if u32::from(c) <= 0xff => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c if u32::from(c) <= 0xffff => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push_str(&format!("\\U{:08x}", u32::from(c))),
        }
    }
    out.push(quote);
    out
}

/// `str.isprintable()` for the characters a DSL plausibly holds: controls, separators other
/// than the space, format characters and private-use/non-characters are escaped. (Unassigned
/// code points, which Python also escapes, are kept.)
fn is_printable(c: char) -> bool {
    let u = u32::from(c);
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    const NOT_PRINTABLE: &[(u32, u32)] = &[
        (0xAD, 0xAD),
        (0x600, 0x605),
        (0x61C, 0x61C),
        (0x6DD, 0x6DD),
        (0x70F, 0x70F),
        (0x890, 0x891),
        (0x8E2, 0x8E2),
        (0x180E, 0x180E),
        (0x200B, 0x200F),
        (0x202A, 0x202E),
        (0x2060, 0x2064),
        (0x2066, 0x206F),
        (0xD800, 0xF8FF),
        (0xFEFF, 0xFEFF),
        (0xFFF9, 0xFFFB),
        (0xFFFE, 0xFFFF),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x1343F),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0001, 0xE0001),
        (0xE0020, 0xE007F),
        (0xF0000, 0x10FFFF),
    ];
    !NOT_PRINTABLE
        .iter()
        .any(|(lo, hi)| (*lo..=*hi).contains(&u))
}

/// Python `repr(float)`: shortest round-trip digits, exponent form below 1e-4 and from 1e16.
fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sci = format!("{f:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let point = exponent + 1;
    if !(-4 < point && point <= 16) {
        let tail = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        let esign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{tail}e{esign}{:02}", exponent.abs());
    }
    let n = digits.len() as i32;
    if point <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-point) as usize))
    } else if point >= n {
        format!("{sign}{digits}{}.0", "0".repeat((point - n) as usize))
    } else {
        let (int, frac) = digits.split_at(point as usize);
        format!("{sign}{int}.{frac}")
    }
}

// ---------------------------------------------------------------------------------------------
// Long value lists, verbatim from the Python checks.

const DEEPL_SOURCE_LANG: &[&str] = &[
    "AR", "BG", "CS", "DA", "DE", "EL", "EN", "ES", "ET", "FI", "FR", "HU", "ID", "IT", "JA", "KO",
    "LT", "LV", "NB", "NL", "PL", "PT", "RO", "RU", "SK", "SL", "SV", "TR", "UK", "ZH",
];
const DEEPL_TARGET_LANG: &[&str] = &[
    "AR", "BG", "CS", "DA", "DE", "EL", "EN-GB", "EN-US", "ES", "ET", "FI", "FR", "HU", "ID", "IT",
    "JA", "KO", "LT", "LV", "NB", "NL", "PL", "PT-BR", "PT-PT", "RO", "RU", "SK", "SL", "SV", "TR",
    "UK", "ZH",
];
const GOOGLE_COUNTRY: &[&str] = &[
    "af", "al", "dz", "as", "ad", "ao", "ai", "aq", "ag", "ar", "am", "aw", "au", "at", "az", "bs",
    "bh", "bd", "bb", "by", "be", "bz", "bj", "bm", "bt", "bo", "ba", "bw", "bv", "br", "io", "bn",
    "bg", "bf", "bi", "kh", "cm", "ca", "cv", "ky", "cf", "td", "cl", "cn", "cx", "cc", "co", "km",
    "cg", "cd", "ck", "cr", "ci", "hr", "cu", "cy", "cz", "dk", "dj", "dm", "do", "ec", "eg", "sv",
    "gq", "er", "ee", "et", "fk", "fo", "fj", "fi", "fr", "gf", "pf", "tf", "ga", "gm", "ge", "de",
    "gh", "gi", "gr", "gl", "gd", "gp", "gu", "gt", "gn", "gw", "gy", "ht", "hm", "va", "hn", "hk",
    "hu", "is", "in", "id", "ir", "iq", "ie", "il", "it", "jm", "jp", "jo", "kz", "ke", "ki", "kp",
    "kr", "kw", "kg", "la", "lv", "lb", "ls", "lr", "ly", "li", "lt", "lu", "mo", "mk", "mg", "mw",
    "my", "mv", "ml", "mt", "mh", "mq", "mr", "mu", "yt", "mx", "fm", "md", "mc", "mn", "ms", "ma",
    "mz", "mm", "na", "nr", "np", "nl", "an", "nc", "nz", "ni", "ne", "ng", "nu", "nf", "mp", "no",
    "om", "pk", "pw", "ps", "pa", "pg", "py", "pe", "ph", "pn", "pl", "pt", "pr", "qa", "re", "ro",
    "ru", "rw", "sh", "kn", "lc", "pm", "vc", "ws", "sm", "st", "sa", "sn", "rs", "sc", "sl", "sg",
    "sk", "si", "sb", "so", "za", "gs", "es", "lk", "sd", "sr", "sj", "sz", "se", "ch", "sy", "tw",
    "tj", "tz", "th", "tl", "tg", "tk", "to", "tt", "tn", "tr", "tm", "tc", "tv", "ug", "ua", "ae",
    "uk", "gb", "us", "um", "uy", "uz", "vu", "ve", "vn", "vg", "vi", "wf", "eh", "ye", "zm", "zw",
];
const GOOGLE_LANGUAGE: &[&str] = &[
    "af",
    "ak",
    "sq",
    "ws",
    "am",
    "ar",
    "hy",
    "az",
    "eu",
    "be",
    "bem",
    "bn",
    "bh",
    "xx-bork",
    "bs",
    "br",
    "bg",
    "bt",
    "km",
    "ca",
    "chr",
    "ny",
    "zh-cn",
    "zh-tw",
    "co",
    "hr",
    "cs",
    "da",
    "nl",
    "xx-elmer",
    "en",
    "eo",
    "et",
    "ee",
    "fo",
    "tl",
    "fi",
    "fr",
    "fy",
    "gaa",
    "gl",
    "ka",
    "de",
    "el",
    "kl",
    "gn",
    "gu",
    "xx-hacker",
    "ht",
    "ha",
    "haw",
    "iw",
    "hi",
    "hu",
    "is",
    "ig",
    "id",
    "ia",
    "ga",
    "it",
    "ja",
    "jw",
    "kn",
    "kk",
    "rw",
    "rn",
    "xx-klingon",
    "kg",
    "ko",
    "kri",
    "ku",
    "ckb",
    "ky",
    "lo",
    "la",
    "lv",
    "ln",
    "lt",
    "loz",
    "lg",
    "ach",
    "mk",
    "mg",
    "ms",
    "ml",
    "mt",
    "mv",
    "mi",
    "mr",
    "mfe",
    "mo",
    "mn",
    "sr-me",
    "my",
    "ne",
    "pcm",
    "nso",
    "no",
    "nn",
    "oc",
    "or",
    "om",
    "ps",
    "fa",
    "xx-pirate",
    "pl",
    "pt",
    "pt-br",
    "pt-pt",
    "pa",
    "qu",
    "ro",
    "rm",
    "nyn",
    "ru",
    "gd",
    "sr",
    "sh",
    "st",
    "tn",
    "crs",
    "sn",
    "sd",
    "si",
    "sk",
    "sl",
    "so",
    "es",
    "es-419",
    "su",
    "sw",
    "sv",
    "tg",
    "ta",
    "tt",
    "te",
    "th",
    "ti",
    "to",
    "lua",
    "tum",
    "tr",
    "tk",
    "tw",
    "ug",
    "uk",
    "ur",
    "uz",
    "vu",
    "vi",
    "cy",
    "wo",
    "xh",
    "yi",
    "yo",
    "zu",
];
const QWEATHER_LANG: &[&str] = &[
    "zh", "zh-hant", "en", "de", "es", "fr", "it", "ja", "ko", "ru", "hi", "th", "ar", "pt", "bn",
    "ms", "nl", "el", "la", "sv", "id", "pl", "tr", "cs", "et", "vi", "fil", "fi", "he", "is",
    "nb",
];
const WENCAI_QUERY_TYPE: &[&str] = &[
    "stock",
    "zhishu",
    "fund",
    "hkstock",
    "usstock",
    "threeboard",
    "conbond",
    "insurance",
    "futures",
    "lccp",
    "foreign_exchange",
];
const WIKIPEDIA_LANGUAGE: &[&str] = &[
    "af", "pl", "ar", "ast", "az", "bg", "nan", "bn", "be", "ca", "cs", "cy", "da", "de", "et",
    "el", "en", "es", "eo", "eu", "fa", "fr", "gl", "ko", "hy", "hi", "hr", "id", "it", "he", "ka",
    "lld", "la", "lv", "lt", "hu", "mk", "arz", "ms", "min", "my", "nl", "ja", "nb", "nn", "ce",
    "uz", "pt", "kk", "ro", "ru", "ceb", "sk", "sl", "sr", "sh", "fi", "sv", "ta", "tt", "th",
    "tg", "azb", "tr", "uk", "ur", "vi", "war", "zh", "yue",
];

#[cfg(test)]
mod tests {
    //! Expected messages are Python 3.12's own `str(e)` for the same params.

    use super::super::defaults::merged_params;
    use super::*;

    fn run(kind: Kind, dsl: &str) -> Result<(), CheckFailure> {
        let dsl: Value = serde_json::from_str(dsl).expect("test params are JSON");
        let dsl = dsl.as_object().cloned().unwrap_or_default();
        check_params(kind, &merged_params(kind, &dsl))
    }

    fn passes(kind: Kind, dsl: &str) {
        assert_eq!(run(kind, dsl), Ok(()), "{kind} {dsl}");
    }

    fn fails(kind: Kind, dsl: &str, param: &str, message: &str) {
        let want = CheckFailure {
            message: message.to_string(),
            param: Some(param.to_string()),
        };
        assert_eq!(run(kind, dsl), Err(want), "{kind} {dsl}");
    }

    #[test]
    fn begin() {
        passes(Kind::Begin, r#"{}"#);
        fails(
            Kind::Begin,
            r#"{"mode": "chat"}"#,
            "mode",
            r#"The 'mode' should be either `conversational` or `task` chat is not supported, it should be in ['conversational', 'task', 'Webhook']"#,
        );
    }

    #[test]
    fn message() {
        passes(Kind::Message, r#"{"content": ["hi"]}"#);
        fails(
            Kind::Message,
            r#"{}"#,
            "content",
            r#"[Message] Content does not support empty value."#,
        );
        fails(
            Kind::Message,
            r#"{"content": ["x"], "stream": "yes"}"#,
            "stream",
            r#"[Message] stream yes not supported, should be bool type"#,
        );
    }

    #[test]
    fn llm() {
        passes(Kind::Llm, r#"{"llm_id": "m"}"#);
        passes(
            Kind::Llm,
            r#"{"llm_id": "m", "temperature": "0.5", "top_p": "1"}"#,
        );
        passes(Kind::Llm, r#"{"llm_id": "m", "presence_penalty": 1e-05}"#);
        fails(
            Kind::Llm,
            r#"{}"#,
            "llm_id",
            r#"[Agent] LLM does not support empty value."#,
        );
        fails(
            Kind::Llm,
            r#"{"llm_id": "m", "temperature": "abc"}"#,
            "temperature",
            r#"could not convert string to float: 'abc'"#,
        );
        fails(
            Kind::Llm,
            r#"{"llm_id": "m", "temperature": 1.5}"#,
            "temperature",
            r#"[Agent] Temperature 1.5 not supported, should be a float number in range [0, 1]"#,
        );
        fails(
            Kind::Llm,
            r#"{"llm_id": "m", "frequency_penalty": -1e-05}"#,
            "frequency_penalty",
            r#"[Agent] Frequency penalty -1e-05 not supported, should be a float number in range [0, 1]"#,
        );
        fails(
            Kind::Llm,
            r#"{"llm_id": "m", "max_tokens": -1}"#,
            "max_tokens",
            r#"[Agent] Max tokens -1 not supported, should be non-negative numeric"#,
        );
        fails(
            Kind::Llm,
            r#"{"llm_id": "m", "max_tokens": null}"#,
            "max_tokens",
            r#"int() argument must be a string, a bytes-like object or a real number, not 'NoneType'"#,
        );
        fails(
            Kind::Llm,
            r#"{"llm_id": "m", "max_tokens": "12.5"}"#,
            "max_tokens",
            r#"invalid literal for int() with base 10: '12.5'"#,
        );
        fails(
            Kind::Llm,
            r#"{"llm_id": "m", "max_rounds": 5.0}"#,
            "max_rounds",
            r#"[Agent] Max rounds 5.0 not supported, should be one of ['int']"#,
        );
        fails(
            Kind::Llm,
            r#"{"llm_id": "m", "max_retries": true}"#,
            "max_retries",
            r#"[Agent] Max retries True not supported, should be 0 or positive integer"#,
        );
        fails(
            Kind::Llm,
            r#"{"llm_id": "m", "prompts": []}"#,
            "prompts",
            r#"[Agent] User prompt does not support empty value."#,
        );
        fails(
            Kind::Llm,
            r#"{"llm_id": "m", "top_p": [0.5]}"#,
            "top_p",
            r#"float() argument must be a string or a real number, not 'list'"#,
        );
    }

    #[test]
    fn agent() {
        passes(Kind::Agent, r#"{"llm_id": "m"}"#);
        fails(
            Kind::Agent,
            r#"{"llm_id": "m", "max_rounds": -1}"#,
            "max_rounds",
            r#"[Agent] Max rounds -1 not supported, should be non-negative numeric"#,
        );
        fails(
            Kind::Agent,
            r#"{"llm_id": "m", "max_rounds": "5"}"#,
            "max_rounds",
            r#"[Agent] Max rounds 5 not supported, should be one of ['int']"#,
        );
        fails(
            Kind::Agent,
            r#"{}"#,
            "llm_id",
            r#"[Agent] LLM does not support empty value."#,
        );
    }

    #[test]
    fn categorize() {
        passes(
            Kind::Categorize,
            r#"{"category_description": {"a": {"to": ["x"]}}}"#,
        );
        passes(
            Kind::Categorize,
            r#"{"category_description": {"a": {"to": ["x"]}}, "message_history_window_size": true}"#,
        );
        fails(
            Kind::Categorize,
            r#"{}"#,
            "category_description",
            r#"[Categorize] Category examples does not support empty value."#,
        );
        fails(
            Kind::Categorize,
            r#"{"category_description": {"a": {"to": ["x"]}}, "message_history_window_size": -1}"#,
            "message_history_window_size",
            r#"[Categorize] Message window size cannot be negative"#,
        );
        fails(
            Kind::Categorize,
            r#"{"category_description": {"a": {"to": ["x"]}}, "message_history_window_size": 2.0}"#,
            "message_history_window_size",
            r#"[Categorize] Message window size cannot be negative"#,
        );
        fails(
            Kind::Categorize,
            r#"{"category_description": {"a": {"to": []}}}"#,
            "category_description",
            r#"[Categorize] 'To' of category a can not be empty!"#,
        );
        fails(
            Kind::Categorize,
            r#"{"category_description": {"": {"to": ["x"]}}}"#,
            "category_description",
            r#"[Categorize] Category name can not be empty!"#,
        );
        fails(
            Kind::Categorize,
            r#"{"category_description": {"a": "x"}}"#,
            "category_description",
            r#"'str' object has no attribute 'get'"#,
        );
        fails(
            Kind::Categorize,
            r#"{"category_description": ["a"]}"#,
            "category_description",
            r#"'list' object has no attribute 'items'"#,
        );
    }

    #[test]
    fn switch() {
        passes(
            Kind::Switch,
            r#"{"conditions": [{"to": ["x"]}], "end_cpn_ids": ["y"]}"#,
        );
        fails(
            Kind::Switch,
            r#"{}"#,
            "conditions",
            r#"[Switch] conditions does not support empty value."#,
        );
        fails(
            Kind::Switch,
            r#"{"conditions": [{"to": ""}]}"#,
            "conditions",
            r#"[Switch] 'To' can not be empty!"#,
        );
        fails(
            Kind::Switch,
            r#"{"conditions": [{}]}"#,
            "conditions",
            r#"'to'"#,
        );
        fails(
            Kind::Switch,
            r#"{"conditions": ["x"]}"#,
            "conditions",
            r#"string indices must be integers, not 'str'"#,
        );
        fails(
            Kind::Switch,
            r#"{"conditions": 5}"#,
            "conditions",
            r#"'int' object is not iterable"#,
        );
        fails(
            Kind::Switch,
            r#"{"conditions": [{"to": "a"}]}"#,
            "end_cpn_ids",
            r#"[Switch] the ELSE/Other destination can not be empty. does not support empty value."#,
        );
    }

    #[test]
    fn invoke() {
        passes(Kind::Invoke, r#"{"url": "http://x"}"#);
        passes(
            Kind::Invoke,
            r#"{"url": "http://x", "method": "POST", "datatype": "FormData"}"#,
        );
        fails(
            Kind::Invoke,
            r#"{"url": "http://x", "method": "PATCH"}"#,
            "method",
            r#"Type of content from the crawler patch is not supported, it should be in ['get', 'post', 'put']"#,
        );
        fails(
            Kind::Invoke,
            r#"{"url": "http://x", "method": null}"#,
            "method",
            r#"'NoneType' object has no attribute 'lower'"#,
        );
        fails(
            Kind::Invoke,
            r#"{}"#,
            "url",
            r#"End point URL does not support empty value."#,
        );
        fails(
            Kind::Invoke,
            r#"{"url": "u", "timeout": 0}"#,
            "timeout",
            r#"Timeout time in second 0 not supported, should be positive integer"#,
        );
        fails(
            Kind::Invoke,
            r#"{"url": "u", "clean_html": 1}"#,
            "clean_html",
            r#"Clean HTML 1 not supported, should be bool type"#,
        );
        fails(
            Kind::Invoke,
            r#"{"url": "u", "datatype": "XML"}"#,
            "datatype",
            r#"Data post type xml is not supported, it should be in ['json', 'formdata']"#,
        );
    }

    #[test]
    fn browser() {
        passes(Kind::Browser, r#"{"llm_id": "m"}"#);
        fails(
            Kind::Browser,
            r#"{}"#,
            "llm_id",
            r#"[Browser] LLM does not support empty value."#,
        );
        fails(
            Kind::Browser,
            r#"{"llm_id": "m", "max_steps": true}"#,
            "max_steps",
            r#"[Browser] Max steps True not supported, should be positive integer"#,
        );
        fails(
            Kind::Browser,
            r#"{"llm_id": "m", "prompts": ""}"#,
            "prompts",
            r#"[Browser] Prompts does not support empty value."#,
        );
        fails(
            Kind::Browser,
            r#"{"llm_id": "m", "headless": "false"}"#,
            "headless",
            r#"[Browser] Headless false not supported, should be bool type"#,
        );
    }

    #[test]
    fn data_operations() {
        passes(Kind::DataOperations, r#"{}"#);
        fails(
            Kind::DataOperations,
            r#"{"operations": "sort"}"#,
            "operations",
            r#"Support operations sort is not supported, it should be in ['select_keys', 'literal_eval', 'combine', 'filter_values', 'append_or_update', 'remove_keys', 'rename_keys']"#,
        );
    }

    #[test]
    fn list_operations() {
        passes(Kind::ListOperations, r#"{"query": "a@b"}"#);
        passes(
            Kind::ListOperations,
            r#"{"query": "a@b", "operations": " TopN "}"#,
        );
        passes(
            Kind::ListOperations,
            r#"{"query": "q", "operations": null}"#,
        );
        passes(Kind::ListOperations, r#"{"query": "q", "operations": ""}"#);
        fails(
            Kind::ListOperations,
            r#"{}"#,
            "query",
            r#"query does not support empty value."#,
        );
        fails(
            Kind::ListOperations,
            r#"{"query": "q", "operations": "max"}"#,
            "operations",
            r#"Support operations max is not supported, it should be in ['nth', 'head', 'tail', 'filter', 'sort', 'drop_duplicates']"#,
        );
        fails(
            Kind::ListOperations,
            r#"{"query": "q", "operations": 5}"#,
            "operations",
            r#"Support operations 5 is not supported, it should be in ['nth', 'head', 'tail', 'filter', 'sort', 'drop_duplicates']"#,
        );
    }

    #[test]
    fn string_transform() {
        passes(Kind::StringTransform, r#"{}"#);
        fails(
            Kind::StringTransform,
            r#"{"method": "join"}"#,
            "method",
            r#"Support method join is not supported, it should be in ['split', 'merge']"#,
        );
        fails(
            Kind::StringTransform,
            r#"{"delimiters": []}"#,
            "delimiters",
            r#"delimiters does not support empty value."#,
        );
    }

    #[test]
    fn variable_aggregator() {
        passes(
            Kind::VariableAggregator,
            r#"{"groups": [{"group_name": "g", "variables": ["a"]}]}"#,
        );
        fails(
            Kind::VariableAggregator,
            r#"{}"#,
            "groups",
            r#"[VariableAggregator] groups does not support empty value."#,
        );
        fails(
            Kind::VariableAggregator,
            r#"{"groups": [{"group_name": "", "variables": ["a"]}]}"#,
            "groups",
            r#"[VariableAggregator] group_name can not be empty!"#,
        );
        fails(
            Kind::VariableAggregator,
            r#"{"groups": [{"group_name": "g", "variables": []}]}"#,
            "groups",
            r#"[VariableAggregator] variables of group `g` can not be empty"#,
        );
        fails(
            Kind::VariableAggregator,
            r#"{"groups": [{"group_name": ["g"], "variables": "x"}]}"#,
            "groups",
            r#"[VariableAggregator] variables of group `['g']` should be a list of strings"#,
        );
        fails(
            Kind::VariableAggregator,
            r#"{"groups": ["g"]}"#,
            "groups",
            r#"'str' object has no attribute 'get'"#,
        );
    }

    #[test]
    fn doc_generator() {
        passes(Kind::DocGenerator, r#"{"content": "x"}"#);
        passes(Kind::DocGenerator, r#"{"content": "x", "font_size": 12.5}"#);
        fails(
            Kind::DocGenerator,
            r#"{}"#,
            "content",
            r#"[DocGenerator] Content does not support empty value."#,
        );
        fails(
            Kind::DocGenerator,
            r#"{"content": "x", "output_format": "rtf"}"#,
            "output_format",
            r#"[DocGenerator] Output format rtf is not supported, it should be in ['pdf', 'docx', 'txt', 'markdown', 'html']"#,
        );
        fails(
            Kind::DocGenerator,
            r#"{"content": "x", "font_size": 11}"#,
            "font_size",
            r#"[DocGenerator] Font size must be greater than or equal to 12"#,
        );
        fails(
            Kind::DocGenerator,
            r#"{"content": "x", "font_size": "12"}"#,
            "font_size",
            r#"[DocGenerator] Font size 12 not supported, should be positive numeric"#,
        );
        fails(
            Kind::DocGenerator,
            r#"{"content": "x", "font_size": 11.5}"#,
            "font_size",
            r#"[DocGenerator] Font size must be greater than or equal to 12"#,
        );
    }

    #[test]
    fn excel_processor() {
        passes(Kind::ExcelProcessor, r#"{}"#);
        fails(
            Kind::ExcelProcessor,
            r#"{"operation": "write"}"#,
            "operation",
            r#"[ExcelProcessor] Operation write is not supported, it should be in ['read', 'merge', 'transform', 'output']"#,
        );
        fails(
            Kind::ExcelProcessor,
            r#"{"output_format": "xls"}"#,
            "output_format",
            r#"[ExcelProcessor] Output format xls is not supported, it should be in ['xlsx', 'csv']"#,
        );
    }

    #[test]
    fn ak_share() {
        passes(Kind::AkShare, r#"{}"#);
        fails(
            Kind::AkShare,
            r#"{"top_n": 0}"#,
            "top_n",
            r#"Top N 0 not supported, should be positive integer"#,
        );
        fails(
            Kind::AkShare,
            r#"{"top_n": "5"}"#,
            "top_n",
            r#"Top N 5 not supported, should be positive integer"#,
        );
    }

    #[test]
    fn ar_xiv() {
        passes(Kind::ArXiv, r#"{}"#);
        fails(
            Kind::ArXiv,
            r#"{"sort_by": "date"}"#,
            "sort_by",
            r#"ArXiv Search Sort_by date is not supported, it should be in ['submittedDate', 'lastUpdatedDate', 'relevance']"#,
        );
    }

    #[test]
    fn bgpt() {
        passes(Kind::Bgpt, r#"{}"#);
        passes(Kind::Bgpt, r#"{"top_n": " 7 "}"#);
        passes(Kind::Bgpt, r#"{"days_back": ""}"#);
        passes(Kind::Bgpt, r#"{"days_back": 2.9}"#);
        passes(Kind::Bgpt, r#"{"days_back": "3"}"#);
        fails(
            Kind::Bgpt,
            r#"{"top_n": "seven"}"#,
            "top_n",
            r#"Top N seven not supported, should be positive integer"#,
        );
        fails(
            Kind::Bgpt,
            r#"{"days_back": "x"}"#,
            "days_back",
            r#"days_back must be an integer"#,
        );
        fails(
            Kind::Bgpt,
            r#"{"days_back": "0"}"#,
            "days_back",
            r#"Days back 0 not supported, should be positive integer"#,
        );
        fails(
            Kind::Bgpt,
            r#"{"days_back": []}"#,
            "days_back",
            r#"days_back must be an integer"#,
        );
    }

    #[test]
    fn code_exec() {
        passes(Kind::CodeExec, r#"{}"#);
        passes(Kind::CodeExec, r#"{"lang": "nodejs"}"#);
        fails(
            Kind::CodeExec,
            r#"{"lang": "go"}"#,
            "lang",
            r#"Support languages go is not supported, it should be in ['python', 'python3', 'nodejs', 'javascript']"#,
        );
        fails(
            Kind::CodeExec,
            r#"{"script": ""}"#,
            "script",
            r#"Script does not support empty value."#,
        );
    }

    #[test]
    fn crawler() {
        passes(Kind::Crawler, r#"{}"#);
        fails(
            Kind::Crawler,
            r#"{"extract_type": "pdf"}"#,
            "extract_type",
            r#"Type of content from the crawler pdf is not supported, it should be in ['html', 'markdown', 'content']"#,
        );
    }

    #[test]
    fn deep_l() {
        passes(Kind::DeepL, r#"{}"#);
        fails(
            Kind::DeepL,
            r#"{"source_lang": "zh"}"#,
            "source_lang",
            r#"Source language zh is not supported, it should be in ['AR', 'BG', 'CS', 'DA', 'DE', 'EL', 'EN', 'ES', 'ET', 'FI', 'FR', 'HU', 'ID', 'IT', 'JA', 'KO', 'LT', 'LV', 'NB', 'NL', 'PL', 'PT', 'RO', 'RU', 'SK', 'SL', 'SV', 'TR', 'UK', 'ZH']"#,
        );
        fails(
            Kind::DeepL,
            r#"{"target_lang": "EN"}"#,
            "target_lang",
            r#"Target language EN is not supported, it should be in ['AR', 'BG', 'CS', 'DA', 'DE', 'EL', 'EN-GB', 'EN-US', 'ES', 'ET', 'FI', 'FR', 'HU', 'ID', 'IT', 'JA', 'KO', 'LT', 'LV', 'NB', 'NL', 'PL', 'PT-BR', 'PT-PT', 'RO', 'RU', 'SK', 'SL', 'SV', 'TR', 'UK', 'ZH']"#,
        );
    }

    #[test]
    fn duck_duck_go() {
        passes(Kind::DuckDuckGo, r#"{}"#);
        passes(Kind::DuckDuckGo, r#"{"channel": "news"}"#);
        fails(
            Kind::DuckDuckGo,
            r#"{"channel": "general"}"#,
            "channel",
            r#"Web Search or News general is not supported, it should be in ['text', 'news']"#,
        );
        fails(
            Kind::DuckDuckGo,
            r#"{"top_n": null}"#,
            "top_n",
            r#"Top N None not supported, should be positive integer"#,
        );
    }

    #[test]
    fn email() {
        passes(
            Kind::Email,
            r#"{"smtp_server": "s", "email": "e", "password": "p", "sender_name": "n"}"#,
        );
        fails(
            Kind::Email,
            r#"{}"#,
            "smtp_server",
            r#"SMTP Server does not support empty value."#,
        );
        fails(
            Kind::Email,
            r#"{"smtp_server": "s", "email": "e", "password": "p"}"#,
            "sender_name",
            r#"Sender Name does not support empty value."#,
        );
    }

    #[test]
    fn exe_sql() {
        passes(
            Kind::ExeSql,
            r#"{"database": "d", "username": "u", "host": "h", "password": "p"}"#,
        );
        passes(
            Kind::ExeSql,
            r#"{"db_type": "trino", "database": "d", "username": "u", "host": "h"}"#,
        );
        fails(
            Kind::ExeSql,
            r#"{}"#,
            "database",
            r#"Database name does not support empty value."#,
        );
        fails(
            Kind::ExeSql,
            r#"{"db_type": "sqlite"}"#,
            "db_type",
            r#"Choose DB type sqlite is not supported, it should be in ['mysql', 'postgres', 'mariadb', 'mssql', 'IBM DB2', 'trino', 'oceanbase']"#,
        );
        fails(
            Kind::ExeSql,
            r#"{"database": "d", "username": "u", "host": "h", "password": "p", "port": "3306"}"#,
            "port",
            r#"IP Port 3306 not supported, should be positive integer"#,
        );
        fails(
            Kind::ExeSql,
            r#"{"database": "d", "username": "u", "host": "h"}"#,
            "password",
            r#"Database password does not support empty value."#,
        );
        fails(
            Kind::ExeSql,
            r#"{"database": "rag_flow", "username": "u", "host": "ragflow-mysql", "password": "p"}"#,
            "host",
            r#"For the security reason, it does not support database named rag_flow."#,
        );
        fails(
            Kind::ExeSql,
            r#"{"database": "rag_flow", "username": "u", "host": "h", "password": "infini_rag_flow"}"#,
            "password",
            r#"For the security reason, it does not support database named rag_flow."#,
        );
    }

    #[test]
    fn git_hub() {
        passes(Kind::GitHub, r#"{}"#);
        fails(
            Kind::GitHub,
            r#"{"top_n": -3}"#,
            "top_n",
            r#"Top N -3 not supported, should be positive integer"#,
        );
    }

    #[test]
    fn google() {
        passes(Kind::Google, r#"{"api_key": "k"}"#);
        fails(
            Kind::Google,
            r#"{}"#,
            "api_key",
            r#"SerpApi API key does not support empty value."#,
        );
        fails(
            Kind::Google,
            r#"{"api_key": "k", "country": "xx"}"#,
            "country",
            r#"Google Country xx is not supported, it should be in ['af', 'al', 'dz', 'as', 'ad', 'ao', 'ai', 'aq', 'ag', 'ar', 'am', 'aw', 'au', 'at', 'az', 'bs', 'bh', 'bd', 'bb', 'by', 'be', 'bz', 'bj', 'bm', 'bt', 'bo', 'ba', 'bw', 'bv', 'br', 'io', 'bn', 'bg', 'bf', 'bi', 'kh', 'cm', 'ca', 'cv', 'ky', 'cf', 'td', 'cl', 'cn', 'cx', 'cc', 'co', 'km', 'cg', 'cd', 'ck', 'cr', 'ci', 'hr', 'cu', 'cy', 'cz', 'dk', 'dj', 'dm', 'do', 'ec', 'eg', 'sv', 'gq', 'er', 'ee', 'et', 'fk', 'fo', 'fj', 'fi', 'fr', 'gf', 'pf', 'tf', 'ga', 'gm', 'ge', 'de', 'gh', 'gi', 'gr', 'gl', 'gd', 'gp', 'gu', 'gt', 'gn', 'gw', 'gy', 'ht', 'hm', 'va', 'hn', 'hk', 'hu', 'is', 'in', 'id', 'ir', 'iq', 'ie', 'il', 'it', 'jm', 'jp', 'jo', 'kz', 'ke', 'ki', 'kp', 'kr', 'kw', 'kg', 'la', 'lv', 'lb', 'ls', 'lr', 'ly', 'li', 'lt', 'lu', 'mo', 'mk', 'mg', 'mw', 'my', 'mv', 'ml', 'mt', 'mh', 'mq', 'mr', 'mu', 'yt', 'mx', 'fm', 'md', 'mc', 'mn', 'ms', 'ma', 'mz', 'mm', 'na', 'nr', 'np', 'nl', 'an', 'nc', 'nz', 'ni', 'ne', 'ng', 'nu', 'nf', 'mp', 'no', 'om', 'pk', 'pw', 'ps', 'pa', 'pg', 'py', 'pe', 'ph', 'pn', 'pl', 'pt', 'pr', 'qa', 're', 'ro', 'ru', 'rw', 'sh', 'kn', 'lc', 'pm', 'vc', 'ws', 'sm', 'st', 'sa', 'sn', 'rs', 'sc', 'sl', 'sg', 'sk', 'si', 'sb', 'so', 'za', 'gs', 'es', 'lk', 'sd', 'sr', 'sj', 'sz', 'se', 'ch', 'sy', 'tw', 'tj', 'tz', 'th', 'tl', 'tg', 'tk', 'to', 'tt', 'tn', 'tr', 'tm', 'tc', 'tv', 'ug', 'ua', 'ae', 'uk', 'gb', 'us', 'um', 'uy', 'uz', 'vu', 've', 'vn', 'vg', 'vi', 'wf', 'eh', 'ye', 'zm', 'zw']"#,
        );
        fails(
            Kind::Google,
            r#"{"api_key": "k", "language": "EN"}"#,
            "language",
            r#"Google languages EN is not supported, it should be in ['af', 'ak', 'sq', 'ws', 'am', 'ar', 'hy', 'az', 'eu', 'be', 'bem', 'bn', 'bh', 'xx-bork', 'bs', 'br', 'bg', 'bt', 'km', 'ca', 'chr', 'ny', 'zh-cn', 'zh-tw', 'co', 'hr', 'cs', 'da', 'nl', 'xx-elmer', 'en', 'eo', 'et', 'ee', 'fo', 'tl', 'fi', 'fr', 'fy', 'gaa', 'gl', 'ka', 'de', 'el', 'kl', 'gn', 'gu', 'xx-hacker', 'ht', 'ha', 'haw', 'iw', 'hi', 'hu', 'is', 'ig', 'id', 'ia', 'ga', 'it', 'ja', 'jw', 'kn', 'kk', 'rw', 'rn', 'xx-klingon', 'kg', 'ko', 'kri', 'ku', 'ckb', 'ky', 'lo', 'la', 'lv', 'ln', 'lt', 'loz', 'lg', 'ach', 'mk', 'mg', 'ms', 'ml', 'mt', 'mv', 'mi', 'mr', 'mfe', 'mo', 'mn', 'sr-me', 'my', 'ne', 'pcm', 'nso', 'no', 'nn', 'oc', 'or', 'om', 'ps', 'fa', 'xx-pirate', 'pl', 'pt', 'pt-br', 'pt-pt', 'pa', 'qu', 'ro', 'rm', 'nyn', 'ru', 'gd', 'sr', 'sh', 'st', 'tn', 'crs', 'sn', 'sd', 'si', 'sk', 'sl', 'so', 'es', 'es-419', 'su', 'sw', 'sv', 'tg', 'ta', 'tt', 'te', 'th', 'ti', 'to', 'lua', 'tum', 'tr', 'tk', 'tw', 'ug', 'uk', 'ur', 'uz', 'vu', 'vi', 'cy', 'wo', 'xh', 'yi', 'yo', 'zu']"#,
        );
    }

    #[test]
    fn google_scholar() {
        passes(Kind::GoogleScholar, r#"{}"#);
        fails(
            Kind::GoogleScholar,
            r#"{"patents": "true"}"#,
            "patents",
            r#"Whether or not to include patents, defaults to True true not supported, should be bool type"#,
        );
        fails(
            Kind::GoogleScholar,
            r#"{"sort_by": "citations"}"#,
            "sort_by",
            r#"GoogleScholar Sort_by citations is not supported, it should be in ['date', 'relevance']"#,
        );
    }

    #[test]
    fn jin10() {
        passes(Kind::Jin10, r#"{}"#);
        fails(
            Kind::Jin10,
            r#"{"flash_type": 1}"#,
            "flash_type",
            r#"Flash Type 1 is not supported, it should be in ['1', '2', '3', '4', '5']"#,
        );
        fails(
            Kind::Jin10,
            r#"{"symbols_datatype": "bars"}"#,
            "symbols_datatype",
            r#"Symbols DataType bars is not supported, it should be in ['symbols', 'quotes']"#,
        );
    }

    #[test]
    fn keenable_search() {
        passes(Kind::KeenableSearch, r#"{}"#);
        passes(
            Kind::KeenableSearch,
            r#"{"mode": "realtime", "api_key": "k"}"#,
        );
        fails(
            Kind::KeenableSearch,
            r#"{"mode": "realtime"}"#,
            "api_key",
            r#"Keenable 'realtime' mode requires an API key"#,
        );
        fails(
            Kind::KeenableSearch,
            r#"{"mode": "realtime", "api_key": "  "}"#,
            "api_key",
            r#"Keenable 'realtime' mode requires an API key"#,
        );
        fails(
            Kind::KeenableSearch,
            r#"{"mode": "realtime", "api_key": 5}"#,
            "api_key",
            r#"'int' object has no attribute 'strip'"#,
        );
        fails(
            Kind::KeenableSearch,
            r#"{"mode": "fast"}"#,
            "mode",
            r#"Keenable search mode should be in 'pro/realtime' fast is not supported, it should be in ['pro', 'realtime']"#,
        );
    }

    #[test]
    fn pub_med() {
        passes(Kind::PubMed, r#"{}"#);
        fails(
            Kind::PubMed,
            r#"{"top_n": 1.0}"#,
            "top_n",
            r#"Top N 1.0 not supported, should be positive integer"#,
        );
    }

    #[test]
    fn querit_search() {
        passes(Kind::QueritSearch, r#"{}"#);
        passes(
            Kind::QueritSearch,
            r#"{"chunks_per_doc": null, "time_range": "2024-01-01to2024-12-31"}"#,
        );
        passes(Kind::QueritSearch, r#"{"time_range": "w12"}"#);
        fails(
            Kind::QueritSearch,
            r#"{"count": 0}"#,
            "count",
            r#"Querit count must be an integer greater than or equal to 1."#,
        );
        fails(
            Kind::QueritSearch,
            r#"{"count": true}"#,
            "count",
            r#"Querit count must be an integer greater than or equal to 1."#,
        );
        fails(
            Kind::QueritSearch,
            r#"{"chunks_per_doc": 4}"#,
            "chunks_per_doc",
            r#"Querit chunks_per_doc must be an integer from 1 to 3."#,
        );
        fails(
            Kind::QueritSearch,
            r#"{"time_range": "d0"}"#,
            "time_range",
            r#"Querit time_range must use dN, wN, mN, yN, or YYYY-MM-DDtoYYYY-MM-DD."#,
        );
        fails(
            Kind::QueritSearch,
            r#"{"time_range": 5}"#,
            "time_range",
            r#"Querit time_range must be a string."#,
        );
        fails(
            Kind::QueritSearch,
            r#"{"site_include": "a.com"}"#,
            "site_include",
            r#"Querit site_include must be an array of strings."#,
        );
        fails(
            Kind::QueritSearch,
            r#"{"language_include": ["en", 1]}"#,
            "language_include",
            r#"Querit language_include must be an array of strings."#,
        );
    }

    #[test]
    fn querit_contents() {
        passes(Kind::QueritContents, r#"{"urls": ["https://a.com"]}"#);
        passes(
            Kind::QueritContents,
            r#"{"urls": "https://a.com, http://b.org"}"#,
        );
        passes(Kind::QueritContents, r#"{"urls": ["http://[::1]:8080/x"]}"#);
        fails(
            Kind::QueritContents,
            r#"{}"#,
            "urls",
            r#"Querit urls must contain between 1 and 10 non-empty strings."#,
        );
        fails(
            Kind::QueritContents,
            r#"{"urls": ["ftp://a.com"]}"#,
            "urls",
            r#"Querit urls must be absolute HTTP or HTTPS URLs."#,
        );
        fails(
            Kind::QueritContents,
            r#"{"urls": ["https://a.com", "https://a.com", "https://a.com", "https://a.com", "https://a.com", "https://a.com", "https://a.com", "https://a.com", "https://a.com", "https://a.com", "https://a.com"]}"#,
            "urls",
            r#"Querit urls must contain between 1 and 10 non-empty strings."#,
        );
        fails(
            Kind::QueritContents,
            r#"{"urls": ["http://[::1"]}"#,
            "urls",
            r#"Invalid IPv6 URL"#,
        );
        fails(
            Kind::QueritContents,
            r#"{"urls": ["http://[1.2.3.4]/"]}"#,
            "urls",
            r#"An IPv4 address cannot be in brackets"#,
        );
        fails(
            Kind::QueritContents,
            r#"{"urls": ["http://[zz]/"]}"#,
            "urls",
            r#"'zz' does not appear to be an IPv4 or IPv6 address"#,
        );
        fails(
            Kind::QueritContents,
            r#"{"urls": ["http://[vq]/"]}"#,
            "urls",
            r#"IPvFuture address is invalid"#,
        );
        fails(
            Kind::QueritContents,
            r#"{"urls": ["http://a[::1]/"]}"#,
            "urls",
            r#"Invalid IPv6 URL"#,
        );
        fails(
            Kind::QueritContents,
            r#"{"urls": ["http://[x]@example.com/"]}"#,
            "urls",
            r#"'example.com' does not appear to be an IPv4 or IPv6 address"#,
        );
        fails(
            Kind::QueritContents,
            r#"{"urls": ["http://a／b"]}"#,
            "urls",
            r#"netloc 'a／b' contains invalid characters under NFKC normalization"#,
        );
        fails(
            Kind::QueritContents,
            r#"{"urls": ["https://a.com"], "format": "pdf"}"#,
            "format",
            r#"Querit format must be text, markdown, or html."#,
        );
        fails(
            Kind::QueritContents,
            r#"{"urls": ["https://a.com"], "format": ["text"]}"#,
            "format",
            r#"unhashable type: 'list'"#,
        );
        fails(
            Kind::QueritContents,
            r#"{"urls": ["https://a.com"], "crawl_timeout": 61}"#,
            "crawl_timeout",
            r#"Querit crawl_timeout must be an integer from 1 to 60."#,
        );
        fails(
            Kind::QueritContents,
            r#"{"urls": ["https://a.com"], "crawl_timeout": 10.0}"#,
            "crawl_timeout",
            r#"Querit crawl_timeout must be an integer from 1 to 60."#,
        );
        fails(
            Kind::QueritContents,
            r#"{"urls": ["https://a.com"], "extras_meta": 0}"#,
            "extras_meta",
            r#"Querit extras_meta must be a boolean."#,
        );
    }

    #[test]
    fn q_weather() {
        passes(Kind::QWeather, r#"{}"#);
        fails(
            Kind::QWeather,
            r#"{"web_apikey": ""}"#,
            "web_apikey",
            r#"QWeather API key does not support empty value."#,
        );
        fails(
            Kind::QWeather,
            r#"{"lang": "zh-cn"}"#,
            "lang",
            r#"Use language zh-cn is not supported, it should be in ['zh', 'zh-hant', 'en', 'de', 'es', 'fr', 'it', 'ja', 'ko', 'ru', 'hi', 'th', 'ar', 'pt', 'bn', 'ms', 'nl', 'el', 'la', 'sv', 'id', 'pl', 'tr', 'cs', 'et', 'vi', 'fil', 'fi', 'he', 'is', 'nb']"#,
        );
        fails(
            Kind::QWeather,
            r#"{"time_period": "1d"}"#,
            "time_period",
            r#"Time period 1d is not supported, it should be in ['now', '3d', '7d', '10d', '15d', '30d']"#,
        );
    }

    #[test]
    fn retrieval() {
        passes(Kind::Retrieval, r#"{}"#);
        passes(Kind::Retrieval, r#"{"top_n": 2.5}"#);
        fails(
            Kind::Retrieval,
            r#"{"similarity_threshold": "0.2"}"#,
            "similarity_threshold",
            r#"[Retrieval] Similarity threshold 0.2 not supported, should be a float number in range [0, 1]"#,
        );
        fails(
            Kind::Retrieval,
            r#"{"keywords_similarity_weight": 1.5}"#,
            "keywords_similarity_weight",
            r#"[Retrieval] Keyword similarity weight 1.5 not supported, should be a float number in range [0, 1]"#,
        );
        fails(
            Kind::Retrieval,
            r#"{"top_n": 0}"#,
            "top_n",
            r#"[Retrieval] Top N 0 not supported, should be positive numeric"#,
        );
    }

    #[test]
    fn sear_xng() {
        passes(Kind::SearXng, r#"{}"#);
        passes(Kind::SearXng, r#"{"top_n": "5"}"#);
        fails(
            Kind::SearXng,
            r#"{"top_n": "five"}"#,
            "top_n",
            r#"Top N five not supported, should be positive integer"#,
        );
        fails(
            Kind::SearXng,
            r#"{"top_n": 0}"#,
            "top_n",
            r#"Top N 0 not supported, should be positive integer"#,
        );
    }

    #[test]
    fn tavily_search() {
        passes(Kind::TavilySearch, r#"{}"#);
        fails(
            Kind::TavilySearch,
            r#"{"topic": "finance"}"#,
            "topic",
            r#"Tavily topic: should be in 'general/news' finance is not supported, it should be in ['general', 'news']"#,
        );
        fails(
            Kind::TavilySearch,
            r#"{"max_results": 0}"#,
            "max_results",
            r#"Tavily max result number should be within [1， 20] 0 not supported, should be positive integer"#,
        );
        fails(
            Kind::TavilySearch,
            r#"{"days": false}"#,
            "days",
            r#"Tavily days should be greater than 1 False not supported, should be positive integer"#,
        );
    }

    #[test]
    fn tavily_extract() {
        passes(Kind::TavilyExtract, r#"{}"#);
        fails(
            Kind::TavilyExtract,
            r#"{"format": "html"}"#,
            "format",
            r#"Tavily extract format should be in 'markdown/text' html is not supported, it should be in ['markdown', 'text']"#,
        );
    }

    #[test]
    fn tu_share() {
        passes(Kind::TuShare, r#"{}"#);
        fails(
            Kind::TuShare,
            r#"{"src": "reuters"}"#,
            "src",
            r#"Quick News Source reuters is not supported, it should be in ['sina', 'wallstreetcn', '10jqka', 'eastmoney', 'yuncaijing', 'fenghuang', 'jinrongjie']"#,
        );
    }

    #[test]
    fn wen_cai() {
        passes(Kind::WenCai, r#"{}"#);
        fails(
            Kind::WenCai,
            r#"{"query_type": "bond"}"#,
            "query_type",
            r#"Query type bond is not supported, it should be in ['stock', 'zhishu', 'fund', 'hkstock', 'usstock', 'threeboard', 'conbond', 'insurance', 'futures', 'lccp', 'foreign_exchange']"#,
        );
    }

    #[test]
    fn wikipedia() {
        passes(Kind::Wikipedia, r#"{}"#);
        fails(
            Kind::Wikipedia,
            r#"{"language": "EN"}"#,
            "language",
            r#"Wikipedia languages EN is not supported, it should be in ['af', 'pl', 'ar', 'ast', 'az', 'bg', 'nan', 'bn', 'be', 'ca', 'cs', 'cy', 'da', 'de', 'et', 'el', 'en', 'es', 'eo', 'eu', 'fa', 'fr', 'gl', 'ko', 'hy', 'hi', 'hr', 'id', 'it', 'he', 'ka', 'lld', 'la', 'lv', 'lt', 'hu', 'mk', 'arz', 'ms', 'min', 'my', 'nl', 'ja', 'nb', 'nn', 'ce', 'uz', 'pt', 'kk', 'ro', 'ru', 'ceb', 'sk', 'sl', 'sr', 'sh', 'fi', 'sv', 'ta', 'tt', 'th', 'tg', 'azb', 'tr', 'uk', 'ur', 'vi', 'war', 'zh', 'yue']"#,
        );
        fails(
            Kind::Wikipedia,
            r#"{"top_n": null}"#,
            "top_n",
            r#"Top N None not supported, should be positive integer"#,
        );
    }

    #[test]
    fn yahoo_finance() {
        passes(Kind::YahooFinance, r#"{}"#);
        fails(
            Kind::YahooFinance,
            r#"{"news": 1}"#,
            "news",
            r#"show news 1 not supported, should be bool type"#,
        );
    }

    #[test]
    fn kinds_whose_check_always_passes() {
        passes(
            Kind::UserFillUp,
            r#"{"inputs": 5, "outputs": "x", "max_retries": -1, "items_ref": null, "variables": "nope", "loop_variables": 3}"#,
        );
        passes(
            Kind::Iteration,
            r#"{"inputs": 5, "outputs": "x", "max_retries": -1, "items_ref": null, "variables": "nope", "loop_variables": 3}"#,
        );
        passes(
            Kind::IterationItem,
            r#"{"inputs": 5, "outputs": "x", "max_retries": -1, "items_ref": null, "variables": "nope", "loop_variables": 3}"#,
        );
        passes(
            Kind::Loop,
            r#"{"inputs": 5, "outputs": "x", "max_retries": -1, "items_ref": null, "variables": "nope", "loop_variables": 3}"#,
        );
        passes(
            Kind::LoopItem,
            r#"{"inputs": 5, "outputs": "x", "max_retries": -1, "items_ref": null, "variables": "nope", "loop_variables": 3}"#,
        );
        passes(
            Kind::ExitLoop,
            r#"{"inputs": 5, "outputs": "x", "max_retries": -1, "items_ref": null, "variables": "nope", "loop_variables": 3}"#,
        );
        passes(
            Kind::VariableAssigner,
            r#"{"inputs": 5, "outputs": "x", "max_retries": -1, "items_ref": null, "variables": "nope", "loop_variables": 3}"#,
        );
        passes(
            Kind::Answer,
            r#"{"inputs": 5, "outputs": "x", "max_retries": -1, "items_ref": null, "variables": "nope", "loop_variables": 3}"#,
        );
    }

    #[test]
    fn defaults_pass_where_python_defaults_pass() {
        let needs_config = [
            Kind::Message,
            Kind::Llm,
            Kind::Agent,
            Kind::Categorize,
            Kind::Switch,
            Kind::Invoke,
            Kind::Browser,
            Kind::ListOperations,
            Kind::VariableAggregator,
            Kind::DocGenerator,
            Kind::Email,
            Kind::ExeSql,
            Kind::Google,
            Kind::QueritContents,
        ];
        for kind in Kind::ALL.iter().copied() {
            let unmerged = check_params(kind, &Map::new());
            assert_eq!(unmerged.is_ok(), !needs_config.contains(&kind), "{kind}");
            assert_eq!(run(kind, "{}"), unmerged, "{kind}");
        }
    }

    #[test]
    fn float_repr_matches_python() {
        let cases = [
            (2.0, "2.0"),
            (0.1, "0.1"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (-0.0, "-0.0"),
            (1.5e300, "1.5e+300"),
            (1e22, "1e+22"),
            (123456789.123, "123456789.123"),
            (5e-324, "5e-324"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (f, want) in cases {
            assert_eq!(float_repr(f), want);
        }
    }

    #[test]
    fn str_and_repr_match_python() {
        assert_eq!(repr_str("abc"), "'abc'");
        assert_eq!(repr_str("it's"), "\"it's\"");
        assert_eq!(repr_str("a'\"b"), "'a\\'\"b'");
        assert_eq!(repr_str("é\n\u{1b}"), "'é\\n\\x1b'");
        assert_eq!(
            repr_str("\u{a0}\u{2028}\u{e0001}"),
            "'\\xa0\\u2028\\U000e0001'"
        );
        let v: Value =
            serde_json::from_str(r#"{"a": [1, 2.0, "é", "it's"], "b": null, "c": true}"#)
                .expect("json");
        assert_eq!(
            py_str(&py(&v)),
            r#"{'a': [1, 2.0, 'é', "it's"], 'b': None, 'c': True}"#
        );
        assert_eq!(repr_str_list(&["a", "b"]), "['a', 'b']");
    }

    #[test]
    fn int_and_float_coercion_match_python() {
        let int = |s: &str| int_from_str(s).map(|i| i.to_string());
        assert_eq!(int(" 1_000 "), Ok("1000".into()));
        assert_eq!(int("\u{663}"), Ok("3".into()));
        assert_eq!(int("-0"), Ok("0".into()));
        assert_eq!(
            int("1__0"),
            Err("invalid literal for int() with base 10: '1__0'".into())
        );
        assert_eq!(
            int("0x10"),
            Err("invalid literal for int() with base 10: '0x10'".into())
        );
        let long = "a".repeat(250);
        let err = int(&long).expect_err("not a number");
        assert_eq!(err.chars().count(), 40 + 200, "repr cut at 200 characters");
        assert_eq!(
            int_from_float(1e300).map(|i| i.to_string()),
            Ok("1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160".into())
        );
        assert_eq!(float_from_str("1_0.5"), Some(10.5));
        assert_eq!(float_from_str(" -Infinity "), Some(f64::NEG_INFINITY));
        assert_eq!(float_from_str("\u{a0}5\u{3000}"), Some(5.0));
        assert_eq!(float_from_str("1e"), None);
        assert_eq!(float_from_str("1_"), None);
    }
}
