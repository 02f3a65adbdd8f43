//! Every component and tool kind the engine knows, and how DSL names map onto them.

use std::fmt;

/// The table of kinds, handed to `$then!`, which expands it: here into [`Kind`], in
/// `exec::components` into the interpreter's `Spec` and its dispatch. A row is the kind's Rust
/// name, RAGFlow's canonical `component_name`, the package RAGFlow files it under, and the type
/// in `exec::components` that implements it, with what that type is built from: nothing (a
/// unit struct), `(params)` (`from_params` of the node's parameters), `(parent)` (of its
/// parent's, for Iteration and Loop items) or `(kind)`: `external::Spec`, for kinds implemented
/// outside the engine (`exec::external`: the host registers them, e.g. the `canvasc-tools`
/// crate's tools), or `unsupported::Spec`, for kinds canvasc cannot run yet (running one fails
/// with an error naming it).
///
/// A new kind is a row here plus its file under `exec/components/`: both back-ends read this
/// table, so they cannot disagree about which type implements a kind. The table is a macro, not
/// a `const`, because the interpreter needs the implementations as Rust paths, which mean
/// something only in the engine crate; the front-end itself names no engine item. Exported
/// for the engine only (hidden from the front-end's documented API).
#[macro_export]
#[doc(hidden)]
macro_rules! catalogue {
    ($then:ident) => {
        $then! {
            Begin => "Begin", Component, begin::Spec;
            UserFillUp => "UserFillUp", Component, userfillup::Spec(params);
            Message => "Message", Component, message::Spec(params);
            Llm => "LLM", Component, llm::Spec(params);
            Categorize => "Categorize", Component, categorize::Spec(params);
            Switch => "Switch", Component, switch::Spec(params);
            Agent => "Agent", Component, agent::Spec(params);
            Iteration => "Iteration", Component, iteration::Spec(params);
            IterationItem => "IterationItem", Component, iteration::ItemSpec(parent);
            Loop => "Loop", Component, loop_::Spec(params);
            LoopItem => "LoopItem", Component, loop_::ItemSpec(parent);
            ExitLoop => "ExitLoop", Component, loop_::ExitSpec;
            Invoke => "Invoke", Component, invoke::Spec(params);
            Browser => "Browser", Component, external::Spec(kind);
            DataOperations => "DataOperations", Component, data_operations::Spec(params);
            ListOperations => "ListOperations", Component, list_operations::Spec(params);
            StringTransform => "StringTransform", Component, string_transform::Spec(params);
            VariableAggregator => "VariableAggregator", Component, variable_aggregator::Spec(params);
            VariableAssigner => "VariableAssigner", Component, variable_assigner::Spec(params);
            DocGenerator => "DocGenerator", Component, external::Spec(kind);
            ExcelProcessor => "ExcelProcessor", Component, external::Spec(kind);
            /// The v1 interactive wait (removed from RAGFlow in Aug 2025), kept for old DSLs.
            Answer => "Answer", Component, unsupported::Spec(kind);
            AkShare => "AkShare", Tool, external::Spec(kind);
            ArXiv => "ArXiv", Tool, external::Spec(kind);
            Bgpt => "BGPT", Tool, external::Spec(kind);
            CodeExec => "CodeExec", Tool, external::Spec(kind);
            Crawler => "Crawler", Tool, external::Spec(kind);
            DeepL => "DeepL", Tool, external::Spec(kind);
            DuckDuckGo => "DuckDuckGo", Tool, external::Spec(kind);
            Email => "Email", Tool, external::Spec(kind);
            ExeSql => "ExeSQL", Tool, external::Spec(kind);
            GitHub => "GitHub", Tool, external::Spec(kind);
            Google => "Google", Tool, external::Spec(kind);
            GoogleScholar => "GoogleScholar", Tool, external::Spec(kind);
            Jin10 => "Jin10", Tool, external::Spec(kind);
            KeenableSearch => "KeenableSearch", Tool, external::Spec(kind);
            PubMed => "PubMed", Tool, external::Spec(kind);
            QueritSearch => "QueritSearch", Tool, external::Spec(kind);
            QueritContents => "QueritContents", Tool, external::Spec(kind);
            QWeather => "QWeather", Tool, external::Spec(kind);
            Retrieval => "Retrieval", Tool, external::Spec(kind);
            SearXng => "SearXNG", Tool, external::Spec(kind);
            TavilySearch => "TavilySearch", Tool, external::Spec(kind);
            TavilyExtract => "TavilyExtract", Tool, external::Spec(kind);
            TuShare => "TuShare", Tool, external::Spec(kind);
            WenCai => "WenCai", Tool, external::Spec(kind);
            Wikipedia => "Wikipedia", Tool, external::Spec(kind);
            YahooFinance => "YahooFinance", Tool, external::Spec(kind);
        }
    };
}

