//! The state of one canvas session: globals, history, references, the path and every component's
//! inputs and outputs — RAGFlow's `Canvas` object minus its code. It is saved into the DSL after
//! every turn (`str(canvas)`) and restored from it.

use super::error::RunError;
use crate::val::{LazyStream, Val};
use canvasc_frontend::ir::NodeId;
use canvasc_frontend::meta::{CanvasMeta, Target};
use canvasc_value::{py, Json, Map};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

/// One output record: RAGFlow keeps `{"value": …, "type": …, …}` dicts. The value is held apart
/// from the other keys so that setting it costs no map work; `value_at` remembers where the
/// `value` key sits among them, since the saved DSL keeps dict order.
#[derive(Clone, Debug)]
pub struct Record {
    keys: Keys,
    /// Position of `value` among the keys; `None` when the record has no `value` key yet.
    value_at: Option<usize>,
    value: Json,
    /// An unconsumed stream, which then is the value.
    pub stream: Option<LazyStream>,
    /// The identity of the object it holds when another place holds it too (0: none); see
    /// [`super::sharing`]. Any new value drops it.
    shared: u32,
}

/// A record's keys other than `value`. They never change once written, so records copied into
/// every new session share them.
#[derive(Clone, Debug)]
enum Keys {
    /// None besides `value`.
    Empty,
    /// As the DSL wrote them, in order.
    Written(Arc<[(String, Json)]>),
    /// Only `type`, the Python class of the first value (`set_output` made the record): every
    /// component's timing outputs, so kept without allocating.
    Class(&'static str),
}

impl Default for Record {
    fn default() -> Self {
        Record {
            keys: Keys::Empty,
            value_at: None,
            value: Json::Null,
            stream: None,
            shared: 0,
        }
    }
}

impl std::fmt::Debug for LazyStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<stream>")
    }
}

impl Record {
    /// A record as written in a DSL (`{"type": "string", "value": ""}`, `{"ref": …}`, …).
    pub fn from_map(m: &Map<String, Json>) -> Self {
        let mut keys = Vec::with_capacity(m.len());
        let mut r = Record::default();
        for (k, v) in m {
            if k == "value" {
                r.value_at = Some(keys.len());
                r.value = v.clone();
            } else {
                keys.push((k.clone(), v.clone()));
            }
        }
        if !keys.is_empty() {
            r.keys = Keys::Written(keys.into());
        }
        r
    }

    /// The record as a dict, in its key order (an unconsumed stream saves as `{}`, as RAGFlow's
    /// `as_dict` walks a partial object).
    pub fn to_map(&self) -> Map<String, Json> {
        let mut m = Map::new();
        let value = || match &self.stream {
            Some(_) => Json::Object(Map::new()),
            None => self.value.clone(),
        };
        let keys: Vec<(&str, Json)> = match &self.keys {
            Keys::Empty => Vec::new(),
            Keys::Written(keys) => keys.iter().map(|(k, v)| (k.as_str(), v.clone())).collect(),
            Keys::Class(class) => vec![("type", Json::String((*class).to_string()))],
        };
        let count = keys.len();
        for (i, (k, v)) in keys.into_iter().enumerate() {
            if self.value_at == Some(i) {
                m.insert("value".into(), value());
            }
            m.insert(k.to_string(), v);
        }
        if self.value_at.is_some_and(|i| i >= count) {
            m.insert("value".into(), value());
        }
        m
    }

    /// `output(k)` of an existing record: `value`, or `""` when the record has no value key.
    pub fn value(&self) -> Val {
        if let Some(s) = &self.stream {
            return Val::Stream(s.clone());
        }
        match self.value_at {
            Some(_) => Val::Json(self.value.clone()),
            None => Val::Json(Json::String(String::new())),
        }
    }

    /// The value as `output()` (no key) reports it: `record.get("value")`, so `None` when absent.
    pub fn value_or_null(&self) -> Val {
        if let Some(s) = &self.stream {
            return Val::Stream(s.clone());
        }
        Val::Json(self.value.clone())
    }

    /// The JSON value, borrowed (`None` while it is a stream or absent).
    pub fn json(&self) -> Option<&Json> {
        (self.stream.is_none() && self.value_at.is_some()).then_some(&self.value)
    }

    /// The JSON value for in-place edits (Python mutates lists in place).
    pub fn json_mut(&mut self) -> Option<&mut Json> {
        (self.stream.is_none() && self.value_at.is_some()).then_some(&mut self.value)
    }

    /// `record["value"] = v`: a new key goes last.
    pub fn set(&mut self, value: Val) {
        match value {
            Val::Json(j) => self.set_json(j),
            Val::Stream(s) => {
                self.place_value();
                self.value = Json::Null;
                self.stream = Some(s);
                self.shared = 0;
            }
        }
    }

    /// [`Record::set`] of a JSON value.
    fn set_json(&mut self, value: Json) {
        self.set_in_place(value);
        self.shared = 0;
    }

    /// The object it holds was edited in place into `value`: it stays the object other places
    /// may hold too.
    pub fn set_in_place(&mut self, value: Json) {
        self.place_value();
        self.stream = None;
        self.value = value;
    }

    /// The identity of its object when shared (0: not shared).
    pub fn shared(&self) -> u32 {
        self.shared
    }

    pub(crate) fn set_shared(&mut self, id: u32) {
        self.shared = id;
    }

