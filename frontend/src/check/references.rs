//! Reference findings: unknown components, outputs and globals; references that can never have
//! a value or only sometimes do; type mismatches in typed slots; inert reference-like text.

use super::types::{describe, global_type, ref_type, RefType};
use super::Cx;
use crate::catalog::{Kind, Ty, SYSTEM_GLOBALS};
use crate::diagnostic::{closest, pointer_join, Code, Diagnostic};
use crate::ir::{BoundRef, NodeId, RefTarget};
use crate::refs::{InertWhy, Slot};
use serde_json::Value;
use std::collections::HashSet;

pub(super) fn check(cx: &mut Cx) {
    let ir = cx.ir;
    let assigned = globals_assigned(cx);
    for b in &ir.refs {
        match &b.target {
            RefTarget::MissingComponent { component, .. } => unknown_component(cx, b, component),
            RefTarget::Output { node, output, .. } => {
                if ir.node(*node).output(output).is_none() {
                    unknown_output(cx, b, *node, output);
                    continue;
                }
                reachability(cx, b, *node);
            }
            RefTarget::Alias { item, .. } => reachability(cx, b, *item),
            RefTarget::Global(name) => {
                if global_type(cx.doc, name).is_none() && !assigned.contains(name.as_str()) {
                    unknown_global(cx, b, name);
                    continue;
                }
            }
            RefTarget::DanglingAlias(_) => continue, // reported with the Iteration
        }
        slot_types(cx, b);
    }
    inert(cx);
}

fn diag(cx: &Cx, b: &BoundRef, code: Code, message: String) -> Diagnostic {
    let c = &cx.doc.components[b.at.component];
    Diagnostic::new(code, message)
        .component(&c.id)
        .at(&b.at.pointer)
        .span(b.at.span.start, b.at.span.end)
}

fn unknown_component(cx: &mut Cx, b: &BoundRef, component: &str) {
    let mut d = diag(
        cx,
        b,
        Code::UnknownComponent,
        format!(
            "`{}` refers to `{component}`, which is not a component of this canvas",
            b.at.raw
        ),
    );
    if let Some(best) = closest(component, cx.doc.components.iter().map(|c| c.id.as_str())) {
        d = d.help(format!("did you mean `{best}`?"));
    }
    cx.emit(d);
}

fn unknown_output(cx: &mut Cx, b: &BoundRef, node: NodeId, output: &str) {
    let n = cx.ir.node(node);
    let names: Vec<&str> = n
        .outputs
        .iter()
        .map(|o| o.name.as_str())
        .filter(|name| !name.starts_with('_'))
        .collect();
    let mut d = diag(
        cx,
        b,
        Code::UnknownOutput,
        format!("{} `{}` has no output `{output}`", n.component_name, n.id),
    );
    let list = if names.is_empty() {
        "it has no outputs of its own".to_string()
    } else {
        format!(
            "its outputs are {}",
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    d = d.help(match closest(output, names.iter().copied()) {
        Some(best) => format!("did you mean `{best}`? ({list})"),
        None => format!("RAGFlow would read an empty string; {list}"),
    });
    cx.emit(d);
}

fn unknown_global(cx: &mut Cx, b: &BoundRef, name: &str) {
    let lower = name.to_ascii_lowercase();
    let (message, help) = if lower.starts_with("sys.") {
        let candidates: Vec<&str> = SYSTEM_GLOBALS.to_vec();
        let help = if name != lower && SYSTEM_GLOBALS.contains(&lower.as_str()) {
            format!("globals are looked up exactly: write `{lower}`")
        } else {
            match closest(name, candidates.iter().copied()) {
                Some(best) => format!("did you mean `{best}`?"),
                None => format!("system globals are {}", candidates.join(", ")),
            }
        };
        (
            format!("`{name}` is not a system global: RAGFlow fails with KeyError '{name}'"),
            help,
        )
    } else if lower.starts_with("env.") {
        let declared: Vec<String> = cx
            .doc
            .variables()
            .map(|v| v.keys().map(|k| format!("env.{k}")).collect())
            .unwrap_or_default();
        let help = match closest(name, declared.iter().map(String::as_str)) {
            Some(best) => format!("did you mean `{best}`?"),
            None => format!("declare `{}` in the canvas `variables`", &name[4..]),
        };
        (format!("`{name}` is not declared in the canvas variables: RAGFlow fails with KeyError '{name}'"), help)
    } else {
        (
            format!("`{name}` is neither a component output nor a global: RAGFlow fails with KeyError '{name}'"),
            "a reference is `component_id@output`, `sys.<name>` or `env.<name>`".to_string(),
        )
    };
    let d = diag(cx, b, Code::UnknownGlobal, message).help(help);
    cx.emit(d);
}

/// Globals a VariableAssigner creates (`set_variable_value` on a new key), collected once
/// rather than searched for at every global reference.
fn globals_assigned<'a>(cx: &Cx<'a>) -> HashSet<&'a str> {
    cx.ir
        .refs
        .iter()
        .filter(|r| matches!(r.at.slot, Slot::AssignTarget { .. }))
        .filter_map(|r| match &r.target {
            RefTarget::Global(g) => Some(g.as_str()),
            _ => None,
        })
        .collect()
}

