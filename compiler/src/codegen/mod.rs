//! Code generation: a checked canvas lowered to a Rust module that plugs into the runtime's
//! scheduler.
//!
//! Per canvas the module holds a `Node` enum (one variant per component), typed `outputs`
//! handles (one struct per component, one field per declared output, typed from the
//! catalogue), and per node three small functions: `params_<node>()` (the written parameters,
//! merged with the catalogue's defaults at start-up), `meta_<node>()` (its static facts: id,
//! name, kind, edges, routes, exception handling) and `component_<node>()` (its typed
//! component with every reference bound to an output slot). Components are grouped by
//! implementation (the catalogue's `Kind::implementation`, the table the interpreter's `Spec`
//! is expanded from; `Components`: one `Vec` per component type; `SLOTS` says where each node
//! sits), so the `Program`'s dispatch is one `match` per implementation, not per node, and the
//! module grows linearly with the canvas. The same checked IR drives the interpreter; nothing
//! here decides behaviour.
//!
//! Output is deterministic: the same DSL always gives the same tokens.

mod lit;
mod names;

use canvasc_frontend::binding::{self, Bound};
use canvasc_frontend::catalog::{BuiltFrom, Implementation, Kind, Ty};
use canvasc_frontend::fingerprint::fingerprint;
use canvasc_frontend::meta::{CanvasMeta, NodeMeta, Target};
use canvasc_frontend::{Analysis, NodeId, Severity};
use names::{pascal, screaming, snake, Unique};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

/// Names chosen for one node.
struct NodeNames {
    /// `Node` variant and `outputs` struct.
    variant: Ident,
    /// Field of `Components`.
    field: Ident,
    /// `outputs` constant.
    constant: Ident,
    /// Field per declared output.
    outputs: Vec<Ident>,
}

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

fn names_of(meta: &CanvasMeta) -> Vec<NodeNames> {
    let mut variants = Unique::default();
    let mut fields = Unique::default();
    meta.nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let fallback = format!("Node{i}");
            let variant = variants.take(pascal(&n.id, &fallback));
            let field = fields.take(snake(&n.id, &format!("node_{i}")));
            let mut outs = Unique::default();
            let outputs = n
                .outputs
                .iter()
                .enumerate()
                .map(|(j, o)| ident(&outs.take(snake(o, &format!("output_{j}")))))
                .collect();
            NodeNames {
                constant: ident(&screaming(&variant, &fallback)),
                variant: ident(&variant),
                field: ident(&field),
                outputs,
            }
        })
        .collect()
}

