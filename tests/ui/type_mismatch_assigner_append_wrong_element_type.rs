//! `fixtures/broken/type-mismatch-assigner-append-wrong-element-type.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/type-mismatch-assigner-append-wrong-element-type.json");
}