/// Expands the [`catalogue!`] into [`Kind`] and the facts the front-end and the code generator
/// read from it.
macro_rules! kinds {
    (@built_from) => { BuiltFrom::Nothing };
    (@built_from params) => { BuiltFrom::Params };
    (@built_from parent) => { BuiltFrom::ParentParams };
    (@built_from kind) => { BuiltFrom::Kind };
    ($(
        $(#[$meta:meta])*
        $variant:ident => $name:literal, $class:ident, $module:ident::$ty:ident $(($from:ident))?;
    )*) => {
        /// A component implementation, identified by RAGFlow's canonical `component_name`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Kind { $($(#[$meta])* $variant,)* }

        impl Kind {
            /// Every kind, in catalogue order.
            pub const ALL: &'static [Kind] = &[$(Kind::$variant,)*];

            /// The canonical `component_name` RAGFlow registers for this kind.
            pub const fn name(self) -> &'static str {
                match self { $(Kind::$variant => $name,)* }
            }

            pub const fn class(self) -> KindClass {
                match self { $(Kind::$variant => KindClass::$class,)* }
            }

            /// The runtime type that implements this kind.
            pub const fn implementation(self) -> Implementation {
                match self {
                    $(Kind::$variant => Implementation {
                        module: stringify!($module),
                        ty: stringify!($ty),
                        built_from: kinds!(@built_from $($from)?),
                    },)*
                }
            }
        }
    };
}

catalogue!(kinds);

/// A type in `exec::components` that implements a kind, named as the code generator writes it
/// (`c::<module>::<ty>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Implementation {
    pub module: &'static str,
    pub ty: &'static str,
    pub built_from: BuiltFrom,
}

/// What a component's typed parameters are built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltFrom {
    /// Nothing: the type is a unit struct.
    Nothing,
    /// `from_params` of the node's parameters.
    Params,
    /// `from_params` of the parent's parameters: Iteration and Loop items read their parent's.
    ParentParams,
    /// The kind itself: `external::Spec(kind)` (an implementation the host registers) or
    /// `unsupported::Spec(kind)`, which fails when it runs.
    Kind,
}

/// Whether a kind lives in RAGFlow's component package or its tools package.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KindClass {
    Component,
    Tool,
}

impl Kind {
    pub fn is_tool(self) -> bool {
        self.class() == KindClass::Tool
    }