    /// Give the record a `value` key, last, unless it has one.
    fn place_value(&mut self) {
        if self.value_at.is_none() {
            self.value_at = Some(match &self.keys {
                Keys::Empty => 0,
                Keys::Written(keys) => keys.len(),
                Keys::Class(_) => 1,
            });
        }
    }

    /// A record that is only `{"value": v}` (what ToolBase stores for `_ERROR`).
    pub fn with_value(value: Json) -> Self {
        Record {
            keys: Keys::Empty,
            value_at: Some(0),
            value,
            stream: None,
            shared: 0,
        }
    }

    /// What `set_output` creates for a missing key: `{"value": v, "type": "<class 'T'>"}`.
    fn created(value: Val) -> Self {
        match value {
            Val::Json(j) => Record::created_json(j),
            Val::Stream(s) => Record {
                keys: Keys::Class("<class 'functools.partial'>"),
                value_at: Some(0),
                value: Json::Null,
                stream: Some(s),
                shared: 0,
            },
        }
    }

    /// [`Record::created`] for a JSON value.
    fn created_json(value: Json) -> Self {
        Record {
            keys: Keys::Class(py::class_repr_static(&value)),
            value_at: Some(0),
            value,
            stream: None,
            shared: 0,
        }
    }
}

/// One entry of a component's inputs table. Most are `{"value": v}`, which `set_input_value`
/// makes for every element a text component reads, so that shape is kept without building a
/// dict; form fields and entries loaded from a DSL keep theirs.
#[derive(Clone, Debug)]
pub enum Input {
    /// `{"value": v}`.
    Value(Json),
    /// Any other entry, as written.
    Dict(Json),
}

impl Input {
    /// `entry.get("value")`.
    pub fn value(&self) -> Option<&Json> {
        match self {
            Input::Value(v) => Some(v),
            Input::Dict(Json::Object(m)) => m.get("value"),
            Input::Dict(_) => None,
        }
    }

    /// `entry["value"] = v`.
    pub fn set_value(&mut self, value: Json) {
        match self {
            Input::Value(v) => *v = value,
            Input::Dict(Json::Object(m)) => {
                m.insert("value".into(), value);
            }
            Input::Dict(_) => *self = Input::Value(value),
        }
    }

    /// The entry as a dict, for edits beyond its value (`None` when it is no dict).
    pub fn dict_mut(&mut self) -> Option<&mut Map<String, Json>> {
        if let Input::Value(v) = self {
            *self = Input::Dict(value_dict(std::mem::take(v)));
        }
        match self {
            Input::Dict(Json::Object(m)) => Some(m),
            _ => None,
        }
    }

    /// The entry as the DSL and events write it.
    pub fn to_json(&self) -> Json {
        match self {
            Input::Value(v) => value_dict(v.clone()),
            Input::Dict(j) => j.clone(),
        }
    }
}

/// `{"value": v}`.
fn value_dict(value: Json) -> Json {
    let mut m = Map::with_capacity(1);
    m.insert("value".into(), value);
    Json::Object(m)
}

/// A component's inputs table, in insertion order (Python dict order). Most hold a few
/// entries, found by scanning: a single entry (one reference) is kept inline, more cost one
/// allocation. A large table (a Message joining hundreds of references) gets a hash index once
/// it grows past [`INDEXED_FROM`] entries, so its lookups stay constant-time.
#[derive(Debug, Default)]
pub struct Inputs {
    /// Keys are shared with the template that names them
    /// ([`NodeState::set_input_value_shared`]).
    entries: smallvec::SmallVec<[(Arc<str>, Input); 1]>,
    /// Key → position in `entries`; only for large tables. Keys are the canvas's own names, so
    /// a fast hash beats SipHash's flood resistance.
    index: Option<HashMap<Arc<str>, usize, foldhash::fast::RandomState>>,
}

/// Tables with more entries than this are indexed.
const INDEXED_FROM: usize = 16;

/// Every new session copies every node's table, most of them empty: those copy without going
/// through `SmallVec`'s general extend.
impl Clone for Inputs {
    fn clone(&self) -> Self {
        if self.entries.is_empty() {
            return Inputs::default();
        }
        Inputs {
            entries: self.entries.clone(),
            index: self.index.clone(),
        }
    }
}

impl Inputs {
    fn position(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.entries.iter().position(|(k, _)| &**k == key),
        }
    }

    pub fn get(&self, key: &str) -> Option<&Input> {
        self.position(key).map(|i| &self.entries[i].1)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Input> {
        self.position(key).map(|i| &mut self.entries[i].1)
    }

    /// `table[key] = entry`: an existing key keeps its place.
    pub fn insert(&mut self, key: &str, entry: Input) {
        match self.position(key) {
            Some(i) => self.entries[i].1 = entry,
            None => self.push(Arc::from(key), entry),
        }
    }

    /// Add an entry whose key is not in the table.
    fn push(&mut self, key: Arc<str>, entry: Input) {
        let at = self.entries.len();
        match &mut self.index {
            Some(index) => {
                index.insert(key.clone(), at);
            }
            None if at >= INDEXED_FROM => {
                let mut index: HashMap<_, _, _> = self
                    .entries
                    .iter()
                    .enumerate()
                    .map(|(i, (k, _))| (k.clone(), i))
                    .collect();
                index.insert(key.clone(), at);
                self.index = Some(index);
            }
            None => {}
        }
        self.entries.push((key, entry));
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Input)> + '_ {
        self.into_iter()
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> + '_ {
        self.entries.iter().map(|(k, _)| &**k)
    }

    pub fn values(&self) -> impl Iterator<Item = &Input> + '_ {
        self.entries.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Input> + '_ {
        self.entries.iter_mut().map(|(_, v)| v)
    }
}

