//! The value types the checker reasons about.

use std::fmt;

/// The static type of a component output, a global or a typed parameter slot.
///
/// `Any` is the top type: the checker never reports a mismatch against it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Any,
    String,
    Number,
    Boolean,
    Object,
    Array(Box<Ty>),
    /// An uploaded file value (a descriptor or a list of descriptors before Begin resolves it).
    File,
}

impl Ty {
    pub fn array_of(elem: Ty) -> Ty {
        Ty::Array(Box::new(elem))
    }

    /// Parse the type spellings RAGFlow DSLs use in `outputs`, form fields and variables:
    /// `string`, `str`, `String`, `number`, `integer`, `boolean`, `object`, `Array<string>`,
    /// `array<object>`, `Array of Object`, `list`, `file`, `line`, `paragraph`, `options`, ….
    /// Anything unrecognised is `Any`, so an unusual spelling can never cause a false error.
    pub fn parse(spelling: &str) -> Ty {
        let s = spelling.trim();
        let lower = s.to_ascii_lowercase();
        if let Some(inner) = lower
            .strip_prefix("array<")
            .and_then(|r| r.strip_suffix('>'))
        {
            return Ty::array_of(Ty::parse(inner));
        }
        if let Some(inner) = lower.strip_prefix("array of ") {
            return Ty::array_of(Ty::parse(inner));
        }
        match lower.as_str() {
            "string" | "str" | "line" | "paragraph" | "text" | "options" | "<class 'str'>" => {
                Ty::String
            }
            "number" | "integer" | "int" | "float" | "<class 'int'>" | "<class 'float'>" => {
                Ty::Number
            }
            "boolean" | "bool" | "<class 'bool'>" => Ty::Boolean,
            "object" | "dict" | "json" | "<class 'dict'>" => Ty::Object,
            "array" | "list" | "<class 'list'>" => Ty::array_of(Ty::Any),
            "file" => Ty::File,
            _ => Ty::Any,
        }
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Ty::Array(_))
    }

    /// True when a value of this type can never be an array (so iterating it must fail).
    pub fn is_definitely_not_array(&self) -> bool {
        matches!(self, Ty::String | Ty::Number | Ty::Boolean | Ty::Object)
    }

    /// True when Python's `numbers.Number` check holds for every value of this type.
    pub fn is_numeric(&self) -> bool {
        matches!(self, Ty::Number | Ty::Boolean)
    }

    /// The element type when this is an array.
    pub fn element(&self) -> Option<&Ty> {
        match self {
            Ty::Array(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Any => f.write_str("any"),
            Ty::String => f.write_str("string"),
            Ty::Number => f.write_str("number"),
            Ty::Boolean => f.write_str("boolean"),
            Ty::Object => f.write_str("object"),
            Ty::Array(e) => write!(f, "array<{e}>"),
            Ty::File => f.write_str("file"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ragflow_type_spellings() {
        assert_eq!(Ty::parse("Array<string>"), Ty::array_of(Ty::String));
        assert_eq!(Ty::parse("Array of Object"), Ty::array_of(Ty::Object));
        assert_eq!(Ty::parse("str"), Ty::String);
        assert_eq!(Ty::parse("list"), Ty::array_of(Ty::Any));
        assert_eq!(Ty::parse("Array of ?"), Ty::array_of(Ty::Any));
        assert_eq!(Ty::parse("?"), Ty::Any);
        assert_eq!(Ty::parse("integer"), Ty::Number);
    }
}
