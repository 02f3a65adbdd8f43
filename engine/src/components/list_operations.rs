//! ListOperations: pick, filter, sort or deduplicate the items of a list
//! (components.md §16, `agent/component/list_operations.py`).

use super::{exp_str, py_get, py_getitem, Component};
use crate::context::NodeCx;
use crate::error::RunError;
use crate::val::Val;
use canvasc_frontend::binding::{Bound, Resolve};
use canvasc_value::{py, Json, Map};
use std::borrow::Cow;
use std::cmp::Ordering;

#[derive(Clone, Debug)]
pub struct Spec {
    pub query: Json,
    pub query_bound: Option<Bound>,
    /// Normalised as `check()` does: trimmed, `topN` (any case) → `head`, empty → `nth`.
    pub operation: String,
    pub n: Json,
    pub strict: Json,
    pub sort_method: Json,
    pub sort_by: Json,
    pub filter: Json,
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        let get = |k: &str, d: Json| p.get(k).cloned().unwrap_or(d);
        let op = match p.get("operations") {
            None | Some(Json::Null) => String::new(),
            Some(Json::String(s)) => py::strip(s).to_string(),
            Some(other) => py::strip(&py::str_of(other)).to_string(),
        };
        let operation = if op.to_lowercase() == "topn" {
            "head".to_string()
        } else if op.is_empty() {
            "nth".to_string()
        } else {
            op
        };
        Spec {
            query: get("query", Json::from("")),
            query_bound: None,
            operation,
            n: get("n", Json::from(0)),
            strict: get("strict", Json::Bool(false)),
            sort_method: get("sort_method", Json::from("asc")),
            sort_by: get("sort_by", Json::from("")),
            filter: get("filter", serde_json::json!({"operator": "=", "value": ""})),
        }
    }

    /// `int(n)`, or 0 when that fails.
    fn n(&self) -> i64 {
        py::to_int(&self.n).unwrap_or(0)
    }

    fn strict(&self) -> bool {
        match &self.strict {
            Json::String(s) => matches!(
                py::strip(s).to_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            ),
            other => py::truthy(other),
        }
    }
}

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        body(self, cx)
    }

    fn thoughts<'a>(&'a self, _cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        Ok(Cow::Borrowed("ListOperation in progress"))
    }

    fn bind(&mut self, r: &dyn Resolve) {
        if let Json::String(exp) = &self.query {
            self.query_bound = r.resolve(exp);
        }
    }
}

fn body(spec: &Spec, cx: &NodeCx<'_>) -> Result<(), RunError> {
    let query = exp_str(&spec.query)?;
    let items = match cx.read(spec.query_bound.as_ref(), query)? {
        Val::Json(Json::Array(items)) => items,
        _ => {
            return Err(RunError::type_error(
                "The input of List Operations should be an array.",
            ))
        }
    };
    cx.set_input_value(query, Json::Array(items.clone()));
    let out = match spec.operation.as_str() {
        "nth" => nth(spec, &items)?,
        "head" => head_tail(spec, &items, true)?,
        "tail" => head_tail(spec, &items, false)?,
        "filter" => filter(spec, &items)?,
        "sort" => sort(spec, items)?,
        "drop_duplicates" => drop_duplicates(&items),
        // `check()` rejects anything else; Python's dispatch would do nothing.
        _ => return Ok(()),
    };
    set_outputs(cx, out)
}

/// `_set_outputs`: assigns the declared records' values directly (no record is created, so an
/// undeclared `first`/`last` is a `KeyError` after `result` was written).
fn set_outputs(cx: &NodeCx<'_>, out: Vec<Json>) -> Result<(), RunError> {
    let first = out.first().cloned().unwrap_or(Json::Null);
    let last = out.last().cloned().unwrap_or(Json::Null);
    let mut s = cx.state();
    let st = s.node_mut(cx.node);
    for (key, value) in [
        ("result", Json::Array(out)),
        ("first", first),
        ("last", last),
    ] {
        let record = st.record_mut(key).ok_or_else(|| RunError::key_error(key))?;
        record.set(Val::Json(value));
    }
    Ok(())
}

fn strict_error(op: &str, n: i64) -> RunError {
    RunError::value_error(format!(
        "{op} requires n to be within the valid range in strict mode, got {n}."
    ))
}

fn nth(spec: &Spec, items: &[Json]) -> Result<Vec<Json>, RunError> {
    let n = spec.n();
    let len = items.len() as i64;
    let strict = spec.strict();
    let pick = if n == 0 {
        None
    } else if n > 0 {
        (n <= len).then(|| items[(n - 1) as usize].clone())
    } else {
        (n.unsigned_abs() <= len as u64).then(|| items[(len + n) as usize].clone())
    };
    match pick {
        Some(v) => Ok(vec![v]),
        None if strict => Err(strict_error("nth", n)),
        None => Ok(Vec::new()),
    }
}