/// The node whose run reads the reference.
fn reader(cx: &Cx, b: &BoundRef) -> NodeId {
    let node = cx.ir.node(b.node);
    match b.at.slot {
        Slot::LoopCondition { .. } | Slot::CollectedOutput => node.start.unwrap_or(b.node),
        _ => b.node,
    }
}

fn reachability(cx: &mut Cx, b: &BoundRef, target: NodeId) {
    if matches!(b.at.slot, Slot::AssignTarget { .. }) {
        return;
    }
    let c = reader(cx, b);
    let flow = cx.flow;
    if !flow.is_reachable(c) {
        return; // nothing in this component can run; don't pile findings on it
    }
    let x_id = cx.ir.node(target).id.clone();
    let c_id = cx.ir.node(c).id.clone();
    let loop_carried =
        flow.can_reach(target, c) && (target == c || !flow.can_reach_once(target, c));
    if loop_carried {
        return; // a value carried over from an earlier pass of a loop
    }
    let never = |cx: &mut Cx, why: String| {
        let consequence = if b.at.deferral {
            format!("RAGFlow waits for it and drops `{c_id}` from the run")
        } else {
            "RAGFlow would silently read an empty value".to_string()
        };
        let d = diag(
            cx,
            b,
            Code::UnreachableReference,
            format!("{why}: {consequence}"),
        )
        .help(format!(
            "reference a component upstream of `{c_id}`, or connect `{x_id}` before it"
        ));
        cx.emit(d);
    };
    if target == c {
        return never(
            cx,
            format!("`{c_id}` reads its own output before it has run"),
        );
    }
    let (Some((x_min, x_max)), Some((c_min, c_max))) = (flow.levels(target), flow.levels(c)) else {
        return never(
            cx,
            format!("`{x_id}` can never run, so it has not run when `{c_id}` runs"),
        );
    };
    if x_min >= c_max || flow.can_run_together(target, c) == Some(false) {
        return never(
            cx,
            format!("`{x_id}` can never have run when `{c_id}` runs"),
        );
    }
    if b.at.slot == Slot::AggregatorCandidate || flow.dominates(target, c) {
        // Aggregators take the first candidate with a value, so unset ones are expected; a
        // dominator has run on every path before `c`.
        return;
    }
    if flow.always_runs_with(target, c) == Some(false) {
        let consequence = if b.at.deferral {
            format!("on the others RAGFlow drops `{c_id}` from the run instead of running it")
        } else {
            "on the others the reference reads an empty value".to_string()
        };
        let d = diag(
            cx,
            b,
            Code::MaybeUnset,
            format!("`{x_id}` runs only on some of the paths that reach `{c_id}`: {consequence}"),
        )
        .help("merge the branches with a VariableAggregator, or move the reference after a component that every path runs through");
        cx.emit(d);
        return;
    }
    // A text-driven component waits (RAGFlow defers it) until `x` is on the path; when `x` leads
    // to it, it runs after `x` whatever the batch order.
    if x_max >= c_min && !(b.at.deferral && flow.can_reach(target, c)) {
        let d = diag(
            cx,
            b,
            Code::MaybeUnset,
            format!(
                "`{c_id}` can run in the same batch as `{x_id}` or before it (it is also reached by a shorter path), so the reference can read an empty value"
            ),
        )
        .help(format!("make `{x_id}` the only way into `{c_id}`, or merge the paths before `{c_id}`"));
        cx.emit(d);
    }
}

