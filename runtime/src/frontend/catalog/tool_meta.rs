//! Tool function metadata (placeholder until the data lands).

use super::Kind;

/// The function schema a tool exposes to a model (`meta` of RAGFlow's `ToolParamBase`).
#[derive(Debug)]
pub struct ToolMeta {
    pub function_name: &'static str,
    pub description: &'static str,
    pub parameters: &'static [MetaParam],
}

/// One entry of `meta.parameters`.
#[derive(Debug)]
pub struct MetaParam {
    pub name: &'static str,
    pub ty: &'static str,
    pub description: &'static str,
    /// JSON text of the default, when the meta declares one.
    pub default: Option<&'static str>,
    pub required: bool,
    pub enum_values: &'static [&'static str],
    /// JSON text of the `items` schema, for array parameters.
    pub items: Option<&'static str>,
    pub display_description: Option<&'static str>,
}

pub fn tool_meta(_kind: Kind) -> Option<&'static ToolMeta> {
    None
}