fn head_tail(spec: &Spec, items: &[Json], head: bool) -> Result<Vec<Json>, RunError> {
    let n = spec.n();
    let len = items.len() as i64;
    if spec.strict() && !(1 <= n && n <= len) {
        return Err(strict_error(if head { "head" } else { "tail" }, n));
    }
    if n < 1 {
        return Ok(Vec::new());
    }
    let k = n.min(len) as usize;
    Ok(if head {
        items[..k].to_vec()
    } else {
        items[items.len() - k..].to_vec()
    })
}

fn filter(spec: &Spec, items: &[Json]) -> Result<Vec<Json>, RunError> {
    let mut out = Vec::new();
    for item in items {
        let text = match item {
            Json::Null => String::new(),
            other => py::str_of(other),
        };
        let operator = py_getitem(&spec.filter, "operator")?;
        let value = py_getitem(&spec.filter, "value")?;
        if eval(&text, operator, value)? {
            out.push(item.clone());
        }
    }
    Ok(out)
}

/// `ListOperations._eval` on an item's `str()`.
fn eval(v: &str, operator: &Json, value: &Json) -> Result<bool, RunError> {
    let Json::String(op) = operator else {
        return Ok(false);
    };
    let needle = |method: &str| match value {
        Json::String(s) => Ok(s.as_str()),
        other if method == "in" => Err(RunError::type_error(format!(
            "'in <string>' requires string as left operand, not {}",
            py::type_name(other)
        ))),
        other => Err(RunError::type_error(format!(
            "{method} first arg must be str or a tuple of str, not {}",
            py::type_name(other)
        ))),
    };
    Ok(match op.as_str() {
        "=" => py::py_eq(&Json::from(v), value),
        "≠" => !py::py_eq(&Json::from(v), value),
        "contains" => v.contains(needle("in")?),
        "start with" => v.starts_with(needle("startswith")?),
        "end with" => v.ends_with(needle("endswith")?),
        _ => false,
    })
}

/// A sort or deduplication key: `_hashable` turns dicts into tuples of sorted `(key, value)`
/// pairs and lists into tuples; `sort_by` keys are tuples of raw values.
#[derive(Clone, Debug)]
enum Key {
    Value(Json),
    Tuple(Vec<Key>),
}

impl Key {
    fn hashable(v: &Json) -> Key {
        match v {
            Json::Object(m) => {
                let mut pairs: Vec<(&String, &Json)> = m.iter().collect();
                // Keys are distinct strings, so the tuple sort is a sort by key.
                pairs.sort_by(|a, b| a.0.cmp(b.0));
                Key::Tuple(
                    pairs
                        .into_iter()
                        .map(|(k, v)| {
                            Key::Tuple(vec![Key::Value(Json::from(k.as_str())), Key::hashable(v)])
                        })
                        .collect(),
                )
            }
            Json::Array(a) => Key::Tuple(a.iter().map(Key::hashable).collect()),
            other => Key::Value(other.clone()),
        }
    }

    fn type_name(&self) -> &'static str {
        match self {
            Key::Value(v) => py::type_name(v),
            Key::Tuple(_) => "tuple",
        }
    }

    fn eq(&self, other: &Key) -> bool {
        match (self, other) {
            (Key::Value(a), Key::Value(b)) => py::py_eq(a, b),
            (Key::Tuple(a), Key::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.eq(y))
            }
            _ => false,
        }
    }

    /// Python `self < other`.
    fn lt(&self, other: &Key) -> Result<bool, RunError> {
        match (self, other) {
            (Key::Value(a), Key::Value(b)) => py::py_cmp(a, b, "<")
                .map(|o| o == Ordering::Less)
                .map_err(RunError::type_error),
            (Key::Tuple(a), Key::Tuple(b)) => {
                for (x, y) in a.iter().zip(b) {
                    if !x.eq(y) {
                        return x.lt(y);
                    }
                }
                Ok(a.len() < b.len())
            }
            _ => Err(RunError::type_error(format!(
                "'<' not supported between instances of '{}' and '{}'",
                self.type_name(),
                other.type_name()
            ))),
        }
    }
}

fn sort(spec: &Spec, items: Vec<Json>) -> Result<Vec<Json>, RunError> {
    if items.is_empty() {
        return Ok(items);
    }
    let method = if py::truthy(&spec.sort_method) {
        spec.sort_method.clone()
    } else {
        Json::from("asc")
    };
    let reverse = method == "desc";
    let keys: Vec<Key> = if items[0].is_object() {
        let raw = if py::truthy(&spec.sort_by) {
            match &spec.sort_by {
                Json::String(s) => s.clone(),
                other => return Err(super::no_attribute(other, "split")),
            }
        } else {
            String::new()
        };
        let sort_by: Vec<&str> = raw
            .split(',')
            .map(py::strip)
            .filter(|k| !k.is_empty())
            .collect();
        if sort_by.is_empty() {
            items.iter().map(Key::hashable).collect()
        } else {
            let mut keys = Vec::with_capacity(items.len());
            for x in &items {
                let mut parts = Vec::with_capacity(sort_by.len());
                for k in &sort_by {
                    parts.push(Key::Value(py_get(x, k)?.cloned().unwrap_or(Json::Null)));
                }
                keys.push(Key::Tuple(parts));
            }
            keys
        }
    } else {
        items.iter().cloned().map(Key::Value).collect()
    };
    let mut pairs: Vec<(Key, Json)> = keys.into_iter().zip(items).collect();
    py_sort(&mut pairs, reverse)?;
    Ok(pairs.into_iter().map(|(_, v)| v).collect())
}