    /// Components that Python runs with the ToolBase invoke wrapper (tools and Agent).
    pub fn uses_tool_wrapper(self) -> bool {
        self.is_tool() || self == Kind::Agent
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a `component_name` written in a DSL was understood.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameResolution {
    /// The exact canonical name.
    Canonical(Kind),
    /// A spelling RAGFlow's Go port or older editors use for the same implementation
    /// (`search_my_dateset`, `execute_sql`, a different letter case, …).
    Alias(Kind),
    /// A name RAGFlow's Python engine can no longer load, accepted with the semantics
    /// `components.md` §23 recommends; the checker reports it as `legacy-kind`.
    Legacy(Kind, &'static str),
    /// A name RAGFlow migrates on load (`PDFGenerator` → `DocGenerator`).
    Migrated(Kind),
    /// A name that once existed but has no implementation any more (`Bing`).
    Removed(&'static str),
    /// Not a component or tool at all.
    Unknown,
}

impl NameResolution {
    pub fn kind(self) -> Option<Kind> {
        match self {
            NameResolution::Canonical(k)
            | NameResolution::Alias(k)
            | NameResolution::Legacy(k, _)
            | NameResolution::Migrated(k) => Some(k),
            NameResolution::Removed(_) | NameResolution::Unknown => None,
        }
    }
}

/// Aliases from RAGFlow's Go registry and tool names (`internal/agent/tool/registry.go`),
/// compared after lower-casing.
const ALIASES: &[(&str, Kind)] = &[
    ("search_my_dateset", Kind::Retrieval),
    ("search_my_dataset", Kind::Retrieval),
    ("searchmydataset", Kind::Retrieval),
    ("execute_sql", Kind::ExeSql),
    ("code_exec", Kind::CodeExec),
    ("google_scholar", Kind::GoogleScholar),
    ("google_scholar_search", Kind::GoogleScholar),
    ("keenable", Kind::KeenableSearch),
    ("querit", Kind::QueritSearch),
    ("querit_search", Kind::QueritSearch),
    ("querit_contents", Kind::QueritContents),
    ("tavily", Kind::TavilySearch),
    ("tavily_search", Kind::TavilySearch),
    ("tavily_extract", Kind::TavilyExtract),
    ("web_crawler", Kind::Crawler),
    ("wikipedia_search", Kind::Wikipedia),
    ("yahoo_finance", Kind::YahooFinance),
    ("arxiv_search", Kind::ArXiv),
    ("duckduckgo_search", Kind::DuckDuckGo),
    ("github_search", Kind::GitHub),
    ("google_search", Kind::Google),
    ("pubmed_search", Kind::PubMed),
    ("searxng_search", Kind::SearXng),
    ("deepl_translate", Kind::DeepL),
    ("akshare_stock_news", Kind::AkShare),
];

/// Names RAGFlow's Python engine cannot load any more, with the replacement the checker suggests.
const LEGACY: &[(&str, Kind, &str)] = &[
    ("Generate", Kind::Llm, "LLM"),
    (
        "Answer",
        Kind::Answer,
        "UserFillUp (to wait for the user) or Message (to reply)",
    ),
    ("Fillup", Kind::UserFillUp, "UserFillUp"),
    ("DocsGenerator", Kind::DocGenerator, "DocGenerator"),
];

/// Names with no implementation behind them any more.
const REMOVED: &[(&str, &str)] = &[(
    "Bing",
    "the Bing search API was retired and RAGFlow has no Bing tool; use TavilySearch, Google or DuckDuckGo",
)];

/// Resolve a `component_name` as written in a DSL.
pub fn resolve_name(name: &str) -> NameResolution {
    if let Some(&(_, kind, hint)) = LEGACY.iter().find(|(n, _, _)| *n == name) {
        return NameResolution::Legacy(kind, hint);
    }
    if let Some(kind) = Kind::ALL.iter().copied().find(|k| k.name() == name) {
        return NameResolution::Canonical(kind);
    }
    if name == "PDFGenerator" {
        return NameResolution::Migrated(Kind::DocGenerator);
    }
    if let Some(&(_, why)) = REMOVED.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
        return NameResolution::Removed(why);
    }
    let lower = name.to_ascii_lowercase();
    if let Some(kind) = Kind::ALL
        .iter()
        .copied()
        .find(|k| *k != Kind::Answer && k.name().eq_ignore_ascii_case(name))
    {
        return NameResolution::Alias(kind);
    }
    if let Some(&(_, kind)) = ALIASES.iter().find(|(a, _)| *a == lower) {
        return NameResolution::Alias(kind);
    }
    if let Some(&(_, kind, hint)) = LEGACY.iter().find(|(n, _, _)| n.eq_ignore_ascii_case(name)) {
        return NameResolution::Legacy(kind, hint);
    }
    NameResolution::Unknown
}

/// Every name a user could have meant, for "did you mean" help.
pub fn known_names() -> impl Iterator<Item = &'static str> {
    Kind::ALL
        .iter()
        .filter(|k| **k != Kind::Answer)
        .map(|k| k.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_canonical_alias_legacy_and_removed_names() {
        assert_eq!(resolve_name("LLM"), NameResolution::Canonical(Kind::Llm));
        assert_eq!(resolve_name("llm"), NameResolution::Alias(Kind::Llm));
        assert_eq!(
            resolve_name("search_my_dateset"),
            NameResolution::Alias(Kind::Retrieval)
        );
        assert_eq!(
            resolve_name("SearchMyDataset"),
            NameResolution::Alias(Kind::Retrieval)
        );
        assert_eq!(
            resolve_name("execute_sql"),
            NameResolution::Alias(Kind::ExeSql)
        );
        assert!(matches!(
            resolve_name("Generate"),
            NameResolution::Legacy(Kind::Llm, _)
        ));
        assert_eq!(
            resolve_name("PDFGenerator"),
            NameResolution::Migrated(Kind::DocGenerator)
        );
        assert!(matches!(resolve_name("Bing"), NameResolution::Removed(_)));
        assert!(matches!(
            resolve_name("Answer"),
            NameResolution::Legacy(Kind::Answer, _)
        ));
        assert_eq!(resolve_name("Nonsense"), NameResolution::Unknown);
    }
}