fn slot_types(cx: &mut Cx, b: &BoundRef) {
    let RefType::Known(ty) = ref_type(cx.doc, cx.ir, &b.target) else {
        return;
    };
    let raw = describe(&b.at.expr);
    let node = cx.ir.node(b.node);
    match b.at.slot {
        Slot::IterationItems if ty.is_definitely_not_array() => {
            let d = diag(
                cx,
                b,
                Code::TypeMismatch,
                format!(
                    "Iteration `{}` iterates `{raw}`, which is {}, not an array",
                    node.id,
                    a(&ty)
                ),
            )
            .help(format!(
                "RAGFlow fails with `{raw} must be an array, but its type is {}`",
                py_class(&ty)
            ));
            cx.emit(d);
        }
        Slot::ListInput if ty.is_definitely_not_array() => {
            let d = diag(
                cx,
                b,
                Code::TypeMismatch,
                format!(
                    "ListOperations `{}` needs an array, but `{raw}` is {}",
                    node.id,
                    a(&ty)
                ),
            )
            .help("RAGFlow fails with `The input of List Operations should be an array.`");
            cx.emit(d);
        }
        Slot::SplitInput if matches!(ty, Ty::Number | Ty::Boolean | Ty::Object | Ty::Array(_)) => {
            let d = diag(
                cx,
                b,
                Code::TypeMismatch,
                format!(
                    "StringTransform `{}` splits a string, but `{raw}` is {}",
                    node.id,
                    a(&ty)
                ),
            )
            .help(format!(
                "RAGFlow fails with `The input variable is not a string: {}`",
                py_class(&ty)
            ));
            cx.emit(d);
        }
        Slot::SwitchOperand { case, item } => switch_operand(cx, b, &ty, case, item),
        Slot::LoopCondition { index } => loop_condition(cx, b, &ty, index),
        _ => {}
    }
    if let Slot::AssignTarget { index } = b.at.slot {
        assign_target(cx, b, &ty, index);
    }
}

fn switch_operand(cx: &mut Cx, b: &BoundRef, ty: &Ty, case: usize, item: usize) {
    let node = cx.ir.node(b.node);
    let Some(it) = node
        .params
        .get("conditions")
        .and_then(|c| c.get(case))
        .and_then(|c| c.get("items"))
        .and_then(|i| i.get(item))
    else {
        return;
    };
    let op = it.get("operator").and_then(Value::as_str).unwrap_or("");
    let operand = it
        .get("value")
        .cloned()
        .unwrap_or(Value::String(String::new()));
    let c = &cx.doc.components[b.at.component];
    let value_ptr = pointer_join(
        &c.loc.params,
        &[
            "conditions",
            &case.to_string(),
            "items",
            &item.to_string(),
            "value",
        ],
    );
    let raw = describe(&b.at.expr);
    if ty.is_numeric() && !py_float_ok(&operand) {
        let shown = match &operand {
            Value::String(s) => format!("'{s}'"),
            other => other.to_string(),
        };
        let d = diag(
            cx,
            b,
            Code::TypeMismatch,
            format!("`{raw}` is {}, so RAGFlow converts the operand {shown} to a number and fails", a(ty)),
        )
        .help(format!(
            "RAGFlow fails with `could not convert string to float: {shown}`; compare with a number{}",
            if op == "empty" || op == "not empty" { " (even `empty` converts the operand)" } else { "" }
        ));
        let d = Diagnostic {
            pointer: value_ptr,
            span: None,
            ..d
        };
        cx.emit(d);
        return;
    }
    if matches!(op, ">" | "<" | "≥" | "≤") && *ty == Ty::String {
        let mut d = diag(
            cx,
            b,
            Code::TypeMismatch,
            format!("`{op}` compares `{raw}`, a string, as a number only when both sides parse as numbers"),
        )
        .help("otherwise RAGFlow compares the texts lexicographically (\"9\" > \"10\"); compare a number output, or convert the text first");
        d.severity = crate::Severity::Warning;
        cx.emit(d);
        return;
    }
    if matches!(op, ">" | "<" | "≥" | "≤") && matches!(ty, Ty::Object | Ty::Array(_)) {
        let d = diag(
            cx,
            b,
            Code::TypeMismatch,
            format!("`{op}` orders values, but `{raw}` is {}", a(ty)),
        )
        .help("RAGFlow fails with `'>' not supported between instances of …`; compare a number or a string");
        cx.emit(d);
    }
}