impl<K: AsRef<str>> FromIterator<(K, Input)> for Inputs {
    fn from_iter<I: IntoIterator<Item = (K, Input)>>(iter: I) -> Self {
        let mut table = Inputs::default();
        for (k, v) in iter {
            table.insert(k.as_ref(), v);
        }
        table
    }
}

fn split_entry((k, v): &(Arc<str>, Input)) -> (&str, &Input) {
    (k, v)
}

impl<'a> IntoIterator for &'a Inputs {
    type Item = (&'a str, &'a Input);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (Arc<str>, Input)>,
        fn(&'a (Arc<str>, Input)) -> (&'a str, &'a Input),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(split_entry)
    }
}

/// A component's run-time tables.
#[derive(Debug, Default)]
pub struct NodeState {
    /// Output records in dict order. Records are never removed, so a record keeps its index.
    /// A node has a handful of outputs, so a name is found by scanning, without hashing; a
    /// declared output's record is reached through its slot and names it by that slot.
    outputs: Vec<(Name, Record)>,
    /// The node's declared output names ([`canvasc_frontend::meta::NodeMeta::outputs`]) and, per name, the
    /// index of its record in `outputs` ([`NO_RECORD`] until it exists): bound reads index
    /// twice instead of hashing a name.
    slot_names: Arc<[String]>,
    slot_records: SlotRecords,
    /// The inputs table: field/element name → record (a dict with `value`, often a form field).
    pub inputs: Inputs,
    /// IterationItem/LoopItem private counter `_idx` (not reset, not saved).
    pub counter: i64,
    /// Parameters changed at run time that RAGFlow persists with the params (e.g. the prompts an
    /// Agent invoked as a tool rewrites).
    pub param_overrides: Map<String, Json>,
}

/// An output record's name: a declared output's is the node's shared slot name, so making its
/// record allocates no name.
#[derive(Clone, Debug)]
enum Name {
    Slot(u16),
    Own(String),
}

/// Per declared output, its record's index. Most components declare a few outputs, kept in
/// place so that a new session's copy of a node is a plain copy of them (a `SmallVec`'s clone
/// goes through its general extend).
#[derive(Clone, Debug)]
enum SlotRecords {
    Inline { len: u8, at: [u32; INLINE_SLOTS] },
    Spilled(Box<[u32]>),
}

/// Declared outputs kept in place; more spill to the heap.
const INLINE_SLOTS: usize = 8;

impl SlotRecords {
    /// `len` slots, none with a record yet.
    fn new(len: usize) -> Self {
        match u8::try_from(len) {
            Ok(short) if len <= INLINE_SLOTS => SlotRecords::Inline {
                len: short,
                at: [NO_RECORD; INLINE_SLOTS],
            },
            _ => SlotRecords::Spilled(vec![NO_RECORD; len].into()),
        }
    }
}

impl Default for SlotRecords {
    fn default() -> Self {
        SlotRecords::new(0)
    }
}

impl std::ops::Deref for SlotRecords {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        match self {
            SlotRecords::Inline { len, at } => &at[..usize::from(*len)],
            SlotRecords::Spilled(at) => at,
        }
    }
}

impl std::ops::DerefMut for SlotRecords {
    fn deref_mut(&mut self) -> &mut [u32] {
        match self {
            SlotRecords::Inline { len, at } => &mut at[..usize::from(*len)],
            SlotRecords::Spilled(at) => at,
        }
    }
}

/// A slot whose output has no record yet.
const NO_RECORD: u32 = u32::MAX;

/// Every node's first declared outputs are the shared ones ([`canvasc_frontend::catalog::SHARED_OUTPUTS`]),
/// so the invoke wrapper and the scheduler reach them by these slots.
pub const SLOT_CREATED_TIME: u16 = 0;
pub const SLOT_ELAPSED_TIME: u16 = 1;
pub const SLOT_ERROR: u16 = 2;

/// Every new session copies its fresh tables (a published canvas's, see `Published`): the copy
/// keeps room for every declared record, as [`NodeState::with_slots`] does, and copies empty
/// tables without allocating.
impl Clone for NodeState {
    fn clone(&self) -> Self {
        self.copy_with_room(self.slot_names.len())
    }
}

impl NodeState {
    /// A copy with room for `room` output records.
    fn copy_with_room(&self, room: usize) -> Self {
        let mut outputs = Vec::with_capacity(room.max(self.outputs.len()));
        outputs.extend(self.outputs.iter().cloned());
        NodeState {
            outputs,
            slot_names: Arc::clone(&self.slot_names),
            slot_records: self.slot_records.clone(),
            inputs: self.inputs.clone(),
            counter: self.counter,
            param_overrides: if self.param_overrides.is_empty() {
                Map::new()
            } else {
                self.param_overrides.clone()
            },
        }
    }

    /// Empty tables for a node with these declared outputs.
    pub fn with_slots(slot_names: Arc<[String]>) -> Self {
        NodeState {
            // Every run makes the declared records, so room for them is taken at once.
            outputs: Vec::with_capacity(slot_names.len()),
            slot_records: SlotRecords::new(slot_names.len()),
            slot_names,
            ..NodeState::default()
        }
    }

