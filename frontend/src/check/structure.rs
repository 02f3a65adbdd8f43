//! Structural findings: kinds, Begin, edges, containers, parameter checks, cycles, loop lints.

use super::Cx;
use crate::catalog::{checks::check_params, known_names, resolve_name, Kind, NameResolution};
use crate::diagnostic::Severity;
use crate::diagnostic::{closest, pointer_join, Code, Diagnostic};
use crate::document::{DslComponent, Form};
use serde_json::Value;
use std::borrow::Cow;

pub(super) fn check(cx: &mut Cx) {
    kinds(cx);
    begin(cx);
    edges(cx);
    containers(cx);
    parameter_checks(cx);
    time_ranges(cx);
    agent_tools(cx);
    switch_operators(cx);
    cycles(cx);
    loops(cx);
}

fn kinds(cx: &mut Cx) {
    for c in &cx.doc.components {
        if c.component_name.is_empty() {
            continue; // the loader reported the missing name
        }
        match c.resolution {
            NameResolution::Unknown => {
                let mut d = Diagnostic::new(
                    Code::UnknownKind,
                    format!(
                        "`{}` is not a component or tool RAGFlow knows",
                        c.component_name
                    ),
                )
                .component(&c.id)
                .at(&c.loc.name);
                if let Some(best) = closest(&c.component_name, known_names()) {
                    d = d.help(format!("did you mean `{best}`?"));
                }
                cx.emit(d);
            }
            NameResolution::Removed(why) => cx.emit(
                Diagnostic::new(
                    Code::UnknownKind,
                    format!("`{}` no longer exists in RAGFlow", c.component_name),
                )
                .component(&c.id)
                .at(&c.loc.name)
                .help(why),
            ),
            NameResolution::Alias(kind) if cx.doc.form != Form::V2 => cx.emit(
                not_loadable(
                    Code::UnknownKind,
                    format!(
                        "`{}` is not the name of a RAGFlow component: names are exact class names",
                        c.component_name
                    ),
                    &c.component_name,
                )
                .component(&c.id)
                .at(&c.loc.name)
                .help(format!("write `{kind}`")),
            ),
            NameResolution::Canonical(k @ (Kind::Jin10 | Kind::TuShare))
            | NameResolution::Alias(k @ (Kind::Jin10 | Kind::TuShare)) => cx.emit(
                Diagnostic::new(
                    Code::LegacyKind,
                    format!("{k} is a legacy node that RAGFlow runs as a no-op: it sets no output"),
                )
                .component(&c.id)
                .at(&c.loc.name)
                .help("remove it, or fetch the data with an Invoke (HTTP request) node"),
            ),
            NameResolution::Legacy(_, replacement) => cx.emit(
                not_loadable(
                    Code::LegacyKind,
                    format!(
                        "`{}` is a legacy component name that RAGFlow can no longer load",
                        c.component_name
                    ),
                    &c.component_name,
                )
                .component(&c.id)
                .at(&c.loc.name)
                .help(format!("replace it with {replacement}")),
            ),
            _ => {}
        }
    }
}

/// An error for a `component_name` RAGFlow's `component_class` cannot import: building the
/// canvas raises, so no turn of it runs (`frontend/construct.rs`).
fn not_loadable(code: Code, message: String, name: &str) -> Diagnostic {
    let mut d = Diagnostic::new(
        code,
        format!(
            "{message}: building the canvas fails with `AssertionError: Can't import {name}Param`"
        ),
    );
    d.severity = Severity::Error;
    d
}

