//! Python object identity, where RAGFlow makes it observable.
//!
//! RAGFlow's Loop sets each loop variable to the very list or dict its parameters hold (a
//! constant) or that its reference names (another output, a global), and VariableAssigner edits
//! some values in place (`append` to a list; an assignment to `X@key.path` edits the dict of
//! `X@key`). An edit made through one name then shows through the other: appending to a Loop
//! variable appends to the referenced component's output, and to the Loop's constant, which
//! `str(canvas)` saves with the params, so the next turn's Loop starts from the edited constant.
//!
//! canvasc holds values, not shared objects, so it tracks which places hold one object: each
//! place gets the same identity number, a replacement (`set_output`, a global's assignment)
//! drops it, and an in-place edit copies the new value to every other place of its identity.
//! Only lists and dicts are tracked (other values cannot be edited in place), whole values and
//! the elements `append` puts into a list (the appended dict is the list's element: editing it
//! edits the list); a reference into a value (`X@key.path`) is not linked, nor are the elements
//! a slice (`remove_first`) or `extend` copies into a new list.
//! Identities end with the run: RAGFlow's API rebuilds the canvas from its saved DSL every turn,
//! which makes every value a new object.

use super::identity::Sharing;
pub use super::identity::{mutable, Place, LOOP_VARIABLES};
use super::state::{Record, RunState};
use canvasc_value::Json;

impl RunState {
    fn identity(&self, place: Place<'_>) -> u32 {
        match place {
            Place::Output(n, key) => self.nodes[n.index()].record(key).map_or(0, Record::shared),
            Place::Global(name) => self
                .sharing
                .globals
                .iter()
                .find(|(g, _)| g == name)
                .map_or(0, |(_, id)| *id),
            Place::LoopConstant(n, i) => self
                .sharing
                .constants
                .iter()
                .find(|(c, j, _)| *c == n && *j == i)
                .map_or(0, |(_, _, id)| *id),
        }
    }

    fn set_identity(&mut self, place: Place<'_>, id: u32) {
        match place {
            Place::Output(n, key) => {
                if let Some(r) = self.nodes[n.index()].record_mut(key) {
                    r.set_shared(id);
                }
            }
            Place::Global(name) => match self.sharing.globals.iter_mut().find(|(g, _)| g == name) {
                Some(entry) => entry.1 = id,
                None => self.sharing.globals.push((name.to_string(), id)),
            },
            Place::LoopConstant(n, i) => {
                match self
                    .sharing
                    .constants
                    .iter_mut()
                    .find(|(c, j, _)| *c == n && *j == i)
                {
                    Some(entry) => entry.2 = id,
                    None => self.sharing.constants.push((n, i, id)),
                }
            }
        }
    }

    /// `holder` now holds the object `source` holds (it was just set from it).
    pub fn share(&mut self, holder: Place<'_>, source: Place<'_>) {
        let id = self.identity_or_new(source);
        self.set_identity(holder, id);
    }

    /// The list at `list` now holds, at `index`, the object `element` holds (`list.append`).
    pub fn share_element(&mut self, list: Place<'_>, index: usize, element: Place<'_>) {
        let list = self.identity_or_new(list);
        let element = self.identity_or_new(element);
        self.sharing.elements.push((list, index, element));
    }

    fn identity_or_new(&mut self, place: Place<'_>) -> u32 {
        match self.identity(place) {
            0 => {
                self.sharing.last += 1;
                let id = self.sharing.last;
                self.set_identity(place, id);
                id
            }
            id => id,
        }
    }

    /// A global was assigned a new object.
    pub fn unshare_global(&mut self, name: &str) {
        if !self.sharing.globals.is_empty() {
            self.sharing.globals.retain(|(g, _)| g != name);
        }
    }

    /// The object at `place` was edited in place (its new value is already there): every other
    /// place holding the same object, and every list holding it, shows the edit.
    pub fn edited_in_place(&mut self, place: Place<'_>) {
        let id = self.identity(place);
        if id == 0 {
            return;
        }
        let value = match place {
            Place::Output(n, key) => self.nodes[n.index()]
                .record(key)
                .and_then(Record::json)
                .cloned(),
            Place::Global(name) => self.globals.get(name).cloned(),
            Place::LoopConstant(n, i) => loop_constant(&self.nodes[n.index()].param_overrides, i),
        };
        if let Some(value) = value {
            self.propagate(id, &value, 0);
        }
    }

    /// Every holder of object `id` now holds `value`, and so does every list element it is.
    fn propagate(&mut self, id: u32, value: &Json, depth: usize) {
        self.for_each_holder(id, |v| *v = value.clone());
        // A list holding itself, even indirectly, would never end.
        if depth > self.sharing.elements.len() {
            return;
        }
        let parents: Vec<(u32, usize)> = self
            .sharing
            .elements
            .iter()
            .filter(|(_, _, e)| *e == id)
            .map(|&(list, index, _)| (list, index))
            .collect();
        for (list, index) in parents {
            let mut edited = None;
            self.for_each_holder(list, |v| {
                if let Json::Array(items) = v {
                    if let Some(item) = items.get_mut(index) {
                        *item = value.clone();
                    }
                }
                if edited.is_none() {
                    edited = Some(v.clone());
                }
            });
            if let Some(edited) = edited {
                self.propagate(list, &edited, depth + 1);
            }
        }
    }

    /// Run `f` on the value of every place holding object `id`.
    fn for_each_holder(&mut self, id: u32, mut f: impl FnMut(&mut Json)) {
        // Only the tables holding the object are written (a written table is copied when a
        // checkpoint shares it).
        for i in 0..self.nodes.len() {
            if !self.nodes[i].outputs().any(|(_, r)| r.shared() == id) {
                continue;
            }
            for (_, record) in self.nodes[i].records_mut() {
                if record.shared() == id {
                    if let Some(v) = record.json_mut() {
                        f(v);
                    }
                }
            }
        }
        for (name, g) in &self.sharing.globals {
            if *g == id {
                if let Some(v) = self.globals.get_mut(name) {
                    f(v);
                }
            }
        }
        for &(n, i, c) in &self.sharing.constants {
            if c == id {
                let overrides = &mut self.nodes[n.index()].param_overrides;
                if let Some(v) = overrides
                    .get_mut(LOOP_VARIABLES)
                    .and_then(|v| v.get_mut(i))
                    .and_then(|item| item.get_mut("value"))
                {
                    f(v);
                }
            }
        }
    }

    /// A new run: RAGFlow rebuilt the canvas from its saved DSL, so nothing is shared any more.
    pub fn forget_sharing(&mut self) {
        if self.sharing.last == 0 {
            return;
        }
        for i in 0..self.nodes.len() {
            if self.nodes[i].outputs().any(|(_, r)| r.shared() != 0) {
                for (_, record) in self.nodes[i].records_mut() {
                    record.set_shared(0);
                }
            }
        }
        self.sharing = Sharing::default();
    }
}

/// The `value` of a Loop's constant `i` in (overridden) params.
fn loop_constant(params: &canvasc_value::Map<String, Json>, i: usize) -> Option<Json> {
    params
        .get(LOOP_VARIABLES)
        .and_then(|v| v.get(i))
        .and_then(|item| item.get("value"))
        .cloned()
}
