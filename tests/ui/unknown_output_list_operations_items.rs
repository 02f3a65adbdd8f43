//! `fixtures/broken/unknown-output-list-operations-items.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/unknown-output-list-operations-items.json");
}