/// The items of the module for one canvas. `source` names the DSL file in the header.
pub fn canvas_module(source: &str, analysis: &Analysis) -> TokenStream {
    let ir = &analysis.ir;
    let meta = CanvasMeta::from_ir(ir, &analysis.document);
    let names = names_of(&meta);
    let fp = fingerprint(&analysis.document);
    let dsl = serde_json::to_string(&analysis.document.dsl).unwrap_or_default();
    let count = Literal::usize_unsuffixed(meta.nodes.len());
    let errors = Literal::usize_unsuffixed(
        analysis
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count(),
    );

    let variants = names.iter().zip(&meta.nodes).map(|(nm, n)| {
        let v = &nm.variant;
        let doc = node_doc(n);
        quote!(#[doc = #doc] #v)
    });
    let all = names.iter().map(|nm| {
        let v = &nm.variant;
        quote!(Node::#v)
    });
    let output_structs = names
        .iter()
        .zip(&meta.nodes)
        .enumerate()
        .map(|(i, (nm, n))| output_struct(i, nm, n, ir));

    // Components are grouped by implementation; SLOTS says where each node's sits.
    let mut groups: Vec<(Implementation, Vec<usize>)> = Vec::new();
    let mut slots = Vec::with_capacity(meta.nodes.len());
    for (i, n) in meta.nodes.iter().enumerate() {
        let g = n.kind.implementation();
        let at = match groups.iter().position(|(x, _)| *x == g) {
            Some(at) => at,
            None => {
                groups.push((g, Vec::new()));
                groups.len() - 1
            }
        };
        let index = Literal::usize_unsuffixed(groups[at].1.len());
        groups[at].1.push(i);
        let variant = ident(&impl_variant(groups[at].0));
        slots.push(quote!((Impl::#variant, #index)));
    }
    let impl_variants = groups.iter().map(|(g, _)| ident(&impl_variant(*g)));
    let group_fields = groups.iter().map(|(g, members)| {
        let f = ident(&impl_field(*g));
        let ty = impl_type(*g);
        let doc = format!(
            " {}",
            members
                .iter()
                .map(|&i| format!("`{}`", meta.nodes[i].id))
                .collect::<Vec<_>>()
                .join(", ")
        );
        quote!(#[doc = #doc] pub #f: Vec<#ty>,)
    });
    let group_inits = groups.iter().map(|(g, members)| {
        let f = ident(&impl_field(*g));
        let ctors = members
            .iter()
            .map(|&i| format_ident!("component_{}", names[i].field));
        quote!(#f: Vec::from([#(#ctors()),*]),)
    });
    let per_node =
        (0..meta.nodes.len()).map(|i| node_items(NodeId(i as u32), &meta, &names, analysis));
    let meta_calls = names.iter().map(|nm| format_ident!("meta_{}", nm.field));
    // A canvas RAGFlow cannot build raises on every turn; only such a canvas says so (the
    // checker reports it as an error, so `canvas!` and `canvasc build` refuse it unless asked).
    let construction = meta.construction_error.as_ref().map(|e| {
        let (class, message, component, name, pointer) = (
            e.class,
            &e.message,
            &e.component,
            &e.component_name,
            &e.pointer,
        );
        quote! {
            .with_construction_error(Some(::canvasc_runtime::frontend::construct::ConstructionError {
                class: #class,
                message: #message.to_string(),
                component: #component.to_string(),
                component_name: #name.to_string(),
                pointer: #pointer.to_string(),
            }))
        }
    });

    let dispatch = |call: TokenStream, awaited: bool| {
        let arms = groups.iter().map(|(g, _)| {
            let v = ident(&impl_variant(*g));
            let f = ident(&impl_field(*g));
            if awaited {
                quote!(Impl::#v => c.#f[i].#call.await,)
            } else {
                quote!(Impl::#v => c.#f[i].#call,)
            }
        });
        quote! {
            let c = &self.components;
            let (implementation, i) = SLOTS[cx.node.index()];
            match implementation {
                #(#arms)*
            }
        }
    };
    let body = dispatch(quote!(body(cx)), true);
    let body_now = dispatch(quote!(body_now(cx, s)), false);
    let thoughts = dispatch(quote!(thoughts(cx)), false);
    let dependencies = dispatch(quote!(dependencies(cx)), false);
    let get_input = dispatch(quote!(get_input(cx)), false);
    let input_keys = dispatch(quote!(input_keys(cx)), false);
    let item_ended = dispatch(quote!(item_ended(cx)), false);
    let header = [
        format!(
            " Canvas compiled from `{source}` by canvasc {}.",
            env!("CARGO_PKG_VERSION")
        ),
        String::new(),
        format!(" DSL fingerprint `{fp}`."),
        " @generated: do not edit; rebuild with `canvasc build`.".to_string(),
    ];

    quote! {
        #(#![doc = #header])*
        #![allow(clippy::all, unused_imports, unused_variables, dead_code)]

        use ::canvasc_runtime::frontend::binding::{ty, Bound, Out};
        use ::canvasc_runtime::exec::components::{self as c, Component};
        use ::canvasc_runtime::exec::state::InputKeys;
        use ::canvasc_runtime::exec::{NodeCx, Program, RunError, RunState};
        use ::canvasc_runtime::frontend::catalog::defaults::merged_params;
        use ::canvasc_runtime::frontend::catalog::Kind;
        use ::canvasc_runtime::frontend::NodeId;
        use ::canvasc_runtime::meta::{CanvasMeta, ExceptionMeta, NodeMeta, Target};
        use ::canvasc_runtime::value::lit::{arr, b, f, i, map, obj, s, u, NULL};
        use ::canvasc_runtime::value::{Json, Map};
        use ::std::borrow::Cow;
        use ::std::sync::Arc;

        /// The DSL file this program was compiled from.
        pub const SOURCE: &str = #source;
        /// The canvas's fingerprint ([`::canvasc_runtime::frontend::fingerprint`]): sessions
        /// of this canvas run this program.
        pub const FINGERPRINT: &str = #fp;
        /// Checker errors the canvas had when it was compiled (a draft build): a run warns
        /// about them without checking the DSL again.
        pub const CHECKER_ERRORS: usize = #errors;
        /// The DSL's top-level keys other than components, which a new session starts from.
        pub const DSL: &str = #dsl;

        /// The canvas's components, in document order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Node {
            #(#variants,)*
        }

        impl Node {
            pub const ALL: [Node; #count] = [#(#all),*];

            pub const fn id(self) -> NodeId {
                NodeId(self as u32)
            }

            /// The node a scheduler id stands for (ids come from this program's `meta()`).
            pub fn of(id: NodeId) -> Node {
                Self::ALL[id.index()]
            }
        }

        /// Every component's declared outputs, typed from the catalogue. References in the
        /// parameters are bound to these fields.
        pub mod outputs {
            use super::*;
            #(#output_structs)*
        }

        /// The component implementations this canvas uses.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        enum Impl {
            #(#impl_variants,)*
        }

        /// Per node (in `Node` order): its implementation and its index in [`Components`].
        const SLOTS: [(Impl, usize); #count] = [#(#slots),*];

        /// Every component with its typed parameters and its references bound, grouped by
        /// implementation.
        pub struct Components {
            #(#group_fields)*
        }

        impl Components {
            pub fn new() -> Self {
                Components {
                    #(#group_inits)*
                }
            }
        }

        /// The static facts the scheduler reads: names, kinds, edges, routes, exception
        /// handling, parameters and declared outputs.
        pub fn meta() -> CanvasMeta {
            CanvasMeta::new(Vec::from([#(#meta_calls()),*]))#construction
        }

        #(#per_node)*

        /// The compiled canvas.
        pub struct Canvas {
            meta: Arc<CanvasMeta>,
            components: Components,
        }

        impl Canvas {
            pub fn new() -> Self {
                Canvas {
                    meta: Arc::new(meta()),
                    components: Components::new(),
                }
            }

            /// The DSL a new session starts from.
            pub fn dsl() -> Map<String, Json> {
                ::canvasc_runtime::serde_json::from_str(DSL).unwrap_or_default()
            }
        }

        impl Default for Canvas {
            fn default() -> Self {
                Canvas::new()
            }
        }

        impl Program for Canvas {
            fn meta(&self) -> &Arc<CanvasMeta> {
                &self.meta
            }

            async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
                #body
            }

            fn body_now(&self, cx: &NodeCx<'_>, s: &mut RunState) -> Option<Result<(), RunError>> {
                #body_now
            }

            fn thoughts<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
                #thoughts
            }

            fn dependencies<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, [Target]>, RunError> {
                #dependencies
            }

            fn get_input(&self, cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError> {
                #get_input
            }

            fn input_keys<'a>(&'a self, cx: &NodeCx<'_>) -> InputKeys<'a> {
                #input_keys
            }

            fn item_ended(&self, cx: &NodeCx<'_>) -> Result<bool, RunError> {
                #item_ended
            }
        }
    }
}

/// `` `id` “display name” (Component)``.
fn node_doc(n: &NodeMeta) -> String {
    format!(
        " `{}`{} ({})",
        n.id,
        if n.display_name.is_empty() {
            String::new()
        } else {
            format!(" “{}”", n.display_name)
        },
        n.component_name
    )
}

/// A node's functions: its parameters (as written; the catalogue's defaults are merged in when
/// the program starts), its static facts, and its component with every reference bound.
fn node_items(
    node: NodeId,
    meta: &CanvasMeta,
    names: &[NodeNames],
    analysis: &Analysis,
) -> TokenStream {
    let n = meta.node(node);
    let nm = &names[node.index()];
    let params_fn = format_ident!("params_{}", nm.field);
    let meta_fn = format_ident!("meta_{}", nm.field);
    let component_fn = format_ident!("component_{}", nm.field);
    let kind = kind_path(n.kind);
    let written = analysis
        .document
        .component(&n.id)
        .map(|c| lit::map(&c.params))
        .unwrap_or_else(|| quote!(Map::new()));
    let doc = node_doc(n);
    let node_meta = node_meta(n, &params_fn, names);
    let ty = impl_type(n.kind.implementation());
    let init = component_init(node, n, names, analysis);
    quote! {
        #[doc = #doc]
        fn #params_fn() -> Map<String, Json> {
            merged_params(#kind, &#written)
        }

        #[doc = #doc]
        fn #meta_fn() -> NodeMeta {
            #node_meta
        }

        #[doc = #doc]
        fn #component_fn() -> #ty {
            #init
        }
    }
}

/// `outputs::<Variant>` and its constant.
fn output_struct(i: usize, nm: &NodeNames, n: &NodeMeta, ir: &canvasc_frontend::Ir) -> TokenStream {
    let v = &nm.variant;
    let k = &nm.constant;
    let node = i as u32;
    let node_ir = &ir.nodes[i];
    let fields = nm.outputs.iter().zip(n.outputs.iter()).map(|(f, o)| {
        let ty = node_ir
            .output(o)
            .map(|out| out_type(&out.ty))
            .unwrap_or_else(|| quote!(ty::Any));
        let doc = format!(" `{o}`");
        quote!(#[doc = #doc] pub #f: Out<#ty>,)
    });
    let node = Literal::u32_unsuffixed(node);
    let inits = nm.outputs.iter().enumerate().map(|(slot, f)| {
        let slot = Literal::usize_unsuffixed(slot);
        quote!(#f: Out::new(#node, #slot),)
    });
    let doc = format!(" Outputs of `{}` ({}).", n.id, n.component_name);
    quote! {
        #[doc = #doc]
        pub struct #v {
            #(#fields)*
        }

        #[doc = #doc]
        pub const #k: #v = #v {
            #(#inits)*
        };
    }
}

fn out_type(t: &Ty) -> TokenStream {
    match t {
        Ty::Any => quote!(ty::Any),
        Ty::String => quote!(ty::Text),
        Ty::Number => quote!(ty::Number),
        Ty::Boolean => quote!(ty::Boolean),
        Ty::Object => quote!(ty::Object),
        Ty::File => quote!(ty::File),
        Ty::Array(e) => {
            let e = out_type(e);
            quote!(ty::List<#e>)
        }
    }
}

fn kind_path(kind: Kind) -> TokenStream {
    let k = ident(&format!("{kind:?}"));
    quote!(Kind::#k)
}

fn node_ref(names: &[NodeNames], n: NodeId) -> TokenStream {
    let v = &names[n.index()].variant;
    quote!(Node::#v.id())
}

fn target(names: &[NodeNames], t: &Target) -> TokenStream {
    match t {
        Target::Node(n) => {
            let n = node_ref(names, *n);
            quote!(Target::Node(#n))
        }
        Target::Missing(id) => quote!(Target::Missing(#id.to_string())),
    }
}

fn node_meta(n: &NodeMeta, params_fn: &Ident, names: &[NodeNames]) -> TokenStream {
    let id = &n.id;
    let display = &n.display_name;
    let component = &n.component_name;
    let kind = kind_path(n.kind);
    let downstream = n.downstream.iter().map(|t| target(names, t));
    let upstream = n.upstream.iter();
    let opt = |x: Option<NodeId>| match x {
        Some(p) => {
            let p = node_ref(names, p);
            quote!(Some(#p))
        }
        None => quote!(None),
    };
    let parent = opt(n.parent);
    let start = opt(n.start);
    let method = match &n.exception.method {
        Some(m) => quote!(Some(#m.to_string())),
        None => quote!(None),
    };
    let goto = n.exception.goto.iter().map(|t| target(names, t));
    let default_value = lit::json(&n.exception.default_value);
    let entry_extra = lit::map(&n.entry_extra);
    let outputs = n.outputs.iter();
    quote! {
        NodeMeta {
            id: #id.to_string(),
            display_name: #display.to_string(),
            component_name: #component.to_string(),
            kind: #kind,
            downstream: Vec::from([#(#downstream),*]),
            upstream: Vec::from([#(#upstream.to_string()),*]),
            parent: #parent,
            start: #start,
            exception: ExceptionMeta {
                method: #method,
                goto: Vec::from([#(#goto),*]),
                default_value: #default_value,
            },
            params: #params_fn(),
            entry_extra: #entry_extra,
            outputs: Arc::from([#(#outputs),*].map(String::from)),
        }
    }
}

/// An implementation's words, after its type (`iteration::ItemSpec` → `iteration Item`), from
/// which its `Impl` variant and `Components` field are named.
fn impl_words(imp: Implementation) -> String {
    format!("{} {}", imp.module, imp.ty.trim_end_matches("Spec"))
}

/// The `Impl` variant: `IterationItem`.
fn impl_variant(imp: Implementation) -> String {
    pascal(&impl_words(imp), "Component")
}

/// The `Components` field: `iteration_item`.
fn impl_field(imp: Implementation) -> String {
    snake(&impl_words(imp), "component")
}

/// The component type: `c::iteration::ItemSpec`.
fn impl_type(imp: Implementation) -> TokenStream {
    let module = ident(imp.module);
    let ty = ident(imp.ty);
    quote!(c::#module::#ty)
}

fn component_init(
    node: NodeId,
    n: &NodeMeta,
    names: &[NodeNames],
    analysis: &Analysis,
) -> TokenStream {
    let params_fn = format_ident!("params_{}", names[node.index()].field);
    let implementation = n.kind.implementation();
    let ty = impl_type(implementation);
    let built = match implementation.built_from {
        BuiltFrom::Params => quote!(#ty::from_params(&#params_fn())),
        BuiltFrom::ParentParams => match n.parent {
            Some(p) => {
                let parent = format_ident!("params_{}", names[p.index()].field);
                quote!(#ty::from_params(&#parent()))
            }
            None => quote!(#ty::from_params(&Map::new())),
        },
        BuiltFrom::Nothing => return ty,
        BuiltFrom::Kind => {
            let k = kind_path(n.kind);
            return quote!(#ty(#k));
        }
    };
    let table = binding::table(&analysis.ir, node);
    if table.is_empty() {
        return built;
    }
    let entries = table.iter().map(|(exp, b)| {
        let b = bound(b, names);
        quote!((#exp, #b))
    });
    quote!(#built.bound(&[#(#entries),*]))
}

/// A binding as a typed field read: `outputs::BEGIN.city.bound()`.
fn bound(b: &Bound, names: &[NodeNames]) -> TokenStream {
    match b {
        Bound::Output { node, slot, path } => {
            let nm = &names[node.index()];
            let k = &nm.constant;
            let field = &nm.outputs[*slot as usize];
            if path.is_empty() {
                quote!(outputs::#k.#field.bound())
            } else {
                quote!(outputs::#k.#field.at(&[#(#path),*]))
            }
        }
        Bound::Global(g) => {
            let name = &g.name;
            quote!(Bound::global(#name))
        }
    }
}

/// Format generated tokens as a Rust file (prettyplease), or fail with the parse error.
pub fn format(tokens: TokenStream) -> Result<String, syn::Error> {
    let file: syn::File = syn::parse2(tokens)?;
    Ok(prettyplease::unparse(&file))
}

/// The module name for a canvas file: its stem in snake case.
pub fn module_name(source: &str, taken: &mut Unique) -> String {
    for reserved in RESERVED_MODULES {
        taken.reserve(reserved);
    }
    let stem = std::path::Path::new(source)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("canvas");
    taken.take(snake(stem, "canvas"))
}

pub use names::Unique as UniqueNames;

/// A Cargo package name from a directory name. A Rust keyword (`crate`) is a valid package and
/// binary name, so it stays as it is; only the library needs another name ([`lib_name`]).
pub fn package_name(dir: &str) -> String {
    let name = snake(dir, "canvases");
    let name = match name.strip_suffix('_') {
        Some(keyword) if lib_name(keyword) == name => keyword,
        _ => &name,
    };
    name.replace('_', "-")
}

/// The Rust name of a package's library: its name in snake case, a keyword suffixed by `_`.
pub fn lib_name(package: &str) -> String {
    snake(package, "canvases")
}

/// Module names a crate reserves for itself (canvas modules never take them).
pub const RESERVED_MODULES: &[&str] = &["lib", "main", "registry"];

/// `src/lib.rs` of a built crate: the canvas modules and the registry. Generated modules are
/// `rustfmt::skip`ped: they keep prettyplease's formatting, so regenerating is byte-stable.
pub fn crate_lib<'a>(modules: impl Iterator<Item = &'a str>) -> TokenStream {
    let modules = modules.map(ident);
    quote! {
        //! Canvases compiled by `canvasc build`. @generated: do not edit.

        #(#[rustfmt::skip] pub mod #modules;)*
        #[rustfmt::skip]
        mod registry;

        pub use registry::{visit, CANVASES};
    }
}

/// `src/registry.rs`: every canvas by fingerprint, and `visit`, which hands the program
/// compiled for a fingerprint to a visitor.
pub fn crate_registry<'a>(modules: impl Iterator<Item = &'a str>) -> TokenStream {
    let modules: Vec<Ident> = modules.map(ident).collect();
    let statics: Vec<Ident> = modules
        .iter()
        .map(|m| ident(&screaming(&m.to_string(), "CANVAS")))
        .collect();
    quote! {
        //! The compiled canvases by fingerprint. @generated: do not edit.

        use super::*;
        use ::canvasc_runtime::exec::ProgramVisitor;
        use ::std::sync::{Arc, LazyLock};

        /// Every compiled canvas: the DSL file it came from, its fingerprint and its checker
        /// errors (a draft build).
        pub const CANVASES: &[(&str, &str, usize)] = &[#((#modules::SOURCE, #modules::FINGERPRINT, #modules::CHECKER_ERRORS)),*];

        #(static #statics: LazyLock<Arc<#modules::Canvas>> = LazyLock::new(|| Arc::new(#modules::Canvas::new()));)*

        /// Hand the program compiled for `fingerprint` to `visitor`; `None` when no canvas here
        /// has that fingerprint.
        pub fn visit<V: ProgramVisitor>(fingerprint: &str, visitor: V) -> Option<V::Output> {
            match fingerprint {
                #(#modules::FINGERPRINT => Some(visitor.visit(Arc::clone(&#statics))),)*
                _ => None,
            }
        }
    }
}

/// `src/main.rs` of a built crate: `run FILE`, compiled when the file's fingerprint is here.
pub fn crate_main(lib: &str) -> TokenStream {
    let lib = ident(lib);
    quote! {
        //! `run FILE [flags]`: like `canvasc run`, with the compiled program when FILE's canvas
        //! was compiled into this binary; `serve`: RAGFlow's agent HTTP API, running released
        //! versions compiled when their fingerprint is here. @generated: do not edit.

        #[global_allocator]
        static ALLOCATOR: ::canvasc_host::Allocator = ::canvasc_host::Allocator;

        fn main() -> ::std::process::ExitCode {
            use ::canvasc_host::cli::compiled;
            compiled::main(#lib::CANVASES, #lib::visit, #lib::visit)
        }
    }
}
