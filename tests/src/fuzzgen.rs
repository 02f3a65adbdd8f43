//! Seeded random canvases over RAGFlow's pure components, for differential fuzzing against
//! RAGFlow's own engine (`tests/fuzz/`). Each canvas comes with its case: the turns the
//! oracle and our engines run it with.
//!
//! The generator builds a main chain from `begin`; a step is one of the pure components, and
//! the composite steps (Switch branches, Iteration and Loop bodies) recurse. Every step reads
//! values produced before it (globals, Begin inputs, earlier outputs), typed loosely so that
//! most reads are well-typed and some are deliberately not (RAGFlow's behaviour on a wrong
//! type is part of what is compared). Templates mix plain references, the iteration aliases
//! and Jinja2 with Python `str` methods and builtin filters.

use serde_json::{json, Map, Value as Json};
use std::collections::BTreeSet;

/// SplitMix64. Hand-written rather than `rand`'s `StdRng` because the checked-in canvases
/// must be reproducible from (seed, index) forever, and `rand` documents that `StdRng`'s
/// algorithm may change between releases.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64, index: u64) -> Rng {
        let mut r = Rng(seed ^ index.wrapping_mul(0xA076_1D64_78BD_642F));
        r.next();
        r
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1).max(1) as u64)) as i64
    }
}

/// The loose type of a value a reference reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Str,
    Num,
    Bool,
    StrList,
    NumList,
    Obj,
    ObjList,
    Any,
}

/// A readable value: its reference text and type.
#[derive(Clone, Debug)]
struct Src {
    re: String,
    ty: Ty,
}

fn src(re: impl Into<String>, ty: Ty) -> Src {
    Src { re: re.into(), ty }
}

/// What a step can see: the readable values, the container it sits in, the enclosing Loop.
#[derive(Clone, Debug, Default)]
struct Scope {
    sources: Vec<Src>,
    parent: Option<String>,
    in_loop: Option<LoopCx>,
    /// Inside an Iteration body: `{item}` and `{index}` mean the current item.
    in_iteration: bool,
    depth: usize,
}

#[derive(Clone, Debug)]
struct LoopCx {
    id: String,
    vars: Vec<(String, Ty)>,
}

const WORDS: &[&str] = &[
    "alpha",
    "Beta",
    "gamma-delta",
    "x,y;z",
    "  padded  ",
    "order 42?",
    "refund please",
    "",
    "A-1|B-2",
    "日本語",
    "money back",
    "3.5",
    "10",
    "-2",
    "True",
    "none",
    "[1, 2]",
    "{'k': 1}",
    "a\nb",
    "Hello, World",
    "0",
];

const KEYS: &[&str] = &["name", "tier", "spend", "qty", "city", "langs", "missing"];

/// One generated case: the canvas, its turns and the features it exercises.
#[derive(Clone, Debug)]
pub struct Generated {
    pub canvas: Json,
    pub case: Json,
    pub features: BTreeSet<String>,
}

struct Node {
    id: String,
    obj: Json,
    down: Vec<String>,
    up: Vec<String>,
    parent: Option<String>,
}

