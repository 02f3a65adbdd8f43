//! `fixtures/broken/unknown-kind-misspelt-message.json`: its checker errors are compile errors.

fn main() {
    let _program = canvasc_macros::canvas!("../fixtures/broken/unknown-kind-misspelt-message.json");
}