fn begin(cx: &mut Cx) {
    let begins: Vec<&DslComponent> = cx
        .doc
        .components
        .iter()
        .filter(|c| c.kind() == Some(Kind::Begin))
        .collect();
    match cx.doc.component("begin") {
        None => {
            let mut d = Diagnostic::new(
                Code::Structural,
                "the canvas has no Begin component with id `begin`; every run starts there",
            )
            .at(cx.doc.dsl_key_pointer("components"));
            if let Some(b) = begins.first() {
                d = d
                    .component(&b.id)
                    .at(&b.loc.entry)
                    .help(format!("rename `{}` to `begin`", b.id));
            }
            cx.emit(d);
        }
        Some(c) if c.kind().is_some() && c.kind() != Some(Kind::Begin) => cx.emit(
            Diagnostic::new(
                Code::Structural,
                format!(
                    "the component with id `begin` is a {}, not a Begin",
                    c.component_name
                ),
            )
            .component(&c.id)
            .at(&c.loc.name),
        ),
        Some(_) => {}
    }
    for b in begins
        .iter()
        .filter(|b| !b.id.eq_ignore_ascii_case("begin"))
    {
        cx.emit(
            Diagnostic::new(
                Code::Structural,
                format!(
                    "Begin component `{}` is never run: RAGFlow only starts from the id `begin`",
                    b.id
                ),
            )
            .component(&b.id)
            .at(&b.loc.entry),
        );
    }
}

fn dangling(cx: &mut Cx, c: &DslComponent, what: &str, target: &str, pointer: &str) {
    if cx.doc.component(target).is_some() {
        return;
    }
    let mut d = Diagnostic::new(
        Code::DanglingEdge,
        format!(
            "{what} of `{}` names `{target}`, which is not a component",
            c.id
        ),
    )
    .component(&c.id)
    .at(pointer);
    d = d.help(
        match closest(target, cx.doc.components.iter().map(|c| c.id.as_str())) {
            Some(best) => format!("did you mean `{best}`?"),
            None => "point it at an existing component, or remove it".to_string(),
        },
    );
    cx.emit(d);
}

fn edges(cx: &mut Cx) {
    let doc = cx.doc;
    for c in &doc.components {
        for l in &c.downstream {
            dangling(cx, c, "`downstream`", &l.id, &l.pointer);
        }
        for l in &c.upstream {
            dangling(cx, c, "`upstream`", &l.id, &l.pointer);
        }
        if let Some(l) = &c.parent_id {
            dangling(cx, c, "`parent_id`", &l.id, &l.pointer);
        }
    }
    for r in &cx.ir.extraction.routes {
        let c = &doc.components[r.component];
        let what = match &r.kind {
            crate::refs::RouteKind::Case(i) => format!("case {} of Switch", i + 1),
            crate::refs::RouteKind::Else => "the ELSE route (`end_cpn_ids`)".to_string(),
            crate::refs::RouteKind::Category(name) => format!("category `{name}`"),
            crate::refs::RouteKind::ExceptionGoto => "`exception_goto`".to_string(),
        };
        dangling(cx, c, &what, &r.target, &r.pointer);
    }
}

fn containers(cx: &mut Cx) {
    let ir = cx.ir;
    for id in ir.node_ids() {
        let node = ir.node(id);
        let c = cx.component_of(id);
        let parent = node.parent.map(|p| ir.node(p));
        if let Some(p) = parent {
            if !matches!(p.kind, Kind::Iteration | Kind::Loop) {
                cx.emit(
                    Diagnostic::new(
                        Code::Structural,
                        format!("`parent_id` of `{}` is `{}`, a {}; only an Iteration or a Loop contains components", c.id, p.id, p.component_name),
                    )
                    .component(&c.id)
                    .at(c.parent_id.as_ref().map_or(c.loc.entry.clone(), |l| l.pointer.clone())),
                );
            }
        }
        let needs = match node.kind {
            Kind::IterationItem => Some(Kind::Iteration),
            Kind::LoopItem => Some(Kind::Loop),
            Kind::ExitLoop => Some(Kind::Loop),
            _ => None,
        };
        if let Some(container) = needs {
            if parent.map(|p| p.kind) != Some(container) {
                cx.emit(
                    Diagnostic::new(
                        Code::Structural,
                        format!(
                            "{} `{}` must be inside a {container} (set its `parent_id`)",
                            node.component_name, c.id
                        ),
                    )
                    .component(&c.id)
                    .at(&c.loc.entry),
                );
            }
        }
        if matches!(node.kind, Kind::Iteration | Kind::Loop) && node.start.is_none() {
            let item = if node.kind == Kind::Iteration {
                "IterationItem"
            } else {
                "LoopItem"
            };
            cx.emit(
                Diagnostic::new(
                    Code::Structural,
                    format!(
                        "{} `{}` has no {item} child, so its body can never start",
                        node.component_name, c.id
                    ),
                )
                .component(&c.id)
                .at(&c.loc.entry)
                .help(format!(
                    "add an {item} component whose `parent_id` is `{}`",
                    c.id
                )),
            );
        }
    }
}