/// CPython's `list.sort(key=…, reverse=…)`: stable, comparing keys with `<` only, in timsort's
/// order of work: natural runs (`count_run`), each extended to `minrun` by binary insertion, then
/// merges. The run phase is CPython's, so the first incomparable pair, and the `TypeError` naming
/// it, is the one Python meets there; merges are plain (CPython gallops), so an error first met
/// while merging may name another pair. This is our own sort because `slice::sort_by` needs a
/// total order and Python's `<` is not one (mixed types raise): std may panic on such a comparator.
fn py_sort(pairs: &mut Vec<(Key, Json)>, reverse: bool) -> Result<(), RunError> {
    if reverse {
        pairs.reverse();
    }
    let n = pairs.len();
    if n >= 2 {
        let minrun = minrun(n);
        let mut runs = Vec::new();
        let mut lo = 0;
        while lo < n {
            let mut run = if n - lo >= 2 {
                count_run(&mut pairs[lo..])?
            } else {
                1
            };
            if run < minrun {
                let force = minrun.min(n - lo);
                binary_insertion(&mut pairs[lo..lo + force], run)?;
                run = force;
            }
            runs.push(lo..lo + run);
            lo += run;
        }
        if runs.len() > 1 {
            let order = merge_runs(pairs, runs)?;
            let mut taken: Vec<Option<(Key, Json)>> = pairs.drain(..).map(Some).collect();
            pairs.extend(order.into_iter().filter_map(|i| taken[i].take()));
        }
    }
    if reverse {
        pairs.reverse();
    }
    Ok(())
}

/// `merge_compute_minrun`: `n` itself below 64, else between 32 and 64.
fn minrun(mut n: usize) -> usize {
    let mut r = 0;
    while n >= 64 {
        r |= n & 1;
        n >>= 1;
    }
    n + r
}

/// Merges adjacent sorted runs until one is left, as indices into `pairs`; an item moves before
/// an earlier one only when strictly less, so the order is stable.
fn merge_runs(
    pairs: &[(Key, Json)],
    mut runs: Vec<std::ops::Range<usize>>,
) -> Result<Vec<usize>, RunError> {
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    let mut merged = Vec::with_capacity(order.len());
    while runs.len() > 1 {
        merged.clear();
        let mut next = Vec::with_capacity(runs.len().div_ceil(2));
        for two in runs.chunks(2) {
            let [left, right] = two else {
                merged.extend_from_slice(&order[two[0].clone()]);
                next.push(two[0].clone());
                continue;
            };
            let (mut i, mut j) = (left.start, right.start);
            while i < left.end && j < right.end {
                if pairs[order[j]].0.lt(&pairs[order[i]].0)? {
                    merged.push(order[j]);
                    j += 1;
                } else {
                    merged.push(order[i]);
                    i += 1;
                }
            }
            merged.extend_from_slice(&order[i..left.end]);
            merged.extend_from_slice(&order[j..right.end]);
            next.push(left.start..right.end);
        }
        std::mem::swap(&mut order, &mut merged);
        runs = next;
    }
    Ok(order)
}

/// `count_run`: the length of the natural run at the start; a strictly descending run is
/// reversed in place.
fn count_run(pairs: &mut [(Key, Json)]) -> Result<usize, RunError> {
    let n = pairs.len();
    let mut k = 2;
    if pairs[1].0.lt(&pairs[0].0)? {
        while k < n && pairs[k].0.lt(&pairs[k - 1].0)? {
            k += 1;
        }
        pairs[..k].reverse();
    } else {
        while k < n && !pairs[k].0.lt(&pairs[k - 1].0)? {
            k += 1;
        }
    }
    Ok(k)
}

/// `binarysort`: insert each item after the sorted prefix at its bisect-right position.
fn binary_insertion(pairs: &mut [(Key, Json)], start: usize) -> Result<(), RunError> {
    for i in start..pairs.len() {
        let (mut l, mut r) = (0, i);
        while l < r {
            let p = l + (r - l) / 2;
            if pairs[i].0.lt(&pairs[p].0)? {
                r = p;
            } else {
                l = p + 1;
            }
        }
        pairs[l..=i].rotate_right(1);
    }
    Ok(())
}

/// Keep the first item of each canonical form (Python set membership: `1`, `1.0` and `True`
/// are one key; dict key order does not matter).
fn drop_duplicates(items: &[Json]) -> Vec<Json> {
    let mut seen: Vec<Key> = Vec::new();
    let mut out = Vec::new();
    for item in items {
        let k = Key::hashable(item);
        if seen.iter().any(|s| s.eq(&k)) {
            continue;
        }
        seen.push(k);
        out.push(item.clone());
    }
    out
}
