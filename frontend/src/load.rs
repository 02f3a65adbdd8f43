//! Reading a DSL file in any of its forms into a [`Document`].
//!
//! Loading never fails on a malformed canvas: it returns the best document it can build together
//! with diagnostics. Only text that is not JSON, or JSON that is not a canvas at all, is an error.

use super::component_parts::{
    component_from_parts, json_type_name, without_spare_room, DECORATION_KEYS,
};
use super::diagnostic::{pointer_join, Code, Diagnostic};
use super::document::{Document, Form, Link, Locations};
use super::{graph_form, migrate};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt;

/// Why a file could not be read as a canvas at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// The text is not JSON.
    NotJson {
        line: usize,
        column: usize,
        message: String,
    },
    /// Valid JSON, but not a canvas in any known form.
    NotCanvas(String),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotJson {
                line,
                column,
                message,
            } => write!(f, "not JSON: {message} at line {line} column {column}"),
            LoadError::NotCanvas(why) => write!(f, "not a canvas: {why}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// A loaded document and what the loader noticed on the way.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub document: Document,
    pub diagnostics: Vec<Diagnostic>,
}

/// Parse JSON text and load it.
pub fn load_str(text: &str) -> Result<Loaded, LoadError> {
    let root: Value = serde_json::from_str(text).map_err(|e| LoadError::NotJson {
        line: e.line(),
        column: e.column(),
        message: strip_position(&e.to_string()),
    })?;
    load_value(root)
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// Load an already parsed JSON value.
pub fn load_value(root: Value) -> Result<Loaded, LoadError> {
    let Value::Object(mut root) = root else {
        return Err(LoadError::NotCanvas(format!(
            "the top level is {}, expected an object",
            json_type_name(&root)
        )));
    };
    let mut diags = Vec::new();
    let (dsl, wrapper, dsl_pointer) = match root.get("dsl") {
        Some(Value::Object(_)) if !root.contains_key("components") => {
            let Some(Value::Object(dsl)) = root.shift_remove("dsl") else {
                unreachable!("checked above")
            };
            (dsl, Some(root), "/dsl".to_string())
        }
        _ => (root, None, String::new()),
    };
    let is_v2 = matches!(dsl.get("version"), Some(v) if v == 2 || v == "2");
    let form = if is_v2 {
        Form::V2
    } else if dsl.contains_key("components") {
        if wrapper.is_some() {
            Form::Template
        } else {
            Form::V1
        }
    } else if dsl
        .get("graph")
        .and_then(|g| g.get("nodes"))
        .is_some_and(Value::is_array)
    {
        Form::Graph
    } else {
        return Err(LoadError::NotCanvas(
            "no `components` object, no `graph.nodes` list and no `\"version\": 2`".into(),
        ));
    };

    let mut document = match form {
        Form::V1 | Form::Template => load_v1(dsl, wrapper, dsl_pointer, form, &mut diags)?,
        Form::V2 => load_v2(dsl, dsl_pointer, &mut diags)?,
        Form::Graph => graph_form::load(dsl, dsl_pointer, &mut diags),
    };
    apply_display_names(&mut document);
    report_duplicate_ids(&document, &mut diags);
    Ok(Loaded {
        document,
        diagnostics: diags,
    })
}

fn load_v1(
    mut dsl: Map<String, Value>,
    wrapper: Option<Map<String, Value>>,
    dsl_pointer: String,
    form: Form,
    diags: &mut Vec<Diagnostic>,
) -> Result<Document, LoadError> {
    migrate::normalize_legacy_ids(&mut dsl);
    let components_value = dsl.shift_remove("components").unwrap_or(Value::Null);
    let Value::Object(entries) = components_value else {
        return Err(LoadError::NotCanvas(format!(
            "`components` is {}, expected an object of components",
            json_type_name(&components_value)
        )));
    };
    let base = pointer_join(&dsl_pointer, &["components"]);
    let mut components = Vec::with_capacity(entries.len());
    for (id, entry) in entries {
        let entry_ptr = pointer_join(&base, &[&id]);
        let Value::Object(mut entry) = entry else {
            diags.push(
                Diagnostic::new(
                    Code::Structural,
                    format!(
                        "component `{id}` is {}, expected an object",
                        json_type_name(&entry)
                    ),
                )
                .component(&id)
                .at(&entry_ptr),
            );
            continue;
        };
        let obj = match entry.shift_remove("obj") {
            Some(Value::Object(obj)) => obj,
            other => {
                diags.push(
                    Diagnostic::new(
                        Code::Structural,
                        format!("component `{id}` has no `obj` object with its component_name and params"),
                    )
                    .component(&id)
                    .at(if other.is_some() { pointer_join(&entry_ptr, &["obj"]) } else { entry_ptr.clone() }),
                );
                Map::new()
            }
        };
        let obj_ptr = pointer_join(&entry_ptr, &["obj"]);
        let mut component = component_from_parts(
            &id,
            obj,
            Locations {
                entry: entry_ptr.clone(),
                params: pointer_join(&obj_ptr, &["params"]),
                name: pointer_join(&obj_ptr, &["component_name"]),
            },
            diags,
        );
        component.downstream = id_list(&mut entry, "downstream", &id, &entry_ptr, diags);
        component.upstream = id_list(&mut entry, "upstream", &id, &entry_ptr, diags);
        component.parent_id = parent_link(&mut entry, &id, &entry_ptr, diags);
        for key in DECORATION_KEYS {
            entry.shift_remove(*key);
        }
        component.entry_extra = without_spare_room(entry);
        components.push(component);
    }
    Ok(Document::new(form, components, dsl, wrapper, dsl_pointer))
}

fn load_v2(
    mut dsl: Map<String, Value>,
    dsl_pointer: String,
    diags: &mut Vec<Diagnostic>,
) -> Result<Document, LoadError> {
    let components_value = dsl.shift_remove("components").unwrap_or(Value::Null);
    let Value::Object(entries) = components_value else {
        return Err(LoadError::NotCanvas(
            "a version 2 canvas needs a `components` object".into(),
        ));
    };
    let base = pointer_join(&dsl_pointer, &["components"]);
    let mut components = Vec::with_capacity(entries.len());
    for (key, entry) in entries {
        let entry_ptr = pointer_join(&base, &[&key]);
        let Value::Object(mut entry) = entry else {
            diags.push(
                Diagnostic::new(
                    Code::Structural,
                    format!("component `{key}` is not an object"),
                )
                .component(&key)
                .at(&entry_ptr),
            );
            continue;
        };
        if let Some(Value::String(id)) = entry.get("id") {
            if id != &key {
                diags.push(
                    Diagnostic::new(
                        Code::Structural,
                        format!("component key `{key}` and its `id` `{id}` differ"),
                    )
                    .component(&key)
                    .at(pointer_join(&entry_ptr, &["id"])),
                );
            }
        }
        entry.shift_remove("id");
        let mut obj = Map::new();
        if let Some(name) = entry.shift_remove("name") {
            obj.insert("component_name".into(), name);
        }
        if let Some(params) = entry.shift_remove("params") {
            obj.insert("params".into(), params);
        }
        let mut component = component_from_parts(
            &key,
            obj,
            Locations {
                entry: entry_ptr.clone(),
                params: pointer_join(&entry_ptr, &["params"]),
                name: pointer_join(&entry_ptr, &["name"]),
            },
            diags,
        );
        component.downstream = id_list(&mut entry, "downstream", &key, &entry_ptr, diags);
        component.upstream = id_list(&mut entry, "upstream", &key, &entry_ptr, diags);
        component.parent_id = parent_link(&mut entry, &key, &entry_ptr, diags);
        if let Some(Value::String(name)) = entry.shift_remove("display_name") {
            component.display_name = name;
        }
        component.entry_extra = without_spare_room(entry);
        components.push(component);
    }
    Ok(Document::new(Form::V2, components, dsl, None, dsl_pointer))
}

fn id_list(
    entry: &mut Map<String, Value>,
    key: &str,
    id: &str,
    entry_ptr: &str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Link> {
    let ptr = pointer_join(entry_ptr, &[key]);
    match entry.shift_remove(key) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .filter_map(|(i, item)| match item {
                Value::String(s) => Some(Link {
                    id: s,
                    pointer: pointer_join(&ptr, &[&i.to_string()]),
                }),
                other => {
                    diags.push(
                        Diagnostic::new(
                            Code::Structural,
                            format!(
                                "`{key}` of `{id}` holds {}, expected component ids",
                                json_type_name(&other)
                            ),
                        )
                        .component(id)
                        .at(pointer_join(&ptr, &[&i.to_string()])),
                    );
                    None
                }
            })
            .collect(),
        Some(other) => {
            diags.push(
                Diagnostic::new(
                    Code::Structural,
                    format!(
                        "`{key}` of `{id}` is {}, expected a list of component ids",
                        json_type_name(&other)
                    ),
                )
                .component(id)
                .at(ptr),
            );
            Vec::new()
        }
    }
}

fn parent_link(
    entry: &mut Map<String, Value>,
    id: &str,
    entry_ptr: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Link> {
    let ptr = pointer_join(entry_ptr, &["parent_id"]);
    match entry.shift_remove("parent_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(Value::String(s)) => Some(Link {
            id: s,
            pointer: ptr,
        }),
        Some(other) => {
            diags.push(
                Diagnostic::new(
                    Code::Structural,
                    format!(
                        "`parent_id` of `{id}` is {}, expected a component id",
                        json_type_name(&other)
                    ),
                )
                .component(id)
                .at(ptr),
            );
            None
        }
    }
}

