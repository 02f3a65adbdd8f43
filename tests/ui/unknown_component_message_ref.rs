//! `fixtures/broken/unknown-component-message-ref.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/unknown-component-message-ref.json");
}
