//! `fixtures/broken/unreachable-reference-downstream-node.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/unreachable-reference-downstream-node.json");
}