    /// The output records, in dict order.
    pub fn outputs(&self) -> impl Iterator<Item = (&str, &Record)> + '_ {
        self.outputs.iter().map(|(name, r)| (self.name(name), r))
    }

    fn name<'s>(&'s self, name: &'s Name) -> &'s str {
        match name {
            Name::Slot(slot) => &self.slot_names[*slot as usize],
            Name::Own(name) => name,
        }
    }

    fn slot_of(&self, key: &str) -> Option<usize> {
        self.slot_names.iter().position(|n| n == key)
    }

    /// The index of the record named `key`.
    fn index_of(&self, key: &str) -> Option<usize> {
        match self.slot_of(key) {
            Some(slot) => match self.slot_records[slot] {
                NO_RECORD => None,
                i => Some(i as usize),
            },
            None => self.own_index(key),
        }
    }

    /// The index of the record of an undeclared output named `key`.
    fn own_index(&self, key: &str) -> Option<usize> {
        self.outputs
            .iter()
            .position(|(n, _)| matches!(n, Name::Own(own) if own == key))
    }

    pub fn record(&self, key: &str) -> Option<&Record> {
        self.index_of(key).map(|i| &self.outputs[i].1)
    }

    pub fn record_mut(&mut self, key: &str) -> Option<&mut Record> {
        self.index_of(key).map(|i| &mut self.outputs[i].1)
    }

    /// Every output record with its name, for edits.
    pub(crate) fn records_mut(&mut self) -> impl Iterator<Item = (&str, &mut Record)> + '_ {
        let names = &self.slot_names;
        self.outputs.iter_mut().map(move |(name, r)| {
            let name = match name {
                Name::Slot(slot) => names[*slot as usize].as_str(),
                Name::Own(own) => own.as_str(),
            };
            (name, r)
        })
    }

    /// Add a record (or replace one, keeping its place).
    pub fn insert_record(&mut self, key: &str, record: Record) {
        if let Some(i) = self.index_of(key) {
            self.outputs[i].1 = record;
            return;
        }
        let name = match self.slot_of(key) {
            Some(slot) => {
                self.slot_records[slot] = self.outputs.len() as u32;
                Name::Slot(slot as u16)
            }
            None => Name::Own(key.to_string()),
        };
        self.outputs.push((name, record));
    }

    /// `set_output(name, value)` for a declared output, by its slot.
    pub fn set_output_slot(&mut self, slot: u16, value: Val) {
        match self.slot_records.get(slot as usize) {
            Some(&i) if i != NO_RECORD => {
                if let Some((_, r)) = self.outputs.get_mut(i as usize) {
                    r.set(value);
                }
            }
            // Records are only made by `insert_record`, which maps a declared name to its
            // slot, so a slot without a record means no record of that name exists yet.
            Some(_) => {
                self.slot_records[slot as usize] = self.outputs.len() as u32;
                self.outputs
                    .push((Name::Slot(slot), Record::created(value)));
            }
            None => {}
        }
    }

    /// `set_output(name, seconds)` of a timing the invoke wrapper measures (`_created_time`,
    /// `_elapsed_time`): it runs twice per component, so the float goes straight into its
    /// record.
    pub fn set_time(&mut self, slot: u16, seconds: f64) {
        let value = Json::from(seconds);
        match self.slot_records.get(slot as usize) {
            Some(&NO_RECORD) => {
                self.slot_records[slot as usize] = self.outputs.len() as u32;
                self.outputs
                    .push((Name::Slot(slot), Record::created_json(value)));
            }
            Some(&i) => {
                if let Some((_, r)) = self.outputs.get_mut(i as usize) {
                    r.set_json(value);
                }
            }
            None => {}
        }
    }

    /// Whether the `content` output is an unconsumed stream (then its `node_finished` waits
    /// for the Message that consumes it). Most nodes have no stream at all, which is checked
    /// without looking for the name.
    pub fn content_streams(&self) -> bool {
        self.outputs.iter().any(|(_, r)| r.stream.is_some())
            && self.record("content").is_some_and(|r| r.stream.is_some())
    }

    /// `_created_time`, when set.
    pub fn created_time(&self) -> Option<f64> {
        self.record_at(SLOT_CREATED_TIME)
            .and_then(Record::json)
            .and_then(Json::as_f64)
    }

    /// `get_input_values()` over the given keys (deduplicated) or the whole inputs table.
    pub fn input_values(&self, keys: &InputKeys<'_>) -> Json {
        let mut m = Map::new();
        match keys {
            InputKeys::All => {
                for k in self.inputs.keys() {
                    m.insert(k.to_string(), self.get_input_value(k));
                }
            }
            InputKeys::Keys(keys) => {
                for k in keys.iter() {
                    if !m.contains_key(&**k) {
                        m.insert(k.to_string(), self.get_input_value(k));
                    }
                }
            }
        }
        Json::Object(m)
    }

    /// The record of a declared output, by its slot.
    pub fn record_at(&self, slot: u16) -> Option<&Record> {
        match self.slot_records.get(slot as usize) {
            Some(&i) if i != NO_RECORD => self.outputs.get(i as usize).map(|(_, r)| r),
            _ => None,
        }
    }

    /// [`NodeState::record_at`] for in-place edits.
    pub fn record_at_mut(&mut self, slot: u16) -> Option<&mut Record> {
        match self.slot_records.get(slot as usize) {
            Some(&i) if i != NO_RECORD => self.outputs.get_mut(i as usize).map(|(_, r)| r),
            _ => None,
        }
    }

    /// `output(name)` of a declared output, by its slot.
    pub fn output_slot(&self, slot: u16) -> Val {
        match self.record_at(slot) {
            Some(r) => r.value(),
            None => Val::Json(Json::String(String::new())),
        }
    }

    /// `output(key)`: `""` for a missing record.
    pub fn output(&self, key: &str) -> Val {
        match self.record(key) {
            Some(r) => r.value(),
            None => Val::Json(Json::String(String::new())),
        }
    }

    /// `set_output(key, value)`: creates `{"value": None, "type": "<class 'T'>"}` when missing.
    pub fn set_output(&mut self, key: &str, value: Val) {
        match self.slot_of(key) {
            Some(slot) => self.set_output_slot(slot as u16, value),
            None => match self.own_index(key) {
                Some(i) => self.outputs[i].1.set(value),
                None => self
                    .outputs
                    .push((Name::Own(key.to_string()), Record::created(value))),
            },
        }
    }

    /// `output()`: every record's value (`None` when a record has no value key).
    pub fn outputs_map(&self) -> Vec<(String, Val)> {
        self.outputs()
            .map(|(k, r)| (k.to_string(), r.value_or_null()))
            .collect()
    }

    /// The outputs as event JSON (an unconsumed stream is `null`).
    pub fn outputs_json(&self) -> Json {
        let mut m = Map::new();
        for (k, r) in self.outputs() {
            m.insert(k.to_string(), r.value_or_null().to_event_json());
        }
        Json::Object(m)
    }

    /// `ComponentBase.error()`: the `_ERROR` output as it is (`null` when unset), what
    /// `node_finished` reports. A tool that clears it to `""` (CodeExec) reports `""`.
    pub fn error_value(&self) -> Json {
        match self.record_at(SLOT_ERROR).map(Record::value_or_null) {
            Some(v) => v.to_event_json(),
            None => Json::Null,
        }
    }

    pub fn error(&self) -> Option<String> {
        match self.record_at(SLOT_ERROR).map(Record::value_or_null) {
            Some(Val::Json(Json::Null)) | None => None,
            Some(Val::Json(v)) => {
                if py::truthy(&v) {
                    Some(match v {
                        Json::String(s) => s,
                        other => py::str_of(&other),
                    })
                } else {
                    None
                }
            }
            Some(Val::Stream(_)) => Some("<stream>".into()),
        }
    }

    /// `set_input_value(key, value)`.
    pub fn set_input_value(&mut self, key: &str, value: Json) {
        self.set_input_value_with(key, value, || Arc::from(key));
    }

    /// [`NodeState::set_input_value`] of a key the caller shares (a template's element names).
    pub fn set_input_value_shared(&mut self, key: &Arc<str>, value: Json) {
        self.set_input_value_with(key, value, || Arc::clone(key));
    }

    /// `set_input_value`, making the key only when the table lacks it.
    fn set_input_value_with(
        &mut self,
        key: &str,
        value: Json,
        make_key: impl FnOnce() -> Arc<str>,
    ) {
        match self.inputs.get_mut(key) {
            Some(entry) => entry.set_value(value),
            None => self.inputs.push(make_key(), Input::Value(value)),
        }
    }

    pub fn get_input_value(&self, key: &str) -> Json {
        self.inputs
            .get(key)
            .and_then(Input::value)
            .cloned()
            .unwrap_or(Json::Null)
    }

    /// `reset(only_output)`: every value becomes `None`.
    pub fn reset(&mut self, only_output: bool) {
        for (_, r) in &mut self.outputs {
            r.set(Val::NULL);
        }
        if only_output {
            return;
        }
        for r in self.inputs.values_mut() {
            if let Input::Value(_) | Input::Dict(Json::Object(_)) = r {
                r.set_value(Json::Null);
            }
        }
    }
}