/// Operators LoopItem accepts for each runtime type of the condition variable.
fn loop_operators(ty: &Ty) -> Option<&'static [&'static str]> {
    Some(match ty {
        Ty::String => &[
            "contains",
            "not contains",
            "start with",
            "end with",
            "is",
            "is not",
            "empty",
            "not empty",
        ],
        Ty::Boolean => &["is", "is not", "empty", "not empty"],
        Ty::Number => &["=", "≠", ">", "<", "≥", "≤", "empty", "not empty"],
        Ty::Object => &["empty", "not empty"],
        Ty::Array(_) => &[
            "contains",
            "not contains",
            "is",
            "is not",
            "empty",
            "not empty",
        ],
        Ty::Any | Ty::File => return None,
    })
}

fn loop_condition(cx: &mut Cx, b: &BoundRef, ty: &Ty, index: usize) {
    let node = cx.ir.node(b.node);
    let Some(cond) = node
        .params
        .get("loop_termination_condition")
        .and_then(|c| c.get(index))
    else {
        return;
    };
    let Some(op) = cond.get("operator").and_then(Value::as_str) else {
        return;
    };
    let Some(allowed) = loop_operators(ty) else {
        return;
    };
    let raw = describe(&b.at.expr);
    if !allowed.contains(&op) {
        let d = diag(
            cx,
            b,
            Code::TypeMismatch,
            format!(
                "loop condition `{op}` does not apply to `{raw}`, which is {}",
                a(ty)
            ),
        )
        .help(format!(
            "RAGFlow aborts the run with `Invalid operator: {op}`; for {} use one of {}",
            a(ty),
            allowed.join(", ")
        ));
        cx.emit(d);
        return;
    }
    let constant = cond
        .get("input_mode")
        .and_then(Value::as_str)
        .unwrap_or("constant")
        == "constant";
    if *ty == Ty::Number
        && constant
        && matches!(op, ">" | "<" | "≥" | "≤")
        && cond.get("value").is_some_and(Value::is_string)
    {
        let d = diag(
            cx,
            b,
            Code::TypeMismatch,
            format!("loop condition compares the number `{raw}` with a string using `{op}`"),
        )
        .help("RAGFlow aborts the run with a TypeError; write the value as a JSON number");
        cx.emit(d);
    }
}

