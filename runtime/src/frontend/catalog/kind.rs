//! Every component and tool kind the engine knows, and how DSL names map onto them.

use std::fmt;

macro_rules! kinds {
    ($($(#[$meta:meta])* $variant:ident => $name:literal, $class:ident;)*) => {
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
        }
    };
}

kinds! {
    Begin => "Begin", Component;
    UserFillUp => "UserFillUp", Component;
    Message => "Message", Component;
    Llm => "LLM", Component;
    Categorize => "Categorize", Component;
    Switch => "Switch", Component;
    Agent => "Agent", Component;
    Iteration => "Iteration", Component;
    IterationItem => "IterationItem", Component;
    Loop => "Loop", Component;
    LoopItem => "LoopItem", Component;
    ExitLoop => "ExitLoop", Component;
    Invoke => "Invoke", Component;
    Browser => "Browser", Component;
    DataOperations => "DataOperations", Component;
    ListOperations => "ListOperations", Component;
    StringTransform => "StringTransform", Component;
    VariableAggregator => "VariableAggregator", Component;
    VariableAssigner => "VariableAssigner", Component;
    DocGenerator => "DocGenerator", Component;
    ExcelProcessor => "ExcelProcessor", Component;
    /// The v1 interactive wait (removed from RAGFlow in Aug 2025), kept for old DSLs.
    Answer => "Answer", Component;
    AkShare => "AkShare", Tool;
    ArXiv => "ArXiv", Tool;
    Bgpt => "BGPT", Tool;
    CodeExec => "CodeExec", Tool;
    Crawler => "Crawler", Tool;
    DeepL => "DeepL", Tool;
    DuckDuckGo => "DuckDuckGo", Tool;
    Email => "Email", Tool;
    ExeSql => "ExeSQL", Tool;
    GitHub => "GitHub", Tool;
    Google => "Google", Tool;
    GoogleScholar => "GoogleScholar", Tool;
    Jin10 => "Jin10", Tool;
    KeenableSearch => "KeenableSearch", Tool;
    PubMed => "PubMed", Tool;
    QueritSearch => "QueritSearch", Tool;
    QueritContents => "QueritContents", Tool;
    QWeather => "QWeather", Tool;
    Retrieval => "Retrieval", Tool;
    SearXng => "SearXNG", Tool;
    TavilySearch => "TavilySearch", Tool;
    TavilyExtract => "TavilyExtract", Tool;
    TuShare => "TuShare", Tool;
    WenCai => "WenCai", Tool;
    Wikipedia => "Wikipedia", Tool;
    YahooFinance => "YahooFinance", Tool;
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
