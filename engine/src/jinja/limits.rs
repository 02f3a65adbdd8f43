//! What a template may use: templates are user input, so nesting depth, loop work, output
//! size and `range()` are bounded.

/// The sandbox's `MAX_RANGE`: `range()` with more items raises `OverflowError`.
pub const MAX_RANGE: usize = 100_000;
/// Nesting of statements, expressions and macro calls together (Python's recursion limit plays
/// this role in Jinja2; exceeding it raises `RecursionError`).
pub const MAX_DEPTH: usize = 1000;
/// Statements and expressions evaluated per render, so a template cannot run unboundedly.
pub const MAX_STEPS: u64 = 20_000_000;
/// Largest text a render may produce (bytes).
pub const MAX_OUTPUT: usize = 64 << 20;