/// Which `get_input_values()` keys a `node_finished` reports ([`NodeState::input_values`]).
#[derive(Clone, Debug)]
pub enum InputKeys<'a> {
    /// Every key of the node's inputs table.
    All,
    /// The input elements' keys (text-driven components).
    Keys(Cow<'a, [Arc<str>]>),
}

/// Token usage of a run, reported in `workflow_finished`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
    pub calls: u64,
}

/// The globals (`sys.*`, `env.*`) in dict order. Their names are the canvas's own and every
/// reference to one looks it up, so they hash with foldhash rather than SipHash.
pub type Globals = indexmap::IndexMap<String, Json, foldhash::fast::RandomState>;

/// The whole session.
#[derive(Clone, Debug)]
pub struct RunState {
    pub globals: Globals,
    pub variables: Json,
    /// `[role, payload]` pairs.
    pub history: Vec<Json>,
    pub retrieval: Vec<Json>,
    pub memory: Vec<Json>,
    pub path: Vec<Target>,
    pub nodes: Nodes,
    pub task_id: String,
    pub error: String,
    pub usage: Usage,
    /// Whether the DSL had `globals` (saved back only then, as RAGFlow does).
    pub globals_in_dsl: bool,
    /// Which places hold one object this run ([`super::sharing`]).
    pub sharing: super::identity::Sharing,
}

/// Every component's tables, each shared until written: a checkpoint's copy of the session
/// ([`RunState::snapshot`]) takes a reference to each table, and a table is copied only when the
/// run next writes it (`IndexMut`), so a batch boundary costs the tables the batch touched, not
/// the canvas.
#[derive(Clone, Debug, Default)]
pub struct Nodes(Vec<Arc<NodeState>>);

