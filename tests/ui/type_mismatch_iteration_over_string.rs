//! `fixtures/broken/type-mismatch-iteration-over-string.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/type-mismatch-iteration-over-string.json");
}