/// RAGFlow refuses to load a canvas whose component fails its parameter check.
///
/// One deliberate difference: an empty `llm_id` means "the default model" in canvasc (RAGFlow's
/// templates ship that way and its editor asks for a model later), so it is not reported here;
/// running such a canvas without a configured default model fails with a clear error.
fn parameter_checks(cx: &mut Cx) {
    let ir = cx.ir;
    for id in ir.node_ids() {
        let node = ir.node(id);
        let params = if node
            .params
            .get("llm_id")
            .is_some_and(|v| v.as_str() == Some(""))
        {
            let mut params = node.params.clone();
            params.insert("llm_id".into(), Value::String("default".into()));
            Cow::Owned(params)
        } else {
            Cow::Borrowed(&node.params)
        };
        if let Err(failure) = check_params(node.kind, &params) {
            let c = cx.component_of(id);
            let pointer = match &failure.param {
                Some(p) if c.params.contains_key(p) => pointer_join(&c.loc.params, &[p]),
                _ => c.loc.params.clone(),
            };
            cx.emit(
                Diagnostic::new(
                    Code::Structural,
                    format!(
                        "RAGFlow rejects the parameters of `{}`: {}",
                        c.id, failure.message
                    ),
                )
                .component(&c.id)
                .at(pointer),
            );
        }
    }
}

/// Invoke's seconds (`timeout`, `delay_after_error`) that CPython cannot hold: RAGFlow builds
/// the canvas, then the component fails with an `OverflowError` every time it runs.
fn time_ranges(cx: &mut Cx) {
    use canvasc_value::py::time::{seconds, Refused};
    let ir = cx.ir;
    for id in ir.node_ids() {
        let node = ir.node(id);
        if node.kind != Kind::Invoke {
            continue;
        }
        for param in ["timeout", "delay_after_error"] {
            let Some(v) = node.params.get(param) else {
                continue;
            };
            let Some(Err(Refused::Overflow(text))) = seconds(v) else {
                continue;
            };
            let c = cx.component_of(id).clone();
            let pointer = if c.params.contains_key(param) {
                pointer_join(&c.loc.params, &[param])
            } else {
                c.loc.params.clone()
            };
            cx.emit(
                Diagnostic::new(
                    Code::OutOfRange,
                    format!(
                        "`{param}` of `{}` is {v} seconds, past what CPython's clock holds: the Invoke fails with `OverflowError: {text}` whenever it runs",
                        c.id
                    ),
                )
                .component(&c.id)
                .at(pointer),
            );
        }
    }
}

/// Tools configured inside Agents must be tools RAGFlow can instantiate: the Agent's
/// constructor imports each tool's class and checks its parameters, and a sub-Agent tool does
/// the same for its own tools (`frontend/construct.rs`).
fn agent_tools(cx: &mut Cx) {
    let ir = cx.ir;
    for id in ir.node_ids() {
        let node = ir.node(id);
        if node.kind != Kind::Agent {
            continue;
        }
        let c = cx.component_of(id);
        tools_of(cx, &c.id, &node.params, &c.loc.params);
    }
}