/// RAGFlow's display name: `data.name` of the graph node whose id equals the component id.
fn apply_display_names(doc: &mut Document) {
    let Some(Value::Array(nodes)) = doc.dsl.get("graph").and_then(|g| g.get("nodes")) else {
        return;
    };
    // The first node with each id, as a lookup rather than a scan per component.
    let mut names: HashMap<&str, &str> = HashMap::with_capacity(nodes.len());
    for n in nodes {
        let id = n.get("id").and_then(Value::as_str);
        let name = n
            .get("data")
            .and_then(|d| d.get("name"))
            .and_then(Value::as_str);
        if let (Some(id), Some(name)) = (id, name) {
            names.entry(id).or_insert(name);
        }
    }
    for c in &mut doc.components {
        if let Some(name) = names.get(c.id.as_str()) {
            c.display_name = name.to_string();
        }
    }
}

fn report_duplicate_ids(doc: &Document, diags: &mut Vec<Diagnostic>) {
    for (i, c) in doc.components.iter().enumerate() {
        if let Some(first) = doc.position(&c.id).filter(|&p| p != i) {
            diags.push(
                Diagnostic::new(
                    Code::Structural,
                    format!(
                        "component id `{}` differs from `{}` only in letter case; ids are compared case-insensitively",
                        c.id, doc.components[first].id
                    ),
                )
                .component(&c.id)
                .at(&c.loc.entry)
                .help("rename one of the two components"),
            );
        }
    }
}