impl Nodes {
    pub fn with_capacity(n: usize) -> Self {
        Nodes(Vec::with_capacity(n))
    }

    pub fn push(&mut self, node: NodeState) {
        self.0.push(Arc::new(node));
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &NodeState> + '_ {
        self.0.iter().map(|n| &**n)
    }

    /// Every table, for writing: each one shared with a checkpoint is copied.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut NodeState> + '_ {
        self.0.iter_mut().map(Arc::make_mut)
    }
}

impl std::ops::Index<usize> for Nodes {
    type Output = NodeState;

    fn index(&self, i: usize) -> &NodeState {
        &self.0[i]
    }
}

impl std::ops::IndexMut<usize> for Nodes {
    fn index_mut(&mut self, i: usize) -> &mut NodeState {
        Arc::make_mut(&mut self.0[i])
    }
}

impl RunState {
    /// A copy of the session for a checkpoint: the node tables are shared ([`Nodes`]).
    pub fn snapshot(&self) -> RunState {
        RunState {
            globals: self.globals.clone(),
            variables: self.variables.clone(),
            history: self.history.clone(),
            retrieval: self.retrieval.clone(),
            memory: self.memory.clone(),
            path: self.path.clone(),
            nodes: self.nodes.clone(),
            task_id: self.task_id.clone(),
            error: self.error.clone(),
            usage: self.usage,
            globals_in_dsl: self.globals_in_dsl,
            sharing: self.sharing.clone(),
        }
    }

    /// `get_variable_value(exp)` (BS §10.3).
    pub fn get_variable_value(&self, meta: &CanvasMeta, exp: &str) -> Result<Val, RunError> {
        let exp = canvasc_frontend::refs::strip_like_python(exp);
        let Some((cpn, var)) = exp.split_once('@') else {
            return match self.globals.get(exp) {
                Some(v) => Ok(Val::Json(v.clone())),
                None => Err(RunError::key_error(exp)),
            };
        };
        let Some(node) = meta.find(cpn) else {
            return Err(RunError::msg(format!("Can't find variable: '{cpn}@{var}'")));
        };
        let (root, rest) = match var.split_once('.') {
            Some((r, rest)) => (r, rest),
            None => (var, ""),
        };
        let root_val = self.nodes[node.index()].output(root);
        if rest.is_empty() {
            return Ok(root_val);
        }
        Ok(Val::Json(walk_path(root_val, rest)))
    }

    /// `get_variable_value` that lends the value instead of copying it, for large values read
    /// again and again (an Iteration's list, read once per pass).
    pub fn with_variable_value<R>(
        &self,
        meta: &CanvasMeta,
        exp: &str,
        f: impl FnOnce(Option<&Json>) -> R,
    ) -> Result<R, RunError> {
        let stripped = canvasc_frontend::refs::strip_like_python(exp);
        match stripped.split_once('@') {
            None => match self.globals.get(stripped) {
                Some(v) => Ok(f(Some(v))),
                None => Err(RunError::key_error(stripped)),
            },
            Some((cpn, var)) if !var.contains('.') => {
                let node = meta
                    .find(cpn)
                    .ok_or_else(|| RunError::msg(format!("Can't find variable: '{cpn}@{var}'")))?;
                Ok(match self.nodes[node.index()].record(var) {
                    Some(r) if r.stream.is_some() => f(None),
                    Some(r) => match r.json() {
                        Some(v) => f(Some(v)),
                        None => f(Some(&Json::String(String::new()))),
                    },
                    None => f(Some(&Json::String(String::new()))),
                })
            }
            Some(_) => match self.get_variable_value(meta, exp)? {
                Val::Json(j) => Ok(f(Some(&j))),
                Val::Stream(_) => Ok(f(None)),
            },
        }
    }

    /// Resolve a pre-bound output reference without parsing the expression again.
    pub fn output_value(&self, node: NodeId, output: &str, path: &[String]) -> Val {
        let root = self.nodes[node.index()].output(output);
        if path.is_empty() {
            return root;
        }
        Val::Json(walk_path_parts(root, path))
    }

    /// `set_variable_value(exp, value)` (BS §10.5): `value` is a new object.
    pub fn set_variable_value(
        &mut self,
        meta: &CanvasMeta,
        exp: &str,
        value: Json,
    ) -> Result<(), RunError> {
        self.assign_variable(meta, exp, value, false)
    }

    /// `set_variable_value(exp, value)` where `value` is the object `exp` held, edited in place
    /// (a list `append`ed to): every place sharing it shows the edit ([`super::sharing`]).
    pub fn set_variable_value_in_place(
        &mut self,
        meta: &CanvasMeta,
        exp: &str,
        value: Json,
    ) -> Result<(), RunError> {
        self.assign_variable(meta, exp, value, true)
    }

