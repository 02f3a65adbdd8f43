//! `canvasc convert FILE --to v1|v2` and `canvasc reset FILE`.

use canvasc_frontend::convert::{to_pretty, to_v1, to_v2, v1_id, v2_id};
use canvasc_frontend::{load_str, reset::reset, Document, Form};
use clap::{Args, ValueEnum};
use serde_json::Value;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Version {
    V1,
    V2,
}

#[derive(Args)]
pub struct ConvertArgs {
    /// Canvas file in any form.
    file: PathBuf,
    /// Target form.
    #[arg(long)]
    to: Version,
}

#[derive(Args)]
pub struct ResetArgs {
    /// Stored canvas DSL.
    file: PathBuf,
}

fn fail(message: String) -> ExitCode {
    errln!("error: {message}");
    ExitCode::from(super::EXIT_USAGE)
}

pub fn run_convert(args: ConvertArgs) -> ExitCode {
    let name = args.file.display().to_string();
    let text = match super::read_file(&args.file) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    let loaded = match load_str(&text) {
        Ok(l) => l,
        Err(e) => return fail(format!("{name}: {e}")),
    };
    let converted = match args.to {
        Version::V1 => to_v1(&loaded.document),
        Version::V2 => to_v2(&loaded.document),
    };
    match converted {
        Ok(v) => {
            if args.to == Version::V2 {
                let lost = lost_in_v2(&loaded.document);
                if !lost.is_empty() {
                    errln!(
                        "note: {name}: the v2 form has no place for {}; converting back to v1 \
                         will not restore them",
                        lost.join("; ")
                    );
                }
            }
            out!("{}", to_pretty(&v));
            ExitCode::SUCCESS
        }
        Err(e) => fail(format!("{name}: cannot convert: {e}")),
    }
}

/// What of a document the v2 form cannot carry, worded for a note: the editor's graph (layout
/// and edges), the session and other top-level keys, template wrapper keys, component keys
/// outside `obj.params`, and ids whose v2 key converts back to another v1 id.
fn lost_in_v2(doc: &Document) -> Vec<String> {
    if doc.form == Form::V2 {
        return Vec::new();
    }
    let mut lost = Vec::new();
    let count = |v: Option<&Value>| v.and_then(Value::as_array).map_or(0, Vec::len);
    if let Some(graph) = doc.dsl.get("graph") {
        lost.push(format!(
            "the editor's graph (layout of {} nodes, {} edges)",
            count(graph.get("nodes")),
            count(graph.get("edges"))
        ));
    }
    let keys: Vec<String> = doc
        .dsl
        .iter()
        .filter(|(k, v)| !matches!(k.as_str(), "graph" | "globals" | "variables") && !is_empty(v))
        .map(|(k, _)| format!("`{k}`"))
        .collect();
    if !keys.is_empty() {
        lost.push(format!("the top-level {}", keys.join(", ")));
    }
    if let Some(wrapper) = &doc.wrapper {
        let keys: Vec<String> = wrapper.keys().map(|k| format!("`{k}`")).collect();
        if !keys.is_empty() {
            lost.push(format!("the template's {}", keys.join(", ")));
        }
    }
    let extra = doc
        .components
        .iter()
        .filter(|c| !c.entry_extra.is_empty() || !c.obj_extra.is_empty())
        .count();
    if extra > 0 {
        lost.push(format!("keys beside `obj.params` of {extra} component(s)"));
    }
    let renamed: Vec<String> = doc
        .components
        .iter()
        .filter_map(|c| {
            let back = v1_id(&v2_id(&c.id), &c.component_name);
            (back != c.id).then(|| format!("`{}` (back as `{back}`)", c.id))
        })
        .collect();
    if !renamed.is_empty() {
        lost.push(format!("the ids {}", renamed.join(", ")));
    }
    lost
}

/// Empty values the v1 form recreates anyway.
fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

pub fn run_reset(args: ResetArgs) -> ExitCode {
    let name = args.file.display().to_string();
    let text = match super::read_file(&args.file) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    // Validate it is a canvas first, so a random JSON file is refused with a clear message.
    if let Err(e) = load_str(&text) {
        return fail(format!("{name}: {e}"));
    }
    let mut value: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return fail(format!("{name}: not JSON: {e}")),
    };
    reset(&mut value);
    out!("{}", to_pretty(&value));
    ExitCode::SUCCESS
}