/// The tools in `params` (an Agent's, at `params_pointer`), and those of its sub-Agents.
fn tools_of(
    cx: &mut Cx,
    component: &str,
    params: &serde_json::Map<String, Value>,
    params_pointer: &str,
) {
    let Some(Value::Array(tools)) = params.get("tools") else {
        return;
    };
    for (i, tool) in tools.iter().enumerate() {
        let Some(name) = tool.get("component_name").and_then(Value::as_str) else {
            continue;
        };
        let index = i.to_string();
        let pointer = pointer_join(params_pointer, &["tools", &index, "component_name"]);
        let resolution = resolve_name(name);
        match resolution {
            NameResolution::Unknown => {
                let mut d = Diagnostic::new(
                    Code::UnknownKind,
                    format!("Agent tool `{name}` is not a tool RAGFlow knows"),
                )
                .component(component)
                .at(pointer);
                if let Some(best) = closest(name, known_names()) {
                    d = d.help(format!("did you mean `{best}`?"));
                }
                cx.emit(d);
                continue;
            }
            NameResolution::Removed(why) => {
                cx.emit(
                    Diagnostic::new(
                        Code::UnknownKind,
                        format!("Agent tool `{name}` no longer exists in RAGFlow"),
                    )
                    .component(component)
                    .at(pointer)
                    .help(why),
                );
                continue;
            }
            NameResolution::Legacy(_, replacement) => {
                cx.emit(
                    not_loadable(
                        Code::LegacyKind,
                        format!("Agent tool `{name}` is a legacy component name that RAGFlow can no longer load"),
                        name,
                    )
                    .component(component)
                    .at(pointer)
                    .help(format!("replace it with {replacement}")),
                );
                continue;
            }
            NameResolution::Alias(kind) if cx.doc.form != Form::V2 => {
                cx.emit(
                    not_loadable(
                        Code::UnknownKind,
                        format!("Agent tool `{name}` is not the name of a RAGFlow tool: names are exact class names"),
                        name,
                    )
                    .component(component)
                    .at(pointer)
                    .help(format!("write `{kind}`")),
                );
                continue;
            }
            _ => {}
        }
        let Some(kind) = resolution.kind() else {
            continue;
        };
        if let k @ (Kind::Jin10 | Kind::TuShare) = kind {
            cx.emit(
                Diagnostic::new(
                    Code::Structural,
                    format!("`{name}` cannot be used as an Agent tool: it has no function schema"),
                )
                .component(component)
                .at(pointer)
                .help(format!(
                    "RAGFlow fails to build the Agent; {k} is a legacy node that does nothing"
                )),
            );
            continue;
        }
        if !kind.is_tool() && kind != Kind::Agent {
            cx.emit(
                Diagnostic::new(
                    Code::Structural,
                    format!("`{name}` cannot be used as an Agent tool"),
                )
                .component(component)
                .at(pointer)
                .help("only tools and Agents can be called by an Agent"),
            );
            continue;
        }
        let empty = serde_json::Map::new();
        let tool_params = tool
            .get("params")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let params_at = pointer_join(params_pointer, &["tools", &index, "params"]);
        let mut merged = crate::catalog::defaults::merged_params(kind, tool_params);
        if merged.get("llm_id").and_then(Value::as_str) == Some("") {
            merged.insert("llm_id".into(), Value::String("default".into()));
        }
        if let Err(failure) = check_params(kind, &merged) {
            let at = match &failure.param {
                Some(p) if tool_params.contains_key(p) => pointer_join(&params_at, &[p]),
                _ => params_at.clone(),
            };
            cx.emit(
                Diagnostic::new(
                    Code::Structural,
                    format!(
                        "RAGFlow rejects the parameters of Agent tool `{name}`: {}",
                        failure.message
                    ),
                )
                .component(component)
                .at(at),
            );
        }
        if kind == Kind::Agent {
            tools_of(cx, component, tool_params, &params_at);
        }
    }
}

const SWITCH_OPERATORS: &[&str] = &[
    "contains",
    "not contains",
    "start with",
    "end with",
    "empty",
    "not empty",
    "=",
    "≠",
    ">",
    "<",
    "≥",
    "≤",
];

