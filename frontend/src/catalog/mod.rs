//! The component catalogue: every kind's parameters (with RAGFlow's defaults and checks), its
//! typed outputs, the tool metadata an Agent exposes to a model, and the runtime type that
//! implements it (`kind.rs`).
//!
//! The data mirrors RAGFlow's Python parameter classes (`agent/component/*.py`,
//! `agent/tools/*.py`); `components.md` and `tools.md` describe each kind.

pub mod checks;
pub mod defaults;
mod kind;
pub mod tool_meta;
mod types;

pub use crate::catalogue;
pub use kind::{
    known_names, resolve_name, BuiltFrom, Implementation, Kind, KindClass, NameResolution,
};
pub use types::Ty;

use serde_json::{Map, Value};

/// Outputs every component has, whatever its kind (BS §5).
pub const SHARED_OUTPUTS: &[(&str, &str)] = &[
    ("_created_time", "number"),
    ("_elapsed_time", "number"),
    ("_ERROR", "string"),
];

/// The outputs a Begin in `Webhook` mode gets from the request that triggers it.
pub const WEBHOOK_OUTPUTS: [&str; 3] = ["query", "headers", "body"];

/// The outputs a kind always has, independent of its parameters, with their types.
///
/// Outputs that depend on parameters (Begin's form fields, Loop variables, aggregator groups,
/// declared `outputs`, …) come from [`declared_outputs`].
pub fn fixed_outputs(kind: Kind) -> &'static [(&'static str, &'static str)] {
    use Kind::*;
    match kind {
        Begin => &[],
        UserFillUp => &[("tips", "string")],
        Message => &[
            ("content", "string"),
            ("downloads", "array<object>"),
            ("attachment", "object"),
        ],
        Llm | Agent => &[("content", "string"), ("structured", "any")],
        Categorize => &[("category_name", "string"), ("_next", "array<string>")],
        Switch => &[("next", "array<string>"), ("_next", "array<string>")],
        IterationItem => &[("item", "any"), ("result", "any"), ("index", "number")],
        Invoke => &[("result", "string")],
        Browser => &[("content", "string"), ("downloaded_files", "array<object>")],
        DataOperations => &[("result", "any")],
        ListOperations => &[("result", "array"), ("first", "any"), ("last", "any")],
        StringTransform => &[("result", "any")],
        DocGenerator => &[
            ("doc_id", "string"),
            ("filename", "string"),
            ("mime_type", "string"),
            ("size", "number"),
            ("download", "string"),
        ],
        ExcelProcessor => &[
            ("data", "object"),
            ("summary", "string"),
            ("markdown", "string"),
            ("attachment", "object"),
        ],
        Answer => &[("content", "string")],
        Iteration | Loop | LoopItem | ExitLoop | VariableAggregator | VariableAssigner => &[],
        AkShare | ArXiv | Crawler | DeepL | PubMed | QWeather | Wikipedia => {
            &[("formalized_content", "string")]
        }
        Bgpt | DuckDuckGo | ExeSql | GitHub | Google | GoogleScholar | KeenableSearch
        | QueritSearch | Retrieval | SearXng | TavilySearch => {
            &[("formalized_content", "string"), ("json", "any")]
        }
        QueritContents | TavilyExtract => &[("json", "any")],
        CodeExec => &[
            ("content", "string"),
            ("actual_type", "string"),
            ("attachments", "array<string>"),
            ("raw_result", "any"),
            ("_ARTIFACTS", "any"),
            ("_ATTACHMENT_CONTENT", "string"),
        ],
        Email => &[("success", "boolean")],
        WenCai | YahooFinance => &[("report", "string")],
        Jin10 | TuShare => &[],
    }
}

/// One output a component has because of its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredOutput {
    pub name: String,
    pub ty: Ty,
}