    fn assign_variable(
        &mut self,
        meta: &CanvasMeta,
        exp: &str,
        value: Json,
        in_place: bool,
    ) -> Result<(), RunError> {
        use super::identity::Place;
        let exp = canvasc_frontend::refs::strip_like_python(exp);
        let Some((cpn, var)) = exp.split_once('@') else {
            self.globals.insert(exp.to_string(), value);
            if in_place {
                self.edited_in_place(Place::Global(exp));
            } else {
                self.unshare_global(exp);
            }
            return Ok(());
        };
        let Some(node) = meta.find(cpn) else {
            return Err(RunError::msg(format!("Can't find variable: '{cpn}@{var}'")));
        };
        let state = &mut self.nodes[node.index()];
        let (root, rest) = match var.split_once('.') {
            Some((r, rest)) => (r, rest),
            None => (var, ""),
        };
        if rest.is_empty() {
            match state.record_mut(root) {
                Some(r) if in_place => {
                    r.set_in_place(value);
                    self.edited_in_place(Place::Output(node, root));
                }
                _ => state.set_output(root, Val::Json(value)),
            }
            return Ok(());
        }
        // A truthy root is the dict Python edits in place; otherwise a new one is made.
        let (mut root_val, edits_root) = match state.output(root) {
            Val::Json(j) if py::truthy(&j) => (j, true),
            _ => (Json::Object(Map::new()), false),
        };
        let keys: Vec<&str> = rest.split('.').collect();
        // RAGFlow builds dicts this deep, then fails to save the session (`json.dumps` raises
        // `RecursionError`); here the tree would overflow the stack wherever it is printed or
        // dropped, so the assignment itself fails, with CPython's text.
        if keys.len() >= canvasc_value::py::json_loads::MAX_DEPTH {
            return Err(RunError::raised(
                "RecursionError",
                "maximum recursion depth exceeded while encoding a JSON object",
            ));
        }
        let mut cur = &mut root_val;
        for key in &keys[..keys.len() - 1] {
            let Json::Object(m) = cur else {
                return Err(RunError::msg(format!(
                    "'{}' object does not support item assignment",
                    py::type_name(cur)
                )));
            };
            let needs_new = !matches!(m.get(*key), Some(Json::Object(_)));
            if needs_new {
                m.insert((*key).to_string(), Json::Object(Map::new()));
            }
            cur = m.get_mut(*key).expect("inserted above");
        }
        match cur {
            Json::Object(m) => {
                m.insert(keys[keys.len() - 1].to_string(), value);
            }
            other => {
                return Err(RunError::msg(format!(
                    "'{}' object does not support item assignment",
                    py::type_name(other)
                )))
            }
        }
        match state.record_mut(root) {
            Some(r) if edits_root => {
                r.set_in_place(root_val);
                self.edited_in_place(Place::Output(node, root));
            }
            _ => state.set_output(root, Val::Json(root_val)),
        }
        Ok(())
    }

    /// `get_history(n)`: the last `2n` entries as `{role, content}`.
    pub fn get_history(&self, window: i64) -> Vec<(String, String)> {
        if window <= 0 {
            return Vec::new();
        }
        let n = (window as usize).saturating_mul(2);
        let start = self.history.len().saturating_sub(n);
        self.history[start..]
            .iter()
            .map(|entry| {
                let role = entry
                    .get(0)
                    .and_then(Json::as_str)
                    .unwrap_or("")
                    .to_string();
                let payload = entry.get(1).cloned().unwrap_or(Json::Null);
                let content = match &payload {
                    Json::Object(m) => match m.get("content") {
                        Some(Json::String(s)) => s.clone(),
                        Some(other) => py::str_of(other),
                        None => String::new(),
                    },
                    other => py::str_of(other),
                };
                (role, content)
            })
            .collect()
    }

    /// `add_user_input(q)`.
    pub fn add_user_input(&mut self, query: &Json) {
        self.history.push(Json::Array(vec![
            Json::String("user".into()),
            query.clone(),
        ]));
        let rendered = match query {
            Json::Object(_) => py::json_dumps(query),
            other => py::str_of(other),
        };
        self.push_sys_history(format!("user: {rendered}"));
    }

    pub fn push_sys_history(&mut self, line: String) {
        match self.globals.get_mut("sys.history") {
            Some(Json::Array(a)) => a.push(Json::String(line)),
            _ => {
                self.globals
                    .insert("sys.history".into(), Json::Array(vec![Json::String(line)]));
            }
        }
    }

    /// The current turn's reference accumulator (`retrieval[-1]`).
    pub fn reference(&self) -> Json {
        self.retrieval
            .last()
            .cloned()
            .unwrap_or_else(|| serde_json::json!({"chunks": {}, "doc_aggs": {}}))
    }

    /// Whether the accumulator has chunks (`get_reference()["chunks"]` is truthy).
    pub fn has_chunks(&self) -> bool {
        matches!(self.retrieval.last(), Some(Json::Object(m)) if m.get("chunks").is_some_and(py::truthy))
    }

    /// Whether the accumulator has any chunk or doc agg.
    pub fn has_reference(&self) -> bool {
        match self.retrieval.last() {
            Some(Json::Object(m)) => {
                m.get("chunks").is_some_and(py::truthy) || m.get("doc_aggs").is_some_and(py::truthy)
            }
            _ => false,
        }
    }

    pub fn node(&self, id: NodeId) -> &NodeState {
        &self.nodes[id.index()]
    }

    pub fn node_mut(&mut self, id: NodeId) -> &mut NodeState {
        &mut self.nodes[id.index()]
    }
}

/// `get_variable_param_value`: walk `a.0.b` into a value, JSON-parsing strings on the way.
pub fn walk_path(root: Val, path: &str) -> Json {
    walk_path_parts(root, path.split('.'))
}

