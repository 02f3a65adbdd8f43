//! The loaded canvas: every input form normalised into one model, with the JSON pointers that
//! locate each part in the source file.

use super::catalog::{Kind, NameResolution};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Which input form a document was read from (architecture.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `{"components": …, "history", "path", "retrieval", …}` as RAGFlow stores it.
    V1,
    /// A v1 DSL inside a template wrapper `{"id", "title", …, "dsl": {…}}`.
    Template,
    /// The editor's `{"graph": {"nodes", "edges"}, "globals", "variables"}` without components.
    Graph,
    /// `{"version": 2, "components": {id: {"id", "name", "downstream", "params"}}}`.
    V2,
}

/// A component id together with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub id: String,
    pub pointer: String,
}

/// Where a component's parts sit in the source document.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Locations {
    /// The component entry (v1 `components/<id>`, a graph node, a v2 component).
    pub entry: String,
    /// The parameter object (`…/obj/params`, `…/data/form`, `…/params`).
    pub params: String,
    /// The `component_name` (or graph `data.label`) string.
    pub name: String,
}

/// One component after loading: canonical parameters, resolved kind, edges as written.
#[derive(Clone, Debug, PartialEq)]
pub struct DslComponent {
    /// The id exactly as written (ids are matched case-insensitively).
    pub id: String,
    /// `component_name` as written.
    pub component_name: String,
    pub resolution: NameResolution,
    /// Canonical params: decoration keys and `custom_header` removed, order preserved.
    pub params: Map<String, Value>,
    pub downstream: Vec<Link>,
    pub upstream: Vec<Link>,
    pub parent_id: Option<Link>,
    /// `data.name` of the matching graph node, or `""` (RAGFlow's display name).
    pub display_name: String,
    /// Entry keys other than `obj`, `downstream`, `upstream` and `parent_id`.
    pub entry_extra: Map<String, Value>,
    /// `obj` keys other than `component_name` and `params`.
    pub obj_extra: Map<String, Value>,
    pub loc: Locations,
}

impl DslComponent {
    pub fn kind(&self) -> Option<Kind> {
        self.resolution.kind()
    }
}

/// A loaded canvas in any input form.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    pub form: Form,
    /// Components in document order (the order RAGFlow iterates them).
    pub components: Vec<DslComponent>,
    /// The DSL's other top-level keys, in order (`globals`, `history`, `path`, `graph`, …).
    /// For the graph-only form this is the input without the derived components.
    pub dsl: Map<String, Value>,
    /// Template wrapper keys other than `dsl` (`id`, `title`, `description`, …).
    pub wrapper: Option<Map<String, Value>>,
    /// Pointer prefix of the DSL object in the source (`""`, or `/dsl` for a template).
    pub dsl_pointer: String,
    index: HashMap<String, usize>,
}

impl Document {
    pub fn new(
        form: Form,
        components: Vec<DslComponent>,
        dsl: Map<String, Value>,
        wrapper: Option<Map<String, Value>>,
        dsl_pointer: String,
    ) -> Self {
        let mut doc = Document {
            form,
            components,
            dsl,
            wrapper,
            dsl_pointer,
            index: HashMap::new(),
        };
        doc.reindex();
        doc
    }

    /// Rebuild the case-insensitive id index after the component list changed.
    pub fn reindex(&mut self) {
        self.index.clear();
        for (i, c) in self.components.iter().enumerate() {
            self.index.entry(c.id.to_lowercase()).or_insert(i);
        }
    }

    /// Position of the component with this id, compared case-insensitively.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.index.get(&id.to_lowercase()).copied()
    }

    pub fn component(&self, id: &str) -> Option<&DslComponent> {
        self.position(id).map(|i| &self.components[i])
    }

    /// Pointer to a top-level DSL key in the source.
    pub fn dsl_key_pointer(&self, key: &str) -> String {
        super::diagnostic::pointer_join(&self.dsl_pointer, &[key])
    }

    pub fn globals(&self) -> Option<&Map<String, Value>> {
        self.dsl.get("globals").and_then(Value::as_object)
    }

    /// Conversation variable declarations (`variables`), when present as an object.
    pub fn variables(&self) -> Option<&Map<String, Value>> {
        self.dsl.get("variables").and_then(Value::as_object)
    }
}