/// Outputs that follow from a component's parameters: keys declared in `outputs` (which
/// replace the class defaults in Python, so their records exist at run time), Begin and
/// UserFillUp form fields, Loop variables and VariableAggregator groups.
pub fn declared_outputs(kind: Kind, params: &Map<String, Value>) -> Vec<DeclaredOutput> {
    let mut out: Vec<DeclaredOutput> = Vec::new();
    let mut push = |name: &str, ty: Ty| {
        if !out.iter().any(|o| o.name == name) {
            out.push(DeclaredOutput {
                name: name.to_string(),
                ty,
            });
        }
    };
    if let Some(Value::Object(outputs)) = params.get("outputs") {
        for (name, decl) in outputs {
            let ty = decl
                .get("type")
                .and_then(Value::as_str)
                .map(Ty::parse)
                .unwrap_or(Ty::Any);
            push(name, ty);
        }
    }
    match kind {
        Kind::Begin | Kind::UserFillUp => {
            if let Some(Value::Object(fields)) = params.get("inputs") {
                for (name, field) in fields {
                    push(name, form_field_type(field));
                }
            }
            // A webhook's request, validated by its schema, is set as Begin's outputs before
            // it runs (RAGFlow's `Canvas.run(webhook_payload=…)`).
            if kind == Kind::Begin && params.get("mode").and_then(Value::as_str) == Some("Webhook")
            {
                for name in WEBHOOK_OUTPUTS {
                    push(name, Ty::Object);
                }
            }
        }
        Kind::Loop => {
            if let Some(Value::Array(vars)) = params.get("loop_variables") {
                for var in vars {
                    if let Some(name) = var.get("variable").and_then(Value::as_str) {
                        let ty = var
                            .get("type")
                            .and_then(Value::as_str)
                            .map(loop_variable_type)
                            .unwrap_or(Ty::Any);
                        push(name, ty);
                    }
                }
            }
        }
        Kind::VariableAggregator => {
            if let Some(Value::Array(groups)) = params.get("groups") {
                for group in groups {
                    if let Some(name) = group.get("group_name").and_then(Value::as_str) {
                        let ty = group
                            .get("type")
                            .and_then(Value::as_str)
                            .map(Ty::parse)
                            .unwrap_or(Ty::Any);
                        push(name, ty);
                    }
                }
            }
        }
        _ => {}
    }
    out
}

/// The type of a Begin/UserFillUp form field value after Begin resolved it (BS: files become
/// lists of strings, `object` fields are parsed JSON, everything else is the raw value).
pub fn form_field_type(field: &Value) -> Ty {
    match field.get("type").and_then(Value::as_str) {
        Some(t) if t.to_ascii_lowercase().contains("file") => Ty::array_of(Ty::String),
        Some("line" | "paragraph" | "options") => Ty::String,
        Some("integer" | "number") => Ty::Number,
        Some("boolean") => Ty::Boolean,
        Some(_) | None => Ty::Any,
    }
}

/// Loop variable types are `string`, `number`, `boolean`, `object…` or `array…`.
fn loop_variable_type(t: &str) -> Ty {
    let lower = t.to_ascii_lowercase();
    if lower.starts_with("array") {
        Ty::parse(t)
    } else if lower.starts_with("object") {
        Ty::Object
    } else {
        Ty::parse(t)
    }
}

/// The type of a system global, or `None` when `sys.<name>` is not one RAGFlow defines.
pub fn system_global_type(name: &str) -> Option<Ty> {
    Some(match name {
        "sys.query" | "sys.user_id" | "sys.date" => Ty::String,
        "sys.conversation_turns" => Ty::Number,
        "sys.files" => Ty::array_of(Ty::String),
        "sys.history" => Ty::array_of(Ty::String),
        "sys.chat_template_kwargs" => Ty::Any,
        _ => return None,
    })
}

/// The system globals a canvas run always defines (BS §16.2).
pub const SYSTEM_GLOBALS: &[&str] = &[
    "sys.query",
    "sys.user_id",
    "sys.conversation_turns",
    "sys.files",
    "sys.history",
    "sys.date",
];

/// Per-class default timeout in seconds (BS §7); `None` for kinds without a timeout decorator.
pub fn default_timeout_secs(kind: Kind) -> Option<u64> {
    use Kind::*;
    Some(match kind {
        Switch | VariableAggregator | Invoke => 3,
        AkShare | ArXiv | DeepL | DuckDuckGo | GitHub | Google | GoogleScholar | KeenableSearch
        | PubMed | QueritSearch | QWeather | Retrieval | SearXng | TavilySearch | WenCai => 12,
        Bgpt => 30,
        Email | ExeSql | Wikipedia | YahooFinance => 60,
        QueritContents => 70,
        Agent | Browser => 1200,
        Begin | UserFillUp | Iteration | IterationItem | Loop | LoopItem | ExitLoop | Jin10
        | TuShare | Answer => return None,
        _ => 600,
    })
}

/// The type of a concrete JSON value (`null` tells nothing).
pub fn value_type(v: &Value) -> Ty {
    match v {
        Value::Null => Ty::Any,
        Value::Bool(_) => Ty::Boolean,
        Value::Number(_) => Ty::Number,
        Value::String(_) => Ty::String,
        Value::Array(items) => Ty::array_of(match items.first() {
            Some(first) if items.iter().all(|i| value_type(i) == value_type(first)) => {
                value_type(first)
            }
            _ => Ty::Any,
        }),
        Value::Object(_) => Ty::Object,
    }
}