fn switch_operators(cx: &mut Cx) {
    let ir = cx.ir;
    for id in ir.node_ids() {
        let node = ir.node(id);
        if node.kind != Kind::Switch {
            continue;
        }
        let c = cx.component_of(id);
        let Some(Value::Array(conds)) = node.params.get("conditions") else {
            continue;
        };
        for (ci, cond) in conds.iter().enumerate() {
            let Some(Value::Array(items)) = cond.get("items") else {
                continue;
            };
            for (ii, item) in items.iter().enumerate() {
                if item
                    .get("cpn_id")
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
                {
                    continue;
                }
                let op = item.get("operator").and_then(Value::as_str).unwrap_or("");
                if !SWITCH_OPERATORS.contains(&op) {
                    let mut d = Diagnostic::new(
                        Code::Structural,
                        format!("Switch operator `{op}` is not supported: RAGFlow fails with `Not supported operator: {op}`"),
                    )
                    .component(&c.id)
                    .at(pointer_join(&c.loc.params, &["conditions", &ci.to_string(), "items", &ii.to_string(), "operator"]));
                    if let Some(best) = closest(op, SWITCH_OPERATORS.iter().copied()) {
                        d = d.help(format!("did you mean `{best}`?"));
                    } else {
                        d = d.help(format!("use one of {}", SWITCH_OPERATORS.join(", ")));
                    }
                    cx.emit(d);
                }
            }
            if cond.get("logical_operator").is_none() {
                cx.emit(
                    Diagnostic::new(
                        Code::Structural,
                        format!("case {} has no `logical_operator`: RAGFlow fails with `'logical_operator'`", ci + 1),
                    )
                    .component(&c.id)
                    .at(pointer_join(&c.loc.params, &["conditions", &ci.to_string()]))
                    .help("set it to \"and\" or \"or\""),
                );
            }
        }
    }
}

fn cycles(cx: &mut Cx) {
    let ir = cx.ir;
    for scc in cx.flow.unmediated_cycles(ir) {
        let first = scc[0];
        let c = cx.component_of(first);
        let names: Vec<String> = scc
            .iter()
            .map(|n| format!("`{}`", ir.node(*n).id))
            .collect();
        cx.emit(
            Diagnostic::new(
                Code::Structural,
                format!(
                    "cycle through {} outside any Loop or Iteration: the editor cannot draw it, and a run repeats it within one turn until a branch leaves it (forever if none does)",
                    names.join(" → ")
                ),
            )
            .component(&c.id)
            .at(&c.loc.entry)
            .help(
                "repeat work with a Loop (with a termination condition) or an Iteration, or wait for the user with a UserFillUp",
            ),
        );
    }
}

fn loops(cx: &mut Cx) {
    let ir = cx.ir;
    for id in ir.node_ids() {
        let node = ir.node(id);
        if node.kind != Kind::Loop {
            continue;
        }
        let c = cx.component_of(id);
        let max = node.params.get("maximum_loop_count");
        let zero_max = max.is_none_or(|v| v.as_f64() == Some(0.0));
        let conditions_empty = node
            .params
            .get("loop_termination_condition")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty);
        let logic = node
            .params
            .get("logical_operator")
            .and_then(Value::as_str)
            .unwrap_or("and");
        if zero_max {
            cx.emit(
                Diagnostic::new(
                    Code::LoopNeverRuns,
                    format!(
                        "Loop `{}` has `maximum_loop_count` 0, so its body never runs",
                        c.id
                    ),
                )
                .component(&c.id)
                .at(if max.is_some() {
                    pointer_join(&c.loc.params, &["maximum_loop_count"])
                } else {
                    c.loc.params.clone()
                })
                .help("set `maximum_loop_count` to the most passes the body may make"),
            );
        } else if conditions_empty && logic == "and" {
            let at = if c.params.contains_key("loop_termination_condition") {
                pointer_join(&c.loc.params, &["loop_termination_condition"])
            } else {
                c.loc.params.clone()
            };
            cx.emit(
                Diagnostic::new(
                    Code::LoopNeverRuns,
                    format!("Loop `{}` has no termination condition: with `and` RAGFlow exits before the first pass", c.id),
                )
                .component(&c.id)
                .at(at)
                .help("add a `loop_termination_condition`, or use `\"logical_operator\": \"or\"` to run until `maximum_loop_count`"),
            );
        }
    }
}
