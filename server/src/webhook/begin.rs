//! Finding a canvas's Webhook-mode Begin as RAGFlow's `_webhook_impl` does. Nothing here
//! depends on the server, so the prepared canvases (`starting_canvas.rs`) read it without
//! reaching the webhook routes.

use serde_json::{Map, Value};

/// The params of the canvas's Webhook-mode Begin (the last one, as RAGFlow's loop finds it),
/// `None` when it has none; the error is the exception RAGFlow's lookup raises on a malformed
/// component (a `KeyError`'s `repr`).
pub(crate) fn webhook_params(dsl: &Value) -> Result<Option<&Map<String, Value>>, String> {
    let mut found = None;
    let Some(Value::Object(components)) = dsl.get("components") else {
        return Ok(None);
    };
    for component in components.values() {
        let obj = component.get("obj").ok_or("KeyError('obj')")?;
        let name = obj
            .get("component_name")
            .ok_or("KeyError('component_name')")?;
        if name.as_str().is_none_or(|n| n.to_lowercase() != "begin") {
            continue;
        }
        let params = obj.get("params").ok_or("KeyError('params')")?;
        let mode = params.get("mode").ok_or("KeyError('mode')")?;
        if mode == "Webhook" {
            found = params.as_object();
        }
    }
    Ok(found.filter(|p| !p.is_empty()))
}
