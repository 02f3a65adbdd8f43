//! `fixtures/broken/type-mismatch-variable-assigner-all-operators.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/type-mismatch-variable-assigner-all-operators.json");
}
