//! `fixtures/broken/type-mismatch-assigner-add-to-string.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/type-mismatch-assigner-add-to-string.json");
}
