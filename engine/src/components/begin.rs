//! Begin: every run starts here; it turns the run's form inputs into outputs (components.md §1).

use super::userfillup::resolve_input_value;
use super::Component;
use crate::context::NodeCx;
use crate::error::RunError;
use canvasc_value::{Json, Map};

/// Begin has no parameters of its own to type: its form is the node's `inputs` table.
#[derive(Clone, Copy, Debug)]
pub struct Spec;

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        body(cx).await
    }
}

async fn body(cx: &NodeCx<'_>) -> Result<(), RunError> {
    if cx.check_canceled() {
        return Ok(());
    }
    let inputs = cx.kwargs.get("inputs").cloned().unwrap_or(Json::Null);
    for (k, v) in merged_inputs(cx, &inputs) {
        if cx.check_canceled() {
            return Ok(());
        }
        let resolved = resolve_input_value(&v).await?;
        cx.set_output(&k, resolved.clone());
        cx.set_input_value(&k, resolved);
    }
    Ok(())
}

/// `Begin._merge_runtime_inputs`: run inputs when given; otherwise `sys.query` fills the form
/// (an object by field name, or the single field).
fn merged_inputs(cx: &NodeCx<'_>, runtime: &Json) -> Vec<(String, Json)> {
    if let Json::Object(m) = runtime {
        if !m.is_empty() {
            return m.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        }
    }
    let (fields, query): (Vec<String>, Json) = {
        let s = cx.state();
        (
            s.node(cx.node).inputs.keys().map(str::to_string).collect(),
            s.globals.get("sys.query").cloned().unwrap_or(Json::Null),
        )
    };
    if fields.is_empty() || query.is_null() || query == Json::String(String::new()) {
        return Vec::new();
    }
    if let Json::Object(q) = &query {
        return q
            .iter()
            .filter(|(k, _)| fields.contains(k))
            .map(|(k, v)| {
                let v = match v {
                    Json::Object(_) => v.clone(),
                    other => {
                        let mut m = Map::new();
                        m.insert("value".into(), other.clone());
                        Json::Object(m)
                    }
                };
                (k.clone(), v)
            })
            .collect();
    }
    if fields.len() == 1 {
        let mut m = Map::new();
        m.insert("value".into(), query);
        return vec![(fields[0].clone(), Json::Object(m))];
    }
    Vec::new()
}