/// [`walk_path`] over the path's parts.
pub fn walk_path_parts<S: AsRef<str>>(root: Val, parts: impl IntoIterator<Item = S>) -> Json {
    let mut cur = match root {
        Val::Json(j) => j,
        // A stream has no attributes to walk into.
        Val::Stream(_) => return Json::Null,
    };
    for key in parts {
        let key = key.as_ref();
        if cur.is_null() {
            return Json::Null;
        }
        if let Json::String(s) = &cur {
            match serde_json::from_str::<Json>(s) {
                Ok(parsed) => cur = parsed,
                Err(_) => return Json::Null,
            }
        }
        cur = match cur {
            Json::Object(mut m) => m.shift_remove(key).unwrap_or(Json::Null),
            Json::Array(mut a) => {
                let Ok(i) = py::to_int(&Json::String(key.to_string())) else {
                    return Json::Null;
                };
                let len = a.len() as i64;
                let idx = if i < 0 { i + len } else { i };
                if idx < 0 || idx >= len {
                    return Json::Null;
                }
                a.swap_remove(idx as usize)
            }
            _ => Json::Null,
        };
    }
    cur
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(st: &NodeState) -> Vec<&str> {
        st.outputs().map(|(k, _)| k).collect()
    }

    /// Declared and undeclared records share one dict order: first made, first listed, and a
    /// replaced or re-set record keeps its place (Python dict semantics).
    #[test]
    fn output_records_keep_dict_order() {
        let declared: Arc<[String]> = ["_created_time", "_elapsed_time", "_ERROR", "result"]
            .map(String::from)
            .into();
        let mut st = NodeState::with_slots(declared);
        st.insert_record("result", Record::with_value(Json::from("saved")));
        st.set_output("extra", Val::Json(Json::from(1)));
        st.set_output_slot(SLOT_CREATED_TIME, Val::Json(Json::from(2.5)));
        st.set_output("result", Val::Json(Json::from("new")));
        st.insert_record("extra", Record::with_value(Json::from(3)));
        assert_eq!(names(&st), ["result", "extra", "_created_time"]);
        assert_eq!(st.output("result").to_event_json(), Json::from("new"));
        assert_eq!(st.output("extra").to_event_json(), Json::from(3));
        assert_eq!(st.created_time(), Some(2.5));
        assert_eq!(st.output("missing").to_event_json(), Json::from(""));
        assert!(st.record("_ERROR").is_none());
    }

    /// A node declaring more outputs than fit in place finds every one by its slot, in its
    /// own copy too.
    #[test]
    fn many_declared_outputs_spill_and_copy() {
        let declared: Arc<[String]> = (0..INLINE_SLOTS + 4).map(|i| format!("o{i}")).collect();
        let mut st = NodeState::with_slots(declared.clone());
        for slot in (0..declared.len()).rev() {
            st.set_output_slot(slot as u16, Val::Json(Json::from(slot)));
        }
        let copy = st.clone();
        st.set_output("o0", Val::Json(Json::from("changed")));
        for (slot, name) in declared.iter().enumerate() {
            assert_eq!(copy.output(name).to_event_json(), Json::from(slot));
        }
        assert_eq!(st.output("o0").to_event_json(), Json::from("changed"));
        assert_eq!(names(&copy)[0], format!("o{}", INLINE_SLOTS + 3));
    }

    /// `{"value": v}` entries and form fields read, write and save alike.
    #[test]
    fn input_entries_save_as_dicts() {
        let mut st = NodeState::default();
        st.set_input_value("env.x", Json::from("a"));
        st.inputs.insert(
            "field",
            Input::Dict(serde_json::json!({"type": "line", "value": 1})),
        );
        st.set_input_value("field", Json::from(2));
        st.inputs.insert("odd", Input::Dict(Json::from(5)));
        assert_eq!(st.get_input_value("env.x"), Json::from("a"));
        assert_eq!(st.get_input_value("odd"), Json::Null);
        st.reset(false);
        let saved: Vec<Json> = st.inputs.values().map(Input::to_json).collect();
        assert_eq!(
            saved,
            [
                serde_json::json!({"value": null}),
                serde_json::json!({"type": "line", "value": null}),
                Json::from(5),
            ]
        );
        st.set_input_value("odd", Json::from(6));
        let entry = |key| st.inputs.get(key).cloned().expect("an entry");
        assert_eq!(entry("odd").to_json(), serde_json::json!({"value": 6}));
        let dict = entry("env.x").dict_mut().cloned();
        assert_eq!(
            dict,
            serde_json::json!({"value": null}).as_object().cloned()
        );
    }

    /// A table keeps insertion order and finds every key, before and after it grows an index;
    /// re-setting a key keeps its place.
    #[test]
    fn inputs_tables_of_any_size_behave_like_dicts() {
        for size in [3, INDEXED_FROM, INDEXED_FROM + 1, 200] {
            let mut st = NodeState::default();
            let key = |i: usize| format!("Cpn:{}@out", (i * 7919) % 1009);
            for i in 0..size {
                st.set_input_value(&key(i), Json::from(i));
            }
            st.set_input_value(&key(0), Json::from("again"));
            assert_eq!(st.inputs.len(), size);
            let keys: Vec<String> = st.inputs.keys().map(str::to_string).collect();
            assert_eq!(keys, (0..size).map(key).collect::<Vec<_>>(), "{size}");
            assert_eq!(st.get_input_value(&key(0)), Json::from("again"));
            for i in 1..size {
                assert_eq!(st.get_input_value(&key(i)), Json::from(i), "{size}");
            }
            assert!(st.inputs.get("Cpn:missing@out").is_none());
        }
    }
}
