//! Component implementations, one file per component. Each takes its typed parameters
//! ([`Spec`]) and a [`NodeCx`]; the interpreter and generated programs call them alike.

pub mod agent;
pub mod begin;
pub mod categorize;
pub mod data_operations;
pub mod external;
mod html_text;
pub mod invoke;
pub mod iteration;
pub mod list_operations;
pub mod llm;
pub mod loop_;
pub mod message;
mod py_time;
mod spec;
pub mod string_transform;
pub mod switch;
pub mod userfillup;
pub mod variable_aggregator;
pub mod variable_assigner;

pub mod unsupported;

use super::state::InputKeys;
use super::{NodeCx, RunError, RunState};
use crate::interpolate::{element_str, elements_from_text, string_format};
use crate::val::Val;
use canvasc_frontend::binding::Resolve;
use canvasc_frontend::meta::Target;
use canvasc_frontend::refs::template_refs;
use canvasc_value::{py, Json, Map};
use std::borrow::Cow;
use std::future::Future;

pub use spec::Spec;

/// A component: its parameters, typed for it, and RAGFlow's behaviour for it. The interpreter
/// and generated programs call these same implementations.
///
/// The body runs inside the scheduler's invoke wrapper; the other methods run outside it, so
/// their errors abort the run as they do in Python.
pub trait Component: Send + Sync + Sized {
    /// `_invoke`.
    fn body<'a>(
        &'a self,
        cx: &'a NodeCx<'a>,
    ) -> impl Future<Output = Result<(), RunError>> + Send + 'a;

    /// The body run at once, with the run state already locked by the caller: for a body that
    /// has nothing to wait for, this saves the lock round trips and the future of
    /// [`Component::body`]. `None` means this invocation must wait for something (a stream, a
    /// service), has changed nothing, and [`Component::body`] runs instead. The two must
    /// behave alike.
    fn body_now(&self, _cx: &NodeCx<'_>, _s: &mut RunState) -> Option<Result<(), RunError>> {
        None
    }

    /// `thoughts()`, shown in `node_started`.
    fn thoughts<'a>(&'a self, _cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        Ok(Cow::Borrowed(""))
    }

    /// The components the input elements reference (`_cpn_id`), after evaluating them as
    /// `get_input_elements()` does (which can fail). Only text-driven components have any.
    fn dependencies<'a>(&'a self, _cx: &NodeCx<'_>) -> Result<Cow<'a, [Target]>, RunError> {
        Ok(Cow::Borrowed(&[]))
    }

    /// `get_input()`: the keyword arguments the body receives, resolved when scheduled.
    fn get_input(&self, cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError> {
        generic_get_input(cx)
    }

    /// Which `get_input_values()` keys `node_finished` reports: the inputs table, unless the
    /// component has input elements.
    fn input_keys<'a>(&'a self, _cx: &NodeCx<'_>) -> InputKeys<'a> {
        InputKeys::All
    }

    /// `IterationItem.end()` / `LoopItem.end()`, evaluated after the item ran.
    fn item_ended(&self, _cx: &NodeCx<'_>) -> Result<bool, RunError> {
        Ok(false)
    }

    /// Take the bindings of the references in the parameters (compiled programs).
    fn bind(&mut self, _r: &dyn Resolve) {}

    /// [`Component::bind`], by value.
    fn bound(mut self, r: &dyn Resolve) -> Self {
        self.bind(r);
        self
    }
}

/// The body of a component that never waits: [`Component::body_now`] under the state lock.
pub fn run_now<C: Component>(c: &C, cx: &NodeCx<'_>) -> Result<(), RunError> {
    c.body_now(cx, &mut cx.state()).unwrap_or(Ok(()))
}

/// `ComponentBase.get_input()` over the param `inputs` table: each element's param value is
/// resolved when it names a global or component, string-formatted when it contains references,
/// and used literally otherwise.
pub fn generic_get_input(cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError> {
    let keys: Vec<String> = cx
        .state()
        .node(cx.node)
        .inputs
        .keys()
        .map(str::to_string)
        .collect();
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
                let kv: Vec<(String, Json)> = elements_from_text(cx, s)?
                    .into_iter()
                    .map(|(exp, v)| (exp, element_str(&v)))
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

/// A resolved value as plain JSON: an unconsumed stream has no JSON form and reads as `None`
/// where a component only records or inspects it.
pub fn json_of(v: Val) -> Json {
    match v {
        Val::Json(j) => j,
        Val::Stream(_) => Json::Null,
    }
}

/// The expression a parameter names, for `get_variable_value(v)`: Python strips it first, so a
/// non-string fails with an `AttributeError`.
pub fn exp_str(v: &Json) -> Result<&str, RunError> {
    match v {
        Json::String(s) => Ok(s),
        other => Err(no_attribute(other, "strip")),
    }
}

/// Python's `AttributeError` for a method missing on a JSON value's type.
pub fn no_attribute(v: &Json, attr: &str) -> RunError {
    RunError::raised(
        "AttributeError",
        py::access::attribute_error(py::type_name(v), attr),
    )
}

/// Python `v.get(key)` on what should be a dict.
pub fn py_get<'a>(v: &'a Json, key: &str) -> Result<Option<&'a Json>, RunError> {
    Ok(py::access::get(v, key)?)
}

/// Python `v[key]` with a string key, failing with Python's `KeyError`/`TypeError`.
pub fn py_getitem<'a>(v: &'a Json, key: &str) -> Result<&'a Json, RunError> {
    Ok(py::access::getitem(v, key)?)
}

/// Python `for x in v`: lists by item, strings by character, dicts by key.
pub fn py_iter(v: &Json) -> Result<Vec<Json>, RunError> {
    Ok(py::access::iter(v)?)
}

/// `get_value_with_variable(v)` for a parameter: a non-string fails like Python's `re.finditer`.
pub async fn value_with_variable_json(cx: &NodeCx<'_>, v: &Json) -> Result<String, RunError> {
    match v {
        Json::String(s) => crate::interpolate::value_with_variable(cx, s).await,
        other => Err(RunError::type_error(format!(
            "expected string or bytes-like object, got '{}'",
            py::type_name(other)
        ))),
    }
}

/// Helpers of the components' unit tests. RAGFlow's cases of the components run as files in
/// `engine/tests/components/` (one named test each), through the engine's public API.
#[cfg(test)]
pub(crate) mod testkit {
    use canvasc_value::Json;

    /// The declared outputs of component `id` in `dsl`, in slot order.
    pub fn declared_outputs(dsl: &Json, id: &str) -> Vec<String> {
        let analysis = canvasc_frontend::analyze(&dsl.to_string()).expect("a canvas");
        let node = analysis.ir.find(id).expect("the node");
        let outputs = &analysis.ir.node(node).outputs;
        outputs.iter().map(|o| o.name.clone()).collect()
    }
}