fn assign_target(cx: &mut Cx, b: &BoundRef, ty: &Ty, index: usize) {
    let node = cx.ir.node(b.node);
    let Some(entry) = node.params.get("variables").and_then(|v| v.get(index)) else {
        return;
    };
    let op = entry.get("operator").and_then(Value::as_str).unwrap_or("");
    let raw = describe(&b.at.expr);
    let problem = match op {
        "+=" | "-=" | "*=" | "/=" => {
            let param_is_number = entry.get("parameter").is_some_and(|p| p.is_number());
            if !matches!(ty, Ty::Number | Ty::Any) {
                Some(format!("`{op}` needs a number, but `{raw}` is {}", a(ty)))
            } else if !param_is_number {
                Some(format!("`{op}` needs a literal number as its parameter"))
            } else if op == "/=" && entry.get("parameter").and_then(Value::as_f64) == Some(0.0) {
                Some(format!("`/=` divides `{raw}` by zero"))
            } else {
                None
            }
        }
        "append" | "extend" | "remove_first" | "remove_last"
            if !matches!(ty, Ty::Array(_) | Ty::Any) =>
        {
            Some(format!("`{op}` works on a list, but `{raw}` is {}", a(ty)))
        }
        "append" | "extend" => {
            let element = ty.element().cloned().unwrap_or(Ty::Any);
            let param_ty =
                node.refs
                    .iter()
                    .map(|&r| &cx.ir.refs[r])
                    .find_map(|p| match p.at.slot {
                        Slot::AssignParameter { index: i } if i == index => {
                            match ref_type(cx.doc, cx.ir, &p.target) {
                                RefType::Known(t) => Some(t),
                                RefType::Unresolved => None,
                            }
                        }
                        _ => None,
                    });
            let added = match (op, param_ty) {
                ("append", Some(t)) => Some(t),
                ("extend", Some(Ty::Array(e))) => Some(*e),
                _ => None,
            };
            match added {
                Some(t) if definitely_different(&element, &t) => Some(format!(
                    "`{op}` adds {} to `{raw}`, a list of {element}",
                    a(&t)
                )),
                _ => None,
            }
        }
        _ => None,
    };
    if let Some(message) = problem {
        let d = diag(cx, b, Code::TypeMismatch, message)
            .help("RAGFlow writes an `ERROR:…` string into the variable instead of a value");
        cx.emit(d);
    }
}

fn inert(cx: &mut Cx) {
    let doc = cx.doc;
    for i in &cx.ir.extraction.inert {
        let c = &doc.components[i.component];
        if c.kind() == Some(Kind::Begin) {
            continue;
        }
        let (message, help) = match &i.why {
            InertWhy::Malformed { suggestion } => (
                format!("`{}` is not a reference: RAGFlow sends it verbatim", i.text),
                match suggestion {
                    Some(s) => format!("write `{s}` (no spaces inside the braces)"),
                    None => "a reference is `{component_id@output}`, `{sys.name}` or `{env.name}`; component ids cannot contain `-`".to_string(),
                },
            ),
            InertWhy::AliasOutsideIteration => (
                format!("`{}` only means the current item inside an Iteration: here it is sent verbatim", i.text),
                "reference the value explicitly, e.g. `{IterationItem:x@item}`".to_string(),
            ),
            InertWhy::LiteralSelector => (
                format!("`{}` names no component or global, so RAGFlow uses it as literal text", i.text),
                "check the component id or the variable name".to_string(),
            ),
        };
        cx.emit(
            Diagnostic::new(Code::InertReference, message)
                .component(&c.id)
                .at(&i.pointer)
                .span(i.span.start, i.span.end)
                .help(help),
        );
    }
}

/// Two types no value shares (unknowns never differ).
fn definitely_different(a: &Ty, b: &Ty) -> bool {
    let known = |t: &Ty| {
        matches!(
            t,
            Ty::String | Ty::Number | Ty::Boolean | Ty::Object | Ty::Array(_)
        )
    };
    known(a) && known(b) && std::mem::discriminant(a) != std::mem::discriminant(b)
}

/// "a string", "an array<string>", … for messages.
fn a(ty: &Ty) -> String {
    let s = ty.to_string();
    let article = if s.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {s}")
}

/// Python's class repr for a value of this type, as RAGFlow prints it in errors.
fn py_class(ty: &Ty) -> &'static str {
    match ty {
        Ty::String => "<class 'str'>",
        Ty::Number => "<class 'int'>",
        Ty::Boolean => "<class 'bool'>",
        Ty::Object => "<class 'dict'>",
        Ty::Array(_) => "<class 'list'>",
        Ty::Any | Ty::File => "<class 'NoneType'>",
    }
}

/// Whether Python's `float(v)` succeeds.
fn py_float_ok(v: &Value) -> bool {
    match v {
        Value::Number(_) | Value::Bool(_) => true,
        Value::String(s) => {
            let t = s.trim();
            let t = t.strip_prefix(['+', '-']).unwrap_or(t);
            let lower = t.to_ascii_lowercase();
            matches!(lower.as_str(), "inf" | "infinity" | "nan")
                || (!t.is_empty()
                    && t.replace('_', "").parse::<f64>().is_ok()
                    && !t.starts_with('_')
                    && !t.ends_with('_'))
        }
        _ => false,
    }
}
