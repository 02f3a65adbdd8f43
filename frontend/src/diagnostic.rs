//! Diagnostics: what the loader and the checker report, with exact locations.

use serde::Serialize;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

macro_rules! codes {
    ($($variant:ident => $name:literal, $severity:ident, $summary:literal;)*) => {
        /// Every diagnostic code `canvasc check` can report (architecture.md §5).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $($variant,)* }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            pub const fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $name,)* }
            }

            /// Severity in build mode; lints are warnings unless `--deny-warnings`.
            pub const fn default_severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)* }
            }

            /// One line saying what the code means, for `canvasc explain`-style listings.
            pub const fn summary(self) -> &'static str {
                match self { $(Code::$variant => $summary,)* }
            }
        }
    };
}

codes! {
    UnknownComponent => "unknown-component", Error, "a reference names no component";
    UnknownOutput => "unknown-output", Error, "the component exists but has no such output";
    UnreachableReference => "unreachable-reference", Error, "the referenced component can never have run when this one runs";
    UnknownGlobal => "unknown-global", Error, "a sys.* or env.* name that is not defined";
    TypeMismatch => "type-mismatch", Error, "a typed slot receives a value of an incompatible type";
    DanglingEdge => "dangling-edge", Error, "an edge or route names no component";
    UnknownKind => "unknown-kind", Error, "component_name is not a known component or tool";
    Structural => "structural", Error, "the canvas cannot run as written";
    MaybeUnset => "maybe-unset", Warning, "the referenced component runs only on some paths to this one";
    InertReference => "inert-reference", Warning, "text that looks like a reference but is sent verbatim";
    LoopNeverRuns => "loop-never-runs", Warning, "a Loop whose body can never run";
    LegacyKind => "legacy-kind", Warning, "a legacy component: a name RAGFlow can no longer load (an error), or a node it runs as a no-op";
    OutOfRange => "out-of-range", Warning, "a number RAGFlow accepts that fails when the component runs";
    UnsupportedKind => "unsupported-kind", Warning, "a component or tool RAGFlow runs and this build of canvasc cannot";
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One finding, located by component, JSON pointer into the source document and, for a
/// problem inside a string parameter, the byte span within that (decoded) string.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    /// The raw id of the component the finding is about, when it is about one.
    pub component: Option<String>,
    /// RFC 6901 pointer into the source document (`""` is the whole document).
    pub pointer: String,
    /// `[start, end)` byte offsets within the string value at `pointer`.
    pub span: Option<(usize, usize)>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: code.default_severity(),
            code,
            message: message.into(),
            component: None,
            pointer: String::new(),
            span: None,
            help: None,
        }
    }

    pub fn component(mut self, id: impl Into<String>) -> Self {
        self.component = Some(id.into());
        self
    }

    pub fn at(mut self, pointer: impl Into<String>) -> Self {
        self.pointer = pointer.into();
        self
    }

    pub fn span(mut self, start: usize, end: usize) -> Self {
        self.span = Some((start, end));
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// How findings are graded: build mode fails on errors; draft mode demotes everything to
/// warnings; `deny_warnings` promotes warnings to errors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Grading {
    pub draft: bool,
    pub deny_warnings: bool,
}

impl Grading {
    pub fn apply(self, diags: &mut [Diagnostic]) {
        for d in diags {
            if self.draft {
                d.severity = Severity::Warning;
            } else if self.deny_warnings {
                d.severity = Severity::Error;
            }
        }
    }
}

/// Escape one reference token for an RFC 6901 JSON pointer.
pub fn pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Append tokens to a JSON pointer.
pub fn pointer_join(base: &str, tokens: &[&str]) -> String {
    let mut out = base.to_string();
    for t in tokens {
        out.push('/');
        out.push_str(&pointer_token(t));
    }
    out
}

/// The closest candidate to `wanted` (case-insensitive edit distance), if it is close enough to
/// be a plausible typo.
pub fn closest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let w = wanted.to_lowercase();
    let mut best: Option<(f64, &str)> = None;
    for c in candidates {
        let score = strsim::normalized_damerau_levenshtein(&w, &c.to_lowercase());
        let contains = !w.is_empty() && c.to_lowercase().contains(&w);
        let score = if contains { score.max(0.75) } else { score };
        if score >= 0.5 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_escape_slash_and_tilde() {
        assert_eq!(pointer_join("", &["a/b", "c~d", "0"]), "/a~1b/c~0d/0");
    }

    #[test]
    fn closest_finds_typos_and_rejects_unrelated_names() {
        assert_eq!(
            closest("contnet", ["content", "structured"]),
            Some("content")
        );
        assert_eq!(closest("xyz", ["content", "structured"]), None);
    }
}
