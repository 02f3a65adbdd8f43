//! RAGFlow's parameter checks: every `<Kind>Param.check()` on the merged params.
//!
//! Checks run in Python's order and fail with Python's exception text (`str(e)`), including the
//! errors Python itself raises when a check coerces (`float()`, `int()`), iterates or indexes a
//! value of an unexpected type. JSON values are typed the way `json.loads` types them: integers
//! are `int`, numbers written with a fraction or exponent are `float`, `true` is `bool` (which
//! `isinstance(x, int)` accepts but `type(x).__name__ == "int"` does not).

use super::defaults::param_defaults;
use super::Kind;
use canvasc_value::py::{self, access, repr_str_list, PyInt};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::cmp::Ordering;

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
    check_empty(&categories, "[Categorize] Category examples", NAME)?;
    let Value::Object(map) = categories.as_ref() else {
        return Err(fail(attribute_error(&categories, "items"), NAME));
    };
    for (name, category) in map {
        if name.is_empty() {
            return Err(fail("[Categorize] Category name can not be empty!", NAME));
        }
        let to = access::get(category, "to").map_err(|e| fail(e.to_string(), NAME))?;
        if !to.is_some_and(py::truthy) {
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
    check_empty(&conditions, "[Switch] conditions", NAME)?;
    for condition in access::iter(&conditions).map_err(|e| fail(e.to_string(), NAME))? {
        let to = access::getitem(&condition, "to").map_err(|e| fail(e.to_string(), NAME))?;
        if !py::truthy(to) {
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
    let method = py_lower(&method).map_err(|m| fail(m, "method"))?;
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
    let datatype = py_lower(&datatype).map_err(|m| fail(m, "datatype"))?;
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
        other => py::strip(&py_str(&other)).to_string(),
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
    check_empty(&groups, "[VariableAggregator] groups", NAME)?;
    for group in access::iter(&groups).map_err(|e| fail(e.to_string(), NAME))? {
        let name = access::get(&group, "group_name").map_err(|e| fail(e.to_string(), NAME))?;
        let name = name.unwrap_or(&Value::Null);
        if !py::truthy(name) {
            return Err(fail(
                "[VariableAggregator] group_name can not be empty!",
                NAME,
            ));
        }
        let variables = access::get(&group, "variables").map_err(|e| fail(e.to_string(), NAME))?;
        if !variables.is_some_and(py::truthy) {
            return Err(fail(
                format!(
                    "[VariableAggregator] variables of group `{}` can not be empty",
                    py::str_of(name)
                ),
                NAME,
            ));
        }
        if !matches!(variables, Some(Value::Array(_))) {
            return Err(fail(
                format!(
                    "[VariableAggregator] variables of group `{}` should be a list of strings",
                    py::str_of(name)
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
        let has_key = match key.as_ref() {
            k if !py::truthy(k) => false,
            Value::String(s) => !py::strip(s).is_empty(),
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
            'D' => py::is_decimal(*got),
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
            .map(py::strip)
            .filter(|u| !u.is_empty())
            .map(|u| Cow::Owned(u.to_string()))
            .collect(),
        Value::Array(items) => {
            let mut out = Vec::new();
            for item in items {
                match item {
                    Value::String(s) if !py::strip(s).is_empty() => out.push(Cow::Owned(s.clone())),
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
        let parsed = py::urlparse(url).map_err(|m| fail(m, "urls"))?;
        let (scheme, netloc) = (parsed.scheme, parsed.netloc);
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
        let stripped = Py::Str(Cow::Owned(py::strip(s).to_string()));
        if let Ok(i) = py_int(&stripped) {
            top_n = Py::Int(i);
        }
    }
    check_positive_integer(&top_n, "Top N", "top_n")
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
        check_empty(&self.get(name), desc, name)
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

fn check_empty(v: &Value, desc: &str, param: &str) -> Check {
    if py::truthy(v) {
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

fn attribute_error(v: &Value, attr: &str) -> String {
    access::attribute_error(py::type_name(v), attr)
}

/// `x.lower()`.
fn py_lower(v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.to_lowercase()),
        other => Err(attribute_error(other, "lower")),
    }
}

/// Python `float(x)`.
fn py_float(v: &Py) -> Result<f64, String> {
    match v {
        Py::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
        Py::Int(i) => i.to_f64(),
        Py::Float(f) => Ok(*f),
        Py::Str(s) => py::float_of_str(s),
        other => Err(py::float_type_error(type_name(other))),
    }
}

/// Python `int(x)`.
fn py_int(v: &Py) -> Result<PyInt, String> {
    match v {
        Py::Bool(b) => Ok(PyInt::Small(i128::from(*b))),
        Py::Int(i) => Ok(i.clone()),
        Py::Float(f) => PyInt::from_float(*f),
        Py::Str(s) => py::parse_int_big(s),
        other => Err(py::int_type_error(type_name(other))),
    }
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
        Py::Float(f) => py::float_repr(*f),
        Py::Str(s) => py::repr_str(s),
        Py::List(items) => py::repr_list(items),
        Py::Dict(map) => py::repr_dict(map),
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
        // CPython 3.11's `urlsplit` checks only the text between the first brackets (the
        // stricter netloc check of CVE-2025-0938 came with 3.12.9 and 3.13.2).
        passes(Kind::QueritContents, r#"{"urls": ["http://a[::1]/"]}"#);
        fails(
            Kind::QueritContents,
            r#"{"urls": ["http://[x]@example.com/"]}"#,
            "urls",
            r#"'x' does not appear to be an IPv4 or IPv6 address"#,
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
}