/// A form field: name, RAGFlow type, optional.
type Field = (String, &'static str, bool);

struct Builder {
    rng: Rng,
    nodes: Vec<Node>,
    counter: usize,
    features: BTreeSet<String>,
    globals: Map<String, Json>,
    variables: Map<String, Json>,
    begin_fields: Vec<Field>,
    fillups: Vec<(String, Vec<Field>)>,
    has_loop: bool,
}

/// Generate case `index` of `seed`.
pub fn generate(seed: u64, index: u64) -> Generated {
    let mut b = Builder {
        rng: Rng::new(seed, index),
        nodes: Vec::new(),
        counter: 0,
        features: BTreeSet::new(),
        globals: Map::new(),
        variables: Map::new(),
        begin_fields: Vec::new(),
        fillups: Vec::new(),
        has_loop: false,
    };
    let mut scope = Scope {
        sources: vec![
            src("sys.query", Ty::Str),
            src("sys.conversation_turns", Ty::Num),
            src("sys.user_id", Ty::Str),
        ],
        ..Scope::default()
    };
    b.env(&mut scope);
    let begin = b.begin(&mut scope);
    let steps = 2 + b.rng.below(4);
    let ends = b.chain(vec![begin], &mut scope, steps);
    if !ends.is_empty() {
        let report = b.message_with(&scope, true, 2);
        for e in &ends {
            b.link(e, &report);
        }
    }
    let turns = b.turns();
    let mut components = Map::new();
    for n in &b.nodes {
        let mut c = Map::new();
        c.insert("obj".into(), n.obj.clone());
        c.insert("downstream".into(), json!(n.down));
        c.insert("upstream".into(), json!(n.up));
        if let Some(p) = &n.parent {
            c.insert("parent_id".into(), json!(p));
        }
        components.insert(n.id.clone(), Json::Object(c));
    }
    let mut globals = Map::new();
    for (k, v) in [
        ("sys.query", json!("")),
        ("sys.user_id", json!("")),
        ("sys.conversation_turns", json!(0)),
        ("sys.files", json!([])),
        ("sys.history", json!([])),
    ] {
        globals.insert(k.into(), v);
    }
    globals.extend(b.globals.clone());
    let canvas = json!({
        "components": components,
        "globals": globals,
        "variables": b.variables,
        "history": [],
        "path": [],
        "retrieval": [],
    });
    let features = b.features;
    Generated {
        canvas,
        case: json!({"seed": seed, "index": index, "turns": turns, "features": features}),
        features,
    }
}

impl Builder {
    fn feature(&mut self, f: impl Into<String>) {
        self.features.insert(f.into());
    }

    fn add(&mut self, kind: &str, params: Json, scope: &Scope) -> String {
        self.counter += 1;
        let id = format!("{kind}:N{}", self.counter);
        self.feature(kind.to_string());
        self.nodes.push(Node {
            id: id.clone(),
            obj: json!({"component_name": kind, "params": params}),
            down: Vec::new(),
            up: Vec::new(),
            parent: scope.parent.clone(),
        });
        id
    }

    fn node_mut(&mut self, id: &str) -> Option<&mut Node> {
        self.nodes.iter_mut().find(|n| n.id == id)
    }

    fn link(&mut self, from: &str, to: &str) {
        if let Some(n) = self.node_mut(from) {
            if !n.down.iter().any(|d| d == to) {
                n.down.push(to.to_string());
            }
        }
        if let Some(n) = self.node_mut(to) {
            if !n.up.iter().any(|u| u == from) {
                n.up.push(from.to_string());
            }
        }
    }

    fn params_mut(&mut self, id: &str) -> Option<&mut Map<String, Json>> {
        self.node_mut(id)
            .and_then(|n| n.obj.get_mut("params"))
            .and_then(Json::as_object_mut)
    }

    fn word(&mut self) -> String {
        self.rng.pick(WORDS).to_string()
    }

    /// Environment variables of every type, a random subset.
    fn env(&mut self, scope: &mut Scope) {
        let rows: Vec<Json> = (0..self.rng.range(0, 4))
            .map(|i| {
                let mut m = Map::new();
                m.insert("name".into(), json!(self.word()));
                m.insert(
                    "tier".into(),
                    json!(*self.rng.pick(&["gold", "silver", "bronze"])),
                );
                m.insert(
                    "spend".into(),
                    json!(format!("{}", self.rng.range(-5, 1500))),
                );
                if self.rng.chance(70) {
                    m.insert("qty".into(), json!(i * 2 + 1));
                }
                Json::Object(m)
            })
            .collect();
        let candidates: Vec<(&str, &str, Json, Ty)> = vec![
            ("name", "string", json!(self.word()), Ty::Str),
            ("count", "number", json!(self.rng.range(-3, 12)), Ty::Num),
            ("ratio", "number", json!(2.5), Ty::Num),
            (
                "tags",
                "array<string>",
                json!((0..self.rng.range(0, 4))
                    .map(|_| self.word())
                    .collect::<Vec<_>>()),
                Ty::StrList,
            ),
            (
                "nums",
                "array<number>",
                json!((0..self.rng.range(0, 5))
                    .map(|_| self.rng.range(-4, 9))
                    .collect::<Vec<_>>()),
                Ty::NumList,
            ),
            (
                "profile",
                "object",
                json!({"name": self.word(), "city": "Paris", "langs": ["en", "fr"]}),
                Ty::Obj,
            ),
            ("rows", "array<object>", Json::Array(rows), Ty::ObjList),
            ("flag", "boolean", json!(self.rng.chance(50)), Ty::Bool),
        ];
        for (name, ty, value, t) in candidates {
            if !self.rng.chance(60) {
                continue;
            }
            self.globals.insert(format!("env.{name}"), value.clone());
            self.variables.insert(
                name.to_string(),
                json!({"name": name, "type": ty, "value": value, "description": ""}),
            );
            scope.sources.push(src(format!("env.{name}"), t));
        }
    }

    fn form_fields(&mut self, prefix: &str) -> Vec<(String, &'static str, bool)> {
        let n = self.rng.below(4);
        (0..n)
            .map(|i| {
                let ty = *self.rng.pick(&[
                    "line",
                    "paragraph",
                    "options",
                    "integer",
                    "float",
                    "boolean",
                    "object",
                ]);
                (format!("{prefix}{i}"), ty, self.rng.chance(40))
            })
            .collect()
    }

    fn form_json(&mut self, fields: &[(String, &'static str, bool)]) -> Json {
        let mut m = Map::new();
        for (name, ty, optional) in fields {
            let options: Vec<&str> = if *ty == "options" {
                vec!["red", "green", "blue"]
            } else {
                vec![]
            };
            m.insert(
                name.clone(),
                json!({"name": format!("Field {name}"), "optional": optional, "options": options, "type": ty}),
            );
        }
        Json::Object(m)
    }

    fn field_ty(ty: &str) -> Ty {
        match ty {
            "integer" | "float" => Ty::Num,
            "boolean" => Ty::Bool,
            "object" => Ty::Obj,
            _ => Ty::Str,
        }
    }

    fn begin(&mut self, scope: &mut Scope) -> String {
        let fields = self.form_fields("f");
        let inputs = self.form_json(&fields);
        let mode = if self.rng.chance(80) {
            "conversational"
        } else {
            "task"
        };
        let prologue = if self.rng.chance(50) {
            "Hi there!".to_string()
        } else {
            self.template(scope, false)
        };
        let params = json!({"enablePrologue": true, "inputs": inputs, "mode": mode, "prologue": prologue, "outputs": {}});
        self.nodes.push(Node {
            id: "begin".into(),
            obj: json!({"component_name": "Begin", "params": params}),
            down: Vec::new(),
            up: Vec::new(),
            parent: None,
        });
        self.feature(format!("Begin:{mode}"));
        for (name, ty, optional) in &fields {
            self.feature(format!(
                "Begin input {ty} {}",
                if *optional { "optional" } else { "required" }
            ));
            scope
                .sources
                .push(src(format!("begin@{name}"), Self::field_ty(ty)));
        }
        self.begin_fields = fields;
        "begin".into()
    }

    /// A chain of `steps` steps after `from`; returns the nodes the next step follows (empty
    /// when every branch ended in a terminal Message).
    fn chain(&mut self, mut from: Vec<String>, scope: &mut Scope, steps: usize) -> Vec<String> {
        for _ in 0..steps {
            if from.is_empty() {
                break;
            }
            from = self.step(from, scope);
        }
        from
    }

    fn step(&mut self, from: Vec<String>, scope: &mut Scope) -> Vec<String> {
        let top = scope.parent.is_none();
        let mut kinds = vec![
            "merge",
            "merge",
            "split",
            "message",
            "switch",
            "assigner",
            "aggregator",
            "dataops",
            "listops",
            "listops",
        ];
        if scope.depth < 2 {
            kinds.extend(["iteration", "loop"]);
            if !scope.in_iteration {
                kinds.push("iteration");
            }
        }
        if top && self.fillups.len() < 2 && !self.has_loop {
            kinds.push("fillup");
        }
        if scope.in_loop.is_some() {
            kinds.extend(["assigner", "assigner", "exit"]);
        }
        let kind = *self.rng.pick(&kinds);
        let id = match kind {
            "merge" => self.merge(scope),
            "split" => self.split(scope),
            "message" => self.message(scope, false),
            "assigner" => self.assigner(scope),
            "aggregator" => self.aggregator(scope),
            "dataops" => self.dataops(scope),
            "listops" => return self.listops(from, scope),
            "fillup" => self.fillup(scope),
            "switch" => return self.switch(from, scope),
            "iteration" => self.iteration(scope),
            "loop" => self.looping(scope),
            _ => return self.exit_switch(from, scope),
        };
        for f in &from {
            self.link(f, &id);
        }
        vec![id]
    }

    fn pick_src(&mut self, scope: &Scope, want: &[Ty], off_type_percent: u64) -> Src {
        let fitting: Vec<&Src> = scope
            .sources
            .iter()
            .filter(|s| want.contains(&s.ty) || s.ty == Ty::Any)
            .collect();
        if fitting.is_empty() || self.rng.chance(off_type_percent) {
            return self.rng.pick(&scope.sources).clone();
        }
        (*self.rng.pick(&fitting)).clone()
    }

    /// A text with references, plain or Jinja2.
    fn template(&mut self, scope: &Scope, allow_jinja: bool) -> String {
        let mut out = String::new();
        let parts = 1 + self.rng.below(3);
        for i in 0..parts {
            if i > 0 {
                out.push_str(self.rng.pick::<&str>(&[" ", "; ", "\n", " | "]));
            }
            match self.rng.below(10) {
                0 => out.push_str(&self.word()),
                1 if scope.in_iteration => {
                    self.feature("iteration alias");
                    out.push_str(
                        self.rng
                            .pick::<&str>(&["{item}", "{index}", "#{index}:{item}"]),
                    )
                }
                2..=4 if allow_jinja => out.push_str(&self.jinja(scope)),
                5 => {
                    let s = self.rng.pick(&scope.sources).re.clone();
                    let form = *self.rng.pick(&["{ {}}", "{{}}", "{{{}}}", "{ {} }"]);
                    self.feature("reference spacing");
                    out.push_str(&form.replace("{}", &format!("{{{s}}}")));
                }
                _ => {
                    let s = self.rng.pick(&scope.sources).re.clone();
                    out.push_str(&format!("{}={{{s}}}", self.word().trim()));
                }
            }
        }
        out
    }

    fn jinja(&mut self, scope: &Scope) -> String {
        let s = self.pick_src(scope, &[Ty::Str], 30);
        let r = format!("{{{}}}", s.re);
        let safe = s.re.replace(['@', ':', '.'], "_");
        let filters = [
            "upper",
            "lower",
            "length",
            "trim",
            "title",
            "capitalize",
            "reverse",
            "wordcount",
            "truncate(4, True, '')",
            "truncate(5)",
            "replace('a', 'A')",
            "default('none')",
            "default('dflt', true)",
            "first",
            "last",
            "center(9)",
            "int",
            "float",
            "string",
            "list|join('+')",
            "join('-')",
            "e",
            "count",
            "abs",
            "round",
            "sort|join",
            "unique|list",
            "urlencode",
            "indent(2)",
            "striptags",
            "batch(2)|list",
        ];
        let methods = [
            "upper()",
            "strip()",
            "split('-')|join('/')",
            "split(',')",
            "replace('a', 'A')",
            "startswith('a')",
            "endswith('?')",
            "count('a')",
            "title()",
            "zfill(5)",
            "isdigit()",
            "find('e')",
            "lower().capitalize()",
            "splitlines()",
            "lstrip('A')",
            "rstrip()",
            "partition(' ')",
            "center(8, '*')",
            "ljust(6, '.')",
            "casefold()",
            "swapcase()",
            "encode('utf-8')",
            "format(1)",
            "join(['x', 'y'])",
            "rsplit(',', 1)",
            "isalpha()",
            "index('a')",
        ];
        match self.rng.below(14) {
            0 | 1 => {
                let f = *self.rng.pick(&filters);
                self.feature(format!("jinja filter {}", f.split('(').next().unwrap_or(f)));
                format!("{{{{ {r}|{f} }}}}")
            }
            2 | 3 => {
                let m = *self.rng.pick(&methods);
                self.feature(format!("jinja method {}", m.split('(').next().unwrap_or(m)));
                format!("{{{{ {r}.{m} }}}}")
            }
            4 => {
                self.feature("jinja if");
                format!("{{% if {r} %}}yes{{% else %}}no{{% endif %}}")
            }
            5 => {
                self.feature("jinja for split");
                let d = *self.rng.pick(&[",", "-", " "]);
                format!("{{% for p in {r}.split('{d}') %}}[{{{{ p }}}}]{{% endfor %}}")
            }
            6 => {
                self.feature("jinja compare");
                let (op, v) = *self.rng.pick(&[
                    ("==", "'10'"),
                    ("!=", "''"),
                    (">", "3"),
                    ("<", "'m'"),
                    (">=", "2.5"),
                    ("in", "'abc'"),
                ]);
                format!("{{% if {r} {op} {v} %}}T{{% else %}}F{{% endif %}}")
            }
            7 => {
                self.feature("jinja safe name");
                // The safe name without the reference elsewhere: undefined unless it is.
                format!("{{{{ {safe} }}}}")
            }
            8 => {
                self.feature("jinja undefined");
                let u = *self.rng.pick(&[
                    "nothing",
                    "nothing.attr",
                    "nothing|default('d')",
                    "nothing is defined",
                ]);
                format!("{{{{ {u} }}}}")
            }
            9 => {
                self.feature("jinja concat");
                let o = self.pick_src(scope, &[Ty::Str], 50);
                format!("{{{{ {r} ~ '/' ~ {{{}}} }}}}", o.re)
            }
            10 => {
                self.feature("jinja set");
                format!("{{% set n = {r}|length %}}{{{{ n * 2 }}}}")
            }
            11 => {
                self.feature("jinja slice");
                let sl = *self.rng.pick(&["[:3]", "[::-1]", "[1]", "[-1:]"]);
                format!("{{{{ {r}{sl} }}}}")
            }
            12 => {
                self.feature("jinja test");
                let t = *self.rng.pick(&[
                    "is string",
                    "is number",
                    "is none",
                    "is defined",
                    "is upper",
                    "is lower",
                    "is divisibleby(2)",
                    "is in ['a', 'alpha']",
                ]);
                format!("{{% if {r} {t} %}}Y{{% else %}}N{{% endif %}}")
            }
            _ => {
                self.feature("jinja braces");
                format!("{{{{{}}}}}", s.re)
            }
        }
    }

    fn exception(&mut self, id: &str, fallback: Option<&str>) {
        if !self.rng.chance(40) {
            return;
        }
        let method = *self.rng.pick(&["comment", "goto", "comment"]);
        let default = *self.rng.pick(&["fallback value", "", "0"]);
        let params = match self.params_mut(id) {
            Some(p) => p,
            None => return,
        };
        params.insert("exception_method".into(), json!(method));
        params.insert("exception_default_value".into(), json!(default));
        if method == "goto" {
            if let Some(target) = fallback {
                params.insert("exception_goto".into(), json!([target]));
            } else {
                params.insert("exception_method".into(), json!("comment"));
            }
        }
        let f = format!(
            "exception {}",
            self.params_mut(id)
                .and_then(|p| p.get("exception_method").and_then(Json::as_str))
                .unwrap_or("")
        );
        self.feature(f);
    }

    fn merge(&mut self, scope: &mut Scope) -> String {
        let script = self.template(scope, true);
        let delims = self.delimiters();
        let id = self.add(
            "StringTransform",
            json!({"method": "merge", "split_ref": "", "script": script, "delimiters": delims, "outputs": {"result": {"type": "string"}}}),
            scope,
        );
        self.feature("StringTransform merge");
        scope.sources.push(src(format!("{id}@result"), Ty::Str));
        id
    }

    fn delimiters(&mut self) -> Vec<&'static str> {
        let n = 1 + self.rng.below(3);
        (0..n)
            .map(|_| {
                *self
                    .rng
                    .pick(&[",", ";", " | ", "\n", "-", " ", "、", "||"])
            })
            .collect()
    }

    fn split(&mut self, scope: &mut Scope) -> String {
        let s = self.pick_src(scope, &[Ty::Str], 10);
        let delims = self.delimiters();
        let id = self.add(
            "StringTransform",
            json!({"method": "split", "split_ref": s.re, "script": "", "delimiters": delims, "outputs": {"result": {"type": "Array<string>"}}}),
            scope,
        );
        self.feature("StringTransform split");
        self.exception(&id, None);
        scope.sources.push(src(format!("{id}@result"), Ty::StrList));
        id
    }

    fn message(&mut self, scope: &Scope, terminal: bool) -> String {
        self.message_with(scope, terminal, 1)
    }

    /// A Message picking one of `most` contents at random. RAGFlow draws with the process-wide
    /// `random.choice`, and Messages of one batch run on threads in no fixed order, so only the
    /// final report (alone in its batch) has more than one content: the goldens stay
    /// deterministic.
    fn message_with(&mut self, scope: &Scope, terminal: bool, most: usize) -> String {
        let n = 1 + self.rng.below(most);
        if n > 1 {
            self.feature("Message random content");
        }
        let content: Vec<String> = (0..n).map(|_| self.template(scope, true)).collect();
        let mut params = json!({"content": content});
        match self.rng.below(3) {
            0 => {
                params["stream"] = json!(false);
                self.feature("Message stream=false");
            }
            1 => {
                params["stream"] = json!(true);
                self.feature("Message stream=true");
            }
            _ => self.feature("Message stream default"),
        }
        if terminal {
            self.feature("Message terminal");
        }
        self.add("Message", params, scope)
    }

    fn switch_item(&mut self, scope: &Scope) -> Json {
        let s = self.pick_src(scope, &[Ty::Str, Ty::Num], 15);
        let ops = [
            "contains",
            "not contains",
            "start with",
            "end with",
            "empty",
            "not empty",
            "=",
            "≠",
            ">",
            "<",
            "≥",
            "≤",
        ];
        let op = *self.rng.pick(&ops);
        self.feature(format!("Switch op {op}"));
        let value = match s.ty {
            Ty::Num if self.rng.chance(85) => format!("{}", self.rng.range(-2, 10)),
            _ => self.word(),
        };
        json!({"cpn_id": s.re, "operator": op, "value": value})
    }

    /// A Switch with 1-3 cases and an else; each target is a short branch. The branches end
    /// in Messages, or join into a VariableAggregator the chain continues from.
    fn switch(&mut self, from: Vec<String>, scope: &mut Scope) -> Vec<String> {
        let id = self.add(
            "Switch",
            json!({"conditions": [], "end_cpn_ids": []}),
            scope,
        );
        for f in &from {
            self.link(f, &id);
        }
        let cases = 1 + self.rng.below(3);
        let join = self.rng.chance(50);
        let mut conditions = Vec::new();
        let mut branch_ends: Vec<(String, Vec<String>)> = Vec::new();
        let mut outs = Vec::new();
        // RAGFlow refuses a Switch without an else destination when it builds the canvas.
        for c in 0..=cases {
            let is_else = c == cases;
            let mut branch_scope = scope.clone();
            branch_scope.depth += 1;
            let first = self.branch_step(&mut branch_scope);
            self.link(&id, &first);
            let mut ends = vec![first.clone()];
            if self.rng.chance(40) {
                ends = self.chain(ends, &mut branch_scope, 1);
            }
            if is_else {
                if let Some(p) = self.params_mut(&id) {
                    p.insert("end_cpn_ids".into(), json!([first]));
                }
            } else {
                let items: Vec<Json> = (0..1 + self.rng.below(3))
                    .map(|_| self.switch_item(scope))
                    .collect();
                let logic = *self.rng.pick(&["and", "or"]);
                self.feature(format!("Switch {logic}"));
                conditions.push(json!({"logical_operator": logic, "items": items, "to": [first]}));
            }
            outs.push(first.clone());
            branch_ends.push((first, ends));
        }
        if let Some(p) = self.params_mut(&id) {
            p.insert("conditions".into(), Json::Array(conditions));
        }
        self.exception(&id, outs.first().map(String::as_str));
        if join {
            self.feature("Switch join");
            let agg = self.aggregator_over(
                scope,
                branch_ends
                    .iter()
                    .map(|(first, _)| format!("{first}@result"))
                    .collect(),
            );
            for (_, ends) in &branch_ends {
                for e in ends {
                    self.link(e, &agg);
                }
            }
            vec![agg]
        } else {
            for (_, ends) in branch_ends {
                if !ends.is_empty() {
                    let m = self.message(scope, true);
                    for e in &ends {
                        self.link(e, &m);
                    }
                }
            }
            Vec::new()
        }
    }

    fn branch_step(&mut self, scope: &mut Scope) -> String {
        match self.rng.below(4) {
            0 => self.message(scope, false),
            1 => self.assigner(scope),
            _ => self.merge(scope),
        }
    }

    fn aggregator_over(&mut self, scope: &mut Scope, refs: Vec<String>) -> String {
        let ty = *self.rng.pick(&["string", "number", "any"]);
        let mut vars: Vec<Json> = refs.iter().map(|r| json!({"value": r})).collect();
        if self.rng.chance(50) {
            let s = self.rng.pick(&scope.sources).re.clone();
            vars.push(json!({"value": s}));
        }
        let id = self.add(
            "VariableAggregator",
            json!({"groups": [{"group_name": "picked", "type": ty, "variables": vars}], "outputs": {"picked": {"type": ty}}}),
            scope,
        );
        scope.sources.push(src(format!("{id}@picked"), Ty::Any));
        id
    }

    fn aggregator(&mut self, scope: &mut Scope) -> String {
        let groups = 1 + self.rng.below(2);
        let mut gs = Vec::new();
        let mut outs = Map::new();
        let mut names = Vec::new();
        for g in 0..groups {
            let name = format!("g{g}");
            let vars: Vec<Json> = (0..1 + self.rng.below(3))
                .map(|_| json!({"value": self.rng.pick(&scope.sources).re.clone()}))
                .collect();
            let ty = *self
                .rng
                .pick(&["string", "number", "object", "Array<string>"]);
            gs.push(json!({"group_name": name, "type": ty, "variables": vars}));
            outs.insert(name.clone(), json!({"type": ty}));
            names.push(name);
        }
        let id = self.add(
            "VariableAggregator",
            json!({"groups": gs, "outputs": outs}),
            scope,
        );
        for n in names {
            scope.sources.push(src(format!("{id}@{n}"), Ty::Any));
        }
        id
    }

    /// Targets a VariableAssigner may write: environment variables, the enclosing Loop's
    /// variables, earlier outputs.
    fn assign_one(&mut self, scope: &Scope) -> Json {
        let mut targets: Vec<Src> = scope
            .sources
            .iter()
            .filter(|s| s.re.starts_with("env.") || s.re.contains('@'))
            .cloned()
            .collect();
        if let Some(l) = &scope.in_loop {
            for (v, t) in &l.vars {
                let s = src(format!("{}@{v}", l.id), *t);
                targets.push(s.clone());
                targets.push(s);
            }
        }
        if targets.is_empty() {
            targets.push(src("env.created", Ty::Any));
        }
        let t = self.rng.pick(&targets).clone();
        let op = match t.ty {
            Ty::Num => *self
                .rng
                .pick(&["+=", "-=", "*=", "/=", "set", "clear", "overwrite"]),
            Ty::Str => *self.rng.pick(&["set", "overwrite", "clear", "append"]),
            // Growing a list inside an Iteration may grow the list being iterated (RAGFlow
            // shares list objects between references): a canvas that never ends.
            Ty::StrList | Ty::NumList | Ty::ObjList if scope.in_iteration => {
                *self
                    .rng
                    .pick(&["remove_first", "remove_last", "clear", "overwrite"])
            }
            Ty::StrList | Ty::NumList | Ty::ObjList => *self.rng.pick(&[
                "append",
                "extend",
                "remove_first",
                "remove_last",
                "clear",
                "overwrite",
            ]),
            Ty::Bool => *self.rng.pick(&["set", "clear", "overwrite"]),
            _ if scope.in_iteration => *self.rng.pick(&["overwrite", "set", "clear", "+="]),
            _ => *self
                .rng
                .pick(&["overwrite", "set", "clear", "append", "+="]),
        };
        self.feature(format!("VariableAssigner {op}"));
        let parameter = match op {
            "+=" | "-=" | "*=" => json!(self.rng.range(-1, 3)),
            "/=" => json!(*self.rng.pick(&[2, 0, 4])),
            "set" => match t.ty {
                Ty::Num => json!(self.rng.range(0, 9)),
                Ty::Bool => json!(self.rng.chance(50)),
                _ => json!(self.template(scope, false)),
            },
            "clear" | "remove_first" | "remove_last" => Json::Null,
            "append" => json!(self.pick_src(scope, &[Ty::Str], 30).re),
            "extend" => json!(self.pick_src(scope, &[Ty::StrList, Ty::NumList], 20).re),
            _ => json!(self.pick_src(scope, &[t.ty], 20).re),
        };
        let mut item = json!({"variable": t.re, "operator": op});
        if !parameter.is_null() || self.rng.chance(30) {
            item["parameter"] = parameter;
        }
        item
    }

    fn assigner(&mut self, scope: &mut Scope) -> String {
        let n = 1 + self.rng.below(3);
        let vars: Vec<Json> = (0..n).map(|_| self.assign_one(scope)).collect();
        let id = self.add("VariableAssigner", json!({"variables": vars}), scope);
        self.exception(&id, None);
        id
    }

    fn dataops(&mut self, scope: &mut Scope) -> String {
        let nq = 1 + self.rng.below(2);
        let query: Vec<String> = (0..nq)
            .map(|_| self.pick_src(scope, &[Ty::Obj, Ty::ObjList], 15).re)
            .collect();
        let op = *self.rng.pick(&[
            "select_keys",
            "literal_eval",
            "combine",
            "filter_values",
            "append_or_update",
            "remove_keys",
            "rename_keys",
        ]);
        self.feature(format!("DataOperations {op}"));
        let keys = |b: &mut Builder| -> Vec<&'static str> {
            (0..1 + b.rng.below(3)).map(|_| *b.rng.pick(KEYS)).collect()
        };
        let mut params = json!({"query": query, "operations": op, "select_keys": [], "filter_values": [], "updates": [], "remove_keys": [], "rename_keys": [], "outputs": {"result": {"type": "Array<Object>"}}});
        match op {
            "select_keys" => params["select_keys"] = json!(keys(self)),
            "remove_keys" => params["remove_keys"] = json!(keys(self)),
            "filter_values" => {
                let rules: Vec<Json> = (0..1 + self.rng.below(2))
                    .map(|_| {
                        let op = *self
                            .rng
                            .pick(&["=", "≠", "contains", "start with", "end with"]);
                        let value = if self.rng.chance(30) {
                            format!("{{{}}}", self.rng.pick(&scope.sources).re)
                        } else {
                            self.rng.pick(&["gold", "A", "0", "e", ""]).to_string()
                        };
                        json!({"key": *self.rng.pick(KEYS), "operator": op, "value": value})
                    })
                    .collect();
                params["filter_values"] = json!(rules);
            }
            "append_or_update" => {
                let ups: Vec<Json> = (0..1 + self.rng.below(2))
                    .map(|_| json!({"key": *self.rng.pick(KEYS), "value": self.template(scope, false)}))
                    .collect();
                params["updates"] = json!(ups);
            }
            "rename_keys" => {
                params["rename_keys"] =
                    json!([{"old_key": *self.rng.pick(KEYS), "new_key": "renamed"}]);
            }
            _ => {}
        }
        let id = self.add("DataOperations", params, scope);
        self.exception(&id, None);
        scope.sources.push(src(format!("{id}@result"), Ty::ObjList));
        id
    }

    fn listops(&mut self, from: Vec<String>, scope: &mut Scope) -> Vec<String> {
        let s = self.pick_src(scope, &[Ty::StrList, Ty::NumList, Ty::ObjList], 15);
        let op = *self.rng.pick(&[
            "nth",
            "head",
            "tail",
            "topN",
            "filter",
            "sort",
            "drop_duplicates",
        ]);
        self.feature(format!("ListOperations {op}"));
        let n: Json = match self.rng.below(5) {
            0 => json!(format!("{}", self.rng.range(-2, 4))),
            _ => json!(self.rng.range(-3, 5)),
        };
        let strict = self.rng.chance(40);
        let sort_by = if s.ty == Ty::ObjList {
            *self.rng.pick(&["", "name", "qty", "spend,name"])
        } else {
            ""
        };
        let fop = *self
            .rng
            .pick(&["=", "≠", "contains", "start with", "end with"]);
        let fval = self.rng.pick(&["a", "1", "", "gold", "alpha"]).to_string();
        let sort_method = *self.rng.pick(&["asc", "desc"]);
        let id = self.add(
            "ListOperations",
            json!({"query": s.re, "operations": op, "n": n, "strict": strict,
                   "sort_method": sort_method, "sort_by": sort_by,
                   "filter": {"operator": fop, "value": fval},
                   "outputs": {"result": {"type": "Array<?>"}, "first": {"type": "?"}, "last": {"type": "?"}}}),
            scope,
        );
        for f in &from {
            self.link(f, &id);
        }
        let elem = match s.ty {
            Ty::StrList => Ty::Str,
            Ty::NumList => Ty::Num,
            Ty::ObjList => Ty::Obj,
            _ => Ty::Any,
        };
        // A goto target: a Message on the exception route.
        let mut fallback = None;
        if self.rng.chance(30) {
            let m = self.message(scope, true);
            self.link(&id, &m);
            fallback = Some(m);
        }
        self.exception(&id, fallback.as_deref());
        scope.sources.push(src(format!("{id}@result"), s.ty));
        scope.sources.push(src(format!("{id}@first"), elem));
        scope.sources.push(src(format!("{id}@last"), elem));
        vec![id]
    }

    fn fillup(&mut self, scope: &mut Scope) -> String {
        let prefix = format!("u{}_", self.fillups.len());
        let mut fields = self.form_fields(&prefix);
        if fields.is_empty() {
            fields.push((format!("{prefix}0"), "line", false));
        }
        let inputs = self.form_json(&fields);
        let tips = self.template(scope, false);
        let enable = self.rng.chance(80);
        let id = self.add(
            "UserFillUp",
            json!({"enable_tips": enable, "tips": tips, "layout_recognize": "", "inputs": inputs.clone(), "outputs": inputs}),
            scope,
        );
        for (name, ty, _) in &fields {
            scope
                .sources
                .push(src(format!("{id}@{name}"), Self::field_ty(ty)));
        }
        if enable {
            scope.sources.push(src(format!("{id}@tips"), Ty::Str));
        }
        self.fillups.push((id.clone(), fields));
        id
    }

    /// An Iteration over a list; its body is IterationItem → one to three steps.
    fn iteration(&mut self, scope: &mut Scope) -> String {
        let s = self.pick_src(scope, &[Ty::StrList, Ty::NumList, Ty::ObjList], 10);
        let id = self.add(
            "Iteration",
            json!({"items_ref": s.re, "variable": {}, "outputs": {}}),
            scope,
        );
        if scope.in_loop.is_some() {
            self.feature("Iteration in Loop");
        }
        if scope.in_iteration {
            self.feature("Iteration in Iteration");
        }
        let elem = match s.ty {
            Ty::StrList => Ty::Str,
            Ty::NumList => Ty::Num,
            Ty::ObjList => Ty::Obj,
            _ => Ty::Any,
        };
        let mut inner = scope.clone();
        inner.parent = Some(id.clone());
        inner.in_iteration = true;
        // An ExitLoop belongs to a Loop's own body, not to an Iteration inside it.
        inner.in_loop = None;
        inner.depth += 1;
        let start = self.add(
            "IterationItem",
            json!({"outputs": {"item": {"type": "unknown"}, "index": {"type": "integer"}}}),
            &inner,
        );
        inner.sources.push(src(format!("{start}@item"), elem));
        inner.sources.push(src(format!("{start}@index"), Ty::Num));
        let first = self.merge(&mut inner);
        self.link(&start, &first);
        let collected = first.clone();
        let steps = self.rng.below(3);
        self.chain(vec![first], &mut inner, steps);
        let mut outputs = Map::new();
        outputs.insert(
            "lines".into(),
            json!({"ref": format!("{collected}@result"), "type": "Array<string>"}),
        );
        if let Some(p) = self.params_mut(&id) {
            p.insert("outputs".into(), Json::Object(outputs));
        }
        self.exception(&id, None);
        scope.sources.push(src(format!("{id}@lines"), Ty::StrList));
        id
    }

    /// A Loop with one to three variables and a termination condition; its body is
    /// LoopItem → an assigner → more steps, maybe a Switch to ExitLoop.
    fn looping(&mut self, scope: &mut Scope) -> String {
        self.has_loop = true;
        let mut vars = Vec::new();
        let mut var_json = Vec::new();
        let kinds = ["counter", "text", "items", "flag", "copy", "obj"];
        let n = 1 + self.rng.below(3);
        let mut used = BTreeSet::new();
        for _ in 0..n {
            let k = *self.rng.pick(&kinds);
            if !used.insert(k) {
                continue;
            }
            let (ty, ty_name, mode, value): (Ty, &str, &str, Json) = match k {
                "counter" => (Ty::Num, "number", "constant", json!(self.rng.range(0, 2))),
                "text" => (Ty::Str, "string", "constant", json!(self.word())),
                "items" => (Ty::StrList, "array<string>", "constant", json!([])),
                "flag" => (Ty::Bool, "boolean", "constant", json!(false)),
                "obj" => (Ty::Obj, "object", "constant", json!({"k": 1})),
                _ => {
                    let s = self.pick_src(scope, &[Ty::Str, Ty::StrList, Ty::Num], 10);
                    let tn = match s.ty {
                        Ty::Num => "number",
                        Ty::StrList => "array<string>",
                        _ => "string",
                    };
                    (s.ty, tn, "variable", json!(s.re))
                }
            };
            self.feature(format!("Loop var {ty_name} {mode}"));
            vars.push((k.to_string(), ty));
            var_json
                .push(json!({"variable": k, "input_mode": mode, "type": ty_name, "value": value}));
        }
        let max = self.rng.range(0, 3);
        let mut conds = Vec::new();
        for (v, ty) in vars.clone() {
            if !self.rng.chance(60) {
                continue;
            }
            let (op, value) = match ty {
                Ty::Num => (
                    *self.rng.pick(&["≥", ">", "=", "≤"]),
                    json!(self.rng.range(1, 3)),
                ),
                Ty::Str => (
                    *self.rng.pick(&["contains", "is", "not empty", "end with"]),
                    json!("a"),
                ),
                Ty::StrList => (
                    *self.rng.pick(&["not empty", "empty", "contains"]),
                    json!("alpha"),
                ),
                Ty::Bool => ("is", json!(true)),
                _ => (*self.rng.pick(&["empty", "not empty"]), json!("")),
            };
            conds.push(json!({"variable": "LOOP@".to_string() + &v, "operator": op, "input_mode": "constant", "value": value}));
        }
        let mut outputs = Map::new();
        for (v, t) in var_json.iter().zip(&vars) {
            outputs.insert(t.0.clone(), json!({"type": v["type"], "value": v["value"]}));
        }
        let logic = *self.rng.pick(&["and", "or"]);
        let id = self.add(
            "Loop",
            json!({"loop_variables": var_json, "loop_termination_condition": conds,
                   "logical_operator": logic, "maximum_loop_count": max, "outputs": outputs}),
            scope,
        );
        // Conditions name the Loop by its id.
        if let Some(p) = self.params_mut(&id) {
            if let Some(Json::Array(cs)) = p.get_mut("loop_termination_condition") {
                for c in cs {
                    if let Some(v) = c.get("variable").and_then(Json::as_str) {
                        let v = v.replace("LOOP", &id);
                        c["variable"] = json!(v);
                    }
                }
            }
        }
        self.feature(format!("Loop max {max}"));
        let mut inner = scope.clone();
        inner.parent = Some(id.clone());
        inner.depth += 1;
        inner.in_loop = Some(LoopCx {
            id: id.clone(),
            vars: vars.clone(),
        });
        for (v, t) in &vars {
            inner.sources.push(src(format!("{id}@{v}"), *t));
        }
        let start = self.add("LoopItem", json!({"outputs": {}}), &inner);
        let first = self.assigner(&mut inner);
        self.link(&start, &first);
        let steps = self.rng.below(3);
        self.chain(vec![first], &mut inner, steps);
        for (v, t) in &vars {
            scope.sources.push(src(format!("{id}@{v}"), *t));
        }
        id
    }

    /// Inside a Loop: a Switch whose first case exits the loop.
    fn exit_switch(&mut self, from: Vec<String>, scope: &mut Scope) -> Vec<String> {
        let id = self.add("Switch", json!({}), scope);
        for f in &from {
            self.link(f, &id);
        }
        let exit = self.add("ExitLoop", json!({}), scope);
        self.link(&id, &exit);
        let item = self.switch_item(scope);
        let logic = *self.rng.pick(&["and", "or"]);
        let cont = self.merge(scope);
        self.link(&id, &cont);
        if let Some(p) = self.params_mut(&id) {
            p.insert(
                "conditions".into(),
                json!([{"logical_operator": logic, "items": [item], "to": [exit]}]),
            );
            p.insert("end_cpn_ids".into(), json!([cont]));
        }
        vec![cont]
    }

    fn field_value(&mut self, ty: &str) -> Json {
        match ty {
            "integer" => {
                if self.rng.chance(80) {
                    json!(self.rng.range(-2, 20))
                } else {
                    json!(format!("{}", self.rng.range(0, 9)))
                }
            }
            "float" => json!(1.5),
            "boolean" => json!(self.rng.chance(50)),
            "options" => json!(*self.rng.pick(&["red", "green", "blue"])),
            "object" => json!({"value": "{\"name\": \"Zed\", \"qty\": 3}", "type": "object"}),
            _ => json!(self.word()),
        }
    }

    /// The answers to a form: each field given, or (sometimes) left out.
    fn answers(&mut self, fields: &[(String, &'static str, bool)]) -> Json {
        let mut m = Map::new();
        for (name, ty, optional) in fields.iter().cloned() {
            let skip = if optional {
                self.rng.chance(40)
            } else {
                self.rng.chance(15)
            };
            if skip {
                self.feature(format!(
                    "input missing {}",
                    if optional { "optional" } else { "required" }
                ));
                continue;
            }
            let v = self.field_value(ty);
            let v = if v.get("type").is_some() {
                v
            } else {
                json!({"value": v})
            };
            m.insert(name, v);
        }
        Json::Object(m)
    }

    fn query(&mut self) -> String {
        match self.rng.below(4) {
            0 => String::new(),
            1 => format!("{}, {}", self.word(), self.word()),
            _ => self.word(),
        }
    }

    fn turns(&mut self) -> Vec<Json> {
        let mut turns = Vec::new();
        let fields = self.begin_fields.clone();
        let inputs = self.answers(&fields);
        turns.push(json!({"query": self.query(), "inputs": inputs}));
        for (_, fields) in self.fillups.clone() {
            let inputs = self.answers(&fields);
            turns.push(json!({"query": "", "inputs": inputs}));
        }
        let more = if self.has_loop {
            self.feature("Loop multi-turn");
            1
        } else {
            self.rng.below(2)
        };
        for _ in 0..more {
            let inputs = self.answers(&fields);
            turns.push(json!({"query": self.query(), "inputs": inputs}));
        }
        if turns.len() > 1 {
            self.feature("multi-turn");
        }
        turns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_index_give_the_same_case() {
        for i in 0..20 {
            let a = generate(7, i);
            let b = generate(7, i);
            assert_eq!(a.canvas, b.canvas);
            assert_eq!(a.case, b.case);
        }
        assert_ne!(generate(7, 1).canvas, generate(7, 2).canvas);
    }
}
