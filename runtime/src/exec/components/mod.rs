//! Component implementations, one file per component. Each takes its typed parameters
//! ([`Spec`]) and a [`NodeCx`]; the interpreter and generated programs call them alike.

pub mod begin;
pub mod iteration;
pub mod loop_;
pub mod message;
pub mod userfillup;

use super::render::{element_str, elements_from_text, string_format};
use super::{NodeCx, RunError};
use crate::frontend::catalog::Kind;
use crate::frontend::ir::{Ir, Node};
use crate::frontend::refs::template_refs;
use crate::value::{py, Json, Map, Val};

/// A node's parameters, typed for its component.
#[derive(Clone, Debug)]
pub enum Spec {
    Begin,
    UserFillUp(userfillup::Spec),
    Message(message::Spec),
    Iteration(iteration::Spec),
    IterationItem,
    Loop(loop_::Spec),
    LoopItem,
    ExitLoop,
    /// A kind this build cannot run yet; running it fails with a clear error.
    Unsupported(Kind),
}

impl Spec {
    /// Type a node's parameters.
    pub fn build(node: &Node, ir: &Ir) -> Spec {
        let _ = ir;
        let p = &node.params;
        match node.kind {
            Kind::Begin => Spec::Begin,
            Kind::UserFillUp => Spec::UserFillUp(userfillup::Spec::from_params(p)),
            Kind::Message => Spec::Message(message::Spec::from_params(p)),
            Kind::Iteration => Spec::Iteration(iteration::Spec::from_params(p)),
            Kind::IterationItem => Spec::IterationItem,
            Kind::Loop => Spec::Loop(loop_::Spec::from_params(p)),
            Kind::LoopItem => Spec::LoopItem,
            Kind::ExitLoop => Spec::ExitLoop,
            other => Spec::Unsupported(other),
        }
    }

    pub async fn body(&self, cx: &NodeCx<'_>) -> Result<(), RunError> {
        match self {
            Spec::Begin => begin::body(cx).await,
            Spec::UserFillUp(s) => userfillup::body(s, cx).await,
            Spec::Message(s) => message::body(s, cx).await,
            Spec::Iteration(s) => iteration::body(s, cx),
            Spec::IterationItem => iteration::item_body(cx),
            Spec::Loop(s) => loop_::body(s, cx),
            Spec::LoopItem => loop_::item_body(cx),
            Spec::ExitLoop => Ok(()),
            Spec::Unsupported(kind) => Err(RunError::msg(format!(
                "canvasc cannot run {kind} components yet (component `{}`)",
                cx.meta().id
            ))),
        }
    }

    pub fn thoughts(&self, cx: &NodeCx<'_>) -> Result<String, RunError> {
        Ok(match self {
            Spec::Begin | Spec::Message(_) | Spec::ExitLoop => String::new(),
            Spec::UserFillUp(_) => "Waiting for your input...".into(),
            Spec::Iteration(s) => iteration::thoughts(s, cx)?,
            Spec::IterationItem | Spec::LoopItem => "Next turn...".into(),
            Spec::Loop(_) => "Loop from canvas.".into(),
            Spec::Unsupported(kind) => default_thoughts(*kind, cx),
        })
    }

    /// `_cpn_id`s of the input elements (only text-driven components have any).
    pub fn input_dependencies(&self, cx: &NodeCx<'_>) -> Result<Vec<String>, RunError> {
        match self {
            Spec::Message(s) => Ok(elements_from_text(cx, &s.content.concat())?
                .into_iter()
                .map(|e| e.cpn_id)
                .collect()),
            _ => Ok(Vec::new()),
        }
    }

    pub fn get_input(&self, cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError> {
        match self {
            // Text-driven components' elements are expressions, never params: `{}`.
            Spec::Message(_) => Ok(Map::new()),
            _ => generic_get_input(cx),
        }
    }

    pub fn input_values(&self, cx: &NodeCx<'_>) -> Json {
        match self {
            Spec::Message(s) => {
                // The elements are evaluated again; a failure here cannot happen after the node
                // ran (its references resolved then), so fall back to the recorded values.
                let keys: Vec<String> = template_refs(&s.content.concat())
                    .iter()
                    .map(|m| m.expr(&s.content.concat()).to_string())
                    .collect();
                input_values_for(cx, keys)
            }
            _ => {
                let keys: Vec<String> = cx.state().node(cx.node).inputs.keys().cloned().collect();
                input_values_for(cx, keys)
            }
        }
    }

    pub fn item_ended(&self, cx: &NodeCx<'_>) -> Result<bool, RunError> {
        match self {
            Spec::IterationItem => Ok(cx.state().node(cx.node).counter == -1),
            Spec::LoopItem => loop_::item_ended(cx),
            _ => Ok(false),
        }
    }
}

/// `get_input_values()`: `{var: get_input_value(var)}` over the element keys, deduplicated.
fn input_values_for(cx: &NodeCx<'_>, keys: Vec<String>) -> Json {
    let s = cx.state();
    let st = s.node(cx.node);
    let mut m = Map::new();
    for k in keys {
        if !m.contains_key(&k) {
            m.insert(k.clone(), st.get_input_value(&k));
        }
    }
    Json::Object(m)
}

/// Tools' default `thoughts()`: `<display name> is running...`.
fn default_thoughts(kind: Kind, cx: &NodeCx<'_>) -> String {
    if kind.is_tool() {
        format!("{} is running...", cx.meta().display_name)
    } else {
        String::new()
    }
}

/// `ComponentBase.get_input()` over the param `inputs` table: each element's param value is
/// resolved when it names a global or component, string-formatted when it contains references,
/// and used literally otherwise.
pub fn generic_get_input(cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError> {
    let keys: Vec<String> = cx.state().node(cx.node).inputs.keys().cloned().collect();
    let mut res = Map::new();
    for var in keys {
        let Some(v) = cx.param(&var).cloned() else {
            continue;
        };
        if v.is_null() {
            continue;
        }
        let value = match &v {
            Json::String(s) if is_reff(cx, s) => match cx.value(s)? {
                Val::Json(j) => j,
                // A stream passed to a tool is read as its text (what the body would consume).
                Val::Stream(_) => Json::Null,
            },
            Json::String(s) if !template_refs(s).is_empty() => {
                let elements = elements_from_text(cx, s)?;
                let kv: Vec<(String, Json)> = elements
                    .iter()
                    .map(|e| (e.exp.clone(), element_str(&e.value)))
                    .collect();
                Json::String(string_format(s, &kv))
            }
            other => other.clone(),
        };
        cx.set_input_value(&var, value.clone());
        res.insert(var, value);
    }
    Ok(res)
}

/// `Canvas.is_reff(exp)`.
pub fn is_reff(cx: &NodeCx<'_>, exp: &str) -> bool {
    let exp = exp.trim_matches('{').trim_matches('}');
    match exp.split_once('@') {
        None => cx.state().globals.contains_key(exp),
        Some((cpn, rest)) => !rest.contains('@') && cx.shared.meta.find(cpn).is_some(),
    }
}

/// Python truthiness of a value read from state (an unconsumed stream is a truthy object).
pub fn truthy(v: &Val) -> bool {
    match v {
        Val::Json(j) => py::truthy(j),
        Val::Stream(_) => true,
    }
}
