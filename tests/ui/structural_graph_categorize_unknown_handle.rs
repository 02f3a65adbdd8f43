//! `fixtures/broken/structural-graph-categorize-unknown-handle.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/structural-graph-categorize-unknown-handle.json");
}
